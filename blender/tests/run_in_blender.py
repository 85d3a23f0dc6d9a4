"""The add-on's tests, run inside Blender (headless) against the zip build.py makes.

    blender -b --factory-startup --python-exit-code 1 \\
        --python blender/tests/run_in_blender.py -- ZIP [CORPUS]

or with ``bpy`` from PyPI (Blender 4.2+ as a Python module; ``--extension`` installs
the zip as an extension instead of a legacy add-on):

    python blender/tests/run_in_blender.py -- ZIP [CORPUS] [--extension]

Installs the zip with Blender's own addon_install and enables it, then, through the
operators a user clicks:
- imports a file of every format (and every corpus file when CORPUS is given) and
  checks Blender's triangle count against the package's;
- exports each import, untouched, back to its own format and version: the bytes are the
  file's;
- scales an imported skinned mesh and exports it to FileMesh 2.00: refused without
  allow_lossy (bones, skinning), written with it, and the positions are scaled;
- exports a cube made in Blender (FileMesh 4.00 by default) and to CSGPHS 7;
- and the rest the add-on adds to the glTF route: FACS controls as shape keys, moved as
  the package poses them; CSGPHS hulls as wire child objects and back to hulls; every
  LOD in a collection and back; bone heads at the file's bone positions; the read-back
  check; a rigged cylinder with more than 4 influences a vertex; drag and drop.
Prints "OK name" per check, and raises (exit status 1) at the first failure.
"""

import os
import pathlib
import shutil
import sys
import tempfile

import bpy

ARGS = [a for a in sys.argv[sys.argv.index("--") + 1 :] if not a.startswith("--")]
EXTENSION = "--extension" in sys.argv[sys.argv.index("--") + 1 :]
ZIP = ARGS[0]
CORPUS = pathlib.Path(ARGS[1]) if len(ARGS) > 1 else None
REPO = pathlib.Path(__file__).resolve().parents[2]
FIX = REPO / "roundtrip-fixtures"

# The zip's add-on, not one installed before (set BLENDER_USER_SCRIPTS to keep the
# user's own folder out of it, as .ci/run does).
assert os.path.isfile(ZIP), f"no zip at {ZIP}"
print(f"Blender {bpy.app.version_string}, Python {sys.version.split()[0]}", flush=True)
if EXTENSION:
    # Blender 4.2+: the zip as an extension (its blender_manifest.toml and wheel).
    MODULE = "bl_ext.user_default.meshcodec_blender"
    assert bpy.ops.extensions.package_install_files(
        filepath=ZIP, repo="user_default", enable_on_install=True
    ) == {"FINISHED"}
else:
    MODULE = "meshcodec_blender"
    installed = pathlib.Path(bpy.utils.user_resource("SCRIPTS", path="addons")) / "meshcodec_blender"
    shutil.rmtree(installed, ignore_errors=True)
    assert bpy.ops.preferences.addon_install(filepath=ZIP, overwrite=True) == {"FINISHED"}
    assert bpy.ops.preferences.addon_enable(module=MODULE) == {"FINISHED"}
    assert (installed / "__init__.py").is_file(), installed
import meshcodec  # noqa: E402  (bundled in the zip, importable once enabled)
import numpy  # noqa: E402

ADDON = sys.modules[MODULE]

TMP = pathlib.Path(tempfile.mkdtemp())
checked = 0


def ok(name):
    global checked
    checked += 1
    print(f"OK {name}", flush=True)


def fresh():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.preferences.addon_enable(module=MODULE)


def triangles():
    return sum(
        len(p.vertices) - 2 for o in bpy.data.objects if o.type == "MESH" for p in o.data.polygons
    )


def kept(faces):
    """The triangles Blender keeps: it drops those that use a vertex twice and repeats."""
    seen = set()
    n = 0
    for t in faces.tolist():
        if len(set(t)) < 3:
            continue
        k = tuple(sorted(t))
        if k not in seen:
            seen.add(k)
            n += 1
    return n


