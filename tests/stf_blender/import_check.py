"""stf_blender (the STF reference importer) as a real client of meshcodec's STF output,
run by tests/interchange/stf_blender.rs in Blender 4.5 as a Python module (PyPI bpy):

    python3 tests/stf_blender/import_check.py ADDONS MANIFEST.json

ADDONS is a folder holding the add-ons `stf_blender` (emperorofmars/stf_blender at
7b60a6a, 0.1.7) and `slot_link` (emperorofmars/blender_slot_link at abd80ac, 0.0.13:
stf_blender imports animations only with it). MANIFEST.json lists STF files, each with
the glTF export of the same source and what stf_blender must show:

- "bones", "vertex_groups", "actions": counts after the import (no error reported);
- "deform": the skinned meshes as the armature deforms them, at rest (a file without
  animations) or at the given times of each animation (by name order), have the bounding
  box Blender's own glTF importer gives the glTF export at the same time (both at the
  source's 30 frames a second);
- "flat": every face corner's normal is its face's normal (within 0.1 degrees), as the
  glTF export (no normals: flat) is shaded; the largest angle, and the area of its face
  over its longest edge squared, are printed either way.

Prints "OK name ..." or "FAIL name: what differs" per file, then "DONE n".
"""
import json
import math
import os
import sys
import types

ADDONS = sys.argv[1]
sys.path.insert(0, ADDONS)

import bpy  # noqa: E402  (PyPI's bpy: Blender as a module)
import addon_utils  # noqa: E402  (importable once bpy is)
from mathutils import Vector  # noqa: E402

for name in ("slot_link", "stf_blender"):
    if addon_utils.enable(name, default_set=True, handle_error=None) is None:
        print(f"FAIL setup: add-on {name} not enabled from {ADDONS}", flush=True)
        os._exit(1)

from stf_blender.stfblender.io.importer.importer import import_stf_file  # noqa: E402


def clear():
    for coll in (bpy.data.objects, bpy.data.meshes, bpy.data.armatures, bpy.data.actions):
        for x in list(coll):
            coll.remove(x)
    for c in list(bpy.data.collections):
        bpy.data.collections.remove(c)
    bpy.context.scene.render.fps = 30
    bpy.context.scene.render.fps_base = 1.0
    bpy.context.scene.frame_set(0)


def objects(kind):
    return [o for o in bpy.context.scene.objects if o.type == kind]


def deformed_box():
    """The bounding box of the skinned meshes as evaluated (armature applied), in the
    world."""
    deps = bpy.context.evaluated_depsgraph_get()
    lo, hi = [math.inf] * 3, [-math.inf] * 3
    # Only the skinned meshes: Blender's glTF importer adds an icosphere as bone shape.
    skinned = [o for o in objects("MESH") if any(m.type == "ARMATURE" for m in o.modifiers)]
    for o in skinned:
        ev = o.evaluated_get(deps)
        m = ev.to_mesh()
        for v in m.vertices:
            w = ev.matrix_world @ Vector(v.co)
            for k in range(3):
                lo[k] = min(lo[k], w[k])
                hi[k] = max(hi[k], w[k])
        ev.to_mesh_clear()
    return lo, hi


def boxes(times):
    """Deformed boxes at rest, or per action (by position) at each time in seconds."""
    arms = objects("ARMATURE")
    # At rest only without animations: Blender's glTF importer poses the armature by the
    # first one, and unassigning it leaves the bones posed.
    out = {} if len(bpy.data.actions) else {"rest": deformed_box()}
    for k, action in enumerate(sorted(bpy.data.actions, key=lambda a: a.name)):
        for arm in arms:
            ad = arm.animation_data or arm.animation_data_create()
            ad.action = action
            if len(action.slots) > 0:
                ad.action_slot = action.slots[0]
        for t in times.get(k, []):
            bpy.context.scene.frame_set(int(round(t * 30)))
            out[f"{k}@{t:.3f}"] = deformed_box()
    for arm in arms:
        if arm.animation_data:
            arm.animation_data.action = None
    bpy.context.scene.frame_set(0)
    return out


