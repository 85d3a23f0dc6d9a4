//! A new STF file written straight from an owned scene: the bytes that
//! [`super::import::from_scene`] gives (each scene mesh as [`super::import::mesh_model`]
//! makes it, written by [`super::replace_meshes`] into the new document), without the
//! model in between.
//!
//! The model holds every value as `f64` or `u64`, three times the scene's `f32` and `u32`
//! arrays; here a mesh keeps the scene's arrays (moved, not copied: a mesh of one
//! primitive uses them as they are) in the widths the buffers are written with, the
//! document is written first (every buffer's length is known from the arrays), and each
//! buffer is encoded into the file's bytes with its array dropped once it is written. So
//! the scene and the file are not held whole together: the peak is about the larger of
//! the two, plus the indices that finding shared vertices takes.
//!
//! The model of a scene mesh is made here too ([`Narrow::into_model`]: the same values,
//! widened), so vertices, splits and triangles are decided in one place. What the direct
//! writer adds is the writing: each float goes through `f64` and back as the model's
//! writer does (which only a NaN notices), and the document is built key by key as that
//! writer builds a new resource (a unit test checks both give the same bytes on the
//! fixtures, the corpus and hand-built scenes).

use serde_json::{json, Map, Value};

use super::model;
use super::raw::StfContainer;
use super::write::{fitting_width, IdSource};
use crate::error::{Error, ErrorKind, Result};
use crate::scene::ExportMesh;

fn inconsistent(what: String) -> Error {
    Error::new("STF", ErrorKind::Inconsistent(what))
}

/// Whether [`Narrow`] holds the mesh: its splits (with the ones triangles may be given
/// of their own) and primitives are numbered in 32 bits.
pub(crate) fn fits(m: &ExportMesh) -> bool {
    let splits: usize = m.primitives.iter().map(|p| p.positions.len()).sum();
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
}

impl Narrow {
    /// Vertices and triangles, as [`super::StfContainer::info`] counts them.
    pub(crate) fn counts(&self) -> (usize, usize) {
        (self.vertices.len(), self.tris)
    }

    /// The mesh as the STF model holds it ([`super::import::mesh_model`]): the same
    /// values, widened to `f64` and `u64`.
    pub(crate) fn into_model(self) -> model::StfMesh {
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
                model::StfBlendshape {
                    name: b.name,
                    default_value: b.weight,
                    limit_upper: b.weight.max(1.0),
                    limit_lower: b.weight.min(0.0),
                    indices: b.indices.map(|m| m.into_iter().map(u64::from).collect()),
                    position_offsets,
                    ..model::StfBlendshape::default()
                }
            })
            .collect();
        let tris = tris as u64;
        model::StfMesh {
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

/// A float as the model writes it: to `f64` and back (a NaN may come back quiet).
fn narrow_f32(x: f32) -> f32 {
    if x.is_nan() {
        std::hint::black_box(f64::from(x)) as f32
    } else {
        x
    }
}

/// The mesh (of a scene turned to +Y up) as [`super::import::mesh_model`] makes its
/// model, each primitive's arrays moved in (see [`fits`]: the caller checks the mesh
/// fits first). `name` is the resource's name, `id` its id.
pub(crate) fn narrow(m: ExportMesh, id: String, name: String) -> Narrow {
    let prims = m.primitives;
    let has_normals = prims.iter().any(|p| p.normals.is_some());
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
        append(&mut corners, p.triangles, n_tris);
        if base != 0 {
            for t in corners.iter_mut().skip(start) {
                *t = t.map(|i| base.wrapping_add(i));
            }
        }
    }
    // Vertices: splits with the same position and offsets (bits) share one, numbered in
    // the order of their first split; found by sorting the splits by those bits.
    let split_key = |s: u32| {
        let s = s as usize;
        let pos = positions.get(s).copied().unwrap_or_default().map(bits);
        let ds = deltas
            .iter()
            .map(move |d| d.get(s).copied().unwrap_or_default().map(bits));
        std::iter::once(pos).chain(ds)
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
    }
}

/// One buffer of a mesh, in the order the writer makes them.
#[derive(Clone, Copy)]
enum Part {
    Vertices,
    FaceCorners,
    Splits,
    Normals,
    Colors,
    Uv(usize),
    Tris,
    Faces,
    Material,
    Indices(usize),
    Offsets(usize),
}

impl Narrow {
    /// The index width (the model's 1, widened to fit every index).
    fn index_width(&self) -> u64 {
        let max = self
            .corners
            .iter()
            .flatten()
            .chain(&self.splits)
            .chain(self.blends.iter().flat_map(|b| b.indices.iter().flatten()))
            .map(|&x| u64::from(x))
            .chain((self.tris > 0).then(|| 3 * self.tris as u64 - 1))
            .chain((self.tris > 0).then_some(1))
            .max()
            .unwrap_or(0);
        fitting_width(1, max)
    }

