//! UNIGINE `.mesh` (ms10 to ms14) and `.anim` (an10, an11): raw meshes with morph
//! targets, skin weights, embedded animations and 16-bit indices; ms14 meshes built from
//! them (LZ4 blocks that decode) or with blocks of any bytes; animations of both layouts.
//!
//! ```
//! use meshcodec::unigine::{MeshVersion, UnigineMesh};
//! use meshcodec::strategy::{unigine, Size};
//! use proptest::prelude::*;
//! use proptest::test_runner::TestRunner;
//!
//! TestRunner::default()
//!     .run(&unigine::mesh(MeshVersion::Ms12, Size::default()), |m| {
//!         let bytes = m.write().unwrap();
//!         prop_assert_eq!(&UnigineMesh::read(&bytes).unwrap(), &m);
//!         Ok(())
//!     })
//!     .unwrap();
//! ```

use proptest::prelude::*;

use super::Size;
use crate::unigine::raw::anim::{
    An10Animation, An10File, An11Animation, An11File, An11Key, EmbeddedAnimation, Key, KeyMask,
    QuantBox, UnigineAnim,
};
use crate::unigine::raw::cint::{CInt, UString};
use crate::unigine::raw::mesh::{
    Bone, BoneWeight, Bounds, ClassicMesh, SurfaceData, SurfaceHeader, TargetData, Transform,
    Weights,
};
use crate::unigine::{MeshBody, MeshVersion, UnigineMesh};

/// A name: short, long enough for a 2-byte length, or bytes without the terminating NUL.
pub fn name() -> impl Strategy<Value = UString> + Clone {
    prop_oneof![
        "[a-z_]{0,12}".prop_map(|s| UString::new(&s)),
        // Long enough for a 2-byte length.
        "[a-z]{64,80}".prop_map(|s| UString::new(&s)),
        // Kept exactly even without the terminating NUL.
        proptest::collection::vec(any::<u8>(), 0..6).prop_map(|bytes| UString {
            bytes: bytes.into()
        }),
    ]
}

/// Finite values within ±10⁶.
pub fn float() -> std::ops::Range<f32> {
    -1.0e6f32..1.0e6
}

/// Bounds of any finite values.
pub fn bounds() -> impl Strategy<Value = Bounds> {
    proptest::array::uniform10(float()).prop_map(|f| Bounds {
        min: [f[0], f[1], f[2]],
        max: [f[3], f[4], f[5]],
        center: [f[6], f[7], f[8]],
        radius: f[9],
    })
}

/// A bind-pose transform of any finite values.
pub fn transform() -> impl Strategy<Value = Transform> {
    proptest::array::uniform10(float()).prop_map(|f| Transform {
        position: [f[0], f[1], f[2]],
        rotation: [f[3], f[4], f[5], f[6]],
        scale: [f[7], f[8], f[9]],
    })
}

/// A key whose absent components are 0 (as the reader leaves them).
pub fn key<T>(value: impl Strategy<Value = T> + Clone) -> impl Strategy<Value = Key<T>>
where
    T: Default + Copy + std::fmt::Debug,
    T: for<'a> binrw::BinRead<Args<'a> = ()> + for<'a> binrw::BinWrite<Args<'a> = ()>,
{
    (
        0u8..0x80,
        proptest::array::uniform3(value.clone()),
        any::<[i16; 4]>(),
        proptest::array::uniform3(value),
    )
        .prop_map(|(m, t, r, s)| {
            let mask = KeyMask::from_bytes([m]);
            let pick = |on: [bool; 3], v: [T; 3]| {
                [0, 1, 2].map(|i| if on[i] { v[i] } else { T::default() })
            };
            Key {
                mask,
                translation: pick(mask.translation(), t),
                rotation: if mask.rotation() { r } else { [0; 4] },
                scale: pick(mask.scale(), s),
            }
        })
}

/// An animation embedded in a mesh over `bones` bones.
pub fn embedded(bones: usize) -> impl Strategy<Value = EmbeddedAnimation> {
    (
        proptest::collection::vec(0..bones.max(1) as i16, 0..4),
        any::<u8>(),
        0u32..4,
    )
        .prop_flat_map(|(idx, flag, frames)| {
            let n = idx.len() * frames as usize;
            proptest::collection::vec(key(float()), n).prop_map(move |keys| EmbeddedAnimation {
                bones: idx.clone().into(),
                flag,
                frame_count: frames,
                keys,
            })
        })
}

