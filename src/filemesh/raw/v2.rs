//! FileMesh 2.00, 3.00 and 3.01 (spec sections "version 2.00" and "version 3.00 & 3.01").
//!
//! 3.0x is 2.00 plus two header fields and the LOD offsets after the faces, so one body
//! type with conditional fields covers the three versions; the version is passed down.

use binrw::{binrw, BinResult};
use serde::Serialize;

use super::records::{Face, Vertex, Vertex36};
use super::Version;
use crate::io::{
    at_least, count_as, inconsistent, one_of, Arrays, Counted, NotThisVariant, Owned, Records,
};

/// `FileMeshHeaderV2`, and `FileMeshHeaderV3` when `has_lods` (the `[+]` fields).
///
/// This is the wire form: [`FileMeshV2`] reads it and builds it anew on write from its
/// data, so counts can never disagree with the arrays.
#[binrw]
#[brw(little)]
#[br(import(has_lods: bool))]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[doc(alias = "FileMeshHeaderV3")]
pub struct FileMeshHeaderV2 {
    /// True for the 3.0x form (`FileMeshHeaderV3`); not stored in the file.
    #[br(calc = has_lods)]
    #[bw(ignore)]
    pub has_lods: bool,
    /// `sizeof_FileMeshHeaderV2/V3`: 12 (2.00) or 16 (3.0x), more if the header has
    /// bytes beyond the known fields.
    #[br(try_map = |v: u16| at_least(v, FileMeshHeaderV2::known_size(has_lods), "sizeof_FileMeshHeader"))]
    pub sizeof_header: u16,
    /// `sizeof_FileMeshVertex`: 36 (no colour) or 40.
    #[br(try_map = |v: u8| one_of(v, &[36, 40], "sizeof_FileMeshVertex"))]
    pub sizeof_vertex: u8,
    /// `sizeof_FileMeshFace`: 12.
    #[br(try_map = |v: u8| one_of(v, &[12], "sizeof_FileMeshFace"))]
    pub sizeof_face: u8,
    /// `sizeof_LodOffset` (3.0x): "unused, always 4"; kept as read.
    #[br(if(has_lods))]
    #[bw(if(*has_lods))]
    pub sizeof_lod_offset: u16,
    /// `numLodOffsets` (3.0x).
    #[br(if(has_lods))]
    #[bw(if(*has_lods))]
    pub num_lod_offsets: u16,
    /// `numVerts`.
    pub num_verts: u32,
    /// `numFaces`.
    pub num_faces: u32,
    /// Bytes beyond the known fields, up to `sizeof_header`.
    #[br(count = u64::from(sizeof_header - FileMeshHeaderV2::known_size(has_lods)))]
    pub extra: Records<u8>,
}

impl FileMeshHeaderV2 {
    /// Size of the fields this crate knows: 12, or 16 with LODs.
    pub const fn known_size(has_lods: bool) -> u16 {
        if has_lods {
            16
        } else {
            12
        }
    }
}

