//! glTF 2.0 and OBJ export of every fixture and corpus file of every format: the
//! documents decode back to the scene the adapters built (through independent readers
//! here: GLB chunks, base64, accessors, an OBJ parser), and the Khronos glTF validator
//! (npm `gltf-validator`, run by `tests/gltf/validate.js`) reports no error and no
//! warning. Skins are checked against their sources: joints per bone, inverse bind
//! matrices that undo the joints' world matrices, and weights that decode back to the
//! files' weights; so are morph targets: names, default weights, and deltas that decode
//! back bit for bit to those worked out here from the files' positions and offsets; and
//! UNIGINE animations (`.anim` files, clips embedded in ms11 meshes): a channel per
//! animated bone and stored path, times frame / 30, values that decode back to the keys.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use meshcodec::scene::{self, gltf, obj, Joint, MorphTarget, Primitive, Scene, Skeleton};
use meshcodec::{Format, Limits};
use serde_json::Value;

/// The validator release the test is written against (what CI installs).
const VALIDATOR_PACKAGE: &str = "gltf-validator@2.0.0-dev.3.10";

/// One exported scene and where it came from.
struct Case {
    label: String,
    scene: Scene,
}

/// The scenes of one file (a FileMesh gives one per LOD); `None` for a file of no
/// known format.
fn scenes_of(path: &Path) -> Option<Vec<(String, Scene)>> {
    let bytes = std::fs::read(path).expect("read file");
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let what = |e: meshcodec::Error| format!("{}: {e}", path.display());
    let scenes = match meshcodec::detect(&bytes)? {
        Format::FileMesh => {
            let mesh = meshcodec::filemesh::model::Mesh::read(&bytes)
                .unwrap_or_else(|e| panic!("{}", what(e)));
            let mut scenes: Vec<(String, Scene)> = (0..mesh.lods.count())
                .map(|lod| {
                    let scene = meshcodec::filemesh::scene::to_scene(mesh.clone(), &name, lod)
                        .unwrap_or_else(|e| panic!("LOD {lod} of {}", what(e)));
                    (format!("LOD {lod}"), scene)
                })
                .collect();
            // `export --lod all`: every LOD, one mesh each, the same as one at a time.
            if scenes.len() > 1 {
                let all = meshcodec::filemesh::scene::to_scene_all_lods(&mesh, &name)
                    .unwrap_or_else(|e| panic!("all LODs of {}", what(e)));
                assert_eq!(all.meshes.len(), scenes.len());
                for (k, (m, (_, one))) in all.meshes.iter().zip(&scenes).enumerate() {
                    assert_eq!(m.name, format!("{name} LOD {k}"));
                    assert_eq!(m.primitives, one.meshes[0].primitives);
                }
                scenes.push(("all LODs".to_string(), all));
            }
            scenes
        }
        Format::Csgphs => {
            let m = meshcodec::csg::phs::model::CsgMesh::read(&bytes)
                .unwrap_or_else(|e| panic!("{}", what(e)));
            vec![(
                String::new(),
                meshcodec::csg::phs::scene::to_scene(&m, &name),
            )]
        }
        Format::UnigineMesh => {
            let m = meshcodec::unigine::UnigineMesh::read(&bytes)
                .unwrap_or_else(|e| panic!("{}", what(e)));
            let scene = meshcodec::unigine::scene::mesh_to_scene(&m, &name, &Limits::default())
                .unwrap_or_else(|e| panic!("{}", what(e)));
            vec![(String::new(), scene)]
        }
        Format::Stf => {
            let f = meshcodec::stf::StfContainer::read(&bytes)
                .unwrap_or_else(|e| panic!("{}", what(e)));
            let scene =
                meshcodec::stf::scene::to_scene(&f).unwrap_or_else(|e| panic!("{}", what(e)));
            vec![(String::new(), scene)]
        }
        Format::UnigineAnim => {
            let a = meshcodec::unigine::raw::anim::UnigineAnim::read(&bytes)
                .unwrap_or_else(|e| panic!("{}", what(e)));
            let scene = meshcodec::unigine::scene::anim_to_scene(&a, &name)
                .unwrap_or_else(|e| panic!("{}", what(e)));
            vec![(String::new(), scene)]
        }
        Format::Csgmdl => {
            use meshcodec::MeshFile;
            let f =
                meshcodec::csg::mdl::CsgMdl::read(&bytes).unwrap_or_else(|e| panic!("{}", what(e)));
            let scene = f
                .to_scene(&Default::default(), &Limits::default())
                .unwrap_or_else(|e| panic!("{}", what(e)));
            vec![(String::new(), scene)]
        }
        _ => return None,
    };
    Some(scenes)
}

/// Every fixture and corpus file of every format, as scenes, plus a few made here
/// (an empty scene, a mesh without triangles, every attribute at once).
fn cases() -> Vec<Case> {
    let mut files = common::fixture_files();
    for set in ["csgphs", "unigine", "stf", "csgmdl"] {
        files.extend(common::files_below(&common::fixture_dir(set)));
    }
    let corpus = common::corpus();
    if let Some(dir) = &corpus {
        files.extend(common::files_below(dir));
    }
    let mut cases = Vec::new();
    let mut formats = std::collections::BTreeMap::<&str, usize>::new();
    for path in &files {
        let Some(scenes) = scenes_of(path) else {
            continue;
        };
        let bytes = std::fs::read(path).expect("read");
        if let Some(f) = meshcodec::detect(&bytes) {
            *formats.entry(f.name()).or_default() += 1;
        }
        for (what, scene) in scenes {
            let label = format!("{} {what}", path.display());
            // A +Z-up scene (UNIGINE) is also checked as export writes it by default:
            // turned to +Y up, skins and animations turned with it.
            if scene.up != scene::UpAxis::Y {
                let mut up = scene.clone();
                up.to_y_up();
                cases.push(Case {
                    label: format!("{} (turned to +Y up)", label.trim()),
                    scene: up,
                });
            }
            cases.push(Case {
                label: label.trim().to_string(),
                scene,
            });
        }
    }
    eprintln!("files exported, by format: {formats:?}");
    for (format, min) in [
        ("filemesh", 20),
        ("csgphs", 7),
        ("unigine-mesh", 11),
        ("unigine-anim", 2),
        ("stf", 3),
    ] {
        let min = if corpus.is_some() { min + 1 } else { min };
        let n = formats.get(format).copied().unwrap_or(0);
        assert!(
            n >= min,
            "only {n} {format} files found (expected {min} or more)"
        );
    }

    let tri = Primitive {
        name: "every attribute".into(),
        material: Some("paint".into()),
        positions: vec![[0.0, 0.0, 0.0], [1.0, 0.1, -0.0], [0.0, 1.0, 3.5]],
        normals: Some(vec![[0.0, 0.0, 1.0]; 3]),
        uvs: Some(vec![[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]),
        extra_uvs: vec![vec![[0.5, 0.5], [0.25, 0.0], [0.0, 0.75]]],
        colors: Some(vec![[1.0, 0.5, 0.25, 1.0]; 3]),
        triangles: vec![[0, 1, 2]],
        joints: None,
        weights: None,
        morph_targets: Vec::new(),
    };
    let points = Primitive {
        name: "no triangles".into(),
        positions: vec![[0.0; 3]; 2],
        ..Primitive::default()
    };
    let mesh = |name: &str, primitives: Vec<Primitive>| scene::ExportMesh {
        name: name.into(),
        primitives,
        lod: 0,
    };
    // Values that are not finite, and vertices only another LOD uses (a 3.01 file built
    // here), and an UNIGINE mesh with NaN in its geometry, bind pose and keys.
    let mesh301 = meshcodec::filemesh::model::Mesh::read(&non_finite_301()).expect("3.01");
    for lod in 0..2 {
        cases.push(Case {
            label: format!("made: 3.01 with NaN, LOD {lod}"),
            scene: meshcodec::filemesh::scene::to_scene(mesh301.clone(), "nan", lod)
                .expect("3.01 export"),
        });
    }
    cases.push(Case {
        label: "made: UNIGINE with NaN".into(),
        scene: meshcodec::unigine::scene::mesh_to_scene(
            non_finite_unigine(),
            "nan",
            &Limits::default(),
        )
        .expect("UNIGINE export"),
    });
    cases.push(Case {
        label: "made: empty scene".into(),
        scene: Scene::default(),
    });
    cases.push(Case {
        label: "made: meshes without triangles".into(),
        scene: Scene {
            meshes: vec![
                mesh("nothing", vec![]),
                mesh("points", vec![points.clone()]),
            ],
            skeleton: None,
            notes: Vec::new(),
            animations: Vec::new(),
            up: Default::default(),
        },
    });
    cases.push(Case {
        label: "made: mixed".into(),
        scene: Scene {
            meshes: vec![
                mesh("empty", vec![points.clone()]),
                mesh("two", vec![points.clone(), tri.clone(), tri.clone()]),
            ],
            skeleton: None,
            notes: Vec::new(),
            animations: Vec::new(),
            up: Default::default(),
        },
    });

    // Skins: two root joints (so an extra root node), a parent after its child, a
    // scaled joint; a skinned and an unskinned primitive in one mesh (the latter bound
    // to joint 0), and a mesh with no skin beside it.
    let (s, c) = (0.258_819_04_f32, 0.965_925_8_f32); // sin, cos 15°
    let h = std::f32::consts::FRAC_1_SQRT_2;
    let skeleton = made_skeleton(vec![
        ("hand", Some(2), [0.0, 1.0, 0.0], [0.0, 0.0, h, h], [1.0; 3]),
        (
            "other root",
            None,
            [5.0, 0.0, 0.0],
            [0.0, 0.0, 0.0, 1.0],
            [2.0; 3],
        ),
        ("arm", None, [0.0, 0.0, 1.0], [s, 0.0, 0.0, c], [1.0; 3]),
        (
            "finger",
            Some(0),
            [0.5, 0.0, 0.0],
            [0.0, s, 0.0, c],
            [1.0; 3],
        ),
    ]);
    let mut skinned = tri.clone();
    skinned.name = "skinned".into();
    skinned.joints = Some(vec![[0, 3, 0, 0], [2, 0, 0, 0], [1, 2, 3, 0]]);
    skinned.weights = Some(vec![
        [0.75, 0.25, 0.0, 0.0],
        [1.0, 0.0, 0.0, 0.0],
        [0.5, 0.25, 0.25, 0.0],
    ]);
    let mut skinned_points = points.clone();
    skinned_points.joints = Some(vec![[3, 0, 0, 0]; 2]);
    skinned_points.weights = Some(vec![[1.0, 0.0, 0.0, 0.0]; 2]);
    cases.push(Case {
        label: "made: skinned".into(),
        scene: Scene {
            meshes: vec![
                mesh("body", vec![skinned.clone(), tri.clone(), skinned_points]),
                mesh("static", vec![tri.clone()]),
            ],
            skeleton: Some(skeleton.clone()),
            notes: Vec::new(),
            animations: Vec::new(),
            up: Default::default(),
        },
    });
    // 300 joints (16-bit joint indices), each the child of the next.
    let chain = made_skeleton(
        (0..300)
            .map(|i| {
                let parent = (i < 299).then_some(i + 1);
                (
                    "chain",
                    parent,
                    [0.01, 0.0, 0.0],
                    [0.0, 0.0, 0.0, 1.0],
                    [1.0; 3],
                )
            })
            .collect(),
    );
    let mut long = skinned.clone();
    long.joints = Some(vec![[299, 0, 0, 0], [150, 2, 0, 0], [1, 0, 0, 0]]);
    long.weights = Some(vec![
        [1.0, 0.0, 0.0, 0.0],
        [0.5, 0.5, 0.0, 0.0],
        [1.0, 0.0, 0.0, 0.0],
    ]);
    cases.push(Case {
        label: "made: 300 joints".into(),
        scene: Scene {
            meshes: vec![mesh("long", vec![long])],
            skeleton: Some(chain),
            notes: Vec::new(),
            animations: Vec::new(),
            up: Default::default(),
        },
    });
    // Morph targets: primitives of one mesh with different targets (matched by name,
    // padded), repeated and empty names, one without targets, one without triangles;
    // and a skinned mesh with a target.
    let target = |name: &str, deltas: Vec<[f32; 3]>, w: f32| MorphTarget {
        name: name.into(),
        position_deltas: deltas,
        default_weight: w,
    };
    let mut smile = tri.clone();
    smile.name = "smile".into();
    smile.morph_targets = vec![
        target(
            "smile",
            vec![[0.0, -0.0, 1e-7], [0.1, 0.2, 0.3], [-3.5, 0.0, 0.0]],
            0.0,
        ),
        target("", vec![[1.0; 3]; 3], 0.5),
    ];
    let mut blink = tri.clone();
    blink.name = "blink".into();
    blink.morph_targets = vec![
        target("", vec![[0.25, 0.0, 0.0]; 3], 0.25),
        target("blink", vec![[0.0, 0.0, -1.0]; 3], 1.0),
        target("", vec![[0.0, 2.0, 0.0]; 3], 0.0),
    ];
    let mut morphed_points = points.clone();
    morphed_points.morph_targets = vec![target("unwritten", vec![[9.0; 3]; 2], 0.0)];
    let mut skinned_morph = skinned.clone();
    skinned_morph.morph_targets = vec![target("bulge", vec![[0.5, 0.5, 0.0]; 3], 0.0)];
    cases.push(Case {
        label: "made: morph targets".into(),
        scene: Scene {
            meshes: vec![
                mesh(
                    "face",
                    vec![smile, morphed_points.clone(), blink, tri.clone()],
                ),
                mesh("body", vec![skinned_morph, tri.clone()]),
                mesh("points", vec![morphed_points]),
            ],
            skeleton: Some(skeleton.clone()),
            notes: Vec::new(),
            animations: Vec::new(),
            up: Default::default(),
        },
    });
    // Blendshapes of STF (no fixture or corpus file has any): a hand-built file.
    cases.push(Case {
        label: "made: STF blendshapes".into(),
        scene: meshcodec::stf::scene::to_scene(&common::stf_blendshapes::container())
            .expect("STF export"),
    });

    // A skeleton no mesh uses, and a skeleton alone.
    cases.push(Case {
        label: "made: unused skeleton".into(),
        scene: Scene {
            meshes: vec![mesh("static", vec![tri])],
            skeleton: Some(skeleton.clone()),
            notes: Vec::new(),
            animations: Vec::new(),
            up: Default::default(),
        },
    });
    // Animations of a skeleton without meshes: channels with their own times.
    cases.push(Case {
        label: "made: animations only".into(),
        scene: Scene {
            meshes: Vec::new(),
            skeleton: Some(skeleton.clone()),
            notes: Vec::new(),
            animations: vec![
                scene::Animation {
                    name: "move".into(),
                    channels: vec![
                        scene::Channel {
                            joint: 3,
                            times: vec![0.0, 0.5, 1.25],
                            values: scene::ChannelValues::Translation(vec![
                                [0.5, 0.0, 0.0],
                                [1.0, -2.0, 0.0],
                                [0.0; 3],
                            ]),
                        },
                        scene::Channel {
                            joint: 0,
                            times: vec![0.25],
                            values: scene::ChannelValues::Rotation(vec![[0.0, 0.0, h, h]]),
                        },
                        scene::Channel {
                            joint: 3,
                            times: vec![0.0, 0.5, 1.25],
                            values: scene::ChannelValues::Scale(vec![[1.0; 3], [2.0; 3], [1.0; 3]]),
                        },
                    ],
                },
                scene::Animation {
                    name: String::new(),
                    channels: vec![scene::Channel {
                        joint: 1,
                        times: vec![1.0, 2.0],
                        values: scene::ChannelValues::Rotation(vec![
                            [0.0, 0.0, 0.0, 1.0],
                            [s, 0.0, 0.0, c],
                        ]),
                    }],
                },
            ],
            up: Default::default(),
        },
    });
    cases.push(Case {
        label: "made: skeleton only".into(),
        scene: Scene {
            meshes: vec![mesh("points", vec![points])],
            skeleton: Some(skeleton),
            notes: Vec::new(),
            animations: Vec::new(),
            up: Default::default(),
        },
    });
    cases
}

/// A 3.01 FileMesh built here (from the spec: header, 40-byte vertices, faces, LOD
/// offsets) with 6 vertices: LOD 0 (2 faces) uses vertices 0–3, LOD 1 (1 face) vertices
/// 1, 4, 5. LOD 0: vertex 1 has a zero normal, vertex 2 the normal (NaN, NaN, NaN),
/// vertex 3 (2, +∞, 0). Only LOD 1: vertex 4 has the position (NaN, +∞, 1) and a NaN
/// normal x, vertex 5 the UV (−∞, 0.5).
fn non_finite_301() -> Vec<u8> {
    let (nan, inf) = (f32::NAN, f32::INFINITY);
    #[rustfmt::skip]
    let vertices: [([f32; 3], [f32; 3], [f32; 2]); 6] = [
        ([0.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0]),
        ([1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [1.0, 0.0]),
        ([1.0, 1.0, 0.0], [nan, nan, nan], [1.0, 1.0]),
        ([0.0, 1.0, 0.0], [2.0, inf, 0.0], [0.0, 1.0]),
        ([nan, inf, 1.0], [nan, 0.0, 1.0], [0.5, 0.5]),
        ([2.0, 0.0, 0.5], [0.0, 1.0, 0.0], [-inf, 0.5]),
    ];
    let faces: [[u32; 3]; 3] = [[0, 1, 2], [0, 2, 3], [1, 4, 5]];
    let lods: [u32; 3] = [0, 2, 3];
    let mut b = b"version 3.01\n".to_vec();
    b.extend(16u16.to_le_bytes()); // sizeof_MeshHeader
    b.push(40); // sizeof_Vertex
    b.push(12); // sizeof_Face
    b.extend(4u16.to_le_bytes()); // sizeof_LodOffset
    b.extend((lods.len() as u16).to_le_bytes());
    b.extend((vertices.len() as u32).to_le_bytes());
    b.extend((faces.len() as u32).to_le_bytes());
    for (p, n, uv) in vertices {
        for x in p.iter().chain(&n).chain(&uv) {
            b.extend(x.to_le_bytes());
        }
        b.extend([127, 127, 127, 0]); // no tangent
        b.extend([255, 128, 0, 255]); // colour
    }
    for x in faces.iter().flatten().chain(&lods) {
        b.extend(x.to_le_bytes());
    }
    b
}

/// The ms11 fixture with an embedded animation, with values that are not finite: a
/// position and a UV of a used vertex, a bind pose translation and scale, and a key's
/// translation and scale.
fn non_finite_unigine() -> meshcodec::unigine::UnigineMesh {
    use meshcodec::unigine::{MeshBody, UnigineMesh};
    let path = common::fixture_dir("unigine").join("ms11-embedded-anim.mesh");
    let mut m = UnigineMesh::read(&std::fs::read(path).expect("read")).expect("ms11");
    let MeshBody::Classic(c) = &mut m.body else {
        panic!("ms11 expected")
    };
    let d = &mut c.data[0];
    let used = d.coordinate_indices[0] as usize;
    d.targets[0].positions[used] = [f32::NAN, 0.5, f32::NEG_INFINITY];
    d.uv0[d.triangle_indices[0] as usize][1] = f32::NAN;
    c.bind_pose[0].position[1] = f32::INFINITY;
    c.bind_pose[0].scale[2] = f32::NAN;
    let a = &mut c.animations[0];
    let k = a
        .keys
        .iter_mut()
        .find(|k| k.mask.tx() && k.mask.sy())
        .expect("a key with translation x and scale y");
    k.translation[0] = f32::NAN;
    k.scale[1] = f32::INFINITY;
    m
}

/// A joint as the made cases give it: name, parent, translation, rotation, scale.
type MadeJoint<'a> = (&'a str, Option<usize>, [f32; 3], [f32; 4], [f32; 3]);

/// A skeleton with the inverse bind matrices worked out here (the joints' world
/// matrices are similarities).
fn made_skeleton(joints: Vec<MadeJoint>) -> Skeleton {
    let mut s = Skeleton {
        joints: joints
            .into_iter()
            .map(|(name, parent, translation, rotation, scale)| Joint {
                name: name.into(),
                parent,
                translation,
                rotation,
                scale,
                ..Joint::default()
            })
            .collect(),
    };
    let world = joint_worlds(&s);
    for (j, w) in s.joints.iter_mut().zip(world) {
        j.inverse_bind_matrix = invert_similarity(&w).map(|x| x as f32);
    }
    s
}

/// The meshes and primitives an export holds: those with triangles.
fn written(scene: &Scene) -> Vec<(&str, Vec<&Primitive>)> {
    scene
        .meshes
        .iter()
        .map(|m| {
            let prims: Vec<&Primitive> = m
                .primitives
                .iter()
                .filter(|p| !p.triangles.is_empty())
                .collect();
            (m.name.as_str(), prims)
        })
        .filter(|(_, p)| !p.is_empty())
        .collect()
}

// ---------------------------------------------------------------- glTF reading

/// Base64 decoding, written independently of the exporter's encoder.
fn base64_decode(s: &str) -> Vec<u8> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => u32::from(c - b'A'),
        b'a'..=b'z' => u32::from(c - b'a') + 26,
        b'0'..=b'9' => u32::from(c - b'0') + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("not base64: {c:?}"),
    };
    assert_eq!(s.len() % 4, 0, "base64 length");
    let mut out = Vec::new();
    for quad in s.as_bytes().chunks(4) {
        let pad = quad.iter().filter(|&&c| c == b'=').count();
        let n = quad
            .iter()
            .map(|&c| if c == b'=' { 0 } else { val(c) })
            .fold(0u32, |acc, v| (acc << 6) | v);
        let bytes = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&bytes[..3 - pad]);
    }
    out
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap())
}

