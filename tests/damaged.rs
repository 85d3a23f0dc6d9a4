//! Damaged input: truncations, bit flips and huge counts in every corpus file and
//! fixture give `Err` (or `Ok`), never a panic, a hang, or an allocation out of
//! proportion to the input.
//!
//! A capping global allocator aborts the process if one parse allocates more than
//! `16 × input + 1 MiB`, so an over-allocation fails this test loudly. The cap is process-wide,
//! so the tests of this binary take a lock and run one at a time.

mod common;

use std::alloc::System;
use std::path::PathBuf;

use cap::Cap;
use meshcodec::filemesh::raw::FileMesh;
use meshcodec::ErrorKind;

#[global_allocator]
static ALLOC: Cap<System> = Cap::new(System, usize::MAX);

/// The cap is process-wide: the tests of this binary run one at a time.
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Parses under an allocation cap; returns whether it parsed.
fn parse_capped(bytes: &[u8]) -> Result<FileMesh, meshcodec::Error> {
    let budget = bytes.len() * 16 + (1 << 20);
    ALLOC.set_limit(ALLOC.allocated() + budget).unwrap();
    let result = FileMesh::read(bytes);
    ALLOC.set_limit(usize::MAX).unwrap();
    if let Err(e) = &result {
        // Every error says where, within the input.
        let off = e.offset().expect("read errors carry an offset");
        assert!(
            off <= bytes.len() as u64,
            "offset {off} beyond {} bytes: {e}",
            bytes.len()
        );
        assert!(!e.to_string().is_empty());
    }
    if let Ok(m) = &result {
        // Whatever parses, writes back exactly; its summary (which decodes Draco) is an
        // Ok or an Err, under the same cap.
        assert_eq!(m.write().unwrap(), bytes);
        ALLOC.set_limit(ALLOC.allocated() + budget).unwrap();
        let info = m.info();
        ALLOC.set_limit(usize::MAX).unwrap();
        drop(info);
    }
    result
}

/// A small deterministic generator (xorshift64*), so failures reproduce.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Damages `bytes` every way the blob tests use and runs `check` on each case: cuts
/// (every `step`-th), 400 sets of 1–4 bit flips, and 1/2/4/8-byte runs of 0xFF at each
/// offset of `runs`. Returns (cases, cases `check` accepted).
fn damage(
    bytes: &[u8],
    rng: &mut Rng,
    step: usize,
    runs: std::ops::Range<usize>,
    check: &dyn Fn(&[u8]) -> bool,
) -> (usize, usize) {
    let (mut cases, mut ok) = (0usize, 0usize);
    let mut run = |b: &[u8]| {
        cases += 1;
        ok += usize::from(check(b));
    };
    for cut in (0..bytes.len()).step_by(step) {
        run(&bytes[..cut]);
    }
    for _ in 0..400 {
        let mut b = bytes.to_vec();
        for _ in 0..1 + rng.below(4) {
            let i = rng.below(b.len());
            b[i] ^= 1 << rng.below(8);
        }
        run(&b);
    }
    for at in runs.start..bytes.len().min(runs.end) {
        for width in [1usize, 2, 4, 8] {
            let mut b = bytes.to_vec();
            for x in b.iter_mut().skip(at).take(width) {
                *x = 0xFF;
            }
            run(&b);
        }
    }
    (cases, ok)
}

fn inputs() -> Vec<(PathBuf, Vec<u8>, bool)> {
    let mut files: Vec<(PathBuf, bool)> = common::fixture_files()
        .into_iter()
        .map(|p| (p, false))
        .collect();
    if let Some(dir) = common::corpus() {
        files.extend(
            common::corpus_filemeshes(&dir, common::ALL_VERSIONS)
                .into_iter()
                .map(|p| (p, true)),
        );
    }
    files
        .into_iter()
        .map(|(p, real)| {
            let b = std::fs::read(&p).unwrap();
            (p, b, real)
        })
        .collect()
}

