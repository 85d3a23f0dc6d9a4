//! Union graphics (CSGMDL 2, 4, 5 and CSGK): every real blob and fixture is detected on
//! its obfuscated bytes, comes back byte-identical through `meshcodec convert IN OUT`,
//! and `info --json` gives the vertex and face counts that an independent reader
//! (`rbx_mesh`'s union-graphics module) finds. Damaged blobs end in errors, not panics.

use crate::common;

use std::path::PathBuf;

fn blobs() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(common::fixture_dir("csgmdl"))
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    out.retain(|p| p.extension().is_some_and(|e| e == "bin"));
    if let Some(dir) = common::corpus() {
        out.extend(
            std::fs::read_dir(dir.join("csgmdl"))
                .unwrap()
                .flatten()
                .map(|e| e.path()),
        );
    }
    out.sort();
    out
}

/// (format, version, vertices, faces) as rbx_mesh reads the blob.
fn independent(bytes: &[u8]) -> (&'static str, Option<u32>, usize, usize) {
    use rbx_mesh::union_graphics::UnionGraphics;
    match rbx_mesh::read_union_graphics_versioned(std::io::Cursor::new(bytes))
        .expect("rbx_mesh reads the blob")
    {
        UnionGraphics::CSGK(_) => ("csgk", None, 0, 0),
        UnionGraphics::V2(m) => ("csgmdl", Some(2), m.mesh.vertices.len(), m.mesh.faces.len()),
        UnionGraphics::V4(m) => ("csgmdl", Some(4), m.mesh.vertices.len(), m.mesh.faces.len()),
        UnionGraphics::V5(m) => (
            "csgmdl",
            Some(5),
            m.positions.len(),
            m.faces.indices.len() / 3,
        ),
    }
}

#[test]
fn every_blob_round_trips_and_agrees_with_rbx_mesh() {
    let bin = env!("CARGO_BIN_EXE_meshcodec");
    let dir = tempfile::tempdir().unwrap();
    let blobs = blobs();
    let mut versions = std::collections::BTreeSet::new();
    for path in &blobs {
        let bytes = std::fs::read(path).unwrap();
        let out = dir.path().join("out.bin");
        let o = std::process::Command::new(bin)
            .args(["convert".as_ref(), path.as_os_str(), out.as_os_str()])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}: {o:?}", path.display());
        assert_eq!(std::fs::read(&out).unwrap(), bytes, "{}", path.display());
        let o = std::process::Command::new(bin)
            .args(["info".as_ref(), "--json".as_ref(), path.as_os_str()])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}: {o:?}", path.display());
        let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        let (format, version, vertices, faces) = independent(&bytes);
        assert_eq!(j["format"], format, "{}", path.display());
        assert_eq!(
            j["version"].as_u64(),
            version.map(u64::from),
            "{}",
            path.display()
        );
        assert_eq!(j["vertices"], vertices, "{}", path.display());
        // `faces` is LOD 0, the first index range: rbx_mesh reads version 5's first
        // range and every index of versions 2 and 4, so it counts every range there.
        if format == "csgmdl" {
            let lods: Vec<u64> = j["lod_faces"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_u64().unwrap())
                .collect();
            assert_eq!(j["faces"], lods[0], "{}", path.display());
            let counted = if version == Some(5) {
                lods[0]
            } else {
                lods.iter().sum()
            };
            assert_eq!(counted as usize, faces, "{}", path.display());
        } else {
            assert_eq!(j["faces"], faces, "{}", path.display());
        }
        versions.insert(format!("{format} {version:?}"));
    }
    if common::corpus().is_some() {
        assert_eq!(versions.len(), 4, "{versions:?}");
    }
    assert!(!blobs.is_empty() || common::corpus().is_none());
}

/// Truncations and bit flips of every blob: errors, never panics; whatever parses writes
/// back as it was.
#[test]
fn damaged_blobs_never_panic() {
    let mut cases = 0;
    for path in blobs() {
        let bytes = std::fs::read(&path).unwrap();
        let step = (bytes.len() / 300).max(1);
        for cut in (0..bytes.len()).step_by(step) {
            let b = &bytes[..cut];
            if let Ok(f) = meshcodec::open(b) {
                use meshcodec::MeshFile;
                assert_eq!(f.write().unwrap(), b);
            }
            cases += 1;
        }
        for bit in (0..bytes.len() * 8).step_by(step * 7 + 1) {
            let mut b = bytes.clone();
            b[bit / 8] ^= 1 << (bit % 8);
            if let Ok(f) = meshcodec::open(&b) {
                use meshcodec::MeshFile;
                assert_eq!(f.write().unwrap(), b);
                let _ = f.summary(&meshcodec::Limits::default());
            }
            cases += 1;
        }
    }
    eprintln!("{cases} damaged union graphics blobs");
}

