"""Where the tests find the files and the CLI they compare with.

- ``roundtrip-fixtures/`` of the repository: always.
- The corpus (``MESHCODEC_CORPUS``, or ``../shared/corpus`` beside the repository):
  when present; under ``CI=true`` a missing corpus fails the run instead of skipping.
- The CLI (``MESHCODEC_BIN``, or the repository's ``target/debug/meshcodec`` or
  ``target/release/meshcodec``): required under ``CI=true`` as well.
"""

from __future__ import annotations

import os
import pathlib
from typing import List

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = REPO / "roundtrip-fixtures"
CI = os.environ.get("CI") in ("true", "1")
# Files the generators write beside the fixtures that are not mesh files.
NOT_MESHES = {".py", ".md", ".txt", ".json", ".tsv"}


def corpus() -> pathlib.Path | None:
    path = pathlib.Path(os.environ.get("MESHCODEC_CORPUS", REPO.parent / "shared" / "corpus"))
    if (path / "MANIFEST.tsv").is_file():
        return path
    if CI:
        raise AssertionError(f"CI=true but the corpus is missing at {path} (set MESHCODEC_CORPUS)")
    return None


def mesh_files(root: pathlib.Path) -> List[pathlib.Path]:
    # Bare Draco bitstreams (roundtrip-fixtures/draco/*.drc) are a codec's test data, not
    # a mesh format.
    return sorted(
        p
        for p in root.rglob("*")
        if p.is_file()
        and p.suffix not in NOT_MESHES
        and p.suffix != ".drc"
        and "__pycache__" not in p.parts
    )


def fixture_files() -> List[pathlib.Path]:
    return mesh_files(FIXTURES)


def corpus_files() -> List[pathlib.Path]:
    c = corpus()
    return [] if c is None else [p for p in mesh_files(c) if p.name != "MANIFEST.tsv"]


@pytest.fixture(scope="session")
def cli() -> str:
    env = os.environ.get("MESHCODEC_BIN")
    candidates = [pathlib.Path(env)] if env else [
        REPO / "target" / "debug" / "meshcodec",
        REPO / "target" / "release" / "meshcodec",
    ]
    for c in candidates:
        if c.is_file():
            return str(c)
    if CI:
        raise AssertionError(f"CI=true but the meshcodec CLI is missing ({candidates})")
    pytest.skip("the meshcodec CLI is not built (cargo build), or set MESHCODEC_BIN")
