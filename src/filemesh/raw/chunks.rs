//! FileMesh 6.00 and 7.00: chunks until the end of the file (spec "version 6.00",
//! "version 7.00"; FORMAT-NOTES "6.00 / 7.00 chunks").
//!
//! Each chunk is an 8-byte NUL-padded type, a u32 version, a u32 payload size and the
//! payload. Known (type, version) pairs are parsed and must fill their payload exactly;
//! anything else is kept as bytes. Chunk order is kept.

use binrw::{binrw, BinResult};
use serde::{Serialize, Serializer};

use super::facs::Facs;
use super::records::{Bone, Envelope, Face, Subset, Vertex};
use crate::error::{Limits, Result};
use crate::io::{
    count_as, exactly, inconsistent, until_end, Arrays, Counted, NotThisVariant, Owned, Payload,
    Records,
};

/// `COREMESH` type bytes.
pub const COREMESH: [u8; 8] = *b"COREMESH";
/// `LODS` type bytes.
pub const LODS: [u8; 8] = *b"LODS\0\0\0\0";
/// `SKINNING` type bytes.
pub const SKINNING: [u8; 8] = *b"SKINNING";
/// `FACS` type bytes.
pub const FACS: [u8; 8] = *b"FACS\0\0\0\0";
/// `HSRAVIS` type bytes.
pub const HSRAVIS: [u8; 8] = *b"HSRAVIS\0";

/// The body of a 6.00/7.00 file: its chunks, in file order, until the input ends (a
/// chunk cut short is an error).
#[binrw]
#[brw(little)]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(bound = "")]
pub struct FileMeshV6<A: Arrays = Owned> {
    /// Every chunk, in order.
    #[br(parse_with = until_end)]
    pub chunks: Vec<Chunk<A>>,
}

impl<A: Arrays> FileMeshV6<A> {
    /// Size in bytes as written (without the version line).
    pub fn encoded_len(&self) -> usize {
        self.chunks.iter().map(|c| 16 + c.data.byte_size()).sum()
    }

    /// The first chunk of a type.
    pub fn find(&self, chunk_type: &[u8; 8]) -> Option<&Chunk<A>> {
        self.chunks.iter().find(|c| &c.chunk_type == chunk_type)
    }

    /// The first chunk of a type, mutably.
    pub fn find_mut(&mut self, chunk_type: &[u8; 8]) -> Option<&mut Chunk<A>> {
        self.chunks.iter_mut().find(|c| &c.chunk_type == chunk_type)
    }
}

/// `MeshChunk`: type, version, size (derived on write) and payload.
#[binrw]
#[brw(little)]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(bound = "")]
#[doc(alias = "MeshChunk")]
pub struct Chunk<A: Arrays = Owned> {
    /// `chunkType`: 8 bytes, NUL padded (`COREMESH`, `LODS\0\0\0\0` …), kept as read.
    #[serde(serialize_with = "chunk_name")]
    pub chunk_type: [u8; 8],
    /// `chunkVersion`.
    pub chunk_version: u32,
    #[br(temp)]
    #[bw(try_calc = count_as::<u32>(data.byte_size(), "chunk payload bytes"))]
    size: u32,
    /// The payload, parsed when its type and version are known; it must fill `size`.
    #[br(parse_with = exactly, args(u64::from(size), "chunk payload bytes", (chunk_type, chunk_version, size)))]
    #[bw(assert(data.fits(chunk_type, *chunk_version),
        "a {} payload in a {:?} v{} chunk would not read back as itself",
        data.kind(), String::from_utf8_lossy(chunk_type), chunk_version))]
    pub data: ChunkData<A>,
}

fn chunk_name<S: Serializer>(name: &[u8; 8], s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(&chunk_type_name(name))
}

/// A chunk type as text, NUL padding removed (`LODS`).
pub fn chunk_type_name(name: &[u8; 8]) -> String {
    String::from_utf8_lossy(name)
        .trim_end_matches('\0')
        .to_string()
}

