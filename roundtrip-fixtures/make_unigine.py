"""Generate UNIGINE fixtures, stdlib only: .mesh versions ms10-ms14 and .anim an10 / an11.

ms10-ms13 are written from shared/specs/unigine-mesh-anim.txt and FORMAT-NOTES.md ("UNIGINE
.mesh / .anim", which wins where they differ); ms14 from docs/unigine-ms14.md; the .anim files
and the animations embedded in ms10-ms12 meshes from docs/unigine-anim.md. Independently of
the meshcodec library: nothing here reads or imports the Rust code.

    python3 roundtrip-fixtures/make_unigine.py           # write unigine/*.mesh, *.anim and
                                                         # expected.json
    python3 roundtrip-fixtures/make_unigine.py --check   # re-generate and compare, walk every
                                                         # file with the separate reader below,
                                                         # and walk the real corpus files if
                                                         # shared/corpus/unigine/ is there

Deterministic: no randomness; floats are small binary fractions or exact sums/products of
them, a few decimal fractions (0.6, 0.28, 5/13, ...) rounded to f32 by struct, and math.sqrt
(IEEE 754 requires sqrt to be correctly rounded, so it is the same everywhere). No libm.

Conventions (see also roundtrip-fixtures/README.md):
- Compact int (cint, readInt2): first byte bit 7 = more, bit 6 = sign, bits 0-5 = magnitude
  bits 0-5; each next byte bit 7 = more, bits 0-6 = the next 7 magnitude bits. Written as
  UNIGINE writes them: the lead byte alone holds 0-62 (63 is `bf 00`), and another byte
  follows while more than 127 remains (8130 is `82 7f`); 0 is `00`; a negative number is its magnitude with the
  sign bit (-1 = `41`); -0 is never written. No count is negative: the only negative cints
  are the -1 children of ms14 tree leaves. The .anim fixtures hold no cint of value 63 (the
  anim notes only saw shortest forms, which differ from UNIGINE's form exactly there).
- Strings: cint length including the NUL, then the bytes, NUL last; an empty name is `01 00`.
- Embedded animations (ms10-ms12, docs/unigine-anim.md): one block per name of the header's
  animation table, right after the bind pose: cint N, i16 bone[N], u8 flag, cint F, then
  F x N keys frame-major (u8 mask with the an10 bits; f32 translation x/y/z for bits 0-2,
  i16[4] rotation for bit 3, f32 scale x/y/z for bits 4-6). Only ms11-embedded-anim.mesh
  has one; every other ms10-ms12 fixture has animation count 0.
- Animation keys (an10 and embedded): frame 0 stores everything (mask 0x7f); a later key
  stores exactly the components whose stored value (u16 / f32 / the i16 quaternion as one
  group) differs from the previous frame's, per component (the notes' per-component reading).
  an10 boxes: min = the f32 minimum over every animated bone and frame, size = (max - min)
  + 1 in f32; q = trunc((v - min) / size * 65535) in f32. Rotations i16 = trunc(c * 32767).
  The an10 header bounds are the "empty" sentinel of the real file (1e9, -1e9, 0, -1), the
  flag byte is 0x7f. an11 masks are chosen per key (bits 0-2 only, each a whole f32 vector).
- ms14 (docs/unigine-ms14.md): tree_leaf_tris 4; LZ4 blocks are literal-only raw blocks
  (one sequence: token, 255... length bytes, the literals; no match), except one stored block
  (csize == size) in ms14-two-surfaces.mesh; mem_estimate (formula unknown) is the sum of
  the file's decompressed payload sizes; tangents are the face's tangent frame (t = first
  quad edge, n = face normal, b = n x t) as a quaternion, each component trunc(c * 32767).
  Quads are triangulated (0, 1, 2), (2, 3, 0), as the real box is, so the diagonal is the edge
  opposite corner 1 of both triangles. Edge flag bit b is set unless the triangle across the
  edge opposite corner b is coplanar (exactly, in rationals). Tree: a node of fewer than 4
  triangles is a leaf; otherwise split at the median of the triangle centroids (sorted, ties
  by triangle number) on the axis where they spread most (ties: lowest axis), split position
  halfway between the two middle centroids. Several surfaces: the mesh bounds are those of
  all their target-0 positions (bbox centre, half diagonal), as for ms12-morph.
- Per surface: weights (when present) are per coordinate vertex (xyz of target 0); uv0, uv1
  and colours (when present) are per triangle vertex (tangent); coordinate and triangle index
  arrays both have one entry per triangle corner (3 x triangles), and each triangle vertex
  always maps to the same coordinate vertex. Every morph target has the counts of target 0.
- Weights of a vertex are distinct bones and sum to exactly 65535.
"""

import json
import math
import os
import struct
import sys
from fractions import Fraction

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "unigine")
CORPUS = os.path.normpath(os.path.join(HERE, "..", "..", "shared", "corpus", "unigine"))
CORPUS_FILES = ["ms10-box.mesh", "ms11-plane.mesh", "ms11-arm-skinned.mesh", "ms12-a.mesh",
                "ms13-small.mesh", "ms14-box.mesh", "ms14-capsule-skinned.mesh",
                "an10-arm.anim", "an11-small.anim"]
VERSIONS = (b"ms10", b"ms11", b"ms12", b"ms13")

# ---------------------------------------------------------------------------
# Writer side
# ---------------------------------------------------------------------------


def cint(v):
    """Compact int as UNIGINE's writer makes it: one short of the fewest bytes at the
    lead byte, which alone holds 0..62 (63 is `bf 00`, as in the real ms14 files); after
    it, another byte follows while more than 127 remains (8130 is `82 7f` in a real ms14
    file of UNIGINE 2.20)."""
    sign, mag = (0x40, -v) if v < 0 else (0, v)
    more = mag >= 0x3F
    out = [sign | (mag & 0x3F) | (0x80 if more else 0)]
    mag >>= 6
    while more:
        more = mag > 0x7F
        out.append((mag & 0x7F) | (0x80 if more else 0))
        mag >>= 7
    return bytes(out)


def cstr(s):
    b = s.encode("ascii") + b"\0"
    return cint(len(b)) + b


def index_width(count):
    return 1 if count < 256 else 2 if count < 65536 else 4


def pack_indices(idx, width):
    return struct.pack("<%d%s" % (len(idx), {1: "B", 2: "H", 4: "I"}[width]), *idx)


def bounds(points):
    """bbox min[3], max[3], sphere centre[3] (bbox centre), radius (half the diagonal)."""
    lo = [min(p[k] for p in points) for k in range(3)]
    hi = [max(p[k] for p in points) for k in range(3)]
    c = [(lo[k] + hi[k]) / 2 for k in range(3)]
    r = math.sqrt(sum((hi[k] - c[k]) ** 2 for k in range(3)))
    return lo + hi + c + [r]


def tangent(i, version):
    """A deterministic packed tangent: i16 x, y, z, then i8 w (ms10) or i16 w (ms11+)."""
    x = (i * 7919) % 65535 - 32767
    y = -((i * 104729) % 32768)
    z = (0, 32767, -32767, 12345)[i % 4]
    if version == b"ms10":
        return struct.pack("<3hb", x, y, z, (127, -127)[i % 2])
    return struct.pack("<4h", x, y, z, (32767, -32767, 23170, -1)[i % 4])


def quad(x0=0.0, z=0.0, s=1.0):
    """4 coordinate vertices = 4 triangle vertices, 2 triangles."""
    xyz = [(x0, 0.0, z), (x0 + s, 0.0, z), (x0 + s, s, z), (x0, s, z)]
    tris = [(0, 1, 2), (0, 2, 3)]
    return xyz, list(range(4)), tris


def split_quad():
    """4 coordinate vertices, 6 triangle vertices (the diagonal is a seam), 2 triangles."""
    xyz, _, _ = quad()
    return xyz, [0, 1, 2, 0, 2, 3], [(0, 1, 2), (3, 4, 5)]


def box():
    """8 coordinate vertices, 24 triangle vertices (4 per face), 12 triangles."""
    xyz = [(dx - 0.5, dy - 0.5, dz - 0.5) for dz in (0, 1) for dy in (0, 1) for dx in (0, 1)]
    faces = [(0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2), (1, 3, 7, 5)]
    t2c, tris = [], []
    for f in faces:
        b = len(t2c)
        t2c += list(f)
        tris += [(b, b + 1, b + 2), (b, b + 2, b + 3)]
    return xyz, t2c, tris


def surface(name, geo, version, targets=("",), lightmap=(0, 0), weights=None, uv1=False,
            colors=False, morph=None):
    """geo = (xyz, triangle vertex -> coordinate vertex, triangles over triangle vertices)."""
    xyz, t2c, tris = geo
    tverts = [c for t in tris for c in t]
    tgts = []
    for k, tname in enumerate(targets):
        pts = xyz if k == 0 else [morph(k, i, p) for i, p in enumerate(xyz)]
        tgts.append((tname, pts, [tangent(i + 31 * k, version) for i in range(len(t2c))]))
    return {
        "name": name, "lightmap": lightmap, "targets": tgts, "weights": weights or [],
        "uv0": [((i % 5) / 4, 1 - (i % 3) / 2) for i in range(len(t2c))],
        "uv1": [((i % 7) / 8, (i % 2) * 0.75) for i in range(len(t2c))] if uv1 else [],
        "colors": [((17 * i) % 256, (255 - 9 * i) % 256, (128 + 5 * i) % 256, 255 - i % 3)
                   for i in range(len(t2c))] if colors else [],
        "cidx": [t2c[t] for t in tverts], "tidx": tverts,
    }


