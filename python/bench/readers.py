"""The Python package against the pure-Python readers people use, and DracoPy.

    python python/bench/readers.py --peers DIR [--corpus DIR] [--vertices N]

The job is what a script does with a mesh: open it and get its positions and faces.
Timed, side by side in one run (the best of ``--repeat`` runs each; the pure-Python
readers as many as fit in 2 s, at least one):

- ``copy``: ``bytearray(data)``, the floor;
- ``meshcodec``: ``meshcodec.open(data).mesh()`` (positions (N, 3) and faces (M, 3)
  NumPy arrays); ``meshcodec open`` alone, to show what the arrays cost;
- ``rbxmesh.py`` (Roblox Freedom Distribution's reader, 1.00-5.00 and DracoPy for
  6.00/7.00): ``read_mesh_data(data)``, then its vertices' positions and its faces;
- ``mesh_reader.py`` (RBX_Toolbox's, with its pure-Python Draco decoder):
  ``parse(data)``, which gives flat position and face lists;
- ``... (paired)``: for inputs a pure-Python reader reads in under 50 ms, the same
  reader again, timed round by round right after ours (the best of 5), so that both are
  measured in the same state of the machine; its ratio is the median of the rounds'
  ratios and its time the median of its own (``paired``);
- ``DracoPy`` on the Draco bitstream of each 7.00 file: ``DracoPy.decode``, points and
  faces;
- ``Rust ...``: the Rust library doing the same work, timed in Rust by
  ``python/bench/same_work.rs`` (``open + Mesh::from_file``, what the package calls;
  ``Mesh::read``, the shortest Rust way; built with cargo unless ``--rust BIN`` names
  it), so the binding's own cost is the difference (the goal: within 1.2x): per file,
  the best of ``--repeat`` runs, summed; and ``(in turn)``, timed as ours is, the best
  of runs over the version's files one after another (``same_work --together``: what
  one file leaves in the caches and the allocator then meets the next: glibc gives the
  heap's free top back to the system once it exceeds twice the largest mapped block
  freed so far, so a process that freed none larger than a job's own takes its memory
  from the system again, page by page, on every run: same_work 76 page faults a run on
  the 1.00 files, a quarter more time).

The peers are not in this repository: fetch them and give their folder, laid out as

    DIR/rbxmesh.py                 Source/assets/serialisers/mesh/rbxmesh.py of
                                   github.com/Windows81/Roblox-Freedom-Distribution
    DIR/rbxtb/mesh_reader.py       func_import_v2/readers/mesh_reader.py and
    DIR/rbxtb/draco_decoder.py     func_import_v2/readers/draco_decoder.py of
    DIR/rbxtb/__init__.py          github.com/Gl2imm/RBX_Toolbox (an empty file)

Inputs: a 4.01 mesh of ``--vertices`` vertices (1,000,000 by default: 72 MB, as the
Rust bench's), made with ``meshcodec.from_arrays``; and every FileMesh of ``--corpus``,
summed per version. A reader that fails on a file is reported with its error, not
timed. Prints a table; ``docs/benchmarks.md`` has the figures.
"""

from __future__ import annotations

import argparse
import importlib
import json
import pathlib
import statistics
import struct
import subprocess
import sys
import tempfile
import time
import typing
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

import meshcodec


def best(fn: Callable[[], Any], repeat: int) -> float:
    """The least wall time of ``repeat`` calls, in seconds."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def load_peers(folder: pathlib.Path) -> Dict[str, Any]:
    sys.path.insert(0, str(folder))
    if not hasattr(typing, "override"):
        # rbxmesh.py imports typing.override (Python 3.12); it only marks methods.
        typing.override = lambda f: f  # type: ignore[attr-defined]
    peers = {}
    for name, module in [("rbxmesh.py", "rbxmesh"), ("mesh_reader.py", "rbxtb.mesh_reader")]:
        try:
            peers[name] = importlib.import_module(module)
        except Exception as e:  # noqa: BLE001 - a peer that does not load is reported
            print(f"{name}: not loaded ({e})")
    try:
        import DracoPy

        peers["DracoPy"] = DracoPy
    except ImportError:
        print("DracoPy: not installed (pip install DracoPy)")
    return peers


def run_meshcodec(data: bytes) -> Tuple[int, int]:
    m = meshcodec.open(data).mesh()
    return len(m.positions), len(m.faces)


def run_rbxmesh(module: Any, data: bytes) -> Tuple[int, int]:
    mesh = module.read_mesh_data(data)
    positions = [(v.vx, v.vy, v.vz) for v in mesh.vnts]
    faces = [(f.a, f.b, f.c) for f in mesh.faces]
    return len(positions), len(faces)


def run_mesh_reader(module: Any, data: bytes) -> Tuple[int, int]:
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()):  # it prints the version
        r = module.parse(data)
    return len(r["vertices"]) // 3, len(r["faces"]) // 3


def draco_bitstream(data: bytes) -> Optional[bytes]:
    """The Draco bitstream of a 6.00/7.00 file's COREMESH v2 chunk, if any."""
    at = data.find(b"\n") + 1
    while at + 16 <= len(data):
        kind, version, size = data[at : at + 8], *struct.unpack_from("<II", data, at + 8)
        if kind == b"COREMESH" and version == 2:
            (n,) = struct.unpack_from("<I", data, at + 16)
            return data[at + 20 : at + 20 + n]
        at += 16 + size
    return None


