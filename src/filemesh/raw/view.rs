//! A borrowed view of a FileMesh: the headers and the small arrays are read, the big
//! arrays (vertices, envelopes, faces, a Draco bitstream) stay where they lie in the
//! caller's bytes and are read from there when asked.
//!
//! [`FileMeshView::parse`] checks what [`FileMesh::read`](super::FileMesh::read) checks
//! (every count against the bytes behind it, every chunk's payload filled exactly) and
//! fails where it fails, at the same offset, but copies no array: answering
//! [`FileMeshView::info`] for a file already in memory costs the headers and one pass
//! over the vertices (for the non-finite counts), not a copy of the file.
//!
//! The layouts below mirror the owned ones field for field, with a span (where the
//! records lie, checked to be there) where those have a counted array of records.

use binrw::binread;

use super::chunks::{chunk_type_name, ChunkData, COREMESH, LODS, SKINNING};
use super::facs::Facs;
use super::info::{ChunkInfo, Info};
use super::records::{Bone, Envelope, Face, NonFiniteCounts, Subset, Vertex, Vertex36};
use super::{
    read_version_line, shift_error, FileMeshHeaderV2, FileMeshHeaderV4, FileMeshV1, LodOffsetsV3,
    Version, VERSION_LINE_LEN,
};
use crate::error::{Error, Limits, Result};
use crate::io::{exactly, read_all, rest_span, NotThisVariant, Payload, Records, Span};

/// A FileMesh read in place from `bytes` (see the module documentation).
#[derive(Clone, Debug)]
pub struct FileMeshView<'a> {
    version: Version,
    /// The bytes after the version line, which the spans index.
    body: &'a [u8],
    layout: Layout,
}

#[derive(Clone, Debug)]
// One per view: the size of the inline variants does not matter.
#[allow(clippy::large_enum_variant)]
enum Layout {
    /// Text has no arrays to leave in place: it is parsed.
    Text(FileMeshV1),
    V2(FileMeshV2View),
    V4(FileMeshV4View),
    V6(Vec<ChunkView>),
}

/// `FileMeshV2`/`FileMeshV3`, arrays in place.
#[binread]
#[br(little, import(version: Version))]
#[derive(Clone, Debug)]
struct FileMeshV2View {
    #[br(args(version.has_lods()))]
    header: FileMeshHeaderV2,
    #[br(args(header.sizeof_vertex, header.num_verts))]
    vertices: VertexSpan,
    #[br(count = u64::from(header.num_faces))]
    faces: Span<Face>,
    #[br(if(version.has_lods()), args(header.sizeof_lod_offset, header.num_lod_offsets))]
    lods: Option<LodOffsetsV3>,
    #[br(parse_with = rest_span)]
    trailing: Span<u8>,
}

