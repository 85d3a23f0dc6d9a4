//! `stf.mesh` resources: the mesh arrays an STF file's JSON points at, decoded from its
//! buffers (spec: `stf-mesh.txt`; FORMAT-NOTES "STF").
//!
//! Data model: a face is one or more triangles; a triangle is three face corners; a face
//! corner names a split; a split names a vertex (position) and carries normals, UVs and
//! colours. So `tris` holds face-corner indices, `face_corners[c]` a split, `splits[s]` a
//! vertex, and `faces[f]` the number of triangles of face `f`. Blendshapes
//! ([`StfBlendshape`]) offset vertices (and may give splits new normals).
//!
//! Buffer references come in two styles, both accepted: an integer that indexes the
//! resource's `referenced_buffers` (new files), or the buffer's id itself (old files).
//! Either way the id names `{"type": "stf.buffer.included", "index": k}`: binary buffer
//! `k`.

use serde::Serialize;
use serde_json::Value;

use super::raw::StfContainer;
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
    /// Blendshapes (shape keys, morph targets), in the JSON's order; empty without.
    pub blendshapes: Vec<StfBlendshape>,
}

/// One blendshape of an `stf.mesh`: position offsets for some or all vertices, and
/// optionally the normals of some or all splits in the deformed shape.
///
/// Offsets and normals are read with the mesh's `float_width`, indices with its
/// `indices_width`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StfBlendshape {
    /// Name (empty when the JSON has none).
    pub name: String,
    /// The weight the shape is applied with by default (`default_value`, default 0).
    pub default_value: f64,
    /// Highest weight (`limit_upper`, default 1).
    pub limit_upper: f64,
    /// Lowest weight (`limit_lower`, default 0).
    pub limit_lower: f64,
    /// The vertices that [`StfBlendshape::position_offsets`] are for, in order; `None`
    /// when there is one offset per vertex.
    pub indices: Option<Vec<u64>>,
    /// Position offsets (added to the vertex positions): one per listed index, or one
    /// per vertex.
    pub position_offsets: Vec<[f64; 3]>,
    /// The splits that [`StfBlendshape::split_normals`] are for, in order; `None` when
    /// there is one normal per split.
    pub split_indices: Option<Vec<u64>>,
    /// Split normals of the deformed shape, if stored: one per listed split index, or
    /// one per split.
    pub split_normals: Option<Vec<[f64; 3]>>,
}

impl Default for StfBlendshape {
    /// No offsets, the spec's default weights (0, limits 0 to 1).
    fn default() -> Self {
        StfBlendshape {
            name: String::new(),
            default_value: 0.0,
            limit_upper: 1.0,
            limit_lower: 0.0,
            indices: None,
            position_offsets: Vec::new(),
            split_indices: None,
            split_normals: None,
        }
    }
}

impl StfBlendshape {
    /// The offset of each vertex of a mesh with `vertex_count` vertices: the listed ones
    /// from [`StfBlendshape::position_offsets`], the others zero. An index out of range
    /// (or an offset without an index) is skipped ([`StfMesh::problems`] reports it).
    pub fn vertex_offsets(&self, vertex_count: usize) -> Vec<[f64; 3]> {
        match &self.indices {
            None => {
                let mut out = self.position_offsets.clone();
                out.resize(vertex_count, [0.0; 3]);
                out
            }
            Some(indices) => {
                let mut out = vec![[0.0; 3]; vertex_count];
                for (&i, o) in indices.iter().zip(&self.position_offsets) {
                    if let Some(slot) = usize::try_from(i).ok().and_then(|i| out.get_mut(i)) {
                        *slot = *o;
                    }
                }
                out
            }
        }
    }
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
    meshes_from(&doc, &Buffers::Borrowed(&c.buffers), file_size(c))
}

/// [`meshes`] of a container the caller gives away, and its parsed JSON: each buffer is
/// dropped once the last property naming it is decoded, so the buffers and the meshes
/// are not held whole together. Which use is a buffer's last is found by resolving
/// every property first without decoding (buffers read as empty); if that fails, the
/// meshes are decoded as [`meshes`] does, for its error.
pub(crate) fn meshes_owned(c: StfContainer) -> Result<(Vec<StfMesh>, Value)> {
    let doc = document(&c)?;
    let size = file_size(&c);
    let uses = std::cell::RefCell::new(vec![0; c.buffers.len()]);
    if meshes_from(&doc, &Buffers::Counting(&uses), size).is_err() {
        return Ok((meshes(&c)?, doc));
    }
    let table = c
        .buffers
        .into_iter()
        .zip(uses.into_inner())
        .map(|(b, n)| (Some(std::rc::Rc::new(b)), n))
        .collect();
    let taken = Buffers::Taken(std::cell::RefCell::new(table));
    let meshes = meshes_from(&doc, &taken, size)?;
    Ok((meshes, doc))
}

