//! COREMESH v2 Draco: `meshcodec::codec::draco` against real Roblox blobs, the reference
//! C++ decoder, fixtures from the reference encoder, generated meshes and damaged input.
//!
//! - Real 7.00 files (the corpus): decode → encode gives the original bitstream byte for
//!   byte; the decoded mesh looks like the uncompressed COREMESH v1 file does.
//! - Reference decoder, two ways: Debian's `draco_decoder` (PLY output: positions,
//!   colours, per-corner UVs, faces) and PyPI's `DracoPy` (all five attributes by unique
//!   id, normals included). Under `CI=true` a missing tool fails the test; otherwise the
//!   test says `SKIPPED`. `MESHCODEC_DRACO_DECODER` overrides the `draco_decoder` path.
//! - `roundtrip-fixtures/draco/*.drc`, made by DracoPy (C++ Draco) with
//!   `roundtrip-fixtures/make_draco.py`, decode to `expected.json` bit for bit.
//! - Property tests: decode(encode(x)) keeps the vertex order, positions, UVs, tangents,
//!   colours and faces exactly, normals within the 11-bit step; re-encoding is stable.
//! - Damaged and hostile bitstreams give errors, never panics or huge allocations.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use meshcodec::codec::draco::{self, decode, encode, normal_tolerance};
use meshcodec::filemesh::raw::{Face, Vertex};
use meshcodec::strategy::filemesh::draco_geometry;
use meshcodec::{ErrorKind, Limits};
use proptest::prelude::*;

// ---------------------------------------------------------------------------------------
// Helpers: a local 7.00 chunk walker (the real chunk layer lives elsewhere).

struct Chunk {
    name: String,
    version: u32,
    payload: Vec<u8>,
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

/// "version 7.00\n", then 8-byte NUL-padded name, u32 version, u32 size, payload, …
fn walk_chunks(bytes: &[u8]) -> Vec<Chunk> {
    assert!(bytes.starts_with(b"version "), "not a FileMesh");
    let mut p = 13;
    let mut out = Vec::new();
    while p < bytes.len() {
        let name = String::from_utf8_lossy(&bytes[p..p + 8])
            .trim_end_matches('\0')
            .to_string();
        let version = u32_at(bytes, p + 8);
        let size = u32_at(bytes, p + 12) as usize;
        let payload = bytes[p + 16..p + 16 + size].to_vec();
        out.push(Chunk {
            name,
            version,
            payload,
        });
        p += 16 + size;
    }
    out
}

/// COREMESH v2 payload: u32 Draco length + the bitstream, nothing after.
fn draco_blob(payload: &[u8]) -> Vec<u8> {
    let n = u32_at(payload, 0) as usize;
    assert_eq!(
        payload.len(),
        4 + n,
        "COREMESH v2 payload is u32 + bitstream"
    );
    payload[4..].to_vec()
}

/// (file, Draco bitstream) of every real 7.00 file with a COREMESH v2 chunk, and the
/// COREMESH v1 files' (file, vertices, faces). `None` when the corpus is missing.
#[allow(clippy::type_complexity)]
fn corpus_7() -> Option<(
    Vec<(PathBuf, Vec<u8>)>,
    Vec<(PathBuf, Vec<Vertex>, Vec<Face>)>,
)> {
    let dir = common::corpus()?;
    let mut blobs = Vec::new();
    let mut v1 = Vec::new();
    for path in common::corpus_filemeshes(&dir, &["7.00"]) {
        let bytes = std::fs::read(&path).unwrap();
        for c in walk_chunks(&bytes) {
            match (c.name.as_str(), c.version) {
                ("COREMESH", 2) => blobs.push((path.clone(), draco_blob(&c.payload))),
                ("COREMESH", 1) => {
                    let p = &c.payload;
                    let nv = u32_at(p, 0) as usize;
                    let verts: Vec<Vertex> = bytemuck::pod_collect_to_vec(&p[4..4 + 40 * nv]);
                    let nf = u32_at(p, 4 + 40 * nv) as usize;
                    let at = 8 + 40 * nv;
                    let faces: Vec<Face> = bytemuck::pod_collect_to_vec(&p[at..at + 12 * nf]);
                    v1.push((path.clone(), verts, faces));
                }
                _ => {}
            }
        }
    }
    assert!(
        blobs.len() >= 2,
        "expected the corpus's two 7.00 files with COREMESH v2, found {}",
        blobs.len()
    );
    Some((blobs, v1))
}

fn name(p: &Path) -> String {
    p.file_name().unwrap().to_string_lossy().into_owned()
}

fn ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// A missing external tool: fails under CI, says SKIPPED otherwise.
fn missing_tool(what: &str, install: &str) {
    assert!(
        !ci(),
        "CI=true but {what} is missing; install it with: {install}"
    );
    eprintln!("SKIPPED: {what} not found (install with: {install})");
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

// ---------------------------------------------------------------------------------------
// Real files.

#[test]
fn real_blobs_reencode_byte_for_byte() {
    let Some((blobs, _)) = corpus_7() else { return };
    for (path, blob) in &blobs {
        let header = draco::read_header(blob).unwrap();
        assert_eq!((header.major, header.minor), (2, 2), "{}", name(path));
        assert_eq!(
            (header.geometry_type, header.method, header.flags),
            (1, 0, 0)
        );
        let counts = header.counts.expect("sequential header states the counts");

        let (vertices, faces) = decode(blob, &Limits::default()).unwrap();
        assert_eq!(vertices.len() as u64, counts.points);
        assert_eq!(faces.len() as u64, counts.faces);
        let again = encode(&vertices, &faces).unwrap();
        assert!(
            again == *blob,
            "{}: re-encoding gives {} bytes that differ from the original {}",
            name(path),
            again.len(),
            blob.len()
        );
        // And the re-encoded stream decodes to exactly the same vertices.
        let (v2, f2) = decode(&again, &Limits::default()).unwrap();
        assert_eq!(
            bytemuck::cast_slice::<Vertex, u8>(&v2),
            bytemuck::cast_slice::<Vertex, u8>(&vertices)
        );
        assert_eq!(f2, faces);
        eprintln!(
            "{}: {} bytes, {} points, {} faces: byte-exact",
            name(path),
            blob.len(),
            vertices.len(),
            faces.len()
        );
    }
}

/// What every Roblox mesh vertex looks like, in COREMESH v1 (uncompressed) and v2
/// (Draco) alike: unit normals, finite positions and UVs, faces inside the vertex range,
/// every vertex used.
fn assert_plausible(what: &str, vertices: &[Vertex], faces: &[Face], normal_slack: f32) {
    assert!(!vertices.is_empty() && !faces.is_empty(), "{what}: empty");
    let mut used = vec![false; vertices.len()];
    for f in faces {
        for &i in &f.indices {
            used[i as usize] = true;
        }
    }
    assert!(used.iter().all(|&u| u), "{what}: a vertex no face uses");
    for (i, v) in vertices.iter().enumerate() {
        assert!(
            v.position.iter().chain(&v.uv).all(|x| x.is_finite()),
            "{what}: vertex {i} {v:?}"
        );
        let len = v.normal.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!(
            (len - 1.0).abs() <= normal_slack,
            "{what}: vertex {i} normal length {len}"
        );
    }
}

#[test]
fn real_blobs_look_like_coremesh_v1() {
    let Some((blobs, v1)) = corpus_7() else {
        return;
    };
    assert!(
        !v1.is_empty(),
        "the corpus has a 7.00 file with COREMESH v1"
    );
    for (path, vertices, faces) in &v1 {
        assert_plausible(&name(path), vertices, faces, 1e-5);
    }
    for (path, blob) in &blobs {
        let (vertices, faces) = decode(blob, &Limits::default()).unwrap();
        // 11-bit quantization moves each component by up to 2/2047/2.
        assert_plausible(&name(path), &vertices, &faces, 2e-3);
    }
}

// ---------------------------------------------------------------------------------------
// The reference decoder.

fn draco_decoder() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("MESHCODEC_DRACO_DECODER") {
        return Some(PathBuf::from(p));
    }
    let ok = Command::new("draco_decoder")
        .arg("-h")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("draco_decoder"));
    ok.then(|| PathBuf::from("draco_decoder"))
}

