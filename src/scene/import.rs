//! Import: glTF 2.0 (`.gltf`, `.glb`) and OBJ into a [`Scene`] (each format's own
//! `scene` module turns a scene into its model, see [`scene`](super)).
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
//!
//! The stages, one file each: `buffers` (GLB chunks, data URIs, external files),
//! `accessors` (typed arrays decoded and charged to the budget), `draco`
//! (`KHR_draco_mesh_compression`), this file (primitives), `transform` and `place` (the
//! node trees), `skins` (skeleton and animations), `unread` (what is not imported) and
//! `obj` (OBJ). `json` holds the error and the checked JSON access they all use.
//!
//! # Example
//!
//! ```
//! use meshcodec::{open, scene, Limits, MeshFile};
//!
//! let s = open(include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/roundtrip-fixtures/csgmdl/csgmdl5-quad-lod.bin")))?.to_scene(&Default::default(), &Limits::default())?;
//! let glb = scene::gltf::to_glb(&s)?;
//! let back = scene::import::read_gltf(&glb, None)?;
//! assert_eq!(back.meshes[0].primitives[0].triangles, s.meshes[0].primitives[0].triangles);
//! # Ok::<(), meshcodec::Error>(())
//! ```

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

mod accessors;
mod buffers;
mod draco;
mod json;
mod obj;
mod place;
mod skins;
mod transform;
mod unread;

use self::accessors::{charge, fixed, read_accessor, Accessor};
use self::buffers::{base64_decode, read_external, split_glb};
use self::draco::draco_primitive;
use self::json::uint;
use self::place::place;
use super::{ExportMesh, MorphTarget, Primitive, Scene};
use crate::error::Result;

pub(crate) use self::json::bad;
pub use self::obj::read_obj;

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
    unread::check_required_extensions(&doc)?;
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
            // A primitive is named after its material where it has one (the UNIGINE
            // surface it came from, say, through Blender), else after its place.
            let material = p
                .get("material")
                .and_then(Value::as_u64)
                .and_then(|k| doc.get("materials")?.get(usize::try_from(k).ok()?))
                .and_then(|m| m.get("name"))
                .and_then(Value::as_str)
                .map(str::to_string);
            let prim = Primitive {
                name: material.clone().unwrap_or_else(|| format!("{mname}/{i}")),
                material,
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
    let mut notes = unread::gltf_unread(&doc);
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
