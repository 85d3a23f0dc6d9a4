//! The loss report of a conversion, found by doing it: the target is read back and
//! compared with the mesh it was written from.
//!
//! Two comparisons, each part by part:
//! - **values**: vertices (bit for bit, per attribute), faces, LODs, skeleton, skinning,
//!   FACS, HSR flags, the `w` of 1.x texture coordinates;
//! - **layout**, when the mesh was read from a binary file of version S: every part that
//!   writing S would put in the file (vertex size, header bytes, padding, trailing bytes,
//!   LOD offsets, subsets and envelopes, the FACS block, HSR bytes, the core mesh
//!   encoding, the chunks) is worked out from both meshes; where they differ, the
//!   conversion would not come back to the same file, and that is reported.
//!
//! A part whose values are already reported lost is not reported again as layout.

use std::borrow::Cow;

use super::convert::{core_plan, Blob, CorePlan, CoreStored, DracoMemo, WriteOptions};
use super::stored::{ChunkKind, StoredFacs};
use super::{Mesh, MeshVertex, SameBits};
use crate::error::{Limits, Result};
use crate::filemesh::raw::chunks::{chunk_type_name, Chunk, ChunkData, CoreMeshV1, SkinningV1};
use crate::filemesh::raw::facs::Facs;
use crate::filemesh::raw::records::{Envelope, Face, Vertex, Vertex36};
use crate::filemesh::raw::{Body, FileMesh, Version, VertexArray};
use crate::io::Records;
use crate::loss::{Loss, LossKind};

use super::text_back::TextBack;

/// The target read back into a whole model: a binary body writes and reads back byte
/// for byte (the raw layer's round trip), so its model is taken from it directly; a text
/// body is written and parsed, as its numbers are rounded on the way.
pub(crate) fn read_back(file: &FileMesh) -> Result<Mesh> {
    if file.version.is_text() {
        Mesh::from_file(&FileMesh::read(&file.write()?)?)
    } else {
        Mesh::from_file(file)
    }
}

/// Appends to `out` what converting `before` into `file` (its `target` version) lost:
/// [`compare`] with `file` read back, without copying its big arrays where it can.
///
/// The vertices, faces and envelopes of a binary target are compared where they lie in
/// `file` (a Draco core mesh is decoded); only the small parts (skeleton, LODs, FACS,
/// HSR flags, what the file stored) are read into a model. For a chunked source, the
/// chunks writing it again would give are planned from those arrays too, the COREMESH
/// as a choice ([`CorePlan`]) rather than a copy, the Draco work shared between the
/// source's plan and the target's ([`DracoMemo`]). A text target is worked out from
/// `before` ([`compare_text`]); a target whose stored skin would be laid out anew is
/// read back whole. `file` is left as it was (unless this fails).
///
/// `warm` holds Draco work done before the target was built ([`Mesh::warm_draco`]).
pub(crate) fn compare_file(
    before: &Mesh,
    file: &mut FileMesh,
    target: Version,
    out: &mut Vec<Loss>,
    warm: &DracoMemo<'_>,
) -> Result<()> {
    if target.is_text() {
        return compare_text(before, target, out, warm);
    }
    let mut arrays = Arrays::take(file);
    let done = in_place(before, file, &mut arrays, target, out, warm);
    arrays.put_back(file);
    if done? {
        Ok(())
    } else {
        compare_with(before, &read_back(file)?, target, out, warm)
    }
}

/// [`compare`] of `before` with the text file `before` writes as `target`, worked out
/// number by number without writing it ([`TextBack`]): the text is never held.
pub(crate) fn compare_text(
    before: &Mesh,
    target: Version,
    out: &mut Vec<Loss>,
    warm: &DracoMemo<'_>,
) -> Result<()> {
    compare_with(before, &TextBack::new(before, target)?, target, out, warm)
}

