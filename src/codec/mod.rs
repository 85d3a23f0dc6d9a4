//! Codecs that several formats use, with no format's knowledge beyond the records they
//! decode into:
//!
//! - [`draco`]: Draco mesh compression through `draco-core` (FileMesh 7.00's COREMESH v2,
//!   glTF's `KHR_draco_mesh_compression`);
//! - [`lz4`]: LZ4 blocks as UNIGINE writes them (ms14 geometry), and a streaming decoder.
//!
//! Imports run one way: a format's raw layer calls a codec, never the reverse. Draco
//! decodes straight into FileMesh's [`Vertex`](crate::filemesh::raw::records::Vertex) and
//! [`Face`](crate::filemesh::raw::records::Face) records (no copy of the arrays between
//! the decoder and the file), its only dependency on a format.
//!
//! # Example
//!
//! Decode a Draco blob into FileMesh records, and LZ4 as UNIGINE stores it:
//!
//! ```
//! use meshcodec::codec::{draco, lz4};
//! use meshcodec::Limits;
//! use std::io::Read;
//!
//! let blob = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/roundtrip-fixtures/draco/grid-272.drc"));
//! let (vertices, faces) = draco::decode(blob, &Limits::default())?;
//! assert!(faces.iter().flat_map(|f| f.indices).all(|i| (i as usize) < vertices.len()));
//!
//! let data = b"ms14 geometry, ms14 geometry, ms14 geometry".repeat(10);
//! let packed = lz4::compress(&data);
//! assert!(packed.len() < data.len());
//! let mut back = Vec::new();
//! lz4::Decoder::new(&packed, data.len() as u64).read_to_end(&mut back)?;
//! assert_eq!(back, data);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod draco;
pub mod lz4;
