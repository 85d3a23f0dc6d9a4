//! STF: the container round trip (corpus and fixtures), the decoded meshes against the
//! generator's expectations and against geometry (a cube is a closed, outward surface),
//! the CLI, and property tests of the container.

mod common;

use std::path::PathBuf;

use meshcodec::stf::{mesh, StfContainer};
use proptest::prelude::*;

fn corpus_files() -> Vec<PathBuf> {
    let Some(dir) = common::corpus() else {
        return Vec::new();
    };
    let v: Vec<PathBuf> = std::fs::read_dir(dir.join("stf"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(!v.is_empty());
    v
}

fn fixture_files() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(common::fixture_dir("stf"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "stf"))
        .collect();
    v.sort();
    assert!(v.len() >= 3, "{v:?}");
    v
}

#[test]
fn corpus_and_fixtures_round_trip_byte_exact() {
    for path in corpus_files().into_iter().chain(fixture_files()) {
        let bytes = std::fs::read(&path).unwrap();
        let c = StfContainer::read(&bytes).unwrap();
        assert!(c.write().unwrap() == bytes, "{}", path.display());
        // Every mesh decodes and is consistent.
        for m in mesh::meshes(&c).unwrap() {
            assert!(
                m.problems().is_empty(),
                "{}: {:?}",
                path.display(),
                m.problems()
            );
        }
    }
}

/// The generator's `expected.json` against what the reader finds.
#[test]
fn fixtures_match_the_generators_expectations() {
    let dir = common::fixture_dir("stf");
    let expected: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).unwrap()).unwrap();
    let mut n = 0;
    for (name, e) in expected.as_object().unwrap() {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        assert_eq!(e["file_bytes"], bytes.len(), "{name}");
        let c = StfContainer::read(&bytes).unwrap();
        assert_eq!(
            e["version"],
            serde_json::json!([c.version_major, c.version_minor])
        );
        assert_eq!(e["buffer_count"], c.buffers.len() + 1, "{name}");
        assert_eq!(e["json_bytes"], c.json.len(), "{name}");
        let lengths: Vec<usize> = std::iter::once(c.json.len())
            .chain(c.buffers.iter().map(Vec::len))
            .collect();
        assert_eq!(e["buffer_lengths"], serde_json::json!(lengths), "{name}");
        let meshes = mesh::meshes(&c).unwrap();
        let want = e["meshes"].as_array().unwrap();
        assert_eq!(want.len(), meshes.len(), "{name}");
        for (w, m) in want.iter().zip(&meshes) {
            assert_eq!(w["id"], m.id.as_str(), "{name}");
            assert_eq!(w["name"], m.name.as_str(), "{name}");
            assert_eq!(w["vertices"], m.vertices.len(), "{name}");
            assert_eq!(w["splits"], m.splits.len(), "{name}");
            assert_eq!(w["face_corners"], m.face_corners.len(), "{name}");
            assert_eq!(w["tris"], m.tris.len(), "{name}");
            assert_eq!(w["faces"], m.faces.len(), "{name}");
            assert_eq!(
                w["triangles_per_face"],
                serde_json::json!(m.faces),
                "{name}"
            );
            assert_eq!(
                w["material_indices"],
                serde_json::json!(m.material_indices),
                "{name}"
            );
            let uv_names: Vec<&str> = m.uvs.iter().map(|(n, _)| n.as_str()).collect();
            assert_eq!(w["uv_sets"], serde_json::json!(uv_names), "{name}");
            assert_eq!(w["has_normals"], m.split_normals.is_some(), "{name}");
            assert_eq!(w["has_colors"], m.split_colors.is_some(), "{name}");
            assert_eq!(
                w["first_vertex"],
                serde_json::json!(m.vertices[0]),
                "{name}"
            );
            assert_eq!(w["float_width"], m.float_width, "{name}");
            assert_eq!(w["indices_width"], m.indices_width, "{name}");
            n += 1;
        }
    }
    assert!(n >= 4, "{n}");
}

