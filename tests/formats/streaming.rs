//! The streaming paths that keep big files at about their own size in memory: opening
//! from a reader ([`meshcodec::open_reader`]), writing into a writer
//! ([`MeshFile::write_to`]) give
//! exactly what the in-memory paths give, on every fixture and corpus file; and damaged
//! files fail the same way (same message, same offset).

use crate::common;

use std::io::Cursor;
use std::path::{Path, PathBuf};

use meshcodec::{detect, open, open_reader, Limits, MeshFile};

/// Every mesh file among the fixtures and (when present) the corpus.
fn meshes() -> Vec<(PathBuf, Vec<u8>)> {
    let mut paths =
        common::files_below(&Path::new(env!("CARGO_MANIFEST_DIR")).join("roundtrip-fixtures"));
    if let Some(c) = common::corpus() {
        paths.extend(common::files_below(&c));
    }
    paths
        .into_iter()
        .filter_map(|p| {
            let bytes = std::fs::read(&p).ok()?;
            detect(&bytes).map(|_| (p, bytes))
        })
        .collect()
}

#[test]
fn open_reader_and_write_to_agree_with_the_in_memory_paths() {
    let all = meshes();
    // The fixtures alone are 54 files; the corpus adds more when it is there.
    assert!(all.len() >= 50, "{} mesh files", all.len());
    let limits = Limits::default();
    for (path, bytes) in &all {
        let from_slice = open(bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let from_reader = open_reader(Cursor::new(bytes), &limits)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert_eq!(from_slice, from_reader, "{}", path.display());
        let mut streamed = Vec::new();
        from_reader.write_to(&mut streamed).unwrap();
        assert!(streamed == *bytes, "{}: write_to differs", path.display());
    }
}

#[test]
fn damaged_files_fail_alike_from_a_reader() {
    let limits = Limits::default();
    let mut failures = 0;
    for (path, bytes) in meshes() {
        // Cut at a few places, and one byte changed in the header.
        let mut damaged = vec![
            bytes[..bytes.len() / 2].to_vec(),
            bytes[..bytes.len() - 1].to_vec(),
        ];
        let mut tail = bytes.clone();
        tail.extend_from_slice(b"xyz");
        damaged.push(tail);
        if bytes.len() > 20 {
            let mut b = bytes.clone();
            b[16] ^= 0x80;
            damaged.push(b);
        }
        for d in damaged {
            let a = open(&d).map(|_| ()).map_err(|e| e.to_string());
            let b = open_reader(Cursor::new(&d), &limits)
                .map(|_| ())
                .map_err(|e| e.to_string());
            assert_eq!(a, b, "{}", path.display());
            failures += usize::from(a.is_err());
        }
    }
    assert!(failures > 100, "{failures} damaged files failed");
}

#[test]
fn a_reader_longer_than_the_limit_is_refused_before_reading() {
    let bytes = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("roundtrip-fixtures/filemesh/v4.01-bones.mesh"),
    )
    .unwrap();
    let limits = Limits {
        max_input_bytes: bytes.len() as u64 - 1,
        ..Limits::default()
    };
    let e = open_reader(Cursor::new(&bytes), &limits).unwrap_err();
    assert!(e.to_string().contains("limit"), "{e}");
}

#[test]
fn reading_with_a_spare_gives_the_same_files_and_reuses_their_arrays() {
    use meshcodec::filemesh::raw::{Body, FileMesh};
    use meshcodec::{open_reader_with, Spare};
    let all = meshes();
    let limits = Limits::default();
    let mut spare = Spare::default();
    // Forward, then backward: buffers of every size and type meet every file.
    for (path, bytes) in all.iter().chain(all.iter().rev()) {
        let f = open_reader_with(Cursor::new(bytes), &limits, &mut spare).unwrap();
        assert_eq!(f, open(bytes).unwrap(), "{}", path.display());
        let mut again = Vec::new();
        f.write_to(&mut again).unwrap();
        assert!(again == *bytes, "{}", path.display());
        spare.keep(f);
    }
    assert!(spare.bytes() > 0);

    // The same file read again fills the very arrays given back.
    let bytes = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("roundtrip-fixtures/filemesh/v4.01-bones.mesh"),
    )
    .unwrap();
    let mut spare = Spare::default();
    let first = FileMesh::read_reusing(&bytes, &limits, &mut spare).unwrap();
    let Body::V4(b) = &first.body else { panic!() };
    let vertices = b.vertices.as_ptr();
    first.recycle(&mut spare);
    let second = FileMesh::read_reusing(&bytes, &limits, &mut spare).unwrap();
    let Body::V4(b) = &second.body else { panic!() };
    assert_eq!(b.vertices.as_ptr(), vertices);
    assert_eq!(second, FileMesh::read(&bytes).unwrap());
}

#[test]
fn model_reads_with_a_spare_give_the_same_meshes() {
    use meshcodec::filemesh::Mesh;
    use meshcodec::Spare;
    let all: Vec<_> = meshes()
        .into_iter()
        .filter(|(_, b)| detect(b) == Some(meshcodec::Format::FileMesh))
        .collect();
    // The fixtures alone hold more than 20 FileMeshes.
    assert!(all.len() >= 20, "{} FileMeshes", all.len());
    let mut spare = Spare::default();
    for (path, bytes) in all.iter().chain(all.iter().rev()) {
        let fresh = Mesh::read(bytes);
        let reused = Mesh::read_reusing(bytes, &mut spare);
        match (fresh, reused) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a, b, "{}", path.display());
                b.recycle(&mut spare);
            }
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
            (a, b) => panic!("{}: {:?} vs {:?}", path.display(), a.err(), b.err()),
        }
    }
    assert!(spare.bytes() > 0);
}
