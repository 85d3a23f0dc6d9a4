meta:
  id: unigine_ms14_geometry
  title: UNIGINE ms14 geometry block of one surface (decompressed)
  license: CC0-1.0
  ks-version: "0.11"
  endian: le
  imports:
    - unigine_cint
doc: |
  The content of one ms14 geometry block (unigine_mesh.ksy `geometry_blocks[i]`, after LZ4
  decompression), written from docs/unigine-ms14.md. Counts that the surface header already
  holds have no prefix here; they come in as parameters:

  - `target_vertex_counts`: `num_vertices` of each morph target header of the surface;
  - `num_coord_indices`, `num_triangle_indices`: the header's CI and TI.

  Index width: coordinate indices by the target-0 vertex count, triangle indices by the
  target-0 tangent count (< 256 -> u1, < 65536 -> u2, else u4).
params:
  - id: target_vertex_counts
    type: u4[]
  - id: num_coord_indices
    type: u4
  - id: num_triangle_indices
    type: u4
seq:
  - id: targets
    type: target(target_vertex_counts[_index])
    repeat: expr
    repeat-expr: target_vertex_counts.size
  - id: num_weights
    type: unigine_cint
    doc: 0 for a static mesh, else the target-0 vertex count.
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
  - id: coord_indices
    type:
      switch-on: coord_index_width
      cases:
        1: u1
        2: u2
        4: u4
    repeat: expr
    repeat-expr: num_coord_indices
    doc: Per triangle corner, an index into the positions.
  - id: triangle_indices
    type:
      switch-on: triangle_index_width
      cases:
        1: u1
        2: u2
        4: u4
    repeat: expr
    repeat-expr: num_triangle_indices
    doc: Per triangle corner, an index into the tangents / UVs / colours.
instances:
  num_positions:
    value: target_vertex_counts[0]
  num_tangents:
    value: targets[0].num_tangents.value
  coord_index_width:
    value: 'num_positions < 256 ? 1 : num_positions < 65536 ? 2 : 4'
  triangle_index_width:
    value: 'num_tangents < 256 ? 1 : num_tangents < 65536 ? 2 : 4'
types:
  target:
    params:
      - id: num_positions
        type: u4
    seq:
      - id: positions
        type: vec3
        repeat: expr
        repeat-expr: num_positions
      - id: num_tangents
        type: unigine_cint
      - id: tangents
        type: quat_i16
        repeat: expr
        repeat-expr: num_tangents.value
        doc: Tangent frame as a quaternion x, y, z, w; each component / 32767.
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
  quat_i16:
    seq:
      - id: x
        type: s2
      - id: y
        type: s2
      - id: z
        type: s2
      - id: w
        type: s2
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
