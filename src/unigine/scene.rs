//! UNIGINE meshes and animations to the format-neutral [`Scene`]:
//! surfaces (with normals from the tangent frames), skins, morph targets and animations.
//! The scenes keep UNIGINE's +Z-up numbers ([`Scene::up`] is [`UpAxis::Z`]); the front
//! door's export turns them to glTF's +Y up ([`Scene::to_y_up`]).

use std::borrow::Cow;

use crate::error::{Error, ErrorKind, Limits, Result};
use crate::scene::skin;
use crate::scene::{
    Animation, Channel, ChannelValues, ExportMesh, Fixes, MorphTarget, Primitive, Scene, Skeleton,
    UpAxis, FRAME_RATE,
};
use crate::unigine::UnigineMesh;

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
///
/// The animations embedded in ms10–ms12 meshes become [`Animation`]s, one per clip,
/// named as in the header (f32 translations and scales, rotations i16 / 32767). UNIGINE
/// stores no frame rate: frame `f` is at `f / FRAME_RATE` seconds. Every animated bone
/// gets one [`Channel`] per path (translation, rotation, scale) that any key of the clip
/// stores, with one key per frame: a component a key leaves out keeps the previous
/// frame's value, and at frame 0 the bone's bind pose value. Rotations are normalised to
/// unit quaternions (a zero one becomes the identity). Animated bone indices outside
/// the skeleton are skipped (their keys are read and dropped), and so is a bone listed
/// again after its first slot; a clip with no frames or nothing left to write is left
/// out (glTF allows no empty animation).
///
/// The mesh is borrowed (`&mesh`: a body already in the ms10–ms13 layout is read in
/// place, an ms14 one decoded) or taken (`mesh`: an ms14 mesh's compressed blocks are
/// dropped as they are decoded, and the mesh once the scene is built).
pub fn mesh_to_scene<'a>(
    mesh: impl Into<Cow<'a, UnigineMesh>>,
    name: &str,
    limits: &Limits,
) -> Result<Scene> {
    match mesh.into() {
        Cow::Borrowed(mesh) => {
            let body = mesh.classic_view(limits)?;
            classic_to_scene(&body, mesh.version, name)
        }
        Cow::Owned(mesh) => {
            let version = mesh.version;
            classic_to_scene(&mesh.into_classic(limits)?, version, name)
        }
    }
}

/// A borrowed mesh for [`mesh_to_scene`].
impl<'a> From<&'a UnigineMesh> for Cow<'a, UnigineMesh> {
    fn from(mesh: &'a UnigineMesh) -> Self {
        Cow::Borrowed(mesh)
    }
}

/// A mesh given away to [`mesh_to_scene`].
impl From<UnigineMesh> for Cow<'_, UnigineMesh> {
    fn from(mesh: UnigineMesh) -> Self {
        Cow::Owned(mesh)
    }
}

/// [`mesh_to_scene`] of a body in the ms10–ms13 layout, read from a `version` file.
fn classic_to_scene(
    body: &crate::unigine::raw::mesh::ClassicMesh,
    version: crate::unigine::MeshVersion,
    name: &str,
) -> Result<Scene> {
    let mut fixes = Fixes::default();
    let bind_pose = unigine_finite_pose(&body.bind_pose, &mut fixes);
    let skeleton = unigine_skeleton(&body.bones, &bind_pose, &mut fixes)?;
    let joint_count = skeleton.as_ref().map_or(0, |s| s.joints.len());
    let animations = body
        .animation_names
        .iter()
        .zip(&body.animations)
        .filter_map(|(n, a)| {
            let keys: Vec<StoredKey> = a.keys.iter().map(StoredKey::embedded).collect();
            let clip = Clip {
                name: n.text(),
                bones: &a.bones,
                frames: a.frame_count,
                keys: &keys,
            };
            unigine_clip(clip, &bind_pose, joint_count, &mut fixes)
        })
        .collect();
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
            // A surface is its own material: glTF keeps the surfaces apart by it.
            material: Some(h.name.text()),
            positions,
            normals: (nt > 0).then(|| {
                let ms10 = version == crate::unigine::MeshVersion::Ms10;
                base.tangents
                    .iter()
                    .map(|t| tangent_normal(*t, ms10))
                    .collect()
            }),
            uvs: (d.uv0.len() == nt && nt > 0).then(|| d.uv0.to_vec()),
            // The second set only beside a first (glTF's TEXCOORD_1 needs a TEXCOORD_0).
            extra_uvs: if d.uv0.len() == nt && d.uv1.len() == nt && nt > 0 {
                vec![d.uv1.to_vec()]
            } else {
                Vec::new()
            },
            colors: (d.colors.len() == nt && nt > 0).then(|| {
                d.colors
                    .iter()
                    .map(|c| c.map(crate::unigine::raw::quant::unorm8_to_f32))
                    .collect()
            }),
            triangles,
            joints,
            weights,
            morph_targets: unigine_morph_targets(h, d, &coordinate_of),
        });
    }
    let mut scene = Scene {
        meshes: vec![ExportMesh {
            lod: 0,
            name: name.to_string(),
            primitives,
        }],
        skeleton,
        animations,
        notes: Vec::new(),
        up: UpAxis::Z,
    };
    scene.prepare_with(fixes);
    Ok(scene)
}

