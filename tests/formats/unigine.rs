//! UNIGINE `.mesh` and `.anim`: corpus and fixture round trips, the fixtures' expected
//! values (from the independent generator `make_unigine.py`), version conversion, the CLI,
//! and property tests of the raw layer.

use crate::common;

use std::path::PathBuf;

use meshcodec::strategy::unigine::{anim as anim_of, classic_mesh, float, ms14_raw, surface};
use meshcodec::strategy::Size;
use meshcodec::unigine::raw::anim::{EmbeddedAnimation, UnigineAnim};
use meshcodec::unigine::raw::cint::{CInt, UString};
use meshcodec::unigine::raw::mesh::{Bone, BoneWeight, Bounds, ClassicMesh, Transform, Weights};
use meshcodec::unigine::{MeshBody, MeshVersion, UnigineMesh};
use meshcodec::Limits;
use proptest::prelude::*;

/// Every UNIGINE file of the corpus, found by content (`ms1x` / `an1x` magic).
fn corpus_files() -> Vec<PathBuf> {
    let Some(dir) = common::corpus() else {
        return Vec::new();
    };
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir.join("unigine"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    assert!(v.len() >= 9, "{v:?}");
    v
}

fn fixture_files() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(common::fixture_dir("unigine"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "mesh" || e == "anim"))
        .collect();
    v.sort();
    assert!(v.len() >= 9, "{v:?}");
    v
}

fn is_anim(bytes: &[u8]) -> bool {
    bytes.starts_with(b"an")
}

/// Reads and writes back a mesh or an animation; returns the bytes written.
fn round_trip(bytes: &[u8]) -> Vec<u8> {
    if is_anim(bytes) {
        UnigineAnim::read(bytes).unwrap().write().unwrap()
    } else {
        UnigineMesh::read(bytes).unwrap().write().unwrap()
    }
}

#[test]
fn corpus_and_fixtures_round_trip_byte_exact() {
    let files: Vec<PathBuf> = corpus_files().into_iter().chain(fixture_files()).collect();
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        assert!(round_trip(&bytes) == bytes, "{}", path.display());
    }
    if common::corpus().is_some() {
        assert!(files.len() >= 9 + 9);
    }
}

/// The generator's `expected.json` against what the reader finds.
#[test]
fn fixtures_match_the_generators_expectations() {
    let dir = common::fixture_dir("unigine");
    let expected: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).unwrap()).unwrap();
    let mut n = 0;
    for (name, e) in expected.as_object().unwrap() {
        let bytes = std::fs::read(dir.join(name)).unwrap();
        assert_eq!(e["size"], bytes.len(), "{name}");
        if is_anim(&bytes) {
            check_anim_expectations(name, e, &UnigineAnim::read(&bytes).unwrap());
            n += 1;
            continue;
        }
        let m = UnigineMesh::read(&bytes).unwrap();
        let b = &m.to_classic(&Limits::default()).unwrap();
        assert_eq!(e["version"], m.version.to_string(), "{name}");
        let bones: Vec<(String, i64)> = e["bones"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| {
                (
                    x["name"].as_str().unwrap().to_string(),
                    x["parent"].as_i64().unwrap(),
                )
            })
            .collect();
        let ours: Vec<(String, i64)> = b
            .bones
            .iter()
            .map(|x| (x.name.text(), i64::from(x.parent)))
            .collect();
        assert_eq!(ours, bones, "{name}");
        // Only ms10–ms12 name animations.
        let animations = e.get("animations").and_then(|a| a.as_u64()).unwrap_or(0);
        assert_eq!(animations, b.animations.len() as u64, "{name}");
        if let Some(list) = e.get("embedded_animations") {
            let got: Vec<serde_json::Value> = b
                .animation_names
                .iter()
                .zip(&b.animations)
                .map(|(n, a)| {
                    serde_json::json!({
                        "name": n.text(),
                        "bones": a.bones.len(),
                        "frames": a.frame_count,
                        "keys": a.keys.iter().filter(|k| k.mask.into_bytes()[0] != 0).count(),
                    })
                })
                .collect();
            assert_eq!(list, &serde_json::json!(got), "{name}");
        }
        let trees: Vec<Option<meshcodec::unigine::raw::ms14::Ms14Tree>> = match &m.body {
            MeshBody::Ms14(x) => (0..x.surfaces.len())
                .map(|i| Some(x.tree(i, &Limits::default()).unwrap()))
                .collect(),
            MeshBody::Classic(_) => vec![None; b.surfaces.len()],
        };
        let surfaces = e["surfaces"].as_array().unwrap();
        assert_eq!(surfaces.len(), b.surfaces.len(), "{name}");
        for (((s, h), d), tree) in surfaces.iter().zip(&b.surfaces).zip(&b.data).zip(&trees) {
            assert_eq!(s["name"], h.name.text(), "{name}");
            if let Some(t) = tree {
                assert_eq!(s["tree_nodes"], t.nodes.len(), "{name}");
                assert_eq!(s["edge_flags"], t.edge_flags.len(), "{name}");
            }
            let targets: Vec<String> = h.targets.iter().map(UString::text).collect();
            assert_eq!(s["targets"], serde_json::json!(targets), "{name}");
            let t0 = &d.targets[0];
            assert_eq!(s["vertices"], t0.positions.len(), "{name}");
            assert_eq!(s["tangents"], t0.tangents.len(), "{name}");
            assert_eq!(s["weights"], d.weights.counts.len(), "{name}");
            assert_eq!(s["uv0"], d.uv0.len(), "{name}");
            assert_eq!(s["uv1"], d.uv1.len(), "{name}");
            assert_eq!(s["colors"], d.colors.len(), "{name}");
            assert_eq!(
                s["coordinate_indices"]["count"],
                d.coordinate_indices.len(),
                "{name}"
            );
            assert_eq!(
                s["triangle_indices"]["count"],
                d.triangle_indices.len(),
                "{name}"
            );
            if let Some(l) = s.get("lightmap") {
                assert_eq!(
                    l,
                    &serde_json::json!([h.lightmap_channel, h.lightmap_resolution]),
                    "{name}"
                );
            }
            // Every corner's indices point inside their arrays.
            assert!(d
                .coordinate_indices
                .iter()
                .all(|&i| (i as usize) < t0.positions.len()));
            assert!(d
                .triangle_indices
                .iter()
                .all(|&i| (i as usize) < t0.tangents.len()));
        }
        n += 1;
    }
    assert!(n >= 15, "{n}");
}

