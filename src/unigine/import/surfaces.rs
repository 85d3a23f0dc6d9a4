//! Surfaces: one primitive as a UNIGINE surface header and its geometry (tangent
//! frames quantized for the version, skin weights, bounds), and what the surfaces lose.

use super::vector::{cross, dot, normalized};
use crate::loss::{Loss, LossKind};
use crate::scene::skin;
use crate::scene::Primitive;
use crate::unigine::raw::cint::UString;
use crate::unigine::raw::mesh::{
    BoneWeight, Bounds, SurfaceData, SurfaceHeader, TargetData, Weights,
};
use crate::unigine::raw::quant;
use crate::unigine::MeshVersion;

/// What the surfaces lose, counted over all of them.
#[derive(Default)]
pub(super) struct Stats {
    pub(super) lod_meshes: usize,
    extra_uv_sets: usize,
    uv1_without_uv0: usize,
    off_grid_colors: usize,
    unskinned: usize,
    dropped_influences: usize,
    morph_weights: usize,
}

impl Stats {
    pub(super) fn losses(&self, version: MeshVersion) -> Vec<Loss> {
        let mut out = Vec::new();
        let mut lose = |n: usize, kind: LossKind, detail: String| {
            if n > 0 {
                out.push(Loss::counted(kind, n, detail));
            }
        };
        lose(
            self.lod_meshes,
            LossKind::Lods,
            format!(
                "{} mesh(es) of a coarser level of detail: a UNIGINE mesh has one level",
                self.lod_meshes
            ),
        );
        lose(
            self.extra_uv_sets,
            LossKind::NotImported,
            format!(
                "{} UV set(s) after the second: {version} holds two",
                self.extra_uv_sets
            ),
        );
        lose(
            self.uv1_without_uv0,
            LossKind::NotImported,
            format!(
                "the further UV sets of {} primitive(s) without a first UV set",
                self.uv1_without_uv0
            ),
        );
        lose(
            self.off_grid_colors,
            LossKind::Colors,
            format!(
                "{} colour components rounded to UNIGINE's 8-bit steps",
                self.off_grid_colors
            ),
        );
        lose(
            self.unskinned,
            LossKind::Skinning,
            format!(
                "{} primitive(s) without a skin in a skinned mesh: UNIGINE reads their \
                 vertices as bound to bone 0",
                self.unskinned
            ),
        );
        lose(
            self.dropped_influences,
            LossKind::Skinning,
            format!(
                "{} skin influence(s) too small for UNIGINE's 16-bit weights (below \
                 1/131070), dropped; the others are read back scaled to sum to 1",
                self.dropped_influences
            ),
        );
        lose(
            self.morph_weights,
            LossKind::NotImported,
            format!(
                "the default weights of {} morph target(s): UNIGINE stores none (they read \
                 back as 0)",
                self.morph_weights
            ),
        );
        out
    }
}

