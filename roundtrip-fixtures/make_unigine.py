"""Generate UNIGINE .mesh fixtures (versions ms10, ms11, ms12, ms13), stdlib only.

Written from shared/specs/unigine-mesh-anim.txt and FORMAT-NOTES.md ("UNIGINE .mesh / .anim",
which wins where they differ), independently of the meshcodec library: nothing here reads or
imports the Rust code.

    python3 roundtrip-fixtures/make_unigine.py           # write unigine/*.mesh + expected.json
    python3 roundtrip-fixtures/make_unigine.py --check   # re-generate and compare, walk every
                                                         # file with the separate reader below,
                                                         # and walk the real corpus files if
                                                         # shared/corpus/unigine/ is there

Deterministic: no randomness; floats are small binary fractions or exact sums/products of
them, plus math.sqrt for sphere radii (IEEE 754 requires sqrt to be correctly rounded, so it
is the same everywhere), rounded to f32 by struct.

Conventions (see also roundtrip-fixtures/README.md):
- Compact int (cint, readInt2): first byte bit 7 = more, bit 6 = sign, bits 0-5 = magnitude
  bits 0-5; each next byte bit 7 = more, bits 0-6 = the next 7 magnitude bits. Written as
  UNIGINE writes them: the lead byte alone holds 0-62 (63 is `bf 00`), and another byte
  follows while 127 or more remains; 0 is `00`; a negative number is its magnitude with the
  sign bit (-1 = `41`);
  -0 is never written. No count in the format is signed, so no fixture holds a negative cint.
- Strings: cint length including the NUL, then the bytes, NUL last; an empty name is `01 00`.
- Anim count 0 in every ms10-ms12 fixture, so no animation is embedded. The notes do not
  describe embedded animations; the corpus walk reads the one real file that has them with a
  provisional layout inferred from that file (walk_animation), and says so when it does.
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

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "unigine")
CORPUS = os.path.normpath(os.path.join(HERE, "..", "..", "shared", "corpus", "unigine"))
CORPUS_FILES = ["ms10-box.mesh", "ms11-plane.mesh", "ms11-arm-skinned.mesh", "ms12-a.mesh",
                "ms13-small.mesh"]
VERSIONS = (b"ms10", b"ms11", b"ms12", b"ms13")

# ---------------------------------------------------------------------------
# Writer side
# ---------------------------------------------------------------------------


def cint(v):
    """Compact int as UNIGINE's writer makes it: one short of the fewest bytes at each
    boundary. The lead byte alone holds 0..62 (63 is `bf 00`, as in the real ms14 files);
    after it, another byte follows while 127 or more remains."""
    sign, mag = (0x40, -v) if v < 0 else (0, v)
    more = mag >= 0x3F
    out = [sign | (mag & 0x3F) | (0x80 if more else 0)]
    mag >>= 6
    while more:
        more = mag >= 0x7F
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


def mesh(version, surfaces, bones=(), bind=()):
    """The whole file, and what the independent reader must find in it."""
    nv = version != b"ms13"  # ms10-ms12 carry an animation table (always empty here)
    allpts = [p for s in surfaces for p in s["targets"][0][1]]
    out = version + struct.pack("<10f", *bounds(allpts))
    out += cint(len(bones)) + b"".join(cstr(n) + struct.pack("<h", p) for n, p in bones)
    if nv:
        out += cint(0)
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
        exp["animations"] = 0
    exp.update(surfaces=esurf, size=len(out))
    return out, exp


IDENTITY = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0)


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


def walk_animation(r, nb):
    """PROVISIONAL, for the real corpus only (no fixture embeds animations): the layout of one
    embedded animation as inferred from the single real file that has one
    (ms11-arm-skinned.mesh: one animation, one frame, every mask 0x7f), not from the spec or
    the notes: cint bone count; i16 bone index[count]; u8 flag; cint frame count; then per
    frame, per animated bone: u8 mask, f32 translation x/y/z for mask bits 0-2, i16[4]
    quaternion (/32767) for bit 3, f32 scale x/y/z for bits 4-6. Frame-major order is a
    guess (one frame cannot tell). Returns the frame count."""
    n = r.count("animation bone count", 2)
    idx = r.u("%dh" % n, "animation bone indices")
    if any(not 0 <= i < nb for i in idx):
        raise ReadError("offset %d: animation bone index out of range" % r.p)
    r.u("B", "animation flag")
    frames = r.count("animation frame count")
    for _ in range(frames * n):
        mask = r.u("B", "frame mask")[0]
        if mask & 0x80:
            raise ReadError("offset %d: frame mask %#x has bit 7 set" % (r.p - 1, mask))
        r.take(sum(4 for b in (0, 1, 2, 4, 5, 6) if mask >> b & 1) + (8 if mask & 8 else 0),
               "frame data")
    return frames


def read_mesh(data, stop_at_animations=False, provisional_animations=False):
    """Walk a ms10-ms13 file. Returns (summary like expected.json, details, end offset);
    the end offset is where an embedded-animation block begins if stopped there. Embedded
    animations are an error unless stop_at_animations or provisional_animations is set."""
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
    details = {"bind": bind, "anim_names": anims, "noncanonical": r.noncanonical, "surfaces": []}
    if anims and stop_at_animations:
        details["stopped_at"] = r.p
        return summary, details, r.p
    if anims and not provisional_animations:
        raise ReadError("offset %d: %d embedded animations, not described" % (r.p, len(anims)))
    if anims:
        details["animations_at"] = r.p
        details["frames"] = [walk_animation(r, nb) for _ in anims]
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


def relations(summary, details):
    """What the README's conventions promise; a list of the ones that do not hold."""
    bad = []
    nb = len(summary["bones"])
    for i, b in enumerate(summary["bones"]):
        if not (b["parent"] == -1 or 0 <= b["parent"] < nb) or b["parent"] == i:
            bad.append("bone %d parent %d" % (i, b["parent"]))
    for s, d in zip(summary["surfaces"], details["surfaces"]):
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
    return bad


