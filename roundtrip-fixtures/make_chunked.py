"""Generate FileMesh 6.00 / 7.00 chunked fixtures.

Written from the spec (shared/specs/roblox-filemesh-v1-v7.txt, "version 6.00" and
"version 7.00") and FORMAT-NOTES.md ("6.00 / 7.00 chunks": SKINNING carries the
per-vertex envelopes, FACS is a u32 size + the 5.00 block, HSRAVIS bits are LSB first),
independently of the meshcodec library. It reuses only the record packers of
make_filemesh.py (vertex, bone, subset, envelope, FACS block).

    python3 roundtrip-fixtures/make_chunked.py           # write chunked/*.mesh + expected.json
    python3 roundtrip-fixtures/make_chunked.py --check   # walk the chunks on disk and verify them

A 7.00 file with a Draco COREMESH v2 is built from roundtrip-fixtures/draco/*.drc when
present (bitstreams made by the reference encoder, see make_draco.py).
"""

import json
import os
import struct
import sys

import make_filemesh as fm

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_DIR = os.path.join(HERE, "chunked")
DRACO_DIR = os.path.join(HERE, "draco")


def chunk(name, version, payload):
    assert len(name) <= 8
    return name.ljust(8, b"\0") + struct.pack("<II", version, len(payload)) + payload


def coremesh_v1(nverts, faces, salt):
    verts = b"".join(fm.vertex(i, salt, 40) for i in range(nverts))
    return struct.pack("<I", nverts) + verts + struct.pack("<I", len(faces)) + fm.pack_faces(faces)


def lods_v1(lod_type, hq, offsets):
    return struct.pack("<HBI", lod_type, hq, len(offsets)) + struct.pack("<%dI" % len(offsets), *offsets)


def skinning_v1(nverts, bones, table_order, parts):
    """parts: list of ((faces_begin, faces_len, verts_begin, verts_len), bone_indices)."""
    names_blob, index = fm.name_table(table_order)
    nbi = [None] * nverts
    subsets = b""
    for (fb, fl, vb, vl), bi in parts:
        subsets += fm.subset_record(fb, fl, vb, vl, bi)
        for v in range(vb, vb + vl):
            nbi[v] = len(bi)
    envelopes = b"".join(fm.envelope(v, nbi[v]) for v in range(nverts))
    bones_bytes = b"".join(
        fm.bone_record(index[n], p, lp, c, r, pos) for n, p, lp, c, r, pos in bones
    )
    return (
        struct.pack("<I", nverts) + envelopes
        + struct.pack("<I", len(bones)) + bones_bytes
        + struct.pack("<I", len(names_blob)) + names_blob
        + struct.pack("<I", len(parts)) + subsets
    )


