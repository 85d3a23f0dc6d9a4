"""Scenes made and exported by Blender itself, for tests/interchange/blender.rs to import.

    blender -b --factory-startup --python tests/blender/make_scenes.py -- OUT_DIR

Writes, with Blender's own glTF exporter, a few files of the kinds people bring:
primitives, a scene of placed, rotated and scaled objects with a linked duplicate (one
mesh, two objects), a shape-keyed mesh, a rigged mesh with an action, a rig turned,
scaled and moved as FBX imports leave it, a mesh with two
UV maps, a mesh compressed with Blender's Draco encoder, and a .gltf + .bin pair whose
names hold spaces. Beside them, expected.json gives Blender's own numbers for each:
triangles (of the evaluated, triangulated meshes), the world-space bounding box in
glTF's axes (+Y up: Blender's (x, y, z) is glTF's (x, z, -y)), and the counts of bones,
shape keys (besides the basis), UV maps and actions.
"""
import json
import os
import sys

import numpy

numpy.bool = bool  # Debian's Blender 3.4 glTF add-on still uses it

import bpy  # noqa: E402
from mathutils import Vector  # noqa: E402

out = sys.argv[sys.argv.index("--") + 1]
os.makedirs(out, exist_ok=True)
expected = {}


def reset():
    bpy.ops.wm.read_factory_settings(use_empty=True)


def numbers():
    deps = bpy.context.evaluated_depsgraph_get()
    tris = 0
    lo = [float("inf")] * 3
    hi = [float("-inf")] * 3
    for o in bpy.context.scene.objects:
        if o.type != "MESH":
            continue
        ev = o.evaluated_get(deps)
        mesh = ev.to_mesh()
        mesh.calc_loop_triangles()
        tris += len(mesh.loop_triangles)
        for v in mesh.vertices:
            w = o.matrix_world @ Vector(v.co)
            g = (w.x, w.z, -w.y)
            for k in range(3):
                lo[k] = min(lo[k], g[k])
                hi[k] = max(hi[k], g[k])
        ev.to_mesh_clear()
    bones = sum(len(o.data.bones) for o in bpy.context.scene.objects if o.type == "ARMATURE")
    keys = sum(
        len(o.data.shape_keys.key_blocks) - 1
        for o in bpy.context.scene.objects
        if o.type == "MESH" and o.data.shape_keys
    )
    uv_sets = max(
        [len(o.data.uv_layers) for o in bpy.context.scene.objects if o.type == "MESH"] or [0]
    )
    return {
        "triangles": tris,
        "bbox_min": lo,
        "bbox_max": hi,
        "bones": bones,
        "shape_keys": keys,
        "uv_sets": uv_sets,
        "actions": len(bpy.data.actions),
    }


def export(name, fmt="GLB", **options):
    path = os.path.join(out, name)
    bpy.ops.export_scene.gltf(filepath=path, export_format=fmt, export_apply=False, **options)
    expected[name] = numbers()


# Primitives, one file each.
for name, add in [
    ("cube.glb", lambda: bpy.ops.mesh.primitive_cube_add(size=2)),
    ("uv_sphere.glb", lambda: bpy.ops.mesh.primitive_uv_sphere_add(segments=24, ring_count=12)),
    ("cylinder.glb", lambda: bpy.ops.mesh.primitive_cylinder_add(vertices=20, depth=3)),
    ("monkey.glb", lambda: bpy.ops.mesh.primitive_monkey_add()),
]:
    reset()
    add()
    export(name)

# Placed objects: moved, turned, scaled (one mirrored), and a linked duplicate.
reset()
bpy.ops.mesh.primitive_cube_add(size=1, location=(3, 0, 1))
bpy.ops.mesh.primitive_cone_add(location=(-2, 4, 0), rotation=(0.5, 0.2, 1.0))
cone = bpy.context.object
cone.scale = (1.0, 2.0, 0.5)
bpy.ops.object.duplicate_move_linked()
twin = bpy.context.object
twin.location = (0, -5, 2)
twin.scale = (-1.0, 1.0, 1.0)
bpy.ops.mesh.primitive_torus_add(location=(0, 0, 5))
bpy.ops.object.empty_add(location=(1, 1, 1), rotation=(0, 0, 0.7))
parent = bpy.context.object
bpy.ops.mesh.primitive_ico_sphere_add(location=(2, 0, 0))
child = bpy.context.object
child.parent = parent
export("placed objects.glb")

