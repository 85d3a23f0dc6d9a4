//! FACS evaluation: the transform of each face bone for given control weights.
//!
//! This follows the spec's "Composing the Data into CFrames" and "Handling Corrective
//! Poses" (roblox-filemesh-v1-v7, version 5.00):
//!
//! - Each column of [`FacsRig::poses`] has a weight. For the first
//!   `control_names.len()` columns it is the weight of that control; for a two-pose
//!   corrective it is the product of its two controls' weights; for a three-pose
//!   corrective, the product of its three.
//! - Per face bone, position and rotation are summed **as vectors**:
//!   `position = Σ w(c) · poses[c][bone].position`, and likewise the rotation in
//!   degrees. They are only turned into a rotation at the end (the spec: "Keep the
//!   Position and Rotation data as a Vector3 until you've factored in all possible
//!   transforms and corrections").
//! - The rotation is `CFrame.fromEulerAnglesXYZ(rx·π/180, ry·π/180, rz·π/180)` and the
//!   position is then added: the bone's `Transform` is
//!   `CFrame.new(position) * CFrame.fromEulerAnglesXYZ(…)`, i.e. the rotation matrix
//!   with translation `position`.
//!
//! # Euler convention
//!
//! Roblox documents `CFrame.fromEulerAnglesXYZ(rx, ry, rz)` (and `CFrame.Angles`, which
//! is "equivalent to fromEulerAnglesXYZ") as `Enum.RotationOrder.XYZ`, "equivalent to
//! `CFrame.fromEulerAngles(rx, 0, 0) * CFrame.fromEulerAngles(0, ry, 0) *
//! CFrame.fromEulerAngles(0, 0, rz)`" (Roblox creator docs, CFrame reference,
//! <https://create.roblox.com/docs/reference/engine/datatypes/CFrame>; source
//! `Roblox/creator-docs`, `content/en-us/reference/engine/datatypes/CFrame.yaml`; the
//! `Enum.RotationOrder` page says the same). So the matrix is the product
//! `R = Rx(rx) · Ry(ry) · Rz(rz)` of the right-handed single-axis rotations
//!
//! ```text
//! Rx(a) = [1 0 0; 0 cos a −sin a; 0 sin a cos a]
//! Ry(b) = [cos b 0 sin b; 0 1 0; −sin b 0 cos b]
//! Rz(c) = [cos c −sin c 0; sin c cos c 0; 0 0 1]
//! ```
//!
//! (intrinsic X then Y then Z; equivalently, applied to a vector, Z first, then Y, then
//! X about the fixed axes: the older Roblox wiki's "rotations are ordered Z, Y, X").
//! Matrices here are **row-major** `[[R00, R01, R02], [R10, R11, R12], [R20, R21, R22]]`,
//! the order of `CFrame:GetComponents()`; the columns are the CFrame's `XVector`
//! (RightVector), `YVector` (UpVector) and `ZVector` (−LookVector).
//!
//! # Precision
//!
//! Sums and products are computed in `f64` from the stored `f32` values; the summed
//! position and rotation are given back as `f32` (the precision of the file and of a
//! Roblox `Vector3`), the matrix as `f64`, computed from the `f32` degrees. Sines and
//! cosines are taken after reducing the angle to within 45° of a multiple of 90°, so
//! multiples of 90° give exact 0 and ±1 (the spec's `· π/180` then `sin` would give
//! `6.1e-17` for `cos 90°`; the two agree to about 1e-16).

use serde::Serialize;

use super::FacsRig;
use crate::error::{Error, ErrorKind, Result};

