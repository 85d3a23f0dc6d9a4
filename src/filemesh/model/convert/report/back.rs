//! The target read back, as the comparison sees it ([`Back`]): a whole model, a
//! [`View`](super::in_place::View) of a binary file, or a text target worked out from the
//! source ([`TextBack`](super::text_back::TextBack)); and how a vertex changed
//! ([`VertexDiff`]).

use std::borrow::Cow;

use crate::error::Result;
use crate::filemesh::model::convert::core_mesh::{core_plan, CorePlan, DracoMemo};
use crate::filemesh::model::convert::plan::WriteOptions;
use crate::filemesh::model::stored::ChunkKind;
use crate::filemesh::model::{Mesh, MeshVertex, SameBits};
use crate::filemesh::raw::chunks::{Chunk, ChunkData, CoreMeshV1, SkinningV1};
use crate::filemesh::raw::records::Face;
use crate::filemesh::raw::Version;

/// How a vertex and its `w` changed: which attributes, and how many of their numbers
/// (finite before, or not).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct VertexDiff {
    /// The attributes that changed ([`VertexDiff::POSITION`] …).
    pub(super) changed: u8,
    /// Finite numbers that changed.
    pub(super) numbers: u8,
    /// Numbers that were not finite and changed.
    pub(super) non_finite: u8,
}

impl VertexDiff {
    pub(super) const POSITION: u8 = 1;
    pub(super) const NORMAL: u8 = 2;
    pub(super) const UV: u8 = 4;
    pub(super) const W: u8 = 8;
    pub(super) const TANGENT: u8 = 16;
    pub(super) const COLOR: u8 = 32;

    /// The difference between vertex `b` (with its text `w`, `bw`) and `a` (`aw`).
    pub(super) fn of(b: &MeshVertex, bw: f32, a: &MeshVertex, aw: f32) -> VertexDiff {
        let mut d = VertexDiff::default();
        let mut count = |x: &[f32], y: &[f32], flag: u8| {
            for (x, y) in x.iter().zip(y) {
                if !x.same_bits(y) {
                    d.changed |= flag;
                    if x.is_finite() {
                        d.numbers += 1;
                    } else {
                        d.non_finite += 1;
                    }
                }
            }
        };
        count(&b.position, &a.position, Self::POSITION);
        count(&b.normal, &a.normal, Self::NORMAL);
        count(&b.uv, &a.uv, Self::UV);
        count(&[bw], &[aw], Self::W);
        if b.tangent_bytes != a.tangent_bytes {
            d.changed |= Self::TANGENT;
        }
        if b.color != a.color {
            d.changed |= Self::COLOR;
        }
        d
    }
}

/// The target read back, as `compare` sees it: a whole model, a
/// [`View`](super::in_place::View), or a text target worked out from the source
/// ([`TextBack`](super::text_back::TextBack)).
pub(super) trait Back {
    /// The model's small parts (LODs, skeleton, FACS, HSR flags, what was stored).
    fn model(&self) -> &Mesh;
    fn vertex_count(&self) -> usize;
    fn vertex(&self, i: usize) -> Option<MeshVertex>;
    fn faces(&self) -> &[[u32; 3]];
    /// The `w` of a text vertex (0 for binary versions).
    fn w(&self, i: usize) -> f32 {
        let m = self.model();
        m.stored
            .text
            .as_ref()
            .filter(|t| t.w.len() == self.vertex_count())
            .and_then(|t| t.w.get(i).copied())
            .unwrap_or(0.0)
    }
    /// How vertex `j` differs from vertex `i` of `before` (a vertex either lacks is
    /// the default vertex).
    fn diff(&self, before: &Mesh, i: usize, j: usize) -> VertexDiff {
        let default = MeshVertex::default();
        let b = before.vertices.get(i).unwrap_or(&default);
        let a = self.vertex(j).unwrap_or(default);
        VertexDiff::of(b, Back::w(before, i), &a, self.w(j))
    }
    /// `before.skinning == skinning`.
    fn same_skinning(&self, before: &Mesh) -> bool;
    /// [`Mesh::vertex_size_for`].
    fn vertex_size(&self, v: Version) -> u8;
    /// [`Mesh::lod_offsets_for`].
    fn lod_offsets(&self) -> Vec<u32>;
    /// [`Mesh::skin_for`].
    fn skin(&self) -> Result<Cow<'_, SkinningV1>>;
    /// [`Mesh::planned_chunks`], the COREMESH as a [`CorePlan`] beside the chunks (where
    /// the list holds an empty COREMESH); without `core`, the COREMESH is not planned
    /// (`None`).
    fn plan<'s>(
        &'s self,
        v: Version,
        options: &WriteOptions,
        memo: &mut DracoMemo<'s>,
        core: bool,
    ) -> Result<Planned<'s>>;
}

/// Planned chunks, and the plan of their COREMESH.
pub(super) type Planned<'s> = (Vec<(Option<ChunkKind>, Chunk)>, Option<CorePlan<'s>>);

/// What stands in the chunk list for a planned COREMESH.
pub(super) fn planned_core() -> ChunkData {
    ChunkData::CoreMeshV1(CoreMeshV1::default())
}

impl Back for Mesh {
    fn model(&self) -> &Mesh {
        self
    }
    fn vertex_count(&self) -> usize {
        self.vertices.len()
    }
    fn vertex(&self, i: usize) -> Option<MeshVertex> {
        self.vertices.get(i).copied()
    }
    fn faces(&self) -> &[[u32; 3]] {
        &self.faces
    }
    fn same_skinning(&self, before: &Mesh) -> bool {
        before.skinning == self.skinning
    }
    fn vertex_size(&self, v: Version) -> u8 {
        self.vertex_size_for(v)
    }
    fn lod_offsets(&self) -> Vec<u32> {
        self.lod_offsets_for()
    }
    fn skin(&self) -> Result<Cow<'_, SkinningV1>> {
        self.skin_for()
    }
    fn plan<'s>(
        &'s self,
        v: Version,
        options: &WriteOptions,
        memo: &mut DracoMemo<'s>,
        with_core: bool,
    ) -> Result<Planned<'s>> {
        let faces: &[Face] = bytemuck::cast_slice(&self.faces);
        let mut core = None;
        let chunks =
            self.plan_chunks_with(&|| self.lod_offsets_for(), &|| self.skin_for(), &mut || {
                if !with_core {
                    return Ok(planned_core());
                }
                let stored = memo.core_stored(self);
                core = Some(core_plan(
                    self.raw_vertex_slice(),
                    faces,
                    stored,
                    v,
                    options,
                    memo,
                )?);
                Ok(planned_core())
            })?;
        Ok((chunks, core))
    }
}
