"""Check an archive of mesh files on a Dask cluster and write one table.

    python examples/python/archive_dask.py ARCHIVE_DIR table.csv [--workers 2]

Every file under ARCHIVE_DIR is opened on the cluster's worker processes: its format,
version and counts (``File.info()``, what ``meshcodec info --json`` gives) and whether it
writes back byte for byte (``meshcodec verify``) go into one CSV row; a file that is no
mesh, or is damaged, gets its error instead. The cluster is a
``dask.distributed.LocalCluster`` of processes, so the files really travel: each worker
opens the files it is given and sends back its ``meshcodec.File`` objects (pickled as
their bytes), and the checks run on whichever worker the scheduler picks, with the
interpreter released while the library works. The last line printed is the table's
path.

The same job on a Ray cluster (``pip install "ray[data]"``)::

    import ray, meshcodec

    def rows(batch):
        out = {"path": [], "format": [], "version": [], "vertices": [], "identical": []}
        for path, data in zip(batch["path"], batch["bytes"]):
            f = meshcodec.open(data)
            out["path"].append(path)
            out["format"].append(f.format)
            out["version"].append(f.version)
            out["vertices"].append(f.info().get("vertices"))
            out["identical"].append(f.to_bytes() == data)
        return out

    ds = ray.data.read_binary_files(ARCHIVE_DIR, include_paths=True)
    ds.map_batches(rows, batch_format="numpy").write_csv("table")
"""

from __future__ import annotations

import argparse
import csv
import pathlib
from typing import Any, Dict, List, Union

import meshcodec

COLUMNS = ["path", "format", "version", "vertices", "faces", "bytes", "identical", "error"]


def open_file(path: str) -> Union[meshcodec.File, str]:
    """On a worker: the file opened, or why it is not a mesh file."""
    try:
        return meshcodec.open(path)
    except (meshcodec.FormatError, OSError) as e:
        return f"{type(e).__name__}: {e}"


def row(path: str, opened: Union[meshcodec.File, str]) -> Dict[str, Any]:
    """On a worker (whichever the scheduler picks): the table row of one file."""
    if isinstance(opened, str):
        return {"path": path, "error": opened}
    data = pathlib.Path(path).read_bytes()
    info = opened.info()
    return {
        "path": path,
        "format": opened.format,
        "version": opened.version,
        "vertices": info.get("vertices"),
        "faces": info.get("faces"),
        "bytes": len(data),
        "identical": opened.to_bytes() == data,
        "error": "",
    }


def check_archive(root: pathlib.Path, workers: int) -> List[Dict[str, Any]]:
    """Every file under ``root``, checked on a local cluster of ``workers`` processes."""
    from dask.distributed import Client, LocalCluster

    paths = sorted(str(p) for p in root.rglob("*") if p.is_file())
    with LocalCluster(n_workers=workers, threads_per_worker=2, processes=True) as cluster:
        with Client(cluster) as client:
            opened = client.map(open_file, paths)
            rows = client.map(row, paths, opened)
            table = client.gather(rows)
            # The File objects themselves travel too: gathered here, unpickled from
            # their bytes, they are the same files.
            files = client.gather(opened)
    for f, r in zip(files, table):
        if isinstance(f, meshcodec.File):
            assert (f.format, f.version) == (r["format"], r["version"])
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("archive", type=pathlib.Path, help="the folder to check (recursively)")
    parser.add_argument("table", type=pathlib.Path, help="the CSV table to write")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    args = parser.parse_args()
    table = check_archive(args.archive, args.workers)
    with open(args.table, "w", newline="") as out:
        w = csv.DictWriter(out, COLUMNS)
        w.writeheader()
        w.writerows(table)
    ok = sum(1 for r in table if r.get("identical"))
    bad = sum(1 for r in table if r.get("error"))
    print(f"{len(table)} files: {ok} byte-identical, {bad} not mesh files or damaged")
    print(args.table)


if __name__ == "__main__":
    main()
