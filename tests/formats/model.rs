//! The model layer, reading side: every version into one `Mesh`.

use crate::common;

use meshcodec::filemesh::model::{Lods, Mesh, Tangent};
use meshcodec::filemesh::raw::{Body, FileMesh, Version};

#[test]
fn every_file_reads_into_the_model_with_the_counts_of_info() {
    let mut n = 0;
    for path in common::fixtures_and_corpus_filemeshes() {
        let file = FileMesh::read(&std::fs::read(&path).unwrap()).unwrap();
        let info = file.info().unwrap();
        let mesh = Mesh::from_file(&file).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(mesh.vertices.len(), info.vertices, "{}", path.display());
        assert_eq!(mesh.faces.len(), info.faces, "{}", path.display());
        assert_eq!(mesh.skeleton.len(), info.bones, "{}", path.display());
        assert_eq!(
            mesh.skinning.is_some(),
            info.bones > 0,
            "{}",
            path.display()
        );
        let names: Vec<&str> = mesh.skeleton.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(names, info.bone_names, "{}", path.display());
        n += 1;
    }
    // Every fixture, and the corpus files when the corpus is there.
    let fixtures = common::fixture_files().len();
    if common::corpus().is_some() {
        assert!(n >= fixtures + 16, "{n}");
    } else {
        assert_eq!(n, fixtures);
    }
}

/// 1.00 positions are halved, 1.x V is flipped, done in f32, against the raw values.
#[test]
fn text_versions_are_scaled_and_flipped() {
    let Some(dir) = common::corpus() else { return };
    for path in common::corpus_filemeshes(&dir, &["1.00", "1.01"]) {
        let file = FileMesh::read(&std::fs::read(&path).unwrap()).unwrap();
        let Body::V1(raw) = &file.body else { panic!() };
        let mesh = Mesh::from_file(&file).unwrap();
        let scale = if file.version == Version::V1_00 {
            0.5f32
        } else {
            1.0
        };
        for (i, rv) in raw.faces.iter().flatten().enumerate() {
            let mv = &mesh.vertices[i];
            for k in 0..3 {
                assert_eq!(mv.position[k].to_bits(), (rv.position[k] * scale).to_bits());
            }
            assert_eq!(mv.uv[1].to_bits(), (1.0 - rv.uvw[1]).to_bits());
            assert_eq!(mv.uv[0].to_bits(), rv.uvw[0].to_bits());
            assert!(mv.tangent().is_none());
        }
        assert_eq!(mesh.faces.len(), raw.faces.len());
    }
}

/// Tangent bytes are unsigned with a bias of 127. On real files the tangent is nearly
/// perpendicular to the normal (mean |n·t| small); reading the bytes as i8 — a known bug
/// of other parsers — gives a large mean instead.
#[test]
fn tangents_decoded_with_bias_are_perpendicular_to_normals() {
    let Some(dir) = common::corpus() else { return };
    let (mut biased, mut as_i8, mut n) = (0f64, 0f64, 0usize);
    for path in common::corpus_filemeshes(&dir, common::BINARY_VERSIONS) {
        let file = FileMesh::read(&std::fs::read(&path).unwrap()).unwrap();
        let mesh = Mesh::from_file(&file).unwrap();
        for v in &mesh.vertices {
            let Some(t) = v.tangent() else { continue };
            let len = |a: [f32; 3]| a.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
            if (len(v.normal) - 1.0).abs() > 0.01 || (len(t.direction) - 1.0).abs() > 0.05 {
                continue;
            }
            let dot = |a: [f32; 3], b: [f32; 3]| {
                (0..3)
                    .map(|k| f64::from(a[k]) * f64::from(b[k]))
                    .sum::<f64>()
            };
            biased += dot(v.normal, t.direction).abs();
            let bytes = Tangent::to_bytes(Some(t));
            let wrong = [0, 1, 2].map(|k| f32::from(bytes[k] as i8) / 127.0);
            as_i8 += dot(v.normal, wrong).abs() / len(wrong).max(1e-6);
            n += 1;
        }
    }
    assert!(n > 1000, "{n} tangents");
    let (biased, as_i8) = (biased / n as f64, as_i8 / n as f64);
    eprintln!("mean |n·t| over {n} tangents: {biased:.4} (bias 127), {as_i8:.4} (as i8)");
    assert!(biased < 0.05, "{biased}");
    assert!(as_i8 > 0.3, "{as_i8}");
}

