"""The package's job on one file, ``N`` times: for counting its instructions per call.

    PYTHONHASHSEED=0 OPENBLAS_NUM_THREADS=1 valgrind --tool=callgrind \\
        python python/bench/call_cost.py FILE N

Run it with ``N`` and with 0; the difference of the two totals over ``N`` is what one
``meshcodec.open(data).mesh()`` with its ``positions`` and ``faces`` costs, Python's
calls and NumPy's included (``python/bench/same_work.rs`` is the Rust side alone). The
fixed seed and one BLAS thread make the counts repeat to the instruction (NumPy's
BLAS threads spin, and string hashes change the dicts' probing, from run to run). This
machine's wall times swing by up to 1.5x between processes; instruction counts do not,
so they tell small steps apart (confirm with wall time: they are not the same thing).
"""

from __future__ import annotations

import pathlib
import sys

import meshcodec


def main() -> None:
    data = pathlib.Path(sys.argv[1]).read_bytes()
    for _ in range(int(sys.argv[2])):
        m = meshcodec.open(data).mesh()
        m.positions  # noqa: B018 - reading them is the job
        m.faces  # noqa: B018


if __name__ == "__main__":
    main()