/// One surface: header and geometry with `targets` morph targets.
pub fn surface(v: MeshVersion) -> impl Strategy<Value = (SurfaceHeader, SurfaceData)> {
    (
        name(),
        any::<(u8, u8)>(),
        bounds(),
        proptest::collection::vec(name(), 1..3),
        // Position and tangent counts: small, or past 256 for u16 indices.
        prop_oneof![0usize..12, 250usize..300],
        prop_oneof![0usize..12, 250usize..300],
    )
        .prop_flat_map(move |(n, lm, b, targets, np, nt)| {
            let t = targets.len();
            let w = if v == MeshVersion::Ms10 {
                -128i16..128
            } else {
                i16::MIN..i16::MAX
            };
            let target = (
                proptest::collection::vec(proptest::array::uniform3(float()), np),
                proptest::collection::vec(
                    (any::<[i16; 3]>(), w).prop_map(|(x, w)| [x[0], x[1], x[2], w]),
                    nt,
                ),
            )
                .prop_map(|(positions, tangents)| TargetData {
                    positions: positions.into(),
                    tangents,
                });
            let corners = 3 * (np.min(nt) / 3).min(6);
            (
                Just((n, lm, b, targets)),
                proptest::collection::vec(target, t),
                proptest::collection::vec(0u8..5, 0..6),
                proptest::collection::vec(proptest::array::uniform2(float()), 0..5),
                proptest::collection::vec(any::<[u8; 4]>(), 0..5),
                proptest::collection::vec(0..np.max(1) as u32, corners),
                proptest::collection::vec(0..nt.max(1) as u32, corners),
            )
        })
        .prop_flat_map(move |(head, targets, wcounts, uv, colors, ci, ti)| {
            let total: usize = wcounts.iter().map(|&c| usize::from(c)).sum();
            (
                Just((head, targets, wcounts, uv, colors, ci, ti)),
                proptest::collection::vec(
                    any::<(i16, u16)>().prop_map(|(bone, weight)| BoneWeight { bone, weight }),
                    total,
                ),
            )
        })
        .prop_map(
            move |(((n, lm, b, names), targets, counts, uv, colors, ci, ti), entries)| {
                let lm = if v >= MeshVersion::Ms12 { lm } else { (0, 0) };
                (
                    SurfaceHeader {
                        name: n,
                        lightmap_channel: lm.0,
                        lightmap_resolution: lm.1,
                        bounds: b,
                        targets: names,
                    },
                    SurfaceData {
                        targets,
                        weights: Weights { counts, entries },
                        uv0: uv.clone().into(),
                        uv1: uv.into_iter().rev().collect(),
                        colors: colors.into(),
                        coordinate_indices: ci,
                        triangle_indices: ti,
                    },
                )
            },
        )
}

/// A mesh in the ms10–ms13 layout (`version` one of [`MeshVersion::CLASSIC`]): bones
/// and bind pose, surfaces ([`surface`]), animations where the version embeds them.
pub fn classic_mesh(v: MeshVersion, s: Size) -> impl Strategy<Value = UnigineMesh> {
    {
        (
            bounds(),
            proptest::collection::vec((name(), any::<i16>()), 0..s.n(4)),
            proptest::collection::vec(surface(v), 0..s.n(3)),
        )
            .prop_flat_map(move |(b, bones, surfaces)| {
                let nb = bones.len();
                let anims = if v.embeds_animations() {
                    0..3usize
                } else {
                    0..1
                };
                (
                    Just((b, bones, surfaces)),
                    proptest::collection::vec(transform(), nb),
                    proptest::collection::vec((name(), embedded(nb)), anims),
                )
            })
            .prop_map(move |((bounds, bones, surfaces), bind_pose, anims)| {
                let (surfaces, data) = surfaces.into_iter().unzip();
                let (animation_names, animations) = anims.into_iter().unzip();
                UnigineMesh {
                    version: v,
                    body: MeshBody::Classic(ClassicMesh {
                        bounds,
                        bones: bones
                            .into_iter()
                            .map(|(name, parent)| Bone { name, parent })
                            .collect(),
                        animation_names,
                        surfaces,
                        bind_pose: bind_pose.into(),
                        animations,
                        data,
                    }),
                }
            })
    }
}

