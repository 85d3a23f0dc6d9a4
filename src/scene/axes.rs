//! Up axes: the conventions a scene's numbers follow, and the change to glTF's.
//!
//! glTF is right-handed with +Y up (glTF 2.0 specification, "Coordinate System and
//! Units"). Every format this crate reads is right-handed; they differ in the up axis:
//!
//! | format | up | handedness | unit | source |
//! |---|---|---|---|---|
//! | Roblox FileMesh, CSGPHS | +Y (−Z forward) | right | stud | FileMesh spec: bones behave as CFrames, "Y-up, -Z forward" |
//! | UNIGINE `.mesh`, `.anim` | +Z (+Y forward) | right | metre | UNIGINE docs, "Basic Scene Objects and Coordinate System": "X and Y axes form a horizontal plane, Z axis points up" |
//! | STF | +Y | right | metre | `stf_blender` writes Blender's (x, y, z) as (x, z, −y) |
//!
//! [`Scene::to_y_up`] turns a +Z-up scene into glTF's +Y up with the rotation
//! (x, y, z) → (x, z, −y), a quarter turn about X. It is the change Blender's own glTF
//! exporter makes, so a UNIGINE file exported to glTF and opened in Blender shows the
//! numbers UNIGINE stores. The rotation only moves and negates components, so it is
//! exact: `--keep-axes` output and the default differ by that permutation alone.
//!
//! Units are not converted (a stud stays 1, as does a metre), nor is the facing
//! direction (a Roblox character faces −Z in glTF as in Roblox). Texture coordinates are
//! written to glTF as stored: FileMesh's UV origin is the image's top left, as in glTF;
//! where UNIGINE puts its UV origin is not established here (no texture to check
//! against). OBJ's V runs up from the image's bottom, so the OBJ writer and reader turn V
//! into `1 − V` and back (`scene::obj`).

use super::{ChannelValues, Scene};

/// The axis that points up in a scene's numbers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub enum UpAxis {
    /// +Y up (glTF, Roblox, STF).
    #[default]
    Y,
    /// +Z up (UNIGINE).
    Z,
}

/// A vector turned from +Z up to +Y up.
fn vec3(v: [f32; 3]) -> [f32; 3] {
    [v[0], v[2], -v[1]]
}

/// A rotation (quaternion x, y, z, w) turned from +Z up to +Y up: its axis turns as a
/// vector does.
fn quat(q: [f32; 4]) -> [f32; 4] {
    [q[0], q[2], -q[1], q[3]]
}

/// A scale along local axes: the axes swap, the factors keep their sign.
fn scale(s: [f32; 3]) -> [f32; 3] {
    [s[0], s[2], s[1]]
}

/// `R × m × R⁻¹` for a column-major 4×4 matrix, R the +Z-up to +Y-up rotation. Element
/// (row r, column c) is at `c * 4 + r`.
fn mat4(m: [f32; 16]) -> [f32; 16] {
    // Row i of R picks axis p(i) with sign s(i): (R m Rᵀ)[i][j] = s(i) s(j) m[p(i)][p(j)].
    const PICK: [(usize, f32); 4] = [(0, 1.0), (2, 1.0), (1, -1.0), (3, 1.0)];
    let mut out = [0.0f32; 16];
    for (c, &(pc, sc)) in PICK.iter().enumerate() {
        for (r, &(pr, sr)) in PICK.iter().enumerate() {
            if let Some(o) = out.get_mut(c * 4 + r) {
                *o = sr * sc * m.get(pc * 4 + pr).copied().unwrap_or(0.0);
            }
        }
    }
    out
}

impl Scene {
    /// Turns the scene's numbers to glTF's +Y up (see the [module docs](self)): positions,
    /// normals, morph target deltas, joint transforms and inverse bind matrices, and
    /// animated translations, rotations and scales. Nothing changes for a +Y-up scene.
    pub fn to_y_up(&mut self) {
        if self.up == UpAxis::Y {
            return;
        }
        for p in self.meshes.iter_mut().flat_map(|m| &mut m.primitives) {
            for v in &mut p.positions {
                *v = vec3(*v);
            }
            for n in p.normals.iter_mut().flatten() {
                *n = vec3(*n);
            }
            for t in &mut p.morph_targets {
                for d in &mut t.position_deltas {
                    *d = vec3(*d);
                }
            }
        }
        for j in self.skeleton.iter_mut().flat_map(|s| &mut s.joints) {
            j.translation = vec3(j.translation);
            j.rotation = quat(j.rotation);
            j.scale = scale(j.scale);
            j.inverse_bind_matrix = mat4(j.inverse_bind_matrix);
        }
        for c in self.animations.iter_mut().flat_map(|a| &mut a.channels) {
            match &mut c.values {
                ChannelValues::Translation(v) => v.iter_mut().for_each(|x| *x = vec3(*x)),
                ChannelValues::Rotation(v) => v.iter_mut().for_each(|q| *q = quat(*q)),
                ChannelValues::Scale(v) => v.iter_mut().for_each(|s| *s = scale(*s)),
            }
        }
        self.up = UpAxis::Y;
    }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::super::skin::{self, Mat4};
    use super::*;

    /// The rotation as a matrix, built independently: a quarter turn about X.
    fn r() -> Mat4 {
        let q = [-(0.5f64.sqrt()), 0.0, 0.0, 0.5f64.sqrt()];
        skin::trs_matrix([0.0; 3], q, [1.0; 3])
    }

    fn apply(m: &Mat4, v: [f64; 3]) -> [f64; 3] {
        let mut out = [0.0; 3];
        for (r, o) in out.iter_mut().enumerate() {
            *o = (0..3).map(|c| m[c * 4 + r] * v[c]).sum::<f64>() + m[12 + r];
        }
        out
    }

    #[test]
    fn up_becomes_up_and_the_turn_is_proper() {
        let up = vec3([0.0, 0.0, 1.0]);
        assert_eq!(up, [0.0, 1.0, 0.0]);
        // UNIGINE's forward (+Y) becomes −Z, Blender's view of glTF keeps it +Y.
        assert_eq!(vec3([0.0, 1.0, 0.0]), [0.0, 0.0, -1.0]);
        let m = r();
        for v in [[1.0, 2.0, 3.0], [-4.0, 0.5, 7.0]] {
            let a = apply(&m, v);
            let b = vec3(v.map(|x| x as f32));
            for (x, y) in a.iter().zip(b) {
                assert!((x - f64::from(y)).abs() < 1e-12, "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn matrices_and_quaternions_turn_as_the_vectors_do() {
        let q = skin::normalize_quat([0.3, -0.2, 0.8, 0.4]);
        let t = [1.0, -2.0, 0.5];
        let s = [2.0, 3.0, 0.5];
        let m = skin::trs_matrix(t, q, s);
        // R m R⁻¹ by general multiplication …
        let rinv = skin::invert(&r()).expect("invertible");
        let expect = skin::mul(&skin::mul(&r(), &m), &rinv);
        // … equals the permutation, and the TRS of the turned parts.
        let got = mat4(m.map(|x| x as f32));
        let trs = skin::trs_matrix(
            vec3(t.map(|x| x as f32)).map(f64::from),
            quat(q.map(|x| x as f32)).map(f64::from),
            scale(s.map(|x| x as f32)).map(f64::from),
        );
        for k in 0..16 {
            assert!((expect[k] - f64::from(got[k])).abs() < 1e-6, "{k}");
            assert!((expect[k] - trs[k]).abs() < 1e-6, "{k}");
        }
    }
}