def run_dracopy(module: Any, bitstream: bytes) -> Tuple[int, int]:
    m = module.decode(bitstream)
    return len(np.asarray(m.points)), len(np.asarray(m.faces))


def synthetic(vertices: int) -> bytes:
    """A 4.01 mesh of ``vertices`` vertices and twice as many faces, as the Rust bench."""
    rng = np.random.default_rng(1)
    positions = rng.random((vertices, 3), np.float32)
    normals = np.tile(np.array([0, 1, 0], np.float32), (vertices, 1))
    uvs = rng.random((vertices, 2), np.float32)
    faces = rng.integers(0, vertices, (2 * vertices, 3), dtype=np.uint32)
    return meshcodec.from_arrays(positions, faces, normals=normals, uvs=uvs, to="4.01").to_bytes()


def best_within(fn: Callable[[], Any], repeat: int, budget: float) -> float:
    """The least wall time of up to ``repeat`` calls (at least one), stopping once
    ``budget`` seconds have been spent."""
    times: List[float] = []
    start = time.perf_counter()
    while len(times) < max(1, repeat) and (not times or time.perf_counter() - start < budget):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def paired(ours: Callable[[], Any], peer: Callable[[], Any], budget: float, inner: int = 5) -> Tuple[float, float]:
    """The peer against ours in rounds, each timing ours (the best of ``inner`` calls)
    right before the peer (one call), so both are measured in the same state of the
    machine (its speed swings by up to 1.5x for seconds at a time, which separate bests
    taken seconds apart do not cancel). Rounds until ``budget`` seconds are spent (at
    least 5, at most 400); the median over rounds of the peer's time over ours, and the
    median of the peer's times."""
    ratios: List[float] = []
    peer_times: List[float] = []
    start = time.perf_counter()
    while len(ratios) < 5 or (len(ratios) < 400 and time.perf_counter() - start < budget):
        mine = best(ours, inner)
        t = time.perf_counter()
        peer()
        theirs = time.perf_counter() - t
        ratios.append(theirs / mine)
        peer_times.append(theirs)
    return statistics.median(ratios), statistics.median(peer_times)