/// The spec's table of FACS control abbreviations (the names in a file's
/// `faceControlNames`) and the `FaceControls` properties they stand for.
pub const FACS_CONTROLS: [(&str, &str); 50] = [
    ("c_COR", "Corrugator"),
    ("c_CR", "ChinRaiser"),
    ("c_CRUL", "ChinRaiserUpperLip"),
    ("c_ELD", "EyesLookDown"),
    ("c_ELL", "EyesLookLeft"),
    ("c_ELR", "EyesLookRight"),
    ("c_ELU", "EyesLookUp"),
    ("c_FN", "Funneler"),
    ("c_FP", "FlatPucker"),
    ("c_JD", "JawDrop"),
    ("c_JL", "JawLeft"),
    ("c_JR", "JawRight"),
    ("c_LLS", "LowerLipSuck"),
    ("c_LP", "LipPresser"),
    ("c_LPT", "LipsTogether"),
    ("c_ML", "MouthLeft"),
    ("c_MR", "MouthRight"),
    ("c_PK", "Pucker"),
    ("c_TD", "TongueDown"),
    ("c_TO", "TongueOut"),
    ("c_TU", "TongueUp"),
    ("c_ULS", "UpperLipSuck"),
    ("l_BL", "LeftBrowLowerer"),
    ("l_CHP", "LeftCheekPuff"),
    ("l_CHR", "LeftCheekRaiser"),
    ("l_DM", "LeftDimpler"),
    ("l_EC", "LeftEyeClosed"),
    ("l_EULR", "LeftEyeUpperLidRaiser"),
    ("l_IBR", "LeftInnerBrowRaiser"),
    ("l_LCD", "LeftLipCornerDown"),
    ("l_LCP", "LeftLipCornerPuller"),
    ("l_LLD", "LeftLowerLipDepressor"),
    ("l_LS", "LeftLipStretcher"),
    ("l_NW", "LeftNoseWrinkler"),
    ("l_OBR", "LeftOuterBrowRaiser"),
    ("l_ULR", "LeftUpperLipRaiser"),
    ("r_BL", "RightBrowLowerer"),
    ("r_CHP", "RightCheekPuff"),
    ("r_CHR", "RightCheekRaiser"),
    ("r_DM", "RightDimpler"),
    ("r_EC", "RightEyeClosed"),
    ("r_EULR", "RightEyeUpperLidRaiser"),
    ("r_IBR", "RightInnerBrowRaiser"),
    ("r_LCD", "RightLipCornerDown"),
    ("r_LCP", "RightLipCornerPuller"),
    ("r_LLD", "RightLowerLipDepressor"),
    ("r_LS", "RightLipStretcher"),
    ("r_NW", "RightNoseWrinkler"),
    ("r_OBR", "RightOuterBrowRaiser"),
    ("r_ULR", "RightUpperLipRaiser"),
];

/// The `FaceControls` property name of a FACS abbreviation (`"c_JD"` → `"JawDrop"`).
pub fn facs_property_name(abbreviation: &str) -> Option<&'static str> {
    FACS_CONTROLS
        .iter()
        .find(|(a, _)| *a == abbreviation)
        .map(|(_, p)| *p)
}

/// The FACS abbreviation of a `FaceControls` property name (`"JawDrop"` → `"c_JD"`).
pub fn facs_abbreviation(property: &str) -> Option<&'static str> {
    FACS_CONTROLS
        .iter()
        .find(|(_, p)| *p == property)
        .map(|(a, _)| *a)
}

/// The transform FACS gives one face bone (relative to the bone's rest frame, the value
/// of its `Transform`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FaceBoneTransform {
    /// The bone's name (from `faceBoneNames`).
    pub name: String,
    /// Summed position offset: the CFrame's translation.
    pub position: [f32; 3],
    /// Summed rotation, Euler XYZ in degrees (the argument of `fromEulerAnglesXYZ`,
    /// before `· π/180`).
    pub rotation: [f32; 3],
    /// `CFrame.fromEulerAnglesXYZ` of the rotation, row-major (see the
    /// [module docs](self) for the convention).
    pub matrix: [[f64; 3]; 3],
}

impl FaceBoneTransform {
    /// The twelve numbers of `CFrame:GetComponents()`:
    /// `x, y, z, R00, R01, R02, R10, R11, R12, R20, R21, R22`.
    pub fn components(&self) -> [f64; 12] {
        let [x, y, z] = self.position.map(f64::from);
        let [[r00, r01, r02], [r10, r11, r12], [r20, r21, r22]] = self.matrix;
        [x, y, z, r00, r01, r02, r10, r11, r12, r20, r21, r22]
    }
}