fn check_anim_expectations(name: &str, e: &serde_json::Value, a: &UnigineAnim) {
    assert_eq!(e["version"], a.version(), "{name}");
    let info = a.info();
    let bones: Vec<serde_json::Value> = match a {
        UnigineAnim::An10(f) => &f.bones,
        UnigineAnim::An11(f) => &f.bones,
    }
    .iter()
    .map(|b| serde_json::json!({"name": b.name.text(), "parent": b.parent}))
    .collect();
    assert_eq!(e["bones"], serde_json::json!(bones), "{name}");
    let clips: Vec<serde_json::Value> = info
        .animations
        .iter()
        .map(|c| {
            serde_json::json!({
                "name": c.name,
                "bones": c.animated_bones,
                "frames": c.frames,
                "keys": c.stored_keys,
            })
        })
        .collect();
    assert_eq!(e["animations"], serde_json::json!(clips), "{name}");
}

/// The real skinned mesh and the an10 file share their skeleton and bind pose, and the
/// an10 translation of frame 0 decodes (box + u16) to the mesh's stored f32 values
/// within one quantization step.
#[test]
fn an10_decodes_to_the_embedded_f32_frame() {
    let Some(dir) = common::corpus() else { return };
    let file =
        UnigineMesh::read(&std::fs::read(dir.join("unigine/ms11-arm-skinned.mesh")).unwrap())
            .unwrap();
    let mesh = file.classic().unwrap();
    let UnigineAnim::An10(anim) =
        UnigineAnim::read(&std::fs::read(dir.join("unigine/an10-arm.anim")).unwrap()).unwrap()
    else {
        panic!("an10 expected")
    };
    assert_eq!(mesh.bones, anim.bones);
    assert_eq!(mesh.bind_pose, anim.bind_pose);
    let (emb, a10) = (&mesh.animations[0], &anim.animations[0]);
    assert_eq!(emb.bones, a10.bones);
    let mut compared = 0;
    for (k_emb, k10) in emb.keys.iter().zip(&a10.keys).take(emb.bones.len()) {
        assert_eq!(k_emb.rotation, k10.rotation);
        for axis in 0..3 {
            let step = a10.translation_box.size[axis] / 65535.0;
            let got = a10.translation_box.decode(axis, k10.translation[axis]);
            let want = k_emb.translation[axis];
            assert!(
                want >= got - 1e-4 && want - got <= step * 1.001 + 1e-4,
                "axis {axis}: {got} vs {want} (step {step})"
            );
            compared += 1;
        }
    }
    assert_eq!(compared, 120);
}

