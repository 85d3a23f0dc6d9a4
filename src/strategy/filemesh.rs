//! Roblox FileMesh, 1.00 to 7.00: raw values of every version (any bit pattern a reader
//! must keep), editable [`Mesh`] models, text meshes in every print style, and the
//! geometry Draco codes.
//!
//! ```
//! use meshcodec::filemesh::raw::{FileMesh, Version};
//! use meshcodec::strategy::{filemesh, Size};
//! use proptest::prelude::*;
//! use proptest::test_runner::TestRunner;
//!
//! // Every 4.01 raw value the writer makes reads back as itself.
//! TestRunner::default()
//!     .run(&filemesh::raw(Version::V4_01, Size::default()), |mesh| {
//!         let bytes = mesh.write().unwrap();
//!         prop_assert_eq!(FileMesh::read(&bytes).unwrap().write().unwrap(), bytes);
//!         Ok(())
//!     })
//!     .unwrap();
//! ```

use proptest::collection::vec;
use proptest::prelude::*;

use super::Size;
use crate::codec::draco;
use crate::filemesh::model::{
    BonePose, FacsRig, Influence, Lods, MatrixEncoding, Mesh, MeshBone, MeshVertex, Tangent,
    VertexSkin,
};
use crate::filemesh::raw::text::{ExponentDigits, FileMeshV1, LineEnding, TextFormat, VertexV1};
use crate::filemesh::raw::*;

// ---- the raw layer --------------------------------------------------------------------

/// Any f32 bit pattern: NaN payloads, −0.0, subnormals and infinities included.
pub fn f32_bits() -> impl Strategy<Value = f32> + Clone {
    any::<u32>().prop_map(f32::from_bits)
}

fn f32s<const N: usize>() -> impl Strategy<Value = [f32; N]> {
    proptest::array::uniform(f32_bits())
}

