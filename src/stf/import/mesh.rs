//! One scene mesh built as an `stf.mesh` ([`narrow`]: its vertices, splits and
//! triangles decided), and handed to the STF writer as one more [`MeshSource`] (beside
//! the decoded model and a mesh where it lies in a file's buffers): a new file from an
//! owned scene is written straight from the scene's arrays, without the model.
//!
//! The model holds every value as `f64` or `u64`, three times the scene's `f32` and `u32`
//! arrays; here a mesh keeps the scene's arrays (moved, not copied: a mesh of one
//! primitive uses them as they are) in the widths the buffers are written with, and the
//! writer takes one property at a time, each array dropped once its buffer is made
//! (`spend`); the container's buffers are dropped in turn as its bytes are made
//! ([`StfContainer::into_bytes`](crate::stf::StfContainer::into_bytes)). So the scene and
//! the file are not held whole together: the peak is about the larger of the two, plus
//! the indices that finding shared vertices takes.
//!
//! The model of a scene mesh is made here too ([`Narrow::into_model`]: the same values,
//! widened, what [`super::mesh_model`] gives), and the source gives the writer the values
//! that model holds: each float goes through `f64` as the model holds it (which only a
//! NaN notices). A unit test checks both give the same bytes on the fixtures, the corpus
//! and hand-built scenes.

use crate::scene::{ExportMesh, Primitive};
use crate::stf::model::outline::{BlendOutline, Ints, Outline};
use crate::stf::model::source::{encoded_len, push_float, push_uint, BlendHead, MeshSource, Prop};
use crate::stf::model::{StfBlendshape, StfMesh};

/// Whether [`Narrow`] holds the mesh: its splits (with the ones triangles may be given
/// of their own) and primitives are numbered in 32 bits.
pub(crate) fn fits(m: &ExportMesh) -> bool {
    // A primitive without normals is faceted first ([`facet`]): three splits a triangle.
    let splits: usize = m
        .primitives
        .iter()
        .map(|p| match p.normals {
            Some(_) => p.positions.len(),
            None => p.triangles.len().saturating_mul(3),
        })
        .fold(0usize, usize::saturating_add);
    let tris: usize = m.primitives.iter().map(|p| p.triangles.len()).sum();
    splits
        .checked_add(tris.saturating_mul(3))
        .is_some_and(|n| n <= u32::MAX as usize)
        && m.primitives.len() <= u32::MAX as usize
}

/// One blendshape: name, default weight, and the vertices its offsets are for (`None`:
/// every vertex).
struct Blend {
    name: String,
    weight: f64,
    indices: Option<Vec<u32>>,
}

/// One scene mesh as the `stf.mesh` the model would hold, in the buffers' widths.
pub(crate) struct Narrow {
    /// The resource id (the document's `stf.mesh` this mesh is written into).
    pub(crate) id: String,
    /// The resource name.
    pub(crate) name: String,
    vertices: Vec<[f32; 3]>,
    /// Per blendshape, the offset of every vertex.
    deltas: Vec<Vec<[f32; 3]>>,
    blends: Vec<Blend>,
    /// Per split, its vertex.
    splits: Vec<u32>,
    /// Per triangle, the splits of its three face corners (face corners are numbered
    /// triangle by triangle).
    corners: Vec<[u32; 3]>,
    tris: usize,
    normals: Option<Vec<[f32; 3]>>,
    colors: Option<Vec<[f32; 4]>>,
    uvs: Vec<Vec<[f32; 2]>>,
    /// Per triangle, its primitive (with several primitives).
    material: Option<Vec<u32>>,
    slots: usize,
    /// Per vertex, its skin: four joints and their weights (when a primitive is skinned;
    /// the vertices of one that is not have no weight).
    skin: Option<Skin>,
    /// The faces (triangles) of the primitives without normals ([`facet`]), to be marked
    /// sharp.
    sharp: Vec<u32>,
}

/// Per vertex, four joints and their weights.
pub(crate) type Skin = (Vec<[u16; 4]>, Vec<[f32; 4]>);

impl Narrow {
    /// Vertices and triangles, as [`StfContainer::info`](crate::stf::StfContainer::info)
    /// counts them.
    pub(crate) fn counts(&self) -> (usize, usize) {
        (self.vertices.len(), self.tris)
    }

