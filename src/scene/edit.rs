//! Editing a scene as a whole: its bounding box ([`Scene::bounds`]) and one transform
//! that moves everything placed in space together ([`Scene::transform`]).
//!
//! Scaling the positions alone would leave the skeleton, the bind matrices, the morph
//! targets and the animations behind (a skinned mesh then tears when posed); the
//! transform moves all of them, so the scene stays consistent and a format that holds
//! them gets them moved.

use serde::Serialize;

use super::skin::{self, Mat4};
use super::{ChannelValues, Scene};
use crate::error::{Error, ErrorKind, Result};

/// An axis-aligned box.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Bounds {
    /// The smallest x, y and z.
    pub min: [f32; 3],
    /// The largest x, y and z.
    pub max: [f32; 3],
}

impl Bounds {
    /// The middle of the box.
    pub fn center(&self) -> [f32; 3] {
        each(self.min, self.max, |a, b| (a + b) / 2.0)
    }

    /// The box's extent along x, y and z.
    pub fn size(&self) -> [f32; 3] {
        each(self.max, self.min, |a, b| a - b)
    }

    fn add(b: Option<Bounds>, p: [f32; 3]) -> Option<Bounds> {
        if p.iter().any(|x| !x.is_finite()) {
            return b;
        }
        Some(match b {
            None => Bounds { min: p, max: p },
            Some(b) => Bounds {
                min: each(b.min, p, f32::min),
                max: each(b.max, p, f32::max),
            },
        })
    }
}

/// `f` of `a` and `b`, component by component.
fn each(a: [f32; 3], b: [f32; 3], f: impl Fn(f32, f32) -> f32) -> [f32; 3] {
    let mut out = [0.0; 3];
    for ((o, x), y) in out.iter_mut().zip(a).zip(b) {
        *o = f(x, y);
    }
    out
}

/// A similarity transform: scale (the same along every axis), then rotate, then
/// translate. `Transform::default()` changes nothing.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Transform {
    /// Uniform scale (positive).
    pub scale: f32,
    /// Rotation, a unit quaternion (x, y, z, w).
    pub rotation: [f32; 4],
    /// Translation.
    pub translation: [f32; 3],
}

impl Default for Transform {
    fn default() -> Self {
        Transform {
            scale: 1.0,
            rotation: [0.0, 0.0, 0.0, 1.0],
            translation: [0.0; 3],
        }
    }
}

impl Transform {
    /// A uniform scale.
    pub fn scale(s: f32) -> Transform {
        Transform {
            scale: s,
            ..Transform::default()
        }
    }

    /// A translation.
    pub fn translate(t: [f32; 3]) -> Transform {
        Transform {
            translation: t,
            ..Transform::default()
        }
    }

    /// A rotation by `degrees` about `axis` (need not be of unit length).
    pub fn rotate(axis: [f32; 3], degrees: f32) -> Transform {
        let a = axis.map(f64::from);
        let len = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
        let half = f64::from(degrees).to_radians() / 2.0;
        let s = if len > 0.0 { half.sin() / len } else { 0.0 };
        Transform {
            rotation: [a[0] * s, a[1] * s, a[2] * s, half.cos()].map(|x| x as f32),
            ..Transform::default()
        }
    }

    /// `self` after `first`: the transform that applies `first`, then `self`.
    pub fn after(&self, first: &Transform) -> Transform {
        let q = self.quat();
        let moved = skin::quat_rotate(q, first.translation.map(f64::from));
        Transform {
            scale: self.scale * first.scale,
            rotation: skin::normalize_quat(skin::quat_mul(q, first.quat())).map(|x| x as f32),
            translation: each(moved.map(|x| x as f32), self.translation, |m, t| {
                (f64::from(self.scale) * f64::from(m) + f64::from(t)) as f32
            }),
        }
    }

    fn quat(&self) -> [f64; 4] {
        skin::normalize_quat(self.rotation.map(f64::from))
    }

    fn matrix(&self) -> Mat4 {
        let s = f64::from(self.scale);
        skin::trs_matrix(self.translation.map(f64::from), self.quat(), [s, s, s])
    }

    fn check(&self) -> Result<()> {
        let finite = self
            .rotation
            .iter()
            .chain(&self.translation)
            .all(|x| x.is_finite());
        let q = self.rotation.map(f64::from);
        let len = q.iter().map(|x| x * x).sum::<f64>().sqrt();
        let scale = self.scale.is_finite() && self.scale > 0.0;
        if !(finite && scale) || (len - 1.0).abs() > 1e-3 {
            return Err(Error::new(
                "transform",
                ErrorKind::Invalid(format!(
                    "{self:?}: the scale must be positive and finite, the rotation a unit \
                     quaternion, the translation finite"
                )),
            ));
        }
        Ok(())
    }

    fn point(&self, p: [f32; 3]) -> [f32; 3] {
        let r = skin::quat_rotate(self.quat(), p.map(f64::from));
        each(r.map(|x| x as f32), self.translation, |r, t| {
            (f64::from(self.scale) * f64::from(r) + f64::from(t)) as f32
        })
    }