/// Splits a GLB into its JSON and its BIN chunk (empty when absent), checking the header
/// and the chunk layout.
fn read_glb(glb: &[u8], label: &str) -> (String, Value, Vec<u8>) {
    assert_eq!(&glb[..4], b"glTF", "{label}: GLB magic");
    assert_eq!(u32_at(glb, 4), 2, "{label}: GLB version");
    assert_eq!(u32_at(glb, 8) as usize, glb.len(), "{label}: GLB length");
    let json_len = u32_at(glb, 12) as usize;
    assert_eq!(&glb[16..20], b"JSON", "{label}: first chunk");
    assert_eq!(json_len % 4, 0, "{label}: JSON chunk alignment");
    let json = &glb[20..20 + json_len];
    let text = std::str::from_utf8(json).expect("JSON chunk is UTF-8");
    assert!(
        !text.trim_end_matches(' ').ends_with(' ') && text.trim_end_matches(' ').ends_with('}'),
        "{label}: JSON chunk padding"
    );
    let doc: Value = serde_json::from_str(text).expect("JSON chunk parses");
    let rest = &glb[20 + json_len..];
    if rest.is_empty() {
        assert!(doc.get("buffers").is_none(), "{label}: buffers but no BIN");
        return (text.to_string(), doc, Vec::new());
    }
    let bin_len = u32_at(rest, 0) as usize;
    assert_eq!(&rest[4..8], b"BIN\0", "{label}: second chunk");
    assert_eq!(bin_len % 4, 0, "{label}: BIN chunk alignment");
    assert_eq!(
        rest.len(),
        8 + bin_len,
        "{label}: bytes after the BIN chunk"
    );
    let byte_length = doc["buffers"][0]["byteLength"].as_u64().unwrap() as usize;
    assert!(
        byte_length <= bin_len && bin_len - byte_length < 4,
        "{label}"
    );
    assert!(
        rest[8 + byte_length..].iter().all(|&b| b == 0),
        "{label}: BIN padding"
    );
    (text.to_string(), doc, rest[8..8 + byte_length].to_vec())
}

/// The `.gltf` document and its buffer, decoded from the data URI.
fn read_gltf(text: &str) -> (Value, Vec<u8>) {
    let doc: Value = serde_json::from_str(text).expect(".gltf parses");
    let bin = match doc["buffers"][0]["uri"].as_str() {
        Some(uri) => {
            let data = uri
                .strip_prefix("data:application/octet-stream;base64,")
                .expect("data URI");
            let bin = base64_decode(data);
            assert_eq!(
                Some(bin.len() as u64),
                doc["buffers"][0]["byteLength"].as_u64()
            );
            bin
        }
        None => Vec::new(),
    };
    (doc, bin)
}

/// An accessor's elements as raw 4-byte words (f32 bits or u32), checking its type.
fn accessor_words(doc: &Value, bin: &[u8], index: &Value, ty: &str, comp: u64) -> Vec<u32> {
    let a = &doc["accessors"][index.as_u64().expect("accessor index") as usize];
    assert_eq!(a["type"], ty);
    assert_eq!(a["componentType"], comp);
    assert!(a.get("byteOffset").is_none_or(|o| o == 0));
    let n = match ty {
        "SCALAR" => 1,
        "VEC2" => 2,
        "VEC3" => 3,
        "VEC4" => 4,
        _ => panic!("type {ty}"),
    };
    let count = a["count"].as_u64().unwrap() as usize;
    let view = &doc["bufferViews"][a["bufferView"].as_u64().unwrap() as usize];
    assert_eq!(view["buffer"], 0);
    assert!(view.get("byteStride").is_none());
    let offset = view["byteOffset"].as_u64().unwrap_or(0) as usize;
    let len = view["byteLength"].as_u64().unwrap() as usize;
    assert_eq!(offset % 4, 0, "bufferView alignment");
    assert_eq!(len, count * n * 4, "bufferView length");
    let target = if ty == "SCALAR" { 34963 } else { 34962 };
    assert_eq!(view["target"], target);
    bin[offset..offset + len]
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes(w.try_into().unwrap()))
        .collect()
}

/// An accessor's bytes through its bufferView (tightly packed, at offset 0), with the
/// view's target.
fn accessor_bytes<'a>(
    doc: &'a Value,
    bin: &'a [u8],
    index: &Value,
) -> (&'a Value, &'a [u8], &'a Value) {
    let a = &doc["accessors"][index.as_u64().expect("accessor index") as usize];
    assert!(a.get("byteOffset").is_none_or(|o| o == 0));
    let view = &doc["bufferViews"][a["bufferView"].as_u64().unwrap() as usize];
    assert_eq!(view["buffer"], 0);
    assert!(view.get("byteStride").is_none());
    let offset = view["byteOffset"].as_u64().unwrap_or(0) as usize;
    let len = view["byteLength"].as_u64().unwrap() as usize;
    assert_eq!(offset % 4, 0, "bufferView alignment");
    (a, &bin[offset..offset + len], &view["target"])
}