    fn material_width(&self) -> u64 {
        let max = self.material.iter().flatten().copied().max().unwrap_or(0);
        fitting_width(1, u64::from(max))
    }

    /// The buffers, in order, with their lengths in bytes.
    fn parts(&self, iw: u64, mw: u64) -> Vec<(Part, usize)> {
        let iw = iw as usize;
        let mut out = vec![
            (Part::Vertices, 12 * self.vertices.len()),
            (Part::FaceCorners, 3 * iw * self.tris),
            (Part::Splits, iw * self.splits.len()),
        ];
        if let Some(n) = &self.normals {
            out.push((Part::Normals, 12 * n.len()));
        }
        if let Some(c) = &self.colors {
            out.push((Part::Colors, 16 * c.len()));
        }
        for (k, uv) in self.uvs.iter().enumerate() {
            out.push((Part::Uv(k), 8 * uv.len()));
        }
        out.push((Part::Tris, 3 * iw * self.tris));
        out.push((Part::Faces, iw * self.tris));
        if let Some(m) = &self.material {
            out.push((Part::Material, mw as usize * m.len()));
        }
        for (t, b) in self.blends.iter().enumerate() {
            let d = self.deltas.get(t).map_or(0, Vec::len);
            if let Some(i) = &b.indices {
                out.push((Part::Indices(t), iw * i.len()));
            }
            out.push((
                Part::Offsets(t),
                12 * b.indices.as_ref().map_or(d, Vec::len),
            ));
        }
        out
    }

    /// The `stf.mesh` resource the writer makes from `old` (the new document's, name
    /// and type only), its buffers numbered in order from 0 and named `ids`.
    fn resource(&self, old: &Map<String, Value>, iw: u64, mw: u64, ids: &[String]) -> Value {
        let mut r = old.clone();
        let mut slot = 0usize;
        let mut next = || {
            slot += 1;
            json!(slot - 1)
        };
        if !self.name.is_empty() || old.contains_key("name") {
            r.insert("name".into(), json!(self.name));
        }
        if self.slots > 0 {
            r.insert(
                "material_slots".into(),
                json!(vec![Value::Null; self.slots]),
            );
        }
        if old.contains_key("float_width") {
            r.insert("float_width".into(), json!(4u64));
        }
        if old.contains_key("indices_width") || iw != 4 {
            r.insert("indices_width".into(), json!(iw));
        }
        for k in ["vertices", "face_corners", "splits"] {
            r.insert(k.into(), next());
        }
        if self.normals.is_some() {
            r.insert("split_normals".into(), next());
        }
        if self.colors.is_some() {
            r.insert("split_colors".into(), next());
        }
        if !self.uvs.is_empty() {
            let list: Vec<Value> = (0..self.uvs.len())
                .map(|k| json!({"name": uv_name(k), "uv": next()}))
                .collect();
            r.insert("uvs".into(), Value::Array(list));
        }
        r.insert("tris".into(), next());
        r.insert("faces".into(), next());
        if self.material.is_some() {
            if mw != 4 {
                r.insert("material_indices_width".into(), json!(mw));
            }
            r.insert("material_indices".into(), next());
        }
        if !self.blends.is_empty() {
            let list: Vec<Value> = self
                .blends
                .iter()
                .map(|b| {
                    let mut e = Map::new();
                    e.insert("name".into(), json!(b.name));
                    let w = b.weight;
                    for (k, v, default) in [
                        ("default_value", w, 0.0),
                        ("limit_upper", w.max(1.0), 1.0),
                        ("limit_lower", w.min(0.0), 0.0),
                    ] {
                        if v != default {
                            e.insert(k.into(), json!(v));
                        }
                    }
                    if b.indices.is_some() {
                        e.insert("indices".into(), next());
                    }
                    e.insert("position_offsets".into(), next());
                    Value::Object(e)
                })
                .collect();
            r.insert("blendshapes".into(), Value::Array(list));
        }
        r.insert("referenced_buffers".into(), json!(ids));
        Value::Object(r)
    }

