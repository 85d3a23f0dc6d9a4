//! What a conversion loses: one report type shared by every format.
//!
//! Each format's model finds its report by converting, reading the result back and
//! comparing (values bit for bit, and what writing the source version again would give),
//! so an empty report means the conversion changes nothing.

use std::fmt;

use serde::Serialize;

/// Something a target version cannot hold.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Loss {
    /// What is lost.
    pub kind: LossKind,
    /// Details with counts.
    pub detail: String,
}

/// The kinds of [`Loss`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[non_exhaustive]
pub enum LossKind {
    /// Bones (below 4.00).
    Skeleton,
    /// Per-vertex skinning (below 4.00).
    Skinning,
    /// FACS data (below 5.00).
    Facs,
    /// Faces of LODs other than LOD 0 (below 3.00).
    Lods,
    /// `lodType` / `numHighQualityLODs` (below 4.00).
    LodInfo,
    /// Vertex colours (1.x).
    Colors,
    /// Tangents (1.x).
    Tangents,
    /// HSR "always visible" flags (below 6.00).
    Hsr,
    /// Normals quantized to 11 bits (a Draco core mesh that cannot hold them exactly).
    NormalPrecision,
    /// Numbers rounded to 6 significant digits (1.x text).
    TextPrecision,
    /// CSGPHS: hull geometry, or the box shape of version 0.
    CsgHulls,
    /// CSGPHS: the geometry type byte (versions 7, 8).
    CsgGeometryType,
    /// CSGPHS: stored physics info that the geometry does not reproduce (versions 6, 7).
    CsgPhysics,
    /// CSGPHS: hull preambles, vertex/triangle order or hull order (version 8).
    CsgHullLayout,
    /// UNIGINE: animations embedded in the mesh (ms13 and later have none).
    UnigineAnimations,
    /// UNIGINE: surface lightmap channel and resolution (below ms12).
    UnigineLightmap,
    /// UNIGINE: tangents moved between ms10's encoding and the quaternions of later versions.
    UnigineTangents,
    /// UNIGINE: ms14's spatial trees, edge flags, leaf size and memory estimate.
    UnigineSpatialTree,
    /// Values that are not finite (NaN, ±∞), replaced where the target cannot hold them.
    NonFinite,
    /// Header bytes the model does not interpret: bytes beyond a header's known fields,
    /// the 4.0x/5.00 padding byte, 3.0x's `sizeof_LodOffset`.
    HeaderBytes,
    /// Bytes after the last structure.
    TrailingBytes,
    /// Chunks the model does not interpret (unknown types or versions, second chunks of
    /// a kind), or the chunk order.
    Chunks,
    /// How the source laid out data the target holds, where writing the source version
    /// again would not give it back: vertex size, COREMESH encoding, subsets and envelope
    /// bytes, FACS quantization, HSR padding bits, LOD offsets.
    Layout,
    /// The `w` of 1.x texture coordinates (binary versions have none).
    TextW,
    /// Shared vertices: text has one vertex per face corner.
    VertexSharing,
    /// Import: content of the glTF or OBJ source that the scene does not carry (skins,
    /// animations, morph targets, further UV sets, node transforms, materials …).
    NotImported,
    /// Vertex values changed in another way (should not happen; reported for
    /// completeness).
    Values,
    /// CSGPHS: how the source encoded what the format leaves open, where the target cannot
    /// record it and writing the source version again would not derive it: the version 8
    /// zstd frame, payload layout and reserved byte, the bytes after `BLOCK`.
    CsgEncoding,
}

impl fmt::Display for Loss {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.detail)
    }
}
