//! Roblox unions (CSG): [`phs`], the collision data (CSGPHS) of a `PartOperation`, and
//! [`mdl`], its union graphics (CSGMDL, CSGK).
//!
//! # Example
//!
//! Collision hulls from a CSGPHS blob, and the union's triangles from its CSGMDL graphics:
//!
//! ```
//! use meshcodec::csg::mdl::UnionMesh;
//! use meshcodec::csg::phs::model::CsgMesh;
//!
//! let hulls = CsgMesh::read(include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/roundtrip-fixtures/csgphs/csgphs8-boxes.bin")))?;
//! assert_eq!(hulls.hulls.len(), 2); // two boxes, Edgebreaker-coded in a zstd frame
//! let physics = hulls.computed_physics(); // volume, centre of gravity, inertia
//! assert_eq!(physics.volume, 8.0);
//! // Any version from the model; version 7 stores the hulls as plain records.
//! let v7 = hulls.to_csgphs(7)?.write()?;
//! assert_eq!(CsgMesh::read(&v7)?.hulls.len(), 2);
//!
//! let graphics = UnionMesh::read(include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/roundtrip-fixtures/csgmdl/csgmdl5-quad-lod.bin")))?;
//! assert!(!graphics.triangles.is_empty());
//! # Ok::<(), meshcodec::Error>(())
//! ```
pub mod mdl;
pub mod phs;