def hsravis_v1(flags):
    n = len(flags)
    bits = bytearray((n + 7) // 8)
    for i, f in enumerate(flags):
        if f:
            bits[i // 8] |= 1 << (i % 8)
    return struct.pack("<I", n) + bytes(bits)


def fixtures():
    files = {}

    # 6.00 with every chunk type, an unknown chunk and an unknown version of a known one.
    nverts = 10
    faces = fm.tri_strip_faces(0, 6, 6) + fm.tri_strip_faces(6, 4, 2, salt=1)
    bones = [
        ("Root", fm.NO_PARENT, fm.NO_PARENT, 3.5, fm.ROT_IDENTITY, (0.0, 0.0, 0.0)),
        ("Arm", 0, 0, 1.25, fm.ROT_Z_345, (1.0, 2.0, -0.5)),
        ("Hand", 1, 0, 0.5, fm.ROT_X_51213, (1.5, 2.5, -0.75)),
    ]
    facs_block, facs_info = fm.build_facs(
        ["Jaw", "LeftEye"], ["c_JD", "l_EC", "r_EC"], [(0, 1)], [(0, 1, 2)], [2, 2, 2, 1, 1, 1]
    )
    flags = [i % 3 == 0 for i in range(len(faces))]
    body = (
        chunk(b"COREMESH", 1, coremesh_v1(nverts, faces, salt=21))
        + chunk(b"LODS", 1, lods_v1(3, 1, [0, 6, len(faces)]))
        + chunk(b"SKINNING", 1, skinning_v1(
            nverts, bones, ["Hand", "Root", "Arm"],
            [((0, 6, 0, 6), [0, 1]), ((6, 2, 6, 4), [1, 2, 0])]))
        + chunk(b"FACS", 1, struct.pack("<I", len(facs_block)) + facs_block)
        + chunk(b"HSRAVIS", 1, hsravis_v1(flags))
        + chunk(b"FUTURE", 1, b"\x01\x02\x03\x04\x05")
        + chunk(b"HSRAVIS", 2, b"\xaa\xbb\xcc")
    )
    files["v6.00-all-chunks.mesh"] = (b"version 6.00\n" + body, {
        "version": "6.00",
        "chunks": [["COREMESH", 1], ["LODS", 1], ["SKINNING", 1], ["FACS", 1],
                   ["HSRAVIS", 1], ["FUTURE", 1], ["HSRAVIS", 2]],
        "vertices": nverts, "faces": len(faces), "lod_offsets": [0, 6, len(faces)],
        "lod_type": 3, "num_high_quality_lods": 1,
        "bones": 3, "bone_names": ["Root", "Arm", "Hand"], "subsets": 2, "envelopes": nverts,
        "facs_size": len(facs_block), "hsr_flags": len(flags),
        "face_bone_names": facs_info["face_bone_names"],
        "face_control_names": facs_info["face_control_names"],
        "matrix_versions": facs_info["matrix_versions"],
    })

    # 7.00 with an uncompressed COREMESH v1 and the common [0, 0] LODS.
    faces7 = fm.tri_strip_faces(0, 5, 4)
    body7 = chunk(b"COREMESH", 1, coremesh_v1(5, faces7, salt=22)) + chunk(b"LODS", 1, lods_v1(0, 1, [0, 0]))
    files["v7.00-coremesh-v1.mesh"] = (b"version 7.00\n" + body7, {
        "version": "7.00", "chunks": [["COREMESH", 1], ["LODS", 1]],
        "vertices": 5, "faces": len(faces7), "lod_offsets": [0, 0],
        "lod_type": 0, "num_high_quality_lods": 1,
    })

    # 7.00 with a Draco COREMESH v2, from a bitstream made by the reference encoder.
    if os.path.isdir(DRACO_DIR):
        meta_path = os.path.join(DRACO_DIR, "expected.json")
        meta = json.load(open(meta_path)) if os.path.exists(meta_path) else {}
        for name in sorted(n for n in os.listdir(DRACO_DIR) if n.endswith(".drc")):
            blob = open(os.path.join(DRACO_DIR, name), "rb").read()
            m = meta.get(name, {})
            nf = m.get("faces")
            body = chunk(b"COREMESH", 2, struct.pack("<I", len(blob)) + blob)
            exp = {"version": "7.00", "chunks": [["COREMESH", 2]]}
            if nf is not None:
                body += chunk(b"LODS", 1, lods_v1(3, 1, [0, nf]))
                exp["chunks"].append(["LODS", 1])
                exp.update({"faces": nf, "lod_offsets": [0, nf]})
            if m.get("points") is not None:
                exp["vertices"] = m["points"]
            files["v7.00-draco-" + name[:-4] + ".mesh"] = (b"version 7.00\n" + body, exp)
    return files


def walk(data):
    """An independent chunk walker: [(name, version, payload)] or raise ValueError."""
    if data[:8] != b"version " or data[12:13] != b"\n":
        raise ValueError("bad version line")
    p, out = 13, []
    while p < len(data):
        if p + 16 > len(data):
            raise ValueError("chunk header cut at %d" % p)
        name = data[p:p + 8].rstrip(b"\0").decode("ascii")
        ver, size = struct.unpack_from("<II", data, p + 8)
        if p + 16 + size > len(data):
            raise ValueError("chunk %s overruns the file" % name)
        out.append((name, ver, data[p + 16:p + 16 + size]))
        p += 16 + size
    return out


def check():
    files = fixtures()
    expected = json.load(open(os.path.join(OUT_DIR, "expected.json")))
    ok = sorted(expected) == sorted(files)
    for name, (data, exp) in sorted(files.items()):
        path = os.path.join(OUT_DIR, name)
        on_disk = open(path, "rb").read() if os.path.exists(path) else None
        chunks = walk(data)
        good = (on_disk == data and expected.get(name) == exp
                and [[n, v] for n, v, _ in chunks] == exp["chunks"])
        for n, v, payload in chunks:
            if (n, v) == ("COREMESH", 1):
                nv = struct.unpack_from("<I", payload)[0]
                nf = struct.unpack_from("<I", payload, 4 + 40 * nv)[0]
                good &= len(payload) == 8 + 40 * nv + 12 * nf and nv == exp["vertices"]
            if (n, v) == ("HSRAVIS", 1):
                nb = struct.unpack_from("<I", payload)[0]
                good &= len(payload) == 4 + (nb + 7) // 8
            if (n, v) == ("FACS", 1):
                good &= struct.unpack_from("<I", payload)[0] == len(payload) - 4
        print("%s %s" % ("ok  " if good else "FAIL", name))
        ok &= good
    return ok


def write():
    os.makedirs(OUT_DIR, exist_ok=True)
    files = fixtures()
    for name, (data, _) in files.items():
        open(os.path.join(OUT_DIR, name), "wb").write(data)
    with open(os.path.join(OUT_DIR, "expected.json"), "w", newline="\n") as fh:
        json.dump({n: e for n, (_, e) in sorted(files.items())}, fh, indent=2)
        fh.write("\n")
    for name, (data, _) in sorted(files.items()):
        print("wrote %-36s %5d bytes" % (name, len(data)))


if __name__ == "__main__":
    sys.path.insert(0, HERE)
    if sys.argv[1:] == ["--check"]:
        sys.exit(0 if check() else 1)
    write()
