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
//! | 1.x text | the source's number format, and each `w` | [`TextFormat::canonical`], `w` 0 |
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

use std::borrow::Cow;

use super::stored::{ChunkKind, ChunkSlot, HeaderLayout, StoredCore, StoredFacs};
use super::{FacsRig, MatrixEncoding, Mesh, MeshVertex, SameBits};
use crate::error::{Error, ErrorKind, Limits, Result};
use crate::filemesh::model;
use crate::filemesh::raw::chunks::{
    Chunk, ChunkData, CoreMeshV1, CoreMeshV2, FacsV1, FileMeshV6, HsrAvisV1, LodsV1, SkinningV1,
};
use crate::filemesh::raw::facs::{
    Facs, FacsData, MatrixData, QuantizedMatrix, QuantizedTransforms,
};
use crate::filemesh::raw::records::{
    Bone, Envelope, Face, Subset, ThreePoseCorrective, TwoPoseCorrective, Vertex,
};
use crate::filemesh::raw::text::{FileMeshV1, TextFormat, VertexV1};
use crate::filemesh::raw::v2::{FileMeshV2, LodOffsetsV3, VertexArray};
use crate::filemesh::raw::v4::FileMeshV4;
use crate::filemesh::raw::{Body, FileMesh, Version};
use crate::loss::Loss;

pub use crate::file::contract::CoreMesh;

