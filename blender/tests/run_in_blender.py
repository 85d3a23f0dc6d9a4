"""The add-on's tests, run inside Blender (headless) against the zip build.py makes.

    blender -b --factory-startup --python-exit-code 1 \\
        --python blender/tests/run_in_blender.py -- ZIP [CORPUS]

Installs the zip with Blender's own addon_install and enables it, then, through the
operators a user clicks:
- imports a file of every format (and every corpus file when CORPUS is given) and
  checks Blender's triangle count against the package's;
- exports each import, untouched, back to its own format and version: the bytes are the
  file's;
- scales an imported skinned mesh and exports it to FileMesh 2.00: refused without
  allow_lossy (bones, skinning), written with it, and the positions are scaled;
- exports a cube made in Blender (FileMesh 4.00 by default) and to CSGPHS 7.
Prints "OK name" per check, and raises (exit status 1) at the first failure.
"""

import os
import pathlib
import shutil
import sys
import tempfile

import bpy

ARGS = sys.argv[sys.argv.index("--") + 1 :]
ZIP = ARGS[0]
CORPUS = pathlib.Path(ARGS[1]) if len(ARGS) > 1 else None
REPO = pathlib.Path(__file__).resolve().parents[2]
FIX = REPO / "roundtrip-fixtures"

# The zip's add-on, not one installed before (set BLENDER_USER_SCRIPTS to keep the
# user's own folder out of it, as .ci/run does).
installed = pathlib.Path(bpy.utils.user_resource("SCRIPTS", path="addons")) / "meshcodec_blender"
shutil.rmtree(installed, ignore_errors=True)
assert os.path.isfile(ZIP), f"no zip at {ZIP}"
assert bpy.ops.preferences.addon_install(filepath=ZIP, overwrite=True) == {"FINISHED"}
assert bpy.ops.preferences.addon_enable(module="meshcodec_blender") == {"FINISHED"}
assert (installed / "__init__.py").is_file(), installed
import meshcodec  # noqa: E402  (bundled in the zip, importable once enabled)
import numpy  # noqa: E402

TMP = pathlib.Path(tempfile.mkdtemp())
checked = 0


def ok(name):
    global checked
    checked += 1
    print(f"OK {name}", flush=True)


def fresh():
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.preferences.addon_enable(module="meshcodec_blender")


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
    if f.format != "unigine-anim":
        assert triangles() == kept(f.mesh().faces), (path.name, triangles(), len(f.mesh().faces))
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
    if p.is_file():
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

print(f"DONE {checked}", flush=True)
