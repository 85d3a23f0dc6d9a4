//! Import into UNIGINE: a scene to a `.mesh` (ms10–ms14) and `.anim` files
//! (`meshcodec::unigine::import`), through the library and the CLI.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use meshcodec::scene::{
    Animation, Channel, ChannelValues, ExportMesh, Joint, MorphTarget, Primitive, Scene, Skeleton,
    UpAxis, FRAME_RATE,
};
use meshcodec::unigine::import::import;
use meshcodec::unigine::scene::{anim_to_scene, mesh_to_scene};
use meshcodec::unigine::{MeshVersion, UnigineAnim, UnigineMesh};
use meshcodec::{ExportOptions, Limits, MeshFile};

/// Every UNIGINE fixture, and every UNIGINE file of the corpus when it is present.
fn unigine_files(ext: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = common::files_below(&common::fixture_dir("unigine"));
    if let Some(dir) = common::corpus() {
        files.extend(common::files_below(&dir.join("unigine")));
    }
    files.retain(|p| p.extension().is_some_and(|e| e == ext));
    files.sort();
    assert!(!files.is_empty(), "no .{ext} files");
    files
}

fn angle_deg(a: [f32; 3], b: [f32; 3]) -> f64 {
    let a = a.map(f64::from);
    let b = b.map(f64::from);
    let d: f64 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
    let la = a.iter().map(|x| x * x).sum::<f64>().sqrt();
    let lb = b.iter().map(|x| x * x).sum::<f64>().sqrt();
    (d / (la * lb)).clamp(-1.0, 1.0).acos().to_degrees()
}

fn close(a: &[f32], b: &[f32], tol: f64, what: &str) {
    assert_eq!(a.len(), b.len(), "{what}");
    for (x, y) in a.iter().zip(b) {
        let scale = 1.0 + f64::from(x.abs().max(y.abs()));
        assert!(
            (f64::from(*x) - f64::from(*y)).abs() <= tol * scale,
            "{what}: {a:?} vs {b:?}"
        );
    }
}

/// The primitives of the level-0 meshes.
fn prims(s: &Scene) -> Vec<&Primitive> {
    s.meshes
        .iter()
        .filter(|m| m.lod == 0)
        .flat_map(|m| &m.primitives)
        .collect()
}

/// Compares the geometry, skins, morph targets, skeleton and animations of two scenes
/// in the same axes; returns the largest normal angle (degrees).
fn compare(a: &Scene, b: &Scene, label: &str) -> f64 {
    assert_eq!(a.up, b.up, "{label}: up");
    let (pa, pb) = (prims(a), prims(b));
    assert_eq!(pa.len(), pb.len(), "{label}: primitives");
    let mut worst = 0.0f64;
    for (k, (x, y)) in pa.iter().zip(&pb).enumerate() {
        let l = format!("{label}: primitive {k}");
        assert_eq!(x.triangles.len(), y.triangles.len(), "{l}: triangles");
        assert_eq!(x.triangles, y.triangles, "{l}: triangles");
        assert_eq!(x.positions.len(), y.positions.len(), "{l}: vertices");
        for (p, q) in x.positions.iter().zip(&y.positions) {
            close(p, q, 1e-5, &format!("{l}: position"));
        }
        if let Some(nx) = &x.normals {
            let ny = y.normals.as_ref().expect("normals");
            for (p, q) in nx.iter().zip(ny) {
                worst = worst.max(angle_deg(*p, *q));
            }
        }
        assert_eq!(x.uvs, y.uvs, "{l}: UVs");
        assert_eq!(x.extra_uvs, y.extra_uvs, "{l}: second UV set");
        assert_eq!(x.colors, y.colors, "{l}: colours");
        assert_eq!(x.joints.is_some(), y.joints.is_some(), "{l}: skinned");
        if let (Some(jx), Some(wx), Some(jy), Some(wy)) =
            (&x.joints, &x.weights, &y.joints, &y.weights)
        {
            for v in 0..jx.len() {
                let set = |j: &[u16; 4], w: &[f32; 4]| {
                    let mut m = std::collections::BTreeMap::new();
                    for (j, w) in j.iter().zip(w) {
                        *m.entry(*j).or_insert(0.0f32) += *w;
                    }
                    m
                };
                let (sx, sy) = (set(&jx[v], &wx[v]), set(&jy[v], &wy[v]));
                for j in sx.keys().chain(sy.keys()) {
                    let (u, w) = (
                        sx.get(j).copied().unwrap_or(0.0),
                        sy.get(j).copied().unwrap_or(0.0),
                    );
                    assert!(
                        (u - w).abs() <= 1.0 / 255.0,
                        "{l}: vertex {v} joint {j}: {u} vs {w}"
                    );
                }
            }
        }
        assert_eq!(
            x.morph_targets.len(),
            y.morph_targets.len(),
            "{l}: morph targets"
        );
        for (t, u) in x.morph_targets.iter().zip(&y.morph_targets) {
            assert_eq!(t.name, u.name, "{l}: morph target name");
            for (d, e) in t.position_deltas.iter().zip(&u.position_deltas) {
                close(d, e, 1e-5, &format!("{l}: morph {:?} delta", t.name));
            }
        }
    }
    match (&a.skeleton, &b.skeleton) {
        (None, None) => {}
        (Some(s), Some(t)) => {
            assert_eq!(s.joints.len(), t.joints.len(), "{label}: joints");
            for (j, k) in s.joints.iter().zip(&t.joints) {
                let l = format!("{label}: joint {:?}", j.name);
                assert_eq!(j.name, k.name, "{l}");
                assert_eq!(j.parent, k.parent, "{l}: parent");
                close(&j.translation, &k.translation, 1e-5, &l);
                let d: f32 = j.rotation.iter().zip(&k.rotation).map(|(x, y)| x * y).sum();
                assert!(
                    d.abs() > 1.0 - 1e-6,
                    "{l}: rotation {:?} {:?}",
                    j.rotation,
                    k.rotation
                );
                close(&j.scale, &k.scale, 1e-5, &l);
                close(&j.inverse_bind_matrix, &k.inverse_bind_matrix, 1e-4, &l);
            }
        }
        (x, y) => panic!("{label}: skeleton {} vs {}", x.is_some(), y.is_some()),
    }
    compare_animations(a, b, label);
    worst
}