impl Chunk {
    /// A chunk of a known kind, with the type and version its payload is written under.
    pub fn new(data: ChunkData) -> Chunk {
        let (chunk_type, chunk_version) = match &data {
            ChunkData::CoreMeshV1(_) => (COREMESH, 1),
            ChunkData::CoreMeshV2(_) => (COREMESH, 2),
            ChunkData::LodsV1(_) => (LODS, 1),
            ChunkData::SkinningV1(_) => (SKINNING, 1),
            ChunkData::FacsV1(_) => (FACS, 1),
            ChunkData::HsrAvisV1(_) => (HSRAVIS, 1),
            ChunkData::Unknown(_) => (*b"UNKNOWN\0", 0),
        };
        Chunk {
            chunk_type,
            chunk_version,
            data,
        }
    }
}

/// A chunk's payload, chosen by the chunk's magic: its type and version.
// A handful per file: the size of the inline variants does not matter.
#[allow(clippy::large_enum_variant)]
#[binrw]
#[brw(little)]
#[br(import(chunk_type: [u8; 8], version: u32, size: u32))]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(bound = "")]
pub enum ChunkData<A: Arrays = Owned> {
    /// `COREMESH` version 1: uncompressed vertices and faces.
    #[br(pre_assert((chunk_type, version) == (COREMESH, 1), NotThisVariant))]
    CoreMeshV1(CoreMeshV1<A>),
    /// `COREMESH` version 2: a Draco bitstream.
    #[br(pre_assert((chunk_type, version) == (COREMESH, 2), NotThisVariant))]
    CoreMeshV2(CoreMeshV2<A>),
    /// `LODS` version 1.
    #[br(pre_assert((chunk_type, version) == (LODS, 1), NotThisVariant))]
    LodsV1(LodsV1),
    /// `SKINNING` version 1.
    #[br(pre_assert((chunk_type, version) == (SKINNING, 1), NotThisVariant))]
    SkinningV1(SkinningV1<A>),
    /// `FACS` version 1.
    #[br(pre_assert((chunk_type, version) == (FACS, 1), NotThisVariant))]
    FacsV1(FacsV1),
    /// `HSRAVIS` version 1.
    #[br(pre_assert((chunk_type, version) == (HSRAVIS, 1), NotThisVariant))]
    HsrAvisV1(HsrAvisV1),
    /// An unknown chunk type, or an unknown version of a known type: the payload bytes.
    #[br(pre_assert(ChunkData::<Owned>::known(&chunk_type, version).is_none(), NotThisVariant))]
    Unknown(#[br(count = u64::from(size))] Records<u8>),
}

impl<A: Arrays> Payload for ChunkData<A> {
    fn kind(&self) -> &'static str {
        ChunkData::kind(self)
    }
}

impl<A: Arrays> ChunkData<A> {
    /// Payload size in bytes as written.
    pub fn byte_size(&self) -> usize {
        match self {
            ChunkData::CoreMeshV1(c) => 8 + c.vertices.len() * 40 + c.faces.len() * 12,
            ChunkData::CoreMeshV2(c) => 4 + c.draco.len(),
            ChunkData::LodsV1(l) => 7 + l.lod_offsets.len() * 4,
            ChunkData::SkinningV1(s) => {
                16 + s.envelopes.len() * 8
                    + s.bones.len() * 60
                    + s.bone_names.len()
                    + s.subsets.len() * 72
            }
            ChunkData::FacsV1(f) => 4 + usize::try_from(f.facs.byte_size()).unwrap_or(usize::MAX),
            ChunkData::HsrAvisV1(h) => 4 + h.bits.len(),
            ChunkData::Unknown(b) => b.len(),
        }
    }

