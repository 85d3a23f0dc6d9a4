meta:
  id: unigine_mesh
  title: UNIGINE .mesh, versions ms10 to ms14
  file-extension: mesh
  license: CC0-1.0
  ks-version: "0.11"
  endian: le
  imports:
    - unigine_cint
    - unigine_cstr
doc: |
  UNIGINE's static and skinned mesh file. Written from shared/specs/unigine-mesh-anim.txt,
  the "UNIGINE" section of shared/design/FORMAT-NOTES.md (it wins where they differ),
  docs/unigine-ms14.md and docs/unigine-anim.md (embedded animations).

  The magic `ms1X` (a little-endian u32 spelling four ASCII bytes) opens the file, separates
  its parts, and closes it. Counts are compact ints (unigine_cint.ksy), names are
  unigine_cstr.ksy strings. No padding or alignment anywhere.

  Per version:
  - ms10-ms12: an animation count and names after the bones, and one embedded animation per
    name after the bind pose.
  - ms10: no lightmap bytes in the surface header, and 7-byte tangents (i16 x, y, z + i8 w).
  - ms11-ms13: 8-byte tangents (i16 x, y, z, w; value / 32767).
  - ms12+: u8 lightmap UV channel and u8 lightmap resolution in each surface header.
  - ms10-ms13: the geometry of each surface is stored plainly (`geometry`).
  - ms14: a `tree_leaf_tris` count after the magic, index counts and per-target vertex
    counts in the surface headers, an i64 memory estimate; the geometry and the spatial
    tree of each surface are LZ4 raw blocks (`geometry_blocks`, `tree_blocks`; parse the
    decompressed bytes with unigine_ms14_geometry.ksy and unigine_ms14_tree.ksy), and a
    trailing table of surface offsets.

  Index width (u1 / u2 / u4): coordinate indices by the target-0 vertex (position) count,
  triangle indices by the target-0 tangent (triangle-vertex) count: < 256 -> u1,
  < 65536 -> u2, otherwise u4.
seq:
  - id: magic
    type: str
    size: 4
    encoding: ASCII
    valid:
      any-of: ['"ms10"', '"ms11"', '"ms12"', '"ms13"', '"ms14"']
  - id: tree_leaf_tris
    type: unigine_cint
    if: version >= 14
    doc: ms14 only; 4 in every known file (a node with fewer triangles is a leaf, it seems).
  - id: bounds
    type: bounds
  - id: num_bones
    type: unigine_cint
  - id: bones
    type: bone
    repeat: expr
    repeat-expr: num_bones.value
  - id: num_animations
    type: unigine_cint
    if: version <= 12
  - id: animation_names
    type: unigine_cstr
    repeat: expr
    repeat-expr: num_animations.value
    if: version <= 12
  - id: num_surfaces
    type: unigine_cint
  - id: surfaces
    type: surface_header
    repeat: expr
    repeat-expr: num_surfaces.value
  - id: mem_estimate
    type: s8
    if: version >= 14
    doc: ms14 only; "estimated memory usage", formula unknown, kept as read.
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
    type: embedded_animation
    repeat: expr
    repeat-expr: num_animations.value
    if: version <= 12
    doc: One per name in `animation_names`, in the same order.
  - id: geometry
    type: surface_geometry(surfaces[_index].num_targets.value)
    repeat: expr
    repeat-expr: num_surfaces.value
    if: version <= 13
  - id: geometry_blocks
    type: lz4_block
    repeat: expr
    repeat-expr: num_surfaces.value
    if: version >= 14
    doc: One per surface; content parsed by unigine_ms14_geometry.
  - id: magic_geometry_end
    type: str
    size: 4
    encoding: ASCII
    valid: magic
    if: version >= 14
  - id: tree_blocks
    type: lz4_block
    repeat: expr
    repeat-expr: num_surfaces.value
    if: version >= 14
    doc: One per surface; content parsed by unigine_ms14_tree.
  - id: magic_tree_end
    type: str
    size: 4
    encoding: ASCII
    valid: magic
    if: version >= 14
  - id: surface_offsets
    type: s8
    repeat: expr
    repeat-expr: num_surfaces.value
    if: version >= 14
    doc: File offset of each surface's geometry block (of its `size` field).
  - id: magic_end
    type: str
    size: 4
    encoding: ASCII
    valid: magic
    doc: The last 4 bytes of the file.
instances:
  version:
    value: magic.substring(2, 4).to_i
    doc: 10 for ms10 ... 14 for ms14.
