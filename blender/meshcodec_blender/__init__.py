"""meshcodec for Blender: import and export Roblox FileMesh 1.00-7.00, CSGPHS, union
graphics (CSGMDL), UNIGINE .mesh/.anim and STF, byte-exact when untouched.

The add-on is a thin layer over the Python package ``meshcodec`` (bundled in this zip
under ``vendor/``): a file is read by meshcodec, handed to Blender's own glTF importer
(with ``bone_heuristic='BLENDER'``, which keeps bone orientations), and tagged with
where it came from; an export goes the other way through Blender's glTF exporter and
``meshcodec.import_file``. An object exported back to its own file's format and
version without any change to its geometry writes the file's original bytes.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile

import bpy
from bpy.props import BoolProperty, EnumProperty, IntProperty, StringProperty
from bpy_extras.io_utils import ExportHelper, ImportHelper

bl_info = {
    "name": "meshcodec",
    "author": "meshcodec",
    "version": (0, 1, 0),
    "blender": (3, 4, 0),
    "location": "File > Import/Export > meshcodec",
    "description": "Roblox FileMesh, CSGPHS, union graphics, UNIGINE and STF, exactly",
    "category": "Import-Export",
}

_VENDOR = os.path.join(os.path.dirname(__file__), "vendor")
if os.path.isdir(_VENDOR) and _VENDOR not in sys.path:
    sys.path.insert(0, _VENDOR)

# Custom properties put on imported objects (and read back on export).
PROP_PATH = "meshcodec_path"
PROP_SHA = "meshcodec_sha256"
PROP_FORMAT = "meshcodec_format"
PROP_VERSION = "meshcodec_version"
PROP_GEOMETRY = "meshcodec_geometry"

TARGETS = [
    ("SOURCE", "As imported", "The imported file's own format and version (FileMesh 4.00 for a new mesh)"),
    ("1.00", "FileMesh 1.00", ""),
    ("1.01", "FileMesh 1.01", ""),
    ("2.00", "FileMesh 2.00", ""),
    ("3.00", "FileMesh 3.00", ""),
    ("3.01", "FileMesh 3.01", ""),
    ("4.00", "FileMesh 4.00", ""),
    ("4.01", "FileMesh 4.01", ""),
    ("5.00", "FileMesh 5.00", ""),
    ("6.00", "FileMesh 6.00", ""),
    ("7.00", "FileMesh 7.00", ""),
    ("csgphs:7", "CSGPHS 7", "Collision hulls"),
    ("csgmdl:5", "Union graphics 5", ""),
    ("unigine:ms13", "UNIGINE ms13", ""),
    ("unigine:ms14", "UNIGINE ms14", ""),
    ("stf", "STF", ""),
]


def _numpy_bool() -> None:
    # Debian's Blender 3.4 glTF add-on still uses numpy.bool, gone from NumPy 1.24 on.
    import numpy

    if not hasattr(numpy, "bool"):
        numpy.bool = bool  # type: ignore[attr-defined]


def geometry_hash(objects) -> str:
    """A hash of the objects' vertex positions and faces (world space)."""
    h = hashlib.sha256()
    for o in sorted(objects, key=lambda o: o.name):
        if o.type != "MESH":
            continue
        m = o.matrix_world
        for v in o.data.vertices:
            h.update(repr(tuple(round(x, 6) for x in (m @ v.co))).encode())
        for p in o.data.polygons:
            h.update(repr(tuple(p.vertices)).encode())
    return h.hexdigest()


def import_file(context, path: str, lod: int = 0, all_lods: bool = False):
    """Reads ``path`` with meshcodec and brings it into the scene; returns the new
    objects and the lines of what the glTF route leaves out."""
    import meshcodec

    _numpy_bool()
    data = open(path, "rb").read()
    f = meshcodec.open(data)
    before = set(bpy.data.objects)
    with tempfile.TemporaryDirectory() as tmp:
        glb = os.path.join(tmp, os.path.splitext(os.path.basename(path))[0] + ".glb")
        left_out = f.export(glb, lod=lod, all_lods=all_lods)
        bpy.ops.import_scene.gltf(filepath=glb, bone_heuristic="BLENDER")
    new = [o for o in bpy.data.objects if o not in before]
    sha = hashlib.sha256(data).hexdigest()
    geometry = geometry_hash(new)
    for o in new:
        o[PROP_PATH] = os.path.abspath(path)
        o[PROP_SHA] = sha
        o[PROP_FORMAT] = f.format
        o[PROP_VERSION] = f.version
        o[PROP_GEOMETRY] = geometry
    return new, left_out


def _target_of(objects, to: str):
    """The ``--to`` for an export: the asked one, or the source's, or FileMesh 4.00."""
    if to != "SOURCE":
        return to
    for o in objects:
        if PROP_FORMAT in o and PROP_VERSION in o:
            fmt, version = o[PROP_FORMAT], o[PROP_VERSION]
            prefix = {"filemesh": "filemesh", "csgphs": "csgphs", "csgmdl": "csgmdl",
                      "unigine-mesh": "unigine", "stf": "stf"}.get(fmt)
            if prefix == "stf":
                return "stf"
            if prefix:
                return f"{prefix}:{version}"
    return "4.00"