def to_blender(p):
    """File positions where the import puts them: +Y up turned to Blender's +Z up."""
    p = numpy.asarray(p, dtype=numpy.float64)
    return numpy.stack([p[:, 0], -p[:, 2], p[:, 1]], axis=1)


def coords(data):
    a = numpy.empty(len(data) * 3, dtype=numpy.float32)
    data.foreach_get("co", a)
    return a.reshape(-1, 3).astype(numpy.float64)


def meshes():
    return [o for o in bpy.data.objects if o.type == "MESH" and not o.get(ADDON.PROP_ROLE)]


def check_hulls(f, name):
    """One wire child object per hull, each with the hull's vertices and faces; the
    imported object keeps every triangle."""
    info = f.info()
    (parent,) = meshes()
    hulls = [o for o in bpy.data.objects if o.get(ADDON.PROP_ROLE) == "hull"]
    assert len(hulls) == info["hulls"] == len(info["hull_counts"]), (name, len(hulls), info["hulls"])
    assert all(h.parent == parent and h.display_type == "WIRE" for h in hulls), name
    for h, c in zip(sorted(hulls, key=lambda o: int(o.name.rsplit(" ", 1)[1])), info["hull_counts"]):
        assert (len(h.data.vertices), len(h.data.polygons)) == (c["vertices"], c["faces"]), (name, h.name, c)
    assert sum(len(p.vertices) - 2 for p in parent.data.polygons) == kept(f.mesh().faces), name
    ok(f"{name}: {len(hulls)} hulls as wire child objects")


def check_facs(f, name):
    """A shape key per FACS control; the key of the control that moves most moves each
    Blender vertex as the package moves a file vertex at that place (axes turned)."""
    m = f.mesh()
    controls = list(m.facs_controls)
    (o,) = meshes()
    keys = o.data.shape_keys.key_blocks
    assert [k.name for k in keys][1:] == controls, (name, len(keys), len(controls))
    rest = to_blender(m.positions)
    moves = {c: to_blender(f.facs_positions({c: 1.0})) - rest for c in controls}
    control = max(controls, key=lambda c: numpy.abs(moves[c]).max())
    moved = moves[control]
    basis = coords(keys[0].data)
    shifted = coords(keys[control].data) - basis
    used = numpy.unique(m.faces)
    # Independently of the add-on's mapping: each Blender vertex is some file vertex
    # at its place, and moves as (one of) them.
    for i, p in enumerate(basis):
        d = numpy.abs(rest[used] - p).max(axis=1)
        at = used[d <= 1e-5 * max(1.0, numpy.abs(rest).max())]
        assert len(at), (name, i, p)
        err = numpy.abs(moved[at] - shifted[i]).max(axis=1).min()
        assert err <= 1e-4, (name, control, i, err)
    n_file = int((numpy.abs(moved[used]).max(axis=1) > 1e-6).sum())
    n_blender = int((numpy.abs(shifted).max(axis=1) > 1e-6).sum())
    # (Some files' controls move next to nothing: the corpus's 5.00 15256456161 at most
    # 2e-6 studs, as the package evaluates it.)
    assert n_blender == n_file, (name, n_file, n_blender)
    ok(f"{name}: {len(controls)} FACS shape keys; {control} moves {n_blender} vertices as the package does")


def check_bones(f, name):
    """Every bone's head at the file bone's position (its CFrame's), axes turned."""
    bones = f.mesh().bones
    (arm,) = [o for o in bpy.data.objects if o.type == "ARMATURE"]
    assert len(arm.data.bones) == len(bones), (name, len(arm.data.bones), len(bones))
    want = to_blender([b["position"] for b in bones])
    names = [b["name"] for b in bones]
    worst, seen = 0.0, 0
    for i, b in enumerate(bones):
        if names.count(b["name"]) > 1:
            continue  # Blender renames repeated names; the others place the skeleton
        head = numpy.array(arm.matrix_world @ arm.data.bones[b["name"]].head_local)
        worst = max(worst, float(numpy.abs(head - want[i]).max()))
        seen += 1
    assert seen > 0 and worst <= 1e-4, (name, seen, worst)
    ok(f"{name}: {len(bones)} bone heads at the file's positions (worst {worst:.1e})")