types:
  bounds:
    doc: Bounding box and bounding sphere.
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
        doc: Index of the parent bone, -1 for a root.
  surface_header:
    seq:
      - id: name
        type: unigine_cstr
      - id: lightmap_channel
        type: u1
        if: _root.version >= 12
        doc: UV channel used for the lightmap (ms12+).
      - id: lightmap_resolution
        type: u1
        if: _root.version >= 12
        doc: Lightmap resolution code (ms12+).
      - id: num_coord_indices
        type: unigine_cint
        if: _root.version >= 14
        doc: ms14; CI, the coordinate index count of the geometry block.
      - id: num_triangle_indices
        type: unigine_cint
        if: _root.version >= 14
        doc: ms14; TI, the triangle index count of the geometry block.
      - id: bounds
        type: bounds
      - id: num_targets
        type: unigine_cint
        doc: Morph target count (1 for a mesh without morphs).
      - id: targets
        type: target_header
        repeat: expr
        repeat-expr: num_targets.value
  target_header:
    seq:
      - id: name
        type: unigine_cstr
      - id: num_vertices
        type: unigine_cint
        if: _root.version >= 14
        doc: ms14; the target's position count.
  transform:
    doc: 40 bytes; a bind-pose entry.
    seq:
      - id: position
        type: vec3
      - id: rotation
        type: quat
        doc: x, y, z, w (w last).
      - id: scale
        type: vec3
  embedded_animation:
    doc: |
      ms10-ms12 embedded animation (docs/unigine-anim.md): the an10 key masks, but plain f32
      translation and scale, i16 rotation, and no quantisation boxes.
    seq:
      - id: num_animated_bones
        type: unigine_cint
      - id: bone_indices
        type: s2
        repeat: expr
        repeat-expr: num_animated_bones.value
      - id: flag
        type: u1
      - id: num_frames
        type: unigine_cint
      - id: frames
        type: embedded_frame(num_animated_bones.value)
        repeat: expr
        repeat-expr: num_frames.value
  embedded_frame:
    params:
      - id: num_keys
        type: u4
    seq:
      - id: keys
        type: embedded_key
        repeat: expr
        repeat-expr: num_keys
  embedded_key:
    doc: Mask bits 0-2 translation x/y/z, 3 rotation, 4-6 scale x/y/z.
    seq:
      - id: mask
        type: u1
      - id: translation_x
        type: f4
        if: mask & 0x01 != 0
      - id: translation_y
        type: f4
        if: mask & 0x02 != 0
      - id: translation_z
        type: f4
        if: mask & 0x04 != 0
      - id: rotation
        type: quat_i16
        if: mask & 0x08 != 0
      - id: scale_x
        type: f4
        if: mask & 0x10 != 0
      - id: scale_y
        type: f4
        if: mask & 0x20 != 0
      - id: scale_z
        type: f4
        if: mask & 0x40 != 0
  surface_geometry:
    doc: ms10-ms13 geometry of one surface.
    params:
      - id: num_targets
        type: u4
    seq:
      - id: targets
        type: target_geometry
        repeat: expr
        repeat-expr: num_targets
      - id: num_weights
        type: unigine_cint
        doc: One per coordinate vertex of a skinned mesh; present (0) in static meshes.
      - id: weights
        type: vertex_weights
        repeat: expr
        repeat-expr: num_weights.value
      - id: num_uv0
        type: unigine_cint
      - id: uv0
        type: vec2
        repeat: expr
        repeat-expr: num_uv0.value
      - id: num_uv1
        type: unigine_cint
      - id: uv1
        type: vec2
        repeat: expr
        repeat-expr: num_uv1.value
      - id: num_colors
        type: unigine_cint
      - id: colors
        size: 4
        repeat: expr
        repeat-expr: num_colors.value
        doc: RGBA, u8 each.
      - id: num_coord_indices
        type: unigine_cint
      - id: coord_indices
        type:
          switch-on: coord_index_width
          cases:
            1: u1
            2: u2
            4: u4
        repeat: expr
        repeat-expr: num_coord_indices.value
        doc: Per triangle corner, an index into the positions.
      - id: num_triangle_indices
        type: unigine_cint
      - id: triangle_indices
        type:
          switch-on: triangle_index_width
          cases:
            1: u1
            2: u2
            4: u4
        repeat: expr
        repeat-expr: num_triangle_indices.value
        doc: Per triangle corner, an index into the tangents / UVs / colours.
    instances:
      num_positions:
        value: targets[0].num_positions.value
        doc: Target-0 position count.
      num_tangents:
        value: targets[0].num_tangents.value
        doc: Target-0 tangent (triangle-vertex) count.
      coord_index_width:
        value: 'num_positions < 256 ? 1 : num_positions < 65536 ? 2 : 4'
      triangle_index_width:
        value: 'num_tangents < 256 ? 1 : num_tangents < 65536 ? 2 : 4'
  target_geometry:
    seq:
      - id: num_positions
        type: unigine_cint
      - id: positions
        type: vec3
        repeat: expr
        repeat-expr: num_positions.value
      - id: num_tangents
        type: unigine_cint
      - id: tangents
        type:
          switch-on: _root.version
          cases:
            10: tangent_ms10
            _: quat_i16
        repeat: expr
        repeat-expr: num_tangents.value
  tangent_ms10:
    doc: 7 bytes.
    seq:
      - id: x
        type: s2
      - id: y
        type: s2
      - id: z
        type: s2
      - id: w
        type: s1
  vertex_weights:
    seq:
      - id: num_influences
        type: u1
      - id: influences
        type: influence
        repeat: expr
        repeat-expr: num_influences
  influence:
    seq:
      - id: bone
        type: s2
      - id: weight
        type: u2
        doc: Weight * 65535.
  lz4_block:
    doc: |
      ms14 block: an LZ4 raw block (no frame, no size prefix) of `size` bytes once
      decompressed, or the bytes themselves when csize == size.
    seq:
      - id: size
        type: u8
        doc: Decompressed size.
      - id: csize
        type: u8
        doc: Stored size.
      - id: data
        size: csize
    instances:
      is_stored:
        value: csize == size
  quat_i16:
    doc: 8 bytes; each component / 32767.
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
  vec2:
    seq:
      - id: x
        type: f4
      - id: y
        type: f4
  vec3:
    seq:
      - id: x
        type: f4
      - id: y
        type: f4
      - id: z
        type: f4
