"""Generate Draco bitstreams in the FileMesh 7.00 (COREMESH v2) attribute layout with the
reference C++ encoder, independently of meshcodec and of draco-core.

The encoder is Google's C++ Draco through the PyPI package DracoPy (`pip install DracoPy
numpy`); this script neither reads nor calls the Rust code. Each mesh is encoded with
`preserve_order=True` (Draco sequential encoding, method 0, so points keep their order) and
carries the five attributes a COREMESH v2 blob has, by unique id, with the same layouts
(FORMAT-NOTES.md, "6.00 / 7.00 chunks"):

    uid 0  f32 x 3  position      uid 3  u8 x 4  tangent bytes
    uid 1  f32 x 3  normal        uid 4  u8 x 4  colour
    uid 2  f32 x 2  uv

DracoPy cannot choose the unique id of its POSITION attribute, so all five go in as
GENERIC attributes with explicit unique ids, and DracoPy adds its own POSITION attribute
(unique id 5, positions quantized to 14 bits) that a COREMESH reader must ignore. None of
uid 0-4 is quantized, so the reference decoder must give back the inputs bit for bit; the
script checks that, and records what DracoPy's decoder returns in draco/expected.json:

    {"<name>.drc": {"points": N, "faces": F, "position": [[x, y, z], ...], "normal": [...],
                    "uv": [...], "tangent": [...], "color": [...], "face_indices": [[a, b, c], ...],
                    "encoder": "...", "compression_level": L}}

Floats are written with Python's repr of the float32 value widened to float64, which reads
back to the same float32.

    python3 roundtrip-fixtures/make_draco.py           # write draco/*.drc + draco/expected.json
    python3 roundtrip-fixtures/make_draco.py --check   # re-encode and re-decode, compare with disk
"""

import json
from importlib import metadata
import os
import re
import sys

import numpy as np

try:
    import DracoPy
except ImportError:  # pragma: no cover - reported to the user
    sys.exit("make_draco.py needs DracoPy: pip install DracoPy numpy")

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_DIR = os.path.join(HERE, "draco")
UIDS = {0: "position", 1: "normal", 2: "uv", 3: "tangent", 4: "color"}


def grid_mesh(rows, cols, seed):
    """A rows x cols grid of points (two triangles a cell) with deterministic attributes."""
    rng = np.random.default_rng(seed)
    n = rows * cols
    ij = np.array([(i, j) for i in range(rows) for j in range(cols)], dtype=np.float64)
    pos = np.stack([ij[:, 1] * 0.5 - 3.0, np.sin(ij[:, 0] * 0.7) * 2.0, ij[:, 0] * -0.25], axis=1)
    pos += rng.uniform(-0.01, 0.01, pos.shape)
    nrm = rng.normal(size=(n, 3))
    nrm /= np.linalg.norm(nrm, axis=1, keepdims=True)
    uv = np.stack([ij[:, 1] / max(cols - 1, 1), 1.0 - ij[:, 0] / max(rows - 1, 1)], axis=1)
    tangent = rng.integers(0, 255, (n, 4), dtype=np.uint8)
    tangent[:, 3] = np.where(rng.integers(0, 2, n) == 1, 254, 0)
    color = rng.integers(0, 256, (n, 4), dtype=np.uint8)
    faces = []
    for i in range(rows - 1):
        for j in range(cols - 1):
            a, b, c, d = i * cols + j, i * cols + j + 1, (i + 1) * cols + j, (i + 1) * cols + j + 1
            faces += [(a, c, b), (b, c, d)]
    return (pos.astype(np.float32), nrm.astype(np.float32), uv.astype(np.float32),
            tangent, color, np.array(faces, dtype=np.uint32))


def meshes():
    """name -> (arrays by uid, faces, compression level)."""
    out = {}

    # Small: 3 x 3 grid, then shuffled so the point order is not the grid order, plus one
    # point that no face uses (Draco must keep it, and in place).
    pos, nrm, uv, tan, col, faces = grid_mesh(3, 3, seed=7)
    perm = np.array([4, 0, 8, 2, 6, 1, 7, 3, 5])
    inv = np.argsort(perm)
    pos, nrm, uv, tan, col = pos[perm], nrm[perm], uv[perm], tan[perm], col[perm]
    faces = inv[faces].astype(np.uint32)
    pos = np.vstack([pos, np.float32([[9.5, -9.5, 0.125]])])
    nrm = np.vstack([nrm, np.float32([[0.0, 0.0, -1.0]])])
    uv = np.vstack([uv, np.float32([[0.5, 0.5]])])
    tan = np.vstack([tan, np.uint8([[127, 127, 127, 0]])])
    col = np.vstack([col, np.uint8([[255, 255, 255, 255]])])
    out["small-reordered"] = ((pos, nrm, uv, tan, col), faces, 7)

    # Larger than 255 points (16-bit connectivity), Roblox's speed 3 (compression level 7).
    pos, nrm, uv, tan, col, faces = grid_mesh(16, 17, seed=11)
    out["grid-272"] = ((pos, nrm, uv, tan, col), faces, 7)

    # The fastest setting (compression level 0, speed 10): still sequential.
    pos, nrm, uv, tan, col, faces = grid_mesh(5, 4, seed=3)
    out["grid-20-cl0"] = ((pos, nrm, uv, tan, col), faces, 0)
    return out


