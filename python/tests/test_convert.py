"""Conversions as the CLI decides them, edits, and the exceptions."""

from __future__ import annotations

import json
import pickle
import re
import subprocess

import numpy as np
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
    with pytest.raises(OSError, match="directory"):
        meshcodec.open(FIXTURES)
    # Neither a path nor bytes: not read as the bytes `bytes(x)` would make.
    for wrong in (5, 2.5, None, object()):
        with pytest.raises(TypeError):
            meshcodec.open(wrong)  # type: ignore[arg-type]
    # Any bytes-like object is its bytes.
    text = (FIXTURES / "text" / "v1.01.mesh").read_bytes()
    for like in (bytearray(text), memoryview(text), np.frombuffer(text, np.uint8)):
        assert meshcodec.open(like).to_bytes() == text
        # Over max_input: refused (before a bytes-like object is copied), as bytes are.
        with pytest.raises(meshcodec.FormatError, match="exceeds the limit of 100 bytes"):
            meshcodec.open(like, max_input=100)
    with pytest.raises(meshcodec.FormatError, match="exceeds the limit of 100 bytes"):
        meshcodec.open(text, max_input=100)


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


def test_hostile_bytes_stay_within_the_rust_memory_bounds(tmp_path) -> None:
    """Peak memory of a process opening every damaged variant of every fixture, and files
    whose counts claim gigabytes: it grows by no more than the Rust tests' bound for one
    parse (16 x input + 1 MiB, tests/damaged.rs) plus a few MiB for the interpreter."""
    import json
    import subprocess
    import sys

    script = r'''
import json, random, resource, sys
import meshcodec
from pathlib import Path

def peak():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KiB on Linux

rng = random.Random(11)
inputs = []
for p in map(Path, sys.argv[1:]):
    data = p.read_bytes()
    inputs += [data[: len(data) * k // 7] for k in range(7)]
    for _ in range(6):
        b = bytearray(data)
        for _ in range(4):
            b[rng.randrange(len(b))] = rng.randrange(256)
        inputs.append(bytes(b))
# Counts claiming gigabytes in a few bytes.
inputs.append(b"version 2.00\n" + bytes([12, 0, 40, 12, 255, 255, 255, 255, 0, 0, 0, 0]))
inputs.append(b"version 7.00\nLODS\0\0\0\0" + (1).to_bytes(4, "little") + (0xFFFFFFF0).to_bytes(4, "little") + bytes(7))
inputs.append(b"version 1.00\n4294967295\n[0,0,0][0,0,0][0,0,0]")
inputs.append(b"CSGPHS" + (7).to_bytes(4, "little") + b"\xff" * 64)
before = peak()
raised = 0
for data in inputs:
    try:
        f = meshcodec.open(data)
        f.info(); f.to_bytes()
        try:
            f.mesh()
        except ValueError:
            pass
    except meshcodec.FormatError:
        raised += 1
print(json.dumps({"before": before, "after": peak(), "inputs": len(inputs), "raised": raised,
                  "largest": max(map(len, inputs))}))
'''
    out = subprocess.run(
        [sys.executable, "-c", script, *map(str, fixture_files())], check=True, capture_output=True, text=True
    ).stdout
    r = json.loads(out)
    assert r["inputs"] > 300 and r["raised"] > r["inputs"] // 3, r
    bound = 16 * r["largest"] + (1 << 20) + (8 << 20)
    assert r["after"] - r["before"] <= bound, f"peak grew by {r['after'] - r['before']} bytes (bound {bound}): {r}"


def test_animations_go_beside_as_the_cli_writes_them(cli, tmp_path) -> None:
    """An ms11 mesh that embeds an animation, converted to ms13 (which keeps animations
    in .anim files beside the mesh): no loss, as the CLI, which writes the .anim beside
    its output; `save` writes it where the CLI does, with the CLI's bytes; a pickle
    keeps it; a path that would be the animation's own is refused before any write."""
    src = FIXTURES / "unigine" / "ms11-embedded-anim.mesh"
    run = subprocess.run([cli, "convert", "--to", "ms13", str(src), str(tmp_path / "c.mesh")], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    g = meshcodec.open(src).convert("ms13")
    assert not any(r["level"] == "lost" for r in g.loss_report), g.losses
    assert all(line in run.stderr for line in g.losses)
    assert list(g.beside) == [".anim"]
    assert (g.beside[".anim"].format, g.beside[".anim"].version) == ("unigine-anim", "an11")
    assert g.save(tmp_path / "p.mesh") == [tmp_path / "p.anim"]
    for ext in ("mesh", "anim"):
        assert (tmp_path / f"p.{ext}").read_bytes() == (tmp_path / f"c.{ext}").read_bytes(), ext
    h = pickle.loads(pickle.dumps(g))
    assert {k: v.to_bytes() for k, v in h.beside.items()} == {k: v.to_bytes() for k, v in g.beside.items()}
    with pytest.raises(ValueError, match="own name"):
        g.save(tmp_path / "q.anim")
    assert not (tmp_path / "q.anim").exists()
    # The animation is a file of its own: to_bytes is the mesh alone, and a file made
    # from this one starts from those bytes (the CLI reads only its input).
    assert meshcodec.open(g.to_bytes()).beside == {}
    assert g.convert("ms14").beside == {}
    # Converting to a version that embeds animations needs no file beside.
    assert meshcodec.open(src).convert("ms12").beside == {}


def test_an_import_keeps_its_animations_beside_as_the_cli(cli, tmp_path) -> None:
    glb = tmp_path / "a.glb"
    subprocess.run([cli, "export", str(FIXTURES / "unigine" / "ms11-embedded-anim.mesh"), str(glb)], check=True, capture_output=True)
    subprocess.run([cli, "import", str(glb), str(tmp_path / "c.mesh"), "--to", "unigine:ms13"], check=True, capture_output=True)
    f = meshcodec.import_file(glb, "unigine:ms13", allow_lossy=True)
    assert not any("not written" in line for line in f.losses), f.losses
    assert f.save(tmp_path / "p.mesh") == [tmp_path / "p.anim"]
    for ext in ("mesh", "anim"):
        assert (tmp_path / f"p.{ext}").read_bytes() == (tmp_path / f"c.{ext}").read_bytes(), ext


def test_export_names_the_scene_as_the_cli_does(cli, tmp_path) -> None:
    """A file opened from a path exports the CLI's bytes (the CLI names the scene after
    its input); from bytes, after the output; `name=` says otherwise."""
    checked = 0
    for path in fixture_files() + corpus_files():
        f = meshcodec.open(path)
        if f.format in ("csgk",):
            continue
        assert f.name == path.stem
        run = subprocess.run([cli, "export", str(path), str(tmp_path / "c.glb")], capture_output=True)
        if run.returncode != 0:
            continue
        f.export(tmp_path / "p.glb")
        assert (tmp_path / "p.glb").read_bytes() == (tmp_path / "c.glb").read_bytes(), path.name
        checked += 1
    assert checked >= 20
    f = meshcodec.open(FIXTURES / "csgphs" / "csgphs7.bin")
    g = meshcodec.open(f.to_bytes())
    assert g.name is None and f.convert("stf", allow_lossy=True).name == f.name
    assert pickle.loads(pickle.dumps(f)).name == f.name
    for made, name, want in [(g, None, "out"), (f, "Head", "Head")]:
        made.export(tmp_path / "out.gltf", name=name)
        doc = json.loads((tmp_path / "out.gltf").read_bytes())
        assert [n["name"] for n in doc["nodes"]] == [want]
