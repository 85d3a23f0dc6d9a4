//! Export to interchange formats: glTF 2.0 ([`gltf`]) and Wavefront OBJ ([`obj`]).
//!
//! Every format this crate reads turns into one [`Scene`]: meshes made of primitives,
//! each primitive a triangle list over its own vertex arrays (positions, and where the
//! source has them normals, one UV set and colours). Coordinates and UVs are written as
//! the source stores them (no axis or V flip), so numbers can be compared one to one.
//!
//! - Roblox FileMesh: one mesh, one primitive per chosen LOD (LOD 0 by default);
//! - CSGPHS: one mesh, one primitive per convex hull;
//! - UNIGINE: one mesh, one primitive per surface (morph target 0), a vertex per
//!   triangle vertex (its position through the coordinate indices, its first UV set);
//! - STF: one mesh per `stf.mesh`, a vertex per split.

pub mod gltf;
pub mod import;
pub mod obj;

use serde::Serialize;

use crate::error::{Error, ErrorKind, Limits, Result};

/// What an export holds.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Scene {
    /// The meshes, each becoming a glTF mesh (and node) or an OBJ object.
    pub meshes: Vec<ExportMesh>,
}

/// A named mesh.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ExportMesh {
    /// Name.
    pub name: String,
    /// Its parts.
    pub primitives: Vec<Primitive>,
}

/// A triangle list over its own vertices.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Primitive {
    /// Name (a surface, a hull, a LOD).
    pub name: String,
    /// Vertex positions.
    pub positions: Vec<[f32; 3]>,
    /// Per-vertex normals (unit length), if the source has them.
    pub normals: Option<Vec<[f32; 3]>>,
    /// Per-vertex texture coordinates, if the source has them.
    pub uvs: Option<Vec<[f32; 2]>>,
    /// Per-vertex RGBA colours in 0..=1, if the source has them.
    pub colors: Option<Vec<[f32; 4]>>,
    /// Triangles as three vertex indices.
    pub triangles: Vec<[u32; 3]>,
}

impl Primitive {
    /// Checks that every array has one entry per vertex and every index is in range.
    pub fn check(&self) -> Result<()> {
        let n = self.positions.len();
        let bad = |what: String| Err(Error::new("export", ErrorKind::Inconsistent(what)));
        for (what, len) in [
            ("normals", self.normals.as_ref().map(Vec::len)),
            ("uvs", self.uvs.as_ref().map(Vec::len)),
            ("colors", self.colors.as_ref().map(Vec::len)),
        ] {
            if let Some(len) = len {
                if len != n {
                    return bad(format!(
                        "primitive {:?}: {len} {what} for {n} vertices",
                        self.name
                    ));
                }
            }
        }
        if let Some(i) = self.triangles.iter().flatten().find(|&&i| i as usize >= n) {
            return bad(format!(
                "primitive {:?}: index {i} out of range (of {n})",
                self.name
            ));
        }
        Ok(())
    }

    /// Drops the normals if any is zero or not finite; makes the others unit length.
    /// (glTF requires unit normals; real files have zero ones.)
    pub(crate) fn normalize_normals(&mut self) {
        if let Some(ns) = &mut self.normals {
            let mut ok = true;
            for n in ns.iter_mut() {
                let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
                if !len.is_finite() || len < 1e-12 {
                    ok = false;
                    break;
                }
                *n = n.map(|c| c / len);
            }
            if !ok {
                self.normals = None;
            }
        }
    }
}

/// A Roblox FileMesh as a scene: LOD `lod` (0 = full detail).
pub fn from_filemesh(mesh: &crate::roblox::model::Mesh, name: &str, lod: usize) -> Result<Scene> {
    let n = mesh.faces.len();
    let offsets = &mesh.lods.offsets;
    let range = if lod == 0 {
        mesh.lods.lod0(n)
    } else {
        match (offsets.get(lod), offsets.get(lod + 1)) {
            (Some(&a), Some(&b)) if a <= b && (b as usize) <= n => a as usize..b as usize,
            _ => {
                return Err(Error::new(
                    "export",
                    ErrorKind::Invalid(format!(
                        "no LOD {lod}: the mesh has {} (offsets {offsets:?})",
                        mesh.lods.count()
                    )),
                ))
            }
        }
    };
    let faces = mesh.faces.get(range).unwrap_or_default();
    let v = &mesh.vertices;
    let mut prim = Primitive {
        name: format!("LOD {lod}"),
        positions: v.iter().map(|x| x.position).collect(),
        normals: Some(v.iter().map(|x| x.normal).collect()),
        uvs: Some(v.iter().map(|x| x.uv).collect()),
        colors: Some(
            v.iter()
                .map(|x| x.color.map(|c| f32::from(c) / 255.0))
                .collect(),
        ),
        triangles: faces.to_vec(),
    };
    prim.normalize_normals();
    Ok(Scene {
        meshes: vec![ExportMesh {
            name: name.to_string(),
            primitives: vec![prim],
        }],
    })
}