/// Every mesh of the corpus and the fixtures (ms14 too) to every version: what the loss
/// report leaves out is kept exactly, and each conversion with an empty report (what
/// `convert --to V` accepts without `--allow-lossy`) comes back to the original bytes.
#[test]
fn lossless_conversions_come_back_byte_identical() {
    let files: Vec<PathBuf> = corpus_files()
        .into_iter()
        .chain(fixture_files())
        .filter(|p| !is_anim(&std::fs::read(p).unwrap()))
        .collect();
    let (mut lossless, mut lossy) = (0, 0);
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        let m = UnigineMesh::read(&bytes).unwrap();
        let classic = m.to_classic(&Limits::default()).unwrap();
        for target in MeshVersion::ALL {
            if target == m.version {
                continue;
            }
            let what = format!("{} → {target}", path.display());
            let losses = m.losses(target).unwrap();
            // The real ms14 files' trees, edge flags and LZ4 blocks are UNIGINE's own, so
            // going to ms12 or ms13 loses only the memory estimate (formula unknown).
            let real = !path.starts_with(common::fixture_dir("unigine"));
            if real && m.version == MeshVersion::Ms14 && target >= MeshVersion::Ms12 {
                let got: Vec<String> = losses.iter().map(ToString::to_string).collect();
                assert_eq!(got.len(), 1, "{what}: {got:?}");
                assert!(got[0].starts_with("the memory estimate"), "{what}: {got:?}");
            }
            let there = m.to_version(target).unwrap();
            let written = there.write().unwrap();
            let again = UnigineMesh::read(&written).unwrap();
            assert_eq!(again, there, "{what}");
            if losses.is_empty() {
                let back = again.to_version(m.version).unwrap();
                assert!(back.write().unwrap() == bytes, "{what} → back");
                lossless += 1;
            } else {
                lossy += 1;
            }
            // Geometry survives every conversion.
            let got = &again.to_classic(&Limits::default()).unwrap();
            for (a, b) in classic.data.iter().zip(&got.data) {
                assert_eq!(a.coordinate_indices, b.coordinate_indices, "{what}");
                assert_eq!(a.triangle_indices, b.triangle_indices, "{what}");
                assert_eq!(fbits(&a.uv0), fbits(&b.uv0), "{what}");
                assert_eq!(fbits(&a.uv1), fbits(&b.uv1), "{what}");
                assert_eq!(a.weights, b.weights, "{what}");
                for (x, y) in a.targets.iter().zip(&b.targets) {
                    assert_eq!(fbits(&x.positions), fbits(&y.positions), "{what}");
                }
            }
        }
    }
    eprintln!(
        "{} meshes: {lossless} conversions with an empty report, all byte-identical back; \
         {lossy} reported lossy",
        files.len()
    );
    // The fixtures alone give 17 lossless conversions; the corpus adds more.
    let (min_lossless, min_lossy) = if common::corpus().is_some() {
        (25, 50)
    } else {
        (15, 30)
    };
    assert!(lossless >= min_lossless, "{lossless}");
    assert!(lossy >= min_lossy, "{lossy}");
}

/// The real ms14 files rebuilt from their decoded geometry alone (trees, edge flags, LZ4
/// blocks, offsets all recomputed; only UNIGINE's memory estimate, whose formula is
/// unknown, taken from the file) are byte-identical to the originals.
#[test]
fn ms14_rebuilt_from_geometry_is_byte_identical() {
    use meshcodec::unigine::raw::ms14::Ms14Mesh;
    let mut n = 0;
    for path in corpus_files() {
        let bytes = std::fs::read(&path).unwrap();
        if !bytes.starts_with(b"ms14") {
            continue;
        }
        let m = UnigineMesh::read(&bytes).unwrap();
        let MeshBody::Ms14(orig) = &m.body else {
            unreachable!()
        };
        let classic = m.to_classic(&Limits::default()).unwrap();
        // Written as it is built: the same bytes.
        let written = Ms14Mesh::write_classic(classic.clone(), Some(orig.memory_estimate));
        assert!(written.unwrap() == bytes, "{}", path.display());
        let rebuilt = Ms14Mesh::from_classic(classic, Some(orig.memory_estimate)).unwrap();
        for i in 0..orig.surfaces.len() {
            assert_eq!(
                rebuilt.tree(i, &Limits::default()).unwrap(),
                orig.tree(i, &Limits::default()).unwrap(),
                "{}: tree of surface {i}",
                path.display()
            );
        }
        let again = UnigineMesh {
            version: MeshVersion::Ms14,
            body: MeshBody::Ms14(rebuilt),
        };
        assert!(again.write().unwrap() == bytes, "{}", path.display());
        n += 1;
    }
    if common::corpus().is_some() {
        assert_eq!(n, 2);
    }
}

/// ms14: each decompressed payload parses to the end and serialises back to the same
/// bytes; the spatial tree is consistent with the geometry (references are a permutation
/// of the triangles, leaves cover them in order, node boxes bound their triangles).
#[test]
fn ms14_payloads_and_trees() {
    use binrw::BinWrite;
    let limits = Limits::default();
    let (mut surfaces, mut recompressed) = (0, 0);
    for path in corpus_files().into_iter().chain(fixture_files()) {
        let bytes = std::fs::read(&path).unwrap();
        if !bytes.starts_with(b"ms14") {
            continue;
        }
        let m = UnigineMesh::read(&bytes).unwrap();
        let MeshBody::Ms14(ms14) = &m.body else {
            panic!("{}: ms14 body expected", path.display())
        };
        for i in 0..ms14.surfaces.len() {
            let raw = ms14.blocks.geometry[i].decompress(&limits).unwrap();
            // Real blocks: UNIGINE's LZ4 settings give the stored bytes again.
            if !path.starts_with(common::fixture_dir("unigine")) {
                for b in [&ms14.blocks.geometry[i], &ms14.blocks.trees[i]] {
                    let again = meshcodec::unigine::raw::ms14::Lz4Block::compress(
                        &b.decompress(&limits).unwrap(),
                    );
                    assert!(&again == b, "{}: LZ4 block not reproduced", path.display());
                    recompressed += 1;
                }
            }
            let g = ms14.geometry(i, &limits).unwrap();
            assert_eq!(
                ms14.geometry_bytes(i, &g).unwrap(),
                raw,
                "{}",
                path.display()
            );
            let raw_tree = ms14.blocks.trees[i].decompress(&limits).unwrap();
            let t = ms14.tree(i, &limits).unwrap();
            let mut out = std::io::Cursor::new(Vec::new());
            t.write_le(&mut out).unwrap();
            assert_eq!(out.into_inner(), raw_tree, "{}", path.display());

            let n = g.coordinate_indices.len() / 3;
            assert_eq!(t.edge_flags.len(), n);
            let mut refs: Vec<i32> = t.triangle_refs.iter().map(|c| c.0).collect();
            refs.sort_unstable();
            assert_eq!(refs, (0..n as i32).map(|k| 3 * k).collect::<Vec<_>>());
            let positions = &g.targets[0].positions;
            let mut covered = 0;
            for (node, bb) in t.nodes.iter().zip(&t.node_bounds) {
                if node.left.0 == -1 {
                    assert_eq!(node.start.0, covered, "leaves follow each other");
                    covered = node.end.0;
                    for r in &t.triangle_refs[node.start.0 as usize..node.end.0 as usize] {
                        for c in 0..3 {
                            let p = positions[g.coordinate_indices[r.0 as usize + c] as usize];
                            for a in 0..3 {
                                assert!(bb[a] <= p[a] && p[a] <= bb[a + 3], "{}", path.display());
                            }
                        }
                    }
                }
            }
            assert_eq!(covered as usize, n);
            surfaces += 1;
        }
    }
    if common::corpus().is_some() {
        assert!(surfaces >= 2);
        assert_eq!(recompressed, 4);
    }
}

