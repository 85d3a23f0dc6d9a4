//! glTF 2.0 export: a `.gltf` JSON document with its buffer embedded as a base64 data
//! URI ([`to_gltf`]), or a binary `.glb` ([`to_glb`]).
//!
//! The layout is the same in both:
//!
//! - one scene (`scene: 0`) with one node per mesh, in scene order;
//! - one glTF mesh per [`ExportMesh`](super::ExportMesh) (named as it is), with one
//!   triangle primitive (mode 4) per [`Primitive`] (its name in the primitive's
//!   `extras.name` and in its accessors' names);
//! - one buffer; for each primitive, in order, a tightly packed bufferView and accessor
//!   for `POSITION` (FLOAT VEC3, with the exact `min`/`max`), `NORMAL` (FLOAT VEC3),
//!   `TEXCOORD_0` (FLOAT VEC2) and `COLOR_0` (FLOAT VEC4) when the primitive has them
//!   (target 34962), then the indices (UNSIGNED_INT SCALAR, target 34963). Every
//!   bufferView starts at a multiple of 4 bytes.
//!
//! glTF allows no empty arrays and no empty accessors, so primitives without triangles
//! are left out, and so are meshes left without primitives; a scene with nothing to write
//! gives a document whose only scene is empty (`{}`), with no buffer.
//!
//! Values that glTF cannot hold (NaN or infinite coordinates) are errors, not silently
//! changed.

use serde_json::{json, Map, Value};

use super::{Primitive, Scene};
use crate::error::{Error, ErrorKind, Result};

/// `componentType` FLOAT.
const FLOAT: u32 = 5126;
/// `componentType` UNSIGNED_INT.
const UNSIGNED_INT: u32 = 5125;
/// bufferView `target` ARRAY_BUFFER (vertex data).
const ARRAY_BUFFER: u32 = 34962;
/// bufferView `target` ELEMENT_ARRAY_BUFFER (indices).
const ELEMENT_ARRAY_BUFFER: u32 = 34963;
/// Primitive `mode` TRIANGLES.
const TRIANGLES: u32 = 4;

/// GLB magic, `glTF`.
const GLB_MAGIC: u32 = 0x4654_6C67;
/// GLB chunk type `JSON`.
const CHUNK_JSON: u32 = 0x4E4F_534A;
/// GLB chunk type `BIN\0`.
const CHUNK_BIN: u32 = 0x004E_4942;

/// The scene as a glTF 2.0 JSON document, its one buffer embedded as a
/// `data:application/octet-stream;base64,` URI.
///
/// Fails if a primitive is inconsistent ([`Primitive::check`]) or holds a value glTF
/// cannot (NaN or infinity).
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

/// The scene as a binary glTF (`.glb`): the 12-byte header, the JSON chunk (padded with
/// spaces to 4 bytes), and the BIN chunk holding the buffer (padded with zeros), left out
/// when there is no buffer.
///
/// Fails as [`to_gltf`] does, and if the file would pass the 4 GiB GLB limit.
pub fn to_glb(scene: &Scene) -> Result<Vec<u8>> {
    let (doc, mut bin) = build(scene)?;
    let mut json = serde_json::to_vec(&doc).map_err(json_error)?;
    pad(&mut json, b' ');
    pad(&mut bin, 0);
    let chunk = |data: &[u8]| 8 + data.len();
    let total = 12 + chunk(&json) + if bin.is_empty() { 0 } else { chunk(&bin) };
    let u32_len = |n: usize| {
        u32::try_from(n).map_err(|_| {
            Error::new(
                "glTF export",
                ErrorKind::Invalid(format!("{n} bytes are more than a GLB file can hold")),
            )
        })
    };
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(&GLB_MAGIC.to_le_bytes());
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&u32_len(total)?.to_le_bytes());
    for (kind, data) in [(CHUNK_JSON, &json), (CHUNK_BIN, &bin)] {
        if data.is_empty() {
            continue;
        }
        out.extend_from_slice(&u32_len(data.len())?.to_le_bytes());
        out.extend_from_slice(&kind.to_le_bytes());
        out.extend_from_slice(data);
    }
    Ok(out)
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

