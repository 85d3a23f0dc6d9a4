"""The examples users copy run: examples/python/archive_dask.py on a real cluster of
processes (dask.distributed), over the fixtures and the corpus."""

from __future__ import annotations

import csv
import subprocess
import sys

import pytest

from conftest import CI, FIXTURES, REPO, corpus


def test_archive_dask_checks_every_file(tmp_path) -> None:
    if not CI:
        pytest.importorskip("distributed")
    roots = [FIXTURES] + ([corpus()] if corpus() else [])
    rows = []
    for k, root in enumerate(roots):
        out = tmp_path / f"t{k}.csv"
        run = subprocess.run(
            [sys.executable, str(REPO / "examples" / "python" / "archive_dask.py"), str(root), str(out)],
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert run.returncode == 0, run.stderr
        assert run.stdout.strip().splitlines()[-1] == str(out)
        rows += list(csv.DictReader(out.open()))
    meshes = [r for r in rows if not r["error"]]
    # Every mesh file writes back identical; what failed is no mesh (scripts, Draco
    # bitstreams, the manifest).
    assert meshes and all(r["identical"] == "True" for r in meshes), meshes
    assert all(not r["path"].endswith((".mesh", ".stf")) for r in rows if r["error"])
    formats = {r["format"] for r in meshes}
    assert formats >= {"filemesh", "csgphs", "csgmdl", "unigine-mesh", "stf"}
