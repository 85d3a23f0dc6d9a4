//! Skins, levels of detail and animations through glTF into FileMesh: every skinned
//! FileMesh fixture and corpus file, exported with every LOD and imported again, keeps
//! its bones, its LODs and every face corner's influences; glTF files written here by
//! hand (not by our exporter) cover what other tools produce: more than 26 bones, skins
//! whose inverse bind matrices carry a scale, `MSFT_lod`, LOD names, and animation
//! samplers the scene reads differently.

use crate::common;

use meshcodec::filemesh::model::{Mesh, VertexSkin};
use meshcodec::filemesh::raw::Version;
use meshcodec::scene::{gltf, import};
use serde_json::json;

fn influences(s: Option<&VertexSkin>) -> Vec<(u16, u8)> {
    let mut v: Vec<(u16, u8)> = s
        .map(|s| {
            s.influences
                .iter()
                .filter(|i| i.weight > 0)
                .map(|i| (i.bone, i.weight))
                .collect()
        })
        .unwrap_or_default();
    v.sort_unstable();
    v
}

fn lod_faces(m: &Mesh, k: usize) -> &[[u32; 3]] {
    let o = &m.lods.offsets;
    if o.len() < 2 {
        return &m.faces;
    }
    &m.faces[o[k] as usize..o[k + 1] as usize]
}

#[test]
fn skinned_filemeshes_come_back_through_gltf_with_bones_lods_and_influences() {
    let (mut checked, mut real_files) = (0, 0);
    for path in common::fixtures_and_corpus_filemeshes() {
        let m = Mesh::read(&std::fs::read(&path).unwrap()).unwrap();
        if m.skeleton.is_empty() || m.skinning.is_none() || m.faces.is_empty() {
            continue;
        }
        let ctx = path.display().to_string();
        let scene = meshcodec::filemesh::scene::to_scene_all_lods(&m, "x").unwrap();
        let glb = gltf::to_glb(&scene).unwrap();
        let back = import::read_gltf(&glb, None).unwrap();
        let imported = meshcodec::filemesh::scene::from_scene(&back).unwrap();
        // Written as a skinned version and read again, as a user would.
        let bytes = imported.to_file(Version::V5_00).unwrap().write().unwrap();
        let b = Mesh::read(&bytes).unwrap_or_else(|e| panic!("{ctx}: {e}"));
        assert_eq!(b.skeleton.len(), m.skeleton.len(), "{ctx}: bones");
        for (x, y) in m.skeleton.iter().zip(&b.skeleton) {
            assert_eq!(x.name, y.name, "{ctx}");
            assert_eq!(x.parent, y.parent, "{ctx}: parent of {}", x.name);
            for (p, q) in x.position.iter().zip(&y.position) {
                assert!((p - q).abs() <= 1e-5, "{ctx}: {} at {p} vs {q}", x.name);
            }
            for (p, q) in x.rotation.iter().zip(&y.rotation) {
                assert!((p - q).abs() <= 1e-5, "{ctx}: {} rotation", x.name);
            }
            // The culling distance is recomputed (the distance to the furthest vertex
            // the bone influences): Roblox's own numbers, to rounding, in real files
            // (the fixtures' numbers are made up).
            let real = !path.starts_with(common::fixture_dir(""));
            assert!(
                !real || (x.culling - y.culling).abs() <= 1e-5 * (1.0 + x.culling),
                "{ctx}: {} culling {} vs {}",
                x.name,
                x.culling,
                y.culling
            );
        }
        assert_eq!(b.lods.count(), m.lods.count(), "{ctx}: LODs");
        let (sa, sb) = (m.skinning.as_ref().unwrap(), b.skinning.as_ref().unwrap());
        for k in 0..m.lods.count() {
            let (fa, fb) = (lod_faces(&m, k), lod_faces(&b, k));
            assert_eq!(fa.len(), fb.len(), "{ctx}: LOD {k} faces");
            for (x, y) in fa.iter().zip(fb) {
                for c in 0..3 {
                    let (va, vb) = (x[c] as usize, y[c] as usize);
                    assert_eq!(
                        m.vertices[va].position, b.vertices[vb].position,
                        "{ctx}: LOD {k}"
                    );
                    assert_eq!(
                        influences(sa.get(va)),
                        influences(sb.get(vb)),
                        "{ctx}: LOD {k} vertex {va}"
                    );
                }
            }
        }
        checked += 1;
        real_files += usize::from(!path.starts_with(common::fixture_dir("")));
    }
    eprintln!("{checked} skinned files, {real_files} of them real");
    assert!(checked >= 2, "{checked} skinned files");
}