/// Version 5's corner stream: decoded, it gives exactly the corners `rbx_mesh` reads for
/// the mesh's own range; encoded again with the shortest steps, it is the stored stream
/// byte for byte (so Roblox writes the shortest form). The blob exports to glTF.
#[test]
fn version_5_corners_decode_and_encode_as_roblox_writes_them() {
    use meshcodec::csg::mdl::raw::{encode_corners, MdlBody};
    use meshcodec::csg::mdl::CsgMdl;
    let mut n = 0;
    for path in blobs() {
        let bytes = std::fs::read(&path).unwrap();
        let Ok(blob) = CsgMdl::read(&bytes) else {
            continue;
        };
        let MdlBody::Packed(m) = &blob.body else {
            continue;
        };
        let corners = m.corners().unwrap();
        assert_eq!(corners.len(), m.index_count as usize);
        assert_eq!(
            encode_corners(&corners).unwrap(),
            m.faces.to_vec(),
            "{}",
            path.display()
        );
        let triangles: Vec<u32> = m.triangles().unwrap().into_iter().flatten().collect();
        let rbx = match rbx_mesh::read_union_graphics_versioned(std::io::Cursor::new(&bytes[..]))
            .unwrap()
        {
            rbx_mesh::union_graphics::UnionGraphics::V5(v) => v.faces.indices,
            _ => unreachable!(),
        };
        assert_eq!(triangles, rbx, "{}", path.display());
        let normals = m.normals.vectors().unwrap();
        assert!(normals
            .iter()
            .all(|v| v.iter().all(|c| c.abs() <= 1.0 + 1e-6)));
        n += 1;
    }
    assert!(n >= 1, "the fixture at least");
    // Export through the CLI.
    let bin = env!("CARGO_BIN_EXE_meshcodec");
    let dir = tempfile::tempdir().unwrap();
    let src = common::fixture_dir("csgmdl").join("csgmdl5-quad-lod.bin");
    let out = dir.path().join("u.gltf");
    let o = std::process::Command::new(bin)
        .args(["export".as_ref(), src.as_os_str(), out.as_os_str()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("2 triangles"),
        "{o:?}"
    );
}

/// Every index range is a level of detail: version 4's list after the mesh, when it is
/// range markers (the real blob's `[0, 1050, 1152]`: 350 triangles, then 34 coarser
/// ones over the same box), and version 5's markers. `info` counts the triangles of each
/// range, `export` writes LOD 0 only (the other ranges named as dropped), `--lod N` one
/// range and `--lod all` each as its own mesh, `NAME LOD k`; a list that is not range
/// markers (the fixture's `[7, 8, 9]`) leaves one range.
#[test]
fn index_ranges_are_levels_of_detail() {
    let bin = env!("CARGO_BIN_EXE_meshcodec");
    let dir = tempfile::tempdir().unwrap();
    let fixtures = common::fixture_dir("csgmdl");
    let mut cases = vec![
        (fixtures.join("csgmdl5-quad-lod.bin"), vec![2u64, 1]),
        (fixtures.join("csgmdl4-quad-extra.bin"), vec![2]),
        (fixtures.join("csgmdl2-quad.bin"), vec![2]),
    ];
    if let Some(c) = common::corpus() {
        cases.push((c.join("csgmdl/csgmdl4-4500696697.bin"), vec![350, 34]));
        cases.push((
            c.join("csgmdl/csgmdl5-13626979828.bin"),
            vec![1342, 670, 336, 276],
        ));
        cases.push((c.join("csgmdl/csgmdl2-385416572.bin"), vec![48]));
    }
    let run =
        |args: &[&std::ffi::OsStr]| std::process::Command::new(bin).args(args).output().unwrap();
    for (path, lods) in cases {
        let name = path.display().to_string();
        let o = run(&["info".as_ref(), "--json".as_ref(), path.as_os_str()]);
        let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(j["lod_faces"], serde_json::json!(lods), "{name}");
        assert_eq!(j["faces"], lods[0], "{name}");
        let gltf = |args: &[&str]| -> serde_json::Value {
            let out = dir.path().join("u.gltf");
            let mut a: Vec<&std::ffi::OsStr> = vec!["export".as_ref()];
            a.extend(args.iter().map(std::ffi::OsStr::new));
            a.extend([path.as_os_str(), out.as_os_str()]);
            let o = run(&a);
            assert!(o.status.success(), "{name} {args:?}: {o:?}");
            let report = String::from_utf8_lossy(&o.stderr).to_string();
            let mut g: serde_json::Value =
                serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
            g["report"] = report.into();
            g
        };
        // Triangles of each glTF mesh (one primitive each): index count / 3.
        let triangles = |g: &serde_json::Value| -> Vec<u64> {
            g["meshes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| {
                    let a = m["primitives"][0]["indices"].as_u64().unwrap() as usize;
                    g["accessors"][a]["count"].as_u64().unwrap() / 3
                })
                .collect()
        };
        let g = gltf(&[]);
        assert_eq!(triangles(&g), [lods[0]], "{name}");
        let report = g["report"].as_str().unwrap();
        assert!(!report.contains("data beyond"), "{report}");
        assert_eq!(
            report.contains("other index range"),
            lods.len() > 1,
            "{name}: {report}"
        );
        let g = gltf(&["--lod", "all"]);
        assert_eq!(triangles(&g), lods, "{name}");
        let names: Vec<&str> = g["meshes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names.last().unwrap().rsplit(' ').next(),
            Some(&*(lods.len() - 1).to_string())
        );
        assert!(!g["report"].as_str().unwrap().contains("other index range"));
        if lods.len() > 1 {
            assert_eq!(triangles(&gltf(&["--lod", "1"])), [lods[1]], "{name}");
        }
        let out = dir.path().join("u.gltf");
        let beyond = lods.len().to_string();
        let o = run(&[
            "export".as_ref(),
            "--lod".as_ref(),
            beyond.as_ref(),
            path.as_os_str(),
            out.as_os_str(),
        ]);
        assert_eq!(o.status.code(), Some(1), "{name}: {o:?}");
        assert!(String::from_utf8_lossy(&o.stderr).contains("no LOD"));
    }
}

