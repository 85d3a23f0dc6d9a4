"""Blender as a real client of meshcodec's glTF exports (run by tests/interchange/blender.rs).

    blender -b --factory-startup --python tests/blender/check_exports.py -- MANIFEST.json

MANIFEST.json lists exports and what Blender must show after importing each with its
own glTF importer: vertex, triangle, bone, shape-key and action counts (and, where an
entry has "objects", the number of mesh objects), and the bounding
box of the mesh vertices in Blender's world (+Z up). The expected box is the source
file's own numbers turned to Blender's axes, so a model that lies on its back fails.

Prints one line per file, "OK name" or "FAIL name: what differs", then "DONE n".
"""
import json
import sys

import numpy

# Debian's Blender 3.4 glTF importer still uses numpy.bool, gone from numpy 1.24 on.
numpy.bool = bool

import bpy  # noqa: E402  (Blender's module: only inside Blender)
from mathutils import Vector  # noqa: E402


def imported(path):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.import_scene.gltf(filepath=path)
    meshes = [o for o in bpy.data.objects if o.type == "MESH"]
    armatures = [o for o in bpy.data.objects if o.type == "ARMATURE"]
    lo = [float("inf")] * 3
    hi = [float("-inf")] * 3
    for o in meshes:
        m = o.matrix_world
        for v in o.data.vertices:
            w = m @ Vector(v.co)
            for k in range(3):
                lo[k] = min(lo[k], w[k])
                hi[k] = max(hi[k], w[k])
    return {
        "objects": len(meshes),
        "vertices": sum(len(o.data.vertices) for o in meshes),
        "triangles": sum(len(p.vertices) - 2 for o in meshes for p in o.data.polygons),
        "bones": sum(len(a.data.bones) for a in armatures),
        "shape_keys": sum(
            len(o.data.shape_keys.key_blocks) - 1 for o in meshes if o.data.shape_keys
        ),
        "actions": len(bpy.data.actions),
        "bbox": (lo, hi) if meshes else None,
    }


def close(a, b, scale):
    return abs(a - b) <= 1e-4 * max(1.0, scale)


def main():
    manifest = json.load(open(sys.argv[sys.argv.index("--") + 1]))
    for e in manifest:
        try:
            got = imported(e["glb"])
        except Exception as err:  # an importer error is a failure, not a crash
            print(f"FAIL {e['name']}: import raised {err!r}", flush=True)
            continue
        wrong = []
        for key in ("objects", "vertices", "triangles", "bones", "shape_keys", "actions"):
            if key in e and got[key] != e[key]:
                wrong.append(f"{key} {got[key]} (expected {e[key]})")
        if e["bbox_min"] is not None:
            if got["bbox"] is None:
                wrong.append("no mesh")
            else:
                lo, hi = got["bbox"]
                scale = max(abs(x) for x in e["bbox_min"] + e["bbox_max"])
                for k, axis in enumerate("xyz"):
                    if not (
                        close(lo[k], e["bbox_min"][k], scale)
                        and close(hi[k], e["bbox_max"][k], scale)
                    ):
                        wrong.append(
                            f"{axis} extent {lo[k]:.6g}..{hi[k]:.6g} "
                            f"(expected {e['bbox_min'][k]:.6g}..{e['bbox_max'][k]:.6g})"
                        )
        print(("FAIL " + e["name"] + ": " + "; ".join(wrong)) if wrong else "OK " + e["name"], flush=True)
    print(f"DONE {len(manifest)}", flush=True)


main()