/// A GLB of `doc` with `bin` as its buffer.
fn glb(mut doc: serde_json::Value, bin: &[u8]) -> Vec<u8> {
    doc["asset"] = json!({ "version": "2.0" });
    doc["buffers"] = json!([{ "byteLength": bin.len() }]);
    let mut json = serde_json::to_vec(&doc).unwrap();
    while !json.len().is_multiple_of(4) {
        json.push(b' ');
    }
    let mut bin = bin.to_vec();
    while !bin.len().is_multiple_of(4) {
        bin.push(0);
    }
    let mut out = Vec::new();
    out.extend(b"glTF");
    out.extend(2u32.to_le_bytes());
    out.extend(((12 + 8 + json.len() + 8 + bin.len()) as u32).to_le_bytes());
    out.extend((json.len() as u32).to_le_bytes());
    out.extend(b"JSON");
    out.extend(&json);
    out.extend((bin.len() as u32).to_le_bytes());
    out.extend(b"BIN\0");
    out.extend(&bin);
    out
}

/// Appends little-endian f32s (or u8s/u32s via `put`) and returns their bufferView.
struct Bin {
    bytes: Vec<u8>,
    views: Vec<serde_json::Value>,
    accessors: Vec<serde_json::Value>,
}

impl Bin {
    fn new() -> Bin {
        Bin {
            bytes: Vec::new(),
            views: Vec::new(),
            accessors: Vec::new(),
        }
    }

    fn add(&mut self, data: Vec<u8>, count: usize, ty: &str, component: u32) -> usize {
        while !self.bytes.len().is_multiple_of(4) {
            self.bytes.push(0);
        }
        self.views.push(json!({
            "buffer": 0, "byteOffset": self.bytes.len(), "byteLength": data.len()
        }));
        self.bytes.extend(data);
        self.accessors.push(json!({
            "bufferView": self.views.len() - 1, "componentType": component,
            "count": count, "type": ty
        }));
        self.accessors.len() - 1
    }

    fn floats(&mut self, v: &[f32], ty: &str, n: usize) -> usize {
        let data = v.iter().flat_map(|x| x.to_le_bytes()).collect();
        self.add(data, v.len() / n, ty, 5126)
    }

    fn finish(self, mut doc: serde_json::Value) -> Vec<u8> {
        doc["bufferViews"] = json!(self.views);
        doc["accessors"] = json!(self.accessors);
        glb(doc, &self.bytes)
    }
}

/// A strip of `n` quads along X, quad `k` bound wholly to joint `k`, with `n` joints in
/// a chain one unit apart; `ibm_scale` is put into every inverse bind matrix (and the
/// positions divided by it, as quantizing tools do).
fn strip(n: usize, ibm_scale: f32) -> Vec<u8> {
    let mut bin = Bin::new();
    let (mut pos, mut joints, mut weights, mut idx) = (vec![], vec![], vec![], vec![]);
    for k in 0..n {
        let base = (k * 4) as u32;
        for (dx, y) in [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)] {
            pos.extend([(k as f32 + dx) / ibm_scale, y / ibm_scale, 0.0]);
            joints.extend([k as u8, 0, 0, 0]);
            weights.extend([1.0f32, 0.0, 0.0, 0.0]);
        }
        idx.extend([base, base + 1, base + 2, base, base + 2, base + 3]);
    }
    let p = bin.floats(&pos, "VEC3", 3);
    let j = bin.add(joints, n * 4, "VEC4", 5121);
    let w = bin.floats(&weights, "VEC4", 4);
    let i = bin.add(
        idx.iter().flat_map(|x| x.to_le_bytes()).collect(),
        idx.len(),
        "SCALAR",
        5125,
    );
    // Joint k at x = k (a chain: each one unit from its parent).
    let mut ibms = Vec::new();
    for k in 0..n {
        let s = ibm_scale;
        ibms.extend([s, 0.0, 0.0, 0.0, 0.0, s, 0.0, 0.0, 0.0, 0.0, s, 0.0]);
        ibms.extend([-(k as f32), 0.0, 0.0, 1.0]);
    }
    let ibm = bin.floats(&ibms, "MAT4", 16);
    let mut nodes = vec![json!({ "mesh": 0, "skin": 0, "name": "body" })];
    for k in 0..n {
        let mut node = json!({ "name": format!("bone{k}"), "translation": [if k == 0 { 0.0 } else { 1.0 }, 0.0, 0.0] });
        if k + 1 < n {
            node["children"] = json!([k + 2]);
        }
        nodes.push(node);
    }
    let doc = json!({
        "scene": 0,
        "scenes": [{ "nodes": [0, 1] }],
        "nodes": nodes,
        "skins": [{ "joints": (1..=n).collect::<Vec<_>>(), "inverseBindMatrices": ibm }],
        "meshes": [{ "name": "strip", "primitives": [{
            "attributes": { "POSITION": p, "JOINTS_0": j, "WEIGHTS_0": w },
            "indices": i
        }]}]
    });
    bin.finish(doc)
}

