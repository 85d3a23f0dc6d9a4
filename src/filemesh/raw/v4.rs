//! FileMesh 4.00, 4.01 and 5.00 (spec "version 4.00 & 4.01" and "version 5.00").
//!
//! 5.00 is 4.0x plus two header fields and the FACS block after the subsets, so one
//! body type with conditional fields covers the three versions.

use binrw::{binrw, BinResult};
use serde::Serialize;

use super::facs::Facs;
use super::records::{Bone, Envelope, Face, Subset, Vertex};
use super::Version;
use crate::io::{at_least, count_as, inconsistent, Arrays, Counted, Owned, Records};

/// `FileMeshHeaderV4`, and `FileMeshHeaderV5` when `has_facs` (the `[+]` fields).
///
/// The wire form: [`FileMeshV4`] reads it and builds it anew on write from its data.
#[binrw]
#[brw(little)]
#[br(import(has_facs: bool))]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[doc(alias = "FileMeshHeaderV5")]
pub struct FileMeshHeaderV4 {
    /// True for the 5.00 form (`FileMeshHeaderV5`); not stored in the file.
    #[br(calc = has_facs)]
    #[bw(ignore)]
    pub has_facs: bool,
    /// `sizeof_FileMeshHeaderV4/V5`: 24 or 32, more if the header has extra bytes.
    #[br(try_map = |v: u16| at_least(v, FileMeshHeaderV4::known_size(has_facs), "sizeof_MeshHeader"))]
    pub sizeof_header: u16,
    /// `lodType` (the 5.00 spec calls it `numMeshes`): 0–3 per the spec, 4 occurs.
    pub lod_type: u16,
    /// `numVerts`.
    pub num_verts: u32,
    /// `numFaces`.
    pub num_faces: u32,
    /// `numLodOffsets`.
    pub num_lod_offsets: u16,
    /// `numBones`.
    pub num_bones: u16,
    /// `sizeof_boneNames`.
    pub sizeof_bone_names: u32,
    /// `numSubsets`.
    pub num_subsets: u16,
    /// `numHighQualityLODs`.
    pub num_high_quality_lods: u8,
    /// `unused` padding byte; not always 0 (63 occurs).
    pub unused_padding: u8,
    /// `facsDataFormat` (5.00): 1 in real files, 0 = no valid FACS data.
    #[br(if(has_facs))]
    #[bw(if(*has_facs))]
    pub facs_data_format: u32,
    /// `facsDataSize` (5.00).
    #[br(if(has_facs))]
    #[bw(if(*has_facs))]
    pub facs_data_size: u32,
    /// Bytes beyond the known fields, up to `sizeof_header`.
    #[br(count = u64::from(sizeof_header - FileMeshHeaderV4::known_size(has_facs)))]
    pub extra: Records<u8>,
}

impl FileMeshHeaderV4 {
    /// Size of the fields this crate knows: 24, or 32 with FACS.
    pub const fn known_size(has_facs: bool) -> u16 {
        if has_facs {
            32
        } else {
            24
        }
    }

    /// Number of `skinning` records after the vertices: one per vertex when there are
    /// bones, none otherwise (the rule the owned read and the borrowed view share).
    pub(crate) const fn num_envelopes(&self) -> u64 {
        if self.num_bones > 0 {
            self.num_verts as u64
        } else {
            0
        }
    }
}

/// `FileMeshV4` (4.00, 4.01) and `FileMeshV5` (5.00). Counts and sizes are derived from
/// the arrays on write; `lod_type`, the padding byte, `facs_data_format` and any extra
/// header bytes are data, kept as read. `A` says where the vertices, envelopes, faces
/// and trailing bytes are held ([`Arrays`]: in memory by default).
#[binrw]
#[brw(little, import(version: Version))]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(bound = "")]
#[doc(alias = "FileMeshV5")]
pub struct FileMeshV4<A: Arrays = Owned> {
    #[br(temp, args(version.has_facs()))]
    #[bw(try_calc = self.build_header(version))]
    header: FileMeshHeaderV4,

    /// `lodType`.
    #[br(calc = header.lod_type)]
    #[bw(ignore)]
    pub lod_type: u16,
    /// `numHighQualityLODs`.
    #[br(calc = header.num_high_quality_lods)]
    #[bw(ignore)]
    pub num_high_quality_lods: u8,
    /// The `unused` header byte, as read.
    #[br(calc = header.unused_padding)]
    #[bw(ignore)]
    pub unused_padding: u8,
    /// `facsDataFormat` (5.00 only; must be 0 for 4.0x).
    #[br(calc = header.facs_data_format)]
    #[bw(ignore)]
    pub facs_data_format: u32,
    /// Header bytes beyond the known fields.
    #[br(calc = header.extra.clone().into())]
    #[bw(ignore)]
    pub header_tail: Vec<u8>,