def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


def i16q(q):
    """A quaternion as UNIGINE stores it in i16: each component trunc(c * 32767)."""
    return tuple(int(c * 32767) for c in q)


def masked_keys(frames, fields):
    """an10 / embedded keys, frame-major. frames[f][k] = (t, q, s) of animated bone k;
    fields(t, q, s) = the 7 stored fields of mask bits 0-6 as bytes. Frame 0 stores all 7
    (0x7f); a later key stores the fields whose bytes differ from the previous frame's."""
    keys, prev = [], None
    for frame in frames:
        cur = [fields(*trs) for trs in frame]
        for k, fs in enumerate(cur):
            mask = 0x7F if prev is None else sum(1 << b for b in range(7) if fs[b] != prev[k][b])
            keys.append(bytes([mask]) + b"".join(fs[b] for b in range(7) if mask >> b & 1))
        prev = cur
    return keys


def anim_summary(name, bones, frames, keys):
    return {"name": name, "bones": len(bones), "frames": len(frames),
            "keys": sum(1 for k in keys if k[0])}


def embedded_animation(a):
    """One animation block of a ms10-ms12 mesh (f32 translation/scale, i16 rotation)."""
    def fields(t, q, s):
        return ([struct.pack("<f", v) for v in t] + [struct.pack("<4h", *i16q(q))]
                + [struct.pack("<f", v) for v in s])
    keys = masked_keys(a["frames"], fields)
    out = cint(len(a["bones"])) + struct.pack("<%dh" % len(a["bones"]), *a["bones"])
    out += struct.pack("<B", a["flag"]) + cint(len(a["frames"])) + b"".join(keys)
    return out, anim_summary(a["name"], a["bones"], a["frames"], keys)


def mesh(version, surfaces, bones=(), bind=(), anims=()):
    """The whole file, and what the independent reader must find in it."""
    nv = version != b"ms13"  # ms10-ms12 carry an animation table
    assert nv or not anims
    allpts = [p for s in surfaces for p in s["targets"][0][1]]
    out = version + struct.pack("<10f", *bounds(allpts))
    out += cint(len(bones)) + b"".join(cstr(n) + struct.pack("<h", p) for n, p in bones)
    if nv:
        out += cint(len(anims)) + b"".join(cstr(a["name"]) for a in anims)
    out += cint(len(surfaces))
    for s in surfaces:
        out += cstr(s["name"])
        if version >= b"ms12":
            out += struct.pack("<BB", *s["lightmap"])
        out += struct.pack("<10f", *bounds(s["targets"][0][1]))
        out += cint(len(s["targets"])) + b"".join(cstr(t[0]) for t in s["targets"])
    out += version
    assert len(bind) == len(bones)
    out += b"".join(struct.pack("<10f", *b) for b in bind)
    eanims = []
    for a in anims:
        block, e = embedded_animation(a)
        out += block
        eanims.append(e)
    esurf = []
    for s in surfaces:
        for _, pts, tans in s["targets"]:
            out += cint(len(pts)) + b"".join(struct.pack("<3f", *p) for p in pts)
            out += cint(len(tans)) + b"".join(tans)
        out += cint(len(s["weights"]))
        for w in s["weights"]:
            out += struct.pack("<B", len(w)) + b"".join(struct.pack("<hH", b, v) for b, v in w)
        out += cint(len(s["uv0"])) + b"".join(struct.pack("<2f", *uv) for uv in s["uv0"])
        out += cint(len(s["uv1"])) + b"".join(struct.pack("<2f", *uv) for uv in s["uv1"])
        out += cint(len(s["colors"])) + b"".join(struct.pack("<4B", *c) for c in s["colors"])
        nxyz, ntan = len(s["targets"][0][1]), len(s["targets"][0][2])
        cw, tw = index_width(nxyz), index_width(ntan)
        out += cint(len(s["cidx"])) + pack_indices(s["cidx"], cw)
        out += cint(len(s["tidx"])) + pack_indices(s["tidx"], tw)
        e = {"name": s["name"], "targets": [t[0] for t in s["targets"]], "vertices": nxyz,
             "tangents": ntan, "weights": len(s["weights"]), "uv0": len(s["uv0"]),
             "uv1": len(s["uv1"]), "colors": len(s["colors"]),
             "coordinate_indices": {"count": len(s["cidx"]), "width": cw},
             "triangle_indices": {"count": len(s["tidx"]), "width": tw}}
        if version >= b"ms12":
            e["lightmap"] = list(s["lightmap"])
        esurf.append(e)
    out += version
    exp = {"version": version.decode(), "bones": [{"name": n, "parent": p} for n, p in bones]}
    if nv:
        exp["animations"] = len(anims)
    if anims:
        exp["embedded_animations"] = eanims
    exp.update(surfaces=esurf, size=len(out))
    return out, exp


IDENTITY = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0)

# ---------------------------------------------------------------------------
# Writer side: ms14
# ---------------------------------------------------------------------------

MS14 = b"ms14"
LEAF_TRIS = 4  # tree_leaf_tris: a node of fewer triangles is a leaf


