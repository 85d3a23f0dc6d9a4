//! The skeleton: the scene's joints as UNIGINE bones and their bind pose, from the
//! inverse bind matrices (decomposed into translation, rotation and scale).

use super::refused;
use super::vector::{cross, dot};
use crate::error::Result;
use crate::loss::{Loss, LossKind};
use crate::scene::skin::{self, Mat4};
use crate::scene::Skeleton;
use crate::unigine::raw::cint::UString;
use crate::unigine::raw::mesh::{Bone, Transform};

/// The bones and their bind pose (local to the parent). UNIGINE skins with the bind
/// pose, so it is taken from the inverse bind matrices; where those agree with the
/// joints' own transforms (to 1e-4), the joints' transforms are written as they are.
pub(super) fn bones_of(
    s: &Skeleton,
    losses: &mut Vec<Loss>,
) -> Result<(Vec<Bone>, Vec<Transform>)> {
    let parents: Vec<Option<usize>> = s.joints.iter().map(|j| j.parent).collect();
    let local: Vec<Mat4> = s.joints.iter().map(skin::local_matrix).collect();
    let world = skin::world_matrices(&local, &parents);
    let bind_world: Vec<Mat4> = s
        .joints
        .iter()
        .map(|j| {
            skin::invert(&j.inverse_bind_matrix.map(f64::from)).ok_or_else(|| {
                refused(format!(
                    "joint {:?}: its inverse bind matrix is singular",
                    j.name
                ))
            })
        })
        .collect::<Result<_>>()?;
    let agrees: Vec<bool> = world
        .iter()
        .zip(&s.joints)
        .map(|(w, j)| {
            let p = skin::mul(w, &j.inverse_bind_matrix.map(f64::from));
            let scale = w.iter().fold(1.0f64, |a, x| a.max(x.abs()));
            p.iter()
                .zip(skin::IDENTITY)
                .all(|(a, b)| (a - b).abs() <= 1e-4 * scale)
        })
        .collect();
    let (mut moved, mut sheared) = (0, 0);
    let mut bones = Vec::with_capacity(s.joints.len());
    let mut pose = Vec::with_capacity(s.joints.len());
    for (i, j) in s.joints.iter().enumerate() {
        let parent = parents.get(i).copied().flatten();
        bones.push(Bone {
            name: UString::new(&j.name),
            parent: parent.map_or(-1, |p| i16::try_from(p).unwrap_or(-1)),
        });
        let own = Transform {
            position: j.translation,
            rotation: j.rotation,
            scale: j.scale,
        };
        let parent_agrees = parent.is_none_or(|p| agrees.get(p).copied().unwrap_or(true));
        if agrees.get(i).copied().unwrap_or(true) && parent_agrees {
            pose.push(own);
            continue;
        }
        let parent_world = match parent.and_then(|p| bind_world.get(p)) {
            Some(w) => skin::invert(w),
            None => Some(skin::IDENTITY),
        };
        let m = parent_world
            .zip(bind_world.get(i))
            .map(|(pw, w)| skin::mul(&pw, w));
        match m.and_then(|m| decompose(&m)) {
            Some(t) => {
                if !agrees.get(i).copied().unwrap_or(true) {
                    moved += 1;
                }
                pose.push(t);
            }
            None => {
                sheared += 1;
                pose.push(own);
            }
        }
    }
    if moved > 0 {
        losses.push(Loss::new(
            LossKind::Skeleton,
            format!(
                "the rest pose of {moved} joint(s), which differs from their bind pose: \
                 UNIGINE stores the bind pose (from the inverse bind matrices) only"
            ),
        ));
    }
    if sheared > 0 {
        losses.push(Loss::new(
            LossKind::Skeleton,
            format!(
                "the bind pose of {sheared} joint(s) is sheared (not a translation, rotation \
                 and scale): their rest pose was written instead"
            ),
        ));
    }
    Ok((bones, pose))
}

/// A matrix as translation, rotation and scale; `None` when it is sheared or singular.
fn decompose(m: &Mat4) -> Option<Transform> {
    let at = |k: usize| m.get(k).copied().unwrap_or(0.0);
    let col = |c: usize| [at(c * 4), at(c * 4 + 1), at(c * 4 + 2)];
    let (c0, c1, c2) = (col(0), col(1), col(2));
    let len = |v: [f64; 3]| dot(v, v).sqrt();
    let mut s = [len(c0), len(c1), len(c2)];
    if s.iter().any(|x| !x.is_normal()) {
        return None;
    }
    if dot(cross(c0, c1), c2) < 0.0 {
        s[0] = -s[0];
    }
    let [a, b, c] = [
        c0.map(|x| x / s[0]),
        c1.map(|x| x / s[1]),
        c2.map(|x| x / s[2]),
    ];
    if dot(a, b).abs() > 1e-3 || dot(a, c).abs() > 1e-3 || dot(b, c).abs() > 1e-3 {
        return None;
    }
    let r = [a[0], b[0], c[0], a[1], b[1], c[1], a[2], b[2], c[2]];
    let q = skin::mat3_to_quat(r);
    Some(Transform {
        position: [at(12), at(13), at(14)].map(|x| x as f32),
        rotation: q.map(|x| x as f32),
        scale: s.map(|x| x as f32),
    })
}