/// A joint's translation, rotation and scale at time `t` in `anim`: its channels, else
/// its own transform.
fn pose(j: usize, joint: &Joint, anim: &Animation, t: f32) -> ([f32; 3], [f32; 4], [f32; 3]) {
    let mut p = (joint.translation, joint.rotation, joint.scale);
    for c in anim.channels.iter().filter(|c| c.joint == j) {
        // Keys k and k + 1 mixed by s (the tests' keys are on frames or resampled
        // linearly; rotations here are mixed and normalised, close enough for them).
        let (k, s) = match c.times.iter().position(|&x| (x - t).abs() < 1e-5) {
            Some(k) => (k, 0.0),
            None => match c.times.iter().position(|&x| x > t) {
                None => (c.times.len() - 1, 0.0),
                Some(0) => (0, 0.0),
                Some(k) => (k - 1, (t - c.times[k - 1]) / (c.times[k] - c.times[k - 1])),
            },
        };
        fn mix<const N: usize>(v: &[[f32; N]], k: usize, s: f32) -> [f32; N] {
            let b = v.get(k + 1).unwrap_or(&v[k]);
            std::array::from_fn(|i| v[k][i] + (b[i] - v[k][i]) * s)
        }
        match &c.values {
            ChannelValues::Translation(v) => p.0 = mix(v, k, s),
            ChannelValues::Rotation(v) => {
                let q = mix(v, k, s);
                let l = q.iter().map(|x| x * x).sum::<f32>().sqrt();
                p.1 = q.map(|x| x / l);
            }
            ChannelValues::Scale(v) => p.2 = mix(v, k, s),
        }
    }
    p
}

fn compare_animations(a: &Scene, b: &Scene, label: &str) {
    assert_eq!(
        a.animations.len(),
        b.animations.len(),
        "{label}: animations"
    );
    let (Some(sa), Some(sb)) = (&a.skeleton, &b.skeleton) else {
        return;
    };
    for (x, y) in a.animations.iter().zip(&b.animations) {
        let end = |an: &Animation| {
            an.channels
                .iter()
                .filter_map(|c| c.times.last())
                .fold(0.0f32, |m, &t| m.max(t))
        };
        assert!(
            (end(x) - end(y)).abs() < 1e-5,
            "{label}: {:?} length",
            x.name
        );
        let frames = (end(x) * FRAME_RATE).round() as usize + 1;
        for f in 0..frames {
            let t = f as f32 / FRAME_RATE;
            for (j, (ja, jb)) in sa.joints.iter().zip(&sb.joints).enumerate() {
                let (p, q) = (pose(j, ja, x, t), pose(j, jb, y, t));
                let l = format!("{label}: {:?} frame {f} joint {j}", x.name);
                close(&p.0, &q.0, 1e-5, &l);
                let d: f32 = p.1.iter().zip(&q.1).map(|(u, v)| u * v).sum();
                assert!(d.abs() > 1.0 - 1e-6, "{l}: rotation {:?} {:?}", p.1, q.1);
                close(&p.2, &q.2, 1e-5, &l);
            }
        }
    }
}

