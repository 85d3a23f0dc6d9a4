"""Generate CSGPHS fixtures (versions 0, 3, 5, 6, 7, 8), stdlib only.

Written from shared/specs/roblox-csgphs.txt, FORMAT-NOTES.md ("CSGPHS") and
docs/csgphs-v8.md, independently of the meshcodec library. The version 8 fixtures hold a
payload built here: hulls Edgebreaker-coded by the small encoder below (Rossignac's
corner-table Edgebreaker, Roblox's bit codes and packing) and a raw hull block, in a zstd
frame made of *raw* (stored) blocks assembled by hand from the zstd frame format
(RFC 8878), so no compressor is needed.

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


def tetra_hull(x0, y0, z0, s):
    """A tetrahedron with outward-facing triangles."""
    v = [(x0, y0, z0), (x0 + s, y0, z0), (x0, y0 + s, z0), (x0, y0, z0 + s)]
    return v, [(0, 2, 1), (0, 1, 3), (1, 2, 3), (0, 3, 2)]


def bipyramid_hull(x0, y0, z0, s):
    """A triangular bipyramid: 5 vertices (a ring of 3, a top and a bottom apex), 6
    outward-facing triangles; Edgebreaker takes 4 * 5 - 9 = 11 bits for it."""
    v = [(x0, y0, z0), (x0 + s, y0, z0), (x0, y0 + s, z0), (x0 + s / 3, y0 + s / 3, z0 + s),
         (x0 + s / 3, y0 + s / 3, z0 - s)]
    return v, [(0, 1, 3), (1, 2, 3), (2, 0, 3), (1, 0, 4), (2, 1, 4), (0, 2, 4)]


def nxt(c):
    return c - c % 3 + (c + 1) % 3


def prv(c):
    return c - c % 3 + (c + 2) % 3


CODES = {"C": "0", "S": "100", "R": "101", "L": "110", "E": "111"}


def edgebreaker(tris):
    """Edgebreaker-code a closed genus-0 hull, starting at tris[0] and entering the
    triangle across the edge opposite its corner 1. Returns the symbols, the vertex order
    (new -> old) and the triangles renumbered, in the order a decoder rebuilds them."""
    V = [v for t in tris for v in t]
    edge = {(V[nxt(c)], V[prv(c)]): c for c in range(len(V))}
    O = [edge[(V[prv(c)], V[nxt(c)])] for c in range(len(V))]
    order, seen_t, out, syms, stack = list(V[:3]), {0}, [tuple(V[:3])], [], []
    c = O[1]
    while True:
        seen_t.add(c // 3)
        out.append((V[c], V[nxt(c)], V[prv(c)]))
        r, l = O[nxt(c)], O[prv(c)]
        if V[c] not in order:
            order.append(V[c])
            syms.append("C")
            c = r
            continue
        rs, ls = r // 3 in seen_t, l // 3 in seen_t
        if rs and ls:
            syms.append("E")
            if not stack:
                break
            c = stack.pop()
        elif rs:
            syms.append("R")
            c = l
        elif ls:
            syms.append("L")
            c = r
        else:
            syms.append("S")
            stack.append(l)
            c = r
    assert len(out) == len(tris) and len(order) == 2 + len(tris) // 2
    new = {old: i for i, old in enumerate(order)}
    return syms, order, [[new[v] for v in t] for t in out]


def pack_bits(bits, pad_words=1):
    """32-bit little-endian words, first bit highest; the last partial word of n bits holds
    them in its low n bits. ceil(B / 32) words and no more, as in every real blob (four
    of the eight known real blobs have an odd word count). pad_words=2 zero-pads to a
    multiple of 8 bytes instead, as meshcodec's first version 8 writer did: readers accept
    such a buffer (whole words), but it is not what Roblox writes."""
    words = [int(bits[i:i + 32], 2) for i in range(0, len(bits), 32)]
    while len(words) % pad_words:
        words.append(0)
    return struct.pack("<%dI" % len(words), *words)


def v8_payload(coded, raw, pad_words=1):
    """The decompressed version 8 content: coded hulls (vertices, triangles) and raw ones."""
    bits, verts, tris_out = "", [], []
    for v, t in coded:
        syms, order, renum = edgebreaker(t)
        bits += "".join(CODES[s] for s in syms)
        verts += [v[o] for o in order]
        tris_out.append(renum)
    rawblk = b""
    if raw:
        iranges, pranges, idx, flt = [0], [0], [], []
        for v, t in raw:
            idx += [i for tri in t for i in tri]
            flt += [c for p in v for c in p]
            iranges.append(len(idx))
            pranges.append(len(flt))
        rawblk = (struct.pack("<I%dI" % len(iranges), len(iranges), *iranges)
                  + struct.pack("<%dI" % len(idx), *idx)
                  + struct.pack("<I%dI" % len(pranges), len(pranges), *pranges)
                  + struct.pack("<%df" % len(flt), *flt))
    packed = pack_bits(bits, pad_words)
    lo = [min(p[k] for p in verts) for k in range(3)]
    hi = [max(p[k] for p in verts) for k in range(3)]
    head = struct.pack("<9I", len(coded), len(verts), sum(len(t) for _, t in coded),
                       max(len(v) for v, _ in coded), max(len(t) for _, t in coded),
                       len(rawblk), len(bits), len(packed), 12 * len(verts))
    payload = (head + struct.pack("<6f", *lo, *hi) + rawblk + packed
               + b"".join(struct.pack("<3f", *p) for p in verts))
    hull_tris = [[list(x) for x in t] for _, t in raw] + tris_out
    return payload, hull_tris


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
    # Version 8: two coded boxes (46 bits: a full 32-bit word and a partial one).
    coded = [boxes[0], boxes[2]]
    inner, tris = v8_payload(coded, [])
    files["csgphs8-boxes.bin"] = (
        head(8) + bytes([2, 0]) + zstd_raw_frame(inner),
        {"version": 8, "hulls": 2, "vertices": 16, "faces": 24, "hull_counts": [[8, 12], [8, 12]],
         "geometry_type": 2, "decompressed_bytes": len(inner), "computed_volume": 8.0,
         "hull_triangles": tris})
    # Version 8 with a raw hull: a flat, doubly covered square (non-manifold, no volume),
    # then a coded box and a coded tetrahedron (23 + 7 = 30 bits: one partial word).
    flat = ([(0, 5, 0), (1, 5, 0), (1, 5, 1), (0, 5, 1)], [(0, 1, 2), (0, 2, 3), (0, 2, 1), (0, 3, 2)])
    coded = [boxes[1], tetra_hull(5, 5, 5, 3)]
    inner, tris = v8_payload(coded, [flat])
    files["csgphs8-raw-hull.bin"] = (
        head(8) + bytes([3, 0]) + zstd_raw_frame(inner),
        {"version": 8, "hulls": 3, "vertices": 16, "faces": 20, "hull_counts": [[4, 4], [8, 12], [4, 4]],
         "geometry_type": 3, "decompressed_bytes": len(inner), "computed_volume": 1.0 + 4.5,
         "hull_triangles": tris})
    # Odd and even word counts, derived from the format's logic (see docs/csgphs-v8.md):
    # csgphs8-boxes has 46 bits (2 words), csgphs8-raw-hull 30 (1 word). Three boxes and a
    # tetrahedron: 3 * 23 + 7 = 76 bits, 3 words (odd), 12 bytes, not 16.
    coded = [boxes[0], boxes[1], boxes[2], tetra_hull(5, 5, 5, 3)]
    inner, tris = v8_payload(coded, [])
    files["csgphs8-odd-words.bin"] = (
        head(8) + bytes([0, 0]) + zstd_raw_frame(inner),
        {"version": 8, "hulls": 4, "vertices": 28, "faces": 40,
         "hull_counts": [[8, 12], [8, 12], [8, 12], [4, 4]], "geometry_type": 0,
         "decompressed_bytes": len(inner), "computed_volume": 9.0 + 4.5, "hull_triangles": tris})
    # Exactly one full word: three tetrahedra and a bipyramid, 3 * 7 + 11 = 32 bits, 4 bytes.
    # No real blob has a bit count that is a multiple of 32: that no extra word follows a full
    # last word is what the word rule gives, not something seen.
    coded = [tetra_hull(0, 0, 0, 1), tetra_hull(2, 0, 0, 1), tetra_hull(4, 0, 0, 1),
             bipyramid_hull(6, 0, 0, 3)]
    inner, tris = v8_payload(coded, [])
    files["csgphs8-full-word.bin"] = (
        head(8) + bytes([2, 0]) + zstd_raw_frame(inner),
        {"version": 8, "hulls": 4, "vertices": 17, "faces": 18,
         "hull_counts": [[4, 4], [4, 4], [4, 4], [5, 6]], "geometry_type": 2,
         "decompressed_bytes": len(inner), "computed_volume": 0.5 + 9.0,
         "hull_triangles": tris})
    # The 8-byte padding of meshcodec's first writer: 30 bits in 8 bytes, not 4. Readers take
    # it (whole words); writing version 8 again from the hulls gives the 4-byte buffer.
    coded = [boxes[1], tetra_hull(5, 5, 5, 3)]
    inner, tris = v8_payload(coded, [], pad_words=2)
    files["csgphs8-padded.bin"] = (
        head(8) + bytes([3, 0]) + zstd_raw_frame(inner),
        {"version": 8, "hulls": 2, "vertices": 12, "faces": 16, "hull_counts": [[8, 12], [4, 4]],
         "geometry_type": 3, "decompressed_bytes": len(inner), "computed_volume": 1.0 + 4.5,
         "hull_triangles": tris})
    return files


# Connectivity buffers padded to 8 bytes on purpose (see fixtures()).
PADDED = {"csgphs8-padded.bin"}


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


def unraw_frame(frame):
    """The content of a zstd frame of raw blocks (what zstd_raw_frame makes)."""
    assert struct.unpack_from("<I", frame)[0] == 0xFD2FB528 and frame[4] == 0xA0
    size, = struct.unpack_from("<I", frame, 5)
    p, out, last = 9, b"", 0
    while not last:
        h = int.from_bytes(frame[p:p + 3], "little")
        last, typ, n = h & 1, (h >> 1) & 3, h >> 3
        assert typ == 0
        out += frame[p + 3:p + 3 + n]
        p += 3 + n
    assert p == len(frame) and len(out) == size
    return out


def check_v8(data, e, padded):
    """Header relations of docs/csgphs-v8.md, and per hull 4V - 9 bits, 2V - 3 of them ones."""
    inner = unraw_frame(data[12:])
    H, V, T, maxv, maxt, R, B, nb, nv = struct.unpack_from("<9I", inner)
    words = (B + 31) // 32
    ok = T == 2 * V - 4 * H and B == 2 * T - H and nv == 12 * V
    ok &= nb == 4 * (words + words % 2 if padded else words)
    ok &= len(inner) == 60 + R + nb + nv == e["decompressed_bytes"]
    coded = [c for c in e["hull_counts"][len(e["hull_counts"]) - H:]]
    ok &= sum(c[0] for c in coded) == V and sum(c[1] for c in coded) == T
    ok &= maxv == max(c[0] for c in coded) and maxt == max(c[1] for c in coded)
    words = struct.unpack_from("<%dI" % (nb // 4), inner, 60 + R)
    bits = "".join(format(w, "032b") if 32 * (i + 1) <= B else format(w, "0%db" % (B - 32 * i))
                   for i, w in enumerate(words) if 32 * i < B)
    ok &= bits.count("1") == 2 * V - 3 * H and len(bits) == B
    return ok


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
        elif v == 8:
            good &= check_v8(data, e, name in PADDED)
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
