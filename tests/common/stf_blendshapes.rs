//! A hand-built STF file with blendshapes (no fixture or corpus file has any), written
//! here from the numbers below as `stf-mesh.txt` describes them, for the decoding test
//! (`tests/formats/stf.rs`) and the export test (`tests/interchange/export.rs`).

use meshcodec::stf::StfContainer;
use serde_json::{json, Value};

/// A blendshape as written: name (`None`: no `name` key), default value and limits
/// (`None`: not written, so the defaults 0, 1 and 0 apply), vertex indices (`None`: an
/// offset per vertex), offsets, split indices and split normals (`None`: not written).
pub struct Shape {
    pub name: Option<&'static str>,
    pub default_value: Option<f64>,
    pub limit_upper: Option<f64>,
    pub limit_lower: Option<f64>,
    pub indices: Option<Vec<u64>>,
    pub position_offsets: Vec<[f64; 3]>,
    pub split_indices: Option<Vec<u64>>,
    pub split_normals: Option<Vec<[f64; 3]>>,
}

/// One mesh as written.
pub struct Mesh {
    pub id: &'static str,
    pub name: &'static str,
    pub float_width: u64,
    pub indices_width: u64,
    /// Buffers referenced through `referenced_buffers` (else by buffer id).
    pub new_style: bool,
    pub vertices: Vec<[f64; 3]>,
    pub splits: Vec<u64>,
    pub face_corners: Vec<u64>,
    pub tris: Vec<[u64; 3]>,
    pub faces: Vec<u64>,
    pub shapes: Vec<Shape>,
}

/// A pyramid on a unit square (5 vertices; split 5 is vertex 0 again): 3 triangles in
/// 2 faces, with normals.
fn pyramid(id: &'static str, float_width: u64, indices_width: u64, new_style: bool) -> Mesh {
    Mesh {
        id,
        name: id,
        float_width,
        indices_width,
        new_style,
        vertices: vec![
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [1.0, 1.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.5, 0.5, 1.0],
        ],
        splits: vec![0, 1, 2, 3, 4, 0],
        face_corners: vec![0, 1, 2, 3, 4, 5],
        tris: vec![[0, 2, 1], [0, 3, 2], [5, 1, 4]],
        faces: vec![2, 1],
        shapes: Vec::new(),
    }
}

/// The meshes of [`container`]: `lift` (f32 floats, u16 indices, new-style references)
/// has three blendshapes — indexed offsets with split normals and a default value;
/// offsets for every vertex with nothing else; no name, limits, and offsets for every
/// vertex — and `drop` (f64 floats, u32 indices, old-style references) one indexed
/// blendshape whose offsets are not f32 values. `plain` has no blendshapes.
pub fn meshes() -> Vec<Mesh> {
    let mut lift = pyramid("lift", 4, 2, true);
    lift.shapes = vec![
        Shape {
            name: Some("raise tip"),
            default_value: Some(0.5),
            limit_upper: None,
            limit_lower: None,
            indices: Some(vec![4, 1]),
            position_offsets: vec![[0.125, -0.5, 1.5], [0.0, 0.0, 0.25]],
            split_indices: Some(vec![1, 4]),
            split_normals: Some(vec![[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]]),
        },
        Shape {
            name: Some("every vertex"),
            default_value: None,
            limit_upper: None,
            limit_lower: None,
            indices: None,
            position_offsets: (0..5)
                .map(|i| [f64::from(0.1f32 * i as f32), f64::from(-0.2f32), 3.0])
                .collect(),
            split_indices: None,
            split_normals: None,
        },
        Shape {
            name: None,
            default_value: Some(0.0),
            limit_upper: Some(2.0),
            limit_lower: Some(-1.0),
            indices: None,
            position_offsets: vec![[-1.0, 0.0, 0.0]; 5],
            split_indices: None,
            split_normals: None,
        },
    ];
    let mut drop = pyramid("drop", 8, 4, false);
    drop.shapes = vec![Shape {
        name: Some("sink"),
        default_value: Some(1.0),
        limit_upper: None,
        limit_lower: None,
        indices: Some(vec![0, 4]),
        position_offsets: vec![[0.0, 0.0, -0.1], [1e-3, 2.0 / 3.0, -1.0]],
        split_indices: None,
        split_normals: None,
    }];
    let plain = pyramid("plain", 4, 4, true);
    vec![lift, drop, plain]
}