    /// `verts[numVerts]`.
    #[br(count = u64::from(header.num_verts))]
    pub vertices: A::Of<Vertex>,

    /// `skinning[numVerts]`: present only when `numBones > 0`, else empty.
    #[br(count = header.num_envelopes())]
    pub envelopes: A::Of<Envelope>,

    /// `faces[numFaces]`: every face, LOD faces included.
    #[br(count = u64::from(header.num_faces))]
    pub faces: A::Of<Face>,

    /// `lodOffsets[numLodOffsets]`.
    #[br(count = u64::from(header.num_lod_offsets))]
    pub lod_offsets: Records<u32>,

    /// `bones[numBones]`.
    #[br(count = u64::from(header.num_bones))]
    pub bones: Records<Bone>,

    /// `boneNames[sizeof_boneNames]`: NUL-terminated names, indexed by
    /// `Bone::bone_name_index`.
    #[br(count = u64::from(header.sizeof_bone_names))]
    pub bone_names: Records<u8>,

    /// `subsets[numSubsets]`.
    #[br(count = u64::from(header.num_subsets))]
    pub subsets: Records<Subset>,

    /// 5.00: `facsData` (`facsDataSize` bytes). Always [`Facs::None`] in 4.0x.
    #[br(args(header.facs_data_format, header.facs_data_size))]
    pub facs: Facs,

    /// Bytes after the last structure, kept and written back.
    #[br(parse_with = A::rest)]
    pub trailing: A::Of<u8>,
}

impl<A: Arrays> FileMeshV4<A> {
    /// The header for this body's data; fails if the data cannot be written as `version`.
    fn build_header(&self, version: Version) -> BinResult<FileMeshHeaderV4> {
        let has_facs = version.has_facs();
        let want_envelopes = if self.bones.is_empty() {
            0
        } else {
            self.vertices.len()
        };
        if self.envelopes.len() != want_envelopes {
            return Err(inconsistent(format!(
                "{} envelopes for {} vertices and {} bones (envelopes exist, one per vertex, only when there are bones)",
                self.envelopes.len(),
                self.vertices.len(),
                self.bones.len()
            )));
        }
        let facs_data_size = if has_facs {
            self.facs.check_format(self.facs_data_format)?;
            u32::try_from(self.facs.byte_size())
                .map_err(|_| inconsistent("the FACS block is larger than 4 GiB"))?
        } else {
            if self.facs != Facs::None || self.facs_data_format != 0 {
                return Err(inconsistent(format!(
                    "a {version} mesh cannot hold FACS data (facs must be None, facs_data_format 0)"
                )));
            }
            0
        };
        Ok(FileMeshHeaderV4 {
            has_facs,
            sizeof_header: count_as::<u16>(
                usize::from(FileMeshHeaderV4::known_size(has_facs)) + self.header_tail.len(),
                "header bytes",
            )?,
            lod_type: self.lod_type,
            num_verts: count_as(self.vertices.len(), "vertices")?,
            num_faces: count_as(self.faces.len(), "faces")?,
            num_lod_offsets: count_as(self.lod_offsets.len(), "LOD offsets")?,
            num_bones: count_as(self.bones.len(), "bones")?,
            sizeof_bone_names: count_as(self.bone_names.len(), "bone name bytes")?,
            num_subsets: count_as(self.subsets.len(), "subsets")?,
            num_high_quality_lods: self.num_high_quality_lods,
            unused_padding: self.unused_padding,
            facs_data_format: if has_facs { self.facs_data_format } else { 0 },
            facs_data_size,
            extra: self.header_tail.clone().into(),
        })
    }

    /// Size in bytes of the body as written (without the version line), for a body of
    /// `version`.
    pub fn encoded_len(&self, version: Version) -> usize {
        usize::from(FileMeshHeaderV4::known_size(version.has_facs()))
            + self.header_tail.len()
            + self.vertices.len() * 40
            + self.envelopes.len() * 8
            + self.faces.len() * 12
            + self.lod_offsets.len() * 4
            + self.bones.len() * 60
            + self.bone_names.len()
            + self.subsets.len() * 72
            + usize::try_from(self.facs.byte_size()).unwrap_or(usize::MAX)
            + self.trailing.len()
    }
}