/// A `JOINTS_0` accessor: UNSIGNED_BYTE or UNSIGNED_SHORT VEC4.
fn read_joints(doc: &Value, bin: &[u8], index: &Value) -> Vec<[u16; 4]> {
    let (a, bytes, target) = accessor_bytes(doc, bin, index);
    assert_eq!(a["type"], "VEC4");
    assert_eq!(*target, 34962);
    assert!(a.get("normalized").is_none_or(|n| n == false));
    let count = a["count"].as_u64().unwrap() as usize;
    let values: Vec<u16> = match a["componentType"].as_u64() {
        Some(5121) => bytes.iter().map(|&b| u16::from(b)).collect(),
        Some(5123) => bytes
            .chunks_exact(2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
            .collect(),
        c => panic!("JOINTS_0 component type {c:?}"),
    };
    assert_eq!(values.len(), count * 4, "JOINTS_0 bufferView length");
    values
        .chunks_exact(4)
        .map(|c| [c[0], c[1], c[2], c[3]])
        .collect()
}

/// The inverse bind matrices: a FLOAT MAT4 accessor on a bufferView without target.
fn read_matrices(doc: &Value, bin: &[u8], index: &Value) -> Vec<[f32; 16]> {
    let (a, bytes, target) = accessor_bytes(doc, bin, index);
    assert_eq!(a["type"], "MAT4");
    assert_eq!(a["componentType"], 5126);
    assert!(
        target.is_null(),
        "inverse bind matrices: no bufferView target"
    );
    let count = a["count"].as_u64().unwrap() as usize;
    assert_eq!(bytes.len(), count * 64);
    bytes
        .chunks_exact(64)
        .map(|m| {
            let mut out = [0f32; 16];
            for (o, w) in out.iter_mut().zip(m.chunks_exact(4)) {
                *o = f32::from_le_bytes(w.try_into().unwrap());
            }
            out
        })
        .collect()
}

/// Checks the skin against the skeleton: one node per joint after the `meshes` mesh
/// nodes, their TRS and children, the extra root (several root joints), the skin's
/// joints, skeleton and inverse bind matrices, and that each inverse bind matrix undoes
/// the world matrix the nodes give the joint (within 1e-4). Returns the root's node.
fn check_skin(doc: &Value, bin: &[u8], s: &Skeleton, meshes: usize, label: &str) -> usize {
    let nodes = doc["nodes"].as_array().expect("nodes");
    let n = s.joints.len();
    let roots: Vec<usize> = (0..n).filter(|&i| s.joints[i].parent.is_none()).collect();
    let extra = usize::from(roots.len() != 1);
    assert_eq!(nodes.len(), meshes + n + extra, "{label}: nodes");
    let root = if extra == 1 {
        let node = &nodes[meshes + n];
        assert_eq!(node["name"], "skeleton", "{label}");
        let children: Vec<usize> = roots.iter().map(|r| meshes + r).collect();
        assert_eq!(node["children"], serde_json::json!(children), "{label}");
        assert_eq!(node.as_object().unwrap().len(), 2, "{label}: extra root");
        meshes + n
    } else {
        meshes + roots[0]
    };
    // As f32 bits (serde_json may read a number a unit off in the last f64 place).
    let f = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    let got = |v: &Value| -> Vec<u32> {
        v.as_array()
            .expect("number array")
            .iter()
            .map(|x| (x.as_f64().expect("number") as f32).to_bits())
            .collect()
    };
    for (i, j) in s.joints.iter().enumerate() {
        let node = &nodes[meshes + i];
        let what = format!("{label}: joint {i} {:?}", j.name);
        assert_eq!(node["name"], j.name, "{what}");
        assert_eq!(got(&node["translation"]), f(&j.translation), "{what}");
        assert_eq!(got(&node["rotation"]), f(&j.rotation), "{what}");
        assert_eq!(got(&node["scale"]), f(&j.scale), "{what}");
        assert!(
            node.get("matrix").is_none() && node.get("mesh").is_none(),
            "{what}"
        );
        let children: Vec<usize> = (0..n)
            .filter(|&c| s.joints[c].parent == Some(i))
            .map(|c| meshes + c)
            .collect();
        match children.is_empty() {
            true => assert!(node.get("children").is_none(), "{what}"),
            false => assert_eq!(node["children"], serde_json::json!(children), "{what}"),
        }
    }
    let skins = doc["skins"].as_array().expect("skins");
    assert_eq!(skins.len(), 1, "{label}");
    let skin = &skins[0];
    let joints: Vec<usize> = (meshes..meshes + n).collect();
    assert_eq!(skin["joints"], serde_json::json!(joints), "{label}");
    assert_eq!(skin["skeleton"], root, "{label}");
    let ibm = read_matrices(doc, bin, &skin["inverseBindMatrices"]);
    assert_eq!(ibm.len(), n, "{label}");
    for (m, j) in ibm.iter().zip(&s.joints) {
        assert_eq!(
            bits(&[*m]),
            bits(&[j.inverse_bind_matrix]),
            "{label}: {}",
            j.name
        );
    }
    for (i, (m, w)) in ibm.iter().zip(node_worlds(doc, meshes, n)).enumerate() {
        let product = mat_mul(&m.map(f64::from), &w);
        let worst = product
            .iter()
            .zip(&IDENTITY)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        assert!(
            worst <= 1e-4,
            "{label}: joint {i}: inverse bind matrix x world is off identity by {worst}"
        );
    }
    root
}

// ---------------------------------------------------------------- matrices, here

/// Column-major 4x4.
type Mat = [f64; 16];

const IDENTITY: Mat = [
    1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
];

fn mat_mul(a: &Mat, b: &Mat) -> Mat {
    let mut out = [0.0; 16];
    for c in 0..4 {
        for r in 0..4 {
            for k in 0..4 {
                out[c * 4 + r] += a[k * 4 + r] * b[c * 4 + k];
            }
        }
    }
    out
}

/// glTF's node matrix T * R * S, from a (x, y, z, w) quaternion.
fn trs(t: [f64; 3], q: [f64; 4], s: [f64; 3]) -> Mat {
    let [x, y, z, w] = q;
    // Columns of the rotation matrix.
    let cols = [
        [
            1.0 - 2.0 * (y * y + z * z),
            2.0 * (x * y + w * z),
            2.0 * (x * z - w * y),
        ],
        [
            2.0 * (x * y - w * z),
            1.0 - 2.0 * (x * x + z * z),
            2.0 * (y * z + w * x),
        ],
        [
            2.0 * (x * z + w * y),
            2.0 * (y * z - w * x),
            1.0 - 2.0 * (x * x + y * y),
        ],
    ];
    let mut m = IDENTITY;
    for c in 0..3 {
        for r in 0..3 {
            m[c * 4 + r] = cols[c][r] * s[c];
        }
        m[12 + c] = t[c];
    }
    m
}

/// The inverse of a similarity (uniformly scaled rotation plus translation).
fn invert_similarity(m: &Mat) -> Mat {
    let s2 = m[0] * m[0] + m[1] * m[1] + m[2] * m[2];
    let mut out = IDENTITY;
    for c in 0..3 {
        for r in 0..3 {
            out[c * 4 + r] = m[r * 4 + c] / s2;
        }
    }
    for r in 0..3 {
        out[12 + r] = -(0..3).map(|k| out[k * 4 + r] * m[12 + k]).sum::<f64>();
    }
    out
}

/// World matrices of a skeleton's joints, each its parents' chain times its own TRS.
fn joint_worlds(s: &Skeleton) -> Vec<Mat> {
    (0..s.joints.len())
        .map(|i| {
            let mut m = IDENTITY;
            let mut at = Some(i);
            let mut steps = 0;
            while let Some(j) = at {
                let jt = &s.joints[j];
                let local = trs(
                    jt.translation.map(f64::from),
                    jt.rotation.map(f64::from),
                    jt.scale.map(f64::from),
                );
                m = mat_mul(&local, &m);
                at = jt.parent;
                steps += 1;
                assert!(steps <= s.joints.len(), "parent cycle");
            }
            m
        })
        .collect()
}

/// World matrices of the glTF nodes `first..first + n`, from the nodes' TRS and the
/// `children` arrays of the whole document.
fn node_worlds(doc: &Value, first: usize, n: usize) -> Vec<Mat> {
    let nodes = doc["nodes"].as_array().expect("nodes");
    let mut parent = vec![None; nodes.len()];
    for (i, node) in nodes.iter().enumerate() {
        for c in node["children"].as_array().into_iter().flatten() {
            let c = c.as_u64().unwrap() as usize;
            assert!(parent[c].is_none(), "node {c} has two parents");
            parent[c] = Some(i);
        }
    }
    let local = |i: usize| {
        let node = &nodes[i];
        assert!(node.get("matrix").is_none());
        let get = |key: &str, default: &[f64]| -> Vec<f64> {
            node.get(key)
                .map(|v| {
                    v.as_array()
                        .unwrap()
                        .iter()
                        .map(|x| x.as_f64().unwrap())
                        .collect()
                })
                .unwrap_or_else(|| default.to_vec())
        };
        let t = get("translation", &[0.0; 3]);
        let q = get("rotation", &[0.0, 0.0, 0.0, 1.0]);
        let s = get("scale", &[1.0; 3]);
        trs(
            [t[0], t[1], t[2]],
            [q[0], q[1], q[2], q[3]],
            [s[0], s[1], s[2]],
        )
    };
    (first..first + n)
        .map(|i| {
            let mut m = IDENTITY;
            let mut at = Some(i);
            let mut steps = 0;
            while let Some(j) = at {
                m = mat_mul(&local(j), &m);
                at = parent[j];
                steps += 1;
                assert!(steps <= nodes.len(), "node cycle");
            }
            m
        })
        .collect()
}

fn bits<const N: usize>(v: &[[f32; N]]) -> Vec<u32> {
    v.iter().flatten().map(|x| x.to_bits()).collect()
}

/// Every `"min"`/`"max"` array of a JSON text, in document order, its numbers parsed
/// from the text exactly (serde_json's own float parsing may be a unit off in the last
/// place without its `float_roundtrip` feature).
fn exact_bounds(text: &str) -> Vec<(String, Vec<f64>)> {
    let mut out = Vec::new();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'"' {
            i += 1;
            continue;
        }
        let start = i + 1;
        i = start;
        while b[i] != b'"' {
            i += if b[i] == b'\\' { 2 } else { 1 };
        }
        let key = &text[start..i];
        i += 1;
        let rest = text[i..].trim_start();
        if (key == "min" || key == "max") && rest.starts_with(':') {
            let array = rest[1..].trim_start();
            let end = array.find(']').expect("end of min/max array");
            let numbers = array[1..end]
                .split(',')
                .map(|x| x.trim().parse::<f64>().expect("min/max number"))
                .collect();
            out.push((key.to_string(), numbers));
        }
    }
    out
}

