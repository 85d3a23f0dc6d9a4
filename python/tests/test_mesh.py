"""What ``File.mesh()`` hands out: arrays that leave Rust without a copy and belong to the
mesh, and a FileMesh's FACS rig with its poses (``File.facs_positions``)."""

from __future__ import annotations

import numpy as np
import pytest

import meshcodec
from conftest import CI, FIXTURES, corpus


def test_filemesh_arrays_are_views_of_one_vertex_table() -> None:
    f = meshcodec.open(FIXTURES / "filemesh" / "v4.01-bones.mesh")
    m = f.mesh()
    # One buffer behind positions, normals, UVs and colours: nothing was copied apart.
    for a in (m.normals, m.uvs, m.colors):
        assert np.may_share_memory(m.positions, a)
    assert m.positions.strides == (40, 4) and m.colors.strides == (40, 1)
    assert m.positions.dtype == np.float32 and m.colors.dtype == np.uint8
    # The same numbers as the record layout says (the glTF test checks them further).
    records = np.frombuffer(np.ascontiguousarray(m.positions).tobytes(), np.float32)
    assert records.size == 3 * len(m.positions)
    # Writable, and the mesh's own: an edit in place leaves the file as it was.
    before = f.to_bytes()
    m.positions *= 2
    m.colors[:] = 7
    assert f.to_bytes() == before
    assert np.array_equal(f.mesh().positions * 2, m.positions)
    # Faces of a level are a slice of every level's faces.
    lods = meshcodec.open(FIXTURES / "filemesh" / "v5.00-facs.mesh")
    for lod, (start, end) in enumerate(lods.mesh().lod_ranges):
        assert len(lods.mesh(lod).faces) == end - start


def test_attributes_are_made_when_first_read_and_kept() -> None:
    f = meshcodec.open(FIXTURES / "filemesh" / "v4.01-bones.mesh")
    m = f.mesh()
    # Positions and faces come made (every script reads them); the rest is made when
    # first asked for, then kept.
    assert "positions" in vars(m) and "faces" in vars(m)
    assert not {"normals", "uvs", "colors"} & set(vars(m))
    p = m.positions
    n = m.normals
    assert m.normals is n and "normals" in vars(m) and "uvs" not in vars(m)
    # Assigning replaces it, before or after it was first read.
    m.normals = np.zeros((len(p), 3), np.float32)
    assert not m.normals.any()
    m.positions = p * 2
    assert np.array_equal(m.positions, p * 2)
    # The edit reaches the file; what was never read comes as the file has it.
    g = f.with_mesh(m)
    back = g.mesh()
    assert np.array_equal(back.positions, p * 2) and not back.normals.any()
    assert np.array_equal(back.uvs, f.mesh().uvs)
    assert back.bone_names == f.mesh().bone_names and len(back.bones) == len(back.bone_names)
    with pytest.raises(AttributeError):
        m.no_such_array  # noqa: B018 - the lookup is the test
    assert "faces" in dir(m) and repr(m).startswith("<meshcodec.Mesh")


def test_a_version_without_colours_has_none() -> None:
    # 2.00 with 36-byte vertices stores no colour; with 40-byte vertices it does.
    assert meshcodec.open(FIXTURES / "filemesh" / "v2.00-36b.mesh").mesh().colors is None
    forty = meshcodec.open(FIXTURES / "filemesh" / "v2.00-40b.mesh").mesh()
    assert forty.colors is not None and forty.colors.shape == (len(forty.positions), 4)


def test_facs_rig_and_poses_of_the_fixture() -> None:
    f = meshcodec.open(FIXTURES / "filemesh" / "v5.00-facs.mesh")
    m = f.mesh()
    assert m.facs_controls is not None and m.facs_face_bones is not None
    assert len(m.facs_controls) == 3 and len(m.facs_face_bones) == 2
    # A column per control and per corrective, a row per face bone, six numbers each.
    assert m.facs_poses.shape == (3 + len(m.facs_correctives), 2, 6)
    assert all(all(0 <= c < 3 for c in cor) for cor in m.facs_correctives)
    # No weight: the stored positions; every control at full weight moves exactly the
    # vertices that hang on a face bone (or a bone under one).
    rest = f.facs_positions({})
    assert np.allclose(rest, m.positions, atol=1e-5)
    names = [b["name"] for b in m.bones]
    parents = [b["parent"] for b in m.bones]

    def driven(b: int) -> bool:
        for _ in range(len(names) + 1):
            if names[b] in m.facs_face_bones:
                return True
            if parents[b] is None:
                return False
            b = parents[b]
        return False

    hangs = np.array(
        [any(w > 0 and driven(int(j)) for j, w in zip(js, ws)) for js, ws in zip(m.joints, m.weights)]
    )
    moved_any = np.zeros(len(m.positions), bool)
    for control in m.facs_controls:
        posed = f.facs_positions({control: 1.0})
        assert posed.shape == m.positions.shape and posed.dtype == np.float32
        moved = np.abs(posed - m.positions).max(axis=1) > 1e-5
        assert not (moved & ~hangs).any(), control
        moved_any |= moved
    assert moved_any.any()