def import_and_back(path: pathlib.Path):
    data = path.read_bytes()
    f = meshcodec.open(data)
    fresh()
    if f.format == "csgk":
        # A reference to a mesh stored elsewhere: refused, saying why.
        try:
            bpy.ops.import_scene.meshcodec(filepath=str(path))
            raise AssertionError("a CSGK blob imported")
        except RuntimeError as e:
            assert "no geometry" in str(e), e
        ok(f"refused with a reason {path.name} (csgk)")
        return
    assert bpy.ops.import_scene.meshcodec(filepath=str(path)) == {"FINISHED"}
    if f.format == "csgphs":
        check_hulls(f, path.name)
    elif f.format != "unigine-anim":
        assert triangles() == kept(f.mesh().faces), (path.name, triangles(), len(f.mesh().faces))
    if f.format == "filemesh" and f.mesh().facs_controls:
        check_facs(f, path.name)
    if f.format == "filemesh" and f.mesh().bones:
        check_bones(f, path.name)
    out = TMP / ("back-" + path.name)
    bpy.ops.object.select_all(action="SELECT")
    if f.format == "unigine-anim":
        # Its skeleton and clips, no mesh: nothing of its own kind to write back.
        ok(f"import {path.name} ({len(bpy.data.actions)} actions)")
        return
    assert bpy.ops.export_scene.meshcodec(filepath=str(out)) == {"FINISHED"}
    assert out.read_bytes() == data, f"{path.name}: untouched export differs"
    ok(f"import and untouched export {path.name} ({f.format} {f.version})")


files = [
    FIX / "filemesh" / "v4.01-bones.mesh",
    FIX / "filemesh" / "v5.00-facs.mesh",
    FIX / "filemesh" / "v2.00-36b.mesh",
    FIX / "text" / "v1.00-crlf.mesh",
    FIX / "csgphs" / "csgphs7.bin",
    FIX / "csgmdl" / "csgmdl5-quad-lod.bin",
    FIX / "unigine" / "ms12-morph.mesh",
    FIX / "stf" / "quad-new-style.stf",
]
if CORPUS:
    files += sorted(
        p for p in CORPUS.rglob("*") if p.is_file() and p.name != "MANIFEST.tsv" and p.suffix != ".tsv"
    )
for p in files:
    assert p.is_file(), p
    import_and_back(p)

# An edit: the skinned 4.01 scaled, to 2.00 (no bones there: refused, then allowed).
src = FIX / "filemesh" / "v4.01-bones.mesh"
fresh()
bpy.ops.import_scene.meshcodec(filepath=str(src))
for o in bpy.data.objects:
    if o.type == "MESH":
        for v in o.data.vertices:
            v.co *= 2.0
bpy.ops.object.select_all(action="SELECT")
out = TMP / "scaled.mesh"
try:
    bpy.ops.export_scene.meshcodec(filepath=str(out), to="2.00")
    raise AssertionError("a lossy export went through without allow_lossy")
except RuntimeError as e:
    assert "would lose" in str(e), e
assert not out.exists()
assert bpy.ops.export_scene.meshcodec(filepath=str(out), to="2.00", allow_lossy=True) == {"FINISHED"}
g = meshcodec.open(out)
assert g.version == "2.00"
a = numpy.abs(meshcodec.open(src).mesh().positions).max()
b = numpy.abs(g.mesh().positions).max()
assert abs(b - 2 * a) < 1e-4 * max(1.0, a), (a, b)
ok("a scaled skinned mesh to 2.00: refused, then written scaled")

# A mesh made in Blender: FileMesh 4.00 by default, and CSGPHS.
fresh()
bpy.ops.mesh.primitive_cube_add()
bpy.ops.object.select_all(action="SELECT")
cube = TMP / "cube.mesh"
assert bpy.ops.export_scene.meshcodec(filepath=str(cube)) == {"FINISHED"}
c = meshcodec.open(cube)
assert (c.format, c.version) == ("filemesh", "4.00"), (c.format, c.version)
assert len(c.mesh().faces) == 12
hull = TMP / "cube.bin"
assert bpy.ops.export_scene.meshcodec(filepath=str(hull), to="csgphs:7", allow_lossy=True) == {"FINISHED"}
assert meshcodec.open(hull).format == "csgphs"
ok("a cube made in Blender as FileMesh 4.00 and CSGPHS 7")

