//! Property tests of the raw layer: arbitrary raw meshes of every version survive
//! write → read unchanged, and any byte string the reader accepts is written back
//! exactly.

use meshcodec::filemesh::raw::*;
use proptest::collection::vec;
use proptest::prelude::*;

/// Any f32 bit pattern: NaN payloads, −0.0, subnormals and infinities included.
fn f32_bits() -> impl Strategy<Value = f32> {
    any::<u32>().prop_map(f32::from_bits)
}

fn f32s<const N: usize>() -> impl Strategy<Value = [f32; N]> {
    proptest::array::uniform(f32_bits())
}

fn vertex() -> impl Strategy<Value = Vertex> {
    (
        f32s::<3>(),
        f32s::<3>(),
        f32s::<2>(),
        any::<[u8; 4]>(),
        any::<[u8; 4]>(),
    )
        .prop_map(|(position, normal, uv, tangent, color)| Vertex {
            position,
            normal,
            uv,
            tangent,
            color,
        })
}

fn vertex36() -> impl Strategy<Value = Vertex36> {
    (f32s::<3>(), f32s::<3>(), f32s::<2>(), any::<[u8; 4]>()).prop_map(
        |(position, normal, uv, tangent)| Vertex36 {
            position,
            normal,
            uv,
            tangent,
        },
    )
}

fn face() -> impl Strategy<Value = Face> {
    any::<[u32; 3]>().prop_map(|indices| Face { indices })
}

fn bone() -> impl Strategy<Value = Bone> {
    (
        any::<u32>(),
        any::<u16>(),
        any::<u16>(),
        f32_bits(),
        f32s::<9>(),
        f32s::<3>(),
    )
        .prop_map(
            |(bone_name_index, parent_index, lod_parent_index, culling, rotation, position)| Bone {
                bone_name_index,
                parent_index,
                lod_parent_index,
                culling,
                rotation,
                position,
            },
        )
}

fn subset() -> impl Strategy<Value = Subset> {
    (
        any::<[u32; 5]>(),
        proptest::array::uniform::<_, 26>(any::<u16>()),
    )
        .prop_map(|(f, bone_indices)| Subset {
            faces_begin: f[0],
            faces_length: f[1],
            verts_begin: f[2],
            verts_length: f[3],
            num_bone_indices: f[4],
            bone_indices,
        })
}

fn bytes(max: usize) -> impl Strategy<Value = Vec<u8>> {
    vec(any::<u8>(), 0..max)
}

fn matrix() -> impl Strategy<Value = QuantizedMatrix> {
    (0u32..4, 0u32..5, any::<bool>()).prop_flat_map(|(rows, cols, raw)| {
        let n = (rows * cols) as usize;
        let data = if raw {
            vec(f32_bits(), n)
                .prop_map(|v| MatrixData::Raw(v.into()))
                .boxed()
        } else {
            (f32_bits(), f32_bits(), vec(any::<u16>(), n))
                .prop_map(|(min, max, values)| MatrixData::Quantized {
                    min,
                    max,
                    values: values.into(),
                })
                .boxed()
        };
        data.prop_map(move |data| QuantizedMatrix { rows, cols, data })
    })
}

fn facs_data() -> impl Strategy<Value = FacsData> {
    (
        bytes(16),
        bytes(16),
        proptest::array::uniform::<_, 6>(matrix()),
        vec(any::<[u16; 2]>(), 0..4),
        vec(any::<[u16; 3]>(), 0..4),
    )
        .prop_map(|(b, c, [px, py, pz, rx, ry, rz], two, three)| FacsData {
            face_bone_names_blob: b.into(),
            face_control_names_blob: c.into(),
            quantized_transforms: QuantizedTransforms {
                px,
                py,
                pz,
                rx,
                ry,
                rz,
            },
            two_pose_correctives: two
                .into_iter()
                .map(|control_indices| TwoPoseCorrective { control_indices })
                .collect(),
            three_pose_correctives: three
                .into_iter()
                .map(|control_indices| ThreePoseCorrective { control_indices })
                .collect(),
        })
}

fn mesh_v2() -> impl Strategy<Value = FileMesh> {
    let version = prop_oneof![
        Just(Version::V2_00),
        Just(Version::V3_00),
        Just(Version::V3_01)
    ];
    let vertices = prop_oneof![
        vec(vertex36(), 0..12).prop_map(|v| VertexArray::Size36(v.into())),
        vec(vertex(), 0..12).prop_map(|v| VertexArray::Size40(v.into())),
    ];
    (
        version,
        bytes(6),
        vertices,
        vec(face(), 0..12),
        any::<u16>(),
        vec(any::<u32>(), 0..6),
        bytes(6),
    )
        .prop_map(
            |(version, header_tail, vertices, faces, sizeof_lod, offsets, trailing)| {
                let lods = version.has_lods().then_some(LodOffsetsV3 {
                    sizeof_lod_offset: sizeof_lod,
                    lod_offsets: offsets.into(),
                });
                FileMesh {
                    version,
                    body: Body::V2(FileMeshV2 {
                        header_tail,
                        vertices,
                        faces: faces.into(),
                        lods,
                        trailing: trailing.into(),
                    }),
                }
            },
        )
}

