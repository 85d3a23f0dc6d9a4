//! What a conversion loses: one report type shared by every format.
//!
//! Each format's model finds its report by converting, reading the result back and
//! comparing (values bit for bit, and what writing the source version again would give),
//! so an empty report means the conversion changes nothing.
//!
//! Each [`Loss`] has a [`Level`]: [`Level::Lost`] for data the target cannot hold (bones,
//! skinning, FACS, faces of other LODs, colours …), which a conversion refuses unless
//! allowed; [`Level::Relaid`] for how the source laid out what the target has no place
//! for or rebuilds from the same data (defaults of absent fields, chunk order, offsets
//! recomputed, an encoding chosen anew), which is listed but needs no permission. A
//! conversion is lossless, and reversible byte for byte, only when its report is empty.
//!
//! # Example
//!
//! ```
//! use meshcodec::loss::{any_lost, Level, LossKind};
//! use meshcodec::{convert_to, open, Limits};
//!
//! let bytes = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/roundtrip-fixtures/filemesh/v5.00-facs.mesh"));
//! let out = convert_to(&open(bytes)?, "4.00", &Default::default(), &Limits::default())?;
//! assert!(any_lost(&out.losses));
//! let facs = out.losses.iter().find(|l| l.kind == LossKind::Facs).unwrap();
//! assert_eq!(facs.level, Level::Lost);
//! println!("{facs}"); // the line `meshcodec convert` prints
//! # Ok::<(), meshcodec::Error>(())
//! ```

use std::fmt;

use serde::{Deserialize, Serialize};

/// Something a target version cannot hold, or holds laid out anew.
///
/// `Display` gives the line the CLI prints (`38 bones (2.00 has no skeleton)`); the JSON
/// form ([`Serialize`], read back by [`Deserialize`]: a report kept or shipped as JSON
/// is the same report) is `{"kind", "level", "count", "text"}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Loss {
    /// What is lost.
    pub kind: LossKind,
    /// Lost data, or a layout given up.
    pub level: Level,
    /// How many things the line is about (bones, vertices, values …), where it counts
    /// any.
    pub count: Option<u64>,
    /// The line, with its counts.
    pub detail: String,
}

/// How much a [`Loss`] matters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Level {
    /// Data the target cannot hold: refused without `--allow-lossy` (`allow_lossy`).
    Lost,
    /// How the source laid out what the target has no place for or rebuilds from the
    /// same data: listed, allowed without asking.
    #[serde(rename = "re-laid")]
    Relaid,
}

/// How a model's vertices are used by an export that keeps some of its faces (a LOD, an
/// index range): the scene holds the vertices of the faces it keeps, so the others are
/// what it leaves out.
pub(crate) struct VertexUse {
    /// Vertices that no face uses.
    pub(crate) unused: usize,
    /// Vertices that only faces left out use.
    pub(crate) only_left_out: usize,
}

impl VertexUse {
    /// Counts over `faces`, each (whether the export keeps it, its vertex indices into
    /// `vertices` vertices; indices past them are ignored).
    pub(crate) fn count<'a>(
        vertices: usize,
        faces: impl IntoIterator<Item = (bool, &'a [u32])>,
    ) -> VertexUse {
        // Per vertex: 1 if a kept face uses it, 2 if only faces left out do.
        let mut used = vec![0u8; vertices];
        for (kept, corners) in faces {
            let bit = if kept { 1 } else { 2 };
            for &i in corners {
                if let Some(u) = used.get_mut(i as usize) {
                    *u |= bit;
                }
            }
        }
        VertexUse {
            unused: used.iter().filter(|&&u| u == 0).count(),
            only_left_out: used.iter().filter(|&&u| u == 2).count(),
        }
    }

    /// The loss line for the vertices no face uses, if there are any; `face` is what the
    /// format calls one.
    pub(crate) fn unused_loss(&self, face: &str) -> Option<Loss> {
        let unused = self.unused;
        (unused > 0).then(|| {
            Loss::counted(
                LossKind::NotImported,
                unused,
                format!(
                    "{unused} vertices that no {face} uses (the scene holds triangles' vertices)"
                ),
            )
        })
    }
}

