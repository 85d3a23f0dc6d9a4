"""Generate CSGPHS fixtures (versions 0, 3, 5, 6, 7, 8), stdlib only.

Written from shared/specs/roblox-csgphs.txt and FORMAT-NOTES.md ("CSGPHS"),
independently of the meshcodec library. The version 8 fixture wraps a version 7 style
payload in a zstd frame made of *raw* (stored) blocks, assembled by hand from the zstd
frame format (RFC 8878), so no compressor is needed.

    python3 roundtrip-fixtures/make_csgphs.py           # write csgphs/*.bin + expected.json
    python3 roundtrip-fixtures/make_csgphs.py --check   # re-generate and compare, walk the hulls
"""

import json
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "csgphs")

PRE1 = struct.pack("<4f", 0, 0, 0, 0)
PRE2 = struct.pack("<4f", 0, 0, 0, 1)


def box_hull(x0, y0, z0, sx, sy, sz):
    """A closed box: 8 vertices, 12 outward-facing triangles."""
    v = [(x0 + dx * sx, y0 + dy * sy, z0 + dz * sz) for dz in (0, 1) for dy in (0, 1) for dx in (0, 1)]
    quads = [(0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2), (1, 3, 7, 5)]
    tris = []
    for a, b, c, d in quads:
        tris += [(a, b, c), (a, c, d)]
    return v, tris


def hull_record(verts, tris):
    floats = [c for p in verts for c in p]
    idx = [i for t in tris for i in t]
    return (struct.pack("<I", 16) + PRE1 + struct.pack("<I", 16) + PRE2
            + struct.pack("<II", len(floats), 4) + struct.pack("<%df" % len(floats), *floats)
            + struct.pack("<I", len(idx)) + struct.pack("<%dI" % len(idx), *idx))


def physics(volume, cog, inertia):
    return struct.pack("<f3f6f", volume, *cog, *inertia)


def zstd_raw_frame(payload, block=64):
    """A zstd frame of raw blocks: magic, a frame header with a 4-byte content size, no
    checksum, single segment; then blocks (3-byte headers: last flag, type 0 = raw, size)."""
    out = struct.pack("<I", 0xFD2FB528)
    # Frame_Header_Descriptor: FCS flag 2 (4 bytes) << 6 | single segment 1 << 5.
    out += bytes([(2 << 6) | (1 << 5)]) + struct.pack("<I", len(payload))
    chunks = [payload[i:i + block] for i in range(0, len(payload), block)] or [b""]
    for k, c in enumerate(chunks):
        last = 1 if k == len(chunks) - 1 else 0
        header = last | (0 << 1) | (len(c) << 3)
        out += struct.pack("<I", header)[:3] + c
    return out


def fixtures():
    boxes = [box_hull(0, 0, 0, 2, 1, 1), box_hull(3, 0, 0, 1, 1, 1), box_hull(0, 2, 0, 1, 2, 3)]
    hulls = b"".join(hull_record(*b) for b in boxes)
    counts = [[len(v), len(t)] for v, t in boxes]
    # Physics of the three boxes: volume 2 + 1 + 6 = 9, centre of gravity by volume.
    vols = [2.0, 1.0, 6.0]
    cents = [(1.0, 0.5, 0.5), (3.5, 0.5, 0.5), (0.5, 3.0, 1.5)]
    cog = tuple(sum(v * c[k] for v, c in zip(vols, cents)) / 9.0 for k in range(3))
    phys = physics(9.0, cog, (10.0, -1.0, -0.5, 12.0, -0.25, 8.0))
    head = lambda v: b"CSGPHS" + struct.pack("<I", v)
    exp = lambda v, n: {"version": v, "hulls": n, "vertices": sum(c[0] for c in counts[:n]),
                        "faces": sum(c[1] for c in counts[:n]), "hull_counts": counts[:n]}
    files = {
        "csgphs0-block.bin": (head(0) + b"BLOCK", {"version": 0, "hulls": 0, "vertices": 0, "faces": 0, "hull_counts": []}),
        "csgphs3.bin": (head(3) + hull_record(*boxes[0]), exp(3, 1)),
        "csgphs5.bin": (head(5) + hulls, exp(5, 3)),
        "csgphs6.bin": (head(6) + phys + hulls, dict(exp(6, 3), volume=9.0)),
        "csgphs7.bin": (head(7) + bytes([3]) + phys + hulls, dict(exp(7, 3), volume=9.0, geometry_type=3)),
    }
    inner = bytes([2]) + phys + hulls
    files["csgphs8-raw-blocks.bin"] = (head(8) + struct.pack("<H", 0) + zstd_raw_frame(inner),
                                       {"version": 8, "decompressed_bytes": len(inner)})
    return files


def walk_hulls(data):
    p, n = 0, []
    while p < len(data):
        s1, = struct.unpack_from("<I", data, p); p += 4 + s1
        s2, = struct.unpack_from("<I", data, p); p += 4 + s2
        nf, w = struct.unpack_from("<II", data, p); p += 8 + 4 * nf
        assert w == 4
        ni, = struct.unpack_from("<I", data, p)
        idx = struct.unpack_from("<%dI" % ni, data, p + 4); p += 4 + 4 * ni
        assert all(i < nf // 3 for i in idx)
        n.append([nf // 3, ni // 3])
    assert p == len(data)
    return n


def check():
    files = fixtures()
    expected = json.load(open(os.path.join(OUT, "expected.json")))
    ok = sorted(expected) == sorted(files)
    for name, (data, e) in sorted(files.items()):
        good = open(os.path.join(OUT, name), "rb").read() == data and expected.get(name) == e
        v = struct.unpack_from("<I", data, 6)[0]
        if v in (3, 5):
            good &= walk_hulls(data[10:]) == e["hull_counts"]
        elif v == 6:
            good &= walk_hulls(data[50:]) == e["hull_counts"]
        elif v == 7:
            good &= walk_hulls(data[51:]) == e["hull_counts"]
        print("%s %s" % ("ok  " if good else "FAIL", name))
        ok &= good
    return ok


def write():
    os.makedirs(OUT, exist_ok=True)
    files = fixtures()
    for name, (data, _) in files.items():
        open(os.path.join(OUT, name), "wb").write(data)
    with open(os.path.join(OUT, "expected.json"), "w", newline="\n") as fh:
        json.dump({n: e for n, (_, e) in sorted(files.items())}, fh, indent=2)
        fh.write("\n")
    for name, (data, _) in sorted(files.items()):
        print("wrote %-24s %5d bytes" % (name, len(data)))


if __name__ == "__main__":
    sys.exit(0 if check() else 1) if sys.argv[1:] == ["--check"] else write()
