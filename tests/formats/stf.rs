//! STF: the container round trip (corpus and fixtures), the decoded meshes against the
//! generator's expectations and against geometry (a cube is a closed, outward surface),
//! the CLI, and property tests of the container.

use crate::common;

use std::path::PathBuf;

use meshcodec::stf::{model, StfContainer};
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
        for m in model::meshes(&c).unwrap() {
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
        let meshes = model::meshes(&c).unwrap();
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
    let meshes = model::meshes(&c).unwrap();
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

/// `info` and `verify` judge a damaged file as decoding its meshes does: a buffer that
/// does not hold whole values is the decoder's error for both; an index beyond its array
/// is the decoded mesh's problem in `info`, and not an error for `verify`.
#[test]
fn cli_info_and_verify_of_damaged_files() {
    let bin = env!("CARGO_BIN_EXE_meshcodec");
    let path = common::fixture_dir("stf").join("quad-new-style.stf");
    let whole = StfContainer::read(&std::fs::read(path).unwrap()).unwrap();
    // Removed when the test ends, whether it passes or not.
    let dir = tempfile::tempdir().unwrap();
    let run = |c: &StfContainer, name: &str, command: &str| {
        let file = dir.path().join(name);
        std::fs::write(&file, c.write().unwrap()).unwrap();
        std::process::Command::new(bin)
            .arg(command)
            .arg(&file)
            .output()
            .unwrap()
    };
    // Buffer 0 holds the vertices: one byte short of four.
    let mut short = whole.clone();
    short.buffers[0].pop();
    let expected = model::meshes(&short).unwrap_err().to_string();
    assert!(expected.contains("vertices: 47 bytes"), "{expected}");
    for command in ["info", "verify"] {
        let out = run(&short, "short.stf", command);
        // `info` says it on stderr, `verify` in its report on stdout.
        let said = [&out.stdout[..], &out.stderr[..]].concat();
        let said = String::from_utf8_lossy(&said);
        assert!(!out.status.success(), "{command}: {out:?}");
        assert!(said.contains(&expected), "{command}: {said}");
    }
    // Buffer 1 holds the face corners (two-byte indices): the last one beyond the splits.
    let mut beyond = whole.clone();
    *beyond.buffers[1].last_mut().unwrap() = 0x7f;
    let problems = model::meshes(&beyond).unwrap()[0].problems();
    assert_eq!(problems, ["face corner split 32515 is out of range (of 4)"]);
    let out = run(&beyond, "beyond.stf", "info");
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(&format!("problem: {}", problems[0])),
        "{stdout}"
    );
    let out = run(&beyond, "beyond.stf", "verify");
    assert!(out.status.success(), "{out:?}");
}

/// Mesh JSON that points at a missing buffer, a bad width or a short buffer is an error
/// naming the mesh and the property, never a panic.
#[test]
fn bad_references_are_errors() {
    let base = |json: &str, buffers: Vec<Vec<u8>>| StfContainer {
        json: json.as_bytes().to_vec().into(),
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
    assert!(model::meshes(&ok).is_ok());
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
        let e = model::meshes(base(&mesh_json(extra), buffers)).unwrap_err();
        assert!(e.to_string().contains(needle), "{e}");
    }
    let e = model::meshes(base("{not json", vec![])).unwrap_err();
    assert!(
        e.offset().is_some() && e.to_string().contains("line 1"),
        "{e}"
    );
}