def test_facs_positions_errors() -> None:
    f = meshcodec.open(FIXTURES / "filemesh" / "v5.00-facs.mesh")
    with pytest.raises(ValueError, match="not a FACS control"):
        f.facs_positions({"nope": 1.0})
    with pytest.raises(ValueError, match="no FACS"):
        meshcodec.open(FIXTURES / "filemesh" / "v5.00-nofacs.mesh").facs_positions({"c_JD": 1.0})
    phs = next((FIXTURES / "csgphs").glob("*"))
    with pytest.raises(ValueError, match="FACS"):
        meshcodec.open(phs).facs_positions({"c_JD": 1.0})


def test_facs_positions_of_the_corpus_follow_half_weights() -> None:
    # A control at half weight moves a translated-only face bone half as far; in general
    # the posed positions are finite and zero weight is the rest.
    c = corpus()
    if c is None:
        pytest.skip("no corpus")
    seen = 0
    for p in sorted(c.rglob("*.mesh")):
        data = p.read_bytes()
        if not data.startswith(b"version 5") and not data.startswith(b"version 6") and not data.startswith(b"version 7"):
            continue
        f = meshcodec.open(data)
        m = f.mesh()
        if m.facs_controls is None:
            continue
        seen += 1
        for control in m.facs_controls[:10]:
            full = f.facs_positions({control: 1.0})
            assert np.isfinite(full).all()
        assert np.allclose(f.facs_positions({}), m.positions, atol=1e-4)
    assert seen > 0


def filemeshes() -> list:
    from conftest import corpus_files, fixture_files

    return [
        p
        for p in fixture_files() + corpus_files()
        if p.read_bytes()[:8] == b"version " and meshcodec.open(p).format == "filemesh"
    ]


@pytest.mark.parametrize("path", filemeshes(), ids=lambda p: p.name)
def test_level_0_arrays_equal_an_independent_reader(path) -> None:
    import independent

    data = path.read_bytes()
    want = independent.read(data)
    if want is None:
        # The independent reader decodes Draco through DracoPy (.ci/run installs it).
        assert not CI, "CI=true but DracoPy is missing for a 7.00 Draco file"
        pytest.skip("7.00 Draco needs DracoPy")
    got = meshcodec.open(data).mesh()
    if data.startswith(b"version 1"):
        # Text: one vertex per face corner; numbers to float32 as the text says.
        np.testing.assert_allclose(got.positions, want["positions"], rtol=1e-6, atol=1e-30)
        np.testing.assert_allclose(got.uvs, want["uvs"], rtol=1e-6, atol=1e-6)
        np.testing.assert_array_equal(got.faces, want["faces"])
        return
    for key in ("positions", "normals", "uvs", "colors"):
        if key in want:
            np.testing.assert_array_equal(getattr(got, key), want[key], err_msg=key)
    np.testing.assert_array_equal(got.faces, want["faces"])


def test_union_levels_of_detail_are_its_index_ranges() -> None:
    from conftest import corpus_files, fixture_files

    seen = 0
    for p in fixture_files() + corpus_files():
        try:
            f = meshcodec.open(p)
        except meshcodec.FormatError:
            continue
        if f.format != "csgmdl":
            continue
        counts = f.info()["lod_faces"]
        assert [len(f.mesh(k).faces) for k in range(len(counts))] == counts, p.name
        with pytest.raises(ValueError, match=f"no LOD {len(counts)}"):
            f.mesh(len(counts))
        seen += len(counts) > 1
    assert seen > 0 or corpus() is None