/// Checks a decoded glTF document and buffer against the scene: counts, exact
/// POSITION bounds, and every attribute and index bit for bit.
fn check_gltf(text: &str, doc: &Value, bin: &[u8], scene: &Scene, label: &str) {
    assert_eq!(doc["asset"]["version"], "2.0", "{label}");
    assert_eq!(doc["asset"]["generator"], "meshcodec", "{label}");
    assert_eq!(doc["scene"], 0, "{label}");
    let expect = written(scene);
    let skeleton = scene.skeleton.as_ref().filter(|s| !s.joints.is_empty());
    let scenes = doc["scenes"].as_array().expect("scenes");
    assert_eq!(scenes.len(), 1, "{label}");
    if expect.is_empty() && skeleton.is_none() {
        assert_eq!(scenes[0], serde_json::json!({}), "{label}");
        for key in [
            "nodes",
            "meshes",
            "skins",
            "animations",
            "accessors",
            "bufferViews",
            "buffers",
        ] {
            assert!(doc.get(key).is_none(), "{label}: {key} of an empty scene");
        }
        return;
    }
    let nodes = doc["nodes"].as_array().expect("nodes");
    let no_meshes = Vec::new();
    let meshes = doc
        .get("meshes")
        .map_or(&no_meshes, |m| m.as_array().expect("meshes"));
    assert_eq!(meshes.len(), expect.len(), "{label}: meshes");
    let mut scene_nodes: Vec<u64> = (0..expect.len() as u64).collect();
    match skeleton {
        Some(s) => {
            let root = check_skin(doc, bin, s, expect.len(), label);
            scene_nodes.push(root as u64);
        }
        None => {
            assert_eq!(nodes.len(), expect.len(), "{label}: nodes");
            assert!(doc.get("skins").is_none(), "{label}: skins");
        }
    }
    assert_eq!(
        scenes[0]["nodes"],
        serde_json::json!(scene_nodes),
        "{label}"
    );
    // (accessor, "min"/"max") -> the array as written.
    let mut written_bounds = exact_bounds(text).into_iter();
    let mut bounds = std::collections::HashMap::new();
    for (i, a) in doc["accessors"]
        .as_array()
        .expect("accessors")
        .iter()
        .enumerate()
    {
        for key in a.as_object().unwrap().keys() {
            if key == "min" || key == "max" {
                let (k, v) = written_bounds.next().expect("min/max in the text");
                assert_eq!(&k, key, "{label}: min/max order");
                bounds.insert((i, k), v);
            }
        }
    }
    assert!(
        written_bounds.next().is_none(),
        "{label}: min/max outside accessors"
    );
    for (i, ((name, prims), m)) in expect.iter().zip(meshes).enumerate() {
        assert_eq!(nodes[i]["mesh"], i as u64, "{label}");
        assert_eq!(nodes[i]["name"], *name, "{label}");
        assert_eq!(m["name"], *name, "{label}");
        let gp = m["primitives"].as_array().expect("primitives");
        assert_eq!(gp.len(), prims.len(), "{label}: primitives of {name}");
        let (target_names, target_weights, target_rows) = expected_targets(prims);
        if target_names.is_empty() {
            assert!(m.get("weights").is_none(), "{label}: {name}: weights");
            assert!(m.get("extras").is_none(), "{label}: {name}: extras");
        } else {
            assert_eq!(
                m["extras"]["targetNames"],
                serde_json::json!(target_names),
                "{label}: {name}: target names"
            );
            let weights: Vec<u32> = m["weights"]
                .as_array()
                .expect("weights")
                .iter()
                .map(|x| (x.as_f64().expect("weight") as f32).to_bits())
                .collect();
            let want: Vec<u32> = target_weights.iter().map(|w| w.to_bits()).collect();
            assert_eq!(weights, want, "{label}: {name}: weights");
        }
        for ((p, g), row) in prims.iter().zip(gp).zip(&target_rows) {
            let what = format!("{label}: {name}/{}", p.name);
            assert_eq!(g["mode"], 4, "{what}");
            assert_eq!(g["extras"]["name"], p.name, "{what}");
            let attrs = g["attributes"].as_object().expect("attributes");
            let skinned = skeleton.is_some() && prims.iter().any(|p| p.joints.is_some());
            let expected_attrs = 1
                + usize::from(p.normals.is_some())
                + usize::from(p.uvs.is_some())
                + if p.uvs.is_some() {
                    p.extra_uvs.len()
                } else {
                    0
                }
                + usize::from(p.colors.is_some())
                + 2 * usize::from(skinned);
            assert_eq!(attrs.len(), expected_attrs, "{what}: attributes");
            assert_eq!(
                nodes[i].get("skin"),
                skinned.then_some(&serde_json::json!(0)),
                "{what}: node skin"
            );
            if let (true, Some(s)) = (skinned, skeleton) {
                let n = p.positions.len();
                let unbound = (vec![[0u16; 4]; n], vec![[1.0f32, 0.0, 0.0, 0.0]; n]);
                let joints = p.joints.as_ref().unwrap_or(&unbound.0);
                let weights = p.weights.as_ref().unwrap_or(&unbound.1);
                let got = read_joints(doc, bin, &g["attributes"]["JOINTS_0"]);
                assert_eq!(&got, joints, "{what}: joints");
                let a = &doc["accessors"][g["attributes"]["JOINTS_0"].as_u64().unwrap() as usize];
                let comp = if s.joints.len() <= 256 { 5121 } else { 5123 };
                assert_eq!(a["componentType"], comp, "{what}: joint component type");
                let w = accessor_words(doc, bin, &g["attributes"]["WEIGHTS_0"], "VEC4", 5126);
                assert_eq!(w, bits(weights), "{what}: weights");
            }

            let bound = g["attributes"]["POSITION"].as_u64().unwrap() as usize;
            let pos = &doc["accessors"][bound];
            assert_eq!(pos["count"], p.positions.len() as u64, "{what}");
            for (k, key) in ["min", "max"].iter().enumerate() {
                let want: Vec<f64> = (0..3)
                    .map(|c| {
                        let it = p.positions.iter().map(|v| v[c]);
                        f64::from(if k == 0 {
                            it.fold(f32::INFINITY, f32::min)
                        } else {
                            it.fold(f32::NEG_INFINITY, f32::max)
                        })
                    })
                    .collect();
                let got = bounds
                    .get(&(bound, key.to_string()))
                    .expect("POSITION min/max");
                assert_eq!(*got, want, "{what}: POSITION {key}");
            }
            let words =
                |attr: &str, ty: &str| accessor_words(doc, bin, &g["attributes"][attr], ty, 5126);
            assert_eq!(words("POSITION", "VEC3"), bits(&p.positions), "{what}");
            if let Some(n) = &p.normals {
                assert_eq!(words("NORMAL", "VEC3"), bits(n), "{what}: normals");
            }
            if let Some(uv) = &p.uvs {
                assert_eq!(words("TEXCOORD_0", "VEC2"), bits(uv), "{what}: UVs");
                for (k, uv) in p.extra_uvs.iter().enumerate() {
                    let name = format!("TEXCOORD_{}", k + 1);
                    assert_eq!(words(&name, "VEC2"), bits(uv), "{what}: {name}");
                }
            }
            if let Some(c) = &p.colors {
                assert_eq!(words("COLOR_0", "VEC4"), bits(c), "{what}: colours");
            }
            match g.get("targets") {
                None => assert!(row.is_empty(), "{what}: no targets"),
                Some(targets) => {
                    let targets = targets.as_array().expect("targets");
                    assert_eq!(targets.len(), row.len(), "{what}: targets");
                    for (k, (t, want)) in targets.iter().zip(row).enumerate() {
                        let what = format!("{what}: target {k}");
                        assert_eq!(
                            t.as_object().map(|o| o.len()),
                            Some(1),
                            "{what}: POSITION only"
                        );
                        let zeros = vec![[0.0f32; 3]; p.positions.len()];
                        let deltas = want.map_or(&zeros, |t| &t.position_deltas);
                        let got = read_target(doc, bin, &t["POSITION"], p.positions.len());
                        assert_eq!(got, bits(deltas), "{what}: deltas");
                        let index = t["POSITION"].as_u64().unwrap() as usize;
                        for (i, key) in ["min", "max"].iter().enumerate() {
                            let want: Vec<f64> = (0..3)
                                .map(|c| {
                                    let it = deltas.iter().map(|v| v[c]);
                                    f64::from(if i == 0 {
                                        it.fold(f32::INFINITY, f32::min)
                                    } else {
                                        it.fold(f32::NEG_INFINITY, f32::max)
                                    })
                                })
                                .collect();
                            let got = bounds.get(&(index, key.to_string()));
                            assert_eq!(got, Some(&want), "{what}: {key}");
                        }
                    }
                }
            }
            let idx = &doc["accessors"][g["indices"].as_u64().unwrap() as usize];
            assert_eq!(idx["count"], p.triangles.len() as u64 * 3, "{what}");
            let indices = accessor_words(doc, bin, &g["indices"], "SCALAR", 5125);
            let want: Vec<u32> = p.triangles.iter().flatten().copied().collect();
            assert_eq!(indices, want, "{what}: indices");
        }
    }
    check_animations(doc, bin, scene, expect.len(), &bounds, label);
}

/// An animation accessor's elements as f32 bits: FLOAT `ty` on a tightly packed
/// bufferView without target.
fn animation_words(doc: &Value, bin: &[u8], index: &Value, ty: &str) -> Vec<u32> {
    let (a, bytes, target) = accessor_bytes(doc, bin, index);
    assert_eq!(a["type"], ty);
    assert_eq!(a["componentType"], 5126);
    assert!(target.is_null(), "animation data: no bufferView target");
    let n = match ty {
        "SCALAR" => 1,
        "VEC3" => 3,
        _ => 4,
    };
    assert_eq!(bytes.len(), a["count"].as_u64().unwrap() as usize * n * 4);
    bytes
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes(w.try_into().unwrap()))
        .collect()
}

/// Checks the glTF animations against the scene's, bit for bit: names, one channel and
/// LINEAR sampler per channel targeting the joint's node (after the `meshes` mesh
/// nodes) and path, times with their exact `min`/`max`, and values.
fn check_animations(
    doc: &Value,
    bin: &[u8],
    scene: &Scene,
    meshes: usize,
    bounds: &std::collections::HashMap<(usize, String), Vec<f64>>,
    label: &str,
) {
    let Some(got) = doc.get("animations") else {
        assert!(scene.animations.is_empty(), "{label}: animations");
        return;
    };
    let got = got.as_array().expect("animations");
    assert_eq!(got.len(), scene.animations.len(), "{label}: animations");
    for (g, a) in got.iter().zip(&scene.animations) {
        let what = format!("{label}: animation {:?}", a.name);
        assert_eq!(g["name"], a.name, "{what}");
        let channels = g["channels"].as_array().expect("channels");
        assert_eq!(channels.len(), a.channels.len(), "{what}: channels");
        assert_eq!(
            g["samplers"].as_array().map(Vec::len),
            Some(a.channels.len()),
            "{what}: samplers"
        );
        for (gc, c) in channels.iter().zip(&a.channels) {
            let path = c.values.path();
            let what = format!("{what}: joint {} {path}", c.joint);
            assert_eq!(gc["target"]["node"], (meshes + c.joint) as u64, "{what}");
            assert_eq!(gc["target"]["path"], path, "{what}");
            let sampler = &g["samplers"][gc["sampler"].as_u64().expect("sampler") as usize];
            assert_eq!(sampler["interpolation"], "LINEAR", "{what}");
            let times = animation_words(doc, bin, &sampler["input"], "SCALAR");
            let want: Vec<u32> = c.times.iter().map(|t| t.to_bits()).collect();
            assert_eq!(times, want, "{what}: times");
            let input = sampler["input"].as_u64().unwrap() as usize;
            for (key, t) in [("min", c.times.first()), ("max", c.times.last())] {
                let want = vec![f64::from(*t.expect("a time"))];
                assert_eq!(
                    bounds.get(&(input, key.into())),
                    Some(&want),
                    "{what}: {key}"
                );
            }
            let values = match &c.values {
                scene::ChannelValues::Translation(v) | scene::ChannelValues::Scale(v) => {
                    assert_eq!(
                        animation_words(doc, bin, &sampler["output"], "VEC3"),
                        bits(v),
                        "{what}"
                    );
                    v.len()
                }
                scene::ChannelValues::Rotation(v) => {
                    assert_eq!(
                        animation_words(doc, bin, &sampler["output"], "VEC4"),
                        bits(v),
                        "{what}"
                    );
                    v.len()
                }
            };
            assert_eq!(values, c.times.len(), "{what}: values");
        }
    }
}

/// The morph targets a mesh's written primitives should have in glTF: the mesh's target
/// names and default weights (each name's k-th use in a primitive is one target, in
/// order of first appearance) and, per primitive, its target for each (`None`: zeros).
type ExpectedTargets<'a> = (Vec<String>, Vec<f32>, Vec<Vec<Option<&'a MorphTarget>>>);

fn expected_targets<'a>(prims: &[&'a Primitive]) -> ExpectedTargets<'a> {
    // (name, how many of that name came before in its primitive)
    let keyed = |p: &'a Primitive| -> Vec<((String, usize), &'a MorphTarget)> {
        p.morph_targets
            .iter()
            .enumerate()
            .map(|(i, t)| {
                let before = p.morph_targets[..i]
                    .iter()
                    .filter(|u| u.name == t.name)
                    .count();
                ((t.name.clone(), before), t)
            })
            .collect()
    };
    let mut keys: Vec<(String, usize)> = Vec::new();
    let mut weights = Vec::new();
    for p in prims {
        for (key, t) in keyed(p) {
            if !keys.contains(&key) {
                keys.push(key);
                weights.push(t.default_weight);
            }
        }
    }
    let rows = prims
        .iter()
        .map(|p| {
            let mine = keyed(p);
            keys.iter()
                .map(|k| mine.iter().find(|(m, _)| m == k).map(|(_, t)| *t))
                .collect()
        })
        .collect();
    (keys.into_iter().map(|(n, _)| n).collect(), weights, rows)
}

/// A morph target's POSITION accessor (FLOAT VEC3) as f32 bits: through its bufferView,
/// or zeros for one without (glTF's zero-initialised accessor).
fn read_target(doc: &Value, bin: &[u8], index: &Value, count: usize) -> Vec<u32> {
    let a = &doc["accessors"][index.as_u64().expect("accessor index") as usize];
    assert_eq!(a["count"], count as u64);
    if a.get("bufferView").is_some() {
        return accessor_words(doc, bin, index, "VEC3", 5126);
    }
    assert_eq!(a["type"], "VEC3");
    assert_eq!(a["componentType"], 5126);
    assert!(a.get("sparse").is_none() && a.get("byteOffset").is_none());
    vec![0; count * 3]
}

// ---------------------------------------------------------------- OBJ reading

/// A face corner: 1-based global `v`, `vt` and `vn` indices.
type Corner = (usize, Option<usize>, Option<usize>);

/// What an OBJ parser finds for one object: its own vertices and local triangles.
#[derive(Default)]
struct ObjObject {
    name: String,
    positions: Vec<[f32; 3]>,
    colors: Vec<[f32; 3]>,
    uvs: Vec<[f32; 2]>,
    normals: Vec<[f32; 3]>,
    /// Faces as global 1-based (v, vt, vn) triples.
    faces: Vec<[Corner; 3]>,
}

fn floats<const N: usize>(rest: &str, line: &str) -> [f32; N] {
    let v: Vec<f32> = rest
        .split_whitespace()
        .map(|x| x.parse().unwrap_or_else(|_| panic!("number in {line:?}")))
        .collect();
    v.try_into()
        .unwrap_or_else(|_| panic!("{N} numbers in {line:?}"))
}

