//! Import: glTF 2.0 (`.gltf`, `.glb`) and OBJ into a [`Scene`], and a scene into a
//! Roblox FileMesh model (which then writes any version).
//!
//! glTF is read with `serde_json` and walked here, every index and range checked (the
//! `gltf` crate's validation panics on some damaged files). Buffers come from the GLB's BIN chunk, from
//! `data:` URIs (base64), or from files inside the `.gltf`'s folder (see
//! [`read_gltf_with`] for what is refused). Memory is bounded by the input: accessors
//! are decoded once however many primitives use them, and all uses together may decode
//! to at most [`DECODE_FACTOR`] times the file's size. Every mesh primitive in
//! triangle mode becomes a [`Primitive`] with positions, normals, every `TEXCOORD_n`
//! (the first as [`Primitive::uvs`], the rest as [`Primitive::extra_uvs`]), `COLOR_0`,
//! skin influences (`JOINTS_n`/`WEIGHTS_n`, the four heaviest) and morph target
//! positions. Meshes are placed as the scene's nodes place them (`place`): each node
//! that names a mesh gives one copy, transformed by the node's world matrix (a mesh
//! used by two nodes comes out twice); a mesh no node names is kept as it is. The skins
//! of the placed meshes become one [`Skeleton`](super::Skeleton) and animations of its
//! joints become [`Animation`](super::Animation)s (`skins`); `MSFT_lod` and names
//! ending in `LOD k` give [`ExportMesh::lod`]. What is left out is named in
//! [`Scene::notes`].
//!
//! OBJ: `v` (with optional r g b), `vt`, `vn`, and `f` with `v`, `v/t`, `v//n`, `v/t/n`
//! corners (negative indices count from the end); polygons are split into fans; `o`
//! and `g` start a new primitive. Each distinct corner (position, UV, normal) becomes one
//! vertex.

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

mod skins;

use super::{ExportMesh, MorphTarget, Primitive, Scene};
use crate::error::{Error, ErrorKind, Result};

pub(crate) fn bad(what: impl Into<String>) -> Error {
    Error::new("import", ErrorKind::Invalid(what.into()))
}

/// Decodes standard base64 (padding optional, no whitespace).
fn base64_decode(text: &str) -> Result<Vec<u8>> {
    let value = |c: u8| -> Option<u32> {
        Some(match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => return None,
        } as u32)
    };
    let bytes = text.trim_end_matches('=').as_bytes();
    let mut out = Vec::with_capacity(bytes.len() / 4 * 3 + 3);
    for chunk in bytes.chunks(4) {
        let mut n = 0u32;
        for (k, &c) in chunk.iter().enumerate() {
            let v = value(c).ok_or_else(|| bad(format!("base64: byte {c:#04x} in a data URI")))?;
            n |= v << (18 - 6 * k);
        }
        let got = chunk.len() * 6 / 8;
        out.extend(n.to_be_bytes().get(1..1 + got).unwrap_or_default());
    }
    Ok(out)
}

/// Splits a GLB into its JSON and BIN chunks; a `.gltf` is all JSON.
fn split_glb(bytes: &[u8]) -> Result<(&[u8], Option<&[u8]>)> {
    if !bytes.starts_with(b"glTF") {
        return Ok((bytes, None));
    }
    let u32_at = |o: usize| -> Result<u32> {
        bytes
            .get(o..o + 4)
            .and_then(|b| <[u8; 4]>::try_from(b).ok())
            .map(u32::from_le_bytes)
            .ok_or_else(|| bad(format!("GLB: cut short at byte {o}")))
    };
    if u32_at(4)? != 2 {
        return Err(bad(format!("GLB: version {} (2 expected)", u32_at(4)?)));
    }
    let total = (u32_at(8)? as usize).min(bytes.len());
    let (mut at, mut json, mut bin) = (12usize, None, None);
    while at + 8 <= total {
        let (len, kind) = (u32_at(at)? as usize, u32_at(at + 4)?);
        let data = bytes
            .get(at + 8..(at + 8).saturating_add(len))
            .ok_or_else(|| bad(format!("GLB: chunk at byte {at} overruns the file")))?;
        match kind {
            0x4E4F_534A if json.is_none() => json = Some(data),
            0x004E_4942 if bin.is_none() => bin = Some(data),
            _ => {}
        }
        at = at + 8 + len;
    }
    Ok((json.ok_or_else(|| bad("GLB: no JSON chunk"))?, bin))
}

/// A non-negative integer property of a JSON object.
fn uint(v: &Value, key: &str, ctx: &str) -> Result<Option<usize>> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(x) => x
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .map(Some)
            .ok_or_else(|| bad(format!("{ctx}: {key} is not a non-negative integer"))),
    }
}

/// The `i`-th entry of a top-level array.
fn entry<'a>(doc: &'a Value, array: &str, i: usize, ctx: &str) -> Result<&'a Value> {
    doc.get(array)
        .and_then(|a| a.get(i))
        .ok_or_else(|| bad(format!("{ctx}: no {array}[{i}]")))
}

/// Reads a `.gltf` or `.glb`; `base` is the folder that relative buffer URIs are in.
///
/// The JSON is read with `serde_json` and walked here, with every index and range
/// checked, so a damaged file is an error, never a panic.
pub fn read_gltf(bytes: &[u8], base: Option<&Path>) -> Result<Scene> {
    read_gltf_with(bytes, base, &ImportOptions::default())
}

/// What [`read_gltf_with`] may read besides the document.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ImportOptions {
    /// The folder external buffers must lie in (after resolving symbolic links). `None`:
    /// the glTF file's own folder.
    pub resource_root: Option<std::path::PathBuf>,
}

/// How many times its size (plus 1 MiB) a glTF file's accessors may decode to, counted
/// per use: an accessor that many primitives share is decoded once, but each use is a
/// copy in the scene.
pub const DECODE_FACTOR: u64 = 16;