/// An animation file of `version` (an10: quantized keys; an11: float keys).
///
/// # Panics
///
/// For a version other than an10 and an11.
pub fn anim(version: &str, s: Size) -> BoxedStrategy<UnigineAnim> {
    let bones = move || proptest::collection::vec((name(), any::<i16>()), 0..s.n(4));
    match version {
        "an10" => (bones(), bounds())
            .prop_flat_map(|(bones, b)| {
                let nb = bones.len();
                let clip = (
                    proptest::collection::vec(any::<i16>(), 0..4),
                    proptest::array::uniform6(float()),
                    proptest::array::uniform6(float()),
                    any::<u8>(),
                    0u32..4,
                )
                    .prop_flat_map(|(idx, tb, sb, flag, frames)| {
                        let n = idx.len() * frames as usize;
                        proptest::collection::vec(key(any::<u16>()), n).prop_map(move |keys| {
                            An10Animation {
                                bones: idx.clone().into(),
                                translation_box: QuantBox {
                                    min: [tb[0], tb[1], tb[2]],
                                    size: [tb[3], tb[4], tb[5]],
                                },
                                scale_box: QuantBox {
                                    min: [sb[0], sb[1], sb[2]],
                                    size: [sb[3], sb[4], sb[5]],
                                },
                                flag,
                                frame_count: frames,
                                keys,
                            }
                        })
                    });
                (
                    Just((bones, b)),
                    proptest::collection::vec(transform(), nb),
                    proptest::collection::vec((name(), clip), 0..3),
                )
                    .prop_map(|((bones, bounds), bind_pose, clips)| {
                        let (names, animations) = clips.into_iter().unzip();
                        UnigineAnim::An10(An10File {
                            bounds,
                            bones: bones
                                .into_iter()
                                .map(|(name, parent)| Bone { name, parent })
                                .collect(),
                            names,
                            bind_pose: bind_pose.into(),
                            animations,
                        })
                    })
            })
            .boxed(),
        "an11" => {
            bones()
                .prop_flat_map(|bones| {
                    let nb = bones.len();
                    let an11_key = || {
                        (
                            0u8..8,
                            proptest::array::uniform3(float()),
                            proptest::array::uniform4(float()),
                            proptest::array::uniform3(float()),
                        )
                            .prop_map(|(mask, p, r, s)| An11Key {
                                mask,
                                position: if mask & 1 != 0 { p } else { [0.0; 3] },
                                rotation: if mask & 2 != 0 { r } else { [0.0; 4] },
                                scale: if mask & 4 != 0 { s } else { [0.0; 3] },
                            })
                    };
                    let clip = (proptest::collection::vec(any::<i16>(), 0..4), 0u32..4)
                        .prop_flat_map(move |(idx, frames)| {
                            proptest::collection::vec(an11_key(), idx.len() * frames as usize)
                                .prop_map(move |keys| An11Animation {
                                    bones: idx.clone().into(),
                                    frame_count: frames,
                                    keys,
                                })
                        });
                    (
                        Just(bones),
                        proptest::collection::vec(transform(), nb),
                        clip,
                    )
                        .prop_map(|(bones, bind_pose, animation)| {
                            UnigineAnim::An11(An11File {
                                bones: bones
                                    .into_iter()
                                    .map(|(name, parent)| Bone { name, parent })
                                    .collect(),
                                bind_pose: bind_pose.into(),
                                animation,
                            })
                        })
                })
                .boxed()
        }
        v => panic!("strategy::unigine::anim: {v} is not an animation version (an10, an11)"),
    }
}