def encode(attrs, faces, level):
    pos = attrs[0]
    return DracoPy.encode(
        pos, faces,
        quantization_bits=14, compression_level=level, preserve_order=True,
        generic_attributes={uid: a for uid, a in enumerate(attrs)},
    )


def describe(blob):
    """What the reference decoder (DracoPy, C++ Draco) finds in `blob`."""
    m = DracoPy.decode(blob)
    by_uid = {a["unique_id"]: np.asarray(a["data"]) for a in m.attributes}
    d = {"points": int(len(m.points)), "faces": int(len(m.faces))}
    for uid, name in UIDS.items():
        a = by_uid[uid]
        d[name] = [[float(x) for x in row] if a.dtype == np.float32 else [int(x) for x in row]
                   for row in a]
    d["face_indices"] = [[int(x) for x in f] for f in np.asarray(m.faces)]
    return d, by_uid, np.asarray(m.faces)


def build():
    files, expected = {}, {}
    for name, (attrs, faces, level) in meshes().items():
        blob = encode(attrs, faces, level)
        assert blob[:5] == b"DRACO" and blob[5:7] == b"\x02\x02", "not a Draco 2.2 stream"
        assert blob[7] == 1 and blob[8] == 0, "not a sequential triangle mesh"
        assert blob[9:11] == b"\0\0", "unexpected header flags (metadata?)"
        d, by_uid, dfaces = describe(blob)
        # Lossless and order-preserving: the reference decoder gives back the inputs.
        for uid, a in enumerate(attrs):
            assert by_uid[uid].dtype == a.dtype and by_uid[uid].tobytes() == a.tobytes(), (name, uid)
        assert np.array_equal(dfaces, faces), name
        d["encoder"] = "DracoPy %s (C++ Draco), preserve_order=True" % metadata.version("DracoPy")
        d["compression_level"] = level
        files[name + ".drc"] = blob
        expected[name + ".drc"] = d
    return files, expected


def dump(expected):
    """JSON with one row (a point's values, a face) a line."""
    text = json.dumps(expected, indent=1, sort_keys=True)
    return re.sub(r"\[\s+([^\[\]{}]*?)\s+\]",
                  lambda m: "[" + re.sub(r",\s+", ", ", m.group(1)) + "]", text) + "\n"


def write():
    files, expected = build()
    os.makedirs(OUT_DIR, exist_ok=True)
    for name, blob in files.items():
        with open(os.path.join(OUT_DIR, name), "wb") as f:
            f.write(blob)
    with open(os.path.join(OUT_DIR, "expected.json"), "w") as f:
        f.write(dump(expected))
    print("wrote %d bitstreams to %s" % (len(files), OUT_DIR))


def check():
    ok = True
    expected = json.load(open(os.path.join(OUT_DIR, "expected.json")))
    on_disk = sorted(n for n in os.listdir(OUT_DIR) if n.endswith(".drc"))
    if on_disk != sorted(expected):
        print("FAIL: .drc files %s vs expected.json keys %s" % (on_disk, sorted(expected)))
        ok = False
    # The files on disk decode, with the reference decoder, to expected.json.
    for name in on_disk:
        blob = open(os.path.join(OUT_DIR, name), "rb").read()
        d, _, _ = describe(blob)
        exp = {k: v for k, v in expected.get(name, {}).items() if k in d}
        if d != exp:
            print("FAIL: %s does not decode to expected.json" % name)
            ok = False
    # A fresh encode gives the same bytes (same DracoPy / Draco version).
    files, fresh = build()
    for name, blob in files.items():
        path = os.path.join(OUT_DIR, name)
        if not os.path.exists(path) or open(path, "rb").read() != blob:
            print("FAIL: %s differs from a fresh encode" % name)
            ok = False
    if dump(fresh) != open(os.path.join(OUT_DIR, "expected.json")).read():
        print("FAIL: expected.json differs from a fresh generation")
        ok = False
    print("ok" if ok else "FAILED")
    return ok


if __name__ == "__main__":
    if sys.argv[1:] == ["--check"]:
        sys.exit(0 if check() else 1)
    write()
