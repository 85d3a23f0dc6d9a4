#!/usr/bin/env python3
"""Generate small synthetic Roblox FileMesh fixtures (versions 2.00 to 5.00).

Written from the format write-up (shared/specs/roblox-filemesh-v1-v7.txt) and the
project's format notes (shared/design/FORMAT-NOTES.md, which win where they differ),
independently of the meshcodec library: nothing here reads or imports the Rust code.

    python3 roundtrip-fixtures/make_filemesh.py           # (re)write filemesh/*.mesh + expected.json
    python3 roundtrip-fixtures/make_filemesh.py --check   # parse the files on disk with a separate
                                                          # tiny reader and verify them

Everything is deterministic: no randomness, no libm calls (only exact IEEE +,-,*,/ on
Python floats, then round-to-nearest to f32 by struct), so the bytes are the same on
every machine. Standard library only.
"""

import json
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_DIR = os.path.join(HERE, "filemesh")
EXPECTED_NAME = "expected.json"

NO_PARENT = 0xFFFF
UNUSED_BONE_INDEX = 0xFFFF

# ---------------------------------------------------------------------------
# Deterministic data
# ---------------------------------------------------------------------------

# Unit normals built from Pythagorean triples (exact-ish, no sqrt needed).
NORMALS = [
    (0.0, 1.0, 0.0),
    (0.6, 0.8, 0.0),
    (0.0, -0.6, 0.8),
    (-0.8, 0.0, 0.6),
    (2.0 / 3.0, 1.0 / 3.0, -2.0 / 3.0),
    (2.0 / 7.0, -3.0 / 7.0, 6.0 / 7.0),
    (0.0, 0.0, -1.0),
]

# Tangent bytes: unsigned, bias 127 (component = (b - 127) / 127), sign byte 0 (-1) or 254 (+1).
TANGENTS = [
    bytes.fromhex("7f7f00fe"),  # (0, 0, -1), +1
    bytes.fromhex("fe7f7ffe"),  # (1, 0, 0), +1
    bytes.fromhex("7f7f7f00"),  # the common "no tangent" pattern
    bytes.fromhex("7ffe7f00"),  # (0, 1, 0), -1
    bytes.fromhex("007f7ffe"),  # (-1, 0, 0), +1
    bytes.fromhex("b07f37fe"),  # about (0.39, 0, -0.57), +1 (not normalised, as in real files)
]
PRE_PBR_TANGENT = bytes.fromhex("00000000")  # the spec's "invalid" all-zero tangent


def vertex(i, salt, size, tangent=None):
    """One 36- or 40-byte FileMeshVertex with varied, deterministic floats."""
    k = i + 7 * salt
    px = ((k * 37) % 29) / 8.0 - 1.75 + 0.1 * salt
    py = ((k * 53) % 31) / 16.0 - 0.9
    pz = -((k * 11) % 13) * 0.3 + 0.05
    nx, ny, nz = NORMALS[k % len(NORMALS)]
    tu = ((k * 3) % 11) / 10.0
    tv = 1.0 - ((k * 7) % 9) / 8.0
    t = tangent if tangent is not None else TANGENTS[k % len(TANGENTS)]
    b = struct.pack("<3f3f2f", px, py, pz, nx, ny, nz, tu, tv) + t
    if size == 40:
        # Colours are never 255 on any channel (x % 255 <= 254).
        rgba = ((17 + k * 41) % 255, (90 + k * 97) % 255, (3 + k * 13) % 255, (200 + k * 5) % 255)
        b += struct.pack("<4B", *rgba)
    assert len(b) == size
    return b


def tri_strip_faces(vbegin, vlen, nfaces, salt=0):
    """nfaces triangles using only vertices in [vbegin, vbegin + vlen)."""
    assert vlen >= 3
    faces = []
    for j in range(nfaces):
        a = vbegin + ((j + salt) % (vlen - 2))
        if j % 2 == 0:
            faces.append((a, a + 1, a + 2))
        else:
            faces.append((a + 2, a + 1, a))
    return faces


def pack_faces(faces):
    return b"".join(struct.pack("<3I", *f) for f in faces)


def name_table(names_in_table_order):
    """NUL-terminated names; returns (bytes, {name: start index})."""
    blob = b""
    index = {}
    for n in names_in_table_order:
        index[n] = len(blob)
        blob += n.encode("utf-8") + b"\0"
    return blob, index


