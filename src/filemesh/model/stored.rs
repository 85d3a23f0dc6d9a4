//! What a file stored beyond the model's values, kept so that writing changes nothing
//! that need not change.
//!
//! # Carry-over
//!
//! A FileMesh leaves some choices open: 36- or 40-byte vertices in 2.00/3.0x, COREMESH
//! v1 or v2 (Draco) in 7.00, how skinning is cut into subsets and which bone byte an
//! unused envelope slot holds, how FACS matrices are quantized (raw or u16, and over
//! which range), the padding bits of the HSRAVIS flags. It may also hold bytes the model
//! does not interpret: header bytes beyond the known fields, bytes after the last
//! structure, unknown chunks, a padding byte.
//!
//! Reading a file into the model records all of that in [`Stored`] (the model's
//! [`Mesh::stored`]). Writing then works out, part by part, what to put in the target
//! with one rule:
//!
//! > **a stored part is reused when it still describes the data, and recomputed from
//! > the model's values only when it does not** (or when the target has no place for
//! > it).
//!
//! "Describes" is checked exactly, by decoding: a Draco bitstream is reused only if it
//! decodes to the current vertices and faces bit for bit, stored subsets and envelopes
//! only if they resolve to the current skeleton and skinning (and every face in a
//! subset's range uses only that subset's vertices), a stored FACS block only if it
//! dequantizes to the current rig, stored HSR bytes only if they hold the current flags.
//! So an edited vertex never leaves a stale Draco blob behind, and an edited weight never
//! leaves a stale subset. Parts that do not depend on the values (header bytes, trailing
//! bytes, kept chunks and the chunk order) are carried wherever the target has a place
//! for them.
//!
//! A part that must be recomputed is built the way Roblox builds it, as far as it is
//! known (see [`Mesh::to_file_with`](super::Mesh::to_file_with) for the rules and
//! which of them are guesses).
//!
//! The same per-part functions ("what would this mesh write for that part in version
//! V?") drive the loss report: a conversion is lossless exactly when reading the target
//! back gives the same values, and writing the source version again from it would give
//! the same parts (see [`Mesh::convert`](super::Mesh::convert)).
//!
//! To drop what a file stored and write every part afresh, clear it:
//! `mesh.stored = Stored::default()`.
//!
//! [`Mesh::stored`]: super::Mesh::stored

use crate::filemesh::raw::chunks::{Chunk, HsrAvisV1, SkinningV1};
use crate::filemesh::raw::facs::Facs;
use crate::filemesh::raw::text::TextFormat;
use crate::filemesh::raw::Version;

/// What the source file stored beyond the model's values (see the [module
/// docs](self)). Every field is `None` or empty for a mesh that was not read from a file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stored {
    /// The version of the file the mesh was read from.
    pub version: Option<Version>,
    /// 2.00/3.0x: `sizeof_FileMeshVertex` (36 or 40).
    pub vertex_size: Option<u8>,
    /// 3.0x: `sizeof_LodOffset` as read (4 in real files).
    pub sizeof_lod_offset: Option<u16>,
    /// Header bytes beyond the fields known for the header they extend.
    pub header_tail: Option<HeaderTail>,
    /// 4.0x/5.00: the header's `unused` padding byte.
    pub padding: Option<u8>,
    /// 2.00–5.00: bytes after the last structure.
    pub trailing: Vec<u8>,
    /// 6.00/7.00: how the core mesh was stored.
    pub core: Option<StoredCore>,
    /// 4.00+: bones, bone name table, subsets and envelopes as stored.
    /// Shared with the mesh's [`super::Skinning`] while that is the stored one.
    pub skin: Option<std::sync::Arc<SkinningV1>>,
    /// 5.00+: the FACS section as stored.
    pub facs: Option<StoredFacs>,
    /// 6.00/7.00: the HSRAVIS payload as stored.
    pub hsr: Option<HsrAvisV1>,
    /// 6.00/7.00: the chunks in file order; those the model does not interpret are kept
    /// whole.
    pub chunks: Option<Vec<ChunkSlot>>,
    /// 1.00/1.01: how the file prints numbers, and the `w` of each texture coordinate.
    pub text: Option<StoredText>,
}

