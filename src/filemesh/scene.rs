//! A FileMesh model to and from the format-neutral [`Scene`] (glTF,
//! OBJ export and import).
//!
//! # Example
//!
//! ```
//! use meshcodec::filemesh::{scene, Mesh};
//!
//! let mesh = Mesh::read(include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/roundtrip-fixtures/filemesh/v4.01-bones.mesh")))?;
//! let s = scene::to_scene(mesh.clone(), "rig", 0)?; // LOD 0, skin and skeleton
//! assert!(s.skeleton.is_some());
//! let back = scene::from_scene(&s)?; // and back to a model
//! assert_eq!(back.skeleton.len(), mesh.skeleton.len());
//! # Ok::<(), meshcodec::Error>(())
//! ```

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
///
/// The mesh is taken apart as the scene is built, so that it is never held whole beside
/// the scene: the faces become the triangles (moved, for LOD 0 of a mesh without other
/// LODs), and the vertices are dropped once their attributes are copied, before the
/// skins are made.
pub fn to_scene(mut mesh: crate::filemesh::model::Mesh, name: &str, lod: usize) -> Result<Scene> {
    let range = lod_range(&mesh, lod)?;
    let triangles = if range == (0..mesh.faces.len()) {
        std::mem::take(&mut mesh.faces)
    } else {
        let t = mesh.faces.get(range).unwrap_or_default().to_vec();
        mesh.faces = Vec::new();
        t
    };
    let prim = vertex_attributes(&mesh.vertices, lod, triangles);
    let n = mesh.vertices.len();
    mesh.vertices = Vec::new();
    finish(prim, &mesh, n, name, lod)
}

/// The faces of LOD `lod`, or an error naming the LODs there are.
fn lod_range(mesh: &crate::filemesh::model::Mesh, lod: usize) -> Result<std::ops::Range<usize>> {
    let n = mesh.faces.len();
    let offsets = &mesh.lods.offsets;
    if lod == 0 {
        return Ok(mesh.lods.lod0(n));
    }
    match (offsets.get(lod), offsets.get(lod + 1)) {
        (Some(&a), Some(&b)) if a <= b && (b as usize) <= n => Ok(a as usize..b as usize),
        _ => Err(Error::new(
            "level of detail",
            ErrorKind::Invalid(match mesh.lods.count() {
                1 => format!(
                    "no LOD {lod}: the mesh has one level of detail, LOD 0 (LOD offsets \
                     {offsets:?})"
                ),
                count => format!(
                    "no LOD {lod}: the mesh has {count} levels of detail, LOD 0 to LOD {} \
                     (LOD offsets {offsets:?})",
                    count - 1
                ),
            }),
        )),
    }
}

/// LOD `lod`'s primitive: the vertices' attributes, and these triangles.
fn vertex_attributes(
    v: &[crate::filemesh::model::MeshVertex],
    lod: usize,
    triangles: Vec<[u32; 3]>,
) -> Primitive {
    Primitive {
        name: format!("LOD {lod}"),
        positions: v.iter().map(|x| x.position).collect(),
        normals: Some(v.iter().map(|x| x.normal).collect()),
        uvs: Some(v.iter().map(|x| x.uv).collect()),
        colors: Some(
            v.iter()
                .map(|x| x.color.map(|c| f32::from(c) / 255.0))
                .collect(),
        ),
        triangles,
        ..Primitive::default()
    }
}