/// The bytes the buffers hold, and the header: what [`meshes_from`]'s budget is based on.
fn file_size(c: &StfContainer) -> u64 {
    c.buffers.iter().map(|b| b.len() as u64).sum::<u64>() + 16
}

/// The `stf.mesh` resources of the document `doc`, decoded from `buffers`.
fn meshes_from(doc: &Value, buffers: &Buffers<'_>, file_size: u64) -> Result<Vec<StfMesh>> {
    let Some(resources) = doc.get("resources").and_then(Value::as_object) else {
        return Err(bad("the JSON has no \"resources\" object".into()));
    };
    // Buffers are borrowed, never copied, but the meshes may name the same buffer many
    // times (each property, each mesh): what they decode to, all together, may not
    // exceed 16 times the file's size (plus 1 MiB), whatever the JSON says.
    let budget = std::cell::Cell::new(file_size.saturating_mul(DECODE_FACTOR) + (1 << 20));
    resources
        .iter()
        .filter(|(_, r)| r.get("type").and_then(Value::as_str) == Some("stf.mesh"))
        .map(|(id, r)| {
            MeshReader {
                buffers,
                doc,
                id,
                r,
                budget: &budget,
            }
            .read()
        })
        .collect()
}

/// Where a [`MeshReader`] finds the buffers its properties name.
enum Buffers<'a> {
    /// The container's, borrowed.
    Borrowed(&'a [Vec<u8>]),
    /// None: every buffer reads as empty, and the uses of each are counted.
    Counting(&'a std::cell::RefCell<Vec<usize>>),
    /// Taken from the container, each with the uses it has left: dropped after its last.
    Taken(std::cell::RefCell<Vec<TakenBuffer>>),
}

/// A buffer taken from the container (`None` once dropped), and the uses it has left.
type TakenBuffer = (Option<std::rc::Rc<Vec<u8>>>, usize);

/// The bytes of a buffer (see [`Buffers`]).
enum Bytes<'a> {
    Borrowed(&'a [u8]),
    Shared(std::rc::Rc<Vec<u8>>),
}

impl std::ops::Deref for Bytes<'_> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Borrowed(b) => b,
            Bytes::Shared(b) => b,
        }
    }
}

impl Buffers<'_> {
    fn len(&self) -> usize {
        match self {
            Buffers::Borrowed(b) => b.len(),
            Buffers::Counting(uses) => uses.borrow().len(),
            Buffers::Taken(table) => table.borrow().len(),
        }
    }

    /// Buffer `index` (`None` past the end), one use of it counted or spent. A taken
    /// buffer used more often than counted is an error (it was dropped).
    fn get(&self, index: usize) -> Result<Option<Bytes<'_>>> {
        match self {
            Buffers::Borrowed(b) => Ok(b.get(index).map(|b| Bytes::Borrowed(b))),
            Buffers::Counting(uses) => Ok(uses.borrow_mut().get_mut(index).map(|n| {
                *n += 1;
                Bytes::Borrowed(&[])
            })),
            Buffers::Taken(table) => {
                let mut table = table.borrow_mut();
                let Some((slot, left)) = table.get_mut(index) else {
                    return Ok(None);
                };
                *left = left.saturating_sub(1);
                let bytes = if *left == 0 {
                    slot.take()
                } else {
                    slot.clone()
                };
                bytes.map(|b| Some(Bytes::Shared(b))).ok_or_else(|| {
                    Error::new(
                        "STF",
                        ErrorKind::Inconsistent(format!(
                            "buffer {index} was named more often than counted"
                        )),
                    )
                })
            }
        }
    }
}

/// How many times its size an STF file may decode to (see [`meshes`]). A mesh decodes
/// each value to 8 bytes (f64, u64), from 4 or 8 in the buffer, so a file whose buffers
/// are each used once decodes to at most about twice its size.
pub const DECODE_FACTOR: u64 = 16;

