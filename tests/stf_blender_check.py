"""Reads an STF file the way stf_blender's importer does, without Blender, and fails
(exit 1) where that importer would fail or build a mesh whose per-corner data does not
line up. Standard library only; written from stf_blender's importer (stf_file.py,
stf_import_context.py, stf_prefab.py, stf_node.py, stf_instance_mesh.py,
mesh_import.py, stf_instance_armature.py, stf_armature.py, stf_bone.py,
stf_animation_import.py) and stfblender_common's STF_JsonDefinition, independently of
meshcodec.

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
    imported = set()
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
                if "armature" in mesh:
                    check_skin(mesh, inst, resource, buffer, resources, imported)
                meshes += 1
            elif inst["type"] == "stf.instance.armature":
                check_armature(resource(inst, inst["armature"]), inst, resource, resources)
            # import_resource registers a node once imported; an armature_instance must
            # name one already imported (a node has no collection otherwise).
            imported.add(root["referenced_resources"][node_ref] if isinstance(node_ref, int) else node_ref)
    if meshes == 0:
        fail("no mesh instance under the root prefab")
    for a in root.get("animations", []):
        check_animation(resource(root, a), resources)
    print("ok: %d meshes" % meshes)


def check_armature(arm, inst, resource, resources):
    # stf_armature.py: root_bones; stf_bone.py: translation, rotation, length required,
    # children; Blender deletes a bone of zero length.
    if arm["type"] != "stf.armature":
        fail("armature instance names " + arm["type"])
    todo = [resource(arm, b) for b in arm.get("root_bones", [])]
    while todo:
        b = todo.pop()
        if b["type"] != "stf.bone":
            fail("bone is " + b["type"])
        if len(b["translation"]) != 3 or len(b["rotation"]) != 4 or not b["length"] > 0:
            fail("bone %r: translation, rotation or length" % b.get("name"))
        todo.extend(resource(b, c) for c in b.get("children", []))
    for bone_id, trs in inst.get("pose", {}).items():
        if resources.get(bone_id, {}).get("type") != "stf.bone":
            fail("pose names no bone: " + bone_id)
        if [len(x) for x in trs] != [3, 4, 3]:
            fail("pose of " + bone_id)


def check_skin(m, inst, resource, buffer, resources, imported):
    # mesh_import.py, "Weight paint": bones are matched by their id (strings).
    arm = resource(m, m["armature"])
    if arm["type"] != "stf.armature":
        fail("mesh armature is " + arm["type"])
    bones = m["bones"]
    for b in bones:
        if not isinstance(b, str) or resources.get(b, {}).get("type") != "stf.bone":
            fail("mesh bones name no bone: %r" % b)
    lw = m.get("weight_lens_width", 1)
    bw = m.get("bone_indices_width", 1)
    fw = m.get("float_width", 4)
    lens = buffer(m, m["weight_lens"])
    vertices = len(buffer(m, m["vertices"])) // (3 * fw)
    if len(lens) != vertices * lw:
        fail("weight_lens for %d of %d vertices" % (len(lens) // lw, vertices))
    fmt = {1: "B", 2: "H", 4: "I", 8: "Q"}
    total = sum(struct.unpack("<%d%s" % (vertices, fmt[lw]), lens))
    idx = buffer(m, m["bone_indices"])
    if len(idx) != total * bw or len(buffer(m, m["weights"])) != total * fw:
        fail("bone_indices or weights do not hold %d weights" % total)
    if any(i >= len(bones) for i in struct.unpack("<%d%s" % (total, fmt[bw]), idx)):
        fail("a bone index past bones")
    if "armature_instance" in inst:
        node = inst["referenced_resources"][inst["armature_instance"]]
        if node not in imported:
            fail("armature_instance names a node not imported before the mesh")


def check_animation(a, resources):
    # stf_animation_import.py: tracks of target paths (ids as strings), timepoints and
    # subtracks of keyframes [source_of_truth, value, interpolation, ...].
    if a["type"] != "stf.animation":
        fail("prefab animation is " + a["type"])
    for t in a.get("tracks", []):
        target = t["target"]
        if target[0] not in resources or target[1] != "instance":
            fail("track target %r" % target)
        if resources.get(target[2], {}).get("type") != "stf.bone" or target[3] not in "trs":
            fail("track target %r" % target)
        width = {"t": 3, "r": 4, "s": 3}[target[3]]
        if len(t["subtracks"]) != width:
            fail("track of %d subtracks" % len(t["subtracks"]))
        for sub in t["subtracks"]:
            if len(sub["keyframes"]) != len(t["timepoints"]):
                fail("keyframes for %d timepoints" % len(t["timepoints"]))


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
    if layout and "sharp_face_indices" in m:
        # mesh_import.py: polygons[i].use_smooth = False, indices_width bytes each. (Not
        # checked on their files: a rewritten mesh keeps their sharp faces as written.)
        if any(i >= len(faces) for i in uints(buffer(m, m["sharp_face_indices"]))):
            fail("a sharp face index past the faces")
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
