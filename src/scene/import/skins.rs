//! glTF skins and animations for the import: the skins the placed meshes use become one
//! scene-wide [`Skeleton`], their joint indices are renumbered into it, and animations of
//! its joints become [`Animation`]s.
//!
//! A glTF skin's vertices are in "bind space": a vertex is drawn at
//! `Σ weight × world(joint) × inverseBindMatrix(joint) × position`. The scene keeps
//! positions in the bind pose itself, with each joint's inverse bind matrix the inverse
//! of its world matrix. When a skin's matrices already say so (`world × inverse bind` is
//! the identity to 1e-4, which is how Blender and most tools write them) its positions
//! and inverse bind matrices are kept as stored. Otherwise (for example a quantized
//! file, whose dequantization scale lives in the inverse bind matrices) each vertex is
//! moved to where the skin draws it, and the joint's inverse bind matrix becomes the
//! inverse of its world matrix, so the mesh looks the same and keeps its size.

use std::collections::HashMap;
use std::rc::Rc;

use serde_json::Value;

use super::accessors::Accessor;
use super::json::{bad, entry, uint};
use super::transform::{local_matrix, node_trs, Affine};
use crate::error::Result;
use crate::scene::skin::{self, decompose, invert, mul, Mat4, IDENTITY};
use crate::scene::{
    Animation, Channel, ChannelValues, ExportNote, Joint, NoteKind, Primitive, Skeleton,
};

/// Reads an accessor by index, with the components per element it may have.
pub(super) type Fetch<'a> = dyn FnMut(usize, &[usize], &str) -> Result<Rc<Accessor>> + 'a;

/// Every node's local and world matrix and its parent.
pub(super) struct Nodes {
    local: Vec<Mat4>,
    parent: Vec<Option<usize>>,
    world: Vec<Mat4>,
}

impl Nodes {
    /// The document's nodes (a node listed as the child of two is kept under the first;
    /// the placement walk reports it).
    pub(super) fn read(doc: &Value) -> Result<Nodes> {
        let empty = Vec::new();
        let nodes = doc.get("nodes").and_then(Value::as_array).unwrap_or(&empty);
        let mut local = Vec::with_capacity(nodes.len());
        let mut parent = vec![None; nodes.len()];
        for (i, n) in nodes.iter().enumerate() {
            local.push(local_matrix(n, &format!("glTF node {i}"))?);
            for c in n
                .get("children")
                .and_then(Value::as_array)
                .unwrap_or(&empty)
                .iter()
                .filter_map(Value::as_u64)
            {
                if let Some(p) = usize::try_from(c).ok().and_then(|c| parent.get_mut(c)) {
                    if p.is_none() {
                        *p = Some(i);
                    }
                }
            }
        }
        let parent = skin::sane_parents(&parent);
        let world = skin::world_matrices(&local, &parent);
        Ok(Nodes {
            local,
            parent,
            world,
        })
    }

    fn world(&self, i: usize) -> Mat4 {
        self.world.get(i).copied().unwrap_or(IDENTITY)
    }
}

/// How one glTF skin's primitives enter the scene.
pub(super) struct SkinUse {
    /// Scene joint of each of the skin's joints.
    remap: Vec<u16>,
    /// `world × inverse bind` of each of the skin's joints, when they are not the
    /// identity: the vertices are moved by them.
    bake: Option<Vec<Mat4>>,
}

/// The skins the placed meshes use, as one skeleton.
#[derive(Default)]
pub(super) struct Skins {
    /// Node of each scene joint.
    joint_nodes: Vec<usize>,
    slot: HashMap<usize, usize>,
    /// Inverse bind matrix of each scene joint.
    ibm: Vec<Mat4>,
    uses: HashMap<usize, SkinUse>,
}

/// Whether `m` is the identity to 1e-4 (the translation relative to `scale`).
fn near_identity(m: &Mat4, scale: f64) -> bool {
    m.iter().zip(IDENTITY).enumerate().all(|(k, (a, b))| {
        let tol = if (12..15).contains(&k) {
            1e-4 * (1.0 + scale)
        } else {
            1e-4
        };
        (a - b).abs() <= tol
    })
}

