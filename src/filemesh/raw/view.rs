//! A borrowed view of a FileMesh: the headers and the small arrays are read, the big
//! arrays (vertices, envelopes, faces, a Draco bitstream, trailing bytes) stay where they
//! lie in the caller's bytes and are read from there when asked.
//!
//! [`FileMeshView::parse`] reads the very layouts [`FileMesh::read`](super::FileMesh::read)
//! reads, instantiated with `InPlace` arrays ([`Arrays`](crate::Arrays)), so it checks
//! what the owned read checks (every count against the bytes behind it, every chunk's
//! payload filled exactly) and fails where it fails, at the same offset, but copies no
//! array: answering [`FileMeshView::info`] for a file already in memory costs the
//! headers and one pass over the vertices (for the non-finite counts), not a copy of the
//! file.

use super::chunks::{Chunk, ChunkData};
use super::info::Info;
use super::records::{Face, Vertex};
use super::{read_version_line, Body, FileMeshV1, Version, VertexArray, VERSION_LINE_LEN};
use crate::error::{Limits, Result};
use crate::io::{Counted, InPlace};

/// A FileMesh read in place from `bytes` (see the module documentation).
#[derive(Clone, Debug)]
pub struct FileMeshView<'a> {
    version: Version,
    /// The bytes after the version line, which the arrays index.
    input: &'a [u8],
    body: Body<InPlace>,
}

impl<'a> FileMeshView<'a> {
    /// Reads the headers and small arrays of `bytes`, a whole FileMesh, with the default
    /// [`Limits`].
    pub fn parse(bytes: &'a [u8]) -> Result<FileMeshView<'a>> {
        Self::parse_with_limits(bytes, &Limits::default())
    }

    /// [`FileMeshView::parse`] with explicit limits.
    pub fn parse_with_limits(bytes: &'a [u8], limits: &Limits) -> Result<FileMeshView<'a>> {
        limits.check_input(bytes.len())?;
        let version = read_version_line(bytes)?;
        if version.is_text() {
            // Text has no arrays to leave in place: it is parsed.
            let text = FileMeshV1::read(bytes, version)?;
            return Ok(FileMeshView {
                version,
                input: &[],
                body: Body::V1(text),
            });
        }
        let input = bytes.get(VERSION_LINE_LEN..).unwrap_or_default();
        let body = Body::read_binary(version, std::io::Cursor::new(input), limits)?;
        Ok(FileMeshView {
            version,
            input,
            body,
        })
    }

    /// The version from the first line.
    pub fn version(&self) -> Version {
        self.version
    }

    /// Number of vertices as stored (1.0x: three per face; 7.00 Draco: unknown until
    /// decoded, so `None`).
    pub fn vertex_count(&self) -> Option<usize> {
        Some(match &self.body {
            Body::V1(t) => t.num_faces() * 3,
            Body::V2(b) => b.vertices.len(),
            Body::V4(b) => b.vertices.len(),
            Body::V6(b) => match core(&b.chunks)? {
                ChunkData::CoreMeshV1(c) => c.vertices.len(),
                _ => return None,
            },
        })
    }

    /// The vertices of a binary 2.00–6.00 file (and a 7.00 file with an uncompressed
    /// core mesh), read from the bytes as they are iterated; 36-byte vertices become
    /// white and opaque. `None` for text and for a Draco core mesh (use
    /// [`FileMesh::read`](super::FileMesh::read)).
    pub fn vertices(&self) -> Option<Box<dyn ExactSizeIterator<Item = Vertex> + 'a>> {
        let input = self.input;
        Some(match &self.body {
            Body::V1(_) => return None,
            Body::V2(b) => match b.vertices {
                VertexArray::Size36(s) => Box::new(s.records(input).map(Vertex::from)),
                VertexArray::Size40(s) => Box::new(s.records(input)),
            },
            Body::V4(b) => Box::new(b.vertices.records(input)),
            Body::V6(b) => match core(&b.chunks)? {
                ChunkData::CoreMeshV1(c) => Box::new(c.vertices.records(input)),
                _ => return None,
            },
        })
    }

    /// The faces, read from the bytes as they are iterated (`None` as for
    /// [`FileMeshView::vertices`]).
    pub fn faces(&self) -> Option<Box<dyn ExactSizeIterator<Item = Face> + 'a>> {
        let input = self.input;
        Some(match &self.body {
            Body::V1(_) => return None,
            Body::V2(b) => Box::new(b.faces.records(input)),
            Body::V4(b) => Box::new(b.faces.records(input)),
            Body::V6(b) => match core(&b.chunks)? {
                ChunkData::CoreMeshV1(c) => Box::new(c.faces.records(input)),
                _ => return None,
            },
        })
    }

    /// The summary `meshcodec info` prints, with the default [`Limits`]: the same as
    /// [`FileMesh::info`](super::FileMesh::info) of the file read whole. A Draco core
    /// mesh is decoded from the bytes in place for its counts.
    pub fn info(&self) -> Result<Info> {
        self.info_with_limits(&Limits::default())
    }

    /// [`FileMeshView::info`] with explicit limits for the Draco decoder.
    pub fn info_with_limits(&self, limits: &Limits) -> Result<Info> {
        self.body.info(self.version, self.input, limits)
    }
}

/// The first COREMESH chunk's payload, as the engine reads it.
fn core(chunks: &[Chunk<InPlace>]) -> Option<&ChunkData<InPlace>> {
    chunks
        .iter()
        .map(|c| &c.data)
        .find(|d| matches!(d, ChunkData::CoreMeshV1(_) | ChunkData::CoreMeshV2(_)))
}