    /// A short name of the payload kind.
    pub fn kind(&self) -> &'static str {
        match self {
            ChunkData::CoreMeshV1(_) => "COREMESH v1",
            ChunkData::CoreMeshV2(_) => "COREMESH v2",
            ChunkData::LodsV1(_) => "LODS v1",
            ChunkData::SkinningV1(_) => "SKINNING v1",
            ChunkData::FacsV1(_) => "FACS v1",
            ChunkData::HsrAvisV1(_) => "HSRAVIS v1",
            ChunkData::Unknown(_) => "unknown",
        }
    }

    /// The parsed kind that a (type, version) pair is read as, if any.
    fn known(chunk_type: &[u8; 8], version: u32) -> Option<&'static str> {
        Some(match (chunk_type, version) {
            (&COREMESH, 1) => "COREMESH v1",
            (&COREMESH, 2) => "COREMESH v2",
            (&LODS, 1) => "LODS v1",
            (&SKINNING, 1) => "SKINNING v1",
            (&FACS, 1) => "FACS v1",
            (&HSRAVIS, 1) => "HSRAVIS v1",
            _ => return None,
        })
    }

    /// True when this payload, written under (`chunk_type`, `version`), reads back as
    /// itself.
    pub fn fits(&self, chunk_type: &[u8; 8], version: u32) -> bool {
        match Self::known(chunk_type, version) {
            Some(kind) => kind == self.kind(),
            None => matches!(self, ChunkData::Unknown(_)),
        }
    }
}

/// `FileMesh_COREMESH_v1`: uncompressed vertices and faces.
#[binrw]
#[brw(little)]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(bound = "")]
#[doc(alias = "FileMesh_COREMESH_v1")]
pub struct CoreMeshV1<A: Arrays = Owned> {
    #[br(temp)]
    #[bw(try_calc = count_as::<u32>(vertices.len(), "vertices"))]
    num_verts: u32,
    /// `verts[numVerts]`.
    #[br(count = u64::from(num_verts))]
    pub vertices: A::Of<Vertex>,
    #[br(temp)]
    #[bw(try_calc = count_as::<u32>(faces.len(), "faces"))]
    num_faces: u32,
    /// `faces[numFaces]`.
    #[br(count = u64::from(num_faces))]
    pub faces: A::Of<Face>,
}

/// `COREMESH` version 2: a u32 length and a Draco bitstream, kept as read so an
/// unmodified file needs no re-encoding.
#[binrw]
#[brw(little)]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(bound = "")]
pub struct CoreMeshV2<A: Arrays = Owned> {
    #[br(temp)]
    #[bw(try_calc = count_as::<u32>(draco.len(), "Draco bytes"))]
    draco_size: u32,
    /// The Draco bitstream.
    #[br(count = u64::from(draco_size))]
    #[serde(serialize_with = "byte_count")]
    pub draco: A::Of<u8>,
}

fn byte_count<S: Serializer, B: Counted>(b: &B, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(&format!("<{} bytes>", b.len()))
}

impl CoreMeshV2 {
    /// Decodes the Draco bitstream into the vertices and faces of a COREMESH v1.
    pub fn decode(&self, limits: &Limits) -> Result<CoreMeshV1> {
        let (vertices, faces) = crate::codec::draco::decode(&self.draco[..], limits)?;
        Ok(CoreMeshV1 {
            vertices: vertices.into(),
            faces: faces.into(),
        })
    }

    /// Encodes a core mesh with Roblox's Draco settings.
    pub fn encode(core: &CoreMeshV1) -> Result<CoreMeshV2> {
        Ok(CoreMeshV2 {
            draco: crate::codec::draco::encode(&core.vertices[..], &core.faces[..])?.into(),
        })
    }
}

/// `FileMesh_LODS_v1`.
#[binrw]
#[brw(little)]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[doc(alias = "FileMesh_LODS_v1")]
pub struct LodsV1 {
    /// `lodType`.
    pub lod_type: u16,
    /// `numHighQualityLODs`.
    pub num_high_quality_lods: u8,
    #[br(temp)]
    #[bw(try_calc = count_as::<u32>(lod_offsets.len(), "LOD offsets"))]
    num_lod_offsets: u32,
    /// `lodOffsets`: face indices; `[0, 0]` means every face is LOD 0.
    #[br(count = u64::from(num_lod_offsets))]
    pub lod_offsets: Records<u32>,
}

