#!/usr/bin/env python3
"""Cross-check schema/roblox_filemesh.ksy against `meshcodec info --json`.

Compiles the Kaitai Struct schema to Python with the npm package
`kaitai-struct-compiler` (0.11, run on Node), imports the generated parser (needs the
PyPI runtime `kaitaistruct` and PyYAML to read the .ksy), parses every binary FileMesh
(2.00-7.00) in the corpus (`$MESHCODEC_CORPUS/roblox`, default ../shared/corpus beside
the repository) and in roundtrip-fixtures/filemesh/ and roundtrip-fixtures/chunked/,
requires each parse to reach the end of the file, and compares what the schema sees
with what the CLI reports: version, vertices, faces (every LOD), bones, subsets, and the
other `info` keys both sides can see (vertex/header size, LOD offsets, lodType,
envelopes, bone names, FACS figures, HSR flags, chunk list, trailing bytes).

One line per file; exit 1 on any mismatch or parse failure. A missing compiler or
runtime is a skip (exit 0) on a developer machine and a failure under CI=true.

Install the tools (once per machine):

    npm install --prefix /tmp/ksc kaitai-struct-compiler@0.11.0
    python3 -m pip install kaitaistruct==0.11 pyyaml

or run this script with --install, which does the same. Then, from the repository root:

    python3 tests/kaitai/check_filemesh.py            # the check
    python3 tests/kaitai/check_filemesh.py FILE...    # only these files
    python3 tests/kaitai/check_filemesh.py --emit DIR [--lang java]   # just compile

Environment: KSC_DIR or KSC_PREFIX (npm prefix holding the compiler, default /tmp/ksc),
MESHCODEC_CORPUS (corpus root), MESHCODEC_BIN (use this meshcodec binary instead of
building the release binary with cargo in its target directory), CI (true: missing tools fail).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
KSY = REPO / "schema" / "roblox_filemesh.ksy"
KSC_VERSION = "0.11.0"
BINARY_VERSIONS = {"2.00", "3.00", "3.01", "4.00", "4.01", "5.00", "6.00", "7.00"}
TEXT_VERSIONS = {"1.00", "1.01"}

NODE_COMPILE = r"""
const compiler = require(process.argv[1]);
const lang = process.argv[2];
let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (d) => { input += d; });
process.stdin.on("end", () => {
  compiler.compile(lang, JSON.parse(input), null, false).then(
    (files) => { process.stdout.write(JSON.stringify({version: compiler.version, files})); },
    (err) => {
      const msg = err && (err.stack || err.message) ? (err.stack || err.message) : String(err);
      process.stderr.write("kaitai-struct-compiler: " + msg + "\n");
      try { process.stderr.write(JSON.stringify(err) + "\n"); } catch (e) {}
      process.exit(1);
    });
});
"""


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"


def missing(what: str) -> None:
    """A tool is missing: fail under CI, skip elsewhere."""
    hint = (
        f"install with: npm install --prefix /tmp/ksc kaitai-struct-compiler@{KSC_VERSION}"
        " && python3 -m pip install kaitaistruct==0.11 pyyaml"
        " (or run this script with --install)"
    )
    if in_ci():
        print(f"FAIL: {what}; {hint}", file=sys.stderr)
        sys.exit(1)
    print(f"SKIP: {what}; {hint}")
    sys.exit(0)


def install(prefix: Path) -> None:
    subprocess.run(
        ["npm", "install", "--prefix", str(prefix), f"kaitai-struct-compiler@{KSC_VERSION}"],
        check=True,
    )
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "kaitaistruct==0.11", "pyyaml"],
        check=True,
    )


def compile_schema(prefix: Path, out_dir: Path, lang: str = "python") -> str:
    """Compiles the .ksy for `lang` into out_dir; returns the compiler version."""
    node = shutil.which("node")
    if node is None:
        missing("node (Node.js) not found")
    module = prefix / "node_modules" / "kaitai-struct-compiler"
    if not (module / "package.json").is_file():
        missing(f"kaitai-struct-compiler not found under {prefix}/node_modules")
    try:
        import yaml  # noqa: F401  (PyYAML: YAML 1.1, as the JVM compiler's SnakeYAML)
    except ImportError:
        missing("the PyPI package pyyaml is not installed")
    if lang == "python":
        try:
            import kaitaistruct  # noqa: F401
        except ImportError:
            missing("the PyPI package kaitaistruct is not installed")
    import yaml

    ksy = yaml.safe_load(KSY.read_text(encoding="utf-8"))
    proc = subprocess.run(
        [node, "-e", NODE_COMPILE, str(module), lang],
        input=json.dumps(ksy),
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        print(f"FAIL: compiling {KSY.relative_to(REPO)}:\n{proc.stderr}", file=sys.stderr)
        sys.exit(1)
    result = json.loads(proc.stdout)
    for name, text in result["files"].items():
        (out_dir / name.lstrip("/")).write_text(text, encoding="utf-8")
    return result["version"]


# ---------------------------------------------------------------- the schema's view


def opt(obj, name):
    """A field that may be absent: the generated Python leaves out fields whose `if` is false."""
    return getattr(obj, name, None)


def enum_int(v):
    return v.value if hasattr(v, "value") else v


def split_names(table) -> list[str]:
    return list(table.names) if table is not None else []


def facs_summary(facs, fmt: int, size: int) -> dict:
    """Mirrors the CLI's `facs` object for a FACS section of `size` bytes."""
    out = {"format": fmt, "size": size}
    parsed = (
        fmt != 0
        and not isinstance(facs, (bytes, bytearray))
        and facs is not None
        and len(facs.extra) == 0
        and len(facs.quantized_transforms.extra) == 0
    )
    out["parsed"] = parsed
    if parsed:
        qt = facs.quantized_transforms
        out["face_bone_names"] = split_names(facs.face_bone_names)
        out["face_control_names"] = split_names(facs.face_control_names)
        out["matrix_versions"] = [m.version for m in (qt.px, qt.py, qt.pz, qt.rx, qt.ry, qt.rz)]
        out["two_pose_correctives"] = len(facs.two_pose_correctives)
        out["three_pose_correctives"] = len(facs.three_pose_correctives)
    else:
        out["face_bone_names"] = []
        out["face_control_names"] = []
        out["matrix_versions"] = []
        out["two_pose_correctives"] = 0
        out["three_pose_correctives"] = 0
    return out