impl Skins {
    /// Builds the skeleton of glTF skins `used` (ascending): their joints in order, each
    /// node once.
    pub(super) fn build(
        doc: &Value,
        nodes: &Nodes,
        used: &[usize],
        fetch: &mut Fetch<'_>,
    ) -> Result<Skins> {
        let mut out = Skins::default();
        for &s in used {
            let ctx = format!("glTF skin {s}");
            let skin = entry(doc, "skins", s, &ctx)?;
            let joints: Vec<usize> = skin
                .get("joints")
                .and_then(Value::as_array)
                .ok_or_else(|| bad(format!("{ctx}: no joints")))?
                .iter()
                .map(|j| {
                    j.as_u64()
                        .and_then(|j| usize::try_from(j).ok())
                        .filter(|&j| j < nodes.local.len())
                        .ok_or_else(|| bad(format!("{ctx}: joint {j} is not a node")))
                })
                .collect::<Result<_>>()?;
            if joints.is_empty() {
                return Err(bad(format!("{ctx}: no joints")));
            }
            let ibms: Vec<Mat4> = match uint(skin, "inverseBindMatrices", &ctx)? {
                None => vec![IDENTITY; joints.len()],
                Some(k) => {
                    let a = fetch(k, &[16], &format!("{ctx} inverseBindMatrices"))?;
                    if a.count() < joints.len() {
                        return Err(bad(format!(
                            "{ctx}: {} inverse bind matrices for {} joints",
                            a.count(),
                            joints.len()
                        )));
                    }
                    a.elements()
                        .map(|m| {
                            let mut out = [0.0; 16];
                            for (o, x) in out.iter_mut().zip(m) {
                                *o = *x;
                            }
                            out
                        })
                        .collect()
                }
            };
            let products: Vec<Mat4> = joints
                .iter()
                .zip(&ibms)
                .map(|(&j, ibm)| mul(&nodes.world(j), ibm))
                .collect();
            let consistent = joints.iter().zip(&products).all(|(&j, m)| {
                let w = nodes.world(j);
                let size = w.get(12..15).unwrap_or_default().iter().map(|x| x * x);
                near_identity(m, size.sum::<f64>().sqrt())
            });
            let mut remap = Vec::with_capacity(joints.len());
            for (&j, ibm) in joints.iter().zip(&ibms) {
                let slot = match out.slot.get(&j) {
                    Some(&k) => k,
                    None => {
                        let k = out.joint_nodes.len();
                        let ibm = if consistent {
                            *ibm
                        } else {
                            invert(&nodes.world(j)).ok_or_else(|| {
                                bad(format!("{ctx}: joint node {j}'s transform is singular"))
                            })?
                        };
                        out.joint_nodes.push(j);
                        out.slot.insert(j, k);
                        out.ibm.push(ibm);
                        k
                    }
                };
                remap.push(
                    u16::try_from(slot).map_err(|_| bad(format!("{ctx}: over 65,536 joints")))?,
                );
            }
            out.uses.insert(
                s,
                SkinUse {
                    remap,
                    bake: (!consistent).then_some(products),
                },
            );
        }
        Ok(out)
    }

    /// Puts a primitive of a mesh that glTF skin `s` deforms into the scene: joints
    /// renumbered into the skeleton and, where the skin's bind matrices say so, its
    /// vertices moved to where the skin draws them in the bind pose.
    pub(super) fn apply(&self, s: usize, p: &mut Primitive, ctx: &str) -> Result<()> {
        let Some(u) = self.uses.get(&s) else {
            return Err(bad(format!("{ctx}: skin {s} was not read")));
        };
        let Some(mut joints) = p.joints.take() else {
            return Ok(());
        };
        let out_of_range =
            |j: u16, n: usize| bad(format!("{ctx}: joint {j} of a skin of {n} joints"));
        if let Some(bake) = &u.bake {
            let weights = p.weights.clone().unwrap_or_default();
            for (i, (j, w)) in joints.iter().zip(&weights).enumerate() {
                let mut m = [0.0; 16];
                for (&j, &w) in j.iter().zip(w).filter(|(_, &w)| w > 0.0) {
                    let b = bake
                        .get(usize::from(j))
                        .ok_or_else(|| out_of_range(j, bake.len()))?;
                    for (o, x) in m.iter_mut().zip(b) {
                        *o += f64::from(w) * x;
                    }
                }
                Affine::new(&m).move_vertex(p, i);
            }
        }
        for j in joints.iter_mut().flatten() {
            *j = *u
                .remap
                .get(usize::from(*j))
                .ok_or_else(|| out_of_range(*j, u.remap.len()))?;
        }
        p.joints = Some(joints);
        Ok(())
    }

