//! A FACS pose applied to the mesh: where each vertex goes when the face bones take the
//! transforms [`FacsRig::evaluate`] gives, by linear blend skinning.
//!
//! A bone's world frame at rest is its stored CFrame
//! ([`MeshBone::rotation`](super::MeshBone::rotation),
//! [`MeshBone::position`](super::MeshBone::position)). Posed, a bone keeps its frame
//! relative to its parent and then takes its own `Transform` (identity for a bone FACS
//! does not drive), as a Roblox `Bone`:
//! `posed(b) = posed(parent) · rest(parent)⁻¹ · rest(b) · transform(b)`. A vertex moves
//! by `Σ wᵢ · posed(bᵢ) · rest(bᵢ)⁻¹`, its weights as stored divided by their sum (255 in
//! real files); an unskinned vertex, or one whose weights are all zero, stays.
//!
//! This is what a FACS control looks like on the mesh, e.g. a shape key per control in
//! a 3D editor.

use super::facs_eval::FaceBoneTransform;
use super::{FacsRig, Mesh};
use crate::error::{Error, ErrorKind, Result};
use crate::scene::skin::{invert, mul, sane_parents, world_matrices, Mat4, IDENTITY};

/// A bone's stored CFrame (row-major rotation, then position) as a column-major 4×4.
fn cframe(rotation: &[f32; 9], position: &[f32; 3]) -> Mat4 {
    let r = rotation.map(f64::from);
    let [x, y, z] = position.map(f64::from);
    let at = |k: usize| r.get(k).copied().unwrap_or(0.0);
    [
        at(0),
        at(3),
        at(6),
        0.0,
        at(1),
        at(4),
        at(7),
        0.0,
        at(2),
        at(5),
        at(8),
        0.0,
        x,
        y,
        z,
        1.0,
    ]
}

/// A face bone's `Transform` as a column-major 4×4.
fn transform(t: &FaceBoneTransform) -> Mat4 {
    let [x, y, z] = t.position.map(f64::from);
    let [[r00, r01, r02], [r10, r11, r12], [r20, r21, r22]] = t.matrix;
    [
        r00, r10, r20, 0.0, r01, r11, r21, 0.0, r02, r12, r22, 0.0, x, y, z, 1.0,
    ]
}

/// `m · (x, y, z, 1)`.
fn apply(m: &Mat4, p: [f64; 3]) -> [f64; 3] {
    let e = |k: usize| m.get(k).copied().unwrap_or(0.0);
    std::array::from_fn(|r| e(r) * p[0] + e(4 + r) * p[1] + e(8 + r) * p[2] + e(12 + r))
}

impl Mesh {
    /// Every vertex's position with the face bones posed by FACS control `weights`
    /// (names as [`FacsRig::evaluate`] takes them: `("c_JD", 1.0)` opens the jaw),
    /// in model units. A bone keeps its frame relative to its parent and then takes
    /// its own transform (identity for a bone FACS does not drive), as a Roblox `Bone`
    /// does; each vertex moves by the sum of its bones' moves weighted by its skinning
    /// weights (linear blend skinning); an unskinned vertex stays.
    ///
    /// Errors: the mesh has no FACS data, or [`FacsRig::evaluate`]'s errors (an unknown
    /// control name, a NaN weight, a rig of the wrong shape).
    pub fn facs_positions(&self, weights: &[(&str, f32)]) -> Result<Vec<[f32; 3]>> {
        let rig = self.facs.as_ref().ok_or_else(|| {
            Error::new(
                "FACS",
                ErrorKind::Invalid("the mesh has no FACS data".into()),
            )
        })?;
        let transforms = rig.evaluate(weights)?;
        Ok(self.posed_positions(rig, &transforms))
    }

    /// The positions with `transforms` (one per [`FacsRig::face_bone_names`]) applied.
    fn posed_positions(&self, rig: &FacsRig, transforms: &[FaceBoneTransform]) -> Vec<[f32; 3]> {
        let bones = &self.skeleton;
        let rest: Vec<Mat4> = bones
            .iter()
            .map(|b| cframe(&b.rotation, &b.position))
            .collect();
        let parents = sane_parents(
            &bones
                .iter()
                .map(|b| b.parent.map(usize::from))
                .collect::<Vec<_>>(),
        );
        // Each bone relative to its parent at rest, then its own transform.
        let local: Vec<Mat4> = bones
            .iter()
            .zip(&rest)
            .zip(&parents)
            .map(|((bone, r), parent)| {
                let relative = match parent.and_then(|p| rest.get(p)) {
                    Some(pr) => invert(pr).map_or(*r, |inv| mul(&inv, r)),
                    None => *r,
                };
                let own = rig
                    .face_bone_names
                    .iter()
                    .position(|n| *n == bone.name)
                    .and_then(|i| transforms.get(i))
                    .map_or(IDENTITY, transform);
                mul(&relative, &own)
            })
            .collect();
        let posed = world_matrices(&local, &parents);
        let skin: Vec<Mat4> = posed
            .iter()
            .zip(&rest)
            .map(|(p, r)| invert(r).map_or(IDENTITY, |inv| mul(p, &inv)))
            .collect();
        let skins = self.skinning.as_ref().map(|s| s.as_slice());
        self.vertices
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let Some(skin_of) = skins.and_then(|s| s.get(i)) else {
                    return v.position;
                };
                let p = v.position.map(f64::from);
                let total: f64 = skin_of.influences.iter().map(|k| f64::from(k.weight)).sum();
                if total == 0.0 {
                    return v.position;
                }
                let mut out = [0.0_f64; 3];
                for k in &skin_of.influences {
                    if k.weight == 0 {
                        continue;
                    }
                    let m = skin.get(usize::from(k.bone)).unwrap_or(&IDENTITY);
                    let moved = apply(m, p);
                    let w = f64::from(k.weight) / total;
                    for (o, x) in out.iter_mut().zip(moved) {
                        *o += w * x;
                    }
                }
                out.map(|x| x as f32)
            })
            .collect()
    }
}