/// CSGPHS collision hulls as a scene: one primitive per hull.
pub fn from_csg(model: &crate::roblox::csg_model::CsgMesh, name: &str) -> Scene {
    Scene {
        meshes: vec![ExportMesh {
            name: name.to_string(),
            primitives: model
                .hulls
                .iter()
                .enumerate()
                .map(|(i, h)| Primitive {
                    name: format!("hull {i}"),
                    positions: h.positions.clone(),
                    triangles: h.triangles.clone(),
                    ..Primitive::default()
                })
                .collect(),
        }],
    }
}

/// A UNIGINE mesh as a scene: one primitive per surface (morph target 0).
pub fn from_unigine(
    mesh: &crate::unigine::UnigineMesh,
    name: &str,
    limits: &Limits,
) -> Result<Scene> {
    let body = mesh.to_classic(limits)?;
    let mut primitives = Vec::new();
    for (h, d) in body.surfaces.iter().zip(&body.data) {
        let Some(base) = d.targets.first() else {
            continue;
        };
        let nt = base.tangents.len();
        // Each triangle vertex takes the position its corners name.
        let mut positions = vec![[0.0f32; 3]; nt];
        for (c, t) in d.coordinate_indices.iter().zip(&d.triangle_indices) {
            let (Some(p), Some(slot)) = (
                base.positions.get(*c as usize),
                positions.get_mut(*t as usize),
            ) else {
                return Err(Error::new(
                    "export",
                    ErrorKind::Inconsistent(format!(
                        "surface {:?}: corner index {c}/{t} out of range",
                        h.name.text()
                    )),
                ));
            };
            *slot = *p;
        }
        let triangles = d
            .triangle_indices
            .chunks_exact(3)
            .map(|t| <[u32; 3]>::try_from(t).unwrap_or_default())
            .collect();
        primitives.push(Primitive {
            name: h.name.text(),
            positions,
            normals: None,
            uvs: (d.uv0.len() == nt && nt > 0).then(|| d.uv0.clone()),
            colors: (d.colors.len() == nt && nt > 0).then(|| {
                d.colors
                    .iter()
                    .map(|c| c.map(|x| f32::from(x) / 255.0))
                    .collect()
            }),
            triangles,
        });
    }
    Ok(Scene {
        meshes: vec![ExportMesh {
            name: name.to_string(),
            primitives,
        }],
    })
}

/// The `stf.mesh` resources of an STF file as a scene: a vertex per split.
pub fn from_stf(file: &crate::stf::StfContainer) -> Result<Scene> {
    let mut meshes = Vec::new();
    for m in crate::stf::mesh::meshes(file)? {
        let problems = m.problems();
        if let Some(p) = problems.first() {
            return Err(Error::new(
                "export",
                ErrorKind::Inconsistent(format!("mesh {:?}: {p}", m.name)),
            ));
        }
        let f = |x: f64| x as f32;
        let positions = m
            .splits
            .iter()
            .map(|&s| {
                m.vertices
                    .get(s as usize)
                    .copied()
                    .unwrap_or_default()
                    .map(f)
            })
            .collect();
        let triangles = m
            .tris
            .iter()
            .map(|t| t.map(|c| m.face_corners.get(c as usize).copied().unwrap_or(0) as u32))
            .collect();
        let mut prim = Primitive {
            name: m.name.clone(),
            positions,
            normals: m
                .split_normals
                .as_ref()
                .map(|n| n.iter().map(|x| x.map(f)).collect()),
            uvs: m
                .uvs
                .first()
                .map(|(_, uv)| uv.iter().map(|x| x.map(f)).collect()),
            colors: m
                .split_colors
                .as_ref()
                .map(|c| c.iter().map(|x| x.map(f)).collect()),
            triangles,
        };
        prim.normalize_normals();
        meshes.push(ExportMesh {
            name: m.name,
            primitives: vec![prim],
        });
    }
    Ok(Scene { meshes })
}
