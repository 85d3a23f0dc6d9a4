//! Import: glTF (.gltf with data URIs, .glb, external .bin) and OBJ into a FileMesh.
//! Every FileMesh fixture and corpus file exported and imported again keeps its LOD 0
//! positions, triangles, UVs and colours exactly, and its normals as unit vectors; files
//! written by hand (not by our exporter) exercise what other tools produce.

use crate::common;

use std::path::PathBuf;

use meshcodec::filemesh::model::Mesh;
use meshcodec::filemesh::raw::Version;
use meshcodec::scene::{gltf, import, obj};

fn filemeshes() -> Vec<PathBuf> {
    let mut v = Vec::new();
    for set in ["filemesh", "chunked", "text"] {
        v.extend(
            std::fs::read_dir(common::fixture_dir(set))
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|e| e == "mesh")),
        );
    }
    if let Some(dir) = common::corpus() {
        v.extend(common::corpus_filemeshes(&dir, common::ALL_VERSIONS));
    }
    v.sort();
    assert!(v.len() >= 20);
    v
}

/// The LOD 0 faces of a mesh, renumbered to the vertices they use (as the export writes
/// every vertex, this is the identity here, but it keeps the comparison honest).
fn lod0(m: &Mesh) -> &[[u32; 3]] {
    &m.faces[m.lods.lod0(m.faces.len())]
}

#[test]
fn export_then_import_keeps_the_geometry() {
    let mut n = 0;
    for path in filemeshes() {
        let m = Mesh::read(&std::fs::read(&path).unwrap()).unwrap();
        let scene = meshcodec::filemesh::scene::to_scene(m.clone(), "x", 0).unwrap();
        let glb = gltf::to_glb(&scene).unwrap();
        let text = gltf::to_gltf(&scene).unwrap();
        let objt = obj::to_obj(&scene).unwrap();
        for (what, s) in [
            ("glb", import::read_gltf(&glb, None).unwrap()),
            ("gltf", import::read_gltf(text.as_bytes(), None).unwrap()),
            ("obj", import::read_obj(&objt).unwrap()),
        ] {
            let back = meshcodec::filemesh::scene::from_scene(&s);
            if lod0(&m).is_empty() {
                assert!(back.is_err(), "{}: empty mesh imported", path.display());
                continue;
            }
            let back = back.unwrap();
            let ctx = format!("{} via {what}", path.display());
            assert_eq!(back.faces.len(), lod0(&m).len(), "{ctx}");
            for (a, b) in lod0(&m).iter().zip(&back.faces) {
                for k in 0..3 {
                    let (va, vb) = (&m.vertices[a[k] as usize], &back.vertices[b[k] as usize]);
                    assert_eq!(va.position, vb.position, "{ctx}");
                    assert_eq!(va.uv, vb.uv, "{ctx}");
                    if what != "obj" {
                        assert_eq!(va.color, vb.color, "{ctx}");
                    }
                    let len = (vb.normal.iter().map(|c| c * c).sum::<f32>()).sqrt();
                    assert!((len - 1.0).abs() < 1e-5, "{ctx}: |n| = {len}");
                }
            }
            // Any version can be written from it.
            for v in [Version::V2_00, Version::V4_01, Version::V6_00] {
                back.to_file(v).unwrap().write().unwrap();
            }
            n += 1;
        }
    }
    assert!(n >= 60, "{n}");
}

/// A glTF as other tools write it: u16 indices, normalized u8 texture coordinates, u8
/// RGB colours, a non-triangle primitive to skip, and the buffer in an external file.
#[test]
fn hand_written_gltf_with_other_component_types() {
    let mut bin = Vec::new();
    // 3 positions (36 bytes), indices u16 ×3 + 2 pad (8), uv u8×2 ×3 + 2 pad (8), rgb u8×3 ×3 + 3 pad (12)
    for p in [[0f32, 0., 0.], [1., 0., 0.], [0., 1., 0.]] {
        for c in p {
            bin.extend(c.to_le_bytes());
        }
    }
    for i in [0u16, 1, 2] {
        bin.extend(i.to_le_bytes());
    }
    bin.extend([0, 0]);
    bin.extend([0u8, 0, 255, 0, 0, 255, 0, 0]);
    bin.extend([255u8, 0, 0, 0, 0, 255, 0, 0, 0, 0, 255, 0]);
    let json = serde_json::json!({
        "asset": {"version": "2.0", "generator": "hand"},
        "buffers": [{"uri": "tri.bin", "byteLength": bin.len()}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 36},
            {"buffer": 0, "byteOffset": 36, "byteLength": 6},
            {"buffer": 0, "byteOffset": 44, "byteLength": 6},
            {"buffer": 0, "byteOffset": 52, "byteLength": 12, "byteStride": 4}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
             "min": [0, 0, 0], "max": [1, 1, 0]},
            {"bufferView": 1, "componentType": 5123, "count": 3, "type": "SCALAR"},
            {"bufferView": 2, "componentType": 5121, "normalized": true, "count": 3, "type": "VEC2"},
            {"bufferView": 3, "componentType": 5121, "normalized": true, "count": 3, "type": "VEC3"}
        ],
        "meshes": [{"name": "tri", "primitives": [
            {"attributes": {"POSITION": 0, "TEXCOORD_0": 2, "COLOR_0": 3}, "indices": 1},
            {"attributes": {"POSITION": 0}, "mode": 1}
        ]}]
    });
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tri.bin"), &bin).unwrap();
    let bytes = serde_json::to_vec(&json).unwrap();
    assert!(
        import::read_gltf(&bytes, None).is_err(),
        "external buffer needs a folder"
    );
    let s = import::read_gltf(&bytes, Some(dir.path())).unwrap();
    let m = meshcodec::filemesh::scene::from_scene(&s).unwrap();
    assert_eq!(m.faces, vec![[0, 1, 2]]);
    assert_eq!(m.vertices[1].uv, [1.0, 0.0]);
    assert_eq!(m.vertices[2].uv, [0.0, 1.0]);
    eprintln!(
        "{:?}",
        m.vertices.iter().map(|v| v.color).collect::<Vec<_>>()
    );
    assert_eq!(m.vertices[0].color, [255, 0, 0, 255]);
    assert_eq!(m.vertices[2].color, [0, 0, 255, 255]);
    assert_eq!(m.vertices[0].normal, [0.0, 1.0, 0.0], "default normal");
}

