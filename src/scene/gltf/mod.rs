//! glTF 2.0 export: a `.gltf` JSON document with its buffer embedded as a base64 data
//! URI ([`to_gltf`]), or a binary `.glb` ([`to_glb`]).
//!
//! The layout is the same in both:
//!
//! - one scene (`scene: 0`) with one node per mesh, in scene order, then (with a
//!   skeleton) the root of the joints;
//! - one glTF mesh per [`ExportMesh`](super::ExportMesh) (named as it is), with one
//!   triangle primitive (mode 4) per [`Primitive`](super::Primitive) (its name in the
//!   primitive's `extras.name` and in its accessors' names);
//! - one buffer; for each primitive, in order, a tightly packed bufferView and accessor
//!   for `POSITION` (FLOAT VEC3, with the exact `min`/`max`), `NORMAL` (FLOAT VEC3),
//!   `TEXCOORD_0` (FLOAT VEC2; further UV sets as `TEXCOORD_1` …) and `COLOR_0` (FLOAT VEC4) when the primitive has them,
//!   `JOINTS_0` (UNSIGNED_BYTE VEC4 for skeletons of up to 256 joints, else
//!   UNSIGNED_SHORT VEC4) and `WEIGHTS_0` (FLOAT VEC4) when its mesh is skinned
//!   (target 34962), then one `POSITION` accessor per morph target (below), then the
//!   indices (UNSIGNED_INT SCALAR, target 34963). Every bufferView starts at a multiple
//!   of 4 bytes.
//!
//! Morph targets ([`Primitive::morph_targets`](super::Primitive::morph_targets)) become
//! the primitive's `targets`, each `{"POSITION": accessor}` holding the deltas (FLOAT
//! VEC3, with the exact `min`/`max`, target 34962); the mesh gets `weights` (each
//! target's [`default_weight`](super::MorphTarget::default_weight)) and
//! `extras.targetNames`.
//! glTF wants every primitive of a mesh to have the same targets, so the mesh's targets
//! are those of all its written primitives, matched by name (the k-th target of a name
//! in one primitive is the k-th of that name in another) and in order of first
//! appearance, primitive after primitive: where primitives' lists are the same, or one
//! is the start of another, that is the primitives' own order. A primitive is padded
//! with zero-delta targets for the names it lacks: accessors without a bufferView
//! (which glTF defines as all zeros; `min` = `max` = 0), so padding costs no buffer
//! bytes. A target's default weight is that of its first appearance.
//!
//! A [`Skeleton`](super::Skeleton) with joints becomes one node per joint after the
//! mesh nodes, in joint order (its name, `translation`, `rotation` and `scale`, and
//! `children` in joint order), and one skin (`skins[0]`, named `skeleton`) listing those
//! nodes as its `joints`, with its `inverseBindMatrices` (FLOAT MAT4, a bufferView
//! without target after the primitives' data). The skin's `skeleton`, a scene root, is
//! the root joint; when there are several root joints, an extra node named `skeleton`
//! (no transform) holds them as its children and is that root. Each mesh node whose
//! mesh has a skinned primitive gets `skin: 0` (mesh nodes are roots with no transform
//! of their own, as glTF wants of skinned meshes), and every primitive of such a mesh
//! gets `JOINTS_0` and `WEIGHTS_0`: its own, or joint 0 with weight 1 for every vertex
//! when it has none (glTF wants all primitives of a mesh skinned alike).
//!
//! [`Scene::animations`](super::Scene::animations) become `animations` (named as they
//! are), after the skin's data: per [`Channel`](super::Channel), one channel targeting
//! the joint's node and path, and one LINEAR sampler whose input is the key times (FLOAT
//! SCALAR with the exact `min`/`max`; channels with the same times share one accessor)
//! and whose output is the values (FLOAT VEC3, or VEC4 for rotations); these
//! bufferViews have no target. A scene may hold a skeleton and animations without
//! meshes (an animation file): the joints are then the only nodes.
//!
//! glTF allows no empty arrays and no empty accessors, so primitives without triangles
//! are left out, and so are meshes left without primitives; a scene with nothing to write
//! gives a document whose only scene is empty (`{}`), with no buffer.
//!
//! Values that glTF cannot hold (NaN or infinite coordinates) are errors here, not
//! silently changed: the adapters replace them first, and say so
//! ([`Scene::prepare`](super::Scene::prepare), [`Scene::notes`](super::Scene::notes)).
//!
//! The writer's files: this one (the `.gltf` and `.glb` containers, laid out in a first
//! pass and streamed in a second), `layout` (the document and its buffer), `sink`
//! (where the buffer's bytes go) and `base64` (the `.gltf`'s data URI).
//!
//! # Example
//!
//! ```
//! use meshcodec::{open, scene::gltf, Limits, MeshFile};
//!
//! let s = open(include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/roundtrip-fixtures/unigine/ms12-morph.mesh")))?.to_scene(&Default::default(), &Limits::default())?;
//! let glb = gltf::to_glb(&s)?;
//! assert_eq!(&glb[..4], b"glTF");
//! let json: serde_json::Value = serde_json::from_str(&gltf::to_gltf(&s)?).unwrap();
//! assert_eq!(json["asset"]["version"], "2.0");
//! assert!(gltf::losses(&s).is_empty()); // glTF holds all of this scene
//! # Ok::<(), meshcodec::Error>(())
//! ```