def chunk_name(raw: bytes) -> str:
    return raw.rstrip(b"\0").decode("latin-1")


def schema_view(m, Kind) -> dict:
    """What the Kaitai parse says, in the CLI's `info --json` keys."""
    v = m.version
    b = m.body
    out: dict = {"format": "filemesh", "version": v}
    if v in ("2.00", "3.00", "3.01"):
        h = b.header
        out.update(
            vertices=h.num_verts,
            faces=len(b.faces),
            vertex_size=h.sizeof_vertex,
            header_size=h.sizeof_header,
            lod_offsets=list(opt(b, "lod_offsets") or []),
            bones=0,
            bone_names=[],
            subsets=0,
            envelopes=0,
            trailing_bytes=len(b.trailing),
        )
    elif v in ("4.00", "4.01", "5.00"):
        h = b.header
        out.update(
            vertices=h.num_verts,
            faces=len(b.faces),
            vertex_size=40,
            header_size=h.sizeof_header,
            lod_offsets=list(b.lod_offsets),
            lod_type=enum_int(h.lod_type),
            num_high_quality_lods=h.num_high_quality_lods,
            padding=h.unused_padding,
            bones=len(b.bones),
            bone_names=[r.name for r in b.bone_names_by_bone],
            subsets=len(b.subsets),
            envelopes=len(opt(b, "envelopes") or []),
            trailing_bytes=len(b.trailing),
        )
        if v == "5.00":  # the CLI reports a facs object for every 5.00 file
            out["facs"] = facs_summary(opt(b, "facs"), h.facs_data_format, h.facs_data_size)
    else:
        chunks = opt(b, "chunks") or []
        out["chunks"] = [
            {
                "name": chunk_name(c.chunk_type),
                "version": c.chunk_version,
                "size": c.size,
                "kind": {
                    Kind.coremesh_v1: "COREMESH v1",
                    Kind.coremesh_v2: "COREMESH v2",
                    Kind.lods_v1: "LODS v1",
                    Kind.skinning_v1: "SKINNING v1",
                    Kind.facs_v1: "FACS v1",
                    Kind.hsravis_v1: "HSRAVIS v1",
                }.get(c.kind, "unknown"),
            }
            for c in chunks
        ]
        out["trailing_bytes"] = len(b.trailing)

        def first(name: str, kind):
            """The first chunk of that name (as meshcodec looks them up), if it is `kind`."""
            for c in chunks:
                if chunk_name(c.chunk_type) == name:
                    return c.payload if c.kind == kind else None
            return None

        core = first("COREMESH", Kind.coremesh_v1)
        if core is not None:
            out.update(vertices=core.num_verts, faces=core.num_faces, vertex_size=40)
        draco = first("COREMESH", Kind.coremesh_v2)
        if draco is not None:
            hdr = draco.draco.header
            if hdr is not None and hdr.has_sequential_counts:
                out.update(vertices=hdr.num_points.value, faces=hdr.num_faces.value)
        lods = first("LODS", Kind.lods_v1)
        out["lod_offsets"] = list(lods.lod_offsets) if lods is not None else []
        if lods is not None:
            out.update(
                lod_type=enum_int(lods.lod_type),
                num_high_quality_lods=lods.num_high_quality_lods,
            )
        skin = first("SKINNING", Kind.skinning_v1)
        out.update(
            bones=len(skin.bones) if skin else 0,
            bone_names=[r.name for r in skin.bone_names_by_bone] if skin else [],
            subsets=len(skin.subsets) if skin else 0,
            envelopes=len(skin.envelopes) if skin else 0,
        )
        if skin is not None and draco is not None:
            # Draco file: the envelope count equals the vertex count (FORMAT-NOTES).
            out.setdefault("vertices", skin.num_skinnings)
        facs = first("FACS", Kind.facs_v1)
        if facs is not None and facs.facs_data_size > 0:
            out["facs"] = facs_summary(opt(facs, "facs"), 1, facs.facs_data_size)
        hsr = first("HSRAVIS", Kind.hsravis_v1)
        if hsr is not None:
            out["hsr_flags"] = hsr.num_bits
    return out


