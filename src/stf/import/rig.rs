//! A scene's skeleton, skins and animations as `stf_blender` reads them: an `stf.node`
//! holding an `stf.instance.armature` of one `stf.armature` whose `stf.bone`s are the
//! joints; each skinned `stf.mesh` naming the armature, its bones and per-vertex weights;
//! each animation an `stf.animation` of linear keys on the bones' `t`, `r` and `s`.
//!
//! What `stf_blender` 0.1.7 does with them decides the numbers:
//!
//! - A bone's `translation` and `rotation` are its rest transform in the armature's
//!   space (STF's +Y-up axes), without a scale: the joint's bind pose, the inverse of its
//!   inverse bind matrix, with the scale left out (reported as a loss by the import,
//!   `Rig::PositionRotation`). Blender drops a bone of zero `length`: a bone is as long
//!   as the farthest of its children is from it, else as its parent, else a twentieth of
//!   the skeleton's size.
//! - Animated values are local to the parent bone, as the scene's channels are (the
//!   importer turns them into Blender's rest-relative pose values).
//! - Where the joints' own transforms are not their bind pose, the armature instance
//!   gets a `pose` (each bone's local translation, rotation and scale), so the skeleton
//!   shows as glTF shows it.
//! - A mesh's weights are per vertex: `weight_lens` (how many, here the non-zero ones of
//!   the four), `bone_indices` (into `bones`, the bone ids as strings, which is how the
//!   importer matches them) and `weights`.
//! - Track targets are resource ids as strings (`[node, "instance", bone, "t"]`), key
//!   times are frames at [`FRAME_RATE`] frames a second.

use serde_json::{json, Map, Value};

use crate::scene::skin::{self, Mat4};
use crate::scene::{Animation, ChannelValues, Skeleton, FRAME_RATE};
use crate::stf::write::IdSource;

/// The armature as written: the node holding its instance, the `stf.armature`, and one
/// bone id per joint.
pub(super) struct Rig {
    /// The `stf.node` whose instance is the armature (the meshes' `armature_instance`).
    pub(super) node: String,
    /// The `stf.armature` (the meshes' `armature`).
    pub(super) armature: String,
    /// Per joint, its `stf.bone`.
    pub(super) bones: Vec<String>,
}

/// The bind pose of each joint (world, from its inverse bind matrix; from its local
/// transforms where that matrix has no inverse) as a translation and a unit rotation.
fn rest(s: &Skeleton) -> Vec<([f64; 3], [f64; 4])> {
    let local: Vec<Mat4> = s.joints.iter().map(skin::local_matrix).collect();
    let parents: Vec<Option<usize>> = s.joints.iter().map(|j| j.parent).collect();
    let world = skin::world_matrices(&local, &parents);
    s.joints
        .iter()
        .zip(&world)
        .map(|(j, w)| {
            let bind = skin::invert(&j.inverse_bind_matrix.map(f64::from)).unwrap_or(*w);
            let (t, q, _) = skin::decompose(&bind);
            (t, skin::normalize_quat(q))
        })
        .collect()
}

