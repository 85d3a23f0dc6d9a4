meta:
  id: roblox_csgphs
  title: Roblox CSGPHS physics data (collision hulls of a MeshPart)
  file-extension: bin
  license: CC0-1.0
  ks-version: "0.11"
  endian: le
doc: |
  The physics blob Roblox stores beside a mesh: a 6-byte magic, a u32 version, then a
  version-specific body. Written from shared/specs/roblox-csgphs.txt, the "CSGPHS" section
  of shared/design/FORMAT-NOTES.md (the notes win where they differ) and
  docs/csgphs-v8.md.

  - version 0: the 5 ASCII bytes `BLOCK` (box collision), 15 bytes in all.
  - versions 3 and 5: hull records right after the 10-byte header, to the end of the stream.
  - version 6: 40 bytes of physics info, then hull records (no real file is known).
  - version 7: u8 geometry type, the physics info, then hull records.
  - version 8: u8 geometry type, u8 reserved, then one zstd frame to the end of the stream.
    Its decompressed content is described by `roblox_csgphs_v8_payload.ksy`.

  Every byte is kept as data (the two 16-byte blocks of each hull, the reserved byte, the
  zstd frame as stored), so a writer can reproduce the file exactly.
seq:
  - id: magic
    contents: CSGPHS
  - id: version
    type: u4
    valid:
      any-of: [0, 3, 5, 6, 7, 8]
    doc: Version (the spec calls it the collision type). Other versions are not described.
  - id: body
    type:
      switch-on: version
      cases:
        0: body_block
        3: body_hulls
        5: body_hulls
        6: body_v6
        7: body_v7
        8: body_v8
types:
  body_block:
    doc: Version 0, box collision.
    seq:
      - id: block
        contents: BLOCK
  body_hulls:
    doc: Versions 3 and 5, no physics info.
    seq:
      - id: hulls
        type: hull
        repeat: eos
  body_v6:
    seq:
      - id: physics
        type: physics
      - id: hulls
        type: hull
        repeat: eos
  body_v7:
    seq:
      - id: geometry_type
        type: u1
        doc: 2 and 3 seen in real files.
      - id: physics
        type: physics
      - id: hulls
        type: hull
        repeat: eos
  body_v8:
    seq:
      - id: geometry_type
        type: u1
        doc: As the u8 of version 7 (0, 2, 3 seen).
      - id: reserved
        type: u1
        doc: 0 in every real blob; kept as data.
      - id: zstd_frame
        size-eos: true
        doc: |
          One zstd frame, running to the end of the stream. Decompress it and parse the
          result with roblox_csgphs_v8_payload.
    instances:
      frame_header:
        pos: 12
        type: zstd_frame_header
        doc: The first bytes of `zstd_frame` (read again; informative only).
  physics:
    doc: 40 bytes. Mass properties at density 1, summed over the hulls.
    seq:
      - id: volume
        type: f4
      - id: center_of_gravity
        type: vec3
      - id: inertia
        type: f4
        repeat: expr
        repeat-expr: 6
        doc: Inertia tensor about the centre of mass, in the order xx, xy, xz, yy, yz, zz.
  hull:
    doc: One convex hull record.
    seq:
      - id: len_translation
        type: u4
        valid: 16
      - id: translation
        type: vec4
        size: len_translation
        doc: (0, 0, 0, 0) in every real file.
      - id: len_rotation
        type: u4
        valid: 16
      - id: rotation
        type: vec4
        size: len_rotation
        doc: (0, 0, 0, 1) in every real file, an identity quaternion it seems.
      - id: num_floats
        type: u4
        doc: Number of f32 values in `positions` (3 per vertex).
      - id: float_size
        type: u4
        valid: 4
      - id: positions
        type: f4
        repeat: expr
        repeat-expr: num_floats
        doc: x, y, z per vertex.
      - id: num_indices
        type: u4
        doc: Number of u32 values in `indices` (3 per triangle).
      - id: indices
        type: u4
        repeat: expr
        repeat-expr: num_indices
    instances:
      num_vertices:
        value: num_floats / 3
      num_triangles:
        value: num_indices / 3
  vec3:
    seq:
      - id: x
        type: f4
      - id: y
        type: f4
      - id: z
        type: f4
  vec4:
    seq:
      - id: x
        type: f4
      - id: y
        type: f4
      - id: z
        type: f4
      - id: w
        type: f4
  zstd_frame_header:
    doc: The start of a zstd frame (RFC 8878), as far as it has fixed positions.
    seq:
      - id: magic
        contents: [0x28, 0xb5, 0x2f, 0xfd]
      - id: frame_header_descriptor
        type: u1
    instances:
      frame_content_size_flag:
        value: frame_header_descriptor >> 6
      single_segment:
        value: (frame_header_descriptor >> 5) & 1 == 1
      content_checksum:
        value: (frame_header_descriptor >> 2) & 1 == 1
      dictionary_id_flag:
        value: frame_header_descriptor & 3