/// The hand-built blendshapes (`common::stf_blendshapes`) decode to what was written:
/// names, default values and limits (with the spec's defaults where absent), vertex and
/// split indices of the file's index width, offsets and normals of its float width.
#[test]
fn blendshapes_decode() {
    use common::stf_blendshapes as sb;
    let c = sb::container();
    // The file is well formed: it reads back from its bytes.
    let c = StfContainer::read(&c.write().unwrap()).unwrap();
    let meshes = model::meshes(&c).unwrap();
    let written = sb::meshes();
    assert_eq!(meshes.len(), written.len());
    let mut shapes = 0;
    for w in &written {
        let m = meshes.iter().find(|m| m.id == w.id).unwrap();
        assert!(m.problems().is_empty(), "{}: {:?}", w.id, m.problems());
        assert_eq!(m.splits, w.splits);
        assert_eq!(m.blendshapes.len(), w.shapes.len(), "{}", w.id);
        // As stored: f32 files hold the f32 nearest each number.
        let stored = |v: &[[f64; 3]]| -> Vec<[f64; 3]> {
            v.iter()
                .map(|x| match w.float_width {
                    8 => *x,
                    _ => x.map(|c| f64::from(c as f32)),
                })
                .collect()
        };
        for (b, s) in m.blendshapes.iter().zip(&w.shapes) {
            let what = format!("{}/{:?}", w.id, s.name);
            assert_eq!(b.name, s.name.unwrap_or(""), "{what}");
            assert_eq!(b.default_value, s.default_value.unwrap_or(0.0), "{what}");
            assert_eq!(b.limit_upper, s.limit_upper.unwrap_or(1.0), "{what}");
            assert_eq!(b.limit_lower, s.limit_lower.unwrap_or(0.0), "{what}");
            assert_eq!(b.indices, s.indices, "{what}");
            assert_eq!(b.position_offsets, stored(&s.position_offsets), "{what}");
            assert_eq!(b.split_indices, s.split_indices, "{what}");
            assert_eq!(
                b.split_normals,
                s.split_normals.as_deref().map(stored),
                "{what}"
            );
            // Offsets spread over the vertices: listed ones, or all; zero elsewhere.
            let per_vertex = b.vertex_offsets(w.vertices.len());
            assert_eq!(per_vertex.len(), w.vertices.len(), "{what}");
            let offsets = stored(&s.position_offsets);
            for (v, o) in per_vertex.iter().enumerate() {
                let want = match &s.indices {
                    Some(i) => i
                        .iter()
                        .position(|&i| i == v as u64)
                        .map_or([0.0; 3], |k| offsets[k]),
                    None => offsets[v],
                };
                assert_eq!(*o, want, "{what}: vertex {v}");
            }
            shapes += 1;
        }
    }
    assert_eq!(shapes, 4);
    let info = c.info().unwrap();
    let lift = info.mesh_list.iter().find(|m| m.id == "lift").unwrap();
    assert_eq!(lift.blendshapes, ["raise tip", "every vertex", ""]);
    assert!(lift.problems.is_empty());
}