#[test]
fn cli_info_json_verify_and_convert() {
    let bin = env!("CARGO_BIN_EXE_meshcodec");
    let run = |args: &[&std::ffi::OsStr]| std::process::Command::new(bin).args(args).output();
    let fixtures = fixture_files();
    for path in &fixtures {
        let out = run(&["info".as_ref(), "--json".as_ref(), path.as_os_str()]).unwrap();
        assert!(out.status.success(), "{out:?}");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        if path.extension().is_some_and(|e| e == "anim") {
            assert_eq!(v["format"], "unigine-anim");
            assert!(v["bones"].is_u64() && v["animations"].is_array());
            continue;
        }
        assert_eq!(v["format"], "unigine-mesh");
        for key in ["surfaces", "vertices", "positions", "faces", "bones"] {
            assert!(v[key].is_u64(), "{}: {key}", path.display());
        }
    }
    let mut args: Vec<&std::ffi::OsStr> = vec!["verify".as_ref()];
    args.extend(fixtures.iter().map(|p| p.as_os_str()));
    assert!(run(&args).unwrap().status.success());

    let dir = tempfile::tempdir().unwrap();
    let src = common::fixture_dir("unigine").join("ms12-static-quad.mesh");
    let out = dir.path().join("out.mesh");
    // ms12 → ms11 drops the lightmap settings: refused without --allow-lossy.
    let o = run(&[
        "convert".as_ref(),
        src.as_os_str(),
        out.as_os_str(),
        "--to".as_ref(),
        "ms11".as_ref(),
    ])
    .unwrap();
    assert_eq!(o.status.code(), Some(3), "{o:?}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("lightmap"));
    // ms12 → ms13 keeps everything, and back again gives the same bytes.
    let back = dir.path().join("back.mesh");
    for (from, to, v) in [(&src, &out, "ms13"), (&out, &back, "ms12")] {
        let o = run(&[
            "convert".as_ref(),
            from.as_os_str(),
            to.as_os_str(),
            "--to".as_ref(),
            v.as_ref(),
        ])
        .unwrap();
        assert!(o.status.success(), "{o:?}");
    }
    assert_eq!(std::fs::read(&back).unwrap(), std::fs::read(&src).unwrap());
    // An unknown version is a usage error.
    let o = run(&[
        "convert".as_ref(),
        src.as_os_str(),
        out.as_os_str(),
        "--to".as_ref(),
        "ms99".as_ref(),
    ])
    .unwrap();
    assert_eq!(o.status.code(), Some(2), "{o:?}");
}

#[test]
fn anim_info_json() {
    let Some(dir) = common::corpus() else { return };
    let bin = env!("CARGO_BIN_EXE_meshcodec");
    for (name, version, frames) in [
        ("an10-arm.anim", "an10", 189),
        ("an11-small.anim", "an11", 1),
    ] {
        let out = std::process::Command::new(bin)
            .args(["info", "--json"])
            .arg(dir.join("unigine").join(name))
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["format"], "unigine-anim");
        assert_eq!(v["version"], version);
        assert_eq!(v["animations"][0]["frames"], frames);
    }
}

// ---- property tests of the raw layer ------------------------------------------------

// The generators are `meshcodec::strategy::unigine`'s, the ones downstream crates use.

fn mesh() -> impl Strategy<Value = UnigineMesh> {
    proptest::sample::select(MeshVersion::CLASSIC.to_vec())
        .prop_flat_map(|v| classic_mesh(v, Size::default()))
}

fn anim() -> impl Strategy<Value = UnigineAnim> {
    prop_oneof![
        anim_of("an10", Size::default()),
        anim_of("an11", Size::default())
    ]
}