impl Loss {
    /// A loss of `kind` at the kind's usual level ([`LossKind::level`]), counting nothing.
    pub fn new(kind: LossKind, detail: impl Into<String>) -> Loss {
        Loss {
            kind,
            level: kind.level(),
            count: None,
            detail: detail.into(),
        }
    }

    /// A loss of `kind` about `count` things, at the kind's usual level.
    pub fn counted(kind: LossKind, count: impl TryInto<u64>, detail: impl Into<String>) -> Loss {
        Loss {
            count: count.try_into().ok(),
            ..Loss::new(kind, detail)
        }
    }

    /// The same loss at `level`.
    pub fn at(self, level: Level) -> Loss {
        Loss { level, ..self }
    }

    /// True for data the target cannot hold ([`Level::Lost`]).
    pub fn is_lost(&self) -> bool {
        self.level == Level::Lost
    }
}

/// True when `losses` name data the target cannot hold (a conversion to refuse unless
/// allowed); a report of [`Level::Relaid`] lines only is not.
pub fn any_lost(losses: &[Loss]) -> bool {
    losses.iter().any(Loss::is_lost)
}

impl Serialize for Loss {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut o = s.serialize_struct("Loss", 4)?;
        o.serialize_field("kind", &self.kind)?;
        o.serialize_field("level", &self.level)?;
        o.serialize_field("count", &self.count)?;
        o.serialize_field("text", &self.detail)?;
        o.end()
    }
}

/// The kinds of [`Loss`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
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

impl<'de> Deserialize<'de> for Loss {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Loss, D::Error> {
        /// The JSON form, as [`Loss`]'s `Serialize` writes it.
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Json {
            kind: LossKind,
            level: Level,
            count: Option<u64>,
            text: String,
        }
        let j = Json::deserialize(d)?;
        Ok(Loss {
            kind: j.kind,
            level: j.level,
            count: j.count,
            detail: j.text,
        })
    }
}

impl fmt::Display for Loss {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.detail)
    }
}

impl LossKind {
    /// The level a loss of this kind has unless its line says otherwise: [`Level::Relaid`]
    /// for layouts ([`Layout`](LossKind::Layout), [`LodInfo`](LossKind::LodInfo) at its
    /// defaults, the chunk order, ms14's spatial trees, CSGPHS hull layout and encoding),
    /// [`Level::Lost`] for the rest.
    pub fn level(self) -> Level {
        match self {
            LossKind::Layout
            | LossKind::VertexSharing
            | LossKind::UnigineSpatialTree
            | LossKind::CsgHullLayout
            | LossKind::CsgEncoding => Level::Relaid,
            _ => Level::Lost,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A report written as JSON reads back as the same report, every field; a kind or
    /// level that is none, or a field missing, is an error.
    #[test]
    fn a_report_reads_back_from_its_json() {
        let report = vec![
            Loss::counted(LossKind::Skeleton, 38, "38 bones (2.00 has no skeleton)"),
            Loss::new(LossKind::Layout, "COREMESH v2 becomes v1"),
            Loss::new(LossKind::TextPrecision, "7 numbers rounded").at(Level::Relaid),
            Loss::counted(LossKind::CsgEncoding, 3u64, "3 bytes after \"BLOCK\""),
        ];
        let json = serde_json::to_string(&report).unwrap();
        let back: Vec<Loss> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, report);
        assert!(
            json.contains("\"kind\":\"text_precision\",\"level\":\"re-laid\""),
            "{json}"
        );
        for bad in [
            r#"{"kind":"nothing","level":"lost","count":null,"text":""}"#,
            r#"{"kind":"skeleton","level":"gone","count":null,"text":""}"#,
            r#"{"kind":"skeleton","level":"lost","count":null}"#,
        ] {
            assert!(serde_json::from_str::<Loss>(bad).is_err(), "{bad}");
        }
    }
}
