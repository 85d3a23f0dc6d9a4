//! The CSGPHS model: version 8 decoding (checked on geometry, against `rbx_mesh`, and by
//! re-encoding Roblox's bytes exactly), writing every version from the model, the loss
//! report, Edgebreaker property tests and damaged version 8 payloads.

use crate::common;

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use meshcodec::csg::phs::edgebreaker::{decode_hull, encode_hull, BitReader, BitWriter};
use meshcodec::csg::phs::model::{CsgHull, CsgLayout, CsgMesh, CSGPHS_VERSIONS};
use meshcodec::csg::phs::raw::{Compressed, CsgBody, Csgphs, PhysicsInfo, RawHulls, V8Payload};
use meshcodec::loss::LossKind;
use meshcodec::strategy::csg::{model, physics, triangulation};
use meshcodec::strategy::Size;
use meshcodec::Limits;
use proptest::prelude::*;

fn blobs() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    if let Some(dir) = common::corpus() {
        out.extend(
            std::fs::read_dir(dir.join("csg"))
                .unwrap()
                .map(|e| e.unwrap().path()),
        );
    }
    out.extend(
        std::fs::read_dir(common::fixture_dir("csgphs"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "bin")),
    );
    out.retain(|p| std::fs::read(p).is_ok_and(|b| b.starts_with(b"CSGPHS")));
    out.sort();
    out
}

fn real_v8() -> Vec<PathBuf> {
    let Some(dir) = common::corpus() else {
        return Vec::new();
    };
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir.join("csg"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| std::fs::read(p).is_ok_and(|b| b.starts_with(b"CSGPHS\x08\0\0\0")))
        .collect();
    v.sort();
    assert!(v.len() >= 3, "{v:?}");
    v
}

/// The model without anything carried from its source: what a writer derives from the
/// values alone.
fn values_only(m: &CsgMesh) -> CsgMesh {
    CsgMesh {
        layout: CsgLayout::default(),
        ..m.clone()
    }
}

fn load(path: &PathBuf) -> (Vec<u8>, Csgphs, CsgMesh) {
    let bytes = std::fs::read(path).unwrap();
    let raw = Csgphs::read(&bytes).unwrap();
    let model = CsgMesh::from_csgphs(&raw, &Limits::default())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (bytes, raw, model)
}

