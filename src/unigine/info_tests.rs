//! `info` walked from streams ([`UnigineMesh::info`]) against `info` from the arrays
//! ([`UnigineMesh::whole_info`], the code it replaced), and the streaming LZ4 decoder
//! against `decompress`, on every UNIGINE mesh of the fixtures and the corpus, the
//! classic ones converted to ms14, and damaged copies of their blocks.

use std::io::Read;

use super::raw::ms14::{Lz4Block, Ms14Mesh};
use super::{MeshBody, MeshVersion, UnigineMesh};
use crate::error::Limits;

/// The meshes of the fixtures and the corpus (`MESHCODEC_CORPUS`), and every ms10–ms13
/// one converted to ms14, with their names.
fn meshes() -> Vec<(String, UnigineMesh)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("roundtrip-fixtures");
    let dirs = [
        root.join("unigine"),
        crate::test_corpus_roblox().with_file_name("unigine"),
    ];
    let mut out = Vec::new();
    for e in dirs
        .iter()
        .flat_map(|d| std::fs::read_dir(d).into_iter().flatten().flatten())
    {
        let Ok(m) = std::fs::read(e.path())
            .map_err(drop)
            .and_then(|b| UnigineMesh::read(&b).map_err(drop))
        else {
            continue;
        };
        let name = e.path().display().to_string();
        if m.version != MeshVersion::Ms14 {
            if let Ok(v) = m.to_version(MeshVersion::Ms14) {
                out.push((format!("{name} as ms14"), v));
            }
        }
        out.push((name, m));
    }
    out
}

fn ms14(m: &UnigineMesh) -> Option<&Ms14Mesh> {
    match &m.body {
        MeshBody::Ms14(x) => Some(x),
        MeshBody::Classic(_) => None,
    }
}

/// What a block's stream gives, read 1000 bytes at a time.
fn streamed(b: &Lz4Block) -> crate::Result<Vec<u8>> {
    let mut r = b.reader(&Limits::default())?;
    let mut out = Vec::new();
    let mut buf = [0u8; 1000];
    loop {
        match r.read(&mut buf) {
            Ok(0) => return Ok(out),
            Ok(n) => out.extend_from_slice(buf.get(..n).unwrap_or_default()),
            Err(e) => return Err(crate::Error::new("stream", crate::ErrorKind::Io(e))),
        }
    }
}

#[test]
fn streams_give_what_decompress_gives() {
    let limits = Limits::default();
    let mut blocks = 0;
    for (name, m) in meshes() {
        let Some(x) = ms14(&m) else { continue };
        for b in x.blocks.geometry.iter().chain(&x.blocks.trees) {
            let whole = b.decompress(&limits).unwrap();
            assert!(streamed(b).unwrap() == whole, "{name}");
            blocks += 1;
        }
    }
    // 3 ms14 fixtures (4 blocks and 2 × 2), 9 converted.
    assert!(blocks >= 20, "{blocks} blocks");
}

#[test]
fn info_equals_whole_info() {
    let limits = Limits::default();
    let all = meshes();
    assert!(all.len() >= 20, "{} meshes", all.len());
    for (name, m) in &all {
        assert_eq!(
            m.info(&limits).unwrap(),
            m.whole_info(&limits).unwrap(),
            "{name}"
        );
    }
}

/// Values that are not finite are counted alike, in every target and UV set.
#[test]
fn non_finite_counts_agree() {
    let limits = Limits::default();
    let mut checked = 0;
    for (name, m) in meshes() {
        let Ok(mut c) = m.to_classic(&limits) else {
            continue;
        };
        let mut k = 0;
        for d in &mut c.data {
            for t in &mut d.targets {
                for p in t.positions.iter_mut().step_by(3) {
                    let bad = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY];
                    if let (Some(x), Some(b)) = (p.get_mut(k % 3), bad.get(k % 3)) {
                        *x = *b;
                    }
                    k += 1;
                }
            }
            for uv in d.uv0.iter_mut().chain(d.uv1.iter_mut()).step_by(2) {
                if let Some(x) = uv.get_mut(k % 2) {
                    *x = f32::NAN;
                }
                k += 1;
            }
        }
        for t in c.bind_pose.iter_mut() {
            t.scale[1] = f32::INFINITY;
        }
        let Ok(x) = Ms14Mesh::from_classic(c, None) else {
            continue;
        };
        let m = UnigineMesh {
            version: MeshVersion::Ms14,
            body: MeshBody::Ms14(x),
        };
        let lean = m.info(&limits).unwrap();
        assert_eq!(lean, m.whole_info(&limits).unwrap(), "{name}");
        checked += usize::from(!lean.non_finite.is_empty());
    }
    assert!(checked > 5, "{checked}");
}

