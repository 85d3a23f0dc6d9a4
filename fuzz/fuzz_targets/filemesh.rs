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

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    check(data);
    view(data);
});