/// The document (its buffer without a `uri`) and the buffer's bytes.
fn build(scene: &Scene) -> Result<(Value, Vec<u8>)> {
    let mut w = Writer::default();
    let mut meshes = Vec::new();
    let mut nodes = Vec::new();
    for mesh in &scene.meshes {
        let mut primitives = Vec::new();
        for prim in &mesh.primitives {
            prim.check()?;
            if prim.triangles.is_empty() {
                continue;
            }
            primitives.push(w.primitive(prim)?);
        }
        if primitives.is_empty() {
            continue;
        }
        nodes.push(json!({ "name": mesh.name, "mesh": meshes.len() }));
        meshes.push(json!({ "name": mesh.name, "primitives": primitives }));
    }

    let mut doc = Map::new();
    doc.insert(
        "asset".into(),
        json!({ "version": "2.0", "generator": "meshcodec" }),
    );
    doc.insert("scene".into(), json!(0));
    let scene_obj = if nodes.is_empty() {
        json!({})
    } else {
        json!({ "nodes": (0..nodes.len()).collect::<Vec<_>>() })
    };
    doc.insert("scenes".into(), json!([scene_obj]));
    if !nodes.is_empty() {
        doc.insert("nodes".into(), Value::Array(nodes));
        doc.insert("meshes".into(), Value::Array(meshes));
        doc.insert("accessors".into(), Value::Array(w.accessors));
        doc.insert("bufferViews".into(), Value::Array(w.views));
        doc.insert("buffers".into(), json!([{ "byteLength": w.bin.len() }]));
    }
    Ok((Value::Object(doc), w.bin))
}

/// The buffer, bufferViews and accessors as they grow.
#[derive(Default)]
struct Writer {
    bin: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
}

impl Writer {
    /// Writes one primitive's arrays; returns the glTF primitive.
    fn primitive(&mut self, p: &Primitive) -> Result<Value> {
        let mut attributes = Map::new();
        finite(p, "position", p.positions.iter().flatten())?;
        let position = self.floats("POSITION", p, &p.positions, Some(bounds(&p.positions)));
        attributes.insert("POSITION".into(), json!(position));
        if let Some(n) = &p.normals {
            finite(p, "normal", n.iter().flatten())?;
            attributes.insert("NORMAL".into(), json!(self.floats("NORMAL", p, n, None)));
        }
        if let Some(uv) = &p.uvs {
            finite(p, "UV", uv.iter().flatten())?;
            let a = self.floats("TEXCOORD_0", p, uv, None);
            attributes.insert("TEXCOORD_0".into(), json!(a));
        }
        if let Some(c) = &p.colors {
            finite(p, "colour", c.iter().flatten())?;
            attributes.insert("COLOR_0".into(), json!(self.floats("COLOR_0", p, c, None)));
        }

        let view = self.view(
            p.triangles.iter().flatten().flat_map(|i| i.to_le_bytes()),
            ELEMENT_ARRAY_BUFFER,
        );
        let indices = self.accessor(json!({
            "name": format!("{} indices", p.name),
            "bufferView": view,
            "componentType": UNSIGNED_INT,
            "count": p.triangles.len() * 3,
            "type": "SCALAR",
        }));
        Ok(json!({
            "attributes": attributes,
            "indices": indices,
            "mode": TRIANGLES,
            "extras": { "name": p.name },
        }))
    }