/// [`compare`] of `before` with `file`, whose big arrays are in `arrays`; false (and
/// nothing reported) when the comparison needs the whole model.
fn in_place(
    before: &Mesh,
    file: &FileMesh,
    arrays: &mut Arrays,
    target: Version,
    out: &mut Vec<Loss>,
    warm: &DracoMemo<'_>,
) -> Result<bool> {
    // The small parts, read as the whole model would read them.
    let mut light = Mesh::from_file(file)?;
    // Dropped first, so the stored skin it shares is the light mesh's alone and
    // takes the envelopes in place.
    light.skinning = None;
    if let Some(s) = light.stored.skin.as_mut() {
        std::sync::Arc::make_mut(s).envelopes = std::mem::take(&mut arrays.envelopes);
    }
    let decoded;
    let core_blob = match &arrays.core {
        Core::Chunk(_, data) => match data.as_ref() {
            ChunkData::CoreMeshV2(c) => Some(c.draco.as_slice()),
            _ => None,
        },
        _ => None,
    };
    let (vertices, faces): (Verts<'_>, &[[u32; 3]]) = match &arrays.core {
        Core::None => (Verts::V40(&[]), &[]),
        Core::V2(v, f) => (
            match v {
                VertexArray::Size36(v) => Verts::V36(v),
                VertexArray::Size40(v) => Verts::V40(v),
            },
            bytemuck::cast_slice(f.as_slice()),
        ),
        Core::Plain(v, f) => (Verts::V40(v), bytemuck::cast_slice(f.as_slice())),
        Core::Chunk(_, data) => match data.as_ref() {
            ChunkData::CoreMeshV1(c) => (
                Verts::V40(&c.vertices),
                bytemuck::cast_slice(c.faces.as_slice()),
            ),
            ChunkData::CoreMeshV2(c) => match warm.decoded_exactly(&c.draco) {
                // A bitstream the Draco work done before decoded: the arrays it gave.
                Some((v, f)) => (Verts::V40(v), bytemuck::cast_slice(f)),
                None => {
                    decoded = c.decode(&Limits::default())?;
                    (
                        Verts::V40(&decoded.vertices),
                        bytemuck::cast_slice(decoded.faces.as_slice()),
                    )
                }
            },
            _ => (Verts::V40(&[]), &[]),
        },
    };
    let view = View {
        same_skinning: same_skinning(before, &light)?,
        light,
        vertices,
        faces,
        core_blob,
    };
    let done = view.describes_its_skin();
    if done {
        compare_with(before, &view, target, out, warm)?;
    }
    let mut light = view.light;
    if let Some(s) = light.stored.skin.as_mut() {
        arrays.envelopes = std::mem::take(&mut std::sync::Arc::make_mut(s).envelopes);
    }
    Ok(done)
}

/// Whether the skinning `light`'s stored skin resolves to is `before`'s (as
/// `before.skinning == after.skinning` of the whole model), without building it.
fn same_skinning(before: &Mesh, light: &Mesh) -> Result<bool> {
    let Some(s) = light.stored.skin.as_ref().filter(|s| !s.bones.is_empty()) else {
        return Ok(before.skinning.is_none());
    };
    // The same stored envelopes, subsets and bone count resolve alike: no need to
    // resolve either.
    if let Some(src) = before.skinning.as_ref().and_then(|k| k.source()) {
        if src.bones.len() == s.bones.len()
            && src.envelopes == s.envelopes
            && src.subsets == s.subsets
        {
            return Ok(true);
        }
    }
    let b = before.skinning.as_deref();
    let mut same = b.is_some_and(|b| b.len() == s.envelopes.len());
    let mut k = 0;
    super::each_skin(&s.envelopes, &s.subsets, s.bones.len(), |skin| {
        same = same && b.and_then(|b| b.get(k)) == Some(&skin);
        k += 1;
    })?;
    Ok(same)
}

/// The big arrays of a binary file, taken out while its small parts are read.
#[derive(Default)]
struct Arrays {
    core: Core,
    /// The envelopes of the 4.00–5.00 body, or of the first SKINNING chunk.
    envelopes: Records<Envelope>,
    /// The index of that SKINNING chunk.
    skin_chunk: Option<usize>,
}

/// Where a file's vertices and faces were taken from.
#[derive(Default)]
enum Core {
    /// Text, or a chunked file without a core mesh.
    #[default]
    None,
    /// A 2.00/3.0x body.
    V2(VertexArray, Records<Face>),
    /// A 4.00–5.00 body.
    Plain(Records<Vertex>, Records<Face>),
    /// The first COREMESH chunk (its index and payload).
    Chunk(usize, Box<ChunkData>),
}