/// Every blob converts to every other version (`--allow-lossy`) into a blob that
/// `rbx_mesh` parses with the same triangle and vertex counts; the report names what
/// was lost; converting back to the source version and to itself keeps the values.
#[test]
fn every_blob_converts_to_every_version() {
    use meshcodec::csg::mdl::UnionMesh;
    let mut conversions = 0;
    for path in blobs() {
        let bytes = std::fs::read(&path).unwrap();
        let Ok(source) = UnionMesh::read(&bytes) else {
            continue; // CSGK
        };
        let (_, _, vertices, _) = independent(&bytes);
        // rbx_mesh reads every index of versions 2 and 4 and version 5's first range:
        // the triangles (LOD 0) but in version 4, which holds every range's.
        let every = source
            .stored
            .ranges
            .as_ref()
            .map_or(source.triangles.len(), |(corners, _)| corners.len() / 3);
        for v in [2u32, 4, 5] {
            let (out, losses) = source.convert(v).unwrap();
            let (format, version, nv, nf) = independent(&out);
            let faces = if v == 4 {
                every
            } else {
                source.triangles.len()
            };
            assert_eq!(
                (format, version, nv, nf),
                ("csgmdl", Some(v), vertices, faces),
                "{} → {v}",
                path.display()
            );
            // The levels of detail go with the triangles to 4 and 5, and are reported
            // dropped to 2.
            let lods = losses
                .iter()
                .any(|l| l.kind == meshcodec::loss::LossKind::Lods);
            assert_eq!(
                lods,
                v == 2 && every > source.triangles.len(),
                "{} → {v}: {losses:?}",
                path.display()
            );
            if v != 2 {
                assert_eq!(
                    UnionMesh::read(&out)
                        .unwrap()
                        .stored
                        .ranges
                        .map(|r| r.0.len() / 3)
                        .unwrap_or(source.triangles.len()),
                    every
                );
            }
            let back = UnionMesh::read(&out).unwrap();
            assert_eq!(back.triangles, source.triangles);
            for (a, b) in source.vertices.iter().zip(&back.vertices) {
                assert_eq!(a.position.map(f32::to_bits), b.position.map(f32::to_bits));
                assert_eq!((a.color, a.normal_id), (b.color, b.normal_id));
                // Normals move by at most half a quantization step.
                for (x, y) in a.normal.iter().zip(b.normal) {
                    assert!((x - y).abs() <= 0.5 / 32767.0 + 1e-7, "{x} {y}");
                }
            }
            let from = bytes[6] ^ meshcodec::csg::mdl::raw::KEY[6];
            if u32::from(from) != v {
                assert!(
                    !losses.is_empty(),
                    "{} → {v}: a version change is reported",
                    path.display()
                );
            }
            conversions += 1;
        }
    }
    assert!(conversions >= 9, "{conversions}");
}

