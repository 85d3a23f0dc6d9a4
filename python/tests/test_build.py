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