/// Resolves and decodes the buffers of one mesh resource.
struct MeshReader<'a> {
    buffers: &'a Buffers<'a>,
    doc: &'a Value,
    id: &'a str,
    r: &'a Value,
    /// Bytes the meshes of the file may still decode to.
    budget: &'a std::cell::Cell<u64>,
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

    /// A number property of `obj` (`what` names it in errors), or its default.
    fn number(&self, obj: &Value, key: &str, what: &str, default: f64) -> Result<f64> {
        match obj.get(key) {
            None | Some(Value::Null) => Ok(default),
            Some(v) => v
                .as_f64()
                .ok_or_else(|| self.err(format!("{what}.{key} is not a number: {v}"))),
        }
    }

    /// The `blendshapes` list (empty when absent).
    fn blendshapes(&self, float_width: u64, indices_width: u64) -> Result<Vec<StfBlendshape>> {
        let Some(list) = self.r.get("blendshapes").filter(|v| !v.is_null()) else {
            return Ok(Vec::new());
        };
        let Some(list) = list.as_array() else {
            return Err(self.err(format!("blendshapes is not a list: {list}")));
        };
        let flat = |v: Vec<[u64; 1]>| v.into_iter().map(|[x]| x).collect::<Vec<u64>>();
        let mut out = Vec::with_capacity(list.len());
        for (i, b) in list.iter().enumerate() {
            let what = format!("blendshapes[{i}]");
            if !b.is_object() {
                return Err(self.err(format!("{what} is not an object: {b}")));
            }
            let key = |k: &str| format!("{what}.{k}");
            let indices = |k: &str| -> Result<Option<Vec<u64>>> {
                self.buffer(b.get(k), &key(k))?
                    .map(|bytes| self.uints::<1>(bytes, &key(k), indices_width).map(flat))
                    .transpose()
            };
            let offsets = self
                .buffer(b.get("position_offsets"), &key("position_offsets"))?
                .ok_or_else(|| self.err(format!("{} is required", key("position_offsets"))))?;
            out.push(StfBlendshape {
                name: b
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                default_value: self.number(b, "default_value", &what, 0.0)?,
                limit_upper: self.number(b, "limit_upper", &what, 1.0)?,
                limit_lower: self.number(b, "limit_lower", &what, 0.0)?,
                indices: indices("indices")?,
                position_offsets: self.floats::<3>(
                    offsets,
                    &key("position_offsets"),
                    float_width,
                )?,
                split_indices: indices("split_indices")?,
                split_normals: self
                    .buffer(b.get("split_normals"), &key("split_normals"))?
                    .map(|bytes| self.floats::<3>(bytes, &key("split_normals"), float_width))
                    .transpose()?,
            });
        }
        Ok(out)
    }

    /// The bytes of the buffer a property names (`None` if the property is absent).
    fn buffer(&self, reference: Option<&Value>, key: &str) -> Result<Option<Bytes<'_>>> {
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
        match self.buffers.get(index as usize)? {
            Some(b) => Ok(Some(b)),
            None => Err(self.err(format!(
                "{key}: buffer index {index}, but the file has {} buffers",
                self.buffers.len()
            ))),
        }
    }

    /// A required or optional buffer, as elements of `n` values of `width` bytes, each
    /// decoding to `n` 8-byte values: charged to the file's decode budget.
    fn chunks<'b>(
        &self,
        bytes: &'b [u8],
        key: &str,
        width: u64,
        n: usize,
    ) -> Result<std::slice::ChunksExact<'b, u8>> {
        let size = width as usize * n;
        if !bytes.len().is_multiple_of(size) {
            return Err(self.err(format!(
                "{key}: {} bytes is not a whole number of {n} × {width}-byte values",
                bytes.len()
            )));
        }
        let decoded = (bytes.len() / size) as u64 * 8 * n as u64;
        let left = self.budget.get();
        if decoded > left {
            return Err(Error::new(
                "STF",
                ErrorKind::LimitExceeded {
                    what: "decoded STF mesh data (the meshes name the same buffers again and \
                           again)",
                    requested: decoded,
                    limit: left,
                },
            ));
        }
        self.budget.set(left - decoded);
        Ok(bytes.chunks_exact(size))
    }

    fn floats<const N: usize>(
        &self,
        bytes: Bytes<'_>,
        key: &str,
        width: u64,
    ) -> Result<Vec<[f64; N]>> {
        Ok(self
            .chunks(&bytes, key, width, N)?
            .map(|c| {
                let mut v = [0.0; N];
                for (x, b) in v.iter_mut().zip(c.chunks_exact(width as usize)) {
                    *x = float(b);
                }
                v
            })
            .collect())
    }

    fn uints<const N: usize>(
        &self,
        bytes: Bytes<'_>,
        key: &str,
        width: u64,
    ) -> Result<Vec<[u64; N]>> {
        Ok(self
            .chunks(&bytes, key, width, N)?
            .map(|c| {
                let mut v = [0u64; N];
                for (x, b) in v.iter_mut().zip(c.chunks_exact(width as usize)) {
                    *x = uint(b);
                }
                v
            })
            .collect())
    }

    fn required(&self, key: &str) -> Result<Bytes<'_>> {
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
            blendshapes: self.blendshapes(float_width, indices_width)?,
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
    /// References that point outside their arrays, face triangle counts that do not add
    /// up, and per-split or per-vertex arrays (UV sets, blendshape offsets and normals)
    /// of the wrong length (empty: the mesh is consistent).
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        // The arrays are looked through where they lie, not copied.
        let beyond = |values: &mut dyn Iterator<Item = &u64>, len: usize| {
            values.map(|&v| (v, len)).find(|&(v, len)| v >= len as u64)
        };
        let bad = [
            (
                "triangle corner",
                beyond(&mut self.tris.iter().flatten(), self.face_corners.len()),
            ),
            (
                "face corner split",
                beyond(&mut self.face_corners.iter(), self.splits.len()),
            ),
            (
                "split vertex",
                beyond(&mut self.splits.iter(), self.vertices.len()),
            ),
        ];
        for (what, bad) in bad {
            if let Some((bad, len)) = bad {
                out.push(format!("{what} {bad} is out of range (of {len})"));
            }
        }
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
        let (nv, ns) = (self.vertices.len(), self.splits.len());
        for b in &self.blendshapes {
            let name = &b.name;
            let offsets = b.position_offsets.len();
            let (count, of) = match &b.indices {
                Some(i) => (i.len(), "indices"),
                None => (nv, "vertices"),
            };
            if offsets != count {
                out.push(format!(
                    "blendshape {name:?} has {offsets} position offsets for {count} {of}"
                ));
            }
            if let Some(bad) = b.indices.iter().flatten().find(|&&i| i >= nv as u64) {
                out.push(format!(
                    "blendshape {name:?}: vertex index {bad} is out of range (of {nv})"
                ));
            }
            if let Some(bad) = b.split_indices.iter().flatten().find(|&&i| i >= ns as u64) {
                out.push(format!(
                    "blendshape {name:?}: split index {bad} is out of range (of {ns})"
                ));
            }
            if let Some(normals) = &b.split_normals {
                let (count, of) = match &b.split_indices {
                    Some(i) => (i.len(), "split indices"),
                    None => (ns, "splits"),
                };
                if normals.len() != count {
                    out.push(format!(
                        "blendshape {name:?} has {} split normals for {count} {of}",
                        normals.len()
                    ));
                }
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

#[cfg(test)]
mod tests {
    use super::{meshes, meshes_owned, StfContainer};

    /// `meshes_owned` (buffers dropped as decoded) gives what `meshes` gives, or the
    /// same error, on every STF fixture and corpus file, whole and with bytes changed.
    #[test]
    fn taking_the_container_decodes_the_same_meshes() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let corpus = crate::test_corpus_roblox().parent().map(|p| p.join("stf"));
        let mut files = Vec::new();
        for dir in [Some(root.join("roundtrip-fixtures/stf")), corpus]
            .into_iter()
            .flatten()
        {
            for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                if e.path().extension().is_some_and(|x| x == "stf") {
                    files.push(std::fs::read(e.path()).expect("reads"));
                }
            }
        }
        assert!(files.len() >= 3, "{} STF files", files.len());
        let (mut same, mut failed) = (0, 0);
        for bytes in files {
            let mut variants = vec![bytes.clone()];
            // Changed bytes all along the file (JSON and buffers).
            for i in (0..bytes.len()).step_by(bytes.len() / 200 + 1) {
                for b in [b'0', b'"', 0xff] {
                    let mut d = bytes.clone();
                    if let Some(x) = d.get_mut(i) {
                        *x = b;
                    }
                    variants.push(d);
                }
            }
            for v in variants {
                let Ok(c) = StfContainer::read(&v) else {
                    continue;
                };
                let borrowed = meshes(&c).map_err(|e| e.to_string());
                let taken = meshes_owned(c).map(|(m, _)| m).map_err(|e| e.to_string());
                assert_eq!(borrowed, taken);
                if borrowed.is_ok() {
                    same += 1;
                } else {
                    failed += 1;
                }
            }
        }
        assert!(same > 20 && failed > 20, "{same} decoded, {failed} failed");
    }
}
