meta:
  id: unigine_cint
  title: UNIGINE compact signed integer (readInt2 / writeInt2)
  license: CC0-1.0
  ks-version: "0.11"
doc: |
  UNIGINE's compact int, used for every count in .mesh and .anim files. It is neither
  LEB128 nor zig-zag:

  - lead byte: bit 7 = more bytes follow, bit 6 = sign (1 = negative), bits 0-5 = magnitude
    bits 0-5;
  - each further byte: bit 7 = more bytes follow, bits 0-6 = the next 7 magnitude bits.

  Examples: `00` = 0, `41` = -1, `81 01` = 65, `84 12` = 1156, and `bf 00` = 63 (UNIGINE's
  writer uses the lead byte alone only for magnitudes up to 62; longer, non-minimal forms
  read the same). `value` covers up to 5 bytes (34 magnitude bits); no real count is that
  large.
seq:
  - id: groups
    type: u1
    repeat: until
    repeat-until: (_ & 0x80) == 0
    doc: The lead byte, then the further bytes; the last one has bit 7 clear.
instances:
  is_negative:
    value: (groups[0] & 0x40) != 0
  magnitude:
    value: >-
      (groups[0] & 0x3f)
      | (groups.size > 1 ? (groups[1] & 0x7f) << 6 : 0)
      | (groups.size > 2 ? (groups[2] & 0x7f) << 13 : 0)
      | (groups.size > 3 ? (groups[3] & 0x7f) << 20 : 0)
      | (groups.size > 4 ? (groups[4] & 0x7f) << 27 : 0)
  value:
    value: 'is_negative ? -magnitude : magnitude'
    doc: The signed value.
