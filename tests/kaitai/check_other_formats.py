#!/usr/bin/env python3
"""Parse every CSGPHS, CSGMDL, UNIGINE and STF file with the Kaitai Struct schemas in schema/ and
compare what they find with `meshcodec info --json`.

An independent reader: the .ksy files are written from the specs and docs, compiled to Python
here by the reference Kaitai Struct compiler, and run with the PyPI runtime. Nothing of the
Rust code is used except the CLI's JSON output, which is what gets checked.

For each file:
  - the generated parser must read it to its last byte (and every sized substream to its
    end);
  - CSGPHS v8: the zstd frame (PyPI `zstandard`) is one frame with nothing after it, and its
    content parses with roblox_csgphs_v8_payload.ksy to the end;
  - UNIGINE ms14: each LZ4 block is decompressed (PyPI `lz4`; stored as is when
    csize == size) and parsed to the end with unigine_ms14_geometry.ksy / unigine_ms14_tree.ksy;
    the trailing offset table must point at the geometry blocks;
  - the counts must equal the CLI's: CSGPHS version, hulls (v8: coded + raw), vertices,
    faces; UNIGINE mesh version, surfaces, vertices (target-0 tangents), positions, faces,
    bones; UNIGINE anim version, bones, per animation frames and animated_bones; STF
    buffers, json_bytes.

One line per file, then a closing "N passed, N failed" line; exit 1 on any mismatch or
failure.

Tools (none is installed by this script):
  - Node.js and the npm package kaitai-struct-compiler 0.11:
        npm install --prefix /tmp/ksc kaitai-struct-compiler@0.11.0
    (the package is a JavaScript library without a command line; this script drives it
    with a few lines of Node). Another prefix can be given in KSC_DIR.
  - Python packages: pip install kaitaistruct zstandard lz4 pyyaml
  - the CLI, built with `cargo build --release` in cargo's target directory
    (CARGO_TARGET_DIR is honoured).
A missing tool skips the check (exit 0), except under CI=true, where it fails.

Environment: MESHCODEC_CORPUS (default ../shared/corpus from the repository root),
KSC_DIR (default /tmp/ksc), MESHCODEC_BIN (default: the release build in cargo's target directory).
"""

import io
import json
import os
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCHEMA_DIR = os.path.join(REPO, "schema")
CI = os.environ.get("CI", "").lower() == "true"

# Top-level schemas to compile; the imported ones (unigine_cint, unigine_cstr) are in the list
# too so that their generated modules are importable.
SCHEMAS = [
    "roblox_csgphs",
    "roblox_csgphs_v8_payload",
    "unigine_cint",
    "unigine_cstr",
    "unigine_mesh",
    "unigine_ms14_geometry",
    "unigine_ms14_tree",
    "unigine_anim",
    "stf",
    "roblox_csgmdl",
]

# Sets of files: (label, directory, {extension: kind}).
def file_sets(corpus):
    return [
        ("corpus", os.path.join(corpus, "csg"), {".bin": "csgphs"}),
        ("corpus", os.path.join(corpus, "unigine"), {".mesh": "mesh", ".anim": "anim"}),
        ("corpus", os.path.join(corpus, "stf"), {".stf": "stf"}),
        ("corpus", os.path.join(corpus, "csgmdl"), {".bin": "csgmdl"}),
        ("fixtures", os.path.join(REPO, "roundtrip-fixtures", "csgphs"), {".bin": "csgphs"}),
        ("fixtures", os.path.join(REPO, "roundtrip-fixtures", "unigine"), {".mesh": "mesh", ".anim": "anim"}),
        ("fixtures", os.path.join(REPO, "roundtrip-fixtures", "stf"), {".stf": "stf"}),
        ("fixtures", os.path.join(REPO, "roundtrip-fixtures", "csgmdl"), {".bin": "csgmdl"}),
    ]


NODE_DRIVER = r"""
const fs = require('fs'), path = require('path');
const [moduleDir, srcDir, outDir, ...names] = process.argv.slice(2);
const compiler = require(moduleDir);
const load = (n) => JSON.parse(fs.readFileSync(path.join(srcDir, path.basename(n) + '.json'), 'utf8'));
const importer = { importYaml: (name, mode) => Promise.resolve(load(name)) };
(async () => {
  process.stdout.write(compiler.version + '\n');
  for (const n of names) {
    let files;
    try {
      files = await compiler.compile('python', load(n), importer, false);
    } catch (e) {
      const msg = Array.isArray(e) ? e.map(String).join('\n') : String((e && e.stack) || e);
      process.stderr.write(n + '.ksy: ' + msg + '\n');
      process.exit(1);
    }
    for (const [f, src] of Object.entries(files)) fs.writeFileSync(path.join(outDir, f), src);
  }
})();
"""


class Missing(Exception):
    """A tool this check needs is not there."""


