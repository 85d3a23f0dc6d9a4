"""Export: the selection written as a target format and version by one of four
routes, each read back: an untouched import as its file's own bytes; CSGPHS hulls
only moved, and a FileMesh whose vertices were only moved (or UVs edited), edited in
place (``File.with_mesh``); anything else through Blender's glTF exporter and
``meshcodec.import_file``."""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
import uuid
from typing import Any, List, Optional, Sequence, Tuple

import bpy

from .axes import from_blender, numpy_bool, to_blender
from .checks import (MAX_INFLUENCES, FacsNotCarried, ReadBackError, SkinInfluences, excess_influences,
                     expected_counts, file_triangles, read_back)
from .facs import facs_keys_changed
from .geometry import blender_positions, changed_parts, deforming_armature, geometry_hash, vertex_uvs
from .tags import (PROP_FACS, PROP_FORMAT, PROP_GEOMETRY, PROP_HULL, PROP_LEVEL, PROP_LOD, PROP_PATH, PROP_REST, PROP_SHA,
                   PROP_VERSION, is_helper)


def _target_of(objects: Sequence[Any], to: str) -> str:
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


def _untouched_source(objects: Sequence[Any], target: str) -> Optional[bytes]:
    """The source file's bytes when every object comes unchanged from one file (still
    as it was) and the target is that file's own format and version; else None."""
    paths = {o.get(PROP_PATH) for o in objects}
    if len(paths) != 1 or None in paths:
        return None
    o = objects[0]
    if target not in (_target_of(objects, "SOURCE"), o.get(PROP_VERSION)):
        return None
    if geometry_hash(objects) != o.get(PROP_GEOMETRY):
        return None
    return source_bytes(o)


def source_bytes(o: Any) -> Optional[bytes]:
    """The bytes of the file object ``o`` was imported from, if it is still as it was
    (its SHA-256 the one kept at import); else None."""
    path = o.get(PROP_PATH)
    if path is None or not os.path.isfile(path):
        return None
    data = open(path, "rb").read()
    return data if hashlib.sha256(data).hexdigest() == o.get(PROP_SHA) else None


def moved_rows(o: Any, rest: Any) -> Tuple[Any, Any]:
    """(``o``'s vertices in world space, which of them moved from ``rest``) for mesh
    object ``o`` whose vertex k was ``rest[k]`` (Blender's axes) at import: moved by
    more than float noise (10⁻⁶ of the mesh's size)."""
    import numpy as np

    world = np.array(o.matrix_world, dtype=np.float64)
    co = blender_positions(o) @ world[:3, :3].T + world[:3, 3]
    size = max(1.0, float(np.abs(rest).max(initial=0.0)))
    return co, np.abs(co - rest).max(axis=1) > 1e-6 * size


def with_companions(objects: Sequence[Any]) -> List[Any]:
    """The selected ``objects`` with what goes with them: an object of an every-LOD
    collection brings the rest of its collection (every level), a CSGPHS object its
    hulls' wire copies."""
    out: List[Any] = []
    for o in objects:
        out.append(o)
        if o.get(PROP_LOD) is not None:
            for c in o.users_collection:
                out += [x for x in c.objects if x.get(PROP_PATH) == o.get(PROP_PATH)]
        out += [c for c in o.children if is_helper(c)]
    return list(dict.fromkeys(out))


def export_objects(objects: Sequence[Any], target: str) -> List[Any]:
    """What the glTF route writes of ``objects`` (see :func:`with_companions`): for a
    CSGPHS target, the hulls' wire copies stand in for their parent (one hull each);
    for other targets they are left out and the parent's geometry is written."""
    hull_target = target.startswith("csgphs")
    out: List[Any] = []
    for o in objects:
        hulls = [c for c in o.children if is_helper(c)]
        if is_helper(o):
            if hull_target:
                out.append(o)
        elif not (hull_target and hulls):
            out.append(o)
    return list(dict.fromkeys(out))


def _filemesh_version(target: str) -> Optional[str]:
    """The FileMesh version a ``to`` names ("5.00" for "5.00" or "filemesh:5.00"), or None."""
    version = target.split(":", 1)[1] if target.startswith("filemesh:") else target
    return version if re.fullmatch(r"\d\.\d\d", version) else None


