//! FACS evaluation (`FacsRig::evaluate`): hand-computed values on a small rig, the
//! Euler XYZ convention of `CFrame.fromEulerAnglesXYZ`, errors, and the real rigs of
//! the corpus.

use crate::common;

use meshcodec::filemesh::model::facs_eval::{
    euler_xyz_degrees_to_matrix, facs_abbreviation, facs_property_name, FaceBoneTransform,
    FACS_CONTROLS,
};
use meshcodec::filemesh::model::{BonePose, FacsRig, Mesh};
use meshcodec::ErrorKind;

type M3 = [[f64; 3]; 3];

const IDENTITY: M3 = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

fn pose(position: [f32; 3], rotation: [f32; 3]) -> BonePose {
    BonePose { position, rotation }
}

/// Two face bones (`Jaw`, `Lip`), three controls (`c_JD`, `c_FN`, `l_EC`), one two-pose
/// corrective `c_JD_c_FN` (column 3) and one three-pose corrective `c_JD_c_FN_l_EC`
/// (column 4). All values are dyadic, so every weighted sum below is exact in f32.
///
/// ```text
/// column            Jaw position     Jaw rotation   Lip position     Lip rotation
/// 0 c_JD            (0, -2, 0.5)     (10, 0, 0)     (0, -1, 0)       (0, 0, 0)
/// 1 c_FN            (1, 0, 0)        (0, 4, 0)      (0, 0, 3)        (2, 0, 0)
/// 2 l_EC            (0, 0, 0)        (0, 0, 8)      (0.25, 0, 0)     (0, 0, 0)
/// 3 c_JD_c_FN       (0, 0, 4)        (0, 0, 16)     (8, 0, 0)        (0, 0, 0)
/// 4 c_JD_c_FN_l_EC  (0, 32, 0)       (64, 0, 0)     (0, 0, 0)        (0, 0, 40)
/// ```
fn rig() -> FacsRig {
    FacsRig {
        face_bone_names: vec!["Jaw".into(), "Lip".into()],
        control_names: vec!["c_JD".into(), "c_FN".into(), "l_EC".into()],
        two_pose_correctives: vec![[0, 1]],
        three_pose_correctives: vec![[0, 1, 2]],
        poses: vec![
            vec![
                pose([0.0, -2.0, 0.5], [10.0, 0.0, 0.0]),
                pose([0.0, -1.0, 0.0], [0.0, 0.0, 0.0]),
            ],
            vec![
                pose([1.0, 0.0, 0.0], [0.0, 4.0, 0.0]),
                pose([0.0, 0.0, 3.0], [2.0, 0.0, 0.0]),
            ],
            vec![
                pose([0.0, 0.0, 0.0], [0.0, 0.0, 8.0]),
                pose([0.25, 0.0, 0.0], [0.0, 0.0, 0.0]),
            ],
            vec![
                pose([0.0, 0.0, 4.0], [0.0, 0.0, 16.0]),
                pose([8.0, 0.0, 0.0], [0.0, 0.0, 0.0]),
            ],
            vec![
                pose([0.0, 32.0, 0.0], [64.0, 0.0, 0.0]),
                pose([0.0, 0.0, 0.0], [0.0, 0.0, 40.0]),
            ],
        ],
        ..Default::default()
    }
}

fn assert_close(actual: &M3, expected: &M3, tol: f64) {
    for (ra, re) in actual.iter().zip(expected) {
        for (a, e) in ra.iter().zip(re) {
            assert!(
                (a - e).abs() <= tol,
                "matrix {actual:?}\n  expected {expected:?}"
            );
        }
    }
}

fn mul(a: &M3, b: &M3) -> M3 {
    let mut out = [[0.0; 3]; 3];
    for (i, row) in out.iter_mut().enumerate() {
        for (j, cell) in row.iter_mut().enumerate() {
            *cell = (0..3).map(|k| a[i][k] * b[k][j]).sum();
        }
    }
    out
}

fn rx(deg: f64) -> M3 {
    let (s, c) = deg.to_radians().sin_cos();
    [[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]]
}

fn ry(deg: f64) -> M3 {
    let (s, c) = deg.to_radians().sin_cos();
    [[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]]
}

fn rz(deg: f64) -> M3 {
    let (s, c) = deg.to_radians().sin_cos();
    [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]
}