/// Options for [`Mesh::to_file_with`] and [`Mesh::convert_with`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WriteOptions {
    /// How a 7.00 core mesh is written.
    pub core_mesh: CoreMesh,
}

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

    /// [`Mesh::convert_with`], with the Draco work [`Mesh::draco_owned`] did for these
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
        super::losses::compare_file(self, &mut file, target, &mut losses, &warm)?;
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
        super::losses::compare_text(self, target, &mut losses, &warm)?;
        Ok(losses)
    }

    /// The Draco work known before a conversion: the seed [`Mesh::draco_owned`] gave,
    /// and (`as_read`) that the stored bitstream decodes to these arrays.
    fn warm_memo(&self, seed: Option<OwnedDraco>, as_read: AsRead) -> DracoMemo<'_> {
        let mut warm = DracoMemo::default();
        let (vertices, faces) = (self.raw_vertex_slice(), bytemuck::cast_slice(&self.faces));
        if let Some(OwnedDraco::Gone { stored, .. }) = &seed {
            warm.gone = Some((self, *stored));
        }
        let stored = warm.core_stored(self).blob();
        if let (AsRead::Decoded, Some(b)) = (as_read, &stored) {
            // The stored bitstream decoded to these arrays when the file was read: it is
            // not decoded again to learn that.
            warm.decoded.push((b.clone(), vertices, faces, true));
        }
        if let Some(seed) = seed {
            warm.seed(vertices, faces, seed, stored);
        }
        warm
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
        let back = super::losses::read_back(&file)?;
        let mut losses = Vec::new();
        super::losses::compare(self, &back, target, &mut losses)?;
        Ok(Conversion { file, losses })
    }

    /// Writes the mesh as `target`, dropping what the version cannot hold (see
    /// [`Mesh::convert`] for the report).
    pub fn to_file(&self, target: Version) -> Result<FileMesh> {
        self.to_file_with(target, &WriteOptions::default())
    }

    /// [`Mesh::to_file`] with options.
    pub fn to_file_with(&self, target: Version, options: &WriteOptions) -> Result<FileMesh> {
        self.to_file_warm(target, options, &DracoMemo::default())
    }

    /// [`Mesh::to_file_with`], looking up the Draco work in `warm` before doing it.
    fn to_file_warm(
        &self,
        target: Version,
        options: &WriteOptions,
        warm: &DracoMemo<'_>,
    ) -> Result<FileMesh> {
        self.check_indices()?;
        let body = match target {
            Version::V1_00 | Version::V1_01 => Body::V1(self.to_text(target)),
            Version::V2_00 | Version::V3_00 | Version::V3_01 => Body::V2(self.to_v2(target)),
            Version::V4_00 | Version::V4_01 | Version::V5_00 => Body::V4(self.to_v4(target)?),
            Version::V6_00 | Version::V7_00 => Body::V6(self.to_v6(target, options, warm)?),
        };
        Ok(FileMesh {
            version: target,
            body,
        })
    }

    fn check_indices(&self) -> Result<()> {
        let n = self.vertices.len();
        match self.faces.iter().flatten().find(|&&i| i as usize >= n) {
            Some(i) => Err(Error::new(
                "Mesh",
                ErrorKind::Inconsistent(format!("a face uses vertex {i} of {n}")),
            )),
            None => Ok(()),
        }
    }

    pub(crate) fn raw_vertices(&self) -> Vec<Vertex> {
        self.vertices.iter().map(MeshVertex::to_raw).collect()
    }

    fn raw_faces(faces: &[[u32; 3]]) -> Vec<Face> {
        faces.iter().map(|&indices| Face { indices }).collect()
    }

    pub(crate) fn lod0_faces(&self) -> &[[u32; 3]] {
        self.faces
            .get(self.lods.lod0(self.faces.len()))
            .unwrap_or_default()
    }

    /// Face ranges of the LODs; an empty first range (`[0, 0]`) means one LOD of every face.
    pub(crate) fn lod_ranges(&self) -> Vec<(usize, usize)> {
        let n = self.faces.len();
        let o: Vec<usize> = self
            .lods
            .offsets
            .iter()
            .map(|&x| (x as usize).min(n))
            .collect();
        match o.as_slice() {
            [a, b, ..] if b > a => o
                .windows(2)
                .filter_map(|w| match w {
                    [a, b] if b >= a => Some((*a, *b)),
                    _ => None,
                })
                .collect(),
            _ => vec![(0, n)],
        }
    }

    // ---- The parts, per target version. Writing and the loss report both use these. ----

    /// `sizeof_FileMeshVertex` for a 2.00/3.0x target (40 for later versions).
    pub(crate) fn vertex_size_for(&self, target: Version) -> u8 {
        vertex_size(target, self.stored.vertex_size, || {
            self.vertices.iter().all(|v| v.color == [255; 4])
        })
    }

    /// Header bytes beyond the known fields, for a target with a header.
    pub(crate) fn header_tail_for(&self, target: Version) -> &[u8] {
        match (&self.stored.header_tail, HeaderLayout::of(target)) {
            (Some(t), Some(layout)) if t.layout == layout => &t.bytes,
            _ => &[],
        }
    }

    /// The 4.0x/5.00 padding byte.
    pub(crate) fn padding_for(&self) -> u8 {
        self.stored.padding.unwrap_or(0)
    }

    /// 3.0x `sizeof_LodOffset`.
    pub(crate) fn sizeof_lod_offset_for(&self) -> u16 {
        self.stored.sizeof_lod_offset.unwrap_or(4)
    }

    /// Bytes after the last structure (2.00–5.00).
    pub(crate) fn trailing_for(&self, target: Version) -> &[u8] {
        if target.is_text() || target.is_chunked() {
            &[]
        } else {
            &self.stored.trailing
        }
    }

    /// Whether the source had a place for LOD offsets (so an empty list is data, not a
    /// gap to fill).
    pub(crate) fn lods_were_stored(&self) -> bool {
        match (self.stored.version, &self.stored.chunks) {
            (Some(v), Some(slots)) if v.is_chunked() => {
                slots.contains(&ChunkSlot::Model(ChunkKind::Lods))
            }
            (Some(v), _) => v.has_lods(),
            (None, _) => false,
        }
    }

    /// LOD offsets for a target with LODs: as stored, or `[0, numFaces]` when the source
    /// had none.
    pub(crate) fn lod_offsets_for(&self) -> Vec<u32> {
        self.lod_offsets_with(self.faces.len())
    }

    /// [`Mesh::lod_offsets_for`] of a mesh with `num_faces` faces.
    pub(crate) fn lod_offsets_with(&self, num_faces: usize) -> Vec<u32> {
        if self.lods.offsets.is_empty() && !self.lods_were_stored() {
            vec![0, num_faces as u32]
        } else {
            self.lods.offsets.clone()
        }
    }

    /// Bones, name table, subsets and envelopes: the stored ones while they still
    /// describe the skeleton, skinning and faces, else built anew.
    pub(crate) fn skin_for(&self) -> Result<Cow<'_, SkinningV1>> {
        match &self.stored.skin {
            Some(s) if self.skin_describes(s) => Ok(Cow::Borrowed(s)),
            _ => Ok(Cow::Owned(self.raw_skinning()?)),
        }
    }

    /// True when a stored skin resolves to this mesh's skeleton and skinning, and its
    /// subsets fit the faces (each face in a subset's range uses only its vertices).
    fn skin_describes(&self, s: &SkinningV1) -> bool {
        if !model::bones(&s.bones, &s.bone_names).same_bits(&self.skeleton) {
            return false;
        }
        let same = if s.bones.is_empty() {
            s.envelopes.is_empty() && self.skinning.is_none()
        } else if s.envelopes.len() != self.vertices.len() {
            false
        } else {
            match &self.skinning {
                // Still the resolution of these very envelopes: nothing to compare.
                Some(k) if k.source().is_some_and(|src| std::ptr::eq(&**src, s)) => true,
                Some(k) => {
                    let k = k.as_slice();
                    let mut same = k.len() == s.envelopes.len();
                    let mut at = 0;
                    let fits = model::each_skin(&s.envelopes, &s.subsets, s.bones.len(), |v| {
                        same = same && k.get(at) == Some(&v);
                        at += 1;
                    });
                    same && fits.is_ok()
                }
                None => false,
            }
        };
        if !same {
            return false;
        }
        subsets_fit(&s.subsets, &self.faces, self.vertices.len())
    }

    /// The FACS section to write where the target has FACS: the stored one while it
    /// still holds the rig (or, without a rig, stored bytes the model does not read),
    /// else the rig encoded anew.
    pub(crate) fn facs_section_for(&self) -> Result<Option<StoredFacs>> {
        let stored = self.stored.facs.as_ref();
        match (&self.facs, stored) {
            (Some(rig), Some(s)) => {
                if let Facs::Data(d) = &s.facs {
                    if model::facs(d).is_ok_and(|r| r.same_bits(rig)) {
                        return Ok(Some(s.clone()));
                    }
                }
                let block = match &s.facs {
                    Facs::Data(d) => Some(d),
                    _ => None,
                };
                Ok(Some(StoredFacs {
                    format: s.format.filter(|&f| f != 0).or(Some(1)),
                    facs: Facs::Data(facs_data(rig, block)?),
                }))
            }
            (Some(rig), None) => Ok(Some(StoredFacs {
                format: Some(1),
                facs: Facs::Data(facs_data(rig, None)?),
            })),
            // Bytes the model does not read (5.00 `facsDataFormat` 0, or not one block), or
            // an empty section whose format is not 0.
            (None, Some(s))
                if matches!(s.facs, Facs::Opaque(_)) || s.format.is_some_and(|f| f != 0) =>
            {
                Ok(Some(s.clone()))
            }
            (None, _) => Ok(None),
        }
    }

    /// The HSRAVIS payload: the stored one while it holds the flags.
    pub(crate) fn hsr_for(&self) -> Result<Option<Cow<'_, HsrAvisV1>>> {
        let Some(flags) = &self.hsr_always_visible else {
            return Ok(None);
        };
        match &self.stored.hsr {
            Some(h) if &h.flags() == flags => Ok(Some(Cow::Borrowed(h))),
            _ => Ok(Some(Cow::Owned(HsrAvisV1::from_flags(flags)?))),
        }
    }

    /// The COREMESH payload for a chunked target (see the module docs).
    /// The Draco work in `warm` is looked up, not redone.
    pub(crate) fn core_for(
        &self,
        target: Version,
        options: &WriteOptions,
        warm: &DracoMemo<'_>,
    ) -> Result<ChunkData> {
        let faces: &[Face] = bytemuck::cast_slice(&self.faces);
        let plan = core_plan(
            self.raw_vertex_slice(),
            faces,
            warm.core_stored(self),
            target,
            options,
            &mut DracoMemo::child(warm),
        )?;
        Ok(match plan {
            // The arrays copied only into a COREMESH v1.
            CorePlan::Uncompressed => ChunkData::CoreMeshV1(CoreMeshV1 {
                vertices: self.raw_vertices().into(),
                faces: faces.to_vec().into(),
            }),
            CorePlan::Draco(Blob::Stored(b)) => draco_chunk(b.to_vec()),
            CorePlan::Draco(Blob::Gone(_)) => {
                return Err(Error::new(
                    crate::codec::draco::CONTEXT,
                    ErrorKind::Inconsistent(
                        "a Draco bitstream dropped to save memory was to be written".into(),
                    ),
                ))
            }
            // The memo is gone: a bitstream encoded here moves into the chunk (one `warm`
            // holds is copied).
            CorePlan::Draco(Blob::Encoded(b)) => {
                draco_chunk(std::rc::Rc::try_unwrap(b).unwrap_or_else(|b| b.to_vec()))
            }
        })
    }

    /// The vertices as the file's 40-byte records (the same bytes, borrowed).
    pub(crate) fn raw_vertex_slice(&self) -> &[Vertex] {
        bytemuck::cast_slice(&self.vertices)
    }

    /// The chunks of a 6.00/7.00 target, in the source's order where there is one.
    pub(crate) fn chunks_for(
        &self,
        target: Version,
        options: &WriteOptions,
        warm: &DracoMemo<'_>,
    ) -> Result<Vec<Chunk>> {
        Ok(self
            .planned_chunks(target, options, warm)?
            .into_iter()
            .map(|(_, c)| c)
            .collect())
    }

    /// [`Mesh::chunks_for`], each chunk with the kind the model wrote it for (`None` for
    /// a chunk kept whole).
    pub(crate) fn planned_chunks(
        &self,
        target: Version,
        options: &WriteOptions,
        warm: &DracoMemo<'_>,
    ) -> Result<Vec<(Option<ChunkKind>, Chunk)>> {
        self.plan_chunks_with(&|| self.lod_offsets_for(), &|| self.skin_for(), &mut || {
            self.core_for(target, options, warm)
        })
    }

    /// [`Mesh::planned_chunks`] with the parts that depend on the vertex and face arrays
    /// given: the LOD offsets, the skin and the COREMESH payload (each asked for once,
    /// in chunk order). The loss report plans a target's chunks with its arrays where
    /// they lie, and the COREMESH as a [`CorePlan`].
    pub(crate) fn plan_chunks_with<'s>(
        &'s self,
        lod_offsets: &dyn Fn() -> Vec<u32>,
        skin: &dyn Fn() -> Result<Cow<'s, SkinningV1>>,
        core: &mut dyn FnMut() -> Result<ChunkData>,
    ) -> Result<Vec<(Option<ChunkKind>, Chunk)>> {
        let stored_slots = match (self.stored.version, &self.stored.chunks) {
            (Some(v), Some(s)) if v.is_chunked() => Some(s.as_slice()),
            _ => None,
        };
        let mut slots: Vec<ChunkSlot> = match stored_slots {
            Some(s) => s.to_vec(),
            None => ChunkKind::ALL
                .iter()
                .map(|&k| ChunkSlot::Model(k))
                .collect(),
        };
        // Kinds the mesh has now but the source had no chunk for go where Roblox puts
        // them: after the last chunk of an earlier kind.
        for kind in ChunkKind::ALL {
            if slots.contains(&ChunkSlot::Model(kind)) {
                continue;
            }
            let at = slots
                .iter()
                .rposition(|s| matches!(s, ChunkSlot::Model(k) if *k < kind))
                .map_or(0, |i| i + 1);
            slots.insert(at, ChunkSlot::Model(kind));
        }
        let lods_slot = stored_slots.is_none_or(|s| s.contains(&ChunkSlot::Model(ChunkKind::Lods)));
        let mut chunks = Vec::with_capacity(slots.len());
        for slot in slots {
            let kind = match slot {
                ChunkSlot::Kept(c) => {
                    chunks.push((None, *c));
                    continue;
                }
                ChunkSlot::Model(kind) => kind,
            };
            let data = match kind {
                ChunkKind::CoreMesh => Some(core()?),
                ChunkKind::Lods => {
                    let has = !self.lods.offsets.is_empty()
                        || self.lods.lod_type != 0
                        || self.lods.num_high_quality_lods != 0;
                    (lods_slot || has).then(|| {
                        ChunkData::LodsV1(LodsV1 {
                            lod_type: self.lods.lod_type,
                            num_high_quality_lods: self.lods.num_high_quality_lods,
                            lod_offsets: lod_offsets().into(),
                        })
                    })
                }
                ChunkKind::Skinning => {
                    let skin = skin()?;
                    let stored = self.stored.skin.is_some()
                        && stored_slots
                            .is_some_and(|s| s.contains(&ChunkSlot::Model(ChunkKind::Skinning)));
                    (stored || !skin.bones.is_empty() || !skin.envelopes.is_empty())
                        .then(|| ChunkData::SkinningV1(skin.into_owned()))
                }
                ChunkKind::Facs => self
                    .facs_section_for()?
                    // A FACS chunk has no facsDataFormat: bytes 5.00 marked "no valid
                    // FACS data" cannot go there.
                    .filter(|s| s.format != Some(0) && s.facs != Facs::None)
                    .filter(|s| s.facs.check_format(1).is_ok())
                    .map(|s| ChunkData::FacsV1(FacsV1 { facs: s.facs })),
                ChunkKind::HsrAvis => self
                    .hsr_for()?
                    .map(|h| ChunkData::HsrAvisV1(h.into_owned())),
            };
            if let Some(d) = data {
                chunks.push((Some(kind), Chunk::new(d)));
            }
        }
        Ok(chunks)
    }

    /// The text body: LOD 0's faces, one vertex per corner.
    pub(crate) fn to_text(&self, target: Version) -> FileMeshV1 {
        let (format, faces) = self.text_faces(target);
        FileMeshV1::with_format(faces.collect(), format)
    }

    /// Writes the text file `target` (1.00 or 1.01) of this mesh into `out`, as
    /// [`Mesh::to_file`] gives it, without building it: one face at a time, in pieces of
    /// about 64 KiB.
    pub fn write_text_to(&self, target: Version, out: &mut dyn std::io::Write) -> Result<()> {
        self.check_indices()?;
        let (format, faces) = self.text_faces(target);
        let n = self.lod0_faces().len();
        crate::filemesh::raw::text::write_faces(target, &format, &[], n, faces, out)
    }

    /// The text's format (the source's, or canonical), and its faces: LOD 0's, one
    /// vertex per corner.
    fn text_faces(
        &self,
        target: Version,
    ) -> (TextFormat, impl Iterator<Item = [VertexV1; 3]> + '_) {
        let (format, w) = self.text_format_and_w();
        let faces = self.lod0_faces().iter().map(move |f| {
            f.map(|i| {
                let w = w.get(i as usize).copied().unwrap_or(0.0);
                self.vertices
                    .get(i as usize)
                    .map(|v| text_vertex(v, w, target))
                    .unwrap_or_default()
            })
        });
        (format, faces)
    }

    /// How a text target prints its numbers (the source's format, or canonical), and
    /// the `w` of each vertex's texture coordinate (empty when the mesh keeps none for
    /// these vertices).
    pub(crate) fn text_format_and_w(&self) -> (TextFormat, &[f32]) {
        let stored = self.stored.text.as_ref();
        let w = stored
            .map(|t| t.w.as_slice())
            .filter(|w| w.len() == self.vertices.len())
            .unwrap_or_default();
        (stored.map_or(TextFormat::canonical(), |t| t.format), w)
    }

    fn to_v2(&self, target: Version) -> FileMeshV2 {
        let raw = self.raw_vertices();
        let vertices = if self.vertex_size_for(target) == 36 {
            VertexArray::Size36(raw.iter().map(|&v| v.into()).collect())
        } else {
            VertexArray::Size40(raw.into())
        };
        let (faces, lods) = if target.has_lods() {
            (
                Self::raw_faces(&self.faces),
                Some(LodOffsetsV3 {
                    sizeof_lod_offset: self.sizeof_lod_offset_for(),
                    lod_offsets: self.lod_offsets_for().into(),
                }),
            )
        } else {
            (Self::raw_faces(self.lod0_faces()), None)
        };
        FileMeshV2 {
            header_tail: self.header_tail_for(target).to_vec(),
            vertices,
            faces: faces.into(),
            lods,
            trailing: self.trailing_for(target).to_vec(),
        }
    }

    fn to_v4(&self, target: Version) -> Result<FileMeshV4> {
        let skin = self.skin_for()?.into_owned();
        let (facs_data_format, facs) = match self.facs_section_for()? {
            Some(s) if target.has_facs() => {
                let format = match (&s.facs, s.format) {
                    (_, Some(f)) => f,
                    (Facs::None, None) => 0,
                    (_, None) => 1,
                };
                (format, s.facs)
            }
            _ => (0, Facs::None),
        };
        Ok(FileMeshV4 {
            lod_type: self.lods.lod_type,
            num_high_quality_lods: self.lods.num_high_quality_lods,
            unused_padding: self.padding_for(),
            facs_data_format,
            header_tail: self.header_tail_for(target).to_vec(),
            vertices: self.raw_vertices().into(),
            envelopes: skin.envelopes,
            faces: (Self::raw_faces(&self.faces)).into(),
            lod_offsets: self.lod_offsets_for().into(),
            bones: skin.bones,
            bone_names: skin.bone_names,
            subsets: skin.subsets,
            facs,
            trailing: self.trailing_for(target).to_vec(),
        })
    }

    fn to_v6(
        &self,
        target: Version,
        options: &WriteOptions,
        warm: &DracoMemo<'_>,
    ) -> Result<FileMeshV6> {
        Ok(FileMeshV6 {
            chunks: self.chunks_for(target, options, warm)?,
        })
    }

    /// Bones, name table, subsets (per LOD, at most 26 bones each) and envelopes, built
    /// from the skeleton and skinning.
    fn raw_skinning(&self) -> Result<SkinningV1> {
        let mut out = SkinningV1::default();
        for b in &self.skeleton {
            let index = u32::try_from(out.bone_names.len()).map_err(|_| too_big("bone names"))?;
            out.bone_names.extend_from_slice(b.name.as_bytes());
            out.bone_names.push(0);
            out.bones.push(Bone {
                bone_name_index: index,
                parent_index: b.parent.unwrap_or(0xFFFF),
                lod_parent_index: b.lod_parent.unwrap_or(0xFFFF),
                culling: b.culling,
                rotation: b.rotation,
                position: b.position,
            });
        }
        let Some(skin) = &self.skinning else {
            return Ok(out);
        };
        if skin.len() != self.vertices.len() {
            return Err(inconsistent(format!(
                "{} skinning entries for {} vertices",
                skin.len(),
                self.vertices.len()
            )));
        }
        // Per LOD: its faces, the vertex range they use, the bones of those vertices.
        // Each vertex belongs to the first subset whose range holds it.
        let mut owner: Vec<Option<usize>> = vec![None; self.vertices.len()];
        for (a, b) in self.lod_ranges() {
            let faces = self.faces.get(a..b).unwrap_or_default();
            let Some(&lo) = faces.iter().flatten().min() else {
                continue;
            };
            let hi = faces.iter().flatten().max().copied().unwrap_or(lo);
            // Walk the LOD's vertex range, closing a subset before its bone table would
            // pass 26. Vertices already owned by an earlier LOD's subset keep that owner.
            // A subset may only end where no face of the LOD spans the cut (a face lies
            // in one subset): at the last such vertex before the table overflows.
            let (lo, hi) = (lo as usize, hi as usize);
            let mut depth = vec![0i64; hi - lo + 2];
            for f in faces {
                let (a, b) = (f.iter().min(), f.iter().max());
                if let (Some(&a), Some(&b)) = (a, b) {
                    if let Some(d) = depth.get_mut(a as usize + 1 - lo) {
                        *d += 1;
                    }
                    if let Some(d) = depth.get_mut(b as usize + 1 - lo) {
                        *d -= 1;
                    }
                }
            }
            let mut open = 0i64;
            let can_cut: Vec<bool> = depth
                .iter()
                .map(|d| {
                    open += d;
                    open == 0
                })
                .collect();
            let first = out.subsets.len();
            let mut start = lo;
            let mut table: Vec<u16> = Vec::new();
            let mut last_cut = None;
            let mut v = lo;
            while v <= hi {
                let (Some(None), Some(sk)) = (owner.get(v), skin.get(v)) else {
                    v += 1;
                    continue;
                };
                if v > start && can_cut.get(v - lo).copied().unwrap_or(false) {
                    last_cut = Some(v);
                }
                let mut bones: Vec<u16> = Vec::new();
                for i in sk.influences.iter().filter(|i| i.weight > 0) {
                    if !table.contains(&i.bone) && !bones.contains(&i.bone) {
                        bones.push(i.bone);
                    }
                }
                if table.len() + bones.len() > 26 {
                    let here = out.subsets.len();
                    let cut = last_cut.filter(|&c| c > start).ok_or_else(|| {
                        inconsistent(format!(
                            "the faces around vertex {v} use more than 26 bones together, \
                             but a FileMesh subset holds 26 (give each run of faces its own \
                             copy of the vertices it uses)"
                        ))
                    })?;
                    // The vertices from the cut on start the next subset.
                    table.clear();
                    for x in start..v {
                        match owner.get_mut(x) {
                            Some(o) if *o == Some(here) && x >= cut => *o = None,
                            Some(o) if *o == Some(here) => {
                                for i in skin.get(x).iter().flat_map(|s| s.influences) {
                                    if i.weight > 0 && !table.contains(&i.bone) {
                                        table.push(i.bone);
                                    }
                                }
                            }
                            _ => {}
                        }
                    }
                    out.subsets.push(subset(start, cut, &table));
                    start = cut;
                    table.clear();
                    last_cut = None;
                    v = cut;
                    continue;
                }
                table.extend(bones);
                if let Some(o) = owner.get_mut(v) {
                    *o = Some(out.subsets.len());
                }
                v += 1;
            }
            out.subsets.push(subset(start, hi + 1, &table));
            if let Some(lod_subsets) = out.subsets.get_mut(first..) {
                assign_faces(lod_subsets, faces, a);
                // Each subset's faces must use only its vertices (faces grouped by
                // subset, as Roblox lays them out); anything else would bind vertices
                // through the wrong bone table.
                for sub in lod_subsets.iter() {
                    if let Some(f) = stray_face(sub, &self.faces) {
                        let verts = sub.verts_begin..sub.verts_begin + sub.verts_length;
                        return Err(inconsistent(format!(
                            "face {f:?} lies in the face range of a subset over vertices \
                             {verts:?} but uses a vertex outside it: the faces are not \
                             grouped by subset"
                        )));
                    }
                }
            }
        }
        for (v, (s, own)) in skin.iter().zip(&owner).enumerate() {
            let table = own
                .and_then(|k| out.subsets.get(k))
                .map(|s| &s.bone_indices);
            let mut e = Envelope::default();
            for (slot, i) in s
                .influences
                .iter()
                .enumerate()
                .filter(|(_, i)| i.weight > 0)
            {
                let byte = table
                    .and_then(|t| t.iter().position(|&g| g == i.bone))
                    .ok_or_else(|| {
                        inconsistent(format!("vertex {v} is skinned but used by no face"))
                    })?;
                if let (Some(b), Some(w)) = (e.bones.get_mut(slot), e.weights.get_mut(slot)) {
                    *b = byte as u8;
                    *w = i.weight;
                }
            }
            out.envelopes.push(e);
        }
        Ok(out)
    }
}