    /// Appends the bytes of `part` to `out`, dropping the arrays no later part needs.
    fn encode(&mut self, part: Part, iw: u64, mw: u64, out: &mut Vec<u8>) {
        fn floats<const N: usize>(out: &mut Vec<u8>, values: &[[f32; N]]) {
            for v in values {
                for &x in v {
                    out.extend_from_slice(&narrow_f32(x).to_le_bytes());
                }
            }
        }
        fn uints(out: &mut Vec<u8>, values: impl Iterator<Item = u64>, width: u64) {
            let w = width as usize;
            for v in values {
                out.extend_from_slice(v.to_le_bytes().get(..w).unwrap_or_default());
            }
        }
        let t = self.tris as u64;
        match part {
            Part::Vertices => floats(out, &std::mem::take(&mut self.vertices)),
            Part::FaceCorners => {
                let c = std::mem::take(&mut self.corners);
                uints(out, c.iter().flatten().map(|&x| u64::from(x)), iw);
            }
            Part::Splits => {
                let s = std::mem::take(&mut self.splits);
                uints(out, s.iter().map(|&x| u64::from(x)), iw);
            }
            Part::Normals => floats(out, &self.normals.take().unwrap_or_default()),
            Part::Colors => floats(out, &self.colors.take().unwrap_or_default()),
            Part::Uv(k) => {
                if let Some(uv) = self.uvs.get_mut(k) {
                    floats(out, &std::mem::take(uv));
                }
            }
            Part::Tris => uints(out, 0..3 * t, iw),
            Part::Faces => uints(out, (0..t).map(|_| 1), iw),
            Part::Material => {
                let m = self.material.take().unwrap_or_default();
                uints(out, m.iter().map(|&x| u64::from(x)), mw);
            }
            Part::Indices(b) => {
                if let Some(i) = self.blends.get(b).and_then(|b| b.indices.as_ref()) {
                    uints(out, i.iter().map(|&x| u64::from(x)), iw);
                }
            }
            Part::Offsets(b) => {
                let d = self
                    .deltas
                    .get_mut(b)
                    .map(std::mem::take)
                    .unwrap_or_default();
                let indices = self.blends.get_mut(b).and_then(|b| b.indices.take());
                match indices {
                    Some(i) => {
                        for &v in &i {
                            floats(out, &[d.get(v as usize).copied().unwrap_or_default()]);
                        }
                    }
                    None => floats(out, &d),
                }
            }
        }
    }
}

/// The file [`super::replace_meshes`] makes of `skeleton` (a new document: every
/// `stf.mesh` named by a mesh holds its type and name only, and there are no buffers)
/// with `meshes` written into it, as bytes ([`StfContainer::into_bytes`]).
pub(crate) fn write(skeleton: &StfContainer, meshes: Vec<Narrow>) -> Result<Vec<u8>> {
    let mut doc = model::document(skeleton)?;
    if !skeleton.buffers.is_empty() {
        return Err(inconsistent("a new document has no buffers".into()));
    }
    let mut ids = IdSource::new(&doc, skeleton);
    let mut plans = Vec::with_capacity(meshes.len());
    let mut all_ids = Vec::new();
    let mut lengths = Vec::new();
    for m in &meshes {
        let (iw, mw) = (m.index_width(), m.material_width());
        let parts = m.parts(iw, mw);
        let mesh_ids: Vec<String> = parts.iter().map(|_| ids.next()).collect();
        let old = doc
            .get("resources")
            .and_then(|r| r.get(&m.id))
            .and_then(Value::as_object)
            .ok_or_else(|| inconsistent(format!("no stf.mesh resource {:?}", m.id)))?;
        let resource = m.resource(old, iw, mw, &mesh_ids);
        if let Some(r) = doc.get_mut("resources").and_then(Value::as_object_mut) {
            r.insert(m.id.clone(), resource);
        }
        lengths.extend(parts.iter().map(|&(_, n)| n));
        all_ids.extend(mesh_ids);
        plans.push((iw, mw, parts));
    }
    let table = doc
        .get_mut("buffers")
        .and_then(Value::as_object_mut)
        .ok_or_else(|| inconsistent("the JSON has no \"buffers\" object".into()))?;
    for (k, id) in all_ids.into_iter().enumerate() {
        table.insert(id, json!({"type": "stf.buffer.included", "index": k}));
    }
    let json = serde_json::to_vec(&doc).map_err(|e| inconsistent(e.to_string()))?;
    drop(doc);
    let count = u32::try_from(lengths.len() + 1).map_err(|_| {
        inconsistent(format!(
            "{} buffers do not fit the count field",
            lengths.len() + 1
        ))
    })?;
    let size = 16
        + 8 * (lengths.len() + 1)
        + json.len()
        + lengths.iter().sum::<usize>()
        + skeleton.trailing.len();
    let mut out = Vec::with_capacity(size);
    out.extend_from_slice(b"STF0");
    for n in [skeleton.version_major, skeleton.version_minor, count] {
        out.extend_from_slice(&n.to_le_bytes());
    }
    for n in std::iter::once(json.len()).chain(lengths) {
        out.extend_from_slice(&(n as u64).to_le_bytes());
    }
    out.extend_from_slice(&json);
    drop(json);
    for (mut m, (iw, mw, parts)) in meshes.into_iter().zip(plans) {
        for (part, _) in parts {
            m.encode(part, iw, mw, &mut out);
        }
    }
    out.extend_from_slice(&skeleton.trailing);
    Ok(out)
}