# Weight patterns (u8, each sums to 255); unused slots are bone 0 / weight 0 as in real files.
WEIGHT_PATTERNS = [
    (255, 0, 0, 0),
    (200, 55, 0, 0),
    (128, 64, 63, 0),
    (100, 80, 50, 25),
    (170, 85, 0, 0),
    (1, 254, 0, 0),
]


def envelope(v, num_bone_indices):
    """8-byte envelope for vertex v inside a subset with num_bone_indices bones."""
    candidates = [p for p in WEIGHT_PATTERNS if sum(1 for w in p if w) <= num_bone_indices]
    w = candidates[v % len(candidates)]
    n = sum(1 for x in w if x)
    bones = [((v + m) % num_bone_indices) if m < n else 0 for m in range(4)]
    assert sum(w) == 255
    return bytes(bones) + bytes(w)


def bone_record(name_index, parent, lod_parent, culling, rot, pos):
    flat = [x for row in rot for x in row]
    assert len(flat) == 9
    return struct.pack("<IHHf9f3f", name_index, parent, lod_parent, culling, *flat, *pos)


ROT_IDENTITY = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))
ROT_Z_345 = ((0.8, -0.6, 0.0), (0.6, 0.8, 0.0), (0.0, 0.0, 1.0))
ROT_X_51213 = ((1.0, 0.0, 0.0), (0.0, 12.0 / 13.0, -5.0 / 13.0), (0.0, 5.0 / 13.0, 12.0 / 13.0))
ROT_Y_815 = ((15.0 / 17.0, 0.0, 8.0 / 17.0), (0.0, 1.0, 0.0), (-8.0 / 17.0, 0.0, 15.0 / 17.0))


def subset_record(faces_begin, faces_len, verts_begin, verts_len, bone_indices):
    assert 1 <= len(bone_indices) <= 26
    table = list(bone_indices) + [UNUSED_BONE_INDEX] * (26 - len(bone_indices))
    return struct.pack("<5I26H", faces_begin, faces_len, verts_begin, verts_len, len(bone_indices), *table)


# ---------------------------------------------------------------------------
# Builders (each returns (bytes, expected dict))
# ---------------------------------------------------------------------------


def build_v2(vertex_size, nverts, nfaces, salt, trailing=b"", tangent_override=None):
    verts = b"".join(
        vertex(i, salt, vertex_size, tangent_override(i) if tangent_override else None) for i in range(nverts)
    )
    faces = tri_strip_faces(0, nverts, nfaces, salt)
    header = struct.pack("<HBBII", 12, vertex_size, 12, nverts, nfaces)
    assert len(header) == 12
    data = b"version 2.00\n" + header + verts + pack_faces(faces) + trailing
    exp = {
        "version": "2.00",
        "header_size": 12,
        "vertex_size": vertex_size,
        "vertices": nverts,
        "faces": nfaces,
        "trailing_bytes": len(trailing),
        "file_size": len(data),
    }
    return data, exp


def lod_layout(groups, salt):
    """groups: one entry per LOD, either (nverts, nfaces) or a list of such parts.
    Each part's faces use only that part's own vertices.
    Returns (nverts_total, faces, lod_offsets, parts) with parts = [(fb, fl, vb, vl), ...]."""
    faces = []
    offsets = [0]
    parts = []
    vbegin = 0
    for lod in groups:
        for nv, nf in (lod if isinstance(lod, list) else [lod]):
            parts.append((len(faces), nf, vbegin, nv))
            faces += tri_strip_faces(vbegin, nv, nf, salt)
            vbegin += nv
        offsets.append(len(faces))
    return vbegin, faces, offsets, parts


def build_v3(version, groups, salt):
    nverts, faces, offsets, _ = lod_layout(groups, salt)
    verts = b"".join(vertex(i, salt, 40) for i in range(nverts))
    header = struct.pack("<HBBHHII", 16, 40, 12, 4, len(offsets), nverts, len(faces))
    assert len(header) == 16
    data = (
        ("version %s\n" % version).encode("ascii")
        + header
        + verts
        + pack_faces(faces)
        + struct.pack("<%dI" % len(offsets), *offsets)
    )
    exp = {
        "version": version,
        "header_size": 16,
        "vertex_size": 40,
        "vertices": nverts,
        "faces": len(faces),
        "lod_offsets": offsets,
        "trailing_bytes": 0,
        "file_size": len(data),
    }
    return data, exp


