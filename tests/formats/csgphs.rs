//! CSGPHS: byte-exact round trip of real blobs and fixtures, property tests, damaged
//! input, bounded decompression, and the CLI contract.

use crate::common;

use meshcodec::csg::phs::raw::{Compressed, CsgBody, Csgphs};
use meshcodec::{ErrorKind, Limits};
use proptest::collection::vec;
use proptest::prelude::*;

fn corpus_blobs() -> Vec<std::path::PathBuf> {
    let Some(dir) = common::corpus() else {
        return Vec::new();
    };
    let mut out: Vec<_> = std::fs::read_dir(dir.join("csg"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| std::fs::read(p).is_ok_and(|b| b.starts_with(b"CSGPHS")))
        .collect();
    out.sort();
    out
}

fn fixture_blobs() -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(common::fixture_dir("csgphs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "bin"))
        .collect();
    v.sort();
    v
}

#[test]
fn real_and_fixture_blobs_round_trip_byte_exact() {
    let corpus = corpus_blobs();
    if common::corpus().is_some() {
        assert!(corpus.len() >= 6, "{}", corpus.len());
    }
    let fixtures = fixture_blobs();
    assert!(fixtures.len() >= 6);
    for path in corpus.iter().chain(&fixtures) {
        let bytes = std::fs::read(path).unwrap();
        let c = Csgphs::read(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(c.write().unwrap(), bytes, "{}", path.display());
        assert_eq!(Csgphs::read(&c.write().unwrap()).unwrap(), c);
        c.info(&Limits::default()).unwrap();
    }
}

#[test]
fn fixtures_match_the_generators_expectations() {
    let dir = common::fixture_dir("csgphs");
    let expected: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).unwrap()).unwrap();
    for (name, exp) in expected.as_object().unwrap() {
        let c = Csgphs::read(&std::fs::read(dir.join(name)).unwrap()).unwrap();
        let info = serde_json::to_value(c.info(&Limits::default()).unwrap()).unwrap();
        for (key, want) in exp.as_object().unwrap() {
            let got = match key.as_str() {
                "volume" => info["physics"]["volume"].clone(),
                "computed_volume" => info["computed_physics"]["volume"].clone(),
                // Checked against the model in tests/formats/csg_model.rs.
                "hull_triangles" => continue,
                "decompressed_bytes" => info["compressed"]["decompressed_bytes"].clone(),
                "hull_counts" => serde_json::Value::from(
                    info["hull_counts"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|h| {
                            serde_json::Value::from(vec![h["vertices"].clone(), h["faces"].clone()])
                        })
                        .collect::<Vec<_>>(),
                ),
                k => info[k].clone(),
            };
            assert_eq!(&got, want, "{name}: {key}");
        }
    }
}

/// Real files: the hull record facts of FORMAT-NOTES hold.
#[test]
fn real_hulls_have_the_documented_preambles() {
    for path in corpus_blobs() {
        let c = Csgphs::read(&std::fs::read(&path).unwrap()).unwrap();
        for h in c.hulls() {
            assert_eq!(h.preamble1[..], [0u8; 16], "{}", path.display());
            assert_eq!(
                &h.preamble2[12..],
                &1f32.to_le_bytes(),
                "{}",
                path.display()
            );
            assert_eq!(h.vertices.len() % 3, 0);
            assert_eq!(h.indices.len() % 3, 0);
            assert!(h.indices.iter().all(|&i| (i as usize) < h.num_vertices()));
        }
    }
}

#[test]
fn decompression_is_bounded_by_limits() {
    // A payload whose header counts 4 MiB of (zero) vertices compresses to a few
    // hundred bytes: a small limit refuses it from the header, before decoding.
    let vertex_bytes: u32 = 12 * 349_525;
    let mut payload = vec![0u8; 60];
    payload[32..36].copy_from_slice(&vertex_bytes.to_le_bytes());
    payload.resize(60 + vertex_bytes as usize, 0);
    let frame = zstd::encode_all(&payload[..], 3).unwrap();
    let c = Csgphs {
        version: 8,
        body: CsgBody::Compressed(Compressed {
            geometry_type: 0,
            reserved: 0,
            frame,
        }),
    };
    let bytes = c.write().unwrap();
    assert!(bytes.len() < 4096);
    let c = Csgphs::read(&bytes).unwrap();
    let small = Limits {
        max_decoded_bytes: 1 << 20,
        ..Limits::default()
    };
    let e = c.decompress(&small).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::LimitExceeded { .. }), "{e}");
    assert_eq!(
        c.decompress(&Limits::default()).unwrap().unwrap().len(),
        payload.len()
    );
    // Zeros beyond what the header counts are refused, not decoded.
    let frame = zstd::encode_all(&vec![0u8; 4 << 20][..], 3).unwrap();
    let zeros = Csgphs {
        version: 8,
        body: CsgBody::Compressed(Compressed {
            geometry_type: 0,
            reserved: 0,
            frame,
        }),
    };
    let e = zeros.decompress(&Limits::default()).unwrap_err();
    assert!(e.to_string().contains("more than the 60 bytes"), "{e}");
    // A frame that is not zstd is an error, not a panic.
    let bad = Csgphs {
        version: 8,
        body: CsgBody::Compressed(Compressed {
            geometry_type: 2,
            reserved: 0,
            frame: vec![1, 2, 3],
        }),
    };
    assert!(bad.decompress(&Limits::default()).is_err());
}