/// Imports `scene` as `version`; checks that the mesh and its animation files read back
/// with the crate's reader and re-encode byte for byte; returns the mesh read back and
/// the scene of it (with the animation files' animations for ms13, ms14), in +Z up.
fn through(scene: &Scene, version: MeshVersion, label: &str) -> (UnigineMesh, Scene) {
    let imported = import(scene.clone(), version).unwrap_or_else(|e| panic!("{label}: {e}"));
    let bytes = imported
        .mesh
        .write()
        .unwrap_or_else(|e| panic!("{label}: write: {e}"));
    let back = UnigineMesh::read(&bytes).unwrap_or_else(|e| panic!("{label}: read: {e}"));
    assert_eq!(back.version, version, "{label}");
    // The counts taken while importing (the conversion's summary) are the written file's.
    let info = back.info(&Limits::default()).expect("info");
    let c = imported.counts;
    assert_eq!(
        (
            c.surfaces,
            c.vertices,
            c.faces,
            c.bones,
            c.embedded_animations
        ),
        (
            info.surfaces,
            info.vertices,
            info.faces,
            info.bones,
            info.animations.len()
        ),
        "{label}: counts"
    );
    assert_eq!(
        back.write().expect("rewrite"),
        bytes,
        "{label}: re-encoding"
    );
    let mut s = mesh_to_scene(&back, "back", &Limits::default()).expect("scene");
    if version.embeds_animations() {
        assert!(imported.animations.is_empty(), "{label}: embedded");
    } else {
        for (name, anim) in &imported.animations {
            let b = anim.write().expect("anim write");
            let a = UnigineAnim::read(&b).unwrap_or_else(|e| panic!("{label}: anim: {e}"));
            assert_eq!(
                a.write().expect("anim rewrite"),
                b,
                "{label}: anim re-encoding"
            );
            let mut t = anim_to_scene(&a, name).expect("anim scene");
            assert_eq!(
                t.skeleton.as_ref().map(|s| s.joints.len()),
                s.skeleton.as_ref().map(|s| s.joints.len()),
                "{label}: anim skeleton"
            );
            s.animations.append(&mut t.animations);
        }
    }
    (back, s)
}

#[test]
fn every_unigine_file_comes_back_through_the_scene() {
    let mut worst = 0.0f64;
    for path in unigine_files("mesh") {
        let label = path.display().to_string();
        let mesh = UnigineMesh::read(&std::fs::read(&path).expect("read")).expect("parse");
        let scene = mesh_to_scene(&mesh, "m", &Limits::default()).expect("scene");
        let (back, again) = through(&scene, mesh.version, &label);
        let w = compare(&scene, &again, &label);
        assert!(w < 0.1, "{label}: normals off by {w}°");
        worst = worst.max(w);
        // The triangle count the file states comes back.
        let (i, j) = (
            mesh.info(&Limits::default()).expect("info"),
            back.info(&Limits::default()).expect("info"),
        );
        assert_eq!(i.faces, j.faces, "{label}: faces");
        assert_eq!(i.bones, j.bones, "{label}: bones");
        assert_eq!(i.animations, j.animations, "{label}: embedded animations");
        // The fixtures' tangents are made up; the corpus files' are UNIGINE's own.
        if !path.starts_with(common::fixture_dir("unigine")) {
            check_frames(&mesh, &back, &label);
        }
    }
    eprintln!("largest normal error over the UNIGINE files: {worst:.5}°");
}

#[test]
fn every_anim_file_comes_back_as_an11() {
    for path in unigine_files("anim") {
        let label = path.display().to_string();
        let anim = UnigineAnim::read(&std::fs::read(&path).expect("read")).expect("parse");
        let scene = anim_to_scene(&anim, "clip").expect("scene");
        assert!(!scene.animations.is_empty(), "{label}: no animation");
        for v in [MeshVersion::Ms11, MeshVersion::Ms13] {
            let (_, again) = through(&scene, v, &label);
            compare(&scene, &again, &format!("{label} as {v}"));
        }
    }
}