fn bone<'a>(out: &'a [FaceBoneTransform], name: &str) -> &'a FaceBoneTransform {
    out.iter()
        .find(|b| b.name == name)
        .expect("bone in the result")
}

#[test]
fn single_control_at_half_weight() {
    let out = rig().evaluate(&[("c_JD", 0.5)]).unwrap();
    assert_eq!(out.len(), 2);
    let jaw = bone(&out, "Jaw");
    // 0.5 · (0, -2, 0.5) = (0, -1, 0.25); 0.5 · (10, 0, 0) = (5, 0, 0).
    // Correctives: c_JD·c_FN = 0.5·0 = 0, c_JD·c_FN·l_EC = 0.
    assert_eq!(jaw.position, [0.0, -1.0, 0.25]);
    assert_eq!(jaw.rotation, [5.0, 0.0, 0.0]);
    // fromEulerAnglesXYZ(5°, 0, 0) = Rx(5°).
    let (s, c) = 5f64.to_radians().sin_cos();
    assert_close(
        &jaw.matrix,
        &[[1.0, 0.0, 0.0], [0.0, c, -s], [0.0, s, c]],
        1e-15,
    );
    let lip = bone(&out, "Lip");
    // 0.5 · (0, -1, 0) = (0, -0.5, 0); no rotation.
    assert_eq!(lip.position, [0.0, -0.5, 0.0]);
    assert_eq!(lip.rotation, [0.0, 0.0, 0.0]);
    assert_eq!(lip.matrix, IDENTITY);

    // The FaceControls property name means the same control.
    assert_eq!(rig().evaluate(&[("JawDrop", 0.5)]).unwrap(), out);
}

#[test]
fn two_controls_add() {
    // c_JD = 0.5, l_EC = 0.25: no corrective covers this pair (c_JD·c_FN = 0 and the
    // three-pose needs c_FN too), so the two columns just add.
    let out = rig()
        .evaluate(&[("c_JD", 0.5), ("LeftEyeClosed", 0.25)])
        .unwrap();
    let jaw = bone(&out, "Jaw");
    // position 0.5·(0, -2, 0.5) + 0.25·(0, 0, 0) = (0, -1, 0.25)
    // rotation 0.5·(10, 0, 0) + 0.25·(0, 0, 8) = (5, 0, 2)
    assert_eq!(jaw.position, [0.0, -1.0, 0.25]);
    assert_eq!(jaw.rotation, [5.0, 0.0, 2.0]);
    // Rotation = Rx(5°)·Ry(0)·Rz(2°).
    assert_close(&jaw.matrix, &mul(&rx(5.0), &rz(2.0)), 1e-15);
    let lip = bone(&out, "Lip");
    // 0.5·(0, -1, 0) + 0.25·(0.25, 0, 0) = (0.0625, -0.5, 0)
    assert_eq!(lip.position, [0.0625, -0.5, 0.0]);
    assert_eq!(lip.rotation, [0.0, 0.0, 0.0]);
}

#[test]
fn two_pose_corrective_weighs_the_product() {
    let r = rig();
    // Column weights: c_JD 0.5, c_FN 0.25, l_EC 0, c_JD_c_FN 0.5·0.25 = 0.125,
    // c_JD_c_FN_l_EC 0.5·0.25·0 = 0.
    assert_eq!(
        r.column_weights(&[0.5, 0.25, 0.0]).unwrap(),
        vec![0.5, 0.25, 0.0, 0.125, 0.0]
    );
    let out = r.evaluate(&[("c_JD", 0.5), ("c_FN", 0.25)]).unwrap();
    let jaw = bone(&out, "Jaw");
    // position 0.5·(0, -2, 0.5) + 0.25·(1, 0, 0) + 0.125·(0, 0, 4)
    //        = (0, -1, 0.25) + (0.25, 0, 0) + (0, 0, 0.5) = (0.25, -1, 0.75)
    // rotation 0.5·(10, 0, 0) + 0.25·(0, 4, 0) + 0.125·(0, 0, 16) = (5, 1, 2)
    assert_eq!(jaw.position, [0.25, -1.0, 0.75]);
    assert_eq!(jaw.rotation, [5.0, 1.0, 2.0]);
    assert_close(&jaw.matrix, &mul(&mul(&rx(5.0), &ry(1.0)), &rz(2.0)), 1e-15);
    let lip = bone(&out, "Lip");
    // position 0.5·(0, -1, 0) + 0.25·(0, 0, 3) + 0.125·(8, 0, 0) = (1, -0.5, 0.75)
    // rotation 0.25·(2, 0, 0) = (0.5, 0, 0)
    assert_eq!(lip.position, [1.0, -0.5, 0.75]);
    assert_eq!(lip.rotation, [0.5, 0.0, 0.0]);
}