impl Arrays {
    fn take(file: &mut FileMesh) -> Arrays {
        let mut a = Arrays::default();
        match &mut file.body {
            Body::V1(_) => {}
            Body::V2(b) => {
                let empty = match &b.vertices {
                    VertexArray::Size36(_) => VertexArray::Size36(Records::default()),
                    VertexArray::Size40(_) => VertexArray::Size40(Records::default()),
                };
                a.core = Core::V2(
                    std::mem::replace(&mut b.vertices, empty),
                    std::mem::take(&mut b.faces),
                );
            }
            Body::V4(b) => {
                a.core = Core::Plain(
                    std::mem::take(&mut b.vertices),
                    std::mem::take(&mut b.faces),
                );
                a.envelopes = std::mem::take(&mut b.envelopes);
            }
            Body::V6(b) => {
                let core = b.chunks.iter().position(|c| {
                    matches!(c.data, ChunkData::CoreMeshV1(_) | ChunkData::CoreMeshV2(_))
                });
                if let Some(c) = core.and_then(|i| b.chunks.get_mut(i).map(|c| (i, c))) {
                    let empty = ChunkData::CoreMeshV1(CoreMeshV1::default());
                    let data = std::mem::replace(&mut c.1.data, empty);
                    a.core = Core::Chunk(c.0, Box::new(data));
                }
                let skin = b
                    .chunks
                    .iter()
                    .position(|c| matches!(c.data, ChunkData::SkinningV1(_)));
                if let Some(i) = skin {
                    if let Some(ChunkData::SkinningV1(s)) = b.chunks.get_mut(i).map(|c| &mut c.data)
                    {
                        a.envelopes = std::mem::take(&mut s.envelopes);
                        a.skin_chunk = Some(i);
                    }
                }
            }
        }
        a
    }

    fn put_back(self, file: &mut FileMesh) {
        match (&mut file.body, self.core) {
            (Body::V2(b), Core::V2(v, f)) => {
                b.vertices = v;
                b.faces = f;
            }
            (Body::V4(b), Core::Plain(v, f)) => {
                b.vertices = v;
                b.faces = f;
                b.envelopes = self.envelopes;
            }
            (Body::V6(b), core) => {
                if let (Core::Chunk(i, data), _) = (core, ()) {
                    if let Some(c) = b.chunks.get_mut(i) {
                        c.data = *data;
                    }
                }
                if let Some(ChunkData::SkinningV1(s)) = self
                    .skin_chunk
                    .and_then(|i| b.chunks.get_mut(i))
                    .map(|c| &mut c.data)
                {
                    s.envelopes = self.envelopes;
                }
            }
            _ => {}
        }
    }
}

/// A binary target's vertices, as they lie in the file.
enum Verts<'a> {
    V36(&'a [Vertex36]),
    V40(&'a [Vertex]),
}

/// The target read back for [`compare`] without copying its arrays: the small parts as
/// a model, the vertices, faces and skinning where they lie.
struct View<'a> {
    /// The file's model without vertices, faces and resolved skinning.
    light: Mesh,
    vertices: Verts<'a>,
    faces: &'a [[u32; 3]],
    /// Whether the file's skinning is the source's.
    same_skinning: bool,
    /// The Draco bitstream of the file's COREMESH, if it has one (`light` was read
    /// without it).
    core_blob: Option<&'a [u8]>,
}

impl View<'_> {
    /// Whether the file's stored skin describes its own skeleton, skinning and faces, so
    /// that writing it again reuses it (else [`Mesh::skin_for`] builds a skin from the
    /// whole model). The skeleton and skinning are read from that skin: they match it.
    fn describes_its_skin(&self) -> bool {
        let Some(s) = &self.light.stored.skin else {
            return true;
        };
        let n = self.vertex_count();
        let envelopes = if s.bones.is_empty() {
            s.envelopes.is_empty()
        } else {
            s.envelopes.len() == n
        };
        envelopes && super::convert::subsets_fit(&s.subsets, self.faces, n)
    }
}

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

/// The target read back, as [`compare`] sees it: a whole model, a [`View`], or a text
/// target worked out from the source ([`super::text_back::TextBack`]).
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