    /// The skeleton, and per joint the transform between its parent joint and its own
    /// parent node (`None` where that is the parent joint itself, or the identity),
    /// which animations of the joint are put through.
    pub(super) fn skeleton(&self, doc: &Value, nodes: &Nodes) -> (Skeleton, Vec<Option<Mat4>>) {
        let mut joints = Vec::with_capacity(self.joint_nodes.len());
        let mut between = Vec::with_capacity(self.joint_nodes.len());
        for (&node, ibm) in self.joint_nodes.iter().zip(&self.ibm) {
            let direct = nodes.parent.get(node).copied().flatten();
            // The nearest ancestor that is a joint.
            let mut up = direct;
            let mut guard = 0;
            while let Some(a) = up {
                if self.slot.contains_key(&a) || guard > nodes.local.len() {
                    break;
                }
                up = nodes.parent.get(a).copied().flatten();
                guard += 1;
            }
            let parent_joint = up.filter(|a| self.slot.contains_key(a));
            let parent_world = parent_joint.map_or(IDENTITY, |a| nodes.world(a));
            let direct_world = direct.map_or(IDENTITY, |d| nodes.world(d));
            let own = nodes.local.get(node).copied().unwrap_or(IDENTITY);
            let (local, p) = if parent_joint == direct {
                (own, None)
            } else {
                let inv = invert(&parent_world).unwrap_or(IDENTITY);
                let p = mul(&inv, &direct_world);
                (mul(&p, &own), (!near_identity(&p, 0.0)).then_some(p))
            };
            let (translation, rotation, scale) = match (parent_joint == direct)
                .then(|| {
                    let n = doc.get("nodes").and_then(|n| n.get(node))?;
                    node_trs(n, "glTF node").ok().flatten()
                })
                .flatten()
            {
                Some(trs) => trs,
                None => decompose(&local),
            };
            joints.push(Joint {
                name: doc
                    .get("nodes")
                    .and_then(|n| n.get(node))
                    .and_then(|n| n.get("name"))
                    .and_then(Value::as_str)
                    .map_or_else(|| format!("joint {node}"), str::to_string),
                parent: parent_joint.and_then(|a| self.slot.get(&a).copied()),
                translation: translation.map(|x| x as f32),
                rotation: skin::normalize_quat(rotation).map(|x| x as f32),
                scale: scale.map(|x| x as f32),
                inverse_bind_matrix: skin::inverse_bind_f32(ibm),
            });
            between.push(p);
        }
        (Skeleton { joints }, between)
    }