mod base64;
mod layout;
mod sink;

use std::io::Write;

use serde_json::Value;

use self::base64::{base64_into, Base64Writer};
use self::layout::{build, build_into};
use self::sink::{Sink, STREAM_PIECE};
use super::Scene;
use crate::error::{Error, ErrorKind, Result};

/// GLB magic, `glTF`.
const GLB_MAGIC: u32 = 0x4654_6C67;
/// GLB chunk type `JSON`.
const CHUNK_JSON: u32 = 0x4E4F_534A;
/// GLB chunk type `BIN\0`.
const CHUNK_BIN: u32 = 0x004E_4942;

/// What a glTF export of `scene` leaves out: glTF holds every part of a scene, so this
/// is what the scene's adapter already changed (its notes: vertices no triangle uses,
/// values that are not finite), as losses.
pub fn losses(scene: &Scene) -> Vec<crate::loss::Loss> {
    scene.uncarried(&super::carry::Carries::all("glTF"), "glTF")
}

/// The scene as a glTF 2.0 JSON document, its one buffer embedded as a
/// `data:application/octet-stream;base64,` URI.
///
/// Fails if the scene is inconsistent ([`Scene::check`]) or holds a value glTF cannot
/// (NaN or infinity).
pub fn to_gltf(scene: &Scene) -> Result<String> {
    let (mut doc, bin) = build(scene)?;
    if let Some(buffer) = doc
        .get_mut("buffers")
        .and_then(|b| b.get_mut(0))
        .and_then(Value::as_object_mut)
    {
        let mut uri = String::from("data:application/octet-stream;base64,");
        base64_into(&bin, &mut uri);
        buffer.insert("uri".into(), Value::String(uri));
    }
    serde_json::to_string_pretty(&doc).map_err(json_error)
}

/// A `.gltf` laid out and checked, not yet written: [`gltf`] makes it,
/// [`Gltf::write_to`] writes the text [`to_gltf`] gives without holding it, the
/// buffer's base64 going out in pieces as its arrays are made from the scene.
pub struct Gltf<'a> {
    scene: &'a Scene,
    /// The document's text before and after the buffer's base64 (all of it, with no
    /// buffer).
    before: String,
    after: String,
    /// The buffer's length.
    bin_len: usize,
}

/// What stands for the buffer's base64 in the laid-out text.
const BASE64_MARK: &str = "meshcodec-base64-of-the-buffer";

/// Lays the scene out as a `.gltf` (a first pass over the scene that counts the
/// buffer's bytes) and checks it as [`to_gltf`] does, with the same errors.
pub fn gltf(scene: &Scene) -> Result<Gltf<'_>> {
    let (mut doc, w) = build_into(scene, Sink::Count)?;
    let bin_len = w.len;
    let mut has_buffer = false;
    if let Some(buffer) = doc
        .get_mut("buffers")
        .and_then(|b| b.get_mut(0))
        .and_then(Value::as_object_mut)
    {
        let uri = format!("data:application/octet-stream;base64,{BASE64_MARK}");
        buffer.insert("uri".into(), Value::String(uri));
        has_buffer = true;
    }
    let text = serde_json::to_string_pretty(&doc).map_err(json_error)?;
    let mut parts = text.split(BASE64_MARK);
    let (before, after, bin_len) = match (has_buffer, parts.next(), parts.next(), parts.next()) {
        (false, _, _, _) => (text.clone(), String::new(), 0),
        (true, Some(a), Some(b), None) => (a.to_string(), b.to_string(), bin_len),
        // The scene's own text holds the mark: the document is made whole.
        _ => (to_gltf(scene)?, String::new(), 0),
    };
    Ok(Gltf {
        scene,
        before,
        after,
        bin_len,
    })
}

impl Gltf<'_> {
    /// Writes the document to `out`: the text of [`to_gltf`].
    pub fn write_to(&self, out: &mut dyn Write) -> std::io::Result<()> {
        out.write_all(self.before.as_bytes())?;
        if self.bin_len > 0 {
            let mut base64 = Base64Writer {
                out: &mut *out,
                carry: Vec::with_capacity(3),
                text: String::new(),
            };
            stream_buffer(self.scene, &mut base64, self.bin_len)?;
            base64.finish()?;
        }
        out.write_all(self.after.as_bytes())
    }
}

/// The scene as a binary glTF (`.glb`): the 12-byte header, the JSON chunk (padded with
/// spaces to 4 bytes), and the BIN chunk holding the buffer (padded with zeros), left out
/// when there is no buffer.
///
/// Fails as [`to_gltf`] does, and if the file would pass the 4 GiB GLB limit.
pub fn to_glb(scene: &Scene) -> Result<Vec<u8>> {
    let (doc, bin) = build(scene)?;
    let json = glb_json(&doc)?;
    u32_len(glb_len(&json, bin.len()))?;
    let mut out = Vec::with_capacity(glb_len(&json, bin.len()));
    glb_start(&json, bin.len(), &mut out)
        .and_then(|()| out.write_all(&bin))
        .and_then(|()| glb_end(bin.len(), &mut out))
        .map_err(|e| Error::new("glTF export", ErrorKind::Invalid(e.to_string())))?;
    Ok(out)
}