/// The bind pose with every value that is not finite replaced (counted as `bind pose`
/// components): positions and rotation components by 0, scales by 1.
fn unigine_finite_pose(
    pose: &[crate::unigine::raw::mesh::Transform],
    fixes: &mut Fixes,
) -> Vec<crate::unigine::raw::mesh::Transform> {
    pose.iter()
        .map(|t| crate::unigine::raw::mesh::Transform {
            position: t.position.map(|x| fixes.finite("bind pose", x, 0.0)),
            rotation: t.rotation.map(|x| fixes.finite("bind pose", x, 0.0)),
            scale: t.scale.map(|x| fixes.finite("bind pose", x, 1.0)),
        })
        .collect()
}

/// A surface's morph targets after target 0, as deltas from target 0 per triangle vertex
/// (`coordinate_of`: each triangle vertex's coordinate index); targets whose position
/// count differs from target 0's are left out.
fn unigine_morph_targets(
    h: &crate::unigine::raw::mesh::SurfaceHeader,
    d: &crate::unigine::raw::mesh::SurfaceData,
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

/// The bind pose transform of bone `i`: the identity when the bind pose is short.
fn unigine_bind_pose(
    bind_pose: &[crate::unigine::raw::mesh::Transform],
    i: usize,
) -> crate::unigine::raw::mesh::Transform {
    bind_pose
        .get(i)
        .copied()
        .unwrap_or(crate::unigine::raw::mesh::Transform {
            position: [0.0; 3],
            rotation: [0.0, 0.0, 0.0, 1.0],
            scale: [1.0; 3],
        })
}

/// The skeleton of UNIGINE bones and their bind pose (of a mesh or an animation file),
/// `None` without bones.
fn unigine_skeleton(
    bones: &[crate::unigine::raw::mesh::Bone],
    bind_pose: &[crate::unigine::raw::mesh::Transform],
    fixes: &mut Fixes,
) -> Result<Option<Skeleton>> {
    if bones.is_empty() {
        return Ok(None);
    }
    let joints = bones
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let pose = unigine_bind_pose(bind_pose, i);
            skin::LocalJoint {
                name: b.name.text(),
                parent: usize::try_from(b.parent).ok(),
                translation: pose.position.map(f64::from),
                rotation: pose.rotation.map(f64::from),
                scale: pose.scale.map(f64::from),
            }
        })
        .collect();
    skin::skeleton_from_local(joints, fixes).map(Some)
}

/// A UNIGINE animation file as a scene: its skeleton and one [`Animation`] per clip,
/// no meshes.
///
/// The skeleton is built from the file's bones and bind pose as [`mesh_to_scene`] builds
/// a mesh's. Each clip (an10: one per name, named so; an11: the one clip, named `name`)
/// becomes an animation as described under [`mesh_to_scene`]'s embedded animations:
/// frame `f` at `f / FRAME_RATE` seconds, one key per frame for every path the clip
/// stores. an10 translations and scales are decoded through the clip's boxes
/// ([`QuantBox::decode`](crate::unigine::raw::anim::QuantBox::decode)), rotations are
/// i16 / 32767; an11 keys are f32 vectors.
pub fn anim_to_scene(anim: &crate::unigine::raw::anim::UnigineAnim, name: &str) -> Result<Scene> {
    use crate::unigine::raw::anim::UnigineAnim;
    let (bones, bind_pose) = match anim {
        UnigineAnim::An10(f) => (&f.bones, &f.bind_pose),
        UnigineAnim::An11(f) => (&f.bones, &f.bind_pose),
    };
    let mut fixes = Fixes::default();
    let bind_pose = unigine_finite_pose(bind_pose, &mut fixes);
    let skeleton = unigine_skeleton(bones, &bind_pose, &mut fixes)?;
    let joints = skeleton.as_ref().map_or(0, |s| s.joints.len());
    let animations = match anim {
        UnigineAnim::An10(f) => f
            .names
            .iter()
            .zip(&f.animations)
            .filter_map(|(n, a)| {
                let keys: Vec<StoredKey> = a.keys.iter().map(|k| StoredKey::an10(k, a)).collect();
                let clip = Clip {
                    name: n.text(),
                    bones: &a.bones,
                    frames: a.frame_count,
                    keys: &keys,
                };
                unigine_clip(clip, &bind_pose, joints, &mut fixes)
            })
            .collect(),
        UnigineAnim::An11(f) => {
            let a = &f.animation;
            let keys: Vec<StoredKey> = a.keys.iter().map(StoredKey::an11).collect();
            let clip = Clip {
                name: name.to_string(),
                bones: &a.bones,
                frames: a.frame_count,
                keys: &keys,
            };
            unigine_clip(clip, &bind_pose, joints, &mut fixes)
                .into_iter()
                .collect()
        }
    };
    let mut scene = Scene {
        skeleton,
        animations,
        up: UpAxis::Z,
        ..Scene::default()
    };
    scene.prepare_with(fixes);
    Ok(scene)
}

