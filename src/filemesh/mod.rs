//! Roblox FileMesh, every version (1.00 … 7.00).
//!
//! - [`raw`]: the file exactly as it is, one `#[binrw]` type per spec struct; read, write
//!   back, get the same bytes.
//! - [`model`]: one version-independent [`model::Mesh`]; read any version into it,
//!   edit, write any version, with a report of what the target cannot hold.
//! - [`scene`]: the mesh to and from the format-neutral export scene (glTF, OBJ).

pub mod file;
pub mod model;
pub mod raw;
pub mod scene;

pub use model::Mesh;
pub use raw::{FileMesh, Version};
