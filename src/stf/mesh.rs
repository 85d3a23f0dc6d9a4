//! `stf.mesh` resources: the mesh arrays an STF file's JSON points at, decoded from its
//! buffers (spec: `stf-mesh.txt`; FORMAT-NOTES "STF").
//!
//! Data model: a face is one or more triangles; a triangle is three face corners; a face
//! corner names a split; a split names a vertex (position) and carries normals, UVs and
//! colours. So `tris` holds face-corner indices, `face_corners[c]` a split, `splits[s]` a
//! vertex, and `faces[f]` the number of triangles of face `f`.
//!
//! Buffer references come in two styles, both accepted: an integer that indexes the
//! resource's `referenced_buffers` (new files), or the buffer's id itself (old files).
//! Either way the id names `{"type": "stf.buffer.included", "index": k}`: binary buffer
//! `k`.

use serde::Serialize;
use serde_json::Value;

use super::container::StfContainer;
use crate::error::{Error, ErrorKind, Result};

/// A decoded `stf.mesh` resource.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct StfMesh {
    /// The resource id.
    pub id: String,
    /// The resource name.
    pub name: String,
    /// Bytes per float in the buffers (4 or 8).
    pub float_width: u64,
    /// Bytes per index (1, 2, 4 or 8).
    pub indices_width: u64,
    /// Vertex positions.
    pub vertices: Vec<[f64; 3]>,
    /// Per face corner, its split.
    pub face_corners: Vec<u64>,
    /// Per split, its vertex.
    pub splits: Vec<u64>,
    /// Per split, a normal.
    pub split_normals: Option<Vec<[f64; 3]>>,
    /// Per split, an RGBA colour.
    pub split_colors: Option<Vec<[f64; 4]>>,
    /// UV sets: name and one UV per split.
    pub uvs: Vec<(String, Vec<[f64; 2]>)>,
    /// Triangles, as three face-corner indices.
    pub tris: Vec<[u64; 3]>,
    /// Per face, its number of triangles.
    pub faces: Vec<u64>,
    /// Per face, its material slot.
    pub material_indices: Option<Vec<u64>>,
    /// Material resource ids, by slot (`null` slots as `None`).
    pub material_slots: Vec<Option<String>>,
}

/// An error about the JSON or a buffer of mesh `id`.
fn bad(what: String) -> Error {
    Error::new("STF", ErrorKind::Invalid(what))
}

/// The parsed JSON document of a container.
pub fn document(c: &StfContainer) -> Result<Value> {
    serde_json::from_slice(&c.json).map_err(|e| {
        Error::at(
            // The JSON starts after the 16-byte header and the length table.
            16 + 8 * (c.buffers.len() as u64 + 1),
            "STF JSON",
            ErrorKind::Invalid(format!("line {}, column {}: {e}", e.line(), e.column())),
        )
    })
}

/// Every `stf.mesh` resource of the file, decoded, in the JSON's order.
pub fn meshes(c: &StfContainer) -> Result<Vec<StfMesh>> {
    let doc = document(c)?;
    let Some(resources) = doc.get("resources").and_then(Value::as_object) else {
        return Err(bad("the JSON has no \"resources\" object".into()));
    };
    resources
        .iter()
        .filter(|(_, r)| r.get("type").and_then(Value::as_str) == Some("stf.mesh"))
        .map(|(id, r)| {
            MeshReader {
                c,
                doc: &doc,
                id,
                r,
            }
            .read()
        })
        .collect()
}

/// Resolves and decodes the buffers of one mesh resource.
struct MeshReader<'a> {
    c: &'a StfContainer,
    doc: &'a Value,
    id: &'a str,
    r: &'a Value,
}