/// `v` rotated by the stored tangent frame `c` (ms10: w derived).
fn frame_axis(c: [i16; 4], ms10: bool, v: [f64; 3]) -> [f64; 3] {
    let [x, y, z, w] = c.map(|x| f64::from(x) / 32767.0);
    let w = if ms10 {
        (1.0 - x * x - y * y - z * z).max(0.0).sqrt()
    } else {
        w
    };
    let l = (x * x + y * y + z * z + w * w).sqrt();
    let [x, y, z, w] = [x / l, y / l, z / l, w / l];
    // v + 2w (q × v) + 2 q × (q × v)
    let cr = |a: [f64; 3], b: [f64; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let t = cr([x, y, z], v);
    let u = cr([x, y, z], t);
    [0, 1, 2].map(|k| v[k] + 2.0 * w * t[k] + 2.0 * u[k])
}

/// The tangent frames written from the UVs agree with UNIGINE's own in its files: the
/// same handedness (the sign of w; ms10: of its byte) at every triangle corner but a
/// few, and tangents (the frame's +X) in the same direction on the whole.
fn check_frames(original: &UnigineMesh, back: &UnigineMesh, label: &str) {
    let limits = Limits::default();
    let (a, b) = (
        original.to_classic(&limits).expect("classic"),
        back.to_classic(&limits).expect("classic"),
    );
    let (mut corners, mut same_sign, mut tangent_dot) = (0usize, 0usize, 0.0f64);
    for (da, db) in a.data.iter().zip(&b.data) {
        if da.uv0.is_empty() || da.triangle_indices.len() != db.triangle_indices.len() {
            continue;
        }
        let (ta, tb) = (&da.targets[0].tangents, &db.targets[0].tangents);
        for (&ia, &ib) in da.triangle_indices.iter().zip(&db.triangle_indices) {
            let (fa, fb) = (ta[ia as usize], tb[ib as usize]);
            corners += 1;
            if (fa[3] < 0) == (fb[3] < 0) {
                same_sign += 1;
            }
            let x = [1.0, 0.0, 0.0];
            let ms10 = original.version == MeshVersion::Ms10;
            let (u, v) = (frame_axis(fa, ms10, x), frame_axis(fb, ms10, x));
            tangent_dot += u.iter().zip(&v).map(|(p, q)| p * q).sum::<f64>();
        }
    }
    if corners > 0 {
        let share = same_sign as f64 / corners as f64;
        let mean = tangent_dot / corners as f64;
        eprintln!("{label}: handedness agrees at {share:.4} of {corners} corners, mean tangent dot {mean:.3}");
        assert!(share > 0.98, "{label}: handedness agrees at {share}");
        assert!(mean > 0.9, "{label}: tangents {mean}");
    }
}

/// A tiny pseudo-random generator (no dependency, same numbers every run).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }
}

#[test]
fn tangent_frames_give_the_normals_back() {
    let mut rng = Lcg(7);
    let mut normals: Vec<[f32; 3]> = vec![
        [0.0, 0.0, 1.0],
        [0.0, 0.0, -1.0],
        [1.0, 0.0, 0.0],
        [-1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, -1.0, 0.0],
        [0.0, 0.001, -1.0],
        [0.01, 0.0, -1.0],
    ];
    while normals.len() < 3000 {
        let v = [rng.next(), rng.next(), rng.next()];
        let l = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        if l > 0.05 && l <= 1.0 {
            normals.push(v.map(|x| x / l));
        }
    }
    // One triangle per normal (the positions do not matter: normals are given).
    let n = normals.len() - normals.len() % 3;
    normals.truncate(n);
    let positions: Vec<[f32; 3]> = (0..n).map(|i| [i as f32, (i % 7) as f32, 0.0]).collect();
    let uvs: Vec<[f32; 2]> = (0..n).map(|_| [rng.next(), rng.next()]).collect();
    for with_uvs in [false, true] {
        let p = Primitive {
            name: "n".into(),
            positions: positions.clone(),
            normals: Some(normals.clone()),
            uvs: with_uvs.then(|| uvs.clone()),
            triangles: (0..n as u32 / 3)
                .map(|t| [3 * t, 3 * t + 1, 3 * t + 2])
                .collect(),
            ..Primitive::default()
        };
        let scene = Scene {
            meshes: vec![ExportMesh {
                name: "n".into(),
                primitives: vec![p],
                lod: 0,
            }],
            up: UpAxis::Z,
            ..Scene::default()
        };
        for v in MeshVersion::ALL {
            let (_, back) = through(&scene, v, &format!("{v}"));
            let got = back.meshes[0].primitives[0]
                .normals
                .clone()
                .expect("normals");
            let worst = normals
                .iter()
                .zip(&got)
                .map(|(a, b)| angle_deg(*a, *b))
                .fold(0.0, f64::max);
            eprintln!("{v}, UVs {with_uvs}: largest normal error {worst:.5}° of {n}");
            assert!(worst < 0.1, "{v}: {worst}°");
        }
    }
}

