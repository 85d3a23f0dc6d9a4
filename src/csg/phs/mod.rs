//! Roblox CSGPHS: a union's collision data (convex hulls, physics info).
//!
//! - [`raw`]: the blob exactly as stored, every version (0, 3, 5, 6, 7, 8), byte-exact;
//!   [`edgebreaker`] codes version 8's hull connectivity.
//! - [`model`]: the hulls, their physics and what the source stored; any version from it,
//!   with the loss report.
//! - [`scene`]: hulls to and from the export scene.

pub mod edgebreaker;
pub mod file;
pub mod model;
pub mod raw;
pub mod scene;

pub use model::CsgMesh;
pub use raw::Csgphs;
