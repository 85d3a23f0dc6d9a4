"""meshcodec for Blender: import and export Roblox FileMesh 1.00-7.00, CSGPHS, union
graphics (CSGMDL), UNIGINE .mesh/.anim and STF, byte-exact when untouched.

The add-on is a thin layer over the Python package ``meshcodec`` (bundled in this zip
under ``vendor/``): a file is read by meshcodec, handed to Blender's own glTF importer
(with ``bone_heuristic='BLENDER'``, which keeps bone orientations), and tagged with
where it came from; what glTF cannot carry is added from the package afterwards (FACS
controls as shape keys, CSGPHS hulls as wire child objects, every LOD in a collection).
An export goes the other way through Blender's glTF exporter and
``meshcodec.import_file``, and the written file is read back and checked. An object
exported back to its own file's format and version without any change to its geometry
writes the file's original bytes.

This module holds what Blender sees: ``bl_info``, the operators, the menu entries, the
file handler and ``register``/``unregister``. The work is in the modules beside it,
which never import this one:

- ``importing``: a file into the scene (glTF route, FACS shape keys, hulls, LODs);
- ``exporting``: objects to a file (untouched bytes, edited in place, glTF route);
- ``checks``: the skin influence check and the read-back check of an export;
- ``geometry``: hashes of objects and the map of Blender's vertices to the file's;
- ``axes``: positions between a file's axes and Blender's, and the NumPy shim;
- ``tags``: the custom properties that tie an object to its file.
"""

from __future__ import annotations

import os
import sys
from typing import List, Tuple

import bpy
from bpy.props import BoolProperty, CollectionProperty, EnumProperty, IntProperty, StringProperty
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

if "importing" in locals():
    # The add-on reloaded (Reload Scripts, or re-enabled after a change on disk): its
    # modules too, each after those it imports.
    import importlib

    for _module in (tags, axes, geometry, facs, checks, importing, exporting):  # noqa: F821
        importlib.reload(_module)

from . import axes, checks, exporting, facs, geometry, importing, tags  # noqa: E402,F401

# The names the add-on had as one file stay importable from it (the tests use PROP_*,
# read_back and ReadBackError).
from .axes import Y_UP_FORMATS, from_blender, to_blender  # noqa: E402,F401
from .checks import (MAX_INFLUENCES, FacsNotCarried, ReadBackError, SkinInfluences, excess_influences,  # noqa: E402,F401
                     file_triangles, read_back)
from .exporting import edited_in_place, export_file, export_objects, hulls_in_place, with_companions  # noqa: E402,F401
from .facs import add_facs_shape_keys, facs_keys_changed  # noqa: E402,F401
from .geometry import all_but_positions, blender_positions, deforming_armature, geometry_hash, vertex_map  # noqa: E402,F401
from .importing import add_hulls, gather_lods, import_file  # noqa: E402,F401
from .tags import (PROP_FACS, PROP_FORMAT, PROP_GEOMETRY, PROP_HULL, PROP_LEVEL, PROP_LOD, PROP_PATH,  # noqa: E402,F401
                   PROP_REST, PROP_ROLE, PROP_SHA, PROP_VERSION)

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

#: The extensions drag and drop (Blender 4.1+ file handlers) hands to the importer.
EXTENSIONS = ".mesh;.bin;.anim;.stf"


class IMPORT_SCENE_OT_meshcodec(bpy.types.Operator, ImportHelper):
    """Import a Roblox mesh, CSG data, union graphics, UNIGINE mesh or STF file"""

    bl_idname = "import_scene.meshcodec"
    bl_label = "Import meshcodec"
    bl_options = {"REGISTER", "UNDO"}

    filter_glob: StringProperty(default="*.mesh;*.bin;*.anim;*.stf;*", options={"HIDDEN"})
    files: CollectionProperty(type=bpy.types.OperatorFileListElement, options={"HIDDEN", "SKIP_SAVE"})
    directory: StringProperty(subtype="DIR_PATH", options={"HIDDEN", "SKIP_SAVE"})
    lod: IntProperty(name="Level of detail", default=0, min=0, description="FileMesh: the LOD to import (0: full detail)")
    all_lods: BoolProperty(name="Every LOD", default=False,
                           description="FileMesh: every LOD, one object each (LOD0 ...) in a collection")

    def paths(self) -> List[str]:
        """The files to import: those dropped or picked (``directory`` + ``files``), or
        ``filepath``."""
        names = [f.name for f in self.files if f.name]
        if self.directory and names:
            return [os.path.join(self.directory, n) for n in names]
        return [self.filepath]

    def invoke(self, context, event):
        """A drop (file handler) imports at once; the menu opens the file browser."""
        if self.filepath or (self.directory and len(self.files)):
            # Dropped on a window (file handler): no file browser.
            return self.execute(context)
        return super().invoke(context, event)

    def execute(self, context):
        """Imports each file; a file that cannot be read cancels with its reason."""
        import meshcodec

        for path in self.paths():
            try:
                _, left_out = import_file(context, path, self.lod, self.all_lods)
            except (meshcodec.FormatError, OSError, ValueError) as e:
                self.report({"ERROR"}, f"{os.path.basename(path)}: {e}")
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
        """Exports the selection (or every object); losses are warnings, a refusal or a
        failed read-back an error."""
        import meshcodec

        objects = [o for o in context.selected_objects] or [o for o in context.view_layer.objects]
        try:
            lines = export_file(context, self.filepath, objects, self.to, self.allow_lossy)
        except (meshcodec.LossyConversion, SkinInfluences, FacsNotCarried, ReadBackError) as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        except (meshcodec.FormatError, OSError, ValueError) as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        for line in lines:
            self.report({"WARNING"}, f"dropped: {line}")
        return {"FINISHED"}


def _menu_import(self, context):
    """File > Import entry."""
    self.layout.operator(IMPORT_SCENE_OT_meshcodec.bl_idname, text="meshcodec (.mesh, .bin, .stf)")


def _menu_export(self, context):
    """File > Export entry."""
    self.layout.operator(EXPORT_SCENE_OT_meshcodec.bl_idname, text="meshcodec (.mesh, .bin, .stf)")


CLASSES: Tuple[type, ...] = (IMPORT_SCENE_OT_meshcodec, EXPORT_SCENE_OT_meshcodec)

if hasattr(bpy.types, "FileHandler"):  # Blender 4.1+: drag and drop onto the 3D view

    class IO_FH_meshcodec(bpy.types.FileHandler):
        """Files dropped on the 3D view or the outliner go to the meshcodec importer."""

        bl_idname = "IO_FH_meshcodec"
        bl_label = "meshcodec"
        bl_import_operator = IMPORT_SCENE_OT_meshcodec.bl_idname
        bl_file_extensions = EXTENSIONS

        @classmethod
        def poll_drop(cls, context):
            """Takes drops on the 3D view and the outliner only."""
            area = context.area
            return area is not None and area.type in {"VIEW_3D", "OUTLINER"}

    CLASSES += (IO_FH_meshcodec,)


def register() -> None:
    """Registers the operators, the menu entries and (4.1+) the file handler."""
    for c in CLASSES:
        bpy.utils.register_class(c)
    bpy.types.TOPBAR_MT_file_import.append(_menu_import)
    bpy.types.TOPBAR_MT_file_export.append(_menu_export)


def unregister() -> None:
    """Undoes :func:`register`."""
    bpy.types.TOPBAR_MT_file_export.remove(_menu_export)
    bpy.types.TOPBAR_MT_file_import.remove(_menu_import)
    for c in reversed(CLASSES):
        bpy.utils.unregister_class(c)