/// A skinned, morphed, animated scene with two UV sets and colours on the 8-bit grid,
/// +Y up as glTF's: everything a UNIGINE mesh holds.
fn rig() -> Scene {
    let joints = vec![
        Joint {
            name: "root".into(),
            translation: [0.0, 0.5, 0.0],
            ..Joint::default()
        },
        Joint {
            name: "arm".into(),
            parent: Some(0),
            translation: [1.0, 0.0, 0.0],
            rotation: [0.0, 0.0, 0.382_683_43, 0.923_879_5],
            scale: [1.0, 2.0, 1.0],
            ..Joint::default()
        },
        // A parent after its child.
        Joint {
            name: "hand".into(),
            parent: Some(3),
            translation: [0.0, 1.0, 0.0],
            ..Joint::default()
        },
        Joint {
            name: "wrist".into(),
            parent: Some(1),
            translation: [0.5, 0.0, 0.25],
            ..Joint::default()
        },
    ];
    // Inverse bind matrices from the transforms (as the glTF writer's source would).
    let mut scene = Scene {
        skeleton: Some(Skeleton { joints }),
        up: UpAxis::Y,
        ..Scene::default()
    };
    fill_inverse_binds(&mut scene);
    let quad = |z: f32, name: &str, skinned: bool| Primitive {
        name: name.into(),
        material: None,
        positions: vec![[0.0, 0.0, z], [1.0, 0.0, z], [1.0, 1.0, z], [0.0, 1.0, z]],
        normals: Some(vec![[0.0, 0.0, 1.0]; 4]),
        uvs: Some(vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]),
        extra_uvs: vec![vec![[0.5, 0.5], [0.25, 0.5], [0.25, 0.25], [0.5, 0.25]]],
        colors: Some(vec![[1.0, 0.0, 51.0 / 255.0, 1.0]; 4]),
        triangles: vec![[0, 1, 2], [0, 2, 3]],
        joints: skinned.then(|| vec![[0, 1, 0, 0], [1, 3, 0, 0], [2, 0, 0, 0], [3, 2, 1, 0]]),
        weights: skinned.then(|| {
            vec![
                [1.0, 0.0, 0.0, 0.0],
                [0.75, 0.25, 0.0, 0.0],
                [1.0, 0.0, 0.0, 0.0],
                [0.5, 0.25, 0.25, 0.0],
            ]
        }),
        morph_targets: vec![MorphTarget {
            name: "bulge".into(),
            position_deltas: vec![
                [0.0, 0.0, 0.5],
                [0.0, 0.0, 0.0],
                [0.25, 0.0, 0.0],
                [0.0, -0.125, 0.0],
            ],
            default_weight: 0.0,
        }],
    };
    scene.meshes = vec![ExportMesh {
        name: "rig".into(),
        primitives: vec![quad(0.0, "front", true), quad(1.0, "back", true)],
        lod: 0,
    }];
    let times: Vec<f32> = (0..5).map(|f| f as f32 / FRAME_RATE).collect();
    scene.animations = vec![
        Animation {
            name: "wave".into(),
            channels: vec![
                Channel {
                    joint: 1,
                    times: times.clone(),
                    values: ChannelValues::Rotation(
                        (0..5)
                            .map(|f| {
                                let a = f as f32 * 0.2;
                                [0.0, 0.0, (a / 2.0).sin(), (a / 2.0).cos()]
                            })
                            .collect(),
                    ),
                },
                Channel {
                    joint: 0,
                    times: times.clone(),
                    values: ChannelValues::Translation(
                        (0..5).map(|f| [f as f32 * 0.25, 0.5, 0.0]).collect(),
                    ),
                },
            ],
        },
        Animation {
            name: "grow".into(),
            channels: vec![Channel {
                joint: 2,
                times: vec![0.0, 2.0 / FRAME_RATE],
                values: ChannelValues::Scale(vec![[1.0; 3], [2.0, 1.0, 1.0]]),
            }],
        },
    ];
    scene
}

/// A 4×4 matrix, row-major, in f64.
type M = [[f64; 4]; 4];

fn mat_mul(a: &M, b: &M) -> M {
    let mut o = [[0.0; 4]; 4];
    for (r, row) in o.iter_mut().enumerate() {
        for (c, x) in row.iter_mut().enumerate() {
            *x = (0..4).map(|k| a[r][k] * b[k][c]).sum();
        }
    }
    o
}