#[test]
fn damaged_input_never_panics_or_overallocates() {
    let _serial = serial();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut cases, mut errors) = (0usize, 0usize);
    for (path, bytes, real) in inputs() {
        let mesh = FileMesh::read(&bytes).unwrap();
        // Cuts that leave a valid file: inside trailing bytes, or between chunks.
        let mut valid_cuts: Vec<usize> =
            (bytes.len() - mesh.trailing().len()..=bytes.len()).collect();
        if let meshcodec::filemesh::raw::Body::V1(_) = &mesh.body {
            // Dropping a final line ending leaves a valid text file.
            for end in [b"\r\n".as_slice(), b"\n"] {
                if bytes.ends_with(end) {
                    valid_cuts.push(bytes.len() - end.len());
                }
            }
        }
        if let meshcodec::filemesh::raw::Body::V6(b) = &mesh.body {
            let mut at = 13;
            valid_cuts.push(at);
            for c in &b.chunks {
                at += 16 + c.data.byte_size();
                valid_cuts.push(at);
            }
        }
        // Truncation: every offset of small files, a spread of offsets in large ones.
        let cuts: Vec<usize> = if bytes.len() <= 4096 {
            (0..bytes.len()).collect()
        } else {
            (0..256)
                .chain((0..512).map(|i| i * bytes.len() / 512))
                .collect()
        };
        for cut in cuts {
            cases += 1;
            let r = parse_capped(&bytes[..cut]);
            // Any other cut must fail.
            if !valid_cuts.contains(&cut) {
                let e = r
                    .err()
                    .unwrap_or_else(|| panic!("{}: cut at {cut} parsed", path.display()));
                errors += 1;
                if real {
                    assert!(
                        matches!(
                            e.kind(),
                            ErrorKind::UnexpectedEof
                                | ErrorKind::CountTooLarge { .. }
                                | ErrorKind::Invalid(_)
                        ),
                        "{}: cut at {cut}: {e}",
                        path.display()
                    );
                }
            }
        }
        // Random bit flips.
        for _ in 0..300 {
            let mut b = bytes.clone();
            for _ in 0..1 + rng.below(4) {
                let i = rng.below(b.len());
                b[i] ^= 1 << rng.below(8);
            }
            cases += 1;
            errors += usize::from(parse_capped(&b).is_err());
        }
        // Huge values in every header position (counts, sizes): 0xFF runs.
        for at in 13..bytes.len().min(13 + 48) {
            for width in [1usize, 2, 4, 8] {
                let mut b = bytes.clone();
                for x in b.iter_mut().skip(at).take(width) {
                    *x = 0xFF;
                }
                cases += 1;
                errors += usize::from(parse_capped(&b).is_err());
            }
        }
    }
    eprintln!("{cases} damaged inputs, {errors} rejected, none panicked");
    assert!(cases > 10_000, "too few cases: {cases}");
}

#[test]
fn huge_counts_are_rejected_before_allocating() {
    let _serial = serial();
    // A 2.00 header claiming 0xFFFFFFFF vertices in a 25-byte file.
    let mut b = b"version 2.00\n".to_vec();
    b.extend_from_slice(&[12, 0, 40, 12, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0]);
    let e = FileMesh::read(&b).unwrap_err();
    match e.kind() {
        ErrorKind::CountTooLarge {
            what,
            count,
            needed,
            remaining,
        } => {
            assert_eq!(
                (what.as_ref(), *count, *needed, *remaining),
                ("vertices", 0xFFFF_FFFF, 0xFFFF_FFFF * 40, 0)
            );
        }
        k => panic!("{k:?}"),
    }
    assert_eq!(e.offset(), Some(25));
    assert_eq!(
        e.to_string(),
        "at byte 25 (0x19), reading FileMeshV2.vertices: 4294967295 vertices need 171798691800 bytes but only 0 remain"
    );
}

