//! The target of a conversion read back for the comparison without copying its big
//! arrays: the small parts as a model, the vertices, faces and envelopes where they lie
//! in the file ([`View`]).

use std::borrow::Cow;

use super::back::{planned_core, Back, Planned};
use crate::error::{Limits, Result};
use crate::filemesh::model::convert::core_mesh::{
    core_plan, Blob, CorePlan, CoreStored, DracoMemo,
};
use crate::filemesh::model::convert::plan::{vertex_size, WriteOptions};
use crate::filemesh::model::convert::rebuild::subsets_fit;
use crate::filemesh::model::{Mesh, MeshVertex};
use crate::filemesh::raw::chunks::{ChunkData, CoreMeshV1, SkinningV1};
use crate::filemesh::raw::records::{Envelope, Face, Vertex, Vertex36};
use crate::filemesh::raw::{Body, FileMesh, Version, VertexArray};
use crate::io::Records;

/// `compare` (the report's comparison of `before`) of `file` read back as a [`View`], its big
/// arrays (in `arrays`) where they lie; false (and `compare` not called) when the
/// comparison needs the whole model.
pub(super) fn in_place(
    before: &Mesh,
    file: &FileMesh,
    arrays: &mut Arrays,
    warm: &DracoMemo<'_>,
    compare: impl FnOnce(&View<'_>) -> Result<()>,
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
        compare(&view)?;
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
    crate::filemesh::model::each_skin(&s.envelopes, &s.subsets, s.bones.len(), |skin| {
        same = same && b.and_then(|b| b.get(k)) == Some(&skin);
        k += 1;
    })?;
    Ok(same)
}

/// The big arrays of a binary file, taken out while its small parts are read.
#[derive(Default)]
pub(super) struct Arrays {
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
    pub(super) fn take(file: &mut FileMesh) -> Arrays {
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

    pub(super) fn put_back(self, file: &mut FileMesh) {
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

/// The target read back for `compare` without copying its arrays: the small parts as
/// a model, the vertices, faces and skinning where they lie.
pub(super) struct View<'a> {
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
        envelopes && subsets_fit(&s.subsets, self.faces, n)
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
            Verts::V36(v) => v.get(i).map(|&v| crate::filemesh::model::vertex(&v.into())),
            Verts::V40(v) => v.get(i).map(crate::filemesh::model::vertex),
        }
    }
    fn faces(&self) -> &[[u32; 3]] {
        self.faces
    }
    fn same_skinning(&self, _: &Mesh) -> bool {
        self.same_skinning
    }
    fn vertex_size(&self, v: Version) -> u8 {
        vertex_size(v, self.light.stored.vertex_size, || match self.vertices {
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

#[cfg(test)]
mod tests {
    use crate::filemesh::model::convert::{CoreMesh, WriteOptions};
    use crate::filemesh::model::Mesh;
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