fn mesh_v4() -> impl Strategy<Value = FileMesh> {
    let version = prop_oneof![
        Just(Version::V4_00),
        Just(Version::V4_01),
        Just(Version::V5_00)
    ];
    (version, vec(vertex(), 0..10), vec(bone(), 0..4))
        .prop_flat_map(|(version, vertices, bones)| {
            let n_env = if bones.is_empty() { 0 } else { vertices.len() };
            let envelopes = vec(
                (any::<[u8; 4]>(), any::<[u8; 4]>())
                    .prop_map(|(bones, weights)| Envelope { bones, weights }),
                n_env,
            );
            // FACS: a 4.0x mesh has none; a 5.00 mesh's section must agree with its format.
            let facs = if version.has_facs() {
                prop_oneof![
                    any::<u32>().prop_map(|f| (f, Facs::None)),
                    (1u32.., facs_data()).prop_map(|(f, d)| (f, Facs::Data(d))),
                    vec(any::<u8>(), 1..12).prop_map(|b| (0, Facs::Opaque(b.into()))),
                    // Too short to be a FACS block, so kept opaque under any format.
                    (1u32.., vec(any::<u8>(), 1..12))
                        .prop_map(|(f, b)| (f, Facs::Opaque(b.into()))),
                ]
                .boxed()
            } else {
                Just((0, Facs::None)).boxed()
            };
            (
                Just(version),
                Just(vertices),
                Just(bones),
                envelopes,
                (any::<u16>(), any::<u8>(), any::<u8>(), bytes(6)),
                (
                    vec(face(), 0..10),
                    vec(any::<u32>(), 0..5),
                    bytes(20),
                    vec(subset(), 0..3),
                ),
                facs,
                bytes(6),
            )
        })
        .prop_map(
            |(
                version,
                vertices,
                bones,
                envelopes,
                (lod_type, hq, pad, tail),
                (faces, lods, names, subsets),
                (format, facs),
                trailing,
            )| {
                FileMesh {
                    version,
                    body: Body::V4(FileMeshV4 {
                        lod_type,
                        num_high_quality_lods: hq,
                        unused_padding: pad,
                        facs_data_format: format,
                        header_tail: tail,
                        vertices: vertices.into(),
                        envelopes: envelopes.into(),
                        faces: faces.into(),
                        lod_offsets: lods.into(),
                        bones: bones.into(),
                        bone_names: names.into(),
                        subsets: subsets.into(),
                        facs,
                        trailing: trailing.into(),
                    }),
                }
            },
        )
}

fn any_mesh() -> impl Strategy<Value = FileMesh> {
    prop_oneof![mesh_v2(), mesh_v4(), mesh_v6()]
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

fn chunk() -> impl Strategy<Value = Chunk> {
    let known = prop_oneof![
        (vec(vertex(), 0..6), vec(face(), 0..6)).prop_map(|(vertices, faces)| {
            ChunkData::CoreMeshV1(CoreMeshV1 {
                vertices: vertices.into(),
                faces: faces.into(),
            })
        }),
        // The raw layer keeps Draco bytes as they are, whatever they hold.
        bytes(24).prop_map(|draco| ChunkData::CoreMeshV2(CoreMeshV2 {
            draco: draco.into()
        })),
        (any::<u16>(), any::<u8>(), vec(any::<u32>(), 0..5)).prop_map(|(t, hq, o)| {
            ChunkData::LodsV1(LodsV1 {
                lod_type: t,
                num_high_quality_lods: hq,
                lod_offsets: o.into(),
            })
        }),
        (
            vec((any::<[u8; 4]>(), any::<[u8; 4]>()), 0..6),
            vec(bone(), 0..3),
            bytes(12),
            vec(subset(), 0..3)
        )
            .prop_map(|(e, bones, bone_names, subsets)| {
                ChunkData::SkinningV1(SkinningV1 {
                    envelopes: e
                        .into_iter()
                        .map(|(bones, weights)| Envelope { bones, weights })
                        .collect(),
                    bones: bones.into(),
                    bone_names: bone_names.into(),
                    subsets: subsets.into(),
                })
            }),
        prop_oneof![
            Just(Facs::None),
            facs_data().prop_map(Facs::Data),
            // Too short to be a FACS block: kept opaque.
            vec(any::<u8>(), 1..12).prop_map(|b| Facs::Opaque(b.into())),
        ]
        .prop_map(|facs| ChunkData::FacsV1(FacsV1 { facs })),
        (0u32..40)
            .prop_flat_map(|n| (Just(n), vec(any::<u8>(), n.div_ceil(8) as usize)))
            .prop_map(|(num_bits, bits)| ChunkData::HsrAvisV1(HsrAvisV1 {
                num_bits,
                bits: bits.into()
            })),
    ]
    .prop_map(Chunk::new);
    let unknown = (any::<[u8; 8]>(), any::<u32>(), bytes(10))
        .prop_map(|(chunk_type, chunk_version, b)| Chunk {
            chunk_type,
            chunk_version,
            data: ChunkData::Unknown(b.into()),
        })
        .prop_filter("an unknown (type, version)", |c| {
            c.data.fits(&c.chunk_type, c.chunk_version)
        });
    // Known chunk types under versions this crate does not know are kept as bytes too.
    let unknown_version = (
        prop_oneof![Just(*b"COREMESH"), Just(*b"LODS\0\0\0\0")],
        3u32..,
        bytes(10),
    )
        .prop_map(|(chunk_type, chunk_version, b)| Chunk {
            chunk_type,
            chunk_version,
            data: ChunkData::Unknown(b.into()),
        });
    prop_oneof![4 => known, 1 => unknown, 1 => unknown_version]
}

fn mesh_v6() -> impl Strategy<Value = FileMesh> {
    (
        prop_oneof![Just(Version::V6_00), Just(Version::V7_00)],
        vec(chunk(), 0..8),
    )
        .prop_map(|(version, chunks)| FileMesh {
            version,
            body: Body::V6(FileMeshV6 { chunks }),
        })
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