    /// A bufferView and FLOAT accessor of `N`-vectors; returns the accessor's index.
    fn floats<const N: usize>(
        &mut self,
        semantic: &str,
        p: &Primitive,
        values: &[[f32; N]],
        min_max: Option<(Vec<f32>, Vec<f32>)>,
    ) -> usize {
        let view = self.view(
            values.iter().flatten().flat_map(|x| x.to_le_bytes()),
            ARRAY_BUFFER,
        );
        let mut a = json!({
            "name": format!("{} {semantic}", p.name),
            "bufferView": view,
            "componentType": FLOAT,
            "count": values.len(),
            "type": match N { 2 => "VEC2", 3 => "VEC3", _ => "VEC4" },
        });
        if let (Some((min, max)), Some(obj)) = (min_max, a.as_object_mut()) {
            // Through f64, so the JSON number is the f32 value exactly.
            let num = |v: Vec<f32>| v.into_iter().map(f64::from).collect::<Vec<_>>();
            obj.insert("min".into(), json!(num(min)));
            obj.insert("max".into(), json!(num(max)));
        }
        self.accessor(a)
    }

    /// Appends a bufferView at a 4-byte aligned offset; returns its index.
    fn view(&mut self, bytes: impl Iterator<Item = u8>, target: u32) -> usize {
        pad(&mut self.bin, 0);
        let start = self.bin.len();
        self.bin.extend(bytes);
        self.views.push(json!({
            "buffer": 0,
            "byteOffset": start,
            "byteLength": self.bin.len() - start,
            "target": target,
        }));
        self.views.len() - 1
    }

    fn accessor(&mut self, a: Value) -> usize {
        self.accessors.push(a);
        self.accessors.len() - 1
    }
}

/// Component-wise minimum and maximum (of a non-empty, finite array).
fn bounds<const N: usize>(values: &[[f32; N]]) -> (Vec<f32>, Vec<f32>) {
    let mut min = [f32::INFINITY; N];
    let mut max = [f32::NEG_INFINITY; N];
    for v in values {
        for ((lo, hi), &x) in min.iter_mut().zip(max.iter_mut()).zip(v) {
            *lo = lo.min(x);
            *hi = hi.max(x);
        }
    }
    (min.to_vec(), max.to_vec())
}

/// Fails on the first NaN or infinite value.
fn finite<'a>(p: &Primitive, what: &str, mut values: impl Iterator<Item = &'a f32>) -> Result<()> {
    match values.find(|x| !x.is_finite()) {
        Some(x) => Err(Error::new(
            "glTF export",
            ErrorKind::Invalid(format!(
                "primitive {:?}: {what} component {x} cannot be written to glTF",
                p.name
            )),
        )),
        None => Ok(()),
    }
}

/// Standard base64 (RFC 4648, with padding), appended to `out`.
fn base64_into(data: &[u8], out: &mut String) {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let sym = |i: u32| char::from(ALPHABET.get((i & 63) as usize).copied().unwrap_or(b'A'));
    out.reserve(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = |i: usize| u32::from(chunk.get(i).copied().unwrap_or(0));
        let n = (b(0) << 16) | (b(1) << 8) | b(2);
        out.push(sym(n >> 18));
        out.push(sym(n >> 12));
        out.push(if chunk.len() > 1 { sym(n >> 6) } else { '=' });
        out.push(if chunk.len() > 2 { sym(n) } else { '=' });
    }
}

#[cfg(test)]
// Test code: a failed index is a failed test (and `Value` indexing cannot panic).
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::super::ExportMesh;
    use super::*;

    fn triangle() -> Primitive {
        Primitive {
            name: "tri".into(),
            positions: vec![[0.0, 0.0, 0.0], [1.0, -0.0, 0.1], [-2.5, 3.0, 0.0]],
            normals: Some(vec![[0.0, 0.0, 1.0]; 3]),
            uvs: Some(vec![[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]),
            colors: Some(vec![[1.0, 0.5, 0.25, 1.0]; 3]),
            triangles: vec![[0, 1, 2]],
        }
    }

    fn scene(prims: Vec<Primitive>) -> Scene {
        Scene {
            meshes: vec![ExportMesh {
                name: "m".into(),
                primitives: prims,
            }],
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
}