/// What the reference decoder's PLY writer gives: positions, RGBA colours, faces and
/// the UV of each face corner.
#[derive(Debug, Default)]
struct Ply {
    positions: Vec<[f32; 3]>,
    colors: Vec<[u8; 4]>,
    faces: Vec<[u32; 3]>,
    corner_uvs: Vec<[[f32; 2]; 3]>,
}

/// A PLY property: name, type, and the count type of a list property.
type PlyProperty = (String, String, Option<String>);
/// A PLY element: name, count, properties.
type PlyElement = (String, usize, Vec<PlyProperty>);

fn read_ply(bytes: &[u8]) -> Ply {
    let end = bytes
        .windows(11)
        .position(|w| w == b"end_header\n")
        .expect("PLY header")
        + 11;
    let header = std::str::from_utf8(&bytes[..end]).unwrap();
    assert!(header.contains("format binary_little_endian 1.0"));
    // element name, count, [properties as (name, type, list count type)]
    let mut elements: Vec<PlyElement> = Vec::new();
    for line in header.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        match w.as_slice() {
            ["element", n, c] => elements.push((n.to_string(), c.parse().unwrap(), vec![])),
            ["property", "list", ct, t, n] => elements.last_mut().unwrap().2.push((
                n.to_string(),
                t.to_string(),
                Some(ct.to_string()),
            )),
            ["property", t, n] => {
                elements
                    .last_mut()
                    .unwrap()
                    .2
                    .push((n.to_string(), t.to_string(), None))
            }
            _ => {}
        }
    }
    let mut p = end;
    let mut scalar = |t: &str| -> f64 {
        let (v, n) = match t {
            "float" => (
                f32::from_le_bytes(bytes[p..p + 4].try_into().unwrap()) as f64,
                4,
            ),
            "uchar" => (bytes[p] as f64, 1),
            "int" => (
                i32::from_le_bytes(bytes[p..p + 4].try_into().unwrap()) as f64,
                4,
            ),
            "uint" => (
                u32::from_le_bytes(bytes[p..p + 4].try_into().unwrap()) as f64,
                4,
            ),
            t => panic!("PLY type {t} not handled"),
        };
        p += n;
        v
    };
    let mut ply = Ply::default();
    for (element, count, props) in &elements {
        for _ in 0..*count {
            let mut pos = [0f32; 3];
            let mut rgba = [0u8; 4];
            let mut face = [0u32; 3];
            let mut uvs = [[0f32; 2]; 3];
            for (n, t, list) in props {
                if let Some(ct) = list {
                    let k = scalar(ct) as usize;
                    let vals: Vec<f64> = (0..k).map(|_| scalar(t)).collect();
                    match n.as_str() {
                        "vertex_indices" => {
                            assert_eq!(k, 3);
                            face = [vals[0] as u32, vals[1] as u32, vals[2] as u32];
                        }
                        "texcoord" => {
                            assert_eq!(k, 6);
                            for c in 0..3 {
                                uvs[c] = [vals[2 * c] as f32, vals[2 * c + 1] as f32];
                            }
                        }
                        _ => {}
                    }
                } else {
                    let v = scalar(t);
                    match n.as_str() {
                        "x" => pos[0] = v as f32,
                        "y" => pos[1] = v as f32,
                        "z" => pos[2] = v as f32,
                        "red" => rgba[0] = v as u8,
                        "green" => rgba[1] = v as u8,
                        "blue" => rgba[2] = v as u8,
                        "alpha" => rgba[3] = v as u8,
                        _ => {}
                    }
                }
            }
            match element.as_str() {
                "vertex" => {
                    ply.positions.push(pos);
                    ply.colors.push(rgba);
                }
                "face" => {
                    ply.faces.push(face);
                    ply.corner_uvs.push(uvs);
                }
                _ => {}
            }
        }
    }
    assert_eq!(p, bytes.len(), "PLY body fully read");
    ply
}