def build_v4plus(
    version,
    *,
    groups,
    salt,
    lod_type,
    hq,
    pad,
    header_tail=b"",
    skeleton=None,
    facs_format=None,
    facs_bytes=b"",
    facs_info=None,
):
    """groups: see lod_layout (one entry per LOD, each (nverts, nfaces) or a list of parts).
    skeleton: None (numBones = 0, no envelopes, no subsets) or a dict:
      bones: list of (name, parent, lod_parent, culling, rot, pos)
      table_order: names in name-table order (may differ from bone order)
      subsets: list of bone_indices, one per part in order; subset k covers exactly
               part k's faces and vertices."""
    nverts, faces, offsets, parts = lod_layout(groups, salt)
    verts = b"".join(vertex(i, salt, 40) for i in range(nverts))

    envelopes = b""
    bones_bytes = b""
    names_blob = b""
    subsets_bytes = b""
    bone_names = []
    nbones = 0
    nsubsets = 0
    if skeleton is not None:
        names_blob, index = name_table(skeleton["table_order"])
        for name, parent, lod_parent, culling, rot, pos in skeleton["bones"]:
            bones_bytes += bone_record(index[name], parent, lod_parent, culling, rot, pos)
            bone_names.append(name)
        nbones = len(skeleton["bones"])
        assert len(skeleton["subsets"]) == len(parts)
        per_vertex_nbi = [None] * nverts
        for (fb, fl, vb, vl), bone_indices in zip(parts, skeleton["subsets"]):
            subsets_bytes += subset_record(fb, fl, vb, vl, bone_indices)
            for v in range(vb, vb + vl):
                per_vertex_nbi[v] = len(bone_indices)
        nsubsets = len(skeleton["subsets"])
        assert all(n is not None for n in per_vertex_nbi), "every vertex must be in a subset"
        envelopes = b"".join(envelope(v, per_vertex_nbi[v]) for v in range(nverts))

    is_v5 = version == "5.00"
    known = 32 if is_v5 else 24
    header_size = known + len(header_tail)
    header = struct.pack(
        "<HHIIHHIHBB",
        header_size,
        lod_type,
        nverts,
        len(faces),
        len(offsets),
        nbones,
        len(names_blob),
        nsubsets,
        hq,
        pad,
    )
    if is_v5:
        header += struct.pack("<II", facs_format, len(facs_bytes))
    header += header_tail
    assert len(header) == header_size

    data = (
        ("version %s\n" % version).encode("ascii")
        + header
        + verts
        + envelopes
        + pack_faces(faces)
        + struct.pack("<%dI" % len(offsets), *offsets)
        + bones_bytes
        + names_blob
        + subsets_bytes
        + facs_bytes
    )
    exp = {
        "version": version,
        "header_size": header_size,
        "vertices": nverts,
        "faces": len(faces),
        "lod_offsets": offsets,
        "lod_type": lod_type,
        "num_high_quality_lods": hq,
        "padding": pad,
        "bones": nbones,
        "bone_names": bone_names,
        "subsets": nsubsets,
        "envelopes": nverts if nbones > 0 else 0,
    }
    if is_v5:
        exp["facs_format"] = facs_format
        exp["facs_size"] = len(facs_bytes)
        if facs_info is not None:
            exp.update(facs_info)
    exp["trailing_bytes"] = 0
    exp["file_size"] = len(data)
    return data, exp


def quantized_matrix(version, rows, cols, m):
    out = struct.pack("<HII", version, rows, cols)
    n = rows * cols
    if version == 1:
        vals = [((i * 3 + m * 5) % 17) * 1.5 - 12.0 + 0.01 * (m + 1) for i in range(n)]
        out += struct.pack("<%df" % n, *vals)
    elif version == 2:
        vmin = -0.05 * (m + 1)
        vmax = 0.125 * (m + 2)
        q = [((i * 9973 + m * 12345) % 65536) for i in range(n)]
        q[0] = 0
        q[-1] = 65535
        out += struct.pack("<2f", vmin, vmax) + struct.pack("<%dH" % n, *q)
    else:
        raise ValueError(version)
    return out