/// OBJ as other tools write it: a quad and a pentagon (fans), negative indices, `v//n`
/// corners, comments, two groups.
#[test]
fn hand_written_obj_polygons_and_negative_indices() {
    let text = "# test\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nvn 0 0 1\n\
                o quad\nf 1//1 2//1 3//1 4//1\n\
                v 2 0 0\nv 3 0 0\nv 3 1 0\nv 2.5 2 0\nv 2 1 0\n\
                g pent\nf -5//1 -4//1 -3//1 -2//1 -1//1\n";
    let s = import::read_obj(text).unwrap();
    let prims = &s.meshes[0].primitives;
    assert_eq!(prims.len(), 2);
    assert_eq!(prims[0].name, "quad");
    assert_eq!(prims[0].triangles, vec![[0, 1, 2], [0, 2, 3]]);
    assert_eq!(prims[1].triangles.len(), 3);
    assert_eq!(prims[1].positions[3], [2.5, 2.0, 0.0]);
    let m = meshcodec::filemesh::scene::from_scene(&s).unwrap();
    assert_eq!(m.faces.len(), 5);
    assert_eq!(m.faces[2], [4, 5, 6]);
    // Errors name the line.
    let e = import::read_obj("v 0 0 0\nf 1 2 3\n").unwrap_err();
    assert!(e.to_string().contains("line 2"), "{e}");
    let e = import::read_obj("v 0 x 0\n").unwrap_err();
    assert!(e.to_string().contains("line 1"), "{e}");
}