    /// The document's animations of the skeleton's joints, and notes on what they hold
    /// that the scene does not carry.
    pub(super) fn animations(
        &self,
        doc: &Value,
        between: &[Option<Mat4>],
        fetch: &mut Fetch<'_>,
    ) -> Result<(Vec<Animation>, Vec<ExportNote>)> {
        let empty = Vec::new();
        let mut out = Vec::new();
        let mut counts: HashMap<&'static str, usize> = HashMap::new();
        for (ai, a) in doc
            .get("animations")
            .and_then(Value::as_array)
            .unwrap_or(&empty)
            .iter()
            .enumerate()
        {
            let ctx = format!("glTF animation {ai}");
            let samplers = a
                .get("samplers")
                .and_then(Value::as_array)
                .unwrap_or(&empty);
            let mut channels: Vec<Channel> = Vec::new();
            for c in a
                .get("channels")
                .and_then(Value::as_array)
                .unwrap_or(&empty)
            {
                let target = c.get("target");
                let path = target.and_then(|t| t.get("path")).and_then(Value::as_str);
                let node = target.map(|t| uint(t, "node", &ctx)).transpose()?.flatten();
                let joint = node.and_then(|n| self.slot.get(&n).copied());
                let Some(joint) = joint else {
                    *counts
                        .entry("channels of nodes that are not joints")
                        .or_default() += 1;
                    continue;
                };
                if !matches!(path, Some("translation" | "rotation" | "scale")) {
                    *counts
                        .entry("channels of morph target weights")
                        .or_default() += 1;
                    continue;
                }
                let sampler = uint(c, "sampler", &ctx)?
                    .and_then(|s| samplers.get(s))
                    .ok_or_else(|| bad(format!("{ctx}: a channel names no sampler")))?;
                let interpolation = sampler
                    .get("interpolation")
                    .and_then(Value::as_str)
                    .unwrap_or("LINEAR");
                let input = uint(sampler, "input", &ctx)?
                    .ok_or_else(|| bad(format!("{ctx}: a sampler has no input")))?;
                let output = uint(sampler, "output", &ctx)?
                    .ok_or_else(|| bad(format!("{ctx}: a sampler has no output")))?;
                let times: Vec<f32> = fetch(input, &[1], &format!("{ctx} input"))?
                    .values
                    .iter()
                    .map(|&t| t as f32)
                    .collect();
                let dims: &[usize] = if path == Some("rotation") { &[4] } else { &[3] };
                let values = fetch(output, dims, &format!("{ctx} output"))?;
                let rows: Vec<&[f64]> = match interpolation {
                    // In-tangent, value, out-tangent per key: the values are kept.
                    "CUBICSPLINE" => {
                        *counts
                            .entry("cubic-spline channels (tangents dropped, keys kept)")
                            .or_default() += 1;
                        values.elements().skip(1).step_by(3).collect()
                    }
                    "STEP" => {
                        *counts
                            .entry("step channels (their keys are interpolated linearly)")
                            .or_default() += 1;
                        values.elements().collect()
                    }
                    _ => values.elements().collect(),
                };
                let increasing = times.windows(2).all(|w| matches!(w, [a, b] if a < b));
                let valid_times = !times.is_empty()
                    && increasing
                    && times.iter().all(|t| t.is_finite() && *t >= 0.0);
                if !valid_times || rows.len() != times.len() {
                    *counts
                        .entry("channels with times that are not increasing or keys that do not match them")
                        .or_default() += 1;
                    continue;
                }
                let p = between.get(joint).copied().flatten();
                let values = channel_values(path.unwrap_or_default(), &rows, p.as_ref());
                if channels
                    .iter()
                    .any(|c| c.joint == joint && c.values.path() == values.path())
                {
                    *counts
                        .entry("second channels of the same joint and property")
                        .or_default() += 1;
                    continue;
                }
                channels.push(Channel {
                    joint,
                    times,
                    values,
                });
            }
            if channels.is_empty() {
                *counts
                    .entry("animations with no channel of a joint")
                    .or_default() += 1;
                continue;
            }
            out.push(Animation {
                name: a
                    .get("name")
                    .and_then(Value::as_str)
                    .map_or_else(|| format!("animation {ai}"), str::to_string),
                channels,
            });
        }
        let mut notes: Vec<ExportNote> = counts
            .into_iter()
            .map(|(what, count)| ExportNote {
                kind: NoteKind::NotImported,
                count,
                detail: format!("{count} animation {what}: not imported as stored"),
            })
            .collect();
        notes.sort_by(|a, b| a.detail.cmp(&b.detail));
        Ok((out, notes))
    }
}

/// The values of a channel, put through `p` (the transform between the joint's parent
/// joint and its parent node) when there is one: translations as points, rotations
/// after `p`'s rotation, scales times `p`'s (mean) scale.
fn channel_values(path: &str, rows: &[&[f64]], p: Option<&Mat4>) -> ChannelValues {
    let (_, pq, ps) = p.map_or(([0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3]), decompose);
    let mean = (ps[0] * ps[1] * ps[2]).abs().cbrt();
    let three = |r: &[f64]| [0, 1, 2].map(|k| r.get(k).copied().unwrap_or(0.0));
    match path {
        "rotation" => ChannelValues::Rotation(
            rows.iter()
                .map(|r| {
                    let q = [0, 1, 2, 3].map(|k| r.get(k).copied().unwrap_or(0.0));
                    let q = if p.is_some() {
                        skin::quat_mul(pq, q)
                    } else {
                        q
                    };
                    skin::normalize_quat(q).map(|x| x as f32)
                })
                .collect(),
        ),
        "scale" => ChannelValues::Scale(
            rows.iter()
                .map(|r| three(r).map(|x| (x * mean) as f32))
                .collect(),
        ),
        _ => ChannelValues::Translation(
            rows.iter()
                .map(|r| match p {
                    Some(m) => {
                        let [x, y, z] = three(r);
                        let at = |k: usize| m.get(k).copied().unwrap_or(0.0);
                        [0, 1, 2].map(|c| {
                            (at(c) * x + at(4 + c) * y + at(8 + c) * z + at(12 + c)) as f32
                        })
                    }
                    None => three(r).map(|x| x as f32),
                })
                .collect(),
        ),
    }
}