/// One primitive as a surface header and its geometry. The primitive's arrays are
/// moved into the surface where they are stored as they are (positions, UVs, indices)
/// and dropped once used where they are not (normals, colours, skin). With
/// `shared_indices` the triangle indices are left empty (see [`build`](super::build)).
pub(super) fn surface(
    mut p: Primitive,
    name: String,
    version: MeshVersion,
    skinned: bool,
    shared_indices: bool,
    stats: &mut Stats,
) -> (SurfaceHeader, SurfaceData) {
    let n = p.positions.len();
    let normals = match p.normals.take() {
        Some(v) => v.iter().map(|x| x.map(f64::from)).collect(),
        None => face_normals(&p),
    };
    let tangents = tangent_frames(&p, &normals, version);
    drop(normals);
    let weights = match (p.joints.take(), p.weights.take()) {
        (Some(j), Some(w)) if skinned => skin_weights(&j, &w, stats),
        _ => {
            if skinned && n > 0 {
                stats.unskinned += 1;
            }
            Weights::default()
        }
    };
    let colors: Vec<[u8; 4]> = p
        .colors
        .take()
        .iter()
        .flatten()
        .map(|c| {
            c.map(|x| {
                let q = quant::unorm8(x);
                if quant::unorm8_to_f32(q) != x {
                    stats.off_grid_colors += 1;
                }
                q
            })
        })
        .collect();
    let (uv0, uv1) = match p.uvs.take() {
        Some(uv) => {
            stats.extra_uv_sets += p.extra_uvs.len().saturating_sub(1);
            (uv, p.extra_uvs.drain(..).next().unwrap_or_default())
        }
        None => {
            if !p.extra_uvs.is_empty() && n > 0 {
                stats.uv1_without_uv0 += 1;
            }
            (Vec::new(), Vec::new())
        }
    };
    let mut names = vec![UString::new("")];
    let mut morphs = Vec::with_capacity(p.morph_targets.len());
    for t in std::mem::take(&mut p.morph_targets) {
        if t.default_weight != 0.0 {
            stats.morph_weights += 1;
        }
        names.push(UString::new(&t.name));
        let positions: Vec<[f32; 3]> = p
            .positions
            .iter()
            .zip(&t.position_deltas)
            .map(|(b, d)| [b[0] + d[0], b[1] + d[1], b[2] + d[2]])
            .collect();
        morphs.push(TargetData {
            positions: positions.into(),
            tangents: tangents.clone(),
        });
    }
    let header = SurfaceHeader {
        name: UString::new(&name),
        lightmap_channel: 0,
        lightmap_resolution: 0,
        bounds: bounds_of(&p.positions),
        targets: names,
    };
    let mut targets = Vec::with_capacity(1 + morphs.len());
    targets.push(TargetData {
        positions: std::mem::take(&mut p.positions).into(),
        tangents,
    });
    targets.append(&mut morphs);
    // The triangles' buffer is the indices' (no copy); flattened only if it cannot be.
    let indices: Vec<u32> = bytemuck::allocation::try_cast_vec(std::mem::take(&mut p.triangles))
        .unwrap_or_else(|(_, t)| t.into_iter().flatten().collect());
    let data = SurfaceData {
        targets,
        weights,
        uv0: uv0.into(),
        uv1: uv1.into(),
        colors: colors.into(),
        triangle_indices: if shared_indices {
            Vec::new()
        } else {
            indices.clone()
        },
        coordinate_indices: indices,
    };
    (header, data)
}