/// A tiny deterministic generator for the damage.
fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut x = seed | 1;
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}

/// Damaged copies of a block: the stored bytes cut or changed, the declared size off
/// by one; the payload cut, lengthened or changed and compressed again (so the damage
/// reaches the parse).
fn damaged(b: &Lz4Block, seed: u64) -> Vec<Lz4Block> {
    let mut rand = xorshift(seed);
    let mut out = Vec::new();
    let n = b.data.len();
    for _ in 0..6 {
        let mut x = b.clone();
        x.data.truncate(rand() as usize % n.max(1));
        out.push(x);
        let mut x = b.clone();
        if let Some(byte) = x.data.get_mut(rand() as usize % n.max(1)) {
            *byte ^= 1 << (rand() % 8);
        }
        out.push(x);
    }
    for d in [-1i64, 1] {
        let mut x = b.clone();
        x.size = x.size.saturating_add_signed(d);
        out.push(x);
    }
    let Ok(payload) = b.decompress(&Limits::default()) else {
        return out;
    };
    let len = payload.len();
    for _ in 0..12 {
        let mut p = payload.clone();
        match rand() % 4 {
            0 => p.truncate(rand() as usize % len.max(1)),
            1 => p.push(rand() as u8),
            2 => {
                // A byte early on: the counts and compact ints sit there.
                let at = rand() as usize % len.clamp(1, 64);
                if let Some(byte) = p.get_mut(at) {
                    *byte = rand() as u8;
                }
            }
            _ => {
                if let Some(byte) = p.get_mut(rand() as usize % len.max(1)) {
                    *byte ^= 0x80;
                }
            }
        }
        out.push(Lz4Block::compress(&p));
    }
    out
}

/// On damaged blocks the two agree: the same counts, or the same error, message and
/// offset included.
#[test]
fn damaged_blocks_give_the_same_result() {
    let limits = Limits::default();
    let (mut errors, mut oks) = (0, 0);
    for (name, m) in meshes() {
        let Some(x) = ms14(&m) else { continue };
        let blocks = x.blocks.geometry.len() + x.blocks.trees.len();
        for k in 0..blocks {
            let original = x
                .blocks
                .geometry
                .iter()
                .chain(&x.blocks.trees)
                .nth(k)
                .cloned()
                .unwrap_or_default();
            for (j, bad) in damaged(&original, 77 + k as u64).into_iter().enumerate() {
                let mut y = x.clone();
                let slot = if k < y.blocks.geometry.len() {
                    y.blocks.geometry.get_mut(k)
                } else {
                    y.blocks.trees.get_mut(k - x.blocks.geometry.len())
                };
                if let Some(s) = slot {
                    *s = bad;
                }
                let m = UnigineMesh {
                    version: MeshVersion::Ms14,
                    body: MeshBody::Ms14(y),
                };
                let (lean, whole) = (m.info(&limits), m.whole_info(&limits));
                match (&lean, &whole) {
                    (Ok(a), Ok(b)) => {
                        assert_eq!(a, b, "{name} block {k} damage {j}");
                        oks += 1;
                    }
                    (Err(a), Err(b)) => {
                        assert_eq!(a.to_string(), b.to_string(), "{name} block {k} damage {j}");
                        errors += 1;
                    }
                    _ => panic!("{name} block {k} damage {j}: {lean:?} against {whole:?}"),
                }
            }
        }
    }
    assert!(errors > 100 && oks > 10, "{errors} errors, {oks} ok");
}

/// Damaged surface headers: the counts the payload is read with, off by one.
#[test]
fn damaged_counts_give_the_same_result() {
    let limits = Limits::default();
    for (name, m) in meshes() {
        let Some(x) = ms14(&m) else { continue };
        for s in 0..x.surfaces.len() {
            for change in 0..6 {
                let mut y = x.clone();
                let Some(h) = y.surfaces.get_mut(s) else {
                    continue;
                };
                let d = if change % 2 == 0 { 1 } else { u32::MAX };
                match change / 2 {
                    0 => h.coordinate_index_count = h.coordinate_index_count.wrapping_add(d),
                    1 => h.triangle_index_count = h.triangle_index_count.wrapping_add(d),
                    _ => {
                        if let Some(t) = h.targets.first_mut() {
                            t.vertex_count = t.vertex_count.wrapping_add(d);
                        }
                    }
                }
                let m = UnigineMesh {
                    version: MeshVersion::Ms14,
                    body: MeshBody::Ms14(y),
                };
                let (lean, whole) = (m.info(&limits), m.whole_info(&limits));
                assert_eq!(
                    lean.as_ref().map_err(ToString::to_string),
                    whole.as_ref().map_err(ToString::to_string),
                    "{name} surface {s} change {change}"
                );
            }
        }
    }
}