# ---------------------------------------------------------------- the CLI's view


def cargo_target_dir() -> Path:
    """Cargo's target directory (CARGO_TARGET_DIR, a config file, or target/)."""
    if shutil.which("cargo"):
        r = subprocess.run(
            ["cargo", "metadata", "--format-version", "1", "--no-deps"],
            cwd=REPO,
            capture_output=True,
            text=True,
        )
        if r.returncode == 0:
            return Path(json.loads(r.stdout)["target_directory"])
    env = os.environ.get("CARGO_TARGET_DIR")
    if env:
        return Path(env) if Path(env).is_absolute() else REPO / env
    return REPO / "target"


def meshcodec_binary(build: bool) -> list[str]:
    env_bin = os.environ.get("MESHCODEC_BIN")
    if env_bin:
        return [env_bin]
    binary = cargo_target_dir() / "release" / "meshcodec"
    if build and shutil.which("cargo"):
        subprocess.run(
            ["cargo", "build", "--release", "--quiet", "--bin", "meshcodec"],
            cwd=REPO,
            check=True,
        )
    if binary.is_file():
        return [str(binary)]
    return ["cargo", "run", "--release", "--quiet", "--"]


def cli_view(cmd: list[str], path: Path) -> dict:
    proc = subprocess.run(
        cmd + ["info", "--json", str(path)], cwd=REPO, capture_output=True, text=True
    )
    if proc.returncode != 0:
        raise RuntimeError(f"meshcodec info exited {proc.returncode}: {proc.stderr.strip()}")
    return json.loads(proc.stdout)


def compare(ks: dict, cli: dict) -> list[str]:
    """Differences on the keys both sides report."""
    diffs = []
    for key in ks:
        if key not in cli:
            continue
        a, c = ks[key], cli[key]
        if key == "facs" and isinstance(c, dict):
            for k in a:
                if k in c and a[k] != c[k]:
                    diffs.append(f"facs.{k}: ksy={a[k]!r} cli={c[k]!r}")
        elif a != c:
            diffs.append(f"{key}: ksy={a!r} cli={c!r}")
    for key in ("vertices", "faces", "bones", "subsets"):
        if key in cli and key not in ks and not ("chunks" in cli):
            diffs.append(f"{key}: not seen by the schema")
    if ("facs" in cli) != ("facs" in ks):
        diffs.append(f"facs: ksy={'facs' in ks} cli={'facs' in cli}")
    return diffs


