//! Property tests of the model: arbitrary meshes → every version → back are equal in
//! everything the version can hold.

use meshcodec::roblox::model::{
    BonePose, FacsRig, Influence, Lods, MatrixEncoding, Mesh, MeshBone, MeshVertex, Tangent,
    VertexSkin,
};
use meshcodec::roblox::Version;
use proptest::collection::vec;
use proptest::prelude::*;

fn finite() -> impl Strategy<Value = f32> {
    prop_oneof![
        -1000.0f32..1000.0,
        Just(0.0),
        Just(-0.0),
        Just(1.0e-7),
        Just(123456.79)
    ]
}

fn unit() -> impl Strategy<Value = f32> {
    -1.0f32..1.0
}

fn vertex() -> impl Strategy<Value = MeshVertex> {
    (
        [finite(), finite(), finite()],
        [unit(), unit(), unit()],
        [finite(), finite()],
        any::<[u8; 4]>(),
        prop_oneof![Just([255u8; 4]), any::<[u8; 4]>()],
    )
        .prop_map(|(position, normal, uv, t, color)| MeshVertex {
            position,
            normal,
            uv,
            tangent: Tangent::from_bytes(t),
            color,
        })
}

/// A mesh whose every vertex is used by a LOD 0 face (the writer lays out one subset
/// per LOD over the vertices its faces use).
fn mesh() -> impl Strategy<Value = Mesh> {
    (
        3usize..10,
        0usize..4,
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_flat_map(|(n, nbones, skinned, with_facs, with_hsr)| {
            let nbones = if skinned { nbones.max(1) } else { 0 };
            (
                vec(vertex(), n),
                vec([0..n as u32, 0..n as u32, 0..n as u32], 0..6),
                (any::<u16>(), any::<u8>(), 0u8..3),
                vec(
                    (
                        any::<[bool; 2]>(),
                        any::<f32>().prop_map(|x| x.abs() % 100.0),
                        [finite(), finite(), finite()],
                    ),
                    nbones,
                ),
                vec(vec((0..nbones.max(1) as u16, any::<u8>()), 4), n),
                if with_facs {
                    facs().prop_map(Some).boxed()
                } else {
                    Just(None).boxed()
                },
                Just(with_hsr),
            )
                .prop_map(
                    move |(
                        vertices,
                        extra,
                        (lod_type, hq, lod_style),
                        bones,
                        skin,
                        facs,
                        with_hsr,
                    )| {
                        // Cover every vertex, then add arbitrary faces.
                        let mut faces: Vec<[u32; 3]> =
                            (0..n as u32 - 2).map(|i| [i, i + 1, i + 2]).collect();
                        faces.extend(extra);
                        let nf = faces.len() as u32;
                        let offsets = match lod_style {
                            0 => vec![],
                            1 => vec![0, 0],
                            _ => vec![0, nf],
                        };
                        let skeleton = bones
                            .iter()
                            .enumerate()
                            .map(|(i, (p, culling, position))| MeshBone {
                                name: format!("Bone{i}"),
                                parent: i.checked_sub(1).filter(|_| p[0]).map(|x| x as u16),
                                lod_parent: (p[1] && i > 0).then_some(0),
                                culling: *culling,
                                rotation: [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
                                position: *position,
                            })
                            .collect();
                        let skinning = (nbones > 0).then(|| {
                            skin.iter()
                                .map(|s| {
                                    let mut vs = VertexSkin::default();
                                    for (slot, &(bone, weight)) in s.iter().enumerate() {
                                        vs.influences[slot] = if weight == 0 {
                                            Influence::default()
                                        } else {
                                            Influence { bone, weight }
                                        };
                                    }
                                    vs
                                })
                                .collect()
                        });
                        let hsr = with_hsr.then(|| (0..nf).map(|i| i % 3 == 1).collect());
                        Mesh {
                            vertices,
                            faces,
                            lods: Lods {
                                lod_type,
                                num_high_quality_lods: hq,
                                offsets,
                            },
                            skeleton,
                            skinning,
                            facs,
                            hsr_always_visible: hsr,
                        }
                    },
                )
        })
}

fn facs() -> impl Strategy<Value = FacsRig> {
    (1usize..3, 1usize..4, any::<[bool; 6]>()).prop_flat_map(|(bones, controls, raw)| {
        let cols = controls + 1;
        vec(
            vec(
                (
                    [finite(), finite(), finite()],
                    [finite(), finite(), finite()],
                ),
                bones,
            ),
            cols,
        )
        .prop_map(move |poses| FacsRig {
            face_bone_names: (0..bones).map(|i| format!("Face{i}")).collect(),
            control_names: (0..controls).map(|i| format!("c_{i}")).collect(),
            two_pose_correctives: vec![[0, (controls - 1) as u16]],
            three_pose_correctives: vec![],
            poses: poses
                .into_iter()
                .map(|c| {
                    c.into_iter()
                        .map(|(position, rotation)| BonePose { position, rotation })
                        .collect()
                })
                .collect(),
            // Only raw matrices compare exactly; quantized ones are checked separately.
            encodings: raw.map(|_| MatrixEncoding::Raw),
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn every_version_keeps_what_it_can_hold(mesh in mesh()) {
        for target in Version::ALL {
            let bytes = mesh.to_file(target).unwrap().write().unwrap();
            let back = Mesh::read(&bytes).unwrap();
            let lod0 = mesh.lods.lod0(mesh.faces.len());
            if target.is_text() {
                // One vertex per corner of the LOD 0 faces, 6 significant digits.
                prop_assert_eq!(back.faces.len(), lod0.len());
                continue;
            }
            // Binary: vertices kept (normals within Draco's 11-bit step in 7.00).
            prop_assert_eq!(back.vertices.len(), mesh.vertices.len());
            for (b, m) in back.vertices.iter().zip(&mesh.vertices) {
                prop_assert_eq!(b.position.map(f32::to_bits), m.position.map(f32::to_bits));
                prop_assert_eq!(b.uv.map(f32::to_bits), m.uv.map(f32::to_bits));
                prop_assert_eq!(b.tangent, m.tangent);
                prop_assert_eq!(b.color, m.color);
                if target == Version::V7_00 {
                    prop_assert!((0..3).all(|k| (b.normal[k] - m.normal[k]).abs() <= 2.0 / 2047.0));
                } else {
                    prop_assert_eq!(b.normal.map(f32::to_bits), m.normal.map(f32::to_bits));
                }
            }
            if target.has_lods() {
                prop_assert_eq!(&back.faces, &mesh.faces);
                let want = if mesh.lods.offsets.is_empty() { vec![0, mesh.faces.len() as u32] } else { mesh.lods.offsets.clone() };
                prop_assert_eq!(&back.lods.offsets, &want);
            } else {
                prop_assert_eq!(&back.faces[..], &mesh.faces[lod0.clone()]);
            }
            if target.has_skinning() {
                prop_assert_eq!(back.lods.lod_type, mesh.lods.lod_type);
                prop_assert_eq!(back.lods.num_high_quality_lods, mesh.lods.num_high_quality_lods);
                prop_assert_eq!(&back.skeleton, &mesh.skeleton);
                prop_assert_eq!(&back.skinning, &mesh.skinning);
            } else {
                prop_assert!(back.skeleton.is_empty() && back.skinning.is_none());
            }
            if target.has_facs() {
                prop_assert_eq!(&back.facs, &mesh.facs);
            }
            if target.is_chunked() {
                prop_assert_eq!(&back.hsr_always_visible, &mesh.hsr_always_visible);
            }
            // The loss report is empty exactly when nothing above was dropped.
            let losses = mesh.losses(target);
            let skin_lost = !target.has_skinning() && (!mesh.skeleton.is_empty() || mesh.lods.lod_type != 0 || mesh.lods.num_high_quality_lods != 0);
            let facs_lost = !target.has_facs() && mesh.facs.is_some();
            let hsr_lost = !target.is_chunked() && mesh.hsr_always_visible.is_some();
            let lods_lost = !target.has_lods() && lod0.len() < mesh.faces.len();
            let normals = target == Version::V7_00;
            prop_assert_eq!(losses.is_empty(), !(skin_lost || facs_lost || hsr_lost || lods_lost || normals), "{:?}", losses);
        }
    }

    /// Quantized FACS matrices: values come back within one quantization step.
    #[test]
    fn quantized_facs_within_one_step(rig in facs()) {
        let mut rig = rig;
        rig.encodings = [MatrixEncoding::Quantized; 6];
        let mesh = Mesh {
            vertices: vec![MeshVertex::default(); 3],
            faces: vec![[0, 1, 2]],
            facs: Some(rig.clone()),
            ..Mesh::default()
        };
        let back = Mesh::read(&mesh.to_file(Version::V5_00).unwrap().write().unwrap()).unwrap().facs.unwrap();
        for k in 0..6 {
            let get = |r: &FacsRig, c: usize, b: usize| {
                let p = r.poses[c][b];
                if k < 3 { p.position[k] } else { p.rotation[k - 3] }
            };
            let vals: Vec<f32> = (0..rig.poses.len()).flat_map(|c| (0..rig.face_bone_names.len()).map(move |b| (c, b))).map(|(c, b)| get(&rig, c, b)).collect();
            let (min, max) = vals.iter().fold((f32::MAX, f32::MIN), |(a, b), &v| (a.min(v), b.max(v)));
            let step = (max - min) / 65535.0;
            for c in 0..rig.poses.len() {
                for b in 0..rig.face_bone_names.len() {
                    let (x, y) = (get(&rig, c, b), get(&back, c, b));
                    prop_assert!((x - y).abs() <= step * 0.51 + max.abs().max(min.abs()) * 1e-6, "{x} vs {y}");
                }
            }
        }
    }
}