/// A `.glb` laid out and checked, not yet written: [`glb`] makes it, [`Glb::write_to`]
/// writes the bytes [`to_glb`] gives without holding them, the buffer's arrays going out
/// in pieces as they are made from the scene.
pub struct Glb<'a> {
    scene: &'a Scene,
    /// The JSON chunk, padded.
    json: Vec<u8>,
    /// The buffer's length, unpadded.
    bin_len: usize,
}

/// Lays the scene out as a `.glb` (a first pass over the scene that counts the buffer's
/// bytes) and checks it as [`to_glb`] does, with the same errors.
pub fn glb(scene: &Scene) -> Result<Glb<'_>> {
    let (doc, w) = build_into(scene, Sink::Count)?;
    let json = glb_json(&doc)?;
    let bin_len = w.len;
    u32_len(glb_len(&json, bin_len))?;
    Ok(Glb {
        scene,
        json,
        bin_len,
    })
}

impl Glb<'_> {
    /// The file's size in bytes.
    pub fn len(&self) -> usize {
        glb_len(&self.json, self.bin_len)
    }

    /// Whether the file is empty (never: it has a header).
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Writes the file to `out`: the bytes of [`to_glb`].
    pub fn write_to(&self, out: &mut dyn Write) -> std::io::Result<()> {
        glb_start(&self.json, self.bin_len, out)?;
        if self.bin_len > 0 {
            let out = stream_buffer(self.scene, out, self.bin_len)?;
            glb_end(self.bin_len, out)?;
        }
        Ok(())
    }
}

/// The JSON chunk of a `.glb`: the document, padded with spaces.
fn glb_json(doc: &Value) -> Result<Vec<u8>> {
    let mut json = serde_json::to_vec(doc).map_err(json_error)?;
    pad(&mut json, b' ');
    Ok(json)
}

/// The size of a `.glb` of this JSON chunk and a buffer of `bin_len` bytes.
fn glb_len(json: &[u8], bin_len: usize) -> usize {
    let bin = bin_len.next_multiple_of(4);
    12 + 8 + json.len() + if bin == 0 { 0 } else { 8 + bin }
}

/// A length as the u32 a GLB holds.
fn u32_len(n: usize) -> Result<u32> {
    u32::try_from(n).map_err(|_| {
        Error::new(
            "glTF export",
            ErrorKind::Invalid(format!("{n} bytes are more than a GLB file can hold")),
        )
    })
}

/// The header, the JSON chunk and the BIN chunk's header (when there is a buffer).
fn glb_start(json: &[u8], bin_len: usize, out: &mut dyn Write) -> std::io::Result<()> {
    let len = |n: usize| u32_len(n).map_err(std::io::Error::other);
    out.write_all(&GLB_MAGIC.to_le_bytes())?;
    out.write_all(&2u32.to_le_bytes())?;
    out.write_all(&len(glb_len(json, bin_len))?.to_le_bytes())?;
    out.write_all(&len(json.len())?.to_le_bytes())?;
    out.write_all(&CHUNK_JSON.to_le_bytes())?;
    out.write_all(json)?;
    if bin_len > 0 {
        out.write_all(&len(bin_len.next_multiple_of(4))?.to_le_bytes())?;
        out.write_all(&CHUNK_BIN.to_le_bytes())?;
    }
    Ok(())
}

/// The zeros padding the buffer to 4 bytes.
fn glb_end(bin_len: usize, out: &mut dyn Write) -> std::io::Result<()> {
    let zeros = [0; 3];
    let n = bin_len.next_multiple_of(4) - bin_len;
    out.write_all(zeros.get(..n).unwrap_or_default())
}

fn json_error(e: serde_json::Error) -> Error {
    Error::new("glTF export", ErrorKind::Invalid(e.to_string()))
}

/// Pads to a multiple of 4 bytes.
fn pad(data: &mut Vec<u8>, with: u8) {
    while !data.len().is_multiple_of(4) {
        data.push(with);
    }
}

/// Writes the scene's binary buffer to `out` in pieces (the second pass of a streamed
/// `.glb` or `.gltf`), checking that it has the length the first pass laid out; gives
/// `out` back for what follows the buffer.
fn stream_buffer<'a>(
    scene: &Scene,
    out: &'a mut dyn Write,
    bin_len: usize,
) -> std::io::Result<&'a mut dyn Write> {
    let sink = Sink::Stream {
        out,
        piece: Vec::with_capacity(STREAM_PIECE),
        error: None,
    };
    let (_, mut w) = build_into(scene, sink).map_err(std::io::Error::other)?;
    w.sink.finish()?;
    if w.len != bin_len {
        return Err(std::io::Error::other(
            "the glTF buffer changed between its layout and its writing",
        ));
    }
    match w.sink {
        Sink::Stream { out, .. } => Ok(out),
        _ => Err(std::io::Error::other("the glTF buffer was not streamed")),
    }
}