/// The scene of a primitive made from `mesh`'s `n` vertices: its skeleton, and the
/// skins of those vertices.
fn finish(
    mut prim: Primitive,
    mesh: &crate::filemesh::model::Mesh,
    n: usize,
    name: &str,
    lod: usize,
) -> Result<Scene> {
    let mut fixes = Fixes::default();
    let skeleton = filemesh_skeleton(&mesh.skeleton, &mut fixes)?;
    if let (Some(s), Some(skin)) = (&skeleton, &mesh.skinning) {
        // One pass over the skinning, which a mesh read from a file resolves as it goes
        // (no resolved array is made for an export or a conversion).
        let of = |influences: [crate::filemesh::model::Influence; 4]| {
            let raw = influences
                .into_iter()
                .map(|f| (usize::from(f.bone), f64::from(f.weight)));
            skin::vertex_skin(raw, s.joints.len())
        };
        let (mut joints, mut weights) = (Vec::with_capacity(n), Vec::with_capacity(n));
        skin.for_each(|k| {
            if joints.len() < n {
                let (j, w) = of(k.influences);
                joints.push(j);
                weights.push(w);
            }
        });
        while joints.len() < n {
            let (j, w) = of(Default::default());
            joints.push(j);
            weights.push(w);
        }
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
        let range = lod_range(mesh, lod)?;
        let triangles = mesh.faces.get(range).unwrap_or_default().to_vec();
        let prim = vertex_attributes(&mesh.vertices, lod, triangles);
        let scene = finish(prim, mesh, mesh.vertices.len(), name, lod)?;
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

/// A scene as one Roblox FileMesh model.
///
/// - **Geometry:** every primitive's vertices appended, normals (0, 1, 0) and UVs (0, 0)
///   where a primitive has none, colours to bytes (white where none). Meshes are taken
///   level of detail by level ([`ExportMesh::lod`]): LOD 0's faces first, then LOD 1's
///   …, and the LOD offsets say where each starts (a level no mesh has is empty).
/// - **Skeleton:** each joint becomes a bone at its bind-pose world transform (FileMesh
///   bones are in world space): position, and the rotation of the world matrix with any
///   scale taken out; the parent is kept (also as the LOD parent, as Roblox's own files
///   have it) and the culling distance is the distance to the furthest vertex the bone
///   influences (0 when it influences none).
/// - **Skin:** each vertex's four joints and weights become influences whose byte
///   weights sum to 255 (largest remainders get the rounding). Vertices of primitives
///   without a skin, in a skinned scene, are bound wholly to the first root bone.
///   FileMesh subsets name at most 26 bones and a face must lie in one subset: where a
///   level of detail uses more than 26 bones, its faces are grouped in order into runs
///   of at most 26 bones and each run gets its own copy of the vertices it uses (so
///   vertices shared across runs are duplicated; nothing else changes).
///
/// Morph targets, animations, further UV sets and joint scales are not carried; the
/// import's loss report names them. Errors if there is nothing to import, more vertices
/// than a u32 can index or more bones than a FileMesh can number.
pub fn from_scene(scene: &Scene) -> Result<crate::filemesh::model::Mesh> {
    use crate::filemesh::model::{Lods, Mesh, MeshVertex, VertexSkin};
    let mut mesh = Mesh::default();
    let skinned = scene
        .skeleton
        .as_ref()
        .is_some_and(|s| !s.joints.is_empty());
    let mut skins: Vec<VertexSkin> = Vec::new();
    let default_bone = scene
        .skeleton
        .as_ref()
        .and_then(|s| s.joints.iter().position(|j| j.parent.is_none()))
        .unwrap_or(0) as u16;
    let max_lod = scene.meshes.iter().map(|m| m.lod).max().unwrap_or(0);
    let mut offsets = vec![0u32];
    for lod in 0..=max_lod {
        for p in scene
            .meshes
            .iter()
            .filter(|m| m.lod == lod)
            .flat_map(|m| &m.primitives)
        {
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
                    tangent_bytes: crate::filemesh::model::Tangent::ABSENT_BYTES,
                    color: p
                        .colors
                        .as_ref()
                        .and_then(|v| v.get(i))
                        .map(|c| c.map(|x| (x.clamp(0.0, 1.0) * 255.0).round() as u8))
                        .unwrap_or([255; 4]),
                });
                if skinned {
                    let j = p.joints.as_ref().and_then(|j| j.get(i));
                    let w = p.weights.as_ref().and_then(|w| w.get(i));
                    skins.push(match (j, w) {
                        (Some(j), Some(w)) => byte_weights(j, w, default_bone),
                        _ => byte_weights(&[default_bone, 0, 0, 0], &[1.0, 0.0, 0.0, 0.0], 0),
                    });
                }
            }
            for t in &p.triangles {
                let tri = t.map(|i| i.checked_add(base));
                let [Some(a), Some(b), Some(c)] = tri else {
                    return Err(bad("more vertices than a FileMesh can index"));
                };
                mesh.faces.push([a, b, c]);
            }
        }
        offsets.push(
            u32::try_from(mesh.faces.len()).map_err(|_| bad("more faces than a FileMesh holds"))?,
        );
    }
    if mesh.faces.is_empty() {
        return Err(bad("nothing to import: no triangles"));
    }
    if max_lod > 0 {
        mesh.lods = Lods {
            offsets,
            ..Lods::default()
        };
    }
    if let (true, Some(s)) = (skinned, &scene.skeleton) {
        s.check()?;
        if s.joints.len() >= 0xFFFF {
            return Err(bad(format!(
                "{} joints: a FileMesh numbers at most 65,534 bones",
                s.joints.len()
            )));
        }
        mesh.skinning = Some(skins.into());
        split_for_subsets(&mut mesh);
        mesh.skeleton = bones(s, &mesh);
    }
    Ok(mesh)
}

