meta:
  id: unigine_ms14_tree
  title: UNIGINE ms14 edge flags and spatial tree of one surface (decompressed)
  license: CC0-1.0
  ks-version: "0.11"
  endian: le
  imports:
    - unigine_cint
doc: |
  The content of one ms14 tree block (unigine_mesh.ksy `tree_blocks[i]`, after LZ4
  decompression), written from docs/unigine-ms14.md. The block carries its own counts;
  `num_triangles` (the surface header's CI / 3) is passed in and checked against them.

  Nodes are in pre-order: the root is node 0, the left child of node n is n + 1. A leaf has
  left = right = -1, axis 0, split 0, and covers triangle_refs[start .. end). An inner node
  has start = end = 0 and axis 0, 1 or 2.
params:
  - id: num_triangles
    type: u4
seq:
  - id: num_edge_flags
    type: unigine_cint
    valid:
      expr: _.value == num_triangles
  - id: edge_flags
    size: num_edge_flags.value
    doc: Per triangle; bit b is the edge opposite corner b, clear when the neighbour across it is coplanar.
  - id: num_triangle_refs
    type: unigine_cint
    valid:
      expr: _.value == num_triangles
  - id: triangle_refs
    type: unigine_cint
    repeat: expr
    repeat-expr: num_triangle_refs.value
    doc: 3 x triangle number (the triangle's first index-list entry), in tree-leaf order.
  - id: num_nodes
    type: unigine_cint
  - id: nodes
    type: node
    repeat: expr
    repeat-expr: num_nodes.value
  - id: node_bounds
    type: box
    repeat: expr
    repeat-expr: num_nodes.value
    doc: Exact bounds of the triangles under each node.
  - id: node_splits
    type: f4
    repeat: expr
    repeat-expr: num_nodes.value
    doc: Split position on the node's axis (0 for leaves); kept as read.
types:
  node:
    seq:
      - id: axis
        type: u1
      - id: left
        type: unigine_cint
      - id: right
        type: unigine_cint
      - id: start
        type: unigine_cint
      - id: end
        type: unigine_cint
    instances:
      is_leaf:
        value: left.value == -1
  box:
    seq:
      - id: min_x
        type: f4
      - id: min_y
        type: f4
      - id: min_z
        type: f4
      - id: max_x
        type: f4
      - id: max_y
        type: f4
      - id: max_z
        type: f4
