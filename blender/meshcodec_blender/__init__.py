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
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
import tempfile
import uuid
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

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

# Custom properties put on imported objects (and read back on export).
PROP_PATH = "meshcodec_path"
PROP_SHA = "meshcodec_sha256"
PROP_FORMAT = "meshcodec_format"
PROP_VERSION = "meshcodec_version"
PROP_GEOMETRY = "meshcodec_geometry"
#: The level of detail an object holds (every object of an ``all_lods`` import).
PROP_LOD = "meshcodec_lod"
#: ``"hull"`` on a CSGPHS hull's wire child object: shown, not exported but as hulls.
PROP_ROLE = "meshcodec_role"
#: The number of shape keys made from the file's FACS controls.
PROP_FACS = "meshcodec_facs_controls"
#: The level of detail a single-level FileMesh import holds.
PROP_LEVEL = "meshcodec_level"
#: A hash of everything of a mesh object but its vertex positions (faces, UVs, colours,
#: vertex groups), kept when its vertices are the file's in order: an export that finds
#: it unchanged writes the moved positions into the file itself (``File.with_mesh``).
PROP_REST = "meshcodec_all_but_positions"

#: Formats whose numbers are +Y up (glTF's convention, turned to Blender's +Z up by its
#: glTF importer); UNIGINE is +Z up and reaches Blender as stored.
Y_UP_FORMATS = ("filemesh", "csgphs", "csgmdl", "stf")

#: Blender's glTF exporter writes the 4 heaviest bone influences of a vertex.
MAX_INFLUENCES = 4

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


class ReadBackError(RuntimeError):
    """The file written does not read back as what was exported."""


class SkinInfluences(ValueError):
    """Vertices with more bone influences than an export keeps (refused unless lossy)."""


def _numpy_bool() -> None:
    # Debian's Blender 3.4 glTF add-on still uses numpy.bool, gone from NumPy 1.24 on.
    import numpy

    if not hasattr(numpy, "bool"):
        numpy.bool = bool  # type: ignore[attr-defined]


def from_blender(positions: Any) -> Any:
    """Blender positions, (N, 3), back to a +Y-up file's axes: (x, y, z) -> (x, z, -y)."""
    import numpy as np

    p = np.asarray(positions, dtype=np.float64)
    return np.stack([p[:, 0], p[:, 2], -p[:, 1]], axis=1)


def to_blender(positions: Any, fmt: str) -> Any:
    """Positions as a file stores them, (N, 3), where Blender's glTF import puts them:
    +Y-up formats turned to Blender's +Z up, (x, y, z) -> (x, -z, y); UNIGINE, already +Z
    up, as stored. Units are not changed (a stud is 1, as the glTF export writes it)."""
    import numpy as np

    p = np.asarray(positions, dtype=np.float64)
    if fmt not in Y_UP_FORMATS:
        return p.copy()
    return np.stack([p[:, 0], -p[:, 2], p[:, 1]], axis=1)


def _helper(o: "bpy.types.Object") -> bool:
    """An object the add-on made beside the imported geometry (a hull's wire copy)."""
    return o.get(PROP_ROLE) is not None


def geometry_hash(objects: Iterable["bpy.types.Object"]) -> str:
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


def blender_positions(o: "bpy.types.Object") -> Any:
    """The mesh's vertex positions (object space, basis shape), (N, 3) float64."""
    import numpy as np

    co = np.empty(len(o.data.vertices) * 3, dtype=np.float32)
    o.data.vertices.foreach_get("co", co)
    return co.reshape(-1, 3).astype(np.float64)


def all_but_positions(o: "bpy.types.Object") -> str:
    """A hash of a mesh object's faces, UVs, colours and vertex groups (not positions)."""
    import numpy as np

    h = hashlib.sha256()
    mesh = o.data
    loops = np.empty(len(mesh.loops), dtype=np.int32)
    mesh.loops.foreach_get("vertex_index", loops)
    starts = np.empty(len(mesh.polygons), dtype=np.int32)
    mesh.polygons.foreach_get("loop_start", starts)
    h.update(loops.tobytes() + starts.tobytes())
    for layer in mesh.uv_layers:
        uv = np.empty(len(mesh.loops) * 2, dtype=np.float32)
        layer.data.foreach_get("uv", uv)
        h.update(layer.name.encode() + uv.tobytes())
    for layer in getattr(mesh, "color_attributes", None) or getattr(mesh, "vertex_colors", []):
        col = np.empty(len(layer.data) * 4, dtype=np.float32)
        layer.data.foreach_get("color", col)
        h.update(layer.name.encode() + col.tobytes())
    h.update(repr([g.name for g in o.vertex_groups]).encode())
    for v in mesh.vertices:
        h.update(repr([(g.group, round(g.weight, 6)) for g in v.groups]).encode())
    return h.hexdigest()


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


