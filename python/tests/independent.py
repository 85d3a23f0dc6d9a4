"""A FileMesh reader written from the spec alone (struct and NumPy, nothing of meshcodec),
for checking the package's arrays: every vertex's position, normal, UV and colour, and
the faces of level 0, of versions 1.00 to 7.00 (7.00's Draco core mesh through DracoPy,
when installed).

Spec facts used (../shared/specs, roblox-filemesh-v1-v7):
- 1.00/1.01: line 2 the face count, line 3 ``[x,y,z][nx,ny,nz][u,v,w]`` per vertex, three
  vertices a face, no sharing; 1.00 positions are twice the size; V is flipped (1 - v)
  against the binary versions.
- 2.00: header u16 size, u8 vertex size (36 or 40), u8 face size, u32 vertices, u32 faces.
- 3.00/3.01: u16 size, u8, u8, u16 LOD offset size, u16 LODs, u32 vertices, u32 faces;
  LOD offsets (u32) after the faces.
- 4.00/4.01/5.00: u16 size, u16 LOD type, u32 vertices, u32 faces, u16 LODs, u16 bones,
  ...: vertices (40 B), envelopes (8 B each) when there are bones, faces, LOD offsets.
- 6.00/7.00: chunks of an 8-byte name, u32 version, u32 size: COREMESH v1 (u32 vertices,
  vertices, u32 faces, faces), v2 (u32 size, Draco: the record's fields as generic
  attributes, unique ids 0 to 4), LODS v1 (u16 type, u8 high-quality,
  u32 count, offsets).
A vertex record: position (3 f32), normal (3 f32), UV (2 f32), tangent (4 u8), colour
(4 u8; 36-byte records have none).
"""

from __future__ import annotations

import struct
from typing import Any, Dict, List, Optional

import numpy as np


def _records(data: bytes, at: int, count: int, size: int) -> Dict[str, Any]:
    fields = [("position", "<f4", (3,)), ("normal", "<f4", (3,)), ("uv", "<f4", (2,))]
    if size == 40:
        fields += [("tangent", "u1", (4,)), ("color", "u1", (4,))]
    else:
        fields += [("rest", "u1", (size - 32,))]
    v = np.frombuffer(data, np.dtype(fields), count, at)
    out = {"positions": v["position"], "normals": v["normal"], "uvs": v["uv"]}
    if size == 40:
        out["colors"] = v["color"]
    return out


def _faces(data: bytes, at: int, count: int) -> np.ndarray:
    return np.frombuffer(data, "<u4", 3 * count, at).reshape(count, 3)


def _lod0(faces: np.ndarray, offsets: List[int]) -> np.ndarray:
    if len(offsets) >= 2 and offsets[1] > offsets[0]:
        return faces[offsets[0] : offsets[1]]
    return faces


def _text(data: bytes) -> Dict[str, Any]:
    lines = data.split(b"\n", 2)
    version = lines[0].strip()
    triples = lines[2].replace(b"]", b"").split(b"[")[1:]
    numbers = np.array([[float(x) for x in t.split(b",")] for t in triples], np.float32)
    numbers = numbers.reshape(-1, 3, 3)  # vertex, (position, normal, uvw), xyz
    positions = numbers[:, 0]
    if version == b"version 1.00":
        positions = positions * np.float32(0.5)
    uvs = numbers[:, 2, :2].copy()
    uvs[:, 1] = 1 - uvs[:, 1]
    n = len(positions)
    return {
        "positions": positions,
        "normals": numbers[:, 1],
        "uvs": uvs,
        "faces": np.arange(n, dtype=np.uint32).reshape(-1, 3),
    }


def read(data: bytes) -> Optional[Dict[str, Any]]:
    """The arrays of a FileMesh (``None`` for a 7.00 Draco file without DracoPy)."""
    line_end = data.index(b"\n") + 1
    version = data[8 : line_end - 1].decode()
    if version.startswith("1."):
        return _text(data)
    at = line_end
    if version == "2.00":
        hsize, vsize, _, nv, nf = struct.unpack_from("<HBBII", data, at)
        at += hsize
        out = _records(data, at, nv, vsize)
        out["faces"] = _faces(data, at + nv * vsize, nf)
        return out
    if version.startswith("3."):
        hsize, vsize, _, _, nlods, nv, nf = struct.unpack_from("<HBBHHII", data, at)
        at += hsize
        out = _records(data, at, nv, vsize)
        at += nv * vsize
        faces = _faces(data, at, nf)
        offsets = list(struct.unpack_from(f"<{nlods}I", data, at + 12 * nf))
        out["faces"] = _lod0(faces, offsets)
        return out
    if version in ("4.00", "4.01", "5.00"):
        hsize, _, nv, nf, nlods, nbones = struct.unpack_from("<HHIIHH", data, at)
        at += hsize
        out = _records(data, at, nv, 40)
        at += nv * 40 + (nv * 8 if nbones else 0)
        faces = _faces(data, at, nf)
        offsets = list(struct.unpack_from(f"<{nlods}I", data, at + 12 * nf))
        out["faces"] = _lod0(faces, offsets)
        return out
    # 6.00, 7.00: chunks.
    out: Dict[str, Any] = {}
    faces = None
    offsets: List[int] = []
    while at + 16 <= len(data):
        name = data[at : at + 8].rstrip(b"\0")
        cversion, size = struct.unpack_from("<II", data, at + 8)
        body = at + 16
        if name == b"COREMESH" and cversion == 1:
            (nv,) = struct.unpack_from("<I", data, body)
            out.update(_records(data, body + 4, nv, 40))
            (nf,) = struct.unpack_from("<I", data, body + 4 + 40 * nv)
            faces = _faces(data, body + 8 + 40 * nv, nf)
        elif name == b"COREMESH" and cversion == 2:
            try:
                import DracoPy  # noqa: PLC0415 - only for Draco files
            except ImportError:
                return None
            (n,) = struct.unpack_from("<I", data, body)
            m = DracoPy.decode(data[body + 4 : body + 4 + n])
            # The vertex record's fields are generic attributes by unique id (0 position,
            # 1 normal, 2 UV, 4 colour); a standard POSITION attribute (quantized, when
            # an encoder adds one) is not the mesh's.
            by_id = {a["unique_id"]: np.asarray(a["data"]) for a in m.attributes}
            names = {0: ("positions", np.float32), 1: ("normals", np.float32), 2: ("uvs", np.float32), 4: ("colors", np.uint8)}
            for uid, (key, dtype) in names.items():
                if uid in by_id:
                    out[key] = by_id[uid].astype(dtype)
            faces = np.asarray(m.faces, np.uint32).reshape(-1, 3)
        elif name == b"LODS" and cversion == 1:
            (count,) = struct.unpack_from("<I", data, body + 3)
            offsets = list(struct.unpack_from(f"<{count}I", data, body + 7))
        at = body + size
    assert faces is not None, "no COREMESH"
    out["faces"] = _lod0(faces, offsets)
    return out