# A Blender-made cube to every FileMesh version: each read back with its 12 triangles.
for version in ("1.00", "1.01", "2.00", "3.00", "3.01", "4.00", "4.01", "5.00", "6.00", "7.00"):
    out = TMP / f"cube-{version}.mesh"
    assert bpy.ops.export_scene.meshcodec(filepath=str(out), to=version, allow_lossy=True) == {"FINISHED"}
    c = meshcodec.open(out)
    assert (c.version, len(c.mesh().faces)) == (version, 12), (version, c.version)
ok("a cube made in Blender to every FileMesh version")

# The read-back check itself: a file that does not hold what was exported is an error.
try:
    ADDON.read_back(str(TMP / "cube-4.00.mesh"), 13, 0, [])
    raise AssertionError("read_back took 12 triangles for 13")
except ADDON.ReadBackError as e:
    assert "12 triangles, 13 exported" in str(e), e
try:
    ADDON.read_back(str(TMP / "cube-4.00.mesh"), 12, 3, [])
    raise AssertionError("read_back took 0 bones for 3")
except ADDON.ReadBackError as e:
    assert "0 bones, 3 exported" in str(e), e
ok("the read-back check refuses a file short of triangles or bones")

# A rigged cylinder made in Blender: 6 bones, every vertex on 5 or 6 of them.
fresh()
bpy.ops.object.armature_add()
arm = bpy.context.object
bpy.ops.object.mode_set(mode="EDIT")
first = arm.data.edit_bones[0]
first.name = "b0"
first.head, first.tail = (0, 0, -1), (0, 0, -0.6)
for i in range(1, 6):
    b = arm.data.edit_bones.new(f"b{i}")
    b.head, b.tail = (0, 0, -1 + 0.4 * i), (0, 0, -0.6 + 0.4 * i)
    b.parent = arm.data.edit_bones[f"b{i - 1}"]
bpy.ops.object.mode_set(mode="OBJECT")
bpy.ops.mesh.primitive_cylinder_add(vertices=12, depth=2.0)
cyl = bpy.context.object
groups = [cyl.vertex_groups.new(name=f"b{i}") for i in range(6)]
for v in cyl.data.vertices:
    for i, g in enumerate(groups[: 5 + v.index % 2]):
        g.add([v.index], 1.0 / (1 + abs(v.co.z + 1 - 0.4 * i)), "REPLACE")
mod = cyl.modifiers.new("Armature", "ARMATURE")
mod.object = arm
cyl.parent = arm
bpy.ops.object.select_all(action="SELECT")
rig = TMP / "rig.mesh"
try:
    bpy.ops.export_scene.meshcodec(filepath=str(rig), to="4.00")
    raise AssertionError("more than 4 influences a vertex went through without allow_lossy")
except RuntimeError as e:
    assert f"{len(cyl.data.vertices)} vertices have more than 4 bone influences (up to 6)" in str(e), e
assert not rig.exists()
tris = sum(len(p.vertices) - 2 for p in cyl.data.polygons)
for version in ("1.00", "2.00", "3.01", "4.00", "4.01", "5.00", "6.00", "7.00"):
    out = TMP / f"rig-{version}.mesh"
    assert bpy.ops.export_scene.meshcodec(filepath=str(out), to=version, allow_lossy=True) == {"FINISHED"}
    r = meshcodec.open(out).mesh()
    if version < "4.00":  # no bones before 4.00: read back without them, as reported
        assert len(r.faces) == tris and not r.bones, (version, len(r.faces), len(r.bones))
        continue
    assert len(r.faces) == tris and len(r.bones) == 6, (version, len(r.faces), len(r.bones))
    assert sorted(b["name"] for b in r.bones) == [f"b{i}" for i in range(6)]
    assert int((r.weights > 0).sum(axis=1).max()) <= 4, version