    /// The skin of every vertex, taken out (the writer of the mesh's own keys does not
    /// need it): `None` when no primitive of the mesh is skinned.
    pub(crate) fn take_skin(&mut self) -> Option<Skin> {
        self.skin.take()
    }

    /// The faces of the primitives without normals (faceted: shaded flat), taken out,
    /// as `sharp_face_indices` in the mesh's `indices_width` bytes each; `None` when there
    /// are none.
    pub(crate) fn take_sharp_faces(&mut self) -> Option<Vec<u8>> {
        if self.sharp.is_empty() {
            return None;
        }
        let width = crate::stf::write::indices_width(self, self.blends.len());
        let faces = std::mem::take(&mut self.sharp);
        Some(uint_bytes(faces.into_iter().map(u64::from), width))
    }

    /// The mesh as the STF model holds it ([`super::mesh_model`]): the same
    /// values, widened to `f64` and `u64`.
    pub(crate) fn into_model(self) -> StfMesh {
        let wide = |v: Vec<[f32; 3]>| v.into_iter().map(|x| x.map(f64::from)).collect();
        let Narrow {
            id,
            name,
            vertices,
            deltas,
            blends,
            splits,
            corners,
            tris,
            normals,
            colors,
            uvs,
            material,
            slots,
            skin: _,
            sharp: _,
        } = self;
        let blendshapes = blends
            .into_iter()
            .zip(deltas)
            .map(|(b, d)| {
                let position_offsets = match &b.indices {
                    Some(moving) => moving
                        .iter()
                        .map(|&i| {
                            d.get(i as usize)
                                .copied()
                                .unwrap_or_default()
                                .map(f64::from)
                        })
                        .collect(),
                    None => wide(d),
                };
                StfBlendshape {
                    name: b.name,
                    default_value: b.weight,
                    limit_upper: b.weight.max(1.0),
                    limit_lower: b.weight.min(0.0),
                    indices: b.indices.map(|m| m.into_iter().map(u64::from).collect()),
                    position_offsets,
                    ..StfBlendshape::default()
                }
            })
            .collect();
        let tris = tris as u64;
        StfMesh {
            id,
            name,
            float_width: 4,
            indices_width: 1,
            vertices: wide(vertices),
            face_corners: corners.iter().flatten().map(|&c| u64::from(c)).collect(),
            splits: splits.into_iter().map(u64::from).collect(),
            split_normals: normals.map(wide),
            split_colors: colors.map(|c| c.into_iter().map(|x| x.map(f64::from)).collect()),
            uvs: uvs
                .into_iter()
                .enumerate()
                .map(|(k, uv)| {
                    let uv = uv.into_iter().map(|x| x.map(f64::from)).collect();
                    (uv_name(k), uv)
                })
                .collect(),
            tris: (0..tris).map(|t| [3 * t, 3 * t + 1, 3 * t + 2]).collect(),
            faces: vec![1; tris as usize],
            material_indices: material.map(|m| m.into_iter().map(u64::from).collect()),
            material_slots: vec![None; slots],
            blendshapes,
        }
    }
}

/// The name of UV set `k`, as Blender names them.
fn uv_name(k: usize) -> String {
    if k == 0 {
        "UVMap".to_string()
    } else {
        format!("UVMap.{k:03}")
    }
}

/// `src` appended to `out` (taken as it is when `out` is empty), `out` made to hold
/// `total` at once.
fn append<T: Copy>(out: &mut Vec<T>, src: Vec<T>, total: usize) {
    if out.is_empty() {
        *out = src;
    } else {
        out.reserve_exact(total.saturating_sub(out.len()));
        out.extend_from_slice(&src);
    }
}

/// `n` copies of `value` appended to `out`, made to hold `total` at once.
fn pad<T: Copy>(out: &mut Vec<T>, value: T, n: usize, total: usize) {
    out.reserve_exact(total.saturating_sub(out.len()));
    out.extend(std::iter::repeat_n(value, n));
}

/// The bits a float is compared by: the model's `f64`'s.
fn bits(x: f32) -> u64 {
    f64::from(x).to_bits()
}