#[test]
fn chunk_size_overrunning_the_file_is_an_error() {
    let _serial = serial();
    let mut b = b"version 7.00\nLODS\0\0\0\0".to_vec();
    b.extend_from_slice(&1u32.to_le_bytes());
    b.extend_from_slice(&0xFFFF_FFF0u32.to_le_bytes());
    b.extend_from_slice(&[0; 7]);
    let e = FileMesh::read(&b).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::CountTooLarge { .. }), "{e}");
    assert_eq!(e.offset(), Some(29));
    // A known chunk whose fields don't fill its payload exactly.
    let mut b = b"version 6.00\nLODS\0\0\0\0".to_vec();
    b.extend_from_slice(&1u32.to_le_bytes());
    b.extend_from_slice(&9u32.to_le_bytes());
    b.extend_from_slice(&[0, 0, 1, 0, 0, 0, 0, 0xEE, 0xEE]);
    let e = FileMesh::read(&b).unwrap_err();
    assert!(
        e.to_string()
            .contains("LODS v1 payload is 9 bytes but its fields take 7"),
        "{e}"
    );
    // A chunk header cut short.
    let e = FileMesh::read(b"version 6.00\nCOREME").unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::UnexpectedEof), "{e}");
}

/// A Draco blob cut short inside consistent chunk framing: the raw layer keeps the bytes
/// (and writes them back), decoding it for `info` is an error placed in the file.
#[test]
fn draco_blob_cut_short_is_an_error_when_decoded() {
    let _serial = serial();
    let Some(dir) = common::corpus() else { return };
    let path = dir.join("roblox/v7.00-127279296594138.mesh");
    let bytes = std::fs::read(path).unwrap();
    let mesh = FileMesh::read(&bytes).unwrap();
    let meshcodec::filemesh::raw::Body::V6(body) = &mesh.body else {
        panic!()
    };
    let meshcodec::filemesh::raw::ChunkData::CoreMeshV2(core) = &body.chunks[0].data else {
        panic!()
    };
    let mut rng = Rng(42);
    for _ in 0..200 {
        let keep = rng.below(core.draco.len());
        let mut cut = mesh.clone();
        let meshcodec::filemesh::raw::Body::V6(b) = &mut cut.body else {
            panic!()
        };
        let meshcodec::filemesh::raw::ChunkData::CoreMeshV2(c) = &mut b.chunks[0].data else {
            panic!()
        };
        c.draco.truncate(keep);
        let written = cut.write().unwrap();
        let again = parse_capped(&written).unwrap();
        let e = again.info().unwrap_err();
        // Offsets point into the file, past the COREMESH header and length.
        let off = e.offset().unwrap_or(u64::MAX);
        assert!(
            (33..=written.len() as u64).contains(&off) || e.offset().is_none(),
            "{e}"
        );
        assert!(e.to_string().contains("Draco"), "{e}");
    }
}

#[test]
fn errors_name_offset_and_field() {
    let _serial = serial();
    // Cut inside the 4.01 header: the failing field and its offset are named.
    let mut b = b"version 4.01\n".to_vec();
    b.extend_from_slice(&[24, 0, 3, 0, 1, 0]);
    let e = FileMesh::read(&b).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::UnexpectedEof), "{e}");
    assert_eq!(e.offset(), Some(17));
    assert!(e.context().contains("num_verts"), "{e}");
    // A vertex size the format doesn't have.
    let mut b = b"version 2.00\n".to_vec();
    b.extend_from_slice(&[12, 0, 44, 12, 0, 0, 0, 0, 0, 0, 0, 0]);
    let e = FileMesh::read(&b).unwrap_err();
    assert!(
        e.to_string()
            .contains("sizeof_FileMeshVertex is 44; 36 or 40 expected"),
        "{e}"
    );
    assert_eq!(e.offset(), Some(15));
    // Unknown and unsupported versions.
    let e = FileMesh::read(b"version 9.99\n").unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::UnsupportedVersion(_)), "{e}");
    let e = FileMesh::read(b"hello").unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::UnexpectedEof), "{e}");
    let e = FileMesh::read(b"not a mesh at all").unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Invalid(_)), "{e}");
}