/// [`read_gltf`], with the folder external buffers are confined to.
///
/// An external buffer URI is percent-decoded and must name a regular file inside the
/// resource root (by default the glTF's folder): absolute paths, `..` components,
/// URI schemes other than `data:`, and symbolic links that lead out of the root are
/// refused, as are devices, FIFOs and folders. A buffer's declared `byteLength` is
/// checked against the file's size before it is read, and only that many bytes are
/// read.
pub fn read_gltf_with(bytes: &[u8], base: Option<&Path>, options: &ImportOptions) -> Result<Scene> {
    let (json, bin) = split_glb(bytes)?;
    let doc: Value = serde_json::from_slice(json).map_err(|e| bad(format!("glTF JSON: {e}")))?;
    super::unread::check_required_extensions(&doc)?;
    let mut buffers: Vec<Vec<u8>> = Vec::new();
    let mut input_size = bytes.len() as u64;
    for (i, b) in doc
        .get("buffers")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .enumerate()
    {
        let ctx = format!("glTF buffer {i}");
        let declared = uint(b, "byteLength", &ctx)?.unwrap_or(0);
        let data = match b.get("uri").and_then(Value::as_str) {
            None => bin
                .ok_or_else(|| bad(format!("{ctx}: refers to a missing GLB BIN chunk")))?
                .to_vec(),
            Some(uri) => {
                if let Some(rest) = uri.strip_prefix("data:") {
                    let (_, data) = rest.split_once(";base64,").ok_or_else(|| {
                        bad(format!("{ctx}: only base64 data URIs are supported"))
                    })?;
                    base64_decode(data)?
                } else {
                    let dir = base.ok_or_else(|| {
                        bad(format!(
                            "{ctx}: external buffer {uri:?} without a base folder"
                        ))
                    })?;
                    let root = options.resource_root.as_deref().unwrap_or(dir);
                    let data = read_external(dir, root, uri, declared, &ctx)?;
                    input_size = input_size.saturating_add(data.len() as u64);
                    data
                }
            }
        };
        if data.len() < declared {
            return Err(bad(format!(
                "{ctx}: holds {} bytes, {declared} declared",
                data.len()
            )));
        }
        buffers.push(data);
    }
    let budget = std::cell::Cell::new(
        input_size
            .saturating_mul(DECODE_FACTOR)
            .saturating_add(1 << 20),
    );
    let mut decoded: HashMap<(usize, usize), std::rc::Rc<Accessor>> = HashMap::new();
    let mut accessor = |k: usize, dims: &[usize], ctx: &str| -> Result<std::rc::Rc<Accessor>> {
        let key = (k, dims.first().copied().unwrap_or(0));
        let a = match decoded.get(&key) {
            Some(a) => a.clone(),
            None => {
                let a = std::rc::Rc::new(read_accessor(&doc, k, &buffers, dims, ctx, &budget)?);
                decoded.insert(key, a.clone());
                // The first use was charged while decoding.
                return Ok(a);
            }
        };
        charge(&budget, a.values.len(), ctx)?;
        Ok(a)
    };
    let mut meshes = Vec::new();
    let empty = Vec::new();
    // Vertices whose influences beyond the four heaviest were dropped.
    let mut dropped_influences = 0usize;
    for (mi, m) in doc
        .get("meshes")
        .and_then(Value::as_array)
        .unwrap_or(&empty)
        .iter()
        .enumerate()
    {
        let mname = m.get("name").and_then(Value::as_str).unwrap_or("");
        // Morph target names (a common convention, not the spec's) and default weights.
        let target_names: Vec<String> = m
            .get("extras")
            .and_then(|e| e.get("targetNames"))
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .map(|x| x.as_str().unwrap_or_default().to_string())
                    .collect()
            })
            .unwrap_or_default();
        let default_weights: Vec<f32> = m
            .get("weights")
            .and_then(Value::as_array)
            .map(|a| a.iter().map(|x| x.as_f64().unwrap_or(0.0) as f32).collect())
            .unwrap_or_default();
        let mut primitives = Vec::new();
        for (i, p) in m
            .get("primitives")
            .and_then(Value::as_array)
            .unwrap_or(&empty)
            .iter()
            .enumerate()
        {
            let ctx = format!("glTF mesh {mi} primitive {i}");
            if uint(p, "mode", &ctx)?.unwrap_or(4) != 4 {
                continue;
            }
            if let Some(draco) = p
                .get("extensions")
                .and_then(|e| e.get("KHR_draco_mesh_compression"))
            {
                let prim = draco_primitive(&doc, p, draco, &buffers, &budget, &ctx)?;
                prim.check()?;
                primitives.push(Primitive {
                    name: format!("{mname}/{i}"),
                    ..prim
                });
                continue;
            }
            let attrs = p.get("attributes");
            let mut attr = |name: &str, dims: &[usize]| -> Result<Option<std::rc::Rc<Accessor>>> {
                match attrs.map(|a| uint(a, name, &ctx)).transpose()?.flatten() {
                    None => Ok(None),
                    Some(k) => accessor(k, dims, &format!("{ctx} {name}")).map(Some),
                }
            };
            let positions: Vec<[f32; 3]> = attr("POSITION", &[3])?
                .ok_or_else(|| bad(format!("{ctx}: no POSITION")))?
                .elements()
                .map(fixed)
                .collect();
            let n = positions.len();
            let normals = attr("NORMAL", &[3])?;
            let uvs = attr("TEXCOORD_0", &[2])?;
            // Further UV sets, TEXCOORD_1 on, as long as they follow on (and only beside
            // a first set).
            let mut extra_uvs = Vec::new();
            if uvs.is_some() {
                for k in 1.. {
                    match attr(&format!("TEXCOORD_{k}"), &[2])? {
                        Some(a) => extra_uvs.push(a),
                        None => break,
                    }
                }
            }
            let colors = attr("COLOR_0", &[3, 4])?;
            // Skin influences, as indices into the skin's joints (made scene-wide when
            // a node places the mesh): JOINTS_k with WEIGHTS_k, every set.
            let mut influence_sets = Vec::new();
            for k in 0.. {
                match (
                    attr(&format!("JOINTS_{k}"), &[4])?,
                    attr(&format!("WEIGHTS_{k}"), &[4])?,
                ) {
                    (Some(j), Some(w)) => influence_sets.push((j, w)),
                    _ => break,
                }
            }
            let mut targets = Vec::new();
            for (t, target) in p
                .get("targets")
                .and_then(Value::as_array)
                .unwrap_or(&empty)
                .iter()
                .enumerate()
            {
                let k = uint(target, "POSITION", &ctx)?;
                let deltas = match k {
                    Some(k) => Some(accessor(k, &[3], &format!("{ctx} target {t} POSITION"))?),
                    None => None,
                };
                targets.push(deltas);
            }
            let corners: Vec<u32> = match uint(p, "indices", &ctx)? {
                Some(k) => accessor(k, &[1], &format!("{ctx} indices"))?
                    .values
                    .iter()
                    .map(|&v| v as u32)
                    .collect(),
                None => (0..n as u32).collect(),
            };
            let per_vertex = |v: Option<std::rc::Rc<Accessor>>, what: &str| match v {
                Some(v) if v.count() != n => Err(bad(format!(
                    "{ctx}: {} {what} for {n} positions",
                    v.count()
                ))),
                v => Ok(v),
            };
            let normals = per_vertex(normals, "normals")?;
            let uvs = per_vertex(uvs, "UVs")?;
            let colors = per_vertex(colors, "colours")?;
            let mut extra = Vec::new();
            for a in extra_uvs {
                let a = per_vertex(Some(a), "UVs")?;
                extra.extend(a.map(|v| v.elements().map(fixed).collect()));
            }
            let mut sets = Vec::new();
            for (j, w) in influence_sets {
                sets.push((
                    per_vertex(Some(j), "skin joints")?,
                    per_vertex(Some(w), "skin weights")?,
                ));
            }
            let (joints, weights, over_four) = skin_influences(&sets, n);
            dropped_influences += over_four;
            let mut morph_targets = Vec::new();
            for (t, deltas) in targets.into_iter().enumerate() {
                let deltas = per_vertex(deltas, "morph target deltas")?;
                morph_targets.push(MorphTarget {
                    name: target_names.get(t).cloned().unwrap_or_default(),
                    position_deltas: match deltas {
                        Some(d) => d.elements().map(fixed).collect(),
                        None => vec![[0.0; 3]; n],
                    },
                    default_weight: default_weights.get(t).copied().unwrap_or(0.0),
                });
            }
            let prim = Primitive {
                name: format!("{mname}/{i}"),
                extra_uvs: extra,
                normals: normals.map(|v| v.elements().map(fixed).collect()),
                uvs: uvs.map(|v| v.elements().map(fixed).collect()),
                colors: colors.map(|v| {
                    v.elements()
                        .map(|x| {
                            let [r, g, b] = fixed::<3>(x);
                            [r, g, b, x.get(3).map_or(1.0, |&a| a as f32)]
                        })
                        .collect()
                }),
                triangles: corners
                    .chunks_exact(3)
                    .map(|t| <[u32; 3]>::try_from(t).unwrap_or_default())
                    .collect(),
                positions,
                joints,
                weights,
                morph_targets,
            };
            prim.check()?;
            primitives.push(prim);
        }
        meshes.push(ExportMesh {
            lod: 0,
            name: mname.to_string(),
            primitives,
        });
    }
    let placed = place(&doc, meshes, &budget, &mut accessor)?;
    let mut notes = super::unread::gltf_unread(&doc);
    if dropped_influences > 0 {
        notes.push(super::ExportNote {
            kind: super::NoteKind::NotImported,
            count: dropped_influences,
            detail: format!(
                "{dropped_influences} vertices have more than four skin influences: the \
                 lightest were not imported (the four heaviest are scaled to sum to 1)"
            ),
        });
    }
    notes.extend(placed.notes);
    Ok(Scene {
        meshes: placed.meshes,
        skeleton: placed.skeleton,
        animations: placed.animations,
        notes,
        ..Scene::default()
    })
}