impl Back for View<'_> {
    fn model(&self) -> &Mesh {
        &self.light
    }
    fn vertex_count(&self) -> usize {
        match self.vertices {
            Verts::V36(v) => v.len(),
            Verts::V40(v) => v.len(),
        }
    }
    fn vertex(&self, i: usize) -> Option<MeshVertex> {
        match self.vertices {
            Verts::V36(v) => v.get(i).map(|&v| super::vertex(&v.into())),
            Verts::V40(v) => v.get(i).map(super::vertex),
        }
    }
    fn faces(&self) -> &[[u32; 3]] {
        self.faces
    }
    fn same_skinning(&self, _: &Mesh) -> bool {
        self.same_skinning
    }
    fn vertex_size(&self, v: Version) -> u8 {
        super::convert::vertex_size(v, self.light.stored.vertex_size, || match self.vertices {
            Verts::V36(v) => v.iter().all(|&v| Vertex::from(v).color == [255; 4]),
            Verts::V40(v) => v.iter().all(|v| v.color == [255; 4]),
        })
    }
    fn lod_offsets(&self) -> Vec<u32> {
        self.light.lod_offsets_with(self.faces.len())
    }
    fn skin(&self) -> Result<Cow<'_, SkinningV1>> {
        // A stored skin describes the file (checked before comparing); without one, the
        // model has no skeleton and no skinning, and the skin built for it is empty.
        match &self.light.stored.skin {
            Some(s) => Ok(Cow::Borrowed(s)),
            None => self.light.skin_for(),
        }
    }
    fn plan<'s>(
        &'s self,
        v: Version,
        options: &WriteOptions,
        memo: &mut DracoMemo<'s>,
        with_core: bool,
    ) -> Result<Planned<'s>> {
        let faces: &[Face] = bytemuck::cast_slice(self.faces);
        // The file's own COREMESH choice, as reading it would record it.
        let stored = match self.core_blob {
            Some(b) => CoreStored::Draco(b),
            None => CoreStored::of(self.light.stored.core.as_ref()),
        };
        let mut core = None;
        let chunks =
            self.light
                .plan_chunks_with(&|| self.lod_offsets(), &|| self.skin(), &mut || {
                    if !with_core {
                        return Ok(planned_core());
                    }
                    let plan = match self.vertices {
                        Verts::V40(vertices) => {
                            core_plan(vertices, faces, stored, v, options, memo)?
                        }
                        Verts::V36(v36) => {
                            // 36-byte vertices widened for the plan, which keeps no reference
                            // to them; the work done before is looked up (by the arrays'
                            // bytes), so a bitstream already made for them is not made again.
                            let vertices: Vec<Vertex> = v36.iter().map(|&x| x.into()).collect();
                            let mut local = DracoMemo::child(memo);
                            match core_plan(&vertices, faces, stored, v, options, &mut local)? {
                                CorePlan::Uncompressed => CorePlan::Uncompressed,
                                CorePlan::Draco(b) => CorePlan::Draco(match (stored, b) {
                                    (CoreStored::Draco(s), b) if b.is(s) => Blob::Stored(s),
                                    (_, b) => b.detached(),
                                }),
                            }
                        }
                    };
                    core = Some(plan);
                    Ok(planned_core())
                })?;
        Ok((chunks, core))
    }
}

/// Appends to `out` what converting `before` to `target` lost, `after` being the target
/// read back.
#[cfg(test)]
pub(crate) fn compare(
    before: &Mesh,
    after: &impl Back,
    target: Version,
    out: &mut Vec<Loss>,
) -> Result<()> {
    compare_with(before, after, target, out, &DracoMemo::default())
}