impl MeshReader<'_> {
    fn err(&self, what: impl std::fmt::Display) -> Error {
        bad(format!("mesh {}: {what}", self.id))
    }

    /// A non-negative integer property, or its default.
    fn uint(&self, key: &str, default: u64) -> Result<u64> {
        match self.r.get(key) {
            None | Some(Value::Null) => Ok(default),
            Some(v) => v
                .as_u64()
                .ok_or_else(|| self.err(format!("{key} is not a non-negative integer: {v}"))),
        }
    }

    /// The bytes of the buffer a property names (`None` if the property is absent).
    fn buffer(&self, reference: Option<&Value>, key: &str) -> Result<Option<&[u8]>> {
        let id = match reference {
            None | Some(Value::Null) => return Ok(None),
            Some(Value::String(s)) => s.as_str(),
            Some(Value::Number(n)) => {
                let k = n
                    .as_u64()
                    .ok_or_else(|| self.err(format!("{key}: buffer reference {n}")))?;
                self.r
                    .get("referenced_buffers")
                    .and_then(|b| b.get(k as usize))
                    .and_then(Value::as_str)
                    .ok_or_else(|| {
                        self.err(format!("{key}: referenced_buffers has no entry {k}"))
                    })?
            }
            Some(v) => return Err(self.err(format!("{key}: not a buffer reference: {v}"))),
        };
        let entry = self
            .doc
            .get("buffers")
            .and_then(|b| b.get(id))
            .ok_or_else(|| self.err(format!("{key}: no buffer {id}")))?;
        let kind = entry.get("type").and_then(Value::as_str).unwrap_or("");
        if kind != "stf.buffer.included" {
            return Err(self.err(format!("{key}: buffer {id} has type {kind:?}")));
        }
        let index = entry
            .get("index")
            .and_then(Value::as_u64)
            .ok_or_else(|| self.err(format!("{key}: buffer {id} has no index")))?;
        self.c
            .buffers
            .get(index as usize)
            .map(|b| Some(b.as_slice()))
            .ok_or_else(|| {
                self.err(format!(
                    "{key}: buffer index {index}, but the file has {} buffers",
                    self.c.buffers.len()
                ))
            })
    }

    /// A required or optional buffer, as elements of `n` values of `width` bytes.
    fn chunks<'b>(
        &self,
        bytes: &'b [u8],
        key: &str,
        width: u64,
        n: usize,
    ) -> Result<Vec<&'b [u8]>> {
        let size = width as usize * n;
        if !bytes.len().is_multiple_of(size) {
            return Err(self.err(format!(
                "{key}: {} bytes is not a whole number of {n} × {width}-byte values",
                bytes.len()
            )));
        }
        Ok(bytes.chunks_exact(size).collect())
    }

    fn floats<const N: usize>(&self, bytes: &[u8], key: &str, width: u64) -> Result<Vec<[f64; N]>> {
        Ok(self
            .chunks(bytes, key, width, N)?
            .into_iter()
            .map(|c| {
                let mut v = [0.0; N];
                for (x, b) in v.iter_mut().zip(c.chunks_exact(width as usize)) {
                    *x = float(b);
                }
                v
            })
            .collect())
    }

    fn uints<const N: usize>(&self, bytes: &[u8], key: &str, width: u64) -> Result<Vec<[u64; N]>> {
        Ok(self
            .chunks(bytes, key, width, N)?
            .into_iter()
            .map(|c| {
                let mut v = [0u64; N];
                for (x, b) in v.iter_mut().zip(c.chunks_exact(width as usize)) {
                    *x = uint(b);
                }
                v
            })
            .collect())
    }

    fn required(&self, key: &str) -> Result<&[u8]> {
        self.buffer(self.r.get(key), key)?
            .ok_or_else(|| self.err(format!("{key} is required")))
    }

    fn read(&self) -> Result<StfMesh> {
        let float_width = self.uint("float_width", 4)?;
        let indices_width = self.uint("indices_width", 4)?;
        let material_width = self.uint("material_indices_width", 4)?;
        if !matches!(float_width, 4 | 8) {
            return Err(self.err(format!("float_width {float_width}: 4 or 8 expected")));
        }
        for (k, w) in [
            ("indices_width", indices_width),
            ("material_indices_width", material_width),
        ] {
            if !matches!(w, 1 | 2 | 4 | 8) {
                return Err(self.err(format!("{k} {w}: 1, 2, 4 or 8 expected")));
            }
        }
        let flat = |v: Vec<[u64; 1]>| v.into_iter().map(|[x]| x).collect::<Vec<u64>>();
        let optional_floats3 = |key: &str| -> Result<Option<Vec<[f64; 3]>>> {
            self.buffer(self.r.get(key), key)?
                .map(|b| self.floats::<3>(b, key, float_width))
                .transpose()
        };
        let mut uvs = Vec::new();
        if let Some(list) = self.r.get("uvs").and_then(Value::as_array) {
            for (i, uv) in list.iter().enumerate() {
                let name = uv
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string();
                let key = format!("uvs[{i}].uv");
                let bytes = self
                    .buffer(uv.get("uv"), &key)?
                    .ok_or_else(|| self.err(format!("{key} is required")))?;
                uvs.push((name, self.floats::<2>(bytes, "uv", float_width)?));
            }
        }
        let material_slots = self
            .r
            .get("material_slots")
            .and_then(Value::as_array)
            .map(|a| a.iter().map(|v| v.as_str().map(str::to_string)).collect())
            .unwrap_or_default();
        Ok(StfMesh {
            id: self.id.to_string(),
            name: self
                .r
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            float_width,
            indices_width,
            vertices: self.floats::<3>(self.required("vertices")?, "vertices", float_width)?,
            face_corners: flat(self.uints::<1>(
                self.required("face_corners")?,
                "face_corners",
                indices_width,
            )?),
            splits: flat(self.uints::<1>(self.required("splits")?, "splits", indices_width)?),
            split_normals: optional_floats3("split_normals")?,
            split_colors: self
                .buffer(self.r.get("split_colors"), "split_colors")?
                .map(|b| self.floats::<4>(b, "split_colors", float_width))
                .transpose()?,
            uvs,
            tris: self.uints::<3>(self.required("tris")?, "tris", indices_width)?,
            faces: flat(self.uints::<1>(self.required("faces")?, "faces", indices_width)?),
            material_indices: self
                .buffer(self.r.get("material_indices"), "material_indices")?
                .map(|b| {
                    self.uints::<1>(b, "material_indices", material_width)
                        .map(flat)
                })
                .transpose()?,
            material_slots,
        })
    }
}