/// Four joints and weights (summing to 1) as influences whose bytes sum to 255: each
/// weight × 255 rounded down, the remainder given to the largest fractions. A vertex
/// with no weight at all is bound to `fallback`.
fn byte_weights(
    joints: &[u16; 4],
    weights: &[f32; 4],
    fallback: u16,
) -> crate::filemesh::model::VertexSkin {
    use crate::filemesh::model::{Influence, VertexSkin};
    let w: Vec<f64> = weights
        .iter()
        .map(|&w| {
            if w.is_finite() && w > 0.0 {
                f64::from(w)
            } else {
                0.0
            }
        })
        .collect();
    let total: f64 = w.iter().sum();
    let mut out = VertexSkin::default();
    if total <= 0.0 {
        out.influences[0] = Influence {
            bone: fallback,
            weight: 255,
        };
        return out;
    }
    let exact: Vec<f64> = w.iter().map(|x| x / total * 255.0).collect();
    let mut bytes: Vec<u8> = exact.iter().map(|x| x.floor() as u8).collect();
    let given: u32 = bytes.iter().map(|&b| u32::from(b)).sum();
    let mut order: Vec<usize> = (0..4).collect();
    order.sort_by(|&a, &b| {
        let fa = exact.get(a).map_or(0.0, |x| x - x.floor());
        let fb = exact.get(b).map_or(0.0, |x| x - x.floor());
        fb.total_cmp(&fa).then(a.cmp(&b))
    });
    for &k in order.iter().take(255usize.saturating_sub(given as usize)) {
        if let Some(b) = bytes.get_mut(k) {
            *b = b.saturating_add(1);
        }
    }
    for ((slot, &j), &b) in out.influences.iter_mut().zip(joints).zip(&bytes) {
        *slot = Influence {
            bone: if b > 0 { j } else { 0 },
            weight: b,
        };
    }
    out
}