/// [`compare`] reusing the Draco work in `warm`.
fn compare_with(
    before: &Mesh,
    after: &impl Back,
    target: Version,
    out: &mut Vec<Loss>,
    warm: &DracoMemo<'_>,
) -> Result<()> {
    let mut loss = |kind, detail: String| out.push(Loss { kind, detail });
    let faces_kept = geometry(before, after, target, &mut loss);
    let lod_info = |m: &Mesh| (m.lods.lod_type, m.lods.num_high_quality_lods);
    let a = after.model();
    if lod_info(before) != lod_info(a) {
        loss(
            LossKind::LodInfo,
            format!(
                "lodType {} and numHighQualityLODs {} ({target} has neither)",
                before.lods.lod_type, before.lods.num_high_quality_lods
            ),
        );
    }
    let skeleton_kept = before.skeleton.same_bits(&a.skeleton);
    if !skeleton_kept {
        let detail = if a.skeleton.is_empty() {
            format!("{} bones ({target} has no skeleton)", before.skeleton.len())
        } else {
            format!("{} bones change", before.skeleton.len())
        };
        loss(LossKind::Skeleton, detail);
    }
    let skinning_kept = after.same_skinning(before);
    if !skinning_kept {
        let n = before.skinning.as_ref().map_or(0, |s| s.len());
        loss(LossKind::Skinning, format!("skinning of {n} vertices"));
    }
    let facs_kept = before.facs.same_bits(&a.facs);
    if !facs_kept {
        let detail = match (&before.facs, &a.facs) {
            (Some(_), None) => format!("FACS data ({target} has none)"),
            (Some(b), Some(a)) => {
                let changed = b
                    .poses
                    .iter()
                    .flatten()
                    .zip(a.poses.iter().flatten())
                    .map(|(x, y)| {
                        x.position
                            .iter()
                            .chain(&x.rotation)
                            .zip(y.position.iter().chain(&y.rotation))
                            .filter(|(p, q)| !p.same_bits(q))
                            .count()
                    })
                    .sum::<usize>();
                format!("{changed} FACS pose values change when quantized")
            }
            _ => "FACS data changes".to_string(),
        };
        loss(LossKind::Facs, detail);
    }
    let hsr_kept = before.hsr_always_visible == a.hsr_always_visible;
    if !hsr_kept {
        let n = before.hsr_always_visible.as_ref().map_or(0, Vec::len);
        loss(
            LossKind::Hsr,
            format!("{n} HSR always-visible flags ({target} has none)"),
        );
    }
    let Some(source) = before.stored.version else {
        return Ok(());
    };
    if source.is_text() {
        // How a text file prints its numbers is not data: it is kept between 1.00 and
        // 1.01, and not reported when going to a binary version.
        return Ok(());
    }
    let kept = Kept {
        faces: faces_kept,
        skin: skeleton_kept && skinning_kept,
        facs: facs_kept,
        hsr: hsr_kept,
    };
    layout(before, after, source, target, &kept, &mut loss, warm)
}

/// Which values survived, so their layout is worth comparing.
struct Kept {
    faces: bool,
    skin: bool,
    facs: bool,
    hsr: bool,
}

/// Compares vertices, faces and text `w`; true when the faces (and vertex indexing) are
/// unchanged.
fn geometry(
    before: &Mesh,
    after: &impl Back,
    target: Version,
    loss: &mut impl FnMut(LossKind, String),
) -> bool {
    let lod0 = before.lod0_faces();
    let mut kept = true;
    // Pairs of (vertex before, vertex after) that should hold the same values.
    let corners = lod0.iter().flatten().map(|&i| i as usize).enumerate();
    if target.is_text() {
        let in_order =
            before.vertices.len() == lod0.len() * 3 && corners.clone().all(|(k, i)| k == i);
        if !in_order {
            kept = false;
            loss(
                LossKind::VertexSharing,
                format!(
                    "{} vertices become {} face corners ({target} has one vertex per corner)",
                    before.vertices.len(),
                    lod0.len() * 3
                ),
            );
        }
    } else {
        if before.vertices.len() != after.vertex_count() {
            kept = false;
            loss(
                LossKind::Values,
                format!(
                    "{} vertices become {}",
                    before.vertices.len(),
                    after.vertex_count()
                ),
            );
        }
    }
    let expected: &[[u32; 3]] = if target.has_lods() {
        &before.faces
    } else {
        lod0
    };
    let dropped = before.faces.len() - expected.len();
    if dropped > 0 {
        kept = false;
        loss(
            LossKind::Lods,
            format!("{dropped} faces of LODs other than LOD 0 ({target} has no LODs)"),
        );
    }
    if !target.is_text() && after.faces() != expected {
        kept = false;
        loss(LossKind::Values, "the faces change".to_string());
    }
    if target.is_text() {
        vertices(before, after, corners.map(|(k, i)| (i, k)), target, loss);
    } else {
        let n = before.vertices.len().min(after.vertex_count());
        vertices(before, after, (0..n).map(|i| (i, i)), target, loss);
    }
    kept
}