/// The mesh (of a scene turned to +Y up) as [`super::mesh_model`] makes its
/// model, each primitive's arrays moved in (see [`fits`]: the caller checks the mesh
/// fits first). `name` is the resource's name, `id` its id.
pub(crate) fn narrow(m: ExportMesh, id: String, name: String) -> Narrow {
    let faceted: Vec<bool> = m.primitives.iter().map(|p| p.normals.is_none()).collect();
    let prims: Vec<Primitive> = m.primitives.into_iter().map(facet).collect();
    let mut sharp: Vec<u32> = Vec::new();
    let has_normals = prims.iter().any(|p| p.normals.is_some());
    let has_skin = prims
        .iter()
        .any(|p| p.joints.is_some() && p.weights.is_some());
    let has_colors = prims.iter().any(|p| p.colors.is_some());
    let uv_sets = prims
        .iter()
        .map(|p| usize::from(p.uvs.is_some()) + p.extra_uvs.len())
        .max()
        .unwrap_or(0);
    let targets = prims
        .iter()
        .map(|p| p.morph_targets.len())
        .max()
        .unwrap_or(0);
    let named: Vec<(String, f32)> = (0..targets)
        .map(|t| {
            prims
                .iter()
                .find_map(|p| p.morph_targets.get(t))
                .map(|s| (s.name.clone(), s.default_weight))
                .unwrap_or_default()
        })
        .collect();
    let n_splits: usize = prims.iter().map(|p| p.positions.len()).sum();
    let n_tris: usize = prims.iter().map(|p| p.triangles.len()).sum();
    let slots = prims.len();
    let several = slots > 1;
    let mut positions: Vec<[f32; 3]> = Vec::new();
    let mut deltas: Vec<Vec<[f32; 3]>> = (0..targets).map(|_| Vec::new()).collect();
    let mut normals = Vec::new();
    let mut colors = Vec::new();
    let mut joints: Vec<[u16; 4]> = Vec::new();
    let mut weights: Vec<[f32; 4]> = Vec::new();
    let mut uvs: Vec<Vec<[f32; 2]>> = (0..uv_sets).map(|_| Vec::new()).collect();
    let mut corners: Vec<[u32; 3]> = Vec::new();
    let mut material = Vec::with_capacity(if several { n_tris } else { 0 });
    for (pi, p) in prims.into_iter().enumerate() {
        let base = positions.len() as u32;
        let n = p.positions.len();
        append(&mut positions, p.positions, n_splits);
        let mut mts = p.morph_targets.into_iter();
        for out in deltas.iter_mut() {
            match mts.next() {
                Some(mt) => append(out, mt.position_deltas, n_splits),
                None => pad(out, [0.0; 3], n, n_splits),
            }
        }
        match p.normals {
            Some(ns) => append(&mut normals, ns, n_splits),
            None if has_normals => pad(&mut normals, [0.0; 3], n, n_splits),
            None => {}
        }
        match p.colors {
            Some(cs) => append(&mut colors, cs, n_splits),
            None if has_colors => pad(&mut colors, [1.0; 4], n, n_splits),
            None => {}
        }
        match (p.joints, p.weights) {
            (Some(js), Some(ws)) => {
                append(&mut joints, js, n_splits);
                append(&mut weights, ws, n_splits);
            }
            _ if has_skin => {
                pad(&mut joints, [0; 4], n, n_splits);
                pad(&mut weights, [0.0; 4], n, n_splits);
            }
            _ => {}
        }
        let mut sets = p.uvs.into_iter().chain(p.extra_uvs);
        for out in uvs.iter_mut() {
            match sets.next() {
                Some(uv) => append(out, uv, n_splits),
                None => pad(out, [0.0; 2], n, n_splits),
            }
        }
        if several {
            material.extend(std::iter::repeat_n(pi as u32, p.triangles.len()));
        }
        let start = corners.len();
        if faceted.get(pi).copied().unwrap_or(false) {
            sharp.extend(start as u32..(start + p.triangles.len()) as u32);
        }
        append(&mut corners, p.triangles, n_tris);
        if base != 0 {
            for t in corners.iter_mut().skip(start) {
                *t = t.map(|i| base.wrapping_add(i));
            }
        }
    }
    // Vertices: splits with the same position, offsets and skin (bits) share one,
    // numbered in the order of their first split; found by sorting the splits by those
    // bits (a joint index is compared as the first of four "components").
    let split_key = |s: u32| {
        let s = s as usize;
        let pos = positions.get(s).copied().unwrap_or_default().map(bits);
        let ds = deltas
            .iter()
            .map(move |d| d.get(s).copied().unwrap_or_default().map(bits));
        let skin = joints
            .get(s)
            .zip(weights.get(s))
            .into_iter()
            .flat_map(|(j, w)| {
                let j = j.map(u64::from);
                [
                    [j[0], j[1], j[2]],
                    [j[3], bits(w[0]), bits(w[1])],
                    [bits(w[2]), bits(w[3]), 0],
                ]
            });
        std::iter::once(pos).chain(ds).chain(skin)
    };
    let ns = positions.len();
    let mut order: Vec<u32> = (0..ns as u32).collect();
    order.sort_unstable_by(|&a, &b| split_key(a).cmp(split_key(b)).then(a.cmp(&b)));
    // The first split of each group of equal splits, for every split …
    let mut splits: Vec<u32> = (0..ns as u32).collect();
    for w in order.windows(2) {
        if let [a, b] = *w {
            if split_key(a).eq(split_key(b)) {
                let f = splits.get(a as usize).copied().unwrap_or(a);
                if let Some(x) = splits.get_mut(b as usize) {
                    *x = f;
                }
            }
        }
    }
    drop(order);
    // … then, in place, each split's vertex: a first split's position moves down to its
    // vertex's place (never above its own), a later one takes its first split's vertex.
    let mut heads = 0usize;
    for s in 0..ns {
        let f = splits.get(s).copied().unwrap_or(s as u32) as usize;
        let v = if f == s {
            if let Some(p) = positions.get(s).copied() {
                if let Some(x) = positions.get_mut(heads) {
                    *x = p;
                }
            }
            for d in deltas.iter_mut() {
                if let Some(p) = d.get(s).copied() {
                    if let Some(x) = d.get_mut(heads) {
                        *x = p;
                    }
                }
            }
            move_down(&mut joints, s, heads);
            move_down(&mut weights, s, heads);
            heads += 1;
            heads as u32 - 1
        } else {
            splits.get(f).copied().unwrap_or(0)
        };
        if let Some(x) = splits.get_mut(s) {
            *x = v;
        }
    }
    positions.truncate(heads);
    for d in deltas.iter_mut() {
        d.truncate(heads);
    }
    joints.truncate(heads);
    weights.truncate(heads);
    // Triangles that Blender's validation would remove get vertices of their own (one
    // naming a vertex twice, one with the vertices of an earlier triangle).
    let tri_vertices = |t: u32| {
        let c = corners.get(t as usize).copied().unwrap_or_default();
        let mut v = c.map(|s| splits.get(s as usize).copied().unwrap_or(0));
        v.sort_unstable();
        v
    };
    let distinct = |v: [u32; 3]| v[0] != v[1] && v[1] != v[2];
    let nt = corners.len();
    let mut order: Vec<u32> = (0..nt as u32)
        .filter(|&t| distinct(tri_vertices(t)))
        .collect();
    order.sort_unstable_by(|&a, &b| tri_vertices(a).cmp(&tri_vertices(b)).then(a.cmp(&b)));
    let mut own = vec![true; nt];
    for (k, &t) in order.iter().enumerate() {
        let earlier = k
            .checked_sub(1)
            .and_then(|j| order.get(j))
            .is_some_and(|&e| tri_vertices(e) == tri_vertices(t));
        if !earlier {
            if let Some(x) = own.get_mut(t as usize) {
                *x = false;
            }
        }
    }
    drop(order);
    let extra = 3 * own.iter().filter(|&&o| o).count();
    if extra > 0 {
        positions.reserve_exact(extra);
        for d in deltas.iter_mut() {
            d.reserve_exact(extra);
        }
        splits.reserve_exact(extra);
        normals.reserve_exact(if has_normals { extra } else { 0 });
        colors.reserve_exact(if has_colors { extra } else { 0 });
        for uv in uvs.iter_mut() {
            uv.reserve_exact(extra);
        }
    }
    for (tri, _) in corners.iter_mut().zip(&own).filter(|(_, &own)| own) {
        for s in tri.iter_mut() {
            let old = *s as usize;
            let new_split = splits.len() as u32;
            let vi = splits.get(old).copied().unwrap_or(0) as usize;
            positions.push(positions.get(vi).copied().unwrap_or_default());
            for d in deltas.iter_mut() {
                let x = d.get(vi).copied().unwrap_or_default();
                d.push(x);
            }
            if has_skin {
                let j = joints.get(vi).copied().unwrap_or_default();
                joints.push(j);
                let w = weights.get(vi).copied().unwrap_or_default();
                weights.push(w);
            }
            splits.push(positions.len() as u32 - 1);
            if has_normals {
                let n = normals.get(old).copied().unwrap_or_default();
                normals.push(n);
            }
            if has_colors {
                let c = colors.get(old).copied().unwrap_or([1.0; 4]);
                colors.push(c);
            }
            for uv in uvs.iter_mut() {
                let x = uv.get(old).copied().unwrap_or_default();
                uv.push(x);
            }
            *s = new_split;
        }
    }
    drop(own);
    // Blendshapes list only the vertices that move when that is smaller.
    let blends = named
        .into_iter()
        .zip(&deltas)
        .map(|((name, weight), d)| {
            let moving: Vec<u32> = d
                .iter()
                .enumerate()
                .filter(|(_, x)| x.iter().any(|&x| bits(x) != 0))
                .map(|(i, _)| i as u32)
                .collect();
            Blend {
                name,
                weight: f64::from(weight),
                indices: (moving.len() * 2 < d.len()).then_some(moving),
            }
        })
        .collect();
    Narrow {
        id,
        name,
        vertices: positions,
        deltas,
        blends,
        splits,
        corners,
        tris: nt,
        normals: has_normals.then_some(normals),
        colors: has_colors.then_some(colors),
        uvs,
        material: several.then_some(material),
        slots: if several { slots } else { 0 },
        skin: has_skin.then_some((joints, weights)),
        sharp,
    }
}

