"""The custom properties an import puts on the objects it makes, and an export reads
back: where an object came from (file path, hash, format, version), a hash of its
geometry, and what the add-on added beside the glTF route (LODs, hulls, FACS keys)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import bpy

PROP_PATH = "meshcodec_path"
PROP_SHA = "meshcodec_sha256"
PROP_FORMAT = "meshcodec_format"
PROP_VERSION = "meshcodec_version"
PROP_GEOMETRY = "meshcodec_geometry"
#: The level of detail an object holds (every object of an ``all_lods`` import).
PROP_LOD = "meshcodec_lod"
#: ``"hull"`` on a CSGPHS hull's wire child object: shown, not exported but as hulls.
PROP_ROLE = "meshcodec_role"
#: The index in its file of the hull a CSGPHS hull's wire child object holds.
PROP_HULL = "meshcodec_hull"
#: The number of shape keys made from the file's FACS controls.
PROP_FACS = "meshcodec_facs_controls"
#: The level of detail a single-level FileMesh import holds.
PROP_LEVEL = "meshcodec_level"
#: Hashes of everything of a mesh object but its vertex positions, by part (faces, UVs,
#: colours, vertex groups, rig: ``geometry.rest_parts``), kept when its vertices are the
#: file's in order: an export that finds all but the UVs unchanged writes the moved
#: positions and edited UVs into the file itself (``File.with_mesh``).
PROP_REST = "meshcodec_all_but_positions"


def is_helper(o: "bpy.types.Object") -> bool:
    """An object the add-on made beside the imported geometry (a hull's wire copy)."""
    return o.get(PROP_ROLE) is not None