/// The local matrix `T × R × S` and its inverse `S⁻¹ × Rᵀ × T⁻¹`.
fn local_and_inverse(j: &Joint) -> (M, M) {
    let [x, y, z, w] = j.rotation.map(f64::from);
    let r = [
        [
            1.0 - 2.0 * (y * y + z * z),
            2.0 * (x * y - z * w),
            2.0 * (x * z + y * w),
        ],
        [
            2.0 * (x * y + z * w),
            1.0 - 2.0 * (x * x + z * z),
            2.0 * (y * z - x * w),
        ],
        [
            2.0 * (x * z - y * w),
            2.0 * (y * z + x * w),
            1.0 - 2.0 * (x * x + y * y),
        ],
    ];
    let t = j.translation.map(f64::from);
    let s = j.scale.map(f64::from);
    let mut m = [
        [0.0, 0.0, 0.0, 0.0],
        [0.0; 4],
        [0.0; 4],
        [0.0, 0.0, 0.0, 1.0],
    ];
    let mut inv_rs = [[0.0; 4]; 4];
    inv_rs[3][3] = 1.0;
    for row in 0..3 {
        for col in 0..3 {
            m[row][col] = r[row][col] * s[col];
            inv_rs[row][col] = r[col][row] / s[row];
        }
        m[row][3] = t[row];
    }
    let mut inv_t = [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ];
    for row in 0..3 {
        inv_t[row][3] = -t[row];
    }
    (m, mat_mul(&inv_rs, &inv_t))
}

/// Sets every joint's inverse bind matrix to the inverse of its world matrix, computed
/// here independently of the crate.
fn fill_inverse_binds(scene: &mut Scene) {
    let joints = &mut scene.skeleton.as_mut().expect("skeleton").joints;
    let n = joints.len();
    let inverses: Vec<M> = (0..n)
        .map(|i| {
            // world⁻¹ = local⁻¹ × parent world⁻¹, walking up the parents.
            let mut inv = local_and_inverse(&joints[i]).1;
            let mut at = joints[i].parent;
            while let Some(p) = at {
                inv = mat_mul(&inv, &local_and_inverse(&joints[p]).1);
                at = joints[p].parent;
            }
            inv
        })
        .collect();
    for (j, inv) in joints.iter_mut().zip(inverses) {
        for (k, x) in j.inverse_bind_matrix.iter_mut().enumerate() {
            *x = inv[k % 4][k / 4] as f32;
        }
    }
}

#[test]
fn a_rig_writes_every_version_and_reads_back() {
    let source = rig();
    let mut z_up = source.clone();
    // The scene as UNIGINE holds it: +Z up (the reader's scene), compared after turning
    // the read-back to +Y up.
    for v in MeshVersion::ALL {
        let label = format!("rig as {v}");
        let imported = import(source.clone(), v).expect("import");
        assert!(imported.losses.is_empty(), "{label}: {:?}", imported.losses);
        assert_eq!(
            imported.animations.len(),
            if v.embeds_animations() { 0 } else { 2 },
            "{label}: .anim files"
        );
        let (mesh, mut back) = through(&source, v, &label);
        assert_eq!(mesh.info(&Limits::default()).expect("info").bones, 4);
        back.to_y_up();
        let w = compare(&source, &back, &label);
        assert!(w < 0.1, "{label}: normals {w}°");
    }
    // A +Z-up scene is kept as stored.
    z_up.up = UpAxis::Z;
    fill_inverse_binds(&mut z_up);
    let (_, back) = through(&z_up, MeshVersion::Ms14, "rig +Z up");
    compare(&z_up, &back, "rig +Z up");
}

#[test]
fn what_a_unigine_mesh_cannot_hold_is_named() {
    let mut s = rig();
    let p = &mut s.meshes[0].primitives[0];
    p.extra_uvs.push(vec![[0.0; 2]; 4]);
    p.colors = Some(vec![[0.5; 4]; 4]);
    p.morph_targets[0].default_weight = 0.5;
    s.meshes[0].primitives[1].joints = None;
    s.meshes[0].primitives[1].weights = None;
    s.animations[1].channels[0].times = vec![0.0, 0.05];
    s.meshes.push(ExportMesh {
        name: "rig LOD1".into(),
        primitives: vec![],
        lod: 1,
    });
    let losses = import(s.clone(), MeshVersion::Ms13).expect("import").losses;
    let text: Vec<String> = losses.iter().map(ToString::to_string).collect();
    for word in [
        "UV set",
        "colour",
        "default weights",
        "bound to bone 0",
        "resampled",
        "level of detail",
    ] {
        assert!(
            text.iter().any(|t| t.contains(word)),
            "{word:?} not in {text:#?}"
        );
    }
    // Through the front door too (the scene's own report comes first).
    let c = meshcodec::import(
        &s,
        &meshcodec::Target::UnigineMesh(MeshVersion::Ms13),
        &Default::default(),
    )
    .expect("import");
    assert!(c
        .losses
        .iter()
        .any(|l| l.to_string().contains(".anim files")));
    let (c, extra) = meshcodec::import_scene(
        rig(),
        &meshcodec::Target::UnigineMesh(MeshVersion::Ms14),
        &Default::default(),
    )
    .expect("import");
    assert!(c.losses.is_empty(), "{:?}", c.losses);
    let suffixes: Vec<&str> = extra.iter().map(|e| e.suffix.as_str()).collect();
    assert_eq!(suffixes, ["_wave.anim", "_grow.anim"]);
}