/// The vertices of a 2.00/3.0x mesh: 36-byte (no colour) or 40-byte records, as the
/// header's `sizeof_FileMeshVertex` says. `A` says where the records are held
/// ([`Arrays`]: in memory by default).
#[binrw]
#[brw(little)]
#[br(import(sizeof_vertex: u8, num_verts: u32))]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged, bound = "")]
pub enum VertexArray<A: Arrays = Owned> {
    /// `sizeof_FileMeshVertex` = 36.
    #[br(pre_assert(sizeof_vertex == 36, NotThisVariant))]
    Size36(#[br(count = u64::from(num_verts))] A::Of<Vertex36>),
    /// `sizeof_FileMeshVertex` = 40.
    #[br(pre_assert(sizeof_vertex == 40, NotThisVariant))]
    Size40(#[br(count = u64::from(num_verts))] A::Of<Vertex>),
}

impl<A: Arrays> VertexArray<A> {
    /// Number of vertices.
    pub fn len(&self) -> usize {
        match self {
            VertexArray::Size36(v) => v.len(),
            VertexArray::Size40(v) => v.len(),
        }
    }

    /// True when there are no vertices.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes per vertex in the file.
    pub fn vertex_size(&self) -> u8 {
        match self {
            VertexArray::Size36(_) => 36,
            VertexArray::Size40(_) => 40,
        }
    }
}

impl VertexArray {
    /// Every vertex as a 40-byte vertex (36-byte vertices become white and opaque).
    pub fn to_vertices(&self) -> Vec<Vertex> {
        match self {
            VertexArray::Size36(v) => v.iter().map(|&v| v.into()).collect(),
            VertexArray::Size40(v) => v.to_vec(),
        }
    }
}

/// The LOD data of a 3.0x mesh: `sizeof_LodOffset` from the header and the
/// `lodOffsets` array after the faces.
#[binrw]
#[brw(little)]
#[br(import(sizeof_lod_offset: u16, count: u16))]
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LodOffsetsV3 {
    /// `sizeof_LodOffset` as read (4 in real files; offsets are u32 whatever it says).
    #[br(calc = sizeof_lod_offset)]
    #[bw(ignore)]
    pub sizeof_lod_offset: u16,
    /// `lodOffsets`: face indices where each LOD starts; the last equals `numFaces`.
    #[br(count = u64::from(count))]
    pub lod_offsets: Records<u32>,
}

/// `FileMeshV2` (2.00) and `FileMeshV3` (3.00, 3.01): header, vertices, faces and, in
/// 3.0x, LOD offsets. Counts are derived from the arrays on write. `A` says where the
/// vertices, faces and trailing bytes are held ([`Arrays`]: in memory by default).
#[binrw]
#[brw(little, import(version: Version))]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(bound = "")]
#[doc(alias = "FileMeshV3")]
pub struct FileMeshV2<A: Arrays = Owned> {
    #[br(temp, args(version.has_lods()))]
    #[bw(try_calc = FileMeshHeaderV2::build(version, header_tail, vertices, faces, lods))]
    header: FileMeshHeaderV2,

    /// Header bytes beyond the known fields (`sizeof_header` = 12 or 16 + this length).
    #[br(calc = header.extra.clone().into())]
    #[bw(ignore)]
    pub header_tail: Vec<u8>,

    /// `verts[numVerts]`.
    #[br(args(header.sizeof_vertex, header.num_verts))]
    pub vertices: VertexArray<A>,

    /// `faces[numFaces]`: every face, LOD faces included.
    #[br(count = u64::from(header.num_faces))]
    pub faces: A::Of<Face>,

    /// 3.0x: the LOD offsets; `None` in 2.00.
    #[br(if(version.has_lods()), args(header.sizeof_lod_offset, header.num_lod_offsets))]
    pub lods: Option<LodOffsetsV3>,

    /// Bytes after the last structure, kept and written back.
    #[br(parse_with = A::rest)]
    pub trailing: A::Of<u8>,
}

impl FileMeshHeaderV2 {
    /// The header for `body`'s data; fails if the data cannot be written as `version`.
    fn build<A: Arrays>(
        version: Version,
        tail: &[u8],
        vertices: &VertexArray<A>,
        faces: &A::Of<Face>,
        lods: &Option<LodOffsetsV3>,
    ) -> BinResult<Self> {
        let has_lods = version.has_lods();
        let (sizeof_lod_offset, num_lod_offsets) = match (has_lods, lods) {
            (true, Some(l)) => (
                l.sizeof_lod_offset,
                count_as::<u16>(l.lod_offsets.len(), "LOD offsets")?,
            ),
            (false, None) => (0, 0),
            (true, None) => {
                return Err(inconsistent(format!(
                    "a {version} mesh needs LOD offsets (lods is None)"
                )))
            }
            (false, Some(_)) => {
                return Err(inconsistent(format!("a {version} mesh has no LOD offsets")))
            }
        };
        Ok(FileMeshHeaderV2 {
            has_lods,
            sizeof_header: count_as::<u16>(
                usize::from(Self::known_size(has_lods)) + tail.len(),
                "header bytes",
            )?,
            sizeof_vertex: vertices.vertex_size(),
            sizeof_face: 12,
            sizeof_lod_offset,
            num_lod_offsets,
            num_verts: count_as(vertices.len(), "vertices")?,
            num_faces: count_as(faces.len(), "faces")?,
            extra: tail.to_vec().into(),
        })
    }
}

impl<A: Arrays> FileMeshV2<A> {
    /// Size in bytes of the body as written (without the version line).
    pub fn encoded_len(&self) -> usize {
        let header =
            usize::from(FileMeshHeaderV2::known_size(self.lods.is_some())) + self.header_tail.len();
        header
            + self.vertices.len() * usize::from(self.vertices.vertex_size())
            + self.faces.len() * 12
            + self.lods.as_ref().map_or(0, |l| l.lod_offsets.len() * 4)
            + self.trailing.len()
    }
}
