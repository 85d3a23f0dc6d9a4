//! Node transforms: a glTF node's local matrix or translation, rotation and scale, and
//! a primitive moved by a matrix (points, normals, morph target deltas, winding).

use serde_json::Value;

use super::json::bad;
use crate::error::Result;
use crate::scene::skin::{normalize_quat, trs_matrix, Mat4, IDENTITY as IDENTITY4};
use crate::scene::Primitive;

/// An affine map of vertices: points by the matrix, normals by the inverse transpose of
/// its 3×3 part (made unit length again; the sign kept under mirroring), directions
/// (morph target deltas) by the 3×3 part.
pub(super) struct Affine {
    m: Mat4,
    /// Rows of the cofactor matrix of the 3×3 part, times the determinant's sign.
    cofactors: [[f64; 3]; 3],
    mirrors: bool,
}

impl Affine {
    pub(super) fn new(m: &Mat4) -> Affine {
        let [a00, a10, a20, _, a01, a11, a21, _, a02, a12, a22, _, _, _, _, _] = *m;
        let c = [
            [
                a11 * a22 - a12 * a21,
                a12 * a20 - a10 * a22,
                a10 * a21 - a11 * a20,
            ],
            [
                a02 * a21 - a01 * a22,
                a00 * a22 - a02 * a20,
                a01 * a20 - a00 * a21,
            ],
            [
                a01 * a12 - a02 * a11,
                a02 * a10 - a00 * a12,
                a00 * a11 - a01 * a10,
            ],
        ];
        let det = a00 * c[0][0] + a01 * c[0][1] + a02 * c[0][2];
        let sign = if det < 0.0 { -1.0 } else { 1.0 };
        Affine {
            m: *m,
            cofactors: c.map(|row| row.map(|x| sign * x)),
            mirrors: det < 0.0,
        }
    }

    fn direction(&self, v: [f32; 3], w: f64) -> [f32; 3] {
        let [x, y, z] = v.map(f64::from);
        let m = &self.m;
        let at = |k: usize| m.get(k).copied().unwrap_or(0.0);
        [0, 1, 2].map(|r| (at(r) * x + at(4 + r) * y + at(8 + r) * z + w * at(12 + r)) as f32)
    }

    fn point(&self, v: [f32; 3]) -> [f32; 3] {
        self.direction(v, 1.0)
    }

    fn normal(&self, n: [f32; 3]) -> [f32; 3] {
        let [x, y, z] = n.map(f64::from);
        let t = self.cofactors.map(|[p, q, r]| p * x + q * y + r * z);
        let len = t.iter().map(|c| c * c).sum::<f64>().sqrt();
        if len > 0.0 && len.is_finite() {
            t.map(|c| (c / len) as f32)
        } else {
            [0.0, 0.0, 1.0]
        }
    }

    /// Vertex `i` of `p` (position, normal, morph target deltas) moved.
    pub(super) fn move_vertex(&self, p: &mut Primitive, i: usize) {
        if let Some(v) = p.positions.get_mut(i) {
            *v = self.point(*v);
        }
        if let Some(n) = p.normals.as_mut().and_then(|n| n.get_mut(i)) {
            *n = self.normal(*n);
        }
        for t in &mut p.morph_targets {
            if let Some(d) = t.position_deltas.get_mut(i) {
                *d = self.direction(*d, 0.0);
            }
        }
    }
}

/// A node's local matrix: its `matrix`, or `T × R × S` (glTF 2.0, "Transformations").
pub(super) fn local_matrix(n: &Value, ctx: &str) -> Result<Mat4> {
    Ok(match node_trs(n, ctx)? {
        Some((t, q, s)) => trs_matrix(t, q, s),
        None => numbers(n, "matrix", IDENTITY4, ctx)?,
    })
}

/// Translation, unit rotation (x, y, z, w) and scale.
type Trs = ([f64; 3], [f64; 4], [f64; 3]);

/// A node's translation, rotation (made unit length) and scale, or `None` when it
/// gives a `matrix` instead.
pub(super) fn node_trs(n: &Value, ctx: &str) -> Result<Option<Trs>> {
    if n.get("matrix").is_some() {
        return Ok(None);
    }
    let t = numbers(n, "translation", [0.0; 3], ctx)?;
    let q = numbers(n, "rotation", [0.0, 0.0, 0.0, 1.0], ctx)?;
    let s = numbers(n, "scale", [1.0; 3], ctx)?;
    Ok(Some((t, normalize_quat(q), s)))
}

/// `N` finite numbers under `key` of a node, or `default` when it has none.
fn numbers<const N: usize>(n: &Value, key: &str, default: [f64; N], ctx: &str) -> Result<[f64; N]> {
    let Some(v) = n.get(key) else {
        return Ok(default);
    };
    let a: Option<Vec<f64>> = v
        .as_array()
        .and_then(|a| a.iter().map(Value::as_f64).collect());
    a.filter(|a| a.iter().all(|x| x.is_finite()))
        .and_then(|a| <[f64; N]>::try_from(a).ok())
        .ok_or_else(|| bad(format!("{ctx}: {key} must be {N} finite numbers")))
}

/// A primitive moved by `m`: positions by `m`, normals by the inverse transpose of its
/// 3×3 part (made unit length again), morph target deltas by its 3×3 part, and the
/// winding reversed where `m` mirrors, so the front faces stay in front.
pub(super) fn transformed(p: &Primitive, m: &Mat4) -> Primitive {
    let a = Affine::new(m);
    let mut out = p.clone();
    for i in 0..out.positions.len() {
        a.move_vertex(&mut out, i);
    }
    if a.mirrors {
        for t in &mut out.triangles {
            t.swap(1, 2);
        }
    }
    out
}