/// `v[from]` moved to `v[to]` (`to <= from`), for the in-place numbering of vertices.
fn move_down<T: Copy>(v: &mut [T], from: usize, to: usize) {
    if let Some(x) = v.get(from).copied() {
        if let Some(slot) = v.get_mut(to) {
            *slot = x;
        }
    }
}

/// A primitive without normals as a faceted one (what glTF says a client does with
/// it: flat shading): each triangle on three vertices of its own, every vertex carrying
/// the triangle's face normal (zero for a degenerate triangle, which Blender replaces
/// by the normal it computes). Vertices of equal position and offsets still share one
/// STF vertex ([`narrow`]), so the mesh stays connected. A primitive with normals is
/// returned as it is.
fn facet(p: Primitive) -> Primitive {
    if p.normals.is_some() {
        return p;
    }
    let corners: Vec<usize> = p.triangles.iter().flatten().map(|&i| i as usize).collect();
    fn pick<T: Copy + Default>(v: &[T], corners: &[usize]) -> Vec<T> {
        corners
            .iter()
            .map(|&i| v.get(i).copied().unwrap_or_default())
            .collect()
    }
    let normals = p
        .triangles
        .iter()
        .flat_map(|t| {
            let at = |k: usize| {
                let i = t.get(k).copied().unwrap_or(0) as usize;
                p.positions
                    .get(i)
                    .copied()
                    .unwrap_or_default()
                    .map(f64::from)
            };
            let ([ax, ay, az], [bx, by, bz], [cx, cy, cz]) = (at(0), at(1), at(2));
            let (u, v) = ([bx - ax, by - ay, bz - az], [cx - ax, cy - ay, cz - az]);
            let [u0, u1, u2] = u;
            let [v0, v1, v2] = v;
            let n = [u1 * v2 - u2 * v1, u2 * v0 - u0 * v2, u0 * v1 - u1 * v0];
            let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
            let unit = if len > 0.0 && len.is_finite() {
                n.map(|x| (x / len) as f32)
            } else {
                [0.0; 3]
            };
            [unit; 3]
        })
        .collect();
    Primitive {
        name: p.name,
        positions: pick(&p.positions, &corners),
        normals: Some(normals),
        uvs: p.uvs.as_deref().map(|v| pick(v, &corners)),
        extra_uvs: p.extra_uvs.iter().map(|v| pick(v, &corners)).collect(),
        colors: p.colors.as_deref().map(|v| pick(v, &corners)),
        triangles: (0..p.triangles.len() as u32)
            .map(|t| [3 * t, 3 * t + 1, 3 * t + 2])
            .collect(),
        joints: p.joints.as_deref().map(|v| pick(v, &corners)),
        weights: p.weights.as_deref().map(|v| pick(v, &corners)),
        morph_targets: p
            .morph_targets
            .into_iter()
            .map(|t| crate::scene::MorphTarget {
                position_deltas: pick(&t.position_deltas, &corners),
                ..t
            })
            .collect(),
        material: p.material,
    }
}

