"""Generate STF (stf.mesh) fixtures, stdlib only.

Written from shared/specs/stf-mesh.txt and FORMAT-NOTES.md ("STF (stf.mesh)"),
independently of the meshcodec library.

Container: b"STF0", u32 version major, u32 version minor, u32 buffer count (the JSON is
buffer 0), u64 length[count], the UTF-8 JSON, then each binary buffer in order;
little-endian, no alignment. A JSON buffer entry {"type": "stf.buffer.included",
"index": k} names binary buffer k, i.e. container buffer k + 1. A mesh property holds
either an integer indexing the resource's "referenced_buffers" (new style) or the buffer id
itself (old style).

Widths: vertices, split_normals, uvs, split_colors use float_width (default 4);
face_corners, splits, tris and faces use indices_width (default 4); material_indices use
material_indices_width (always written here, since readers disagree on its default).

    python3 roundtrip-fixtures/make_stf.py           # write stf/*.stf + expected.json
    python3 roundtrip-fixtures/make_stf.py --check   # re-generate and compare, walk the files
"""

import json
import os
import struct
import sys
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "stf")
CORPUS = os.path.normpath(os.path.join(HERE, "..", "..", "shared", "corpus", "stf"))

NS = uuid.UUID("6f1d2c4e-5b7a-4c39-9e8d-0a1b2c3d4e5f")
GENERATOR = "meshcodec roundtrip-fixtures/make_stf.py"


def uid(name):
    """A deterministic UUID (uuid5, SHA-1 based) for a fixture-local name."""
    return str(uuid.uuid5(NS, name))


def floats(values, width):
    return struct.pack("<%d%s" % (len(values), {4: "f", 8: "d"}[width]), *values)


def uints(values, width):
    return b"".join(int(v).to_bytes(width, "little") for v in values)


def flat(rows):
    return [c for r in rows for c in r]


class StfFile:
    """Collects binary buffers (container order) and the buffer ids naming them."""

    def __init__(self, tag):
        self.tag = tag
        self.buffers = []  # (buffer id, bytes)

    def add(self, key, data):
        bid = uid(self.tag + "/buffer/" + key)
        self.buffers.append((bid, data))
        return bid

    def buffers_json(self, order=None):
        idx = range(len(self.buffers)) if order is None else order
        return {self.buffers[k][0]: {"type": "stf.buffer.included", "index": k} for k in idx}

    def container(self, doc, dumps, major=0, minor=0):
        js = dumps(doc).encode("utf-8")
        parts = [js] + [d for _, d in self.buffers]
        return (b"STF0" + struct.pack("<III", major, minor, len(parts))
                + struct.pack("<%dQ" % len(parts), *[len(p) for p in parts]) + b"".join(parts))


def mesh_resource(f, key, m, style):
    """The JSON of one stf.mesh; its buffers are appended to f in property order.
    style "index": integers into "referenced_buffers"; "uuid": buffer ids directly."""
    fw, iw = m.get("float_width"), m.get("indices_width")
    efw, eiw = fw or 4, iw or 4
    res = {"type": "stf.mesh", "name": m["name"]}
    if "material_slots" in m:
        res["material_slots"] = m["material_slots"]
    if fw is not None:
        res["float_width"] = fw
    if iw is not None:
        res["indices_width"] = iw
    refs = []
    if style == "index":
        res["referenced_buffers"] = refs  # filled below; key order is fixed here

    def ref(prop, data):
        bid = f.add(key + "/" + prop, data)
        if style == "index":
            refs.append(bid)
            return len(refs) - 1
        return bid

    res["vertices"] = ref("vertices", floats(flat(m["vertices"]), efw))
    res["face_corners"] = ref("face_corners", uints(m["face_corners"], eiw))
    res["splits"] = ref("splits", uints(m["splits"], eiw))
    if "normals" in m:
        res["split_normals"] = ref("split_normals", floats(flat(m["normals"]), efw))
    if "colors" in m:
        res["split_colors"] = ref("split_colors", floats(flat(m["colors"]), efw))
    if "uvs" in m:
        res["uvs"] = [{"name": n, "uv": ref("uv/" + n, floats(flat(uv), efw))} for n, uv in m["uvs"]]
    res["tris"] = ref("tris", uints(flat(m["tris"]), eiw))
    if "material_indices" in m:
        res["material_indices_width"] = m["material_indices_width"]
    res["faces"] = ref("faces", uints(m["faces"], eiw))
    if "material_indices" in m:
        res["material_indices"] = ref("material_indices",
                                      uints(m["material_indices"], m["material_indices_width"]))
    if "lines" in m:
        res["lines"] = ref("lines", uints(flat(m["lines"]), eiw))
    return res