/// Runs the reference `draco_decoder` on `blob` and reads its PLY.
fn reference_ply(decoder: &Path, blob: &[u8]) -> Ply {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.drc");
    let output = dir.path().join("out.ply");
    std::fs::write(&input, blob).unwrap();
    let out = Command::new(decoder)
        .arg("-i")
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .output()
        .expect("run draco_decoder");
    assert!(
        out.status.success(),
        "draco_decoder failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    read_ply(&std::fs::read(&output).unwrap())
}

/// Our decode and the reference decoder's agree on positions (bit for bit), colours,
/// faces and the UV of every face corner.
fn assert_agrees_with_ply(what: &str, ply: &Ply, vertices: &[Vertex], faces: &[Face]) {
    assert_eq!(ply.positions.len(), vertices.len(), "{what}: point count");
    assert_eq!(ply.faces.len(), faces.len(), "{what}: face count");
    for (i, v) in vertices.iter().enumerate() {
        assert_eq!(
            bits(&ply.positions[i]),
            bits(&v.position),
            "{what}: position {i}"
        );
        assert_eq!(ply.colors[i], v.color, "{what}: colour {i}");
    }
    for (i, f) in faces.iter().enumerate() {
        assert_eq!(ply.faces[i], f.indices, "{what}: face {i}");
        for c in 0..3 {
            let uv = vertices[f.indices[c] as usize].uv;
            assert_eq!(
                bits(&ply.corner_uvs[i][c]),
                bits(&uv),
                "{what}: face {i} corner {c} uv"
            );
        }
    }
}

#[test]
fn reference_draco_decoder_agrees_on_real_blobs() {
    let Some((blobs, _)) = corpus_7() else { return };
    let Some(decoder) = draco_decoder() else {
        return missing_tool("draco_decoder", "apt-get install -y draco");
    };
    for (path, blob) in &blobs {
        let (vertices, faces) = decode(blob, &Limits::default()).unwrap();
        let ply = reference_ply(&decoder, blob);
        assert_agrees_with_ply(&name(path), &ply, &vertices, &faces);
        eprintln!(
            "{}: draco_decoder ({}) agrees on {} positions, colours, {} faces and their UVs",
            name(path),
            decoder.display(),
            vertices.len(),
            faces.len()
        );
    }
}

/// The reference decoder's view through DracoPy: per unique id, the raw little-endian
/// bytes of the values in point order, and the faces. `None` when DracoPy is missing.
/// One mesh as DracoPy sees it: the bytes of unique ids 0–4, and the faces.
type Reference = (Vec<Vec<u8>>, Vec<[u32; 3]>);

fn dracopy_decode(blobs: &[Vec<u8>]) -> Option<Vec<Reference>> {
    const SCRIPT: &str = r#"
import sys, json
import numpy as np
import DracoPy
out = []
for path in sys.argv[1:]:
    m = DracoPy.decode(open(path, "rb").read())
    by_uid = {a["unique_id"]: np.ascontiguousarray(a["data"]) for a in m.attributes}
    out.append({
        "attributes": [by_uid[u].astype(by_uid[u].dtype.newbyteorder("<")).tobytes().hex()
                       for u in range(5)],
        "faces": np.asarray(m.faces).astype(int).tolist(),
    })
print(json.dumps(out))
"#;
    let probe = Command::new("python3")
        .args(["-c", "import DracoPy, numpy"])
        .output();
    if !probe.is_ok_and(|o| o.status.success()) {
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = Command::new("python3");
    cmd.arg("-c").arg(SCRIPT);
    for (i, b) in blobs.iter().enumerate() {
        let p = dir.path().join(format!("{i}.drc"));
        std::fs::write(&p, b).unwrap();
        cmd.arg(p);
    }
    let out = cmd.output().expect("run python3");
    assert!(
        out.status.success(),
        "DracoPy failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let hex = |s: &str| -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    };
    Some(
        json.as_array()
            .unwrap()
            .iter()
            .map(|m| {
                let attrs = m["attributes"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|a| hex(a.as_str().unwrap()))
                    .collect();
                let faces = m["faces"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|f| {
                        let f = f.as_array().unwrap();
                        [0, 1, 2].map(|c| f[c].as_u64().unwrap() as u32)
                    })
                    .collect();
                (attrs, faces)
            })
            .collect(),
    )
}

/// Our vertices, split per attribute into the bytes the reference gives per unique id.
fn attribute_bytes(vertices: &[Vertex]) -> [Vec<u8>; 5] {
    let mut out: [Vec<u8>; 5] = Default::default();
    for v in vertices {
        out[0].extend(v.position.iter().flat_map(|x| x.to_le_bytes()));
        out[1].extend(v.normal.iter().flat_map(|x| x.to_le_bytes()));
        out[2].extend(v.uv.iter().flat_map(|x| x.to_le_bytes()));
        out[3].extend_from_slice(&v.tangent);
        out[4].extend_from_slice(&v.color);
    }
    out
}

#[test]
fn reference_dracopy_agrees_on_every_attribute() {
    let Some((blobs, _)) = corpus_7() else { return };
    let blobs: Vec<(PathBuf, Vec<u8>)> = blobs;
    let raw: Vec<Vec<u8>> = blobs.iter().map(|(_, b)| b.clone()).collect();
    let Some(reference) = dracopy_decode(&raw) else {
        return missing_tool("python3 with DracoPy", "pip install DracoPy numpy");
    };
    const WHAT: [&str; 5] = ["position", "normal", "uv", "tangent", "colour"];
    for ((path, blob), (ref_attrs, ref_faces)) in blobs.iter().zip(&reference) {
        let (vertices, faces) = decode(blob, &Limits::default()).unwrap();
        let ours = attribute_bytes(&vertices);
        for uid in 0..5 {
            assert!(
                ours[uid] == ref_attrs[uid],
                "{}: attribute {uid} ({}) differs from DracoPy's",
                name(path),
                WHAT[uid]
            );
        }
        let ours_faces: Vec<[u32; 3]> = faces.iter().map(|f| f.indices).collect();
        assert_eq!(&ours_faces, ref_faces, "{}: faces", name(path));
        eprintln!(
            "{}: DracoPy agrees bit for bit on all 5 attributes of {} points and {} faces",
            name(path),
            vertices.len(),
            faces.len()
        );
    }
}

// ---------------------------------------------------------------------------------------
// Fixtures made by the reference encoder (roundtrip-fixtures/make_draco.py).

fn f32_rows(v: &serde_json::Value) -> Vec<Vec<f32>> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap() as f32)
                .collect()
        })
        .collect()
}

fn u64_rows(v: &serde_json::Value) -> Vec<Vec<u64>> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|r| {
            r.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_u64().unwrap())
                .collect()
        })
        .collect()
}

fn fixture_blobs() -> Vec<(String, Vec<u8>, serde_json::Value)> {
    let dir = common::fixture_dir("draco");
    let expected: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.join("expected.json")).unwrap()).unwrap();
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".drc"))
        .collect();
    names.sort();
    assert!(
        names.len() >= 3,
        "roundtrip-fixtures/draco has its bitstreams"
    );
    names
        .into_iter()
        .map(|n| {
            let blob = std::fs::read(dir.join(&n)).unwrap();
            let exp = expected[n.as_str()].clone();
            assert!(exp.is_object(), "expected.json has {n}");
            (n, blob, exp)
        })
        .collect()
}

#[test]
fn reference_encoder_fixtures_decode_exactly() {
    for (n, blob, exp) in fixture_blobs() {
        let (vertices, faces) = decode(&blob, &Limits::default()).unwrap();
        assert_eq!(
            vertices.len() as u64,
            exp["points"].as_u64().unwrap(),
            "{n}"
        );
        assert_eq!(faces.len() as u64, exp["faces"].as_u64().unwrap(), "{n}");
        let pos = f32_rows(&exp["position"]);
        let nrm = f32_rows(&exp["normal"]);
        let uv = f32_rows(&exp["uv"]);
        let tan = u64_rows(&exp["tangent"]);
        let col = u64_rows(&exp["color"]);
        for (i, v) in vertices.iter().enumerate() {
            assert_eq!(bits(&v.position), bits(&pos[i]), "{n}: position {i}");
            assert_eq!(bits(&v.normal), bits(&nrm[i]), "{n}: normal {i}");
            assert_eq!(bits(&v.uv), bits(&uv[i]), "{n}: uv {i}");
            assert_eq!(
                v.tangent.map(u64::from).to_vec(),
                tan[i],
                "{n}: tangent {i}"
            );
            assert_eq!(v.color.map(u64::from).to_vec(), col[i], "{n}: colour {i}");
        }
        let idx = u64_rows(&exp["face_indices"]);
        for (i, f) in faces.iter().enumerate() {
            assert_eq!(f.indices.map(u64::from).to_vec(), idx[i], "{n}: face {i}");
        }
    }
}