/// CSGPHS blobs (corpus and fixtures): truncations, bit flips and 0xFF runs through the
/// raw layer and the model (which decompresses and Edgebreaker-decodes version 8), under
/// the same allocation cap.
#[test]
fn damaged_csgphs_never_panics_or_overallocates() {
    use meshcodec::csg::phs::model::CsgMesh;
    use meshcodec::csg::phs::raw::Csgphs;
    let _serial = serial();
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
    let check = |b: &[u8]| -> bool {
        let budget = b.len() * 16 + (1 << 20);
        ALLOC.set_limit(ALLOC.allocated() + budget).unwrap();
        let raw = Csgphs::read(b);
        let model = CsgMesh::read(b);
        ALLOC.set_limit(usize::MAX).unwrap();
        if let Err(e) = &raw {
            assert!(e.offset().is_some_and(|o| o <= b.len() as u64), "{e}");
        }
        if let Ok(c) = &raw {
            assert_eq!(c.write().unwrap(), b);
        }
        model.is_ok()
    };
    let mut rng = Rng(0x1234_5678_9ABC_DEF1);
    let (mut cases, mut decoded) = (0usize, 0usize);
    for path in paths {
        let bytes = std::fs::read(&path).unwrap();
        assert!(check(&bytes), "{}", path.display());
        let (c, k) = damage(&bytes, &mut rng, 1, 10..10 + 64, &check);
        cases += c;
        decoded += k;
    }
    eprintln!("{cases} damaged CSGPHS blobs, {decoded} still decoded, none panicked");
    assert!(cases > 5_000, "{cases}");
}

/// UNIGINE meshes and animations (corpus and fixtures): every truncation, bit flips and
/// 0xFF runs through the raw layer under the same allocation cap.
#[test]
fn damaged_unigine_never_panics_or_overallocates() {
    use meshcodec::unigine::raw::anim::UnigineAnim;
    use meshcodec::unigine::UnigineMesh;
    let _serial = serial();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(common::fixture_dir("unigine"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "mesh" || e == "anim"))
        .collect();
    if let Some(dir) = common::corpus() {
        paths.extend(
            std::fs::read_dir(dir.join("unigine"))
                .unwrap()
                .map(|e| e.unwrap().path()),
        );
    }
    let check = |b: &[u8]| -> bool {
        let budget = b.len() * 16 + (1 << 20);
        ALLOC.set_limit(ALLOC.allocated() + budget).unwrap();
        let (ok, written, err) = if b.starts_with(b"an") {
            let r = UnigineAnim::read(b);
            (r.is_ok(), r.as_ref().ok().map(|a| a.write()), r.err())
        } else {
            let r = UnigineMesh::read(b);
            // The summary decompresses and parses ms14 blocks: Ok or Err, under the cap.
            let info = r
                .as_ref()
                .ok()
                .map(|m| m.info(&meshcodec::Limits::default()));
            drop(info);
            (r.is_ok(), r.as_ref().ok().map(|m| m.write()), r.err())
        };
        ALLOC.set_limit(usize::MAX).unwrap();
        if let Some(e) = err {
            assert!(e.offset().is_some_and(|o| o <= b.len() as u64), "{e}");
        }
        if let Some(w) = written {
            assert_eq!(w.unwrap(), b);
        }
        ok
    };
    let mut rng = Rng(0x0DDB_A11C_AFE5_1234);
    let (mut cases, mut parsed) = (0usize, 0usize);
    for path in paths {
        let bytes = std::fs::read(&path).unwrap();
        assert!(check(&bytes), "{}", path.display());
        let (c, k) = damage(
            &bytes,
            &mut rng,
            (bytes.len() / 2000).max(1),
            4..4 + 96,
            &check,
        );
        cases += c;
        parsed += k;
    }
    eprintln!("{cases} damaged UNIGINE files, {parsed} still parsed, none panicked");
    assert!(cases > 5_000, "{cases}");
}

