//! UNIGINE's model side above the raw layer: what is built rather than read. The
//! spatial tree and edge flags of an ms14 surface ([`tree`]) and the conversions between
//! the ms10–ms13 layout and ms14 ([`ms14`]: `Ms14Mesh::from_classic`,
//! `Ms14Mesh::write_classic`, `UnigineMesh::to_classic`) and the embedded animations as
//! an11 files ([`anim`]). It imports the raw layer; the
//! raw layer never imports it.

pub mod anim;
pub mod ms14;
pub mod tree;

pub use tree::{build_tree, COPLANAR_COS, TREE_LEAF_TRIANGLES};