# ---------------------------------------------------------------------------
# Check and write
# ---------------------------------------------------------------------------


def check_cint():
    """The notes' examples, decoded by the reader and encoded by the writer."""
    ok = True
    for hexs, v in (("8412", 1156), ("8101", 65), ("41", -1), ("00", 0), ("3e", 62),
                    ("bf00", 63), ("8001", 64), ("bf7e", 8127), ("bfff00", 8191),
                    ("808001", 8192), ("ff00", -63)):
        r = Reader(bytes.fromhex(hexs))
        got = r.int2("cint")
        ok &= got == v and r.p == len(r.d) and not r.noncanonical and cint(v).hex() == hexs
    print("%s cint examples (84 12 = 1156, 81 01 = 65, 41 = -1, ...)" % ("ok  " if ok else "FAIL"))
    return ok


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
            summary, details, end = read_mesh(data, stop_at_animations=True)
        except ReadError as e:
            print("FAIL corpus %s: %s" % (name, e))
            ok = False
            continue
        if "stopped_at" in details:
            # The notes do not describe embedded animations: try the provisional layout,
            # and if it fails, report the header walk only.
            try:
                summary, details, end = read_mesh(data, provisional_animations=True)
                print("note corpus %s: %d embedded animation(s) (%s) at offset %d walked with "
                      "the provisional layout (walk_animation), %s frame(s); geometry from %d"
                      % (name, summary["animations"], ", ".join(details["anim_names"]),
                         details["animations_at"], details["frames"], details["anim_end"]))
            except ReadError as e:
                print("note corpus %s: provisional animation walk failed (%s)" % (name, e))
        tail = ", %d cints not in UNIGINE's form" % len(details["noncanonical"]) \
            if details["noncanonical"] else ""
        if "stopped_at" in details:
            print("ok   corpus %-22s header, %d bones and bind pose read; stopped at the embedded "
                  "animation block (%d: %s) at offset %d of %d%s"
                  % (name, len(summary["bones"]), summary["animations"],
                     ", ".join(details["anim_names"]), end, len(data), tail))
            continue
        s = summary["surfaces"]
        bad = relations(summary, details)
        print("ok   corpus %-22s %d/%d bytes, %s%s%s"
              % (name, end, len(data), "; ".join(
                  "%s: xyz %d tan %d w %d uv %d/%d col %d idx %d(u%d)/%d(u%d)"
                  % (x["name"], x["vertices"], x["tangents"], x["weights"], x["uv0"], x["uv1"],
                     x["colors"], x["coordinate_indices"]["count"],
                     8 * x["coordinate_indices"]["width"], x["triangle_indices"]["count"],
                     8 * x["triangle_indices"]["width"]) for x in s), tail,
                  "; differs from fixture conventions: " + ", ".join(bad) if bad else ""))
    return ok


def check():
    files = fixtures()
    expected = json.load(open(os.path.join(OUT, "expected.json")))
    ok = check_cint()
    on_disk = sorted(f for f in os.listdir(OUT) if f.endswith(".mesh"))
    if on_disk != sorted(files) or sorted(expected) != sorted(files):
        print("FAIL file list: on disk %s, expected.json %s" % (on_disk, sorted(expected)))
        ok = False
    for name, (data, e) in sorted(files.items()):
        path = os.path.join(OUT, name)
        disk = open(path, "rb").read() if os.path.exists(path) else b""
        problems = []
        if disk != data:
            problems.append("bytes differ from a fresh generation")
        if expected.get(name) != e:
            problems.append("expected.json entry differs from a fresh generation")
        try:
            summary, details, _ = read_mesh(disk)
            if summary != expected.get(name):
                problems.append("reader found %s" % json.dumps(summary)[:300])
            if details["noncanonical"]:
                problems.append("cints not in UNIGINE's form at %s" % details["noncanonical"])
            problems += relations(summary, details)
        except ReadError as err:
            problems.append(str(err))
        print("%s %s%s" % ("FAIL" if problems else "ok  ", name,
                           ": " + "; ".join(problems) if problems else ""))
        ok &= not problems
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
