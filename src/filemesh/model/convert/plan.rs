//! Plan: what a target version gets, part by part (see the table in [`convert`](super)):
//! each part the source stored while it still describes the data, else one built from
//! the values ([`rebuild`](super::rebuild)). Writing ([`write`](super::write)) and the
//! loss report ([`report`](super::report)) both ask these; nothing here lays out bytes.

use std::borrow::Cow;

use super::rebuild::{facs_data, subsets_fit};
use crate::error::Result;
use crate::filemesh::model::stored::{ChunkKind, ChunkSlot, HeaderLayout, StoredFacs};
use crate::filemesh::model::{self as model, Mesh, SameBits};
use crate::filemesh::raw::chunks::{Chunk, ChunkData, FacsV1, HsrAvisV1, LodsV1, SkinningV1};
use crate::filemesh::raw::facs::Facs;
use crate::filemesh::raw::text::TextFormat;
use crate::filemesh::raw::Version;

pub use crate::file::contract::CoreMesh;

/// Options for [`Mesh::to_file_with`] and [`Mesh::convert_with`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WriteOptions {
    /// How a 7.00 core mesh is written.
    pub core_mesh: CoreMesh,
}

impl Mesh {
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

    /// [`Mesh::planned_chunks`] with the parts that depend on the vertex and face arrays
    /// given: the LOD offsets, the skin and the COREMESH payload (each asked for once,
    /// in chunk order). The loss report plans a target's chunks with its arrays where
    /// they lie, and the COREMESH as a [`CorePlan`].
    ///
    /// [`CorePlan`]: super::core_mesh::CorePlan
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

    /// How a text target prints its numbers (the source's format, or canonical), the
    /// `w` of each vertex's texture coordinate and the text's own `v` (each empty when
    /// the mesh keeps none for these vertices).
    pub(crate) fn text_format_w_and_v(&self) -> (TextFormat, &[f32], &[f32]) {
        let stored = self.stored.text.as_ref();
        let n = self.vertices.len();
        let w = stored.map(|t| t.w.as_slice()).filter(|s| s.len() == n);
        let v = stored.map(|t| t.v.as_slice()).filter(|s| s.len() == n);
        let (w, v) = (w.unwrap_or_default(), v.unwrap_or_default());
        (stored.map_or(TextFormat::canonical(), |t| t.format), w, v)
    }
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
