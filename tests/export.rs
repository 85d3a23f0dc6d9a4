//! glTF 2.0 and OBJ export of every fixture and corpus file of every format: the
//! documents decode back to the scene the adapters built (through independent readers
//! here: GLB chunks, base64, accessors, an OBJ parser), and the Khronos glTF validator
//! (npm `gltf-validator`, run by `tests/gltf/validate.js`) reports no error.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use meshcodec::interop::{self, gltf, obj, Primitive, Scene};
use meshcodec::{Format, Limits};
use serde_json::Value;

/// The validator release the test is written against (what CI installs).
const VALIDATOR_PACKAGE: &str = "gltf-validator@2.0.0-dev.3.10";

/// One exported scene and where it came from.
struct Case {
    label: String,
    scene: Scene,
}

/// Every file of `dir` (recursively), sorted.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("read dir") {
            let p = entry.expect("dir entry").path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The scenes of one file (a FileMesh gives one per LOD); `None` for a format that
/// exports nothing (animations, unknown files).
fn scenes_of(path: &Path) -> Option<Vec<(String, Scene)>> {
    let bytes = std::fs::read(path).expect("read file");
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let what = |e: meshcodec::Error| format!("{}: {e}", path.display());
    let scenes = match meshcodec::detect(&bytes)? {
        Format::FileMesh => {
            let mesh = meshcodec::roblox::model::Mesh::read(&bytes)
                .unwrap_or_else(|e| panic!("{}", what(e)));
            (0..mesh.lods.count())
                .map(|lod| {
                    let scene = interop::from_filemesh(&mesh, &name, lod)
                        .unwrap_or_else(|e| panic!("LOD {lod} of {}", what(e)));
                    (format!("LOD {lod}"), scene)
                })
                .collect()
        }
        Format::Csgphs => {
            let m = meshcodec::roblox::csg_model::CsgMesh::read(&bytes)
                .unwrap_or_else(|e| panic!("{}", what(e)));
            vec![(String::new(), interop::from_csg(&m, &name))]
        }
        Format::UnigineMesh => {
            let m = meshcodec::unigine::UnigineMesh::read(&bytes)
                .unwrap_or_else(|e| panic!("{}", what(e)));
            let scene = interop::from_unigine(&m, &name, &Limits::default())
                .unwrap_or_else(|e| panic!("{}", what(e)));
            vec![(String::new(), scene)]
        }
        Format::Stf => {
            let f = meshcodec::stf::StfContainer::read(&bytes)
                .unwrap_or_else(|e| panic!("{}", what(e)));
            let scene = interop::from_stf(&f).unwrap_or_else(|e| panic!("{}", what(e)));
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
    for set in ["csgphs", "unigine", "stf"] {
        files.extend(walk(&common::fixture_dir(set)));
    }
    let corpus = common::corpus();
    if let Some(dir) = &corpus {
        files.extend(walk(dir));
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
        positions: vec![[0.0, 0.0, 0.0], [1.0, 0.1, -0.0], [0.0, 1.0, 3.5]],
        normals: Some(vec![[0.0, 0.0, 1.0]; 3]),
        uvs: Some(vec![[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]),
        colors: Some(vec![[1.0, 0.5, 0.25, 1.0]; 3]),
        triangles: vec![[0, 1, 2]],
    };
    let points = Primitive {
        name: "no triangles".into(),
        positions: vec![[0.0; 3]; 2],
        ..Primitive::default()
    };
    let mesh = |name: &str, primitives: Vec<Primitive>| interop::ExportMesh {
        name: name.into(),
        primitives,
    };
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
        },
    });
    cases.push(Case {
        label: "made: mixed".into(),
        scene: Scene {
            meshes: vec![
                mesh("empty", vec![points.clone()]),
                mesh("two", vec![points, tri.clone(), tri]),
            ],
        },
    });
    cases
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
    let scenes = doc["scenes"].as_array().expect("scenes");
    assert_eq!(scenes.len(), 1, "{label}");
    if expect.is_empty() {
        assert_eq!(scenes[0], serde_json::json!({}), "{label}");
        for key in ["nodes", "meshes", "accessors", "bufferViews", "buffers"] {
            assert!(doc.get(key).is_none(), "{label}: {key} of an empty scene");
        }
        return;
    }
    let nodes = doc["nodes"].as_array().expect("nodes");
    let meshes = doc["meshes"].as_array().expect("meshes");
    assert_eq!(meshes.len(), expect.len(), "{label}: meshes");
    assert_eq!(nodes.len(), expect.len(), "{label}: nodes");
    let scene_nodes: Vec<u64> = (0..expect.len() as u64).collect();
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
        for (p, g) in prims.iter().zip(gp) {
            let what = format!("{label}: {name}/{}", p.name);
            assert_eq!(g["mode"], 4, "{what}");
            assert_eq!(g["extras"]["name"], p.name, "{what}");
            let attrs = g["attributes"].as_object().expect("attributes");
            let expected_attrs = 1
                + usize::from(p.normals.is_some())
                + usize::from(p.uvs.is_some())
                + usize::from(p.colors.is_some());
            assert_eq!(attrs.len(), expected_attrs, "{what}: attributes");

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
            }
            if let Some(c) = &p.colors {
                assert_eq!(words("COLOR_0", "VEC4"), bits(c), "{what}: colours");
            }
            let idx = &doc["accessors"][g["indices"].as_u64().unwrap() as usize];
            assert_eq!(idx["count"], p.triangles.len() as u64 * 3, "{what}");
            let indices = accessor_words(doc, bin, &g["indices"], "SCALAR", 5125);
            let want: Vec<u32> = p.triangles.iter().flatten().copied().collect();
            assert_eq!(indices, want, "{what}: indices");
        }
    }
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
            "vt" => objects
                .last_mut()
                .expect(NO_OBJECT)
                .uvs
                .push(floats(rest, line)),
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
        assert_eq!(
            bits(&o.uvs),
            bits(p.uvs.as_deref().unwrap_or(&[])),
            "{what}: UVs"
        );
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
        "glTF validator {version}: {} files, {} with errors, {warnings} warnings, infos {infos:?}",
        reports.len(),
        errors.len()
    );
    assert!(
        errors.is_empty(),
        "validator errors:\n{}",
        errors.join("\n")
    );
}