    fn vector(&self, v: [f32; 3]) -> [f32; 3] {
        let r = skin::quat_rotate(self.quat(), v.map(f64::from));
        r.map(|x| (f64::from(self.scale) * x) as f32)
    }

    fn direction(&self, n: [f32; 3]) -> [f32; 3] {
        // A uniform scale keeps directions: normals turn with the rotation only.
        skin::quat_rotate(self.quat(), n.map(f64::from)).map(|x| x as f32)
    }
}

impl Scene {
    /// The box around every position of the meshes of level of detail `lod` (0: full
    /// detail), morph targets not applied; `None` when those meshes have no finite
    /// position.
    pub fn bounds(&self, lod: usize) -> Option<Bounds> {
        self.meshes
            .iter()
            .filter(|m| m.lod == lod)
            .flat_map(|m| &m.primitives)
            .flat_map(|p| &p.positions)
            .fold(None, |b, &p| Bounds::add(b, p))
    }

    /// The levels of detail the scene's meshes belong to, in order (`[0]` for most).
    pub fn lods(&self) -> Vec<usize> {
        let mut l: Vec<usize> = self.meshes.iter().map(|m| m.lod).collect();
        l.sort_unstable();
        l.dedup();
        l
    }

    /// Moves the whole scene by `t`: positions, normals and morph target deltas of every
    /// primitive; the skeleton's roots (their children follow) and every inverse bind
    /// matrix, so skins bind as before; and the animation keys of root joints. Fails,
    /// changing nothing, for a scale that is not positive or a rotation that is not a
    /// unit quaternion.
    pub fn transform(&mut self, t: &Transform) -> Result<()> {
        t.check()?;
        for p in self.meshes.iter_mut().flat_map(|m| &mut m.primitives) {
            for v in &mut p.positions {
                *v = t.point(*v);
            }
            for n in p.normals.iter_mut().flatten() {
                *n = t.direction(*n);
            }
            for m in &mut p.morph_targets {
                for d in &mut m.position_deltas {
                    *d = t.vector(*d);
                }
            }
        }
        let Some(skeleton) = &mut self.skeleton else {
            return Ok(());
        };
        let m = t.matrix();
        let Some(inverse) = skin::invert(&m) else {
            return Ok(());
        };
        let roots: Vec<bool> = skeleton.joints.iter().map(|j| j.parent.is_none()).collect();
        for j in &mut skeleton.joints {
            let ibm = j.inverse_bind_matrix.map(f64::from);
            j.inverse_bind_matrix = skin::inverse_bind_f32(&skin::mul(&ibm, &inverse));
            if j.parent.is_none() {
                // M × T(t) R(r) S(s) = T(M t) R(q r) S(scale s): a uniform scale commutes
                // with the rotation.
                j.translation = t.point(j.translation);
                j.rotation =
                    skin::normalize_quat(skin::quat_mul(t.quat(), j.rotation.map(f64::from)))
                        .map(|x| x as f32);
                j.scale = j.scale.map(|x| x * t.scale);
            }
        }
        for c in self.animations.iter_mut().flat_map(|a| &mut a.channels) {
            if !roots.get(c.joint).copied().unwrap_or(false) {
                continue;
            }
            match &mut c.values {
                ChannelValues::Translation(v) => v.iter_mut().for_each(|x| *x = t.point(*x)),
                ChannelValues::Rotation(v) => v.iter_mut().for_each(|q| {
                    *q = skin::normalize_quat(skin::quat_mul(t.quat(), q.map(f64::from)))
                        .map(|x| x as f32)
                }),
                ChannelValues::Scale(v) => v.iter_mut().for_each(|s| *s = s.map(|x| x * t.scale)),
            }
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::super::{Animation, Channel, ExportMesh, Joint, MorphTarget, Primitive, Skeleton};
    use super::*;

    /// Two joints (a root away from the origin, turned, and a child), a skinned
    /// triangle with a morph target, and an animation of the root.
    fn rigged() -> Scene {
        let half = std::f32::consts::FRAC_1_SQRT_2;
        let root = Joint {
            name: "root".into(),
            translation: [1.0, 2.0, 3.0],
            rotation: [0.0, half, 0.0, half],
            ..Joint::default()
        };
        let child = Joint {
            name: "child".into(),
            parent: Some(0),
            translation: [0.0, 1.0, 0.0],
            ..Joint::default()
        };
        let mut skeleton = Skeleton {
            joints: vec![root, child],
        };
        // Inverse bind matrices from the bind pose, as the adapters make them.
        let local: Vec<Mat4> = skeleton.joints.iter().map(skin::local_matrix).collect();
        let world = skin::world_matrices(&local, &[None, Some(0)]);
        for (j, w) in skeleton.joints.iter_mut().zip(&world) {
            j.inverse_bind_matrix = skin::inverse_bind_f32(&skin::invert(w).unwrap());
        }
        Scene {
            meshes: vec![ExportMesh {
                lod: 0,
                name: "m".into(),
                primitives: vec![Primitive {
                    positions: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.5]],
                    normals: Some(vec![[0.0, 0.0, 1.0]; 3]),
                    triangles: vec![[0, 1, 2]],
                    joints: Some(vec![[0, 0, 0, 0], [1, 0, 0, 0], [1, 0, 0, 0]]),
                    weights: Some(vec![[1.0, 0.0, 0.0, 0.0]; 3]),
                    morph_targets: vec![MorphTarget {
                        name: "up".into(),
                        position_deltas: vec![[0.0, 0.5, 0.0]; 3],
                        default_weight: 0.0,
                    }],
                    ..Primitive::default()
                }],
            }],
            skeleton: Some(skeleton),
            animations: vec![Animation {
                name: "a".into(),
                channels: vec![Channel {
                    joint: 0,
                    times: vec![0.0, 1.0],
                    values: ChannelValues::Translation(vec![[1.0, 2.0, 3.0], [2.0, 2.0, 3.0]]),
                }],
            }],
            ..Scene::default()
        }
    }

