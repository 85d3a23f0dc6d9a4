"""Every fixture and corpus file of every format through the package, against the CLI."""

from __future__ import annotations

import concurrent.futures
import json
import multiprocessing
import pickle
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import meshcodec
from conftest import FIXTURES, corpus_files, fixture_files

FILES = fixture_files() + corpus_files()


def test_there_are_files_of_every_format() -> None:
    formats = {meshcodec.open(p).format for p in fixture_files()}
    assert formats >= {"filemesh", "csgphs", "csgmdl", "csgk", "unigine-mesh", "unigine-anim", "stf"}


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_opens_writes_back_identical_and_info_is_the_clis(path, cli) -> None:
    data = path.read_bytes()
    by_path = meshcodec.open(path)
    by_bytes = meshcodec.open(memoryview(data))
    assert by_path.to_bytes() == data
    assert by_bytes.to_bytes() == data
    assert by_path.format == by_bytes.format
    out = subprocess.run([cli, "info", "--json", str(path)], capture_output=True, check=False)
    if out.returncode == 0:
        assert by_path.info() == json.loads(out.stdout)
        version = json.loads(out.stdout)["version"]
        # CSGK (a list of references) has no version number: its name stands for one.
        assert by_path.version == ("CSGK" if version is None else str(version))
    # Pickled as its bytes.
    assert pickle.loads(pickle.dumps(by_path)).to_bytes() == data


def test_a_pickle_keeps_the_loss_report_and_the_limits() -> None:
    """A converted file shipped to another process still says what the conversion lost
    (a worker's result must not come back looking lossless), and a file opened with
    raised limits opens again with them on the other side."""
    f = meshcodec.open(FIXTURES / "filemesh" / "v3.00-lods.mesh", max_input=1 << 33, max_decoded=1 << 34)
    g = f.convert("2.00", allow_lossy=True)
    assert g.losses, "a loss to keep"
    h = pickle.loads(pickle.dumps(g))
    assert (h.losses, h.loss_report, h.to_bytes()) == (g.losses, g.loss_report, g.to_bytes())
    assert g.__reduce__()[1][1:3] == (1 << 33, 1 << 34)
    assert pickle.loads(pickle.dumps(h)).__reduce__()[1][1:] == g.__reduce__()[1][1:]
    # An opened file: no losses; a report that is not one is refused, not guessed at.
    assert pickle.loads(pickle.dumps(f)).losses == []
    unpickle, args = g.__reduce__()
    with pytest.raises(ValueError, match="loss report"):
        unpickle(*args[:3], '[{"kind": "nothing"}]')


def test_save_is_byte_exact_and_atomic(tmp_path) -> None:
    src = fixture_files()[0]
    f = meshcodec.open(src)
    out = tmp_path / "copy.bin"
    out.write_bytes(b"the previous file")
    f.save(out)
    assert out.read_bytes() == src.read_bytes()
    with pytest.raises(OSError):
        f.save(tmp_path)  # a directory is refused, the folder left as it was
    assert [p.name for p in tmp_path.iterdir()] == ["copy.bin"]


def test_a_thread_pool_gives_the_serial_results() -> None:
    def work(p):
        f = meshcodec.open(p)
        return f.format, f.version, f.info(), f.to_bytes() == p.read_bytes()

    serial = [work(p) for p in FILES]
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        threaded = list(pool.map(work, FILES))
    assert threaded == serial


def _text_arrays(data: bytes) -> tuple:
    m = meshcodec.open(data).mesh()
    return m.positions.tobytes(), m.uvs.tobytes(), m.faces.tobytes()


def test_a_long_text_reads_the_same_in_a_forked_process() -> None:
    """A text mesh of 200 KB and more is read on several threads; they are started for the
    read, not kept in a pool, whose threads a forked process (``multiprocessing``'s default
    on Linux) would not have: there the read would wait forever."""
    n = 3_000
    rng = np.random.default_rng(11)
    text = meshcodec.from_arrays(
        # Eighths below 1000: six digits at most, printed exactly.
        rng.integers(0, 8000, (n, 3)).astype(np.float32) / 8,
        rng.integers(0, n, (n, 3), dtype=np.uint32),
        to="1.00",
    ).to_bytes()
    assert len(text) > 300_000
    here = _text_arrays(text)  # in this process first, as a script would
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(1) as pool:
        there = pool.apply_async(_text_arrays, (text,)).get(timeout=60)
    assert there == here
    assert meshcodec.open(text).to_bytes() == text