fn sub(a: [f32; 3], b: [f32; 3]) -> [f64; 3] {
    [0, 1, 2].map(|k| f64::from(a[k]) - f64::from(b[k]))
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Each directed edge once, and its reverse present: closed and consistently oriented.
fn is_closed_oriented(h: &CsgHull) -> bool {
    let mut edges = HashSet::new();
    for &[a, b, c] in &h.triangles {
        for e in [(a, b), (b, c), (c, a)] {
            if !edges.insert(e) {
                return false;
            }
        }
    }
    edges.iter().all(|&(a, b)| edges.contains(&(b, a)))
}

fn signed_volume(h: &CsgHull) -> f64 {
    h.triangles
        .iter()
        .map(|&[a, b, c]| {
            let p = |i: u32| h.positions[i as usize].map(f64::from);
            dot(p(a), cross(p(b), p(c))) / 6.0
        })
        .sum()
}

/// The largest distance of a hull vertex outside a face plane, relative to the hull size.
fn convexity_violation(h: &CsgHull) -> f64 {
    let size = h
        .positions
        .iter()
        .flat_map(|p| {
            h.positions
                .iter()
                .map(move |q| dot(sub(*p, *q), sub(*p, *q)))
        })
        .fold(0f64, f64::max)
        .sqrt();
    let mut worst = 0f64;
    for &[a, b, c] in &h.triangles {
        let p = |i: u32| h.positions[i as usize];
        let n = cross(sub(p(b), p(a)), sub(p(c), p(a)));
        let len = dot(n, n).sqrt();
        if len == 0.0 {
            continue;
        }
        for q in &h.positions {
            worst = worst.max(dot(n, sub(*q, p(a))) / len / size);
        }
    }
    worst
}

/// Version 8 hulls decode to closed, outward, convex surfaces; the payload header agrees.
#[test]
fn v8_hulls_are_closed_outward_and_convex() {
    let (mut coded, mut stored) = (0, 0);
    for path in real_v8() {
        let (_, raw, model) = load(&path);
        let payload = raw.payload(&Limits::default()).unwrap().unwrap();
        let raw_n = model.hulls.len() - payload.hull_count as usize;
        stored += payload.hull_count as usize;
        for (i, h) in model.hulls.iter().enumerate().skip(raw_n) {
            assert!(is_closed_oriented(h), "{} hull {i}", path.display());
            assert!(signed_volume(h) > 0.0, "{} hull {i}", path.display());
            let v = convexity_violation(h);
            assert!(v < 1e-4, "{} hull {i}: {v}", path.display());
            coded += 1;
        }
        let coded_hulls = &model.hulls[raw_n..];
        let max_v = coded_hulls.iter().map(|h| h.positions.len()).max().unwrap();
        let max_t = coded_hulls.iter().map(|h| h.triangles.len()).max().unwrap();
        assert_eq!(payload.max_hull_vertices as usize, max_v);
        assert_eq!(payload.max_hull_triangles as usize, max_t);
        // Positions repeat across hulls, never within one.
        for h in coded_hulls {
            let set: HashSet<[u32; 3]> = h.positions.iter().map(|p| p.map(f32::to_bits)).collect();
            assert_eq!(set.len(), h.positions.len());
        }
    }
    if common::corpus().is_some() {
        // csgphs8-00, -01 and -raw-972 have 42, 62 and 8 coded hulls.
        assert!(coded >= 42 + 62 + 8, "{coded}");
        assert_eq!(coded, stored);
    }
}

/// The independent reader `rbx_mesh` (a dev-dependency used only as an oracle) decodes the
/// same hulls, triangle for triangle.
#[test]
fn v8_decoding_agrees_with_rbx_mesh() {
    use rbx_mesh::union_physics::UnionPhysics;
    for path in real_v8() {
        let (bytes, _, model) = load(&path);
        let theirs = rbx_mesh::read_union_physics_versioned(std::io::Cursor::new(&bytes)).unwrap();
        let UnionPhysics::V8(v8) = theirs else {
            panic!("{}: not read as version 8", path.display())
        };
        let hulls: Vec<_> = v8.mesh.hulls.iter_hulls().collect();
        assert_eq!(hulls.len(), model.hulls.len(), "{}", path.display());
        for (ours, theirs) in model.hulls.iter().zip(hulls) {
            assert_eq!(ours.positions, theirs.positions);
            assert_eq!(ours.triangles, theirs.faces);
        }
    }
}

/// Re-encoding a decoded real blob from its values alone (nothing carried from the source)
/// gives Roblox's bytes back: the same connectivity bits and buffer size, vertex order,
/// header and bounding box, and (libzstd 1.5.2, level 19) the same frame.
#[test]
fn v8_model_re_encodes_real_blobs_byte_exact() {
    for path in real_v8() {
        let (bytes, raw, model) = load(&path);
        let payload = raw.payload(&Limits::default()).unwrap().unwrap();
        let fresh = values_only(&model);
        let again = fresh.to_v8_payload().unwrap();
        assert_eq!(again, payload, "{}", path.display());
        assert_eq!(
            again.bits.len() as u64,
            payload.bit_count.div_ceil(32) as u64 * 4
        );
        let CsgBody::Compressed(c) = &raw.body else {
            unreachable!()
        };
        assert_eq!(again.compress().unwrap(), c.frame, "{}", path.display());
        for m in [&model, &fresh] {
            assert!(m.losses(8).is_empty(), "{:?}", m.losses(8));
            assert_eq!(m.to_csgphs(8).unwrap().write().unwrap(), bytes);
        }
    }
}

/// The fixtures' generator (its own Edgebreaker encoder) and our decoder agree on every
/// triangle, and re-encoding from the values alone gives the generator's payload back, but
/// for the fixture padded to 8 bytes on purpose, which gets whole words only.
#[test]
fn v8_fixtures_decode_to_the_generators_triangles() {
    let dir = common::fixture_dir("csgphs");
    let expected: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).unwrap()).unwrap();
    let mut n = 0;
    for (name, exp) in expected.as_object().unwrap() {
        let Some(want) = exp.get("hull_triangles") else {
            continue;
        };
        let (_, raw, model) = load(&dir.join(name));
        let got: Vec<Vec<[u32; 3]>> = model.hulls.iter().map(|h| h.triangles.clone()).collect();
        let want: Vec<Vec<[u32; 3]>> = serde_json::from_value(want.clone()).unwrap();
        assert_eq!(got, want, "{name}");
        let payload = raw.payload(&Limits::default()).unwrap().unwrap();
        let fresh = values_only(&model).to_v8_payload().unwrap();
        let words = payload.bit_count.div_ceil(32) as usize;
        assert_eq!(fresh.bits.len(), 4 * words, "{name}");
        if name == "csgphs8-padded.bin" {
            assert_eq!(payload.bits.len(), 4 * (words + words % 2), "{name}");
            assert_eq!(&payload.bits[..4 * words], &fresh.bits[..], "{name}");
            assert_eq!(
                V8Payload {
                    bits: fresh.bits.clone(),
                    ..payload
                },
                fresh
            );
        } else {
            assert_eq!(fresh, payload, "{name}");
        }
        // With what was carried, the model writes the fixture again.
        assert_eq!(
            model.to_csgphs(8).unwrap().write().unwrap(),
            std::fs::read(dir.join(name)).unwrap()
        );
        n += 1;
    }
    assert!(n >= 5);
}

/// A triangle as its three positions, rotated to start at the smallest: the same surface
/// gives the same multiset whatever the vertex and triangle order.
fn surface(h: &CsgHull) -> Vec<[[u32; 3]; 3]> {
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
}

fn surfaces(m: &CsgMesh) -> Vec<Vec<[[u32; 3]; 3]>> {
    let mut v: Vec<_> = m.hulls.iter().map(surface).collect();
    v.sort();
    v
}

/// What `m` writes for every version (or why it cannot).
fn writes(m: &CsgMesh) -> Vec<Result<Vec<u8>, String>> {
    CSGPHS_VERSIONS
        .iter()
        .map(|&v| {
            m.to_csgphs(v)
                .and_then(|c| c.write())
                .map_err(|e| e.to_string())
        })
        .collect()
}

/// How `back` (a model read back from a converted blob) differs from `model`: in `block`,
/// or in the bytes it writes for some version. `None`: no difference at all.
fn difference(model: &CsgMesh, back: &CsgMesh) -> Option<String> {
    if model.block != back.block {
        return Some(format!("block {} → {}", model.block, back.block));
    }
    CSGPHS_VERSIONS
        .iter()
        .zip(writes(model).into_iter().zip(writes(back)))
        .find(|(_, (a, b))| a != b)
        .map(|(v, _)| format!("written as CSGPHS {v}"))
}

