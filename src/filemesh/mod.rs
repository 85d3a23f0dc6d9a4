//! Roblox FileMesh, every version (1.00 … 7.00).
//!
//! - [`raw`]: the file exactly as it is, one `#[binrw]` type per spec struct; read, write
//!   back, get the same bytes.
//! - [`model`]: one version-independent [`model::Mesh`]; read any version into it,
//!   edit, write any version, with a report of what the target cannot hold.
//! - [`scene`]: the mesh to and from the format-neutral export scene (glTF, OBJ).
//!
//! # Example
//!
//! Read any version into the model, edit it, write another version with its loss report:
//!
//! ```
//! use meshcodec::filemesh::{FileMesh, Mesh, Version};
//!
//! let bytes = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/roundtrip-fixtures/filemesh/v4.01-bones.mesh"));
//! let raw = FileMesh::read(bytes)?; // the raw layer: the same bytes back
//! assert_eq!(raw.write()?, bytes);
//!
//! let mut mesh = Mesh::read(bytes)?; // the model
//! assert!(!mesh.skeleton.is_empty());
//! for v in &mut mesh.vertices {
//!     v.position = v.position.map(|x| x * 2.0);
//! }
//! let two = mesh.convert(Version::V2_00)?; // 2.00 has no bones
//! assert!(two.losses.iter().any(|l| l.is_lost()));
//! let back = Mesh::read(&two.file.write()?)?;
//! assert_eq!(back.vertices.len(), mesh.vertices.len());
//! # Ok::<(), meshcodec::Error>(())
//! ```

pub mod file;
pub mod model;
pub mod raw;
pub mod scene;

pub use model::Mesh;
pub use raw::{FileMesh, Version};