def expect_mesh(mid, m, style):
    return {
        "id": mid, "name": m["name"],
        "vertices": len(m["vertices"]), "splits": len(m["splits"]),
        "face_corners": len(m["face_corners"]), "tris": len(m["tris"]),
        "faces": len(m["faces"]), "triangles_per_face": list(m["faces"]),
        "material_indices": list(m["material_indices"]) if "material_indices" in m else None,
        "uv_sets": [n for n, _ in m.get("uvs", [])],
        "has_normals": "normals" in m, "has_colors": "colors" in m,
        "first_vertex": list(m["vertices"][0]),
        "float_width": m.get("float_width") or 4, "indices_width": m.get("indices_width") or 4,
        "buffer_refs": style,
    }


def header(tag, root, name, **extra):
    h = {"version_major": 0, "version_minor": 0, "root": root, "asset_info": {"asset_name": name},
         "generator": GENERATOR, "generator_version": "1"}
    h.update(extra)
    return h


# ---------------------------------------------------------------- fixtures

def quad_new_style():
    """One quad face (2 tris), new-style integer references, u16 indices, f32 floats,
    split normals, one UV set, and an empty `lines` buffer (a 0-byte buffer)."""
    f = StfFile("quad-new-style")
    mid = uid("quad-new-style/mesh")
    m = {
        "name": "Quad", "float_width": 4, "indices_width": 2,
        # y-up plane, counter-clockwise seen from +y
        "vertices": [(-0.5, 0.0, 0.5), (0.5, 0.0, 0.5), (0.5, 0.0, -0.5), (-0.5, 0.0, -0.5)],
        "splits": [0, 1, 2, 3],
        "face_corners": [0, 1, 2, 3],
        "normals": [(0.0, 1.0, 0.0)] * 4,
        "uvs": [("UVMap", [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)])],
        "tris": [(0, 1, 2), (0, 2, 3)],
        "faces": [2],
        "lines": [],
    }
    res = {mid: mesh_resource(f, "mesh", m, "index")}
    doc = {"stf": header("quad-new-style", mid, "Quad"), "resources": res, "buffers": f.buffers_json()}
    data = f.container(doc, lambda d: json.dumps(d, separators=(",", ":")))
    return data, f, [expect_mesh(mid, m, "index")]