def missing_tool(msg):
    if CI:
        print("FAIL missing tool (CI=true): " + msg)
        print("0 passed, 1 failed")
        sys.exit(1)
    print("SKIP missing tool: " + msg)
    sys.exit(0)


def import_python_deps():
    mods = {}
    for name, pip_name in [("yaml", "pyyaml"), ("kaitaistruct", "kaitaistruct"),
                           ("zstandard", "zstandard"), ("lz4.block", "lz4")]:
        try:
            mods[name] = __import__(name, fromlist=["_"])
        except ImportError:
            missing_tool("Python package %s (pip install %s)" % (name, pip_name))
    return mods


def find_compiler():
    node = shutil.which("node")
    if node is None:
        missing_tool("node (Node.js, to run kaitai-struct-compiler)")
    ksc_dir = os.environ.get("KSC_DIR", "/tmp/ksc")
    module = os.path.join(ksc_dir, "node_modules", "kaitai-struct-compiler")
    if not os.path.isfile(os.path.join(module, "kaitai-struct-compiler.js")):
        missing_tool("kaitai-struct-compiler in %s "
                     "(npm install --prefix %s kaitai-struct-compiler@0.11.0)" % (ksc_dir, ksc_dir))
    return node, module


def compile_schemas(yaml, node, module, tmp):
    src, out = os.path.join(tmp, "src"), os.path.join(tmp, "out")
    os.makedirs(src)
    os.makedirs(out)
    for name in SCHEMAS:
        with open(os.path.join(SCHEMA_DIR, name + ".ksy"), encoding="utf-8") as f:
            spec = yaml.safe_load(f)
        with open(os.path.join(src, name + ".json"), "w", encoding="utf-8") as f:
            json.dump(spec, f)
    driver = os.path.join(tmp, "compile.js")
    with open(driver, "w", encoding="utf-8") as f:
        f.write(NODE_DRIVER)
    r = subprocess.run([node, driver, module, src, out] + SCHEMAS,
                       capture_output=True, text=True)
    if r.returncode != 0:
        print("FAIL kaitai-struct-compiler: " + (r.stderr or r.stdout).strip())
        print("0 passed, 1 failed")
        sys.exit(1)
    version = r.stdout.strip().splitlines()[0] if r.stdout.strip() else "?"
    if not version.startswith("0.11"):
        print("FAIL kaitai-struct-compiler is %s, 0.11 is wanted" % version)
        print("0 passed, 1 failed")
        sys.exit(1)
    sys.path.insert(0, out)
    return version


def target_dir():
    """Cargo's target directory (CARGO_TARGET_DIR, a config file, or target/)."""
    cargo = shutil.which("cargo")
    if cargo is not None:
        r = subprocess.run([cargo, "metadata", "--format-version", "1", "--no-deps"],
                           cwd=REPO, capture_output=True, text=True)
        if r.returncode == 0:
            return json.loads(r.stdout)["target_directory"]
    t = os.environ.get("CARGO_TARGET_DIR")
    if t:
        return t if os.path.isabs(t) else os.path.join(REPO, t)
    return os.path.join(REPO, "target")


def find_cli():
    if os.environ.get("MESHCODEC_BIN"):
        return os.environ["MESHCODEC_BIN"]
    cli = os.path.join(target_dir(), "release", "meshcodec")
    cargo = shutil.which("cargo")
    if cargo is None:
        if os.path.isfile(cli):
            return cli
        missing_tool("meshcodec CLI (%s) and cargo to build it" % cli)
    # Always build: a binary left from an older checkout would check stale code.
    print("building the CLI: cargo build --release", flush=True)
    r = subprocess.run([cargo, "build", "--release", "--bin", "meshcodec"], cwd=REPO,
                       capture_output=True, text=True)
    if r.returncode != 0 or not os.path.isfile(cli):
        print("FAIL cargo build --release:\n" + r.stderr[-4000:])
        print("0 passed, 1 failed")
        sys.exit(1)
    return cli


def cli_info(cli, path):
    r = subprocess.run([cli, "info", "--json", path], capture_output=True, text=True)
    if r.returncode != 0:
        raise AssertionError("meshcodec info failed: " + r.stderr.strip()[-300:])
    return json.loads(r.stdout)


# ---------------------------------------------------------------------------------------------
# Consumption checks


def streams_of(obj, seen=None, found=None):
    """Every KaitaiStream reachable from a parsed object (its own and its children's)."""
    from kaitaistruct import KaitaiStruct
    if seen is None:
        seen, found = set(), {}
    if isinstance(obj, list):
        for x in obj:
            streams_of(x, seen, found)
        return found
    if not isinstance(obj, KaitaiStruct) or id(obj) in seen:
        return found
    seen.add(id(obj))
    found[id(obj._io)] = obj._io
    for key, val in vars(obj).items():
        if not key.startswith("_"):
            streams_of(val, seen, found)
    return found