def _source_level(o: Any) -> Optional[Tuple[Any, Any, Any]]:
    """(the source FileMesh, its level's mesh, the file vertex of each of ``o``'s
    vertices) when mesh object ``o`` was imported alone from one level of a FileMesh
    still as it was, with its vertices the level's in order and as many; else None."""
    import meshcodec
    import numpy as np

    if o.get(PROP_FORMAT) != "filemesh" or o.get(PROP_REST) is None:
        return None
    data = source_bytes(o)
    if data is None:
        return None
    f = meshcodec.open(data)
    m = f.mesh(int(o[PROP_LEVEL]))
    used = np.unique(m.faces)
    return (f, m, used) if len(used) == len(o.data.vertices) else None


def edited_in_place(objects: Sequence[Any], target: str, allow_lossy: bool) -> Optional[Tuple[Any, List[str]]]:
    """The source FileMesh with the vertices moved and the UVs edited in Blender
    written into it (``File.with_mesh``), converted to ``target`` when that is another
    FileMesh version, and the report's lines; None unless one object, imported alone
    from a FileMesh still as it was, is exported with only its vertex positions, UVs (one
    per vertex, no seam split) and shape keys changed (faces, colours, vertex groups and
    the rig as imported). Everything else of the file (FACS, skinning, bones, other
    levels, normals, its layout) is carried over; vertices that did not move keep their
    exact numbers, and UVs not edited theirs. A shape key edited, made or removed in
    Blender is named (see :func:`facs.facs_keys_changed`): FacsNotCarried unless
    ``allow_lossy``."""
    import numpy as np

    version = _filemesh_version(target)
    meshes = [o for o in objects if o.type == "MESH" and not is_helper(o)]
    if version is None or len(meshes) != 1:
        return None
    o = meshes[0]
    # The checks on the object first; the file is read only when they pass.
    changed = changed_parts(o, o.get(PROP_REST))
    if changed is None or changed - {"uvs"}:
        return None
    uvs = vertex_uvs(o) if "uvs" in changed else None
    if "uvs" in changed and uvs is None:
        return None
    source = _source_level(o)
    if source is None:
        return None
    f, m, used = source
    keys = facs_keys_changed(o, f, used)
    if keys is not None and not allow_lossy:
        raise FacsNotCarried(f"the export would lose data (allow losses to write it anyway): {keys}")
    co, moved = moved_rows(o, to_blender(m.positions[used], "filemesh"))
    positions = np.array(m.positions, dtype=np.float32)
    positions[used[moved]] = from_blender(co[moved])
    m.positions = positions
    if uvs is not None and m.uvs is not None:
        # Blender's glTF importer turns a UV's v upside down (1 - v).
        edited = np.stack([uvs[:, 0], 1.0 - uvs[:, 1]], axis=1)
        stored = np.array(m.uvs, dtype=np.float32)
        new = np.abs(edited - stored[used]).max(axis=1) > 1e-6
        stored[used[new]] = edited[new]
        m.uvs = stored
    g = f.with_mesh(m, allow_lossy=allow_lossy)
    if version != f.version:
        g = g.convert(version, allow_lossy=allow_lossy)
    return g, ([keys] if keys else []) + list(g.losses)


def hulls_in_place(objects: Sequence[Any], target: str, allow_lossy: bool = False) -> Optional[Any]:
    """The source CSGPHS file with its hulls' vertices as their wire copies now stand
    (``File.with_mesh``, which raises LossyConversion for what the version cannot hold
    unless ``allow_lossy``); None unless ``target`` is the file's own version and every
    hull copy of one object imported from a CSGPHS file still as it was keeps its
    vertices and faces as imported (only moved). Everything else of the file (its
    preambles, physics data, layout) is carried over; vertices that did not move keep
    their exact numbers."""
    import meshcodec
    import numpy as np

    parents = [o for o in objects if not is_helper(o) and o.get(PROP_FORMAT) == "csgphs"]
    if len(parents) != 1 or target != _target_of(parents, "SOURCE"):
        return None
    parent = parents[0]
    hulls = [c for c in parent.children if is_helper(c)]
    if any(not isinstance(c.get(PROP_HULL), int) for c in hulls):
        return None
    hulls.sort(key=lambda c: int(c[PROP_HULL]))
    data = source_bytes(parent) if hulls else None
    if data is None:
        return None
    f = meshcodec.open(data)
    m = f.mesh()
    counts = f.info().get("hull_counts", [])
    if len(counts) != len(hulls):
        return None
    positions = np.array(m.positions, dtype=np.float32)
    v0 = f0 = 0
    for hull, c in zip(hulls, counts):
        nv, nf = c["vertices"], c["faces"]
        faces = [tuple(p.vertices) for p in hull.data.polygons]
        want = [tuple(int(x) - v0 for x in face) for face in m.faces[f0 : f0 + nf]]
        if len(hull.data.vertices) != nv or faces != want:
            return None
        co, moved = moved_rows(hull, to_blender(m.positions[v0 : v0 + nv], "csgphs"))
        positions[v0 : v0 + nv][moved] = from_blender(co[moved])
        v0, f0 = v0 + nv, f0 + nf
    m.positions = positions
    return f.with_mesh(m, allow_lossy=allow_lossy)