/// The reference decoder reads what our encoder writes: the fixtures' meshes, and a
/// generated one, encoded by us, decoded by `draco_decoder`.
#[test]
fn reference_draco_decoder_reads_our_encoding() {
    let Some(decoder) = draco_decoder() else {
        return missing_tool("draco_decoder", "apt-get install -y draco");
    };
    let mut meshes: Vec<(String, Vec<Vertex>, Vec<Face>)> = fixture_blobs()
        .into_iter()
        .map(|(n, blob, _)| {
            let (v, f) = decode(&blob, &Limits::default()).unwrap();
            (n, v, f)
        })
        .collect();
    let (v, f) = grid(7, 9);
    meshes.push(("grid 7×9".into(), v, f));
    for (n, vertices, faces) in &meshes {
        let ours = encode(vertices, faces).unwrap();
        let ply = reference_ply(&decoder, &ours);
        assert_agrees_with_ply(n, &ply, vertices, faces);
    }
}

// ---------------------------------------------------------------------------------------
// Generated meshes.

/// A rows × cols grid, two triangles a cell, with every attribute varying.
fn grid(rows: u32, cols: u32) -> (Vec<Vertex>, Vec<Face>) {
    let mut vertices = Vec::new();
    for r in 0..rows {
        for c in 0..cols {
            let (x, y) = (c as f32 * 0.25, r as f32 * 0.5);
            let n = [x.sin(), y.cos(), 0.5];
            let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
            vertices.push(Vertex {
                position: [x, (x * 3.0).sin() * y, -y],
                normal: n.map(|k| k / len),
                uv: [c as f32 / cols as f32, 1.0 - r as f32 / rows as f32],
                tangent: [(r * 7 % 255) as u8, (c * 13 % 255) as u8, 127, 254],
                color: [(r * 31) as u8, (c * 17) as u8, 200, 255],
            });
        }
    }
    let mut faces = Vec::new();
    for r in 0..rows.saturating_sub(1) {
        for c in 0..cols.saturating_sub(1) {
            let a = r * cols + c;
            let (b, d, e) = (a + 1, a + cols, a + cols + 1);
            faces.push(Face { indices: [a, d, b] });
            faces.push(Face { indices: [b, d, e] });
        }
    }
    (vertices, faces)
}

// From `meshcodec::strategy::filemesh`, the generators downstream crates use.

/// Vertices, and faces over them (degenerate and repeated faces included; some
/// vertices may be used by no face).
fn any_mesh() -> impl Strategy<Value = (Vec<Vertex>, Vec<Face>)> {
    draco_geometry(1..80, 0..120)
}

/// Like `any_mesh`, with over 255 points: the 16-bit connectivity path.
fn bigger_mesh() -> impl Strategy<Value = (Vec<Vertex>, Vec<Face>)> {
    draco_geometry(256..700, 1..300)
}

fn check_round_trip(vertices: &[Vertex], faces: &[Face]) -> Result<(), TestCaseError> {
    let blob = encode(vertices, faces).unwrap();
    let (back, back_faces) = decode(&blob, &Limits::default()).unwrap();
    prop_assert_eq!(back.len(), vertices.len());
    prop_assert_eq!(&back_faces, faces);
    let tol = normal_tolerance(vertices);
    for (i, (a, b)) in vertices.iter().zip(&back).enumerate() {
        // Same index, same vertex: the order is kept.
        prop_assert_eq!(bits(&a.position), bits(&b.position), "position {}", i);
        prop_assert_eq!(bits(&a.uv), bits(&b.uv), "uv {}", i);
        prop_assert_eq!(a.tangent, b.tangent, "tangent {}", i);
        prop_assert_eq!(a.color, b.color, "colour {}", i);
        for c in 0..3 {
            let err = (a.normal[c] - b.normal[c]).abs();
            prop_assert!(
                err <= tol,
                "normal {}[{}]: {} → {} (error {} > {})",
                i,
                c,
                a.normal[c],
                b.normal[c],
                err,
                tol
            );
        }
    }
    // What Roblox's byte-exactness rests on: decoded data re-encodes to the same bytes.
    prop_assert!(
        encode(&back, &back_faces).unwrap() == blob,
        "re-encode differs"
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn decode_encode_round_trip((vertices, faces) in any_mesh()) {
        check_round_trip(&vertices, &faces)?;
    }

    #[test]
    fn decode_encode_round_trip_16_bit_indices((vertices, faces) in bigger_mesh()) {
        check_round_trip(&vertices, &faces)?;
    }

    /// Mutated and cut encodings: decode returns Ok or Err, never panics, and whatever
    /// it accepts is a consistent mesh.
    #[test]
    fn damaged_encodings_never_panic(
        (vertices, faces) in any_mesh(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
        cut in proptest::option::of(any::<prop::sample::Index>()),
    ) {
        let mut blob = encode(&vertices, &faces).unwrap();
        for (i, b) in edits {
            let i = i.index(blob.len());
            blob[i] = b;
        }
        if let Some(c) = cut {
            blob.truncate(c.index(blob.len() + 1));
        }
        if let Ok((v, f)) = decode(&blob, &Limits::default()) {
            prop_assert!(f.iter().all(|f| f.indices.iter().all(|&i| (i as usize) < v.len())));
        }
    }
}

#[test]
fn grid_round_trips_and_keeps_order() {
    let (vertices, faces) = grid(40, 30);
    check_round_trip(&vertices, &faces).unwrap();
}

#[test]
fn edge_cases_encode_and_decode() {
    let v = |x: f32| Vertex {
        position: [x, -x, 0.5],
        normal: [0.0, 0.0, 1.0],
        uv: [x, 0.0],
        tangent: [127, 127, 127, 0],
        color: [255; 4],
    };
    let f = |a, b, c| Face { indices: [a, b, c] };
    let cases: Vec<(&str, Vec<Vertex>, Vec<Face>)> = vec![
        ("no vertices", vec![], vec![]),
        ("vertices, no faces", vec![v(1.0), v(2.0)], vec![]),
        (
            "one triangle",
            vec![v(1.0), v(2.0), v(3.0)],
            vec![f(0, 1, 2)],
        ),
        (
            "degenerate and repeated faces",
            vec![v(1.0), v(2.0), v(3.0)],
            vec![f(0, 0, 0), f(0, 1, 2), f(0, 1, 2), f(2, 2, 1)],
        ),
        (
            "a vertex no face uses",
            vec![v(1.0), v(2.0), v(3.0), v(4.0)],
            vec![f(3, 1, 2)],
        ),
        (
            "non-finite positions and UVs",
            vec![v(f32::NAN), v(f32::INFINITY), v(-0.0)],
            vec![f(0, 1, 2)],
        ),
    ];
    for (what, vertices, faces) in cases {
        let blob = encode(&vertices, &faces).unwrap_or_else(|e| panic!("{what}: {e}"));
        let (back, back_faces) = decode(&blob, &Limits::default()).unwrap();
        assert_eq!(back_faces, faces, "{what}");
        assert_eq!(
            bytemuck::cast_slice::<Vertex, u8>(&back),
            bytemuck::cast_slice::<Vertex, u8>(&vertices),
            "{what}"
        );
    }
}

#[test]
fn encode_refuses_what_it_cannot_write() {
    let good = Vertex {
        normal: [0.0, 1.0, 0.0],
        ..Vertex::default()
    };
    let out_of_range = encode(&[good; 3], &[Face { indices: [0, 1, 3] }]).unwrap_err();
    assert!(matches!(out_of_range.kind(), ErrorKind::Inconsistent(_)));
    assert!(out_of_range.to_string().contains("face 0 names vertex 3"));

    let mut nan = good;
    nan.normal[1] = f32::NAN;
    let e = encode(&[good, nan, good], &[Face { indices: [0, 1, 2] }]).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Inconsistent(_)), "{e}");
    assert!(e.to_string().contains("vertex 1"), "{e}");

    let mut huge = good;
    huge.normal = [3e38, -3e38, 0.0];
    let mut huge2 = good;
    huge2.normal = [-3e38, 3e38, 0.0];
    let e = encode(&[huge, huge2, good], &[Face { indices: [0, 1, 2] }]).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Inconsistent(_)), "{e}");
}

