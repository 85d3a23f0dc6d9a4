"""Reads an STF file the way stf_blender's importer does, without Blender, and fails
(exit 1) where that importer would fail or build a mesh whose per-corner data does not
line up. Standard library only; written from stf_blender's importer (stf_file.py,
stf_import_context.py, stf_prefab.py, stf_node.py, stf_instance_mesh.py,
mesh_import.py) and stfblender_common's STF_JsonDefinition, independently of meshcodec.

    python3 tests/stf_blender_check.py FILE.stf [--theirs]

--theirs: a file whose document and mesh layout another tool made (meshes rewritten by
the code under test): the header keys and the checks that only matter for how Blender
lays out loops are skipped; the buffers the importer reads are still checked.
"""

import json
import struct
import sys


def fail(msg):
    print("stf_blender_check: " + msg)
    sys.exit(1)


def main():
    path = sys.argv[1]
    layout = "--theirs" not in sys.argv[2:]
    data = open(path, "rb").read()
    if data[:4] != b"STF0":
        fail("magic")
    count = struct.unpack_from("<I", data, 12)[0]
    if count < 1:
        fail("no JSON buffer")
    lens = struct.unpack_from("<%dQ" % count, data, 16)
    pos = 16 + 8 * count
    definition = json.loads(data[pos:pos + lens[0]].decode("utf-8"))
    pos += lens[0]
    buffers = []
    for n in lens[1:]:
        buffers.append(data[pos:pos + n])
        pos += n
    if len(buffers[-1:]) and len(buffers[-1]) != lens[-1]:
        fail("file shorter than its buffer lengths")

    # STF_JsonDefinition.from_dict / STF_Meta_Json.from_dict
    stf = definition["stf"] if layout else definition.get("stf", {})
    if not layout:
        pass
    elif "version" in stf:
        stf["version"][0], stf["version"][1]
    else:
        stf["version_major"], stf["version_minor"]
    for k in ["root", "generator", "generator_version", "timestamp", "metric_multiplier"]:
        if k not in stf and layout:
            fail("stf." + k + " missing")
    resources = definition["resources"]
    table = {}
    for key, value in definition["buffers"].items():
        if value["type"] != "stf.buffer.included":
            fail("buffer type " + value["type"])
        table[key] = value["index"]

    def resource(parent, ref):
        if isinstance(ref, str):
            rid = ref
        else:
            rid = parent["referenced_resources"][ref]
        r = resources.get(rid)
        if not isinstance(r, dict) or "type" not in r:
            fail("invalid JSON resource " + str(rid))
        return r

    def buffer(parent, ref):
        bid = ref if isinstance(ref, str) else parent["referenced_buffers"][ref]
        if bid not in table:
            fail("no buffer " + str(bid))
        return buffers[table[bid]]

    meshes = 0
    if not layout:
        for r in resources.values():
            if r.get("type") == "stf.mesh":
                check_mesh(r, buffer, False)
                meshes += 1
        print("ok: %d meshes" % meshes)
        return
    root = resources[stf["root"]]
    if root["type"] != "stf.prefab":
        fail("root is " + root["type"])
    for node_ref in root.get("root_nodes", []):
        node = resource(root, node_ref)
        if node["type"] != "stf.node":
            fail("root node is " + node["type"])
        trs = node["trs"]
        if [len(trs[0]), len(trs[1]), len(trs[2])] != [3, 4, 3]:
            fail("trs")
        for child in node.get("children", []):
            resource(node, child)
        if "instance" in node:
            inst = resource(node, node["instance"])
            if inst["type"] == "stf.instance.mesh":
                mesh = resource(inst, inst["mesh"])
                if mesh["type"] != "stf.mesh":
                    fail("instance names " + mesh["type"])
                check_mesh(mesh, buffer, layout)
                meshes += 1
    if meshes == 0:
        fail("no mesh instance under the root prefab")
    print("ok: %d meshes" % meshes)


def check_mesh(m, buffer, layout):
    iw = m.get("indices_width", 4)
    fw = m.get("float_width", 4)

    def uints(b, w=iw, f=None):
        f = f or {1: "B", 2: "H", 4: "I", 8: "Q"}[w]
        if len(b) % w:
            fail("buffer of %d bytes for %d-byte indices" % (len(b), w))
        return list(struct.unpack("<%d%s" % (len(b) // w, f), b))

    def floats(b, n):
        if len(b) % (fw * n):
            fail("buffer of %d bytes for %d floats of %d bytes" % (len(b), n, fw))
        return len(b) // (fw * n)

    vertices = floats(buffer(m, m["vertices"]), 3)
    splits = uints(buffer(m, m["splits"]))
    corners = uints(buffer(m, m["face_corners"])) if "face_corners" in m else list(range(len(splits)))
    full_splits = [splits[c] for c in corners]
    if any(v >= vertices for v in splits):
        fail("split names a missing vertex")
    faces = []
    if "faces" in m and "tris" in m:
        face_lens = uints(buffer(m, m["faces"]))
        tris = uints(buffer(m, m["tris"]))
        t = 0
        nxt = 0
        for n in face_lens:
            if t + 3 * n > len(tris):
                fail("faces name more triangles than tris holds")
            cs = sorted(set(tris[t:t + 3 * n]))
            t += 3 * n
            faces.append([full_splits[c] for c in cs])
            if layout and cs != list(range(nxt, nxt + len(cs))):
                fail("face corners are not numbered face by face")
            nxt += len(cs)
    loops = sum(len(f) for f in faces)
    if layout:
        seen = set()
        for f in faces:
            if len(set(f)) != len(f) or len(f) < 3:
                fail("a face Blender's validation would remove: %r" % f)
            key = tuple(sorted(f))
            if key in seen:
                fail("a duplicate face Blender's validation would remove: %r" % f)
            seen.add(key)
        if loops != len(corners):
            fail("%d loops for %d face corners" % (loops, len(corners)))
    if "split_normals" in m:
        if floats(buffer(m, m["split_normals"]), 3) != len(splits):
            fail("split_normals")
    for uv in m.get("uvs", []):
        uv.get("name", "UVMap")
        if floats(buffer(m, uv["uv"]), 2) != len(splits):
            fail("uv set size")
    if "split_colors" in m:
        if floats(buffer(m, m["split_colors"]), 4) != len(splits):
            fail("split_colors")
    for slot in m.get("material_slots", []):
        if slot is not None and not isinstance(slot, (str, int)):
            fail("material slot")
    if "material_indices" in m:
        mw = m.get("material_indices_width", 4)
        mi = uints(buffer(m, m["material_indices"]), mw)
        if len(mi) < len(faces):
            fail("fewer material indices than faces")
    for b in m.get("blendshapes", []):
        offsets = floats(buffer(m, b["position_offsets"]), 3)
        if "indices" in b:
            idx = uints(buffer(m, b["indices"]))
            if len(idx) != offsets or any(i >= vertices for i in idx):
                fail("blendshape indices")
        elif offsets != vertices:
            fail("blendshape offsets for %d of %d vertices" % (offsets, vertices))


if __name__ == "__main__":
    main()