/// A vertex's skin influences from every JOINTS_k/WEIGHTS_k set: the four heaviest,
/// scaled to sum to 1 (see `skin::vertex_skin`; indices are the skin's own). Also
/// returns how many vertices had more than four influences.
#[allow(clippy::type_complexity)]
fn skin_influences(
    sets: &[(Option<std::rc::Rc<Accessor>>, Option<std::rc::Rc<Accessor>>)],
    n: usize,
) -> (Option<Vec<[u16; 4]>>, Option<Vec<[f32; 4]>>, usize) {
    if sets.is_empty() {
        return (None, None, 0);
    }
    let mut over = 0;
    let (joints, weights) = (0..n)
        .map(|i| {
            let mut influences: Vec<(usize, f64)> = Vec::new();
            for (j, w) in sets {
                let (Some(j), Some(w)) = (j, w) else {
                    continue;
                };
                let js = j.values.get(4 * i..4 * i + 4).unwrap_or_default();
                let ws = w.values.get(4 * i..4 * i + 4).unwrap_or_default();
                for (&j, &w) in js.iter().zip(ws) {
                    if w > 0.0 {
                        match influences.iter_mut().find(|(k, _)| *k == j as usize) {
                            Some(x) => x.1 += w,
                            None => influences.push((j as usize, w)),
                        }
                    }
                }
            }
            if influences.len() > 4 {
                over += 1;
            }
            // One set whose weights already sum to 1 (as glTF asks, within its
            // tolerance) is kept as stored.
            if let [(Some(j), Some(w))] = sets {
                let js = j.values.get(4 * i..4 * i + 4).unwrap_or_default();
                let ws = w.values.get(4 * i..4 * i + 4).unwrap_or_default();
                let sum: f64 = ws.iter().sum();
                let valid = ws.iter().all(|w| w.is_finite() && *w >= 0.0)
                    && js.iter().all(|&j| j < f64::from(1u32 << 16))
                    && (sum - 1.0).abs() <= 2e-3;
                if let (true, Ok(js), Ok(ws)) =
                    (valid, <&[f64; 4]>::try_from(js), <&[f64; 4]>::try_from(ws))
                {
                    return (js.map(|j| j as u16), ws.map(|w| w as f32));
                }
            }
            super::skin::vertex_skin(influences, 1 << 16)
        })
        .unzip();
    (Some(joints), Some(weights), over)
}

/// An affine map of vertices: points by the matrix, normals by the inverse transpose of
/// its 3×3 part (made unit length again; the sign kept under mirroring), directions
/// (morph target deltas) by the 3×3 part.
struct Affine {
    m: Mat4,
    /// Rows of the cofactor matrix of the 3×3 part, times the determinant's sign.
    cofactors: [[f64; 3]; 3],
    mirrors: bool,
}

impl Affine {
    fn new(m: &Mat4) -> Affine {
        let [a00, a10, a20, _, a01, a11, a21, _, a02, a12, a22, _, _, _, _, _] = *m;
        let c = [
            [
                a11 * a22 - a12 * a21,
                a12 * a20 - a10 * a22,
                a10 * a21 - a11 * a20,
            ],
            [
                a02 * a21 - a01 * a22,
                a00 * a22 - a02 * a20,
                a01 * a20 - a00 * a21,
            ],
            [
                a01 * a12 - a02 * a11,
                a02 * a10 - a00 * a12,
                a00 * a11 - a01 * a10,
            ],
        ];
        let det = a00 * c[0][0] + a01 * c[0][1] + a02 * c[0][2];
        let sign = if det < 0.0 { -1.0 } else { 1.0 };
        Affine {
            m: *m,
            cofactors: c.map(|row| row.map(|x| sign * x)),
            mirrors: det < 0.0,
        }
    }

    fn direction(&self, v: [f32; 3], w: f64) -> [f32; 3] {
        let [x, y, z] = v.map(f64::from);
        let m = &self.m;
        let at = |k: usize| m.get(k).copied().unwrap_or(0.0);
        [0, 1, 2].map(|r| (at(r) * x + at(4 + r) * y + at(8 + r) * z + w * at(12 + r)) as f32)
    }