def rust_same_work(binary: Optional[pathlib.Path], files: List[bytes], repeat: int) -> Dict[str, float]:
    """The Rust library's time for the same work on ``files``: per kind of work, each
    file's best of ``repeat`` runs summed, and the package's work on them in turn (the
    best of ``repeat`` runs over them all, as ours is timed), from ``same_work.rs``;
    built with cargo when ``binary`` is ``None``."""
    root = pathlib.Path(__file__).resolve().parents[2]
    if binary is None:
        subprocess.run(
            ["cargo", "build", "--quiet", "--release", "-p", "meshcodec-python", "--example", "same_work"],
            cwd=root,
            check=True,
        )
        binary = root / "target" / "release" / "examples" / "same_work"
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for i, data in enumerate(files):
            path = pathlib.Path(tmp) / f"{i}.mesh"
            path.write_bytes(data)
            paths.append(str(path))
        command = [str(binary), *paths, "--repeat", str(repeat)]
        each = subprocess.run(command, check=True, capture_output=True, text=True).stdout
        in_turn = subprocess.run(
            [*command, "--together"], check=True, capture_output=True, text=True
        ).stdout
    totals: Dict[str, float] = {}
    for line in each.splitlines():
        row = json.loads(line)
        totals[f"Rust {row['work']}"] = totals.get(f"Rust {row['work']}", 0.0) + row["seconds"]
    for line in in_turn.splitlines():
        row = json.loads(line)
        if row["work"] == "open + Mesh::from_file":
            totals["Rust (in turn)"] = row["seconds"]
    return totals


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--peers", type=pathlib.Path, required=True, help="the folder of the peers")
    ap.add_argument("--corpus", type=pathlib.Path, help="a folder of real files (FileMesh)")
    ap.add_argument("--vertices", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--rust", type=pathlib.Path, help="same_work built (else built with cargo)")
    args = ap.parse_args()
    peers = load_peers(args.peers)

    inputs: List[Tuple[str, List[bytes]]] = [
        (f"4.01, {args.vertices:,} vertices", [synthetic(args.vertices)])
    ]
    if args.corpus:
        by_version: Dict[str, List[bytes]] = {}
        for p in sorted(args.corpus.rglob("*.mesh")):
            data = p.read_bytes()
            if data.startswith(b"version "):
                by_version.setdefault(data[8:12].decode(), []).append(data)
        inputs += [(f"corpus {v} ({len(fs)} files)", fs) for v, fs in sorted(by_version.items())]

    print(f"{'input':32} {'reader':24} {'time':>12} {'vs meshcodec':>14}")
    for name, files in inputs:
        mb = sum(len(f) for f in files) / 1e6
        results: Dict[str, Any] = {}
        # Rows whose ratio is the median of paired rounds: (peer's median time, ratio).
        paired_rows: Dict[str, Tuple[float, float]] = {}
        results["copy"] = best(lambda: [bytearray(f) for f in files], args.repeat)
        results["meshcodec open"] = best(lambda: [meshcodec.open(f) for f in files], args.repeat)
        ours = [run_meshcodec(f) for f in files]
        results["meshcodec"] = best(lambda: [run_meshcodec(f) for f in files], args.repeat)
        results.update(rust_same_work(args.rust, files, args.repeat))
        readers = {
            "rbxmesh.py": lambda f: run_rbxmesh(peers["rbxmesh.py"], f),
            "mesh_reader.py": lambda f: run_mesh_reader(peers["mesh_reader.py"], f),
        }
        for reader, fn in readers.items():
            if reader.split()[0] not in peers:
                continue
            try:
                got = [fn(f) for f in files]
            except Exception as e:  # noqa: BLE001 - a peer's failure is a result
                results[reader] = f"fails: {type(e).__name__}: {str(e)[:60]}"
                continue
            # The pure-Python readers read more slowly: as many runs as fit in 2 s
            # (at least one, at most --repeat), so that on small inputs their best is
            # taken in the same state of the machine as ours.
            results[reader] = best_within(lambda: [fn(f) for f in files], args.repeat, 2.0)
            if [g[1] for g in got] != [o[1] for o in ours]:
                results[reader] = f"{results[reader]:.4f} s (face counts differ: LOD 0 only?)"
            elif results[reader] < 0.05:
                # Small inputs: also paired with ours round by round (see `paired`).
                ratio, t = paired(
                    lambda: [run_meshcodec(f) for f in files], lambda: [fn(f) for f in files], 4.0
                )
                paired_rows[f"{reader} (paired)"] = (t, ratio)
        drc = [d for d in (draco_bitstream(f) for f in files) if d is not None]
        if "DracoPy" in peers and drc:
            # The Draco files alone, both ways: DracoPy decodes the bitstream only.
            draco_files = [f for f in files if draco_bitstream(f) is not None]
            results["meshcodec (Draco files)"] = best(
                lambda: [run_meshcodec(f) for f in draco_files], args.repeat
            )
            results["DracoPy"] = best(lambda: [run_dracopy(peers["DracoPy"], d) for d in drc], args.repeat)
        base = results["meshcodec"]
        for reader, t in results.items():
            shown = f"{t * 1000:10.2f} ms" if isinstance(t, float) else t
            ratio = f"{t / base:12.1f}x" if isinstance(t, float) else ""
            print(f"{name[:32]:32} {reader:24} {shown:>12} {ratio:>14}")
        for reader, (t, r) in paired_rows.items():
            print(f"{name[:32]:32} {reader:24} {t * 1000:10.2f} ms {r:12.1f}x")
        print(f"{'':32} ({mb:.1f} MB)")


if __name__ == "__main__":
    main()