def add_facs_shape_keys(objects: Sequence["bpy.types.Object"], f: Any, lods: Sequence[int]) -> int:
    """One shape key per FACS control of FileMesh ``f`` on each object (``objects[i]``
    holding level of detail ``lods[i]``): the control's pose at full weight as the
    package evaluates it (``File.facs_positions``), moved as the import moved the file's
    vertices. Returns the number of controls (0 without FACS data)."""
    m = f.mesh()
    controls = list(m.facs_controls or [])
    if not controls:
        return 0
    rest = to_blender(m.positions, "filemesh")
    maps = []
    for o, lod in zip(objects, lods):
        faces = m.faces if lod == 0 else f.mesh(lod).faces
        maps.append((o, vertex_map(o, rest, faces), blender_positions(o)))
        if o.data.shape_keys is None:
            o.shape_key_add(name="Basis", from_mix=False)
    for name in controls:
        moved = to_blender(f.facs_positions({name: 1.0}), "filemesh") - rest
        for o, idx, base in maps:
            key = o.shape_key_add(name=name, from_mix=False)
            key.data.foreach_set("co", (base + moved[idx]).astype("float32").ravel())
    for o, _, _ in maps:
        o[PROP_FACS] = len(controls)
    return len(controls)


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

    _numpy_bool()
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
            o[PROP_REST] = all_but_positions(o)
    sha = hashlib.sha256(data).hexdigest()
    geometry = geometry_hash(new)
    for o in new:
        o[PROP_PATH] = os.path.abspath(path)
        o[PROP_SHA] = sha
        o[PROP_FORMAT] = f.format
        o[PROP_VERSION] = f.version
        o[PROP_GEOMETRY] = geometry
    return new, left_out


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
    if geometry_hash(objects) != o.get(PROP_GEOMETRY) or not os.path.isfile(o[PROP_PATH]):
        return None
    data = open(o[PROP_PATH], "rb").read()
    return data if hashlib.sha256(data).hexdigest() == o.get(PROP_SHA) else None


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
        out += [c for c in o.children if _helper(c)]
    return list(dict.fromkeys(out))


def export_objects(objects: Sequence[Any], target: str) -> List[Any]:
    """What the glTF route writes of ``objects`` (see :func:`with_companions`): for a
    CSGPHS target, the hulls' wire copies stand in for their parent (one hull each);
    for other targets they are left out and the parent's geometry is written."""
    hull_target = target.startswith("csgphs")
    out: List[Any] = []
    for o in objects:
        hulls = [c for c in o.children if _helper(c)]
        if _helper(o):
            if hull_target:
                out.append(o)
        elif not (hull_target and hulls):
            out.append(o)
    return list(dict.fromkeys(out))


def _deforming_armature(o: Any) -> Optional[Any]:
    """The armature a mesh object is skinned to (its Armature modifier's), or None."""
    for mod in o.modifiers:
        if mod.type == "ARMATURE" and mod.object is not None:
            return mod.object
    return None


def excess_influences(objects: Iterable[Any]) -> Tuple[int, int]:
    """(vertices with more than 4 bone influences, most influences of a vertex) over
    the skinned mesh objects: the glTF exporter keeps each vertex's 4 heaviest."""
    count = most = 0
    for o in objects:
        arm = _deforming_armature(o) if o.type == "MESH" else None
        if arm is None:
            continue
        bones = {b.name for b in arm.data.bones}
        is_bone = [g.name in bones for g in o.vertex_groups]
        for v in o.data.vertices:
            n = sum(1 for g in v.groups if g.weight > 0 and g.group < len(is_bone) and is_bone[g.group])
            if n > MAX_INFLUENCES:
                count += 1
                most = max(most, n)
    return count, most


def _expected(objects: Sequence[Any]) -> Tuple[int, int]:
    """(triangles, bones) that an export of ``objects`` hands to the glTF exporter."""
    triangles = 0
    armatures = set()
    for o in objects:
        if o.type != "MESH":
            continue
        o.data.calc_loop_triangles()
        triangles += len(o.data.loop_triangles)
        arm = _deforming_armature(o)
        if arm is not None:
            armatures.add(arm)
    return triangles, sum(len(a.data.bones) for a in armatures)


def file_triangles(f: Any) -> int:
    """A written file's triangles: every level of a FileMesh, every hull of CSGPHS, the
    mesh of the others."""
    m = f.mesh()
    if f.format == "filemesh":
        return sum(int(b) - int(a) for a, b in m.lod_ranges)
    return len(m.faces)