# ---------------------------------------------------------------- files


def binary_filemeshes(folder: Path) -> tuple[list[Path], int]:
    files, text = [], 0
    if not folder.is_dir():
        return files, text
    for p in sorted(folder.iterdir()):
        if not p.is_file():
            continue
        with p.open("rb") as f:
            head = f.read(13)
        if not head.startswith(b"version ") or len(head) < 12:
            continue
        ver = head[8:12].decode("ascii", "replace")
        if ver in BINARY_VERSIONS and head[12:13] == b"\n":
            files.append(p)
        elif ver in TEXT_VERSIONS:
            text += 1
    return files, text


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--install", action="store_true", help="npm/pip install the tools first")
    ap.add_argument("--no-build", action="store_true", help="do not run cargo build first")
    ap.add_argument("--emit", type=Path, metavar="DIR",
                    help="only compile the schema into DIR (kept) and exit")
    ap.add_argument("--lang", default="python",
                    help="target language for --emit (python, java, cpp_stl, rust …)")
    ap.add_argument("files", nargs="*", type=Path, help="check these files instead")
    args = ap.parse_args()

    prefix = Path(os.environ.get("KSC_DIR") or os.environ.get("KSC_PREFIX", "/tmp/ksc"))
    if args.install:
        install(prefix)

    if args.emit:
        args.emit.mkdir(parents=True, exist_ok=True)
        version = compile_schema(prefix, args.emit, args.lang)
        print(f"kaitai-struct-compiler {version}: {KSY.relative_to(REPO)} -> {args.emit} ({args.lang})")
        return 0

    corpus = Path(os.environ.get("MESHCODEC_CORPUS", REPO.parent / "shared" / "corpus"))
    if args.files:
        files = list(args.files)
        text = 0
    else:
        files, text = [], 0
        folders = [corpus / "roblox", REPO / "roundtrip-fixtures" / "filemesh",
                   REPO / "roundtrip-fixtures" / "chunked"]
        if not (corpus / "roblox").is_dir():
            if in_ci():
                print(f"FAIL: corpus not found at {corpus}", file=sys.stderr)
                return 1
            print(f"note: corpus not found at {corpus}; checking the fixtures only")
        for folder in folders:
            f, t = binary_filemeshes(folder)
            files += f
            text += t

    with tempfile.TemporaryDirectory(prefix="ksc-filemesh-") as tmp:
        ksc_version = compile_schema(prefix, Path(tmp))
        sys.path.insert(0, tmp)
        mod = importlib.import_module("roblox_filemesh")
        Parser = mod.RobloxFilemesh
        Kind = Parser.ChunkKind
        cli_cmd = meshcodec_binary(not args.no_build)
        print(f"kaitai-struct-compiler {ksc_version}; meshcodec: {' '.join(cli_cmd)}")
        if text:
            print(f"({text} text 1.00/1.01 files left out: not covered by the schema)")

        passed = failed = 0
        for path in files:
            try:
                shown = path.relative_to(REPO)
            except ValueError:
                shown = path
            data = path.read_bytes()
            try:
                m = Parser.from_bytes(data)
                if m._io.pos() != m._io.size():
                    raise RuntimeError(f"parse stopped at {m._io.pos()} of {m._io.size()} bytes")
                ks = schema_view(m, Kind)
            except Exception as e:  # noqa: BLE001  (any parser error is a failure)
                print(f"FAIL     {shown}: schema parse: {type(e).__name__}: {e}")
                failed += 1
                continue
            try:
                cli = cli_view(cli_cmd, path)
            except Exception as e:  # noqa: BLE001
                print(f"FAIL     {shown}: {e}")
                failed += 1
                continue
            diffs = compare(ks, cli)
            counts = " ".join(
                f"{k}={ks[k]}" for k in ("vertices", "faces", "bones", "subsets") if k in ks
            )
            if diffs:
                print(f"MISMATCH {shown} ({ks['version']}): " + "; ".join(diffs))
                failed += 1
            else:
                compared = sum(1 for k in ks if k in cli)
                print(f"ok       {shown} ({ks['version']}, {len(data)} bytes): {counts}"
                      f" [{compared} keys agree]")
                passed += 1

    if not files:
        print("no binary FileMesh files found")
        failed += 1 if in_ci() else 0
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