/// The vertices of a 2.00/3.0x mesh: 36- or 40-byte records.
#[binread]
#[br(little, import(sizeof_vertex: u8, num_verts: u32))]
#[derive(Clone, Copy, Debug)]
enum VertexSpan {
    #[br(pre_assert(sizeof_vertex == 36, NotThisVariant))]
    Size36(#[br(count = u64::from(num_verts))] Span<Vertex36>),
    #[br(pre_assert(sizeof_vertex == 40, NotThisVariant))]
    Size40(#[br(count = u64::from(num_verts))] Span<Vertex>),
}

/// `FileMeshV4`/`FileMeshV5`, arrays in place.
#[binread]
#[br(little, import(version: Version))]
#[derive(Clone, Debug)]
struct FileMeshV4View {
    #[br(args(version.has_facs()))]
    header: FileMeshHeaderV4,
    #[br(count = u64::from(header.num_verts))]
    vertices: Span<Vertex>,
    #[br(count = header.num_envelopes())]
    envelopes: Span<Envelope>,
    #[br(count = u64::from(header.num_faces))]
    faces: Span<Face>,
    #[br(count = u64::from(header.num_lod_offsets))]
    lod_offsets: Records<u32>,
    #[br(count = u64::from(header.num_bones))]
    bones: Records<Bone>,
    #[br(count = u64::from(header.sizeof_bone_names))]
    bone_names: Records<u8>,
    #[br(count = u64::from(header.num_subsets))]
    subsets: Records<Subset>,
    #[br(args(header.facs_data_format, header.facs_data_size))]
    facs: Facs,
    #[br(parse_with = rest_span)]
    trailing: Span<u8>,
}

/// `MeshChunk`, its big payloads in place.
#[binread]
#[br(little)]
#[derive(Clone, Debug)]
struct ChunkView {
    chunk_type: [u8; 8],
    chunk_version: u32,
    size: u32,
    #[br(parse_with = exactly, args(u64::from(size), "chunk payload bytes", (chunk_type, chunk_version, size)))]
    data: PayloadView,
}

/// A chunk's payload: the kinds with big arrays in place, the others read as
/// [`ChunkData`].
#[binread]
#[br(little, import(chunk_type: [u8; 8], version: u32, size: u32))]
#[derive(Clone, Debug)]
// A handful per file.
#[allow(clippy::large_enum_variant)]
enum PayloadView {
    #[br(pre_assert((chunk_type, version) == (COREMESH, 1), NotThisVariant))]
    CoreMeshV1 {
        #[br(temp)]
        num_verts: u32,
        #[br(count = u64::from(num_verts))]
        vertices: Span<Vertex>,
        #[br(temp)]
        num_faces: u32,
        #[br(count = u64::from(num_faces))]
        faces: Span<Face>,
    },
    #[br(pre_assert((chunk_type, version) == (COREMESH, 2), NotThisVariant))]
    CoreMeshV2 {
        #[br(temp)]
        draco_size: u32,
        #[br(count = u64::from(draco_size))]
        draco: Span<u8>,
    },
    #[br(pre_assert((chunk_type, version) == (SKINNING, 1), NotThisVariant))]
    SkinningV1 {
        #[br(temp)]
        num_skinnings: u32,
        #[br(count = u64::from(num_skinnings))]
        envelopes: Span<Envelope>,
        #[br(temp)]
        num_bones: u32,
        #[br(count = u64::from(num_bones))]
        bones: Records<Bone>,
        #[br(temp)]
        name_table_size: u32,
        #[br(count = u64::from(name_table_size))]
        bone_names: Records<u8>,
        #[br(temp)]
        num_subsets: u32,
        #[br(count = u64::from(num_subsets))]
        subsets: Records<Subset>,
    },
    Other(#[br(args(chunk_type, version, size))] ChunkData),
}

impl Payload for PayloadView {
    fn kind(&self) -> &'static str {
        match self {
            PayloadView::CoreMeshV1 { .. } => "COREMESH v1",
            PayloadView::CoreMeshV2 { .. } => "COREMESH v2",
            PayloadView::SkinningV1 { .. } => "SKINNING v1",
            PayloadView::Other(d) => d.kind(),
        }
    }
}

/// Records of `T` in place, read one by one (the bytes need not be aligned).
fn records<'a, T: bytemuck::Pod>(
    span: Span<T>,
    body: &'a [u8],
) -> impl ExactSizeIterator<Item = T> + 'a {
    span.bytes(body)
        .chunks_exact(std::mem::size_of::<T>())
        .map(bytemuck::pod_read_unaligned)
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
            let text = FileMeshV1::read(bytes, version)?;
            return Ok(FileMeshView {
                version,
                body: &[],
                layout: Layout::Text(text),
            });
        }
        let body = bytes.get(VERSION_LINE_LEN..).unwrap_or_default();
        let shift = |e: Error| shift_error(e, VERSION_LINE_LEN as u64);
        let layout = match version {
            Version::V2_00 | Version::V3_00 | Version::V3_01 => {
                Layout::V2(read_all(body, limits, (version,)).map_err(shift)?)
            }
            Version::V4_00 | Version::V4_01 | Version::V5_00 => {
                Layout::V4(read_all(body, limits, (version,)).map_err(shift)?)
            }
            Version::V6_00 | Version::V7_00 => {
                Layout::V6(read_all::<ChunksView>(body, limits, ()).map_err(shift)?.0)
            }
            Version::V1_00 | Version::V1_01 => unreachable!("text is handled above"),
        };
        Ok(FileMeshView {
            version,
            body,
            layout,
        })
    }

    /// The version from the first line.
    pub fn version(&self) -> Version {
        self.version
    }

    /// Number of vertices as stored (1.0x: three per face; 7.00 Draco: unknown until
    /// decoded, so `None`).
    pub fn vertex_count(&self) -> Option<usize> {
        Some(match &self.layout {
            Layout::Text(t) => t.num_faces() * 3,
            Layout::V2(b) => match b.vertices {
                VertexSpan::Size36(s) => s.count as usize,
                VertexSpan::Size40(s) => s.count as usize,
            },
            Layout::V4(b) => b.vertices.count as usize,
            Layout::V6(chunks) => match core(chunks)? {
                PayloadView::CoreMeshV1 { vertices, .. } => vertices.count as usize,
                _ => return None,
            },
        })
    }

    /// The vertices of a binary 2.00–6.00 file (and a 7.00 file with an uncompressed
    /// core mesh), read from the bytes as they are iterated; 36-byte vertices become
    /// white and opaque. `None` for text and for a Draco core mesh (use
    /// [`FileMesh::read`](super::FileMesh::read)).
    pub fn vertices(&self) -> Option<Box<dyn ExactSizeIterator<Item = Vertex> + 'a>> {
        let body = self.body;
        Some(match &self.layout {
            Layout::Text(_) => return None,
            Layout::V2(b) => match b.vertices {
                VertexSpan::Size36(s) => Box::new(records(s, body).map(Vertex::from)),
                VertexSpan::Size40(s) => Box::new(records(s, body)),
            },
            Layout::V4(b) => Box::new(records(b.vertices, body)),
            Layout::V6(chunks) => match core(chunks)? {
                PayloadView::CoreMeshV1 { vertices, .. } => Box::new(records(*vertices, body)),
                _ => return None,
            },
        })
    }

    /// The faces, read from the bytes as they are iterated (`None` as for
    /// [`FileMeshView::vertices`]).
    pub fn faces(&self) -> Option<Box<dyn ExactSizeIterator<Item = Face> + 'a>> {
        let body = self.body;
        Some(match &self.layout {
            Layout::Text(_) => return None,
            Layout::V2(b) => Box::new(records(b.faces, body)),
            Layout::V4(b) => Box::new(records(b.faces, body)),
            Layout::V6(chunks) => match core(chunks)? {
                PayloadView::CoreMeshV1 { faces, .. } => Box::new(records(*faces, body)),
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
        let body = self.body;
        let mut info = Info::of_version(self.version);
        match &self.layout {
            Layout::Text(t) => {
                return super::FileMesh {
                    version: self.version,
                    body: super::Body::V1(t.clone()),
                }
                .info_with_limits(limits)
            }
            Layout::V2(b) => {
                let (size, non_finite) = match b.vertices {
                    VertexSpan::Size36(s) => (
                        36,
                        NonFiniteCounts::of_iter(records(s, body).map(Vertex::from)),
                    ),
                    VertexSpan::Size40(s) => (40, NonFiniteCounts::of_iter(records(s, body))),
                };
                info.set_v2(
                    self.version,
                    size,
                    non_finite,
                    b.faces.count as usize,
                    b.header.extra.len(),
                );
                info.vertices = match b.vertices {
                    VertexSpan::Size36(s) => s.count as usize,
                    VertexSpan::Size40(s) => s.count as usize,
                };
                if let Some(l) = &b.lods {
                    info.lod_offsets = l.lod_offsets.to_vec();
                }
                info.trailing_bytes = b.trailing.count as usize;
            }
            Layout::V4(b) => {
                let h = &b.header;
                info.set_v4(
                    self.version,
                    h.num_verts as usize,
                    NonFiniteCounts::of_iter(records(b.vertices, body)),
                    b.faces.count as usize,
                    h.extra.len(),
                    (h.lod_type, h.num_high_quality_lods, h.unused_padding),
                );
                info.lod_offsets = b.lod_offsets.to_vec();
                info.set_skin(
                    &b.bones,
                    &b.bone_names,
                    b.subsets.len(),
                    b.envelopes.count as usize,
                );
                if self.version.has_facs() {
                    info.set_facs(&b.facs, h.facs_data_format);
                }
                info.trailing_bytes = b.trailing.count as usize;
            }
            Layout::V6(chunks) => {
                let mut listed = Vec::new();
                // LOD offsets come from the first chunk typed LODS, if it is a LODS v1.
                if let Some(c) = chunks.iter().find(|c| c.chunk_type == LODS) {
                    if let PayloadView::Other(ChunkData::LodsV1(l)) = &c.data {
                        info.lod_offsets = l.lod_offsets.to_vec();
                    }
                }
                for c in chunks {
                    listed.push(ChunkInfo {
                        name: chunk_type_name(&c.chunk_type),
                        version: c.chunk_version,
                        size: c.size as usize,
                        kind: c.data.kind(),
                    });
                    // The first chunk of each kind counts, as the engine reads it.
                    match &c.data {
                        PayloadView::CoreMeshV1 { vertices, faces }
                            if info.vertex_size.is_none() =>
                        {
                            info.set_core(
                                vertices.count as usize,
                                faces.count as usize,
                                NonFiniteCounts::of_iter(records(*vertices, body)),
                            );
                        }
                        PayloadView::CoreMeshV2 { draco } if info.vertex_size.is_none() => {
                            let core = crate::codec::draco::survey(draco.bytes(body), limits)
                                .map_err(|e| {
                                    shift_error(e, VERSION_LINE_LEN as u64 + draco.start)
                                })?;
                            info.set_core(core.points, core.faces, core.non_finite);
                        }
                        PayloadView::SkinningV1 {
                            envelopes,
                            bones,
                            bone_names,
                            subsets,
                        } if info.bone_names.is_empty() => {
                            info.set_skin(
                                bones,
                                bone_names,
                                subsets.len(),
                                envelopes.count as usize,
                            );
                        }
                        PayloadView::Other(d) => info.set_chunk(d),
                        _ => {}
                    }
                }
                info.chunks = Some(listed);
            }
        }
        Ok(info)
    }
}

/// The chunks of a 6.00/7.00 body, until the input ends.
#[binread]
#[br(little)]
struct ChunksView(#[br(parse_with = crate::io::until_end)] Vec<ChunkView>);

/// The first COREMESH chunk's payload, as the engine reads it.
fn core(chunks: &[ChunkView]) -> Option<&PayloadView> {
    chunks.iter().map(|c| &c.data).find(|d| {
        matches!(
            d,
            PayloadView::CoreMeshV1 { .. } | PayloadView::CoreMeshV2 { .. }
        )
    })
}