/// A float as the model holds it: through `f64` (a NaN may come back quiet, as storing
/// it in the model's `f64` makes it).
fn wide(x: f32) -> f64 {
    if x.is_nan() {
        std::hint::black_box(f64::from(x))
    } else {
        f64::from(x)
    }
}

/// Floats of `width` bytes, each as the model holds it ([`wide()`]).
fn float_bytes<const N: usize>(values: &[[f32; N]], width: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(encoded_len(N * values.len(), width));
    for &x in values.iter().flatten() {
        push_float(&mut out, wide(x), width);
    }
    out
}

/// Indices of `width` bytes.
fn uint_bytes(values: impl Iterator<Item = u64>, width: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(encoded_len(values.size_hint().0, width));
    for v in values {
        push_uint(&mut out, v, width);
    }
    out
}

/// The largest of `values`, 0 when empty.
fn largest<'a>(values: impl IntoIterator<Item = &'a u32>) -> u64 {
    values.into_iter().copied().max().map_or(0, u64::from)
}

/// Empties an optional array, keeping whether it is there.
fn clear<T>(v: &mut Option<Vec<T>>) {
    if let Some(v) = v {
        *v = Vec::new();
    }
}

/// The mesh as the writer reads it: what its model ([`Narrow::into_model`]) holds, value
/// for value, each array dropped once its buffer is made.
impl MeshSource for Narrow {
    fn id(&self) -> &str {
        &self.id
    }