/// `import --to csgmdl:V` and `convert --to csgmdl:V` from another format: refused
/// without `--allow-lossy` (the NormalIds are a stand-in), and with it a blob that
/// `rbx_mesh` reads with the source's triangles.
#[test]
fn import_and_cross_format_conversion_into_union_graphics() {
    let bin = env!("CARGO_BIN_EXE_meshcodec");
    let dir = tempfile::tempdir().unwrap();
    let src = common::fixture_dir("filemesh").join("v4.00-bones.mesh");
    let glb = dir.path().join("x.glb");
    let run =
        |args: &[&std::ffi::OsStr]| std::process::Command::new(bin).args(args).output().unwrap();
    assert!(run(&["export".as_ref(), src.as_os_str(), glb.as_os_str()])
        .status
        .success());
    let source = meshcodec::filemesh::model::Mesh::read(&std::fs::read(&src).unwrap()).unwrap();
    let faces = source.lods.lod0(source.faces.len()).len();
    for v in ["2", "4", "5"] {
        let out = dir.path().join(format!("x{v}.bin"));
        let to = format!("csgmdl:{v}");
        for (cmd, input) in [("import", &glb), ("convert", &src)] {
            let args = [
                cmd.as_ref(),
                input.as_os_str(),
                out.as_os_str(),
                "--to".as_ref(),
                to.as_ref(),
            ];
            let o = run(&args);
            assert_eq!(o.status.code(), Some(3), "{cmd} {to}: {o:?}");
            assert!(
                String::from_utf8_lossy(&o.stderr).contains("NormalId"),
                "{o:?}"
            );
            let o = run(&[&args[..], &["--allow-lossy".as_ref()][..]].concat());
            assert!(o.status.success(), "{cmd} {to}: {o:?}");
            let (format, version, _, nf) = independent(&std::fs::read(&out).unwrap());
            assert_eq!((format, version), ("csgmdl", Some(v.parse().unwrap())));
            assert_eq!(nf, faces, "{cmd} {to}");
        }
    }
}

mod properties {
    use meshcodec::csg::mdl::{CsgMdl, UnionMesh};
    use proptest::prelude::*;

    /// From `meshcodec::strategy`, the generators downstream crates use.
    fn mesh() -> impl Strategy<Value = UnionMesh> {
        meshcodec::strategy::csg::union_mesh(meshcodec::strategy::Size::default())
    }

    proptest! {
        /// Any mesh to any version: the blob reads back to the same triangles and
        /// vertices (normals and tangents within half a 1/32767 step in version 5),
        /// writing it again gives the same bytes, and a same-version conversion of the
        /// read-back mesh reports nothing.
        #[test]
        fn any_mesh_any_version(m in mesh(), v in prop::sample::select(vec![2u32, 4, 5])) {
            let bytes = m.to_blob(v).unwrap().write().unwrap();
            let raw = CsgMdl::read(&bytes).unwrap();
            prop_assert_eq!(raw.write().unwrap(), bytes.clone());
            let back = UnionMesh::read(&bytes).unwrap();
            prop_assert_eq!(&back.triangles, &m.triangles);
            for (a, b) in m.vertices.iter().zip(&back.vertices) {
                prop_assert_eq!(a.position.map(f32::to_bits), b.position.map(f32::to_bits));
                prop_assert_eq!((a.color, a.normal_id), (b.color, b.normal_id));
                for (x, y) in a.normal.iter().chain(&a.tangent).zip(b.normal.iter().chain(&b.tangent)) {
                    prop_assert!((x - y).abs() <= 0.5 / 32767.0 + 1e-6, "{} {}", x, y);
                }
            }
            let (again, losses) = back.convert(v).unwrap();
            prop_assert_eq!(again, bytes);
            prop_assert!(losses.is_empty(), "{:?}", losses);
        }
    }
}