def build_facs(face_bones, controls, two_pose, three_pose, matrix_versions):
    bone_blob = b"".join(n.encode("utf-8") + b"\0" for n in face_bones)
    ctrl_blob = b"".join(n.encode("utf-8") + b"\0" for n in controls)
    rows = len(face_bones)
    cols = len(controls) + len(two_pose) + len(three_pose)
    matrices = b"".join(quantized_matrix(v, rows, cols, m) for m, v in enumerate(matrix_versions))
    two = b"".join(struct.pack("<2H", *t) for t in two_pose)
    three = b"".join(struct.pack("<3H", *t) for t in three_pose)
    head = struct.pack("<IIQII", len(bone_blob), len(ctrl_blob), len(matrices), len(two), len(three))
    assert len(head) == 24
    block = head + bone_blob + ctrl_blob + matrices + two + three
    info = {
        "face_bone_names": list(face_bones),
        "face_control_names": list(controls),
        "matrix_versions": list(matrix_versions),
        "two_pose": len(two_pose),
        "three_pose": len(three_pose),
    }
    return block, info


# ---------------------------------------------------------------------------
# The fixture set
# ---------------------------------------------------------------------------


def fixtures():
    files = {}

    # 2.00 -------------------------------------------------------------------
    # 36-byte vertices; includes the pre-PBR all-zero tangent and the 7f7f7f00 pattern.
    pre = [PRE_PBR_TANGENT, TANGENTS[2], TANGENTS[0], TANGENTS[1]]
    files["v2.00-36b.mesh"] = build_v2(36, 4, 2, salt=1, tangent_override=lambda i: pre[i % 4])
    files["v2.00-40b.mesh"] = build_v2(40, 6, 4, salt=2)
    files["v2.00-trailing.mesh"] = build_v2(40, 4, 2, salt=3, trailing=bytes.fromhex("cafe00420a"))

    # 3.00 / 3.01 --------------------------------------------------------------
    files["v3.00-lods.mesh"] = build_v3("3.00", [(8, 6), (5, 3), (3, 1)], salt=4)   # offsets [0,6,9,10]
    files["v3.01-lods.mesh"] = build_v3("3.01", [(9, 8), (6, 4), (4, 2)], salt=5)   # offsets [0,8,12,14]

    # 4.00 / 4.01 without bones ----------------------------------------------
    files["v4.00-nobones.mesh"] = build_v4plus("4.00", groups=[(5, 3)], salt=6, lod_type=3, hq=1, pad=0)
    files["v4.01-nobones.mesh"] = build_v4plus("4.01", groups=[(6, 4)], salt=7, lod_type=3, hq=0, pad=0)

    # 4.00 / 4.01 with bones -------------------------------------------------
    skel_400 = {
        "bones": [
            ("Root", NO_PARENT, NO_PARENT, 2.5, ROT_IDENTITY, (0.0, 0.0, 0.0)),
            ("Torso", 0, 0, 1.75, ROT_Z_345, (0.0, 1.5, -0.25)),
            ("Head", 1, 1, 0.875, ROT_X_51213, (0.1, 3.0, 0.2)),
        ],
        "table_order": ["Root", "Torso", "Head"],
        # a single LOD split into two subsets (as real files split a LOD by bone budget)
        "subsets": [[0, 1], [2, 1, 0]],
    }
    files["v4.00-bones.mesh"] = build_v4plus(
        "4.00", groups=[[(5, 3), (5, 3)]], salt=8, lod_type=3, hq=1, pad=0, skeleton=skel_400
    )
    skel_401 = {
        "bones": [
            ("HumanoidRootNode", NO_PARENT, NO_PARENT, 3.25, ROT_IDENTITY, (0.5, -0.5, 0.125)),
            ("UpperTorso", 0, 0, 2.0, ROT_Y_815, (0.5, 1.0, 0.125)),
            ("LeftHand", 1, 0, 0.625, ROT_Z_345, (-1.5, 0.75, 0.3)),  # lodParent collapses to 0
        ],
        # name table order differs from bone order: readers must use boneNameIndex
        "table_order": ["LeftHand", "HumanoidRootNode", "UpperTorso"],
        # two LODs, one subset per LOD
        "subsets": [[1, 0, 2], [2]],
    }
    files["v4.01-bones.mesh"] = build_v4plus(
        "4.01", groups=[(6, 4), (3, 2)], salt=9, lod_type=3, hq=1, pad=0, skeleton=skel_401
    )

    # 4.01 header quirks -----------------------------------------------------
    files["v4.01-padding63.mesh"] = build_v4plus(
        "4.01", groups=[(6, 4), (4, 2), (3, 1)], salt=10, lod_type=4, hq=2, pad=63
    )
    files["v4.01-header-tail.mesh"] = build_v4plus(
        "4.01", groups=[(5, 3)], salt=11, lod_type=3, hq=0, pad=0, header_tail=bytes.fromhex("deadbeef")
    )

    # 5.00 -------------------------------------------------------------------
    facs_block, facs_info = build_facs(
        face_bones=["Jaw", "L_Eye"],
        controls=["c_JD", "l_EC", "r_EC"],
        two_pose=[(0, 1), (1, 2)],
        three_pose=[(0, 1, 2)],
        matrix_versions=[2, 2, 2, 1, 1, 1],
    )
    skel_500 = {
        "bones": [
            ("Root", NO_PARENT, NO_PARENT, 4.0, ROT_IDENTITY, (0.0, 0.0, 0.0)),
            ("Head", 0, 0, 1.25, ROT_X_51213, (0.0, 4.5, 0.0)),
            ("Jaw", 1, 1, 0.5, ROT_Z_345, (0.0, 4.1, -0.3)),
            ("L_Eye", 1, 1, 0.25, ROT_Y_815, (0.2, 4.7, -0.4)),
        ],
        "table_order": ["Root", "Head", "Jaw", "L_Eye"],
        # LOD 0 in two subsets, LOD 1 in one
        "subsets": [[1, 2, 3, 0], [0, 1], [1, 2]],
    }
    files["v5.00-facs.mesh"] = build_v4plus(
        "5.00",
        groups=[[(7, 5), (4, 2)], (4, 2)],
        salt=12,
        lod_type=3,
        hq=1,
        pad=0,
        skeleton=skel_500,
        facs_format=1,
        facs_bytes=facs_block,
        facs_info=facs_info,
    )
    files["v5.00-nofacs.mesh"] = build_v4plus(
        "5.00", groups=[(5, 3)], salt=13, lod_type=4, hq=0, pad=0, facs_format=0, facs_bytes=b""
    )
    files["v5.00-facs-format0-bytes.mesh"] = build_v4plus(
        "5.00",
        groups=[(4, 2)],
        salt=14,
        lod_type=3,
        hq=0,
        pad=0,
        facs_format=0,
        facs_bytes=bytes.fromhex("0123456789abcdef"),
    )
    return files