/// Every blob's model writes its own version byte for byte, and every other version with a
/// loss report that lists something exactly when reading the result back shows a
/// difference; what the report does not list is kept.
#[test]
fn every_blob_converts_to_every_version() {
    let mut conversions = 0;
    let mut lossless = 0;
    for path in blobs() {
        let (bytes, raw, model) = load(&path);
        assert_eq!(
            model.to_csgphs(raw.version).unwrap().write().unwrap(),
            bytes,
            "{}",
            path.display()
        );
        assert!(model.losses(raw.version).is_empty(), "{}", path.display());
        for target in CSGPHS_VERSIONS {
            let losses = model.losses(target);
            let kinds: HashSet<LossKind> = losses.iter().map(|l| l.kind).collect();
            let out = model.to_csgphs(target).unwrap().write().unwrap();
            let back =
                CsgMesh::read(&out).unwrap_or_else(|e| panic!("{}→{target}: {e}", path.display()));
            let what = format!("{} → {target}: {losses:?}", path.display());
            let diff = difference(&model, &back);
            assert_eq!(losses.is_empty(), diff.is_none(), "{what}: {diff:?}");
            lossless += usize::from(losses.is_empty());
            conversions += 1;
            if target == 0 {
                assert!(back.block && back.hulls.is_empty());
                assert_eq!(
                    kinds.contains(&LossKind::CsgHulls),
                    !model.hulls.is_empty() || !model.block,
                    "{what}"
                );
                continue;
            }
            assert_eq!(kinds.contains(&LossKind::CsgHulls), model.block, "{what}");
            if target == 8 {
                assert_eq!(surfaces(&back), surfaces(&model), "{what}");
                let strip = |m: &CsgMesh| {
                    m.hulls
                        .iter()
                        .map(|h| {
                            (
                                h.positions.clone(),
                                h.triangles.clone(),
                                h.preambles.clone(),
                            )
                        })
                        .collect::<Vec<_>>()
                };
                assert_eq!(
                    kinds.contains(&LossKind::CsgHullLayout),
                    strip(&model) != strip(&back),
                    "{what}"
                );
            } else {
                assert_eq!(back.hulls, model.hulls, "{what}");
                assert!(!kinds.contains(&LossKind::CsgHullLayout), "{what}");
            }
            // Physics: what the model writes, where the target stores it.
            let p = model.effective_physics();
            match target {
                6 | 7 => assert_eq!(back.physics, Some(p), "{what}"),
                _ => assert!(back.physics.is_none(), "{what}"),
            }
            match target {
                7 | 8 => assert_eq!(back.geometry_type, Some(model.geometry_type.unwrap_or(0))),
                _ => assert_eq!(
                    kinds.contains(&LossKind::CsgGeometryType),
                    model.geometry_type.is_some_and(|g| g != 0),
                    "{what}"
                ),
            }
            // Physics computed from the written geometry is the source's.
            let (a, b) = (model.computed_physics(), back.computed_physics());
            assert!(
                (a.volume - b.volume).abs() <= 1e-5 * a.volume.abs().max(1.0),
                "{what}"
            );
        }
    }
    assert!(conversions >= 60, "{conversions}");
    assert!(lossless >= 10, "{lossless}");
}

/// The example: a version 8 fixture's zstd frame is made of raw blocks, which
/// compressing again cannot give back, so going to 7 lists it; the payload alone would
/// have come back. The same blob with libzstd's frame goes to 7 and back unchanged.
#[test]
fn a_frame_that_recompression_cannot_give_back_is_a_loss() {
    let dir = common::fixture_dir("csgphs");
    let bytes = std::fs::read(dir.join("csgphs8-boxes.bin")).unwrap();
    let model = CsgMesh::read(&bytes).unwrap();
    let losses = model.losses(7);
    assert_eq!(losses.len(), 1, "{losses:?}");
    assert_eq!(losses[0].kind, LossKind::CsgEncoding);
    assert!(losses[0].detail.contains("zstd frame"), "{losses:?}");
    let v7 = CsgMesh::read(&model.to_csgphs(7).unwrap().write().unwrap()).unwrap();
    let again = v7.to_csgphs(8).unwrap().write().unwrap();
    assert_ne!(again, bytes);
    let CsgBody::Compressed(c) = Csgphs::read(&bytes).unwrap().body else {
        unreachable!()
    };
    let frame = V8Payload::read_bytes(
        &CsgMesh::read(&again)
            .unwrap()
            .to_v8_payload()
            .unwrap()
            .to_bytes()
            .unwrap(),
    )
    .unwrap()
    .compress()
    .unwrap();
    assert_eq!(again[12..], frame[..]);
    assert_ne!(c.frame, frame);
    // With libzstd's frame: nothing to report, and the round trip is exact.
    let recompressed = Csgphs {
        version: 8,
        body: CsgBody::Compressed(Compressed { frame, ..c }),
    }
    .write()
    .unwrap();
    let model = CsgMesh::read(&recompressed).unwrap();
    assert!(model.losses(7).is_empty(), "{:?}", model.losses(7));
    let v7 = CsgMesh::read(&model.to_csgphs(7).unwrap().write().unwrap()).unwrap();
    assert_eq!(v7.to_csgphs(8).unwrap().write().unwrap(), recompressed);
}