def tetra_f64():
    """A tetrahedron: f64 floats, u32 indices, old-style UUID references, split colours,
    two UV sets, two materials (material_indices_width 1, so the faces buffer (u32) and
    the material_indices buffer (u8) have different widths)."""
    f = StfFile("tetra-f64")
    mid = uid("tetra-f64/mesh")
    mats = [uid("tetra-f64/material/0"), uid("tetra-f64/material/1")]
    o = (0.1, 0.2, 1.0 / 3.0)
    verts = [o, (o[0] + 1.0, o[1], o[2]), (o[0], o[1] + 1.0, o[2]), (o[0], o[1], o[2] + 1.0)]
    tri_faces = [(0, 2, 1), (0, 1, 3), (1, 2, 3), (0, 3, 2)]  # outward-facing
    mat_idx = [0, 1, 1, 0]
    # A split per distinct (vertex, material) in face-corner order: 8 splits, 12 corners.
    split_keys, corners = [], []
    for fi, t in enumerate(tri_faces):
        for v in t:
            k = (v, mat_idx[fi])
            if k not in split_keys:
                split_keys.append(k)
            corners.append(split_keys.index(k))
    m = {
        "name": "Tetra", "float_width": 8, "indices_width": 4,
        "material_slots": mats, "material_indices_width": 1,
        "vertices": verts,
        "splits": [v for v, _ in split_keys],
        "face_corners": corners,
        "colors": [(v / 3.0, 0.25 + 0.5 * mm, 0.1, 1.0 - 0.25 * mm) for v, mm in split_keys],
        "uvs": [("UVMap", [(0.25 * v, 0.5 * mm) for v, mm in split_keys]),
                ("Lightmap", [(0.5 * mm + 0.125, 0.2 * v) for v, mm in split_keys])],
        "tris": [(3 * i, 3 * i + 1, 3 * i + 2) for i in range(4)],
        "faces": [1, 1, 1, 1],
        "material_indices": mat_idx,
    }
    res = {
        mats[0]: {"type": "stf.material", "name": "Warm"},
        mats[1]: {"type": "stf.material", "name": "Cool"},
        mid: mesh_resource(f, "mesh", m, "uuid"),
    }
    doc = {"stf": header("tetra-f64", mid, "Tetra f64", timestamp="2025-01-01T00:00:00+00:00",
                         metric_multiplier=1),
           "resources": res, "buffers": f.buffers_json()}
    data = f.container(doc, json.dumps)  # Python's default separators, as stf_blender writes
    return data, f, [expect_mesh(mid, m, "uuid")]


def two_meshes():
    """Two meshes in one file with a stf.node between them: a new-style u8 mesh whose
    single face is a fan of 2 triangles sharing corner 0 (non-ASCII name), and an
    old-style quad with default widths (no float_width / indices_width keys), triangulated
    on the other diagonal. An unreferenced 7-byte buffer sits between the two meshes'
    buffers; the "buffers" object lists ids in descending index order. Tab-indented JSON,
    written as UTF-8 (not ASCII-escaped)."""
    f = StfFile("two-meshes")
    ma, node, mb = uid("two-meshes/mesh/fan"), uid("two-meshes/node"), uid("two-meshes/mesh/quad")
    fan = {
        "name": "F\u00e4cher", "float_width": 4, "indices_width": 1,
        "vertices": [(0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (1.0, 1.0, 0.25), (0.0, 1.0, 0.0)],
        "splits": [0, 1, 2, 3],
        "face_corners": [0, 1, 2, 3],
        "normals": [(0.0, 0.0, 1.0), (0.0, 0.0, 1.0), (0.0, -0.25, 1.0), (0.0, 0.0, 1.0)],
        "uvs": [("UVMap", [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)])],
        "tris": [(0, 1, 2), (0, 2, 3)],
        "faces": [2],
    }
    quad = {
        "name": "Quad",
        "vertices": [(2.0, 0.0, 0.0), (3.0, 0.0, 0.0), (3.0, 1.0, 0.0), (2.0, 1.0, 0.0)],
        "splits": [0, 1, 2, 3],
        "face_corners": [0, 1, 2, 3],
        "tris": [(1, 2, 3), (1, 3, 0)],
        "faces": [2],
    }
    res = {ma: mesh_resource(f, "fan", fan, "index")}
    f.add("extra", b"\x00extra\xff")
    res[node] = {"type": "stf.node", "name": "Root", "children": [],
                 "trs": [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0]]}
    res[mb] = mesh_resource(f, "quad", quad, "uuid")
    doc = {"stf": header("two-meshes", node, "Two meshes"), "resources": res,
           "buffers": f.buffers_json(order=range(len(f.buffers) - 1, -1, -1))}
    data = f.container(doc, lambda d: json.dumps(d, indent="\t", ensure_ascii=False))
    return data, f, [expect_mesh(ma, fan, "index"), expect_mesh(mb, quad, "uuid")]


# JSON writers by file, for the check's "re-serialising gives the same bytes" test.
DUMPS = {
    "quad-new-style.stf": lambda d: json.dumps(d, separators=(",", ":")),
    "tetra-f64.stf": json.dumps,
    "two-meshes.stf": lambda d: json.dumps(d, indent="\t", ensure_ascii=False),
}