#[test]
fn cli_import() {
    let bin = env!("CARGO_BIN_EXE_meshcodec");
    let dir = tempfile::tempdir().unwrap();
    let src = common::fixture_dir("filemesh").join("v4.01-lods-skinned.mesh");
    let src = if src.exists() {
        src
    } else {
        common::fixture_dir("filemesh").join("v2.00-40b.mesh")
    };
    let glb = dir.path().join("x.glb");
    let out = dir.path().join("x.mesh");
    let run =
        |args: &[&std::ffi::OsStr]| std::process::Command::new(bin).args(args).output().unwrap();
    assert!(run(&["export".as_ref(), src.as_os_str(), glb.as_os_str()])
        .status
        .success());
    let o = run(&[
        "import".as_ref(),
        glb.as_os_str(),
        out.as_os_str(),
        "--to".as_ref(),
        "5.00".as_ref(),
    ]);
    assert!(o.status.success(), "{o:?}");
    let m = Mesh::read(&std::fs::read(&out).unwrap()).unwrap();
    let orig = Mesh::read(&std::fs::read(&src).unwrap()).unwrap();
    assert_eq!(m.faces.len(), lod0(&orig).len());
    // 7.00 keeps every value (COREMESH v1 where Draco would move the normals) …
    let o = run(&[
        "import".as_ref(),
        glb.as_os_str(),
        out.as_os_str(),
        "--to".as_ref(),
        "7.00".as_ref(),
    ]);
    assert!(o.status.success(), "{o:?}");
    let v7 = Mesh::read(&std::fs::read(&out).unwrap()).unwrap();
    assert_eq!(v7.faces.len(), lod0(&orig).len());
    // … and forced Draco quantizes the normals: refused unless --allow-lossy.
    let draco = ["--coremesh".as_ref(), "draco".as_ref()];
    let args = [
        "import".as_ref(),
        glb.as_os_str(),
        out.as_os_str(),
        "--to".as_ref(),
        "7.00".as_ref(),
    ];
    let o = run(&[&args[..], &draco[..]].concat());
    assert_eq!(o.status.code(), Some(3), "{o:?}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("quantized to 11 bits"));
    let o = run(&[&args[..], &draco[..], &["--allow-lossy".as_ref()][..]].concat());
    assert!(o.status.success(), "{o:?}");
    // Collision data: one hull per primitive, any CSGPHS version, convex only (the
    // random fixture is refused). CSGPHS keeps positions only: the normals of a convex
    // cube are named, and dropped only when allowed.
    let csg = |input: &std::path::Path| -> [std::ffi::OsString; 5] {
        [
            "import".into(),
            input.as_os_str().to_owned(),
            out.as_os_str().to_owned(),
            "--to".into(),
            "7".into(),
        ]
    };
    let o = run(&csg(&glb).iter().map(|a| a.as_os_str()).collect::<Vec<_>>());
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("is not convex"),
        "{o:?}"
    );
    let cube = dir.path().join("cube.obj");
    let mut text = String::new();
    for i in 0..8 {
        text += &format!("v {} {} {}\n", i & 1, (i >> 1) & 1, (i >> 2) & 1);
    }
    text += "vn 0 0 1\n";
    for f in [
        "1 3 4 2", "5 6 8 7", "1 2 6 5", "3 7 8 4", "1 5 7 3", "2 4 8 6",
    ] {
        let corners: Vec<String> = f.split(' ').map(|k| format!("{k}//1")).collect();
        text += &format!("f {}\n", corners.join(" "));
    }
    std::fs::write(&cube, text).unwrap();
    let csg = csg(&cube);
    let csg: Vec<&std::ffi::OsStr> = csg.iter().map(|a| a.as_os_str()).collect();
    let o = run(&csg);
    assert_eq!(o.status.code(), Some(3), "{o:?}");
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("the normals of 1 primitive"),
        "{o:?}"
    );
    let o = run(&[&csg[..], &["--allow-lossy".as_ref()][..]].concat());
    assert!(o.status.success(), "{o:?}");
    assert!(std::fs::read(&out)
        .unwrap()
        .starts_with(b"CSGPHS\x07\0\0\0"));
    // Not a FileMesh or CSGPHS version; not an importable extension.
    let o = run(&[
        "import".as_ref(),
        glb.as_os_str(),
        out.as_os_str(),
        "--to".as_ref(),
        "ms13".as_ref(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    let o = run(&[
        "import".as_ref(),
        out.as_os_str(),
        glb.as_os_str(),
        "--to".as_ref(),
        "4.01".as_ref(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
}

/// Damaged glTF and OBJ (bit flips, cuts, edited JSON numbers) give errors, never panics.
#[test]
fn damaged_imports_never_panic() {
    let m =
        Mesh::read(&std::fs::read(common::fixture_dir("filemesh").join("v2.00-40b.mesh")).unwrap())
            .unwrap();
    let scene = meshcodec::filemesh::scene::to_scene(m.clone(), "x", 0).unwrap();
    let glb = gltf::to_glb(&scene).unwrap();
    let text = gltf::to_gltf(&scene).unwrap();
    let objt = obj::to_obj(&scene).unwrap();
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut rnd = |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    let mut cases = 0;
    for cut in 0..glb.len() {
        let _ = import::read_gltf(&glb[..cut], None);
        cases += 1;
    }
    for _ in 0..3000 {
        let mut b = glb.clone();
        for _ in 0..1 + rnd(4) {
            let i = rnd(b.len());
            b[i] ^= 1 << rnd(8);
        }
        let _ = import::read_gltf(&b, None);
        // JSON with one number replaced by an extreme value.
        let mut t = text.clone().into_bytes();
        let digits: Vec<usize> = t
            .iter()
            .enumerate()
            .filter(|(_, c)| c.is_ascii_digit())
            .map(|(i, _)| i)
            .collect();
        let at = digits[rnd(digits.len())];
        let repl: &[u8] = [&b"4294967295"[..], b"0", b"-1", b"99999999999999999999"][rnd(4)];
        t.splice(at..at + 1, repl.iter().copied());
        let _ = import::read_gltf(&t, None);
        let mut o = objt.clone().into_bytes();
        let i = rnd(o.len());
        o[i] = b"0123456789-/ \nfv"[rnd(16)];
        if let Ok(s) = std::str::from_utf8(&o) {
            if let Ok(scene) = import::read_obj(s) {
                let _ = meshcodec::filemesh::scene::from_scene(&scene);
            }
        }
        cases += 3;
    }
    assert!(cases > 9000);
}

/// CSGPHS hulls exported to glTF and imported again as collision data keep every hull's
/// surface (the same triangles over the same positions) and its mass properties, in
/// every version that holds hulls.
#[test]
fn csg_hulls_survive_export_and_import() {
    use meshcodec::csg::phs::model::{CsgHull, CsgMesh};
    let surface = |h: &CsgHull| {
        let mut v: Vec<[[u32; 3]; 3]> = h
            .triangles
            .iter()
            .map(|t| {
                let p = t.map(|i| h.positions[i as usize].map(f32::to_bits));
                let k = (0..3).min_by_key(|&k| p[k]).unwrap();
                [p[k], p[(k + 1) % 3], p[(k + 2) % 3]]
            })
            .collect();
        v.sort();
        v
    };
    let mut paths: Vec<PathBuf> = std::fs::read_dir(common::fixture_dir("csgphs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "bin"))
        .collect();
    if let Some(dir) = common::corpus() {
        paths.extend(
            std::fs::read_dir(dir.join("csg"))
                .unwrap()
                .map(|e| e.unwrap().path()),
        );
    }
    let mut n = 0;
    for path in paths {
        let model = CsgMesh::read(&std::fs::read(&path).unwrap()).unwrap();
        if model.hulls.is_empty() {
            continue;
        }
        let glb = gltf::to_glb(&meshcodec::csg::phs::scene::to_scene(&model, "x")).unwrap();
        let back = meshcodec::csg::phs::scene::from_scene(&import::read_gltf(&glb, None).unwrap())
            .unwrap();
        assert_eq!(back.hulls.len(), model.hulls.len(), "{}", path.display());
        for (a, b) in model.hulls.iter().zip(&back.hulls) {
            assert_eq!(surface(a), surface(b), "{}", path.display());
        }
        for v in [3, 5, 6, 7, 8] {
            let bytes = back.to_csgphs(v).unwrap().write().unwrap();
            let again = CsgMesh::read(&bytes).unwrap();
            let (p, q) = (model.computed_physics(), again.computed_physics());
            assert!(
                (p.volume - q.volume).abs() <= 1e-5 * p.volume.abs().max(1.0),
                "{} v{v}: {} vs {}",
                path.display(),
                p.volume,
                q.volume
            );
            for (a, b) in model.hulls.iter().zip(&again.hulls) {
                assert_eq!(surface(a), surface(b), "{} v{v}", path.display());
            }
        }
        n += 1;
    }
    assert!(n >= 6, "{n}");
}

/// What a glTF holds beyond what import carries is named, and refused without
/// `--allow-lossy`: skins (and their JOINTS/WEIGHTS), morph targets, further UV sets,
/// primitives that are not triangle lists and materials; node transforms and instanced
/// meshes are carried. A required geometry extension is refused by name.
#[test]
fn import_names_what_it_leaves_behind() {
    let bin = env!("CARGO_BIN_EXE_meshcodec");
    let dir = tempfile::tempdir().unwrap();
    let src = common::fixture_dir("filemesh").join("v4.00-bones.mesh");
    let gltf_path = dir.path().join("skinned.gltf");
    let out = dir.path().join("out.mesh");
    let run =
        |args: &[&std::ffi::OsStr]| std::process::Command::new(bin).args(args).output().unwrap();
    assert!(
        run(&["export".as_ref(), src.as_os_str(), gltf_path.as_os_str()])
            .status
            .success()
    );
    let import_to = |path: &std::path::Path, to: &str, lossy: bool| {
        let mut args: Vec<&std::ffi::OsStr> = vec![
            "import".as_ref(),
            path.as_os_str(),
            out.as_os_str(),
            "--to".as_ref(),
            to.as_ref(),
        ];
        if lossy {
            args.push("--allow-lossy".as_ref());
        }
        run(&args)
    };
    let import = |path: &std::path::Path, lossy: bool| import_to(path, "4.00", lossy);
    // The skin alone: carried into 4.00, which has bones; named for 3.00, which has none,
    // once, by the FileMesh conversion (the import carries it into the model).
    let o = import_to(&gltf_path, "3.00", false);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(3), "{err}");
    for expected in ["3 bones (3.00 has no skeleton)", "skinning of 10 vertices"] {
        assert!(err.contains(expected), "{expected:?} in {err}");
    }
    assert!(!err.contains("not carried"), "the skin named once: {err}");
    assert!(
        !out.exists(),
        "nothing is written when the import is refused"
    );
    let o = import(&gltf_path, false);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{err}");
    let info = |p: &std::path::Path| -> serde_json::Value {
        let o = run(&["info".as_ref(), "--json".as_ref(), p.as_os_str()]);
        serde_json::from_slice(&o.stdout).unwrap()
    };
    for key in ["bones", "bone_names", "vertices", "faces"] {
        assert_eq!(info(&out)[key], info(&src)[key], "{key}");
    }
    std::fs::remove_file(&out).unwrap();

    // Everything else import leaves behind, added by hand.
    let mut doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&gltf_path).unwrap()).unwrap();
    let prim = doc["meshes"][0]["primitives"][0].clone();
    let mut points = prim.clone();
    points["mode"] = 0.into();
    let mut morphed = prim.clone();
    let pos = prim["attributes"]["POSITION"].clone();
    morphed["targets"] = serde_json::json!([{ "POSITION": pos, "NORMAL": pos }]);
    morphed["attributes"]["TEXCOORD_1"] = prim["attributes"]["TEXCOORD_0"].clone();
    morphed["attributes"]["TEXCOORD_3"] = prim["attributes"]["TEXCOORD_0"].clone();
    doc["meshes"][0]["primitives"] = serde_json::json!([prim, points, morphed]);
    // A second node placing the mesh, moved: imported as a second, moved copy.
    let nodes = doc["nodes"].as_array_mut().unwrap();
    nodes.push(serde_json::json!({ "mesh": 0, "translation": [1.0, 0.0, 0.0] }));
    let placed = nodes.len() - 1;
    doc["scenes"][0]["nodes"]
        .as_array_mut()
        .unwrap()
        .push(placed.into());
    // A material's name is kept (a primitive that uses it is named after it); its colour
    // is not.
    doc["materials"] = serde_json::json!([{
        "name": "paint",
        "pbrMetallicRoughness": { "baseColorFactor": [1.0, 0.0, 0.0, 1.0] }
    }]);
    let edited = dir.path().join("edited.gltf");
    std::fs::write(&edited, serde_json::to_vec(&doc).unwrap()).unwrap();
    let o = import(&edited, false);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(3), "{err}");
    for expected in [
        "1 primitive that is not a triangle list (points, lines, strips or fans) was left out",
        "2 morph targets are not carried into 4.00",
        "the skin influences of 2 primitives whose node has no skin were not imported",
        "the normal and tangent offsets of 1 morph target are not imported",
        "vertex attribute TEXCOORD_3 (a further UV set) of 1 primitive is not imported",
        "the further UV sets of 2 primitives: 4.00 holds one UV set",
        "1 material's properties are not imported (the primitives keep their materials' names)",
    ] {
        assert!(err.contains(expected), "{expected:?} in {err}");
    }
    // With --allow-lossy the import goes ahead and says what it dropped.
    let o = import(&edited, true);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert!(o.status.success(), "{err}");
    assert!(err.contains("dropped: 2 morph targets"), "{err}");
    assert!(
        !err.contains("transform") && !err.contains("instanc"),
        "node transforms and instances are carried: {err}"
    );
    let faces = |p: &std::path::Path| {
        let o = run(&["info".as_ref(), "--json".as_ref(), p.as_os_str()]);
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        v["faces"].as_u64().unwrap()
    };
    // Two triangle primitives, placed by two nodes.
    assert_eq!(faces(&out), 4 * faces(&src));

    // A file that requires meshopt-compressed geometry is refused by the extension's name.
    doc["extensionsRequired"] = serde_json::json!(["EXT_meshopt_compression"]);
    std::fs::write(&edited, serde_json::to_vec(&doc).unwrap()).unwrap();
    let o = import(&edited, true);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("requires EXT_meshopt_compression"), "{err}");
}

/// A one-triangle glTF whose buffer is the file `uri` names.
fn triangle_gltf(uri: &str, byte_length: usize) -> String {
    serde_json::json!({
        "asset": { "version": "2.0" },
        "buffers": [{ "uri": uri, "byteLength": byte_length }],
        "bufferViews": [{ "buffer": 0, "byteLength": 36 }],
        "accessors": [{ "bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3" }],
        "meshes": [{ "primitives": [{ "attributes": { "POSITION": 0 } }] }]
    })
    .to_string()
}

fn triangle_bytes() -> Vec<u8> {
    [0.0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect()
}

/// External buffers are read only from inside the glTF's folder (or `--resource-root`):
/// every other form is refused with status 1 and a message saying why, and nothing of
/// the outside file reaches the output.
#[test]
fn gltf_buffers_stay_inside_their_folder() {
    let bin = env!("CARGO_BIN_EXE_meshcodec");
    let top = tempfile::tempdir().unwrap();
    let secret = top.path().join("secret.bin");
    std::fs::write(&secret, triangle_bytes()).unwrap();
    let dir = top.path().join("upload");
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join("my model.bin"), triangle_bytes()).unwrap();
    std::fs::create_dir(dir.join("folder.bin")).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(&secret, dir.join("link.bin")).unwrap();
    let out = top.path().join("out.mesh");
    let import = |uri: &str, len: usize, extra: &[&std::ffi::OsStr]| {
        let gltf = dir.join("x.gltf");
        std::fs::write(&gltf, triangle_gltf(uri, len)).unwrap();
        let _ = std::fs::remove_file(&out);
        let mut cmd = std::process::Command::new(bin);
        cmd.args(["import".as_ref(), gltf.as_os_str(), out.as_os_str()])
            .args(["--to", "4.00"])
            .args(extra);
        cmd.output().unwrap()
    };
    // Allowed: a percent-encoded name inside the folder.
    let o = import("my%20model.bin", 36, &[]);
    assert!(o.status.success(), "{o:?}");
    assert!(out.exists());
    let secret_path = secret.to_string_lossy().into_owned();
    let file_uri = format!("file://{secret_path}");
    let refused: Vec<(&str, usize, &str)> = vec![
        ("../secret.bin", 36, "leaving the glTF's folder"),
        ("%2e%2e/secret.bin", 36, "leaving the glTF's folder"),
        (&secret_path, 36, "absolute path"),
        (&file_uri, 36, "a file: URI"),
        ("http://example.com/x.bin", 36, "a http: URI"),
        ("/dev/zero", 4 << 30, "absolute path"),
        ("folder.bin", 36, "not a regular file"),
        ("my%20model.bin", 4 << 30, "byteLength declares"),
        ("my%2model.bin", 36, "malformed percent-encoding"),
        #[cfg(unix)]
        ("link.bin", 36, "leads out of"),
    ];
    for (uri, len, why) in refused {
        let o = import(uri, len, &[]);
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert_eq!(o.status.code(), Some(1), "{uri}: {err}");
        assert!(err.contains(why), "{uri}: {why:?} in {err}");
        assert!(!out.exists(), "{uri}");
    }
    // --resource-root names a wider folder on purpose: the link may then be followed.
    #[cfg(unix)]
    {
        let o = import(
            "link.bin",
            36,
            &["--resource-root".as_ref(), top.path().as_os_str()],
        );
        assert!(o.status.success(), "{o:?}");
    }
}

/// OBJ's V runs up from the image's bottom, glTF's (and the scene's) down from its top:
/// export writes 1 − v and import turns it back, exactly for every V a mesh holds.
#[test]
fn obj_texture_coordinates_flip_v_exactly() {
    use meshcodec::scene::{ExportMesh, Primitive, Scene};
    let vs: Vec<f32> = [
        0.0,
        1.0,
        0.25,
        0.3,
        0.1,
        -2.75,
        7.999_999_5,
        1e-5,
        3.0e-9,
        -0.5,
        1234.567,
    ]
    .into_iter()
    // Magnitudes from 2⁻²⁹ to 2¹⁵, both signs.
    .chain((0..2000).map(|i| f32::from_bits(0x3100_0000 + i * 0x0002_D0E5 + (i & 1) * 0x8000_0000)))
    .collect();
    let n = vs.len();
    let scene = Scene {
        meshes: vec![ExportMesh {
            name: "uv".into(),
            lod: 0,
            primitives: vec![Primitive {
                positions: (0..n).map(|i| [i as f32, 0.0, 0.0]).collect(),
                uvs: Some(vs.iter().map(|&v| [0.5, v]).collect()),
                triangles: (0..n as u32 / 3)
                    .map(|t| [3 * t, 3 * t + 1, 3 * t + 2])
                    .collect(),
                ..Primitive::default()
            }],
        }],
        ..Scene::default()
    };
    let text = obj::to_obj(&scene).unwrap();
    assert!(
        text.contains("\nvt 0.5 0.75\n"),
        "v 0.25 is written as 1 − 0.25"
    );
    assert!(text.contains("\nvt 0.5 1\n") && text.contains("\nvt 0.5 0\n"));
    let back = import::read_obj(&text).unwrap();
    let got = back.meshes[0].primitives[0].uvs.clone().unwrap();
    let want: Vec<[f32; 2]> = vs.iter().take(got.len()).map(|&v| [0.5, v]).collect();
    assert_eq!(got.len(), n / 3 * 3);
    for (g, w) in got.iter().zip(&want) {
        assert_eq!(g[1].to_bits(), w[1].to_bits(), "{w:?}");
    }
    // A hand-written file's V is turned the same way: 0.2 up from the bottom is 0.8
    // down from the top.
    let s = import::read_obj("v 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0.2\nf 1/1 2/1 3/1\n").unwrap();
    assert_eq!(
        s.meshes[0].primitives[0].uvs.as_ref().unwrap()[0],
        [0.0, 0.8]
    );
}

/// A glTF whose nodes place one triangle four ways (a child of a moved parent, turned
/// and scaled; mirrored; by a matrix) and a mesh no node names: every placement comes
/// out, moved, with normals turned and a mirrored copy's winding reversed.
#[test]
fn gltf_nodes_place_and_instance_meshes() {
    let mut bin = Vec::new();
    for p in [[0f32, 0., 0.], [1., 0., 0.], [0., 1., 0.]] {
        bin.extend(p.iter().flat_map(|c| c.to_le_bytes()));
    }
    for _ in 0..3 {
        bin.extend([0f32, 0., 1.].iter().flat_map(|c| c.to_le_bytes()));
    }
    let uri = format!("data:application/octet-stream;base64,{}", base64(&bin));
    let h = std::f64::consts::FRAC_1_SQRT_2;
    let doc = |nodes: serde_json::Value, roots: serde_json::Value| {
        serde_json::json!({
            "asset": {"version": "2.0"},
            "buffers": [{"uri": uri, "byteLength": bin.len()}],
            "bufferViews": [{"buffer": 0, "byteLength": 36}, {"buffer": 0, "byteOffset": 36, "byteLength": 36}],
            "accessors": [
                {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3", "min": [0,0,0], "max": [1,1,0]},
                {"bufferView": 1, "componentType": 5126, "count": 3, "type": "VEC3"}
            ],
            "meshes": [
                {"name": "tri", "primitives": [{"attributes": {"POSITION": 0, "NORMAL": 1}}]},
                {"name": "loose", "primitives": [{"attributes": {"POSITION": 0}}]}
            ],
            "nodes": nodes,
            "scenes": [{"nodes": roots}],
            "scene": 0
        })
    };
    let nodes = serde_json::json!([
        {"name": "parent", "translation": [10, 0, 0], "children": [1]},
        {"name": "child", "mesh": 0, "rotation": [0, 0, h, h], "scale": [2, 2, 2]},
        {"name": "mirror", "mesh": 0, "scale": [-1, 1, 1]},
        {"name": "matrix", "mesh": 0, "matrix": [1,0,0,0, 0,1,0,0, 0,0,1,0, 0,0,5,1]}
    ]);
    let s = import::read_gltf(
        &serde_json::to_vec(&doc(nodes, serde_json::json!([0, 2, 3]))).unwrap(),
        None,
    )
    .unwrap();
    let names: Vec<&str> = s.meshes.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["child", "mirror", "matrix", "loose"]);
    let close = |a: [f32; 3], b: [f32; 3]| a.iter().zip(&b).all(|(x, y)| (x - y).abs() < 1e-5);
    let prim = |k: usize| &s.meshes[k].primitives[0];
    // Child: scaled by 2, turned a quarter about +Z, then moved by the parent's +10 x.
    let c = prim(0);
    assert!(close(c.positions[0], [10.0, 0.0, 0.0]), "{:?}", c.positions);
    assert!(close(c.positions[1], [10.0, 2.0, 0.0]), "{:?}", c.positions);
    assert!(close(c.positions[2], [8.0, 0.0, 0.0]), "{:?}", c.positions);
    assert!(close(c.normals.as_ref().unwrap()[0], [0.0, 0.0, 1.0]));
    assert_eq!(c.triangles, [[0, 1, 2]]);
    // Mirror: x negated, the winding reversed so the normal still points out of the front.
    let m = prim(1);
    assert_eq!(m.positions[1], [-1.0, 0.0, 0.0]);
    assert_eq!(m.triangles, [[0, 2, 1]]);
    assert!(close(m.normals.as_ref().unwrap()[0], [0.0, 0.0, 1.0]));
    // Matrix: moved +5 z. The loose mesh, named by no node, as stored.
    assert_eq!(prim(2).positions[2], [0.0, 1.0, 5.0]);
    assert_eq!(prim(3).positions[1], [1.0, 0.0, 0.0]);

    // Nodes must form trees: a cycle is an error, not an endless walk.
    let cycle = serde_json::json!([{"mesh": 0, "children": [1]}, {"children": [0]}]);
    let e = import::read_gltf(
        &serde_json::to_vec(&doc(cycle, serde_json::json!([0]))).unwrap(),
        None,
    )
    .unwrap_err();
    assert!(e.to_string().contains("reached twice"), "{e}");
}

fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for c in bytes.chunks(3) {
        let n = (u32::from(c[0]) << 16)
            | (u32::from(*c.get(1).unwrap_or(&0)) << 8)
            | u32::from(*c.get(2).unwrap_or(&0));
        for k in 0..4 {
            if k <= c.len() {
                out.push(A[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// `KHR_mesh_quantization` (16-bit integer positions, their scale in the node) and a
/// sparse accessor without a buffer view (zeros, two elements replaced) read as the
/// glTF specification says.
#[test]
fn quantized_and_sparse_accessors() {
    let mut bin = Vec::new();
    for p in [[0i16, 0, 0], [100, 0, 0], [0, 100, 0]] {
        bin.extend(p.iter().flat_map(|c| c.to_le_bytes()));
    }
    bin.extend([0, 0]); // to 20 bytes
    bin.extend([1u8, 2, 0, 0]); // sparse indices, padded to 4
    for p in [[2f32, 0., 0.], [0., 2., 0.]] {
        bin.extend(p.iter().flat_map(|c| c.to_le_bytes()));
    }
    let uri = format!("data:application/octet-stream;base64,{}", base64(&bin));
    let doc = serde_json::json!({
        "asset": {"version": "2.0"},
        "extensionsUsed": ["KHR_mesh_quantization"],
        "extensionsRequired": ["KHR_mesh_quantization"],
        "buffers": [{"uri": uri, "byteLength": bin.len()}],
        "bufferViews": [
            {"buffer": 0, "byteLength": 18},
            {"buffer": 0, "byteOffset": 20, "byteLength": 2},
            {"buffer": 0, "byteOffset": 24, "byteLength": 24}
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5122, "count": 3, "type": "VEC3",
             "min": [0, 0, 0], "max": [100, 100, 0]},
            {"componentType": 5126, "count": 3, "type": "VEC3", "min": [0, 0, 0], "max": [2, 2, 0],
             "sparse": {"count": 2,
                        "indices": {"bufferView": 1, "componentType": 5121},
                        "values": {"bufferView": 2}}}
        ],
        "meshes": [
            {"name": "quantized", "primitives": [{"attributes": {"POSITION": 0}}]},
            {"name": "sparse", "primitives": [{"attributes": {"POSITION": 1}}]}
        ],
        "nodes": [{"mesh": 0, "scale": [0.01, 0.01, 0.01]}, {"mesh": 1}],
        "scenes": [{"nodes": [0, 1]}]
    });
    let s = import::read_gltf(&serde_json::to_vec(&doc).unwrap(), None).unwrap();
    let p = |k: usize| &s.meshes[k].primitives[0].positions;
    assert_eq!(p(0)[1], [1.0, 0.0, 0.0]);
    assert_eq!(p(0)[2], [0.0, 1.0, 0.0]);
    assert_eq!(
        *p(1),
        vec![[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [0.0, 2.0, 0.0]]
    );

    // A sparse index past the accessor's elements is an error naming it.
    let mut bad_doc = doc.clone();
    bad_doc["accessors"][1]["count"] = 2.into();
    let e = import::read_gltf(&serde_json::to_vec(&bad_doc).unwrap(), None).unwrap_err();
    assert!(e.to_string().contains("sparse: index 2 of 2"), "{e}");
}

/// `KHR_draco_mesh_compression`: a primitive compressed by the reference encoder
/// (Debian's `draco_encoder`, from an OBJ) is decoded with the crate's Draco decoder:
/// every triangle comes back with its corners' positions, normals and UVs within the
/// quantization the encoder was asked for.
#[test]
fn draco_compressed_gltf_from_the_reference_encoder() {
    let ok = std::process::Command::new("draco_encoder")
        .arg("--help")
        .output()
        .is_ok();
    if !ok {
        let ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
        assert!(
            !ci,
            "CI=true but draco_encoder (Debian package draco) is missing"
        );
        eprintln!("SKIPPED: draco_encoder not found");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let corners = [
        // (position, uv, normal) per corner of two triangles on z = 0 and two on z = 1.
        ([0.0, 0.0, 0.0], [0.0, 0.0], [0.0, 0.0, -1.0]),
        ([1.0, 1.0, 0.0], [1.0, 1.0], [0.0, 0.0, -1.0]),
        ([1.0, 0.0, 0.0], [1.0, 0.0], [0.0, 0.0, -1.0]),
        ([0.0, 0.0, 0.0], [0.0, 0.0], [0.0, 0.0, -1.0]),
        ([0.0, 1.0, 0.0], [0.0, 1.0], [0.0, 0.0, -1.0]),
        ([1.0, 1.0, 0.0], [1.0, 1.0], [0.0, 0.0, -1.0]),
        ([0.0, 0.0, 1.0], [0.0, 0.0], [0.0, 0.0, 1.0]),
        ([1.0, 0.0, 1.0], [1.0, 0.0], [0.0, 0.0, 1.0]),
        ([1.0, 1.0, 1.0], [1.0, 1.0], [0.0, 0.0, 1.0]),
        ([0.0, 0.0, 1.0], [0.0, 0.0], [0.0, 0.0, 1.0]),
        ([1.0, 1.0, 1.0], [1.0, 1.0], [0.0, 0.0, 1.0]),
        ([0.0, 1.0, 1.0], [0.0, 1.0], [0.0, 0.0, 1.0]),
    ];
    let mut obj = String::new();
    for (p, t, n) in &corners {
        obj += &format!(
            "v {} {} {}\nvt {} {}\nvn {} {} {}\n",
            p[0], p[1], p[2], t[0], t[1], n[0], n[1], n[2]
        );
    }
    for t in 0..4 {
        let k = 3 * t + 1;
        obj += &format!(
            "f {k}/{k}/{k} {}/{}/{} {}/{}/{}\n",
            k + 1,
            k + 1,
            k + 1,
            k + 2,
            k + 2,
            k + 2
        );
    }
    std::fs::write(dir.path().join("m.obj"), obj).unwrap();
    let drc = dir.path().join("m.drc");
    let out = std::process::Command::new("draco_encoder")
        .arg("-i")
        .arg(dir.path().join("m.obj"))
        .arg("-o")
        .arg(&drc)
        .args(["-qp", "14", "-qt", "12", "-qn", "10"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let bitstream = std::fs::read(&drc).unwrap();
    // The encoder numbers the OBJ's attributes itself: find each by its components.
    let limits = meshcodec::Limits::default();
    let comps = |uid: u32| {
        meshcodec::codec::draco::decode_attributes(&bitstream, &[(uid, false)], &limits)
            .ok()
            .map(|d| d.attributes[0].0)
    };
    let uv = (0..4)
        .find(|&u| comps(u) == Some(2))
        .expect("a 2-component attribute");
    let normal = (1..4)
        .find(|&u| u != uv && comps(u) == Some(3))
        .expect("normals");
    let uri = format!(
        "data:application/octet-stream;base64,{}",
        base64(&bitstream)
    );
    let doc = serde_json::json!({
        "asset": {"version": "2.0"},
        "extensionsUsed": ["KHR_draco_mesh_compression"],
        "extensionsRequired": ["KHR_draco_mesh_compression"],
        "buffers": [{"uri": uri, "byteLength": bitstream.len()}],
        "bufferViews": [{"buffer": 0, "byteLength": bitstream.len()}],
        "accessors": [
            {"componentType": 5126, "count": 8, "type": "VEC3", "min": [0,0,0], "max": [1,1,1]},
            {"componentType": 5126, "count": 8, "type": "VEC3"},
            {"componentType": 5126, "count": 8, "type": "VEC2"},
            {"componentType": 5125, "count": 12, "type": "SCALAR"}
        ],
        "meshes": [{"primitives": [{
            "attributes": {"POSITION": 0, "NORMAL": 1, "TEXCOORD_0": 2},
            "indices": 3,
            "extensions": {"KHR_draco_mesh_compression": {
                "bufferView": 0,
                "attributes": {"POSITION": 0, "NORMAL": normal, "TEXCOORD_0": uv}
            }}
        }]}]
    });
    let s = import::read_gltf(&serde_json::to_vec(&doc).unwrap(), None).unwrap();
    let p = &s.meshes[0].primitives[0];
    assert_eq!(p.triangles.len(), 4);
    let near = |a: &[f32], b: &[f32], tol: f32| a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol);
    // Each input triangle is found among the decoded ones, corner for corner (Draco may
    // start a triangle at another corner).
    for t in corners.chunks(3) {
        let found = p.triangles.iter().any(|tri| {
            (0..3).any(|rot| {
                (0..3).all(|k| {
                    let v = tri[(k + rot) % 3] as usize;
                    let (pos, uv, n) = &t[k];
                    near(&p.positions[v], pos, 1e-3)
                        && near(&p.uvs.as_ref().unwrap()[v], uv, 1e-3)
                        && near(&p.normals.as_ref().unwrap()[v], n, 1e-2)
                })
            })
        });
        assert!(found, "{t:?} in {p:?}");
    }
}

/// CSGPHS holds convex hulls: a primitive that is not convex (a cube with one corner
/// pushed in) is refused, naming it; the same cube unharmed (either winding) imports.
#[test]
fn csgphs_import_refuses_shapes_that_are_not_convex() {
    let cube = |dent: f32| {
        let mut v: Vec<String> = Vec::new();
        for i in 0..8 {
            let (x, y, z) = ((i & 1) as f32, ((i >> 1) & 1) as f32, ((i >> 2) & 1) as f32);
            let d = if i == 7 { dent } else { 0.0 };
            v.push(format!("v {} {} {}", x - d, y - d, z - d));
        }
        // Outward quads (1-based OBJ indices).
        let faces = "f 1 3 4 2\nf 5 6 8 7\nf 1 2 6 5\nf 3 7 8 4\nf 1 5 7 3\nf 2 4 8 6\n";
        format!("{}\n{faces}", v.join("\n"))
    };
    let target = meshcodec::Target::for_import("7").unwrap();
    let options = meshcodec::ConvertOptions::default();
    let good = import::read_obj(&cube(0.0)).unwrap();
    meshcodec::import(&good, &target, &options).expect("a cube is convex");
    let mut inward = good.clone();
    for t in &mut inward.meshes[0].primitives[0].triangles {
        t.swap(1, 2);
    }
    meshcodec::import(&inward, &target, &options).expect("so is an inside-out cube");
    let dented = import::read_obj(&cube(0.7)).unwrap();
    let e = meshcodec::import(&dented, &target, &options).unwrap_err();
    assert!(e.to_string().contains("is not convex"), "{e}");
    // As a FileMesh, the same shape is fine.
    let fm = meshcodec::Target::for_import("4.00").unwrap();
    meshcodec::import(&dented, &fm, &options).unwrap();
}
