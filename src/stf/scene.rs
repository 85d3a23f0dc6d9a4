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
    from_meshes(crate::stf::model::meshes(file)?)
}

/// [`to_scene`] of meshes already decoded, taken: each mesh's arrays are dropped as
/// the scene's are made from them.
pub(crate) fn from_meshes(decoded: Vec<crate::stf::StfMesh>) -> Result<Scene> {
    let mut meshes = Vec::new();
    for m in decoded {
        let problems = m.problems();
        if let Some(p) = problems.first() {
            return Err(Error::new(
                "export",
                ErrorKind::Inconsistent(format!("mesh {:?}: {p}", m.name)),
            ));
        }
        let crate::stf::StfMesh {
            name,
            vertices,
            face_corners,
            splits,
            split_normals,
            split_colors,
            uvs,
            tris,
            blendshapes,
            ..
        } = m;
        let f = |x: f64| x as f32;
        let triangles = tris
            .iter()
            .map(|t| t.map(|c| face_corners.get(c as usize).copied().unwrap_or(0) as u32))
            .collect();
        drop((tris, face_corners));
        let normals = split_normals.map(|n| n.iter().map(|x| x.map(f)).collect());
        let colors = split_colors.map(|c| c.iter().map(|x| x.map(f)).collect());
        let mut uv_sets = uvs
            .into_iter()
            .map(|(_, uv)| uv.iter().map(|x| x.map(f)).collect::<Vec<[f32; 2]>>());
        let first_uvs = uv_sets.next();
        let extra_uvs = uv_sets.collect();
        let morph_targets = blendshapes
            .iter()
            .map(|b| {
                let offsets = b.vertex_offsets(vertices.len());
                MorphTarget {
                    name: b.name.clone(),
                    position_deltas: splits
                        .iter()
                        .map(|&s| offsets.get(s as usize).copied().unwrap_or_default().map(f))
                        .collect(),
                    default_weight: b.default_value as f32,
                }
            })
            .collect();
        drop(blendshapes);
        let positions = splits
            .iter()
            .map(|&s| vertices.get(s as usize).copied().unwrap_or_default().map(f))
            .collect();
        drop((splits, vertices));
        let prim = Primitive {
            name: name.clone(),
            positions,
            normals,
            uvs: first_uvs,
            extra_uvs,
            colors,
            triangles,
            morph_targets,
            ..Primitive::default()
        };
        meshes.push(ExportMesh {
            lod: 0,
            name,
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
