meta:
  id: unigine_anim
  title: UNIGINE .anim, versions an10 and an11
  file-extension: anim
  license: CC0-1.0
  ks-version: "0.11"
  endian: le
  imports:
    - unigine_cint
    - unigine_cstr
doc: |
  UNIGINE's skinned-mesh animation file, written from docs/unigine-anim.md (which corrects
  shared/specs/unigine-mesh-anim.txt: in an10 the flag comes before the frame count, and the
  quantisation boxes are really in the file).

  The magic `an10` / `an11` appears three times: at offset 0, between the header and the bind
  pose, and as the last 4 bytes. Counts are compact ints (unigine_cint.ksy), names are
  unigine_cstr.ksy strings. No padding or alignment.

  - an10: header bounds, bones, animation names; bind pose; one animation per name with
    u16 translation / scale quantised in per-animation boxes (value = min + size * q / 65535)
    and i16 rotations (/ 32767). Key mask bits 0-2 translation x/y/z, 3 rotation,
    4-6 scale x/y/z.
  - an11: bones, bind pose, one unnamed clip with f32 keys. Key mask bit 0 position (f32[3]),
    1 rotation (f32[4]), 2 scale (f32[3]).

  Keys are frame-major: all animated bones of frame 0, then frame 1, and so on.
seq:
  - id: magic
    type: str
    size: 4
    encoding: ASCII
    valid:
      any-of: ['"an10"', '"an11"']
  - id: bounds
    type: bounds
    if: version == 10
    doc: an10 only; the real file holds the "empty" sentinel (min 1e9, max -1e9, radius -1).
  - id: num_bones
    type: unigine_cint
  - id: bones
    type: bone
    repeat: expr
    repeat-expr: num_bones.value
  - id: num_animations
    type: unigine_cint
    if: version == 10
  - id: animation_names
    type: unigine_cstr
    repeat: expr
    repeat-expr: num_animations.value
    if: version == 10
  - id: magic_header_end
    type: str
    size: 4
    encoding: ASCII
    valid: magic
  - id: bind_pose
    type: transform
    repeat: expr
    repeat-expr: num_bones.value
  - id: animations
    type: animation_an10
    repeat: expr
    repeat-expr: num_animations.value
    if: version == 10
    doc: an10; one per name, in the same order.
  - id: clip
    type: clip_an11
    if: version == 11
    doc: an11; the single unnamed clip.
  - id: magic_end
    type: str
    size: 4
    encoding: ASCII
    valid: magic
instances:
  version:
    value: magic.substring(2, 4).to_i
    doc: 10 for an10, 11 for an11.
types:
  bounds:
    seq:
      - id: bbox_min
        type: vec3
      - id: bbox_max
        type: vec3
      - id: sphere_center
        type: vec3
      - id: sphere_radius
        type: f4
  bone:
    seq:
      - id: name
        type: unigine_cstr
      - id: parent
        type: s2
        doc: Index of the parent bone, -1 for a root (several roots may occur).
  transform:
    doc: 40 bytes; a bind-pose entry, local to the parent bone.
    seq:
      - id: position
        type: vec3
      - id: rotation
        type: quat
        doc: x, y, z, w (w last).
      - id: scale
        type: vec3
  animation_an10:
    seq:
      - id: num_animated_bones
        type: unigine_cint
      - id: bone_indices
        type: s2
        repeat: expr
        repeat-expr: num_animated_bones.value
        doc: Skeleton index of each animated bone.
      - id: translation_min
        type: vec3
      - id: translation_size
        type: vec3
        doc: (max - min) + 1, as the writer computes it.
      - id: scale_min
        type: vec3
      - id: scale_size
        type: vec3
      - id: flag
        type: u1
        doc: 0x7f in the known file; meaning a guess (which components are stored).
      - id: num_frames
        type: unigine_cint
      - id: frames
        type: frame_an10(num_animated_bones.value)
        repeat: expr
        repeat-expr: num_frames.value
  frame_an10:
    params:
      - id: num_keys
        type: u4
    seq:
      - id: keys
        type: key_an10
        repeat: expr
        repeat-expr: num_keys
  key_an10:
    doc: A missing component keeps its value from the previous frame.
    seq:
      - id: mask
        type: u1
      - id: translation_x
        type: u2
        if: mask & 0x01 != 0
      - id: translation_y
        type: u2
        if: mask & 0x02 != 0
      - id: translation_z
        type: u2
        if: mask & 0x04 != 0
      - id: rotation
        type: quat_i16
        if: mask & 0x08 != 0
      - id: scale_x
        type: u2
        if: mask & 0x10 != 0
      - id: scale_y
        type: u2
        if: mask & 0x20 != 0
      - id: scale_z
        type: u2
        if: mask & 0x40 != 0
  clip_an11:
    seq:
      - id: num_animated_bones
        type: unigine_cint
      - id: bone_indices
        type: s2
        repeat: expr
        repeat-expr: num_animated_bones.value
      - id: num_frames
        type: unigine_cint
      - id: frames
        type: frame_an11(num_animated_bones.value)
        repeat: expr
        repeat-expr: num_frames.value
  frame_an11:
    params:
      - id: num_keys
        type: u4
    seq:
      - id: keys
        type: key_an11
        repeat: expr
        repeat-expr: num_keys
  key_an11:
    doc: Each mask bit gates a whole vector.
    seq:
      - id: mask
        type: u1
      - id: position
        type: vec3
        if: mask & 0x01 != 0
      - id: rotation
        type: quat
        if: mask & 0x02 != 0
      - id: scale
        type: vec3
        if: mask & 0x04 != 0
  quat_i16:
    doc: Each component / 32767.
    seq:
      - id: x
        type: s2
      - id: y
        type: s2
      - id: z
        type: s2
      - id: w
        type: s2
  quat:
    seq:
      - id: x
        type: f4
      - id: y
        type: f4
      - id: z
        type: f4
      - id: w
        type: f4
  vec3:
    seq:
      - id: x
        type: f4
      - id: y
        type: f4
      - id: z
        type: f4
