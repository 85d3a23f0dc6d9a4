//! Skins for the export: the small amount of matrix and quaternion arithmetic they need
//! (in `f64`), building a [`Skeleton`] from local joint transforms, and turning a
//! vertex's bone influences into glTF's four joints and weights.
//!
//! Matrices are 4×4, stored column-major as glTF stores them: element (row r, column c)
//! is at `c * 4 + r`. Quaternions are (x, y, z, w).

use super::{Fixes, Joint, Skeleton};
use crate::error::{Error, ErrorKind, Result};

/// A 4×4 matrix, column-major.
pub(crate) type Mat4 = [f64; 16];

/// The identity matrix.
pub(crate) const IDENTITY: Mat4 = [
    1.0, 0.0, 0.0, 0.0, //
    0.0, 1.0, 0.0, 0.0, //
    0.0, 0.0, 1.0, 0.0, //
    0.0, 0.0, 0.0, 1.0,
];

/// `a × b`.
pub(crate) fn mul(a: &Mat4, b: &Mat4) -> Mat4 {
    let mut out = [0.0; 16];
    for (k, o) in out.iter_mut().enumerate() {
        let (col, row) = (k / 4, k % 4);
        *o = (0..4)
            .map(|i| {
                let x = a.get(i * 4 + row).copied().unwrap_or(0.0);
                let y = b.get(col * 4 + i).copied().unwrap_or(0.0);
                x * y
            })
            .sum();
    }
    out
}

/// The inverse of a 4×4 matrix (by cofactors), or `None` when it is singular or not
/// finite.
pub(crate) fn invert(m: &Mat4) -> Option<Mat4> {
    let [a00, a01, a02, a03, a10, a11, a12, a13, a20, a21, a22, a23, a30, a31, a32, a33] = *m;
    let b00 = a00 * a11 - a01 * a10;
    let b01 = a00 * a12 - a02 * a10;
    let b02 = a00 * a13 - a03 * a10;
    let b03 = a01 * a12 - a02 * a11;
    let b04 = a01 * a13 - a03 * a11;
    let b05 = a02 * a13 - a03 * a12;
    let b06 = a20 * a31 - a21 * a30;
    let b07 = a20 * a32 - a22 * a30;
    let b08 = a20 * a33 - a23 * a30;
    let b09 = a21 * a32 - a22 * a31;
    let b10 = a21 * a33 - a23 * a31;
    let b11 = a22 * a33 - a23 * a32;
    let det = b00 * b11 - b01 * b10 + b02 * b09 + b03 * b08 - b04 * b07 + b05 * b06;
    if !det.is_finite() || det == 0.0 {
        return None;
    }
    let d = 1.0 / det;
    let out = [
        (a11 * b11 - a12 * b10 + a13 * b09) * d,
        (a02 * b10 - a01 * b11 - a03 * b09) * d,
        (a31 * b05 - a32 * b04 + a33 * b03) * d,
        (a22 * b04 - a21 * b05 - a23 * b03) * d,
        (a12 * b08 - a10 * b11 - a13 * b07) * d,
        (a00 * b11 - a02 * b08 + a03 * b07) * d,
        (a32 * b02 - a30 * b05 - a33 * b01) * d,
        (a20 * b05 - a22 * b02 + a23 * b01) * d,
        (a10 * b10 - a11 * b08 + a13 * b06) * d,
        (a01 * b08 - a00 * b10 - a03 * b06) * d,
        (a30 * b04 - a31 * b02 + a33 * b00) * d,
        (a21 * b02 - a20 * b04 - a23 * b00) * d,
        (a11 * b07 - a10 * b09 - a12 * b06) * d,
        (a00 * b09 - a01 * b07 + a02 * b06) * d,
        (a31 * b01 - a30 * b03 - a32 * b00) * d,
        (a20 * b03 - a21 * b01 + a22 * b00) * d,
    ];
    out.iter().all(|x| x.is_finite()).then_some(out)
}