#[test]
fn three_pose_corrective_weighs_the_product() {
    let r = rig();
    // All three at 0.5: c_JD_c_FN = 0.25, c_JD_c_FN_l_EC = 0.125.
    assert_eq!(
        r.column_weights(&[0.5, 0.5, 0.5]).unwrap(),
        vec![0.5, 0.5, 0.5, 0.25, 0.125]
    );

    let out = r
        .evaluate(&[("c_JD", 0.5), ("Funneler", 0.5), ("l_EC", 0.5)])
        .unwrap();
    let jaw = bone(&out, "Jaw");
    // position 0.5·(0, -2, 0.5) + 0.5·(1, 0, 0) + 0.5·(0, 0, 0) + 0.25·(0, 0, 4)
    //          + 0.125·(0, 32, 0)
    //        = (0, -1, 0.25) + (0.5, 0, 0) + (0, 0, 1) + (0, 4, 0) = (0.5, 3, 1.25)
    // rotation 0.5·(10, 0, 0) + 0.5·(0, 4, 0) + 0.5·(0, 0, 8) + 0.25·(0, 0, 16)
    //          + 0.125·(64, 0, 0)
    //        = (5, 0, 0) + (0, 2, 0) + (0, 0, 4) + (0, 0, 4) + (8, 0, 0) = (13, 2, 8)
    assert_eq!(jaw.position, [0.5, 3.0, 1.25]);
    assert_eq!(jaw.rotation, [13.0, 2.0, 8.0]);
    let lip = bone(&out, "Lip");
    // position 0.5·(0, -1, 0) + 0.5·(0, 0, 3) + 0.5·(0.25, 0, 0) + 0.25·(8, 0, 0) + 0
    //        = (0.125 + 2, -0.5, 1.5) = (2.125, -0.5, 1.5)
    // rotation 0.5·(2, 0, 0) + 0.125·(0, 0, 40) = (1, 0, 5)
    assert_eq!(lip.position, [2.125, -0.5, 1.5]);
    assert_eq!(lip.rotation, [1.0, 0.0, 5.0]);
    assert_close(&lip.matrix, &mul(&rx(1.0), &rz(5.0)), 1e-15);
}

#[test]
fn weights_are_clamped_and_the_last_duplicate_wins() {
    // 2.0 → 1, -1 → 0: Jaw = 1·(0, -2, 0.5).
    let out = rig()
        .evaluate(&[("c_JD", 0.3), ("c_JD", 2.0), ("l_EC", -1.0)])
        .unwrap();
    assert_eq!(bone(&out, "Jaw").position, [0.0, -2.0, 0.5]);
    assert_eq!(bone(&out, "Jaw").rotation, [10.0, 0.0, 0.0]);
    assert_eq!(
        rig().column_weights(&[7.0, -3.0]).unwrap(),
        vec![1.0, 0.0, 0.0, 0.0, 0.0]
    );
}

#[test]
fn zero_weights_give_identity() {
    for weights in [&[][..], &[("c_JD", 0.0), ("c_FN", 0.0), ("l_EC", 0.0)][..]] {
        let out = rig().evaluate(weights).unwrap();
        assert_eq!(out.len(), 2);
        for b in &out {
            assert_eq!(b.position, [0.0; 3]);
            assert_eq!(b.rotation, [0.0; 3]);
            assert_eq!(b.matrix, IDENTITY);
            assert_eq!(
                b.components(),
                [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]
            );
        }
    }
}

#[test]
fn unknown_names_are_errors() {
    let r = rig();
    for name in ["c_XX", "jawdrop", "", "c_JD_c_FN", "c_JD_c_FN_l_EC"] {
        let e = r.evaluate(&[(name, 0.5)]).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::Invalid(_)), "{name:?}: {e}");
    }
    // A standard FACS control this rig lacks is accepted and does nothing, as setting
    // that FaceControls property would.
    let zero = r.evaluate(&[]).unwrap();
    assert_eq!(r.evaluate(&[("TongueOut", 1.0)]).unwrap(), zero);
    assert_eq!(r.evaluate(&[("c_TO", 1.0)]).unwrap(), zero);
    // NaN is refused.
    let e = r.evaluate(&[("c_JD", f32::NAN)]).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Invalid(_)));
}

