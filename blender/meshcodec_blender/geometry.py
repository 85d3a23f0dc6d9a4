"""Hashes and vertex maps of Blender mesh objects: whether an object is still as
imported (its geometry, or everything but its positions: faces, UVs, colours, vertex
groups, shape keys, the armature deforming it), its vertex positions, and which file
vertex each of its vertices is."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any, Dict, Iterable, Optional, Set, Tuple

if TYPE_CHECKING:
    import bpy


def deforming_armature(o: Any) -> Optional[Any]:
    """The armature a mesh object is skinned to (its Armature modifier's), or None."""
    for mod in o.modifiers:
        if mod.type == "ARMATURE" and mod.object is not None:
            return mod.object
    return None


def geometry_hash(objects: Iterable["bpy.types.Object"]) -> str:
    """A hash of the mesh objects' vertex positions (world space), shape keys (each
    key's name, the key it is relative to, and its positions as stored) and everything
    :func:`all_but_positions` hashes (faces, UVs, colours, vertex groups, the rig)."""
    import numpy as np

    h = hashlib.sha256()
    for o in sorted(objects, key=lambda o: o.name):
        if o.type != "MESH":
            continue
        m = o.matrix_world
        for v in o.data.vertices:
            h.update(repr(tuple(round(x, 6) for x in (m @ v.co))).encode())
        h.update(all_but_positions(o).encode())
        keys = o.data.shape_keys
        for block in keys.key_blocks if keys is not None else []:
            co = np.empty(len(block.data) * 3, dtype=np.float32)
            block.data.foreach_get("co", co)
            h.update(repr((block.name, block.relative_key.name)).encode() + co.tobytes())
    return h.hexdigest()


def blender_positions(o: "bpy.types.Object") -> Any:
    """The mesh's vertex positions (object space, basis shape), (N, 3) float64."""
    import numpy as np

    co = np.empty(len(o.data.vertices) * 3, dtype=np.float32)
    o.data.vertices.foreach_get("co", co)
    return co.reshape(-1, 3).astype(np.float64)


def _rig(o: "bpy.types.Object") -> str:
    """The rest pose of the armature deforming mesh object ``o`` (where it stands, each
    bone's name, parent, head, tail and roll), or "" without one."""
    arm = deforming_armature(o)
    if arm is None:
        return ""

    def r(values: Iterable[float]) -> Tuple[float, ...]:
        return tuple(round(x, 6) for x in values)

    rows = [r(x for row in arm.matrix_world for x in row)]
    for b in arm.data.bones:
        rows.append((b.name, b.parent.name if b.parent else None, r(b.head_local), r(b.tail_local),
                     r(x for row in b.matrix_local for x in row)))
    return repr(rows)


def rest_parts(o: "bpy.types.Object") -> Dict[str, str]:
    """Hashes of what a mesh object holds but its positions, one per part: ``faces``,
    ``uvs``, ``colours``, ``groups`` (vertex groups and weights) and ``rig`` (the rest
    pose of the armature deforming it)."""
    import numpy as np

    def sha(*chunks: bytes) -> str:
        h = hashlib.sha256()
        for c in chunks:
            h.update(c)
        return h.hexdigest()

    mesh = o.data
    loops = np.empty(len(mesh.loops), dtype=np.int32)
    mesh.loops.foreach_get("vertex_index", loops)
    starts = np.empty(len(mesh.polygons), dtype=np.int32)
    mesh.polygons.foreach_get("loop_start", starts)
    uvs = []
    for layer in mesh.uv_layers:
        uv = np.empty(len(mesh.loops) * 2, dtype=np.float32)
        layer.data.foreach_get("uv", uv)
        uvs.append(layer.name.encode() + uv.tobytes())
    colours = []
    for layer in getattr(mesh, "color_attributes", None) or getattr(mesh, "vertex_colors", []):
        col = np.empty(len(layer.data) * 4, dtype=np.float32)
        layer.data.foreach_get("color", col)
        colours.append(layer.name.encode() + col.tobytes())
    groups = [repr([g.name for g in o.vertex_groups]).encode()]
    groups += [repr([(g.group, round(g.weight, 6)) for g in v.groups]).encode() for v in mesh.vertices]
    return {
        "faces": sha(loops.tobytes(), starts.tobytes()),
        "uvs": sha(*uvs),
        "colours": sha(*colours),
        "groups": sha(*groups),
        "rig": sha(_rig(o).encode()),
    }


def all_but_positions(o: "bpy.types.Object") -> str:
    """A hash of a mesh object's faces, UVs, colours, vertex groups and the rest pose of
    the armature deforming it (not its positions): :func:`rest_parts` as one."""
    return hashlib.sha256(repr(sorted(rest_parts(o).items())).encode()).hexdigest()


def changed_parts(o: "bpy.types.Object", stored: Any) -> Optional[Set[str]]:
    """The parts of :func:`rest_parts` that differ from ``stored`` (the parts kept at
    import), or None when ``stored`` is not such a record."""
    try:
        before = {k: str(stored[k]) for k in ("faces", "uvs", "colours", "groups", "rig")}
    except (KeyError, TypeError):
        return None
    return {k for k, v in rest_parts(o).items() if before.get(k) != v}


def vertex_uvs(o: "bpy.types.Object") -> Optional[Any]:
    """Each vertex's UV (V, 2) as Blender holds it, from the mesh's one UV layer; None
    when there is not exactly one layer or a vertex's corners disagree (a seam split in
    Blender), which a per-vertex UV cannot hold."""
    import numpy as np

    mesh = o.data
    if len(mesh.uv_layers) != 1:
        return None
    loops = np.empty(len(mesh.loops), dtype=np.int64)
    mesh.loops.foreach_get("vertex_index", loops)
    uv = np.empty(len(mesh.loops) * 2, dtype=np.float32)
    mesh.uv_layers[0].data.foreach_get("uv", uv)
    uv = uv.reshape(-1, 2).astype(np.float64)
    out = np.full((len(mesh.vertices), 2), np.nan)
    out[loops] = uv
    if np.isnan(out).any() or np.abs(out[loops] - uv).max(initial=0.0) > 1e-7:
        return None
    return out


def vertex_map(o: "bpy.types.Object", file_positions: Any, faces: Any) -> Any:
    """For each of the object's vertices, the index of the file vertex it is.

    Blender's glTF importer keeps, in order, the vertices the primitive's triangles use
    (``numpy.unique`` of the indices), and the glTF export writes the file's vertices in
    order, leaving out those the level's faces do not use: so Blender's vertex k is the
    k-th vertex ``faces`` uses. That order is checked against the positions
    (``file_positions``, already where Blender puts them); where it does not hold (a
    changed importer), each vertex is matched to the nearest file vertex instead."""
    import numpy as np

    co = blender_positions(o)
    used = np.unique(np.asarray(faces, dtype=np.int64))
    size = max(1.0, float(np.abs(file_positions).max())) if len(file_positions) else 1.0
    if len(used) == len(co) and np.abs(file_positions[used] - co).max(initial=0.0) <= 1e-5 * size:
        return used
    from mathutils.kdtree import KDTree

    tree = KDTree(len(used))
    for i in used.tolist():
        tree.insert(file_positions[i], i)
    tree.balance()
    return np.array([tree.find(c)[1] for c in co], dtype=np.int64)
