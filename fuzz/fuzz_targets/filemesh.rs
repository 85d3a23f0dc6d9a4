//! Fuzz target: filemesh files through the front door (see check.rs for the properties),
//! and the borrowed view (`FileMeshView`) against the owned read: both accept or both
//! refuse (at the same offset), and an accepted file has the same summary.
#![no_main]

include!("check.rs");

fn view(data: &[u8]) {
    use meshcodec::filemesh::raw::{FileMesh, FileMeshView};
    let owned = FileMesh::read_with_limits(data, &LIMITS);
    let view = FileMeshView::parse_with_limits(data, &LIMITS);
    match (owned, view) {
        (Ok(f), Ok(v)) => {
            assert_eq!(
                f.info_with_limits(&LIMITS).map_err(|e| e.offset()),
                v.info_with_limits(&LIMITS).map_err(|e| e.offset()),
                "the view's summary is the owned file's"
            );
            if let (Some(vs), Some(fs)) = (v.vertices(), v.faces()) {
                assert_eq!(vs.len(), vs.count());
                assert_eq!(fs.len(), fs.count());
            }
        }
        (Err(a), Err(b)) => assert_eq!(a.offset(), b.offset(), "{a} / {b}"),
        (a, b) => panic!(
            "owned read {:?}, view {:?}",
            a.map(|_| ()),
            b.map(|_| ())
        ),
    }
}

/// `Mesh::check_file` (what `verify` runs, without building the model) gives the model
/// read's verdict and error.
fn checked(data: &[u8]) {
    use meshcodec::filemesh::{model::Mesh, raw::FileMesh};
    let Ok(f) = FileMesh::read_with_limits(data, &LIMITS) else {
        return;
    };
    assert_eq!(
        Mesh::check_file(&f, &LIMITS).map_err(|e| e.to_string()),
        Mesh::from_file_with_limits(&f, &LIMITS)
            .map(|_| ())
            .map_err(|e| e.to_string()),
        "check_file is the model read's verdict"
    );
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    check(data);
    view(data);
    checked(data);
});