fn float(b: &[u8]) -> f64 {
    match b.len() {
        8 => f64::from_le_bytes(b.try_into().unwrap_or_default()),
        _ => f64::from(f32::from_le_bytes(b.try_into().unwrap_or_default())),
    }
}

fn uint(b: &[u8]) -> u64 {
    let mut v = [0u8; 8];
    for (x, y) in v.iter_mut().zip(b) {
        *x = *y;
    }
    u64::from_le_bytes(v)
}

impl StfMesh {
    /// References that point outside their arrays, and face triangle counts that do not
    /// add up (empty: the mesh is consistent).
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut check = |what: &str, values: Vec<u64>, len: usize| {
            if let Some(bad) = values.into_iter().find(|&v| v >= len as u64) {
                out.push(format!("{what} {bad} is out of range (of {len})"));
            }
        };
        check(
            "triangle corner",
            self.tris.iter().flatten().copied().collect(),
            self.face_corners.len(),
        );
        check(
            "face corner split",
            self.face_corners.clone(),
            self.splits.len(),
        );
        check("split vertex", self.splits.clone(), self.vertices.len());
        let total: u64 = self.faces.iter().sum();
        if total != self.tris.len() as u64 {
            out.push(format!(
                "faces hold {total} triangles, but there are {}",
                self.tris.len()
            ));
        }
        for (name, uv) in &self.uvs {
            if uv.len() != self.splits.len() {
                out.push(format!(
                    "UV set {name:?} has {} entries for {} splits",
                    uv.len(),
                    self.splits.len()
                ));
            }
        }
        out
    }

    /// The triangles as three vertex indices each (corner → split → vertex), or `None`
    /// where a reference is out of range.
    pub fn triangle_vertices(&self) -> Vec<Option<[u64; 3]>> {
        self.tris
            .iter()
            .map(|t| {
                let v = |c: u64| {
                    let s = *self.face_corners.get(c as usize)?;
                    self.splits.get(s as usize).copied()
                };
                Some([v(t[0])?, v(t[1])?, v(t[2])?])
            })
            .collect()
    }
}