#[test]
fn bad_scenes_are_errors() {
    let mut s = rig();
    s.meshes[0].primitives[0].triangles.push([0, 1, 99]);
    assert!(import(s.clone(), MeshVersion::Ms13).is_err());
    let mut s = rig();
    s.animations[0].channels[0].joint = 40;
    assert!(import(s.clone(), MeshVersion::Ms11).is_err());
    let joints = (0..(1usize << 15) + 1)
        .map(|i| Joint {
            name: format!("j{i}"),
            ..Joint::default()
        })
        .collect();
    let s = Scene {
        skeleton: Some(Skeleton { joints }),
        ..Scene::default()
    };
    let e = import(s.clone(), MeshVersion::Ms13).expect_err("too many bones");
    assert!(e.to_string().contains("bones"), "{e}");
    // An animation of four months at 30 frames a second is refused, not sampled.
    let mut s = rig();
    s.animations[1].channels[0].times[1] = 1.0e7;
    let e = import(s.clone(), MeshVersion::Ms13).expect_err("too long");
    assert!(e.to_string().contains("keys"), "{e}");
    // An empty scene is an empty mesh in every version.
    for v in MeshVersion::ALL {
        let (mesh, back) = through(&Scene::default(), v, &format!("empty {v}"));
        assert_eq!(mesh.info(&Limits::default()).expect("info").surfaces, 0);
        assert!(prims(&back).is_empty());
    }
}