def parse_to_end(cls, data, *params):
    """Parse bytes with a generated class; the stream and every substream must be used up."""
    from kaitaistruct import KaitaiStream
    stream = KaitaiStream(io.BytesIO(data))
    obj = cls(*params, stream)
    if stream.pos() != stream.size():
        raise AssertionError("%s stopped at byte %d of %d" % (cls.__name__, stream.pos(), stream.size()))
    for s in streams_of(obj).values():
        if s.pos() != s.size():
            raise AssertionError("%s: a substream stopped at byte %d of %d"
                                 % (cls.__name__, s.pos(), s.size()))
    return obj


def compare(got, info):
    """Every key of `got` against the CLI's JSON (animations: their frames and bone counts)."""
    bad = []
    for k, want in got.items():
        if k not in info:
            bad.append("%s: missing in CLI output" % k)
            continue
        cli = info[k]
        if k == "animations":
            cli = [{"frames": x.get("frames"), "animated_bones": x.get("animated_bones")} for x in cli]
        if want != cli:
            bad.append("%s: kaitai %r, CLI %r" % (k, want, cli))
    if bad:
        raise AssertionError("; ".join(bad))


# ---------------------------------------------------------------------------------------------
# Per-format parsers; each returns the counts to compare with the CLI's.


def check_csgphs(mods, data):
    from roblox_csgphs import RobloxCsgphs
    from roblox_csgphs_v8_payload import RobloxCsgphsV8Payload
    f = parse_to_end(RobloxCsgphs, data)
    got = {"version": f.version, "hulls": 0, "vertices": 0, "faces": 0}
    if f.version in (3, 5, 6, 7):
        for h in f.body.hulls:
            if h.num_floats % 3 or h.num_indices % 3:
                raise AssertionError("hull arrays not a multiple of 3")
            got["hulls"] += 1
            got["vertices"] += h.num_vertices
            got["faces"] += h.num_triangles
    elif f.version == 8:
        f.body.frame_header  # checks the zstd magic
        d = mods["zstandard"].ZstdDecompressor().decompressobj()
        payload = d.decompress(f.body.zstd_frame)
        if not d.eof or d.unused_data:
            raise AssertionError("zstd: not exactly one complete frame")
        p = parse_to_end(RobloxCsgphsV8Payload, payload)
        H, V, T = p.num_coded_hulls, p.num_vertices, p.num_triangles
        B = p.num_connectivity_bits
        checks = [(p.len_vertices == 12 * V, "len_vertices != 12 V"),
                  # Whole 32-bit words, at least ceil(B/32) (real blobs: exactly that;
                  # the fixture csgphs8-padded.bin has one word more).
                  (p.len_connectivity % 4 == 0 and p.len_connectivity >= (B + 31) // 32 * 4,
                   "len_connectivity is not whole words >= 4 * ceil(B/32)"),
                  (T == 2 * V - 4 * H, "T != 2V - 4H"),
                  (B == 2 * T - H, "B != 2T - H")]
        for ok, what in checks:
            if not ok:
                raise AssertionError("v8 payload: " + what)
        got["hulls"], got["vertices"], got["faces"] = H, V, T
        r = getattr(p, "raw_hulls", None)  # absent when len_raw_hulls == 0
        if r is not None:
            got["hulls"] += r.num_hulls
            got["vertices"] += r.num_vertices
            got["faces"] += r.num_triangles
    return got


def lz4_payload(mods, block):
    if block.csize == block.size:
        data = block.data
    else:
        data = mods["lz4.block"].decompress(block.data, uncompressed_size=block.size)
    if len(data) != block.size:
        raise AssertionError("LZ4 block gives %d bytes, size says %d" % (len(data), block.size))
    return data