/// What a COREMESH is written from: [`core_plan`]'s choice, without the copy of the
/// arrays a COREMESH v1 takes.
#[derive(Clone, Debug)]
pub(crate) enum CorePlan<'a> {
    /// COREMESH v1, the vertices and faces as they are.
    Uncompressed,
    /// COREMESH v2, this Draco bitstream.
    Draco(Blob<'a>),
}

impl CorePlan<'_> {
    /// The same choice (the same bitstream, byte for byte).
    pub(crate) fn same(&self, other: &CorePlan<'_>) -> bool {
        match (self, other) {
            (CorePlan::Uncompressed, CorePlan::Uncompressed) => true,
            (CorePlan::Draco(a), CorePlan::Draco(b)) => a.same(b),
            _ => false,
        }
    }
}

/// A Draco bitstream: one a mesh stored, or one encoded.
#[derive(Clone, Debug)]
pub(crate) enum Blob<'a> {
    /// Borrowed from where it is kept.
    Stored(&'a [u8]),
    /// Encoded here (shared by the [`DracoMemo`] that made it).
    Encoded(std::rc::Rc<Vec<u8>>),
    /// No longer held ([`Mesh::draco_owned_as_read`]): known by its fingerprint, and
    /// by what the memo recorded of it.
    Gone(Fingerprint),
}

