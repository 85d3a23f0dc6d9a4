//! The borrowed view (`FileMeshView`) against the owned read: the same summary, the same
//! arrays, and the same errors at the same offsets, on every fixture and corpus
//! FileMesh and on damaged copies of them.

use crate::common;

use meshcodec::filemesh::raw::{FileMesh, FileMeshView, Vertex};
use meshcodec::filemesh::Version;

/// The owned file's vertices and faces as the view gives them (40-byte vertices).
fn owned_arrays(f: &FileMesh) -> Option<(Vec<Vertex>, Vec<[u32; 3]>)> {
    use meshcodec::filemesh::raw::{Body, ChunkData};
    match &f.body {
        Body::V1(_) => None,
        Body::V2(b) => Some((
            b.vertices.to_vertices(),
            b.faces.iter().map(|f| f.indices).collect(),
        )),
        Body::V4(b) => Some((
            b.vertices.to_vec(),
            b.faces.iter().map(|f| f.indices).collect(),
        )),
        Body::V6(b) => b.chunks.iter().find_map(|c| match &c.data {
            ChunkData::CoreMeshV1(m) => Some(Some((
                m.vertices.to_vec(),
                m.faces.iter().map(|f| f.indices).collect(),
            ))),
            ChunkData::CoreMeshV2(_) => Some(None),
            _ => None,
        })?,
    }
}

fn bits(v: &[Vertex]) -> Vec<u8> {
    bytemuck::cast_slice(v).to_vec()
}

#[test]
fn view_agrees_with_the_owned_read_on_every_file() {
    let files = common::fixtures_and_corpus_filemeshes();
    assert!(files.len() > 20, "fixtures missing: {}", files.len());
    let mut arrays = 0;
    for path in &files {
        let bytes = std::fs::read(path).expect("read");
        let owned = FileMesh::read(&bytes).expect("owned read");
        let view = FileMeshView::parse(&bytes).expect("view");
        assert_eq!(view.version(), owned.version, "{}", path.display());
        assert_eq!(
            view.info().expect("view info"),
            owned.info().expect("owned info"),
            "{}",
            path.display()
        );
        let want = owned_arrays(&owned);
        let got = view.vertices().zip(view.faces());
        match (want, got) {
            (Some((v, f)), Some((gv, gf))) => {
                let gv: Vec<Vertex> = gv.collect();
                // Bit for bit: NaN payloads included.
                assert_eq!(bits(&gv), bits(&v), "{}", path.display());
                assert_eq!(
                    gf.map(|f| f.indices).collect::<Vec<_>>(),
                    f,
                    "{}",
                    path.display()
                );
                assert_eq!(view.vertex_count(), Some(v.len()));
                arrays += 1;
            }
            (None, None) => {}
            (w, g) => panic!(
                "{}: owned arrays {} but view arrays {}",
                path.display(),
                w.is_some(),
                g.is_some()
            ),
        };
    }
    eprintln!("{} files, {arrays} with arrays read in place", files.len());
    assert!(arrays > 10);
}

/// Every cut of a small file of each version, and single-byte changes in its headers:
/// the view fails exactly when the owned read fails, with the same offset and message.
#[test]
fn view_fails_where_the_owned_read_fails() {
    let mut cases = 0;
    let mut errors = 0;
    for path in common::fixture_files() {
        let bytes = std::fs::read(&path).expect("read");
        let version = FileMesh::read(&bytes).expect("fixture").version;
        if version.is_text() || bytes.len() > 4096 {
            continue;
        }
        let mut inputs: Vec<Vec<u8>> = (0..bytes.len()).map(|n| bytes[..n].to_vec()).collect();
        for i in 0..bytes.len().min(120) {
            for x in [0x01u8, 0x80, 0xFF] {
                let mut b = bytes.clone();
                b[i] ^= x;
                inputs.push(b);
            }
        }
        for input in inputs {
            cases += 1;
            let owned = FileMesh::read(&input).and_then(|f| f.info());
            let view = FileMeshView::parse(&input).and_then(|v| v.info());
            match (owned, view) {
                (Ok(a), Ok(b)) => assert_eq!(a, b, "{}", path.display()),
                (Err(a), Err(b)) => {
                    errors += 1;
                    assert_eq!(a.offset(), b.offset(), "{}: {a} / {b}", path.display());
                    assert_eq!(
                        format!("{:?}", a.kind()),
                        format!("{:?}", b.kind()),
                        "{}",
                        path.display()
                    );
                }
                (a, b) => panic!(
                    "{} ({version}): owned {:?}, view {:?}",
                    path.display(),
                    a.map(|_| ()),
                    b.map(|_| ())
                ),
            }
        }
    }
    eprintln!("{cases} inputs, {errors} rejected by both");
    assert!(errors > 1000);
}

#[test]
fn view_of_text_reads_the_text() {
    let path = common::fixture_dir("text")
        .read_dir()
        .expect("text fixtures")
        .map(|e| e.expect("entry").path())
        .find(|p| p.extension().is_some_and(|e| e == "mesh"))
        .expect("a text fixture");
    let bytes = std::fs::read(&path).expect("read");
    let view = FileMeshView::parse(&bytes).expect("view");
    assert!(matches!(view.version(), Version::V1_00 | Version::V1_01));
    assert!(view.vertices().is_none());
    assert_eq!(
        view.info().expect("info"),
        FileMesh::read(&bytes).expect("read").info().expect("info")
    );
}
