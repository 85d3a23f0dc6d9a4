"""Two builds of the native module, side by side in one Python process.

    python python/bench/two_builds.py OLD.so NEW.so FILE... [--rounds 40] [--calls 300] [--together]
        [--peer DIR]

``OLD.so`` and ``NEW.so`` are two builds' ``meshcodec/_native.abi3.so`` (copy each
aside after each ``maturin develop``). Both are loaded at once, each in a copy of
this package's Python files, and the job ``open(data).mesh()`` with ``positions`` and
``faces`` runs on each file in rounds, the two builds alternating and taking turns to go
first. Per round, each build's tenth percentile of ``--calls`` calls; printed per file:
each build's best round and the median over rounds of NEW's time over OLD's. With
``--together`` a call is the job on every file in turn, as ``readers.py`` times a
version's files (one row): what one file leaves behind (the allocator's state, the
caches) then meets the next, as in a script over many files. With ``--peer DIR`` (the
peers' folder, laid out as ``readers.py`` says) RBX_Toolbox's ``mesh_reader.parse`` also
runs once a round on the same files, between the two builds' turns, and each build's
median over rounds of the peer's time over its own is printed (``readers.py``'s paired
figure, for two builds at once).

Why in one process: this machine's speed changes between processes by up to 1.8x for
their whole lives, so two processes (or two runs of ``readers.py``) cannot tell a few
percent apart; within one process both builds see the same state of the machine. The
native side looks up ``meshcodec._mesh.Mesh``, so the package must be importable
(installed, or ``python`` on the path): both copies make their meshes with that class.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import io
import pathlib
import shutil
import statistics
import sys
import tempfile
import time
from types import ModuleType
from typing import Any, List, Optional

PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "meshcodec"


def load(folder: pathlib.Path, name: str, native: pathlib.Path) -> ModuleType:
    """A copy of the package named ``name`` in ``folder``, with ``native`` as its module."""
    copy = folder / name
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("*.so", "__pycache__"))
    shutil.copy(native, copy / "_native.abi3.so")
    return importlib.import_module(name)


def tenth(module: ModuleType, datas: List[bytes], calls: int) -> float:
    """The tenth percentile of ``calls`` runs of the job on ``datas`` in turn, in seconds."""
    times: List[float] = []
    for _ in range(calls):
        start = time.perf_counter()
        for data in datas:
            m = module.open(data).mesh()
            m.positions  # noqa: B018 - reading them is the job
            m.faces  # noqa: B018
        times.append(time.perf_counter() - start)
    times.sort()
    return times[len(times) // 10]


def peer_time(peer: Any, datas: List[bytes]) -> float:
    """One run of ``mesh_reader.parse`` over ``datas`` in turn (its prints silenced), in seconds."""
    with contextlib.redirect_stdout(io.StringIO()):
        start = time.perf_counter()
        for data in datas:
            peer.parse(data)
        return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old", type=pathlib.Path, help="the first build's _native.abi3.so")
    ap.add_argument("new", type=pathlib.Path, help="the second build's _native.abi3.so")
    ap.add_argument("files", type=pathlib.Path, nargs="+")
    ap.add_argument("--rounds", type=int, default=40)
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--together", action="store_true", help="one job over all the files in turn")
    ap.add_argument("--peer", type=pathlib.Path, help="the peers' folder: time mesh_reader.py too")
    args = ap.parse_args()
    peer: Optional[Any] = None
    if args.peer:
        sys.path.insert(0, str(args.peer))
        peer = importlib.import_module("rbxtb.mesh_reader")
    import meshcodec  # noqa: F401 - the Mesh class both builds look up

    with tempfile.TemporaryDirectory() as tmp:
        sys.path.insert(0, tmp)
        old = load(pathlib.Path(tmp), "meshcodec_old", args.old)
        new = load(pathlib.Path(tmp), "meshcodec_new", args.new)
        print(
            f"{'file':32} {'old':>10} {'new':>10} {'new/old':>8}"
            + (f" {'peer':>10} {'peer/old':>8} {'peer/new':>8}" if peer else "")
        )
        jobs = [(p.name, [p.read_bytes()]) for p in args.files]
        if args.together:
            jobs = [(f"{len(jobs)} files together", [d for _, ds in jobs for d in ds])]
        for name, datas in jobs:
            ratios: List[float] = []
            peers: List[tuple] = []
            best_old = best_new = float("inf")
            for r in range(args.rounds):
                if r % 2:
                    a = tenth(old, datas, args.calls)
                    p = peer_time(peer, datas) if peer else 0.0
                    b = tenth(new, datas, args.calls)
                else:
                    b = tenth(new, datas, args.calls)
                    p = peer_time(peer, datas) if peer else 0.0
                    a = tenth(old, datas, args.calls)
                ratios.append(b / a)
                peers.append((p, p / a, p / b))
                best_old, best_new = min(best_old, a), min(best_new, b)
            line = (
                f"{name[:32]:32} {best_old * 1e6:8.2f}us {best_new * 1e6:8.2f}us "
                f"{statistics.median(ratios):8.3f}"
            )
            if peer:
                p, po, pn = (statistics.median(x) for x in zip(*peers))
                line += f" {p * 1e3:8.2f}ms {po:7.1f}x {pn:7.1f}x"
            print(line)


if __name__ == "__main__":
    main()