/// The quaternion scaled to unit length; the identity when it has no length (or is not
/// finite).
pub(crate) fn normalize_quat(q: [f64; 4]) -> [f64; 4] {
    let len = q.iter().map(|x| x * x).sum::<f64>().sqrt();
    if !len.is_finite() || len < 1e-12 {
        return [0.0, 0.0, 0.0, 1.0];
    }
    q.map(|x| x / len)
}

/// The rotation of a unit quaternion as a row-major 3×3 matrix.
pub(crate) fn quat_to_mat3(q: [f64; 4]) -> [f64; 9] {
    let [x, y, z, w] = q;
    [
        1.0 - 2.0 * (y * y + z * z),
        2.0 * (x * y - z * w),
        2.0 * (x * z + y * w),
        2.0 * (x * y + z * w),
        1.0 - 2.0 * (x * x + z * z),
        2.0 * (y * z - x * w),
        2.0 * (x * z - y * w),
        2.0 * (y * z + x * w),
        1.0 - 2.0 * (x * x + y * y),
    ]
}

/// The unit quaternion of a row-major rotation matrix (Shepperd's method, on the
/// largest of the trace and the diagonal; a matrix that is not quite orthonormal gives
/// the nearby rotation). The identity for a matrix with no rotation in it (zeros, NaN).
pub(crate) fn mat3_to_quat(r: [f64; 9]) -> [f64; 4] {
    let [m00, m01, m02, m10, m11, m12, m20, m21, m22] = r;
    let trace = m00 + m11 + m22;
    let q = if trace >= m00.max(m11).max(m22) {
        let s = (1.0 + trace).max(0.0).sqrt() * 2.0;
        [(m21 - m12) / s, (m02 - m20) / s, (m10 - m01) / s, s / 4.0]
    } else if m00 >= m11 && m00 >= m22 {
        let s = (1.0 + m00 - m11 - m22).max(0.0).sqrt() * 2.0;
        [s / 4.0, (m01 + m10) / s, (m02 + m20) / s, (m21 - m12) / s]
    } else if m11 >= m22 {
        let s = (1.0 + m11 - m00 - m22).max(0.0).sqrt() * 2.0;
        [(m01 + m10) / s, s / 4.0, (m12 + m21) / s, (m02 - m20) / s]
    } else {
        let s = (1.0 + m22 - m00 - m11).max(0.0).sqrt() * 2.0;
        [(m02 + m20) / s, (m12 + m21) / s, s / 4.0, (m10 - m01) / s]
    };
    normalize_quat(q)
}

/// `a × b` (the rotation `b`, then `a`).
pub(crate) fn quat_mul(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
    let [ax, ay, az, aw] = a;
    let [bx, by, bz, bw] = b;
    [
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ]
}

/// The inverse rotation of a unit quaternion.
pub(crate) fn quat_conj(q: [f64; 4]) -> [f64; 4] {
    let [x, y, z, w] = q;
    [-x, -y, -z, w]
}

/// `v` rotated by the unit quaternion `q`.
pub(crate) fn quat_rotate(q: [f64; 4], v: [f64; 3]) -> [f64; 3] {
    let [m00, m01, m02, m10, m11, m12, m20, m21, m22] = quat_to_mat3(q);
    let [x, y, z] = v;
    [
        m00 * x + m01 * y + m02 * z,
        m10 * x + m11 * y + m12 * z,
        m20 * x + m21 * y + m22 * z,
    ]
}

/// A joint's local matrix, from its (f32) translation, rotation and scale.
pub(crate) fn local_matrix(j: &super::Joint) -> Mat4 {
    trs_matrix(
        j.translation.map(f64::from),
        j.rotation.map(f64::from),
        j.scale.map(f64::from),
    )
}

/// The matrix `T × R × S` of a translation, unit quaternion and scale.
pub(crate) fn trs_matrix(t: [f64; 3], q: [f64; 4], s: [f64; 3]) -> Mat4 {
    let [r00, r01, r02, r10, r11, r12, r20, r21, r22] = quat_to_mat3(q);
    let [sx, sy, sz] = s;
    let [tx, ty, tz] = t;
    [
        r00 * sx,
        r10 * sx,
        r20 * sx,
        0.0,
        r01 * sy,
        r11 * sy,
        r21 * sy,
        0.0,
        r02 * sz,
        r12 * sz,
        r22 * sz,
        0.0,
        tx,
        ty,
        tz,
        1.0,
    ]
}

