meta:
  id: unigine_cstr
  title: UNIGINE length-prefixed, NUL-terminated string
  license: CC0-1.0
  ks-version: "0.11"
  imports:
    - unigine_cint
doc: |
  A compact-int length n that counts the terminating NUL, then n bytes ending in `00`.
  The empty string is `01 00`.
seq:
  - id: len
    type: unigine_cint
    doc: Byte count, the NUL included.
  - id: value
    type: strz
    size: len.value
    encoding: UTF-8
    doc: The text up to the first NUL; all `len` bytes are consumed.