# A shape-keyed mesh (the base shape is what import carries).
reset()
bpy.ops.mesh.primitive_plane_add(size=2)
plane = bpy.context.object
plane.shape_key_add(name="Basis")
key = plane.shape_key_add(name="Lift")
key.data[0].co.z = 1.0
export("shape keyed.glb")

# A rigged mesh: a cylinder bound to a two-bone armature at the origin.
reset()
bpy.ops.object.armature_add(location=(0, 0, 0))
arm = bpy.context.object
bpy.ops.object.mode_set(mode="EDIT")
b = arm.data.edit_bones[0]
b.tail = (0, 0, 1)
b2 = arm.data.edit_bones.new("Bone.001")
b2.head = (0, 0, 1)
b2.tail = (0, 0, 2)
b2.parent = b
bpy.ops.object.mode_set(mode="OBJECT")
bpy.ops.mesh.primitive_cylinder_add(vertices=12, depth=2, location=(0, 0, 1), radius=0.3)
cyl = bpy.context.object
cyl.select_set(True)
arm.select_set(True)
bpy.context.view_layer.objects.active = arm
bpy.ops.object.parent_set(type="ARMATURE_AUTO")
# An action: the upper bone turns over 20 frames.
bpy.context.view_layer.objects.active = arm
bpy.ops.object.mode_set(mode="POSE")
pb = arm.pose.bones["Bone.001"]
pb.rotation_mode = "QUATERNION"
pb.keyframe_insert("rotation_quaternion", frame=1)
pb.rotation_quaternion = (0.9239, 0.3827, 0.0, 0.0)
pb.keyframe_insert("rotation_quaternion", frame=20)
bpy.ops.object.mode_set(mode="OBJECT")
arm.animation_data.action.name = "Bend"
export("rigged.glb")

# The same kind of rig as an FBX import leaves it: the armature object turned a quarter
# about X, scaled by 0.01 and moved; the mesh bound to three bones, one animated.
reset()
bpy.ops.object.armature_add(location=(0, 0, 0))
arm = bpy.context.object
bpy.ops.object.mode_set(mode="EDIT")
root = arm.data.edit_bones[0]
root.head, root.tail = (0, 0, 0), (0, 100, 0)
mid = arm.data.edit_bones.new("Mid")
mid.head, mid.tail, mid.parent = (0, 100, 0), (0, 200, 0), root
tip = arm.data.edit_bones.new("Tip")
tip.head, tip.tail, tip.parent = (0, 200, 0), (0, 300, 0), mid
bpy.ops.object.mode_set(mode="OBJECT")
bpy.ops.mesh.primitive_cylinder_add(vertices=8, depth=300, radius=20, location=(0, 150, 0),
                                    rotation=(1.5708, 0, 0))
cyl = bpy.context.object
cyl.select_set(True)
arm.select_set(True)
bpy.context.view_layer.objects.active = arm
bpy.ops.object.parent_set(type="ARMATURE_AUTO")
arm.rotation_euler = (1.5708, 0, 0)
arm.scale = (0.01, 0.01, 0.01)
arm.location = (2, -1, 0.5)
bpy.ops.object.mode_set(mode="POSE")
pb = arm.pose.bones["Tip"]
pb.rotation_mode = "QUATERNION"
pb.keyframe_insert("rotation_quaternion", frame=1)
pb.rotation_quaternion = (0.9239, 0.0, 0.0, 0.3827)
pb.keyframe_insert("rotation_quaternion", frame=10)
bpy.ops.object.mode_set(mode="OBJECT")
bpy.context.scene.frame_set(1)
export("rig turned and scaled.glb")

# A mesh with two UV maps (the second becomes TEXCOORD_1).
reset()
bpy.ops.mesh.primitive_cube_add(size=2)
cube = bpy.context.object
cube.data.uv_layers.new(name="Lightmap")
export("two uv maps.glb")

# Draco-compressed by Blender's own encoder (KHR_draco_mesh_compression).
reset()
bpy.ops.mesh.primitive_monkey_add()
export("monkey draco.glb", export_draco_mesh_compression_enable=True)

# Separate .gltf and .bin, names with spaces (the URI is percent-encoded).
reset()
bpy.ops.mesh.primitive_cube_add(size=3, location=(1, 2, 3))
export("my model.gltf", fmt="GLTF_SEPARATE")

with open(os.path.join(out, "expected.json"), "w") as f:
    json.dump(expected, f, indent=1)
print("MADE", len(expected), flush=True)