    /// The model's problems ([`StfMesh::problems`]), looked through where the arrays lie.
    fn problems(&self) -> Vec<String> {
        let names: Vec<String> = (0..self.uvs.len()).map(uv_name).collect();
        fn ints(v: &[u32]) -> Ints<'_> {
            Ints {
                len: v.len(),
                values: Box::new(v.iter().map(|&x| u64::from(x))),
            }
        }
        let t = self.tris;
        Outline {
            id: &self.id,
            name: &self.name,
            vertices: self.vertices.len(),
            splits: self.splits.len(),
            face_corners: 3 * self.corners.len(),
            tris: t,
            faces: t,
            tri_corners: Box::new(0..3 * t as u64),
            corner_splits: Box::new(self.corners.iter().flatten().map(|&c| u64::from(c))),
            split_vertices: Box::new(self.splits.iter().map(|&s| u64::from(s))),
            face_tris: Box::new(std::iter::repeat_n(1, t)),
            uvs: names
                .iter()
                .zip(&self.uvs)
                .map(|(n, uv)| (n.as_str(), uv.len()))
                .collect(),
            normals: self.normals.is_some(),
            colors: self.colors.is_some(),
            blendshapes: self
                .blends
                .iter()
                .zip(&self.deltas)
                .map(|(b, d)| BlendOutline {
                    name: &b.name,
                    offsets: b.indices.as_ref().map_or(d.len(), Vec::len),
                    indices: b.indices.as_deref().map(ints),
                    split_indices: None,
                    split_normals: None,
                })
                .collect(),
        }
        .problems()
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn float_width(&self) -> u64 {
        4
    }

    fn indices_width(&self) -> u64 {
        1
    }

    fn material_slots(&self) -> Vec<Option<String>> {
        vec![None; self.slots]
    }

    fn uv_names(&self) -> Vec<String> {
        (0..self.uvs.len()).map(uv_name).collect()
    }

    fn blendshapes(&self) -> Vec<BlendHead> {
        self.blends
            .iter()
            .zip(&self.deltas)
            .map(|(b, _)| BlendHead {
                name: b.name.clone(),
                default_value: b.weight,
                limit_upper: b.weight.max(1.0),
                limit_lower: b.weight.min(0.0),
            })
            .collect()
    }