fn ms14_mesh() -> impl Strategy<Value = UnigineMesh> {
    ms14_raw(Size::default())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// UNIGINE-style LZ4 output is valid LZ4 (decoded by lz4_flex, an independent decoder),
    /// on random and on repetitive data.
    #[test]
    fn lz4_compress_decompresses_back(data in prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..3000),
        proptest::collection::vec(0u8..4, 0..70_000),
    ]) {
        let block = meshcodec::unigine::raw::ms14::Lz4Block::compress(&data);
        prop_assert_eq!(block.decompress(&Limits::default()).unwrap(), data);
    }

    #[test]
    fn any_ms14_mesh_write_read_write(m in ms14_mesh()) {
        let bytes = m.write().unwrap();
        let again = UnigineMesh::read(&bytes).unwrap();
        prop_assert_eq!(&again, &m);
        prop_assert_eq!(again.write().unwrap(), bytes);
    }

    /// Decoded ms14 payloads (geometry and tree) of arbitrary content round-trip through
    /// stored LZ4 blocks.
    #[test]
    fn ms14_payloads_round_trip(sd in surface(MeshVersion::Ms13),
                                flags in proptest::collection::vec(any::<u8>(), 0..20),
                                refs in proptest::collection::vec(any::<i32>(), 0..20),
                                nodes in proptest::collection::vec((any::<u8>(), any::<[i32; 4]>(), proptest::array::uniform6(float()), float()), 0..6)) {
        use meshcodec::unigine::raw::ms14::{Lz4Block, Ms14Blocks, Ms14Geometry, Ms14Mesh, Ms14SurfaceHeader, Ms14Target, Ms14TargetData, Ms14Tree, TreeNode};
        use binrw::BinWrite;
        let (h, d) = sd;
        let header = Ms14SurfaceHeader {
            name: h.name.clone(),
            lightmap_channel: h.lightmap_channel,
            lightmap_resolution: h.lightmap_resolution,
            coordinate_index_count: d.coordinate_indices.len() as u32,
            triangle_index_count: d.triangle_indices.len() as u32,
            bounds: h.bounds,
            targets: h.targets.iter().zip(&d.targets)
                .map(|(n, t)| Ms14Target { name: n.clone(), vertex_count: t.positions.len() as u32 })
                .collect(),
        };
        let g = Ms14Geometry {
            targets: d.targets.iter().map(|t| Ms14TargetData { positions: t.positions.clone(), tangents: t.tangents.clone().into() }).collect(),
            weights: d.weights.clone(),
            uv0: d.uv0.clone(),
            uv1: d.uv1.clone(),
            colors: d.colors.clone(),
            coordinate_indices: d.coordinate_indices.clone(),
            triangle_indices: d.triangle_indices.clone(),
        };
        let tree = Ms14Tree {
            edge_flags: flags.into(),
            triangle_refs: refs.into_iter().map(CInt).collect(),
            nodes: nodes.iter().map(|(axis, c, _, _)| TreeNode { axis: *axis, left: CInt(c[0]), right: CInt(c[1]), start: CInt(c[2]), end: CInt(c[3]) }).collect(),
            node_bounds: nodes.iter().map(|n| n.2).collect(),
            splits: nodes.iter().map(|n| n.3).collect(),
        };
        let mut m = Ms14Mesh { surfaces: vec![header], ..Ms14Mesh::default() };
        let gbytes = m.geometry_bytes(0, &g).unwrap();
        let mut out = std::io::Cursor::new(Vec::new());
        tree.write_le(&mut out).unwrap();
        m.blocks = Ms14Blocks { geometry: vec![Lz4Block::stored(gbytes)], trees: vec![Lz4Block::stored(out.into_inner())] };
        let limits = Limits::default();
        prop_assert_eq!(m.geometry(0, &limits).unwrap(), g);
        prop_assert_eq!(m.tree(0, &limits).unwrap(), tree);
    }

    #[test]
    fn compact_ints_round_trip(v in any::<i32>()) {
        use binrw::{BinRead, BinWrite};
        let mut out = std::io::Cursor::new(Vec::new());
        CInt(v).write_le(&mut out).unwrap();
        let bytes = out.into_inner();
        prop_assert_eq!(bytes.len(), CInt(v).encoded_len());
        prop_assert_eq!(CInt::read_le(&mut std::io::Cursor::new(&bytes)).unwrap(), CInt(v));
    }

    /// An ms14 mesh written as it is built (`Ms14Mesh::write_classic`) is the mesh
    /// `from_classic` builds, written: the same bytes or the same error, with triangle
    /// indices of their own or the same as the coordinate indices (held once).
    #[test]
    fn ms14_written_as_built_is_ms14_written(m in mesh(), share in any::<bool>()) {
        use meshcodec::unigine::raw::ms14::Ms14Mesh;
        let MeshBody::Classic(mut c) = m.body else { unreachable!() };
        if share {
            for d in &mut c.data {
                d.triangle_indices = d.coordinate_indices.clone();
            }
        }
        let built = Ms14Mesh::from_classic(c.clone(), None).and_then(|b| {
            UnigineMesh { version: MeshVersion::Ms14, body: MeshBody::Ms14(b) }.write()
        });
        let written = Ms14Mesh::write_classic(c, None);
        match (built, written) {
            (Ok(a), Ok(b)) => prop_assert!(a == b),
            (Err(a), Err(b)) => prop_assert_eq!(a.to_string(), b.to_string()),
            (a, b) => prop_assert!(false, "{:?} / {:?}", a.map(|v| v.len()), b.map(|v| v.len())),
        }
    }

    #[test]
    fn any_mesh_write_read_write(m in mesh()) {
        let bytes = m.write().unwrap();
        let again = UnigineMesh::read(&bytes).unwrap();
        prop_assert_eq!(&again, &m);
        prop_assert_eq!(again.write().unwrap(), bytes);
    }

    #[test]
    fn any_anim_write_read_write(a in anim()) {
        let bytes = a.write().unwrap();
        let again = UnigineAnim::read(&bytes).unwrap();
        prop_assert_eq!(&again, &a);
        prop_assert_eq!(again.write().unwrap(), bytes);
    }

    #[test]
    fn arbitrary_bytes_never_panic(tail in proptest::collection::vec(any::<u8>(), 0..200),
                                   head in prop_oneof![Just(*b"ms10"), Just(*b"ms11"),
                                       Just(*b"ms12"), Just(*b"ms13"), Just(*b"ms14"),
                                       Just(*b"an10"), Just(*b"an11")]) {
        let mut bytes = head.to_vec();
        bytes.extend(tail);
        if is_anim(&bytes) {
            if let Ok(a) = UnigineAnim::read(&bytes) {
                prop_assert_eq!(a.write().unwrap(), bytes);
            }
        } else if let Ok(m) = UnigineMesh::read(&bytes) {
            prop_assert_eq!(m.write().unwrap(), bytes);
        }
    }
}