fn distance(a: [f64; 3], b: [f64; 3]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

/// Each joint's bone length (see the module docs).
fn lengths(s: &Skeleton, rest: &[([f64; 3], [f64; 4])]) -> Vec<f64> {
    const SHORTEST: f64 = 1e-4;
    let head = |j: usize| rest.get(j).map_or([0.0; 3], |r| r.0);
    let mut own: Vec<Option<f64>> = vec![None; s.joints.len()];
    for (c, j) in s.joints.iter().enumerate() {
        if let Some(p) = j.parent {
            let d = distance(head(p), head(c));
            if let Some(slot) = own.get_mut(p) {
                if d > SHORTEST && slot.is_none_or(|l| d > l) {
                    *slot = Some(d);
                }
            }
        }
    }
    let (mut lo, mut hi) = ([f64::INFINITY; 3], [f64::NEG_INFINITY; 3]);
    for (t, _) in rest {
        for ((l, h), x) in lo.iter_mut().zip(hi.iter_mut()).zip(t) {
            *l = l.min(*x);
            *h = h.max(*x);
        }
    }
    let size = distance(lo, hi);
    let fallback = if size.is_finite() && size > SHORTEST * 20.0 {
        size / 20.0
    } else {
        0.1
    };
    (0..s.joints.len())
        .map(|j| {
            // Up the parents (at most as many steps as joints) to the first with a length.
            let mut at = Some(j);
            for _ in 0..=s.joints.len() {
                match at {
                    Some(k) => {
                        if let Some(l) = own.get(k).copied().flatten() {
                            return l;
                        }
                        at = s.joints.get(k).and_then(|x| x.parent);
                    }
                    None => break,
                }
            }
            fallback
        })
        .collect()
}

/// A number as its `f32`, written in the fewest digits that read back as that `f32`
/// (a `serde_json` number from an `f32` is written as the wider `f64`).
fn short(x: f32) -> Value {
    let x = x.to_string().parse::<f64>().unwrap_or(0.0);
    serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
}

/// Numbers as [`short`] writes them.
fn shorts(v: &[f32]) -> Value {
    Value::Array(v.iter().map(|&x| short(x)).collect())
}

fn f32s<const N: usize>(v: [f64; N]) -> Value {
    Value::Array(v.iter().map(|&x| short(x as f32)).collect())
}

/// The armature's resources added to `resources` (the node first, then its instance,
/// the armature and the bones, in joint order), ids from `ids`.
pub(super) fn armature(
    s: &Skeleton,
    name: &str,
    ids: &mut IdSource,
    resources: &mut Map<String, Value>,
) -> Rig {
    let (node, instance, armature) = (ids.next(), ids.next(), ids.next());
    let bones: Vec<String> = s.joints.iter().map(|_| ids.next()).collect();
    let rest = rest(s);
    let lengths = lengths(s, &rest);
    // The rest transforms local to the parent, to tell whether a pose is needed.
    let rest_world: Vec<Mat4> = rest
        .iter()
        .map(|&(t, q)| skin::trs_matrix(t, q, [1.0; 3]))
        .collect();
    let posed = s.joints.iter().enumerate().any(|(k, j)| {
        let own = rest_world.get(k).copied().unwrap_or(skin::IDENTITY);
        let rest_local = match j.parent.and_then(|p| rest_world.get(p)) {
            Some(pw) => skin::mul(&skin::invert(pw).unwrap_or(skin::IDENTITY), &own),
            None => own,
        };
        let local = skin::local_matrix(j);
        local
            .iter()
            .zip(&rest_local)
            .any(|(a, b)| (a - b).abs() > 1e-4)
    });
    // Each joint's children (and the roots), in joint order.
    let mut roots = Vec::new();
    let mut kids: Vec<Vec<usize>> = vec![Vec::new(); s.joints.len()];
    for (c, j) in s.joints.iter().enumerate() {
        match j.parent.and_then(|p| kids.get_mut(p)) {
            Some(list) => list.push(c),
            None => roots.push(c),
        }
    }
    let ids_of = |list: &[usize]| -> Vec<String> {
        list.iter().filter_map(|&k| bones.get(k).cloned()).collect()
    };
    let mut instance_json = json!({
        "type": "stf.instance.armature",
        "name": "",
        "armature": 0,
        "referenced_resources": [armature.clone()],
    });
    if posed {
        let pose: Map<String, Value> = s
            .joints
            .iter()
            .zip(&bones)
            .map(|(j, id)| {
                let trs = [&j.translation[..], &j.rotation[..], &j.scale[..]].map(shorts);
                (id.clone(), Value::Array(trs.to_vec()))
            })
            .collect();
        if let Some(o) = instance_json.as_object_mut() {
            o.insert("pose".into(), Value::Object(pose));
        }
    }
    resources.insert(
        node.clone(),
        json!({
            "type": "stf.node",
            "name": name,
            "children": [],
            "trs": [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0]],
            "instance": 0,
            "referenced_resources": [instance.clone()],
        }),
    );
    resources.insert(instance, instance_json);
    resources.insert(
        armature.clone(),
        json!({
            "type": "stf.armature",
            "name": name,
            "root_bones": (0..roots.len()).collect::<Vec<_>>(),
            "referenced_resources": ids_of(&roots),
        }),
    );
    for (k, j) in s.joints.iter().enumerate() {
        let (t, q) = rest
            .get(k)
            .copied()
            .unwrap_or(([0.0; 3], [0.0, 0.0, 0.0, 1.0]));
        let kids = kids.get(k).map(Vec::as_slice).unwrap_or_default();
        let bone_name = if j.name.is_empty() {
            format!("Joint {k}")
        } else {
            j.name.clone()
        };
        if let Some(id) = bones.get(k) {
            resources.insert(
                id.clone(),
                json!({
                    "type": "stf.bone",
                    "name": bone_name,
                    "translation": f32s(t),
                    "rotation": f32s(q),
                    "length": short(lengths.get(k).copied().unwrap_or(0.1) as f32),
                    "children": (0..kids.len()).collect::<Vec<_>>(),
                    "referenced_resources": ids_of(kids),
                }),
            );
        }
    }
    Rig {
        node,
        armature,
        bones,
    }
}

