//! Roblox union graphics: CSGMDL 2, 4 and 5 (the mesh a union renders with, a
//! `PartOperation`'s `MeshData`) and CSGK (a reference to one stored elsewhere).
//!
//! - [`raw`]: the blobs exactly as stored, obfuscation included, byte-exact.
//! - [`file`](mod@file): the blobs through the front door ([`crate::MeshFile`]): info, dump,
//!   verify (version 5's corner stream decoded), export (every index range a level of
//!   detail), and what its scene leaves behind (`losses`).
//!
//! - [`model`]: one union mesh whatever the version; any version written from it,
//!   with the loss report.

pub mod file;
mod losses;
pub mod model;
pub mod raw;

pub use model::UnionMesh;
pub use raw::{CsgK, CsgMdl};
