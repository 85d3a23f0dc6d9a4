//! Roblox union graphics: CSGMDL 2, 4 and 5 (the mesh a union renders with, a
//! `PartOperation`'s `MeshData`) and CSGK (a reference to one stored elsewhere).
//!
//! - [`raw`]: the blobs exactly as stored, obfuscation included, byte-exact.
//! - [`file`]: the blobs through the front door ([`crate::MeshFile`]): info, dump,
//!   verify (version 5's corner stream decoded), export.
//!
//! Not yet: a version-independent model and conversion between versions (see
//! `docs/csgmdl.md`).

pub mod file;
pub mod raw;

pub use raw::{CsgK, CsgMdl};