def check_mesh(mods, data):
    from unigine_mesh import UnigineMesh
    from unigine_ms14_geometry import UnigineMs14Geometry
    from unigine_ms14_tree import UnigineMs14Tree
    m = parse_to_end(UnigineMesh, data)
    got = {"version": m.magic, "surfaces": m.num_surfaces.value, "bones": m.num_bones.value,
           "vertices": 0, "positions": 0, "faces": 0}
    if m.version <= 13:
        for g in m.geometry:
            got["vertices"] += g.num_tangents
            got["positions"] += g.num_positions
            got["faces"] += g.num_triangle_indices.value // 3
    else:
        for s, gb, tb in zip(m.surfaces, m.geometry_blocks, m.tree_blocks):
            counts = [t.num_vertices.value for t in s.targets]
            ci, ti = s.num_coord_indices.value, s.num_triangle_indices.value
            g = parse_to_end(UnigineMs14Geometry, lz4_payload(mods, gb), counts, ci, ti)
            parse_to_end(UnigineMs14Tree, lz4_payload(mods, tb), ci // 3)
            got["vertices"] += g.num_tangents
            got["positions"] += g.num_positions
            got["faces"] += ti // 3
        # The offset table points at each geometry block; count back from the end of the file.
        size = lambda b: 16 + b.csize
        pos = (len(data) - 4 - 8 * len(m.surface_offsets) - 4
               - sum(size(b) for b in m.tree_blocks) - 4 - sum(size(b) for b in m.geometry_blocks))
        want = []
        for b in m.geometry_blocks:
            want.append(pos)
            pos += size(b)
        if list(m.surface_offsets) != want:
            raise AssertionError("surface offsets %s, geometry blocks at %s" % (list(m.surface_offsets), want))
    return got


def check_anim(mods, data):
    from unigine_anim import UnigineAnim
    a = parse_to_end(UnigineAnim, data)
    clips = a.animations if a.version == 10 else [a.clip]
    anims = [{"frames": c.num_frames.value, "animated_bones": c.num_animated_bones.value} for c in clips]
    return {"version": a.magic, "bones": a.num_bones.value, "animations": anims}


def check_stf(mods, data):
    from stf import Stf
    s = parse_to_end(Stf, data)
    json.loads(s.json)
    return {"buffers": s.num_binary_buffers, "json_bytes": s.buffer_lengths[0]}


def check_csgmdl(mods, data):
    """CSGMDL through roblox_csgmdl.ksy; CSGK (a plain 36-byte reference) by its layout."""
    if data[:4] == b"CSGK":
        assert len(data) == 36 and all(chr(c) in "0123456789abcdefABCDEF" for c in data[4:])
        return {"format": "csgk", "vertices": 0, "faces": 0}
    from roblox_csgmdl import RobloxCsgmdl
    f = parse_to_end(RobloxCsgmdl, data)
    v = f.header.version
    if v == 5:
        p = f.packed
        ranges = p.ranges
        corners = (ranges[1] - ranges[0]) if len(ranges) >= 2 else p.num_corners
        return {"format": "csgmdl", "version": v, "vertices": p.num_positions, "faces": corners // 3}
    # Versions 2 and 4: a list after the mesh that is range markers over the indices (at
    # least two, 0 first, the index count last, rising, multiples of 3) makes the first
    # range level 0 (docs/csgmdl.md); the CLI's faces count that level.
    n = f.mesh.num_indices
    m = list(f.mesh.extra) if v == 4 else []
    markers = (len(m) >= 2 and m[0] == 0 and m[-1] == n and all(x % 3 == 0 for x in m)
               and all(a < b for a, b in zip(m, m[1:])))
    faces = (m[1] - m[0]) // 3 if markers else n // 3
    return {"format": "csgmdl", "version": v, "vertices": f.mesh.num_vertices, "faces": faces}


def summary(got):
    def show(v):
        if isinstance(v, list):  # animations
            return ",".join("%d frames/%d bones" % (x["frames"], x["animated_bones"]) for x in v) or "none"
        return str(v)
    return " ".join("%s=%s" % (k, show(v)) for k, v in got.items())


CHECKS = {"csgphs": check_csgphs, "mesh": check_mesh, "anim": check_anim, "stf": check_stf,
          "csgmdl": check_csgmdl}


def main():
    mods = import_python_deps()
    node, module = find_compiler()
    corpus = os.environ.get("MESHCODEC_CORPUS", os.path.join(REPO, "..", "shared", "corpus"))
    cli = find_cli()
    passed, failed = 0, 0
    with tempfile.TemporaryDirectory(prefix="ksc-other-") as tmp:
        version = compile_schemas(mods["yaml"], node, module, tmp)
        print("kaitai-struct-compiler %s: compiled %d schemas" % (version, len(SCHEMAS)))
        for label, folder, kinds in file_sets(corpus):
            if not os.path.isdir(folder):
                if CI or label == "fixtures":
                    print("FAIL %s: folder missing" % folder)
                    failed += 1
                else:
                    print("SKIP %s: folder missing (set MESHCODEC_CORPUS)" % folder)
                continue
            for name in sorted(os.listdir(folder)):
                kind = kinds.get(os.path.splitext(name)[1])
                if kind is None:
                    continue
                path = os.path.join(folder, name)
                shown = "%s/%s/%s" % (label, os.path.basename(folder), name)
                try:
                    with open(path, "rb") as f:
                        data = f.read()
                    got = CHECKS[kind](mods, data)  # the Kaitai parse first, then the CLI
                    compare(got, cli_info(cli, path))
                    print("ok   %-6s %-45s %s" % (kind, shown, summary(got)))
                    passed += 1
                except Exception as e:  # one line per file, whatever went wrong
                    print("FAIL %-6s %-45s %s: %s" % (kind, shown, type(e).__name__, e))
                    failed += 1
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