impl Blob<'_> {
    /// The bytes, unless the bitstream is gone.
    pub(crate) fn bytes(&self) -> Option<&[u8]> {
        match self {
            Blob::Stored(b) => Some(b),
            Blob::Encoded(b) => Some(b),
            Blob::Gone(_) => None,
        }
    }

    /// Its length in bytes.
    pub(crate) fn len(&self) -> usize {
        match self {
            Blob::Gone(f) => f.len,
            b => b.bytes().map_or(0, <[u8]>::len),
        }
    }

    /// Whether these are its bytes.
    pub(crate) fn is(&self, bytes: &[u8]) -> bool {
        match self {
            Blob::Gone(f) => f.matches(bytes),
            b => b.bytes() == Some(bytes),
        }
    }

    /// The same bitstream, byte for byte (one that is gone by its fingerprint).
    pub(crate) fn same(&self, other: &Blob<'_>) -> bool {
        match (self, other.bytes()) {
            (Blob::Gone(a), None) => matches!(other, Blob::Gone(b) if a == b),
            (a, Some(b)) => a.is(b),
            (a, None) => other.same(a),
        }
    }

    /// The same record of a stored bitstream: the same place, or the same fingerprint.
    fn identical(&self, other: &Blob<'_>) -> bool {
        match (self, other) {
            (Blob::Stored(a), Blob::Stored(b)) => std::ptr::eq(*a, *b),
            (Blob::Gone(a), Blob::Gone(b)) => a == b,
            _ => false,
        }
    }

    /// This bitstream, as one that does not borrow: a stored one is copied, one encoded
    /// here is shared.
    pub(crate) fn detached<'b>(&self) -> Blob<'b> {
        match self {
            Blob::Stored(b) => Blob::Encoded(std::rc::Rc::new(b.to_vec())),
            Blob::Encoded(b) => Blob::Encoded(b.clone()),
            Blob::Gone(f) => Blob::Gone(*f),
        }
    }
}

/// What is kept of a bitstream no longer held: its length, and two 64-bit SipHashes of
/// its bytes under keys drawn at random once per process (so no input can be made to
/// collide on purpose).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Fingerprint {
    len: usize,
    hashes: [u64; 2],
}

impl Fingerprint {
    /// The fingerprint of these bytes.
    pub(crate) fn of(bytes: &[u8]) -> Self {
        Fingerprint {
            len: bytes.len(),
            hashes: hashes(&[bytes]),
        }
    }

    /// The fingerprint of a bitstream that was never made: it matches no bytes. It
    /// stands for the bitstream encoding would give where that is known not to decode
    /// to the arrays without encoding them ([`Mesh::draco_owned_as_read`]).
    pub(crate) fn never_made() -> Self {
        Fingerprint {
            len: usize::MAX,
            hashes: [0; 2],
        }
    }

    /// Whether these are the bytes it was taken of.
    pub(crate) fn matches(&self, bytes: &[u8]) -> bool {
        bytes.len() == self.len && Fingerprint::of(bytes) == *self
    }
}

/// Two 64-bit SipHashes of the parts' bytes, in order, under the process's random keys.
fn hashes(parts: &[&[u8]]) -> [u64; 2] {
    use std::hash::{BuildHasher, Hasher};
    static KEYS: std::sync::OnceLock<[std::hash::RandomState; 2]> = std::sync::OnceLock::new();
    let keys = KEYS.get_or_init(|| [(); 2].map(|()| std::hash::RandomState::new()));
    keys.each_ref().map(|k| {
        let mut h = k.build_hasher();
        for p in parts {
            h.write(p);
        }
        h.finish()
    })
}