    fn point(&self, v: [f32; 3]) -> [f32; 3] {
        self.direction(v, 1.0)
    }

    fn normal(&self, n: [f32; 3]) -> [f32; 3] {
        let [x, y, z] = n.map(f64::from);
        let t = self.cofactors.map(|[p, q, r]| p * x + q * y + r * z);
        let len = t.iter().map(|c| c * c).sum::<f64>().sqrt();
        if len > 0.0 && len.is_finite() {
            t.map(|c| (c / len) as f32)
        } else {
            [0.0, 0.0, 1.0]
        }
    }

    /// Vertex `i` of `p` (position, normal, morph target deltas) moved.
    fn move_vertex(&self, p: &mut Primitive, i: usize) {
        if let Some(v) = p.positions.get_mut(i) {
            *v = self.point(*v);
        }
        if let Some(n) = p.normals.as_mut().and_then(|n| n.get_mut(i)) {
            *n = self.normal(*n);
        }
        for t in &mut p.morph_targets {
            if let Some(d) = t.position_deltas.get_mut(i) {
                *d = self.direction(*d, 0.0);
            }
        }
    }
}

use super::skin::{mul as mul4, normalize_quat, trs_matrix, Mat4, IDENTITY as IDENTITY4};

/// A node's local matrix: its `matrix`, or `T × R × S` (glTF 2.0, "Transformations").
fn local_matrix(n: &Value, ctx: &str) -> Result<Mat4> {
    Ok(match node_trs(n, ctx)? {
        Some((t, q, s)) => trs_matrix(t, q, s),
        None => numbers(n, "matrix", IDENTITY4, ctx)?,
    })
}

/// Translation, unit rotation (x, y, z, w) and scale.
type Trs = ([f64; 3], [f64; 4], [f64; 3]);

/// A node's translation, rotation (made unit length) and scale, or `None` when it
/// gives a `matrix` instead.
fn node_trs(n: &Value, ctx: &str) -> Result<Option<Trs>> {
    if n.get("matrix").is_some() {
        return Ok(None);
    }
    let t = numbers(n, "translation", [0.0; 3], ctx)?;
    let q = numbers(n, "rotation", [0.0, 0.0, 0.0, 1.0], ctx)?;
    let s = numbers(n, "scale", [1.0; 3], ctx)?;
    Ok(Some((t, normalize_quat(q), s)))
}

/// `N` finite numbers under `key` of a node, or `default` when it has none.
fn numbers<const N: usize>(n: &Value, key: &str, default: [f64; N], ctx: &str) -> Result<[f64; N]> {
    let Some(v) = n.get(key) else {
        return Ok(default);
    };
    let a: Option<Vec<f64>> = v
        .as_array()
        .and_then(|a| a.iter().map(Value::as_f64).collect());
    a.filter(|a| a.iter().all(|x| x.is_finite()))
        .and_then(|a| <[f64; N]>::try_from(a).ok())
        .ok_or_else(|| bad(format!("{ctx}: {key} must be {N} finite numbers")))
}

/// A primitive moved by `m`: positions by `m`, normals by the inverse transpose of its
/// 3×3 part (made unit length again), morph target deltas by its 3×3 part, and the
/// winding reversed where `m` mirrors, so the front faces stay in front.
fn transformed(p: &Primitive, m: &Mat4) -> Primitive {
    let a = Affine::new(m);
    let mut out = p.clone();
    for i in 0..out.positions.len() {
        a.move_vertex(&mut out, i);
    }
    if a.mirrors {
        for t in &mut out.triangles {
            t.swap(1, 2);
        }
    }
    out
}

/// What the scene's nodes make of the meshes: see [`place`].
struct Placed {
    meshes: Vec<ExportMesh>,
    skeleton: Option<super::Skeleton>,
    animations: Vec<super::Animation>,
    notes: Vec<super::ExportNote>,
}

/// One node that places a mesh, as the walk finds it.
struct Use {
    node: usize,
    mesh: usize,
    world: Mat4,
    skin: Option<usize>,
    lod: usize,
}

/// The level of detail a name gives: a trailing `LOD k` (`"Body LOD 1"`, `"body_lod2"`,
/// `"Cube.LOD3"`), else none.
fn lod_of_name(name: &str) -> Option<usize> {
    let digits = name.trim_end_matches(|c: char| c.is_ascii_digit());
    let k: usize = name.get(digits.len()..)?.parse().ok()?;
    let rest = digits.trim_end_matches([' ', '_', '-', '.']);
    let lod = rest.get(rest.len().checked_sub(3)?..)?;
    lod.eq_ignore_ascii_case("lod").then_some(k)
}