#[test]
fn more_than_26_bones_make_valid_subsets() {
    let n = 60;
    let scene = import::read_gltf(&strip(n, 1.0), None).unwrap();
    assert!(scene.notes.is_empty(), "{:?}", scene.notes);
    assert_eq!(scene.skeleton.as_ref().unwrap().joints.len(), n);
    let mesh = meshcodec::filemesh::scene::from_scene(&scene).unwrap();
    for v in [
        Version::V4_00,
        Version::V5_00,
        Version::V6_00,
        Version::V7_00,
    ] {
        let bytes = mesh.to_file(v).unwrap().write().unwrap();
        let raw = meshcodec::filemesh::raw::FileMesh::read(&bytes).unwrap();
        let back = Mesh::read(&bytes).unwrap();
        let info = raw.info().unwrap();
        assert!(
            info.subsets >= 3,
            "{v}: {} subsets for {n} bones",
            info.subsets
        );
        // Every face corner is bound wholly to the bone of its quad.
        let skin = back.skinning.as_ref().unwrap();
        for (q, f) in back.faces.iter().enumerate() {
            for &c in f {
                assert_eq!(
                    influences(skin.get(c as usize)),
                    vec![((q / 2) as u16, 255)],
                    "{v}: face {q}"
                );
            }
        }
        // And the bones sit one unit apart, each the child of the one before.
        for (k, b) in back.skeleton.iter().enumerate() {
            assert_eq!(b.position, [k as f32, 0.0, 0.0], "{v}");
            assert_eq!(b.parent, k.checked_sub(1).map(|p| p as u16), "{v}");
        }
    }
}

#[test]
fn bind_matrices_with_a_scale_put_vertices_where_the_skin_draws_them() {
    // Positions stored at a quarter size, the factor 4 in the inverse bind matrices.
    let scene = import::read_gltf(&strip(3, 4.0), None).unwrap();
    let p = &scene.meshes[0].primitives[0];
    assert_eq!(p.positions[2], [1.0, 1.0, 0.0]);
    assert_eq!(p.positions[5], [2.0, 0.0, 0.0]);
    let s = scene.skeleton.as_ref().unwrap();
    // Each inverse bind matrix is now the inverse of the joint's world matrix.
    for (k, j) in s.joints.iter().enumerate() {
        assert_eq!(j.inverse_bind_matrix[0], 1.0);
        assert_eq!(j.inverse_bind_matrix[12], -(k as f32));
    }
    // The same file without the factor reads to the same scene.
    let plain = import::read_gltf(&strip(3, 1.0), None).unwrap();
    assert_eq!(plain.meshes[0].primitives[0].positions, p.positions);
}

/// Three quads: one placed by a node with `MSFT_lod` listing two coarser nodes.
fn lod_doc(named: bool) -> Vec<u8> {
    let mut bin = Bin::new();
    let quad = |bin: &mut Bin, size: f32| {
        let p = bin.floats(
            &[
                0.0, 0.0, 0.0, size, 0.0, 0.0, size, size, 0.0, 0.0, size, 0.0,
            ],
            "VEC3",
            3,
        );
        let i = bin.add(
            [0u16, 1, 2, 0, 2, 3]
                .iter()
                .flat_map(|x| x.to_le_bytes())
                .collect(),
            6,
            "SCALAR",
            5123,
        );
        json!({ "attributes": { "POSITION": p }, "indices": i })
    };
    let meshes: Vec<_> = [1.0, 2.0, 3.0]
        .iter()
        .enumerate()
        .map(|(k, &s)| json!({ "name": format!("rock_LOD{k}"), "primitives": [quad(&mut bin, s)] }))
        .collect();
    let doc = if named {
        json!({
            "scenes": [{ "nodes": [0, 1, 2] }],
            "nodes": [{ "mesh": 2 }, { "mesh": 0 }, { "mesh": 1 }],
            "meshes": meshes,
        })
    } else {
        json!({
            "extensionsUsed": ["MSFT_lod"],
            "scenes": [{ "nodes": [0] }],
            "nodes": [
                { "mesh": 0, "name": "rock", "extensions": { "MSFT_lod": { "ids": [1, 2] } } },
                { "mesh": 1, "name": "coarse" },
                { "mesh": 2, "name": "coarsest" }
            ],
            "meshes": meshes,
        })
    };
    bin.finish(doc)
}

