//! STF: containers of any content (the raw layer), and documents with `stf.mesh`
//! resources and their buffers, made from scenes ([`super::scene()`]).
//!
//! ```
//! use meshcodec::stf::StfContainer;
//! use meshcodec::strategy::{stf, Size};
//! use proptest::prelude::*;
//! use proptest::test_runner::TestRunner;
//!
//! TestRunner::default()
//!     .run(&stf::container(Size::default()), |c| {
//!         let bytes = c.write().unwrap();
//!         prop_assert_eq!(&StfContainer::read(&bytes).unwrap(), &c);
//!         Ok(())
//!     })
//!     .unwrap();
//! ```

use proptest::collection::vec;
use proptest::prelude::*;

use super::Size;
use crate::stf::StfContainer;

/// A container of anything: any version numbers, JSON bytes that need not be JSON, any
/// buffers, trailing bytes.
pub fn container(s: Size) -> impl Strategy<Value = StfContainer> {
    (
        any::<u32>(),
        any::<u32>(),
        vec(any::<u8>(), 0..s.n(64)),
        vec(vec(any::<u8>(), 0..s.n(40)), 0..5),
        vec(any::<u8>(), 0..3),
    )
        .prop_map(|(major, minor, json, buffers, trailing)| StfContainer {
            version_major: major,
            version_minor: minor,
            json: json.into(),
            buffers,
            trailing,
        })
}

/// The time stamp every generated document carries, so the same case gives the same
/// bytes (a new document is otherwise stamped with the time it was made).
pub const TIMESTAMP: &str = "2026-01-01T00:00:00+00:00";

/// A document as `stf_blender` would read it: the meshes of a scene ([`super::scene()`])
/// as `stf.mesh` resources, their arrays in buffers, stamped [`TIMESTAMP`].
pub fn document(s: Size) -> impl Strategy<Value = StfContainer> {
    s.scene().prop_filter_map("an STF document", |scene| {
        let mut c = crate::stf::import::from_scene(scene, "mesh").ok()?;
        let mut doc: serde_json::Value = serde_json::from_slice(&c.json).ok()?;
        if let Some(t) = doc.pointer_mut("/stf/timestamp") {
            *t = serde_json::Value::from(TIMESTAMP);
        }
        c.json = serde_json::to_vec(&doc).ok()?.into();
        Some(c)
    })
}

/// Valid STF files, as bytes.
pub(super) fn file(s: Size) -> BoxedStrategy<Vec<u8>> {
    document(s)
        .prop_filter_map("writes", |c| c.write().ok())
        .boxed()
}