/// `CFrame.fromEulerAnglesXYZ(rx·π/180, ry·π/180, rz·π/180)` as a row-major 3×3
/// rotation matrix: `Rx(rx) · Ry(ry) · Rz(rz)` (see the [module docs](self)).
pub fn euler_xyz_degrees_to_matrix(degrees: [f32; 3]) -> [[f64; 3]; 3] {
    let [(sa, ca), (sb, cb), (sc, cc)] = degrees.map(|d| sin_cos_degrees(f64::from(d)));
    // Rx·Ry = [cb 0 sb; sa·sb ca −sa·cb; −ca·sb sa ca·cb], then · Rz.
    [
        [cb * cc, -cb * sc, sb],
        [sa * sb * cc + ca * sc, ca * cc - sa * sb * sc, -sa * cb],
        [sa * sc - ca * sb * cc, ca * sb * sc + sa * cc, ca * cb],
    ]
}

/// `(sin, cos)` of an angle in degrees, exact at multiples of 90°.
fn sin_cos_degrees(degrees: f64) -> (f64, f64) {
    if !degrees.is_finite() {
        return (f64::NAN, f64::NAN);
    }
    let d = degrees.rem_euclid(360.0);
    let quarter = (d / 90.0).round();
    let (s, c) = (d - 90.0 * quarter).to_radians().sin_cos();
    // Add 0.0 so that an exact zero is +0, not −0.
    match quarter as i64 {
        1 => (c, -s + 0.0),
        2 => (-s + 0.0, -c),
        3 => (-c, s),
        _ => (s, c), // 0 or 4 (d rounds up to 360°)
    }
}

impl FacsRig {
    /// The index in [`FacsRig::control_names`] of a control named by its abbreviation
    /// as in the file (`"c_JD"`) or by its `FaceControls` property (`"JawDrop"`).
    pub fn control_index(&self, name: &str) -> Option<usize> {
        let by_file_name = self.control_names.iter().position(|c| c == name);
        by_file_name.or_else(|| {
            let abbreviation = facs_abbreviation(name)?;
            self.control_names.iter().position(|c| c == abbreviation)
        })
    }

    /// The weight of every column of [`FacsRig::poses`] for the weights of the controls
    /// (`control_weights[i]` for `control_names[i]`; missing entries are 0, and each is
    /// clamped to 0–1): the control columns, then the two-pose correctives (products of
    /// two weights), then the three-pose correctives (products of three).
    ///
    /// Fails if a corrective names a control index the rig does not have.
    pub fn column_weights(&self, control_weights: &[f32]) -> Result<Vec<f64>> {
        let n = self.control_names.len();
        let w = |i: usize| -> f64 { control_weights.get(i).map_or(0.0, |&x| clamp01(x)) };
        let control = |i: u16, what: &str, k: usize| -> Result<f64> {
            let i = usize::from(i);
            if i < n {
                Ok(w(i))
            } else {
                Err(Error::new(
                    CONTEXT,
                    ErrorKind::Inconsistent(format!(
                        "{what} corrective {k} names control {i} but the rig has {n} controls"
                    )),
                ))
            }
        };
        let mut out: Vec<f64> = (0..n).map(w).collect();
        for (k, c) in self.two_pose_correctives.iter().enumerate() {
            let mut p = 1.0;
            for &i in c {
                p *= control(i, "two-pose", k)?;
            }
            out.push(p);
        }
        for (k, c) in self.three_pose_correctives.iter().enumerate() {
            let mut p = 1.0;
            for &i in c {
                p *= control(i, "three-pose", k)?;
            }
            out.push(p);
        }
        Ok(out)
    }

