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
//!
//! Skinned FileMeshes (4.00 and later) and UNIGINE meshes with bones also give a
//! [`Skeleton`] ([`Scene::skeleton`]) and, per primitive, four joints and weights per
//! vertex ([`Primitive::joints`], [`Primitive::weights`]): see [`from_filemesh`] and
//! [`from_unigine`]. The glTF writer turns them into a skin; OBJ has none and ignores
//! them.
//!
//! UNIGINE morph targets and STF blendshapes become [`MorphTarget`]s: per-vertex
//! position deltas ([`Primitive::morph_targets`]), written as glTF morph targets; OBJ
//! ignores them.

pub mod gltf;
pub mod import;
pub mod obj;
mod skin;

use serde::Serialize;

use crate::error::{Error, ErrorKind, Limits, Result};

/// What an export holds.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Scene {
    /// The meshes, each becoming a glTF mesh (and node) or an OBJ object.
    pub meshes: Vec<ExportMesh>,
    /// The skeleton that [`Primitive::joints`] index into, shared by every mesh (one
    /// glTF skin); `None` for a scene without bones.
    pub skeleton: Option<Skeleton>,
}

/// The joints of a skin, in the order [`Primitive::joints`] index them.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Skeleton {
    /// The joints; parents may come after their children.
    pub joints: Vec<Joint>,
}

/// One joint (bone) in its bind pose.
///
/// Its world matrix is its parent's world matrix × its local matrix `T × R × S`
/// (a root's local matrix is its world matrix).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Joint {
    /// Name.
    pub name: String,
    /// Index of the parent joint in [`Skeleton::joints`], `None` for a root.
    pub parent: Option<usize>,
    /// Translation, local to the parent.
    pub translation: [f32; 3],
    /// Rotation local to the parent, a unit quaternion (x, y, z, w).
    pub rotation: [f32; 4],
    /// Scale, local to the parent.
    pub scale: [f32; 3],
    /// The inverse of the joint's world matrix in the bind pose, column-major (as glTF
    /// stores it); its last row is (0, 0, 0, 1).
    pub inverse_bind_matrix: [f32; 16],
}

impl Default for Joint {
    /// A root at the origin: identity transform and inverse bind matrix.
    fn default() -> Self {
        Joint {
            name: String::new(),
            parent: None,
            translation: [0.0; 3],
            rotation: [0.0, 0.0, 0.0, 1.0],
            scale: [1.0; 3],
            inverse_bind_matrix: skin::IDENTITY.map(|x| x as f32),
        }
    }
}

fn inconsistent(what: String) -> Error {
    Error::new("export", ErrorKind::Inconsistent(what))
}

impl Skeleton {
    /// Checks that every parent is in range and no joint is its own ancestor, that every
    /// value is finite, rotations are unit quaternions (within 1e-3) and inverse bind
    /// matrices end in the row (0, 0, 0, 1), and that there are at most 65,536 joints.
    pub fn check(&self) -> Result<()> {
        let n = self.joints.len();
        if n > 1 << 16 {
            return Err(inconsistent(format!(
                "{n} joints: more than 16-bit joint indices reach"
            )));
        }
        let parents: Vec<Option<usize>> = self.joints.iter().map(|j| j.parent).collect();
        let sane = skin::sane_parents(&parents);
        for (j, (p, s)) in self.joints.iter().zip(parents.iter().zip(&sane)) {
            let name = &j.name;
            if p != s {
                return Err(inconsistent(match p {
                    Some(p) if *p >= n => format!("joint {name:?}: parent {p} of {n} joints"),
                    _ => format!("joint {name:?}: its parents form a cycle"),
                }));
            }
            let values = j.translation.iter().chain(&j.rotation).chain(&j.scale);
            if let Some(x) = values
                .chain(&j.inverse_bind_matrix)
                .find(|x| !x.is_finite())
            {
                return Err(Error::new(
                    "export",
                    ErrorKind::Invalid(format!(
                        "joint {name:?}: value {x} cannot be written to glTF"
                    )),
                ));
            }
            let len = j
                .rotation
                .iter()
                .map(|&x| f64::from(x).powi(2))
                .sum::<f64>()
                .sqrt();
            if (len - 1.0).abs() > 1e-3 {
                return Err(inconsistent(format!(
                    "joint {name:?}: rotation {:?} is not a unit quaternion",
                    j.rotation
                )));
            }
            let m = &j.inverse_bind_matrix;
            let last_row = [m.get(3), m.get(7), m.get(11), m.get(15)];
            if last_row != [Some(&0.0), Some(&0.0), Some(&0.0), Some(&1.0)] {
                return Err(inconsistent(format!(
                    "joint {name:?}: inverse bind matrix's last row is not (0, 0, 0, 1)"
                )));
            }
        }
        Ok(())
    }
}

