"""Blender as a real client of a glTF round trip (run by tests/interchange/blender.rs).

    blender -b --factory-startup --python tests/blender/round_trip.py -- IN.glb OUT.glb

Imports IN with Blender's own glTF importer (bone_heuristic='BLENDER', which keeps the
bones' orientations), exports everything with Blender's own glTF exporter to OUT, and
prints one line "MATERIALS name,name,..." (the material slots of the imported meshes, in
order) and then "DONE".
"""
import sys

import numpy

# Debian's Blender 3.4 glTF importer still uses numpy.bool, gone from numpy 1.24 on.
numpy.bool = bool

import bpy  # noqa: E402  (Blender's module: only inside Blender)


def main():
    src, dst = sys.argv[sys.argv.index("--") + 1 :][:2]
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.import_scene.gltf(filepath=src, bone_heuristic="BLENDER")
    names = [
        s.material.name
        for o in bpy.data.objects
        if o.type == "MESH"
        for s in o.material_slots
        if s.material
    ]
    print("MATERIALS " + ",".join(names), flush=True)
    bpy.ops.export_scene.gltf(filepath=dst, export_format="GLB")
    print("DONE", flush=True)


main()