#[test]
fn filemesh_scenes_stand_up_in_unigine_and_come_back() {
    let limits = Limits::default();
    for name in ["v2.00-36b.mesh", "v4.00-bones.mesh", "v5.00-facs.mesh"] {
        let path = common::fixtures().join(name);
        let file = meshcodec::open(&std::fs::read(&path).expect("read")).expect("open");
        let source = file
            .to_scene(&ExportOptions::default(), &limits)
            .expect("scene");
        assert_eq!(source.up, UpAxis::Y);
        let imported = import(source.clone(), MeshVersion::Ms13).expect("import");
        let back = imported
            .mesh
            .to_scene(&ExportOptions::default(), &limits)
            .expect("scene");
        assert_eq!(back.up, UpAxis::Y);
        let w = compare(&source, &back, name);
        assert!(w < 0.1, "{name}: {w}°");
        // Upright in UNIGINE: the scene's +Y is the mesh's +Z.
        let z = |s: &Scene| {
            let ps = prims(s);
            let ys = ps.iter().flat_map(|p| p.positions.iter().map(|v| v[1]));
            ys.fold(f32::NEG_INFINITY, f32::max)
        };
        let raw = mesh_to_scene(&imported.mesh, "raw", &limits).expect("raw");
        let top = prims(&raw)
            .iter()
            .flat_map(|p| p.positions.iter().map(|v| v[2]))
            .fold(f32::NEG_INFINITY, f32::max);
        assert_eq!(top, z(&source), "{name}: top of the mesh is +Z");
        // And through glTF text: the export of the UNIGINE mesh equals the source's.
        let a = meshcodec::scene::gltf::to_gltf(&source).expect("gltf");
        let b = meshcodec::scene::gltf::to_gltf(&back).expect("gltf");
        let sa = meshcodec::scene::import::read_gltf(a.as_bytes(), None).expect("read");
        let sb = meshcodec::scene::import::read_gltf(b.as_bytes(), None).expect("read");
        for (x, y) in prims(&sa).iter().zip(prims(&sb)) {
            assert_eq!(x.triangles, y.triangles, "{name}: glTF triangles");
            for (p, q) in x.positions.iter().zip(&y.positions) {
                close(p, q, 1e-6, &format!("{name}: glTF position"));
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// The CLI

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_meshcodec"))
}

fn read_mesh(path: &Path) -> UnigineMesh {
    UnigineMesh::read(&std::fs::read(path).expect("output")).expect("parse")
}

#[test]
fn cli_imports_gltf_into_unigine() {
    let dir = tempfile::tempdir().unwrap();
    // A glTF of the rig, written by the crate's exporter.
    let gltf = dir.path().join("rig.gltf");
    std::fs::write(
        &gltf,
        meshcodec::scene::gltf::to_gltf(&rig()).expect("gltf"),
    )
    .expect("write");
    let read =
        meshcodec::scene::import::read_gltf(&std::fs::read(&gltf).expect("read"), gltf.parent())
            .expect("read");
    let out = dir.path().join("rig.mesh");
    let anims = [
        dir.path().join("rig_wave.anim"),
        dir.path().join("rig_grow.anim"),
    ];
    let run = |lossy: bool| {
        let mut c = bin();
        c.arg("import")
            .arg(&gltf)
            .arg(&out)
            .args(["--to", "unigine:ms13"]);
        if lossy {
            c.arg("--allow-lossy");
        }
        c.output().expect("run")
    };
    let first = run(false);
    let stderr = String::from_utf8_lossy(&first.stderr).to_string();
    if read.animations.len() == 2 && read.skeleton.is_some() {
        // The glTF reader carries the rig: nothing is lost.
        assert!(first.status.success(), "{stderr}");
        for a in &anims {
            let anim = UnigineAnim::read(&std::fs::read(a).expect("anim")).expect("parse");
            assert_eq!(anim.version(), "an11");
            assert!(stderr.contains(&a.display().to_string()), "{stderr}");
        }
    } else {
        // The glTF reader leaves the rig out: refused, naming it.
        assert!(!first.status.success(), "{stderr}");
        assert!(stderr.contains("allow-lossy"), "{stderr}");
        let again = run(true);
        assert!(
            again.status.success(),
            "{}",
            String::from_utf8_lossy(&again.stderr)
        );
    }
    let mesh = read_mesh(&out);
    assert_eq!(mesh.version, MeshVersion::Ms13);
    let info = mesh.info(&Limits::default()).expect("info");
    assert_eq!((info.surfaces, info.faces), (2, 4));
    assert!(String::from_utf8_lossy(&run(true).stderr).contains("UNIGINE mesh ms13"));
}

#[test]
fn cli_refuses_three_uv_sets_without_allow_lossy() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = rig();
    s.meshes[0].primitives[0].extra_uvs.push(vec![[0.0; 2]; 4]);
    let gltf = dir.path().join("uv3.gltf");
    std::fs::write(&gltf, meshcodec::scene::gltf::to_gltf(&s).expect("gltf")).expect("write");
    let out = dir.path().join("uv3.mesh");
    let o = bin()
        .arg("import")
        .arg(&gltf)
        .arg(&out)
        .args(["--to", "unigine:ms14"])
        .output()
        .expect("run");
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{stderr}");
    assert!(stderr.contains("UV"), "{stderr}");
    assert!(!out.exists());
}

#[test]
fn cli_converts_a_filemesh_to_ms14() {
    let dir = tempfile::tempdir().unwrap();
    let input = common::fixtures().join("v4.00-bones.mesh");
    let out = dir.path().join("fm.mesh");
    let o = bin()
        .arg("convert")
        .arg(&input)
        .arg(&out)
        .args(["--to", "unigine:ms14", "--allow-lossy"])
        .output()
        .expect("run");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mesh = read_mesh(&out);
    assert_eq!(mesh.version, MeshVersion::Ms14);
    let source = meshcodec::open(&std::fs::read(&input).expect("read"))
        .expect("open")
        .to_scene(&ExportOptions::default(), &Limits::default())
        .expect("scene");
    let tris: usize = prims(&source).iter().map(|p| p.triangles.len()).sum();
    assert_eq!(mesh.info(&Limits::default()).expect("info").faces, tris);
    let bones = source.skeleton.as_ref().map_or(0, |s| s.joints.len());
    assert_eq!(mesh.info(&Limits::default()).expect("info").bones, bones);
}

#[test]
fn a_bind_pose_other_than_the_rest_pose_is_kept_for_skinning() {
    let mut s = rig();
    // Joint 0 bound half a unit further along x than it rests (glTF allows it).
    let joints = &mut s.skeleton.as_mut().expect("skeleton").joints;
    joints[0].inverse_bind_matrix[12] -= 0.5;
    let want: Vec<[f32; 16]> = joints.iter().map(|j| j.inverse_bind_matrix).collect();
    let imported = import(s.clone(), MeshVersion::Ms13).expect("import");
    let text: Vec<String> = imported.losses.iter().map(ToString::to_string).collect();
    assert!(
        text.iter().any(|t| t.contains("rest pose of 1 joint")),
        "{text:?}"
    );
    let mut back = mesh_to_scene(&imported.mesh, "b", &Limits::default()).expect("scene");
    back.to_y_up();
    // Skinning sees the same inverse bind matrices (the children's too: their bind pose
    // is local to the moved parent).
    for (j, w) in back.skeleton.expect("skeleton").joints.iter().zip(&want) {
        close(
            &j.inverse_bind_matrix,
            w,
            1e-5,
            &format!("joint {:?}", j.name),
        );
    }
}