#[test]
fn msft_lod_and_lod_names_become_filemesh_lods() {
    for named in [false, true] {
        let scene = import::read_gltf(&lod_doc(named), None).unwrap();
        assert!(scene.notes.is_empty(), "{:?}", scene.notes);
        let mut lods: Vec<usize> = scene.meshes.iter().map(|m| m.lod).collect();
        lods.sort_unstable();
        assert_eq!(lods, [0, 1, 2], "named: {named}");
        let mesh = meshcodec::filemesh::scene::from_scene(&scene).unwrap();
        assert_eq!(mesh.lods.offsets, [0, 2, 4, 6]);
        // LOD k is the quad of size k + 1.
        for k in 0..3 {
            let f = lod_faces(&mesh, k)[0];
            assert_eq!(mesh.vertices[f[1] as usize].position[0], (k + 1) as f32);
        }
        let bytes = mesh.to_file(Version::V4_00).unwrap().write().unwrap();
        assert_eq!(Mesh::read(&bytes).unwrap().lods.offsets, [0, 2, 4, 6]);
        // A target without LODs keeps the full detail and names the rest.
        let c = meshcodec::import(
            &scene,
            &meshcodec::Target::FileMesh(Version::V2_00),
            &Default::default(),
        )
        .unwrap();
        assert_eq!(Mesh::read(&c.bytes).unwrap().faces.len(), 2);
        let text: Vec<String> = c.losses.iter().map(|l| l.to_string()).collect();
        assert!(
            text.iter()
                .any(|l| l.contains("2 coarser levels of detail")),
            "{text:?}"
        );
    }
}

#[test]
fn animation_samplers_the_scene_reads_differently_are_named() {
    let mut bin = Bin::new();
    let p = bin.floats(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0], "VEC3", 3);
    let j = bin.add(vec![0; 12], 3, "VEC4", 5121);
    let w = bin.floats(&[1.0, 0.0, 0.0, 0.0].repeat(3), "VEC4", 4);
    let t = bin.floats(&[0.0, 1.0], "SCALAR", 1);
    let lin = bin.floats(&[0.0, 0.0, 0.0, 0.0, 2.0, 0.0], "VEC3", 3);
    // Cubic spline: in-tangent, value, out-tangent per key.
    let cubic = bin.floats(
        &[
            9.0, 9.0, 9.0, 1.0, 1.0, 1.0, 9.0, 9.0, 9.0, //
            9.0, 9.0, 9.0, 2.0, 2.0, 2.0, 9.0, 9.0, 9.0,
        ],
        "VEC3",
        3,
    );
    let doc = json!({
        "scenes": [{ "nodes": [0, 1, 2] }],
        "nodes": [{ "mesh": 0, "skin": 0 }, { "name": "root" }, { "name": "prop" }],
        "skins": [{ "joints": [1] }],
        "meshes": [{ "primitives": [{ "attributes": { "POSITION": p, "JOINTS_0": j, "WEIGHTS_0": w } }] }],
        "animations": [{
            "name": "walk",
            "samplers": [
                { "input": t, "output": lin },
                { "input": t, "output": cubic, "interpolation": "CUBICSPLINE" },
                { "input": t, "output": lin, "interpolation": "STEP" }
            ],
            "channels": [
                { "sampler": 0, "target": { "node": 1, "path": "translation" } },
                { "sampler": 1, "target": { "node": 1, "path": "scale" } },
                { "sampler": 0, "target": { "node": 2, "path": "translation" } }
            ]
        }, {
            "name": "hop",
            "samplers": [{ "input": t, "output": lin, "interpolation": "STEP" }],
            "channels": [{ "sampler": 0, "target": { "node": 1, "path": "translation" } }]
        }]
    });
    let scene = import::read_gltf(&bin.finish(doc), None).unwrap();
    assert_eq!(scene.animations.len(), 2);
    let walk = &scene.animations[0];
    assert_eq!(walk.name, "walk");
    assert_eq!(walk.channels.len(), 2);
    assert_eq!(
        walk.channels[1].values,
        meshcodec::scene::ChannelValues::Scale(vec![[1.0; 3], [2.0; 3]])
    );
    let notes: Vec<&str> = scene.notes.iter().map(|n| n.detail.as_str()).collect();
    for expected in [
        "1 animation cubic-spline channels (tangents dropped, keys kept)",
        "1 animation step channels (their keys are interpolated linearly)",
        "1 animation channels of nodes that are not joints",
    ] {
        assert!(
            notes.iter().any(|n| n.starts_with(expected)),
            "{expected:?} in {notes:?}"
        );
    }
    // A FileMesh holds no animation: import names them.
    let c = meshcodec::import(
        &scene,
        &meshcodec::Target::FileMesh(Version::V5_00),
        &Default::default(),
    )
    .unwrap();
    let text: Vec<String> = c.losses.iter().map(|l| l.to_string()).collect();
    assert!(
        text.iter()
            .any(|l| l.contains("2 animations are not carried into 5.00")),
        "{text:?}"
    );
}