/// Bones from the skeleton's bind pose (see [`from_scene`]).
fn bones(
    s: &Skeleton,
    mesh: &crate::filemesh::model::Mesh,
) -> Vec<crate::filemesh::model::MeshBone> {
    let local: Vec<skin::Mat4> = s.joints.iter().map(skin::local_matrix).collect();
    let parents: Vec<Option<usize>> = s.joints.iter().map(|j| j.parent).collect();
    let world = skin::world_matrices(&local, &parents);
    let mut culling = vec![0f32; s.joints.len()];
    if let Some(skin) = &mesh.skinning {
        let mut vertices = mesh.vertices.iter();
        skin.for_each(|sk| {
            let Some(v) = vertices.next() else { return };
            for i in sk.influences.iter().filter(|i| i.weight > 0) {
                let b = usize::from(i.bone);
                if let (Some(c), Some(w)) = (culling.get_mut(b), world.get(b)) {
                    let d = v
                        .position
                        .iter()
                        .zip(w.get(12..15).unwrap_or_default())
                        .map(|(&p, &t)| (f64::from(p) - t).powi(2))
                        .sum::<f64>()
                        .sqrt() as f32;
                    *c = c.max(d);
                }
            }
        });
    }
    s.joints
        .iter()
        .zip(&world)
        .zip(culling)
        .map(|((j, w), culling)| {
            let (t, q, _) = skin::decompose(w);
            let parent = j.parent.and_then(|p| u16::try_from(p).ok());
            crate::filemesh::model::MeshBone {
                name: j.name.clone(),
                parent,
                lod_parent: parent,
                culling,
                rotation: skin::quat_to_mat3(q).map(|x| x as f32),
                position: t.map(|x| x as f32),
            }
        })
        .collect()
}

/// Lays each level of detail out so that FileMesh subsets (at most 26 bones each, every
/// face inside one) can cover it: where a level's vertices use more than 26 bones, its
/// faces are grouped in order into runs of at most 26 bones, and each run gets its own
/// copy of the vertices it uses, in order of first use. Levels within the limit are left
/// as they are.
fn split_for_subsets(mesh: &mut crate::filemesh::model::Mesh) {
    use crate::filemesh::model::VertexSkin;
    const SUBSET_BONES: usize = 26;
    let Some(skin) = mesh.skinning.take() else {
        return;
    };
    let bones_of = |v: u32| -> Vec<u16> {
        skin.get(v as usize)
            .map(|s| {
                s.influences
                    .iter()
                    .filter(|i| i.weight > 0)
                    .map(|i| i.bone)
                    .collect()
            })
            .unwrap_or_default()
    };
    // The levels as the subset builder walks them.
    let ranges = mesh.lod_ranges();
    let needs = ranges.iter().any(|&(a, b)| {
        let mut all: Vec<u16> = mesh
            .faces
            .get(a..b)
            .unwrap_or_default()
            .iter()
            .flatten()
            .flat_map(|&v| bones_of(v))
            .collect();
        all.sort_unstable();
        all.dedup();
        all.len() > SUBSET_BONES
    });
    if !needs {
        mesh.skinning = Some(skin);
        return;
    }
    let mut vertices = Vec::with_capacity(mesh.vertices.len());
    let mut skins: Vec<VertexSkin> = Vec::with_capacity(skin.len());
    let mut faces = Vec::with_capacity(mesh.faces.len());
    for &(a, b) in &ranges {
        let mut table: Vec<u16> = Vec::new();
        let mut copy: std::collections::HashMap<u32, u32> = std::collections::HashMap::new();
        for f in mesh.faces.get(a..b).unwrap_or_default() {
            let mut bones: Vec<u16> = f.iter().flat_map(|&v| bones_of(v)).collect();
            bones.sort_unstable();
            bones.dedup();
            let new = bones.iter().filter(|b| !table.contains(b)).count();
            if table.len() + new > SUBSET_BONES {
                table.clear();
                copy.clear();
            }
            for b in bones {
                if !table.contains(&b) {
                    table.push(b);
                }
            }
            let face = f.map(|v| {
                *copy.entry(v).or_insert_with(|| {
                    let k = vertices.len() as u32;
                    vertices.push(mesh.vertices.get(v as usize).copied().unwrap_or_default());
                    skins.push(skin.get(v as usize).copied().unwrap_or_default());
                    k
                })
            });
            faces.push(face);
        }
    }
    mesh.vertices = vertices;
    mesh.faces = faces;
    mesh.skinning = Some(skins.into());
}