/// A joint as an adapter knows it: its parent and its transform local to that parent.
#[derive(Clone, Debug)]
pub(crate) struct LocalJoint {
    /// Name.
    pub name: String,
    /// Parent index as the source has it (anything out of range means a root).
    pub parent: Option<usize>,
    /// Translation.
    pub translation: [f64; 3],
    /// Rotation, any length (normalised here).
    pub rotation: [f64; 4],
    /// Scale.
    pub scale: [f64; 3],
}

/// The parents with out-of-range indices made roots and every cycle broken (the joint
/// whose parent link closes a cycle, in walking order, becomes a root). Linear time.
pub(crate) fn sane_parents(parents: &[Option<usize>]) -> Vec<Option<usize>> {
    let n = parents.len();
    let mut out: Vec<Option<usize>> = parents.iter().map(|p| p.filter(|&p| p < n)).collect();
    // 0 unseen, 1 on the current walk, 2 done.
    let mut state = vec![0u8; n];
    let mut walk = Vec::new();
    for start in 0..n {
        let mut at = start;
        walk.clear();
        loop {
            match state.get(at).copied() {
                Some(0) => {}
                Some(1) => {
                    // The last joint of the walk points back into it: a cycle.
                    if let Some(slot) = walk.last().and_then(|&j: &usize| out.get_mut(j)) {
                        *slot = None;
                    }
                    break;
                }
                _ => break,
            }
            if let Some(s) = state.get_mut(at) {
                *s = 1;
            }
            walk.push(at);
            match out.get(at).copied().flatten() {
                Some(p) => at = p,
                None => break,
            }
        }
        for &j in &walk {
            if let Some(s) = state.get_mut(j) {
                *s = 2;
            }
        }
    }
    out
}

/// World matrices of joints given by local matrices and (sane: in range, acyclic)
/// parents, in any order: a parent may come after its child.
pub(crate) fn world_matrices(local: &[Mat4], parents: &[Option<usize>]) -> Vec<Mat4> {
    let n = local.len();
    let mut world: Vec<Option<Mat4>> = vec![None; n];
    let mut chain = Vec::new();
    for start in 0..n {
        // Up to the first joint already done (or a root), then back down.
        chain.clear();
        let mut at = Some(start);
        while let Some(j) = at {
            if chain.len() > n || world.get(j).is_some_and(Option::is_some) {
                break;
            }
            chain.push(j);
            at = parents.get(j).copied().flatten();
        }
        let mut acc = at
            .and_then(|j| world.get(j).copied().flatten())
            .unwrap_or(IDENTITY);
        for &j in chain.iter().rev() {
            acc = mul(&acc, local.get(j).unwrap_or(&IDENTITY));
            if let Some(w) = world.get_mut(j) {
                *w = Some(acc);
            }
        }
    }
    world.into_iter().map(Option::unwrap_or_default).collect()
}

/// An inverse bind matrix as the scene stores it: `f32`, its last row (0, 0, 0, 1)
/// exactly, as glTF requires.
pub(crate) fn inverse_bind_f32(m: &Mat4) -> [f32; 16] {
    let mut out = m.map(|x| x as f32);
    for (k, x) in out.iter_mut().enumerate() {
        if k % 4 == 3 {
            *x = if k == 15 { 1.0 } else { 0.0 };
        }
    }
    out
}