impl Scene {
    /// Checks every primitive ([`Primitive::check`]) and the skeleton
    /// ([`Skeleton::check`]), and that every joint index names a joint.
    pub fn check(&self) -> Result<()> {
        let joints = match &self.skeleton {
            Some(s) => {
                s.check()?;
                s.joints.len()
            }
            None => 0,
        };
        for m in &self.meshes {
            for p in &m.primitives {
                p.check()?;
                if let Some(j) = p
                    .joints
                    .iter()
                    .flatten()
                    .flatten()
                    .find(|&&j| usize::from(j) >= joints)
                {
                    return Err(inconsistent(format!(
                        "primitive {:?}: joint {j} of a skeleton of {joints}",
                        p.name
                    )));
                }
            }
        }
        Ok(())
    }
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
    /// Per-vertex skin joints: four indices into [`Scene::skeleton`]'s joints (unused
    /// slots 0, with weight 0), when the primitive is skinned.
    pub joints: Option<Vec<[u16; 4]>>,
    /// Per-vertex skin weights, one per joint of [`Primitive::joints`], summing to 1;
    /// present exactly when `joints` is.
    pub weights: Option<Vec<[f32; 4]>>,
    /// Morph targets (blend shapes), each with one position delta per vertex; empty
    /// when the source has none.
    pub morph_targets: Vec<MorphTarget>,
}

/// One morph target of a [`Primitive`]: the shape is the primitive's positions plus
/// `weight × position_deltas`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct MorphTarget {
    /// Name (may be empty).
    pub name: String,
    /// Per-vertex position offsets from [`Primitive::positions`].
    pub position_deltas: Vec<[f32; 3]>,
    /// The weight the target has by default (the glTF mesh's `weights`): 0, or STF's
    /// `default_value`.
    pub default_weight: f32,
}