fn floats(v: &[[f64; 3]], width: u64) -> Vec<u8> {
    v.iter()
        .flatten()
        .flat_map(|&x| match width {
            8 => x.to_le_bytes().to_vec(),
            _ => (x as f32).to_le_bytes().to_vec(),
        })
        .collect()
}

fn uints(v: impl IntoIterator<Item = u64>, width: u64) -> Vec<u8> {
    v.into_iter()
        .flat_map(|x| x.to_le_bytes()[..width as usize].to_vec())
        .collect()
}

/// The file: [`meshes`] as `stf.mesh` resources.
pub fn container() -> StfContainer {
    let mut buffers: Vec<Vec<u8>> = Vec::new();
    let mut buffer_index = serde_json::Map::new();
    let mut resources = serde_json::Map::new();
    for m in meshes() {
        let mut referenced: Vec<String> = Vec::new();
        // Adds a buffer; returns how the mesh refers to it.
        let mut add = |bytes: Vec<u8>| -> Value {
            let id = format!("buffer-{}", buffers.len());
            buffer_index.insert(
                id.clone(),
                json!({ "type": "stf.buffer.included", "index": buffers.len() }),
            );
            buffers.push(bytes);
            if m.new_style {
                referenced.push(id);
                json!(referenced.len() - 1)
            } else {
                json!(id)
            }
        };
        let (fw, iw) = (m.float_width, m.indices_width);
        let mut r = json!({
            "type": "stf.mesh",
            "name": m.name,
            "float_width": fw,
            "indices_width": iw,
        });
        let obj = r.as_object_mut().unwrap();
        obj.insert("vertices".into(), add(floats(&m.vertices, fw)));
        obj.insert(
            "face_corners".into(),
            add(uints(m.face_corners.clone(), iw)),
        );
        obj.insert("splits".into(), add(uints(m.splits.clone(), iw)));
        obj.insert(
            "split_normals".into(),
            add(floats(&vec![[0.0, 0.0, 1.0]; m.splits.len()], fw)),
        );
        obj.insert(
            "tris".into(),
            add(uints(m.tris.iter().flatten().copied(), iw)),
        );
        obj.insert("faces".into(), add(uints(m.faces.clone(), iw)));
        if !m.shapes.is_empty() {
            let mut list = Vec::new();
            for s in &m.shapes {
                let mut b = serde_json::Map::new();
                if let Some(n) = s.name {
                    b.insert("name".into(), json!(n));
                }
                for (k, v) in [
                    ("default_value", s.default_value),
                    ("limit_upper", s.limit_upper),
                    ("limit_lower", s.limit_lower),
                ] {
                    if let Some(v) = v {
                        b.insert(k.into(), json!(v));
                    }
                }
                if let Some(i) = &s.indices {
                    b.insert("indices".into(), add(uints(i.clone(), iw)));
                }
                b.insert(
                    "position_offsets".into(),
                    add(floats(&s.position_offsets, fw)),
                );
                if let Some(i) = &s.split_indices {
                    b.insert("split_indices".into(), add(uints(i.clone(), iw)));
                }
                if let Some(n) = &s.split_normals {
                    b.insert("split_normals".into(), add(floats(n, fw)));
                }
                list.push(Value::Object(b));
            }
            obj.insert("blendshapes".into(), Value::Array(list));
        }
        if m.new_style {
            obj.insert("referenced_buffers".into(), json!(referenced));
        }
        resources.insert(m.id.into(), r);
    }
    let doc = json!({ "resources": resources, "buffers": buffer_index });
    StfContainer {
        version_major: 0,
        version_minor: 0,
        json: (serde_json::to_vec(&doc).unwrap()).into(),
        buffers,
        ..StfContainer::default()
    }
}