/// Per-vertex normals from the faces (area-weighted), for a primitive without normals;
/// (0, 0, 1) where no face gives one.
fn face_normals(p: &Primitive) -> Vec<[f64; 3]> {
    let mut acc = vec![[0.0f64; 3]; p.positions.len()];
    let pos = |i: u32| p.positions.get(i as usize).map(|v| v.map(f64::from));
    for t in &p.triangles {
        let (Some(a), Some(b), Some(c)) = (pos(t[0]), pos(t[1]), pos(t[2])) else {
            continue;
        };
        let f = cross(sub(b, a), sub(c, a));
        for &i in t {
            if let Some(v) = acc.get_mut(i as usize) {
                *v = add(*v, f);
            }
        }
    }
    acc.into_iter()
        .map(|v| normalized(v).unwrap_or([0.0, 0.0, 1.0]))
        .collect()
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn add(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

/// The tangent frame of every vertex, quantized for `version`.
fn tangent_frames(p: &Primitive, normals: &[[f64; 3]], version: MeshVersion) -> Vec<[i16; 4]> {
    let n = p.positions.len();
    // Tangent and bitangent directions from the first UV set, summed over the faces.
    let mut tan = vec![[0.0f64; 3]; n];
    let mut bit = vec![[0.0f64; 3]; n];
    if let Some(uv) = &p.uvs {
        let pos = |i: u32| p.positions.get(i as usize).map(|v| v.map(f64::from));
        let tex = |i: u32| uv.get(i as usize).map(|v| v.map(f64::from));
        for t in &p.triangles {
            let (Some(a), Some(b), Some(c)) = (pos(t[0]), pos(t[1]), pos(t[2])) else {
                continue;
            };
            let (Some(ta), Some(tb), Some(tc)) = (tex(t[0]), tex(t[1]), tex(t[2])) else {
                continue;
            };
            let (e1, e2) = (sub(b, a), sub(c, a));
            let (du1, dv1, du2, dv2) = (tb[0] - ta[0], tb[1] - ta[1], tc[0] - ta[0], tc[1] - ta[1]);
            let det = du1 * dv2 - du2 * dv1;
            if det.abs() < 1e-20 || !det.is_finite() {
                continue;
            }
            let r = 1.0 / det;
            let tu = sub(e1.map(|x| x * dv2), e2.map(|x| x * dv1)).map(|x| x * r);
            let tv = sub(e2.map(|x| x * du1), e1.map(|x| x * du2)).map(|x| x * r);
            for &i in t {
                if let Some(v) = tan.get_mut(i as usize) {
                    *v = add(*v, tu);
                }
                if let Some(v) = bit.get_mut(i as usize) {
                    *v = add(*v, tv);
                }
            }
        }
    }
    normals
        .iter()
        .zip(tan.iter().zip(&bit))
        .map(|(&nrm, (&t, &b))| {
            let nrm = normalized(nrm).unwrap_or([0.0, 0.0, 1.0]);
            let t = normalized(sub(t, nrm.map(|x| x * dot(nrm, t))))
                .unwrap_or_else(|| perpendicular(nrm));
            let handed = if dot(cross(nrm, t), b) < 0.0 {
                -1.0
            } else {
                1.0
            };
            encode_frame(nrm, t, handed, version == MeshVersion::Ms10)
        })
        .collect()
}

/// A unit vector perpendicular to the unit vector `n`.
pub(super) fn perpendicular(n: [f64; 3]) -> [f64; 3] {
    let other = if n[0].abs() < 0.9 {
        [1.0, 0.0, 0.0]
    } else {
        [0.0, 1.0, 0.0]
    };
    normalized(cross(n, other))
        .or_else(|| normalized(cross(n, [0.0, 0.0, 1.0])))
        .unwrap_or([1.0, 0.0, 0.0])
}

/// The stored tangent frame of a vertex: the quaternion rotating +X, +Y, +Z to the
/// tangent `t`, `n × t` and the normal `n` (unit, perpendicular), × 32767.
///
/// ms11 and later: the quaternion's sign carries the handedness of the UV frame (w < 0
/// for a mirrored one, where the UV bitangent is −(n × t)). ms10 keeps x, y, z of the
/// quaternion with w ≥ 0 (its reader takes w = +√(1 − x² − y² − z²)) and a sign byte,
/// −127 for a mirrored frame, else 127. Both are what every corpus file holds
/// (`docs/unigine-import.md`).
///
/// Of the quantized quaternion and its neighbours, the one whose decoded normal is
/// nearest to `n` is kept. ms10's derived w cannot reach every normal from every tangent
/// (near w = 0 the steps of x, y and z resolve it coarsely): where the normal would be
/// more than 0.03° off, the tangent is turned about the normal, 5° at a time either way,
/// to the first frame that gives it (else the best one).
pub(crate) fn encode_frame(n: [f64; 3], t: [f64; 3], handed: f64, ms10: bool) -> [i16; 4] {
    let (mut best, mut best_error) = encode_twisted(n, t, handed, ms10);
    // 1 − cos 0.03°.
    const GOOD: f64 = 1.4e-7;
    if !ms10 || best_error <= GOOD {
        return best;
    }
    let b = cross(n, t);
    for k in 1..=36 {
        for sign in [1.0, -1.0] {
            let a = f64::from(k) * 5.0f64.to_radians() * sign;
            let turned: [f64; 3] = add(t.map(|x| x * a.cos()), b.map(|x| x * a.sin()));
            let (c, e) = encode_twisted(n, turned, handed, ms10);
            if e < best_error {
                best = c;
                best_error = e;
            }
            if best_error <= GOOD {
                return best;
            }
        }
    }
    best
}

/// [`encode_frame`] for one tangent: the stored frame and its normal's 1 − cos error.
fn encode_twisted(n: [f64; 3], t: [f64; 3], handed: f64, ms10: bool) -> ([i16; 4], f64) {
    let b = cross(n, t);
    let r = [t[0], b[0], n[0], t[1], b[1], n[1], t[2], b[2], n[2]];
    let mut q = skin::mat3_to_quat(r);
    let flip = if ms10 {
        q[3] < 0.0
    } else {
        (q[3] < 0.0) != (handed < 0.0)
    };
    if flip {
        q = q.map(|x| -x);
    }
    let stored = q.map(|x| quant::snorm16(x as f32));
    let mut best = if ms10 {
        [
            stored[0],
            stored[1],
            stored[2],
            if handed < 0.0 { -127 } else { 127 },
        ]
    } else {
        // The sign of w must survive rounding: a mirrored frame whose w rounds to 0 keeps
        // w = −1 step (UNIGINE's files hold such small negative ws, −31 in `ms12-a`).
        let [x, y, z, w] = stored;
        [x, y, z, if handed < 0.0 { w.min(-1) } else { w.max(0) }]
    };
    let keeps_sign = |c: &[i16; 4]| ms10 || (c[3] < 0) == (handed < 0.0);
    // 1 − cos of the angle between `n` and the normal `c` decodes to (as
    // `scene::tangent_normal` decodes it, in f64 throughout).
    let error = |c: [i16; 4]| {
        let [x, y, z, w] = c.map(|x| f64::from(x) / 32767.0);
        let w = if ms10 {
            (1.0 - x * x - y * y - z * z).max(0.0).sqrt()
        } else {
            w
        };
        let d = skin::quat_rotate(skin::normalize_quat([x, y, z, w]), [0.0, 0.0, 1.0]);
        1.0 - dot(d, n)
    };
    let mut best_error = error(best);
    // Rounding error of a few 1/32767 steps is 0.01° at most. ms10's derived w is far
    // off near −Z (a small w comes from 1 − x² − y² − z², which the steps resolve
    // coarsely): there the two smaller components are searched around their steps and
    // the largest solved for the w wanted.
    // 1 − cos 0.01°.
    if best_error > 1.5e-8 {
        let start = best;
        if ms10 {
            let target = (1.0 - q[3] * q[3]) * 32767.0 * 32767.0;
            // Each component in turn is solved for; the other two step around theirs.
            for solve in 0..3 {
                let sign = if start.get(solve).is_some_and(|&x| x < 0) {
                    -1.0
                } else {
                    1.0
                };
                for da in -6i16..=6 {
                    for db in -6i16..=6 {
                        let mut c = start;
                        let mut others = 0.0;
                        let mut d = [da, db].into_iter();
                        for (k, x) in c.iter_mut().enumerate().take(3) {
                            if k != solve {
                                *x = x.saturating_add(d.next().unwrap_or(0));
                                others += f64::from(*x) * f64::from(*x);
                            }
                        }
                        let solved = (target - others).max(0.0).sqrt().round();
                        for dz in [-1.0, 0.0, 1.0] {
                            if let Some(x) = c.get_mut(solve) {
                                *x = (sign * (solved + dz)).clamp(-32767.0, 32767.0) as i16;
                            }
                            let e = error(c);
                            if e < best_error {
                                best_error = e;
                                best = c;
                            }
                        }
                    }
                }
            }
        } else {
            for d in 0..81 {
                let step = |k: u32| (d / 3i16.pow(k)) % 3 - 1;
                let c = [
                    start[0].saturating_add(step(0)),
                    start[1].saturating_add(step(1)),
                    start[2].saturating_add(step(2)),
                    start[3].saturating_add(step(3)),
                ];
                let e = error(c);
                if e < best_error && keeps_sign(&c) {
                    best_error = e;
                    best = c;
                }
            }
        }
    }
    (best, best_error)
}

/// A primitive's joints and weights as UNIGINE bone weights: per vertex the influences
/// with a weight that rounds to a nonzero u16, largest first.
fn skin_weights(joints: &[[u16; 4]], weights: &[[f32; 4]], stats: &mut Stats) -> Weights {
    let mut out = Weights::default();
    for (j, w) in joints.iter().zip(weights) {
        let mut these: Vec<(u16, u16)> = Vec::with_capacity(4);
        for (&b, &x) in j.iter().zip(w) {
            if x <= 0.0 {
                continue;
            }
            let q = quant::unorm16(x);
            if q == 0 {
                stats.dropped_influences += 1;
                continue;
            }
            match these.iter_mut().find(|(jb, _)| *jb == b) {
                Some(e) => e.1 = e.1.saturating_add(q),
                None => these.push((b, q)),
            }
        }
        these.sort_by_key(|e| std::cmp::Reverse(e.1));
        out.counts.push(these.len() as u8);
        out.entries.extend(these.iter().map(|&(b, q)| BoneWeight {
            bone: i16::try_from(b).unwrap_or(i16::MAX),
            weight: q,
        }));
    }
    out
}

/// The box of the positions and the sphere UNIGINE writes around it (centre: the box's,
/// radius: half its diagonal); the "empty" bounds UNIGINE writes without positions.
fn bounds_of(positions: &[[f32; 3]]) -> Bounds {
    let finite = positions.iter().filter(|p| p.iter().all(|x| x.is_finite()));
    let mut min = [f32::INFINITY; 3];
    let mut max = [f32::NEG_INFINITY; 3];
    for p in finite {
        grow(&mut min, &mut max, p, p);
    }
    box_bounds(min, max)
}

/// Widens the box `min`–`max` to hold `lo` and `hi`.
fn grow(min: &mut [f32; 3], max: &mut [f32; 3], lo: &[f32; 3], hi: &[f32; 3]) {
    for (m, x) in min.iter_mut().zip(lo) {
        *m = m.min(*x);
    }
    for (m, x) in max.iter_mut().zip(hi) {
        *m = m.max(*x);
    }
}

/// The bounds of the box `min`–`max` (the "empty" ones when it is inverted).
fn box_bounds(min: [f32; 3], max: [f32; 3]) -> Bounds {
    if min.iter().zip(&max).any(|(a, b)| a > b) {
        return Bounds {
            min: [1e9; 3],
            max: [-1e9; 3],
            center: [0.0; 3],
            radius: -1.0,
        };
    }
    let [a, b, c] = min;
    let [x, y, z] = max;
    let center = [(a + x) * 0.5, (b + y) * 0.5, (c + z) * 0.5];
    let radius = [x - a, y - b, z - c]
        .iter()
        .map(|d| f64::from(*d).powi(2))
        .sum::<f64>()
        .sqrt()
        * 0.5;
    Bounds {
        min,
        max,
        center,
        radius: radius as f32,
    }
}

/// The bounds around surfaces' bounds.
pub(super) fn union_bounds(all: impl Iterator<Item = Bounds>) -> Bounds {
    let mut min = [f32::INFINITY; 3];
    let mut max = [f32::NEG_INFINITY; 3];
    for b in all.filter(|b| b.radius >= 0.0) {
        grow(&mut min, &mut max, &b.min, &b.max);
    }
    box_bounds(min, max)
}
