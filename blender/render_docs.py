"""Renders the README's pictures of the add-on: one file of each format imported in
headless Blender and drawn with Workbench into ``docs/blender-*.png`` (400x300).

    python3 blender/build.py
    BLENDER_USER_SCRIPTS=$(mktemp -d) blender -b --factory-startup \\
        --python blender/render_docs.py -- ZIP CORPUS

``ZIP`` is the add-on zip build.py prints, ``CORPUS`` the folder of real files
(``MESHCODEC_CORPUS``); the files drawn are named in ``PICTURES`` below, relative to it.
"""

from __future__ import annotations

import math
import pathlib
import sys
from typing import List, Tuple

import bpy
from mathutils import Vector

ARGS = sys.argv[sys.argv.index("--") + 1 :]
ZIP, CORPUS = ARGS[0], pathlib.Path(ARGS[1])
DOCS = pathlib.Path(__file__).resolve().parents[1] / "docs"

FRONT = (0.35, 1.6, 0.45)

#: (picture, file in the corpus, import options, FACS control posed at full weight,
#: direction the camera looks from)
PICTURES: List[Tuple[str, str, dict, str, Tuple[float, float, float]]] = [
    ("blender-filemesh.png", "roblox/v5.00-13674780763.mesh", {}, "c_JD", FRONT),
    ("blender-csgphs.png", "csg/csgphs8-00.bin", {}, "", (1.2, 1.2, 0.45)),
    ("blender-csgmdl.png", "csgmdl/csgmdl5-13626979828.bin", {}, "", FRONT),
    ("blender-unigine.png", "unigine/ms11-arm-skinned.mesh", {}, "", FRONT),
    ("blender-stf.png", "stf/default-cube.stf", {}, "", FRONT),
    ("blender-lods.png", "roblox/v4.01-sphere.mesh", {"all_lods": True}, "", (0.0, 1.0, 0.15)),
]


def frame(scene: "bpy.types.Scene", view: Tuple[float, float, float]) -> None:
    """A camera looking from ``view`` (the front is +Y: a Roblox mesh faces -Z, which
    the import turns to +Y), with every rendered mesh in view."""
    bpy.context.view_layer.update()
    points = [
        o.matrix_world @ Vector(c)
        for o in scene.objects
        if o.type == "MESH" and not o.hide_render
        for c in o.bound_box
    ]
    lo = Vector(tuple(min(p[i] for p in points) for i in range(3)))
    hi = Vector(tuple(max(p[i] for p in points) for i in range(3)))
    centre, radius = (lo + hi) / 2, max((hi - lo).length / 2, 1e-3)
    cam = bpy.data.objects.new("camera", bpy.data.cameras.new("camera"))
    scene.collection.objects.link(cam)
    # The vertical field of view of a 400x300 picture is the narrower one.
    half = math.atan(math.tan(cam.data.angle / 2) * 300 / 400)
    cam.location = centre + Vector(view).normalized() * radius / math.sin(half) * 1.02
    cam.rotation_euler = (centre - cam.location).to_track_quat("-Z", "Y").to_euler()
    cam.data.clip_end = radius * 10
    scene.camera = cam


def render(name: str, path: pathlib.Path, options: dict, pose: str, view: Tuple[float, float, float]) -> None:
    """Imports ``path`` through the add-on and writes docs/``name``."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.preferences.addon_enable(module="meshcodec_blender")
    assert bpy.ops.import_scene.meshcodec(filepath=str(path), **options) == {"FINISHED"}
    scene = bpy.context.scene
    for o in scene.objects:
        if o.type == "MESH" and o.data.shape_keys is not None and pose in o.data.shape_keys.key_blocks:
            o.data.shape_keys.key_blocks[pose].value = 1.0
    for o in scene.objects:
        if o.get("meshcodec_role") == "hull":
            # Workbench renders no wire-only objects: the hulls drawn solid, each its own
            # colour, in place of the object they collide for.
            o.display_type = "SOLID"
            o.parent.hide_render = True
    if options.get("all_lods"):
        # The levels side by side, finest on the left, flat shaded to show their faces.
        lods = sorted((o for o in scene.objects if o.type == "MESH"), key=lambda o: o.name)
        width = max(o.dimensions.x for o in lods) * 1.1
        for k, o in enumerate(lods):
            o.location.x -= k * width
            bpy.context.view_layer.objects.active = o
            bpy.ops.mesh.customdata_custom_splitnormals_clear()
            o.data.polygons.foreach_set("use_smooth", [False] * len(o.data.polygons))
    frame(scene, view)
    scene.render.engine = "BLENDER_WORKBENCH"
    scene.display.shading.light = "STUDIO"
    scene.display.shading.color_type = "RANDOM"
    scene.render.film_transparent = True
    scene.display.shading.show_cavity = True
    scene.render.resolution_x, scene.render.resolution_y = 400, 300
    scene.render.resolution_percentage = 100
    scene.render.image_settings.file_format = "PNG"
    scene.render.image_settings.color_mode = "RGBA"
    scene.render.image_settings.compression = 100
    scene.render.filepath = str(DOCS / name)
    assert bpy.ops.render.render(write_still=True) == {"FINISHED"}
    print(f"wrote docs/{name}", flush=True)


def main() -> None:
    """Installs the zip and renders every picture."""
    assert bpy.ops.preferences.addon_install(filepath=ZIP, overwrite=True) == {"FINISHED"}
    for name, rel, options, pose, view in PICTURES:
        render(name, CORPUS / rel, options, pose, view)


main()