// ---------------------------------------------------------------------------------------
// Damaged and hostile input.

fn some_blobs() -> Vec<Vec<u8>> {
    let mut blobs: Vec<Vec<u8>> = fixture_blobs().into_iter().map(|(_, b, _)| b).collect();
    let (v, f) = grid(20, 20);
    blobs.push(encode(&v, &f).unwrap());
    blobs
}

#[test]
fn every_truncation_is_an_error() {
    for blob in some_blobs() {
        for len in 0..blob.len() {
            let r = decode(&blob[..len], &Limits::default());
            assert!(r.is_err(), "a {len}-byte prefix of {} decoded", blob.len());
        }
    }
}

#[test]
fn single_byte_changes_never_panic() {
    for blob in some_blobs() {
        for i in 0..blob.len().min(1500) {
            for b in [0x00, 0x01, 0x7f, 0x80, 0xff, blob[i] ^ 0x01, blob[i] ^ 0x10] {
                let mut d = blob.clone();
                d[i] = b;
                let _ = decode(&d, &Limits::default());
            }
        }
    }
}

#[test]
fn errors_say_what_is_wrong() {
    let (v, f) = grid(3, 3);
    let good = encode(&v, &f).unwrap();

    let e = decode(b"", &Limits::default()).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::UnexpectedEof), "{e}");
    assert_eq!(e.context(), draco::CONTEXT);

    let e = decode(b"DRACX\x02\x02\x01\x00\x00\x00", &Limits::default()).unwrap_err();
    assert!(e.to_string().contains("not a Draco bitstream"), "{e}");

    let mut cloud = good.clone();
    cloud[7] = 0;
    let e = decode(&cloud, &Limits::default()).unwrap_err();
    assert!(e.to_string().contains("point cloud"), "{e}");

    let mut trailing = good.clone();
    trailing.extend_from_slice(b"\0\0\0");
    let e = decode(&trailing, &Limits::default()).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::TrailingData { bytes: 3 }),
        "{e}"
    );
    assert_eq!(e.offset(), Some(good.len() as u64));

    let e = decode(&good[..good.len() - 1], &Limits::default()).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Invalid(_)), "{e}");
    assert!(e.to_string().contains("Draco decoder refused"), "{e}");
}

/// A sequential header claiming `faces` and `points` (Draco 2.2 varints), then `rest`.
fn hostile_header(faces: u64, points: u64, rest: &[u8]) -> Vec<u8> {
    let mut b = b"DRACO\x02\x02\x01\x00\x00\x00".to_vec();
    for mut v in [faces, points] {
        loop {
            let byte = (v & 0x7f) as u8;
            v >>= 7;
            if v == 0 {
                b.push(byte);
                break;
            }
            b.push(byte | 0x80);
        }
    }
    b.extend_from_slice(rest);
    b
}

#[test]
fn header_counts_are_checked_against_the_limit_before_decoding() {
    // 2^40 points, 2^41 faces, and nothing behind them.
    let blob = hostile_header(1 << 41, 1 << 40, &[0]);
    let e = decode(&blob, &Limits::default()).unwrap_err();
    match e.kind() {
        ErrorKind::LimitExceeded {
            requested, limit, ..
        } => {
            assert_eq!(*requested, (1u64 << 40) * 40 + (1u64 << 41) * 12);
            assert_eq!(*limit, Limits::default().max_decoded_bytes);
        }
        k => panic!("expected LimitExceeded, got {k:?}"),
    }

    // A real mesh over a small limit: refused from its header alone.
    let (v, f) = grid(10, 10);
    let blob = encode(&v, &f).unwrap();
    let need = 100 * 40 + 162 * 12;
    let tight = Limits {
        max_decoded_bytes: need - 1,
        ..Limits::default()
    };
    let e = decode(&blob, &tight).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::LimitExceeded { requested, .. } if *requested == need),
        "{e}"
    );
    let exact = Limits {
        max_decoded_bytes: need,
        ..Limits::default()
    };
    decode(&blob, &exact).unwrap();
}

#[test]
fn hostile_counts_without_a_limit_fail_fast() {
    // With no limit at all, a tiny stream claiming trillions of points and faces must
    // still be refused without allocating for them (the test would abort otherwise).
    for (faces, points, rest) in [
        (1u64 << 40, 1u64 << 40, &[0u8][..]), // compressed connectivity, no symbols
        (1 << 40, 1 << 40, &[1u8][..]),       // raw connectivity, no indices
        (1 << 30, 200, &[1u8][..]),           // u8 indices that are not there
        (1 << 20, 1 << 20, &[1u8; 64][..]),   // varint indices, too few
        (0, u32::MAX as u64, &[0u8, 5, 0][..]), // points, no faces, attributes cut
        (0, 1 << 40, &[0u8, 1, 0, 0][..]),
    ] {
        let blob = hostile_header(faces, points, rest);
        let started = std::time::Instant::now();
        let r = decode(&blob, &Limits::UNLIMITED);
        assert!(r.is_err(), "{faces} faces, {points} points decoded");
        assert!(started.elapsed().as_secs() < 5, "slow refusal");
    }
}

