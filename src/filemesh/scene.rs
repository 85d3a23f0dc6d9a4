//! A FileMesh model to and from the format-neutral [`Scene`](crate::scene::Scene) (glTF,
//! OBJ export and import).

use crate::error::{Error, ErrorKind, Result};
use crate::scene::import::bad;
use crate::scene::skin;
use crate::scene::{ExportMesh, Fixes, Primitive, Scene, Skeleton};

/// A Roblox FileMesh as a scene: LOD `lod` (0 = full detail).
///
/// A mesh with bones also gives the skeleton: the bones in file order, each joint's
/// local transform its parent's world transform inverted times its own (FileMesh bones
/// are in world space; a bone's rotation is taken as the nearest unit quaternion), and
/// each inverse bind matrix the inverse of the bone's world matrix (as the joint's local
/// transforms compose it, which is the file's to rounding). A parent index out of range,
/// or one that closes a cycle, makes the bone a root.
///
/// With skinning, every vertex gets its influences as weights byte / 255 (influences on
/// the same bone added up, those on no bone dropped), heaviest first, scaled to sum to 1
/// (real files' bytes sum to 255, so this changes them by rounding only). A vertex with
/// no weight at all is bound to joint 0 with weight 1.
pub fn to_scene(mesh: &crate::filemesh::model::Mesh, name: &str, lod: usize) -> Result<Scene> {
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
        ..Primitive::default()
    };
    let mut fixes = Fixes::default();
    let skeleton = filemesh_skeleton(&mesh.skeleton, &mut fixes)?;
    if let (Some(s), Some(skin)) = (&skeleton, &mesh.skinning) {
        let (joints, weights) = (0..v.len())
            .map(|i| {
                let influences = skin.get(i).map(|s| s.influences).unwrap_or_default();
                let raw = influences
                    .iter()
                    .map(|f| (usize::from(f.bone), f64::from(f.weight)));
                skin::vertex_skin(raw, s.joints.len())
            })
            .unzip();
        prim.joints = Some(joints);
        prim.weights = Some(weights);
    }
    let mut scene = Scene {
        meshes: vec![ExportMesh {
            lod,
            name: name.to_string(),
            primitives: vec![prim],
        }],
        skeleton,
        ..Scene::default()
    };
    scene.prepare_with(fixes);
    Ok(scene)
}

/// Every level of detail of a mesh as a scene: one glTF mesh per LOD, named
/// `"{name} LOD k"` (each holding the vertices its faces use), sharing one skeleton. The
/// notes of each LOD are kept, prefixed with the LOD they concern.
pub fn to_scene_all_lods(mesh: &crate::filemesh::model::Mesh, name: &str) -> Result<Scene> {
    let mut all = Scene::default();
    for lod in 0..mesh.lods.count().max(1) {
        let scene = to_scene(mesh, name, lod)?;
        if lod == 0 {
            all.skeleton = scene.skeleton;
        }
        all.meshes
            .extend(scene.meshes.into_iter().map(|m| ExportMesh {
                name: format!("{name} LOD {lod}"),
                ..m
            }));
        all.notes
            .extend(scene.notes.into_iter().map(|n| crate::scene::ExportNote {
                detail: format!("LOD {lod}: {}", n.detail),
                ..n
            }));
    }
    Ok(all)
}

/// The skeleton of FileMesh bones (world space), `None` without bones.
fn filemesh_skeleton(
    bones: &[crate::filemesh::model::MeshBone],
    fixes: &mut Fixes,
) -> Result<Option<Skeleton>> {
    if bones.is_empty() {
        return Ok(None);
    }
    let parents: Vec<Option<usize>> = bones.iter().map(|b| b.parent.map(usize::from)).collect();
    let parents = skin::sane_parents(&parents);
    let mut bone = |x: f32| f64::from(fixes.finite("bone", x, 0.0));
    let world: Vec<([f64; 3], [f64; 4])> = bones
        .iter()
        .map(|b| {
            (
                b.position.map(&mut bone),
                skin::mat3_to_quat(b.rotation.map(&mut bone)),
            )
        })
        .collect();
    let joints = bones
        .iter()
        .zip(&world)
        .zip(&parents)
        .map(|((b, &(t, q)), &parent)| {
            let (translation, rotation) = match parent.and_then(|p| world.get(p)) {
                Some(&(pt, pq)) => {
                    let inv = skin::quat_conj(pq);
                    let d = [t[0] - pt[0], t[1] - pt[1], t[2] - pt[2]];
                    (skin::quat_rotate(inv, d), skin::quat_mul(inv, q))
                }
                None => (t, q),
            };
            skin::LocalJoint {
                name: b.name.clone(),
                parent,
                translation,
                rotation,
                scale: [1.0; 3],
            }
        })
        .collect();
    skin::skeleton_from_local(joints, fixes).map(Some)
}

/// A scene as one Roblox FileMesh model: every primitive's vertices appended, normals
/// (0, 1, 0) and UVs (0, 0) where a primitive has none, colours to bytes (white where
/// none). Errors if there is nothing to import or more vertices than a u32 can index.
pub fn from_scene(scene: &Scene) -> Result<crate::filemesh::model::Mesh> {
    use crate::filemesh::model::{Mesh, MeshVertex};
    let mut mesh = Mesh::default();
    for p in scene.meshes.iter().flat_map(|m| &m.primitives) {
        p.check()?;
        let base = u32::try_from(mesh.vertices.len())
            .map_err(|_| bad("more vertices than a FileMesh can index"))?;
        for (i, pos) in p.positions.iter().enumerate() {
            let get = |o: &Option<Vec<[f32; 3]>>| o.as_ref().and_then(|v| v.get(i)).copied();
            mesh.vertices.push(MeshVertex {
                position: *pos,
                normal: get(&p.normals).unwrap_or([0.0, 1.0, 0.0]),
                uv: p
                    .uvs
                    .as_ref()
                    .and_then(|v| v.get(i))
                    .copied()
                    .unwrap_or_default(),
                tangent: None,
                color: p
                    .colors
                    .as_ref()
                    .and_then(|v| v.get(i))
                    .map(|c| c.map(|x| (x.clamp(0.0, 1.0) * 255.0).round() as u8))
                    .unwrap_or([255; 4]),
            });
        }
        for t in &p.triangles {
            let tri = t.map(|i| i.checked_add(base));
            let [Some(a), Some(b), Some(c)] = tri else {
                return Err(bad("more vertices than a FileMesh can index"));
            };
            mesh.faces.push([a, b, c]);
        }
    }
    if mesh.faces.is_empty() {
        return Err(bad("nothing to import: no triangles"));
    }
    Ok(mesh)
}