/// Values the raw types cannot hold are write errors, not silent changes.
#[test]
fn inconsistent_values_are_write_errors() {
    let dir = common::fixture_dir("unigine");
    let file = UnigineMesh::read(&std::fs::read(dir.join("ms11-skinned.mesh")).unwrap()).unwrap();
    let base = file.classic().unwrap().clone();
    let write = |v: MeshVersion, c: ClassicMesh| {
        UnigineMesh {
            version: v,
            body: MeshBody::Classic(c),
        }
        .write()
    };
    assert!(write(MeshVersion::Ms11, base.clone()).is_ok());
    let mut m = base.clone();
    m.bind_pose.pop();
    assert!(write(MeshVersion::Ms11, m).is_err());
    let mut m = base.clone();
    m.data[0].weights.counts[0] += 1;
    assert!(write(MeshVersion::Ms11, m).is_err());
    let mut m = base.clone();
    m.animation_names.push(UString::new("walk"));
    m.animations.push(EmbeddedAnimation::default());
    assert!(write(MeshVersion::Ms11, m.clone()).is_ok());
    assert!(write(MeshVersion::Ms13, m).is_err());
    let mut m = base.clone();
    m.data[0].targets[0].tangents[0][3] = 300;
    assert!(write(MeshVersion::Ms10, m).is_err());
    let mut m = base.clone();
    m.data[0].coordinate_indices[0] = 256; // only 4 positions: 1-byte indices
    assert!(write(MeshVersion::Ms11, m).is_err());
    // A classic body cannot be written as ms14 (to_version converts it).
    assert!(write(MeshVersion::Ms14, base).is_err());
}

// ---- the loss report against an independent comparison ----------------------------

/// `f32`s by their bits (NaN compares equal to itself, −0 differs from 0).
fn fbits<const N: usize>(v: &[[f32; N]]) -> Vec<[u32; N]> {
    v.iter().map(|x| x.map(f32::to_bits)).collect()
}

fn bounds_bits(b: &Bounds) -> Vec<u32> {
    b.min
        .iter()
        .chain(&b.max)
        .chain(&b.center)
        .chain([&b.radius])
        .map(|x| x.to_bits())
        .collect()
}

fn transform_bits(t: &[Transform]) -> Vec<Vec<u32>> {
    t.iter()
        .map(|t| {
            t.position
                .iter()
                .chain(&t.rotation)
                .chain(&t.scale)
                .map(|x| x.to_bits())
                .collect()
        })
        .collect()
}

/// A tangent array with its encoding: ms10 stores x, y, z and a byte w (`true`), the
/// later versions a quaternion of four i16 (`false`). The two are different quantities
/// (ms10-box's `(0.5, 0.5, 0.5, −1)` is no unit quaternion), so an array moved between
/// them has changed, whatever its numbers; an empty one is the same in both.
type Tangents = (bool, Vec<[i16; 4]>);

/// The ms14 parts: leaf size, memory estimate, and per surface the tree (`None`: it does
/// not decode) and the geometry and tree blocks as stored.
type Ms14Parts = (
    i32,
    i64,
    Vec<Option<meshcodec::unigine::raw::ms14::Ms14Tree>>,
    Vec<meshcodec::unigine::raw::ms14::Lz4Block>,
    Vec<meshcodec::unigine::raw::ms14::Lz4Block>,
);