/// Draco work done once for the arrays it was done for: the loss report plans the
/// COREMESH of the source and of the target, whose arrays usually hold the same values,
/// and each plan encodes or decodes the whole mesh. Arrays are recognised by their
/// bytes (compared where they lie), so a result is reused exactly when the work would
/// give it again; a bitstream encoded equal to one already known is kept once.
#[derive(Default)]
pub(crate) struct DracoMemo<'a> {
    /// Work done before, looked up after this memo's own.
    parent: Option<&'a DracoMemo<'a>>,
    /// Bitstreams stored by the meshes planned ([`Blob::Stored`] or [`Blob::Gone`]).
    known: Vec<Blob<'a>>,
    /// (vertices, faces, their bitstream).
    encoded: Vec<(&'a [Vertex], &'a [Face], Blob<'a>)>,
    /// (bitstream, vertices, faces, whether it decodes to them).
    decoded: Vec<(Blob<'a>, &'a [Vertex], &'a [Face], bool)>,
    /// A mesh whose stored Draco bitstream was dropped during its conversion
    /// ([`Mesh::draco_owned_as_read`]), and the fingerprint that stands in for it.
    gone: Option<(&'a Mesh, Fingerprint)>,
}

/// Byte equality of two vertex arrays.
fn same_vertices(a: &[Vertex], b: &[Vertex]) -> bool {
    bytemuck::cast_slice::<Vertex, u8>(a) == bytemuck::cast_slice::<Vertex, u8>(b)
}

impl<'a> DracoMemo<'a> {
    /// A memo that also looks up the work `parent` holds.
    pub(crate) fn child(parent: &'a DracoMemo<'a>) -> Self {
        DracoMemo {
            parent: Some(parent),
            ..DracoMemo::default()
        }
    }

    /// The memos to look in: this one, then its parents.
    fn chain(&self) -> impl Iterator<Item = &DracoMemo<'a>> {
        std::iter::successors(Some(self), |m| m.parent)
    }

    /// Records the work [`Mesh::draco_owned`] or [`Mesh::draco_owned_as_read`] did for
    /// these arrays, of a mesh that stored the bitstream `stored`.
    fn seed(
        &mut self,
        vertices: &'a [Vertex],
        faces: &'a [Face],
        seed: OwnedDraco,
        stored: Option<Blob<'a>>,
    ) {
        match seed {
            OwnedDraco::Decodes(bitstream) => {
                let blob = Blob::Encoded(std::rc::Rc::new(bitstream));
                self.encoded.push((vertices, faces, blob.clone()));
                self.decoded.push((blob, vertices, faces, true));
            }
            OwnedDraco::Gone { encode, .. } => {
                let Some(stored) = stored else { return };
                self.know(stored.clone());
                match encode {
                    Reencoded::NotDone => {}
                    Reencoded::Stored => self.encoded.push((vertices, faces, stored)),
                    Reencoded::Other { bitstream, exact } => {
                        let blob = Blob::Gone(bitstream);
                        self.encoded.push((vertices, faces, blob.clone()));
                        self.decoded.push((blob, vertices, faces, exact));
                    }
                }
            }
        }
    }

    /// How `mesh` stored its core mesh, as this memo or a parent knows it: a stored
    /// bitstream dropped during the conversion by its fingerprint.
    pub(crate) fn core_stored<'m>(&self, mesh: &'m Mesh) -> CoreStored<'m> {
        let gone = self.chain().find_map(|m| m.gone);
        match gone {
            Some((m, f)) if std::ptr::eq(m, mesh) => CoreStored::Gone(f),
            _ => CoreStored::of(mesh.stored.core.as_ref()),
        }
    }

    /// The arrays `bitstream` is known to decode to exactly (with the default limits),
    /// if this memo or a parent checked that.
    pub(crate) fn decoded_exactly(&self, bitstream: &[u8]) -> Option<(&'a [Vertex], &'a [Face])> {
        self.exact_decoding(|b| b.is(bitstream))
    }

    /// The arrays a bitstream `which` picks is known to decode to exactly.
    fn exact_decoding(
        &self,
        which: impl Fn(&Blob<'a>) -> bool,
    ) -> Option<(&'a [Vertex], &'a [Face])> {
        self.chain().find_map(|m| {
            m.decoded
                .iter()
                .find(|(b, _, _, same)| *same && which(b))
                .map(|&(_, v, f, _)| (v, f))
        })
    }

    /// Notes a bitstream a mesh stored, so that one encoded equal to it is kept once.
    fn know(&mut self, blob: Blob<'a>) {
        if !self.known.iter().any(|k| k.identical(&blob)) {
            self.known.push(blob);
        }
    }

    /// [`draco::encode`](crate::codec::draco::encode) of the arrays.
    fn encode(&mut self, vertices: &'a [Vertex], faces: &'a [Face]) -> Result<Blob<'a>> {
        let found = self.chain().find_map(|m| {
            m.encoded
                .iter()
                .find(|(v, f, _)| *f == faces && same_vertices(v, vertices))
                .map(|(_, _, b)| b.clone())
        });
        if let Some(b) = found {
            return Ok(b);
        }
        let blob = crate::codec::draco::encode(vertices, faces)?;
        let known = self
            .chain()
            .find_map(|m| m.known.iter().find(|k| k.is(&blob)).cloned());
        let blob = known.unwrap_or_else(|| Blob::Encoded(std::rc::Rc::new(blob)));
        self.encoded.push((vertices, faces, blob.clone()));
        Ok(blob)
    }

    /// Whether the bitstream decodes to exactly these arrays.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::Inconsistent`] for a bitstream no longer held whose exact decoding
    /// the memo does not know (it always does where one is dropped).
    fn decodes_to(
        &mut self,
        blob: &Blob<'a>,
        vertices: &'a [Vertex],
        faces: &'a [Face],
    ) -> Result<bool> {
        let found = self.chain().find_map(|m| {
            m.decoded
                .iter()
                .find(|(b, v, f, _)| b.same(blob) && *f == faces && same_vertices(v, vertices))
                .map(|&(_, _, _, same)| same)
        });
        if let Some(same) = found {
            return Ok(same);
        }
        let same = match blob.bytes() {
            Some(bytes) => crate::codec::draco::decode(bytes, &Limits::default())
                .is_ok_and(|(v, f)| same_vertices(&v, vertices) && f == faces),
            // The decoder is a function of the bytes: a bitstream known to decode to
            // other arrays exactly does not decode to these.
            None => {
                let Some((v, f)) = self.exact_decoding(|b| b.same(blob)) else {
                    return Err(Error::new(
                        crate::codec::draco::CONTEXT,
                        ErrorKind::Inconsistent(
                            "a Draco bitstream dropped to save memory was to be decoded".into(),
                        ),
                    ));
                };
                same_vertices(v, vertices) && f == faces
            }
        };
        self.decoded.push((blob.clone(), vertices, faces, same));
        Ok(same)
    }
}

impl Mesh {
    /// The Draco work the loss report of converting this mesh to `target` will ask for,
    /// done before the target is built, while less is held: the COREMESH writing the
    /// source's version again would give, from this mesh and from a target that holds
    /// the same arrays but no COREMESH choice (any version but 7.00 and text). Nothing
    /// is done for a source that is not chunked or a target that would not hold the
    /// same arrays (2.00, whose vertices may be 36 bytes, and a target without LODs
    /// for a mesh with several). A failure is not kept: the comparison meets it again.
    /// Done into `memo`, which may know some of it already.
    pub(crate) fn warm_draco<'a>(&'a self, target: Version, memo: &mut DracoMemo<'a>) {
        let Some(source) = self.stored.version.filter(|v| v.is_chunked()) else {
            return;
        };
        if !self.target_holds_the_arrays(target) || target == Version::V2_00 {
            return;
        }
        let (vertices, faces) = (self.raw_vertex_slice(), bytemuck::cast_slice(&self.faces));
        let options = WriteOptions::default();
        let stored = memo.core_stored(self);
        for stored in [stored, CoreStored::None] {
            if core_plan(vertices, faces, stored, source, &options, memo).is_err() {
                break;
            }
        }
    }

    /// Whether `target` holds this mesh's vertex and face arrays as they are, with no
    /// COREMESH choice of its own: any version but 7.00 and text, and all the faces
    /// (a target without LODs holds LOD 0's). 2.00 may hold its vertices in 36 bytes.
    fn target_holds_the_arrays(&self, target: Version) -> bool {
        !target.is_text()
            && target != Version::V7_00
            && (target.has_lods() || self.lod0_faces().len() == self.faces.len())
    }

    /// Whether decoding a Draco bitstream of this mesh stays within the default
    /// [`Limits`] (the memo's work uses them).
    fn draco_within_default_limits(&self) -> bool {
        let counts = crate::codec::draco::Counts {
            faces: self.faces.len() as u64,
            points: self.vertices.len() as u64,
        };
        counts.decoded_bytes() <= Limits::default().max_decoded_bytes
    }
}

/// What a conversion knows of the mesh's arrays ([`Mesh::convert_seeded`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AsRead {
    /// Nothing: the mesh may have been edited since it was read.
    Unknown,
    /// They are what the stored Draco bitstream (if the mesh has one) decoded to when
    /// the mesh was read, unedited.
    Decoded,
}

/// Draco work done on a mesh's arrays while they were given away: what
/// [`draco::encode`](crate::codec::draco::encode) of them gives.
#[derive(Debug)]
pub(crate) enum OwnedDraco {
    /// [`Mesh::draco_owned`]: this bitstream, which decodes to them exactly.
    Decodes(Vec<u8>),
    /// [`Mesh::draco_owned_as_read`]: the mesh's stored bitstream was dropped; `stored`
    /// is its fingerprint, and `encode` what encoding the arrays gave.
    Gone {
        stored: Fingerprint,
        encode: Reencoded,
    },
}

/// What [`Mesh::draco_owned_as_read`] found encoding a mesh's arrays again.
#[derive(Debug)]
pub(crate) enum Reencoded {
    /// Not encoded (the report would not ask, or asks for other arrays).
    NotDone,
    /// The stored bitstream.
    Stored,
    /// Another bitstream, by its fingerprint, and whether it decodes to the arrays.
    Other { bitstream: Fingerprint, exact: bool },
}

/// A digest of vertex and face arrays: their lengths and two keyed 64-bit SipHashes of
/// their bytes (random keys, so no input can be made to collide on purpose).
type Digest = (usize, usize, [u64; 2]);

fn digest(vertices: &[Vertex], faces: &[Face]) -> Digest {
    let parts = [bytemuck::cast_slice(vertices), bytemuck::cast_slice(faces)];
    (vertices.len(), faces.len(), hashes(&parts))
}