ok(f"a rigged cylinder ({tris} triangles, 6 bones, up to 6 influences): refused, then 4 kept; 1.00-7.00")

# CSGPHS: a hull's wire copy moved in Blender, written to CSGPHS: one hull per copy.
src = FIX / "csgphs" / "csgphs7.bin"
fresh()
bpy.ops.import_scene.meshcodec(filepath=str(src))
hull0 = next(o for o in bpy.data.objects if o.get(ADDON.PROP_ROLE) == "hull" and o.name.endswith(" 0"))
hull0.location.x += 1.0
bpy.ops.object.select_all(action="SELECT")
out = TMP / "hulls.bin"
# Only moved: written into the file itself, without loss (no allow_lossy), every other
# number exact; then a hull given a new vertex goes through glTF, lossy.
assert bpy.ops.export_scene.meshcodec(filepath=str(out)) == {"FINISHED"}
h = meshcodec.open(out)
before = meshcodec.open(src)
assert h.info()["hulls"] == before.info()["hulls"], (h.info()["hulls"], before.info()["hulls"])
n0 = before.info()["hull_counts"][0]["vertices"]
d = h.mesh().positions.astype(numpy.float64) - before.mesh().positions
assert numpy.abs(d[:n0] - [1.0, 0.0, 0.0]).max() < 1e-5 and not d[n0:].any(), d
assert len(out.read_bytes()) == len(src.read_bytes())
hull0.data.vertices.add(1)
out = TMP / "hulls-grown.bin"
assert bpy.ops.export_scene.meshcodec(filepath=str(out), allow_lossy=True) == {"FINISHED"}
h = meshcodec.open(out)
assert h.info()["hulls"] == before.info()["hulls"], (h.info()["hulls"], before.info()["hulls"])
x0 = before.mesh().positions[:n0, 0]
x1 = h.mesh().positions[: h.info()["hull_counts"][0]["vertices"], 0]
assert abs((x1.min() - x0.min()) - 1.0) < 1e-5 and abs((x1.max() - x0.max()) - 1.0) < 1e-5, (x0, x1)
ok(f"CSGPHS hulls moved in Blender written into the file ({h.info()['hulls']} hulls), other edits through glTF")

# Every LOD into a collection, and back from it.
src = FIX / "filemesh" / "v5.00-facs.mesh"
f = meshcodec.open(src)
ranges = f.mesh().lod_ranges
assert len(ranges) > 1
fresh()
assert bpy.ops.import_scene.meshcodec(filepath=str(src), all_lods=True) == {"FINISHED"}
coll = bpy.data.collections[src.stem]
lod_objects = sorted((o for o in coll.objects if o.type == "MESH"), key=lambda o: o.name)
assert [o.name for o in lod_objects] == [f"LOD{k}" for k in range(len(ranges))], [o.name for o in lod_objects]
for k, o in enumerate(lod_objects):
    assert sum(len(p.vertices) - 2 for p in o.data.polygons) == kept(f.mesh(k).faces), (k, o.name)
    assert len(o.data.shape_keys.key_blocks) == 1 + len(f.mesh().facs_controls), o.name
bpy.ops.object.select_all(action="DESELECT")
lod_objects[1].select_set(True)  # one level selected: the collection comes along
out = TMP / "lods-untouched.mesh"
assert bpy.ops.export_scene.meshcodec(filepath=str(out)) == {"FINISHED"}
assert out.read_bytes() == src.read_bytes()
for v in lod_objects[1].data.vertices:
    v.co *= 2.0
out = TMP / "lods-edited.mesh"
assert bpy.ops.export_scene.meshcodec(filepath=str(out), to="4.01", allow_lossy=True) == {"FINISHED"}
g = meshcodec.open(out)
got = [int(b) - int(a) for a, b in g.mesh().lod_ranges]
assert got == [sum(len(p.vertices) - 2 for p in o.data.polygons) for o in lod_objects], got


def extent(m):
    return numpy.abs(m.positions[numpy.unique(m.faces)]).max()