/// Header bytes beyond the known fields of one header layout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeaderTail {
    /// The header they extend.
    pub layout: HeaderLayout,
    /// The bytes.
    pub bytes: Vec<u8>,
}

/// The binary header layouts. A header tail only means something after the fields of
/// its own layout, so it is carried only between versions that share the layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeaderLayout {
    /// `FileMeshHeaderV2` (2.00): 12 known bytes.
    V2,
    /// `FileMeshHeaderV3` (3.00, 3.01): 16 known bytes.
    V3,
    /// `FileMeshHeaderV4` (4.00, 4.01): 24 known bytes.
    V4,
    /// `FileMeshHeaderV5` (5.00): 32 known bytes.
    V5,
}

impl HeaderLayout {
    /// The header layout of a version (`None` for text and chunked versions).
    pub fn of(version: Version) -> Option<HeaderLayout> {
        match version {
            Version::V2_00 => Some(HeaderLayout::V2),
            Version::V3_00 | Version::V3_01 => Some(HeaderLayout::V3),
            Version::V4_00 | Version::V4_01 => Some(HeaderLayout::V4),
            Version::V5_00 => Some(HeaderLayout::V5),
            _ => None,
        }
    }
}

/// How a 6.00/7.00 file stored its core mesh.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StoredCore {
    /// COREMESH version 1: plain vertices and faces.
    Uncompressed,
    /// COREMESH version 2: this Draco bitstream.
    Draco(Vec<u8>),
}

/// The FACS section as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredFacs {
    /// 5.00's `facsDataFormat` (`None` for a FACS chunk, which has no such field).
    pub format: Option<u32>,
    /// The section: a parsed block, or bytes kept opaque.
    pub facs: Facs,
}

/// What a text (1.00/1.01) file stored beyond the values.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredText {
    /// Line ending, final newline, precision and exponent width.
    pub format: TextFormat,
    /// The `w` of every vertex's `[u,v,w]` (one per face corner, in model vertex order);
    /// empty when every `w` is 0 (or for other vertices than the text's: each `w` is
    /// then 0).
    pub w: Vec<f32>,
    /// How many numbers the file printed otherwise than `format` prints their values
    /// (`1.0`, `.5`, `+2`, more digits than the precision …): written from the model,
    /// they print as `format` prints them.
    pub printed_otherwise: usize,
    /// The `v` of every vertex's `[u,v,w]` as the text gives it (the model holds V
    /// flipped, `1 − v` in `f32`, which does not always give it back: flipped back,
    /// `0.01` prints as `0.00999999`).
    pub v: Vec<f32>,
}

/// One chunk of a 6.00/7.00 file, in file order.
#[derive(Clone, Debug, PartialEq)]
pub enum ChunkSlot {
    /// A chunk the model reads (the first of its kind): written from the model.
    Model(ChunkKind),
    /// A chunk the model does not interpret (unknown type or version, or a second chunk
    /// of a kind): written back as it was.
    Kept(Box<Chunk>),
}

/// The chunk kinds the model reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ChunkKind {
    /// `COREMESH`.
    CoreMesh,
    /// `LODS`.
    Lods,
    /// `SKINNING`.
    Skinning,
    /// `FACS`.
    Facs,
    /// `HSRAVIS`.
    HsrAvis,
}

impl ChunkKind {
    /// Every kind, in the order Roblox writes them.
    pub const ALL: [ChunkKind; 5] = [
        ChunkKind::CoreMesh,
        ChunkKind::Lods,
        ChunkKind::Skinning,
        ChunkKind::Facs,
        ChunkKind::HsrAvis,
    ];
}