/// STF files (corpus and fixtures): truncations, bit flips and 0xFF runs through the
/// container and the mesh decoder, under the same allocation cap.
#[test]
fn damaged_stf_never_panics_or_overallocates() {
    use meshcodec::stf::StfContainer;
    let _serial = serial();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(common::fixture_dir("stf"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "stf"))
        .collect();
    if let Some(dir) = common::corpus() {
        paths.extend(
            std::fs::read_dir(dir.join("stf"))
                .unwrap()
                .map(|e| e.unwrap().path()),
        );
    }
    let check = |b: &[u8]| -> bool {
        let budget = b.len() * 16 + (1 << 20);
        ALLOC.set_limit(ALLOC.allocated() + budget).unwrap();
        let r = StfContainer::read(b);
        let info = r.as_ref().ok().map(|c| c.info());
        ALLOC.set_limit(usize::MAX).unwrap();
        drop(info);
        match r {
            Err(e) => {
                assert!(e.offset().is_some_and(|o| o <= b.len() as u64), "{e}");
                false
            }
            Ok(c) => {
                assert_eq!(c.write().unwrap(), b);
                true
            }
        }
    };
    let mut rng = Rng(0x5EED_0F57_F000_0001);
    let (mut cases, mut parsed) = (0usize, 0usize);
    for path in paths {
        let bytes = std::fs::read(&path).unwrap();
        assert!(check(&bytes), "{}", path.display());
        let (c, k) = damage(&bytes, &mut rng, 1, 4..4 + 128, &check);
        cases += c;
        parsed += k;
    }
    eprintln!("{cases} damaged STF files, {parsed} still parsed, none panicked");
    assert!(cases > 5_000, "{cases}");
}

/// An ms14 LZ4 block whose header claims 250 times its stored size (what LZ4 could at
/// most expand to, and far beyond what the block holds): decoding refuses it from the
/// block's own sequences, without allocating the claimed size.
#[test]
fn lz4_block_claiming_too_much_is_refused_without_allocating_it() {
    use meshcodec::unigine::raw::ms14::Lz4Block;
    use meshcodec::unigine::{MeshBody, UnigineMesh};
    let _serial = serial();
    let bytes = std::fs::read(common::fixture_dir("unigine").join("ms14-static-box.mesh")).unwrap();
    let mut mesh = UnigineMesh::read(&bytes).unwrap();
    let MeshBody::Ms14(m) = &mut mesh.body else {
        panic!("an ms14 fixture")
    };
    let mut rng = Rng(0xB0B0_1234_5678_9ABC);
    let noise: Vec<u8> = (0..65_536).map(|_| rng.next() as u8).collect();
    let packed = lz4_flex::block::compress(&noise);
    let claim = packed.len() as u64 * 250;
    m.blocks.geometry[0] = Lz4Block {
        size: claim,
        data: packed.into(),
    };
    let bomb = mesh.write().unwrap();
    assert!(
        claim > bomb.len() as u64 * 16 + (1 << 20),
        "a claim beyond the cap"
    );
    let budget = bomb.len() * 16 + (1 << 20);
    ALLOC.set_limit(ALLOC.allocated() + budget).unwrap();
    let read = UnigineMesh::read(&bomb);
    let info = read
        .as_ref()
        .map(|m| m.info(&meshcodec::Limits::default()).map(drop));
    ALLOC.set_limit(usize::MAX).unwrap();
    let e = info.unwrap().unwrap_err();
    assert!(e.to_string().contains("the header says"), "{e}");
}

