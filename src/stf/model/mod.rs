//! `stf.mesh` resources: the mesh arrays an STF file's JSON points at, decoded from its
//! buffers (spec: `stf-mesh.txt`; FORMAT-NOTES "STF").
//!
//! Data model: a face is one or more triangles; a triangle is three face corners; a face
//! corner names a split; a split names a vertex (position) and carries normals, UVs and
//! colours. So `tris` holds face-corner indices, `face_corners[c]` a split, `splits[s]` a
//! vertex, and `faces[f]` the number of triangles of face `f`. Blendshapes
//! ([`StfBlendshape`]) offset vertices (and may give splits new normals).
//!
//! Buffer references come in two styles, both accepted: an integer that indexes the
//! resource's `referenced_buffers` (new files), or the buffer's id itself (old files).
//! Either way the id names `{"type": "stf.buffer.included", "index": k}`: binary buffer
//! `k`.
//!
//! A mesh is resolved and checked first, its arrays left where they lie in the buffers
//! (`MeshView`); [`meshes`] then decodes them, while `info` and `check` count and look
//! through them in place, so they fail alike and neither of the latter holds a decoded
//! copy (`docs/stf-read.md`).
//!
//! The rooms:
//!
//! - here: the decoded mesh ([`StfMesh`], [`StfBlendshape`]);
//! - `read`: the document parsed and each mesh's arrays resolved and checked where they
//!   lie ([`document`], [`meshes`], and the lean `info` and `check`);
//! - `view`: a mesh whose arrays lie in the buffers (`MeshView`), decoded or encoded
//!   value by value;
//! - `outline`: what `info` and [`StfMesh::problems`] look at, of either;
//! - `source`: a mesh as the writer reads it (`MeshSource`, one property at a time) and
//!   how a value is encoded.

pub(crate) mod outline;
mod read;
pub(crate) mod source;
#[cfg(test)]
mod tests;
mod view;

use std::borrow::Cow;

use serde::Serialize;

use super::raw::StfContainer;

use outline::{BlendOutline, Ints, Outline};
pub(crate) use read::{check, each_view, mesh_infos, meshes_and_document};
pub use read::{document, meshes, DECODE_FACTOR};

/// A decoded `stf.mesh` resource.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct StfMesh {
    /// The resource id.
    pub id: String,
    /// The resource name.
    pub name: String,
    /// Bytes per float in the buffers (4 or 8).
    pub float_width: u64,
    /// Bytes per index (1, 2, 4 or 8).
    pub indices_width: u64,
    /// Vertex positions.
    pub vertices: Vec<[f64; 3]>,
    /// Per face corner, its split.
    pub face_corners: Vec<u64>,
    /// Per split, its vertex.
    pub splits: Vec<u64>,
    /// Per split, a normal.
    pub split_normals: Option<Vec<[f64; 3]>>,
    /// Per split, an RGBA colour.
    pub split_colors: Option<Vec<[f64; 4]>>,
    /// UV sets: name and one UV per split.
    pub uvs: Vec<(String, Vec<[f64; 2]>)>,
    /// Triangles, as three face-corner indices.
    pub tris: Vec<[u64; 3]>,
    /// Per face, its number of triangles.
    pub faces: Vec<u64>,
    /// Per face, its material slot.
    pub material_indices: Option<Vec<u64>>,
    /// Material resource ids, by slot (`null` slots as `None`).
    pub material_slots: Vec<Option<String>>,
    /// Blendshapes (shape keys, morph targets), in the JSON's order; empty without.
    pub blendshapes: Vec<StfBlendshape>,
}

/// One blendshape of an `stf.mesh`: position offsets for some or all vertices, and
/// optionally the normals of some or all splits in the deformed shape.
///
/// Offsets and normals are read with the mesh's `float_width`, indices with its
/// `indices_width`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StfBlendshape {
    /// Name (empty when the JSON has none).
    pub name: String,
    /// The weight the shape is applied with by default (`default_value`, default 0).
    pub default_value: f64,
    /// Highest weight (`limit_upper`, default 1).
    pub limit_upper: f64,
    /// Lowest weight (`limit_lower`, default 0).
    pub limit_lower: f64,
    /// The vertices that [`StfBlendshape::position_offsets`] are for, in order; `None`
    /// when there is one offset per vertex.
    pub indices: Option<Vec<u64>>,
    /// Position offsets (added to the vertex positions): one per listed index, or one
    /// per vertex.
    pub position_offsets: Vec<[f64; 3]>,
    /// The splits that [`StfBlendshape::split_normals`] are for, in order; `None` when
    /// there is one normal per split.
    pub split_indices: Option<Vec<u64>>,
    /// Split normals of the deformed shape, if stored: one per listed split index, or
    /// one per split.
    pub split_normals: Option<Vec<[f64; 3]>>,
}