#[test]
fn damaged_blobs_never_panic() {
    let mut n = 0;
    for path in corpus_blobs().iter().chain(&fixture_blobs()) {
        let bytes = std::fs::read(path).unwrap();
        let step = (bytes.len() / 300).max(1);
        for cut in (0..bytes.len()).step_by(step) {
            if let Ok(c) = Csgphs::read(&bytes[..cut]) {
                assert_eq!(c.write().unwrap(), &bytes[..cut]);
                let _ = c.info(&Limits::default());
            }
            n += 1;
        }
        for i in (0..bytes.len()).step_by(step) {
            for x in [0xFF, 0x80, 0x01] {
                let mut b = bytes.clone();
                b[i] ^= x;
                if let Ok(c) = Csgphs::read(&b) {
                    assert_eq!(c.write().unwrap(), b);
                    let _ = c.info(&Limits::default());
                }
                n += 1;
            }
        }
    }
    assert!(n > 1000, "{n}");
    // Errors name the offset and what was expected.
    let e = Csgphs::read(b"CSGPHS\x09\x00\x00\x00").unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::UnsupportedVersion(_)), "{e}");
    let e = Csgphs::read(b"CSGPHS\x00\x00\x00\x00BLOCX").unwrap_err();
    assert_eq!(e.offset(), Some(10));
    let mut b = b"CSGPHS\x03\x00\x00\x00".to_vec();
    b.extend_from_slice(&0xFFFF_FFFFu32.to_le_bytes());
    let e = Csgphs::read(&b).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::CountTooLarge { .. }), "{e}");
    assert_eq!(e.offset(), Some(14));
}

/// A raw blob of any version, from `meshcodec::strategy` (the generators downstream
/// crates use).
fn blob() -> impl Strategy<Value = Csgphs> {
    meshcodec::strategy::csg::any_raw(meshcodec::strategy::Size::default())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn blobs_round_trip(c in blob()) {
        let bytes = c.write().unwrap();
        let back = Csgphs::read(&bytes).unwrap();
        prop_assert_eq!(format!("{back:?}"), format!("{c:?}"));
        prop_assert_eq!(back.write().unwrap(), bytes);
    }

    #[test]
    fn accepted_bytes_are_written_back_exactly(
        c in blob(),
        edits in vec((any::<prop::sample::Index>(), any::<u8>()), 0..4),
    ) {
        let mut bytes = c.write().unwrap();
        for (i, b) in edits {
            let i = i.index(bytes.len());
            bytes[i] = b;
        }
        if let Ok(m) = Csgphs::read(&bytes) {
            prop_assert_eq!(m.write().unwrap(), bytes);
        }
    }
}