    /// Each face bone's transform for weights given by control name.
    ///
    /// A name is a control's abbreviation as in the file (`"c_JD"`, `"l_EC"` …) or its
    /// `FaceControls` property name (`"JawDrop"`, `"LeftEyeClosed"` …; see
    /// [`FACS_CONTROLS`]). Controls not named have weight 0. Weights are clamped to
    /// 0–1 (a `FaceControls` property's range); if a control is named twice, the last
    /// weight counts.
    ///
    /// Errors ([`ErrorKind::Invalid`]):
    /// - a name that is neither one of this rig's controls nor one of the 50 standard
    ///   FACS names (a typo, or a corrective such as `"c_JD_c_FN"`, whose weight is
    ///   derived and cannot be set). A *standard* name that this rig lacks is accepted
    ///   and has no effect, as setting that `FaceControls` property would;
    /// - a NaN weight.
    ///
    /// And ([`ErrorKind::Inconsistent`]) a rig whose pose table does not have one
    /// column per control and corrective and one row per face bone, or whose
    /// correctives name missing controls.
    pub fn evaluate(&self, weights: &[(&str, f32)]) -> Result<Vec<FaceBoneTransform>> {
        let mut control_weights = vec![0.0_f32; self.control_names.len()];
        for &(name, weight) in weights {
            if weight.is_nan() {
                return Err(invalid(format!("the weight of {name:?} is NaN")));
            }
            match self.control_index(name) {
                Some(i) => {
                    if let Some(slot) = control_weights.get_mut(i) {
                        *slot = weight;
                    }
                }
                None if facs_property_name(name).is_some() || facs_abbreviation(name).is_some() => {
                }
                None => {
                    return Err(invalid(format!(
                        "{name:?} is not a FACS control of this rig (nor a standard \
                         FACS abbreviation or FaceControls property)"
                    )))
                }
            }
        }
        self.evaluate_controls(&control_weights)
    }

    /// Each face bone's transform for weights by control index
    /// (`control_weights[i]` for `control_names[i]`; missing entries are 0, each is
    /// clamped to 0–1, NaN counts as 0). See [`FacsRig::evaluate`] for the errors about
    /// the rig's shape.
    pub fn evaluate_controls(&self, control_weights: &[f32]) -> Result<Vec<FaceBoneTransform>> {
        self.check_shape()?;
        let columns = self.column_weights(control_weights)?;
        let bones = self.face_bone_names.len();
        let mut position = vec![[0.0_f64; 3]; bones];
        let mut rotation = vec![[0.0_f64; 3]; bones];
        for (column, &w) in self.poses.iter().zip(&columns) {
            if w == 0.0 {
                continue;
            }
            for ((pose, p), r) in column.iter().zip(&mut position).zip(&mut rotation) {
                for ((acc, &v), (racc, &rv)) in p
                    .iter_mut()
                    .zip(&pose.position)
                    .zip(r.iter_mut().zip(&pose.rotation))
                {
                    *acc += w * f64::from(v);
                    *racc += w * f64::from(rv);
                }
            }
        }
        Ok(self
            .face_bone_names
            .iter()
            .zip(position.iter().zip(&rotation))
            .map(|(name, (p, r))| {
                let rotation = r.map(|x| x as f32);
                FaceBoneTransform {
                    name: name.clone(),
                    position: p.map(|x| x as f32),
                    rotation,
                    matrix: euler_xyz_degrees_to_matrix(rotation),
                }
            })
            .collect())
    }

    /// Checks that `poses` has one column per control and corrective, each with one
    /// entry per face bone.
    fn check_shape(&self) -> Result<()> {
        let columns = self.control_names.len()
            + self.two_pose_correctives.len()
            + self.three_pose_correctives.len();
        let bones = self.face_bone_names.len();
        if self.poses.len() != columns {
            return Err(Error::new(
                CONTEXT,
                ErrorKind::Inconsistent(format!(
                    "{} pose columns for {} controls + {} two-pose + {} three-pose correctives",
                    self.poses.len(),
                    self.control_names.len(),
                    self.two_pose_correctives.len(),
                    self.three_pose_correctives.len()
                )),
            ));
        }
        if let Some((c, col)) = self
            .poses
            .iter()
            .enumerate()
            .find(|(_, c)| c.len() != bones)
        {
            return Err(Error::new(
                CONTEXT,
                ErrorKind::Inconsistent(format!(
                    "pose column {c} has {} entries for {bones} face bones",
                    col.len()
                )),
            ));
        }
        Ok(())
    }
}

const CONTEXT: &str = "FACS evaluation";

fn invalid(message: String) -> Error {
    Error::new(CONTEXT, ErrorKind::Invalid(message))
}

/// A control weight clamped to 0–1, NaN as 0.
fn clamp01(x: f32) -> f64 {
    if x.is_nan() {
        0.0
    } else {
        f64::from(x.clamp(0.0, 1.0))
    }
}