def lz4_literals(payload):
    """A valid LZ4 raw block holding payload as one literal-only sequence."""
    n = len(payload)
    out = bytes([min(n, 15) << 4])
    if n >= 15:
        rest = n - 15
        out += b"\xff" * (rest // 255) + bytes([rest % 255])
    return out + payload


def lz4_block(payload, stored=False):
    """u64 size, u64 csize, the block: stored as is, or literal-only LZ4."""
    data = payload if stored else lz4_literals(payload)
    return struct.pack("<QQ", len(payload), len(data)) + data


def sub(a, b):
    return [a[k] - b[k] for k in range(3)]


def cross(a, b):
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def dot(a, b):
    return sum(a[k] * b[k] for k in range(3))


def unit(v):
    n = math.sqrt(dot(v, v))
    return [c / n for c in v]


def frame_quaternion(t, b, n):
    """The rotation whose matrix has the columns t, b, n, as x, y, z, w (w last)."""
    m = [[t[0], b[0], n[0]], [t[1], b[1], n[1]], [t[2], b[2], n[2]]]
    tr = m[0][0] + m[1][1] + m[2][2]
    if tr > 0:
        s = math.sqrt(tr + 1) * 2
        return ((m[2][1] - m[1][2]) / s, (m[0][2] - m[2][0]) / s, (m[1][0] - m[0][1]) / s, s / 4)
    if m[0][0] >= m[1][1] and m[0][0] >= m[2][2]:
        s = math.sqrt(1 + m[0][0] - m[1][1] - m[2][2]) * 2
        return (s / 4, (m[0][1] + m[1][0]) / s, (m[0][2] + m[2][0]) / s, (m[2][1] - m[1][2]) / s)
    if m[1][1] >= m[2][2]:
        s = math.sqrt(1 + m[1][1] - m[0][0] - m[2][2]) * 2
        return ((m[0][1] + m[1][0]) / s, s / 4, (m[1][2] + m[2][1]) / s, (m[0][2] - m[2][0]) / s)
    s = math.sqrt(1 + m[2][2] - m[0][0] - m[1][1]) * 2
    return ((m[0][2] + m[2][0]) / s, (m[1][2] + m[2][1]) / s, s / 4, (m[1][0] - m[0][1]) / s)


def solid(xyz, quads, centre):
    """A flat-shaded mesh of quads (4 position indices each), each turned to face away from
    centre. Triangle vertices: one per (position, face normal), shared by coplanar
    neighbours. Triangles (0, 1, 2), (2, 3, 0) per quad. Returns
    (xyz, triangle vertex -> coordinate vertex, triangles, packed quaternion tangents)."""
    t2c, tans, tris, seen = [], [], [], {}
    for q in quads:
        p = [xyz[i] for i in q]
        n = cross(sub(p[1], p[0]), sub(p[2], p[0]))
        mid = [sum(c[k] for c in p) / 4 for k in range(3)]
        if dot(n, sub(mid, centre)) < 0:
            q = (q[0], q[3], q[2], q[1])
            p = [xyz[i] for i in q]
            n = cross(sub(p[1], p[0]), sub(p[2], p[0]))
        n, t = unit(n), unit(sub(p[1], p[0]))
        quat = struct.pack("<4h", *i16q(frame_quaternion(t, cross(n, t), n)))
        tv = []
        for i in q:
            key = (i, tuple(n))
            if key not in seen:
                seen[key] = len(t2c)
                t2c.append(i)
                tans.append(quat)
            tv.append(seen[key])
        tris += [(tv[0], tv[1], tv[2]), (tv[2], tv[3], tv[0])]
    return xyz, t2c, tris, tans


def cuboid(c, h):
    """8 corners of the box centre c, half sizes h; the 6 faces as quads."""
    xyz = [(c[0] + sx * h[0], c[1] + sy * h[1], c[2] + sz * h[2])
           for sz in (-1, 1) for sy in (-1, 1) for sx in (-1, 1)]
    quads = [(0, 1, 3, 2), (4, 5, 7, 6), (0, 1, 5, 4), (2, 3, 7, 6), (0, 2, 6, 4), (1, 3, 7, 5)]
    return solid(xyz, quads, c)


def tube(h, ys):
    """A square tube of half width h along y through the rings ys, closed at both ends."""
    ring = [(-h, -h), (h, -h), (h, h), (-h, h)]
    xyz = [(x, y, z) for y in ys for x, z in ring]
    quads = [(4 * r + k, 4 * r + (k + 1) % 4, 4 * r + 4 + (k + 1) % 4, 4 * r + 4 + k)
             for r in range(len(ys) - 1) for k in range(4)]
    quads += [(0, 1, 2, 3), tuple(4 * (len(ys) - 1) + k for k in range(4))]
    return solid(xyz, quads, (0.0, (ys[0] + ys[-1]) / 2, 0.0))


def surface14(name, geo, lightmap=(0, 0), weights=None, uv1=False, colors=False):
    xyz, t2c, tris, tans = geo
    tverts = [c for t in tris for c in t]
    n = len(t2c)
    return {
        "name": name, "lightmap": lightmap, "targets": [("", xyz, tans)],
        "weights": weights or [],
        "uv0": [((i % 5) / 4, 1 - (i % 3) / 2) for i in range(n)],
        "uv1": [((i % 7) / 8, (i % 2) * 0.75) for i in range(n)] if uv1 else [],
        "colors": [((17 * i) % 256, (255 - 9 * i) % 256, (128 + 5 * i) % 256, 255 - i % 3)
                   for i in range(n)] if colors else [],
        "cidx": [t2c[t] for t in tverts], "tidx": tverts,
    }


def geometry_payload(s):
    """The geometry block payload: counts that the surface header holds are not repeated."""
    out = b""
    for _, pts, tans in s["targets"]:
        out += b"".join(struct.pack("<3f", *p) for p in pts)
        out += cint(len(tans)) + b"".join(tans)
    out += cint(len(s["weights"]))
    for w in s["weights"]:
        out += struct.pack("<B", len(w)) + b"".join(struct.pack("<hH", b, v) for b, v in w)
    out += cint(len(s["uv0"])) + b"".join(struct.pack("<2f", *uv) for uv in s["uv0"])
    out += cint(len(s["uv1"])) + b"".join(struct.pack("<2f", *uv) for uv in s["uv1"])
    out += cint(len(s["colors"])) + b"".join(struct.pack("<4B", *c) for c in s["colors"])
    out += pack_indices(s["cidx"], index_width(len(s["targets"][0][1])))
    out += pack_indices(s["tidx"], index_width(len(s["targets"][0][2])))
    return out


def edge_flags(pts, cidx):
    """Per triangle: bit b set unless the one triangle across the edge opposite corner b is
    coplanar with it (same plane, same facing; exact, in rationals)."""
    P = [[Fraction(c) for c in p] for p in pts]
    tris = [cidx[i:i + 3] for i in range(0, len(cidx), 3)]
    normal = [cross(sub(P[t[1]], P[t[0]]), sub(P[t[2]], P[t[0]])) for t in tris]
    by_edge = {}
    for i, t in enumerate(tris):
        for b in range(3):
            by_edge.setdefault(frozenset((t[(b + 1) % 3], t[(b + 2) % 3])), []).append(i)
    flags = []
    for i, t in enumerate(tris):
        f = 0
        for b in range(3):
            other = [j for j in by_edge[frozenset((t[(b + 1) % 3], t[(b + 2) % 3]))] if j != i]
            flat = len(other) == 1 and all(
                dot(normal[i], sub(P[v], P[t[0]])) == 0 for v in tris[other[0]]) \
                and dot(normal[i], normal[other[0]]) > 0
            f |= 0 if flat else 1 << b
        flags.append(f)
    return flags


def build_tree(pts, cidx):
    """Pre-order nodes [axis, left, right, start, end, box, split] and the reference list."""
    tris = [[pts[c] for c in cidx[i:i + 3]] for i in range(0, len(cidx), 3)]
    nodes, refs = [], []

    def box(items):
        cs = [p for t in items for p in tris[t]]
        return ([min(p[k] for p in cs) for k in range(3)]
                + [max(p[k] for p in cs) for k in range(3)])

    def build(items):
        node = [0, -1, -1, 0, 0, box(items), 0.0]
        nodes.append(node)
        if len(items) < LEAF_TRIS:
            node[3] = len(refs)
            refs.extend(3 * t for t in items)
            node[4] = len(refs)
            return
        csum = {t: [sum(p[k] for p in tris[t]) for k in range(3)] for t in items}
        spread = [max(csum[t][k] for t in items) - min(csum[t][k] for t in items)
                  for k in range(3)]
        axis = spread.index(max(spread))
        items = sorted(items, key=lambda t: (csum[t][axis], t))
        half = len(items) // 2
        node[0] = axis
        node[6] = (csum[items[half - 1]][axis] + csum[items[half]][axis]) / 6
        node[3] = node[4] = 0
        node[1] = len(nodes)
        build(items[:half])
        node[2] = len(nodes)
        build(items[half:])

    build(list(range(len(tris))))
    return nodes, refs


def tree_payload(s):
    pts, cidx = s["targets"][0][1], s["cidx"]
    flags = edge_flags(pts, cidx)
    nodes, refs = build_tree(pts, cidx)
    out = cint(len(flags)) + bytes(flags)
    out += cint(len(refs)) + b"".join(cint(r) for r in refs)
    out += cint(len(nodes)) + b"".join(
        struct.pack("<B", n[0]) + b"".join(cint(v) for v in n[1:5]) for n in nodes)
    out += b"".join(struct.pack("<6f", *n[5]) for n in nodes)
    out += b"".join(struct.pack("<f", n[6]) for n in nodes)
    return out, len(nodes), len(flags)


def mesh14(surfaces, bones=(), bind=(), stored=()):
    """A ms14 file; stored = the blocks, as ("geometry" | "tree", surface), kept uncompressed."""
    assert len(bind) == len(bones)
    geos = [geometry_payload(s) for s in surfaces]
    trees = [tree_payload(s) for s in surfaces]
    allpts = [p for s in surfaces for p in s["targets"][0][1]]
    out = MS14 + cint(LEAF_TRIS) + struct.pack("<10f", *bounds(allpts))
    out += cint(len(bones)) + b"".join(cstr(n) + struct.pack("<h", p) for n, p in bones)
    out += cint(len(surfaces))
    for s in surfaces:
        out += cstr(s["name"]) + struct.pack("<BB", *s["lightmap"])
        out += cint(len(s["cidx"])) + cint(len(s["tidx"]))
        out += struct.pack("<10f", *bounds(s["targets"][0][1]))
        out += cint(len(s["targets"])) + b"".join(cstr(t[0]) + cint(len(t[1]))
                                                 for t in s["targets"])
    out += struct.pack("<q", sum(len(g) for g in geos) + sum(len(t[0]) for t in trees))
    out += MS14 + b"".join(struct.pack("<10f", *b) for b in bind)
    offsets = []
    for i, g in enumerate(geos):
        offsets.append(len(out))
        out += lz4_block(g, ("geometry", i) in stored)
    out += MS14
    for i, t in enumerate(trees):
        out += lz4_block(t[0], ("tree", i) in stored)
    out += MS14 + struct.pack("<%dq" % len(offsets), *offsets) + MS14
    esurf = []
    for s, (_, nodes, nflags) in zip(surfaces, trees):
        nxyz, ntan = len(s["targets"][0][1]), len(s["targets"][0][2])
        esurf.append({
            "name": s["name"], "targets": [t[0] for t in s["targets"]], "vertices": nxyz,
            "tangents": ntan, "weights": len(s["weights"]), "uv0": len(s["uv0"]),
            "uv1": len(s["uv1"]), "colors": len(s["colors"]),
            "coordinate_indices": {"count": len(s["cidx"]), "width": index_width(nxyz)},
            "triangle_indices": {"count": len(s["tidx"]), "width": index_width(ntan)},
            "lightmap": list(s["lightmap"]), "tree_nodes": nodes, "edge_flags": nflags})
    exp = {"version": "ms14", "bones": [{"name": n, "parent": p} for n, p in bones],
           "surfaces": esurf, "size": len(out)}
    return out, exp

# ---------------------------------------------------------------------------
# Writer side: .anim
# ---------------------------------------------------------------------------


EMPTY_BOUNDS = (1e9, 1e9, 1e9, -1e9, -1e9, -1e9, 0.0, 0.0, 0.0, -1.0)  # as in an10-arm.anim


def an10_animation(a):
    ts = [trs[0] for frame in a["frames"] for trs in frame]
    ss = [trs[2] for frame in a["frames"] for trs in frame]
    tmin = [f32(min(f32(v[k]) for v in ts)) for k in range(3)]
    tsize = [f32(f32(max(f32(v[k]) for v in ts) - tmin[k]) + 1.0) for k in range(3)]
    smin = [f32(min(f32(v[k]) for v in ss)) for k in range(3)]
    ssize = [f32(f32(max(f32(v[k]) for v in ss) - smin[k]) + 1.0) for k in range(3)]

    def quant(v, lo, size):
        q = int(f32(f32(f32(f32(v) - lo) / size) * 65535))
        assert 0 <= q <= 65535
        return struct.pack("<H", q)

    def fields(t, q, s):
        return ([quant(t[k], tmin[k], tsize[k]) for k in range(3)]
                + [struct.pack("<4h", *i16q(q))]
                + [quant(s[k], smin[k], ssize[k]) for k in range(3)])
    keys = masked_keys(a["frames"], fields)
    out = cint(len(a["bones"])) + struct.pack("<%dh" % len(a["bones"]), *a["bones"])
    out += struct.pack("<12f", *(tmin + tsize + smin + ssize))
    out += struct.pack("<B", a["flag"]) + cint(len(a["frames"])) + b"".join(keys)
    return out, anim_summary(a["name"], a["bones"], a["frames"], keys)


def bone_table(bones):
    return cint(len(bones)) + b"".join(cstr(n) + struct.pack("<h", p) for n, p in bones)


def an10(bones, bind, anims):
    assert len(bind) == len(bones)
    blocks = [an10_animation(a) for a in anims]
    out = b"an10" + struct.pack("<10f", *EMPTY_BOUNDS) + bone_table(bones)
    out += cint(len(anims)) + b"".join(cstr(a["name"]) for a in anims)
    out += b"an10" + b"".join(struct.pack("<10f", *b) for b in bind)
    out += b"".join(b for b, _ in blocks) + b"an10"
    return out, {"version": "an10", "bones": [{"name": n, "parent": p} for n, p in bones],
                 "animations": [e for _, e in blocks], "size": len(out)}


def an11(bones, bind, anim_bones, frames):
    """frames[f][k] = (mask, position, rotation, scale); bit 0 position f32[3], bit 1
    rotation f32[4], bit 2 scale f32[3]."""
    assert len(bind) == len(bones)
    keys = []
    for frame in frames:
        assert len(frame) == len(anim_bones)
        for mask, t, q, s in frame:
            assert not mask & ~7
            keys.append(bytes([mask]) + (struct.pack("<3f", *t) if mask & 1 else b"")
                        + (struct.pack("<4f", *q) if mask & 2 else b"")
                        + (struct.pack("<3f", *s) if mask & 4 else b""))
    out = b"an11" + bone_table(bones) + b"an11"
    out += b"".join(struct.pack("<10f", *b) for b in bind)
    out += cint(len(anim_bones)) + struct.pack("<%dh" % len(anim_bones), *anim_bones)
    out += cint(len(frames)) + b"".join(keys) + b"an11"
    return out, {"version": "an11", "bones": [{"name": n, "parent": p} for n, p in bones],
                 "animations": [anim_summary("", anim_bones, frames, keys)], "size": len(out)}


# Unit quaternions (x, y, z, w) from Pythagorean triples.
Q0 = (0.0, 0.0, 0.0, 1.0)
QA = (0.0, 0.0, 0.6, 0.8)
QB = (0.28, 0.0, 0.0, 0.96)
QC = (0.0, 5 / 13, 0.0, 12 / 13)
ONE = (1.0, 1.0, 1.0)


def fixtures():
    files = {}
    # One static mesh per version: one surface, one target, uv0 and uv1; colours in ms10 and ms13.
    files["ms10-static-box.mesh"] = mesh(b"ms10", [
        surface("box", box(), b"ms10", uv1=True, colors=True)])
    files["ms11-static-quad.mesh"] = mesh(b"ms11", [
        surface("plane", quad(), b"ms11", uv1=True)])
    files["ms12-static-quad.mesh"] = mesh(b"ms12", [
        surface("wall_mat", quad(z=0.5), b"ms12", lightmap=(1, 9), uv1=True)])
    files["ms13-static-quad.mesh"] = mesh(b"ms13", [
        surface("mesh_base", quad(x0=-1.0, s=2.0), b"ms13", lightmap=(0, 4), uv1=True,
                colors=True)])

    # Skinned ms11: 4 bones (four distinct influences need four bones); two roots (-1) and,
    # as in the real arm file, a bone whose parent comes after it. Weights per coordinate
    # vertex (4; the 6 triangle vertices have uv0) with 1, 2, 3 and 4 influences.
    bones = [("root", -1), ("hand", 2), ("arm", 0), ("prop", -1)]
    bind = [IDENTITY,
            (0.0, 1.5, 0.0, 0.0, 0.0, 0.6, 0.8, 1.0, 1.0, 1.0),
            (0.0, 0.75, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0),
            (-2.0, 0.25, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 2.0)]
    weights = [[(0, 65535)],
               [(2, 40000), (0, 25535)],
               [(2, 30000), (1, 20000), (0, 15535)],
               [(1, 32768), (2, 16384), (0, 8192), (3, 8191)]]
    files["ms11-skinned.mesh"] = mesh(b"ms11", [
        surface("skin", split_quad(), b"ms11", weights=weights)], bones, bind)

    # Two surfaces; the first has a base and two morph targets, the second only a base.
    lift = lambda k, i, p: (p[0], p[1], p[2] + 0.25 * k * (i % 2))
    files["ms12-morph.mesh"] = mesh(b"ms12", [
        surface("face", quad(), b"ms12", targets=("", "smile", "frown"), lightmap=(1, 2),
                morph=lift),
        surface("eyes", box(), b"ms12", targets=("base",), lightmap=(0, 0))])

    # 256 coordinate vertices (the first count that needs u16) and 258 triangle vertices (so
    # triangle indices 256 and 257 have a non-zero high byte). Compact: 4 triangles only;
    # most vertices are never used, which the format allows.
    grid = [((i % 16) * 0.5, (i // 16) * 0.5, (i % 3) * 0.125) for i in range(256)]
    t2c = [t % 256 for t in range(258)]
    tris = [(0, 1, 17), (253, 254, 255), (255, 256, 257), (257, 100, 200)]
    files["ms13-u16-indices.mesh"] = mesh(b"ms13", [
        surface("big", (grid, t2c, tris), b"ms13", lightmap=(0, 1))])

    # Mixed widths at both boundaries: 255 coordinate vertices (the last u8 count) and 256
    # triangle vertices (the first u16 count), so the two index arrays differ in width.
    grid = [((i % 16) * 0.5, (i // 16) * 0.5, -(i % 5) * 0.25) for i in range(255)]
    t2c = [t % 255 for t in range(256)]
    tris = [(0, 16, 1), (252, 253, 254), (254, 255, 17)]
    files["ms13-mixed-widths.mesh"] = mesh(b"ms13", [
        surface("mixed", (grid, t2c, tris), b"ms13", lightmap=(1, 0))])

    # Long names: bone 65 bytes (`81 01`), target 64 bytes (`80 01`), surface 8192 bytes
    # (`80 80 01`, the first 3-byte cint; an inner 7-bit group of zeros), and a second bone
    # of 63 bytes, which UNIGINE writes `bf 00` (one byte more than the fewest).
    bone = "bone_" + "abcdefghij" * 5 + "klmnopqrs"               # 64 chars + NUL = 65
    tgt = "target_" + "0123456789" * 5 + "abcdef"                  # 63 chars + NUL = 64
    surf = "surface_" + "".join("%04d," % i for i in range(1636)) + "xyz"  # 8191 + NUL = 8192
    assert (len(bone), len(tgt), len(surf)) == (64, 63, 8191)
    files["ms10-long-names.mesh"] = mesh(b"ms10", [
        surface(surf, quad(), b"ms10", targets=(tgt,), weights=[[(0, 65535)]] * 4)],
        [(bone, -1), ("b" * 62, 0)], [IDENTITY, IDENTITY])

    # ms14, docs/unigine-ms14.md. A static box as in the real ms14-box.mesh: 8 positions,
    # 24 tangents (one per corner of each face), uv0 and uv1, no weights, lightmap 1 / 3.
    files["ms14-static-box.mesh"] = mesh14([
        surface14("box", cuboid((0.0, 0.0, 0.0), (0.5, 0.5, 0.5)), lightmap=(1, 3),
                  uv1=True)])

    # Skinned ms14: 3 bones in a chain, a square tube of 3 segments (16 positions, 28
    # triangles, so triangle 21 is referenced as 63 = `bf 00` in the tree), weights of 1, 2,
    # 3 and 1 influences by ring.
    bones = [("root", -1), ("spine", 0), ("head", 1)]
    bind = [IDENTITY, (0.0, 0.75, 0.0) + Q0 + ONE, (0.0, 0.75, 0.0) + QA + ONE]
    ring_weights = [[(0, 65535)], [(0, 40000), (1, 25535)],
                    [(1, 30000), (2, 20000), (0, 15535)], [(2, 65535)]]
    geo = tube(0.25, (0.0, 0.5, 1.0, 1.5))
    assert len(geo[2]) == 28 and len(geo[0]) == 16
    files["ms14-skinned.mesh"] = mesh14([
        surface14("skin", geo, lightmap=(0, 0), weights=[ring_weights[i // 4]
                                                          for i in range(16)])], bones, bind)

    # Two surfaces: a floor quad with colours (one leaf node) and a box whose name has 62
    # characters (length 63 = `bf 00`); the box's geometry block is stored, not LZ4.
    floor = solid([(-1.0, -0.5, -1.0), (1.0, -0.5, -1.0), (1.0, -0.5, 1.0), (-1.0, -0.5, 1.0)],
                  [(0, 1, 2, 3)], (0.0, 0.0, 0.0))
    crate = "crate_" + "0123456789" * 5 + "abcdef"
    assert len(crate) == 62
    files["ms14-two-surfaces.mesh"] = mesh14([
        surface14("floor", floor, lightmap=(0, 2), colors=True),
        surface14(crate, cuboid((0.25, 0.0, 0.25), (0.25, 0.5, 0.25)), lightmap=(1, 5),
                  uv1=True)], stored=[("geometry", 1)])

    # ms11 with one embedded animation (docs/unigine-anim.md): 3 bones, 2 frames; frame 1
    # keys 0x05 (translation x, z), 0x08 (rotation), 0x00.
    bones = [("root", -1), ("arm", 0), ("hand", 1)]
    bind = [IDENTITY, (0.0, 0.5, 0.0) + Q0 + ONE, (0.0, 0.5, 0.0) + QA + ONE]
    weights = [[(0, 65535)], [(0, 40000), (1, 25535)], [(1, 30000), (2, 20000), (0, 15535)],
               [(2, 65535)]]
    idle = {"name": "idle", "bones": [0, 1, 2], "flag": 0x7F, "frames": [
        [((0.0, 0.0, 0.0), Q0, ONE), ((0.0, 0.5, 0.0), Q0, ONE), ((0.0, 0.5, 0.0), QA, ONE)],
        [((0.25, 0.0, -0.125), Q0, ONE), ((0.0, 0.5, 0.0), QB, ONE),
         ((0.0, 0.5, 0.0), QA, ONE)]]}
    files["ms11-embedded-anim.mesh"] = mesh(b"ms11", [
        surface("skin", split_quad(), b"ms11", weights=weights)], bones, bind, [idle])

    # an10: two named animations. walk: 3 bones, 3 frames, masks 0x7f; 0x05, 0x08, 0x00;
    # 0x50, 0x00, 0x08. wave: bones 2, 1 (not in skeleton order), 2 frames, 0x0a and 0x20.
    bones = [("root", -1), ("spine", 0), ("head", 1)]
    bind = [IDENTITY, (0.0, 1.0, 0.0) + Q0 + ONE, (0.0, 0.5, 0.0) + Q0 + ONE]
    walk = {"name": "walk", "bones": [0, 1, 2], "flag": 0x7F, "frames": [
        [((0.0, 0.0, 0.0), Q0, ONE), ((0.0, 1.0, 0.0), Q0, ONE), ((0.0, 0.5, 0.0), Q0, ONE)],
        [((0.25, 0.0, -0.5), Q0, ONE), ((0.0, 1.0, 0.0), QA, ONE), ((0.0, 0.5, 0.0), Q0, ONE)],
        [((0.25, 0.0, -0.5), Q0, (1.25, 1.0, 0.75)), ((0.0, 1.0, 0.0), QA, ONE),
         ((0.0, 0.5, 0.0), QB, ONE)]]}
    wave = {"name": "wave", "bones": [2, 1], "flag": 0x7F, "frames": [
        [((0.0, 0.5, 0.0), QC, ONE), ((0.0, 1.0, 0.0), Q0, ONE)],
        [((0.0, 0.75, 0.0), QA, ONE), ((0.0, 1.0, 0.0), Q0, (1.0, 1.5, 1.0))]]}
    files["an10-two-clips.anim"] = an10(bones, bind, [walk, wave])

    # an11: one unnamed clip, 3 bones (a parent after its child), 2 frames, masks 7, 3, 1
    # then 0, 1, 3.
    bones = [("hip", -1), ("foot", 2), ("knee", 0)]
    bind = [(0.0, 1.0, 0.0) + Q0 + ONE, (0.0, -0.5, 0.125) + Q0 + ONE,
            (0.0, -0.5, 0.0) + Q0 + ONE]
    files["an11-clip.anim"] = an11(bones, bind, [0, 1, 2], [
        [(7, (0.0, 1.0, 0.0), QB, (1.5, 1.5, 1.5)), (3, (0.0, -0.5, 0.125), QA, ONE),
         (1, (0.0, -0.5, 0.0), Q0, ONE)],
        [(0, None, None, None), (1, (0.0, -0.5, 0.25), None, None),
         (3, (0.0, -0.5, 0.0), QC, None)]])
    return files


# ---------------------------------------------------------------------------
# Reader side (independent of the writer above: it shares no function with it)
# ---------------------------------------------------------------------------


class ReadError(Exception):
    pass


class Reader:
    def __init__(self, data):
        self.d, self.p = data, 0
        self.noncanonical = []  # offsets of cints not in the form UNIGINE's writer makes

    def take(self, n, what):
        if n < 0 or self.p + n > len(self.d):
            raise ReadError("offset %d: %s needs %d bytes, %d left"
                            % (self.p, what, n, len(self.d) - self.p))
        b = self.d[self.p:self.p + n]
        self.p += n
        return b

    def u(self, fmt, what):
        return struct.unpack("<" + fmt, self.take(struct.calcsize("<" + fmt), what))

    def int2(self, what):
        start = self.p
        b = self.take(1, what)[0]
        mag, neg, shift, more, nbytes = b & 0x3F, b & 0x40, 6, b & 0x80, 1
        while more:
            b = self.take(1, what)[0]
            mag |= (b & 0x7F) << shift
            shift += 7
            more = b & 0x80
            nbytes += 1
        if cint(-mag if neg else mag) != self.d[start:self.p] or (neg and mag == 0):
            self.noncanonical.append(start)
        return -mag if neg else mag

    def count(self, what, item_size=1):
        start = self.p
        n = self.int2(what)
        if n < 0 or n * item_size > len(self.d) - self.p:
            raise ReadError("offset %d: %s = %d does not fit the %d bytes left"
                            % (start, what, n, len(self.d) - self.p))
        return n

    def string(self, what):
        n = self.count(what + " length")
        s = self.take(n, what)
        if n == 0 or s[-1] != 0 or 0 in s[:-1]:
            raise ReadError("offset %d: %s is not one NUL-terminated string" % (self.p - n, what))
        return s[:-1].decode("latin-1")


def read_embedded_animation(r, nb, name):
    """One animation block of a ms10-ms12 mesh (docs/unigine-anim.md): cint N; i16[N] bones;
    u8 flag; cint F; F x N keys frame-major, each a u8 mask (an10 bits) then f32 translation
    x/y/z (bits 0-2), i16[4] rotation (bit 3), f32 scale x/y/z (bits 4-6)."""
    n = r.count("animation bone count", 2)
    idx = r.u("%dh" % n, "animation bone indices")
    flag = r.u("B", "animation flag")[0]
    frames = r.count("animation frame count")
    masks, rots = [], []
    for _ in range(frames * n):
        mask = r.u("B", "key mask")[0]
        if mask & 0x80:
            raise ReadError("offset %d: key mask %#x has bit 7 set" % (r.p - 1, mask))
        r.u("%df" % bin(mask & 0x07).count("1"), "key translation")
        if mask & 0x08:
            rots.append(r.u("4h", "key rotation"))
        r.u("%df" % bin(mask & 0x70).count("1"), "key scale")
        masks.append(mask)
    return ({"name": name, "bones": n, "frames": frames, "keys": sum(1 for m in masks if m)},
            {"indices": idx, "flag": flag, "masks": masks, "rotations": rots, "nb": nb})


def read_mesh(data):
    """Walk a ms10-ms13 file to its last byte. Returns (summary like expected.json, details,
    end offset)."""
    r = Reader(data)
    magic = r.take(4, "magic")
    if magic not in VERSIONS:
        raise ReadError("offset 0: magic %r is not ms10..ms13" % magic)
    ver = int(magic[2:])
    r.u("10f", "mesh bounds")
    nb = r.count("bone count", 3)
    bones = [{"name": r.string("bone %d name" % i), "parent": r.u("h", "bone parent")[0]}
             for i in range(nb)]
    anims = None
    if ver <= 12:
        anims = [r.string("animation name") for _ in range(r.count("animation count"))]
    heads = []
    for i in range(r.count("surface count", 43)):
        h = {"name": r.string("surface %d name" % i)}
        if ver >= 12:
            h["lightmap"] = list(r.u("BB", "lightmap channel, resolution"))
        r.u("10f", "surface bounds")
        h["targets"] = [r.string("target name") for _ in range(r.count("target count", 1))]
        heads.append(h)
    if r.take(4, "magic after surface headers") != magic:
        raise ReadError("offset %d: second magic missing" % (r.p - 4))
    bind = [r.u("10f", "bind pose") for _ in range(nb)]
    summary = {"version": magic.decode(), "bones": bones}
    if anims is not None:
        summary["animations"] = len(anims)
    details = {"bind": bind, "anim_names": anims, "noncanonical": r.noncanonical,
               "surfaces": [], "animations": []}
    if anims:
        details["animations_at"] = r.p
        walked = [read_embedded_animation(r, nb, a) for a in anims]
        summary["embedded_animations"] = [s for s, _ in walked]
        details["animations"] = [d for _, d in walked]
        details["anim_end"] = r.p
    tsize = 7 if ver == 10 else 8
    surfs = []
    for h in heads:
        d = {"targets": []}
        for t in h["targets"]:
            nxyz = r.count("xyz count", 12)
            xyz = r.u("%df" % (3 * nxyz), "xyz")
            ntan = r.count("tangent count", tsize)
            tans = r.take(ntan * tsize, "tangents")
            d["targets"].append((nxyz, ntan, xyz, tans))
        weights = []
        for _ in range(r.count("weight count", 1)):
            k = r.u("B", "influence count")[0]
            weights.append(r.u("hH" * k, "influences"))
        nuv0 = r.count("uv0 count", 8)
        r.take(8 * nuv0, "uv0")
        nuv1 = r.count("uv1 count", 8)
        r.take(8 * nuv1, "uv1")
        ncol = r.count("colour count", 4)
        r.take(4 * ncol, "colours")
        nxyz0, ntan0 = (d["targets"][0][:2]) if d["targets"] else (0, 0)
        cw = 1 if nxyz0 <= 255 else 2 if nxyz0 <= 65535 else 4
        tw = 1 if ntan0 <= 255 else 2 if ntan0 <= 65535 else 4
        code = {1: "B", 2: "H", 4: "I"}
        nci = r.count("coordinate index count", cw)
        cidx = r.u(code[cw] * nci, "coordinate indices")
        nti = r.count("triangle index count", tw)
        tidx = r.u(code[tw] * nti, "triangle indices")
        s = {"name": h["name"], "targets": h["targets"], "vertices": nxyz0, "tangents": ntan0,
             "weights": len(weights), "uv0": nuv0, "uv1": nuv1, "colors": ncol,
             "coordinate_indices": {"count": nci, "width": cw},
             "triangle_indices": {"count": nti, "width": tw}}
        if "lightmap" in h:
            s["lightmap"] = h["lightmap"]
        surfs.append(s)
        d.update(weights=weights, cidx=cidx, tidx=tidx)
        details["surfaces"].append(d)
    if r.take(4, "final magic") != magic:
        raise ReadError("offset %d: final magic missing" % (r.p - 4))
    if r.p != len(data):
        raise ReadError("offset %d: %d bytes after the final magic" % (r.p, len(data) - r.p))
    summary.update(surfaces=surfs, size=len(data))
    return summary, details, r.p


def lz4_decompress(src, size):
    """A general LZ4 raw-block decoder (sequences of token, literal length, literals, u16
    offset, match length; the last sequence has literals only). Returns (bytes, sequences,
    matches); checks the end-of-block rules (the last 5 bytes are literals, the last match
    starts at least 12 bytes before the end) and that exactly size bytes come out."""
    out, p, seqs, matches = bytearray(), 0, 0, 0

    def length(n, what):
        nonlocal p
        if n == 15:
            while True:
                if p >= len(src):
                    raise ReadError("LZ4: block ends inside a %s length" % what)
                b = src[p]
                p += 1
                n += b
                if b != 255:
                    break
        return n

    while True:
        if p >= len(src):
            raise ReadError("LZ4: block ends before its last sequence")
        token = src[p]
        p += 1
        n = length(token >> 4, "literal")
        if p + n > len(src):
            raise ReadError("LZ4: %d literals, %d bytes left" % (n, len(src) - p))
        out += src[p:p + n]
        p += n
        seqs += 1
        if p == len(src):
            break
        if p + 2 > len(src):
            raise ReadError("LZ4: block ends inside a match offset")
        off = src[p] | src[p + 1] << 8
        p += 2
        if off == 0 or off > len(out):
            raise ReadError("LZ4: match offset %d with %d bytes out" % (off, len(out)))
        if len(out) > size - 12:
            raise ReadError("LZ4: a match starts %d bytes before the end" % (size - len(out)))
        m = length(token & 15, "match") + 4
        for _ in range(m):
            out.append(out[-off])
        matches += 1
        if len(out) > size - 5:
            raise ReadError("LZ4: a match ends %d bytes before the end" % (size - len(out)))
    if len(out) != size:
        raise ReadError("LZ4: %d bytes out, size says %d" % (len(out), size))
    return bytes(out), seqs, matches


def read_block(r, what):
    """u64 size, u64 csize, then csize bytes: stored if csize == size, else LZ4."""
    at = r.p
    size, csize = r.u("QQ", what + " size, csize")
    data = r.take(csize, what + " data")
    if csize == size:
        return data, {"at": at, "size": size, "csize": csize, "stored": True}
    payload, seqs, matches = lz4_decompress(data, size)
    return payload, {"at": at, "size": size, "csize": csize, "stored": False,
                     "sequences": seqs, "matches": matches}


def read_ms14(data):
    """Walk a ms14 file (docs/unigine-ms14.md) and every payload in it to the last byte."""
    r = Reader(data)
    if r.take(4, "magic") != b"ms14":
        raise ReadError("offset 0: not ms14")
    leaf = r.int2("tree leaf triangles")
    mbounds = r.u("10f", "mesh bounds")
    nb = r.count("bone count", 3)
    bones = [{"name": r.string("bone %d name" % i), "parent": r.u("h", "bone parent")[0]}
             for i in range(nb)]
    heads = []
    for i in range(r.count("surface count", 48)):
        h = {"name": r.string("surface %d name" % i),
             "lightmap": list(r.u("BB", "lightmap channel, resolution")),
             "ci": r.count("coordinate index count"), "ti": r.count("triangle index count"),
             "bounds": r.u("10f", "surface bounds")}
        h["targets"] = [(r.string("target name"), r.count("target vertex count", 12))
                        for _ in range(r.count("target count", 2))]
        if not h["targets"]:
            raise ReadError("surface %d has no morph target" % i)
        heads.append(h)
    mem = r.u("q", "mem_estimate")[0]
    if r.take(4, "magic after surface headers") != b"ms14":
        raise ReadError("offset %d: second magic missing" % (r.p - 4))
    bind = [r.u("10f", "bind pose") for _ in range(nb)]
    geo = [read_block(r, "geometry block %d" % i) for i in range(len(heads))]
    if r.take(4, "magic after geometry blocks") != b"ms14":
        raise ReadError("offset %d: magic after the geometry blocks missing" % (r.p - 4))
    trees = [read_block(r, "tree block %d" % i) for i in range(len(heads))]
    if r.take(4, "magic after tree blocks") != b"ms14":
        raise ReadError("offset %d: magic after the tree blocks missing" % (r.p - 4))
    offsets = list(r.u("%dq" % len(heads), "surface offsets"))
    if r.take(4, "final magic") != b"ms14":
        raise ReadError("offset %d: final magic missing" % (r.p - 4))
    if r.p != len(data):
        raise ReadError("offset %d: %d bytes after the final magic" % (r.p, len(data) - r.p))
    if offsets != [g[1]["at"] for g in geo]:
        raise ReadError("offset table %s, geometry blocks at %s"
                        % (offsets, [g[1]["at"] for g in geo]))
    noncanonical = list(r.noncanonical)
    surfs, dsurfs = [], []
    for i, (h, (gp, ginfo), (tp, tinfo)) in enumerate(zip(heads, geo, trees)):
        g = Reader(gp)
        d = {"targets": [], "blocks": [ginfo, tinfo], "bounds": h["bounds"]}
        for name, n in h["targets"]:
            xyz = g.u("%df" % (3 * n), "positions")
            ntan = g.count("tangent count", 8)
            tans = g.u("%dh" % (4 * ntan), "tangents")
            d["targets"].append((n, ntan, xyz, tans))
        weights = []
        for _ in range(g.count("weight count", 1)):
            k = g.u("B", "influence count")[0]
            weights.append(g.u("hH" * k, "influences"))
        nuv0 = g.count("uv0 count", 8)
        g.take(8 * nuv0, "uv0")
        nuv1 = g.count("uv1 count", 8)
        g.take(8 * nuv1, "uv1")
        ncol = g.count("colour count", 4)
        g.take(4 * ncol, "colours")
        n0, t0 = d["targets"][0][:2]
        cw = 1 if n0 < 256 else 2 if n0 < 65536 else 4
        tw = 1 if t0 < 256 else 2 if t0 < 65536 else 4
        code = {1: "B", 2: "H", 4: "I"}
        cidx = g.u(code[cw] * h["ci"], "coordinate indices")
        tidx = g.u(code[tw] * h["ti"], "triangle indices")
        if g.p != len(gp):
            raise ReadError("surface %d geometry: %d of %d bytes used" % (i, g.p, len(gp)))
        t = Reader(tp)
        nf = t.count("edge-flag count")
        flags = t.take(nf, "edge flags")
        nr = t.count("triangle-reference count")
        refs = [t.int2("triangle reference") for _ in range(nr)]
        k = t.count("node count", 5)
        nodes = [(t.u("B", "node axis")[0],) + tuple(t.int2("node link") for _ in range(4))
                 for _ in range(k)]
        boxes = [t.u("6f", "node box") for _ in range(k)]
        splits = t.u("%df" % k, "node splits")
        if t.p != len(tp):
            raise ReadError("surface %d tree: %d of %d bytes used" % (i, t.p, len(tp)))
        noncanonical += [("geometry", i, o) for o in g.noncanonical]
        noncanonical += [("tree", i, o) for o in t.noncanonical]
        surfs.append({
            "name": h["name"], "targets": [n for n, _ in h["targets"]], "vertices": n0,
            "tangents": t0, "weights": len(weights), "uv0": nuv0, "uv1": nuv1, "colors": ncol,
            "coordinate_indices": {"count": h["ci"], "width": cw},
            "triangle_indices": {"count": h["ti"], "width": tw},
            "lightmap": h["lightmap"], "tree_nodes": k, "edge_flags": nf})
        d.update(weights=weights, cidx=cidx, tidx=tidx, flags=flags, refs=refs, nodes=nodes,
                 boxes=boxes, splits=splits)
        dsurfs.append(d)
    summary = {"version": "ms14", "bones": bones, "surfaces": surfs, "size": len(data)}
    details = {"bind": bind, "leaf_tris": leaf, "mem_estimate": mem, "bounds": mbounds,
               "noncanonical": noncanonical, "surfaces": dsurfs, "animations": []}
    return summary, details, r.p


def read_anim(data):
    """Walk an an10 or an11 file (docs/unigine-anim.md) to the last byte."""
    r = Reader(data)
    magic = r.take(4, "magic")
    if magic not in (b"an10", b"an11"):
        raise ReadError("offset 0: magic %r is not an10 / an11" % magic)
    if magic == b"an10":
        r.u("10f", "bounds")
    nb = r.count("bone count", 3)
    bones = [{"name": r.string("bone %d name" % i), "parent": r.u("h", "bone parent")[0]}
             for i in range(nb)]
    names = [r.string("animation name") for _ in range(r.count("animation count"))] \
        if magic == b"an10" else [""]
    if r.take(4, "second magic") != magic:
        raise ReadError("offset %d: second magic missing" % (r.p - 4))
    bind = [r.u("10f", "bind pose") for _ in range(nb)]
    anims, danims = [], []
    for name in names:
        n = r.count("animated-bone count", 2)
        idx = r.u("%dh" % n, "animated bones")
        d = {"indices": idx, "masks": [], "rotations": [], "nb": nb}
        if magic == b"an10":
            d["boxes"] = r.u("12f", "translation / scale boxes")
            d["flag"] = r.u("B", "animation flag")[0]
        frames = r.count("frame count")
        for _ in range(frames * n):
            mask = r.u("B", "key mask")[0]
            if magic == b"an10":
                if mask & 0x80:
                    raise ReadError("offset %d: key mask %#x has bit 7" % (r.p - 1, mask))
                r.u("%dH" % bin(mask & 0x07).count("1"), "key translation")
                if mask & 0x08:
                    d["rotations"].append(r.u("4h", "key rotation"))
                r.u("%dH" % bin(mask & 0x70).count("1"), "key scale")
            else:
                if mask & ~7:
                    raise ReadError("offset %d: an11 key mask %#x" % (r.p - 1, mask))
                if mask & 1:
                    r.u("3f", "key position")
                if mask & 2:
                    d["rotations"].append(r.u("4f", "key rotation"))
                if mask & 4:
                    r.u("3f", "key scale")
            d["masks"].append(mask)
        anims.append({"name": name, "bones": n, "frames": frames,
                      "keys": sum(1 for m in d["masks"] if m)})
        danims.append(d)
    if r.take(4, "final magic") != magic:
        raise ReadError("offset %d: final magic missing" % (r.p - 4))
    if r.p != len(data):
        raise ReadError("offset %d: %d bytes after the final magic" % (r.p, len(data) - r.p))
    summary = {"version": magic.decode(), "bones": bones, "animations": anims,
               "size": len(data)}
    return summary, {"bind": bind, "noncanonical": r.noncanonical, "surfaces": [],
                     "animations": danims}, r.p


def read_any(data):
    if data[:2] == b"an":
        return read_anim(data)
    if data[:4] == b"ms14":
        return read_ms14(data)
    return read_mesh(data)


def tree_relations(n, leaf_tris, pts, d):
    """The ms14 tree and edge flags against the docs; a list of what does not hold."""
    bad = []
    ntri = len(d["cidx"]) // 3
    if len(d["flags"]) != ntri or len(d["refs"]) != ntri:
        bad.append("%s: %d edge flags, %d references, %d triangles"
                   % (n, len(d["flags"]), len(d["refs"]), ntri))
        return bad
    if any(f & ~7 for f in d["flags"]):
        bad.append("%s: edge flag with bits 3-7" % n)
    if sorted(d["refs"]) != list(range(0, 3 * ntri, 3)):
        bad.append("%s: references are not a permutation of 0, 3, ..., 3(N-1)" % n)
        return bad
    corners = [pts[c] for c in d["cidx"]]
    nodes, boxes, splits = d["nodes"], d["boxes"], d["splits"]
    state = {"next": 0, "cursor": 0}
    sizes, tri_count = {}, {}

    def visit(i):
        """Pre-order walk from node i; returns the triangle starts under it."""
        if i != state["next"] or i >= len(nodes):
            raise ValueError("node %d out of pre-order (expected %d)" % (i, state["next"]))
        state["next"] += 1
        axis, left, right, start, end = nodes[i]
        if left == right == -1:
            if axis != 0 or splits[i] != 0 or start != state["cursor"] or not start < end:
                raise ValueError("leaf %d: axis %d split %r range [%d, %d) at %d"
                                 % (i, axis, splits[i], start, end, state["cursor"]))
            state["cursor"] = end
            got = d["refs"][start:end]
        else:
            if axis not in (0, 1, 2) or start or end or left != i + 1:
                raise ValueError("inner node %d: %r" % (i, nodes[i]))
            got = visit(left)
            if right != state["next"]:
                raise ValueError("node %d: right %d, expected %d" % (i, right, state["next"]))
            got = got + visit(right)
            lo, hi = boxes[left][axis], boxes[right][3 + axis]
            if not lo <= splits[i] <= hi:
                raise ValueError("node %d: split %r outside [%r, %r]" % (i, splits[i], lo, hi))
        ps = [corners[s + c] for s in got for c in range(3)]
        exact = tuple(min(p[k] for p in ps) for k in range(3)) + \
            tuple(max(p[k] for p in ps) for k in range(3))
        if exact != boxes[i]:
            raise ValueError("node %d: box %r, its triangles span %r" % (i, boxes[i], exact))
        tri_count[i] = len(got)
        return got

    try:
        visit(0)
        if state["next"] != len(nodes) or state["cursor"] != ntri:
            raise ValueError("%d of %d nodes, %d of %d references reached"
                             % (state["next"], len(nodes), state["cursor"], ntri))
        if boxes[0] != tuple(d["bounds"][:6]):
            raise ValueError("root box %r, surface bbox %r" % (boxes[0], d["bounds"][:6]))
    except (ValueError, IndexError) as e:
        bad.append("%s: tree: %s" % (n, e))
        return bad
    leaves = [tri_count[i] for i, x in enumerate(nodes) if x[1] == -1]
    inner = [tri_count[i] for i, x in enumerate(nodes) if x[1] != -1]
    if max(leaves) >= leaf_tris or (inner and min(inner) < leaf_tris):
        bad.append("%s: leaves hold %d-%d triangles, inner nodes %s (leaf size %d)"
                   % (n, min(leaves), max(leaves), min(inner) if inner else "-", leaf_tris))
    # Edge flags: bit b clear exactly when the one triangle across the edge opposite corner
    # b lies in the same plane, facing the same way. Two triangles sharing an edge are
    # coplanar when their unit normals agree; the real capsule's float positions need a
    # tolerance: its clear bits have normals within cos 0.9999997, its set bits 0.9976 apart.
    tris = [tuple(d["cidx"][3 * t:3 * t + 3]) for t in range(ntri)]

    def unit_normal(tri):
        a, b, c = (pts[v] for v in tri)
        u = [b[k] - a[k] for k in range(3)]
        v = [c[k] - a[k] for k in range(3)]
        nv = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]]
        length = math.sqrt(sum(x * x for x in nv))
        return [x / length for x in nv] if length else nv
    normals = [unit_normal(t) for t in tris]
    edges = {}
    for t, tri in enumerate(tris):
        for b in range(3):
            edges.setdefault(tuple(sorted((tri[(b + 1) % 3], tri[(b + 2) % 3]))), []).append(t)
    wrong = 0
    for t, tri in enumerate(tris):
        for b in range(3):
            nb = [u for u in edges[tuple(sorted((tri[(b + 1) % 3], tri[(b + 2) % 3])))] if u != t]
            flat = len(nb) == 1 and sum(normals[t][k] * normals[nb[0]][k]
                                        for k in range(3)) > 0.99999
            if bool(d["flags"][t] >> b & 1) == flat:
                wrong += 1
    if wrong:
        bad.append("%s: %d of %d edge bits disagree with 'clear = coplanar neighbour'"
                   % (n, wrong, 3 * ntri))
    return bad


def anim_relations(summary, details):
    bad = []
    for a, d in zip(summary.get("animations", []) if isinstance(summary.get("animations"), list)
                    else summary.get("embedded_animations", []), details["animations"]):
        n = a["name"] or "(unnamed)"
        idx = d["indices"]
        if len(set(idx)) != len(idx) or any(not 0 <= i < d["nb"] for i in idx):
            bad.append("%s: animated bones %r" % (n, idx))
        if a["frames"] and summary["version"] != "an11" \
                and any(m != 0x7F for m in d["masks"][:a["bones"]]):
            bad.append("%s: frame 0 does not store everything" % n)
        for q in d["rotations"]:
            s = [c / 32767 for c in q] if summary["version"] != "an11" else q
            if abs(math.sqrt(sum(c * c for c in s)) - 1) > 1e-3:
                bad.append("%s: rotation %r is not a unit quaternion" % (n, q))
                break
    return bad


def relations(summary, details):
    """What the README's conventions promise; a list of the ones that do not hold."""
    bad = []
    nb = len(summary["bones"])
    for i, b in enumerate(summary["bones"]):
        if not (b["parent"] == -1 or 0 <= b["parent"] < nb) or b["parent"] == i:
            bad.append("bone %d parent %d" % (i, b["parent"]))
    bad += anim_relations(summary, details)
    for s, d in zip(summary.get("surfaces", []), details["surfaces"]):
        n = s["name"][:20]
        if any(t[:2] != d["targets"][0][:2] for t in d["targets"]):
            bad.append("%s: target counts differ" % n)
        if s["weights"] not in (0, s["vertices"]):
            bad.append("%s: weights %d != vertices %d" % (n, s["weights"], s["vertices"]))
        for w in d["weights"]:
            bones = w[0::2]
            if not 1 <= len(bones) <= 4 or len(set(bones)) != len(bones) \
                    or any(not 0 <= b < nb for b in bones):
                bad.append("%s: weight %r" % (n, w))
                break
        sums = [sum(w[1::2]) for w in d["weights"] if sum(w[1::2]) != 65535]
        if sums:
            bad.append("%s: %d weight sums != 65535 (%d..%d)" % (n, len(sums), min(sums), max(sums)))
        for key in ("uv0", "uv1", "colors"):
            if s[key] not in (0, s["tangents"]):
                bad.append("%s: %s %d != tangents %d" % (n, key, s[key], s["tangents"]))
        ci, ti = d["cidx"], d["tidx"]
        if len(ci) != len(ti) or len(ti) % 3:
            bad.append("%s: index counts %d, %d" % (n, len(ci), len(ti)))
        if any(c >= s["vertices"] for c in ci) or any(t >= s["tangents"] for t in ti):
            bad.append("%s: index out of range" % n)
        t2c = {}
        for c, t in zip(ci, ti):
            if t2c.setdefault(t, c) != c:
                bad.append("%s: triangle vertex %d maps to coordinate vertices %d and %d"
                           % (n, t, t2c[t], c))
                break
        if summary["version"] == "ms14":
            xyz = d["targets"][0][2]
            pts = [tuple(xyz[3 * v:3 * v + 3]) for v in range(len(xyz) // 3)]
            box = tuple(min(p[k] for p in pts) for k in range(3)) + \
                tuple(max(p[k] for p in pts) for k in range(3))
            if box != tuple(d["bounds"][:6]):
                bad.append("%s: surface bbox %r, positions span %r" % (n, d["bounds"][:6], box))
            tans = d["targets"][0][3]
            off = max(abs(math.sqrt(sum((c / 32767) ** 2 for c in tans[4 * v:4 * v + 4])) - 1)
                      for v in range(len(tans) // 4))
            if off > 1e-4:
                bad.append("%s: a tangent quaternion is %.2g off unit length" % (n, off))
            bad += tree_relations(n, details["leaf_tris"], pts, d)
    if summary["version"] == "ms14":
        boxes = [d["bounds"][:6] for d in details["surfaces"]]
        union = tuple(min(b[k] for b in boxes) for k in range(3)) + \
            tuple(max(b[3 + k] for b in boxes) for k in range(3))
        if union != tuple(details["bounds"][:6]):
            bad.append("mesh bbox %r, surfaces span %r" % (details["bounds"][:6], union))
    return bad


# ---------------------------------------------------------------------------
# Check and write
# ---------------------------------------------------------------------------


def check_cint():
    """The notes' examples, decoded by the reader and encoded by the writer."""
    ok = True
    for hexs, v in (("8412", 1156), ("8101", 65), ("41", -1), ("00", 0), ("3e", 62),
                    ("bf00", 63), ("8001", 64), ("bf7e", 8127), ("827f", 8130), ("bf7f", 8191),
                    ("808001", 8192), ("bfff7f", 1048575), ("80808001", 1048576), ("ff00", -63)):
        r = Reader(bytes.fromhex(hexs))
        got = r.int2("cint")
        ok &= got == v and r.p == len(r.d) and not r.noncanonical and cint(v).hex() == hexs
    print("%s cint examples (84 12 = 1156, 81 01 = 65, 41 = -1, ...)" % ("ok  " if ok else "FAIL"))
    return ok


def describe(summary, details):
    """One line about what the reader found."""
    if summary["version"].startswith("an"):
        return "; ".join(
            "%s: %d bones x %d frames, %d keys with a mask (masks %s)"
            % (a["name"] or "(unnamed)", a["bones"], a["frames"], a["keys"],
               " ".join("%#04x x%d" % (m, d["masks"].count(m)) for m in sorted(set(d["masks"]))))
            for a, d in zip(summary["animations"], details["animations"]))
    parts = []
    if summary.get("embedded_animations"):
        parts.append("; ".join(
            "embedded animation %s at %d: %d bones x %d frames, masks %s"
            % (a["name"], details["animations_at"], a["bones"], a["frames"],
               " ".join("%#04x x%d" % (m, d["masks"].count(m)) for m in sorted(set(d["masks"]))))
            for a, d in zip(summary["embedded_animations"], details["animations"])))
    for x, d in zip(summary["surfaces"], details["surfaces"]):
        line = "%s: xyz %d tan %d w %d uv %d/%d col %d idx %d(u%d)/%d(u%d)" % (
            x["name"][:20], x["vertices"], x["tangents"], x["weights"], x["uv0"], x["uv1"],
            x["colors"], x["coordinate_indices"]["count"], 8 * x["coordinate_indices"]["width"],
            x["triangle_indices"]["count"], 8 * x["triangle_indices"]["width"])
        if "tree_nodes" in x:
            leaves = sum(1 for nd in d["nodes"] if nd[1] == -1)
            line += ", tree %d nodes (%d leaves), %d edge flags, blocks %s" % (
                x["tree_nodes"], leaves, x["edge_flags"], " + ".join(
                    "%d/%d %s" % (b["size"], b["csize"], "stored" if b["stored"] else
                                  "lz4 %d seq %d matches" % (b["sequences"], b["matches"]))
                    for b in d["blocks"]))
        parts.append(line)
    return "; ".join(parts)


def walk_corpus():
    """Walk the real files from the first to the last byte, if they are there."""
    if not os.path.isdir(CORPUS):
        print("note: %s not found, real files not walked" % CORPUS)
        return True
    ok = True
    for name in CORPUS_FILES:
        path = os.path.join(CORPUS, name)
        if not os.path.exists(path):
            print("note: %s missing, skipped" % name)
            continue
        data = open(path, "rb").read()
        try:
            summary, details, end = read_any(data)
        except ReadError as e:
            print("FAIL corpus %s: %s" % (name, e))
            ok = False
            continue
        tail = ", %d cints not in UNIGINE's form" % len(details["noncanonical"]) \
            if details["noncanonical"] else ""
        if summary["version"] == "ms14":
            tail += ", leaf size %d, mem_estimate %d" % (details["leaf_tris"],
                                                         details["mem_estimate"])
        bad = relations(summary, details)
        print("ok   corpus %-26s %d/%d bytes, %s%s%s"
              % (name, end, len(data), describe(summary, details), tail,
                 "; differs from fixture conventions: " + ", ".join(bad) if bad else ""))
    return ok


def check():
    files = fixtures()
    expected = json.load(open(os.path.join(OUT, "expected.json")))
    ok = check_cint()
    on_disk = sorted(f for f in os.listdir(OUT) if f.endswith((".mesh", ".anim")))
    if on_disk != sorted(files) or sorted(expected) != sorted(files):
        print("FAIL file list: on disk %s, expected.json %s" % (on_disk, sorted(expected)))
        ok = False
    stored, has63 = [], []
    for name, (data, e) in sorted(files.items()):
        path = os.path.join(OUT, name)
        disk = open(path, "rb").read() if os.path.exists(path) else b""
        problems = []
        if disk != data:
            problems.append("bytes differ from a fresh generation")
        if expected.get(name) != e:
            problems.append("expected.json entry differs from a fresh generation")
        try:
            summary, details, _ = read_any(disk)
            if summary != expected.get(name):
                problems.append("reader found %s" % json.dumps(summary)[:300])
            if details["noncanonical"]:
                problems.append("cints not in UNIGINE's form at %s" % details["noncanonical"])
            problems += relations(summary, details)
            if summary["version"] == "ms14":
                if details["leaf_tris"] != 4:
                    problems.append("tree leaf size %d" % details["leaf_tris"])
                for i, d in enumerate(details["surfaces"]):
                    for kind, b in zip(("geometry", "tree"), d["blocks"]):
                        if b["stored"]:
                            stored.append("%s %s %d" % (name, kind, i))
                        elif (b["sequences"], b["matches"]) != (1, 0):
                            problems.append("%s block %d is not literal-only" % (kind, i))
                    if 63 in d["refs"]:
                        has63.append("%s (triangle reference 63)" % name)
                if any(len(s["name"]) + 1 == 63 for s in summary["surfaces"]):
                    has63.append("%s (a name of length 63)" % name)
        except ReadError as err:
            problems.append(str(err))
        print("%s %s%s" % ("FAIL" if problems else "ok  ", name,
                           ": " + "; ".join(problems) if problems else ""))
        ok &= not problems
    print("%s one stored ms14 block: %s" % ("ok  " if len(stored) == 1 else "FAIL",
                                            ", ".join(stored) or "none"))
    print("%s ms14 cints of value 63: %s" % ("ok  " if has63 else "FAIL",
                                             ", ".join(has63) or "none"))
    ok &= len(stored) == 1 and bool(has63)
    ok &= walk_corpus()
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
