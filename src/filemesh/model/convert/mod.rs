//! Model → raw: write a [`Mesh`] as any FileMesh version, reusing what its source file
//! stored wherever it still describes the data (see [`stored`](super::stored)), and
//! report exactly what a conversion loses ([`Mesh::convert`]).
//!
//! # What is written, part by part
//!
//! Each part comes from [`Mesh::stored`] when the source stored it and it still
//! describes the data; otherwise it is built from the values:
//!
//! | part | from the source, when it still describes the data | otherwise |
//! |---|---|---|
//! | 2.00/3.0x vertex size | 36 or 40 as read (36 only while every colour is white) | 2.00: 36 when every colour is white, else 40; 3.0x: 40 |
//! | header bytes beyond the known fields | carried between versions with the same header layout (2.00; 3.0x; 4.0x; 5.00) | none |
//! | 4.0x/5.00 padding byte | as read | 0 |
//! | 3.0x `sizeof_LodOffset` | as read | 4 |
//! | bytes after the last structure | carried to 2.00–5.00 | none |
//! | LOD offsets | as stored, even empty | `[0, numFaces]` when the source had no LOD offsets |
//! | 7.00 COREMESH | the Draco bitstream if it decodes to the vertices and faces; the v1/v2 choice of a 7.00 source | Draco (Roblox's settings) when it reproduces every value and is smaller than v1, else v1 |
//! | 6.00 COREMESH | — | v1 (the spec's 6.00 chunk version) |
//! | bones, name table, subsets, envelopes | as stored, if they resolve to the skeleton and skinning and each subset's faces use only its vertices | one name table in bone order; each LOD's vertex range cut into subsets of at most 26 bones |
//! | FACS | the block as stored, if it dequantizes to the rig; per matrix, the stored range if every value lies on its grid | u16 over the values' min and max (raw where the rig says raw) |
//! | `facsDataFormat` | as read | 1 |
//! | HSRAVIS | as stored, if it holds the flags | the flags, padding bits 0 |
//! | chunks | the source's order, chunks the model does not read kept whole | COREMESH, LODS, SKINNING, FACS, HSRAVIS |
//! | 1.x text | the source's number format, and each `w` | [`TextFormat::canonical`](crate::filemesh::raw::text::TextFormat::canonical), `w` 0 |
//!
//! Below 3.00 only LOD 0, the full-detail mesh, is written; below 4.00 no skeleton; below
//! 5.00 no FACS; below 6.00 no HSR flags. Text has one vertex per face corner.
//!
//! Values a target cannot hold are replaced: in text, a number that is not finite is
//! written as 0; in a forced Draco core mesh ([`CoreMesh::Draco`]), a normal component
//! that is not finite becomes 0 before quantization. Both show in the loss report.
//!
//! Which of these rules are guesses (fitted to the real files, not documented by Roblox)
//! is said in `docs/filemesh-conversion.md`.
//!
//! # Where it is
//!
//! A conversion goes plan → write → report, each stage importing only the ones before:
//! - `plan`: what the target gets, part by part; `rebuild` builds the parts the
//!   source stored none of; `core_mesh` plans the COREMESH and does the Draco work once;
//! - `write`: the raw file laid out from the plan;
//! - `report`: what the conversion lost, found by reading the target back.
//!
//! `given_away` does a conversion's Draco work with the mesh's arrays given away.

mod core_mesh;
mod given_away;
mod plan;
mod rebuild;
mod report;
mod write;

pub use plan::{CoreMesh, WriteOptions};

pub(crate) use core_mesh::{AsRead, Fingerprint, OwnedDraco};
#[cfg(test)]
pub(crate) use core_mesh::{Blob, Reencoded};

use crate::error::Result;
use crate::filemesh::model::Mesh;
use crate::filemesh::raw::{FileMesh, Version};
use crate::loss::Loss;

/// The result of [`Mesh::convert`]: the file, and what it lost.
#[derive(Clone, Debug, PartialEq)]
pub struct Conversion {
    /// The mesh written as the target version.
    pub file: FileMesh,
    /// Everything the target changed or dropped (empty: reading `file` gives the same
    /// values, and writing the source version from it gives the source's layout).
    pub losses: Vec<Loss>,
}

impl Mesh {
    /// What writing this mesh as `target` would lose (empty: nothing). This converts
    /// and compares (see [`Mesh::convert`]); use that to keep the file too.
    pub fn losses(&self, target: Version) -> Result<Vec<Loss>> {
        Ok(self.convert(target)?.losses)
    }

    /// Writes the mesh as `target` and reports what that loses, with default options.
    pub fn convert(&self, target: Version) -> Result<Conversion> {
        self.convert_with(target, &WriteOptions::default())
    }

    /// Writes the mesh as `target` and reports what that loses.
    ///
    /// The report is found by doing: the file is read back and compared with this mesh,
    /// value by value (bit for bit), and, when the mesh was read from a binary file,
    /// part by part with what writing that source version again would give (so a
    /// layout choice the target cannot record, such as a 2.00 file's 40-byte vertices
    /// going through 4.00, is reported when it would not come back). An empty report
    /// means the conversion changes nothing.
    pub fn convert_with(&self, target: Version, options: &WriteOptions) -> Result<Conversion> {
        self.convert_seeded(target, options, None, AsRead::Unknown)
    }

    /// [`Mesh::convert_with`], with the Draco work [`Mesh::draco_to_v7`] did for these
    /// arrays, if any, and what is known of them (`as_read`).
    pub(crate) fn convert_seeded(
        &self,
        target: Version,
        options: &WriteOptions,
        seed: Option<OwnedDraco>,
        as_read: AsRead,
    ) -> Result<Conversion> {
        let mut warm = self.warm_memo(seed, as_read);
        self.warm_draco(target, &mut warm);
        let mut file = self.to_file_warm(target, options, &warm)?;
        let mut losses = Vec::new();
        report::compare_file(self, &mut file, target, &mut losses, &warm)?;
        Ok(Conversion { file, losses })
    }

    /// What [`Mesh::convert_seeded`] reports for a text `target`, without writing the
    /// text: each number's reading back is worked out from its value.
    pub(crate) fn text_losses_seeded(
        &self,
        target: Version,
        seed: Option<OwnedDraco>,
        as_read: AsRead,
    ) -> Result<Vec<Loss>> {
        self.check_indices()?;
        let warm = self.warm_memo(seed, as_read);
        let mut losses = Vec::new();
        report::compare_text(self, target, &mut losses, &warm)?;
        Ok(losses)
    }

    /// [`Mesh::convert_with`] as it was first written: the target read back into a whole
    /// model and compared with this mesh. The test oracle of the comparison that reads
    /// the target's arrays in place.
    #[cfg(test)]
    pub(crate) fn convert_by_model(
        &self,
        target: Version,
        options: &WriteOptions,
    ) -> Result<Conversion> {
        let file = self.to_file_with(target, options)?;
        let back = report::read_back(&file)?;
        let mut losses = Vec::new();
        report::compare(self, &back, target, &mut losses)?;
        Ok(Conversion { file, losses })
    }
}