def read_back(path: str, triangles: int, bones: int, losses: Sequence[str]) -> None:
    """Opens the written file with meshcodec and checks it holds ``triangles``
    triangles and ``bones`` bones (none when the conversion reported dropping them).
    Raises ReadBackError otherwise."""
    import meshcodec

    g = meshcodec.open(path)
    got = file_triangles(g)
    if got != triangles:
        raise ReadBackError(f"{path}: read back {got} triangles, {triangles} exported")
    got_bones = len(g.mesh().bones)
    dropped = any("bone" in line or "skin" in line or "joint" in line for line in losses)
    if got_bones != bones and not (got_bones == 0 and dropped):
        raise ReadBackError(f"{path}: read back {got_bones} bones, {bones} exported")


def _filemesh_version(target: str) -> Optional[str]:
    """The FileMesh version a ``to`` names ("5.00" for "5.00" or "filemesh:5.00"), or None."""
    version = target.split(":", 1)[1] if target.startswith("filemesh:") else target
    return version if re.fullmatch(r"\d\.\d\d", version) else None


def edited_in_place(objects: Sequence[Any], target: str, allow_lossy: bool) -> Optional[Any]:
    """The source FileMesh with the vertices moved in Blender written into it
    (``File.with_mesh``), converted to ``target`` when that is another FileMesh version;
    None unless one object, imported alone from a FileMesh still as it was, is exported
    with only its vertex positions changed (faces, UVs, colours and vertex groups as
    imported). Everything else of the file (FACS, skinning, bones, other levels, normals,
    its layout) is carried over; vertices that did not move keep their exact numbers."""
    import meshcodec
    import numpy as np

    version = _filemesh_version(target)
    meshes = [o for o in objects if o.type == "MESH" and not _helper(o)]
    if version is None or len(meshes) != 1:
        return None
    o = meshes[0]
    if o.get(PROP_FORMAT) != "filemesh" or o.get(PROP_REST) is None or not os.path.isfile(o[PROP_PATH]):
        return None
    data = open(o[PROP_PATH], "rb").read()
    if hashlib.sha256(data).hexdigest() != o.get(PROP_SHA) or all_but_positions(o) != o[PROP_REST]:
        return None
    f = meshcodec.open(data)
    m = f.mesh(int(o[PROP_LEVEL]))
    used = np.unique(m.faces)
    if len(used) != len(o.data.vertices):
        return None
    world = np.array(o.matrix_world, dtype=np.float64)
    co = blender_positions(o) @ world[:3, :3].T + world[:3, 3]
    rest = to_blender(m.positions[used], "filemesh")
    size = max(1.0, float(np.abs(rest).max(initial=0.0)))
    moved = np.abs(co - rest).max(axis=1) > 1e-6 * size
    positions = np.array(m.positions, dtype=np.float32)
    positions[used[moved]] = from_blender(co[moved])
    m.positions = positions
    g = f.with_mesh(m)
    if version != f.version:
        g = g.convert(version, allow_lossy=allow_lossy)
    return g


def export_file(context: Any, path: str, objects: Sequence[Any], to: str = "SOURCE",
                allow_lossy: bool = False) -> List[str]:
    """Writes ``objects`` to ``path`` as ``to``; returns the report's lines.

    Raises meshcodec.LossyConversion when the target loses data, and SkinInfluences
    for vertices with more than 4 bone influences, unless ``allow_lossy``; ReadBackError
    when the written file does not read back as what was exported (the file is then
    left as written, for a look)."""
    import meshcodec

    _numpy_bool()
    objects = with_companions(objects)
    target = _target_of(objects, to)
    original = _untouched_source(objects, target)
    if original is not None:
        # Written as the package writes: atomically, the file's own bytes.
        meshcodec.open(original).save(path)
        if open(path, "rb").read() != original:
            raise ReadBackError(f"{path}: the bytes read back are not the file's")
        return []
    edited = edited_in_place(objects, target, allow_lossy)
    if edited is not None:
        edited.save(path)
        if open(path, "rb").read() != edited.to_bytes():
            raise ReadBackError(f"{path}: the bytes read back are not those written")
        written = meshcodec.open(path)
        if file_triangles(written) != file_triangles(edited) or len(written.mesh().bones) != len(edited.mesh().bones):
            raise ReadBackError(f"{path}: does not read back as the edited file")
        return list(edited.losses)
    objects = export_objects(objects, target)
    lines: List[str] = []
    count, most = excess_influences(objects)
    if count:
        line = (f"skin: {count} vertices have more than {MAX_INFLUENCES} bone influences (up to {most}); "
                f"the {MAX_INFLUENCES} heaviest of each are kept")
        if not allow_lossy:
            raise SkinInfluences(f"the export would lose data (allow losses to write it anyway): {line}")
        lines.append(line)
    triangles, bones = _expected(objects)
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
                o.select_set(o in objects or o in {_deforming_armature(x) for x in objects})
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
        except (meshcodec.LossyConversion, SkinInfluences, ReadBackError) as e:
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