/// A skeleton from local joint transforms: parents made sane ([`sane_parents`]),
/// rotations normalised, values rounded to `f32`, and each inverse bind matrix the
/// inverse of the joint's world matrix as the rounded local transforms compose.
///
/// Values that are not finite (also once rounded to `f32`) are replaced and counted in
/// `fixes` as `bind pose` components: translations and rotation components by 0, scales
/// by 1.
///
/// Fails if a world matrix is singular (a zero scale).
pub(crate) fn skeleton_from_local(joints: Vec<LocalJoint>, fixes: &mut Fixes) -> Result<Skeleton> {
    let parents = sane_parents(&joints.iter().map(|j| j.parent).collect::<Vec<_>>());
    let mut out: Vec<Joint> = joints
        .into_iter()
        .zip(&parents)
        .map(|(j, &parent)| {
            let mut f = |x: f64, with: f32| fixes.finite("bind pose", x as f32, with);
            let translation = j.translation.map(|x| f(x, 0.0));
            let rotation = j.rotation.map(|x| f64::from(f(x, 0.0)));
            let scale = j.scale.map(|x| f(x, 1.0));
            Joint {
                name: j.name,
                parent,
                translation,
                rotation: normalize_quat(rotation).map(|x| x as f32),
                scale,
                inverse_bind_matrix: IDENTITY.map(|x| x as f32),
            }
        })
        .collect();
    let local: Vec<Mat4> = out.iter().map(local_matrix).collect();
    let world = world_matrices(&local, &parents);
    for (j, w) in out.iter_mut().zip(&world) {
        let inv = invert(w).ok_or_else(|| {
            Error::new(
                "export",
                ErrorKind::Invalid(format!(
                    "joint {:?}: its bind pose is not invertible (or not finite)",
                    j.name
                )),
            )
        })?;
        j.inverse_bind_matrix = inverse_bind_f32(&inv);
    }
    Ok(Skeleton { joints: out })
}

/// A vertex's influences (joint index, weight of any scale) as glTF's four joints and
/// weights: influences on joints out of range, or with a weight that is not positive
/// and finite, are dropped; those on the same joint are added up; the four largest are
/// kept, largest first, and scaled to sum to 1 (as `f32`s added in order, which is how
/// the glTF validator checks them); unused slots are joint 0 with weight 0. A vertex
/// left with no influence gets joint 0 with weight 1.
pub(crate) fn vertex_skin(
    influences: impl IntoIterator<Item = (usize, f64)>,
    joint_count: usize,
) -> ([u16; 4], [f32; 4]) {
    let mut merged: Vec<(u16, f64)> = Vec::with_capacity(4);
    for (j, w) in influences {
        let Ok(j16) = u16::try_from(j) else {
            continue;
        };
        if j >= joint_count || !w.is_finite() || w <= 0.0 {
            continue;
        }
        match merged.iter_mut().find(|(k, _)| *k == j16) {
            Some((_, acc)) => *acc += w,
            None => merged.push((j16, w)),
        }
    }
    // Largest first; equal weights keep their order.
    merged.sort_by(|a, b| b.1.total_cmp(&a.1));
    merged.truncate(4);
    let total: f64 = merged.iter().map(|(_, w)| w).sum();
    let mut joints = [0u16; 4];
    let mut weights = [0f32; 4];
    if merged.is_empty() || !total.is_finite() || total <= 0.0 {
        weights[0] = 1.0;
        return (joints, weights);
    }
    for ((j, w), (oj, ow)) in merged.iter().zip(joints.iter_mut().zip(weights.iter_mut())) {
        *oj = *j;
        *ow = (w / total) as f32;
    }
    // Rounding to f32 can leave the sum a unit or two off: give the rest to the largest.
    for _ in 0..4 {
        let sum = weights.iter().fold(0f32, |acc, &w| acc + w);
        if sum == 1.0 {
            break;
        }
        weights[0] = (weights[0] + (1.0 - sum)).max(f32::MIN_POSITIVE);
    }
    (joints, weights)
}