/// Counts, per attribute, the values that differ between paired vertices.
fn vertices(
    before: &Mesh,
    after: &impl Back,
    pairs: impl Iterator<Item = (usize, usize)>,
    target: Version,
    loss: &mut impl FnMut(LossKind, String),
) {
    // Per attribute: vertices whose value changed; and numbers that changed, finite or
    // not.
    let (mut pos, mut nrm, mut uv, mut tan, mut col, mut ws) = (0, 0, 0, 0, 0, 0);
    let (mut non_finite, mut numbers) = (0usize, 0usize);
    for (i, j) in pairs {
        let d = after.diff(before, i, j);
        pos += usize::from(d.changed & VertexDiff::POSITION != 0);
        nrm += usize::from(d.changed & VertexDiff::NORMAL != 0);
        uv += usize::from(d.changed & VertexDiff::UV != 0);
        ws += usize::from(d.changed & VertexDiff::W != 0);
        tan += usize::from(d.changed & VertexDiff::TANGENT != 0);
        col += usize::from(d.changed & VertexDiff::COLOR != 0);
        numbers += usize::from(d.numbers);
        non_finite += usize::from(d.non_finite);
    }
    if col > 0 {
        loss(
            LossKind::Colors,
            format!("colours of {col} vertices ({target} has no vertex colours)"),
        );
    }
    if tan > 0 {
        loss(
            LossKind::Tangents,
            format!("tangents of {tan} vertices ({target} has no tangents)"),
        );
    }
    if ws > 0 {
        loss(
            LossKind::TextW,
            format!("the w of {ws} texture coordinates (only 1.x holds it)"),
        );
    }
    if non_finite > 0 {
        let how = if target.is_text() {
            "written as 0: text cannot hold them"
        } else {
            "replaced by 0 before Draco quantization"
        };
        loss(
            LossKind::NonFinite,
            format!("{non_finite} numbers that are not finite (NaN or infinite), {how}"),
        );
    }
    if numbers == 0 {
        return;
    }
    if target.is_text() {
        loss(
            LossKind::TextPrecision,
            format!("{numbers} numbers rounded to the text's significant digits"),
        );
    } else if target == Version::V7_00 && pos == 0 && uv == 0 {
        loss(
            LossKind::NormalPrecision,
            format!("normals of {nrm} vertices quantized to 11 bits by Draco"),
        );
    } else {
        loss(
            LossKind::Values,
            format!(
                "{numbers} numbers change (positions of {pos}, normals of {nrm}, UVs of {uv} vertices)"
            ),
        );
    }
}