#[test]
fn inconsistent_rigs_are_errors() {
    let mut r = rig();
    r.poses.pop();
    let e = r.evaluate(&[]).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Inconsistent(_)), "{e}");

    let mut r = rig();
    r.poses[2].pop();
    let e = r.evaluate(&[]).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Inconsistent(_)), "{e}");

    let mut r = rig();
    r.two_pose_correctives[0] = [0, 3];
    let e = r.evaluate(&[]).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Inconsistent(_)), "{e}");
}

#[test]
fn single_axis_rotations_are_exact() {
    // Right-handed rotations, as CFrame.Angles gives them:
    // Rx(90°) = [1 0 0; 0 cos −sin; 0 sin cos] with cos = 0, sin = 1.
    assert_eq!(
        euler_xyz_degrees_to_matrix([90.0, 0.0, 0.0]),
        [[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]]
    );
    // Ry(90°) = [cos 0 sin; 0 1 0; −sin 0 cos].
    assert_eq!(
        euler_xyz_degrees_to_matrix([0.0, 90.0, 0.0]),
        [[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]]
    );
    // Rz(90°) = [cos −sin 0; sin cos 0; 0 0 1].
    assert_eq!(
        euler_xyz_degrees_to_matrix([0.0, 0.0, 90.0]),
        [[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    );
    // Other quadrants: −90° = 270°, 180°, and 450° = 90°.
    assert_eq!(
        euler_xyz_degrees_to_matrix([-90.0, 0.0, 0.0]),
        [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]]
    );
    assert_eq!(
        euler_xyz_degrees_to_matrix([0.0, 0.0, 270.0]),
        [[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]
    );
    assert_eq!(
        euler_xyz_degrees_to_matrix([0.0, 180.0, 0.0]),
        [[-1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, -1.0]]
    );
    assert_eq!(
        euler_xyz_degrees_to_matrix([450.0, 0.0, 0.0]),
        euler_xyz_degrees_to_matrix([90.0, 0.0, 0.0])
    );
    assert_eq!(euler_xyz_degrees_to_matrix([0.0, 0.0, 0.0]), IDENTITY);
    assert_eq!(euler_xyz_degrees_to_matrix([360.0, -360.0, 0.0]), IDENTITY);

    // Through evaluate: a pose of 90° about Y at full weight.
    let mut r = rig();
    r.poses[1][1] = pose([0.0, 0.0, 0.0], [0.0, 90.0, 0.0]);
    let out = r.evaluate(&[("c_FN", 1.0)]).unwrap();
    let lip = bone(&out, "Lip");
    assert_eq!(lip.rotation, [0.0, 90.0, 0.0]);
    assert_eq!(
        lip.matrix,
        [[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]]
    );
}

#[test]
fn combined_rotation_is_rx_ry_rz() {
    // (90°, 90°, 90°): Rx·Ry = [1 0 0; 0 0 −1; 0 1 0]·[0 0 1; 0 1 0; −1 0 0]
    //                        = [0 0 1; 1 0 0; 0 1 0]
    // then ·Rz = [0 0 1; 1 0 0; 0 1 0]·[0 −1 0; 1 0 0; 0 0 1] = [0 0 1; 0 −1 0; 1 0 0].
    // (The order matters: Rz·Ry·Rx would be [0 0 1; 0 1 0; −1 0 0].)
    assert_eq!(
        euler_xyz_degrees_to_matrix([90.0, 90.0, 90.0]),
        [[0.0, 0.0, 1.0], [0.0, -1.0, 0.0], [1.0, 0.0, 0.0]]
    );

    // (30°, 45°, 60°): sa = 1/2, ca = √3/2; sb = cb = √2/2; sc = √3/2, cc = 1/2.
    // Rx·Ry = [cb 0 sb; sa·sb ca −sa·cb; −ca·sb sa ca·cb], times Rz:
    //   R00 = cb·cc = √2/4                      ≈  0.353553
    //   R01 = −cb·sc = −√6/4                    ≈ −0.612372
    //   R02 = sb = √2/2                         ≈  0.707107
    //   R10 = sa·sb·cc + ca·sc = √2/8 + 3/4     ≈  0.926777
    //   R11 = ca·cc − sa·sb·sc = √3/4 − √6/8    ≈  0.126826
    //   R12 = −sa·cb = −√2/4                    ≈ −0.353553
    //   R20 = sa·sc − ca·sb·cc = √3/4 − √6/8    ≈  0.126826
    //   R21 = ca·sb·sc + sa·cc = 3√2/8 + 1/4    ≈  0.780330
    //   R22 = ca·cb = √6/4                      ≈  0.612372
    let (r2, r3, r6) = (2f64.sqrt(), 3f64.sqrt(), 6f64.sqrt());
    let expected = [
        [r2 / 4.0, -r6 / 4.0, r2 / 2.0],
        [r2 / 8.0 + 0.75, r3 / 4.0 - r6 / 8.0, -r2 / 4.0],
        [r3 / 4.0 - r6 / 8.0, 3.0 * r2 / 8.0 + 0.25, r6 / 4.0],
    ];
    let m = euler_xyz_degrees_to_matrix([30.0, 45.0, 60.0]);
    assert_close(&m, &expected, 1e-15);
    assert_close(&m, &mul(&mul(&rx(30.0), &ry(45.0)), &rz(60.0)), 1e-15);
    assert!((m[1][0] - 0.926777).abs() < 1e-6 && (m[2][1] - 0.780330).abs() < 1e-6);
    // Orthonormal: M·Mᵀ = I.
    let mt = [0, 1, 2].map(|i| [0, 1, 2].map(|j| m[j][i]));
    assert_close(&mul(&m, &mt), &IDENTITY, 1e-15);
}

#[test]
fn transform_components_order() {
    // Position goes in as the CFrame's translation, then R00 … R22 row by row.
    let mut r = rig();
    r.poses[0][0] = pose([1.0, 2.0, 3.0], [0.0, 0.0, 90.0]);
    let out = r.evaluate(&[("c_JD", 1.0)]).unwrap();
    assert_eq!(
        bone(&out, "Jaw").components(),
        [1.0, 2.0, 3.0, 0.0, -1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0]
    );
}

#[test]
fn name_table() {
    assert_eq!(FACS_CONTROLS.len(), 50);
    assert_eq!(facs_property_name("c_JD"), Some("JawDrop"));
    assert_eq!(facs_property_name("r_ULR"), Some("RightUpperLipRaiser"));
    assert_eq!(facs_abbreviation("LeftEyeClosed"), Some("l_EC"));
    assert_eq!(facs_abbreviation("c_JD"), None);
    let r = rig();
    assert_eq!(r.control_index("c_FN"), Some(1));
    assert_eq!(r.control_index("Funneler"), Some(1));
    assert_eq!(r.control_index("TongueOut"), None);
}

#[test]
fn corpus_rigs() {
    let Some(dir) = common::corpus() else {
        return;
    };
    let mut rigs = 0;
    for path in common::corpus_filemeshes(&dir, &["5.00", "6.00", "7.00"]) {
        let bytes = std::fs::read(&path).unwrap();
        let mesh = Mesh::read(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let Some(facs) = &mesh.facs else { continue };
        rigs += 1;
        let name = path.display();

        // All weights 0: no offsets, identity rotations.
        let zero = facs.evaluate(&[]).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(zero.len(), facs.face_bone_names.len(), "{name}");
        for b in &zero {
            assert_eq!(b.position, [0.0; 3], "{name}: {}", b.name);
            assert_eq!(b.rotation, [0.0; 3], "{name}: {}", b.name);
            assert_eq!(b.matrix, IDENTITY, "{name}: {}", b.name);
        }
        let all_zero: Vec<(&str, f32)> = facs
            .control_names
            .iter()
            .map(|c| (c.as_str(), 0.0))
            .collect();
        assert_eq!(facs.evaluate(&all_zero).unwrap(), zero, "{name}");

        // Any single control at full weight (by abbreviation, and by property name
        // where the table has one): finite values, a rotation matrix.
        for control in &facs.control_names {
            let out = facs
                .evaluate(&[(control.as_str(), 1.0)])
                .unwrap_or_else(|e| panic!("{name}: {control}: {e}"));
            for b in &out {
                assert!(
                    b.position.iter().chain(&b.rotation).all(|v| v.is_finite()),
                    "{name}: {control}: {b:?}"
                );
                assert!(b.components().iter().all(|v| v.is_finite()), "{name}");
                let m = b.matrix;
                let mt = [0, 1, 2].map(|i| [0, 1, 2].map(|j| m[j][i]));
                assert_close(&mul(&m, &mt), &IDENTITY, 1e-12);
            }
            if let Some(property) = facs_property_name(control) {
                assert_eq!(facs.evaluate(&[(property, 1.0)]).unwrap(), out, "{name}");
            }
        }
        // All controls at once (every corrective at weight 1) stays finite too.
        let all_one: Vec<(&str, f32)> = facs
            .control_names
            .iter()
            .map(|c| (c.as_str(), 1.0))
            .collect();
        let out = facs.evaluate(&all_one).unwrap();
        assert!(out
            .iter()
            .all(|b| b.position.iter().chain(&b.rotation).all(|v| v.is_finite())));
    }
    assert!(rigs > 0, "no FACS rig in the corpus");
    eprintln!("evaluated {rigs} corpus FACS rigs");
}

/// A skeleton of three bones: `Root` at the origin, `Jaw` its child at (0, 1, 0) turned
/// 90° about Z, `Lip` the jaw's child one unit along the jaw's x (at (0, 2, 0)); and a
/// rig of one control, `c_JD`, moving the jaw by `position` and turning it by `rotation`.
fn posable(position: [f32; 3], rotation: [f32; 3]) -> Mesh {
    use meshcodec::filemesh::model::{Influence, MeshBone, MeshVertex, VertexSkin};
    let z90 = [0.0, -1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0];
    let bone = |name: &str, parent: Option<u16>, rotation: [f32; 9], position| MeshBone {
        name: name.into(),
        parent,
        rotation,
        position,
        ..MeshBone::default()
    };
    let identity = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
    let skeleton = vec![
        bone("Root", None, identity, [0.0, 0.0, 0.0]),
        bone("Jaw", Some(0), z90, [0.0, 1.0, 0.0]),
        bone("Lip", Some(1), z90, [0.0, 2.0, 0.0]),
    ];
    // One vertex on each bone, one shared half and half by Root and Jaw, one unskinned
    // (all weights zero).
    let on = |pairs: &[(u16, u8)]| VertexSkin {
        influences: std::array::from_fn(|k| {
            pairs
                .get(k)
                .map(|&(bone, weight)| Influence { bone, weight })
                .unwrap_or_default()
        }),
    };
    let at = |position| MeshVertex {
        position,
        ..MeshVertex::default()
    };
    Mesh {
        vertices: vec![
            at([0.5, 0.0, 0.0]),
            at([0.0, 2.0, 0.0]),
            at([0.0, 3.0, 1.0]),
            at([1.0, 1.0, 0.0]),
            at([4.0, 4.0, 4.0]),
        ],
        skeleton,
        skinning: Some(
            vec![
                on(&[(0, 255)]),
                on(&[(1, 255)]),
                on(&[(2, 255)]),
                on(&[(0, 128), (1, 127)]),
                on(&[]),
            ]
            .into(),
        ),
        facs: Some(FacsRig {
            face_bone_names: vec!["Jaw".into()],
            control_names: vec!["c_JD".into()],
            poses: vec![vec![pose(position, rotation)]],
            ..FacsRig::default()
        }),
        ..Mesh::default()
    }
}

fn assert_points(actual: &[[f32; 3]], expected: &[[f32; 3]]) {
    assert_eq!(actual.len(), expected.len());
    for (i, (a, e)) in actual.iter().zip(expected).enumerate() {
        for k in 0..3 {
            assert!(
                (a[k] - e[k]).abs() < 1e-5,
                "vertex {i}: {a:?}, expected {e:?}"
            );
        }
    }
}

#[test]
fn facs_positions_move_a_translated_face_bone_in_its_own_frame() {
    // The jaw moves (0, -2, 0) in its frame: turned 90° about Z, that is (+2, 0, 0) in
    // the world. Its child moves with it; the root, and the unskinned vertex, stay; the
    // shared vertex moves by 127/255 of it.
    let mesh = posable([0.0, -2.0, 0.0], [0.0, 0.0, 0.0]);
    let moved = mesh.facs_positions(&[("c_JD", 1.0)]).unwrap();
    let half = 2.0 * 127.0 / 255.0;
    assert_points(
        &moved,
        &[
            [0.5, 0.0, 0.0],
            [2.0, 2.0, 0.0],
            [2.0, 3.0, 1.0],
            [1.0 + half, 1.0, 0.0],
            [4.0, 4.0, 4.0],
        ],
    );
    // Half the weight, half the way; no weight, the rest positions exactly.
    let halfway = mesh.facs_positions(&[("c_JD", 0.5)]).unwrap();
    assert_points(&halfway[1..2], &[[1.0, 2.0, 0.0]]);
    let rest = mesh.facs_positions(&[]).unwrap();
    let stored: Vec<[f32; 3]> = mesh.vertices.iter().map(|v| v.position).collect();
    assert_points(&rest, &stored);
}

#[test]
fn facs_positions_turn_about_the_face_bone() {
    // The jaw turns 90° more about its own Z (at (0, 1, 0)): its vertex one unit up
    // from it goes one unit to -x; the lip, one unit along the jaw's x (world +y),
    // goes to (-1, 1, 0), its vertex (0, 3, 1) to (-2, 1, 1).
    let mesh = posable([0.0, 0.0, 0.0], [0.0, 0.0, 90.0]);
    let moved = mesh.facs_positions(&[("c_JD", 1.0)]).unwrap();
    assert_points(
        &moved[..3],
        &[[0.5, 0.0, 0.0], [-1.0, 1.0, 0.0], [-2.0, 1.0, 1.0]],
    );
}

#[test]
fn facs_positions_errors() {
    let mesh = posable([0.0; 3], [0.0; 3]);
    assert!(matches!(
        mesh.facs_positions(&[("nope", 1.0)]).unwrap_err().kind(),
        ErrorKind::Invalid(_)
    ));
    let bare = Mesh::default();
    let e = bare.facs_positions(&[("c_JD", 1.0)]).unwrap_err();
    assert!(e.to_string().contains("no FACS"), "{e}");
}

#[test]
fn facs_positions_of_the_corpus_rigs() {
    // Every FACS mesh of the corpus, every control at full weight: finite positions;
    // a vertex whose bones FACS does not drive (nor their ancestors) stays; and the
    // controls move the vertices of some of them.
    let Some(dir) = common::corpus() else {
        return;
    };
    let (mut seen, mut moving) = (0, 0);
    for path in common::corpus_filemeshes(&dir, &["5.00", "6.00", "7.00"]) {
        let bytes = std::fs::read(&path).unwrap();
        let Ok(mesh) = Mesh::read(&bytes) else {
            continue;
        };
        let Some(rig) = &mesh.facs else { continue };
        seen += 1;
        let stored: Vec<[f32; 3]> = mesh.vertices.iter().map(|v| v.position).collect();
        let rest = mesh.facs_positions(&[]).unwrap();
        assert_points(&rest, &stored);
        // Bones under a face bone (the face bone included).
        let bones = &mesh.skeleton;
        let driven: Vec<bool> = (0..bones.len())
            .map(|mut b| {
                for _ in 0..=bones.len() {
                    if rig.face_bone_names.contains(&bones[b].name) {
                        return true;
                    }
                    match bones[b].parent {
                        Some(p) if usize::from(p) < bones.len() => b = usize::from(p),
                        _ => return false,
                    }
                }
                false
            })
            .collect();
        let skins = mesh.skinning.as_ref().unwrap().as_slice();
        let hangs = |i: usize| {
            skins[i]
                .influences
                .iter()
                .any(|k| k.weight > 0 && driven[usize::from(k.bone)])
        };
        let mut moved_any = false;
        for control in &rig.control_names {
            let posed = mesh.facs_positions(&[(control.as_str(), 1.0)]).unwrap();
            assert!(posed.iter().flatten().all(|x| x.is_finite()), "{path:?}");
            for (i, (a, b)) in posed.iter().zip(&stored).enumerate() {
                let moved = a.iter().zip(b).any(|(x, y)| (x - y).abs() > 1e-4);
                assert!(!moved || hangs(i), "{path:?} {control}: vertex {i} moved");
                moved_any |= moved;
            }
        }
        // (A rig may drive its bones too little to see: the lower eyelids of one file.)
        moving += usize::from(moved_any);
    }
    assert!(
        moving > 0,
        "no control of {seen} FACS meshes moved a vertex"
    );
    eprintln!("posed every control of {seen} corpus FACS meshes ({moving} move vertices)");
}