/// A small OBJ reader: objects (`o`), `v` (with optional RGB), `vt`, `vn`, triangular
/// `f` in its four forms.
fn parse_obj(text: &str) -> Vec<ObjObject> {
    let mut objects: Vec<ObjObject> = Vec::new();
    for line in text.lines() {
        let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
        const NO_OBJECT: &str = "a statement before any `o`";
        match key {
            "" => {}
            k if k.starts_with('#') => {}
            "o" => objects.push(ObjObject {
                name: rest.to_string(),
                ..ObjObject::default()
            }),
            "g" => assert_eq!(objects.last().expect("o first").name, rest),
            "v" => {
                let o = objects.last_mut().expect(NO_OBJECT);
                let n = rest.split_whitespace().count();
                if n == 6 {
                    let v: [f32; 6] = floats(rest, line);
                    o.positions.push([v[0], v[1], v[2]]);
                    o.colors.push([v[3], v[4], v[5]]);
                } else {
                    o.positions.push(floats(rest, line));
                }
            }
            // OBJ's V runs up from the image's bottom: the file holds 1 − v, written
            // so that it gives the scene's f32 back (compared bit for bit below).
            "vt" => {
                let parts: Vec<&str> = rest.split_whitespace().collect();
                assert_eq!(parts.len(), 2, "{line}");
                let u: f32 = parts[0].parse().unwrap();
                let flipped: f64 = parts[1].parse().unwrap();
                objects
                    .last_mut()
                    .expect(NO_OBJECT)
                    .uvs
                    .push([u, (1.0 - flipped) as f32]);
            }
            "vn" => objects
                .last_mut()
                .expect(NO_OBJECT)
                .normals
                .push(floats(rest, line)),
            "f" => {
                let corners: Vec<_> = rest
                    .split_whitespace()
                    .map(|c| {
                        let mut parts = c.split('/');
                        let num = |s: Option<&str>| {
                            s.filter(|s| !s.is_empty())
                                .map(|s| s.parse::<usize>().expect("index"))
                        };
                        let v = num(parts.next()).expect("vertex index");
                        (v, num(parts.next()), num(parts.next()))
                    })
                    .collect();
                let face = corners
                    .try_into()
                    .unwrap_or_else(|_| panic!("triangle: {line}"));
                objects.last_mut().expect(NO_OBJECT).faces.push(face);
            }
            _ => panic!("unexpected OBJ line {line:?}"),
        }
    }
    objects
}

fn check_obj(text: &str, scene: &Scene, label: &str) {
    let objects = parse_obj(text);
    let expect: Vec<(&str, &Primitive)> = written(scene)
        .into_iter()
        .flat_map(|(m, ps)| ps.into_iter().map(move |p| (m, p)))
        .collect();
    assert_eq!(objects.len(), expect.len(), "{label}: objects");
    let (mut nv, mut nvt, mut nvn) = (0, 0, 0);
    for (o, (mesh, p)) in objects.iter().zip(expect) {
        let what = format!("{label}: {}", o.name);
        // Plain names are written as they are (others are cleaned up by the writer).
        let plain = |n: &str| {
            !n.is_empty() && n.trim() == n && !n.contains(|c: char| c.is_control() || c == '#')
        };
        if plain(mesh) && plain(&p.name) {
            assert_eq!(o.name, format!("{mesh}/{}", p.name), "{label}");
        }
        assert_eq!(bits(&o.positions), bits(&p.positions), "{what}: positions");
        match &p.colors {
            Some(c) => {
                let rgb: Vec<[f32; 3]> = c.iter().map(|c| [c[0], c[1], c[2]]).collect();
                assert_eq!(bits(&o.colors), bits(&rgb), "{what}: colours");
            }
            None => assert!(o.colors.is_empty(), "{what}"),
        }
        // OBJ holds 1 − v: a V of −0 comes back as +0, every other value exactly.
        let uvs: Vec<[f32; 2]> = p
            .uvs
            .iter()
            .flatten()
            .map(|&[u, v]| [u, if v == 0.0 { 0.0 } else { v }])
            .collect();
        assert_eq!(bits(&o.uvs), bits(&uvs), "{what}: UVs");
        let normals = p.normals.as_deref().unwrap_or(&[]);
        assert_eq!(bits(&o.normals), bits(normals), "{what}: normals");
        let tris: Vec<[u32; 3]> = o
            .faces
            .iter()
            .map(|f| {
                f.map(|(v, vt, vn)| {
                    let local = v
                        .checked_sub(1 + nv)
                        .filter(|&l| l < o.positions.len())
                        .unwrap_or_else(|| panic!("{what}: index {v} outside its object"));
                    assert_eq!(
                        vt.map(|t| t - 1 - nvt),
                        p.uvs.is_some().then_some(local),
                        "{what}"
                    );
                    assert_eq!(
                        vn.map(|n| n - 1 - nvn),
                        p.normals.is_some().then_some(local),
                        "{what}"
                    );
                    local as u32
                })
            })
            .collect();
        assert_eq!(tris, p.triangles, "{what}: triangles");
        nv += o.positions.len();
        nvt += o.uvs.len();
        nvn += o.normals.len();
    }
}

// ---------------------------------------------------------------- the tests

/// The OBJ export written to a file as it is made (what `meshcodec export` does) is the
/// text made whole, on every fixture and corpus file; a writer that fails is an error.
#[test]
fn streamed_obj_is_the_whole_text() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("out.obj");
    let mut n = 0;
    for case in &cases() {
        let label = &case.label;
        let (Ok(whole), Ok(checked)) = (obj::to_obj(&case.scene), obj::obj(&case.scene)) else {
            assert_eq!(
                obj::to_obj(&case.scene).err().map(|e| e.to_string()),
                obj::obj(&case.scene).err().map(|e| e.to_string()),
                "{label}"
            );
            continue;
        };
        meshcodec::output::write_atomically_with(&path, |w| checked.write_to(w))
            .unwrap_or_else(|e| panic!("{label}: {e}"));
        let streamed = std::fs::read(&path).expect("read");
        assert!(
            streamed == whole.as_bytes(),
            "{label}: streamed OBJ differs"
        );
        n += 1;
    }
    assert!(n >= 20, "{n} scenes");
    let case = cases().into_iter().next().expect("a case");
    let failed = meshcodec::output::write_atomically_with(&path, |w| {
        obj::obj(&case.scene).expect("check").write_to(w)?;
        Err(std::io::Error::other("disk full"))
    });
    assert!(failed.is_err());
    struct Full;
    impl std::io::Write for Full {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("full"))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    assert!(obj::obj(&case.scene)
        .expect("check")
        .write_to(&mut Full)
        .is_err());
}

#[test]
fn exports_decode_back_to_the_scene() {
    let cases = cases();
    let (mut prims, mut vertices, mut triangles) = (0, 0, 0);
    for case in &cases {
        let label = &case.label;
        for p in case.scene.meshes.iter().flat_map(|m| &m.primitives) {
            p.check()
                .unwrap_or_else(|e| panic!("{label}: adapter gave {e}"));
        }
        let text = gltf::to_gltf(&case.scene).unwrap_or_else(|e| panic!("{label}: {e}"));
        let glb = gltf::to_glb(&case.scene).unwrap_or_else(|e| panic!("{label}: {e}"));
        let obj = obj::to_obj(&case.scene).unwrap_or_else(|e| panic!("{label}: {e}"));

        let (mut doc, bin) = read_gltf(&text);
        check_gltf(&text, &doc, &bin, &case.scene, &format!("{label} (.gltf)"));
        let (glb_text, glb_doc, glb_bin) = read_glb(&glb, label);
        let glb_label = format!("{label} (.glb)");
        check_gltf(&glb_text, &glb_doc, &glb_bin, &case.scene, &glb_label);
        assert_eq!(glb_bin, bin, "{label}: GLB and .gltf buffers");
        if let Some(b) = doc.get_mut("buffers").and_then(|b| b.get_mut(0)) {
            b.as_object_mut().unwrap().remove("uri");
        }
        assert_eq!(glb_doc, doc, "{label}: GLB and .gltf JSON");

        check_obj(&obj, &case.scene, label);

        for (_, ps) in written(&case.scene) {
            prims += ps.len();
            vertices += ps.iter().map(|p| p.positions.len()).sum::<usize>();
            triangles += ps.iter().map(|p| p.triangles.len()).sum::<usize>();
        }
    }
    eprintln!(
        "{} scenes exported: {prims} primitives, {vertices} vertices, {triangles} triangles",
        cases.len()
    );
}

/// The validator's directory: `GLTF_VALIDATOR_DIR`, else `${TMPDIR:-/tmp}/meshcodec-gltf-validator`.
fn validator_dir() -> PathBuf {
    std::env::var_os("GLTF_VALIDATOR_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("meshcodec-gltf-validator"))
}

/// Says how to install the validator; fails under `CI=true`, else prints SKIPPED.
fn validator_missing(why: &str) {
    let dir = validator_dir();
    let msg = format!(
        "the Khronos glTF validator is not available ({why}); install Node.js and run \
         `npm install --prefix {} {VALIDATOR_PACKAGE}` (or set GLTF_VALIDATOR_DIR to a \
         directory holding node_modules/gltf-validator)",
        dir.display()
    );
    let ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
    assert!(!ci, "CI=true but {msg}");
    eprintln!("SKIPPED: {msg}");
}

#[test]
fn khronos_validator_accepts_every_export() {
    let cases = cases();
    let tmp = tempfile::tempdir().expect("temp dir");
    let mut files = Vec::new();
    let mut labels = std::collections::HashMap::new();
    for (i, case) in cases.iter().enumerate() {
        for (ext, bytes) in [
            (
                "gltf",
                gltf::to_gltf(&case.scene).expect("gltf").into_bytes(),
            ),
            ("glb", gltf::to_glb(&case.scene).expect("glb")),
        ] {
            let path = tmp.path().join(format!("{i:03}.{ext}"));
            std::fs::write(&path, bytes).expect("write");
            labels.insert(
                path.display().to_string(),
                format!("{} (.{ext})", case.label),
            );
            files.push(path);
        }
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/gltf/validate.js");
    let out = match Command::new("node")
        .arg(&script)
        .arg(validator_dir())
        .args(&files)
        .output()
    {
        Ok(out) => out,
        Err(e) => return validator_missing(&format!("cannot run node: {e}")),
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    if out.status.code() == Some(3) {
        return validator_missing(&format!("node cannot load it: {}", stdout.trim()));
    }
    assert!(
        out.status.success(),
        "validator run failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let reports: Vec<Value> = serde_json::from_str(&stdout).expect("validator output");
    assert_eq!(reports.len(), files.len());
    let version = reports
        .first()
        .and_then(|r| r["validatorVersion"].as_str())
        .unwrap_or("?");
    let (mut errors, mut warnings) = (Vec::new(), 0);
    let mut infos = std::collections::BTreeMap::<String, usize>::new();
    for r in &reports {
        let label = &labels[r["file"].as_str().expect("file")];
        let count = |k: &str| r[k].as_u64().expect("issue count");
        let codes = |severity: u64| -> Vec<String> {
            r["messages"]
                .as_array()
                .expect("messages")
                .iter()
                .filter(|m| m["severity"] == severity)
                .map(|m| format!("{} at {}: {}", m["code"], m["pointer"], m["message"]))
                .collect()
        };
        if count("numWarnings") > 0 {
            eprintln!("{label}: warnings {:?}", codes(1));
            errors.push(format!("{label}: warnings {:?}", codes(1)));
        }
        if count("numErrors") > 0 {
            errors.push(format!("{label}: {:?}", codes(0)));
        }
        warnings += count("numWarnings");
        for m in r["messages"].as_array().expect("messages") {
            if m["severity"] == 2 {
                *infos
                    .entry(m["code"].as_str().unwrap_or("?").to_string())
                    .or_insert(0) += 1;
            }
        }
    }
    eprintln!(
        "glTF validator {version}: {} files, {} with errors or warnings, {warnings} warnings, \
         infos {infos:?}",
        reports.len(),
        errors.len()
    );
    assert!(
        errors.is_empty(),
        "validator errors or warnings:\n{}",
        errors.join("\n")
    );
}

// ---------------------------------------------------------------- skins against sources

/// Every FileMesh fixture and corpus file of 4.00 and later (the skinned ones among them:
/// `v4.00-bones`, `v4.01-bones`, `v5.00-facs*`, `v6.00-all-chunks`, the corpus 5.00
/// files), and the skinned UNIGINE fixtures and corpus files.
fn skin_sources() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = common::fixture_files()
        .into_iter()
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            ["v4.", "v5.", "v6.", "v7."]
                .iter()
                .any(|v| name.starts_with(v))
        })
        .collect();
    let unigine = common::fixture_dir("unigine");
    files.push(unigine.join("ms11-skinned.mesh"));
    files.push(unigine.join("ms14-skinned.mesh"));
    if let Some(dir) = common::corpus() {
        files.extend(common::corpus_filemeshes(
            &dir,
            &["4.00", "4.01", "5.00", "6.00", "7.00"],
        ));
        files.push(dir.join("unigine/ms11-arm-skinned.mesh"));
        files.push(dir.join("unigine/ms14-capsule-skinned.mesh"));
    }
    files
}

/// The decoded skin attributes of glTF primitive `k` of mesh 0: joints → weight per
/// vertex, checking that weights sum to 1 (as the validator adds them) and unused slots
/// are joint 0.
fn decoded_weights(doc: &Value, bin: &[u8], k: usize, label: &str) -> Vec<Vec<(u16, f32)>> {
    let g = &doc["meshes"][0]["primitives"][k];
    let joints = read_joints(doc, bin, &g["attributes"]["JOINTS_0"]);
    let words = accessor_words(doc, bin, &g["attributes"]["WEIGHTS_0"], "VEC4", 5126);
    assert_eq!(words.len(), joints.len() * 4, "{label}");
    joints
        .iter()
        .zip(words.chunks_exact(4))
        .enumerate()
        .map(|(v, (j, w))| {
            let w: Vec<f32> = w.iter().map(|&b| f32::from_bits(b)).collect();
            let nonzero = w.iter().filter(|&&x| x != 0.0).count();
            let sum = w.iter().fold(0f32, |a, &x| a + x);
            assert!(
                f64::from((sum - 1.0).abs()) <= 2e-7 * nonzero as f64,
                "{label}: vertex {v}: weights {w:?} sum to {sum}"
            );
            let mut out = Vec::new();
            for (&j, &w) in j.iter().zip(&w) {
                assert!(w >= 0.0, "{label}: vertex {v}: weight {w}");
                if w == 0.0 {
                    assert_eq!(j, 0, "{label}: vertex {v}: unused joint slot");
                } else {
                    assert!(
                        out.iter().all(|&(k, _)| k != j),
                        "{label}: vertex {v}: joint twice"
                    );
                    out.push((j, w));
                }
            }
            out
        })
        .collect()
}

/// Compares decoded weights with expected (joint, weight) lists within `tol`.
fn compare_weights(got: &[(u16, f32)], want: &[(u16, f64)], tol: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: {got:?} for {want:?}");
    for &(j, w) in want {
        let g = got
            .iter()
            .find(|&&(k, _)| k == j)
            .unwrap_or_else(|| panic!("{what}: joint {j} missing from {got:?}"));
        assert!(
            (f64::from(g.1) - w).abs() <= tol,
            "{what}: joint {j}: weight {} for {w}",
            g.1
        );
    }
}

/// Influences merged per bone (bones out of range and zero weights dropped), the four
/// largest kept and scaled to sum to 1; joint 0 with weight 1 for none.
fn expected_weights(raw: &[(i64, f64)], bones: usize) -> Vec<(u16, f64)> {
    let mut merged: Vec<(u16, f64)> = Vec::new();
    for &(b, w) in raw {
        if b < 0 || b as usize >= bones || w <= 0.0 {
            continue;
        }
        match merged.iter_mut().find(|(k, _)| i64::from(*k) == b) {
            Some(m) => m.1 += w,
            None => merged.push((b as u16, w)),
        }
    }
    merged.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap());
    if let (Some(fourth), Some(fifth)) = (merged.get(3), merged.get(4)) {
        assert!(
            fourth.1 > fifth.1,
            "a tie for the fourth influence: {raw:?}"
        );
    }
    merged.truncate(4);
    let total: f64 = merged.iter().map(|m| m.1).sum();
    if merged.is_empty() {
        return vec![(0, 1.0)];
    }
    merged.into_iter().map(|(j, w)| (j, w / total)).collect()
}