/// `FileMesh_SKINNING_v1`, with the per-vertex envelopes the spec's struct omits.
#[binrw]
#[brw(little)]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(bound = "")]
#[doc(alias = "FileMesh_SKINNING_v1")]
pub struct SkinningV1<A: Arrays = Owned> {
    #[br(temp)]
    #[bw(try_calc = count_as::<u32>(envelopes.len(), "envelopes"))]
    num_skinnings: u32,
    /// One envelope per vertex (`numSkinnings` = vertex count).
    #[br(count = u64::from(num_skinnings))]
    pub envelopes: A::Of<Envelope>,
    #[br(temp)]
    #[bw(try_calc = count_as::<u32>(bones.len(), "bones"))]
    num_bones: u32,
    /// `bones[numBones]`.
    #[br(count = u64::from(num_bones))]
    pub bones: Records<Bone>,
    #[br(temp)]
    #[bw(try_calc = count_as::<u32>(bone_names.len(), "name table bytes"))]
    name_table_size: u32,
    /// `nameTable`: NUL-terminated bone names.
    #[br(count = u64::from(name_table_size))]
    pub bone_names: Records<u8>,
    #[br(temp)]
    #[bw(try_calc = count_as::<u32>(subsets.len(), "subsets"))]
    num_subsets: u32,
    /// `subsets[numSubsets]`.
    #[br(count = u64::from(num_subsets))]
    pub subsets: Records<Subset>,
}

/// `FileMesh_FACS_v1`: a u32 size, then the 5.00 FACS block.
#[binrw]
#[brw(little)]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[doc(alias = "FileMesh_FACS_v1")]
pub struct FacsV1 {
    #[br(temp)]
    #[bw(try_calc = fits_u32(facs.byte_size()))]
    facs_data_size: u32,
    /// The block; bytes that are not exactly one block are kept opaque.
    #[br(args(1, facs_data_size))]
    #[bw(assert(facs.check_format(1).is_ok(),
        "opaque FACS bytes that form a valid block would read back as Facs::Data"))]
    pub facs: Facs,
}

fn fits_u32(n: u64) -> BinResult<u32> {
    u32::try_from(n).map_err(|_| inconsistent("the FACS block is larger than 4 GiB"))
}

/// `FileMesh_HSRAVIS_v1`: one "always visible" bit per face, least significant bit first.
#[binrw]
#[brw(little)]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[doc(alias = "FileMesh_HSRAVIS_v1")]
pub struct HsrAvisV1 {
    /// `numAlwaysVisibleBitFlags` (data: the byte count follows from it).
    #[bw(assert(bits.len() as u64 == u64::from(*num_bits).div_ceil(8),
        "{} HSRAVIS bytes for {} bits", bits.len(), num_bits))]
    pub num_bits: u32,
    /// `alwaysVisibleBitFlags[(numAlwaysVisibleBitFlags + 7) / 8]`.
    #[br(count = u64::from(num_bits).div_ceil(8))]
    pub bits: Records<u8>,
}

impl HsrAvisV1 {
    /// The flags, one per face.
    pub fn flags(&self) -> Vec<bool> {
        (0..self.num_bits as usize)
            .map(|i| {
                self.bits
                    .get(i / 8)
                    .is_some_and(|b| b & (1 << (i % 8)) != 0)
            })
            .collect()
    }

    /// Packs flags, least significant bit first.
    pub fn from_flags(flags: &[bool]) -> Result<HsrAvisV1> {
        let mut bits = vec![0u8; flags.len().div_ceil(8)];
        for (i, _) in flags.iter().enumerate().filter(|(_, &f)| f) {
            if let Some(b) = bits.get_mut(i / 8) {
                *b |= 1 << (i % 8);
            }
        }
        Ok(HsrAvisV1 {
            num_bits: count_as::<u32>(flags.len(), "HSR flags")
                .map_err(|e| crate::error::from_binrw(e, None))?,
            bits: bits.into(),
        })
    }
}