/// Item 3 of the issue: every corpus blob and fixture, to every version that `meshcodec
/// convert --to V` accepts without `--allow-lossy`, and back to its own version, is the
/// original blob byte for byte; through the library and through the CLI, which must agree
/// on which versions are accepted.
#[test]
fn every_blob_round_trips_through_every_lossless_version() {
    let bin = env!("CARGO_BIN_EXE_meshcodec");
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (tmp.path().join("a.bin"), tmp.path().join("b.bin"));
    let run =
        |args: &[&std::ffi::OsStr]| std::process::Command::new(bin).args(args).output().unwrap();
    let (mut trips, mut refused) = (0, 0);
    for path in blobs() {
        let (bytes, raw, model) = load(&path);
        let src = raw.version.to_string();
        for target in CSGPHS_VERSIONS {
            let to = target.to_string();
            // Refused only for data lost; re-laid lines need no permission, and only an
            // empty report promises the way back byte for byte.
            let report = model.losses(target);
            let allowed = !meshcodec::loss::any_lost(&report);
            let lossless = report.is_empty();
            let out = run(&[
                "convert".as_ref(),
                path.as_os_str(),
                a.as_os_str(),
                "--to".as_ref(),
                to.as_ref(),
            ]);
            assert_eq!(
                out.status.success(),
                allowed,
                "{} → {target}: {out:?}",
                path.display()
            );
            if !allowed {
                assert_eq!(out.status.code(), Some(3));
                refused += 1;
                continue;
            }
            if !lossless {
                continue;
            }
            // The library.
            let there = CsgMesh::read(&model.to_csgphs(target).unwrap().write().unwrap()).unwrap();
            assert_eq!(
                there.to_csgphs(raw.version).unwrap().write().unwrap(),
                bytes,
                "{} → {target} → {src}",
                path.display()
            );
            // The CLI.
            let out = run(&[
                "convert".as_ref(),
                a.as_os_str(),
                b.as_os_str(),
                "--to".as_ref(),
                src.as_ref(),
                "--allow-lossy".as_ref(),
            ]);
            assert!(out.status.success(), "{out:?}");
            assert_eq!(
                std::fs::read(&b).unwrap(),
                bytes,
                "{} → {target} → {src} (CLI)",
                path.display()
            );
            trips += 1;
        }
    }
    // Each blob to itself, 3 ↔ 5 and 5 ↔ 6 ↔ 7 for the fixtures, and more with the corpus.
    let (min_trips, min_refused) = if common::corpus().is_some() {
        (20, 10)
    } else {
        (12, 5)
    };
    assert!(trips >= min_trips, "{trips}");
    assert!(refused >= min_refused, "{refused}");
    if common::corpus().is_some() {
        assert!(trips >= 35, "{trips}");
    }
}

