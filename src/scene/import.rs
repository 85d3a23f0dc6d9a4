//! Import: glTF 2.0 (`.gltf`, `.glb`) and OBJ into a [`Scene`], and a scene into a
//! Roblox FileMesh model (which then writes any version).
//!
//! glTF is read with `serde_json` and walked here, every index and range checked (the
//! `gltf` crate's validation panics on some damaged files). Buffers come from the GLB's BIN chunk, from
//! `data:` URIs (base64), or from files next to the `.gltf`. Every mesh primitive in
//! triangle mode becomes a [`Primitive`] with positions, normals, `TEXCOORD_0` and
//! `COLOR_0`, in mesh-local coordinates (node transforms are not applied).
//!
//! OBJ: `v` (with optional r g b), `vt`, `vn`, and `f` with `v`, `v/t`, `v//n`, `v/t/n`
//! corners (negative indices count from the end); polygons are split into fans; `o`
//! and `g` start a new primitive. Each distinct corner (position, UV, normal) becomes one
//! vertex.

use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use super::{ExportMesh, Primitive, Scene};
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
    let (json, bin) = split_glb(bytes)?;
    let doc: Value = serde_json::from_slice(json).map_err(|e| bad(format!("glTF JSON: {e}")))?;
    super::unread::check_required_extensions(&doc)?;
    let mut buffers: Vec<Vec<u8>> = Vec::new();
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
                    std::fs::read(dir.join(uri)).map_err(|e| bad(format!("{ctx}: {uri:?}: {e}")))?
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
    let mut meshes = Vec::new();
    let empty = Vec::new();
    for (mi, m) in doc
        .get("meshes")
        .and_then(Value::as_array)
        .unwrap_or(&empty)
        .iter()
        .enumerate()
    {
        let mname = m.get("name").and_then(Value::as_str).unwrap_or("");
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
            let attrs = p.get("attributes");
            let attr = |name: &str, dims: &[usize]| -> Result<Option<Vec<Vec<f64>>>> {
                match attrs.map(|a| uint(a, name, &ctx)).transpose()?.flatten() {
                    None => Ok(None),
                    Some(k) => {
                        read_accessor(&doc, k, &buffers, dims, &format!("{ctx} {name}")).map(Some)
                    }
                }
            };
            let positions: Vec<[f32; 3]> = attr("POSITION", &[3])?
                .ok_or_else(|| bad(format!("{ctx}: no POSITION")))?
                .iter()
                .map(|v| fixed(v))
                .collect();
            let n = positions.len();
            let corners: Vec<u32> = match uint(p, "indices", &ctx)? {
                Some(k) => read_accessor(&doc, k, &buffers, &[1], &format!("{ctx} indices"))?
                    .into_iter()
                    .map(|v| v.first().copied().unwrap_or(0.0) as u32)
                    .collect(),
                None => (0..n as u32).collect(),
            };
            let per_vertex = |v: Option<Vec<Vec<f64>>>, what: &str| match v {
                Some(v) if v.len() != n => {
                    Err(bad(format!("{ctx}: {} {what} for {n} positions", v.len())))
                }
                v => Ok(v),
            };
            let normals = per_vertex(attr("NORMAL", &[3])?, "normals")?;
            let uvs = per_vertex(attr("TEXCOORD_0", &[2])?, "UVs")?;
            let colors = per_vertex(attr("COLOR_0", &[3, 4])?, "colours")?;
            let prim = Primitive {
                name: format!("{mname}/{i}"),
                normals: normals.map(|v| v.iter().map(|x| fixed(x)).collect()),
                uvs: uvs.map(|v| v.iter().map(|x| fixed(x)).collect()),
                colors: colors.map(|v| {
                    v.iter()
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
                joints: None,
                weights: None,
                morph_targets: Vec::new(),
            };
            prim.check()?;
            primitives.push(prim);
        }
        meshes.push(ExportMesh {
            name: mname.to_string(),
            primitives,
        });
    }
    Ok(Scene {
        meshes,
        notes: super::unread::gltf_unread(&doc),
        ..Scene::default()
    })
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
fn read_accessor(
    doc: &Value,
    k: usize,
    buffers: &[Vec<u8>],
    dims: &[usize],
    ctx: &str,
) -> Result<Vec<Vec<f64>>> {
    let a = entry(doc, "accessors", k, ctx)?;
    let n = match a.get("type").and_then(Value::as_str) {
        Some("SCALAR") => 1,
        Some("VEC2") => 2,
        Some("VEC3") => 3,
        Some("VEC4") => 4,
        t => return Err(bad(format!("{ctx}: accessor type {t:?}"))),
    };
    if !dims.contains(&n) {
        return Err(bad(format!("{ctx}: {n} components per element")));
    }
    if a.get("sparse").is_some() {
        return Err(bad(format!("{ctx}: sparse accessors are not supported")));
    }
    let component_type = uint(a, "componentType", ctx)?.unwrap_or(0);
    let size = match component_type {
        5120 | 5121 => 1,
        5122 | 5123 => 2,
        5125 | 5126 => 4,
        t => return Err(bad(format!("{ctx}: componentType {t}"))),
    };
    let normalized = a
        .get("normalized")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let view_index =
        uint(a, "bufferView", ctx)?.ok_or_else(|| bad(format!("{ctx}: no buffer view")))?;
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
    let stride = match uint(view, "byteStride", ctx)? {
        None | Some(0) => elem,
        Some(s) if s >= elem => s,
        Some(s) => return Err(bad(format!("{ctx}: stride {s} below element size {elem}"))),
    };
    let offset = uint(a, "byteOffset", ctx)?.unwrap_or(0);
    let count = uint(a, "count", ctx)?.unwrap_or(0);
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
    let mut out = Vec::with_capacity(count);
    for i in 0..count {
        let start = offset + i * stride;
        let e = view_bytes.get(start..start + elem).unwrap_or_default();
        out.push(e.chunks_exact(size).map(component).collect());
    }
    Ok(out)
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
    let (mut v, mut vc, mut vt, mut vn) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut prims: Vec<Primitive> = Vec::new();
    let mut name = String::new();
    let mut has_colors = false;
    let mut flat: Vec<(String, Vec<[usize; 3]>, Vec<Corner>)> = Vec::new();
    for (k, raw) in text.lines().enumerate() {
        let line = k + 1;
        let l = raw.split('#').next().unwrap_or("").trim();
        let mut it = l.split_whitespace();
        let Some(tag) = it.next() else { continue };
        let parts: Vec<&str> = it.collect();
        match tag {
            "v" => {
                v.push(floats::<3>(&parts, line)?);
                if parts.len() >= 6 {
                    let [r, g, b] = floats::<3>(parts.get(3..).unwrap_or_default(), line)?;
                    vc.push([r, g, b, 1.0]);
                    has_colors = true;
                } else {
                    vc.push([1.0; 4]);
                }
            }
            "vt" => vt.push(floats::<2>(&parts, line)?),
            "vn" => vn.push(floats::<3>(&parts, line)?),
            "o" | "g" => {
                name = parts.join(" ");
                flat.push((name.clone(), Vec::new(), Vec::new()));
            }
            "f" => {
                if parts.len() < 3 {
                    return Err(bad(format!("OBJ line {line}: a face needs 3 corners")));
                }
                if flat.is_empty() {
                    flat.push((name.clone(), Vec::new(), Vec::new()));
                }
                let Some((_, tris, corners)) = flat.last_mut() else {
                    continue;
                };
                let mut ids = Vec::with_capacity(parts.len());
                for p in &parts {
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
                    ids.push(corners.len());
                    corners.push((pos, uv, normal));
                }
                for w in 1..ids.len() - 1 {
                    let (Some(&a), Some(&b), Some(&c)) = (ids.first(), ids.get(w), ids.get(w + 1))
                    else {
                        continue;
                    };
                    tris.push([a, b, c]);
                }
            }
            _ => {}
        }
    }
    // One vertex per distinct corner, per group.
    for (gname, tris, corners) in flat {
        if tris.is_empty() {
            continue;
        }
        let all_uv = corners.iter().all(|c| c.1.is_some());
        let all_n = corners.iter().all(|c| c.2.is_some());
        let mut p = Primitive {
            name: gname,
            normals: all_n.then(Vec::new),
            uvs: all_uv.then(Vec::new),
            colors: has_colors.then(Vec::new),
            ..Primitive::default()
        };
        let mut map = HashMap::new();
        let mut index_of = |c: Corner, p: &mut Primitive| -> u32 {
            *map.entry(c).or_insert_with(|| {
                let i = p.positions.len() as u32;
                p.positions.push(v.get(c.0).copied().unwrap_or_default());
                if let Some(n) = &mut p.normals {
                    n.push(c.2.and_then(|k| vn.get(k)).copied().unwrap_or_default());
                }
                if let Some(u) = &mut p.uvs {
                    u.push(c.1.and_then(|k| vt.get(k)).copied().unwrap_or_default());
                }
                if let Some(col) = &mut p.colors {
                    col.push(vc.get(c.0).copied().unwrap_or([1.0; 4]));
                }
                i
            })
        };
        for t in tris {
            let tri =
                t.map(|k| index_of(corners.get(k).copied().unwrap_or((0, None, None)), &mut p));
            p.triangles.push(tri);
        }
        prims.push(p);
    }
    Ok(Scene {
        meshes: vec![ExportMesh {
            name: String::new(),
            primitives: prims,
        }],
        ..Scene::default()
    })
}