    fn has(&self, p: Prop) -> bool {
        let blend = |k: usize| self.blends.get(k).filter(|_| k < self.deltas.len());
        match p {
            Prop::Vertices | Prop::FaceCorners | Prop::Splits | Prop::Tris | Prop::Faces => true,
            Prop::SplitNormals => self.normals.is_some(),
            Prop::SplitColors => self.colors.is_some(),
            Prop::Uv(k) => k < self.uvs.len(),
            Prop::MaterialIndices => self.material.is_some(),
            Prop::BlendIndices(k) => blend(k).is_some_and(|b| b.indices.is_some()),
            Prop::BlendOffsets(k) => blend(k).is_some(),
            Prop::BlendSplitIndices(_) | Prop::BlendSplitNormals(_) => false,
        }
    }

    fn max(&self, p: Prop) -> u64 {
        let t = self.tris as u64;
        match p {
            Prop::FaceCorners => largest(self.corners.iter().flatten()),
            Prop::Splits => largest(&self.splits),
            Prop::Tris => (3 * t).saturating_sub(1),
            Prop::Faces => u64::from(t > 0),
            Prop::MaterialIndices => largest(self.material.iter().flatten()),
            Prop::BlendIndices(k) => largest(
                self.blends
                    .get(k)
                    .and_then(|b| b.indices.as_ref())
                    .into_iter()
                    .flatten(),
            ),
            _ => 0,
        }
    }

    fn encode(&self, p: Prop, width: u64) -> Vec<u8> {
        let t = self.tris as u64;
        let wide_u = |v: &[u32]| uint_bytes(v.iter().map(|&x| u64::from(x)), width);
        match p {
            Prop::Vertices => float_bytes(&self.vertices, width),
            Prop::FaceCorners => wide_u(self.corners.as_flattened()),
            Prop::Splits => wide_u(&self.splits),
            Prop::SplitNormals => self
                .normals
                .as_deref()
                .map(|n| float_bytes(n, width))
                .unwrap_or_default(),
            Prop::SplitColors => self
                .colors
                .as_deref()
                .map(|c| float_bytes(c, width))
                .unwrap_or_default(),
            Prop::Uv(k) => self
                .uvs
                .get(k)
                .map(|uv| float_bytes(uv, width))
                .unwrap_or_default(),
            Prop::Tris => uint_bytes(0..3 * t, width),
            Prop::Faces => uint_bytes(std::iter::repeat_n(1, t as usize), width),
            Prop::MaterialIndices => self.material.as_deref().map(wide_u).unwrap_or_default(),
            Prop::BlendIndices(k) => self
                .blends
                .get(k)
                .and_then(|b| b.indices.as_deref())
                .map(wide_u)
                .unwrap_or_default(),
            Prop::BlendOffsets(k) => {
                let d = self.deltas.get(k).map(Vec::as_slice).unwrap_or_default();
                match self.blends.get(k).and_then(|b| b.indices.as_ref()) {
                    Some(moving) => {
                        let mut out = Vec::with_capacity(encoded_len(3 * moving.len(), width));
                        for &i in moving {
                            for x in d.get(i as usize).copied().unwrap_or_default() {
                                push_float(&mut out, wide(x), width);
                            }
                        }
                        out
                    }
                    None => float_bytes(d, width),
                }
            }
            Prop::BlendSplitIndices(_) | Prop::BlendSplitNormals(_) => Vec::new(),
        }
    }

    /// Drops the arrays no later property needs (a blendshape's indices go with its
    /// offsets, which are picked by them).
    fn spend(&mut self, p: Prop) {
        match p {
            Prop::Vertices => self.vertices = Vec::new(),
            Prop::FaceCorners => self.corners = Vec::new(),
            Prop::Splits => self.splits = Vec::new(),
            Prop::SplitNormals => clear(&mut self.normals),
            Prop::SplitColors => clear(&mut self.colors),
            Prop::Uv(k) => {
                if let Some(uv) = self.uvs.get_mut(k) {
                    *uv = Vec::new();
                }
            }
            Prop::MaterialIndices => clear(&mut self.material),
            Prop::BlendOffsets(k) => {
                if let Some(d) = self.deltas.get_mut(k) {
                    *d = Vec::new();
                }
                if let Some(b) = self.blends.get_mut(k) {
                    clear(&mut b.indices);
                }
            }
            Prop::Tris
            | Prop::Faces
            | Prop::BlendIndices(_)
            | Prop::BlendSplitIndices(_)
            | Prop::BlendSplitNormals(_) => {}
        }
    }
}