/// Per skinned glTF primitive, per vertex, the expected (joint, weight)s.
type Expected = Vec<Vec<Vec<(u16, f64)>>>;

#[test]
fn skins_match_their_sources() {
    let files = skin_sources();
    let mut skinned = 0;
    for path in &files {
        let label = path.display().to_string();
        let bytes = std::fs::read(path).expect("read");
        let name = "m";
        // (bone count, per glTF primitive: per vertex the expected weights and tolerance)
        let (bones, scene, expect, tol): (usize, Scene, Expected, f64) =
            match meshcodec::detect(&bytes) {
                Some(Format::FileMesh) => {
                    let mesh = meshcodec::filemesh::model::Mesh::read(&bytes).expect("read");
                    let scene = meshcodec::filemesh::scene::to_scene(mesh.clone(), name, 0)
                        .expect("export");
                    let n = mesh.skeleton.len();
                    // The export holds only the vertices LOD 0's faces use, in order.
                    let lod0 = &mesh.faces[mesh.lods.lod0(mesh.faces.len())];
                    let used: std::collections::BTreeSet<usize> =
                        lod0.iter().flatten().map(|&i| i as usize).collect();
                    let expect = mesh
                        .skinning
                        .iter()
                        .map(|skin| {
                            skin.iter()
                                .enumerate()
                                .filter(|(i, _)| used.contains(i))
                                .map(|(_, s)| {
                                    let raw: Vec<(i64, f64)> = s
                                        .influences
                                        .iter()
                                        .map(|f| (i64::from(f.bone), f64::from(f.weight)))
                                        .collect();
                                    // Bytes / 255, against the renormalised weights: the
                                    // bytes of a vertex sum to 255 in these files.
                                    let total: f64 = raw.iter().map(|r| r.1).sum();
                                    assert!(total == 0.0 || total == 255.0, "{label}: {raw:?}");
                                    expected_weights(&raw, n)
                                })
                                .collect()
                        })
                        .collect();
                    check_filemesh_bones(&mesh, &scene, &label);
                    (n, scene, expect, 1.0 / 255.0 + 1e-6)
                }
                Some(Format::UnigineMesh) => {
                    let m = meshcodec::unigine::UnigineMesh::read(&bytes).expect("read");
                    let scene =
                        meshcodec::unigine::scene::mesh_to_scene(&m, name, &Limits::default())
                            .expect("export");
                    let body = m.to_classic(&Limits::default()).expect("classic");
                    let n = body.bones.len();
                    let mut expect = Vec::new();
                    for d in &body.data {
                        let Some(base) = d.targets.first() else {
                            continue;
                        };
                        if d.triangle_indices.is_empty() || d.weights.counts.is_empty() {
                            continue;
                        }
                        let mut coord = vec![None; base.tangents.len()];
                        for (&c, &t) in d.coordinate_indices.iter().zip(&d.triangle_indices) {
                            coord[t as usize] = Some(c as usize);
                        }
                        let mut per_position = Vec::new();
                        let mut at = 0;
                        for &k in &d.weights.counts {
                            let raw: Vec<(i64, f64)> = d.weights.entries[at..at + usize::from(k)]
                                .iter()
                                .map(|e| (i64::from(e.bone), f64::from(e.weight) / 65535.0))
                                .collect();
                            at += usize::from(k);
                            per_position.push(expected_weights(&raw, n));
                        }
                        // The export holds only the triangle vertices a corner names.
                        expect.push(
                            coord
                                .iter()
                                .filter(|c| c.is_some())
                                .map(|c| {
                                    c.and_then(|c| per_position.get(c).cloned())
                                        .unwrap_or_else(|| vec![(0, 1.0)])
                                })
                                .collect(),
                        );
                    }
                    (n, scene, expect, 1.0 / 65535.0 + 1e-6)
                }
                f => panic!("{label}: {f:?}"),
            };
        let glb = gltf::to_glb(&scene).expect("glb");
        let (_, doc, bin) = read_glb(&glb, &label);
        if bones == 0 {
            assert!(doc.get("skins").is_none(), "{label}: a skin without bones");
            eprintln!("{label}: no bones, no skin");
            continue;
        }
        let meshes = doc["meshes"].as_array().map_or(0, Vec::len);
        let skin = &doc["skins"][0];
        assert_eq!(
            skin["joints"].as_array().map(Vec::len),
            Some(bones),
            "{label}: one joint per bone"
        );
        let ibm = read_matrices(&doc, &bin, &skin["inverseBindMatrices"]);
        let worlds = node_worlds(&doc, meshes, bones);
        let mut worst = 0f64;
        for (m, w) in ibm.iter().zip(&worlds) {
            let p = mat_mul(&m.map(f64::from), w);
            for (a, b) in p.iter().zip(&IDENTITY) {
                worst = worst.max((a - b).abs());
            }
        }
        assert!(
            worst <= 1e-4,
            "{label}: IBM x world off identity by {worst}"
        );
        if expect.is_empty() {
            eprintln!("{label}: {bones} joints, no skin weights; IBM x world within {worst:.1e}");
            continue;
        }
        skinned += 1;
        let prims = doc["meshes"][0]["primitives"]
            .as_array()
            .expect("primitives");
        assert_eq!(prims.len(), expect.len(), "{label}: skinned primitives");
        assert_eq!(doc["nodes"][0]["skin"], 0, "{label}");
        let mut vertices = 0;
        // Distance from each vertex to its heaviest joint in the bind pose.
        let mut distances = Vec::new();
        let mut lo = [f64::INFINITY; 3];
        let mut hi = [f64::NEG_INFINITY; 3];
        for (k, want) in expect.iter().enumerate() {
            let got = decoded_weights(&doc, &bin, k, &label);
            assert_eq!(got.len(), want.len(), "{label}: primitive {k}");
            for (v, (g, w)) in got.iter().zip(want).enumerate() {
                compare_weights(g, w, tol, &format!("{label}: primitive {k} vertex {v}"));
            }
            vertices += got.len();
            let g = &prims[k];
            let pos = accessor_words(&doc, &bin, &g["attributes"]["POSITION"], "VEC3", 5126);
            for (p, w) in pos.chunks_exact(3).zip(&got) {
                let p: Vec<f64> = p.iter().map(|&b| f64::from(f32::from_bits(b))).collect();
                let heaviest = w.iter().fold(w[0], |a, &b| if b.1 > a.1 { b } else { a });
                let joint = &worlds[usize::from(heaviest.0)];
                let d2: f64 = (0..3).map(|c| (p[c] - joint[12 + c]).powi(2)).sum();
                distances.push(d2.sqrt());
                for c in 0..3 {
                    lo[c] = lo[c].min(p[c]);
                    hi[c] = hi[c].max(p[c]);
                }
            }
        }
        distances.sort_by(f64::total_cmp);
        let median = distances[distances.len() / 2];
        let radius = (0..3).map(|c| (hi[c] - lo[c]).powi(2)).sum::<f64>().sqrt() / 2.0;
        eprintln!(
            "{label}: {bones} joints, {vertices} skinned vertices; IBM x world within \
             {worst:.1e}; vertices lie a median {median:.3} from their heaviest joint \
             (mesh radius {radius:.3})"
        );
        // Real meshes sit around their bones in the bind pose: a sanity check of the
        // reading of UNIGINE's bind pose, inferred to be local to the parent bone (read
        // so, the corpus meshes lie 0.06 and 0.28 of their radius from their joints;
        // read as world space, 1.2 and 1.2). FileMesh bones are in world space, checked
        // directly by `check_filemesh_bones` (one corpus mesh lies 0.71 of its radius
        // from its heaviest joints, so no such bound suits them).
        if tol < 1e-3 && vertices >= 100 {
            assert!(
                median <= 0.5 * radius,
                "{label}: vertices a median {median} from their joints (radius {radius})"
            );
        }
    }
    assert!(skinned >= 4, "only {skinned} skinned files");
}

/// FileMesh bones are in world space: the glTF joints' world matrices (through the
/// local transforms) give back each bone's position and rotation.
fn check_filemesh_bones(mesh: &meshcodec::filemesh::model::Mesh, scene: &Scene, label: &str) {
    let Some(s) = &scene.skeleton else {
        assert!(mesh.skeleton.is_empty(), "{label}: bones but no skeleton");
        return;
    };
    assert_eq!(s.joints.len(), mesh.skeleton.len(), "{label}");
    let (mut dp, mut dr) = (0f64, 0f64);
    for ((b, j), w) in mesh.skeleton.iter().zip(&s.joints).zip(joint_worlds(s)) {
        assert_eq!(j.name, b.name, "{label}");
        assert_eq!(j.parent, b.parent.map(usize::from), "{label}: {}", b.name);
        for r in 0..3 {
            let p = f64::from(b.position[r]);
            dp = dp.max((w[12 + r] - p).abs() / (1.0 + p.abs()));
            for c in 0..3 {
                dr = dr.max((w[c * 4 + r] - f64::from(b.rotation[r * 3 + c])).abs());
            }
        }
    }
    assert!(
        dp <= 1e-5 && dr <= 1e-5,
        "{label}: joints' world off the bones: position {dp:e}, rotation {dr:e}"
    );
}

// ---------------------------------------------------------------- morph targets against sources

/// The glTF morph targets of mesh `m`: the names, the weights, and per primitive per
/// target the deltas as f32 bits.
#[allow(clippy::type_complexity)]
fn decoded_targets(
    doc: &Value,
    bin: &[u8],
    m: usize,
) -> (Vec<String>, Vec<f32>, Vec<Vec<Vec<u32>>>) {
    let mesh = &doc["meshes"][m];
    let names = mesh["extras"]["targetNames"]
        .as_array()
        .map(|a| a.iter().map(|n| n.as_str().unwrap().to_string()).collect())
        .unwrap_or_default();
    let weights = mesh["weights"]
        .as_array()
        .map(|a| a.iter().map(|w| w.as_f64().unwrap() as f32).collect())
        .unwrap_or_default();
    let prims = mesh["primitives"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            let n = doc["accessors"][g["attributes"]["POSITION"].as_u64().unwrap() as usize]
                ["count"]
                .as_u64()
                .unwrap() as usize;
            g["targets"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|t| read_target(doc, bin, &t["POSITION"], n))
                .collect()
        })
        .collect();
    (names, weights, prims)
}