/// The meshes as the scene's nodes place them: one copy per node that names a mesh, in
/// the order the default scene's node trees are walked (depth first), transformed by the
/// node's world matrix. A skinned mesh's node is not moved (glTF: its joints place it);
/// its joints are renumbered into one skeleton of every skin the placed meshes use
/// ([`skins`]), and the animations of those joints are read. Meshes no node of the
/// scene names follow, as they are. Copies beyond the first of a mesh count against the
/// decoding budget, so a file cannot multiply a big mesh without limit.
///
/// Levels of detail: the nodes a node's `MSFT_lod` extension lists are placed where it
/// is, as LODs 1, 2 …; otherwise a node or mesh name ending in `LOD k` gives LOD k.
fn place(
    doc: &Value,
    mut meshes: Vec<ExportMesh>,
    budget: &std::cell::Cell<u64>,
    fetch: &mut skins::Fetch<'_>,
) -> Result<Placed> {
    let empty = Vec::new();
    let nodes = doc.get("nodes").and_then(Value::as_array).unwrap_or(&empty);
    let mut notes = Vec::new();
    let mut note = |count: usize, detail: String| {
        if count > 0 {
            notes.push(super::ExportNote {
                kind: super::NoteKind::NotImported,
                count,
                detail,
            });
        }
    };
    // A list of node indices (`children`, a scene's `nodes`, `MSFT_lod.ids`).
    let indices = |v: Option<&Value>| -> Vec<usize> {
        v.and_then(Value::as_array)
            .map(|c| {
                c.iter()
                    .filter_map(Value::as_u64)
                    .map(|i| i as usize)
                    .collect()
            })
            .unwrap_or_default()
    };
    let children = |n: &Value| indices(n.get("children"));
    let scenes = doc
        .get("scenes")
        .and_then(Value::as_array)
        .unwrap_or(&empty);
    let chosen = uint(doc, "scene", "glTF")?.unwrap_or(0);
    let roots: Vec<usize> = match scenes.get(chosen) {
        Some(scene) => indices(scene.get("nodes")),
        // No scene: every node that is no other's child is a root.
        None => {
            let mut child = vec![false; nodes.len()];
            for n in nodes {
                for c in children(n) {
                    if let Some(x) = child.get_mut(c) {
                        *x = true;
                    }
                }
            }
            child
                .iter()
                .enumerate()
                .filter(|(_, c)| !**c)
                .map(|(i, _)| i)
                .collect()
        }
    };
    let mut uses: Vec<Use> = Vec::new();
    let mut visited = vec![false; nodes.len()];
    // (node, parent's world matrix, LOD given by an MSFT_lod list)
    let mut stack: Vec<(usize, Mat4, Option<usize>)> = roots
        .into_iter()
        .rev()
        .map(|r| (r, IDENTITY4, None))
        .collect();
    while let Some((i, parent, lod)) = stack.pop() {
        let ctx = format!("glTF node {i}");
        let node = nodes
            .get(i)
            .ok_or_else(|| bad(format!("{ctx}: no such node ({} nodes)", nodes.len())))?;
        if visited
            .get_mut(i)
            .is_some_and(|v| std::mem::replace(v, true))
        {
            return Err(bad(format!(
                "{ctx} is reached twice: nodes must form trees (glTF 2.0, \"Nodes and Hierarchy\")"
            )));
        }
        let world = mul4(&parent, &local_matrix(node, &ctx)?);
        if let Some(m) = uint(node, "mesh", &ctx)? {
            let mesh = meshes
                .get(m)
                .ok_or_else(|| bad(format!("{ctx}: mesh {m} of {}", meshes.len())))?;
            let named = node
                .get("name")
                .and_then(Value::as_str)
                .and_then(lod_of_name)
                .or_else(|| lod_of_name(&mesh.name));
            uses.push(Use {
                node: i,
                mesh: m,
                world,
                skin: uint(node, "skin", &ctx)?,
                lod: lod.or(named).unwrap_or(0),
            });
        }
        for c in children(node).into_iter().rev() {
            stack.push((c, world, None));
        }
        // The coarser levels of this node, placed where it is.
        let lods = indices(
            node.get("extensions")
                .and_then(|e| e.get("MSFT_lod"))
                .and_then(|l| l.get("ids")),
        );
        for (k, &l) in lods.iter().enumerate().rev() {
            stack.push((l, parent, Some(k + 1)));
        }
    }
    let mut used_skins: Vec<usize> = uses.iter().filter_map(|u| u.skin).collect();
    used_skins.sort_unstable();
    used_skins.dedup();
    let all_skins = doc
        .get("skins")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    let unused = all_skins - used_skins.len().min(all_skins);
    // No placed mesh is skinned: a skeleton (and its animations) alone, as an
    // animation file exports, is read from every skin.
    let unused = if used_skins.is_empty() {
        used_skins = (0..all_skins).collect();
        0
    } else {
        unused
    };
    let node_graph = skins::Nodes::read(doc)?;
    let skins = skins::Skins::build(doc, &node_graph, &used_skins, fetch)?;
    note(
        unused,
        format!("{unused} skins that no placed mesh uses (their joints and bind matrices) were not imported"),
    );
    let mut out = Vec::new();
    let mut placed = vec![false; meshes.len()];
    let mut unbound = 0usize;
    for u in &uses {
        let ctx = format!("glTF node {}", u.node);
        let Some(mesh) = meshes.get(u.mesh) else {
            continue;
        };
        if placed
            .get_mut(u.mesh)
            .is_some_and(|p| std::mem::replace(p, true))
        {
            let values: usize = mesh
                .primitives
                .iter()
                .map(|p| p.positions.len() * 3 + p.triangles.len() * 3)
                .sum();
            charge(budget, values, &ctx)?;
        }
        let mut primitives = match u.skin {
            Some(_) => mesh.primitives.clone(),
            None if u.world == IDENTITY4 => mesh.primitives.clone(),
            None => mesh
                .primitives
                .iter()
                .map(|p| transformed(p, &u.world))
                .collect(),
        };
        for p in &mut primitives {
            match u.skin {
                Some(s) => skins.apply(s, p, &ctx)?,
                None if p.joints.is_some() => {
                    p.joints = None;
                    p.weights = None;
                    unbound += 1;
                }
                None => {}
            }
        }
        let name = nodes
            .get(u.node)
            .and_then(|n| n.get("name"))
            .and_then(Value::as_str)
            .unwrap_or(&mesh.name)
            .to_string();
        out.push(ExportMesh {
            name,
            primitives,
            lod: u.lod,
        });
    }
    for (mesh, placed) in meshes.iter_mut().zip(placed) {
        if !placed {
            for p in &mut mesh.primitives {
                if p.joints.take().is_some() {
                    p.weights = None;
                    unbound += 1;
                }
            }
            mesh.lod = lod_of_name(&mesh.name).unwrap_or(0);
            out.push(std::mem::take(mesh));
        }
    }
    note(
        unbound,
        format!(
            "the skin influences of {unbound} primitives whose node has no skin were not imported"
        ),
    );
    let (skeleton, animations) = if used_skins.is_empty() {
        let n = doc
            .get("animations")
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        note(
            n,
            format!(
                "{n} animations were not imported: only animations of a placed skin's joints are"
            ),
        );
        (None, Vec::new())
    } else {
        let (skeleton, between) = skins.skeleton(doc, &node_graph);
        let (animations, more) = skins.animations(doc, &between, fetch)?;
        notes.extend(more);
        (Some(skeleton), animations)
    };
    Ok(Placed {
        meshes: out,
        skeleton,
        animations,
        notes,
    })
}