assert abs(extent(g.mesh(1)) - 2 * extent(f.mesh(1))) < 1e-4, (extent(g.mesh(1)), extent(f.mesh(1)))
assert abs(extent(g.mesh(0)) - extent(f.mesh(0))) < 1e-4, (extent(g.mesh(0)), extent(f.mesh(0)))
ok(f"every LOD into collection {coll.name} ({len(ranges)} objects), back untouched and edited")

# A vertex moved, nothing else: written into the file itself, without loss; FACS, bones,
# skinning and other levels kept, every other vertex's numbers exact.
moved_files = [FIX / "filemesh" / "v5.00-facs.mesh", FIX / "filemesh" / "v4.01-bones.mesh"]
if CORPUS:
    moved_files.append(CORPUS / "roblox" / "v5.00-13674780763.mesh")
for src in moved_files:
    f = meshcodec.open(src)
    m = f.mesh()
    fresh()
    bpy.ops.import_scene.meshcodec(filepath=str(src))
    (o,) = meshes()
    o.data.vertices[0].co.z += 0.5
    bpy.ops.object.select_all(action="SELECT")
    out = TMP / ("moved-" + src.name)
    assert bpy.ops.export_scene.meshcodec(filepath=str(out)) == {"FINISHED"}
    g = meshcodec.open(out)
    gm = g.mesh()
    assert (g.version, gm.facs_controls, gm.lod_ranges) == (f.version, m.facs_controls, m.lod_ranges), src.name
    assert gm.bones == m.bones and numpy.array_equal(gm.weights, m.weights), src.name
    d = gm.positions.astype(numpy.float64) - m.positions
    i = int(numpy.unique(m.faces)[0])
    assert numpy.abs(d[i] - [0.0, 0.5, 0.0]).max() < 1e-6, (src.name, d[i])
    assert not numpy.delete(d, i, axis=0).any(), src.name
    assert len(out.read_bytes()) == len(src.read_bytes()), src.name
ok(f"a moved vertex written into the file itself, FACS/bones/LODs kept ({len(moved_files)} files)")


def move_in_edit_mode(o, index, dz):
    """Moves vertex ``index`` of ``o`` by ``dz`` up as a user does, in Edit Mode (the
    basis shape key active: Blender moves the keys relative to it along)."""
    import bmesh

    bpy.context.view_layer.objects.active = o
    bpy.ops.object.mode_set(mode="EDIT")
    bm = bmesh.from_edit_mesh(o.data)
    bm.verts.ensure_lookup_table()
    bm.verts[index].co.z += dz
    bmesh.update_edit_mesh(o.data)
    bpy.ops.object.mode_set(mode="OBJECT")


def refused(path, *needles, **options):
    """The export of everything to ``path`` is refused naming each of ``needles``, and
    writes nothing."""
    bpy.ops.object.select_all(action="SELECT")
    try:
        bpy.ops.export_scene.meshcodec(filepath=str(path), **options)
        raise AssertionError(f"{path.name}: a lossy export went through without allow_lossy")
    except RuntimeError as e:
        assert "would lose" in str(e) and all(n in str(e) for n in needles), (needles, e)
    assert not path.exists(), path


def facs_poses_equal(a, b):
    return a.facs_controls == b.facs_controls and numpy.array_equal(a.facs_poses, b.facs_poses)