/// UNIGINE morph targets (the fixture `ms12-morph`: targets "", "smile", "frown" on
/// surface "face", one target on "eyes"; and the same mesh converted to ms14): each
/// target after the base decodes from the `.glb` to, per triangle vertex, the target's
/// position minus the base's at the corner's coordinate index, bit for bit; "eyes" gets
/// zero targets to match; a target with another position count than the base's is left
/// out. STF blendshapes (a hand-built file): per split, the offset of its vertex, named
/// and weighted as in the file.
#[test]
fn morph_targets_match_their_sources() {
    let path = common::fixture_dir("unigine").join("ms12-morph.mesh");
    let original = meshcodec::unigine::UnigineMesh::read(&std::fs::read(&path).unwrap()).unwrap();
    let ms14 = meshcodec::unigine::MeshVersion::Ms14;
    assert!(original.losses(ms14).unwrap().is_empty());
    let converted = original.to_version(ms14).unwrap();
    for (what, m) in [("ms12", &original), ("ms14", &converted)] {
        let label = format!("{} ({what})", path.display());
        let limits = Limits::default();
        let body = m.to_classic(&limits).unwrap();
        let scene = meshcodec::unigine::scene::mesh_to_scene(m, "m", &limits).unwrap();
        let glb = gltf::to_glb(&scene).unwrap();
        let (_, doc, bin) = read_glb(&glb, &label);
        let (names, weights, prims) = decoded_targets(&doc, &bin, 0);
        let source_names: Vec<Vec<String>> = body
            .surfaces
            .iter()
            .map(|h| h.targets.iter().map(|t| t.text()).collect())
            .collect();
        assert_eq!(
            source_names,
            [vec!["", "smile", "frown"], vec!["base"]],
            "{label}"
        );
        assert_eq!(names, ["smile", "frown"], "{label}");
        assert_eq!(weights, [0.0, 0.0], "{label}");
        assert_eq!(prims.len(), 2, "{label}");
        // The scene: the face's two targets, none on the eyes.
        let face = &scene.meshes[0].primitives[0];
        let target_names: Vec<&str> = face.morph_targets.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(target_names, ["smile", "frown"], "{label}");
        assert!(
            scene.meshes[0].primitives[1].morph_targets.is_empty(),
            "{label}"
        );
        for (s, (d, got)) in body.data.iter().zip(&prims).enumerate() {
            let base = &d.targets[0];
            let n = base.tangents.len();
            assert_eq!(got.len(), 2, "{label}: surface {s}");
            for (k, got) in got.iter().enumerate() {
                let mut want = vec![[0f32; 3]; n];
                if let Some(t) = d.targets.get(k + 1) {
                    assert_eq!(t.positions.len(), base.positions.len());
                    for (&c, &v) in d.coordinate_indices.iter().zip(&d.triangle_indices) {
                        let (p, b) = (t.positions[c as usize], base.positions[c as usize]);
                        want[v as usize] = [p[0] - b[0], p[1] - b[1], p[2] - b[2]];
                    }
                    assert!(
                        want.iter().flatten().any(|&x| x != 0.0),
                        "{label}: surface {s} target {k} moves nothing"
                    );
                }
                assert_eq!(*got, bits(&want), "{label}: surface {s} target {k}");
            }
        }
    }
    // A target whose position count differs from the base's is left out.
    let mut damaged = original.clone();
    let meshcodec::unigine::MeshBody::Classic(body) = &mut damaged.body else {
        panic!("ms12 is classic");
    };
    body.data[0].targets[1].positions.pop();
    let scene =
        meshcodec::unigine::scene::mesh_to_scene(&damaged, "m", &Limits::default()).unwrap();
    let names: Vec<&str> = scene.meshes[0].primitives[0]
        .morph_targets
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(names, ["frown"]);

    let sb = common::stf_blendshapes::meshes();
    let scene = meshcodec::stf::scene::to_scene(&common::stf_blendshapes::container()).unwrap();
    let glb = gltf::to_glb(&scene).unwrap();
    let (_, doc, bin) = read_glb(&glb, "STF blendshapes");
    let gmeshes = doc["meshes"].as_array().unwrap();
    assert_eq!(gmeshes.len(), sb.len());
    let mut targets = 0;
    for w in &sb {
        let m = gmeshes.iter().position(|g| g["name"] == w.id).unwrap();
        let (names, weights, prims) = decoded_targets(&doc, &bin, m);
        let label = format!("STF mesh {}", w.id);
        let want_names: Vec<&str> = w.shapes.iter().map(|s| s.name.unwrap_or("")).collect();
        assert_eq!(names, want_names, "{label}");
        let want_weights: Vec<f32> = w
            .shapes
            .iter()
            .map(|s| s.default_value.unwrap_or(0.0) as f32)
            .collect();
        assert_eq!(weights, want_weights, "{label}");
        assert_eq!(prims.len(), 1, "{label}");
        assert_eq!(prims[0].len(), w.shapes.len(), "{label}");
        for (s, got) in w.shapes.iter().zip(&prims[0]) {
            // The offset as f32 (an f32 file stores that same f32; the f64 one of mesh
            // "drop" has offsets f32 cannot hold, rounded once).
            let of_vertex = |v: u64| -> [f32; 3] {
                let k = match &s.indices {
                    Some(i) => i.iter().position(|&i| i == v),
                    None => Some(v as usize),
                };
                k.map_or([0.0; 3], |k| s.position_offsets[k].map(|x| x as f32))
            };
            let want: Vec<[f32; 3]> = w.splits.iter().map(|&v| of_vertex(v)).collect();
            assert_eq!(*got, bits(&want), "{label}: {:?}", s.name);
            targets += 1;
        }
    }
    assert_eq!(targets, 4);
}

// ---------------------------------------------------------------- animations against sources

/// The UNIGINE animation fixtures and corpus files, and the meshes with embedded
/// animations.
fn animation_sources() -> Vec<PathBuf> {
    let is_anim = |p: &PathBuf| p.extension().is_some_and(|e| e == "anim");
    let unigine = common::fixture_dir("unigine");
    let mut files: Vec<PathBuf> = common::files_below(&unigine)
        .into_iter()
        .filter(is_anim)
        .collect();
    files.push(unigine.join("ms11-embedded-anim.mesh"));
    if let Some(dir) = common::corpus() {
        files.extend(
            common::files_below(&dir.join("unigine"))
                .into_iter()
                .filter(is_anim),
        );
        files.push(dir.join("unigine/ms11-arm-skinned.mesh"));
    }
    files
}

/// A key as the file stores it, decoded here: `None` for an absent component; the
/// rotation as stored (i16 / 32767, or f32), not normalised.
struct SourceKey {
    translation: [Option<f32>; 3],
    rotation: Option<[f64; 4]>,
    scale: [Option<f32>; 3],
}

/// A clip as the file stores it: name, skeleton index per slot, frames, keys frame-major.
struct SourceClip {
    name: String,
    bones: Vec<i16>,
    frames: usize,
    keys: Vec<SourceKey>,
}

fn i16_quat(r: [i16; 4]) -> [f64; 4] {
    r.map(|x| f64::from(x) / 32767.0)
}

fn per_axis<T: Copy>(on: [bool; 3], v: [T; 3], f: impl Fn(usize, T) -> f32) -> [Option<f32>; 3] {
    [0, 1, 2].map(|c| on[c].then(|| f(c, v[c])))
}

/// The bind pose, the number of mesh nodes, and the clips of an animation source.
fn source_clips(
    path: &Path,
) -> (
    Vec<meshcodec::unigine::raw::mesh::Transform>,
    usize,
    Vec<SourceClip>,
) {
    use meshcodec::unigine::raw::anim::UnigineAnim;
    let bytes = std::fs::read(path).expect("read");
    let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
    if path.extension().is_some_and(|e| e == "mesh") {
        let m = meshcodec::unigine::UnigineMesh::read(&bytes).expect("mesh");
        let body = m.to_classic(&Limits::default()).expect("classic");
        let clips = body
            .animation_names
            .iter()
            .zip(&body.animations)
            .map(|(n, a)| SourceClip {
                name: n.text(),
                bones: a.bones.to_vec(),
                frames: a.frame_count as usize,
                keys: a
                    .keys
                    .iter()
                    .map(|k| SourceKey {
                        translation: per_axis(k.mask.translation(), k.translation, |_, x| x),
                        rotation: k.mask.rotation().then(|| i16_quat(k.rotation)),
                        scale: per_axis(k.mask.scale(), k.scale, |_, x| x),
                    })
                    .collect(),
            })
            .collect();
        return (body.bind_pose.into_vec(), 1, clips);
    }
    match UnigineAnim::read(&bytes).expect("anim") {
        UnigineAnim::An10(f) => {
            let clips = f
                .names
                .iter()
                .zip(&f.animations)
                .map(|(n, a)| SourceClip {
                    name: n.text(),
                    bones: a.bones.to_vec(),
                    frames: a.frame_count as usize,
                    keys: a
                        .keys
                        .iter()
                        .map(|k| SourceKey {
                            translation: per_axis(k.mask.translation(), k.translation, |c, q| {
                                a.translation_box.decode(c, q)
                            }),
                            rotation: k.mask.rotation().then(|| i16_quat(k.rotation)),
                            scale: per_axis(k.mask.scale(), k.scale, |c, q| {
                                a.scale_box.decode(c, q)
                            }),
                        })
                        .collect(),
                })
                .collect();
            (f.bind_pose.into_vec(), 0, clips)
        }
        UnigineAnim::An11(f) => {
            let a = &f.animation;
            let has = |k: &meshcodec::unigine::raw::anim::An11Key, bit: u8| k.mask & bit != 0;
            use meshcodec::unigine::raw::anim::An11Key;
            let clip = SourceClip {
                name: stem,
                bones: a.bones.to_vec(),
                frames: a.frame_count as usize,
                keys: a
                    .keys
                    .iter()
                    .map(|k| SourceKey {
                        translation: per_axis([has(k, An11Key::POSITION); 3], k.position, |_, x| x),
                        rotation: has(k, An11Key::ROTATION).then(|| k.rotation.map(f64::from)),
                        scale: per_axis([has(k, An11Key::SCALE); 3], k.scale, |_, x| x),
                    })
                    .collect(),
            };
            (f.bind_pose.into_vec(), 0, vec![clip])
        }
    }
}

fn unit(q: [f64; 4]) -> [f64; 4] {
    let len = q.iter().map(|x| x * x).sum::<f64>().sqrt();
    q.map(|x| x / len)
}

/// The three values of one output element, or four.
fn read_output(doc: &Value, bin: &[u8], sampler: &Value, path: &str) -> Vec<Vec<f64>> {
    let (ty, n) = if path == "rotation" {
        ("VEC4", 4)
    } else {
        ("VEC3", 3)
    };
    animation_words(doc, bin, &sampler["output"], ty)
        .chunks_exact(n)
        .map(|c| c.iter().map(|&w| f64::from(f32::from_bits(w))).collect())
        .collect()
}

fn assert_close(got: &[f64], want: &[f64], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() <= 1e-6, "{what}: got {got:?}, want {want:?}");
    }
}

#[test]
fn animations_match_their_sources() {
    let (mut files, mut clips_seen, mut channels_seen) = (0, 0, 0);
    for path in animation_sources() {
        let label = path.display().to_string();
        let (bind_pose, meshes, clips) = source_clips(&path);
        let (_, scene) = scenes_of(&path)
            .and_then(|s| s.into_iter().next())
            .expect("a scene");
        let joints = scene.skeleton.as_ref().map_or(0, |s| s.joints.len());
        assert_eq!(joints, bind_pose.len(), "{label}: joints");
        let glb = gltf::to_glb(&scene).expect("glb");
        let (_, doc, bin) = read_glb(&glb, &label);
        let got = doc["animations"].as_array().expect("animations");
        assert_eq!(got.len(), clips.len(), "{label}: one animation per clip");
        for (g, clip) in got.iter().zip(&clips) {
            let what = format!("{label}: clip {:?}", clip.name);
            assert_eq!(g["name"], clip.name, "{what}");
            let n = clip.bones.len();
            assert_eq!(clip.keys.len(), n * clip.frames, "{what}");
            let stored = [
                clip.keys
                    .iter()
                    .any(|k| k.translation.iter().any(Option::is_some)),
                clip.keys.iter().any(|k| k.rotation.is_some()),
                clip.keys
                    .iter()
                    .any(|k| k.scale.iter().any(Option::is_some)),
            ];
            let paths: Vec<&str> = ["translation", "rotation", "scale"]
                .into_iter()
                .zip(stored)
                .filter_map(|(p, s)| s.then_some(p))
                .collect();
            let mut animated: Vec<usize> = clip
                .bones
                .iter()
                .filter_map(|&b| usize::try_from(b).ok().filter(|&b| b < joints))
                .collect();
            animated.sort_unstable();
            animated.dedup();
            let channels = g["channels"].as_array().expect("channels");
            assert_eq!(
                channels.len(),
                animated.len() * paths.len(),
                "{what}: channels = animated bones × stored paths"
            );
            let mut targets = std::collections::BTreeSet::new();
            for ch in channels {
                let node = ch["target"]["node"].as_u64().unwrap() as usize;
                let path = ch["target"]["path"].as_str().unwrap();
                let joint = node - meshes;
                assert!(
                    targets.insert((joint, path.to_string())),
                    "{what}: duplicate"
                );
                assert!(
                    animated.binary_search(&joint).is_ok(),
                    "{what}: joint {joint}"
                );
                assert!(paths.contains(&path), "{what}: {path}");
                let what = format!("{what}: joint {joint} {path}");
                let sampler = &g["samplers"][ch["sampler"].as_u64().unwrap() as usize];
                assert_eq!(sampler["interpolation"], "LINEAR", "{what}");
                let times = animation_words(&doc, &bin, &sampler["input"], "SCALAR");
                let want: Vec<u32> = (0..clip.frames)
                    .map(|f| (f as f32 / 30.0).to_bits())
                    .collect();
                assert_eq!(times, want, "{what}: times are frame / 30");
                let values = read_output(&doc, &bin, sampler, path);
                assert_eq!(values.len(), clip.frames, "{what}: one key per frame");
                // Frame 0: the first slot of the joint's stored components, the bind
                // pose's for the absent ones.
                let slot = clip
                    .bones
                    .iter()
                    .position(|&b| b as usize == joint)
                    .unwrap();
                let key = &clip.keys[slot];
                let pose = bind_pose[joint];
                let want: Vec<f64> = match path {
                    "translation" => (0..3)
                        .map(|c| f64::from(key.translation[c].unwrap_or(pose.position[c])))
                        .collect(),
                    "scale" => (0..3)
                        .map(|c| f64::from(key.scale[c].unwrap_or(pose.scale[c])))
                        .collect(),
                    _ => unit(key.rotation.unwrap_or(pose.rotation.map(f64::from))).to_vec(),
                };
                assert_close(&values[0], &want, &format!("{what}: frame 0"));
                // Later frames: a stored component is the key's, an absent one the
                // previous frame's.
                for f in 1..clip.frames {
                    let key = &clip.keys[f * n + slot];
                    let prev = &values[f - 1];
                    let want: Vec<f64> = match path {
                        "rotation" => key.rotation.map_or(prev.clone(), |r| unit(r).to_vec()),
                        _ => {
                            let k = if path == "scale" {
                                key.scale
                            } else {
                                key.translation
                            };
                            (0..3).map(|c| k[c].map_or(prev[c], f64::from)).collect()
                        }
                    };
                    assert_close(&values[f], &want, &format!("{what}: frame {f}"));
                }
                if path == "rotation" {
                    for q in &values {
                        let len = q.iter().map(|x| x * x).sum::<f64>().sqrt();
                        assert!((len - 1.0).abs() < 1e-6, "{what}: |q| = {len}");
                    }
                }
                channels_seen += 1;
            }
            clips_seen += 1;
        }
        files += 1;
    }
    eprintln!("{files} animation sources: {clips_seen} clips, {channels_seen} channels");
    let min = if common::corpus().is_some() { 6 } else { 3 };
    assert!(files >= min, "only {files} animation sources");
}

