"""Import: a file read by meshcodec, brought in through Blender's glTF importer, then
what glTF cannot carry added from the package (FACS controls as shape keys, CSGPHS hulls
as wire child objects, every LOD in a collection), every object tagged with its file."""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from typing import Any, Dict, List, Tuple

import bpy

from .axes import numpy_bool, to_blender
from .facs import add_facs_shape_keys
from .geometry import geometry_hash, rest_parts, vertex_map
from .tags import (PROP_FORMAT, PROP_GEOMETRY, PROP_HULL, PROP_LEVEL, PROP_LOD, PROP_PATH, PROP_REST, PROP_ROLE,
                   PROP_SHA, PROP_VERSION)


def add_hulls(parent: "bpy.types.Object", f: Any) -> List["bpy.types.Object"]:
    """CSGPHS ``f``'s hulls as wire child objects of ``parent``, one per hull (named
    ``hull 0`` ...), in the file's order: the mesh holds each hull's vertices, then its
    faces, one after the other (``info()["hull_counts"]``)."""
    m = f.mesh()
    positions = to_blender(m.positions, f.format)
    hulls = []
    v0 = f0 = 0
    for i, counts in enumerate(f.info().get("hull_counts", [])):
        nv, nf = counts["vertices"], counts["faces"]
        faces = (m.faces[f0 : f0 + nf].astype("int64") - v0).tolist()
        mesh = bpy.data.meshes.new(f"{parent.name} hull {i}")
        mesh.from_pydata(positions[v0 : v0 + nv].tolist(), [], faces)
        mesh.update()
        o = bpy.data.objects.new(f"{parent.name} hull {i}", mesh)
        for c in parent.users_collection:
            c.objects.link(o)
        o.parent = parent
        o.display_type = "WIRE"
        o[PROP_ROLE] = "hull"
        o[PROP_HULL] = i
        hulls.append(o)
        v0, f0 = v0 + nv, f0 + nf
    return hulls


_LOD_NAME = re.compile(r"LOD ?(\d+)$")


def gather_lods(context: Any, objects: List["bpy.types.Object"], name: str) -> "bpy.types.Collection":
    """Moves the objects of an every-LOD import into a new collection ``name``: the mesh
    of level k named ``LOD<k>`` (and tagged with k), the armature beside them."""
    coll = bpy.data.collections.new(name)
    context.scene.collection.children.link(coll)
    for o in objects:
        for c in list(o.users_collection):
            c.objects.unlink(o)
        coll.objects.link(o)
        found = _LOD_NAME.search(o.name) if o.type == "MESH" else None
        if found:
            o[PROP_LOD] = int(found.group(1))
            o.name = f"LOD{int(found.group(1))}"
    return coll


def _gltf_import_options() -> Dict[str, Any]:
    """Options of newer glTF importers that keep the import as Debian's 3.4 makes it:
    no bone shape objects (4.x adds an icosphere mesh for them), objects in the scene's
    collection."""
    have = bpy.ops.import_scene.gltf.get_rna_type().properties.keys()
    wanted = {"disable_bone_shape": True, "import_scene_as_collection": False}
    return {k: v for k, v in wanted.items() if k in have}


def import_file(context: Any, path: str, lod: int = 0, all_lods: bool = False) -> Tuple[List[Any], List[str]]:
    """Reads ``path`` with meshcodec and brings it into the scene; returns the new
    objects and the lines of what the glTF route leaves out.

    FileMesh: level ``lod`` (or, ``all_lods``, a collection named after the file with
    one object per level, ``LOD0`` ...), FACS controls as shape keys. CSGPHS: the hulls
    also as wire child objects. Every object remembers the file (path, hash, format,
    version) and a hash of the geometry, for the untouched export."""
    import meshcodec

    numpy_bool()
    data = open(path, "rb").read()
    f = meshcodec.open(data)
    before = set(bpy.data.objects)
    stem = os.path.splitext(os.path.basename(path))[0]
    with tempfile.TemporaryDirectory() as tmp:
        glb = os.path.join(tmp, stem + ".glb")
        left_out = f.export(glb, lod=lod, all_lods=all_lods)
        bpy.ops.import_scene.gltf(filepath=glb, bone_heuristic="BLENDER", **_gltf_import_options())
    new = [o for o in bpy.data.objects if o not in before]
    meshes = [o for o in new if o.type == "MESH"]
    if all_lods and f.format == "filemesh":
        gather_lods(context, new, stem)
        lods = [int(o.get(PROP_LOD, 0)) for o in meshes]
    else:
        lods = [lod] * len(meshes)
    if f.format == "filemesh" and f.mesh().facs_controls:
        n = add_facs_shape_keys(meshes, f, lods)
        left_out = [line for line in left_out if "FACS" not in line] + [
            f"FACS: {n} controls as shape keys (their correctives and the rig are kept with the file only)"
        ]
    if f.format == "csgphs":
        for o in meshes:
            new += add_hulls(o, f)
    if f.format == "filemesh" and not all_lods and len(meshes) == 1:
        import numpy as np

        (o,) = meshes
        level = f.mesh(lod)
        order = np.unique(level.faces)
        if np.array_equal(vertex_map(o, to_blender(level.positions, "filemesh"), level.faces), order):
            o[PROP_LEVEL] = lod
            o[PROP_REST] = rest_parts(o)
    sha = hashlib.sha256(data).hexdigest()
    geometry = geometry_hash(new)
    for o in new:
        o[PROP_PATH] = os.path.abspath(path)
        o[PROP_SHA] = sha
        o[PROP_FORMAT] = f.format
        o[PROP_VERSION] = f.version
        o[PROP_GEOMETRY] = geometry
    return new, left_out