/// The error when Draco does not give back the arrays it was given.
fn not_given_back() -> Error {
    Error::new(
        crate::codec::draco::CONTEXT,
        ErrorKind::Inconsistent(
            "Draco did not give back the vertices and faces it was given".into(),
        ),
    )
}

impl Mesh {
    /// The Draco work writing this mesh as `target` will do, done with its vertex and
    /// face arrays given away while `draco-core`'s encoder runs and while its bitstream
    /// is decoded again (each needs about twice the arrays' size besides, so holding
    /// them too would add their size to the peak), for [`Mesh::convert_seeded`].
    ///
    /// Only where [`core_plan`] would encode the arrays and find that the bitstream
    /// decodes to them, so that the result is the one it would give: a 7.00 target, the
    /// automatic choice, no stored core mesh, face indices in range, arrays whose
    /// decoding fits the default limits, and finite normals on Draco's grid that come
    /// back bit for bit ([`draco::distinct_normals_survive`](crate::codec::draco::distinct_normals_survive),
    /// found from the normals' distinct values while the arrays are still held). `None` otherwise,
    /// and nothing is done.
    ///
    /// The arrays come back from the bitstream's decoding, checked against a digest of
    /// their bytes taken before (their lengths and two randomly keyed 64-bit hashes).
    /// Errors, the mesh then without vertices and faces, if the encoder refuses the mesh
    /// or its bitstream does not decode to them.
    pub(crate) fn draco_owned(
        &mut self,
        target: Version,
        options: &WriteOptions,
    ) -> Result<Option<OwnedDraco>> {
        use crate::codec::draco;
        let limits = Limits::default();
        if target != Version::V7_00
            || options.core_mesh != CoreMesh::Auto
            || self.stored.core.is_some()
            || self.vertices.is_empty()
            || u32::try_from(self.vertices.len()).is_err()
            || !self.draco_within_default_limits()
            || self.check_indices().is_err()
        {
            return Ok(None);
        }
        let vertices = self.raw_vertex_slice();
        match distinct_normals(vertices) {
            Some(d) if draco::distinct_normals_survive(&d) => {}
            _ => return Ok(None),
        }
        let before = digest(vertices, bytemuck::cast_slice(&self.faces));
        let (vertices, faces) = take_arrays(&mut self.vertices, &mut self.faces);
        let bitstream = draco::encode(vertices, faces)?;
        let (vertices, faces) = draco::decode(&bitstream, &limits)?;
        if digest(&vertices, &faces) != before {
            return Err(not_given_back());
        }
        self.put_arrays(vertices, faces);
        Ok(Some(OwnedDraco::Decodes(bitstream)))
    }

    /// [`take_arrays`] undone.
    fn put_arrays(&mut self, vertices: Vec<Vertex>, faces: Vec<Face>) {
        self.vertices = bytemuck::allocation::cast_vec(vertices);
        self.faces = bytemuck::allocation::cast_vec(faces);
    }

    /// Drops the stored Draco bitstream of a 7.00 mesh converted to `target`, which
    /// does not write it (any version but 7.00), or takes the fingerprint of one
    /// dropped as it was read (`dropped`), and does the Draco encode the loss
    /// report will ask for (would writing 7.00 again from the target give the same
    /// bitstream? [`Mesh::warm_draco`]) while neither the bitstream nor the mesh's
    /// vertex and face arrays are held, for [`Mesh::convert_seeded`]. `None`, and
    /// nothing done, for a 7.00 target or a mesh without a stored bitstream.
    ///
    /// A fingerprint stands in for the bitstream: the report needs only its length,
    /// whether another bitstream is the same, and what it decodes to, which is the
    /// mesh's arrays (the mesh must be as read, [`AsRead::Decoded`]).
    ///
    /// The encode is done only where the report would do it (see [`Mesh::warm_draco`]
    /// and [`core_plan`]; for a 2.00 target, which `warm_draco` leaves to the
    /// comparison, the comparison finds the work by the arrays' bytes), and only where
    /// it may give the arrays back: Draco quantizes the normals and keeps the rest as it
    /// is, so where the normals' own round trip says they would not come back
    /// ([`draco::distinct_normals_survive`](crate::codec::draco::distinct_normals_survive)),
    /// a new bitstream is neither the stored one nor one the report would use, and none
    /// is made ([`Fingerprint::never_made`]). Otherwise the arrays go to `draco-core`'s
    /// encoder and come back from the new bitstream's decoding, checked against a
    /// digest of their bytes taken before (their lengths and two randomly keyed 64-bit
    /// hashes).
    ///
    /// # Errors
    ///
    /// When the encoder refuses the mesh (the report's own encode would meet the same
    /// refusal), or the arrays do not come back; the mesh is then without its vertices
    /// and faces.
    pub(crate) fn draco_owned_as_read(
        &mut self,
        target: Version,
        dropped: Option<Fingerprint>,
    ) -> Result<Option<OwnedDraco>> {
        use crate::codec::draco;
        if self.stored.version != Some(Version::V7_00) || target == Version::V7_00 {
            return Ok(None);
        }
        let stored = match (&self.stored.core, dropped) {
            (Some(StoredCore::Draco(bitstream)), _) => Fingerprint::of(bitstream),
            (None, Some(fingerprint)) => fingerprint,
            _ => return Ok(None),
        };
        self.stored.core = None;
        let gone = |encode| Ok(Some(OwnedDraco::Gone { stored, encode }));
        if !self.target_holds_the_arrays(target) || !self.draco_within_default_limits() {
            return gone(Reencoded::NotDone);
        }
        let Some(distinct) = distinct_normals(self.raw_vertex_slice()) else {
            return gone(Reencoded::NotDone);
        };
        if !draco::distinct_normals_survive(&distinct) {
            // A new bitstream would not give these normals back, so it is not the
            // stored one (which does) and the report plans COREMESH v1 without it: the
            // encoder is not run.
            return gone(Reencoded::Other {
                bitstream: Fingerprint::never_made(),
                exact: false,
            });
        }
        let before = digest(self.raw_vertex_slice(), bytemuck::cast_slice(&self.faces));
        let (vertices, faces) = take_arrays(&mut self.vertices, &mut self.faces);
        let bitstream = draco::encode(vertices, faces)?;
        let encoded = Fingerprint::of(&bitstream);
        // The stored bitstream again decodes to the arrays as read.
        let same = encoded == stored;
        let (vertices, faces) = draco::decode(bitstream, &Limits::default())?;
        let exact = same || digest(&vertices, &faces) == before;
        if !exact {
            return Err(not_given_back());
        }
        self.put_arrays(vertices, faces);
        gone(if same {
            Reencoded::Stored
        } else {
            Reencoded::Other {
                bitstream: encoded,
                exact,
            }
        })
    }
}

/// A mesh's vertex and face arrays, moved out as a COREMESH's (the same bytes).
fn take_arrays(
    vertices: &mut Vec<super::MeshVertex>,
    faces: &mut Vec<[u32; 3]>,
) -> (Vec<Vertex>, Vec<Face>) {
    (
        bytemuck::allocation::cast_vec(std::mem::take(vertices)),
        bytemuck::allocation::cast_vec(std::mem::take(faces)),
    )
}

/// How the source stored its core mesh ([`StoredCore`], borrowed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CoreStored<'a> {
    /// Not recorded (the source had no choice to make).
    None,
    /// COREMESH v1.
    Uncompressed,
    /// COREMESH v2, this Draco bitstream.
    Draco(&'a [u8]),
    /// COREMESH v2, a Draco bitstream dropped during the conversion
    /// ([`DracoMemo::core_stored`]).
    Gone(Fingerprint),
}

impl<'a> CoreStored<'a> {
    pub(crate) fn of(stored: Option<&'a StoredCore>) -> Self {
        match stored {
            None => CoreStored::None,
            Some(StoredCore::Uncompressed) => CoreStored::Uncompressed,
            Some(StoredCore::Draco(b)) => CoreStored::Draco(b),
        }
    }

    /// The Draco bitstream, if it is one.
    pub(crate) fn blob(self) -> Option<Blob<'a>> {
        match self {
            CoreStored::Draco(b) => Some(Blob::Stored(b)),
            CoreStored::Gone(f) => Some(Blob::Gone(f)),
            CoreStored::None | CoreStored::Uncompressed => None,
        }
    }
}