// Test code: a failed index is a failed test (and `Value` indexing cannot panic).
#[allow(clippy::indexing_slicing)]
#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::{ExportMesh, MorphTarget, Primitive};
    use super::layout::{ARRAY_BUFFER, FLOAT};
    use super::*;

    fn triangle() -> Primitive {
        Primitive {
            extra_uvs: Vec::new(),
            material: None,
            name: "tri".into(),
            positions: vec![[0.0, 0.0, 0.0], [1.0, -0.0, 0.1], [-2.5, 3.0, 0.0]],
            normals: Some(vec![[0.0, 0.0, 1.0]; 3]),
            uvs: Some(vec![[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]),
            colors: Some(vec![[1.0, 0.5, 0.25, 1.0]; 3]),
            triangles: vec![[0, 1, 2]],
            joints: None,
            weights: None,
            morph_targets: Vec::new(),
        }
    }

    fn scene(prims: Vec<Primitive>) -> Scene {
        Scene {
            meshes: vec![ExportMesh {
                lod: 0,
                name: "m".into(),
                primitives: prims,
            }],
            skeleton: None,
            notes: Vec::new(),
            animations: Vec::new(),
            up: Default::default(),
        }
    }

    fn b64(data: &[u8]) -> String {
        let mut s = String::new();
        base64_into(data, &mut s);
        s
    }

    #[test]
    fn base64_matches_rfc4648_vectors() {
        for (plain, coded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(b64(plain.as_bytes()), coded);
        }
        assert_eq!(b64(&[0xFF, 0xEF, 0xBE]), "/+++");
    }

    #[test]
    fn layout_of_one_triangle() {
        let (doc, bin) = build(&scene(vec![triangle()])).expect("build");
        assert_eq!(doc["asset"]["version"], "2.0");
        assert_eq!(doc["asset"]["generator"], "meshcodec");
        assert_eq!(doc["scenes"], json!([{ "nodes": [0] }]));
        assert_eq!(doc["nodes"], json!([{ "name": "m", "mesh": 0 }]));
        let prim = &doc["meshes"][0]["primitives"][0];
        assert_eq!(prim["mode"], 4);
        assert_eq!(
            prim["attributes"],
            json!({ "POSITION": 0, "NORMAL": 1, "TEXCOORD_0": 2, "COLOR_0": 3 })
        );
        assert_eq!(prim["indices"], 4);
        // 36 + 36 + 24 + 48 + 12 bytes, each view 4-aligned.
        assert_eq!(bin.len(), 156);
        assert_eq!(doc["buffers"], json!([{ "byteLength": 156 }]));
        let offsets: Vec<_> = doc["bufferViews"]
            .as_array()
            .expect("views")
            .iter()
            .map(|v| v["byteOffset"].as_u64().expect("offset"))
            .collect();
        assert_eq!(offsets, [0, 36, 72, 96, 144]);
        let pos = &doc["accessors"][0];
        assert_eq!(pos["min"], json!([-2.5, -0.0, 0.0]));
        assert_eq!(pos["max"], json!([1.0, 3.0, f64::from(0.1f32)]));
        assert_eq!(doc["accessors"][4]["componentType"], 5125);
        assert_eq!(doc["bufferViews"][4]["target"], 34963);
        assert_eq!(doc["bufferViews"][0]["target"], 34962);
    }

    #[test]
    fn empty_primitives_and_meshes_are_left_out() {
        let empty = Primitive {
            name: "points".into(),
            positions: vec![[0.0; 3]],
            ..Primitive::default()
        };
        let mut s = scene(vec![empty.clone(), triangle(), empty.clone()]);
        s.meshes.insert(
            0,
            ExportMesh {
                lod: 0,
                name: "nothing".into(),
                primitives: vec![empty],
            },
        );
        let (doc, _) = build(&s).expect("build");
        assert_eq!(doc["meshes"].as_array().map(Vec::len), Some(1));
        assert_eq!(doc["meshes"][0]["name"], "m");
        assert_eq!(
            doc["meshes"][0]["primitives"].as_array().map(Vec::len),
            Some(1)
        );

        let (doc, bin) = build(&Scene::default()).expect("build");
        assert!(bin.is_empty());
        assert_eq!(
            doc,
            json!({
                "asset": { "version": "2.0", "generator": "meshcodec" },
                "scene": 0,
                "scenes": [{}],
            })
        );
        let glb = to_glb(&Scene::default()).expect("glb");
        // Header and the JSON chunk only.
        assert_eq!(glb.get(12 + 4..12 + 8), Some(&b"JSON"[..]));
        let json_len = u32::from_le_bytes(
            glb.get(12..16)
                .and_then(|b| b.try_into().ok())
                .expect("len"),
        );
        assert_eq!(glb.len(), 12 + 8 + json_len as usize);
    }

    #[test]
    fn glb_header_and_padding() {
        let glb = to_glb(&scene(vec![triangle()])).expect("glb");
        let word = |at: usize| {
            u32::from_le_bytes(
                glb.get(at..at + 4)
                    .and_then(|b| b.try_into().ok())
                    .expect("word"),
            )
        };
        assert_eq!(glb.get(..4), Some(&b"glTF"[..]));
        assert_eq!(word(4), 2);
        assert_eq!(word(8) as usize, glb.len());
        let json_len = word(12) as usize;
        assert_eq!(json_len % 4, 0);
        assert_eq!(word(16), CHUNK_JSON);
        let bin_at = 20 + json_len;
        assert_eq!(word(bin_at), 156);
        assert_eq!(word(bin_at + 4), CHUNK_BIN);
        let json: Value =
            serde_json::from_slice(glb.get(20..bin_at).expect("json")).expect("parse");
        assert!(json["buffers"][0].get("uri").is_none());
    }

    /// The streamed `.glb` and `.gltf` are the ones built in memory, byte for byte, for
    /// small scenes, one whose buffer spans many pieces, a skin, morph targets and an
    /// empty scene; base64 written in pieces of any size is the base64 of the whole; a
    /// scene the in-memory writers refuse is refused when laid out, with the same
    /// error; a failing writer fails.
    #[test]
    fn streamed_gltf_and_glb_are_the_files() {
        let mut big = triangle();
        let n = 30_000;
        big.positions = (0..n).map(|i| [i as f32, -(i as f32), 0.5]).collect();
        big.normals = Some(vec![[0.0, 1.0, 0.0]; n]);
        big.uvs = Some(vec![[0.25, 0.75]; n]);
        big.colors = Some(vec![[1.0, 0.0, 0.5, 1.0]; n]);
        big.triangles = (0..n as u32 - 2).map(|i| [i, i + 1, i + 2]).collect();
        let mut skinned_scene = scene(vec![skinned(), triangle()]);
        skinned_scene.skeleton = Some(skeleton());
        let mut morphs = triangle();
        morphs.morph_targets = vec![target("up", vec![[0.0, 1.0, 0.0]; 3], 0.25)];
        let scenes = [
            Scene::default(),
            scene(vec![triangle()]),
            scene(vec![big, triangle()]),
            skinned_scene,
            scene(vec![morphs]),
        ];
        for s in &scenes {
            let text = to_gltf(s).expect("gltf");
            let mut streamed = Vec::new();
            gltf(s)
                .expect("layout")
                .write_to(&mut streamed)
                .expect("write");
            assert!(streamed == text.as_bytes(), "{} bytes", text.len());
            // In pieces of every size up to a few groups of three.
            for piece in 1..8 {
                let mut out = Vec::new();
                let mut b = Base64Writer {
                    out: &mut out,
                    carry: Vec::new(),
                    text: String::new(),
                };
                let bin = build(s).expect("build").1;
                for chunk in bin.chunks(piece) {
                    b.write_all(chunk).expect("write");
                }
                b.finish().expect("finish");
                let mut expected = String::new();
                base64_into(&bin, &mut expected);
                assert!(out == expected.as_bytes(), "{piece}");
            }
            let whole = to_glb(s).expect("glb");
            let laid_out = glb(s).expect("layout");
            assert_eq!(laid_out.len(), whole.len());
            let mut streamed = Vec::new();
            laid_out.write_to(&mut streamed).expect("write");
            assert!(streamed == whole, "{} bytes", whole.len());
        }
        let mut bad = triangle();
        if let Some(p) = bad.positions.get_mut(1) {
            p[0] = f32::NAN;
        }
        let bad = scene(vec![bad]);
        assert_eq!(
            glb(&bad).err().map(|e| e.to_string()),
            to_glb(&bad).err().map(|e| e.to_string())
        );
        assert_eq!(
            gltf(&bad).err().map(|e| e.to_string()),
            to_gltf(&bad).err().map(|e| e.to_string())
        );
        // A name holding the mark: the document is made whole, and is the same.
        let mut marked = triangle();
        marked.name = BASE64_MARK.into();
        let marked = scene(vec![marked]);
        let mut streamed = Vec::new();
        gltf(&marked)
            .expect("layout")
            .write_to(&mut streamed)
            .expect("write");
        assert!(streamed == to_gltf(&marked).expect("gltf").as_bytes());
        struct Full;
        impl Write for Full {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                Err(std::io::Error::other("full"))
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let s = scene(vec![triangle()]);
        assert!(glb(&s).expect("layout").write_to(&mut Full).is_err());
    }

    #[test]
    fn gltf_embeds_the_buffer() {
        let text = to_gltf(&scene(vec![triangle()])).expect("gltf");
        let doc: Value = serde_json::from_str(&text).expect("parse");
        let (_, bin) = build(&scene(vec![triangle()])).expect("build");
        let uri = doc["buffers"][0]["uri"].as_str().expect("uri");
        assert_eq!(
            uri.strip_prefix("data:application/octet-stream;base64,"),
            Some(b64(&bin).as_str())
        );
    }

    #[test]
    fn bad_input_is_an_error() {
        let mut p = triangle();
        p.triangles.push([0, 1, 3]);
        assert!(to_gltf(&scene(vec![p])).is_err());
        let mut p = triangle();
        p.uvs = Some(vec![[0.0, 0.0]]);
        assert!(to_glb(&scene(vec![p])).is_err());
        let mut p = triangle();
        if let Some(v) = p.positions.get_mut(1) {
            v[2] = f32::NAN;
        }
        assert!(to_glb(&scene(vec![p])).is_err());
        // Checked even where the primitive would be left out.
        let mut p = triangle();
        p.triangles.clear();
        p.normals = Some(vec![]);
        assert!(to_glb(&scene(vec![p])).is_err());
    }

    fn target(name: &str, deltas: Vec<[f32; 3]>, weight: f32) -> MorphTarget {
        MorphTarget {
            name: name.into(),
            position_deltas: deltas,
            default_weight: weight,
        }
    }

    #[test]
    fn layout_of_morph_targets() {
        let mut a = triangle();
        a.morph_targets = vec![
            target(
                "up",
                vec![[0.0, 1.0, 0.0], [0.0, 2.0, -0.5], [0.0; 3]],
                0.25,
            ),
            target("", vec![[0.5; 3]; 3], 0.0),
        ];
        let mut b = triangle();
        b.name = "tri 2".into();
        b.morph_targets = vec![
            target("side", vec![[1.0, 0.0, 0.0]; 3], 1.0),
            target("up", vec![[0.0, -1.0, 0.0]; 3], 0.75),
        ];
        // No targets at all, and a primitive without triangles (left out, so its
        // target is not the mesh's).
        let plain = triangle();
        let mut unwritten = triangle();
        unwritten.triangles.clear();
        unwritten.morph_targets = vec![target("unseen", vec![[0.0; 3]; 3], 0.0)];
        let (doc, bin) = build(&scene(vec![a, b, plain, unwritten])).expect("build");
        let mesh = &doc["meshes"][0];
        // Matched by name, in order of first appearance; weights from the first.
        assert_eq!(mesh["extras"]["targetNames"], json!(["up", "", "side"]));
        assert_eq!(mesh["weights"], json!([0.25, 0.0, 1.0]));
        let prims = mesh["primitives"].as_array().expect("primitives");
        assert_eq!(prims.len(), 3);
        let acc = |p: usize, k: usize| {
            let i = prims[p]["targets"][k]["POSITION"].as_u64().expect("target");
            &doc["accessors"][i as usize]
        };
        for (p, prim) in prims.iter().enumerate() {
            assert_eq!(prim["targets"].as_array().map(Vec::len), Some(3));
            for k in 0..3 {
                assert_eq!(acc(p, k)["type"], "VEC3");
                assert_eq!(acc(p, k)["componentType"], FLOAT);
                assert_eq!(acc(p, k)["count"], 3);
            }
        }
        // Written targets: a bufferView and the exact bounds.
        let up = acc(0, 0);
        assert_eq!(up["name"], "tri target 0 POSITION");
        assert_eq!(up["min"], json!([0.0, 0.0, -0.5]));
        assert_eq!(up["max"], json!([0.0, 2.0, 0.0]));
        let view = &doc["bufferViews"][up["bufferView"].as_u64().expect("view") as usize];
        assert_eq!(view["target"], ARRAY_BUFFER);
        assert_eq!(view["byteLength"], 36);
        let at = view["byteOffset"].as_u64().expect("offset") as usize + 16;
        assert_eq!(bin.get(at..at + 4), Some(&2.0f32.to_le_bytes()[..]));
        // The second primitive's "up" is its own second target, at slot 0.
        assert_eq!(acc(1, 0)["min"], json!([0.0, -1.0, 0.0]));
        assert_eq!(acc(1, 2)["max"], json!([1.0, 0.0, 0.0]));
        // Padding: no bufferView (zeros), bounds 0.
        for (p, k) in [(0, 2), (1, 1), (2, 0), (2, 1), (2, 2)] {
            let a = acc(p, k);
            assert!(a.get("bufferView").is_none(), "{p} {k}");
            assert_eq!(a["min"], json!([0.0, 0.0, 0.0]));
            assert_eq!(a["max"], json!([0.0, 0.0, 0.0]));
        }
        // A mesh without targets has none of it.
        let (doc, _) = build(&scene(vec![triangle()])).expect("build");
        let mesh = &doc["meshes"][0];
        assert!(mesh.get("weights").is_none() && mesh.get("extras").is_none());
        assert!(mesh["primitives"][0].get("targets").is_none());
    }

    #[test]
    fn bad_morph_targets_are_errors() {
        let with = |t: MorphTarget| {
            let mut p = triangle();
            p.morph_targets = vec![t];
            to_glb(&scene(vec![p]))
        };
        assert!(with(target("ok", vec![[0.0; 3]; 3], 0.5)).is_ok());
        assert!(with(target("short", vec![[0.0; 3]; 2], 0.0)).is_err());
        assert!(with(target("nan", vec![[0.0, f32::NAN, 0.0]; 3], 0.0)).is_err());
        assert!(with(target("weight", vec![[0.0; 3]; 3], f32::INFINITY)).is_err());
    }

    /// Two joints: a root and its child (1 unit up x); inverse bind matrices to match.
    fn skeleton() -> super::super::Skeleton {
        use super::super::Joint;
        let mut child_ibm = super::super::skin::IDENTITY.map(|x| x as f32);
        child_ibm[12] = -1.0;
        super::super::Skeleton {
            joints: vec![
                Joint {
                    name: "child".into(),
                    parent: Some(1),
                    translation: [1.0, 0.0, 0.0],
                    inverse_bind_matrix: child_ibm,
                    ..Joint::default()
                },
                Joint {
                    name: "root".into(),
                    ..Joint::default()
                },
            ],
        }
    }

    fn skinned() -> Primitive {
        Primitive {
            joints: Some(vec![[0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0]]),
            weights: Some(vec![
                [1.0, 0.0, 0.0, 0.0],
                [1.0, 0.0, 0.0, 0.0],
                [0.5, 0.5, 0.0, 0.0],
            ]),
            ..triangle()
        }
    }

    #[test]
    fn layout_of_a_skin() {
        let mut s = scene(vec![skinned(), triangle()]);
        s.meshes.push(ExportMesh {
            lod: 0,
            name: "static".into(),
            primitives: vec![triangle()],
        });
        s.skeleton = Some(skeleton());
        let (doc, bin) = build(&s).expect("build");
        // Mesh nodes, then the joints; one root joint, so no extra node.
        assert_eq!(doc["scenes"], json!([{ "nodes": [0, 1, 3] }]));
        assert_eq!(
            doc["nodes"][0],
            json!({ "name": "m", "mesh": 0, "skin": 0 })
        );
        assert_eq!(doc["nodes"][1], json!({ "name": "static", "mesh": 1 }));
        assert_eq!(
            doc["nodes"][2],
            json!({
                "name": "child",
                "translation": [1.0, 0.0, 0.0],
                "rotation": [0.0, 0.0, 0.0, 1.0],
                "scale": [1.0, 1.0, 1.0],
            })
        );
        assert_eq!(doc["nodes"][3]["children"], json!([2]));
        assert_eq!(doc["nodes"].as_array().map(Vec::len), Some(4));
        let skin = &doc["skins"][0];
        assert_eq!(skin["joints"], json!([2, 3]));
        assert_eq!(skin["skeleton"], 3);
        let ibm = &doc["accessors"][skin["inverseBindMatrices"].as_u64().expect("ibm") as usize];
        assert_eq!(ibm["type"], "MAT4");
        assert_eq!(ibm["count"], 2);
        let view = &doc["bufferViews"][ibm["bufferView"].as_u64().expect("view") as usize];
        assert!(view.get("target").is_none());
        assert_eq!(view["byteLength"], 128);
        // The child's translation column, -1 in x, is the first matrix's element 12.
        let at = view["byteOffset"].as_u64().expect("offset") as usize + 48;
        assert_eq!(bin.get(at..at + 4), Some(&(-1.0f32).to_le_bytes()[..]));
        // Both primitives of the skinned mesh are skinned; the second bound to joint 0.
        for k in 0..2 {
            let prim = &doc["meshes"][0]["primitives"][k];
            let joints =
                &doc["accessors"][prim["attributes"]["JOINTS_0"].as_u64().expect("j") as usize];
            assert_eq!(joints["componentType"], 5121);
            assert_eq!(joints["type"], "VEC4");
            let view = &doc["bufferViews"][joints["bufferView"].as_u64().expect("view") as usize];
            assert_eq!(view["byteLength"], 12);
            let at = view["byteOffset"].as_u64().expect("offset") as usize;
            let want: &[u8] = if k == 0 {
                &[0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0]
            } else {
                &[0; 12]
            };
            assert_eq!(bin.get(at..at + 12), Some(want));
            assert!(prim["attributes"]["WEIGHTS_0"].is_u64());
        }
        assert!(doc["meshes"][1]["primitives"][0]["attributes"]
            .get("JOINTS_0")
            .is_none());

        // Several roots get a common one; more than 256 joints take 16-bit indices.
        let mut s = scene(vec![skinned()]);
        let mut sk = skeleton();
        sk.joints.iter_mut().for_each(|j| j.parent = None);
        sk.joints
            .extend(std::iter::repeat_n(super::super::Joint::default(), 300));
        s.skeleton = Some(sk);
        let (doc, _) = build(&s).expect("build");
        assert_eq!(doc["nodes"].as_array().map(Vec::len), Some(1 + 302 + 1));
        assert_eq!(doc["nodes"][303]["name"], "skeleton");
        assert_eq!(
            doc["nodes"][303]["children"],
            json!((1..303).collect::<Vec<_>>())
        );
        assert_eq!(doc["scenes"], json!([{ "nodes": [0, 303] }]));
        assert_eq!(doc["skins"][0]["skeleton"], 303);
        let prim = &doc["meshes"][0]["primitives"][0];
        let joints =
            &doc["accessors"][prim["attributes"]["JOINTS_0"].as_u64().expect("j") as usize];
        assert_eq!(joints["componentType"], 5123);
    }

    #[test]
    fn a_skeleton_alone_is_written() {
        let s = Scene {
            skeleton: Some(skeleton()),
            notes: Vec::new(),
            ..Scene::default()
        };
        let (doc, bin) = build(&s).expect("build");
        assert_eq!(doc["scenes"], json!([{ "nodes": [1] }]));
        assert!(doc.get("meshes").is_none());
        assert_eq!(doc["skins"][0]["joints"], json!([0, 1]));
        assert_eq!(bin.len(), 128);
        // An empty skeleton is none.
        let s = Scene {
            skeleton: Some(super::super::Skeleton::default()),
            notes: Vec::new(),
            ..Scene::default()
        };
        let (doc, _) = build(&s).expect("build");
        assert_eq!(doc["scenes"], json!([{}]));
        assert!(doc.get("skins").is_none());
    }

    #[test]
    fn layout_of_animations() {
        use super::super::{Animation, Channel, ChannelValues};
        let channel = |joint, times: Vec<f32>, values| Channel {
            joint,
            times,
            values,
        };
        let mut s = scene(vec![skinned()]);
        s.skeleton = Some(skeleton());
        s.animations = vec![Animation {
            name: "clip".into(),
            channels: vec![
                channel(
                    1,
                    vec![0.0, 0.5],
                    ChannelValues::Translation(vec![[0.0; 3], [1.0, 2.0, 3.0]]),
                ),
                channel(
                    0,
                    vec![0.0, 0.5],
                    ChannelValues::Rotation(vec![[0.0, 0.0, 0.0, 1.0]; 2]),
                ),
                channel(0, vec![0.25], ChannelValues::Scale(vec![[2.0; 3]])),
            ],
        }];
        let (doc, bin) = build(&s).expect("build");
        let a = &doc["animations"][0];
        assert_eq!(a["name"], "clip");
        // Joint nodes come after the one mesh node.
        assert_eq!(
            a["channels"][0],
            json!({ "sampler": 0, "target": { "node": 2, "path": "translation" } })
        );
        assert_eq!(
            a["channels"][1]["target"],
            json!({ "node": 1, "path": "rotation" })
        );
        assert_eq!(a["channels"][2]["target"]["path"], "scale");
        let sampler = |k: usize| &a["samplers"][k];
        assert_eq!(sampler(0)["interpolation"], "LINEAR");
        // Equal times share their accessor.
        assert_eq!(sampler(0)["input"], sampler(1)["input"]);
        assert_ne!(sampler(0)["input"], sampler(2)["input"]);
        let acc = |v: &Value| &doc["accessors"][v.as_u64().expect("accessor") as usize];
        let input = acc(&sampler(0)["input"]);
        assert_eq!(input["type"], "SCALAR");
        assert_eq!(input["min"], json!([0.0]));
        assert_eq!(input["max"], json!([0.5]));
        assert_eq!(acc(&sampler(1)["output"])["type"], "VEC4");
        let out = acc(&sampler(0)["output"]);
        assert_eq!(out["type"], "VEC3");
        let view = &doc["bufferViews"][out["bufferView"].as_u64().expect("view") as usize];
        assert!(view.get("target").is_none());
        let at = view["byteOffset"].as_u64().expect("offset") as usize + 20;
        assert_eq!(bin.get(at..at + 4), Some(&3.0f32.to_le_bytes()[..]));

        // Bad animations: no channels, a joint out of range, a duplicate target,
        // times not increasing or negative, a count mismatch, a non-unit rotation.
        let bad = |a: Animation| {
            let mut s = s.clone();
            s.animations = vec![a];
            to_glb(&s).is_err()
        };
        let with = |c: Vec<Channel>| Animation {
            name: "bad".into(),
            channels: c,
        };
        let t = |v: [f32; 3]| ChannelValues::Translation(vec![v]);
        assert!(bad(with(vec![])));
        assert!(bad(with(vec![channel(2, vec![0.0], t([0.0; 3]))])));
        assert!(bad(with(vec![
            channel(0, vec![0.0], t([0.0; 3])),
            channel(0, vec![1.0], t([1.0; 3])),
        ])));
        let two = ChannelValues::Scale(vec![[1.0; 3]; 2]);
        assert!(bad(with(vec![channel(0, vec![1.0, 1.0], two.clone())])));
        assert!(bad(with(vec![channel(0, vec![-1.0, 1.0], two.clone())])));
        assert!(bad(with(vec![channel(0, vec![1.0], two)])));
        assert!(bad(with(vec![channel(0, vec![0.0], t([f32::NAN; 3]))])));
        let r = ChannelValues::Rotation(vec![[0.0, 0.0, 0.0, 2.0]]);
        assert!(bad(with(vec![channel(0, vec![0.0], r)])));
        // Without a skeleton there is no joint to animate.
        let mut none = s.clone();
        none.skeleton = None;
        none.meshes.clear();
        assert!(to_glb(&none).is_err());
    }

    #[test]
    fn bad_skins_are_errors() {
        let with = |p: Primitive, sk: super::super::Skeleton| {
            let mut s = scene(vec![p]);
            s.skeleton = Some(sk);
            to_glb(&s)
        };
        assert!(with(skinned(), skeleton()).is_ok());
        // Joints without a skeleton, or past its end.
        assert!(to_glb(&scene(vec![skinned()])).is_err());
        let mut p = skinned();
        p.joints = Some(vec![[0, 0, 0, 0], [2, 0, 0, 0], [0, 0, 0, 0]]);
        assert!(with(p, skeleton()).is_err());
        // Joints without weights, wrong lengths, negative or NaN weights.
        let mut p = skinned();
        p.weights = None;
        assert!(with(p, skeleton()).is_err());
        let mut p = skinned();
        p.joints = Some(vec![[0; 4]; 2]);
        assert!(with(p, skeleton()).is_err());
        for bad in [-0.5, f32::NAN] {
            let mut p = skinned();
            p.weights = Some(vec![[1.0, 0.0, 0.0, bad]; 3]);
            assert!(with(p, skeleton()).is_err());
        }
        // Parents out of range or in a cycle.
        let mut sk = skeleton();
        sk.joints[1].parent = Some(2);
        assert!(with(skinned(), sk).is_err());
        let mut sk = skeleton();
        sk.joints[1].parent = Some(0);
        assert!(with(skinned(), sk).is_err());
        // Not a unit quaternion; an inverse bind matrix with a bad last row; NaN.
        let mut sk = skeleton();
        sk.joints[0].rotation = [0.0, 0.0, 0.0, 2.0];
        assert!(with(skinned(), sk).is_err());
        let mut sk = skeleton();
        sk.joints[0].inverse_bind_matrix[3] = 0.5;
        assert!(with(skinned(), sk).is_err());
        let mut sk = skeleton();
        sk.joints[1].translation[2] = f32::INFINITY;
        assert!(with(skinned(), sk).is_err());
    }
}
