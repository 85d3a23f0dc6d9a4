"""Conversions as the CLI decides them, edits, and the exceptions."""

from __future__ import annotations

import re
import subprocess

import pytest

import meshcodec
from conftest import FIXTURES, corpus_files, fixture_files

def same(a: bytes, b: bytes) -> bool:
    """Equal bytes, but for an STF document's write time (asset info's timestamp)."""
    stamp = re.compile(rb'"timestamp":"[^"]*"')
    return stamp.sub(b"", a) == stamp.sub(b"", b)


TARGETS = ["1.00", "2.00", "3.00", "4.00", "4.01", "5.00", "6.00", "7.00", "csgphs:7", "unigine:ms13", "stf"]


def filemeshes():
    return [p for p in fixture_files() + corpus_files() if meshcodec.open(p).format == "filemesh"][:40]


@pytest.mark.parametrize("path", filemeshes(), ids=lambda p: p.name)
def test_the_conversion_matrix_gives_the_clis_verdicts_and_lines(path, cli, tmp_path) -> None:
    f = meshcodec.open(path)
    for to in TARGETS:
        out = tmp_path / "out.bin"
        run = subprocess.run([cli, "convert", str(path), str(out), "--to", to], capture_output=True, text=True)
        try:
            c = f.convert(to)
        except meshcodec.LossyConversion as e:
            assert run.returncode == 3, (to, run.stderr)
            assert e.losses and all(line in run.stderr for line in e.losses), (to, run.stderr)
            assert any(r["level"] == "lost" for r in e.report)
            c = f.convert(to, allow_lossy=True)
            lossy = subprocess.run(
                [cli, "convert", str(path), str(out), "--to", to, "--allow-lossy"], capture_output=True
            )
            assert lossy.returncode == 0
            assert same(c.to_bytes(), out.read_bytes()), to
            assert c.losses == e.losses
            continue
        except meshcodec.FormatError:
            assert run.returncode == 1, (to, run.stderr)
            continue
        assert run.returncode == 0, (to, run.stderr)
        assert same(c.to_bytes(), out.read_bytes()), to
        assert all(line in run.stderr for line in c.losses)
        assert all(r["level"] == "re-laid" for r in c.loss_report)


def test_a_wrong_version_is_a_value_error() -> None:
    f = meshcodec.open(FIXTURES / "filemesh" / "v4.01-bones.mesh")
    with pytest.raises(ValueError, match="--to 2"):
        f.convert("2")
    with pytest.raises(ValueError, match="no LOD 9"):
        f.mesh(9)


def test_lossless_conversion_reports_nothing_and_comes_back() -> None:
    src = FIXTURES / "filemesh" / "v5.00-facs.mesh"
    f = meshcodec.open(src)
    v6 = f.convert("6.00")
    assert v6.losses == [] and v6.loss_report == []
    assert v6.convert("5.00").to_bytes() == src.read_bytes()


def test_bad_bytes_raise_format_error_with_offset_and_field() -> None:
    data = (FIXTURES / "filemesh" / "v4.01-bones.mesh").read_bytes()
    with pytest.raises(meshcodec.FormatError) as e:
        meshcodec.open(data[:40])
    assert isinstance(e.value, ValueError)
    assert e.value.offset == 37 and e.value.field == "FileMeshV4.vertices"
    with pytest.raises(meshcodec.FormatError):
        meshcodec.open(b"not a mesh at all")
    with pytest.raises(OSError):
        meshcodec.open(FIXTURES / "no-such-file.mesh")


def test_hostile_bytes_never_crash(tmp_path) -> None:
    """Every fixture cut short and with bytes flipped: each opens or raises FormatError;
    a payload that claims gigabytes is refused by the limits."""
    import random

    rng = random.Random(7)
    tried = 0
    for path in fixture_files():
        data = path.read_bytes()
        variants = [data[: len(data) * k // 5] for k in range(5)]
        for _ in range(4):
            b = bytearray(data)
            for _ in range(3):
                b[rng.randrange(len(b))] = rng.randrange(256)
            variants.append(bytes(b))
        for v in variants:
            try:
                f = meshcodec.open(v, max_decoded=64 << 20)
                f.info()
                f.to_bytes()
            except meshcodec.FormatError:
                pass
            tried += 1
    assert tried > 200
    with pytest.raises(meshcodec.FormatError):
        meshcodec.open(b"x" * 1024, max_input=100)