/// A stream whose header does not state the counts up front (EdgeBreaker) is bounded
/// by draco-core's own ceilings, set from the same limit.
#[test]
fn edgebreaker_streams_decode_and_are_limited() {
    use draco_core::{
        DecoderBuffer, EncoderBuffer, EncoderOptions, Mesh, MeshDecoder, MeshEncoder,
    };
    let (v, f) = grid(12, 12);
    let ours = encode(&v, &f).unwrap();
    let mut mesh = Mesh::new();
    MeshDecoder::new()
        .decode(&mut DecoderBuffer::new(&ours), &mut mesh)
        .unwrap();
    let mut options = EncoderOptions::new();
    options.set_encoding_method(1);
    let mut enc = MeshEncoder::new();
    enc.set_mesh(mesh);
    let mut out = EncoderBuffer::new();
    enc.encode(&options, &mut out).unwrap();
    let eb = out.data().to_vec();
    let header = draco::read_header(&eb).unwrap();
    assert_eq!((header.method, header.counts), (1, None));

    let (v2, f2) = decode(&eb, &Limits::default()).unwrap();
    assert_eq!((v2.len(), f2.len()), (v.len(), f.len()));

    let tight = Limits {
        max_decoded_bytes: 1000,
        ..Limits::default()
    };
    let e = decode(&eb, &tight).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::LimitExceeded { .. }), "{e}");
}

#[test]
fn attributes_are_found_by_unique_id_and_checked() {
    // The reference-encoder fixtures store the five attributes in another order and
    // with an extra POSITION (unique id 5): reference_encoder_fixtures_decode_exactly
    // covers finding them by id. Here: a mesh without them.
    use draco_core::{
        DataType, EncoderBuffer, EncoderOptions, GeometryAttributeType, Mesh, MeshEncoder,
        PointAttribute,
    };
    let mut mesh = Mesh::new();
    let mut a = PointAttribute::new();
    a.init(
        GeometryAttributeType::Position,
        3,
        DataType::Float32,
        false,
        3,
    );
    a.buffer_mut().update(&[0u8; 36], Some(0));
    mesh.add_attribute(a);
    let mut b = PointAttribute::new();
    b.init(GeometryAttributeType::Generic, 2, DataType::Uint8, false, 3);
    b.buffer_mut().update(&[7u8; 6], Some(0));
    mesh.add_attribute(b);
    mesh.set_num_faces(1);
    mesh.set_faces_from_flat_indices(&[0, 1, 2]);
    let mut options = EncoderOptions::new();
    options.set_encoding_method(0);
    let mut enc = MeshEncoder::new();
    enc.set_mesh(mesh);
    let mut out = EncoderBuffer::new();
    enc.encode(&options, &mut out).unwrap();
    let e = decode(out.data(), &Limits::default()).unwrap_err();
    assert!(
        e.to_string().contains("attribute 1 (normal) is 2 × Uint8"),
        "{e}"
    );
}

/// The uid-1 values exactly as draco-core dequantizes them, before `decode` makes them
/// canonical.
fn raw_normals(blob: &[u8]) -> Vec<[f32; 3]> {
    let mut mesh = draco_core::Mesh::new();
    draco_core::MeshDecoder::new()
        .decode(&mut draco_core::DecoderBuffer::new(blob), &mut mesh)
        .unwrap();
    let a = mesh.attribute_by_unique_id(draco::UID_NORMAL).unwrap();
    a.read_f32s(mesh.num_points(), 3)
        .chunks(3)
        .map(|c| [c[0], c[1], c[2]])
        .collect()
}

/// Dequantization loses the sign of a zero minimum and, about once in two thousand
/// meshes, the last bit of the range; `decode` restores both so that re-encoding gives
/// the same bytes. Each case here fails to re-encode from draco-core's raw values.
/// Three normals whose decoded values need [`decode`]'s canonicalization to re-encode
/// the same bytes, each on a vertex of one face, and the bitstream they encode to.
fn canonicalization_cases() -> Vec<(&'static str, Vec<Vertex>, Vec<u8>)> {
    let n = |bits: [u32; 3]| bits.map(f32::from_bits);
    let cases: Vec<(&str, Vec<[f32; 3]>)> = vec![
        (
            "−0 minimum",
            vec![[-0.0, 0.5, 1.0], [0.25, -0.0, 0.0], [0.5, 1.0, -0.0]],
        ),
        (
            "range one ulp off (a)",
            vec![
                n([0xbf7875bc, 0xbf1f15e2, 0xbf008f40]),
                n([0xbf1a74b6, 0x3e49e858, 0xbef79518]),
                n([0xbe6ae080, 0xbf4d704a, 0xbdcd0080]),
            ],
        ),
        (
            "range one ulp off (b)",
            vec![
                n([0x3c19dc80, 0xbe496970, 0xbeaf77a8]),
                n([0xbf778d72, 0x3eceaa30, 0xbf5b387e]),
                n([0xbf7d8d9e, 0x3e60e758, 0xbf7c674c]),
            ],
        ),
        (
            "range one ulp off (c)",
            vec![
                n([0x3e8d21cc, 0x3e950848, 0xbe49c258]),
                n([0xbe47c9b0, 0x3ee54974, 0x3ec9b898]),
                n([0x3c482180, 0xbf0d41ae, 0x3dd66df0]),
            ],
        ),
    ];
    let faces = [Face { indices: [0, 1, 2] }];
    cases
        .into_iter()
        .map(|(what, normals)| {
            let vertices: Vec<Vertex> = normals
                .iter()
                .map(|&normal| Vertex {
                    normal,
                    ..Vertex::default()
                })
                .collect();
            let blob = encode(&vertices, &faces).unwrap();
            (what, vertices, blob)
        })
        .collect()
}