    /// Where joint `j`'s skin puts a bind-pose point, posed as the skeleton stands.
    fn skinned(scene: &Scene, j: usize, p: [f32; 3]) -> [f64; 3] {
        let s = scene.skeleton.as_ref().unwrap();
        let local: Vec<Mat4> = s.joints.iter().map(skin::local_matrix).collect();
        let parents: Vec<_> = s.joints.iter().map(|j| j.parent).collect();
        let world = skin::world_matrices(&local, &parents);
        let ibm = s.joints[j].inverse_bind_matrix.map(f64::from);
        let m = skin::mul(&world[j], &ibm);
        let p = p.map(f64::from);
        [0, 1, 2].map(|r| m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r])
    }

    fn close(a: [f64; 3], b: [f32; 3]) -> bool {
        a.iter()
            .zip(b)
            .all(|(x, y)| (x - f64::from(y)).abs() < 1e-4)
    }

    #[test]
    fn the_skeleton_binds_the_moved_mesh_as_before() {
        let t = Transform::translate([5.0, -1.0, 2.0])
            .after(&Transform::rotate([0.0, 0.0, 1.0], 90.0))
            .after(&Transform::scale(2.0));
        let before = rigged();
        let mut after = before.clone();
        after.transform(&t).unwrap();
        let (p0, p1) = (
            &before.meshes[0].primitives[0],
            &after.meshes[0].primitives[0],
        );
        for (k, (&a, &b)) in p0.positions.iter().zip(&p1.positions).enumerate() {
            assert_eq!(t.point(a), b);
            // Bound as before: each joint's skin leaves the moved bind pose in place.
            let j = p0.joints.as_ref().unwrap()[k][0] as usize;
            assert!(close(skinned(&after, j, b), b), "vertex {k}");
        }
        // Normals turn (a quarter turn about z leaves +z), deltas scale and turn.
        assert_eq!(p1.normals.as_ref().unwrap()[0], [0.0, 0.0, 1.0]);
        let d = p1.morph_targets[0].position_deltas[0];
        assert!(close([-1.0, 0.0, 0.0], d), "{d:?}");
        // The root moved, the child (local to it) did not; the root's keys moved.
        let s = after.skeleton.as_ref().unwrap();
        assert_eq!(s.joints[0].translation, t.point([1.0, 2.0, 3.0]));
        assert_eq!(s.joints[0].scale, [2.0; 3]);
        assert_eq!(s.joints[1].translation, [0.0, 1.0, 0.0]);
        let ChannelValues::Translation(keys) = &after.animations[0].channels[0].values else {
            panic!("translation keys");
        };
        assert_eq!(keys[1], t.point([2.0, 2.0, 3.0]));
        after.check().unwrap();
    }

    #[test]
    fn bounds_per_level_of_detail_and_the_identity_changes_nothing() {
        let mut s = rigged();
        let b = s.bounds(0).unwrap();
        assert_eq!((b.min, b.max), ([0.0, 0.0, 0.0], [1.0, 1.0, 0.5]));
        assert_eq!(b.center(), [0.5, 0.5, 0.25]);
        assert_eq!(s.bounds(1), None);
        assert_eq!(s.lods(), vec![0]);
        let before = s.clone();
        s.transform(&Transform::default()).unwrap();
        assert_eq!(s.meshes, before.meshes);
        s.transform(&Transform::scale(3.0)).unwrap();
        assert_eq!(s.bounds(0).unwrap().max, [3.0, 3.0, 1.5]);
        // A bad transform is refused and changes nothing.
        let kept = s.clone();
        assert!(s.transform(&Transform::scale(0.0)).is_err());
        assert!(s.transform(&Transform::scale(f32::NAN)).is_err());
        assert_eq!(s, kept);
    }
}