#[test]
fn tangent_bytes_round_trip_exactly() {
    for a in 0..=255u8 {
        for b in [0u8, 1, 126, 127, 128, 254, 255] {
            for bytes in [
                [a, b, 127, 254],
                [b, a, 0, 0],
                [127, b, a, 255],
                [a, a, a, a],
            ] {
                assert_eq!(Tangent::to_bytes(Tangent::from_bytes(bytes)), bytes);
            }
        }
    }
    assert_eq!(Tangent::from_bytes([0x7f, 0x7f, 0x7f, 0]), None);
    let t = Tangent::from_bytes([0x7f, 0x7f, 0x00, 0xfe]).unwrap();
    assert_eq!(t.direction, [0.0, 0.0, -1.0]);
    assert_eq!(t.sign, 1.0);
}

/// Envelopes resolve through subsets to global bones; every vertex's weights sum to 255.
#[test]
fn skinning_resolves_to_global_bones() {
    let mut skinned = 0;
    for path in common::fixtures_and_corpus_filemeshes() {
        let mesh = Mesh::read(&std::fs::read(&path).unwrap()).unwrap();
        let Some(skin) = &mesh.skinning else { continue };
        assert_eq!(skin.len(), mesh.vertices.len());
        for s in skin {
            let sum: u32 = s.influences.iter().map(|i| u32::from(i.weight)).sum();
            assert_eq!(sum, 255, "{}", path.display());
            assert!(s
                .influences
                .iter()
                .all(|i| usize::from(i.bone) < mesh.skeleton.len()));
        }
        skinned += 1;
    }
    assert!(skinned >= 4, "{skinned}");
}

/// FACS poses are the dequantized matrix values, `min + q × (max − min) / 65535`.
#[test]
fn facs_poses_are_dequantized_matrix_values() {
    use meshcodec::filemesh::raw::{Facs, MatrixData};
    for path in common::fixtures_and_corpus_filemeshes() {
        let file = FileMesh::read(&std::fs::read(&path).unwrap()).unwrap();
        let Body::V4(b) = &file.body else { continue };
        let Facs::Data(d) = &b.facs else { continue };
        let rig = Mesh::from_file(&file).unwrap().facs.unwrap();
        let q = &d.quantized_transforms;
        assert_eq!(rig.poses.len(), q.px.cols as usize);
        assert_eq!(
            rig.poses.len(),
            rig.control_names.len()
                + rig.two_pose_correctives.len()
                + rig.three_pose_correctives.len()
        );
        for (c, column) in rig.poses.iter().enumerate() {
            assert_eq!(column.len(), rig.face_bone_names.len());
            for (r, pose) in column.iter().enumerate() {
                let i = r * q.px.cols as usize + c;
                let want = match &q.px.data {
                    MatrixData::Raw(v) => v[i],
                    MatrixData::Quantized { min, max, values } => {
                        min + f32::from(values[i]) * ((max - min) / 65535.0)
                    }
                };
                assert_eq!(
                    pose.position[0].to_bits(),
                    want.to_bits(),
                    "{}",
                    path.display()
                );
            }
        }
    }
}

#[test]
fn lod0_is_every_face_for_an_empty_first_range() {
    let l = |o: &[u32]| Lods {
        offsets: o.to_vec(),
        ..Lods::default()
    };
    assert_eq!(l(&[]).lod0(10), 0..10);
    assert_eq!(l(&[0, 0]).lod0(10), 0..10);
    assert_eq!(l(&[0, 7]).lod0(10), 0..7);
    assert_eq!(l(&[0, 6, 10]).lod0(10), 0..6);
    assert_eq!(l(&[0, 60]).lod0(10), 0..10);
}

/// Draco (7.00 COREMESH v2) decodes into the model, vertex order kept.
#[test]
fn draco_core_meshes_read_into_the_model() {
    let Some(dir) = common::corpus() else { return };
    let mut n = 0;
    for path in common::corpus_filemeshes(&dir, &["7.00"]) {
        let mesh = Mesh::read(&std::fs::read(&path).unwrap()).unwrap();
        assert!(mesh
            .faces
            .iter()
            .flatten()
            .all(|&i| (i as usize) < mesh.vertices.len()));
        assert!(!mesh.vertices.is_empty());
        n += 1;
    }
    assert!(n >= 3);
}