impl Primitive {
    /// Checks that every array (morph target deltas too) has one entry per vertex, every
    /// index is in range, joints and weights come together, and weights are finite and
    /// not negative. (Joint indices are checked against the skeleton by
    /// [`Scene::check`].)
    pub fn check(&self) -> Result<()> {
        let n = self.positions.len();
        let bad = |what: String| Err(Error::new("export", ErrorKind::Inconsistent(what)));
        for (what, len) in [
            ("normals", self.normals.as_ref().map(Vec::len)),
            ("uvs", self.uvs.as_ref().map(Vec::len)),
            ("colors", self.colors.as_ref().map(Vec::len)),
            ("joints", self.joints.as_ref().map(Vec::len)),
            ("weights", self.weights.as_ref().map(Vec::len)),
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
        for t in &self.morph_targets {
            let len = t.position_deltas.len();
            if len != n {
                return bad(format!(
                    "primitive {:?}: morph target {:?} has {len} deltas for {n} vertices",
                    self.name, t.name
                ));
            }
        }
        if let Some(i) = self.triangles.iter().flatten().find(|&&i| i as usize >= n) {
            return bad(format!(
                "primitive {:?}: index {i} out of range (of {n})",
                self.name
            ));
        }
        if self.joints.is_some() != self.weights.is_some() {
            return bad(format!(
                "primitive {:?}: joints and weights must come together",
                self.name
            ));
        }
        let mut weights = self.weights.iter().flatten().flatten();
        if let Some(w) = weights.find(|w| !w.is_finite() || **w < 0.0) {
            return bad(format!("primitive {:?}: weight {w}", self.name));
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
        ..Primitive::default()
    };
    prim.normalize_normals();
    let skeleton = filemesh_skeleton(&mesh.skeleton)?;
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
    Ok(Scene {
        meshes: vec![ExportMesh {
            name: name.to_string(),
            primitives: vec![prim],
        }],
        skeleton,
    })
}

/// The skeleton of FileMesh bones (world space), `None` without bones.
fn filemesh_skeleton(bones: &[crate::roblox::model::MeshBone]) -> Result<Option<Skeleton>> {
    if bones.is_empty() {
        return Ok(None);
    }
    let parents: Vec<Option<usize>> = bones.iter().map(|b| b.parent.map(usize::from)).collect();
    let parents = skin::sane_parents(&parents);
    let world: Vec<([f64; 3], [f64; 4])> = bones
        .iter()
        .map(|b| {
            (
                b.position.map(f64::from),
                skin::mat3_to_quat(b.rotation.map(f64::from)),
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
    skin::skeleton_from_local(joints).map(Some)
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
        skeleton: None,
    }
}

/// A UNIGINE mesh as a scene: one primitive per surface (morph target 0).
///
/// Each further morph target of a surface becomes a [`MorphTarget`] named as in the
/// surface header, with default weight 0: each triangle vertex's delta is the target's
/// position minus the base's (target 0's) at the coordinate index its corners name,
/// computed in f32 (zero for a vertex no corner names). A target whose position count
/// differs from target 0's cannot be matched to the base positions and is left out (the
/// format has every target share target 0's coordinate indices, so such a file is
/// damaged; none of the fixtures or corpus files has one).
///
/// A mesh with bones (ms10–ms14) also gives the skeleton: the bones in file order,
/// each joint's local transform its bind pose transform (local to the parent bone; the
/// quaternion normalised), world matrices accumulated through the parents (which may
/// come after their children), each inverse bind matrix the inverse of the world
/// matrix. A parent index out of range, or one that closes a cycle, makes the bone a
/// root.
///
/// When any surface has skin weights, every surface is skinned: weights are stored per
/// position (coordinate vertex), so each triangle vertex takes those of the position
/// its corners name, weight / 65535; influences on the same bone are added up, those on
/// no bone dropped, the four largest kept and scaled to sum to 1. A vertex with no weight
/// at all (or in a surface without weights) is bound to joint 0 with weight 1.
pub fn from_unigine(
    mesh: &crate::unigine::UnigineMesh,
    name: &str,
    limits: &Limits,
) -> Result<Scene> {
    let body = mesh.to_classic(limits)?;
    let skeleton = unigine_skeleton(&body)?;
    let joint_count = skeleton.as_ref().map_or(0, |s| s.joints.len());
    let skinned = joint_count > 0 && body.data.iter().any(|d| !d.weights.counts.is_empty());
    let mut primitives = Vec::new();
    for (h, d) in body.surfaces.iter().zip(&body.data) {
        let Some(base) = d.targets.first() else {
            continue;
        };
        let nt = base.tangents.len();
        // Each triangle vertex takes the position its corners name.
        let mut positions = vec![[0.0f32; 3]; nt];
        let mut coordinate_of = vec![None; nt];
        for (c, t) in d.coordinate_indices.iter().zip(&d.triangle_indices) {
            let (Some(p), Some(slot), Some(coord)) = (
                base.positions.get(*c as usize),
                positions.get_mut(*t as usize),
                coordinate_of.get_mut(*t as usize),
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
            *coord = Some(*c as usize);
        }
        let triangles = d
            .triangle_indices
            .chunks_exact(3)
            .map(|t| <[u32; 3]>::try_from(t).unwrap_or_default())
            .collect();
        let (joints, weights) = if skinned {
            let per_position = unigine_vertex_skins(&d.weights, joint_count);
            let (j, w): (Vec<_>, Vec<_>) = coordinate_of
                .iter()
                .map(|c| {
                    c.and_then(|c| per_position.get(c).copied())
                        .unwrap_or_else(|| skin::vertex_skin([], joint_count))
                })
                .unzip();
            (Some(j), Some(w))
        } else {
            (None, None)
        };
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
            joints,
            weights,
            morph_targets: unigine_morph_targets(h, d, &coordinate_of),
        });
    }
    Ok(Scene {
        meshes: vec![ExportMesh {
            name: name.to_string(),
            primitives,
        }],
        skeleton,
    })
}

/// A surface's morph targets after target 0, as deltas from target 0 per triangle vertex
/// (`coordinate_of`: each triangle vertex's coordinate index); targets whose position
/// count differs from target 0's are left out.
fn unigine_morph_targets(
    h: &crate::unigine::mesh::SurfaceHeader,
    d: &crate::unigine::mesh::SurfaceData,
    coordinate_of: &[Option<usize>],
) -> Vec<MorphTarget> {
    let Some((base, rest)) = d.targets.split_first() else {
        return Vec::new();
    };
    rest.iter()
        .enumerate()
        .filter(|(_, t)| t.positions.len() == base.positions.len())
        .map(|(k, t)| MorphTarget {
            name: h.targets.get(k + 1).map(|n| n.text()).unwrap_or_default(),
            position_deltas: coordinate_of
                .iter()
                .map(|c| {
                    let pair = c.and_then(|c| Some((t.positions.get(c)?, base.positions.get(c)?)));
                    pair.map_or([0.0; 3], |(t, b)| [t[0] - b[0], t[1] - b[1], t[2] - b[2]])
                })
                .collect(),
            default_weight: 0.0,
        })
        .collect()
}

/// The skeleton of UNIGINE bones and their bind pose, `None` without bones.
fn unigine_skeleton(body: &crate::unigine::mesh::ClassicMesh) -> Result<Option<Skeleton>> {
    if body.bones.is_empty() {
        return Ok(None);
    }
    let joints = body
        .bones
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let pose = body
                .bind_pose
                .get(i)
                .copied()
                .unwrap_or(crate::unigine::mesh::Transform {
                    position: [0.0; 3],
                    rotation: [0.0, 0.0, 0.0, 1.0],
                    scale: [1.0; 3],
                });
            skin::LocalJoint {
                name: b.name.text(),
                parent: usize::try_from(b.parent).ok(),
                translation: pose.position.map(f64::from),
                rotation: pose.rotation.map(f64::from),
                scale: pose.scale.map(f64::from),
            }
        })
        .collect();
    skin::skeleton_from_local(joints).map(Some)
}

/// Each position's four joints and weights, from a surface's weights (positions past
/// the end of the weights get joint 0 with weight 1).
fn unigine_vertex_skins(
    w: &crate::unigine::mesh::Weights,
    joint_count: usize,
) -> Vec<([u16; 4], [f32; 4])> {
    let mut rest = w.entries.as_slice();
    w.counts
        .iter()
        .map(|&k| {
            let (these, after) = rest.split_at(usize::from(k).min(rest.len()));
            rest = after;
            let raw = these.iter().filter_map(|e| {
                usize::try_from(e.bone)
                    .ok()
                    .map(|b| (b, f64::from(e.weight)))
            });
            skin::vertex_skin(raw, joint_count)
        })
        .collect()
}

/// The `stf.mesh` resources of an STF file as a scene: a vertex per split.
///
/// Each blendshape becomes a [`MorphTarget`] (its name, its `default_value` as the
/// default weight): every split takes the offset of its vertex (the offset listed for
/// it when the blendshape has `indices`, zero for a vertex not listed), converted to
/// f32. Blendshape split normals are not exported.
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
            morph_targets,
            ..Primitive::default()
        };
        prim.normalize_normals();
        meshes.push(ExportMesh {
            name: m.name,
            primitives: vec![prim],
        });
    }
    Ok(Scene {
        meshes,
        skeleton: None,
    })
}