/// A primitive compressed with `KHR_draco_mesh_compression`: its buffer view decoded
/// with the crate's Draco decoder, the attributes the scene carries (POSITION, NORMAL,
/// TEXCOORD_0, COLOR_0) taken by the unique ids the extension names, normalized where
/// their accessors say so, and the decoded triangles. The decoded values count against
/// the decoding budget.
fn draco_primitive(
    doc: &Value,
    p: &Value,
    draco: &Value,
    buffers: &[Vec<u8>],
    budget: &std::cell::Cell<u64>,
    ctx: &str,
) -> Result<Primitive> {
    let ctx = format!("{ctx} KHR_draco_mesh_compression");
    let view_index =
        uint(draco, "bufferView", &ctx)?.ok_or_else(|| bad(format!("{ctx}: no bufferView")))?;
    let view = entry(doc, "bufferViews", view_index, &ctx)?;
    let buffer = buffers
        .get(uint(view, "buffer", &ctx)?.unwrap_or(usize::MAX))
        .ok_or_else(|| bad(format!("{ctx}: its buffer view names no buffer")))?;
    let start = uint(view, "byteOffset", &ctx)?.unwrap_or(0);
    let len = uint(view, "byteLength", &ctx)?.unwrap_or(0);
    let bitstream = buffer
        .get(start..start.saturating_add(len))
        .ok_or_else(|| bad(format!("{ctx}: buffer view outside its buffer")))?;
    // (name, unique id, normalized) of the attributes the scene carries.
    let mut wanted: Vec<(&str, u32, bool)> = Vec::new();
    for name in ["POSITION", "NORMAL", "TEXCOORD_0", "COLOR_0"] {
        let Some(uid) = draco
            .get("attributes")
            .and_then(|a| a.get(name))
            .and_then(Value::as_u64)
        else {
            continue;
        };
        let uid = u32::try_from(uid).map_err(|_| bad(format!("{ctx}: {name} id {uid}")))?;
        let normalized = p
            .get("attributes")
            .and_then(|a| uint(a, name, &ctx).ok().flatten())
            .and_then(|k| doc.get("accessors")?.get(k))
            .and_then(|a| a.get("normalized"))
            .and_then(Value::as_bool)
            .unwrap_or(false);
        wanted.push((name, uid, normalized));
    }
    if !wanted.iter().any(|w| w.0 == "POSITION") {
        return Err(bad(format!("{ctx}: no POSITION")));
    }
    // What is left of the budget, in bytes of decoded values, is the decoder's ceiling.
    let limits = crate::Limits {
        max_decoded_bytes: budget.get().saturating_mul(8),
        ..crate::Limits::default()
    };
    let ids: Vec<(u32, bool)> = wanted.iter().map(|w| (w.1, w.2)).collect();
    let d = crate::codec::draco::decode_attributes(bitstream, &ids, &limits)
        .map_err(|e| bad(format!("{ctx}: {e}")))?;
    let mut prim = Primitive {
        triangles: d.faces,
        ..Primitive::default()
    };
    for ((name, _, _), (n, values)) in wanted.iter().zip(d.attributes) {
        charge(budget, values.len(), &ctx)?;
        let rows = values.chunks_exact(n.max(1));
        let want = |dims: &[usize]| {
            if dims.contains(&n) {
                Ok(())
            } else {
                Err(bad(format!("{ctx}: {name} has {n} components")))
            }
        };
        match *name {
            "POSITION" => {
                want(&[3])?;
                prim.positions = rows.map(fixed).collect();
            }
            "NORMAL" => {
                want(&[3])?;
                prim.normals = Some(rows.map(fixed).collect());
            }
            "TEXCOORD_0" => {
                want(&[2])?;
                prim.uvs = Some(rows.map(fixed).collect());
            }
            _ => {
                want(&[3, 4])?;
                prim.colors = Some(
                    rows.map(|x| {
                        let [r, g, b] = fixed::<3>(x);
                        [r, g, b, x.get(3).map_or(1.0, |&a| a as f32)]
                    })
                    .collect(),
                );
            }
        }
    }
    Ok(prim)
}

/// The first `N` values of `v` as f32 (zeros where it is shorter).
fn fixed<const N: usize>(v: &[f64]) -> [f32; N] {
    let mut out = [0.0; N];
    for (o, x) in out.iter_mut().zip(v) {
        *o = *x as f32;
    }
    out
}

/// Reads accessor `k` as numbers, element by element, checking what the glTF spec
/// constrains: the element type, the component type, the stride, and that every element
/// lies inside its buffer view and buffer. Normalized integers map to 0..=1 (unsigned) or
/// −1..=1 (signed). Sparse accessors and accessors without a buffer view are refused.
/// A decoded accessor: `count` elements of `n` components, flat.
struct Accessor {
    n: usize,
    values: Vec<f64>,
}

impl Accessor {
    fn count(&self) -> usize {
        self.values.len() / self.n.max(1)
    }

    fn elements(&self) -> std::slice::ChunksExact<'_, f64> {
        self.values.chunks_exact(self.n.max(1))
    }
}

/// Charges `values` decoded numbers to the import's budget.
fn charge(budget: &std::cell::Cell<u64>, values: usize, ctx: &str) -> Result<()> {
    let cost = (values as u64).saturating_mul(8);
    let left = budget.get();
    if cost > left {
        return Err(Error::new(
            "import",
            ErrorKind::LimitExceeded {
                what: "decoded glTF accessors (uses counted; the file's size sets the limit)",
                requested: cost,
                limit: left,
            },
        )
        .within(ctx));
    }
    budget.set(left - cost);
    Ok(())
}

fn read_accessor(
    doc: &Value,
    k: usize,
    buffers: &[Vec<u8>],
    dims: &[usize],
    ctx: &str,
    budget: &std::cell::Cell<u64>,
) -> Result<Accessor> {
    let a = entry(doc, "accessors", k, ctx)?;
    let n = match a.get("type").and_then(Value::as_str) {
        Some("SCALAR") => 1,
        Some("VEC2") => 2,
        Some("VEC3") => 3,
        Some("VEC4") => 4,
        Some("MAT4") => 16,
        t => return Err(bad(format!("{ctx}: accessor type {t:?}"))),
    };
    if !dims.contains(&n) {
        return Err(bad(format!("{ctx}: {n} components per element")));
    }
    let component_type = uint(a, "componentType", ctx)?.unwrap_or(0);
    let normalized = a
        .get("normalized")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let count = uint(a, "count", ctx)?.unwrap_or(0);
    charge(budget, count.saturating_mul(n), ctx)?;
    let layout = Layout {
        component_type,
        normalized,
        n,
    };
    // No buffer view: zeros (glTF 2.0, "Sparse Accessors"), which a sparse part may
    // replace.
    let mut values = match uint(a, "bufferView", ctx)? {
        Some(view) => {
            let offset = uint(a, "byteOffset", ctx)?.unwrap_or(0);
            read_elements(doc, buffers, view, offset, count, layout, true, ctx)?
        }
        None => vec![0.0; count * n],
    };
    if let Some(sparse) = a.get("sparse") {
        let sctx = format!("{ctx} sparse");
        let m = uint(sparse, "count", &sctx)?.unwrap_or(0);
        let part = |key: &str| {
            sparse
                .get(key)
                .ok_or_else(|| bad(format!("{sctx}: no {key}")))
        };
        let (ix, vx) = (part("indices")?, part("values")?);
        let index_layout = Layout {
            component_type: uint(ix, "componentType", &sctx)?.unwrap_or(0),
            normalized: false,
            n: 1,
        };
        if !matches!(index_layout.component_type, 5121 | 5123 | 5125) {
            return Err(bad(format!(
                "{sctx}: index componentType {}",
                index_layout.component_type
            )));
        }
        let view = |v: &Value| {
            uint(v, "bufferView", &sctx)?.ok_or_else(|| bad(format!("{sctx}: no buffer view")))
        };
        let indices = read_elements(
            doc,
            buffers,
            view(ix)?,
            uint(ix, "byteOffset", &sctx)?.unwrap_or(0),
            m,
            index_layout,
            false,
            &sctx,
        )?;
        let replaced = read_elements(
            doc,
            buffers,
            view(vx)?,
            uint(vx, "byteOffset", &sctx)?.unwrap_or(0),
            m,
            layout,
            false,
            &sctx,
        )?;
        for (&i, v) in indices.iter().zip(replaced.chunks_exact(n)) {
            let i = i as usize;
            let slot = values
                .get_mut(i * n..i * n + n)
                .ok_or_else(|| bad(format!("{sctx}: index {i} of {count} elements")))?;
            slot.copy_from_slice(v);
        }
    }
    Ok(Accessor { n, values })
}