/// A key time in seconds as a frame at [`FRAME_RATE`], a whole frame when it is within
/// a thousandth of one (UNIGINE's frames come back whole).
fn frame(t: f32) -> f64 {
    let f = f64::from(t) * f64::from(FRAME_RATE);
    let whole = f.round();
    if (f - whole).abs() < 1e-3 {
        whole
    } else {
        f
    }
}

/// One `stf.animation` per scene animation added to `resources`; their ids, in order.
pub(super) fn animations(
    animations: &[Animation],
    rig: &Rig,
    ids: &mut IdSource,
    resources: &mut Map<String, Value>,
) -> Vec<String> {
    let mut out = Vec::new();
    for (k, a) in animations.iter().enumerate() {
        let (mut first, mut last) = (f64::INFINITY, f64::NEG_INFINITY);
        let mut tracks = Vec::new();
        for c in &a.channels {
            let Some(bone) = rig.bones.get(c.joint) else {
                continue;
            };
            let times: Vec<f64> = c.times.iter().map(|&t| frame(t)).collect();
            for &t in &times {
                first = first.min(t);
                last = last.max(t);
            }
            let (path, rows): (&str, Vec<Vec<f32>>) = match &c.values {
                ChannelValues::Translation(v) => ("t", v.iter().map(|x| x.to_vec()).collect()),
                ChannelValues::Rotation(v) => ("r", v.iter().map(|x| x.to_vec()).collect()),
                ChannelValues::Scale(v) => ("s", v.iter().map(|x| x.to_vec()).collect()),
            };
            let width = rows.first().map_or(0, Vec::len);
            let subtracks: Vec<Value> = (0..width)
                .map(|i| {
                    let keys: Vec<Value> = rows
                        .iter()
                        .map(|r| json!([true, short(r.get(i).copied().unwrap_or(0.0)), "linear"]))
                        .collect();
                    json!({ "keyframes": keys })
                })
                .collect();
            tracks.push(json!({
                "target": [rig.node, "instance", bone, path],
                "timepoints": times.iter().map(|&t| short(t as f32)).collect::<Vec<_>>(),
                "subtracks": subtracks,
                "interpolation": "linear",
            }));
        }
        let name = if a.name.is_empty() {
            format!("Animation {k}")
        } else {
            a.name.clone()
        };
        let mut resource = json!({
            "type": "stf.animation",
            "name": name,
            "loop": "none",
            "fps": FRAME_RATE,
            "tracks": tracks,
        });
        if first.is_finite() && last.is_finite() {
            if let Some(o) = resource.as_object_mut() {
                o.insert(
                    "range".into(),
                    json!([short(first as f32), short(last as f32)]),
                );
            }
        }
        let id = ids.next();
        resources.insert(id.clone(), resource);
        out.push(id);
    }
    out
}

/// A skinned mesh's keys (`armature`, `bones`, the widths, `weight_lens`,
/// `bone_indices`, `weights`, and the `referenced_resources` they name), the three
/// buffers (id, bytes) pushed to `buffers` and their ids to the mesh's
/// `referenced_buffers` (`slots`). Weights are written in 4 bytes (the mesh's
/// `float_width`); a vertex lists its joints of non-zero weight.
pub(super) fn skin(
    rig: &Rig,
    (joints, weights): &(Vec<[u16; 4]>, Vec<[f32; 4]>),
    ids: &mut IdSource,
    buffers: &mut Vec<(String, Vec<u8>)>,
    slots: &mut Vec<String>,
) -> Map<String, Value> {
    let bone_width: usize = if rig.bones.len() <= 256 { 1 } else { 2 };
    let mut lens = Vec::with_capacity(joints.len());
    let mut bone_indices = Vec::new();
    let mut values = Vec::new();
    for (j, w) in joints.iter().zip(weights) {
        let mut n = 0u8;
        for (&b, &x) in j.iter().zip(w) {
            if x > 0.0 {
                n += 1;
                bone_indices
                    .extend_from_slice(b.to_le_bytes().get(..bone_width).unwrap_or_default());
                values.extend_from_slice(&x.to_le_bytes());
            }
        }
        lens.push(n);
    }
    let mut out = Map::new();
    out.insert("armature".into(), json!(0));
    out.insert("bones".into(), json!(rig.bones));
    out.insert("bone_indices_width".into(), json!(bone_width));
    out.insert("weight_lens_width".into(), json!(1));
    for (key, bytes) in [
        ("weight_lens", lens),
        ("bone_indices", bone_indices),
        ("weights", values),
    ] {
        let id = ids.next();
        out.insert(key.into(), json!(slots.len()));
        slots.push(id.clone());
        buffers.push((id, bytes));
    }
    out.insert("referenced_resources".into(), json!([rig.armature]));
    out
}