/// Everything a mesh file holds, in a form to compare across versions: the values (floats
/// by their bits), the tangents with their encoding, and the ms14 parts; for a mesh in
/// the ms10–ms13 layout, the ms14 parts are those that writing it as ms14 gives
/// (`Ms14Mesh::from_classic`: there is no other way to get them back).
#[derive(Debug, PartialEq)]
#[allow(clippy::type_complexity)]
struct Held {
    bounds: Vec<u32>,
    bones: Vec<Bone>,
    animation_names: Vec<UString>,
    animations: Vec<(Vec<i16>, u8, u32, Vec<(u8, [u32; 3], [i16; 4], [u32; 3])>)>,
    surfaces: Vec<(UString, u8, u8, Vec<u32>, Vec<UString>)>,
    bind_pose: Vec<Vec<u32>>,
    data: Vec<(
        Vec<(Vec<[u32; 3]>, Tangents)>,
        Weights,
        Vec<[u32; 2]>,
        Vec<[u32; 2]>,
        Vec<[u8; 4]>,
        Vec<u32>,
        Vec<u32>,
    )>,
    ms14: Ms14Parts,
}

fn held(m: &UnigineMesh) -> Held {
    use meshcodec::unigine::raw::ms14::Ms14Mesh;
    let limits = Limits::default();
    let c = m.to_classic(&limits).unwrap();
    let ms10 = m.version == MeshVersion::Ms10;
    let parts = |x: &Ms14Mesh| -> Ms14Parts {
        (
            x.tree_leaf_triangles.0,
            x.memory_estimate,
            (0..x.surfaces.len())
                .map(|i| x.tree(i, &limits).ok())
                .collect(),
            x.blocks.geometry.clone(),
            x.blocks.trees.clone(),
        )
    };
    let ms14 = match &m.body {
        MeshBody::Ms14(x) => parts(x),
        MeshBody::Classic(_) => parts(&Ms14Mesh::from_classic(c.clone(), None).unwrap()),
    };
    Held {
        bounds: bounds_bits(&c.bounds),
        bones: c.bones.clone(),
        animation_names: c.animation_names.clone(),
        animations: c
            .animations
            .iter()
            .map(|a| {
                let keys = a
                    .keys
                    .iter()
                    .map(|k| {
                        (
                            k.mask.into_bytes()[0],
                            k.translation.map(f32::to_bits),
                            k.rotation,
                            k.scale.map(f32::to_bits),
                        )
                    })
                    .collect();
                (a.bones.to_vec(), a.flag, a.frame_count, keys)
            })
            .collect(),
        surfaces: c
            .surfaces
            .iter()
            .map(|s| {
                (
                    s.name.clone(),
                    s.lightmap_channel,
                    s.lightmap_resolution,
                    bounds_bits(&s.bounds),
                    s.targets.clone(),
                )
            })
            .collect(),
        bind_pose: transform_bits(&c.bind_pose),
        data: c
            .data
            .iter()
            .map(|d| {
                (
                    d.targets
                        .iter()
                        .map(|t| {
                            let enc = ms10 && !t.tangents.is_empty();
                            (fbits(&t.positions), (enc, t.tangents.clone()))
                        })
                        .collect(),
                    d.weights.clone(),
                    fbits(&d.uv0),
                    fbits(&d.uv1),
                    d.colors.to_vec(),
                    d.coordinate_indices.clone(),
                    d.triangle_indices.clone(),
                )
            })
            .collect(),
        ms14,
    }
}

/// `data` as an LZ4 block of literals only (valid LZ4, but not what UNIGINE's encoder
/// makes, and longer than the data, so it reads as compressed); stored when empty.
fn literal_only_lz4(data: Vec<u8>) -> meshcodec::unigine::raw::ms14::Lz4Block {
    if data.is_empty() {
        return meshcodec::unigine::raw::ms14::Lz4Block::stored(data);
    }
    let n = data.len();
    let mut out = vec![(n.min(15) as u8) << 4];
    if n >= 15 {
        let mut rest = n - 15;
        while rest >= 255 {
            out.push(255);
            rest -= 255;
        }
        out.push(rest as u8);
    }
    out.extend(&data);
    meshcodec::unigine::raw::ms14::Lz4Block {
        size: n as u64,
        data: out.into(),
    }
}