/// Blendshapes that do not fit their mesh are problems; a missing `position_offsets`
/// or a malformed list or value is an error naming the blendshape; an absent, null or
/// empty list is no blendshapes.
#[test]
fn bad_blendshapes_are_problems_or_errors() {
    use common::stf_blendshapes as sb;
    let with = |f: &dyn Fn(&mut serde_json::Value)| {
        let mut c = sb::container();
        let mut doc: serde_json::Value = serde_json::from_slice(&c.json).unwrap();
        f(&mut doc["resources"]["lift"]);
        c.json = (serde_json::to_vec(&doc).unwrap()).into();
        c
    };
    let lift = |c: &StfContainer| {
        model::meshes(c)
            .unwrap()
            .into_iter()
            .find(|m| m.id == "lift")
            .unwrap()
    };
    for (f, n) in [
        (
            &(|r: &mut serde_json::Value| {
                r.as_object_mut().unwrap().remove("blendshapes");
            }) as &dyn Fn(&mut serde_json::Value),
            0,
        ),
        (&|r| r["blendshapes"] = serde_json::Value::Null, 0),
        (&|r| r["blendshapes"] = serde_json::json!([]), 0),
        (
            &|r| r["blendshapes"][0] = serde_json::json!({"position_offsets": 0}),
            3,
        ),
    ] {
        let m = lift(&with(f));
        assert_eq!(m.blendshapes.len(), n);
        assert!(m.problems().is_empty(), "{:?}", m.problems());
    }
    // The first blendshape's buffers: indices (2 entries), offsets (2), split indices
    // (2), split normals (2). Pointing one at another buffer breaks the counts (the
    // 24-byte offsets buffer read as u16 indices is 12 of them).
    let first = |c: &StfContainer| {
        let doc: serde_json::Value = serde_json::from_slice(&c.json).unwrap();
        doc["resources"]["lift"]["blendshapes"][0].clone()
    };
    let b = first(&sb::container());
    let (offsets, vertices) = (b["position_offsets"].clone(), serde_json::json!(0));
    for (f, needle) in [
        (
            &(move |r: &mut serde_json::Value| r["blendshapes"][0]["indices"] = offsets.clone())
                as &dyn Fn(&mut serde_json::Value),
            "blendshape \"raise tip\" has 2 position offsets for 12 indices",
        ),
        (
            &move |r| r["blendshapes"][0]["position_offsets"] = vertices.clone(),
            "blendshape \"raise tip\" has 5 position offsets for 2 indices",
        ),
        (
            &|r| {
                r["blendshapes"][0]
                    .as_object_mut()
                    .unwrap()
                    .remove("indices");
            },
            "blendshape \"raise tip\" has 2 position offsets for 5 vertices",
        ),
        (
            &|r| {
                r["blendshapes"][0]
                    .as_object_mut()
                    .unwrap()
                    .remove("split_indices");
            },
            "blendshape \"raise tip\" has 2 split normals for 6 splits",
        ),
    ] {
        let problems = lift(&with(f)).problems();
        assert!(problems.iter().any(|p| p == needle), "{problems:?}");
    }
    // Indices out of range: the "tris" buffer (u16s 0, 2, 1, 0, 3, 2, 5, 1, 4) as
    // vertex indices, and the "vertices" buffer (f32s; 1.0 is u16s 0, 16256) as split
    // indices.
    let m = lift(&with(&|r| {
        r["blendshapes"][0]["indices"] = r["tris"].clone();
        r["blendshapes"][0]["split_indices"] = r["vertices"].clone();
    }));
    let problems = m.problems();
    assert!(
        problems
            .contains(&"blendshape \"raise tip\": split index 16256 is out of range (of 6)".into()),
        "{problems:?}"
    );
    assert!(
        problems
            .contains(&"blendshape \"raise tip\": vertex index 5 is out of range (of 5)".into()),
        "{problems:?}"
    );
    assert!(
        problems.iter().any(|p| p.contains("9 indices")),
        "{problems:?}"
    );
    // Errors: no offsets, not a list, not an object, a weight that is not a number.
    for (f, needle) in [
        (
            &(|r: &mut serde_json::Value| {
                r["blendshapes"][1]
                    .as_object_mut()
                    .unwrap()
                    .remove("position_offsets");
            }) as &dyn Fn(&mut serde_json::Value),
            "blendshapes[1].position_offsets is required",
        ),
        (
            &|r| r["blendshapes"] = serde_json::json!({}),
            "blendshapes is not a list",
        ),
        (
            &|r| r["blendshapes"][2] = serde_json::json!(7),
            "blendshapes[2] is not an object",
        ),
        (
            &|r| r["blendshapes"][0]["default_value"] = serde_json::json!("half"),
            "blendshapes[0].default_value is not a number",
        ),
        (
            &|r| r["blendshapes"][0]["indices"] = serde_json::json!(99),
            "blendshapes[0].indices: referenced_buffers has no entry 99",
        ),
    ] {
        let e = model::meshes(with(f)).unwrap_err().to_string();
        assert!(e.contains(needle) && e.contains("mesh lift"), "{e}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn any_container_write_read_write(
        c in meshcodec::strategy::stf::container(meshcodec::strategy::Size::default()),
    ) {
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

/// `into_bytes` (the container given away, each buffer dropped once copied) gives the
/// bytes `write` gives, which are the file's.
#[test]
fn into_bytes_is_write() {
    for path in fixture_files() {
        let bytes = std::fs::read(&path).unwrap();
        let c = StfContainer::read(&bytes).unwrap();
        assert!(c.write().unwrap() == bytes, "{}", path.display());
        let mut with_tail = c.clone();
        with_tail.trailing = b"tail".to_vec();
        let expected = with_tail.write().unwrap();
        assert!(
            with_tail.into_bytes().unwrap() == expected,
            "{}",
            path.display()
        );
        assert!(c.into_bytes().unwrap() == bytes, "{}", path.display());
    }
}