/// The real Blender cube: 8 corners at ±1, 6 quads of 2 triangles, unit normals, and a
/// closed surface whose triangles all face outwards (signed volume 8).
#[test]
fn real_cube_decodes_to_a_cube() {
    let Some(dir) = common::corpus() else { return };
    let c = StfContainer::read(&std::fs::read(dir.join("stf/default-cube.stf")).unwrap()).unwrap();
    let meshes = mesh::meshes(&c).unwrap();
    assert_eq!(meshes.len(), 1);
    let m = &meshes[0];
    assert_eq!(m.name, "Cube");
    assert_eq!(m.vertices.len(), 8);
    for v in &m.vertices {
        assert!(v.iter().all(|x| (x.abs() - 1.0).abs() < 1e-6), "{v:?}");
    }
    assert_eq!(m.faces, vec![2; 6]);
    assert_eq!(m.tris.len(), 12);
    for n in m.split_normals.as_ref().unwrap() {
        let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
        assert!((len - 1.0).abs() < 1e-6);
    }
    let mut volume = 0.0;
    for t in m.triangle_vertices() {
        let [a, b, c] = t.unwrap().map(|i| m.vertices[i as usize]);
        volume += (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0])
            + a[2] * (b[0] * c[1] - b[1] * c[0]))
            / 6.0;
    }
    assert!((volume - 8.0).abs() < 1e-9, "{volume}");
    assert_eq!(m.uvs.len(), 1);
    assert_eq!(m.uvs[0].1.len(), m.splits.len());
}

#[test]
fn cli_info_json_and_verify() {
    let bin = env!("CARGO_BIN_EXE_meshcodec");
    for path in fixture_files().into_iter().chain(corpus_files()) {
        let out = std::process::Command::new(bin)
            .args(["info", "--json"])
            .arg(&path)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["format"], "stf");
        for key in ["meshes", "vertices", "faces", "buffers"] {
            assert!(v[key].is_u64(), "{}: {key}", path.display());
        }
        let out = std::process::Command::new(bin)
            .arg("verify")
            .arg(&path)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
    }
}

/// Mesh JSON that points at a missing buffer, a bad width or a short buffer is an error
/// naming the mesh and the property, never a panic.
#[test]
fn bad_references_are_errors() {
    let base = |json: &str, buffers: Vec<Vec<u8>>| StfContainer {
        json: json.as_bytes().to_vec(),
        buffers,
        ..StfContainer::default()
    };
    let mesh_json = |extra: &str| {
        format!(
            r#"{{"resources": {{"m": {{"type": "stf.mesh", "name": "M", "vertices": 0,
            "face_corners": 0, "splits": 0, "tris": 0, "faces": 0,
            "referenced_buffers": ["b"]{extra}}}}},
            "buffers": {{"b": {{"type": "stf.buffer.included", "index": 0}}}}}}"#
        )
    };
    // A 12-byte buffer is one vertex, and 12 one-byte... indices of width 4: 3 values.
    let ok = base(&mesh_json(""), vec![vec![0; 12]]);
    assert!(mesh::meshes(&ok).is_ok());
    for (extra, buffers, needle) in [
        (r#", "float_width": 3"#, vec![vec![0; 12]], "float_width"),
        ("", vec![vec![0; 10]], "vertices"),
        ("", vec![], "buffer index 0"),
        (
            r#", "split_normals": 5"#,
            vec![vec![0; 12]],
            "referenced_buffers has no entry 5",
        ),
    ] {
        let e = mesh::meshes(&base(&mesh_json(extra), buffers)).unwrap_err();
        assert!(e.to_string().contains(needle), "{e}");
    }
    let e = mesh::meshes(&base("{not json", vec![])).unwrap_err();
    assert!(
        e.offset().is_some() && e.to_string().contains("line 1"),
        "{e}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn any_container_write_read_write(
        major in any::<u32>(), minor in any::<u32>(),
        json in proptest::collection::vec(any::<u8>(), 0..64),
        buffers in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..40), 0..5),
        trailing in proptest::collection::vec(any::<u8>(), 0..3),
    ) {
        let c = StfContainer { version_major: major, version_minor: minor, json, buffers, trailing };
        let bytes = c.write().unwrap();
        let again = StfContainer::read(&bytes).unwrap();
        prop_assert_eq!(&again, &c);
        prop_assert_eq!(again.write().unwrap(), bytes);
    }

    #[test]
    fn arbitrary_bytes_never_panic(tail in proptest::collection::vec(any::<u8>(), 0..120)) {
        let mut bytes = b"STF0".to_vec();
        bytes.extend(tail);
        if let Ok(c) = StfContainer::read(&bytes) {
            prop_assert_eq!(c.write().unwrap(), bytes);
            let _ = c.info();
        }
    }
}
