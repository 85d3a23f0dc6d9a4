"""Generate union graphics fixtures (CSGMDL 2, 4, 5 and CSGK), stdlib only.

Written from FORMAT-NOTES.md ("Roblox union graphics") and docs/csgmdl.md, independently
of the meshcodec library: the blobs are assembled field by field here, and versions 2
and 4 (whole) and 5 (its 10-byte header) are XORed with the key by file offset.

    python3 roundtrip-fixtures/make_csgmdl.py           # write csgmdl/*.bin + expected.json
    python3 roundtrip-fixtures/make_csgmdl.py --check   # re-generate and compare
"""

import json
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "csgmdl")

KEY = [86, 46, 110, 88, 49, 32, 48, 4, 52, 105, 12, 119, 12, 1, 94, 0, 26, 96, 55, 105,
       29, 82, 43, 7, 79, 36, 89, 101, 83, 4, 122]


def xor(data, start=0):
    return bytes(b ^ KEY[(start + i) % 31] for i, b in enumerate(data))


def vertex(pos, normal, color, normal_id, uv, tangent):
    """84 bytes: f32 pos[3], normal[3]; u8 rgba; u32 NormalId; f32 uv[2]; 16 zero
    bytes; f32 tangent[3]; 16 zero bytes."""
    return (struct.pack("<3f3f", *pos, *normal) + bytes(color)
            + struct.pack("<I2f", normal_id, *uv) + bytes(16)
            + struct.pack("<3f", *tangent) + bytes(16))


QUAD = [((0, 0, 0), (0, 0, 1), (255, 0, 0, 255), 6, (0, 0), (1, 0, 0)),
        ((1, 0, 0), (0, 0, 1), (0, 255, 0, 255), 6, (1, 0), (1, 0, 0)),
        ((1, 1, 0), (0, 0, 1), (0, 0, 255, 255), 6, (1, 1), (1, 0, 0)),
        ((0, 1, 0), (0, 0, 1), (255, 255, 255, 128), 6, (0, 1), (1, 0, 0))]
QUAD_INDICES = [0, 1, 2, 0, 2, 3]


def csgmdl24(version, verts, indices, extra=None):
    body = b"CSGMDL" + struct.pack("<I", version)
    body += bytes(range(32))  # the 32-byte hash, arbitrary here
    body += struct.pack("<II", len(verts), 84) + b"".join(vertex(*v) for v in verts)
    body += struct.pack("<I", len(indices)) + struct.pack(f"<{len(indices)}I", *indices)
    if version == 4:
        body += struct.pack("<I", len(extra)) + struct.pack(f"<{len(extra)}I", *extra)
    return xor(body)


def quantized(vectors):
    """i16 per component, biased by 0x7fff over 32767 (as FORMAT-NOTES describes)."""
    data = b"".join(struct.pack("<3H", *[round(c * 32767) + 0x7FFF for c in v]) for v in vectors)
    return struct.pack("<HI", len(vectors), len(data)) + data


def delta_stream(indices):
    """The corner stream: each corner as the step from the one before; 0..63 and
    -64..-1 in one byte, else 0x80 | bits 16-22, then bits 8-15, then bits 0-7."""
    out, prev = bytearray(), 0
    for i in indices:
        d = i - prev
        if 0 <= d < 64:
            out.append(d)
        elif -64 <= d < 0:
            out.append(d + 128)
        else:
            v = d & 0x7FFFFF
            out += bytes([0x80 | (v >> 16), (v >> 8) & 0xFF, v & 0xFF])
        prev = i
    return bytes(out)


def csgmdl5(verts, indices, ranges):
    out = xor(b"CSGMDL" + struct.pack("<I", 5))
    n = len(verts)
    out += struct.pack("<H", n) + b"".join(struct.pack("<3f", *v[0]) for v in verts)
    out += quantized([v[1] for v in verts])
    out += struct.pack("<H", n) + b"".join(bytes(v[2]) for v in verts)
    out += struct.pack("<H", n) + bytes(v[3] for v in verts)
    out += struct.pack("<H", n) + b"".join(struct.pack("<2f", *v[4]) for v in verts)
    out += quantized([v[5] for v in verts])
    stream = delta_stream(indices)
    out += struct.pack("<II", len(indices), len(stream)) + stream
    out += struct.pack("<B", len(ranges)) + struct.pack(f"<{len(ranges)}I", *ranges)
    return out


def fixtures():
    """name -> (bytes, expected info)"""
    lod = [0, 1, 2]  # a second range: one triangle of the quad
    return {
        "csgmdl2-quad.bin": (csgmdl24(2, QUAD, QUAD_INDICES),
                             {"format": "csgmdl", "version": 2, "vertices": 4, "faces": 2}),
        "csgmdl4-quad-extra.bin": (csgmdl24(4, QUAD, QUAD_INDICES, [7, 8, 9]),
                                   {"format": "csgmdl", "version": 4, "vertices": 4, "faces": 2}),
        "csgmdl5-quad-lod.bin": (csgmdl5(QUAD, QUAD_INDICES + lod, [0, 6, 9]),
                                 {"format": "csgmdl", "version": 5, "vertices": 4, "faces": 2}),
        "csgk.bin": (b"CSGK" + b"0123456789abcdef0123456789abcdef",
                     {"format": "csgk", "version": None, "vertices": 0, "faces": 0}),
    }


def write():
    os.makedirs(OUT, exist_ok=True)
    expected = {}
    for name, (data, info) in fixtures().items():
        with open(os.path.join(OUT, name), "wb") as fh:
            fh.write(data)
        expected[name] = info
    with open(os.path.join(OUT, "expected.json"), "w", newline="\n") as fh:
        json.dump(expected, fh, indent=2, sort_keys=True)
        fh.write("\n")


def check():
    expected = json.load(open(os.path.join(OUT, "expected.json")))
    ok = sorted(expected) == sorted(fixtures())
    for name, (data, info) in fixtures().items():
        good = open(os.path.join(OUT, name), "rb").read() == data and expected.get(name) == info
        print(("ok      " if good else "DIFFERS ") + name)
        ok &= good
    return ok


if __name__ == "__main__":
    sys.exit(0 if check() else 1) if sys.argv[1:] == ["--check"] else write()