#[test]
fn cli_info_json_contract_and_verify() {
    let bin = env!("CARGO_BIN_EXE_meshcodec");
    for path in fixture_blobs() {
        let out = std::process::Command::new(bin)
            .args(["info", "--json"])
            .arg(&path)
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["format"], "csgphs");
        for key in ["version", "hulls", "vertices", "faces"] {
            assert!(v[key].is_u64(), "{}: {key}", path.display());
        }
    }
    let out = std::process::Command::new(bin)
        .arg("verify")
        .args(fixture_blobs())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
}

/// Mass properties from geometry, against an independent analytic computation: three
/// boxes (the fixtures' hulls), each I = m/12·(b² + c²) about its centre, moved to the
/// common centre of gravity by the parallel-axis theorem.
#[test]
fn physics_from_box_hulls_matches_the_analytic_values() {
    use meshcodec::csg::phs::raw::physics_from_hulls;
    let c =
        Csgphs::read(&std::fs::read(common::fixture_dir("csgphs").join("csgphs5.bin")).unwrap())
            .unwrap();
    let model = meshcodec::csg::phs::model::CsgMesh::from_csgphs(&c, &Limits::default()).unwrap();
    let p = physics_from_hulls(
        model
            .hulls
            .iter()
            .map(|h| (&h.positions[..], &h.triangles[..])),
    );
    // (origin, size) of the boxes of make_csgphs.py.
    let boxes = [
        ([0.0, 0.0, 0.0], [2.0, 1.0, 1.0]),
        ([3.0, 0.0, 0.0], [1.0, 1.0, 1.0]),
        ([0.0, 2.0, 0.0], [1.0, 2.0, 3.0]),
    ];
    let mass: f64 = boxes.iter().map(|(_, s)| s[0] * s[1] * s[2]).sum();
    let cog: Vec<f64> = (0..3)
        .map(|k| {
            boxes
                .iter()
                .map(|(o, s)| s[0] * s[1] * s[2] * (o[k] + s[k] / 2.0))
                .sum::<f64>()
                / mass
        })
        .collect();
    let mut t = [[0f64; 3]; 3];
    for (o, s) in boxes {
        let m = s[0] * s[1] * s[2];
        let d: Vec<f64> = (0..3).map(|k| o[k] + s[k] / 2.0 - cog[k]).collect();
        for i in 0..3 {
            for j in 0..3 {
                let own = if i == j {
                    m / 12.0 * (0..3).filter(|&k| k != i).map(|k| s[k] * s[k]).sum::<f64>()
                } else {
                    0.0
                };
                let dd: f64 = d.iter().map(|x| x * x).sum();
                let shift = m * (if i == j { dd } else { 0.0 } - d[i] * d[j]);
                t[i][j] += own + shift;
            }
        }
    }
    let want = [t[0][0], t[0][1], t[0][2], t[1][1], t[1][2], t[2][2]];
    assert_eq!(p.volume, 9.0);
    for k in 0..3 {
        assert!(
            (f64::from(p.center_of_gravity[k]) - cog[k]).abs() < 1e-6,
            "{p:?} {cog:?}"
        );
    }
    for k in 0..6 {
        assert!(
            (f64::from(p.inertia[k]) - want[k]).abs() < 1e-5 * want[0].abs(),
            "{k}: {p:?} vs {want:?}"
        );
    }
}