/// How an accessor's elements are stored: component type, normalization, components.
#[derive(Clone, Copy)]
struct Layout {
    component_type: usize,
    normalized: bool,
    n: usize,
}

/// `count` elements of `layout` from buffer view `view_index` at `offset`, as f64
/// (normalized integers scaled to [0, 1] or [−1, 1]); `strided` honours the view's
/// `byteStride` (sparse parts are always tightly packed).
#[allow(clippy::too_many_arguments)]
fn read_elements(
    doc: &Value,
    buffers: &[Vec<u8>],
    view_index: usize,
    offset: usize,
    count: usize,
    layout: Layout,
    strided: bool,
    ctx: &str,
) -> Result<Vec<f64>> {
    let Layout {
        component_type,
        normalized,
        n,
    } = layout;
    let size = match component_type {
        5120 | 5121 => 1,
        5122 | 5123 => 2,
        5125 | 5126 => 4,
        t => return Err(bad(format!("{ctx}: componentType {t}"))),
    };
    let view = entry(doc, "bufferViews", view_index, ctx)?;
    let buffer = buffers
        .get(uint(view, "buffer", ctx)?.unwrap_or(usize::MAX))
        .ok_or_else(|| bad(format!("{ctx}: its buffer view names no buffer")))?;
    let view_offset = uint(view, "byteOffset", ctx)?.unwrap_or(0);
    let view_len = uint(view, "byteLength", ctx)?.unwrap_or(0);
    let view_bytes = buffer
        .get(view_offset..view_offset.saturating_add(view_len))
        .ok_or_else(|| bad(format!("{ctx}: buffer view outside its buffer")))?;
    let elem = size * n;
    let stride = match uint(view, "byteStride", ctx)?.filter(|_| strided) {
        None | Some(0) => elem,
        Some(s) if s >= elem => s,
        Some(s) => return Err(bad(format!("{ctx}: stride {s} below element size {elem}"))),
    };
    if count > 0 {
        let end = (count - 1)
            .checked_mul(stride)
            .and_then(|x| x.checked_add(offset))
            .and_then(|x| x.checked_add(elem));
        if end.is_none_or(|e| e > view_bytes.len()) {
            return Err(bad(format!(
                "{ctx}: {count} elements do not fit their {}-byte buffer view",
                view_bytes.len()
            )));
        }
    }
    let component = |b: &[u8]| -> f64 {
        let get = |i: usize| b.get(i).copied().unwrap_or(0);
        let unit = |v: f64, max: f64| if normalized { (v / max).max(-1.0) } else { v };
        match component_type {
            5126 => f64::from(f32::from_le_bytes([get(0), get(1), get(2), get(3)])),
            5125 => f64::from(u32::from_le_bytes([get(0), get(1), get(2), get(3)])),
            5123 => unit(f64::from(u16::from_le_bytes([get(0), get(1)])), 65535.0),
            5122 => unit(f64::from(i16::from_le_bytes([get(0), get(1)])), 32767.0),
            5121 => unit(f64::from(get(0)), 255.0),
            _ => unit(f64::from(get(0) as i8), 127.0),
        }
    };
    let mut values = Vec::with_capacity(count * n);
    for i in 0..count {
        let start = offset + i * stride;
        let e = view_bytes.get(start..start + elem).unwrap_or_default();
        values.extend(e.chunks_exact(size).map(component));
    }
    Ok(values)
}

/// Reads an external buffer: `uri` percent-decoded, resolved in `dir`, and required to
/// be a regular file inside `root` no smaller than `declared` (of which that many bytes
/// are read).
fn read_external(
    dir: &Path,
    root: &Path,
    uri: &str,
    declared: usize,
    ctx: &str,
) -> Result<Vec<u8>> {
    use std::io::Read;
    let refuse = |why: String| bad(format!("{ctx}: external buffer {uri:?}: {why}"));
    let name = percent_decode(uri).ok_or_else(|| refuse("malformed percent-encoding".into()))?;
    if let Some((scheme, _)) = name.split_once(':') {
        if !scheme.contains('/') && !scheme.contains('\\') {
            return Err(refuse(format!(
                "a {scheme}: URI; only data: URIs and relative file names are read"
            )));
        }
    }
    let rel = Path::new(&name);
    if rel.is_absolute() || name.starts_with('/') || name.starts_with('\\') {
        return Err(refuse(
            "an absolute path; buffers are read relative to the glTF file".into(),
        ));
    }
    if rel.components().any(|c| {
        !matches!(
            c,
            std::path::Component::Normal(_) | std::path::Component::CurDir
        )
    }) {
        return Err(refuse("a path leaving the glTF's folder (`..`)".into()));
    }
    let path = dir.join(rel);
    let real = path
        .canonicalize()
        .map_err(|e| refuse(format!("cannot open: {e}")))?;
    let root = root
        .canonicalize()
        .map_err(|e| refuse(format!("cannot resolve the resource folder: {e}")))?;
    if !real.starts_with(&root) {
        return Err(refuse(format!(
            "it leads out of {} (through a symbolic link); pass --resource-root to allow \
             another folder",
            root.display()
        )));
    }
    let meta = std::fs::metadata(&real).map_err(|e| refuse(format!("cannot open: {e}")))?;
    if !meta.is_file() {
        return Err(refuse("not a regular file".into()));
    }
    if meta.len() < declared as u64 {
        return Err(refuse(format!(
            "the file holds {} bytes, byteLength declares {declared}",
            meta.len()
        )));
    }
    let mut data = Vec::new();
    std::fs::File::open(&real)
        .and_then(|f| f.take(declared as u64).read_to_end(&mut data))
        .map_err(|e| refuse(format!("cannot read: {e}")))?;
    Ok(data)
}

