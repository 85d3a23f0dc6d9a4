//! CSGPHS hulls to and from the format-neutral [`Scene`].

use std::collections::HashMap;

use crate::error::Result;
use crate::scene::import::bad;
use crate::scene::{ExportMesh, Primitive, Scene};

/// CSGPHS collision hulls as a scene: one primitive per hull.
pub fn to_scene(model: &crate::csg::phs::model::CsgMesh, name: &str) -> Scene {
    let mut scene = Scene {
        meshes: vec![ExportMesh {
            lod: 0,
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
        ..Scene::default()
    };
    scene.prepare();
    scene
}

/// A scene as CSGPHS collision hulls: one hull per primitive, positions that are
/// bit-identical within a primitive merged (a glTF or OBJ writer may split a vertex by
/// its normals or UVs; a hull is only geometry). Version 8 stores closed hulls
/// Edgebreaker-coded and the others as raw hulls; versions 6 and 7 compute their physics
/// from the hulls when written.
///
/// A primitive that is not convex is refused, naming it and the vertex that lies outside
/// a face's plane (by more than [`CONVEX_TOLERANCE`] of its size): CSGPHS holds convex
/// hulls, and storing another shape as one would give the engine wrong collisions. So is
/// one too large to check (more than [`MAX_HULL_WORK`] vertex–triangle pairs).
pub fn from_scene(scene: &Scene) -> Result<crate::csg::phs::model::CsgMesh> {
    use crate::csg::phs::model::{CsgHull, CsgMesh};
    let mut hulls = Vec::new();
    for p in scene.meshes.iter().flat_map(|m| &m.primitives) {
        p.check()?;
        if p.triangles.is_empty() {
            continue;
        }
        let mut index: HashMap<[u32; 3], u32> = HashMap::new();
        let mut positions = Vec::new();
        let remap: Vec<u32> = p
            .positions
            .iter()
            .map(|q| {
                *index.entry(q.map(f32::to_bits)).or_insert_with(|| {
                    positions.push(*q);
                    (positions.len() - 1) as u32
                })
            })
            .collect();
        let triangles: Vec<[u32; 3]> = p
            .triangles
            .iter()
            .map(|t| t.map(|i| remap.get(i as usize).copied().unwrap_or(0)))
            .filter(|t| t[0] != t[1] && t[1] != t[2] && t[0] != t[2])
            .collect();
        check_convex(&positions, &triangles, &p.name)?;
        hulls.push(CsgHull::new(positions, triangles));
    }
    if hulls.is_empty() {
        return Err(bad("nothing to import: no triangles"));
    }
    Ok(CsgMesh {
        block: false,
        geometry_type: None,
        physics: None,
        hulls,
        ..CsgMesh::default()
    })
}

/// How far (relative to the primitive's bounding-box diagonal) a vertex may lie outside a
/// face's plane in a "convex" hull. Roblox's own hulls are not always exactly convex: in
/// the corpus, version 8's coded hulls deviate by less than 1e-5, but a hull of the real
/// version 7 file by 1.4 %. 5 % accepts every real hull seen while refusing shapes that
/// are plainly concave (a cube with a corner pushed in, the test's case). A guess
/// from the files at hand (docs/csgphs-v8.md).
pub const CONVEX_TOLERANCE: f64 = 0.05;

/// The most vertex × triangle pairs a primitive may need to be checked for convexity
/// (real collision hulls have tens to hundreds of each).
pub const MAX_HULL_WORK: usize = 100_000_000;

/// Fails unless the triangles' positions form a convex shape: every vertex on the inner
/// side of every face's plane, the inner side being the same for all faces (outward or
/// inward winding; a flat convex polygon has both).
fn check_convex(positions: &[[f32; 3]], triangles: &[[u32; 3]], name: &str) -> Result<()> {
    let work = positions.len().saturating_mul(triangles.len());
    if work > MAX_HULL_WORK {
        return Err(bad(format!(
            "primitive {name:?}: {} vertices and {} triangles are too many for a convex \
             collision hull; simplify it or split it into convex parts",
            positions.len(),
            triangles.len()
        )));
    }
    let p = |i: u32| {
        positions
            .get(i as usize)
            .copied()
            .unwrap_or_default()
            .map(f64::from)
    };
    let sub = |a: [f64; 3], b: [f64; 3]| [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    let dot = |a: [f64; 3], b: [f64; 3]| a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    for q in positions {
        for ((l, h), &x) in lo.iter_mut().zip(&mut hi).zip(q) {
            *l = l.min(f64::from(x));
            *h = h.max(f64::from(x));
        }
    }
    let size = dot(sub(hi, lo), sub(hi, lo)).sqrt();
    let tolerance = CONVEX_TOLERANCE * size;
    // For each side (+1: outward winding, −1: inward), the worst vertex outside a face.
    let mut worst = [(0.0f64, 0usize, 0usize); 2];
    for (t, &[a, b, c]) in triangles.iter().enumerate() {
        let (pa, pb, pc) = (p(a), p(b), p(c));
        let (u, v) = (sub(pb, pa), sub(pc, pa));
        let n = [
            u[1] * v[2] - u[2] * v[1],
            u[2] * v[0] - u[0] * v[2],
            u[0] * v[1] - u[1] * v[0],
        ];
        let len = dot(n, n).sqrt();
        if len == 0.0 || !len.is_finite() {
            continue;
        }
        for (k, q) in positions.iter().enumerate() {
            let d = dot(n, sub(q.map(f64::from), pa)) / len;
            for (side, w) in [d, -d].into_iter().zip(&mut worst) {
                if side > w.0 {
                    *w = (side, t, k);
                }
            }
        }
    }
    let (d, t, k) = if worst[0].0 <= worst[1].0 {
        worst[0]
    } else {
        worst[1]
    };
    if d > tolerance {
        return Err(bad(format!(
            "primitive {name:?} is not convex (vertex {k} lies {d:.3e} outside the plane of \
             triangle {t}, more than {CONVEX_TOLERANCE} of its size): CSGPHS holds convex \
             hulls only; split it into convex parts (Blender's Convex Hull, V-HACD) first"
        )));
    }
    Ok(())
}