def facs_not_carried(objects: Sequence[Any]) -> List[str]:
    """The report's line for FACS shape keys the glTF route drops: a FileMesh's FACS
    data is written back (as stored) only by an export that moves vertices or edits UVs
    and changes no face, colour, vertex group or bone; the glTF route carries none."""
    facs = [o for o in objects if o.get(PROP_FACS)]
    if not facs:
        return []
    n = int(facs[0][PROP_FACS])
    return [f"FACS: the {n} controls imported as shape keys are not written: the mesh was edited beyond "
            "moving vertices and UVs (faces, colours, vertex groups, the rig, or a UV seam split), "
            "and only those edits keep the file's FACS"]


def export_file(context: Any, path: str, objects: Sequence[Any], to: str = "SOURCE",
                allow_lossy: bool = False) -> List[str]:
    """Writes ``objects`` to ``path`` as ``to``; returns the report's lines.

    Raises meshcodec.LossyConversion when the target loses data, SkinInfluences for
    vertices with more than 4 bone influences and FacsNotCarried for FACS shape keys
    the export cannot write back, unless ``allow_lossy``; ReadBackError
    when the written file does not read back as what was exported (the file is then
    left as written, for a look)."""
    import meshcodec

    numpy_bool()
    objects = with_companions(objects)
    target = _target_of(objects, to)
    original = _untouched_source(objects, target)
    if original is not None:
        # Written as the package writes: atomically, the file's own bytes.
        meshcodec.open(original).save(path)
        if open(path, "rb").read() != original:
            raise ReadBackError(f"{path}: the bytes read back are not the file's")
        return []
    hulls = hulls_in_place(objects, target, allow_lossy)
    if hulls is not None:
        hulls.save(path)
        if open(path, "rb").read() != hulls.to_bytes():
            raise ReadBackError(f"{path}: the bytes read back are not those written")
        if meshcodec.open(path).info().get("hulls") != hulls.info().get("hulls"):
            raise ReadBackError(f"{path}: does not read back with the hulls written")
        return list(hulls.losses)
    in_place = edited_in_place(objects, target, allow_lossy)
    if in_place is not None:
        edited, lines = in_place
        edited.save(path)
        if open(path, "rb").read() != edited.to_bytes():
            raise ReadBackError(f"{path}: the bytes read back are not those written")
        written = meshcodec.open(path)
        if file_triangles(written) != file_triangles(edited) or len(written.mesh().bones) != len(edited.mesh().bones):
            raise ReadBackError(f"{path}: does not read back as the edited file")
        return lines
    objects = export_objects(objects, target)
    lines: List[str] = facs_not_carried(objects)
    if lines and not allow_lossy:
        raise FacsNotCarried(f"the export would lose data (allow losses to write it anyway): {lines[0]}")
    count, most = excess_influences(objects)
    if count:
        line = (f"skin: {count} vertices have more than {MAX_INFLUENCES} bone influences (up to {most}); "
                f"the {MAX_INFLUENCES} heaviest of each are kept")
        if not allow_lossy:
            raise SkinInfluences(f"the export would lose data (allow losses to write it anyway): {line}")
        lines.append(line)
    triangles, bones = expected_counts(objects)
    names = {}
    token = uuid.uuid4().hex[:8]
    try:
        for o in objects:
            if o.get(PROP_LOD) is not None:
                # The library takes a mesh's LOD from a node name ending in "LOD k".
                names[o] = o.name
                o.name = f"{token} LOD {int(o[PROP_LOD])}"
        with tempfile.TemporaryDirectory() as tmp:
            glb = os.path.join(tmp, "export.glb")
            for o in context.view_layer.objects:
                o.select_set(o in objects or o in {deforming_armature(x) for x in objects})
            facs = any(o.get(PROP_FACS) for o in objects)
            bpy.ops.export_scene.gltf(filepath=glb, export_format="GLB", use_selection=True,
                                      export_morph=not facs, export_all_influences=False)
            f = meshcodec.import_file(glb, target, allow_lossy=allow_lossy)
    finally:
        for o, name in names.items():
            o.name = name
    f.save(path)
    lines += f.losses
    read_back(path, triangles, bones, lines)
    return lines