/// `%XX` escapes decoded (RFC 3986), the result as UTF-8; `None` if malformed.
fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        if c == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(c);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// Parses one OBJ index (1-based, or negative from the end) against `len` entries.
fn obj_index(token: &str, len: usize, line: usize) -> Result<usize> {
    let i: i64 = token
        .parse()
        .map_err(|_| bad(format!("OBJ line {line}: index {token:?}")))?;
    let k = if i > 0 { i - 1 } else { len as i64 + i };
    if i == 0 || k < 0 || k >= len as i64 {
        return Err(bad(format!(
            "OBJ line {line}: index {i} out of range (of {len})"
        )));
    }
    Ok(k as usize)
}

fn floats<const N: usize>(parts: &[&str], line: usize) -> Result<[f32; N]> {
    let mut v = [0f32; N];
    for (k, x) in v.iter_mut().enumerate() {
        let t = parts
            .get(k)
            .ok_or_else(|| bad(format!("OBJ line {line}: {N} numbers expected")))?;
        *x = t
            .parse()
            .map_err(|_| bad(format!("OBJ line {line}: number {t:?}")))?;
    }
    Ok(v)
}

/// An OBJ face corner: position, UV and normal indices (0-based).
type Corner = (usize, Option<usize>, Option<usize>);

/// Reads OBJ text.
pub fn read_obj(text: &str) -> Result<Scene> {
    // Memory follows the distinct vertices and the triangles: each corner is resolved
    // to its primitive's vertex as its face is read (no list of corners is kept).
    let (mut v, mut vc, mut vt, mut vn) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut has_colors = false;
    let mut name = String::new();
    let mut groups: Vec<ObjGroup> = Vec::new();
    let mut ids: Vec<u32> = Vec::new();
    for (k, raw) in text.lines().enumerate() {
        let line = k + 1;
        let l = raw.split('#').next().unwrap_or("").trim();
        let mut it = l.split_whitespace();
        let Some(tag) = it.next() else { continue };
        match tag {
            "v" => {
                let parts: Vec<&str> = it.collect();
                v.push(floats::<3>(&parts, line)?);
                if parts.len() >= 6 {
                    let [r, g, b] = floats::<3>(parts.get(3..).unwrap_or_default(), line)?;
                    vc.push([r, g, b, 1.0]);
                    has_colors = true;
                } else {
                    vc.push([1.0; 4]);
                }
            }
            "vt" => {
                // OBJ's V runs up from the image's bottom; the scene's (glTF's) down
                // from its top: 1 − v, in f64 so that what export wrote comes back exact.
                let parts = it.collect::<Vec<_>>();
                let [u] = floats::<1>(&parts, line)?;
                let v = parts.get(1).map_or(Ok(0.0), |t| {
                    t.parse::<f64>()
                        .map_err(|_| bad(format!("OBJ line {line}: number {t:?}")))
                })?;
                vt.push([u, (1.0 - v) as f32]);
            }
            "vn" => vn.push(floats::<3>(&it.collect::<Vec<_>>(), line)?),
            "o" | "g" => {
                name = it.collect::<Vec<_>>().join(" ");
                groups.push(ObjGroup::new(name.clone()));
            }
            "f" => {
                if groups.is_empty() {
                    groups.push(ObjGroup::new(name.clone()));
                }
                let Some(g) = groups.last_mut() else {
                    continue;
                };
                ids.clear();
                for p in it {
                    let mut f = p.split('/');
                    let pos = obj_index(f.next().unwrap_or(""), v.len(), line)?;
                    let uv = match f.next() {
                        Some("") | None => None,
                        Some(t) => Some(obj_index(t, vt.len(), line)?),
                    };
                    let normal = match f.next() {
                        Some("") | None => None,
                        Some(t) => Some(obj_index(t, vn.len(), line)?),
                    };
                    ids.push(g.vertex((pos, uv, normal), &v, &vc, &vt, &vn)?);
                }
                if ids.len() < 3 {
                    return Err(bad(format!("OBJ line {line}: a face needs 3 corners")));
                }
                for w in 1..ids.len() - 1 {
                    if let (Some(&a), Some(&b), Some(&c)) =
                        (ids.first(), ids.get(w), ids.get(w + 1))
                    {
                        g.p.triangles.push([a, b, c]);
                    }
                }
            }
            _ => {}
        }
    }
    let primitives = groups
        .into_iter()
        .filter(|g| !g.p.triangles.is_empty())
        .map(|g| {
            let mut p = g.p;
            if !g.all_uv {
                p.uvs = None;
            }
            if !g.all_normals {
                p.normals = None;
            }
            if !has_colors {
                p.colors = None;
            }
            p
        })
        .collect();
    Ok(Scene {
        meshes: vec![ExportMesh {
            lod: 0,
            name: String::new(),
            primitives,
        }],
        ..Scene::default()
    })
}

/// An OBJ group (`o`/`g`) being read: its primitive, one vertex per distinct corner.
struct ObjGroup {
    p: Primitive,
    index: HashMap<Corner, u32>,
    all_uv: bool,
    all_normals: bool,
}

impl ObjGroup {
    fn new(name: String) -> ObjGroup {
        ObjGroup {
            p: Primitive {
                name,
                normals: Some(Vec::new()),
                uvs: Some(Vec::new()),
                colors: Some(Vec::new()),
                ..Primitive::default()
            },
            index: HashMap::new(),
            all_uv: true,
            all_normals: true,
        }
    }

    /// The vertex of corner `c`, added at its first use.
    fn vertex(
        &mut self,
        c: Corner,
        v: &[[f32; 3]],
        vc: &[[f32; 4]],
        vt: &[[f32; 2]],
        vn: &[[f32; 3]],
    ) -> Result<u32> {
        if let Some(&i) = self.index.get(&c) {
            return Ok(i);
        }
        let p = &mut self.p;
        let i = u32::try_from(p.positions.len())
            .map_err(|_| bad("more OBJ vertices than 32-bit indices reach"))?;
        p.positions.push(v.get(c.0).copied().unwrap_or_default());
        self.all_normals &= c.2.is_some();
        self.all_uv &= c.1.is_some();
        if let Some(n) = &mut p.normals {
            n.push(c.2.and_then(|k| vn.get(k)).copied().unwrap_or_default());
        }
        if let Some(u) = &mut p.uvs {
            u.push(c.1.and_then(|k| vt.get(k)).copied().unwrap_or_default());
        }
        if let Some(col) = &mut p.colors {
            col.push(vc.get(c.0).copied().unwrap_or([1.0; 4]));
        }
        self.index.insert(c, i);
        Ok(i)
    }
}