/// A 40-byte vertex of any bits.
pub fn vertex() -> impl Strategy<Value = Vertex> {
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

/// A FACS block of any content (names blobs, six matrices, correctives).
pub fn facs_data() -> impl Strategy<Value = FacsData> {
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

/// A raw 2.00, 3.00 or 3.01 mesh: 36- or 40-byte vertices, LOD offsets from 3.00,
/// header and trailing bytes kept as data.
fn mesh_v2(version: Version, s: Size) -> BoxedStrategy<FileMesh> {
    let vertices = prop_oneof![
        vec(vertex36(), 0..s.n(12)).prop_map(|v| VertexArray::Size36(v.into())),
        vec(vertex(), 0..s.n(12)).prop_map(|v| VertexArray::Size40(v.into())),
    ];
    (
        bytes(6),
        vertices,
        vec(face(), 0..s.n(12)),
        any::<u16>(),
        vec(any::<u32>(), 0..6),
        bytes(6),
    )
        .prop_map(
            move |(header_tail, vertices, faces, sizeof_lod, offsets, trailing)| {
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
        .boxed()
}

/// A raw 4.00, 4.01 or 5.00 mesh: bones and their envelopes, subsets, LODs, and in 5.00
/// a FACS section that agrees with its `facsDataFormat` (or is kept opaque).
fn mesh_v4(version: Version, s: Size) -> BoxedStrategy<FileMesh> {
    (vec(vertex(), 0..s.n(10)), vec(bone(), 0..s.n(4)))
        .prop_flat_map(move |(vertices, bones)| {
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
                Just(vertices),
                Just(bones),
                envelopes,
                (any::<u16>(), any::<u8>(), any::<u8>(), bytes(6)),
                (
                    vec(face(), 0..s.n(10)),
                    vec(any::<u32>(), 0..5),
                    bytes(20),
                    vec(subset(), 0..3),
                ),
                facs,
                bytes(6),
            )
        })
        .prop_map(
            move |(
                vertices,
                bones,
                envelopes,
                (lod_type, hq, pad, tail),
                (faces, lods, names, subsets),
                (format, facs),
                trailing,
            )| FileMesh {
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
            },
        )
        .boxed()
}

/// A 6.00/7.00 chunk: COREMESH v1 or v2 (real Draco, or bytes the raw layer keeps as
/// they are), LODS, SKINNING, FACS, HSRAVIS, and chunks of types or versions unknown.
pub fn chunk(s: Size) -> impl Strategy<Value = Chunk> {
    let known = prop_oneof![
        (vec(vertex(), 0..s.n(6)), vec(face(), 0..s.n(6))).prop_map(|(vertices, faces)| {
            ChunkData::CoreMeshV1(CoreMeshV1 {
                vertices: vertices.into(),
                faces: faces.into(),
            })
        }),
        // Draco as Roblox writes it.
        draco_geometry(1..s.n(24), 0..s.n(24)).prop_map(|(vertices, faces)| {
            let draco = draco::encode(vertices, faces).unwrap_or_default();
            ChunkData::CoreMeshV2(CoreMeshV2 {
                draco: draco.into(),
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
            vec((any::<[u8; 4]>(), any::<[u8; 4]>()), 0..s.n(6)),
            vec(bone(), 0..s.n(3)),
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

/// A raw 6.00 or 7.00 mesh: any chunks, in any order.
fn mesh_v6(version: Version, s: Size) -> BoxedStrategy<FileMesh> {
    vec(chunk(s), 0..s.n(8))
        .prop_map(move |chunks| FileMesh {
            version,
            body: Body::V6(FileMeshV6 { chunks }),
        })
        .boxed()
}

/// A raw binary FileMesh of `version` (2.00 to 7.00) as the writer lays it out: any
/// bit pattern in the arrays, header tails, trailing bytes, chunks in any order. Every
/// value written reads back as itself; [`Mesh::check_file`] may refuse its contents
/// (bone indices out of range, bytes that are not Draco), as it refuses such real files.
///
/// # Panics
///
/// For a text version (1.00, 1.01: see [`text()`]).
pub fn raw(version: Version, s: Size) -> BoxedStrategy<FileMesh> {
    match version {
        v if v.is_chunked() => mesh_v6(v, s),
        v if v.has_skinning() => mesh_v4(v, s),
        v if !v.is_text() => mesh_v2(v, s),
        v => panic!("strategy::filemesh::raw: {v} is text; use strategy::filemesh::text"),
    }
}

/// A raw binary FileMesh of any version from 2.00 to 7.00.
pub fn any_raw(s: Size) -> BoxedStrategy<FileMesh> {
    let binary: Vec<Version> = Version::ALL.into_iter().filter(|v| !v.is_text()).collect();
    proptest::sample::select(binary)
        .prop_flat_map(move |v| raw(v, s))
        .boxed()
}

// ---- text (1.00, 1.01) --------------------------------------------------------------

/// Finite f32 values of every kind: any bits, small integers, tiny and huge magnitudes.
pub fn finite_f32() -> BoxedStrategy<f32> {
    let magnitude = prop_oneof![
        any::<u32>().prop_map(f32::from_bits),
        (-1000i32..1000).prop_map(|i| i as f32 / 8.0),
        (0u32..0x0080_0000).prop_map(f32::from_bits), // subnormals
        (0x7F00_0000u32..0x7F80_0000).prop_map(f32::from_bits), // near f32::MAX
        (0x0080_0000u32..0x0100_0000).prop_map(f32::from_bits), // near f32::MIN_POSITIVE
        Just(0.0f32),
    ];
    (magnitude, any::<bool>())
        .prop_map(|(x, neg)| {
            let x = if x.is_finite() { x } else { 1.0 };
            if neg {
                -x
            } else {
                x
            }
        })
        .boxed()
}

fn text_vertex() -> BoxedStrategy<VertexV1> {
    prop::array::uniform9(finite_f32())
        .prop_map(|a| VertexV1 {
            position: [a[0], a[1], a[2]],
            normal: [a[3], a[4], a[5]],
            uvw: [a[6], a[7], a[8]],
        })
        .boxed()
}

/// The faces of a text mesh: three vertices each, finite values of every kind.
pub fn text_faces(s: Size) -> impl Strategy<Value = Vec<[VertexV1; 3]>> {
    prop::collection::vec(prop::array::uniform3(text_vertex()), 0..s.n(12))
}

/// How a text mesh is printed: line endings, final newline, digits, exponent width.
pub fn text_format() -> impl Strategy<Value = TextFormat> {
    (any::<bool>(), any::<bool>(), any::<bool>(), 1u8..=17).prop_map(|(crlf, nl, e3, p)| {
        TextFormat {
            line_ending: if crlf {
                LineEnding::CrLf
            } else {
                LineEnding::Lf
            },
            final_newline: nl,
            precision: p,
            exponent_digits: if e3 {
                ExponentDigits::Three
            } else {
                ExponentDigits::Two
            },
        }
    })
}

/// A text mesh (1.00, 1.01) in any print style: write it with
/// [`FileMeshV1::write`] under either version.
pub fn text(s: Size) -> impl Strategy<Value = FileMeshV1> {
    (text_faces(s), text_format())
        .prop_map(|(faces, format)| FileMeshV1::with_format(faces, format))
}

// ---- Draco geometry ---------------------------------------------------------------

fn normal_component() -> impl Strategy<Value = f32> {
    prop_oneof![
        -1.0f32..=1.0,
        Just(0.0f32),
        Just(-0.0f32),
        Just(1.0f32),
        Just(-1.0f32)
    ]
}

/// A vertex Draco can code: any bits but in the normal, whose components are in −1..=1.
pub fn draco_vertex() -> impl Strategy<Value = Vertex> {
    (
        vertex(),
        [normal_component(), normal_component(), normal_component()],
    )
        .prop_map(|(v, normal)| Vertex { normal, ..v })
}

/// Vertices (`vertices` of them, at least one) and faces over them (`faces` of them;
/// degenerate and repeated faces included, some vertices maybe used by none): what
/// [`draco::encode`] takes.
pub fn draco_geometry(
    vertices: std::ops::Range<usize>,
    faces: std::ops::Range<usize>,
) -> impl Strategy<Value = (Vec<Vertex>, Vec<Face>)> {
    let vertices = vertices.start.max(1)..vertices.end.max(2);
    vec(draco_vertex(), vertices).prop_flat_map(move |vertices| {
        let n = vertices.len() as u32;
        let faces = vec([0..n, 0..n, 0..n], faces.clone())
            .prop_map(|f| f.into_iter().map(|indices| Face { indices }).collect());
        (Just(vertices), faces)
    })
}

// ---- the model -------------------------------------------------------------------------

/// The finite values the model's generators use: any in ±1000, zeros of both signs,
/// a tiny and a big one.
pub fn finite() -> impl Strategy<Value = f32> {
    prop_oneof![
        -1000.0f32..1000.0,
        Just(0.0),
        Just(-0.0),
        Just(1.0e-7),
        Just(123456.79)
    ]
}

/// Values in −1..1 (normal components).
pub fn unit() -> impl Strategy<Value = f32> {
    -1.0f32..1.0
}

/// Mostly finite, sometimes NaN or ±∞ (real files have them).
fn any_value(finite: impl Strategy<Value = f32> + 'static) -> impl Strategy<Value = f32> {
    prop_oneof![
        20 => finite,
        1 => prop_oneof![Just(f32::NAN), Just(f32::INFINITY), Just(f32::NEG_INFINITY)],
    ]
}

/// A model vertex: positions and UVs mostly finite, unit-range normals, a tangent the
/// model can hold, any colour.
pub fn mesh_vertex() -> impl Strategy<Value = MeshVertex> {
    (
        [
            any_value(finite()),
            any_value(finite()),
            any_value(finite()),
        ],
        [any_value(unit()), any_value(unit()), any_value(unit())],
        [any_value(finite()), any_value(finite())],
        any::<[u8; 4]>(),
        prop_oneof![Just([255u8; 4]), any::<[u8; 4]>()],
    )
        .prop_map(|(position, normal, uv, t, color)| MeshVertex {
            position,
            normal,
            uv,
            tangent_bytes: Tangent::to_bytes(Tangent::from_bytes(t)),
            color,
        })
}

/// An editable mesh whose every vertex is used by a LOD 0 face (the writer lays out one
/// subset per LOD over the vertices its faces use): LODs, a skeleton and per-vertex
/// skinning, a FACS rig (raw matrices), HSR visibility bits, each maybe.
pub fn mesh(s: Size) -> impl Strategy<Value = Mesh> {
    (
        3usize..s.n(10).max(4),
        0usize..s.n(4).max(1),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_flat_map(move |(n, nbones, skinned, with_facs, with_hsr)| {
            let nbones = if skinned { nbones.max(1) } else { 0 };
            (
                vec(mesh_vertex(), n),
                vec([0..n as u32, 0..n as u32, 0..n as u32], 0..s.n(6)),
                (any::<u16>(), any::<u8>(), 0u8..3),
                vec(
                    (
                        any::<[bool; 2]>(),
                        any::<f32>().prop_map(|x| x.abs() % 100.0),
                        [finite(), finite(), finite()],
                    ),
                    nbones,
                ),
                vec(vec((0..nbones.max(1) as u16, any::<u8>()), 4), n),
                if with_facs {
                    facs().prop_map(Some).boxed()
                } else {
                    Just(None).boxed()
                },
                Just(with_hsr),
            )
                .prop_map(
                    move |(
                        vertices,
                        extra,
                        (lod_type, hq, lod_style),
                        bones,
                        skin,
                        facs,
                        with_hsr,
                    )| {
                        // Cover every vertex, then add arbitrary faces.
                        let mut faces: Vec<[u32; 3]> =
                            (0..n as u32 - 2).map(|i| [i, i + 1, i + 2]).collect();
                        faces.extend(extra);
                        let nf = faces.len() as u32;
                        let offsets = match lod_style {
                            0 => vec![],
                            1 => vec![0, 0],
                            _ => vec![0, nf],
                        };
                        let skeleton = bones
                            .iter()
                            .enumerate()
                            .map(|(i, (p, culling, position))| MeshBone {
                                name: format!("Bone{i}"),
                                parent: i.checked_sub(1).filter(|_| p[0]).map(|x| x as u16),
                                lod_parent: (p[1] && i > 0).then_some(0),
                                culling: *culling,
                                rotation: [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
                                position: *position,
                            })
                            .collect();
                        let skinning = (nbones > 0).then(|| {
                            skin.iter()
                                .map(|s| {
                                    let mut vs = VertexSkin::default();
                                    for (slot, &(bone, weight)) in vs.influences.iter_mut().zip(s) {
                                        *slot = if weight == 0 {
                                            Influence::default()
                                        } else {
                                            Influence { bone, weight }
                                        };
                                    }
                                    vs
                                })
                                .collect()
                        });
                        let hsr = with_hsr.then(|| (0..nf).map(|i| i % 3 == 1).collect());
                        Mesh {
                            vertices,
                            faces,
                            lods: Lods {
                                lod_type,
                                num_high_quality_lods: hq,
                                offsets,
                            },
                            skeleton,
                            skinning,
                            facs,
                            hsr_always_visible: hsr,
                            ..Mesh::default()
                        }
                    },
                )
        })
}

/// A FACS rig: a few face bones and controls, a two-pose corrective, raw matrices (the
/// encoding that compares exactly; set [`FacsRig::encodings`] to quantize).
pub fn facs() -> impl Strategy<Value = FacsRig> {
    (1usize..3, 1usize..4, any::<[bool; 6]>()).prop_flat_map(|(bones, controls, raw)| {
        let cols = controls + 1;
        vec(
            vec(
                (
                    [finite(), finite(), finite()],
                    [finite(), finite(), finite()],
                ),
                bones,
            ),
            cols,
        )
        .prop_map(move |poses| FacsRig {
            face_bone_names: (0..bones).map(|i| format!("Face{i}")).collect(),
            control_names: (0..controls).map(|i| format!("c_{i}")).collect(),
            two_pose_correctives: vec![[0, (controls - 1) as u16]],
            three_pose_correctives: vec![],
            poses: poses
                .into_iter()
                .map(|c| {
                    c.into_iter()
                        .map(|(position, rotation)| BonePose { position, rotation })
                        .collect()
                })
                .collect(),
            encodings: raw.map(|_| MatrixEncoding::Raw),
        })
    })
}

// ---- files ---------------------------------------------------------------------------

/// Valid files of `version`, as bytes: raw values of any bits (binary versions), meshes
/// the model writes (skinning, FACS, LODs, HSR; 7.00 as COREMESH v1 or Draco), text in
/// every print style (1.00, 1.01).
pub(super) fn file(version: Version, s: Size) -> BoxedStrategy<Vec<u8>> {
    use crate::file::CoreMesh;
    use crate::filemesh::model::convert::WriteOptions;
    if version.is_text() {
        return text(s)
            .prop_filter_map("writes", move |t| t.write(version).ok())
            .boxed();
    }
    let model = (mesh(s), any::<bool>()).prop_filter_map("writes", move |(m, draco)| {
        let core_mesh = if draco {
            CoreMesh::Draco
        } else {
            CoreMesh::Auto
        };
        let c = m.convert_with(version, &WriteOptions { core_mesh }).ok()?;
        c.file.write().ok()
    });
    let raw = raw(version, s).prop_filter_map("writes", |m| m.write().ok());
    prop_oneof![raw, model].boxed()
}
