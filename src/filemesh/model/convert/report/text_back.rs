//! A text (1.00/1.01) target as reading it back would give it, worked out from the
//! source mesh number by number, without writing the text.
//!
//! A text file holds one vertex per face corner of LOD 0, each number printed with the
//! file's [`TextFormat`] and read back to the nearest `f32`
//! ([`TextFormat::read_back`]). Corners that share a source vertex read back alike, so
//! the difference from the source is worked out once per source vertex. The text read
//! back has no skeleton, skinning, FACS or HSR flags and stores nothing but its format:
//! those parts come from a model read from a text file without faces. The vertex and
//! face arrays of the text are built only when a comparison asks for them whole (the
//! COREMESH plan of a 6.00/7.00 source whose vertices are already one per corner).

use std::borrow::Cow;
use std::cell::OnceCell;

use super::back::{planned_core, Back, Planned, VertexDiff};
use crate::error::Result;
use crate::filemesh::model::convert::core_mesh::DracoMemo;
use crate::filemesh::model::convert::plan::{vertex_size, WriteOptions};
use crate::filemesh::model::convert::write::text_vertex;
use crate::filemesh::model::{Mesh, MeshVertex};
use crate::filemesh::raw::chunks::SkinningV1;
use crate::filemesh::raw::text::{FileMeshV1, TextFormat};
use crate::filemesh::raw::{Body, FileMesh, Version};

/// The text a mesh writes as `target`, read back (see the [module docs](self)).
pub(super) struct TextBack<'m> {
    before: &'m Mesh,
    target: Version,
    format: TextFormat,
    /// The `w` of each source vertex's texture coordinate, when it has them.
    w: &'m [f32],
    /// The V of each source vertex as the text it was read from gave it, if it was.
    text_v: &'m [f32],
    /// The model of a text file of this format without faces.
    light: Mesh,
    /// How each source vertex reads back, by source vertex.
    diffs: Vec<VertexDiff>,
    /// Face corners of LOD 0: the text's vertices.
    corners: usize,
    /// The whole read-back model, once asked for.
    full: OnceCell<Mesh>,
}

impl<'m> TextBack<'m> {
    /// The text `before` writes as `target` (a text version), read back.
    pub(super) fn new(before: &'m Mesh, target: Version) -> Result<TextBack<'m>> {
        let (format, w, text_v) = before.text_format_w_and_v();
        let light = Mesh::from_file(&FileMesh {
            version: target,
            body: Body::V1(FileMeshV1::with_format(Vec::new(), format)),
        })?;
        let mut back = TextBack {
            before,
            target,
            format,
            w,
            text_v,
            light,
            diffs: Vec::new(),
            corners: before.lod0_faces().len() * 3,
            full: OnceCell::new(),
        };
        let (mut scratch, mut printed) = (String::new(), Vec::new());
        let mut diffs = crate::Spare::vec_for(before.vertices.len());
        for (i, b) in before.vertices.iter().enumerate() {
            let a = back.read_back(i, &mut scratch, &mut printed);
            diffs.push(VertexDiff::of(b, back.w_of(i), &a.0, a.1));
        }
        back.diffs = diffs;
        Ok(back)
    }

    /// The `w` of source vertex `i`.
    fn w_of(&self, i: usize) -> f32 {
        self.w.get(i).copied().unwrap_or(0.0)
    }

    /// Source vertex `i` as the text holds it, read back, and its `w`.
    fn read_back(
        &self,
        i: usize,
        scratch: &mut String,
        printed: &mut Vec<u8>,
    ) -> (MeshVertex, f32) {
        let Some(v) = self.before.vertices.get(i) else {
            return (
                crate::filemesh::model::text_model_vertex(&Default::default(), self.target),
                0.0,
            );
        };
        let mut t = text_vertex(v, self.w_of(i), self.text_v.get(i).copied(), self.target);
        // `text_vertex` leaves only finite numbers, which read back.
        for x in t.position.iter_mut().chain(&mut t.normal).chain(&mut t.uvw) {
            *x = self.format.read_back(*x, scratch, printed).unwrap_or(*x);
        }
        (
            crate::filemesh::model::text_model_vertex(&t, self.target),
            t.uvw[2],
        )
    }

    /// The source vertex of text vertex `j` (face corner `j` of LOD 0).
    fn source(&self, j: usize) -> Option<usize> {
        let face = self.before.lod0_faces().get(j / 3)?;
        face.get(j % 3).map(|&i| i as usize)
    }

    /// The whole model reading the text gives.
    fn full(&self) -> &Mesh {
        self.full.get_or_init(|| {
            let (mut scratch, mut printed) = (String::new(), Vec::new());
            let mut vertices = crate::Spare::vec_for(self.corners);
            let mut w = crate::Spare::vec_for(self.corners);
            for j in 0..self.corners {
                let (v, vw) = self.read_back(
                    self.source(j).unwrap_or(usize::MAX),
                    &mut scratch,
                    &mut printed,
                );
                vertices.push(v);
                w.push(vw);
            }
            let mut m = self.light.clone();
            m.vertices = vertices;
            m.faces = (0..self.corners as u32 / 3)
                .map(|f| [3 * f, 3 * f + 1, 3 * f + 2])
                .collect();
            if let Some(t) = m.stored.text.as_mut() {
                t.w = w;
            }
            m
        })
    }
}

impl Back for TextBack<'_> {
    fn model(&self) -> &Mesh {
        &self.light
    }
    fn vertex_count(&self) -> usize {
        self.corners
    }
    fn vertex(&self, j: usize) -> Option<MeshVertex> {
        let i = self.source(j)?;
        Some(self.read_back(i, &mut String::new(), &mut Vec::new()).0)
    }
    fn faces(&self) -> &[[u32; 3]] {
        &self.full().faces
    }
    fn w(&self, j: usize) -> f32 {
        match self.source(j) {
            Some(i) => self.read_back(i, &mut String::new(), &mut Vec::new()).1,
            None => 0.0,
        }
    }
    fn diff(&self, before: &Mesh, i: usize, j: usize) -> VertexDiff {
        match self.diffs.get(i) {
            Some(&d) if std::ptr::eq(before, self.before) && self.source(j) == Some(i) => d,
            _ => {
                let default = MeshVertex::default();
                let b = before.vertices.get(i).unwrap_or(&default);
                let a = self.vertex(j).unwrap_or(default);
                VertexDiff::of(b, Back::w(before, i), &a, self.w(j))
            }
        }
    }
    fn same_skinning(&self, before: &Mesh) -> bool {
        before.skinning == self.light.skinning
    }
    fn vertex_size(&self, v: Version) -> u8 {
        // Every text vertex is white.
        vertex_size(v, self.light.stored.vertex_size, || true)
    }
    fn lod_offsets(&self) -> Vec<u32> {
        self.light.lod_offsets_with(self.corners / 3)
    }
    fn skin(&self) -> Result<Cow<'_, SkinningV1>> {
        self.light.skin_for()
    }
    fn plan<'s>(
        &'s self,
        v: Version,
        options: &WriteOptions,
        memo: &mut DracoMemo<'s>,
        core: bool,
    ) -> Result<Planned<'s>> {
        if core {
            return self.full().plan(v, options, memo, true);
        }
        let chunks =
            self.light
                .plan_chunks_with(&|| self.lod_offsets(), &|| self.skin(), &mut || {
                    Ok(planned_core())
                })?;
        Ok((chunks, None))
    }
}