/// Compares, part by part, what writing `source` would give from each mesh.
fn layout(
    before: &Mesh,
    after: &impl Back,
    source: Version,
    target: Version,
    kept: &Kept,
    loss: &mut impl FnMut(LossKind, String),
    warm: &DracoMemo<'_>,
) -> Result<()> {
    let back = format!("writing {source} again from {target}");
    if !source.has_skinning() && !source.is_chunked() {
        let (b, a) = (before.vertex_size_for(source), after.vertex_size(source));
        if b != a {
            loss(
                LossKind::Layout,
                format!(
                    "the {b}-byte vertices of the {source} file ({target} cannot record the \
                     vertex size; {back} gives {a}-byte vertices)"
                ),
            );
        }
    }
    if source.has_lods() && !source.has_skinning() && !source.is_chunked() {
        let (b, a) = (
            before.sizeof_lod_offset_for(),
            after.model().sizeof_lod_offset_for(),
        );
        if b != a {
            loss(
                LossKind::HeaderBytes,
                format!("sizeof_LodOffset {b} ({target} has no such field)"),
            );
        }
    }
    let (b, a) = (
        before.header_tail_for(source),
        after.model().header_tail_for(source),
    );
    if b != a {
        loss(
            LossKind::HeaderBytes,
            format!(
                "{} header bytes beyond the known fields of {source}'s header ({target} has \
                 no place for them)",
                b.len()
            ),
        );
    }
    if source.has_skinning() && !source.is_chunked() {
        let (b, a) = (before.padding_for(), after.model().padding_for());
        if b != a {
            loss(
                LossKind::HeaderBytes,
                format!("the header's padding byte {b} ({target} has no padding byte)"),
            );
        }
    }
    let (b, a) = (
        before.trailing_for(source),
        after.model().trailing_for(source),
    );
    if b != a {
        loss(
            LossKind::TrailingBytes,
            format!(
                "{} bytes after the last structure ({target} has no place for them)",
                b.len()
            ),
        );
    }
    if source.has_lods() && kept.faces {
        let (b, a) = (before.lod_offsets_for(), after.lod_offsets());
        if b != a {
            loss(
                LossKind::Layout,
                format!("LOD offsets {b:?} ({back} gives {a:?})"),
            );
        }
    }
    if source.has_skinning() && kept.skin && !same_skin(&*before.skin_for()?, &*after.skin()?) {
        loss(
            LossKind::Layout,
            format!(
                "the subsets, bone name table and envelope bytes as stored ({back} lays the \
                 skinning out anew)"
            ),
        );
    }
    if source.has_facs() && kept.facs {
        let (b, a) = (
            before.facs_section_for()?,
            after.model().facs_section_for()?,
        );
        if !same_facs(b.as_ref(), a.as_ref()) {
            let detail = match b.as_ref().map(|s| &s.facs) {
                Some(Facs::Opaque(bytes)) => format!(
                    "{} bytes of FACS data the model does not read ({target} has no place \
                     for them)",
                    bytes.len()
                ),
                _ => format!(
                    "the FACS block as stored (facsDataFormat and quantization; {back} \
                     writes it anew)"
                ),
            };
            loss(LossKind::Facs, detail);
        }
    }
    if !source.is_chunked() {
        return Ok(());
    }
    if kept.hsr {
        let (b, a) = (before.hsr_for()?, after.model().hsr_for()?);
        if b != a {
            loss(
                LossKind::Layout,
                "the padding bits of the HSR flags".to_string(),
            );
        }
    }
    let options = WriteOptions::default();
    let mut memo = DracoMemo::child(warm);
    // The COREMESH encodings are compared only while the faces are kept.
    let (b, b_core) = before.plan(source, &options, &mut memo, kept.faces)?;
    let (a, a_core) = after.plan(source, &options, &mut memo, kept.faces)?;
    // Chunks kept whole: each one the target's file does not give back is lost.
    let kept_of = |p: &[(Option<ChunkKind>, Chunk)]| -> Vec<Chunk> {
        p.iter()
            .filter(|(k, _)| k.is_none())
            .map(|(_, c)| c.clone())
            .collect()
    };
    let mut remaining = kept_of(&a);
    let lost: Vec<String> = kept_of(&b)
        .into_iter()
        .filter(|c| match remaining.iter().position(|r| r == c) {
            Some(i) => {
                remaining.remove(i);
                false
            }
            None => true,
        })
        .map(|c| {
            format!(
                "{} v{} ({} bytes)",
                chunk_type_name(&c.chunk_type),
                c.chunk_version,
                c.data.byte_size()
            )
        })
        .collect();
    if !lost.is_empty() {
        loss(
            LossKind::Chunks,
            format!(
                "chunks the model does not interpret: {} ({target} has no place for them)",
                lost.join(", ")
            ),
        );
    } else if names(&b) != names(&a) {
        loss(
            LossKind::Chunks,
            format!(
                "the chunk order ({} in {source}; {back} gives {})",
                names(&b),
                names(&a)
            ),
        );
    }
    let same_core = match (&b_core, &a_core) {
        (Some(b), Some(a)) => b.same(a),
        (b, a) => b.is_none() && a.is_none(),
    };
    if kept.faces && !same_core {
        loss(
            LossKind::Layout,
            format!(
                "the COREMESH encoding as stored ({}; {back} gives {})",
                core_name(b_core.as_ref()),
                core_name(a_core.as_ref())
            ),
        );
    }
    Ok(())
}

