"""New files from arrays and from glTF/OBJ, and an edit written back."""

from __future__ import annotations

import numpy as np
import pytest

import meshcodec
from conftest import CI, FIXTURES

VERSIONS = ["1.00", "1.01", "2.00", "3.00", "3.01", "4.00", "4.01", "5.00", "6.00", "7.00"]


def quad():
    positions = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]], np.float32)
    faces = np.array([[0, 1, 2], [0, 2, 3]], np.uint32)
    normals = np.tile(np.array([0, 0, 1], np.float32), (4, 1))
    uvs = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    colors = np.array([[255, 0, 0, 255], [0, 255, 0, 255], [0, 0, 255, 255], [9, 9, 9, 128]], np.uint8)
    return positions, faces, normals, uvs, colors


@pytest.mark.parametrize("to", VERSIONS)
def test_from_arrays_into_every_filemesh_version(to) -> None:
    positions, faces, normals, uvs, colors = quad()
    f = meshcodec.from_arrays(positions, faces, normals=normals, uvs=uvs, colors=colors, to=to, allow_lossy=True)
    assert (f.format, f.version) == ("filemesh", to)
    back = meshcodec.open(f.to_bytes())
    assert back.to_bytes() == f.to_bytes()
    m = back.mesh()
    assert len(m.faces) == 2
    if to >= "2.00":
        # Binary versions keep the vertices as given (text has one per face corner).
        np.testing.assert_array_equal(m.positions, positions)
        np.testing.assert_array_equal(m.faces, faces)
        np.testing.assert_array_equal(m.uvs, uvs)
    else:
        assert len(m.positions) == 6


def test_from_arrays_into_other_formats() -> None:
    positions, faces, normals, uvs, colors = quad()
    for to, fmt in [("csgphs:7", "csgphs"), ("unigine:ms13", "unigine-mesh"), ("stf", "stf"), ("csgmdl:5", "csgmdl")]:
        f = meshcodec.from_arrays(positions, faces, normals=normals, uvs=uvs, to=to, allow_lossy=True)
        assert f.format == fmt, to
        assert meshcodec.open(f.to_bytes()).to_bytes() == f.to_bytes()


def test_from_arrays_refuses_bad_arrays() -> None:
    positions, faces, *_ = quad()
    with pytest.raises(ValueError, match="an \\(N, 3\\) array"):
        meshcodec.from_arrays(positions[:, :2], faces)
    with pytest.raises(ValueError):
        meshcodec.from_arrays(positions, faces + 10)
    with pytest.raises(ValueError, match="rows for 4 positions"):
        meshcodec.from_arrays(positions, faces, uvs=np.zeros((3, 2)))
    # Colours 2.00 cannot hold are a loss.
    with pytest.raises(meshcodec.LossyConversion):
        meshcodec.from_arrays(positions, faces, colors=quad()[4], to="1.00")


def test_an_edit_written_back_and_read_again(tmp_path) -> None:
    """Positions doubled through the arrays: written as a new file that reads back with
    the doubled positions and the same faces."""
    f = meshcodec.open(FIXTURES / "filemesh" / "v2.00-36b.mesh")
    m = f.mesh()
    doubled = meshcodec.from_arrays(m.positions * 2, m.faces, normals=m.normals, uvs=m.uvs, to="2.00")
    out = tmp_path / "doubled.mesh"
    doubled.save(out)
    again = meshcodec.open(out).mesh()
    np.testing.assert_array_equal(again.positions, m.positions * 2)
    np.testing.assert_array_equal(again.faces, m.faces)


def test_import_file_as_the_cli(tmp_path) -> None:
    src = meshcodec.open(FIXTURES / "filemesh" / "v4.01-bones.mesh")
    glb = tmp_path / "x.glb"
    left_out = src.export(glb)
    assert any("faces of LOD 1" in line for line in left_out)
    f = meshcodec.import_file(glb, "4.01")
    assert (f.format, f.version) == ("filemesh", "4.01")
    assert len(f.mesh().faces) == len(src.mesh().faces)
    with pytest.raises(meshcodec.LossyConversion) as e:
        meshcodec.import_file(glb, "2.00")
    assert "3 bones (2.00 has no skeleton)" in e.value.losses
    obj = tmp_path / "x.obj"
    src.export(obj)
    assert meshcodec.import_file(obj, "stf").format == "stf"
    with pytest.raises(ValueError):
        meshcodec.import_file(glb, "9.99")


