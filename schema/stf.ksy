meta:
  id: stf
  title: STF container (stf.mesh and other STF resources)
  file-extension: stf
  license: CC0-1.0
  ks-version: "0.11"
  endian: le
doc: |
  The binary STF container, written from the "STF" section of
  shared/design/FORMAT-NOTES.md: the magic `STF0`, two u32, a u32 buffer count that
  includes the JSON document, one u64 length per buffer, then the UTF-8 JSON (buffer 0),
  then every other buffer in order. Little-endian, no alignment, nothing after the last
  buffer. The JSON refers to binary buffers by index (new files, through
  `referenced_buffers`) or by UUID (old files); resolving those is for the JSON reader.
seq:
  - id: magic
    contents: STF0
  - id: version_major
    type: u4
    doc: Not named by the notes; 0 in every known file (meshcodec reports it as the "0.0" version).
  - id: version_minor
    type: u4
    doc: Not named by the notes; 0 in every known file.
  - id: num_buffers
    type: u4
    valid:
      min: 1
    doc: Buffer count, the JSON document included.
  - id: buffer_lengths
    type: u8
    repeat: expr
    repeat-expr: num_buffers
    doc: Byte length of each buffer; the first is the JSON's.
  - id: json
    type: str
    size: buffer_lengths[0]
    encoding: UTF-8
  - id: buffers
    size: buffer_lengths[_index + 1]
    repeat: expr
    repeat-expr: num_buffers - 1
    doc: The binary buffers, in order (index k here is buffer k + 1 of the header).
instances:
  num_binary_buffers:
    value: num_buffers - 1