def test_the_interpreter_is_released_while_a_large_file_is_read() -> None:
    """Another Python thread runs while a large file is opened and its mesh made, which it
    cannot while a native call holds the interpreter; files under 4 KiB keep it (their
    few microseconds are less than releasing it costs) and block the other thread."""
    n = 200_000
    rng = np.random.default_rng(7)
    big = meshcodec.from_arrays(
        rng.random((n, 3), np.float32), rng.integers(0, n, (2 * n, 3), dtype=np.uint32), to="4.01"
    ).to_bytes()
    small = (FIXTURES / "text" / "v1.01.mesh").read_bytes()
    assert len(small) < 4096
    meshcodec.open(small).mesh()  # the first call looks up what it needs (imports may wait)
    counter = [0]
    stop = threading.Event()

    def count() -> None:
        # Gives the interpreter up on every turn (sleep releases it), so the main thread
        # gets it back at once; the main thread only gives it up when a call releases it
        # (no forced switches: the switch interval is long below).
        while not stop.is_set():
            counter[0] += 1
            time.sleep(0)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(30.0)
    thread = threading.Thread(target=count)
    thread.start()
    try:
        during = []
        for data in (big, small):
            before = counter[0]
            meshcodec.open(data).mesh()
            during.append(counter[0] - before)
    finally:
        sys.setswitchinterval(interval)
        stop.set()
        thread.join()
    # The other thread ran while the large file was read, never while the small one was.
    assert during[0] > 0, during
    assert during[1] == 0, during


def test_mesh_arrays_equal_the_gltf_export(tmp_path) -> None:
    """LOD 0's arrays against the accessors of the file's own glTF export (FileMesh and
    CSGPHS are +Y up, so the export does not turn them)."""
    checked = 0
    for path in FILES:
        f = meshcodec.open(path)
        if f.format not in ("filemesh", "csgphs"):
            continue
        m = f.mesh()
        out = tmp_path / "x.glb"
        f.export(out)
        positions, faces = glb_geometry(out.read_bytes())
        assert m.positions.dtype == np.float32 and m.positions.shape[1] == 3
        assert m.faces.dtype == np.uint32 and m.faces.shape[1] == 3
        assert m.faces.size == 0 or int(m.faces.max()) < len(m.positions)
        if f.format == "filemesh":
            # Mesh holds every vertex of the file; the export those LOD 0 uses, in their
            # order, renumbered.
            used = np.unique(m.faces)
            np.testing.assert_array_equal(m.positions[used], positions)
            np.testing.assert_array_equal(np.searchsorted(used, m.faces), faces)
        else:
            np.testing.assert_array_equal(m.positions, positions)
            np.testing.assert_array_equal(m.faces, faces)
        checked += 1
    assert checked >= 10


def glb_geometry(glb: bytes):
    """Every primitive's POSITION and indices of a GLB, one after another, the indices
    made to count over all positions (as Mesh does)."""
    n = int.from_bytes(glb[12:16], "little")
    doc = json.loads(glb[20 : 20 + n])
    binary = glb[20 + n + 8 :]
    types = {5126: np.float32, 5125: np.uint32}
    width = {"VEC3": 3, "SCALAR": 1}

    def read(k):
        a = doc["accessors"][k]
        v = doc["bufferViews"][a["bufferView"]]
        start = v.get("byteOffset", 0) + a.get("byteOffset", 0)
        arr = np.frombuffer(binary, types[a["componentType"]], a["count"] * width[a["type"]], start)
        return arr.reshape(a["count"], width[a["type"]])

    positions, faces, base = [], [], 0
    for mesh in doc.get("meshes", []):
        for p in mesh["primitives"]:
            pos = read(p["attributes"]["POSITION"])
            positions.append(pos)
            faces.append(read(p["indices"]).reshape(-1, 3) + base)
            base += len(pos)
    if not positions:
        return np.zeros((0, 3), np.float32), np.zeros((0, 3), np.uint32)
    return np.concatenate(positions), np.concatenate(faces).astype(np.uint32)