/// A v7 blob through v8 and back: the hulls are the same surfaces and the physics info is
/// recomputed to float precision.
#[test]
fn v7_through_v8_keeps_surfaces_and_physics() {
    for path in blobs() {
        let (_, raw, model) = load(&path);
        if raw.version != 7 {
            continue;
        }
        let v8 = CsgMesh::read(&model.to_csgphs(8).unwrap().write().unwrap()).unwrap();
        let v7 = CsgMesh::read(&v8.to_csgphs(7).unwrap().write().unwrap()).unwrap();
        assert_eq!(surfaces(&v7), surfaces(&model));
        let d = v7.physics_difference().unwrap();
        assert!(d < 1e-6, "{}: {d}", path.display());
        assert_eq!(v7.geometry_type, model.geometry_type);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// Any genus-0 triangulation is codable, takes 4V − 9 bits, and decodes to itself
    /// renumbered; through the model and a v8 blob the surface survives.
    #[test]
    fn edgebreaker_round_trips_random_triangulations(
        ops in proptest::collection::vec((any::<u8>(), any::<u16>()), 0..120),
        start in any::<u16>(),
    ) {
        let (n, mut tris) = triangulation(&ops);
        let s = start as usize % tris.len();
        tris.rotate_left(s);
        let e = encode_hull(n, &tris).unwrap();
        let mut w = BitWriter::default();
        e.symbols.iter().for_each(|&s| w.symbol(s));
        let (bits, bytes) = w.finish();
        prop_assert_eq!(bits as usize, 4 * n - 9);
        let mut r = BitReader::new(&bytes, bits).unwrap();
        let d = decode_hull(&mut r, tris.len() as u64).unwrap();
        prop_assert_eq!(d.vertices as usize, n);
        prop_assert_eq!(&d.triangles, &e.triangles);
        // The renumbering is a bijection that maps the triangles onto the input's.
        let map: HashMap<u32, u32> = e.vertex_order.iter().enumerate().map(|(k, &v)| (k as u32, v)).collect();
        let mut back: Vec<[u32; 3]> = d.triangles.iter().map(|t| t.map(|v| map[&v])).collect();
        let mut orig = tris.clone();
        let norm = |t: &[u32; 3]| { let k = (0..3).min_by_key(|&k| t[k]).unwrap(); [t[k], t[(k + 1) % 3], t[(k + 2) % 3]] };
        back.iter_mut().for_each(|t| *t = norm(t));
        orig.iter_mut().for_each(|t| *t = norm(t));
        back.sort();
        orig.sort();
        prop_assert_eq!(back, orig);
        // Re-encoding the decoded hull changes nothing.
        let again = encode_hull(n, &d.triangles).unwrap();
        prop_assert_eq!(&again.triangles, &d.triangles);
        prop_assert!(again.vertex_order.iter().enumerate().all(|(k, &v)| k == v as usize));
        // Through a v8 blob.
        let positions: Vec<[f32; 3]> = (0..n).map(|i| [i as f32, (i * i) as f32, -(i as f32)]).collect();
        let model = CsgMesh { hulls: vec![CsgHull::new(positions, tris)], ..CsgMesh::default() };
        let back = CsgMesh::read(&model.to_csgphs(8).unwrap().write().unwrap()).unwrap();
        prop_assert_eq!(surfaces(&back), surfaces(&model));
    }
}

/// Damaged version 8 payloads: every single-bit flip of the connectivity bits and every
/// small change of the header counts of real and fixture blobs decodes or fails cleanly.
#[test]
fn damaged_v8_payloads_never_panic_or_hang() {
    let mut cases = 0;
    let mut refused = 0;
    let mut paths = real_v8();
    paths.extend(
        blobs()
            .into_iter()
            .filter(|p| std::fs::read(p).is_ok_and(|b| b.starts_with(b"CSGPHS\x08\0\0\0"))),
    );
    for path in paths {
        let (_, raw, _) = load(&path);
        let payload = raw.payload(&Limits::default()).unwrap().unwrap();
        let bits = payload.bit_count as usize;
        for i in (0..bits).step_by((bits / 400).max(1)) {
            let mut p = payload.clone();
            p.bits[i / 8] ^= 1 << (i % 8);
            refused += usize::from(p.hulls().is_err());
            cases += 1;
        }
        for field in 0..6 {
            for delta in [1u32, 2, 3, 7, u32::MAX, u32::MAX - 3, 1 << 31] {
                let mut p = payload.clone();
                let f = match field {
                    0 => &mut p.hull_count,
                    1 => &mut p.vertex_count,
                    2 => &mut p.triangle_count,
                    3 => &mut p.bit_count,
                    4 => &mut p.max_hull_vertices,
                    _ => &mut p.max_hull_triangles,
                };
                *f = f.wrapping_add(delta);
                let r = p.hulls();
                // The max counts are informative; any other change is noticed.
                assert_eq!(
                    r.is_err(),
                    field < 4,
                    "{} field {field} +{delta}",
                    path.display()
                );
                cases += 1;
            }
        }
    }
    // The corpus's real v8 blobs add hundreds of flips to the fixtures' few.
    let min_cases = if common::corpus().is_some() { 500 } else { 200 };
    assert!(cases > min_cases, "{cases}");
    assert!(refused > 0);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Any model through every version: hull records keep everything; version 8 keeps
    /// every surface, codes the closed hulls and stores the rest raw (first); reading a v8
    /// payload back and writing it again is byte-exact.
    #[test]
    fn models_survive_every_version(m in model(Size::default())) {
        for target in CSGPHS_VERSIONS {
            let raw = m.to_csgphs(target).unwrap();
            let bytes = raw.write().unwrap();
            let back = CsgMesh::read(&bytes).unwrap();
            match target {
                0 => prop_assert!(back.block && back.hulls.is_empty()),
                8 => {
                    prop_assert_eq!(surfaces(&back), surfaces(&m));
                    let payload = raw.payload(&Limits::default()).unwrap().unwrap();
                    let again = meshcodec::csg::phs::raw::V8Payload::read_bytes(&payload.to_bytes().unwrap()).unwrap();
                    prop_assert_eq!(&again, &payload);
                    // Written again from what was read: the same blob.
                    prop_assert_eq!(back.to_csgphs(8).unwrap().write().unwrap(), bytes.clone());
                    prop_assert!(back.losses(8).is_empty());
                }
                _ => prop_assert_eq!(&back.hulls, &m.hulls),
            }
        }
    }
}

/// A zstd frame of raw (stored) blocks, assembled by hand (RFC 8878): what a compressor
/// other than libzstd 1.5.2 at level 19 could write.
fn raw_frame(payload: &[u8]) -> Vec<u8> {
    let mut out = vec![0x28, 0xB5, 0x2F, 0xFD, 0xA0];
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    let chunks: Vec<&[u8]> = if payload.is_empty() {
        vec![&[]]
    } else {
        payload.chunks(100).collect()
    };
    for (k, c) in chunks.iter().enumerate() {
        let header = u32::from(k + 1 == chunks.len()) | (c.len() as u32) << 3;
        out.extend_from_slice(&header.to_le_bytes()[..3]);
        out.extend_from_slice(c);
    }
    out
}

/// `hulls` stored plainly, as a payload's raw block.
fn raw_block(hulls: &[CsgHull]) -> Option<RawHulls> {
    if hulls.is_empty() {
        return None;
    }
    let mut r = RawHulls {
        index_ranges: vec![0].into(),
        position_ranges: vec![0].into(),
        ..RawHulls::default()
    };
    for h in hulls {
        r.indices.extend(h.triangles.iter().flatten());
        r.positions.extend(h.positions.iter().flatten());
        r.index_ranges.push(r.indices.len() as u32);
        r.position_ranges.push(r.positions.len() as u32);
    }
    Some(r)
}

fn v8_blob(geometry_type: u8, reserved: u8, frame: Vec<u8>) -> Vec<u8> {
    Csgphs {
        version: 8,
        body: CsgBody::Compressed(Compressed {
            geometry_type,
            reserved,
            frame,
        }),
    }
    .write()
    .unwrap()
}

/// Ways a version 8 blob can encode its hulls that `meshcodec` would not choose.
#[derive(Clone, Debug)]
struct Quirks {
    /// Whole words after the connectivity bits.
    pad_words: u8,
    /// A 1 in an unused high bit of the last, partial word (readers ignore it).
    junk_high_bit: bool,
    /// A bounding box that is not the exact one.
    bbox_nudge: bool,
    /// A largest-hull count that is not the real one.
    max_nudge: bool,
    /// The byte after the geometry type.
    reserved: u8,
    /// A frame of raw blocks instead of libzstd's.
    raw_frame: bool,
    /// The first hull stored plainly even if it could be coded.
    first_hull_raw: bool,
}

#[derive(Clone, Debug)]
enum Source {
    /// Built in memory: nothing carried.
    Memory,
    /// Written as this version by `meshcodec` and read back.
    Version(u32),
    /// A version 8 blob with these quirks, read.
    V8(Quirks),
    /// `BLOCK` and these bytes after it.
    Block(Vec<u8>),
}

#[derive(Clone, Debug)]
enum Edit {
    None,
    MoveVertex(usize),
    NanVertex(usize),
    SetPhysics(PhysicsInfo),
    ClearPhysics,
    SetGeometryType(Option<u8>),
    Preamble(usize),
    SetBlock(bool),
}

fn quirks() -> impl Strategy<Value = Quirks> {
    (
        0u8..3,
        any::<bool>(),
        prop::bool::weighted(0.2),
        prop::bool::weighted(0.2),
        prop_oneof![3 => Just(0u8), 1 => any::<u8>()],
        any::<bool>(),
        prop::bool::weighted(0.3),
    )
        .prop_map(
            |(
                pad_words,
                junk_high_bit,
                bbox_nudge,
                max_nudge,
                reserved,
                raw_frame,
                first_hull_raw,
            )| {
                Quirks {
                    pad_words,
                    junk_high_bit,
                    bbox_nudge,
                    max_nudge,
                    reserved,
                    raw_frame,
                    first_hull_raw,
                }
            },
        )
}

fn source() -> impl Strategy<Value = Source> {
    prop_oneof![
        1 => Just(Source::Memory),
        3 => prop::sample::select(CSGPHS_VERSIONS.to_vec()).prop_map(Source::Version),
        3 => quirks().prop_map(Source::V8),
        1 => proptest::collection::vec(any::<u8>(), 0..3).prop_map(Source::Block),
    ]
}

/// Physics info for a model: none, any bits, or what its hulls give, exactly or but for
/// the lowest bit of one value (as Roblox's own rounding differs from ours).
#[derive(Clone, Debug)]
enum PhysicsChoice {
    None,
    Any(PhysicsInfo),
    Computed(Option<usize>),
}

fn physics_choice() -> impl Strategy<Value = PhysicsChoice> {
    prop_oneof![
        Just(PhysicsChoice::None),
        physics().prop_map(PhysicsChoice::Any),
        proptest::option::of(0usize..10).prop_map(PhysicsChoice::Computed),
    ]
}

fn with_physics(m: &mut CsgMesh, choice: &PhysicsChoice) {
    m.physics = match *choice {
        PhysicsChoice::None => None,
        PhysicsChoice::Any(p) => Some(p),
        PhysicsChoice::Computed(nudge) => {
            let mut p = m.computed_physics();
            if let Some(k) = nudge {
                let v = match k {
                    0 => &mut p.volume,
                    1..=3 => &mut p.center_of_gravity[k - 1],
                    _ => &mut p.inertia[k - 4],
                };
                *v = f32::from_bits(v.to_bits() ^ 1);
            }
            Some(p)
        }
    };
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        6 => Just(Edit::None),
        2 => any::<usize>().prop_map(Edit::MoveVertex),
        1 => any::<usize>().prop_map(Edit::NanVertex),
        1 => physics().prop_map(Edit::SetPhysics),
        1 => Just(Edit::ClearPhysics),
        1 => proptest::option::of(0u8..4).prop_map(Edit::SetGeometryType),
        1 => any::<usize>().prop_map(Edit::Preamble),
        2 => any::<bool>().prop_map(Edit::SetBlock),
    ]
}