# Shape keys. A vertex moved in Edit Mode keeps the file's FACS; a FACS key edited in
# Blender (which FACS, posing face bones, cannot hold) is named and refused unless
# lossy, then the rest is still written into the file itself; a key edited on an
# untouched import is not written as the file's bytes; a key made on a mesh without
# FACS is named the same way; an edit beyond moving vertices names the FACS it drops.
src = FIX / "filemesh" / "v5.00-facs.mesh"
f = meshcodec.open(src)
m = f.mesh()
i = int(numpy.unique(m.faces)[0])
fresh()
bpy.ops.import_scene.meshcodec(filepath=str(src))
(o,) = meshes()
move_in_edit_mode(o, 0, 0.5)
out = TMP / "keys-moved.mesh"
bpy.ops.object.select_all(action="SELECT")
assert bpy.ops.export_scene.meshcodec(filepath=str(out)) == {"FINISHED"}
g = meshcodec.open(out)
assert facs_poses_equal(g.mesh(), m) and len(out.read_bytes()) == len(src.read_bytes())
d = g.mesh().positions.astype(numpy.float64) - m.positions
assert numpy.abs(d[i] - [0.0, 0.5, 0.0]).max() < 1e-6 and not numpy.delete(d, i, axis=0).any(), d[i]
control = m.facs_controls[-1]
o.data.shape_keys.key_blocks[control].data[1].co.z += 0.25
out = TMP / "keys-edited.mesh"
refused(out, f"({control} (1 vertex))", "FACS control poses face bones")
lines = ADDON.export_file(bpy.context, str(out), [o], allow_lossy=True)
assert any(control in line and "not written" in line for line in lines), lines
g = meshcodec.open(out)
assert facs_poses_equal(g.mesh(), m) and numpy.abs(g.mesh().positions[i] - m.positions[i]).max() > 0.4
fresh()
bpy.ops.import_scene.meshcodec(filepath=str(src))
(o,) = meshes()
o.data.shape_keys.key_blocks[control].data[1].co.x -= 0.25
refused(TMP / "keys-untouched-but-a-key.mesh", control)
fresh()
bpy.ops.import_scene.meshcodec(filepath=str(src))
(o,) = meshes()
shared = max(range(len(o.data.vertices)), key=lambda k: sum(1 for loop in o.data.loops if loop.vertex_index == k))
corners = [loop.index for loop in o.data.loops if loop.vertex_index == shared]
assert len(corners) > 1, corners
i = int(numpy.unique(m.faces)[shared])
for c in corners:
    o.data.uv_layers[0].data[c].uv[0] += 0.125
out = TMP / "keys-uv-moved.mesh"
bpy.ops.object.select_all(action="SELECT")
assert bpy.ops.export_scene.meshcodec(filepath=str(out)) == {"FINISHED"}
g = meshcodec.open(out)
assert facs_poses_equal(g.mesh(), m) and numpy.array_equal(g.mesh().positions, m.positions)
du = g.mesh().uvs.astype(numpy.float64) - m.uvs
assert abs(du[i, 0] - 0.125) < 1e-6 and du[i, 1] == 0 and not numpy.delete(du, i, axis=0).any(), du[i]
o.data.uv_layers[0].data[corners[0]].uv[0] += 0.125  # a seam: no longer one UV per vertex
refused(TMP / "keys-uv-split.mesh", f"FACS: the {len(m.facs_controls)} controls imported as shape keys are not written")
plain = FIX / "filemesh" / "v4.01-bones.mesh"
fresh()
bpy.ops.import_scene.meshcodec(filepath=str(plain))
(o,) = meshes()
o.shape_key_add(name="Basis", from_mix=False)
o.shape_key_add(name="Smile", from_mix=False).data[0].co.z += 0.5
refused(TMP / "keys-made.mesh", "1 made or renamed in Blender (Smile)")
ok("shape keys: a move and a UV edit keep FACS; an edited FACS key, a key on an untouched import, "
   "a new key and FACS dropped by a UV seam split are named and refused unless lossy")

# An untouched import edited but for its positions (a UV, a bone of its rig) is not
# written as the file's bytes, nor into the file as a move: the edit reaches the file.
f = meshcodec.open(plain)
m = f.mesh()
fresh()
bpy.ops.import_scene.meshcodec(filepath=str(plain))
(o,) = meshes()
u0 = float(m.uvs[int(numpy.unique(m.faces)[0]), 0])
for loop in o.data.loops:
    if loop.vertex_index == 0:
        o.data.uv_layers[0].data[loop.index].uv[0] += 0.125
