meta:
  id: roblox_filemesh
  title: Roblox FileMesh, binary versions 2.00 to 7.00
  application: Roblox
  file-extension: mesh
  license: MIT OR Apache-2.0
  ks-version: '0.11'
  endian: le
doc: |
  Roblox's in-house mesh format ("FileMesh"), binary versions 2.00, 3.00, 3.01, 4.00,
  4.01, 5.00, 6.00 and 7.00. Little-endian throughout.

  Written from the community spec (shared/specs/roblox-filemesh-v1-v7.txt) and the
  project's format notes (shared/design/FORMAT-NOTES.md, checked on real files; they win
  where the two differ), independently of meshcodec's Rust code.

  Out of scope: the text versions 1.00 and 1.01 (`version 1.00\n`, a face-count line and
  a line of bracketed vec3s; some files use CRLF). They are not a binary layout, so this
  schema rejects them at `version` (a validation error, not a mis-parse).

  Layout by version:

  * 2.00: header (12 bytes or more), vertices (36 or 40 bytes each), faces.
  * 3.00 / 3.01: the same with a 16-byte header and LOD offsets after the faces.
  * 4.00 / 4.01: header (24 bytes or more), vertices (40 bytes), envelopes (only when
    numBones > 0), faces, LOD offsets, bones, bone name table, subsets.
  * 5.00: as 4.0x with a 32-byte header and a FACS block of `facsDataSize` bytes after
    the subsets.
  * 6.00 / 7.00: no header; chunks (8-byte NUL-padded name, u32 version, u32 size,
    payload) until the end of the file. COREMESH v1, LODS v1, SKINNING v1, FACS v1 and
    HSRAVIS v1 are parsed; COREMESH v2 (7.00) is a Draco bitstream kept as an opaque
    blob (only its header is peeked at, as an instance); any other chunk name or version
    is kept as bytes. A known payload must fill its chunk exactly.

  Values that are data, not constants, are kept as read: header sizes (`sizeof_header`;
  any header bytes beyond the known fields are kept in `unknown_tail`), lodType (4
  occurs), the v4 padding byte (63 occurs), facsDataFormat.

  Every version ends with `trailing`: the bytes after the last structure, to the end of
  the file (real files and fixtures have them in 2.00–5.00). For 6.00/7.00 chunks are
  read while at least a chunk header (16 bytes) remains, so `trailing` there holds at most
  15 bytes; a valid chunked file has none.
doc-ref:
  - https://devforum.roblox.com/t/roblox-filemesh-format-specification/326114
seq:
  - id: magic
    contents: 'version '
  - id: version
    type: str
    size: 4
    encoding: ASCII
    valid:
      any-of:
        - '"2.00"'
        - '"3.00"'
        - '"3.01"'
        - '"4.00"'
        - '"4.01"'
        - '"5.00"'
        - '"6.00"'
        - '"7.00"'
    doc: |
      "X.YY" of the version line. The text versions "1.00" and "1.01" are out of scope
      and fail this check.
  - id: newline
    contents: [0x0a]
  - id: body
    type:
      switch-on: version
      cases:
        '"2.00"': mesh_v2(false)
        '"3.00"': mesh_v2(true)
        '"3.01"': mesh_v2(true)
        '"4.00"': mesh_v4(false)
        '"4.01"': mesh_v4(false)
        '"5.00"': mesh_v4(true)
        '"6.00"': mesh_chunked
        '"7.00"': mesh_chunked