/// The source model as a blob of the given kind, read back.
fn from_source(m0: &CsgMesh, source: &Source) -> Option<CsgMesh> {
    match source {
        Source::Memory => Some(m0.clone()),
        Source::Block(trailing) => {
            let mut b = b"CSGPHS\0\0\0\0BLOCK".to_vec();
            b.extend_from_slice(trailing);
            CsgMesh::read(&b).ok()
        }
        Source::Version(v) => CsgMesh::read(&m0.to_csgphs(*v).ok()?.write().ok()?).ok(),
        Source::V8(q) => {
            let mut p = if q.first_hull_raw && !m0.hulls.is_empty() {
                let rest = CsgMesh {
                    hulls: m0.hulls[1..].to_vec(),
                    ..CsgMesh::default()
                };
                let mut p = rest.to_v8_payload().ok()?;
                let decoded = p.hulls().ok()?;
                let raw_n = decoded.len() - p.hull_count as usize;
                let mut raw = vec![m0.hulls[0].clone()];
                raw.extend_from_slice(&decoded[..raw_n]);
                p.raw_hulls = raw_block(&raw);
                p
            } else {
                values_only(m0).to_v8_payload().ok()?
            };
            p.bits
                .extend(std::iter::repeat_n(0x5Au8, 4 * usize::from(q.pad_words)));
            let used = p.bit_count % 32;
            if q.junk_high_bit && used != 0 {
                let last = (p.bit_count / 32) as usize;
                p.bits[4 * last + 3] |= 0x80;
            }
            if q.bbox_nudge {
                p.bbox_min[0] = f32::from_bits(p.bbox_min[0].to_bits() ^ 1);
            }
            if q.max_nudge {
                p.max_hull_vertices += 1;
            }
            let bytes = p.to_bytes().ok()?;
            let frame = if q.raw_frame {
                raw_frame(&bytes)
            } else {
                p.compress().ok()?
            };
            let blob = v8_blob(m0.geometry_type.unwrap_or(0), q.reserved, frame);
            CsgMesh::read(&blob).ok()
        }
    }
}

