//! Property tests of the raw layer: arbitrary raw meshes of every version survive
//! write → read unchanged, and any byte string the reader accepts is written back
//! exactly. The values come from `meshcodec::strategy::filemesh`, the generators
//! downstream crates use.

use meshcodec::filemesh::raw::*;
use meshcodec::strategy::{filemesh as strategy, Size};
use proptest::collection::vec;
use proptest::prelude::*;

fn any_mesh() -> impl Strategy<Value = FileMesh> {
    strategy::any_raw(Size::default())
}

/// A raw 4.00, 4.01 or 5.00 mesh.
fn mesh_v4() -> impl Strategy<Value = FileMesh> {
    proptest::sample::select(vec![Version::V4_00, Version::V4_01, Version::V5_00])
        .prop_flat_map(|v| strategy::raw(v, Size::default()))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// raw → write → read → the same raw value (compared by Debug, which prints every
    /// f32 exactly and tells −0.0 from 0.0), and the same bytes again.
    #[test]
    fn raw_write_read_is_identity(mesh in any_mesh()) {
        let bytes = mesh.write().unwrap();
        prop_assert!(bytes.starts_with(&mesh.version.line()));
        let back = FileMesh::read(&bytes).unwrap();
        prop_assert_eq!(format!("{back:?}"), format!("{mesh:?}"));
        prop_assert_eq!(back.write().unwrap(), bytes);
    }

    /// Any input the reader accepts is written back byte for byte: mutate and cut
    /// valid encodings, and whenever the result parses, it must round-trip.
    #[test]
    fn accepted_bytes_are_written_back_exactly(
        mesh in any_mesh(),
        edits in vec((any::<prop::sample::Index>(), any::<u8>()), 0..4),
        cut in proptest::option::of(any::<prop::sample::Index>()),
    ) {
        let mut bytes = mesh.write().unwrap();
        for (i, b) in edits {
            let i = i.index(bytes.len());
            bytes[i] = b;
        }
        if let Some(c) = cut {
            bytes.truncate(c.index(bytes.len() + 1));
        }
        if let Ok(m) = FileMesh::read(&bytes) {
            prop_assert_eq!(m.write().unwrap(), bytes);
        }
    }

    /// A body whose envelopes disagree with its bones is refused, not written wrong.
    #[test]
    fn inconsistent_envelopes_are_refused(mesh in mesh_v4(), extra in 1usize..3) {
        let mut mesh = mesh;
        let Body::V4(b) = &mut mesh.body else { unreachable!() };
        b.envelopes.extend(std::iter::repeat_n(Envelope::default(), extra));
        let err = mesh.write().unwrap_err();
        prop_assert!(matches!(err.kind(), meshcodec::ErrorKind::Inconsistent(_)), "{err}");
    }
}

#[test]
fn body_and_version_must_agree() {
    let mesh = FileMesh {
        version: Version::V5_00,
        body: Body::V2(FileMeshV2 {
            header_tail: vec![],
            vertices: VertexArray::Size40(vec![].into()),
            faces: vec![].into(),
            lods: None,
            trailing: Default::default(),
        }),
    };
    let err = mesh.write().unwrap_err();
    assert!(
        matches!(err.kind(), meshcodec::ErrorKind::Inconsistent(_)),
        "{err}"
    );
    // 2.00 cannot hold LOD offsets; 3.00 needs them.
    let mut m = mesh.clone();
    m.version = Version::V3_00;
    assert!(m.write().is_err());
    m.version = Version::V2_00;
    assert!(m.write().is_ok());
}

#[test]
fn a_payload_under_the_wrong_type_is_refused() {
    let mut c = Chunk::new(ChunkData::LodsV1(LodsV1::default()));
    c.chunk_type = *b"COREMESH";
    let mesh = FileMesh {
        version: Version::V6_00,
        body: Body::V6(FileMeshV6 { chunks: vec![c] }),
    };
    assert!(mesh.write().is_err());
}