#[test]
fn decoded_normals_re_encode_to_the_same_bytes() {
    let faces = [Face { indices: [0, 1, 2] }];
    for (what, vertices, blob) in canonicalization_cases() {
        let raw: Vec<Vertex> = raw_normals(&blob)
            .into_iter()
            .map(|normal| Vertex {
                normal,
                ..Vertex::default()
            })
            .collect();
        assert!(
            encode(&raw, &faces).unwrap() != blob,
            "{what}: the raw values re-encode already (the case tests nothing)"
        );

        let (decoded, decoded_faces) = decode(&blob, &Limits::default()).unwrap();
        assert!(
            encode(&decoded, &decoded_faces).unwrap() == blob,
            "{what}: decode → encode differs"
        );
        let tol = normal_tolerance(&vertices);
        for (a, b) in vertices.iter().zip(&decoded) {
            for c in 0..3 {
                assert!((a.normal[c] - b.normal[c]).abs() <= tol, "{what}");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// `survey`: what `info` and `verify` use instead of `decode`.

/// `survey`'s verdict on a bitstream, from `decode`'s: the counts and the points with a
/// value that is not finite, or the same error.
fn survey_from_decode(blob: &[u8]) -> Result<draco::Survey, String> {
    let (vertices, faces) = decode(blob, &Limits::default()).map_err(|e| e.to_string())?;
    let bad = |xs: &[f32]| xs.iter().any(|x| !x.is_finite());
    let mut s = draco::Survey {
        points: vertices.len(),
        faces: faces.len(),
        ..Default::default()
    };
    s.non_finite.positions = vertices.iter().filter(|v| bad(&v.position)).count();
    s.non_finite.normals = vertices.iter().filter(|v| bad(&v.normal)).count();
    s.non_finite.uvs = vertices.iter().filter(|v| bad(&v.uv)).count();
    Ok(s)
}

fn assert_survey_agrees(what: &str, blob: &[u8]) -> bool {
    let limits = Limits::default();
    let survey = draco::survey(blob, &limits).map_err(|e| e.to_string());
    assert_eq!(survey, survey_from_decode(blob), "{what}");
    // `decode` of a bitstream given away (a `Vec`), which drops it once the decoder has
    // read it, gives the same arrays bit for bit, or the same error.
    let bits = |r: meshcodec::Result<(Vec<Vertex>, Vec<Face>)>| {
        r.map(|(v, f)| {
            (
                bytemuck::cast_slice::<Vertex, u8>(&v).to_vec(),
                bytemuck::cast_slice::<Face, u8>(&f).to_vec(),
            )
        })
        .map_err(|e| e.to_string())
    };
    assert_eq!(
        bits(draco::decode(blob.to_vec(), &limits)),
        bits(draco::decode(blob, &limits)),
        "{what}: decode of a Vec"
    );
    survey.is_ok()
}

/// `survey`, and `decode` of a bitstream given away, agree with `decode` of a borrowed one
/// (see [`assert_survey_agrees`]).
#[test]
fn survey_agrees_with_decode_on_good_damaged_and_non_finite_bitstreams() {
    let mut blobs: Vec<(String, Vec<u8>)> = fixture_blobs()
        .into_iter()
        .map(|(n, b, _)| (n, b))
        .collect();
    if let Some((real, _)) = corpus_7() {
        blobs.extend(real.into_iter().map(|(p, b)| (name(&p), b)));
    }
    // Values that are not finite: NaN and infinite positions and UVs (normals must be
    // finite to be encoded), on some vertices.
    let (mut v, f) = grid(12, 9);
    for (i, x) in v.iter_mut().enumerate() {
        match i % 7 {
            1 => x.position[1] = f32::NAN,
            3 => x.uv[0] = f32::INFINITY,
            5 => {
                x.position[2] = f32::NEG_INFINITY;
                x.uv[1] = f32::NAN;
            }
            _ => {}
        }
    }
    blobs.push(("non-finite grid".into(), encode(&v, &f).unwrap()));
    let nan = draco::survey(&blobs.last().unwrap().1, &Limits::default()).unwrap();
    assert!(
        nan.non_finite.positions > 0 && nan.non_finite.uvs > 0,
        "{nan:?}"
    );
    // Normals that decode only made canonical re-encode.
    blobs.extend(
        canonicalization_cases()
            .into_iter()
            .map(|(what, _, blob)| (what.to_string(), blob)),
    );

    let (mut ok, mut refused) = (0, 0);
    for (what, blob) in &blobs {
        assert!(assert_survey_agrees(what, blob), "{what} surveys");
        // Damaged: cut short, and single bytes changed (as `single_byte_changes_never_panic`).
        for len in (0..blob.len()).step_by(blob.len() / 97 + 1) {
            assert_survey_agrees(&format!("{what}, first {len} bytes"), &blob[..len]);
        }
        for i in 0..blob.len().min(600) {
            for b in [0x00, 0x7f, 0xff, blob[i] ^ 0x01, blob[i] ^ 0x10] {
                let mut d = blob.clone();
                d[i] = b;
                if assert_survey_agrees(&format!("{what}, byte {i} = {b:#04x}"), &d) {
                    ok += 1;
                } else {
                    refused += 1;
                }
            }
        }
    }
    // Both verdicts were exercised.
    assert!(ok > 100 && refused > 100, "{ok} decoded, {refused} refused");
}

/// `Mesh::check_file` (what `verify` runs) gives the model read's verdict and error on
/// every FileMesh fixture and corpus file (Draco and chunked ones among them), whole and
/// with bytes changed, without building the model.
#[test]
fn check_file_agrees_with_the_model_read() {
    use meshcodec::filemesh::{model::Mesh, FileMesh};
    let files = common::fixtures_and_corpus_filemeshes();
    assert!(files.len() >= 20, "{files:?}");
    let limits = Limits::default();
    let (mut ok, mut refused) = (0, 0);
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        let step = bytes.len() / 400 + 1;
        let changed = (13..bytes.len()).step_by(step).flat_map(|i| {
            let mut a = bytes.clone();
            a[i] ^= 0x10;
            let mut b = bytes.clone();
            b[i] = 0xff;
            [(i, a), (i, b)]
        });
        for (i, b) in std::iter::once((0, bytes.clone())).chain(changed) {
            // Only what still reads as a FileMesh reaches the model.
            let Ok(f) = FileMesh::read(&b) else { continue };
            let check = Mesh::check_file(&f, &limits).map_err(|e| e.to_string());
            let read = Mesh::from_file_with_limits(&f, &limits)
                .map(|_| ())
                .map_err(|e| e.to_string());
            assert_eq!(check, read, "{}, byte {i} changed", name(&path));
            if check.is_ok() {
                ok += 1;
            } else {
                refused += 1;
            }
        }
    }
    assert!(ok > 50 && refused > 20, "{ok} accepted, {refused} refused");
}

// `survey_in_place`: the walk `survey` tries before `draco-core`'s decoder.

/// Meshes our encoder writes with Roblox's settings, one for each path of the walk:
/// 8-bit, 16-bit and varint face indices, no faces, values that are not finite, and
/// normals whose range is too wide to know their finiteness from the parameters alone.
fn roblox_shaped_blobs() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut add = |what: &str, (v, f): (Vec<Vertex>, Vec<Face>)| {
        out.push((what.to_string(), encode(&v, &f).unwrap()));
    };
    add("grid 12 × 9", grid(12, 9));
    add("grid 40 × 30 (16-bit indices)", grid(40, 30));
    // Its normals' range is too wide to know their finiteness from the parameters:
    // they are decoded a second time, over several pieces.
    add("grid 300 × 220 (varint indices, normals over ±1e37)", {
        let (mut v, f) = grid(300, 220);
        for (i, x) in v.iter_mut().enumerate() {
            x.normal[i % 3] *= 1e37;
        }
        (v, f)
    });
    add("one point, no faces", {
        let (v, _) = grid(1, 1);
        (v, Vec::new())
    });
    let (mut v, f) = grid(12, 9);
    for (i, x) in v.iter_mut().enumerate() {
        match i % 5 {
            1 => x.position[1] = f32::NAN,
            2 => x.uv[0] = f32::NEG_INFINITY,
            3 => x.position = [f32::INFINITY; 3],
            _ => {}
        }
    }
    add("non-finite positions and UVs", (v, f));
    for (what, scale) in [
        ("normals over ±1e37", 1e37f32),
        ("normals over ±1.7e38 (range overflows)", 1.7e38),
    ] {
        let (mut v, f) = grid(9, 7);
        for (i, x) in v.iter_mut().enumerate() {
            x.normal[i % 3] *= scale;
        }
        add(what, (v, f));
    }
    let (mut v, f) = grid(9, 7);
    for (i, x) in v.iter_mut().enumerate() {
        // Values a tagged scheme may win on: few, wide, all different.
        x.tangent = (i as u32).wrapping_mul(0x9E37_79B9).to_le_bytes();
        x.color = (i as u32).wrapping_mul(0x85EB_CA6B).to_le_bytes();
    }
    add("scattered tangents and colours", (v, f));
    // Constant attributes (as Roblox's tangents and colours often are): their symbols
    // carry no payload, and draco-core charges them to the values it admitted.
    let (mut v, f) = grid(12, 9);
    for x in &mut v {
        x.tangent = [0, 0, 255, 127];
        x.color = [255; 4];
        x.uv = [0.5, 0.5];
    }
    add("constant tangents, colours and UVs", (v, f));
    // The same stream with quantization parameters (its last 17 bytes: 3 minimums, the
    // range, the bits) under which the larger values overflow: which points have a
    // normal that is not finite then depends on every value, not on the parameters.
    let mut overflowing = out
        .iter()
        .find(|(what, _)| what.contains("varint"))
        .unwrap()
        .1
        .clone();
    let at = overflowing.len() - 17;
    for (i, x) in [2e38f32, 2.5e38, 1e38, 2e38].iter().enumerate() {
        overflowing[at + 4 * i..at + 4 * i + 4].copy_from_slice(&x.to_le_bytes());
    }
    out.push((
        "varint grid, normal parameters that overflow".into(),
        overflowing,
    ));
    // Compressed connectivity, which Roblox's settings never write but Draco's
    // decoder reads: the same streams with their face indices as coded deltas.
    for (rows, cols) in [(12, 9), (40, 30)] {
        let (v, f) = grid(rows, cols);
        let blob = encode(&v, &f).unwrap();
        out.push((
            format!("grid {rows} × {cols}, compressed connectivity"),
            with_compressed_connectivity(&blob, &f, v.len()),
        ));
    }
    out
}

/// `blob` (raw connectivity, as our encoder writes) with its face indices coded as
/// Draco's compressed sequential connectivity: zigzagged deltas, entropy-coded.
fn with_compressed_connectivity(blob: &[u8], faces: &[Face], points: usize) -> Vec<u8> {
    let mut at = 11;
    for _ in 0..2 {
        while blob[at] & 0x80 != 0 {
            at += 1;
        }
        at += 1;
    }
    assert_eq!(blob[at], 1, "raw connectivity");
    let width = if points < 256 { 1 } else { 2 };
    let rest = at + 1 + faces.len() * 3 * width;
    let mut last = 0i64;
    let deltas: Vec<u32> = faces
        .iter()
        .flat_map(|f| f.indices)
        .map(|i| {
            let d = i64::from(i) - last;
            last = i64::from(i);
            if d < 0 {
                ((-d as u32) << 1) | 1
            } else {
                (d as u32) << 1
            }
        })
        .collect();
    let mut coded = draco_core::EncoderBuffer::new();
    draco_core::symbol_encoding::encode_symbols(
        &deltas,
        1,
        &draco_core::symbol_encoding::SymbolEncodingOptions::default(),
        &mut coded,
    )
    .unwrap();
    [&blob[..at], &[0], coded.data(), &blob[rest..]].concat()
}

/// Where the walk answers, it answers as `draco-core` does; on every stream Roblox or
/// our encoder writes it answers; and on damaged streams it leaves the verdict to
/// `draco-core` or agrees with it.
#[test]
fn survey_in_place_answers_roblox_streams_as_draco_core_does() {
    let limits = Limits::default();
    let mut blobs = roblox_shaped_blobs();
    // The reference encoder's (DracoPy, C++ Draco): sequential, with its own quantized
    // position attribute beside the five.
    blobs.extend(fixture_blobs().into_iter().map(|(n, b, _)| (n, b)));
    if let Some((real, _)) = corpus_7() {
        blobs.extend(real.into_iter().map(|(p, b)| (name(&p), b)));
    } else {
        assert!(!ci(), "CI has the corpus");
    }
    let (mut answered, mut left, mut refused) = (0, 0, 0);
    for (what, blob) in &blobs {
        let walked = draco::survey_in_place(blob, &limits);
        assert!(walked.is_some(), "{what}: the walk answers");
        if what.contains("parameters that overflow") {
            let n = walked.unwrap().non_finite.normals;
            assert!(n > 1000 && n < walked.unwrap().points - 1000, "{what}: {n}");
        }
        assert_eq!(
            walked.ok_or(String::new()),
            survey_from_decode(blob),
            "{what}"
        );
        let mut check = |how: &dyn Fn() -> String, d: &[u8]| {
            let decoded = survey_from_decode(d);
            match draco::survey_in_place(d, &limits) {
                Some(s) => {
                    assert_eq!(Ok(s), decoded, "{what}, {}", how());
                    answered += 1;
                }
                None if decoded.is_ok() => left += 1,
                None => refused += 1,
            }
        };
        // Small streams: cut at 61 places, every byte changed 7 ways. The big one
        // (varint indices; slow to decode unoptimized): cut at 8 places, its first 48
        // bytes (header, descriptions' count, first indices) and 8 more changed 3 ways.
        let small = blob.len() < 4000;
        let cuts = if small { 61 } else { 8 };
        for len in (0..blob.len()).step_by(blob.len() / cuts + 1) {
            check(&|| format!("first {len} bytes"), &blob[..len]);
        }
        check(
            &|| "one byte more".into(),
            &[blob.as_slice(), &[0]].concat(),
        );
        let (head, spread) = if small { (blob.len(), 1) } else { (48, 8) };
        let values = |x: u8| -> Vec<u8> {
            if small {
                vec![0x00, 0x01, 0x7f, 0x80, 0xff, x ^ 0x01, x ^ 0x40]
            } else {
                vec![0x00, 0xff, x ^ 0x01]
            }
        };
        let mut d = blob.clone();
        for i in (0..head).chain((head..blob.len()).step_by(blob.len() / spread + 1)) {
            for b in values(blob[i]) {
                d[i] = b;
                check(&|| format!("byte {i} = {b:#04x}"), &d);
            }
            d[i] = blob[i];
        }
    }
    // Both outcomes were exercised: damage the walk reads through (values), and damage
    // it leaves to draco-core.
    assert!(
        answered > 1000 && refused > 1000,
        "{answered} answered, {left} left to draco-core, {refused} refused"
    );
    eprintln!("{answered} answered, {left} left to draco-core that it accepts, {refused} refused");
}
