"""Two builds of the native module, side by side in one Python process.

    python python/bench/two_builds.py OLD.so NEW.so FILE... [--rounds 40] [--calls 300] [--together]

``OLD.so`` and ``NEW.so`` are two builds' ``meshcodec/_native.abi3.so`` (copy each
aside after each ``maturin develop``). Both are loaded at once, each in a copy of
this package's Python files, and the job ``open(data).mesh()`` with ``positions`` and
``faces`` runs on each file in rounds, the two builds alternating and taking turns to go
first. Per round, each build's tenth percentile of ``--calls`` calls; printed per file:
each build's best round and the median over rounds of NEW's time over OLD's. With
``--together`` a call is the job on every file in turn, as ``readers.py`` times a
version's files (one row): what one file leaves behind (the allocator's state, the
caches) then meets the next, as in a script over many files.

Why in one process: this machine's speed changes between processes by up to 1.8x for
their whole lives, so two processes (or two runs of ``readers.py``) cannot tell a few
percent apart; within one process both builds see the same state of the machine. The
native side looks up ``meshcodec._mesh.Mesh``, so the package must be importable
(installed, or ``python`` on the path): both copies make their meshes with that class.
"""

from __future__ import annotations

import argparse
import importlib
import pathlib
import shutil
import statistics
import sys
import tempfile
import time
from types import ModuleType
from typing import List

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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old", type=pathlib.Path, help="the first build's _native.abi3.so")
    ap.add_argument("new", type=pathlib.Path, help="the second build's _native.abi3.so")
    ap.add_argument("files", type=pathlib.Path, nargs="+")
    ap.add_argument("--rounds", type=int, default=40)
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--together", action="store_true", help="one job over all the files in turn")
    args = ap.parse_args()
    import meshcodec  # noqa: F401 - the Mesh class both builds look up

    with tempfile.TemporaryDirectory() as tmp:
        sys.path.insert(0, tmp)
        old = load(pathlib.Path(tmp), "meshcodec_old", args.old)
        new = load(pathlib.Path(tmp), "meshcodec_new", args.new)
        print(f"{'file':32} {'old':>10} {'new':>10} {'new/old':>8}")
        jobs = [(p.name, [p.read_bytes()]) for p in args.files]
        if args.together:
            jobs = [(f"{len(jobs)} files together", [d for _, ds in jobs for d in ds])]
        for name, datas in jobs:
            ratios: List[float] = []
            best_old = best_new = float("inf")
            for r in range(args.rounds):
                if r % 2:
                    a, b = tenth(old, datas, args.calls), tenth(new, datas, args.calls)
                else:
                    b, a = tenth(new, datas, args.calls), tenth(old, datas, args.calls)
                ratios.append(b / a)
                best_old, best_new = min(best_old, a), min(best_new, b)
            print(
                f"{name[:32]:32} {best_old * 1e6:8.2f}us {best_new * 1e6:8.2f}us "
                f"{statistics.median(ratios):8.3f}"
            )


if __name__ == "__main__":
    main()