def fixtures():
    files = {}
    for name, make in (("quad-new-style.stf", quad_new_style), ("tetra-f64.stf", tetra_f64),
                       ("two-meshes.stf", two_meshes)):
        data, f, meshes = make()
        js_len = len(data) - sum(len(d) for _, d in f.buffers) - 16 - 8 * (len(f.buffers) + 1)
        files[name] = (data, {
            "version": [0, 0], "buffer_count": len(f.buffers) + 1, "json_bytes": js_len,
            "buffer_lengths": [js_len] + [len(d) for _, d in f.buffers],
            "file_bytes": len(data), "meshes": meshes,
        })
    return files


# ---------------------------------------------------------------- independent reader

def read_container(data):
    """(major, minor, lengths, json bytes, [binary buffers]); sizes must add up exactly."""
    assert data[:4] == b"STF0", "magic"
    major, minor, n = struct.unpack_from("<III", data, 4)
    assert n >= 1
    lens = list(struct.unpack_from("<%dQ" % n, data, 16))
    p = 16 + 8 * n
    assert p + sum(lens) == len(data), "lengths do not add up to the file size"
    parts = []
    for length in lens:
        parts.append(data[p:p + length])
        p += length
    return major, minor, lens, parts[0], parts[1:]


def walk_mesh(doc, bins, rid, res):
    """Resolve every buffer of one mesh (either reference style) and check the sizes and
    index ranges; return what expected.json records."""
    styles = set()

    def buf(value):
        if isinstance(value, bool):
            raise AssertionError("bool buffer reference")
        if isinstance(value, int):
            styles.add("index")
            bid = res["referenced_buffers"][value]
        else:
            styles.add("uuid")
            bid = value
        entry = doc["buffers"][bid]
        assert entry["type"] == "stf.buffer.included"
        return bins[entry["index"]]

    fw, iw = res.get("float_width", 4), res.get("indices_width", 4)
    assert fw in (4, 8) and iw in (1, 2, 4, 8)
    fch = {4: "f", 8: "d"}[fw]

    def fl(data, per):
        assert len(data) % (per * fw) == 0
        vals = struct.unpack("<%d%s" % (len(data) // fw, fch), data)
        return [vals[i:i + per] for i in range(0, len(vals), per)]

    def ui(data, width):
        assert len(data) % width == 0
        return [int.from_bytes(data[i:i + width], "little") for i in range(0, len(data), width)]

    verts = fl(buf(res["vertices"]), 3)
    splits = ui(buf(res["splits"]), iw)
    corners = ui(buf(res["face_corners"]), iw)
    tris = ui(buf(res["tris"]), iw)
    faces = ui(buf(res["faces"]), iw)  # faces: triangle counts, at indices_width
    assert len(tris) % 3 == 0
    assert all(v < len(verts) for v in splits)
    assert all(s < len(splits) for s in corners)
    assert all(c < len(corners) for c in tris)
    assert sum(faces) == len(tris) // 3 and all(k > 0 for k in faces)
    if "split_normals" in res:
        assert len(fl(buf(res["split_normals"]), 3)) == len(splits)
    if "split_colors" in res:
        assert len(fl(buf(res["split_colors"]), 4)) == len(splits)
    uv_names = []
    for uv in res.get("uvs", []):
        assert len(fl(buf(uv["uv"]), 2)) == len(splits)
        uv_names.append(uv["name"])
    mat = None
    if "material_indices" in res:
        mat = ui(buf(res["material_indices"]), res["material_indices_width"])
        assert len(mat) == len(faces)
        if "material_slots" in res:
            assert all(k < len(res["material_slots"]) for k in mat)
    for extra in ("lines", "sharp_edges", "sharp_face_indices"):
        if extra in res:
            assert len(buf(res[extra])) % iw == 0
    assert len(styles) == 1
    return {
        "id": rid, "name": res["name"],
        "vertices": len(verts), "splits": len(splits), "face_corners": len(corners),
        "tris": len(tris) // 3, "faces": len(faces), "triangles_per_face": faces,
        "material_indices": mat, "uv_sets": uv_names,
        "has_normals": "split_normals" in res, "has_colors": "split_colors" in res,
        "first_vertex": list(verts[0]), "float_width": fw, "indices_width": iw,
        "buffer_refs": styles.pop(),
    }


def walk(data):
    major, minor, lens, js, bins = read_container(data)
    doc = json.loads(js.decode("utf-8"))
    assert doc["stf"]["version_major"] == major and doc["stf"]["version_minor"] == minor
    assert doc["stf"]["root"] in doc["resources"]
    indices = sorted(e["index"] for e in doc["buffers"].values())
    assert indices == sorted(set(indices)) and all(0 <= k < len(bins) for k in indices)
    meshes = [walk_mesh(doc, bins, rid, r) for rid, r in doc["resources"].items()
              if r.get("type") == "stf.mesh"]
    return {"version": [major, minor], "buffer_count": len(lens), "json_bytes": lens[0],
            "buffer_lengths": lens, "file_bytes": len(data), "meshes": meshes}, doc, js


def walk_corpus():
    """Walk the real files (read-only) when the folder exists; report what they hold."""
    if not os.path.isdir(CORPUS):
        print("note  %s not found, corpus walk skipped" % CORPUS)
        return True
    ok = True
    for name in sorted(os.listdir(CORPUS)):
        if not name.endswith(".stf"):
            continue
        data = open(os.path.join(CORPUS, name), "rb").read()
        try:
            info, doc, js = walk(data)
            # Resources' own JSON bytes: the real exporter uses json.dumps defaults.
            same = json.dumps(doc).encode("utf-8") == js
            print("ok    corpus %s: version %s, %d buffers, json %d bytes, json.dumps-identical %s"
                  % (name, info["version"], info["buffer_count"], info["json_bytes"], same))
            for m in info["meshes"]:
                res = doc["resources"][m["id"]]
                print("      mesh %r: %d vertices, %d splits, %d corners, %d tris, faces %s (%d bytes"
                      " at indices_width %d), material_indices %s (width %s), uvs %s, normals %s,"
                      " refs %s, first vertex %s"
                      % (m["name"], m["vertices"], m["splits"], m["face_corners"], m["tris"],
                         m["triangles_per_face"], m["faces"] * m["indices_width"], m["indices_width"],
                         m["material_indices"], res.get("material_indices_width"), m["uv_sets"],
                         m["has_normals"], m["buffer_refs"], m["first_vertex"]))
            others = [r for r in doc["resources"].values()
                      if r.get("type") != "stf.mesh" and "referenced_buffers" in r]
            for r in others:
                print("      %s uses referenced_buffers (new style) %s" % (r["type"], r["referenced_buffers"]))
        except (AssertionError, KeyError, ValueError, struct.error) as e:
            print("FAIL  corpus %s: %r" % (name, e))
            ok = False
    return ok


def check():
    files = fixtures()
    expected = json.load(open(os.path.join(OUT, "expected.json"), encoding="utf-8"))
    ok = sorted(expected) == sorted(files)
    for name, (data, e) in sorted(files.items()):
        disk = open(os.path.join(OUT, name), "rb").read()
        good = disk == data and expected.get(name) == e
        try:
            info, doc, js = walk(disk)
            good &= info == e
            good &= DUMPS[name](doc).encode("utf-8") == js  # key order kept, writer known
        except (AssertionError, KeyError, ValueError, struct.error) as err:
            print("      %s: %r" % (name, err))
            good = False
        print("%s %s" % ("ok  " if good else "FAIL", name))
        ok &= good
    ok &= walk_corpus()
    return ok


def write():
    os.makedirs(OUT, exist_ok=True)
    files = fixtures()
    for name, (data, _) in files.items():
        open(os.path.join(OUT, name), "wb").write(data)
    with open(os.path.join(OUT, "expected.json"), "w", encoding="utf-8", newline="\n") as fh:
        json.dump({n: e for n, (_, e) in sorted(files.items())}, fh, indent=2, ensure_ascii=False)
        fh.write("\n")
    for name, (data, _) in sorted(files.items()):
        print("wrote %-20s %5d bytes" % (name, len(data)))


if __name__ == "__main__":
    sys.exit(0 if check() else 1) if sys.argv[1:] == ["--check"] else write()