types:
  # ------------------------------------------------------------------ 2.00 / 3.0x
  mesh_v2:
    -orig-id: [FileMeshV2, FileMeshV3]
    doc: 2.00 (has_lods false) and 3.00 / 3.01 (has_lods true).
    params:
      - id: has_lods
        type: bool
    seq:
      - id: header
        type: header_v2(has_lods)
      - id: vertices
        type: vertex(header.sizeof_vertex == 40)
        repeat: expr
        repeat-expr: header.num_verts
      - id: faces
        doc: Every face, the faces of every LOD included.
        type: face
        repeat: expr
        repeat-expr: header.num_faces
      - id: lod_offsets
        -orig-id: lodOffsets
        doc: |
          3.0x: face indices where each LOD starts; the last equals numFaces. Always u32,
          whatever `sizeof_lod_offset` says.
        type: u4
        repeat: expr
        repeat-expr: header.num_lod_offsets
        if: has_lods
      - id: trailing
        doc: Bytes after the last structure, to the end of the file.
        size-eos: true

  header_v2:
    -orig-id: [FileMeshHeaderV2, FileMeshHeaderV3]
    params:
      - id: has_lods
        type: bool
    seq:
      - id: sizeof_header
        -orig-id: sizeof_FileMeshHeaderV2
        doc: 12 (2.00) or 16 (3.0x); larger when the header carries bytes beyond the known fields.
        type: u2
        valid:
          min: known_size
      - id: sizeof_vertex
        -orig-id: sizeof_FileMeshVertex
        doc: 36 (no RGBA; treat the colour as 255, 255, 255, 255) or 40.
        type: u1
        valid:
          any-of: [36, 40]
      - id: sizeof_face
        -orig-id: sizeof_FileMeshFace
        type: u1
        valid: 12
      - id: sizeof_lod_offset
        -orig-id: sizeof_LodOffset
        doc: 3.0x; "unused, always 4"; kept as read.
        type: u2
        if: has_lods
      - id: num_lod_offsets
        -orig-id: numLodOffsets
        type: u2
        if: has_lods
      - id: num_verts
        -orig-id: numVerts
        type: u4
      - id: num_faces
        -orig-id: numFaces
        type: u4
      - id: unknown_tail
        doc: Header bytes beyond the known fields, up to sizeof_header.
        size: sizeof_header - known_size
    instances:
      known_size:
        value: 'has_lods ? 16 : 12'

  # ------------------------------------------------------------------ 4.0x / 5.00
  mesh_v4:
    -orig-id: [FileMeshV4, FileMeshV5]
    doc: 4.00 / 4.01 (has_facs false) and 5.00 (has_facs true).
    params:
      - id: has_facs
        type: bool
    seq:
      - id: header
        type: header_v4(has_facs)
      - id: vertices
        type: vertex(true)
        repeat: expr
        repeat-expr: header.num_verts
      - id: envelopes
        -orig-id: skinning
        doc: One per vertex, present only when numBones > 0.
        type: envelope
        repeat: expr
        repeat-expr: header.num_verts
        if: header.num_bones > 0
      - id: faces
        doc: Every face, the faces of every LOD included.
        type: face
        repeat: expr
        repeat-expr: header.num_faces
      - id: lod_offsets
        -orig-id: lodOffsets
        type: u4
        repeat: expr
        repeat-expr: header.num_lod_offsets
      - id: bones
        type: bone
        repeat: expr
        repeat-expr: header.num_bones
      - id: bone_names
        -orig-id: boneNames
        type: name_table
        size: header.sizeof_bone_names
      - id: subsets
        type: subset
        repeat: expr
        repeat-expr: header.num_subsets
      - id: facs
        -orig-id: facsData
        doc: |
          5.00: `facsDataSize` bytes. Parsed as a FACS block when facsDataFormat is not 0;
          with facsDataFormat 0 ("no valid FACS data") the bytes are kept as they are.
        size: header.facs_data_size
        type:
          switch-on: header.facs_data_format != 0
          cases:
            true: facs_data
        if: has_facs and header.facs_data_size > 0
      - id: trailing
        doc: Bytes after the last structure, to the end of the file.
        size-eos: true
    instances:
      bone_names_by_bone:
        doc: Each bone's name, in bone order, looked up at its bone_name_index.
        io: bone_names._io
        pos: 0
        type: bone_name_ref(bones[_index].bone_name_index)
        repeat: expr
        repeat-expr: header.num_bones

  header_v4:
    -orig-id: [FileMeshHeaderV4, FileMeshHeaderV5]
    params:
      - id: has_facs
        type: bool
    seq:
      - id: sizeof_header
        -orig-id: sizeof_FileMeshHeaderV4
        doc: 24 (4.0x) or 32 (5.00); larger when the header carries bytes beyond the known fields.
        type: u2
        valid:
          min: known_size
      - id: lod_type
        -orig-id: lodType
        doc: The 5.00 spec calls this numMeshes; it holds the lodType there too (3 and 4 seen).
        type: u2
        enum: lod_type
      - id: num_verts
        -orig-id: numVerts
        type: u4
      - id: num_faces
        -orig-id: numFaces
        type: u4
      - id: num_lod_offsets
        -orig-id: numLodOffsets
        type: u2
      - id: num_bones
        -orig-id: numBones
        type: u2
      - id: sizeof_bone_names
        -orig-id: sizeof_boneNames
        type: u4
      - id: num_subsets
        -orig-id: numSubsets
        type: u2
      - id: num_high_quality_lods
        -orig-id: numHighQualityLODs
        type: u1
      - id: unused_padding
        -orig-id: unused
        doc: Not always 0 (63 occurs); kept as read.
        type: u1
      - id: facs_data_format
        -orig-id: facsDataFormat
        doc: 5.00; 1 in real files, 0 = no valid FACS data.
        type: u4
        if: has_facs
      - id: facs_data_size
        -orig-id: facsDataSize
        doc: 5.00; bytes of FACS data after the subsets.
        type: u4
        if: has_facs
      - id: unknown_tail
        doc: Header bytes beyond the known fields, up to sizeof_header.
        size: sizeof_header - known_size
    instances:
      known_size:
        value: 'has_facs ? 32 : 24'

  # ------------------------------------------------------------------ records
  vertex:
    -orig-id: FileMeshVertex
    doc: 40 bytes, or 36 in 2.00/3.0x files whose sizeof_FileMeshVertex is 36 (no RGBA).
    params:
      - id: has_rgba
        type: bool
    seq:
      - id: position
        type: vec3
      - id: normal
        type: vec3
      - id: uv
        type: vec2
      - id: tangent
        type: tangent
      - id: color
        doc: Absent in 36-byte vertices (treat as 255, 255, 255, 255).
        type: rgba
        if: has_rgba

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

  tangent:
    doc: |
      Unsigned bytes with a bias of 127 (FORMAT-NOTES; the spec's "sbyte" is wrong):
      component = (b - 127) / 127, the sign byte is 0 or 254 (-1 / +1). `7f 7f 7f 00` is
      the common "no tangent" pattern; all-zero bytes mark a pre-PBR mesh.
    seq:
      - id: raw_x
        type: u1
      - id: raw_y
        type: u1
      - id: raw_z
        type: u1
      - id: raw_sign
        type: u1
    instances:
      x:
        value: (raw_x - 127) / 127.0
      y:
        value: (raw_y - 127) / 127.0
      z:
        value: (raw_z - 127) / 127.0
      sign:
        value: (raw_sign - 127) / 127.0

  rgba:
    seq:
      - id: r
        type: u1
      - id: g
        type: u1
      - id: b
        type: u1
      - id: a
        type: u1

  face:
    -orig-id: FileMeshFace
    seq:
      - id: a
        type: u4
      - id: b
        type: u4
      - id: c
        type: u4

  envelope:
    -orig-id: [FileMeshSkinning, FileMeshWeight]
    doc: |
      Bone bytes index the 26-entry `bone_indices` table of the subset whose vertex range
      holds the vertex (0xFFFF entries are unused); weights are u8 and sum to 255.
    seq:
      - id: bones
        type: u1
        repeat: expr
        repeat-expr: 4
      - id: weights
        type: u1
        repeat: expr
        repeat-expr: 4

  bone:
    -orig-id: FileMeshBone
    doc: 60 bytes; a world-space CFrame (Y-up, -Z forward).
    seq:
      - id: bone_name_index
        -orig-id: boneNameIndex
        doc: Byte offset of this bone's NUL-terminated name in the name table.
        type: u4
      - id: parent_index
        -orig-id: parentIndex
        doc: 0xFFFF = no parent.
        type: u2
      - id: lod_parent_index
        -orig-id: lodParentIndex
        type: u2
      - id: culling
        type: f4
      - id: rotation
        doc: r00, r01, r02, r10, r11, r12, r20, r21, r22.
        type: f4
        repeat: expr
        repeat-expr: 9
      - id: position
        type: vec3
    instances:
      has_parent:
        value: parent_index != 0xffff

  bone_name_ref:
    doc: The name table entry of one bone (see `bone_names_by_bone`).
    params:
      - id: offset
        type: u4
    instances:
      name:
        pos: offset
        type: strz
        encoding: UTF-8

  name_table:
    doc: NUL-terminated UTF-8 strings, back to back (the last one may lack its NUL).
    seq:
      - id: names
        type: strz
        encoding: UTF-8
        eos-error: false
        repeat: eos

  subset:
    -orig-id: FileMeshSubset
    doc: 72 bytes; a face and vertex range influenced by at most 26 bones.
    seq:
      - id: faces_begin
        -orig-id: facesBegin
        type: u4
      - id: faces_length
        -orig-id: facesLength
        type: u4
      - id: verts_begin
        -orig-id: vertsBegin
        type: u4
      - id: verts_length
        -orig-id: vertsLength
        type: u4
      - id: num_bone_indices
        -orig-id: numBoneIndices
        type: u4
      - id: bone_indices
        -orig-id: boneIndices
        doc: Indices into the bone array; unused entries are 0xFFFF.
        type: u2
        repeat: expr
        repeat-expr: 26

  # ------------------------------------------------------------------ FACS
  facs_data:
    -orig-id: FileMeshFacsData
    doc: |
      The FACS block (5.00 after the subsets; 6.00/7.00 inside the FACS chunk). `extra`
      holds any bytes the block's own sizes do not account for (none in a well-formed
      block; meshcodec then keeps the whole section as opaque bytes).
    seq:
      - id: sizeof_face_bone_names
        -orig-id: sizeof_faceBoneNamesBlob
        type: u4
      - id: sizeof_face_control_names
        -orig-id: sizeof_faceControlNamesBlob
        type: u4
      - id: sizeof_quantized_transforms
        -orig-id: sizeof_quantizedTransforms
        doc: Equals the summed size of the six matrices.
        type: u8
      - id: sizeof_two_pose_correctives
        -orig-id: sizeof_twoPoseCorrectives
        type: u4
        valid:
          expr: _ % 4 == 0
      - id: sizeof_three_pose_correctives
        -orig-id: sizeof_threePoseCorrectives
        type: u4
        valid:
          expr: _ % 6 == 0
      - id: face_bone_names
        -orig-id: faceBoneNamesBlob
        type: name_table
        size: sizeof_face_bone_names
      - id: face_control_names
        -orig-id: faceControlNamesBlob
        doc: Abbreviated FaceControls properties (c_JD = JawDrop, l_EC = LeftEyeClosed …).
        type: name_table
        size: sizeof_face_control_names
      - id: quantized_transforms
        -orig-id: quantizedTransforms
        type: quantized_transforms
        size: sizeof_quantized_transforms
      - id: two_pose_correctives
        -orig-id: twoPoseCorrectives
        type: two_pose_corrective
        repeat: expr
        repeat-expr: sizeof_two_pose_correctives / 4
      - id: three_pose_correctives
        -orig-id: threePoseCorrectives
        type: three_pose_corrective
        repeat: expr
        repeat-expr: sizeof_three_pose_correctives / 6
      - id: extra
        size-eos: true

  quantized_transforms:
    -orig-id: QuantizedTransforms
    doc: |
      Six matrices, rows = face bones, cols = controls + two-pose + three-pose correctives.
      `extra` holds bytes beyond the six matrices (none in a well-formed block).
    seq:
      - id: px
        type: quantized_matrix
      - id: py
        type: quantized_matrix
      - id: pz
        type: quantized_matrix
      - id: rx
        type: quantized_matrix
      - id: ry
        type: quantized_matrix
      - id: rz
        type: quantized_matrix
      - id: extra
        size-eos: true

  quantized_matrix:
    -orig-id: QuantizedMatrix
    seq:
      - id: version
        doc: u16 (not u32); 1 = raw f32 values, 2 = u16 values quantized over [min, max].
        type: u2
        valid:
          any-of: [1, 2]
      - id: rows
        type: u4
      - id: cols
        type: u4
      - id: min
        -orig-id: v2_min
        type: f4
        if: version == 2
      - id: max
        -orig-id: v2_max
        type: f4
        if: version == 2
      - id: raw_values
        -orig-id: v1_matrix
        doc: Row-major [rows][cols].
        type: f4
        repeat: expr
        repeat-expr: rows * cols
        if: version == 1
      - id: quantized_values
        -orig-id: v2_matrix
        doc: Row-major [rows][cols]; value = min + q * (max - min) / 65535.
        type: u2
        repeat: expr
        repeat-expr: rows * cols
        if: version == 2

  two_pose_corrective:
    -orig-id: TwoPoseCorrective
    seq:
      - id: control_index0
        type: u2
      - id: control_index1
        type: u2

  three_pose_corrective:
    -orig-id: ThreePoseCorrective
    seq:
      - id: control_index0
        type: u2
      - id: control_index1
        type: u2
      - id: control_index2
        type: u2

  # ------------------------------------------------------------------ 6.00 / 7.00
  mesh_chunked:
    doc: |
      6.00 / 7.00: chunks until the end of the file, in file order (order and unknown
      chunks kept). A 7.00 file may carry a COREMESH v1 chunk.
    seq:
      - id: chunks
        type: chunk
        repeat: until
        repeat-until: _io.size - _io.pos < 16
        if: _io.size - _io.pos >= 16
      - id: trailing
        doc: Fewer than 16 bytes left after the last chunk (none in a valid file).
        size-eos: true

  chunk:
    -orig-id: MeshChunk
    seq:
      - id: chunk_type
        -orig-id: chunkType
        doc: |
          8 bytes, NUL padded: "COREMESH", "LODS\0\0\0\0", "SKINNING", "FACS\0\0\0\0",
          "HSRAVIS\0"; anything else is kept.
        size: 8
      - id: chunk_version
        -orig-id: chunkVersion
        type: u4
      - id: size
        type: u4
      - id: payload
        doc: Parsed for the known (name, version) pairs below, else kept as bytes.
        size: size
        type:
          switch-on: kind
          cases:
            'chunk_kind::coremesh_v1': coremesh_v1
            'chunk_kind::coremesh_v2': coremesh_v2
            'chunk_kind::lods_v1': lods_v1
            'chunk_kind::skinning_v1': skinning_v1
            'chunk_kind::facs_v1': facs_v1
            'chunk_kind::hsravis_v1': hsravis_v1
    instances:
      is_coremesh:
        value: chunk_type == [0x43, 0x4f, 0x52, 0x45, 0x4d, 0x45, 0x53, 0x48]
      is_lods:
        value: chunk_type == [0x4c, 0x4f, 0x44, 0x53, 0, 0, 0, 0]
      is_skinning:
        value: chunk_type == [0x53, 0x4b, 0x49, 0x4e, 0x4e, 0x49, 0x4e, 0x47]
      is_facs:
        value: chunk_type == [0x46, 0x41, 0x43, 0x53, 0, 0, 0, 0]
      is_hsravis:
        value: chunk_type == [0x48, 0x53, 0x52, 0x41, 0x56, 0x49, 0x53, 0]
      kind:
        doc: Which payload layout applies; `unknown` = kept as bytes.
        value: >-
          is_coremesh and chunk_version == 1 ? chunk_kind::coremesh_v1
          : is_coremesh and chunk_version == 2 ? chunk_kind::coremesh_v2
          : is_lods and chunk_version == 1 ? chunk_kind::lods_v1
          : is_skinning and chunk_version == 1 ? chunk_kind::skinning_v1
          : is_facs and chunk_version == 1 ? chunk_kind::facs_v1
          : is_hsravis and chunk_version == 1 ? chunk_kind::hsravis_v1
          : chunk_kind::unknown

  coremesh_v1:
    -orig-id: FileMesh_COREMESH_v1
    seq:
      - id: num_verts
        type: u4
      - id: vertices
        type: vertex(true)
        repeat: expr
        repeat-expr: num_verts
      - id: num_faces
        type: u4
      - id: faces
        doc: Every face, the faces of every LOD included.
        type: face
        repeat: expr
        repeat-expr: num_faces
      - id: end_of_payload
        doc: The payload must end here.
        size: 0
        valid:
          expr: _io.eof

  coremesh_v2:
    doc: |
      7.00: u32 length + a Draco bitstream (Draco 2.2, triangle mesh, sequential
      encoding, no metadata in real files), nothing before or after. Kept opaque.
    seq:
      - id: sizeof_draco
        type: u4
      - id: draco
        type: draco_blob
        size: sizeof_draco
      - id: end_of_payload
        doc: The payload must end here.
        size: 0
        valid:
          expr: _io.eof

  draco_blob:
    doc: |
      The Draco bitstream, kept as bytes (`bitstream`). `header` only peeks at its
      first bytes; decoding the mesh is left to a Draco decoder.
    seq:
      - id: bitstream
        size-eos: true
    instances:
      header:
        pos: 0
        type: draco_header
        if: _io.size >= 11

  draco_header:
    doc: |
      The Draco file header and, for a sequentially encoded 2.2+ triangle mesh without
      metadata, the point and face counts that open its connectivity data
      (ParseSequentialConnectivityData in the Draco bitstream spec).
    doc-ref: https://google.github.io/draco/spec/
    seq:
      - id: magic
        contents: DRACO
      - id: version_major
        type: u1
      - id: version_minor
        type: u1
      - id: encoder_type
        doc: 0 point cloud, 1 triangular mesh.
        type: u1
      - id: encoder_method
        doc: 0 sequential, 1 edgebreaker.
        type: u1
      - id: flags
        doc: Bit 15 = metadata present.
        type: u2
      - id: num_faces
        type: draco_varint
        if: has_sequential_counts
      - id: num_points
        type: draco_varint
        if: has_sequential_counts
    instances:
      has_sequential_counts:
        value: >-
          encoder_type == 1 and encoder_method == 0 and (flags & 0x8000) == 0
          and (version_major > 2 or (version_major == 2 and version_minor >= 2))

  draco_varint:
    doc: Draco's varUI32/varUI64, an unsigned LEB128 (7 bits a byte, low bits first).
    seq:
      - id: groups
        type: u1
        repeat: until
        repeat-until: (_ & 0x80) == 0 or _index >= 9
    instances:
      value:
        value: >-
          (groups[0] & 0x7f)
          + (groups.size > 1 ? (groups[1] & 0x7f) << 7 : 0)
          + (groups.size > 2 ? (groups[2] & 0x7f) << 14 : 0)
          + (groups.size > 3 ? (groups[3] & 0x7f) << 21 : 0)
          + (groups.size > 4 ? (groups[4] & 0x7f) << 28 : 0)

  lods_v1:
    -orig-id: FileMesh_LODS_v1
    seq:
      - id: lod_type
        type: u2
        enum: lod_type
      - id: num_high_quality_lods
        type: u1
      - id: num_lod_offsets
        type: u4
      - id: lod_offsets
        doc: Face indices where each LOD starts; real 7.00 files often carry [0, 0] (LOD 0 = every face).
        type: u4
        repeat: expr
        repeat-expr: num_lod_offsets
      - id: end_of_payload
        doc: The payload must end here.
        size: 0
        valid:
          expr: _io.eof

  skinning_v1:
    -orig-id: FileMesh_SKINNING_v1
    doc: The spec's struct omits the envelopes; they follow numSkinnings (FORMAT-NOTES).
    seq:
      - id: num_skinnings
        doc: Equals the vertex count.
        type: u4
      - id: envelopes
        type: envelope
        repeat: expr
        repeat-expr: num_skinnings
      - id: num_bones
        type: u4
      - id: bones
        type: bone
        repeat: expr
        repeat-expr: num_bones
      - id: sizeof_bone_names
        -orig-id: nameTableSize
        type: u4
      - id: bone_names
        -orig-id: nameTable
        type: name_table
        size: sizeof_bone_names
      - id: num_subsets
        type: u4
      - id: subsets
        type: subset
        repeat: expr
        repeat-expr: num_subsets
      - id: end_of_payload
        doc: The payload must end here.
        size: 0
        valid:
          expr: _io.eof
    instances:
      bone_names_by_bone:
        doc: Each bone's name, in bone order, looked up at its bone_name_index.
        io: bone_names._io
        pos: 0
        type: bone_name_ref(bones[_index].bone_name_index)
        repeat: expr
        repeat-expr: num_bones

  facs_v1:
    -orig-id: FileMesh_FACS_v1
    seq:
      - id: facs_data_size
        -orig-id: facsDataSize
        doc: The payload size minus 4.
        type: u4
      - id: facs
        -orig-id: facsData
        type: facs_data
        size: facs_data_size
        if: facs_data_size > 0
      - id: end_of_payload
        doc: The payload must end here.
        size: 0
        valid:
          expr: _io.eof

  hsravis_v1:
    -orig-id: FileMesh_HSRAVIS_v1
    doc: One "always visible" bit per face, least significant bit first.
    seq:
      - id: num_bits
        -orig-id: numAlwaysVisibleBitFlags
        type: u4
      - id: flags
        -orig-id: alwaysVisibleBitFlags
        size: (num_bits + 7) / 8
      - id: end_of_payload
        doc: The payload must end here.
        size: 0
        valid:
          expr: _io.eof

enums:
  lod_type:
    0: none
    1: unknown
    2: rbx_simplifier
    3: zeux_mesh_optimizer
  chunk_kind:
    0: unknown
    1: coremesh_v1
    2: coremesh_v2
    3: lods_v1
    4: skinning_v1
    5: facs_v1
    6: hsravis_v1