def _untouched_source(objects, target: str):
    """The source file's bytes when every object comes unchanged from one file (still
    as it was) and the target is that file's own format and version; else None."""
    paths = {o.get(PROP_PATH) for o in objects}
    if len(paths) != 1 or None in paths:
        return None
    o = objects[0]
    if target not in (_target_of(objects, "SOURCE"), o.get(PROP_VERSION)):
        return None
    if geometry_hash(objects) != o.get(PROP_GEOMETRY) or not os.path.isfile(o[PROP_PATH]):
        return None
    data = open(o[PROP_PATH], "rb").read()
    return data if hashlib.sha256(data).hexdigest() == o.get(PROP_SHA) else None


def export_file(context, path: str, objects, to: str = "SOURCE", allow_lossy: bool = False):
    """Writes ``objects`` to ``path`` as ``to``; returns the report's lines. Raises
    meshcodec.LossyConversion when the target loses data and ``allow_lossy`` is off."""
    import meshcodec

    _numpy_bool()
    target = _target_of(objects, to)
    original = _untouched_source(objects, target)
    if original is not None:
        # Written as the package writes: atomically, the file's own bytes.
        meshcodec.open(original).save(path)
        return []
    with tempfile.TemporaryDirectory() as tmp:
        glb = os.path.join(tmp, "export.glb")
        for o in context.view_layer.objects:
            o.select_set(o in objects)
        bpy.ops.export_scene.gltf(filepath=glb, export_format="GLB", use_selection=True)
        f = meshcodec.import_file(glb, target, allow_lossy=allow_lossy)
    f.save(path)
    return f.losses


class IMPORT_SCENE_OT_meshcodec(bpy.types.Operator, ImportHelper):
    """Import a Roblox mesh, CSG data, union graphics, UNIGINE mesh or STF file"""

    bl_idname = "import_scene.meshcodec"
    bl_label = "Import meshcodec"
    bl_options = {"REGISTER", "UNDO"}

    filter_glob: StringProperty(default="*.mesh;*.bin;*.anim;*.stf;*", options={"HIDDEN"})
    lod: IntProperty(name="Level of detail", default=0, min=0, description="FileMesh: the LOD to import (0: full detail)")
    all_lods: BoolProperty(name="Every LOD", default=False, description="FileMesh: every LOD, one object each")

    def execute(self, context):
        import meshcodec

        try:
            _, left_out = import_file(context, self.filepath, self.lod, self.all_lods)
        except (meshcodec.FormatError, OSError, ValueError) as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        for line in left_out:
            self.report({"WARNING"}, f"not imported: {line}")
        return {"FINISHED"}


class EXPORT_SCENE_OT_meshcodec(bpy.types.Operator, ExportHelper):
    """Export the selected meshes as a Roblox mesh, CSG data, union graphics, UNIGINE mesh or STF file"""

    bl_idname = "export_scene.meshcodec"
    bl_label = "Export meshcodec"

    filename_ext = ".mesh"
    filter_glob: StringProperty(default="*.mesh;*.bin;*.stf", options={"HIDDEN"})
    to: EnumProperty(name="Format", items=TARGETS, default="SOURCE")
    allow_lossy: BoolProperty(name="Allow losses", default=False, description="Write even when the format cannot hold everything")

    def execute(self, context):
        import meshcodec

        objects = [o for o in context.selected_objects] or [o for o in context.view_layer.objects]
        try:
            lines = export_file(context, self.filepath, objects, self.to, self.allow_lossy)
        except meshcodec.LossyConversion as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        except (meshcodec.FormatError, OSError, ValueError) as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        for line in lines:
            self.report({"WARNING"}, f"dropped: {line}")
        return {"FINISHED"}


def _menu_import(self, context):
    self.layout.operator(IMPORT_SCENE_OT_meshcodec.bl_idname, text="meshcodec (.mesh, .bin, .stf)")


def _menu_export(self, context):
    self.layout.operator(EXPORT_SCENE_OT_meshcodec.bl_idname, text="meshcodec (.mesh, .bin, .stf)")


CLASSES = (IMPORT_SCENE_OT_meshcodec, EXPORT_SCENE_OT_meshcodec)


def register():
    for c in CLASSES:
        bpy.utils.register_class(c)
    bpy.types.TOPBAR_MT_file_import.append(_menu_import)
    bpy.types.TOPBAR_MT_file_export.append(_menu_export)


def unregister():
    bpy.types.TOPBAR_MT_file_export.remove(_menu_export)
    bpy.types.TOPBAR_MT_file_import.remove(_menu_import)
    for c in reversed(CLASSES):
        bpy.utils.unregister_class(c)
