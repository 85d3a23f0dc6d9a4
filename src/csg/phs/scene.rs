//! CSGPHS hulls to and from the format-neutral [`Scene`](crate::scene::Scene).

use std::collections::HashMap;

use crate::error::Result;
use crate::scene::import::bad;
use crate::scene::{ExportMesh, Primitive, Scene};

/// CSGPHS collision hulls as a scene: one primitive per hull.
pub fn to_scene(model: &crate::csg::phs::model::CsgMesh, name: &str) -> Scene {
    let mut scene = Scene {
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
        let triangles = p
            .triangles
            .iter()
            .map(|t| t.map(|i| remap.get(i as usize).copied().unwrap_or(0)))
            .filter(|t| t[0] != t[1] && t[1] != t[2] && t[0] != t[2])
            .collect();
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