/// The real version 7 blob's stored physics agrees with its geometry.
#[test]
fn stored_physics_of_real_blobs_agrees_with_geometry() {
    let mut n = 0;
    for path in corpus_blobs() {
        let c = Csgphs::read(&std::fs::read(&path).unwrap()).unwrap();
        let info = c.info(&Limits::default()).unwrap();
        if let Some(d) = info.physics_max_relative_difference {
            assert!(d < 1e-6, "{}: {d}", path.display());
            n += 1;
        }
        // Version 8 coded hulls are closed: T = 2V − 4 for each.
        if let Some(z) = &info.compressed {
            assert!(z.coded_hulls > 0);
            for h in &info.hull_counts[z.raw_hulls..] {
                assert_eq!(h.faces, 2 * h.vertices - 4, "{}", path.display());
            }
        }
    }
    if common::corpus().is_some() {
        assert!(n >= 1);
    }
}

/// `meshcodec convert`: without `--to` byte-identical; with `--to` through the model,
/// refusing a lossy conversion (status 1, the losses listed) unless `--allow-lossy`.
#[test]
fn cli_convert_between_csgphs_versions() {
    let bin = env!("CARGO_BIN_EXE_meshcodec");
    let dir = tempfile::tempdir().unwrap();
    let run =
        |args: &[&std::ffi::OsStr]| std::process::Command::new(bin).args(args).output().unwrap();
    let os = |s: &str| std::ffi::OsString::from(s);
    let mut converted = 0;
    for path in corpus_blobs().iter().chain(&fixture_blobs()) {
        let bytes = std::fs::read(path).unwrap();
        let same = dir.path().join("same.bin");
        let out = run(&["convert".as_ref(), path.as_os_str(), same.as_os_str()]);
        assert!(out.status.success(), "{out:?}");
        assert_eq!(std::fs::read(&same).unwrap(), bytes, "{}", path.display());
        for to in ["0", "3", "5", "6", "7", "8"] {
            let target = dir.path().join(format!("to{to}.bin"));
            let args = [
                os("convert"),
                path.clone().into(),
                target.clone().into(),
                os("--to"),
                os(to),
            ];
            let strict = run(&args.iter().map(|a| a.as_os_str()).collect::<Vec<_>>());
            let mut lossy_args = args.to_vec();
            lossy_args.push(os("--allow-lossy"));
            let lossy = run(&lossy_args.iter().map(|a| a.as_os_str()).collect::<Vec<_>>());
            assert!(lossy.status.success(), "{lossy:?}");
            let written = std::fs::read(&target).unwrap();
            let back = Csgphs::read(&written).unwrap();
            assert_eq!(back.version.to_string(), to);
            if !strict.status.success() {
                assert_eq!(strict.status.code(), Some(3));
                let err = String::from_utf8_lossy(&strict.stderr);
                assert!(
                    err.contains("would lose") && err.contains("--allow-lossy"),
                    "{err}"
                );
                assert!(!String::from_utf8_lossy(&lossy.stderr).is_empty());
            }
            converted += 1;
        }
    }
    assert!(converted >= 6 * 7);
    // A v8 blob to v7 and back is Roblox's file again (real blob when the corpus is there).
    if let Some(real) = corpus_blobs()
        .into_iter()
        .find(|p| p.ends_with("csgphs8-raw-972.bin"))
    {
        let v7 = dir.path().join("v7.bin");
        let v8 = dir.path().join("v8.bin");
        assert!(run(&[
            "convert".as_ref(),
            real.as_os_str(),
            v7.as_os_str(),
            "--to".as_ref(),
            "7".as_ref(),
            "--allow-lossy".as_ref()
        ])
        .status
        .success());
        assert!(run(&[
            "convert".as_ref(),
            v7.as_os_str(),
            v8.as_os_str(),
            "--to".as_ref(),
            "8".as_ref()
        ])
        .status
        .success());
        assert_eq!(std::fs::read(&v8).unwrap(), std::fs::read(&real).unwrap());
    }
}