def expected_json_text(files):
    doc = {name: files[name][1] for name in sorted(files)}
    return json.dumps(doc, indent=2) + "\n"


# ---------------------------------------------------------------------------
# Independent tiny reader for --check (shares no code with the builders above)
# ---------------------------------------------------------------------------


class Fail(Exception):
    pass


def need(cond, msg):
    if not cond:
        raise Fail(msg)


class Cur:
    def __init__(self, data, pos=0):
        self.d = data
        self.p = pos

    def take(self, n):
        need(n >= 0 and self.p + n <= len(self.d), "read of %d bytes at %d runs past end (%d)" % (n, self.p, len(self.d)))
        b = self.d[self.p:self.p + n]
        self.p += n
        return b

    def un(self, fmt):
        fmt = "<" + fmt
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))


def split_terminated(blob):
    need(len(blob) == 0 or blob[-1:] == b"\0", "name blob not NUL-terminated")
    return [s.decode("utf-8") for s in blob.split(b"\0")[:-1]]


def read_mesh(data):
    """Return the observed dict (same keys as expected.json) or raise Fail."""
    need(len(data) >= 13 and data[:8] == b"version " and data[12:13] == b"\n", "bad version line")
    ver = data[8:12].decode("ascii")
    c = Cur(data, 13)
    o = {"version": ver}
    tan_ok = lambda t: t == b"\0\0\0\0" or t[3] in (0, 254)

    def check_faces(raw, nf, nv):
        for i in range(nf):
            a, b, cc = struct.unpack_from("<3I", raw, 12 * i)
            need(max(a, b, cc) < nv, "face %d index out of range" % i)

    def check_lods(lods, nf):
        need(len(lods) >= 2 and lods[0] == 0 and lods[-1] == nf, "lod offsets must be [0 .. numFaces]")
        need(all(x <= y for x, y in zip(lods, lods[1:])), "lod offsets not sorted")

    if ver in ("2.00", "3.00", "3.01"):
        if ver == "2.00":
            hs, vs, fs, nv, nf = c.un("HBBII")
            known, nlod = 12, 0
        else:
            hs, vs, fs, lsz, nlod, nv, nf = c.un("HBBHHII")
            known = 16
            need(lsz == 4, "sizeof_LodOffset != 4")
        need(hs >= known, "header too small")
        c.take(hs - known)
        need(vs in (36, 40) and fs == 12, "vertex/face size")
        raw_v = c.take(nv * vs)
        for i in range(nv):
            need(tan_ok(raw_v[i * vs + 32:i * vs + 36]), "tangent sign byte")
        check_faces(c.take(nf * fs), nf, nv)
        o["header_size"] = hs
        o["vertex_size"] = vs
        o["vertices"] = nv
        o["faces"] = nf
        if ver != "2.00":
            lods = list(c.un("%dI" % nlod))
            check_lods(lods, nf)
            o["lod_offsets"] = lods
        # size sum, computed from the header alone
        end = 13 + hs + nv * vs + nf * fs + 4 * nlod
        need(c.p == end, "position bookkeeping")
        o["trailing_bytes"] = len(data) - end
        o["file_size"] = len(data)
        return o

    need(ver in ("4.00", "4.01", "5.00"), "unknown version " + ver)
    hs, lod_type, nv, nf, nlod, nb, sbn, ns, hq, pad = c.un("HHIIHHIHBB")
    known = 24
    if ver == "5.00":
        facs_format, facs_size = c.un("II")
        known = 32
    need(hs >= known, "header too small")
    c.take(hs - known)
    raw_v = c.take(nv * 40)
    for i in range(nv):
        need(tan_ok(raw_v[i * 40 + 32:i * 40 + 36]), "tangent sign byte")
    env = c.take(nv * 8) if nb > 0 else b""
    raw_f = c.take(nf * 12)
    check_faces(raw_f, nf, nv)
    lods = list(c.un("%dI" % nlod))
    check_lods(lods, nf)
    bones = [c.un("IHHf9f3f") for _ in range(nb)]
    names = c.take(sbn)
    bone_names = []
    for i, b in enumerate(bones):
        idx, parent, lod_parent = b[0], b[1], b[2]
        need(idx < sbn and (idx == 0 or names[idx - 1] == 0), "bone %d name index not at a name start" % i)
        end = names.index(b"\0", idx)
        bone_names.append(names[idx:end].decode("utf-8"))
        need(parent == NO_PARENT or parent < nb, "parent")
        need(lod_parent == NO_PARENT or lod_parent < nb, "lodParent")
    need(sbn == 0 or names[-1] == 0, "name table not NUL-terminated")
    subsets = [c.un("5I26H") for _ in range(ns)]
    owner = [None] * nv
    for s in subsets:
        fb, fl, vb, vl, nbi = s[:5]
        table = s[5:]
        need(1 <= nbi <= 26, "numBoneIndices")
        need(all(x < nb for x in table[:nbi]), "bone index out of range")
        need(all(x == UNUSED_BONE_INDEX for x in table[nbi:]), "unused boneIndices must be 0xFFFF")
        need(fb + fl <= nf and vb + vl <= nv, "subset range")
        for v in range(vb, vb + vl):
            need(owner[v] is None, "vertex %d in two subsets" % v)
            owner[v] = nbi
        for fi in range(fb, fb + fl):
            tri = struct.unpack_from("<3I", raw_f, 12 * fi)
            need(all(vb <= x < vb + vl for x in tri), "subset face uses vertex outside subset")
    if nb > 0:
        for v in range(nv):
            bb, ww = env[8 * v:8 * v + 4], env[8 * v + 4:8 * v + 8]
            need(sum(ww) == 255, "weights of vertex %d sum to %d" % (v, sum(ww)))
            need(owner[v] is not None, "vertex %d in no subset" % v)
            need(all(bb[k] < owner[v] for k in range(4) if ww[k]), "envelope bone byte beyond subset table")
    o.update({
        "header_size": hs,
        "vertices": nv,
        "faces": nf,
        "lod_offsets": lods,
        "lod_type": lod_type,
        "num_high_quality_lods": hq,
        "padding": pad,
        "bones": nb,
        "bone_names": bone_names,
        "subsets": ns,
        "envelopes": nv if nb > 0 else 0,
    })
    facs_len = 0
    if ver == "5.00":
        o["facs_format"] = facs_format
        o["facs_size"] = facs_size
        facs = c.take(facs_size)
        facs_len = facs_size
        if facs_format == 1:
            f = Cur(facs)
            sb, sc, sq, s2, s3 = f.un("IIQII")
            need(24 + sb + sc + sq + s2 + s3 == facs_size, "FACS sizes do not add up to facsDataSize")
            fbn = split_terminated(f.take(sb))
            fcn = split_terminated(f.take(sc))
            need(s2 % 4 == 0 and s3 % 6 == 0, "corrective sizes")
            rows, cols = len(fbn), len(fcn) + s2 // 4 + s3 // 6
            q0 = f.p
            versions = []
            for _ in range(6):
                mv, r, cc = f.un("HII")
                need((r, cc) == (rows, cols), "matrix dims %dx%d, want %dx%d" % (r, cc, rows, cols))
                if mv == 1:
                    f.take(4 * r * cc)
                elif mv == 2:
                    lo, hi = f.un("2f")
                    need(lo < hi, "v2 min/max")
                    f.take(2 * r * cc)
                else:
                    raise Fail("QuantizedMatrix version %d" % mv)
                versions.append(mv)
            need(f.p - q0 == sq, "matrices sum to %d, header says %d" % (f.p - q0, sq))
            two = [f.un("2H") for _ in range(s2 // 4)]
            three = [f.un("3H") for _ in range(s3 // 6)]
            need(all(x < len(fcn) for t in two + three for x in t), "corrective index")
            need(f.p == len(facs), "FACS block has %d unread bytes" % (len(facs) - f.p))
            o.update({
                "face_bone_names": fbn,
                "face_control_names": fcn,
                "matrix_versions": versions,
                "two_pose": len(two),
                "three_pose": len(three),
            })
    end = (13 + hs + nv * 40 + (nv * 8 if nb > 0 else 0) + nf * 12 + 4 * nlod
           + 60 * nb + sbn + 72 * ns + facs_len)
    need(c.p == end, "position bookkeeping")
    o["trailing_bytes"] = len(data) - end
    o["file_size"] = len(data)
    return o


def check():
    files = fixtures()
    ok = True
    exp_path = os.path.join(OUT_DIR, EXPECTED_NAME)
    with open(exp_path, "r", encoding="utf-8") as fh:
        exp_text = fh.read()
    expected = json.loads(exp_text)
    if exp_text != expected_json_text(files):
        print("FAIL expected.json differs from what the generator writes (stale? run without --check)")
        ok = False
    on_disk = sorted(n for n in os.listdir(OUT_DIR) if n.endswith(".mesh"))
    if on_disk != sorted(files):
        print("FAIL file set differs: on disk %s, generator %s" % (on_disk, sorted(files)))
        ok = False
    for name in sorted(expected):
        path = os.path.join(OUT_DIR, name)
        try:
            with open(path, "rb") as fh:
                data = fh.read()
            need(name in files and data == files[name][0], "bytes differ from a fresh generation")
            got = read_mesh(data)
            need(got["file_size"] == os.path.getsize(path), "file size")
            if got != expected[name]:
                diff = {k: (got.get(k), expected[name].get(k))
                        for k in set(got) | set(expected[name]) if got.get(k) != expected[name].get(k)}
                raise Fail("observed != expected: %r" % diff)
            print("ok   %-32s %5d bytes" % (name, len(data)))
        except (Fail, OSError, struct.error, ValueError) as e:
            print("FAIL %-32s %s" % (name, e))
            ok = False
    return ok


def write():
    files = fixtures()
    os.makedirs(OUT_DIR, exist_ok=True)
    for name in sorted(files):
        with open(os.path.join(OUT_DIR, name), "wb") as fh:
            fh.write(files[name][0])
    with open(os.path.join(OUT_DIR, EXPECTED_NAME), "w", encoding="utf-8", newline="\n") as fh:
        fh.write(expected_json_text(files))
    for name in sorted(files):
        print("wrote %-32s %5d bytes" % (name, len(files[name][0])))


def main(argv):
    if argv[1:] == ["--check"]:
        return 0 if check() else 1
    if argv[1:]:
        print(__doc__)
        return 2
    write()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