def flat_angle():
    """The largest angle (degrees) between a face corner's normal and its face's, and the
    area of that face relative to its longest edge squared."""
    worst, thin = 0.0, 1.0
    for o in objects("MESH"):
        m = o.data
        corner = m.corner_normals
        for p in m.polygons:
            n = p.normal
            if n.length < 0.5:
                continue
            for li in p.loop_indices:
                c = corner[li].vector
                if c.length < 0.5:
                    continue
                a = math.degrees(n.angle(c))
                if a > worst:
                    vs = [m.vertices[v].co for v in p.vertices]
                    edge = max((vs[i] - vs[i - 1]).length for i in range(len(vs)))
                    worst, thin = a, p.area / max(edge * edge, 1e-30)
    return worst, thin


def check(e):
    clear()
    r = import_stf_file(e["stf"], types.SimpleNamespace(import_baked_animations=False))
    if not r.success:
        return f"import failed: {r.error_message}"
    bad = [w.to_string() for w in r.warnings]
    if bad:
        return f"the importer reported: {bad[:3]}"
    got = {
        "bones": sum(len(a.data.bones) for a in objects("ARMATURE")),
        "vertex_groups": sum(len(o.vertex_groups) for o in objects("MESH")),
        "actions": len(bpy.data.actions),
    }
    for key in ("bones", "vertex_groups", "actions"):
        if key in e and got[key] != e[key]:
            return f"{key}: {got[key]}, expected {e[key]}"
    weighted = 0
    for o in objects("MESH"):
        weighted += sum(1 for v in o.data.vertices if any(g.weight > 0 for g in v.groups))
        if o.vertex_groups and not any(m.type == "ARMATURE" and m.object for m in o.modifiers):
            return f"mesh {o.name} has weights but no armature modifier"
    if e.get("vertex_groups", 0) > 0 and weighted == 0:
        return "no vertex carries a weight"
    note = f"bones {got['bones']}, groups {got['vertex_groups']}, weighted vertices {weighted}, actions {got['actions']}"
    angle, thin = flat_angle()
    note += f", flat within {angle:.3f} deg (on a face of area {thin:.1e} x edge^2)"
    if e.get("flat") and angle > 0.1:
        return f"faces are not flat: a corner normal is {angle:.1f} degrees off its face's (area {thin:.1e} x edge^2)"
    if "deform" in e:
        times = {int(k): v for k, v in e["deform"].items()}
        ours = boxes(times)
        clear()
        bpy.ops.import_scene.gltf(filepath=e["glb"])
        theirs = boxes(times)
        worst = 0.0
        for key, (lo, hi) in theirs.items():
            if key not in ours:
                return f"no pose {key} in the STF import"
            size = max(1e-6, max(h - l for l, h in zip(lo, hi)))
            olo, ohi = ours[key]
            d = max(abs(a - b) for a, b in zip(lo + hi, olo + ohi)) / size
            worst = max(worst, d)
            if d > 2e-3:
                return f"deformed box at {key}: {olo, ohi}, glTF gives {lo, hi}"
        note += f", {len(theirs)} poses match glTF within {worst:.2e} of the size"
    return "OK " + note


def main():
    manifest = json.load(open(sys.argv[2]))
    for e in manifest:
        try:
            res = check(e)
        except Exception as err:  # an importer error is a failure, not a crash
            res = f"raised {err!r}"
        if res.startswith("OK "):
            print(f"OK {e['name']}: {res[3:]}", flush=True)
        else:
            print(f"FAIL {e['name']}: {res}", flush=True)
    print(f"DONE {len(manifest)}", flush=True)


main()
sys.stdout.flush()
# Blender's module can hang on interpreter exit once add-ons are registered.
os._exit(0)