/// Hulls that do not decode: `info` still reports the stored counts and names the
/// problem (and the CLI warns on stderr but exits 0).
#[test]
fn info_falls_back_to_stored_counts() {
    let dir = common::fixture_dir("csgphs");
    // v7: the last index of the last hull out of range.
    let mut b = std::fs::read(dir.join("csgphs7.bin")).unwrap();
    let n = b.len();
    b[n - 4..].copy_from_slice(&1000u32.to_le_bytes());
    let info = Csgphs::read(&b).unwrap().info(&Limits::default()).unwrap();
    assert_eq!((info.hulls, info.vertices, info.faces), (3, 24, 36));
    assert!(
        info.problem.as_deref().unwrap().contains("out of range"),
        "{info:?}"
    );
    // v8: one connectivity bit too many.
    let c = Csgphs::read(&std::fs::read(dir.join("csgphs8-raw-hull.bin")).unwrap()).unwrap();
    let mut p = c.payload(&Limits::default()).unwrap().unwrap();
    p.bit_count += 1;
    let bad = Csgphs {
        version: 8,
        body: CsgBody::Compressed(Compressed {
            geometry_type: 3,
            reserved: 0,
            frame: p.compress().unwrap(),
        }),
    };
    let info = bad.info(&Limits::default()).unwrap();
    assert_eq!((info.hulls, info.vertices, info.faces), (3, 16, 20));
    assert_eq!(info.hull_counts.len(), 1);
    assert!(info.problem.is_some());
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("bad8.bin");
    std::fs::write(&path, bad.write().unwrap()).unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_meshcodec"))
        .args(["info", "--json"])
        .arg(&path)
        .output()
        .unwrap();
    // The stored counts are printed, and the status says a part did not decode.
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("do not decode"));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["hulls"], 3);
}

/// The connectivity buffer of a version 8 payload: its size at byte 28 must be whole
/// 32-bit words (an error that names the offset otherwise), at least `4·⌈B/32⌉`; a longer
/// buffer (the 8-byte padding of meshcodec's first writer) is read and written back as is.
#[test]
fn v8_connectivity_size_field_is_checked() {
    use meshcodec::csg::phs::model::CsgMesh;
    use meshcodec::csg::phs::raw::V8Payload;
    let dir = common::fixture_dir("csgphs");
    // 3 words (76 bits), hand-assembled by make_csgphs.py.
    let c = Csgphs::read(&std::fs::read(dir.join("csgphs8-odd-words.bin")).unwrap()).unwrap();
    let bytes = c.decompress(&Limits::default()).unwrap().unwrap();
    let field = |b: &[u8], at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
    assert_eq!((field(&bytes, 24), field(&bytes, 28)), (76, 12));
    let p = V8Payload::read_bytes(&bytes).unwrap();
    assert_eq!(p.to_bytes().unwrap(), bytes);
    // Not whole words: refused, naming byte 28.
    let mut odd = bytes.clone();
    odd[28..32].copy_from_slice(&10u32.to_le_bytes());
    let e = V8Payload::read_bytes(&odd).unwrap_err();
    assert_eq!(e.offset(), Some(28), "{e}");
    assert!(e.to_string().contains("multiple of 4"), "{e}");
    // Too few words for the bits: the payload parses (the sizes add up) but its hulls do
    // not decode.
    let mut short = p.clone();
    short.bits.truncate(8);
    let e = short.hulls().unwrap_err();
    assert!(e.to_string().contains("76 bits need 12 bytes"), "{e}");
    // A longer buffer: read, decoded, and written back byte for byte.
    let padded = Csgphs::read(&std::fs::read(dir.join("csgphs8-padded.bin")).unwrap()).unwrap();
    let p = padded.payload(&Limits::default()).unwrap().unwrap();
    assert_eq!((p.bit_count, p.bits.len()), (30, 8));
    let model = CsgMesh::from_csgphs(&padded, &Limits::default()).unwrap();
    assert_eq!(model.hulls.len(), 2);
    assert_eq!(model.to_csgphs(8).unwrap(), padded);
    // Leaving version 8, the padding is listed: writing 8 again gives 4 bytes.
    let losses = model.losses(7);
    assert!(
        losses
            .iter()
            .any(|l| l.detail.contains("8-byte connectivity buffer for 30 bits")),
        "{losses:?}"
    );
}
