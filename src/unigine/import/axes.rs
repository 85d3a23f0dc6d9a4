//! Axes: a +Y-up scene turned to UNIGINE's +Z up, exactly (components move and change
//! sign; the inverse of [`Scene::to_y_up`]).

use crate::scene::{ChannelValues, Scene, UpAxis};

/// A vector turned from +Y up to +Z up: the inverse of `Scene::to_y_up`'s.
fn z_vec3(v: [f32; 3]) -> [f32; 3] {
    [v[0], -v[2], v[1]]
}

/// A rotation turned from +Y up to +Z up: its axis turns as a vector does.
fn z_quat(q: [f32; 4]) -> [f32; 4] {
    [q[0], -q[2], q[1], q[3]]
}

/// A scale along local axes: the axes swap, the factors keep their sign.
fn z_scale(s: [f32; 3]) -> [f32; 3] {
    [s[0], s[2], s[1]]
}

/// `R⁻¹ × m × R` for a column-major 4×4 matrix (R the +Z-up to +Y-up rotation).
fn z_mat4(m: [f32; 16]) -> [f32; 16] {
    // Row i of R⁻¹ picks axis p(i) with sign s(i).
    const PICK: [(usize, f32); 4] = [(0, 1.0), (2, -1.0), (1, 1.0), (3, 1.0)];
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

/// Turns a +Y-up scene to UNIGINE's +Z up (exactly: components move and change sign).
pub(super) fn to_z_up(scene: &mut Scene) {
    for p in scene.meshes.iter_mut().flat_map(|m| &mut m.primitives) {
        for v in &mut p.positions {
            *v = z_vec3(*v);
        }
        for n in p.normals.iter_mut().flatten() {
            *n = z_vec3(*n);
        }
        for d in p
            .morph_targets
            .iter_mut()
            .flat_map(|t| &mut t.position_deltas)
        {
            *d = z_vec3(*d);
        }
    }
    for j in scene.skeleton.iter_mut().flat_map(|s| &mut s.joints) {
        j.translation = z_vec3(j.translation);
        j.rotation = z_quat(j.rotation);
        j.scale = z_scale(j.scale);
        j.inverse_bind_matrix = z_mat4(j.inverse_bind_matrix);
    }
    for c in scene.animations.iter_mut().flat_map(|a| &mut a.channels) {
        match &mut c.values {
            ChannelValues::Translation(v) => v.iter_mut().for_each(|x| *x = z_vec3(*x)),
            ChannelValues::Rotation(v) => v.iter_mut().for_each(|q| *q = z_quat(*q)),
            ChannelValues::Scale(v) => v.iter_mut().for_each(|s| *s = z_scale(*s)),
        }
    }
    scene.up = UpAxis::Z;
}