/// Translation, rotation and scale of a matrix `T × R × S` (a mirroring is put in the X
/// scale; shear is lost).
pub(crate) fn decompose(m: &Mat4) -> ([f64; 3], [f64; 4], [f64; 3]) {
    let at = |k: usize| m.get(k).copied().unwrap_or(0.0);
    let col = |c: usize| [at(4 * c), at(4 * c + 1), at(4 * c + 2)];
    let len = |v: [f64; 3]| (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    let (mut c0, c1, c2) = (col(0), col(1), col(2));
    let det = c0[0] * (c1[1] * c2[2] - c1[2] * c2[1]) - c1[0] * (c0[1] * c2[2] - c0[2] * c2[1])
        + c2[0] * (c0[1] * c1[2] - c0[2] * c1[1]);
    let mut s = [len(c0), len(c1), len(c2)];
    if det < 0.0 {
        s[0] = -s[0];
        c0 = c0.map(|x| -x);
    }
    let unit = |v: [f64; 3], l: f64| {
        let l = l.abs();
        if l > 0.0 {
            v.map(|x| x / l)
        } else {
            v
        }
    };
    let (r0, r1, r2) = (unit(c0, s[0]), unit(c1, s[1]), unit(c2, s[2]));
    // Row-major: row r holds component r of each column.
    let r = [
        r0[0], r1[0], r2[0], r0[1], r1[1], r2[1], r0[2], r1[2], r2[2],
    ];
    ([at(12), at(13), at(14)], mat3_to_quat(r), s)
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn close(a: &[f64], b: &[f64], tol: f64) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol)
    }

    /// A matrix with no special structure (and determinant −144 ≠ 0).
    const M: Mat4 = [
        2.0, 0.0, 1.0, 0.0, //
        1.0, 3.0, 0.0, 0.0, //
        0.0, 1.0, 4.0, 0.0, //
        5.0, -2.0, 7.0, 1.0,
    ];

    #[test]
    fn multiplication_is_column_major() {
        // A translation after a scale: the point (1, 1, 1) goes to (2, 3, 4) + (10, 0, 0).
        let t = trs_matrix([10.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0; 3]);
        let s = trs_matrix([0.0; 3], [0.0, 0.0, 0.0, 1.0], [2.0, 3.0, 4.0]);
        let ts = mul(&t, &s);
        let p = [1.0, 1.0, 1.0, 1.0];
        let out: Vec<f64> = (0..4)
            .map(|r| (0..4).map(|c| ts[c * 4 + r] * p[c]).sum())
            .collect();
        assert_eq!(out, [12.0, 3.0, 4.0, 1.0]);
        assert_eq!(mul(&IDENTITY, &M), M);
        assert_eq!(mul(&M, &IDENTITY), M);
    }

    #[test]
    fn inverse_times_matrix_is_identity() {
        let inv = invert(&M).expect("invertible");
        assert!(close(&mul(&inv, &M), &IDENTITY, 1e-12));
        assert!(close(&mul(&M, &inv), &IDENTITY, 1e-12));
        assert_eq!(invert(&IDENTITY), Some(IDENTITY));
        // A general (projective) matrix too.
        let mut p = M;
        p[3] = 0.5;
        p[7] = -1.0;
        let inv = invert(&p).expect("invertible");
        assert!(close(&mul(&inv, &p), &IDENTITY, 1e-12));
        // A rigid transform's inverse is (Rᵀ, −Rᵀt).
        let q = normalize_quat([0.3, -0.2, 0.9, 0.4]);
        let m = trs_matrix([1.0, 2.0, 3.0], q, [1.0; 3]);
        let inv = invert(&m).expect("invertible");
        let back = trs_matrix([0.0; 3], quat_conj(q), [1.0; 3]);
        let t = quat_rotate(quat_conj(q), [-1.0, -2.0, -3.0]);
        assert!(close(&inv[..12], &back[..12], 1e-12));
        assert!(close(&inv[12..15], &t, 1e-12));
    }

    #[test]
    fn singular_matrices_have_no_inverse() {
        let flat = trs_matrix([1.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0, 0.0, 1.0]);
        assert_eq!(invert(&flat), None);
        let mut nan = IDENTITY;
        nan[5] = f64::NAN;
        assert_eq!(invert(&nan), None);
    }

    #[test]
    fn quaternion_to_matrix() {
        let h = std::f64::consts::FRAC_1_SQRT_2;
        // 90° about z: x goes to y.
        let r = quat_to_mat3([0.0, 0.0, h, h]);
        assert!(close(
            &r,
            &[0.0, -1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0],
            1e-15
        ));
        // 90° about x: y goes to z; about y: z goes to x.
        assert!(close(
            &quat_rotate([h, 0.0, 0.0, h], [0.0, 1.0, 0.0]),
            &[0.0, 0.0, 1.0],
            1e-15
        ));
        assert!(close(
            &quat_rotate([0.0, h, 0.0, h], [0.0, 0.0, 1.0]),
            &[1.0, 0.0, 0.0],
            1e-15
        ));
        assert_eq!(
            quat_to_mat3([0.0, 0.0, 0.0, 1.0]),
            [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]
        );
        // A rotation matrix is orthonormal with determinant 1.
        let r = quat_to_mat3(normalize_quat([0.1, 0.7, -0.3, 0.5]));
        let det = r[0] * (r[4] * r[8] - r[5] * r[7]) - r[1] * (r[3] * r[8] - r[5] * r[6])
            + r[2] * (r[3] * r[7] - r[4] * r[6]);
        assert!((det - 1.0).abs() < 1e-12);
    }

    #[test]
    fn matrix_to_quaternion_and_back() {
        for q in [
            [0.0, 0.0, 0.0, 1.0],
            [1.0, 0.0, 0.0, 0.0],
            [0.0, 1.0, 0.0, 0.0],
            [0.0, 0.0, 1.0, 0.0],
            [0.1, 0.7, -0.3, 0.5],
            [-0.9, 0.1, 0.2, 0.05],
            [0.2, -0.1, 0.95, -0.1],
        ] {
            let q = normalize_quat(q);
            let back = mat3_to_quat(quat_to_mat3(q));
            // q and −q are the same rotation.
            let sign = if back[3] * q[3] + back[0] * q[0] + back[1] * q[1] + back[2] * q[2] < 0.0 {
                -1.0
            } else {
                1.0
            };
            assert!(
                close(&back.map(|x| x * sign), &q, 1e-12),
                "{q:?} -> {back:?}"
            );
        }
        assert_eq!(mat3_to_quat([0.0; 9]), [0.0, 0.0, 0.0, 1.0]);
        assert_eq!(mat3_to_quat([f64::NAN; 9]), [0.0, 0.0, 0.0, 1.0]);
    }

    #[test]
    fn quaternion_product_composes_rotations() {
        let a = normalize_quat([0.1, 0.7, -0.3, 0.5]);
        let b = normalize_quat([-0.4, 0.2, 0.6, 0.3]);
        let v = [0.3, -1.2, 2.0];
        assert!(close(
            &quat_rotate(quat_mul(a, b), v),
            &quat_rotate(a, quat_rotate(b, v)),
            1e-12
        ));
        assert!(close(
            &quat_mul(a, quat_conj(a)),
            &[0.0, 0.0, 0.0, 1.0],
            1e-15
        ));
    }

    #[test]
    fn parents_out_of_range_and_cycles_become_roots() {
        assert_eq!(
            sane_parents(&[None, Some(0), Some(7), Some(1)]),
            [None, Some(0), None, Some(1)]
        );
        // 0 -> 1 -> 2 -> 0, and 3 -> 3.
        let p = sane_parents(&[Some(1), Some(2), Some(0), Some(3), Some(2)]);
        assert_eq!(p, [Some(1), Some(2), None, None, Some(2)]);
    }

    #[test]
    fn world_matrices_follow_parents_in_any_order() {
        let t = |x: f64| trs_matrix([x, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0; 3]);
        // 0's parent is 2, whose parent is 1 (a root).
        let w = world_matrices(&[t(1.0), t(10.0), t(100.0)], &[Some(2), None, Some(1)]);
        assert_eq!(w[0][12], 111.0);
        assert_eq!(w[1][12], 10.0);
        assert_eq!(w[2][12], 110.0);
    }

    #[test]
    fn skeleton_inverse_bind_matrices() {
        let j = |name: &str, parent, t: [f64; 3], r: [f64; 4], s: [f64; 3]| LocalJoint {
            name: name.into(),
            parent,
            translation: t,
            rotation: r,
            scale: s,
        };
        let s = skeleton_from_local(
            vec![
                j(
                    "child",
                    Some(1),
                    [1.0, 2.0, 3.0],
                    [0.0, 0.0, 2.0, 2.0],
                    [1.0; 3],
                ),
                j(
                    "root",
                    None,
                    [0.0, 5.0, 0.0],
                    [0.3, 0.1, 0.0, 1.0],
                    [2.0, 2.0, 2.0],
                ),
            ],
            &mut Fixes::default(),
        )
        .expect("skeleton");
        assert_eq!(s.joints[0].parent, Some(1));
        let h = std::f32::consts::FRAC_1_SQRT_2;
        assert_eq!(s.joints[0].rotation, [0.0, 0.0, h, h]);
        let local: Vec<Mat4> = s.joints.iter().map(local_matrix).collect();
        let world = world_matrices(&local, &[Some(1), None]);
        for (j, w) in s.joints.iter().zip(&world) {
            let ibm = j.inverse_bind_matrix.map(f64::from);
            assert!(close(&mul(&ibm, w), &IDENTITY, 1e-6), "{}", j.name);
            assert_eq!([ibm[3], ibm[7], ibm[11], ibm[15]], [0.0, 0.0, 0.0, 1.0]);
        }
        let bad = skeleton_from_local(
            vec![j("flat", None, [0.0; 3], [0.0; 4], [0.0; 3])],
            &mut Fixes::default(),
        );
        assert!(bad.is_err());
    }

    #[test]
    fn vertex_weights() {
        let sum = |w: [f32; 4]| w.iter().fold(0f32, |a, &x| a + x);
        // Merged, sorted, the smallest dropped, renormalised.
        let (j, w) = vertex_skin(
            [
                (3, 10.0),
                (1, 50.0),
                (3, 10.0),
                (2, 5.0),
                (4, 30.0),
                (0, 1.0),
            ],
            5,
        );
        assert_eq!(j, [1, 4, 3, 2]);
        assert_eq!(sum(w), 1.0);
        assert!((f64::from(w[0]) - 50.0 / 105.0).abs() < 1e-6);
        // Out of range, zero, negative and NaN weights are no influence.
        let (j, w) = vertex_skin([(9, 1.0), (1, 0.0), (2, -1.0), (3, f64::NAN)], 5);
        assert_eq!((j, w), ([0; 4], [1.0, 0.0, 0.0, 0.0]));
        // Unused slots are joint 0, weight 0.
        let (j, w) = vertex_skin([(7, 85.0), (2, 170.0)], 8);
        assert_eq!(j, [2, 7, 0, 0]);
        assert_eq!(w[2..], [0.0, 0.0]);
        assert_eq!(sum(w), 1.0);
        // Awkward thirds and sevenths still add up.
        for n in [3usize, 7, 11, 13] {
            let (_, w) = vertex_skin((0..4).map(|k| (k, 1.0 + (k * n) as f64 / 7.0)), 4);
            assert!((sum(w) - 1.0).abs() <= 2e-7 * 4.0, "{w:?}");
        }
    }

    #[test]
    fn decompose_inverts_trs() {
        let q = normalize_quat([0.2, -0.3, 0.4, 0.8]);
        let m = trs_matrix([1.0, -2.0, 3.0], q, [2.0, 0.5, 3.0]);
        let (t, r, s) = decompose(&m);
        assert_eq!(t, [1.0, -2.0, 3.0]);
        for (a, b) in s.iter().zip([2.0, 0.5, 3.0]) {
            assert!((a - b).abs() < 1e-12, "{s:?}");
        }
        let same = r.iter().zip(q).all(|(a, b)| (a - b).abs() < 1e-12)
            || r.iter().zip(q).all(|(a, b)| (a + b).abs() < 1e-12);
        assert!(same, "{r:?} vs {q:?}");
        // A mirror comes back as a negative X scale that rebuilds the same matrix.
        let mirror = trs_matrix([0.0; 3], q, [-1.0, 1.0, 1.0]);
        let (t, r, s) = decompose(&mirror);
        let back = trs_matrix(t, r, s);
        assert!(back.iter().zip(mirror).all(|(a, b)| (a - b).abs() < 1e-12));
    }
}