/// The normal of a UNIGINE tangent frame: the frame is a unit quaternion (x, y, z, w,
/// each × 32767) and the normal is its rotation of +Z. ms10 keeps only a sign in the
/// fourth slot, so there w is √(1 − x² − y² − z²). Worked out on the corpus (the
/// normals agree with the faces' own; `docs/unigine-normals.md`).
pub(crate) fn tangent_normal(t: [i16; 4], ms10: bool) -> [f32; 3] {
    let [x, y, z, w] = t.map(|c| f64::from(c) / 32767.0);
    let w = if ms10 {
        (1.0 - x * x - y * y - z * z).max(0.0).sqrt()
    } else {
        w
    };
    let q = skin::normalize_quat([x, y, z, w]);
    skin::quat_rotate(q, [0.0, 0.0, 1.0]).map(|c| c as f32)
}

/// The components one UNIGINE key stores (`None`: absent), decoded.
#[derive(Clone, Copy, Debug, Default)]
struct StoredKey {
    translation: [Option<f32>; 3],
    /// As stored, any length.
    rotation: Option<[f64; 4]>,
    scale: [Option<f32>; 3],
}

/// The flagged components of a vector, decoded.
fn flagged<T: Copy>(
    on: [bool; 3],
    v: [T; 3],
    decode: impl Fn(usize, T) -> f32,
) -> [Option<f32>; 3] {
    let mut out = [None; 3];
    for (axis, ((o, on), v)) in out.iter_mut().zip(on).zip(v).enumerate() {
        if on {
            *o = Some(decode(axis, v));
        }
    }
    out
}

/// An i16 rotation as stored: each component / 32767.
fn i16_rotation(r: [i16; 4]) -> [f64; 4] {
    r.map(|x| f64::from(crate::unigine::raw::quant::snorm16_to_f32(x)))
}

impl StoredKey {
    /// A key of an animation embedded in an ms10–ms12 mesh.
    fn embedded(k: &crate::unigine::raw::anim::Key<f32>) -> Self {
        let m = k.mask;
        StoredKey {
            translation: flagged(m.translation(), k.translation, |_, x| x),
            rotation: m.rotation().then(|| i16_rotation(k.rotation)),
            scale: flagged(m.scale(), k.scale, |_, x| x),
        }
    }

    /// A key of an an10 clip, decoded through the clip's boxes.
    fn an10(
        k: &crate::unigine::raw::anim::Key<u16>,
        a: &crate::unigine::raw::anim::An10Animation,
    ) -> Self {
        let m = k.mask;
        StoredKey {
            translation: flagged(m.translation(), k.translation, |c, q| {
                a.translation_box.decode(c, q)
            }),
            rotation: m.rotation().then(|| i16_rotation(k.rotation)),
            scale: flagged(m.scale(), k.scale, |c, q| a.scale_box.decode(c, q)),
        }
    }

    /// A key of an an11 clip.
    fn an11(k: &crate::unigine::raw::anim::An11Key) -> Self {
        use crate::unigine::raw::anim::An11Key;
        let has = |bit: u8| k.mask & bit != 0;
        StoredKey {
            translation: flagged([has(An11Key::POSITION); 3], k.position, |_, x| x),
            rotation: has(An11Key::ROTATION).then(|| k.rotation.map(f64::from)),
            scale: flagged([has(An11Key::SCALE); 3], k.scale, |_, x| x),
        }
    }
}

/// One bone's translations, rotations and scales, a value per frame.
type Tracks = (Vec<[f32; 3]>, Vec<[f32; 4]>, Vec<[f32; 3]>);