out = TMP / "uv-edited.mesh"
bpy.ops.object.select_all(action="SELECT")
assert bpy.ops.export_scene.meshcodec(filepath=str(out), allow_lossy=True) == {"FINISHED"}
g = meshcodec.open(out)
assert out.read_bytes() != plain.read_bytes()
assert numpy.isclose(g.mesh().uvs[:, 0], u0 + 0.125, atol=1e-4).any() and not numpy.isclose(m.uvs[:, 0], u0 + 0.125, atol=1e-4).any()
fresh()
bpy.ops.import_scene.meshcodec(filepath=str(plain))
(arm,) = [x for x in bpy.data.objects if x.type == "ARMATURE"]
bpy.context.view_layer.objects.active = arm
bpy.ops.object.mode_set(mode="EDIT")
bone = arm.data.edit_bones[-1]
name = bone.name
bone.head.z += 0.5
bone.tail.z += 0.5
bpy.ops.object.mode_set(mode="OBJECT")
out = TMP / "bone-edited.mesh"
bpy.ops.object.select_all(action="SELECT")
assert bpy.ops.export_scene.meshcodec(filepath=str(out), allow_lossy=True) == {"FINISHED"}
g = meshcodec.open(out)
k, j = m.bone_names.index(name), g.mesh().bone_names.index(name)
assert abs(float(g.mesh().bone_positions[j, 1]) - float(m.bone_positions[k, 1]) - 0.5) < 1e-4, (g.mesh().bone_positions[j], m.bone_positions[k])
ok("a UV and a bone edited on an untouched import reach the written file")

# Every format edited (scaled) and written back to its own format through glTF: the
# read-back passes, and the written file is the scaled geometry.
# (Not unigine/ms11-skinned.mesh: its bind matrices are not its joints' rest transforms,
# so Blender's glTF importer moves its vertices into the bind pose; they come back moved.)
for rel in ["unigine/ms14-skinned.mesh", "unigine/ms13-static-quad.mesh", "stf/two-meshes.stf",
            "csgmdl/csgmdl5-quad-lod.bin", "csgmdl/csgmdl2-quad.bin", "filemesh/v3.00-lods.mesh",
            "text/v1.01.mesh"]:
    src = FIX / rel
    f = meshcodec.open(src)
    fresh()
    bpy.ops.import_scene.meshcodec(filepath=str(src))
    for o in meshes():
        m, inv = o.matrix_world, o.matrix_world.inverted()
        for v in o.data.vertices:
            v.co = inv @ (2.0 * (m @ v.co))  # about the world's origin
    bpy.ops.object.select_all(action="SELECT")
    out = TMP / ("scaled-" + src.name)
    assert bpy.ops.export_scene.meshcodec(filepath=str(out), allow_lossy=True) == {"FINISHED"}, rel
    g = meshcodec.open(out)
    assert (g.format, g.version) == (f.format, f.version), (rel, g.format, g.version)
    a, b = extent(f.mesh()), extent(g.mesh())
    assert abs(b - 2 * a) <= 1e-4 * max(1.0, a), (rel, a, b)
ok("an edit of each format written back to its own format, read back")

# Drag and drop: Blender 4.1+ hands dropped files to the importer by a file handler;
# the importer takes several files (directory + files) as a drop gives them.
if bpy.app.version >= (4, 1, 0):
    fh = bpy.types.FileHandler.bl_rna_get_subclass_py("IO_FH_meshcodec")
    assert fh is not None and fh.bl_import_operator == "import_scene.meshcodec", fh
    assert ".mesh" in fh.bl_file_extensions.split(";"), fh.bl_file_extensions
else:
    assert not hasattr(bpy.types, "FileHandler")
fresh()
drop = [FIX / "filemesh" / "v2.00-36b.mesh", FIX / "stf" / "quad-new-style.stf"]
assert bpy.ops.import_scene.meshcodec(
    directory=str(FIX), files=[{"name": str(p.relative_to(FIX))} for p in drop]
) == {"FINISHED"}
paths = {o.get(ADDON.PROP_PATH) for o in bpy.data.objects}
assert paths == {str(p) for p in drop}, paths
ok("two files dropped at once imported" + (" (file handler registered)" if bpy.app.version >= (4, 1, 0) else ""))

print(f"DONE {checked}", flush=True)
