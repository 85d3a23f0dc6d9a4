//! Wavefront OBJ read into a scene ([`read_obj`]).

use std::collections::HashMap;

use super::json::bad;
use crate::error::Result;
use crate::scene::{ExportMesh, Primitive, Scene};

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