/// An ms14 mesh whose blocks hold arbitrary bytes: the raw layer keeps them as they are
/// ([`mesh`] gives ms14 meshes whose blocks decode).
pub fn ms14_raw(s: Size) -> impl Strategy<Value = UnigineMesh> {
    use crate::unigine::raw::ms14::{
        Lz4Block, Ms14Blocks, Ms14Mesh, Ms14SurfaceHeader, Ms14Target,
    };
    let block =
        (any::<u64>(), proptest::collection::vec(any::<u8>(), 0..40)).prop_map(|(size, data)| {
            Lz4Block {
                size,
                data: data.into(),
            }
        });
    let header = (
        name(),
        any::<(u8, u8)>(),
        any::<(u16, u16)>(),
        bounds(),
        proptest::collection::vec((name(), 0u32..70_000), 1..3),
    )
        .prop_map(|(name, lm, (ci, ti), bounds, targets)| Ms14SurfaceHeader {
            name,
            lightmap_channel: lm.0,
            lightmap_resolution: lm.1,
            coordinate_index_count: u32::from(ci),
            triangle_index_count: u32::from(ti),
            bounds,
            targets: targets
                .into_iter()
                .map(|(name, vertex_count)| Ms14Target { name, vertex_count })
                .collect(),
        });
    (
        any::<i32>(),
        bounds(),
        proptest::collection::vec((name(), any::<i16>()), 0..3),
        proptest::collection::vec((header, block.clone(), block), 0..s.n(3)),
        any::<i64>(),
    )
        .prop_flat_map(|(leaf, bounds, bones, surfaces, mem)| {
            let nb = bones.len();
            (
                Just((leaf, bounds, bones, surfaces, mem)),
                proptest::collection::vec(transform(), nb),
            )
        })
        .prop_map(|((leaf, bounds, bones, surfaces, mem), bind_pose)| {
            let mut headers = Vec::new();
            let mut blocks = Ms14Blocks::default();
            for (h, g, t) in surfaces {
                headers.push(h);
                blocks.geometry.push(g);
                blocks.trees.push(t);
            }
            UnigineMesh {
                version: MeshVersion::Ms14,
                body: MeshBody::Ms14(Ms14Mesh {
                    tree_leaf_triangles: CInt(leaf),
                    bounds,
                    bones: bones
                        .into_iter()
                        .map(|(name, parent)| Bone { name, parent })
                        .collect(),
                    surfaces: headers,
                    memory_estimate: mem,
                    bind_pose: bind_pose.into(),
                    blocks,
                }),
            }
        })
}

/// A mesh of `version`: the ms10–ms13 layout ([`classic_mesh`]), or ms14 built from one
/// (`Ms14Mesh::from_classic`: LZ4 blocks and spatial trees that decode).
///
/// # Panics
///
/// For a version the crate does not write.
pub fn mesh(version: MeshVersion, s: Size) -> BoxedStrategy<UnigineMesh> {
    use crate::unigine::raw::ms14::Ms14Mesh;
    if MeshVersion::CLASSIC.contains(&version) {
        return classic_mesh(version, s).boxed();
    }
    assert!(
        version == MeshVersion::Ms14,
        "strategy::unigine::mesh: {version} is not written"
    );
    let built = classic_mesh(MeshVersion::Ms13, s).prop_filter_map("converts to ms14", |m| {
        let MeshBody::Classic(c) = m.body else {
            return None;
        };
        let body = Ms14Mesh::from_classic(c, None).ok()?;
        Some(UnigineMesh {
            version: MeshVersion::Ms14,
            body: MeshBody::Ms14(body),
        })
    });
    built.boxed()
}

/// A mesh of any version ms10 to ms14 ([`mesh`]).
pub fn any_mesh(s: Size) -> BoxedStrategy<UnigineMesh> {
    let mut versions = MeshVersion::CLASSIC.to_vec();
    versions.push(MeshVersion::Ms14);
    proptest::sample::select(versions)
        .prop_flat_map(move |v| mesh(v, s))
        .boxed()
}

/// Valid `.mesh` files of `version` (`"ms10"` … `"ms14"`), as bytes.
pub(super) fn mesh_file(version: &str, s: Size) -> BoxedStrategy<Vec<u8>> {
    let v: MeshVersion = version
        .parse()
        .unwrap_or_else(|e| panic!("strategy::unigine_mesh({version:?}): {e}"));
    mesh(v, s)
        .prop_filter_map("writes", |m| m.write().ok())
        .boxed()
}

/// Valid `.anim` files of `version` (`"an10"`, `"an11"`), as bytes.
pub(super) fn anim_file(version: &str, s: Size) -> BoxedStrategy<Vec<u8>> {
    anim(version, s)
        .prop_filter_map("writes", |a| a.write().ok())
        .boxed()
}