impl Default for StfBlendshape {
    /// No offsets, the spec's default weights (0, limits 0 to 1).
    fn default() -> Self {
        StfBlendshape {
            name: String::new(),
            default_value: 0.0,
            limit_upper: 1.0,
            limit_lower: 0.0,
            indices: None,
            position_offsets: Vec::new(),
            split_indices: None,
            split_normals: None,
        }
    }
}

impl StfBlendshape {
    /// The offset of each vertex of a mesh with `vertex_count` vertices: the listed ones
    /// from [`StfBlendshape::position_offsets`], the others zero. An index out of range
    /// (or an offset without an index) is skipped ([`StfMesh::problems`] reports it).
    pub fn vertex_offsets(&self, vertex_count: usize) -> Vec<[f64; 3]> {
        match &self.indices {
            None => {
                let mut out = self.position_offsets.clone();
                out.resize(vertex_count, [0.0; 3]);
                out
            }
            Some(indices) => {
                let mut out = vec![[0.0; 3]; vertex_count];
                for (&i, o) in indices.iter().zip(&self.position_offsets) {
                    if let Some(slot) = usize::try_from(i).ok().and_then(|i| out.get_mut(i)) {
                        *slot = *o;
                    }
                }
                out
            }
        }
    }
}

/// A mesh lent to [`crate::stf::replace_meshes`], read where it is.
impl<'a> From<&'a StfMesh> for Cow<'a, StfMesh> {
    fn from(m: &'a StfMesh) -> Self {
        Cow::Borrowed(m)
    }
}

/// A mesh given to [`crate::stf::replace_meshes`]: its arrays dropped as they are written.
impl From<StfMesh> for Cow<'_, StfMesh> {
    fn from(m: StfMesh) -> Self {
        Cow::Owned(m)
    }
}

/// A container lent to [`meshes`], read where it is.
impl<'a> From<&'a StfContainer> for Cow<'a, StfContainer> {
    fn from(c: &'a StfContainer) -> Self {
        Cow::Borrowed(c)
    }
}

/// A container given to [`meshes`]: its buffers dropped as they are decoded.
impl From<StfContainer> for Cow<'_, StfContainer> {
    fn from(c: StfContainer) -> Self {
        Cow::Owned(c)
    }
}

impl StfMesh {
    /// References that point outside their arrays, face triangle counts that do not add
    /// up, and per-split or per-vertex arrays (UV sets, blendshape offsets and normals)
    /// of the wrong length (empty: the mesh is consistent).
    pub fn problems(&self) -> Vec<String> {
        self.outline().problems()
    }

    /// What [`StfMesh::problems`] looks at (the arrays looked through where they lie,
    /// not copied).
    fn outline(&self) -> Outline<'_> {
        Outline {
            id: &self.id,
            name: &self.name,
            vertices: self.vertices.len(),
            splits: self.splits.len(),
            face_corners: self.face_corners.len(),
            tris: self.tris.len(),
            faces: self.faces.len(),
            tri_corners: Box::new(self.tris.iter().flatten().copied()),
            corner_splits: Box::new(self.face_corners.iter().copied()),
            split_vertices: Box::new(self.splits.iter().copied()),
            face_tris: Box::new(self.faces.iter().copied()),
            uvs: self
                .uvs
                .iter()
                .map(|(n, uv)| (n.as_str(), uv.len()))
                .collect(),
            normals: self.split_normals.is_some(),
            colors: self.split_colors.is_some(),
            blendshapes: self
                .blendshapes
                .iter()
                .map(|b| BlendOutline {
                    name: &b.name,
                    offsets: b.position_offsets.len(),
                    indices: b.indices.as_deref().map(Ints::of),
                    split_indices: b.split_indices.as_deref().map(Ints::of),
                    split_normals: b.split_normals.as_ref().map(Vec::len),
                })
                .collect(),
        }
    }

    /// The triangles as three vertex indices each (corner → split → vertex), or `None`
    /// where a reference is out of range.
    pub fn triangle_vertices(&self) -> Vec<Option<[u64; 3]>> {
        self.tris
            .iter()
            .map(|t| {
                let v = |c: u64| {
                    let s = *self.face_corners.get(c as usize)?;
                    self.splits.get(s as usize).copied()
                };
                Some([v(t[0])?, v(t[1])?, v(t[2])?])
            })
            .collect()
    }
}
