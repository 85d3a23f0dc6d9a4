meta:
  id: roblox_csgphs_v8_payload
  title: Roblox CSGPHS version 8, decompressed content of the zstd frame
  license: CC0-1.0
  ks-version: "0.11"
  endian: le
doc: |
  What the zstd frame of a version 8 CSGPHS blob (roblox_csgphs.ksy, `body_v8.zstd_frame`)
  holds once decompressed; written from docs/csgphs-v8.md.

  A 60-byte header (nine u32 counts and sizes, then the bounding box), an optional block of
  "raw" hulls (stored as plain index and float arrays), the Edgebreaker connectivity
  bitstream of the coded hulls, and the vertex positions of the coded hulls. The header
  counts (H, V, T) cover the coded hulls only; raw hulls come first when a reader lists them.

  Decoding the bitstream (Edgebreaker on a corner table: 32-bit little-endian words read
  from the top bit down, `0` = C, `100` = S, `101` = R, `110` = L, `111` = E) is beyond a
  declarative schema; `connectivity` is kept as bytes. Relations that hold in every known
  file: T = 2V - 4H, B = 2T - H, len_connectivity = 4 * ceil(B / 32) (whole 32-bit words, no further
  padding; readers accept more whole words), len_vertices = 12 V.
seq:
  - id: num_coded_hulls
    type: u4
    doc: H, the number of Edgebreaker-coded hulls.
  - id: num_vertices
    type: u4
    doc: V, the vertex count of the coded hulls.
  - id: num_triangles
    type: u4
    doc: T, the triangle count of the coded hulls (= 2V - 4H).
  - id: max_hull_vertices
    type: u4
    doc: The largest vertex count of one coded hull.
  - id: max_hull_triangles
    type: u4
    doc: The largest triangle count of one coded hull (= 2 * max_hull_vertices - 4).
  - id: len_raw_hulls
    type: u4
    doc: R, the byte size of the raw hull block (0 when there is none).
  - id: num_connectivity_bits
    type: u4
    doc: B, the bit count of the connectivity bitstream.
  - id: len_connectivity
    type: u4
    doc: Byte size of the bitstream = 4 * ceil(B / 32) in every real blob (whole words).
  - id: len_vertices
    type: u4
    doc: Byte size of the vertex array = 12 V.
  - id: bbox_min
    type: vec3
    doc: Exact minimum of the coded vertex array.
  - id: bbox_max
    type: vec3
    doc: Exact maximum of the coded vertex array.
  - id: raw_hulls
    type: raw_hull_block
    size: len_raw_hulls
    if: len_raw_hulls > 0
  - id: connectivity
    size: len_connectivity
    doc: Edgebreaker symbols of all coded hulls in 32-bit words; the last word holds its n < 32 bits low.
  - id: vertices
    type: vec3
    repeat: expr
    repeat-expr: num_vertices
    doc: Positions of the coded hulls, hull after hull; indices inside a hull are local.
types:
  raw_hull_block:
    doc: |
      Hulls that Edgebreaker cannot code (non-manifold, open, ...). Two range tables of the
      form [0, end_0, end_1, ...]: one into `indices`, one into `floats`; hull i uses
      indices[index_ranges[i] .. index_ranges[i+1]] (local to the hull) and
      floats[position_ranges[i] .. position_ranges[i+1]].
    seq:
      - id: num_index_ranges
        type: u4
      - id: index_ranges
        type: u4
        repeat: expr
        repeat-expr: num_index_ranges
      - id: indices
        type: u4
        repeat: expr
        repeat-expr: 'num_index_ranges > 0 ? index_ranges.last : 0'
        doc: Three per triangle.
      - id: num_position_ranges
        type: u4
      - id: position_ranges
        type: u4
        repeat: expr
        repeat-expr: num_position_ranges
      - id: floats
        type: f4
        repeat: expr
        repeat-expr: 'num_position_ranges > 0 ? position_ranges.last : 0'
        doc: x, y, z per vertex.
    instances:
      num_hulls:
        value: 'num_index_ranges > 0 ? num_index_ranges - 1 : 0'
      num_vertices:
        value: floats.size / 3
      num_triangles:
        value: indices.size / 3
  vec3:
    seq:
      - id: x
        type: f4
      - id: y
        type: f4
      - id: z
        type: f4