/// The COREMESH of a chunked target for these arrays, given how the source stored its
/// core mesh (see the module docs): [`Mesh::core_for`] builds it, the loss report
/// compares it.
pub(crate) fn core_plan<'a>(
    vertices: &'a [Vertex],
    faces: &'a [Face],
    stored: CoreStored<'a>,
    target: Version,
    options: &WriteOptions,
    memo: &mut DracoMemo<'a>,
) -> Result<CorePlan<'a>> {
    let stored_blob = stored.blob();
    if let Some(b) = &stored_blob {
        memo.know(b.clone());
    }
    let reuse = |memo: &mut DracoMemo<'a>| -> Result<Option<Blob<'a>>> {
        match &stored_blob {
            Some(b) if memo.decodes_to(b, vertices, faces)? => Ok(Some(b.clone())),
            _ => Ok(None),
        }
    };
    match (options.core_mesh, target) {
        (CoreMesh::Uncompressed, _) | (CoreMesh::Auto, Version::V6_00) => {
            return Ok(CorePlan::Uncompressed)
        }
        (CoreMesh::Draco, _) => {
            if let Some(b) = reuse(memo)? {
                return Ok(CorePlan::Draco(b));
            }
            let blob = if vertices
                .iter()
                .all(|v| v.normal.iter().all(|x| x.is_finite()))
            {
                crate::codec::draco::encode(vertices, faces)?
            } else {
                let mut vertices = vertices.to_vec();
                for v in &mut vertices {
                    for x in &mut v.normal {
                        if !x.is_finite() {
                            *x = 0.0;
                        }
                    }
                }
                crate::codec::draco::encode(&vertices, faces)?
            };
            return Ok(CorePlan::Draco(Blob::Encoded(std::rc::Rc::new(blob))));
        }
        (CoreMesh::Auto, _) => {}
    }
    if let Some(b) = reuse(memo)? {
        return Ok(CorePlan::Draco(b));
    }
    if stored == CoreStored::Uncompressed {
        return Ok(CorePlan::Uncompressed);
    }
    // Draco only where it keeps every value (a normal that is not finite, or off the
    // 11-bit grid, keeps the mesh uncompressed).
    if normals_can_be_exact(vertices) {
        let blob = memo.encode(vertices, faces)?;
        let exact = memo.decodes_to(&blob, vertices, faces)?;
        let v1_size = 8 + vertices.len() * 40 + faces.len() * 12;
        if exact && (stored_blob.is_some() || 4 + blob.len() < v1_size) {
            return Ok(CorePlan::Draco(blob));
        }
    }
    Ok(CorePlan::Uncompressed)
}

/// Whether Draco could hold every normal exactly: all finite, and on few enough values
/// for its 11-bit grid ([`distinct_normals`]). Only then is a core mesh encoded to see
/// whether it comes back.
fn normals_can_be_exact(vertices: &[Vertex]) -> bool {
    distinct_normals(vertices).is_some()
}

/// Each normal component's distinct values (by their bits), in the order they first
/// appear, when every normal is finite and no component has more distinct values than
/// the quantization has steps (twice that, a margin: each component decodes to one value
/// per step, and canonicalization only maps values to values); `None` otherwise, as the
/// normals cannot all come back from Draco's 11-bit quantization. Checked before
/// encoding, so a mesh Draco could not hold exactly is not encoded and decoded in vain
/// (the decode check decides the rest); the values also tell
/// [`draco::distinct_normals_survive`](crate::codec::draco::distinct_normals_survive).
fn distinct_normals(vertices: &[Vertex]) -> Option<[Vec<f32>; 3]> {
    if !vertices
        .iter()
        .all(|v| v.normal.iter().all(|x| x.is_finite()))
    {
        return None;
    }
    let limit = 2usize << crate::codec::draco::NORMAL_QUANTIZATION_BITS;
    let mut distinct: [Vec<f32>; 3] = Default::default();
    for (c, values) in distinct.iter_mut().enumerate() {
        let mut seen = std::collections::HashSet::new();
        for v in vertices {
            if let Some(&x) = v.normal.get(c) {
                if seen.insert(x.to_bits()) {
                    if values.len() == limit {
                        return None;
                    }
                    values.push(x);
                }
            }
        }
    }
    Some(distinct)
}

/// `sizeof_FileMeshVertex` for a 2.00/3.0x target, given the stored size and whether
/// every vertex colour is white (asked only when it matters).
pub(crate) fn vertex_size(target: Version, stored: Option<u8>, white: impl Fn() -> bool) -> u8 {
    if target.has_skinning() || target.is_chunked() || target.is_text() {
        return 40;
    }
    match stored {
        Some(36) if white() => 36,
        Some(_) => 40,
        None if target == Version::V2_00 && white() => 36,
        None => 40,
    }
}

/// True when each subset's face range lies within `faces` and its vertex range within
/// `num_vertices`, and every face in the range uses only the subset's vertices.
pub(crate) fn subsets_fit(subsets: &[Subset], faces: &[[u32; 3]], num_vertices: usize) -> bool {
    let (nf, nv) = (faces.len() as u64, num_vertices as u64);
    subsets.iter().all(|sub| {
        let faces_end = u64::from(sub.faces_begin) + u64::from(sub.faces_length);
        let verts_end = u64::from(sub.verts_begin) + u64::from(sub.verts_length);
        faces_end <= nf && verts_end <= nv && stray_face(sub, faces).is_none()
    })
}

/// The first face in `sub`'s face range that uses a vertex outside its vertex range.
fn stray_face<'a>(sub: &Subset, faces: &'a [[u32; 3]]) -> Option<&'a [u32; 3]> {
    let verts =
        u64::from(sub.verts_begin)..u64::from(sub.verts_begin) + u64::from(sub.verts_length);
    let begin = sub.faces_begin as usize;
    faces
        .get(begin..begin.saturating_add(sub.faces_length as usize))
        .unwrap_or_default()
        .iter()
        .find(|f| f.iter().any(|&i| !verts.contains(&u64::from(i))))
}

fn draco_chunk(draco: Vec<u8>) -> ChunkData {
    ChunkData::CoreMeshV2(CoreMeshV2 {
        draco: draco.into(),
    })
}

/// A subset over vertices `start..end` with `table` as its bones (face range set later).
fn subset(start: usize, end: usize, table: &[u16]) -> Subset {
    let mut bone_indices = [0xFFFF; 26];
    for (dst, src) in bone_indices.iter_mut().zip(table) {
        *dst = *src;
    }
    Subset {
        faces_begin: 0,
        faces_length: 0,
        verts_begin: start as u32,
        verts_length: end.saturating_sub(start) as u32,
        num_bone_indices: table.len() as u32,
        bone_indices,
    }
}

/// Face ranges of one LOD's subsets (`faces` start at face `base`): the whole LOD for a
/// single subset, else the span of the faces whose lowest vertex lies in each subset's
/// vertex range (contiguous when the faces are ordered by vertex block, as Roblox lays
/// them out).
fn assign_faces(subsets: &mut [Subset], faces: &[[u32; 3]], base: usize) {
    if let [only] = subsets {
        only.faces_begin = base as u32;
        only.faces_length = faces.len() as u32;
        return;
    }
    for s in subsets.iter_mut() {
        let range = s.verts_begin..s.verts_begin + s.verts_length;
        let mut hits = faces
            .iter()
            .enumerate()
            .filter(|(_, f)| f.iter().min().is_some_and(|v| range.contains(v)))
            .map(|(k, _)| base + k);
        if let Some(first) = hits.next() {
            let last = hits.next_back().unwrap_or(first);
            s.faces_begin = first as u32;
            s.faces_length = (last - first + 1) as u32;
        } else {
            s.faces_begin = base as u32;
        }
    }
}

/// A model vertex as a text vertex point: 1.00 positions doubled, V flipped, numbers that
/// are not finite written as 0 (text cannot hold them).
pub(crate) fn text_vertex(v: &MeshVertex, w: f32, target: Version) -> VertexV1 {
    let scale = if target == Version::V1_00 { 2.0 } else { 1.0 };
    let finite = |x: f32| if x.is_finite() { x } else { 0.0 };
    VertexV1 {
        position: v.position.map(|x| finite(x * scale)),
        normal: v.normal.map(finite),
        uvw: [finite(v.uv[0]), finite(1.0 - v.uv[1]), finite(w)],
    }
}

fn inconsistent(msg: String) -> Error {
    Error::new("Mesh", ErrorKind::Inconsistent(msg))
}

fn too_big(what: &str) -> Error {
    inconsistent(format!("{what} too large"))
}