/// Chunk types and versions in order (the core mesh's version is its encoding, compared
/// on its own).
fn names(chunks: &[(Option<ChunkKind>, Chunk)]) -> String {
    chunks
        .iter()
        .map(|(k, c)| match k {
            Some(ChunkKind::CoreMesh) => chunk_type_name(&c.chunk_type),
            _ => format!("{} v{}", chunk_type_name(&c.chunk_type), c.chunk_version),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn core_name(core: Option<&CorePlan<'_>>) -> String {
    match core {
        Some(CorePlan::Uncompressed) => "COREMESH v1".to_string(),
        Some(CorePlan::Draco(b)) => format!("a {}-byte Draco bitstream", b.len()),
        None => "no COREMESH".to_string(),
    }
}

/// Byte equality of two skins (floats by their bits).
fn same_skin(a: &SkinningV1, b: &SkinningV1) -> bool {
    bytemuck::cast_slice::<_, u8>(&a.bones) == bytemuck::cast_slice::<_, u8>(&b.bones)
        && a.bone_names == b.bone_names
        && a.envelopes == b.envelopes
        && a.subsets == b.subsets
}

/// Byte equality of two FACS sections, `facsDataFormat` included.
fn same_facs(a: Option<&StoredFacs>, b: Option<&StoredFacs>) -> bool {
    let bytes = |f: &Facs| -> Option<Vec<u8>> {
        let mut c = std::io::Cursor::new(Vec::new());
        binrw::BinWrite::write_le(f, &mut c).ok()?;
        Some(c.into_inner())
    };
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => {
            a.format.unwrap_or(1) == b.format.unwrap_or(1) && bytes(&a.facs) == bytes(&b.facs)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::super::convert::{CoreMesh, WriteOptions};
    use super::super::Mesh;
    use crate::filemesh::raw::Version;
    use std::path::{Path, PathBuf};

    /// Every FileMesh fixture, and the corpus's FileMeshes when it is there.
    fn files() -> Vec<PathBuf> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut dirs: Vec<PathBuf> = ["filemesh", "chunked", "text"]
            .iter()
            .map(|s| root.join("roundtrip-fixtures").join(s))
            .collect();
        dirs.push(crate::test_corpus_roblox());
        let mut out: Vec<PathBuf> = dirs
            .iter()
            .filter_map(|d| std::fs::read_dir(d).ok())
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "mesh"))
            .collect();
        out.sort();
        out
    }

    /// The meshes compared: each file as read, and edited so that what it stored no
    /// longer describes it (a moved vertex, a changed weight).
    fn meshes(m: Mesh) -> Vec<Mesh> {
        let mut moved = m.clone();
        if let Some(v) = moved.vertices.first_mut() {
            v.position[0] += 1.0;
            v.color = [1, 2, 3, 4];
        }
        let mut reweighted = m.clone();
        if let Some(s) = reweighted.skinning.as_mut().and_then(|s| s.first_mut()) {
            s.influences[0].weight = s.influences[0].weight.wrapping_sub(1);
        }
        let mut fresh = m.clone();
        fresh.stored = Default::default();
        // One vertex per corner of LOD 0, in order, as a text file holds them: the text
        // read back then keeps the faces, and its COREMESH is planned.
        let mut unshared = m.clone();
        let corners: Vec<_> = m
            .lod0_faces()
            .iter()
            .flatten()
            .filter_map(|&i| m.vertices.get(i as usize).copied())
            .collect();
        unshared.faces = (0..corners.len() as u32 / 3)
            .map(|f| [3 * f, 3 * f + 1, 3 * f + 2])
            .collect();
        unshared.vertices = corners;
        unshared.lods = Default::default();
        unshared.skinning = None;
        unshared.hsr_always_visible = None;
        vec![m, moved, reweighted, fresh, unshared]
    }

    /// The comparison that reads the target in place reports exactly what reading it
    /// back into a whole model reports (same losses, same order, same file, same errors),
    /// for every fixture and corpus FileMesh, every target version and core mesh choice.
    #[test]
    fn in_place_comparison_matches_the_read_back_model() {
        let files = files();
        assert!(files.len() > 20, "fixtures missing: {}", files.len());
        let mut compared = 0;
        for path in files {
            let bytes = std::fs::read(&path).unwrap();
            let Ok(mesh) = Mesh::read(&bytes) else {
                continue;
            };
            for m in meshes(mesh) {
                for v in Version::ALL {
                    for core_mesh in [CoreMesh::Auto, CoreMesh::Draco] {
                        if core_mesh == CoreMesh::Draco && v != Version::V7_00 {
                            continue;
                        }
                        let o = WriteOptions { core_mesh };
                        let new = m.convert_with(v, &o).map_err(|e| e.to_string());
                        let old = m.convert_by_model(v, &o).map_err(|e| e.to_string());
                        assert_eq!(new, old, "{} to {v} ({core_mesh:?})", path.display());
                        compared += 1;
                    }
                }
            }
        }
        assert!(compared > 500, "{compared}");
    }
}