/// A CSGPHS 8 blob of a few KB whose zstd frame holds 64 MiB of zeros: the payload's
/// own header (zero counts) says how much to decode, so the rest is never decoded and
/// memory stays under the cap; the error says the frame holds more than counted.
#[test]
fn csgphs_zstd_bomb_is_refused_without_decoding_it() {
    use meshcodec::csg::phs::Csgphs;
    use std::io::Write;
    let _serial = serial();
    let fixture = std::fs::read(common::fixture_dir("csgphs").join("csgphs8-boxes.bin")).unwrap();
    let mut bomb = fixture[..12].to_vec();
    let mut enc = zstd::stream::write::Encoder::new(Vec::new(), 3).unwrap();
    let zeros = vec![0u8; 1 << 20];
    for _ in 0..64 {
        enc.write_all(&zeros).unwrap();
    }
    bomb.extend(enc.finish().unwrap());
    drop(zeros);
    assert!(bomb.len() < 64 << 10, "{} bytes", bomb.len());
    let budget = bomb.len() * 16 + (1 << 20);
    ALLOC.set_limit(ALLOC.allocated() + budget).unwrap();
    let parsed = Csgphs::read(&bomb);
    let payload = parsed
        .as_ref()
        .map(|c| c.payload(&meshcodec::Limits::default()).map(drop));
    ALLOC.set_limit(usize::MAX).unwrap();
    let e = payload.unwrap().unwrap_err();
    assert!(e.to_string().contains("more than the 60 bytes"), "{e}");
}

/// An STF file of 1.2 MB whose 64 meshes all name the same buffer for every property:
/// decoded per use, that would be about 900 MB. The meshes together may decode to at
/// most 16 times the file's size; past that the reader stops with an error, and memory
/// stays within a small multiple of the input.
#[test]
fn stf_meshes_sharing_one_buffer_stay_bounded() {
    use meshcodec::stf::StfContainer;
    let _serial = serial();
    let buffer = vec![0u8; 1_179_648];
    let mesh = serde_json::json!({
        "type": "stf.mesh",
        "indices_width": 4,
        "referenced_buffers": ["b"],
        "vertices": 0, "face_corners": 0, "splits": 0, "split_normals": 0,
        "tris": 0, "faces": 0
    });
    let resources: serde_json::Map<String, serde_json::Value> = (0..64)
        .map(|i| (format!("mesh{i}"), mesh.clone()))
        .collect();
    let doc = serde_json::json!({
        "stf": { "version_major": 0, "version_minor": 0 },
        "resources": resources,
        "buffers": { "b": { "type": "stf.buffer.included", "index": 0 } }
    });
    let json = serde_json::to_vec(&doc).unwrap();
    let mut bomb = b"STF0".to_vec();
    for n in [0u32, 0, 2] {
        bomb.extend(n.to_le_bytes());
    }
    bomb.extend((json.len() as u64).to_le_bytes());
    bomb.extend((buffer.len() as u64).to_le_bytes());
    bomb.extend(&json);
    bomb.extend(&buffer);
    drop(buffer);
    let budget = bomb.len() * 40 + (1 << 20);
    ALLOC.set_limit(ALLOC.allocated() + budget).unwrap();
    let meshes = StfContainer::read(&bomb).map(|c| meshcodec::stf::model::meshes(&c).map(drop));
    ALLOC.set_limit(usize::MAX).unwrap();
    let e = meshes.unwrap().unwrap_err();
    assert!(e.to_string().contains("the same buffers again"), "{e}");
}