/// The FACS block of a rig: matrices raw where the rig says raw, else quantized to u16;
/// a matrix of `stored` keeps its range when every value lies on its grid.
fn facs_data(rig: &FacsRig, stored: Option<&FacsData>) -> Result<FacsData> {
    let blob = |names: &[String]| {
        names
            .iter()
            .flat_map(|n| n.bytes().chain(std::iter::once(0)))
            .collect::<Vec<u8>>()
    };
    let rows = rig.face_bone_names.len();
    let cols = rig.poses.len();
    if rig.poses.iter().any(|c| c.len() != rows) {
        return Err(inconsistent(
            "FACS poses do not match the face bones".into(),
        ));
    }
    let stored_matrices = stored.map(|d| d.quantized_transforms.matrices());
    let matrix = |k: usize| -> Result<QuantizedMatrix> {
        let value = |r: usize, c: usize| {
            let p = rig
                .poses
                .get(c)
                .and_then(|col| col.get(r))
                .copied()
                .unwrap_or_default();
            let xyz = if k < 3 { p.position } else { p.rotation };
            xyz.get(k % 3).copied().unwrap_or_default()
        };
        let values: Vec<f32> = (0..rows)
            .flat_map(|r| (0..cols).map(move |c| (r, c)))
            .map(|(r, c)| value(r, c))
            .collect();
        let range = stored_matrices
            .and_then(|m| m.get(k).copied())
            .and_then(|m| match m.data {
                MatrixData::Quantized { min, max, .. } => Some((min, max)),
                MatrixData::Raw(_) => None,
            });
        let data = match rig.encodings.get(k).copied().unwrap_or_default() {
            MatrixEncoding::Raw => MatrixData::Raw(values.into()),
            MatrixEncoding::Quantized => quantize(&values, range),
        };
        Ok(QuantizedMatrix {
            rows: u32::try_from(rows).map_err(|_| too_big("FACS rows"))?,
            cols: u32::try_from(cols).map_err(|_| too_big("FACS columns"))?,
            data,
        })
    };
    Ok(FacsData {
        face_bone_names_blob: (blob(&rig.face_bone_names)).into(),
        face_control_names_blob: (blob(&rig.control_names)).into(),
        quantized_transforms: QuantizedTransforms {
            px: matrix(0)?,
            py: matrix(1)?,
            pz: matrix(2)?,
            rx: matrix(3)?,
            ry: matrix(4)?,
            rz: matrix(5)?,
        },
        two_pose_correctives: rig
            .two_pose_correctives
            .iter()
            .map(|&control_indices| TwoPoseCorrective { control_indices })
            .collect(),
        three_pose_correctives: rig
            .three_pose_correctives
            .iter()
            .map(|&control_indices| ThreePoseCorrective { control_indices })
            .collect(),
    })
}

/// Version-2 quantization: u16 steps over `range` when every value lies exactly on its
/// grid (a stored range the values came from), else over the values' min and max.
fn quantize(values: &[f32], range: Option<(f32, f32)>) -> MatrixData {
    if let Some((min, max)) = range {
        let q: Option<Vec<u16>> = values
            .iter()
            .map(|&v| {
                let q = crate::filemesh::raw::facs::quantize_value(min, max, v);
                (crate::filemesh::raw::facs::dequantize_value(min, max, q).to_bits() == v.to_bits())
                    .then_some(q)
            })
            .collect();
        if let Some(values) = q {
            return MatrixData::Quantized {
                min,
                max,
                values: values.into(),
            };
        }
    }
    let min = values.iter().copied().fold(f32::INFINITY, f32::min);
    let max = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let (min, max) = if min.is_finite() && max.is_finite() {
        (min, max)
    } else {
        (0.0, 0.0)
    };
    let values: Vec<u16> = values
        .iter()
        .map(|&v| crate::filemesh::raw::facs::quantize_value(min, max, v))
        .collect();
    MatrixData::Quantized {
        min,
        max,
        values: values.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::{distinct_normals, normals_can_be_exact, same_vertices, Mesh};
    use crate::codec::draco;
    use crate::error::Limits;
    use crate::filemesh::raw::chunks::ChunkData;
    use crate::filemesh::raw::records::{Face, Vertex};
    use crate::filemesh::raw::Body;
    use std::path::Path;

    /// Every Draco mesh of the fixtures and the corpus passes the normal check that
    /// lets a mesh be tried as Draco; normals off the grid do not.
    #[test]
    fn decoded_draco_normals_fit_the_grid() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut blobs = Vec::new();
        for (_, f) in crate::test_filemeshes(&["chunked"]) {
            if let Body::V6(b) = f.body {
                for c in b.chunks {
                    if let ChunkData::CoreMeshV2(d) = c.data {
                        blobs.push(d.draco.into_vec());
                    }
                }
            }
        }
        for e in std::fs::read_dir(root.join("roundtrip-fixtures/draco"))
            .into_iter()
            .flatten()
            .flatten()
        {
            blobs.push(std::fs::read(e.path()).unwrap_or_default());
        }
        let mut checked = 0;
        for blob in blobs {
            if let Ok((vertices, _)) = draco::decode(&blob, &Limits::default()) {
                assert!(normals_can_be_exact(&vertices));
                checked += 1;
            }
        }
        assert!(checked > 3, "{checked}");
        let many: Vec<Vertex> = (0..10_000)
            .map(|i| Vertex {
                normal: [i as f32 / 10_000.0, 0.0, 1.0],
                ..Vertex::default()
            })
            .collect();
        assert!(!normals_can_be_exact(&many));
        assert!(normals_can_be_exact(many.get(..1000).unwrap_or_default()));
        // 4,096 distinct values a component are the most.
        assert!(normals_can_be_exact(many.get(..4096).unwrap_or_default()));
        assert!(!normals_can_be_exact(many.get(..4097).unwrap_or_default()));
    }

    /// The round trip of the normals alone says what the whole round trip does: on the
    /// decoded Draco meshes (whose normals come back), and on the same meshes with their
    /// normals moved off the grid, or on a grid of their own (a few values, not Draco's).
    #[test]
    fn normals_alone_tell_whether_they_come_back() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut meshes = Vec::new();
        for (path, f) in crate::test_filemeshes(&["chunked"]) {
            if let Ok(m) = Mesh::from_file(&f) {
                meshes.push((path, m.raw_vertices(), m.faces.clone()));
            }
        }
        for e in std::fs::read_dir(root.join("roundtrip-fixtures/draco"))
            .into_iter()
            .flatten()
            .flatten()
        {
            let blob = std::fs::read(e.path()).unwrap_or_default();
            if let Ok((v, f)) = draco::decode(&blob, &Limits::default()) {
                let faces = f.iter().map(|f| f.indices).collect();
                meshes.push((e.path(), v, faces));
            }
        }
        let (mut same, mut changed) = (0, 0);
        for (path, vertices, faces) in meshes {
            let faces: &[Face] = bytemuck::cast_slice(&faces);
            let nudged: Vec<Vertex> = vertices
                .iter()
                .enumerate()
                .map(|(i, v)| Vertex {
                    normal: v.normal.map(|x| x + (i % 3) as f32 * 1e-3),
                    ..*v
                })
                .collect();
            let few: Vec<Vertex> = vertices
                .iter()
                .enumerate()
                .map(|(i, v)| Vertex {
                    normal: [0.1 * (i % 7) as f32, 0.3, -0.7],
                    ..*v
                })
                .collect();
            // Zeros of both signs, −0 first and +0 first, at the bounds of a component.
            let zeros = |first: f32| -> Vec<Vertex> {
                vertices
                    .iter()
                    .enumerate()
                    .map(|(i, v)| Vertex {
                        normal: match i % 4 {
                            0 => [first, 0.5, 1.0],
                            1 => [-first, -0.0, 0.25],
                            2 => [0.75, 0.0, -0.0],
                            _ => v.normal.map(f32::abs),
                        },
                        ..*v
                    })
                    .collect()
            };
            for v in [vertices.clone(), nudged, few, zeros(-0.0), zeros(0.0)] {
                let Ok(blob) = draco::encode(&v, faces) else {
                    continue;
                };
                let Ok((back, _)) = draco::decode(&blob, &Limits::default()) else {
                    continue;
                };
                let whole = same_vertices(&back, &v);
                assert_eq!(draco::normals_survive(&v), whole, "{}", path.display());
                // The distinct values give the same answer, and so do the decoded normals.
                for v in [&v, &back] {
                    let survive = draco::normals_survive(v);
                    match distinct_normals(v) {
                        Some(d) => assert_eq!(
                            draco::distinct_normals_survive(&d),
                            survive,
                            "{}",
                            path.display()
                        ),
                        None => assert!(!survive, "{}", path.display()),
                    }
                }
                if whole {
                    same += 1;
                } else {
                    changed += 1;
                }
            }
        }
        // The fixtures' bitstreams were made with other settings than Roblox's, so
        // normals that come back need the corpus's real files.
        let corpus = crate::test_corpus_roblox().is_dir();
        assert!(
            (same >= 1 || !corpus) && changed >= 1,
            "{same} kept, {changed} changed"
        );
    }
}