// ---------------------------------------------------------------- non-finite values

/// The notes of a scene as (kind, what the sentence says, count).
fn notes_of(scene: &Scene) -> Vec<(scene::NoteKind, String, usize)> {
    scene
        .notes
        .iter()
        .map(|n| (n.kind, n.detail.clone(), n.count))
        .collect()
}

/// The count of the note whose sentence contains `needle` (0 when there is none).
fn note_count(scene: &Scene, kind: scene::NoteKind, needle: &str) -> usize {
    scene
        .notes
        .iter()
        .filter(|n| n.kind == kind && n.detail.contains(needle))
        .map(|n| n.count)
        .sum()
}

/// A 3.01 file with NaN and infinities, in a vertex only LOD 1 uses and in normals of
/// LOD 0: each LOD exports only its own vertices (in their order), values that are not
/// finite become 0, zero normals (0, 0, 1), and the notes count each (the Khronos
/// validator checks these exports too, in `khronos_validator_accepts_every_export`).
#[test]
fn non_finite_values_and_unused_vertices() {
    use scene::NoteKind::{NonFinite, UnusedVertices, ZeroNormals};
    let mesh = meshcodec::filemesh::model::Mesh::read(&non_finite_301()).expect("3.01");
    // Reading keeps the values as they are.
    assert!(mesh.vertices[4].position[0].is_nan());

    let lod0 = meshcodec::filemesh::scene::to_scene(mesh.clone(), "nan", 0).expect("LOD 0");
    let p = &lod0.meshes[0].primitives[0];
    assert_eq!(p.positions.len(), 4, "only vertices 0-3");
    assert_eq!(
        bits(&p.positions),
        bits(&[
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [1.0, 1.0, 0.0],
            [0.0, 1.0, 0.0]
        ])
    );
    assert_eq!(p.triangles, vec![[0, 1, 2], [0, 2, 3]]);
    let normals = p.normals.as_ref().expect("normals");
    assert_eq!(
        bits(normals),
        bits(&[
            [0.0, 0.0, 1.0],
            [0.0, 0.0, 1.0],
            [0.0, 0.0, 1.0],
            [1.0, 0.0, 0.0]
        ])
    );
    assert_eq!(p.uvs.as_ref().map(Vec::len), Some(4));
    assert_eq!(
        note_count(&lod0, UnusedVertices, "vertices"),
        2,
        "{:?}",
        notes_of(&lod0)
    );
    assert_eq!(
        note_count(&lod0, NonFinite, "normal"),
        4,
        "{:?}",
        notes_of(&lod0)
    );
    assert_eq!(
        note_count(&lod0, ZeroNormals, "normal"),
        2,
        "{:?}",
        notes_of(&lod0)
    );
    assert_eq!(lod0.notes.len(), 3, "{:?}", notes_of(&lod0));

    let lod1 = meshcodec::filemesh::scene::to_scene(mesh.clone(), "nan", 1).expect("LOD 1");
    let p = &lod1.meshes[0].primitives[0];
    assert_eq!(p.positions.len(), 3, "only vertices 1, 4, 5");
    assert_eq!(
        bits(&p.positions),
        bits(&[[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [2.0, 0.0, 0.5]])
    );
    assert_eq!(p.triangles, vec![[0, 1, 2]]);
    assert_eq!(
        bits(p.uvs.as_ref().expect("UVs")),
        bits(&[[1.0, 0.0], [0.5, 0.5], [0.0, 0.5]])
    );
    assert_eq!(note_count(&lod1, UnusedVertices, "vertices"), 3);
    assert_eq!(note_count(&lod1, NonFinite, "position"), 2);
    assert_eq!(note_count(&lod1, NonFinite, "normal"), 1);
    assert_eq!(note_count(&lod1, NonFinite, "UV"), 1);
    // Vertex 1's zero normal; vertex 4's (NaN, 0, 1) is (0, 0, 1) once the NaN is 0.
    assert_eq!(note_count(&lod1, ZeroNormals, "normal"), 1);
    assert_eq!(
        bits(p.normals.as_ref().expect("normals")),
        bits(&[[0.0, 0.0, 1.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]])
    );

    // Both write to glTF, GLB and OBJ, and decode back to what the scene holds.
    for (lod, scene) in [(0, &lod0), (1, &lod1)] {
        let text = gltf::to_gltf(scene).expect("gltf");
        let (doc, bin) = read_gltf(&text);
        check_gltf(&text, &doc, &bin, scene, &format!("LOD {lod}"));
        check_obj(
            &obj::to_obj(scene).expect("obj"),
            scene,
            &format!("LOD {lod}"),
        );
    }

    // UNIGINE: geometry, bind pose and animation keys.
    let m = non_finite_unigine();
    let scene = meshcodec::unigine::scene::mesh_to_scene(&m, "nan", &Limits::default())
        .expect("UNIGINE export");
    // The NaN position is shared: each triangle vertex whose corners name it gets it.
    let d = &m.classic().expect("ms11").data[0];
    let sharing: std::collections::BTreeSet<u32> = d
        .coordinate_indices
        .iter()
        .zip(&d.triangle_indices)
        .filter(|(c, _)| **c == d.coordinate_indices[0])
        .map(|(_, t)| *t)
        .collect();
    assert!(sharing.len() >= 2, "{sharing:?}");
    let want = 2 * sharing.len();
    assert_eq!(
        note_count(&scene, NonFinite, "position"),
        want,
        "{:?}",
        notes_of(&scene)
    );
    assert_eq!(note_count(&scene, NonFinite, "UV"), 1);
    assert_eq!(note_count(&scene, NonFinite, "bind pose"), 2);
    assert_eq!(note_count(&scene, NonFinite, "animation translation"), 1);
    assert_eq!(note_count(&scene, NonFinite, "animation scale"), 1);
    assert!(scene
        .notes
        .iter()
        .any(|n| n.detail.contains("written as 1")));
    let text = gltf::to_gltf(&scene).expect("gltf");
    let (doc, bin) = read_gltf(&text);
    check_gltf(&text, &doc, &bin, &scene, "UNIGINE with NaN");
    // A clean file has no notes.
    let clean = meshcodec::unigine::UnigineMesh::read(
        &std::fs::read(common::fixture_dir("unigine").join("ms11-embedded-anim.mesh")).unwrap(),
    )
    .unwrap();
    let scene =
        meshcodec::unigine::scene::mesh_to_scene(&clean, "clean", &Limits::default()).unwrap();
    assert!(scene.notes.is_empty(), "{:?}", notes_of(&scene));
}

/// The CLI exports the 3.01 file (exit 0) and prints, a line each, what it left out
/// or changed: the other level's faces with the vertices only they use (not again as
/// unused vertices), and the values that are not finite.
#[test]
fn cli_prints_the_notes() {
    let dir = tempfile::tempdir().expect("temp dir");
    let input = dir.path().join("nan.mesh");
    std::fs::write(&input, non_finite_301()).expect("write");
    for (lod, out) in [("0", "a.gltf"), ("1", "b.glb"), ("1", "c.obj")] {
        let o = Command::new(env!("CARGO_BIN_EXE_meshcodec"))
            .arg("export")
            .arg(&input)
            .arg(dir.path().join(out))
            .args(["--lod", lod, "--json"])
            .output()
            .expect("run meshcodec");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success(), "{err}");
        let lines: Vec<&str> = err.lines().filter(|l| l.contains(": dropped: ")).collect();
        assert!(lines.iter().all(|l| l.starts_with("meshcodec: ")), "{err}");
        let (faces, levels) = if lod == "0" {
            (
                1,
                "1 face of LOD 1 and the 2 vertices only they use (the scene holds LOD 0",
            )
        } else {
            (
                2,
                "2 faces of LOD 0 and the 3 vertices only they use (the scene holds LOD 1",
            )
        };
        assert!(err.contains(levels), "{err}");
        assert!(
            !err.contains("no exported triangle uses"),
            "named once: {err}"
        );
        assert!(err.contains("not finite (NaN or infinite)"), "{err}");
        // The same report for scripts, one object per line of it.
        let json: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
        let losses = json["losses"].as_array().expect("losses");
        assert_eq!(losses.len(), lines.len(), "{json}");
        assert_eq!(losses[0]["kind"], "lods");
        assert_eq!(losses[0]["level"], "lost");
        assert_eq!(losses[0]["count"], faces);
        assert_eq!(json["lossless"], false);
    }
}

/// Export turns UNIGINE's +Z up to glTF's +Y up ((x, y, z) → (x, z, −y), exactly);
/// `keep_axes` keeps the stored numbers; FileMesh (already +Y up) is not touched. The
/// real skinned capsule, 6.9 units tall along its +Z, stands along +Y. UNIGINE normals
/// come from the tangent frames and agree with the faces they belong to.
#[test]
fn unigine_exports_stand_up_with_normals() {
    use meshcodec::{open, ExportOptions, MeshFile};
    let mut files = common::files_below(&common::fixture_dir("unigine"));
    let corpus = common::corpus();
    if let Some(dir) = &corpus {
        files.extend(common::files_below(&dir.join("unigine")));
    }
    let limits = Limits::default();
    let mut checked = 0;
    let mut capsule = false;
    for path in files {
        let bytes = std::fs::read(&path).expect("read");
        if meshcodec::detect(&bytes) != Some(Format::UnigineMesh) {
            continue;
        }
        let file = open(&bytes).expect("open");
        let up = file
            .to_scene(&ExportOptions::default(), &limits)
            .expect("scene");
        let kept = file
            .to_scene(
                &ExportOptions {
                    keep_axes: true,
                    ..Default::default()
                },
                &limits,
            )
            .expect("scene");
        assert_eq!(up.up, scene::UpAxis::Y);
        assert_eq!(kept.up, scene::UpAxis::Z);
        let (mut dots, mut n) = (0.0f64, 0usize);
        for (pu, pk) in up.meshes[0]
            .primitives
            .iter()
            .zip(&kept.meshes[0].primitives)
        {
            for (a, b) in pu.positions.iter().zip(&pk.positions) {
                assert_eq!(a.map(f32::to_bits), [b[0], b[2], -b[1]].map(f32::to_bits));
            }
            let normals = pu.normals.as_ref().expect("UNIGINE exports have normals");
            for t in &pu.triangles {
                let p = t.map(|i| pu.positions[i as usize].map(f64::from));
                let e1 = [0, 1, 2].map(|k| p[1][k] - p[0][k]);
                let e2 = [0, 1, 2].map(|k| p[2][k] - p[0][k]);
                let c = [
                    e1[1] * e2[2] - e1[2] * e2[1],
                    e1[2] * e2[0] - e1[0] * e2[2],
                    e1[0] * e2[1] - e1[1] * e2[0],
                ];
                let len = c.iter().map(|x| x * x).sum::<f64>().sqrt();
                if len == 0.0 {
                    continue;
                }
                for &i in t {
                    let nv = normals[i as usize].map(f64::from);
                    dots += (0..3).map(|k| nv[k] * c[k] / len).sum::<f64>();
                    n += 1;
                }
            }
        }
        // The fixtures' tangent frames are arbitrary numbers; real files' describe
        // their surfaces.
        let real = corpus.as_ref().is_some_and(|c| path.starts_with(c));
        if n > 0 && real {
            let mean = dots / n as f64;
            assert!(mean > 0.85, "{}: mean normal·face {mean}", path.display());
        }
        if path.ends_with("ms14-capsule-skinned.mesh") {
            let ys: Vec<f32> = up.meshes[0]
                .primitives
                .iter()
                .flat_map(|p| p.positions.iter().map(|v| v[1]))
                .collect();
            let height = ys.iter().cloned().fold(f32::MIN, f32::max)
                - ys.iter().cloned().fold(f32::MAX, f32::min);
            assert!(height > 6.5, "capsule height along +Y: {height}");
            capsule = true;
        }
        checked += 1;
    }
    assert!(checked >= 3, "{checked} UNIGINE meshes");
    assert!(
        capsule || corpus.is_none(),
        "the corpus capsule was not found"
    );
    // FileMesh is +Y up already: the default export is the stored numbers.
    let bytes =
        std::fs::read(common::fixture_dir("filemesh").join("v4.00-bones.mesh")).expect("read");
    let file = open(&bytes).expect("open");
    let a = file
        .to_scene(&ExportOptions::default(), &limits)
        .expect("scene");
    let b = file
        .to_scene(
            &ExportOptions {
                keep_axes: true,
                ..Default::default()
            },
            &limits,
        )
        .expect("scene");
    assert_eq!(a, b);
}