/// A 1 MB GLB whose 200 meshes share one 1 MiB index accessor (3.4 GB when each use
/// was decoded as a list of lists): the accessor is decoded once, each use is counted,
/// and past 16 times the file's size the import stops with an error.
#[test]
fn glb_sharing_one_accessor_stays_bounded() {
    let _serial = serial();
    let positions: Vec<u8> = [0.0f32, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let index_bytes = 1 << 20;
    let mut bin = positions.clone();
    bin.resize(36 + index_bytes, 0);
    let meshes: Vec<serde_json::Value> = (0..200)
        .map(|_| serde_json::json!({ "primitives": [{ "attributes": { "POSITION": 0 }, "indices": 1 }] }))
        .collect();
    let doc = serde_json::json!({
        "asset": { "version": "2.0" },
        "buffers": [{ "byteLength": bin.len() }],
        "bufferViews": [
            { "buffer": 0, "byteLength": 36 },
            { "buffer": 0, "byteOffset": 36, "byteLength": index_bytes }
        ],
        "accessors": [
            { "bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3" },
            { "bufferView": 1, "componentType": 5125, "count": index_bytes / 4, "type": "SCALAR" }
        ],
        "meshes": meshes
    });
    let mut json = serde_json::to_vec(&doc).unwrap();
    while !json.len().is_multiple_of(4) {
        json.push(b' ');
    }
    let total = 12 + 8 + json.len() + 8 + bin.len();
    let mut glb = b"glTF".to_vec();
    glb.extend(2u32.to_le_bytes());
    glb.extend((total as u32).to_le_bytes());
    glb.extend((json.len() as u32).to_le_bytes());
    glb.extend(b"JSON");
    glb.extend(&json);
    glb.extend((bin.len() as u32).to_le_bytes());
    glb.extend(b"BIN\0");
    glb.extend(&bin);
    drop(bin);
    let budget = glb.len() * 24 + (1 << 20);
    ALLOC.set_limit(ALLOC.allocated() + budget).unwrap();
    let scene = meshcodec::scene::import::read_gltf(&glb, None).map(drop);
    ALLOC.set_limit(usize::MAX).unwrap();
    let e = scene.unwrap_err();
    assert!(e.to_string().contains("decoded glTF accessors"), "{e}");
}

/// OBJ: 600,000 faces `f 1 2 3` over three vertices (3.6 MB): the import stays within a
/// small multiple of the text.
#[test]
fn obj_of_many_faces_stays_bounded() {
    let _serial = serial();
    let mut text = String::from("v 0 0 0\nv 1 0 0\nv 0 1 0\n");
    for _ in 0..600_000 {
        text.push_str("f 1 2 3\n");
    }
    let budget = text.len() * 24 + (1 << 20);
    ALLOC.set_limit(ALLOC.allocated() + budget).unwrap();
    let scene = meshcodec::scene::import::read_obj(&text).map(|s| {
        s.meshes
            .iter()
            .flat_map(|m| &m.primitives)
            .map(|p| p.triangles.len())
            .sum::<usize>()
    });
    ALLOC.set_limit(usize::MAX).unwrap();
    assert_eq!(scene.unwrap(), 600_000);
}

/// Union graphics blobs (corpus and fixtures): truncations, bit flips and 0xFF runs under
/// the same allocation cap; counts claiming more than the blob holds never allocate.
#[test]
fn damaged_csgmdl_never_panics_or_overallocates() {
    let _serial = serial();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(common::fixture_dir("csgmdl"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "bin"))
        .collect();
    if let Some(dir) = common::corpus() {
        paths.extend(
            std::fs::read_dir(dir.join("csgmdl"))
                .unwrap()
                .map(|e| e.unwrap().path()),
        );
    }
    let check = |b: &[u8]| -> bool {
        use meshcodec::MeshFile;
        let budget = b.len() * 16 + (1 << 20);
        ALLOC.set_limit(ALLOC.allocated() + budget).unwrap();
        let r = meshcodec::open(b);
        let written = r.as_ref().ok().map(|f| {
            let _ = f.summary(&meshcodec::Limits::default());
            f.write()
        });
        ALLOC.set_limit(usize::MAX).unwrap();
        if let Some(w) = written {
            assert_eq!(w.unwrap(), b);
        }
        r.is_ok()
    };
    let mut rng = Rng(0xC5C5_0D1E_5EED_0001);
    let mut cases = 0;
    for path in paths {
        let bytes = std::fs::read(&path).unwrap();
        assert!(check(&bytes), "{}", path.display());
        let (c, _) = damage(
            &bytes,
            &mut rng,
            (bytes.len() / 1000).max(1),
            6..6 + 64,
            &check,
        );
        cases += c;
    }
    eprintln!("{cases} damaged union graphics blobs, none panicked");
    assert!(cases > 500, "{cases}");
}
