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

pub mod draco;
pub mod lz4;