/// An arbitrary source mesh of any version: a classic mesh ([`mesh`]) with, at will, no
/// tangents, no lightmap settings and values that are not finite; or that mesh as ms14,
/// at will with a part changed that converting back would not rebuild (memory estimate,
/// leaf size, a geometry block compressed otherwise, a tree).
fn source_mesh() -> impl Strategy<Value = UnigineMesh> {
    (mesh(), any::<[bool; 3]>(), any::<bool>(), 0u8..5).prop_map(
        |(mut m, [no_tangents, no_lightmaps, non_finite], to_ms14, change)| {
            let MeshBody::Classic(c) = &mut m.body else {
                unreachable!()
            };
            for (h, d) in c.surfaces.iter_mut().zip(&mut c.data) {
                if no_tangents {
                    for t in &mut d.targets {
                        t.tangents.clear();
                    }
                    d.triangle_indices.clear();
                    d.coordinate_indices.clear();
                }
                if no_lightmaps {
                    h.lightmap_channel = 0;
                    h.lightmap_resolution = 0;
                }
                if non_finite {
                    h.bounds.radius = f32::NAN;
                    if let Some(p) = d
                        .targets
                        .iter_mut()
                        .flat_map(|t| t.positions.iter_mut())
                        .next()
                    {
                        *p = [f32::NAN, f32::INFINITY, -0.0];
                    }
                    if let Some(uv) = d.uv0.first_mut() {
                        uv[1] = f32::NEG_INFINITY;
                    }
                }
            }
            if !to_ms14 {
                return m;
            }
            let mut m = m.to_version(MeshVersion::Ms14).unwrap();
            let MeshBody::Ms14(x) = &mut m.body else {
                unreachable!()
            };
            let limits = Limits::default();
            match change {
                1 => x.memory_estimate += 1,
                2 => x.tree_leaf_triangles = CInt(5),
                3 if !x.surfaces.is_empty() => {
                    let data = x.blocks.geometry[0].decompress(&limits).unwrap();
                    x.blocks.geometry[0] = literal_only_lz4(data);
                }
                4 if !x.surfaces.is_empty() => {
                    use binrw::BinWrite;
                    let mut t = x.tree(0, &limits).unwrap();
                    t.splits[0] += 1.5;
                    let mut out = std::io::Cursor::new(Vec::new());
                    t.write_le(&mut out).unwrap();
                    x.blocks.trees[0] =
                        meshcodec::unigine::raw::ms14::Lz4Block::compress(&out.into_inner());
                }
                _ => {}
            }
            m
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Arbitrary meshes of every version to every version, read back and compared with an
    /// independent comparison ([`held`]): they differ exactly when `losses` is not empty,
    /// and when it is empty, converting back gives the source's bytes.
    #[test]
    fn loss_report_is_exact(m in source_mesh()) {
        let bytes = m.write().unwrap();
        let m = UnigineMesh::read(&bytes).unwrap();
        let before = held(&m);
        for target in MeshVersion::ALL {
            let losses = m.losses(target).unwrap();
            let written = m.to_version(target).unwrap().write().unwrap();
            let back = UnigineMesh::read(&written).unwrap();
            let changed = held(&back) != before;
            prop_assert_eq!(
                changed,
                !losses.is_empty(),
                "{} → {}: losses {:?}",
                m.version,
                target,
                losses.iter().map(ToString::to_string).collect::<Vec<_>>()
            );
            if losses.is_empty() {
                let again = back.to_version(m.version).unwrap().write().unwrap();
                prop_assert!(again == bytes, "{} → {} → back", m.version, target);
            }
        }
    }
}

/// Values that are not finite are kept as read (any NaN payload), and `info` counts them.
#[test]
fn non_finite_values_are_kept_and_counted() {
    let dir = common::fixture_dir("unigine");
    let file = UnigineMesh::read(&std::fs::read(dir.join("ms11-skinned.mesh")).unwrap()).unwrap();
    assert!(file.info(&Limits::default()).unwrap().non_finite.is_empty());
    let mut c = file.classic().unwrap().clone();
    let odd_nan = f32::from_bits(0x7fc0_1234);
    c.data[0].targets[0].positions[1] = [odd_nan, 0.0, f32::INFINITY];
    c.data[0].uv0[0][1] = f32::NEG_INFINITY;
    c.bind_pose[2].scale[0] = f32::NAN;
    let m = UnigineMesh {
        version: MeshVersion::Ms11,
        body: MeshBody::Classic(c),
    };
    let bytes = m.write().unwrap();
    let again = UnigineMesh::read(&bytes).unwrap();
    assert_eq!(again.write().unwrap(), bytes);
    let p = again.classic().unwrap().data[0].targets[0].positions[1];
    assert_eq!(p[0].to_bits(), 0x7fc0_1234);
    let n = again.info(&Limits::default()).unwrap().non_finite;
    assert_eq!((n.positions, n.uvs, n.bind_pose), (1, 1, 1));
    // And through ms14.
    let ms14 = again.to_version(MeshVersion::Ms14).unwrap();
    let n = UnigineMesh::read(&ms14.write().unwrap())
        .unwrap()
        .info(&Limits::default())
        .unwrap()
        .non_finite;
    assert_eq!((n.positions, n.uvs, n.bind_pose), (1, 1, 1));
}

/// Skin weights are little-endian in the file whatever the host: bytes assembled by hand.
#[test]
fn weights_are_written_little_endian() {
    use binrw::{BinRead, BinWrite};
    let w = Weights {
        counts: vec![2, 0, 1],
        entries: vec![
            BoneWeight {
                bone: 0x0102,
                weight: 0x0304,
            },
            BoneWeight {
                bone: -2,
                weight: 0xFFFE,
            },
            BoneWeight {
                bone: 7,
                weight: 65535,
            },
        ],
    };
    let expected: &[u8] = &[
        3, // compact int: three vertices
        2, 0x02, 0x01, 0x04, 0x03, 0xFE, 0xFF, 0xFE, 0xFF, // vertex 0
        0,    // vertex 1
        1, 7, 0, 0xFF, 0xFF, // vertex 2
    ];
    let mut out = std::io::Cursor::new(Vec::new());
    w.write_le(&mut out).unwrap();
    assert_eq!(out.get_ref().as_slice(), expected);
    let back = Weights::read_le(&mut std::io::Cursor::new(expected)).unwrap();
    assert_eq!(back, w);
}