/// A UNIGINE clip as stored: `keys` are frame-major, `bones.len()` per frame.
struct Clip<'a> {
    name: String,
    bones: &'a [i16],
    frames: u32,
    keys: &'a [StoredKey],
}

/// One UNIGINE clip as an animation (see [`mesh_to_scene`]); `None` when it has nothing
/// glTF can hold (no frames, no animated bone in the skeleton, no stored component).
/// `joints` is the skeleton's size; `bind_pose` finite. Stored components of exported
/// bones that are not finite are replaced (counted in `fixes`): translations and
/// rotation components by 0, scales by 1.
fn unigine_clip(
    clip: Clip,
    bind_pose: &[crate::unigine::raw::mesh::Transform],
    joints: usize,
    fixes: &mut Fixes,
) -> Option<Animation> {
    let Clip {
        name,
        bones,
        frames,
        keys,
    } = clip;
    let n = bones.len();
    let stores = |f: &dyn Fn(&StoredKey) -> bool| keys.iter().any(f);
    let paths = [
        stores(&|k| k.translation.iter().any(Option::is_some)),
        stores(&|k| k.rotation.is_some()),
        stores(&|k| k.scale.iter().any(Option::is_some)),
    ];
    // Each bone's state: its bind pose, then the keys as they come.
    let mut state: Vec<([f32; 3], [f32; 4], [f32; 3])> = bones
        .iter()
        .map(|&b| {
            let pose = usize::try_from(b)
                .ok()
                .filter(|&b| b < joints)
                .map(|b| unigine_bind_pose(bind_pose, b))
                .unwrap_or_else(|| unigine_bind_pose(&[], 0));
            let rotation = skin::normalize_quat(pose.rotation.map(f64::from)).map(|x| x as f32);
            (pose.position, rotation, pose.scale)
        })
        .collect();
    // The slots exported: in the skeleton, first of their bone.
    let mut seen = std::collections::HashSet::new();
    let exported: Vec<(usize, usize)> = bones
        .iter()
        .enumerate()
        .filter_map(|(slot, &b)| {
            let b = usize::try_from(b).ok().filter(|&b| b < joints)?;
            seen.insert(b).then_some((slot, b))
        })
        .collect();
    if frames == 0 || exported.is_empty() || !paths.iter().any(|&p| p) {
        return None;
    }
    let frame_count = frames as usize;
    let mut values: Vec<Tracks> = exported
        .iter()
        .map(|_| {
            (
                Vec::with_capacity(frame_count),
                Vec::with_capacity(frame_count),
                Vec::with_capacity(frame_count),
            )
        })
        .collect();
    let mut is_exported = vec![false; n];
    for &(slot, _) in &exported {
        if let Some(e) = is_exported.get_mut(slot) {
            *e = true;
        }
    }
    let mut frame_keys = keys.chunks(n.max(1));
    for _ in 0..frames {
        let these = frame_keys.next().unwrap_or_default();
        for ((s, k), _) in state
            .iter_mut()
            .zip(these)
            .zip(&is_exported)
            .filter(|(_, e)| **e)
        {
            for (v, x) in s.0.iter_mut().zip(k.translation) {
                *v = x.map_or(*v, |x| fixes.finite("animation translation", x, 0.0));
            }
            if let Some(r) = k.rotation {
                let r = r.map(|x| fixes.finite("animation rotation", x, 0.0));
                s.1 = skin::normalize_quat(r).map(|x| x as f32);
            }
            for (v, x) in s.2.iter_mut().zip(k.scale) {
                *v = x.map_or(*v, |x| fixes.finite("animation scale", x, 1.0));
            }
        }
        for ((slot, _), out) in exported.iter().zip(&mut values) {
            if let Some(s) = state.get(*slot) {
                out.0.push(s.0);
                out.1.push(s.1);
                out.2.push(s.2);
            }
        }
    }
    let times: Vec<f32> = (0..frames).map(|f| f as f32 / FRAME_RATE).collect();
    let mut channels = Vec::new();
    for ((_, joint), (t, r, s)) in exported.into_iter().zip(values) {
        let all = [
            ChannelValues::Translation(t),
            ChannelValues::Rotation(r),
            ChannelValues::Scale(s),
        ];
        for (values, _) in all.into_iter().zip(paths).filter(|(_, p)| *p) {
            channels.push(Channel {
                joint,
                times: times.clone(),
                values,
            });
        }
    }
    Some(Animation { name, channels })
}

/// Each position's four joints and weights, from a surface's weights (positions past
/// the end of the weights get joint 0 with weight 1).
fn unigine_vertex_skins(
    w: &crate::unigine::raw::mesh::Weights,
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
