meta:
  id: roblox_csgmdl
  title: Roblox union graphics (CSGMDL 2, 4, 5)
  endian: le
doc: |
  The render mesh of a Roblox union (a PartOperation's MeshData). Every byte at file
  offset o is XORed with K[o % 31]: the whole file in versions 2 and 4, the 10-byte
  header in version 5. Written from FORMAT-NOTES ("Roblox union graphics") and
  docs/csgmdl.md. (CSGK, the plain "CSGK" + 32 hex characters reference, is not
  parsed here.)
seq:
  - id: header
    size: 10
    process: xor([86, 46, 110, 88, 49, 32, 48, 4, 52, 105, 12, 119, 12, 1, 94, 0, 26, 96, 55, 105, 29, 82, 43, 7, 79, 36, 89, 101, 83, 4, 122])
    type: header
  - id: mesh
    if: header.version != 5
    size-eos: true
    # The key continues at file offset 10.
    process: xor([12, 119, 12, 1, 94, 0, 26, 96, 55, 105, 29, 82, 43, 7, 79, 36, 89, 101, 83, 4, 122, 86, 46, 110, 88, 49, 32, 48, 4, 52, 105])
    type: mesh_v2(header.version)
  - id: packed
    if: header.version == 5
    type: mesh_v5
types:
  header:
    seq:
      - id: magic
        contents: CSGMDL
      - id: version
        type: u4
        valid:
          any-of: [2, 4, 5]
  vertex:
    seq:
      - id: position
        type: f4
        repeat: expr
        repeat-expr: 3
      - id: normal
        type: f4
        repeat: expr
        repeat-expr: 3
      - id: color
        size: 4
      - id: normal_id
        type: u4
      - id: uv
        type: f4
        repeat: expr
        repeat-expr: 2
      - id: reserved1
        size: 16
      - id: tangent
        type: f4
        repeat: expr
        repeat-expr: 3
      - id: reserved2
        size: 16
  mesh_v2:
    params:
      - id: version
        type: u4
    seq:
      - id: hash
        size: 32
      - id: num_vertices
        type: u4
      - id: vertex_size
        type: u4
        valid: 84
      - id: vertices
        type: vertex
        repeat: expr
        repeat-expr: num_vertices
      - id: num_indices
        type: u4
      - id: indices
        type: u4
        repeat: expr
        repeat-expr: num_indices
      - id: num_extra
        type: u4
        if: version == 4
      - id: extra
        type: u4
        repeat: expr
        repeat-expr: num_extra
        if: version == 4
  quantized:
    seq:
      - id: count
        type: u2
      - id: len_bytes
        type: u4
      - id: values
        size: len_bytes
  mesh_v5:
    seq:
      - id: num_positions
        type: u2
      - id: positions
        size: num_positions * 12
      - id: normals
        type: quantized
      - id: num_colors
        type: u2
      - id: colors
        size: num_colors * 4
      - id: num_normal_ids
        type: u2
      - id: normal_ids
        size: num_normal_ids
      - id: num_uvs
        type: u2
      - id: uvs
        size: num_uvs * 8
      - id: tangents
        type: quantized
      - id: num_corners
        type: u4
        doc: every index range's corners, together
      - id: len_corner_stream
        type: u4
      - id: corner_stream
        size: len_corner_stream
        doc: delta-coded corners (docs/csgmdl.md)
      - id: num_ranges
        type: u1
      - id: ranges
        type: u4
        repeat: expr
        repeat-expr: num_ranges
        doc: the mesh's own triangles are corners ranges[0] .. ranges[1]