fn apply(m: &mut CsgMesh, edit: &Edit) {
    let n = m.hulls.len();
    match *edit {
        Edit::None => {}
        Edit::MoveVertex(k) | Edit::NanVertex(k) if n > 0 => {
            if let Some(p) = m.hulls[k % n].positions.first_mut() {
                p[1] = match edit {
                    Edit::NanVertex(_) => f32::NAN,
                    _ => p[1] + 0.5,
                };
            }
        }
        Edit::SetPhysics(p) => m.physics = Some(p),
        Edit::ClearPhysics => m.physics = None,
        Edit::SetGeometryType(g) => m.geometry_type = g,
        Edit::Preamble(k) if n > 0 => m.hulls[k % n].preambles[0] = vec![1, 2, 3],
        Edit::SetBlock(b) => m.block = b,
        _ => {}
    }
}

/// The loss report is honest and complete: for any model (built in memory, read from any
/// version, or read from a version 8 blob whose frame and payload `meshcodec` would not
/// write, then edited or not) and any target, converting, reading back and comparing
/// finds a difference (in `block` or in the bytes written for any version, which covers
/// values and every layout choice that can be written again) exactly when the report is
/// not empty.
#[test]
fn loss_report_lists_something_exactly_when_the_round_trip_differs() {
    use proptest::test_runner::{Config, TestRunner};
    use std::cell::RefCell;
    let seen: RefCell<HashMap<LossKind, usize>> = RefCell::default();
    let counts = RefCell::new((0usize, 0usize));
    let strategy = (model(Size::default()), physics_choice(), source(), edit());
    let mut runner = TestRunner::new(Config {
        cases: 1000,
        ..Config::default()
    });
    runner
        .run(&strategy, |(mut m0, physics, source, edit)| {
            with_physics(&mut m0, &physics);
            let Some(mut m) = from_source(&m0, &source) else {
                return Ok(());
            };
            apply(&mut m, &edit);
            for target in CSGPHS_VERSIONS {
                let losses = m.losses(target);
                let bytes = m.to_csgphs(target).unwrap().write().unwrap();
                let back = CsgMesh::read(&bytes).unwrap();
                let diff = difference(&m, &back);
                prop_assert_eq!(
                    losses.is_empty(),
                    diff.is_none(),
                    "{:?} → {}: losses {:?}, difference {:?}",
                    &source,
                    target,
                    &losses,
                    &diff
                );
                let mut c = counts.borrow_mut();
                if losses.is_empty() {
                    c.0 += 1;
                } else {
                    c.1 += 1;
                }
                for l in &losses {
                    *seen.borrow_mut().entry(l.kind).or_default() += 1;
                }
            }
            Ok(())
        })
        .unwrap();
    let (lossless, lossy) = counts.into_inner();
    assert!(lossless > 1000 && lossy > 1000, "{lossless} {lossy}");
    let seen = seen.into_inner();
    for kind in [
        LossKind::CsgHulls,
        LossKind::CsgGeometryType,
        LossKind::CsgPhysics,
        LossKind::CsgHullLayout,
        LossKind::CsgEncoding,
    ] {
        assert!(
            seen.get(&kind).is_some_and(|&n| n > 5),
            "{kind:?}: {seen:?}"
        );
    }
}

/// Carry-over: an unedited model writes its source again; after one vertex moves, the
/// payload, the frame and the physics info are derived afresh and describe the edit, while
/// the geometry type and the reserved byte stay.
#[test]
fn editing_one_vertex_refreshes_payload_frame_and_physics() {
    let mut n = 0;
    for path in blobs() {
        let (bytes, raw, model) = load(&path);
        let Some(k) = model.hulls.iter().rposition(|h| !h.positions.is_empty()) else {
            continue;
        };
        assert_eq!(
            model.to_csgphs(raw.version).unwrap().write().unwrap(),
            bytes
        );
        let mut edited = model.clone();
        edited.hulls[k].positions[0][0] += 0.25;
        let what = path.display().to_string();
        if let CsgBody::Compressed(c) = &raw.body {
            let out = edited.to_csgphs(8).unwrap();
            let CsgBody::Compressed(e) = &out.body else {
                unreachable!()
            };
            assert_eq!((e.geometry_type, e.reserved), (c.geometry_type, c.reserved));
            // Fresh: what the values alone give, in a frame libzstd made.
            let fresh = values_only(&edited).to_v8_payload().unwrap();
            assert_eq!(edited.to_v8_payload().unwrap(), fresh, "{what}");
            assert_eq!(e.frame, fresh.compress().unwrap(), "{what}");
            assert_ne!(e.frame, c.frame);
            let back = CsgMesh::read(&out.write().unwrap()).unwrap();
            assert_eq!(back.hulls, edited.hulls, "{what}");
            assert!(edited.losses(8).is_empty(), "{:?}", edited.losses(8));
        }
        if let Some(stored) = model.physics {
            // Unedited: the stored value, bit for bit; edited: what the new hulls give.
            let physics = |m: &CsgMesh| m.to_csgphs(7).unwrap().physics().copied().unwrap();
            assert_eq!(physics(&model), stored);
            assert_eq!(physics(&edited), edited.computed_physics(), "{what}");
            assert_ne!(physics(&edited), stored);
            // A value set by hand is data: written as it is.
            let mut set = edited.clone();
            let mine = PhysicsInfo {
                volume: 42.0,
                ..stored
            };
            set.physics = Some(mine);
            assert_eq!(physics(&set), mine);
        }
        n += 1;
    }
    assert!(n >= 8, "{n}");
}

