//! The streaming paths that keep big files at about their own size in memory: opening
//! from a reader ([`meshcodec::open_reader`]), writing into a writer
//! ([`MeshFile::write_to`]) and converting by value ([`meshcodec::convert_into`]) give
//! exactly what the in-memory paths give, on every fixture and corpus file; and damaged
//! files fail the same way (same message, same offset).

mod common;

use std::io::Cursor;
use std::path::{Path, PathBuf};

use meshcodec::{
    convert_into, convert_to, detect, open, open_reader, ConvertOptions, Limits, MeshFile,
};

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

/// An STF file's document without its timestamp (the time of writing), and its buffers.
fn without_timestamp(bytes: &[u8]) -> (serde_json::Value, Vec<Vec<u8>>) {
    let c = meshcodec::stf::StfContainer::read(bytes).unwrap();
    let mut doc: serde_json::Value = serde_json::from_slice(&c.json).unwrap();
    if let Some(stf) = doc
        .get_mut("stf")
        .and_then(serde_json::Value::as_object_mut)
    {
        assert!(stf.remove("timestamp").is_some());
    }
    (doc, c.buffers)
}

#[test]
fn convert_into_gives_what_convert_to_gives() {
    let options = ConvertOptions::default();
    let limits = Limits::default();
    let mut n = 0;
    for (path, bytes) in meshes() {
        let file = open(&bytes).unwrap();
        let targets: &[&str] = match file.format() {
            meshcodec::Format::FileMesh => {
                &["2.00", "4.01", "6.00", "filemesh:5.00", "csgphs:7", "stf"]
            }
            meshcodec::Format::UnigineMesh => &[
                "ms13",
                "ms14",
                "ms11",
                "filemesh:4.00",
                "filemesh:2.00",
                "filemesh:7.00",
                "filemesh:1.00",
                "stf",
            ],
            meshcodec::Format::Stf => &["filemesh:4.01", "filemesh:3.00", "unigine-mesh:ms14"],
            meshcodec::Format::Csgphs | meshcodec::Format::Csgmdl => {
                &["filemesh:4.01", "stf", "unigine-mesh:ms13"]
            }
            _ => &[],
        };
        for to in targets {
            let a = convert_to(&file, to, &options, &limits);
            let b = convert_into(file.clone(), to, &options, &limits);
            match (a, b) {
                (Ok(a), Ok(b)) => {
                    let same = if *to == "stf" {
                        without_timestamp(&a.bytes) == without_timestamp(&b.bytes)
                    } else {
                        a.bytes == b.bytes
                    };
                    assert!(same, "{} to {to}", path.display());
                    assert_eq!(a.summary, b.summary, "{} to {to}", path.display());
                    assert_eq!(a.losses, b.losses, "{} to {to}", path.display());
                    n += 1;
                }
                (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
                (a, b) => panic!("{} to {to}: {:?} vs {:?}", path.display(), a.err(), b.err()),
            }
        }
    }
    assert!(n >= 100, "{n} conversions compared");
}

/// `to_scene_into` (what `export` and `render` use, taking the file) gives the scene
/// `to_scene` gives, or the same error, for every file and a few export options.
#[test]
fn scene_into_gives_what_to_scene_gives() {
    use meshcodec::file::{to_scene_into, ExportOptions};
    let limits = Limits::default();
    let options = [
        ExportOptions::default(),
        ExportOptions {
            keep_axes: true,
            name: "x".into(),
            ..ExportOptions::default()
        },
        ExportOptions {
            all_lods: true,
            ..ExportOptions::default()
        },
        ExportOptions {
            lod: 1,
            ..ExportOptions::default()
        },
    ];
    let mut n = 0;
    for (path, bytes) in meshes() {
        let file = open(&bytes).unwrap();
        for o in &options {
            let a = file.to_scene(o, &limits).map_err(|e| e.to_string());
            let b = to_scene_into(file.clone(), o, &limits).map_err(|e| e.to_string());
            assert!(a == b, "{} with {o:?}", path.display());
            n += usize::from(a.is_ok());
        }
    }
    assert!(n >= 150, "{n} scenes compared");
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