def test_trimesh_loads_every_format_through_the_package() -> None:
    if CI:
        import trimesh  # CI installs it: the loader is tested there, never skipped
    else:
        trimesh = pytest.importorskip("trimesh")
    meshcodec.register_trimesh()
    for path, fmt in [
        (FIXTURES / "filemesh" / "v4.01-bones.mesh", "filemesh"),
        (FIXTURES / "csgphs" / "csgphs7.bin", "csgphs"),
        (FIXTURES / "unigine" / "ms12-morph.mesh", "unigine-mesh"),
        (FIXTURES / "stf" / "quad-new-style.stf", "stf"),
    ]:
        m = meshcodec.open(path).mesh()
        t = trimesh.load(str(path), force="mesh")
        assert meshcodec.open(path).format == fmt
        np.testing.assert_array_equal(np.asarray(t.vertices, np.float32), m.positions)
        np.testing.assert_array_equal(np.asarray(t.faces), m.faces.astype(np.int64))


def unedited_then_doubled(path):
    """The file at ``path``, its mesh with the positions doubled, and the file with that
    mesh; an unedited ``with_mesh`` must give the file's own bytes. A binary version
    holds doubled numbers exactly: no losses; a text version may not (more than six
    significant digits): refused, then written with ``allow_lossy`` and the rounding
    named."""
    data = path.read_bytes()
    f = meshcodec.open(data)
    m = f.mesh()
    unedited = f.with_mesh(m)
    assert unedited.to_bytes() == data and unedited.losses == [], "unedited: the same bytes"
    m.positions = m.positions * 2
    try:
        edited = f.with_mesh(m)
    except meshcodec.LossyConversion as e:
        assert f.format == "filemesh" and f.version < "2.00", (path.name, e.losses)
        edited = f.with_mesh(m, allow_lossy=True)
        assert edited.losses == e.losses
        assert all("rounded to the text's significant digits" in line for line in e.losses), e.losses
        return f, m, edited
    assert edited.losses == [], (path.name, edited.losses)
    return f, m, edited


def filemeshes_everywhere():
    from conftest import corpus_files, fixture_files

    return [p for p in fixture_files() + corpus_files() if meshcodec.open(p).format == "filemesh"]


@pytest.mark.parametrize("path", filemeshes_everywhere(), ids=lambda p: p.name)
def test_with_mesh_unedited_is_the_file_and_an_edit_keeps_the_rest(path) -> None:
    # Positions doubled: everything else as it was.
    f, m, edited = unedited_then_doubled(path)
    assert edited.version == f.version
    again = edited.mesh()
    # Binary versions hold the doubled numbers exactly (a 7.00 core mesh is re-encoded
    # only as exactly as it holds them); text prints them to its significant digits.
    text = f.version < "2.00"
    # (A fixture holds the largest floats: doubled, they are no longer finite, and text
    # printed to 6 digits rounds the largest finite ones past the largest float.)
    finite = np.isfinite(m.positions) & (np.abs(m.positions) < (1e38 if text else np.inf))
    np.testing.assert_allclose(again.positions[finite], m.positions[finite], rtol=1e-5 if text else 0)
    np.testing.assert_array_equal(again.faces, m.faces)
    before, after = f.info(), edited.info()
    for key in ("vertices", "faces", "lod_offsets", "bones", "subsets", "facs"):
        assert before.get(key) == after.get(key), key