/// A hull that the source stored plainly stays plain while it is unchanged, even when the
/// rest of the payload is encoded afresh; from the values alone it would be coded.
#[test]
fn a_hull_stored_plainly_stays_plain_while_unchanged() {
    let tetra = CsgHull::new(
        vec![
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 0.0, 1.0],
        ],
        vec![[0, 2, 1], [0, 1, 3], [1, 2, 3], [0, 3, 2]],
    );
    let bits = |n: u32| {
        (0..n)
            .map(|i| [i as f32, (i * i) as f32, 0.5])
            .collect::<Vec<_>>()
    };
    let (octa_n, octa) = triangulation(&[(0, 1), (0, 2)]);
    let other = CsgHull::new(bits(octa_n as u32), octa);
    let coded = CsgMesh {
        hulls: vec![other.clone()],
        ..CsgMesh::default()
    };
    let mut p = coded.to_v8_payload().unwrap();
    p.raw_hulls = raw_block(std::slice::from_ref(&tetra));
    let blob = v8_blob(0, 0, p.compress().unwrap());
    let model = CsgMesh::read(&blob).unwrap();
    assert_eq!(model.hulls.len(), 2);
    assert_eq!(model.to_csgphs(8).unwrap().write().unwrap(), blob);
    let mut edited = model.clone();
    edited.hulls[1].positions[0][2] = 7.0;
    let fresh = edited.to_v8_payload().unwrap();
    assert_eq!(fresh.hull_count, 1);
    assert_eq!(fresh.raw_hulls, p.raw_hulls);
    assert_eq!(values_only(&edited).to_v8_payload().unwrap().hull_count, 2);
    // Going to 7 cannot keep it plain: writing 8 again would code it. Listed.
    let losses = model.losses(7);
    assert!(
        losses.iter().any(|l| l.kind == LossKind::CsgEncoding
            && l.detail.contains("which hulls are stored plainly")),
        "{losses:?}"
    );
}

/// The connectivity buffer is whole 32-bit words and nothing more, for odd and even word
/// counts and a bit count that fills its last word: the size field at byte 28 of the
/// payload says `4·⌈B/32⌉`, and a reader finds the vertex array right after.
#[test]
fn v8_connectivity_buffer_is_whole_words() {
    let tetra = |x: f32| {
        CsgHull::new(
            vec![
                [x, 0.0, 0.0],
                [x + 1.0, 0.0, 0.0],
                [x, 1.0, 0.0],
                [x, 0.0, 1.0],
            ],
            vec![[0, 2, 1], [0, 1, 3], [1, 2, 3], [0, 3, 2]],
        )
    };
    let flat = CsgHull::new(
        vec![[0.0, 5.0, 0.0], [1.0, 5.0, 0.0], [1.0, 5.0, 1.0]],
        vec![[0, 1, 2], [0, 2, 1]],
    );
    // Tetrahedra take 7 bits each: 1 → 7 bits (1 word), 5 → 35 (2), 10 → 70 (3),
    // 14 → 98 (4); none → 0 bits (only a plain hull).
    for (tetras, bits, words) in [(1, 7, 1), (5, 35, 2), (10, 70, 3), (14, 98, 4), (0, 0, 0)] {
        let mut hulls: Vec<CsgHull> = (0..tetras).map(|i| tetra(2.0 * i as f32)).collect();
        if tetras == 0 {
            hulls.push(flat.clone());
        }
        let model = CsgMesh {
            hulls,
            ..CsgMesh::default()
        };
        let p = model.to_v8_payload().unwrap();
        assert_eq!((p.bit_count, p.bits.len()), (bits, 4 * words), "{tetras}");
        let bytes = p.to_bytes().unwrap();
        let field = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        assert_eq!(field(24), bits);
        assert_eq!(field(28) as usize, 4 * words);
        assert_eq!(
            bytes.len(),
            60 + field(20) as usize + 4 * words + 12 * 4 * tetras
        );
        let back = CsgMesh::read(&model.to_csgphs(8).unwrap().write().unwrap()).unwrap();
        assert_eq!(surfaces(&back), surfaces(&model));
    }
    // 32 bits exactly: three tetrahedra and a bipyramid (11 bits) fill one word; no
    // second word follows.
    let fixture = common::fixture_dir("csgphs").join("csgphs8-full-word.bin");
    let (_, raw, model) = load(&fixture);
    let p = raw.payload(&Limits::default()).unwrap().unwrap();
    assert_eq!((p.bit_count, p.bits.len()), (32, 4));
    assert_eq!(values_only(&model).to_v8_payload().unwrap(), p);
}
