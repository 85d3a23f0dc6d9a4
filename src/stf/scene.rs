//! STF meshes to the format-neutral [`Scene`].

use crate::error::{Error, ErrorKind, Result};
use crate::scene::{ExportMesh, MorphTarget, Primitive, Scene};

/// The `stf.mesh` resources of an STF file as a scene: a vertex per split.
///
/// Each blendshape becomes a [`MorphTarget`] (its name, its `default_value` as the
/// default weight): every split takes the offset of its vertex (the offset listed for
/// it when the blendshape has `indices`, zero for a vertex not listed), converted to
/// f32. Blendshape split normals are not exported.
pub fn to_scene(file: &crate::stf::StfContainer) -> Result<Scene> {
    let mut meshes = Vec::new();
    for m in crate::stf::model::meshes(file)? {
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
        let morph_targets = m
            .blendshapes
            .iter()
            .map(|b| {
                let offsets = b.vertex_offsets(m.vertices.len());
                MorphTarget {
                    name: b.name.clone(),
                    position_deltas: m
                        .splits
                        .iter()
                        .map(|&s| offsets.get(s as usize).copied().unwrap_or_default().map(f))
                        .collect(),
                    default_weight: b.default_value as f32,
                }
            })
            .collect();
        let triangles = m
            .tris
            .iter()
            .map(|t| t.map(|c| m.face_corners.get(c as usize).copied().unwrap_or(0) as u32))
            .collect();
        let prim = Primitive {
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
            extra_uvs: m
                .uvs
                .iter()
                .skip(1)
                .map(|(_, uv)| uv.iter().map(|x| x.map(f)).collect())
                .collect(),
            colors: m
                .split_colors
                .as_ref()
                .map(|c| c.iter().map(|x| x.map(f)).collect()),
            triangles,
            morph_targets,
            ..Primitive::default()
        };
        meshes.push(ExportMesh {
            lod: 0,
            name: m.name,
            primitives: vec![prim],
        });
    }
    let mut scene = Scene {
        meshes,
        ..Scene::default()
    };
    scene.prepare();
    Ok(scene)
}