def test_with_mesh_new_counts() -> None:
    f = meshcodec.open(FIXTURES / "filemesh" / "v3.00-lods.mesh")
    m = f.mesh()
    n = len(m.positions)
    # One more triangle on three new vertices, in LOD 0: LOD 1 moves along.
    m.positions = np.vstack([m.positions, [[9, 9, 9], [10, 9, 9], [9, 10, 9]]])
    m.normals = np.vstack([m.normals, np.zeros((3, 3))])
    m.uvs = np.vstack([m.uvs, np.zeros((3, 2))])
    m.colors = np.vstack([m.colors, np.full((3, 4), 255)])
    m.faces = np.vstack([m.faces, [[n, n + 1, n + 2]]])
    g = f.with_mesh(m)
    lod1 = f.mesh(1).faces
    assert len(g.mesh().faces) == len(m.faces)
    np.testing.assert_array_equal(g.mesh(1).faces, lod1)
    assert g.info()["lod_offsets"][-1] == f.info()["lod_offsets"][-1] + 1
    # A skinned mesh needs joints and weights for new vertices; bad indices are refused.
    s = meshcodec.open(FIXTURES / "filemesh" / "v4.01-bones.mesh")
    sm = s.mesh()
    sm.positions = np.vstack([sm.positions, [[0, 0, 0]]])
    sm.normals = sm.uvs = sm.colors = None
    with pytest.raises(ValueError, match="joints: 9 rows for 10 positions"):
        s.with_mesh(sm)
    sm.joints = sm.weights = None
    with pytest.raises(ValueError, match="need joints and weights"):
        s.with_mesh(sm)
    sm = s.mesh()
    sm.faces = sm.faces + 100
    with pytest.raises(ValueError, match="index"):
        s.with_mesh(sm)
    with pytest.raises(ValueError, match="FileMesh, CSGPHS and union graphics"):
        u = meshcodec.open(FIXTURES / "unigine" / "ms12-morph.mesh")
        u.with_mesh(u.mesh())


def test_with_mesh_says_what_the_version_cannot_hold() -> None:
    """An edit written back in a version that cannot hold it as given is refused, names
    what it would lose, and with ``allow_lossy`` is written with that list; an attribute
    the format has no place for is a ValueError, never dropped in silence."""
    text = meshcodec.open(FIXTURES / "text" / "v1.01.mesh")
    m = text.mesh()
    m.positions = m.positions * np.float32(1.2345678)
    with pytest.raises(meshcodec.LossyConversion, match="significant digits") as e:
        text.with_mesh(m)
    assert e.value.report and e.value.report[0]["kind"] == "text_precision", e.value.report
    g = text.with_mesh(m, allow_lossy=True)
    assert g.losses == e.value.losses
    np.testing.assert_allclose(g.mesh().positions, m.positions, rtol=1e-5)
    assert not np.array_equal(g.mesh().positions, m.positions), "rounded, as reported"
    # Colours in a text version (it has none): refused.
    m = text.mesh()
    m.colors = np.full((len(m.positions), 4), 7, np.uint8)
    with pytest.raises(meshcodec.LossyConversion, match="colo"):
        text.with_mesh(m)
    # Shared vertices are laid out one per face corner: listed, needs no permission.
    m = text.mesh()
    m.faces = np.zeros_like(m.faces)
    m.faces[:, 1], m.faces[:, 2] = 1, 2
    g = text.with_mesh(m)
    assert any(r["level"] == "re-laid" for r in g.loss_report), g.loss_report
    assert len(g.mesh().positions) == 3 * len(m.faces)
    # A union of version 5 keeps normals in 16 bits: one between two steps is refused.
    u = meshcodec.open(FIXTURES / "csgmdl" / "csgmdl5-quad-lod.bin")
    m = u.mesh()
    m.normals = np.tile(np.array([[0.123456789, 0.5, 0.857]], np.float32), (len(m.positions), 1))
    with pytest.raises(meshcodec.LossyConversion, match="quantized"):
        u.with_mesh(m)
    assert u.with_mesh(m, allow_lossy=True).losses
    m = u.mesh()
    m.joints = np.zeros((len(m.positions), 4), np.uint16)
    with pytest.raises(ValueError, match="joints: union graphics"):
        u.with_mesh(m)
    # CSGPHS holds positions and faces only.
    h = meshcodec.open(FIXTURES / "csgphs" / "csgphs7.bin")
    m = h.mesh()
    m.normals = np.zeros((len(m.positions), 3), np.float32)
    with pytest.raises(ValueError, match="normals: CSGPHS"):
        h.with_mesh(m)


def test_with_mesh_refuses_changes_it_does_not_write() -> None:
    """The skeleton, FACS data and level ranges are read-only to with_mesh: changed, they
    are a ValueError naming them (never dropped in silence); read and left alone, or set
    back as read, they are no change."""
    f = meshcodec.open(FIXTURES / "filemesh" / "v4.01-bones.mesh")
    m = f.mesh()
    m.bones, m.lod_ranges, m.bone_names  # noqa: B018 - read, not changed
    m.positions = m.positions * 2
    assert f.with_mesh(m).losses == []
    for name, change in [
        ("bone_positions", lambda m: setattr(m, "bone_positions", m.bone_positions + 1)),
        ("bone_names", lambda m: setattr(m, "bone_names", ["x"] + m.bone_names[1:])),
        ("bones", lambda m: m.bones[0].update(parent=3)),
        ("lod_ranges", lambda m: setattr(m, "lod_ranges", [(0, 1)])),
    ]:
        m = f.mesh()
        change(m)
        with pytest.raises(ValueError, match=f"^{name} changed, which with_mesh does not write"):
            f.with_mesh(m)
    # In place too: the arrays are the mesh's own and writable.
    m = f.mesh()
    m.bone_rotations[0, 0] += 1
    with pytest.raises(ValueError, match="bone_rotations changed"):
        f.with_mesh(m)
    m.bone_rotations[0, 0] -= 1
    assert f.with_mesh(m).to_bytes() == f.to_bytes()
    facs = [p for p in sorted((FIXTURES / "filemesh").glob("*.mesh")) if meshcodec.open(p).mesh().facs_controls]
    assert facs, "a fixture with FACS data"
    f = meshcodec.open(facs[0])
    m = f.mesh()
    m.facs_poses = m.facs_poses * 2
    with pytest.raises(ValueError, match="facs_poses changed"):
        f.with_mesh(m)


def unions_everywhere():
    from conftest import corpus_files, fixture_files

    out = []
    for p in fixture_files() + corpus_files():
        try:
            if meshcodec.open(p).format in ("csgphs", "csgmdl"):
                out.append(p)
        except meshcodec.FormatError:
            pass
    return out


@pytest.mark.parametrize("path", unions_everywhere(), ids=lambda p: p.name)
def test_with_mesh_of_unions_keeps_the_rest(path) -> None:
    f, m, edited = unedited_then_doubled(path)
    assert edited.version == f.version and edited.format == f.format
    again = edited.mesh()
    np.testing.assert_array_equal(again.positions, m.positions)
    np.testing.assert_array_equal(again.faces, m.faces)
    before, after = f.info(), edited.info()
    for key in ("hulls", "vertices", "faces", "geometry_type"):
        assert before.get(key) == after.get(key), key
    if m.normals is not None:
        # Version 5 stores normals in 16 bits: as read, they come back as they were.
        np.testing.assert_array_equal(again.normals, f.mesh().normals)
        np.testing.assert_array_equal(again.uvs, f.mesh().uvs)
        np.testing.assert_array_equal(again.colors, f.mesh().colors)


def test_with_mesh_of_hulls_refuses_what_breaks_them() -> None:
    f = meshcodec.open(FIXTURES / "csgphs" / "csgphs7.bin")
    m = f.mesh()
    assert f.info()["hulls"] == 3
    m.positions = m.positions[:-1]
    m.faces = m.faces[:1]
    with pytest.raises(ValueError, match="each hull's vertex count"):
        f.with_mesh(m)
    m = f.mesh()
    m.faces = m.faces.copy()
    m.faces[0] = [0, 1, len(m.positions) - 1]
    with pytest.raises(ValueError, match="spans two hulls"):
        f.with_mesh(m)
    # One triangle fewer in the last hull is an edit like any other.
    m = f.mesh()
    m.faces = m.faces[:-1]
    assert f.with_mesh(m).info()["faces"] == f.info()["faces"] - 1
