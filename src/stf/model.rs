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
//!
//! A mesh is resolved and checked first, its arrays left where they lie in the buffers
//! (`MeshView`); [`meshes`] then decodes them, while `info` and `check` count and look
//! through them in place, so they fail alike and neither of the latter holds a decoded
//! copy (`docs/stf-read.md`).

use serde::Serialize;
use serde_json::Value;

use super::raw::StfContainer;
use super::write::{push_float, push_uint, BlendHead, MeshSource, Prop};
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

/// What `meshcodec info` reports of each `stf.mesh` resource, in the JSON's order,
/// without decoding: each array is checked and charged as [`meshes`] does (so the same
/// files fail, with the same errors), then counted and its indices looked through where
/// they lie in the container's buffers.
pub(crate) fn mesh_infos(c: &StfContainer) -> Result<Vec<super::StfMeshInfo>> {
    let doc = document(c)?;
    each_mesh(&doc, &Buffers::Borrowed(&c.buffers), file_size(c), |m| {
        Ok(m.outline().info())
    })
}

/// Whether [`meshes`] succeeds, and its error if not, without decoding: every value of
/// a whole, in-range buffer decodes (any bytes are a float or an index), so what can
/// fail is resolving the buffers and sizing the arrays, which this does as [`meshes`]
/// does.
pub(crate) fn check(c: &StfContainer) -> Result<()> {
    let doc = document(c)?;
    each_mesh(&doc, &Buffers::Borrowed(&c.buffers), file_size(c), |_| {
        Ok(())
    })
    .map(drop)
}

/// `f` of each `stf.mesh` resource of the container as it lies in its buffers, as a
/// [`MeshSource`] (each array decoded as it is encoded), in the JSON's order; the first
/// error ends it. A mesh that does not resolve is the error [`meshes`] gives for it.
pub(crate) fn each_view(
    c: &StfContainer,
    mut f: impl FnMut(&mut dyn MeshSource) -> Result<()>,
) -> Result<()> {
    let doc = document(c)?;
    each_mesh(
        &doc,
        &Buffers::Borrowed(&c.buffers),
        file_size(c),
        |mut m| f(&mut m),
    )
    .map(drop)
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
    if each_mesh(&doc, &Buffers::Counting(&uses), size, |_| Ok(())).is_err() {
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

/// The bytes the buffers hold, and the header: what [`each_mesh`]'s budget is based on.
fn file_size(c: &StfContainer) -> u64 {
    c.buffers.iter().map(|b| b.len() as u64).sum::<u64>() + 16
}

/// The `stf.mesh` resources of the document `doc`, decoded from `buffers`.
fn meshes_from<'b>(
    doc: &'b Value,
    buffers: &'b Buffers<'b>,
    file_size: u64,
) -> Result<Vec<StfMesh>> {
    each_mesh(doc, buffers, file_size, |m| Ok(m.decode()))
}

/// `f` of each `stf.mesh` resource of the document `doc` as it lies in `buffers`
/// ([`MeshView`]), in the JSON's order: one mesh's arrays are resolved and checked, then
/// handed to `f`, before the next mesh's. The first error (reading a mesh, or `f`'s)
/// ends it.
fn each_mesh<'b, T>(
    doc: &'b Value,
    buffers: &'b Buffers<'b>,
    file_size: u64,
    mut f: impl FnMut(MeshView<'b>) -> Result<T>,
) -> Result<Vec<T>> {
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
            .and_then(&mut f)
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

/// Resolves and checks the buffers of one mesh resource.
struct MeshReader<'a, 'r> {
    buffers: &'a Buffers<'a>,
    doc: &'a Value,
    id: &'a str,
    r: &'a Value,
    /// Bytes the meshes of the file may still decode to.
    budget: &'r std::cell::Cell<u64>,
}

impl<'a> MeshReader<'a, '_> {
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
    fn blendshapes(&self, float_width: u64, indices_width: u64) -> Result<Vec<BlendView<'a>>> {
        let Some(list) = self.r.get("blendshapes").filter(|v| !v.is_null()) else {
            return Ok(Vec::new());
        };
        let Some(list) = list.as_array() else {
            return Err(self.err(format!("blendshapes is not a list: {list}")));
        };
        let mut out = Vec::with_capacity(list.len());
        for (i, b) in list.iter().enumerate() {
            let what = format!("blendshapes[{i}]");
            if !b.is_object() {
                return Err(self.err(format!("{what} is not an object: {b}")));
            }
            let key = |k: &str| format!("{what}.{k}");
            let optional = |k: &str, width: u64| -> Result<Option<Array<'a>>> {
                self.buffer(b.get(k), &key(k))?
                    .map(|bytes| self.array(bytes, &key(k), width, 1))
                    .transpose()
            };
            let offsets = self
                .buffer(b.get("position_offsets"), &key("position_offsets"))?
                .ok_or_else(|| self.err(format!("{} is required", key("position_offsets"))))?;
            out.push(BlendView {
                name: b.get("name").and_then(Value::as_str).unwrap_or(""),
                default_value: self.number(b, "default_value", &what, 0.0)?,
                limit_upper: self.number(b, "limit_upper", &what, 1.0)?,
                limit_lower: self.number(b, "limit_lower", &what, 0.0)?,
                indices: optional("indices", indices_width)?,
                position_offsets: self.array(offsets, &key("position_offsets"), float_width, 3)?,
                split_indices: optional("split_indices", indices_width)?,
                split_normals: self
                    .buffer(b.get("split_normals"), &key("split_normals"))?
                    .map(|bytes| self.array(bytes, &key("split_normals"), float_width, 3))
                    .transpose()?,
            });
        }
        Ok(out)
    }

    /// The bytes of the buffer a property names (`None` if the property is absent).
    fn buffer(&self, reference: Option<&Value>, key: &str) -> Result<Option<Bytes<'a>>> {
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

    /// A buffer as elements of `n` values of `width` bytes, checked to hold whole
    /// elements; each element decodes to `n` 8-byte values, charged to the file's decode
    /// budget (whether or not the array is decoded, so the lean and the decoding paths
    /// fail alike).
    fn array(&self, bytes: Bytes<'a>, key: &str, width: u64, n: usize) -> Result<Array<'a>> {
        let size = width as usize * n;
        if size == 0 || !bytes.len().is_multiple_of(size) {
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
        Ok(Array {
            bytes,
            width: width as usize,
            n,
        })
    }

    fn required(&self, key: &str) -> Result<Bytes<'a>> {
        self.buffer(self.r.get(key), key)?
            .ok_or_else(|| self.err(format!("{key} is required")))
    }

    /// The mesh's arrays resolved and checked, in the order [`meshes`] has always
    /// checked them (so the first error is the same).
    fn read(&self) -> Result<MeshView<'a>> {
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
        let optional = |key: &str, width: u64, n: usize| -> Result<Option<Array<'a>>> {
            self.buffer(self.r.get(key), key)?
                .map(|b| self.array(b, key, width, n))
                .transpose()
        };
        let mut uvs = Vec::new();
        if let Some(list) = self.r.get("uvs").and_then(Value::as_array) {
            for (i, uv) in list.iter().enumerate() {
                let name = uv.get("name").and_then(Value::as_str).unwrap_or("");
                let key = format!("uvs[{i}].uv");
                let bytes = self
                    .buffer(uv.get("uv"), &key)?
                    .ok_or_else(|| self.err(format!("{key} is required")))?;
                uvs.push((name, self.array(bytes, "uv", float_width, 2)?));
            }
        }
        let required = |key: &str, width: u64, n: usize| -> Result<Array<'a>> {
            self.array(self.required(key)?, key, width, n)
        };
        Ok(MeshView {
            id: self.id,
            name: self.r.get("name").and_then(Value::as_str).unwrap_or(""),
            material_slots: self.r.get("material_slots").and_then(Value::as_array),
            float_width,
            indices_width,
            vertices: required("vertices", float_width, 3)?,
            face_corners: required("face_corners", indices_width, 1)?,
            splits: required("splits", indices_width, 1)?,
            split_normals: optional("split_normals", float_width, 3)?,
            split_colors: optional("split_colors", float_width, 4)?,
            uvs,
            tris: required("tris", indices_width, 3)?,
            faces: required("faces", indices_width, 1)?,
            material_indices: optional("material_indices", material_width, 1)?,
            blendshapes: self.blendshapes(float_width, indices_width)?,
        })
    }
}

/// One array of a mesh as it lies in its buffer: elements of `n` values of `width`
/// bytes each (checked: a whole number of elements, `width * n` not zero), not decoded.
struct Array<'a> {
    bytes: Bytes<'a>,
    width: usize,
    n: usize,
}

impl Array<'_> {
    /// The number of elements.
    fn len(&self) -> usize {
        self.bytes
            .len()
            .checked_div(self.width * self.n)
            .unwrap_or(0)
    }

    /// Every value as an index, in order (elements one after the other).
    fn uints(&self) -> impl Iterator<Item = u64> + '_ {
        self.bytes.chunks_exact(self.width.max(1)).map(uint)
    }

    /// [`Array::uints`], and how many.
    fn ints(&self) -> Ints<'_> {
        Ints {
            len: self.len(),
            values: Box::new(self.uints()),
        }
    }

    /// The values as `width` bytes each, as decoding them and writing the model's
    /// values gives them: floats for a float array, else indices.
    fn encode(&self, float_values: bool, width: u64) -> Vec<u8> {
        let values = self.bytes.chunks_exact(self.width.max(1));
        let mut out = Vec::with_capacity(super::write::encoded_len(values.len(), width));
        for b in values {
            if float_values {
                push_float(&mut out, float(b), width);
            } else {
                push_uint(&mut out, uint(b), width);
            }
        }
        out
    }

    /// The elements as integers (an index array decoded).
    fn into_uints<const N: usize>(self) -> Vec<[u64; N]> {
        self.elements(uint)
    }

    /// The elements as floats.
    fn into_floats<const N: usize>(self) -> Vec<[f64; N]> {
        self.elements(float)
    }

    /// Each element's `N` values decoded by `value`.
    fn elements<T: Copy + Default, const N: usize>(&self, value: fn(&[u8]) -> T) -> Vec<[T; N]> {
        let width = self.width.max(1);
        self.bytes
            .chunks_exact(width * N)
            .map(|c| {
                let mut v = [T::default(); N];
                for (x, b) in v.iter_mut().zip(c.chunks_exact(width)) {
                    *x = value(b);
                }
                v
            })
            .collect()
    }
}

/// An `stf.mesh` resource with its arrays resolved and checked where they lie
/// ([`MeshReader::read`]): what [`StfMesh`] decodes, and what `info` counts without
/// decoding.
struct MeshView<'a> {
    id: &'a str,
    name: &'a str,
    material_slots: Option<&'a Vec<Value>>,
    float_width: u64,
    indices_width: u64,
    vertices: Array<'a>,
    face_corners: Array<'a>,
    splits: Array<'a>,
    split_normals: Option<Array<'a>>,
    split_colors: Option<Array<'a>>,
    uvs: Vec<(&'a str, Array<'a>)>,
    tris: Array<'a>,
    faces: Array<'a>,
    material_indices: Option<Array<'a>>,
    blendshapes: Vec<BlendView<'a>>,
}

/// A blendshape of a [`MeshView`].
struct BlendView<'a> {
    name: &'a str,
    default_value: f64,
    limit_upper: f64,
    limit_lower: f64,
    indices: Option<Array<'a>>,
    position_offsets: Array<'a>,
    split_indices: Option<Array<'a>>,
    split_normals: Option<Array<'a>>,
}

impl MeshView<'_> {
    /// The mesh decoded, array by array, each array's bytes let go once it is decoded
    /// (a buffer taken from the container is dropped after its last use).
    fn decode(self) -> StfMesh {
        let flat = |a: Array<'_>| a.uints().collect::<Vec<u64>>();
        let flat_opt = |a: Option<Array<'_>>| a.map(flat);
        StfMesh {
            id: self.id.to_string(),
            name: self.name.to_string(),
            float_width: self.float_width,
            indices_width: self.indices_width,
            vertices: self.vertices.into_floats(),
            face_corners: flat(self.face_corners),
            splits: flat(self.splits),
            split_normals: self.split_normals.map(Array::into_floats),
            split_colors: self.split_colors.map(Array::into_floats),
            uvs: self
                .uvs
                .into_iter()
                .map(|(name, uv)| (name.to_string(), uv.into_floats()))
                .collect(),
            tris: self.tris.into_uints(),
            faces: flat(self.faces),
            material_indices: flat_opt(self.material_indices),
            material_slots: slots(self.material_slots),
            blendshapes: self
                .blendshapes
                .into_iter()
                .map(|b| StfBlendshape {
                    name: b.name.to_string(),
                    default_value: b.default_value,
                    limit_upper: b.limit_upper,
                    limit_lower: b.limit_lower,
                    indices: flat_opt(b.indices),
                    position_offsets: b.position_offsets.into_floats(),
                    split_indices: flat_opt(b.split_indices),
                    split_normals: b.split_normals.map(Array::into_floats),
                })
                .collect(),
        }
    }

    /// What `info` and [`StfMesh::problems`] look at, read from the buffers.
    fn outline(&self) -> Outline<'_> {
        Outline {
            id: self.id,
            name: self.name,
            vertices: self.vertices.len(),
            splits: self.splits.len(),
            face_corners: self.face_corners.len(),
            tris: self.tris.len(),
            faces: self.faces.len(),
            tri_corners: Box::new(self.tris.uints()),
            corner_splits: Box::new(self.face_corners.uints()),
            split_vertices: Box::new(self.splits.uints()),
            face_tris: Box::new(self.faces.uints()),
            uvs: self.uvs.iter().map(|(n, uv)| (*n, uv.len())).collect(),
            normals: self.split_normals.is_some(),
            colors: self.split_colors.is_some(),
            blendshapes: self
                .blendshapes
                .iter()
                .map(|b| BlendOutline {
                    name: b.name,
                    offsets: b.position_offsets.len(),
                    indices: b.indices.as_ref().map(Array::ints),
                    split_indices: b.split_indices.as_ref().map(Array::ints),
                    split_normals: b.split_normals.as_ref().map(Array::len),
                })
                .collect(),
        }
    }
}

/// A mesh's material slots as the model holds them (a slot that is not a string is
/// `None`).
fn slots(list: Option<&Vec<Value>>) -> Vec<Option<String>> {
    list.map(|a| a.iter().map(|v| v.as_str().map(str::to_string)).collect())
        .unwrap_or_default()
}

impl<'a> MeshView<'a> {
    /// Property `p`'s array, if the mesh has it.
    fn array(&self, p: Prop) -> Option<&Array<'a>> {
        let blend = |k: usize| self.blendshapes.get(k);
        match p {
            Prop::Vertices => Some(&self.vertices),
            Prop::FaceCorners => Some(&self.face_corners),
            Prop::Splits => Some(&self.splits),
            Prop::SplitNormals => self.split_normals.as_ref(),
            Prop::SplitColors => self.split_colors.as_ref(),
            Prop::Uv(k) => self.uvs.get(k).map(|(_, uv)| uv),
            Prop::Tris => Some(&self.tris),
            Prop::Faces => Some(&self.faces),
            Prop::MaterialIndices => self.material_indices.as_ref(),
            Prop::BlendIndices(k) => blend(k)?.indices.as_ref(),
            Prop::BlendOffsets(k) => blend(k).map(|b| &b.position_offsets),
            Prop::BlendSplitIndices(k) => blend(k)?.split_indices.as_ref(),
            Prop::BlendSplitNormals(k) => blend(k)?.split_normals.as_ref(),
        }
    }
}

/// A mesh where it lies: each array decoded as it is encoded, value by value, to what
/// [`MeshView::decode`] and writing its [`StfMesh`] give (the same `float`/`uint`, the
/// same [`push_float`]/[`push_uint`]).
impl MeshSource for MeshView<'_> {
    fn id(&self) -> &str {
        self.id
    }

    fn problems(&self) -> Vec<String> {
        self.outline().problems()
    }

    fn name(&self) -> &str {
        self.name
    }

    fn float_width(&self) -> u64 {
        self.float_width
    }

    fn indices_width(&self) -> u64 {
        self.indices_width
    }

    fn material_slots(&self) -> Vec<Option<String>> {
        slots(self.material_slots)
    }

    fn uv_names(&self) -> Vec<String> {
        self.uvs.iter().map(|(name, _)| name.to_string()).collect()
    }

    fn blendshapes(&self) -> Vec<BlendHead> {
        self.blendshapes
            .iter()
            .map(|b| BlendHead {
                name: b.name.to_string(),
                default_value: b.default_value,
                limit_upper: b.limit_upper,
                limit_lower: b.limit_lower,
            })
            .collect()
    }

    fn has(&self, p: Prop) -> bool {
        self.array(p).is_some()
    }

    fn max(&self, p: Prop) -> u64 {
        self.array(p).and_then(|a| a.uints().max()).unwrap_or(0)
    }

    fn encode(&self, p: Prop, width: u64) -> Vec<u8> {
        self.array(p)
            .map(|a| a.encode(p.is_float(), width))
            .unwrap_or_default()
    }

    /// The bytes are the container's, borrowed: nothing to let go.
    fn spend(&mut self, _: Prop) {}
}

/// Index values, one pass, and how many there are.
struct Ints<'m> {
    len: usize,
    values: Box<dyn Iterator<Item = u64> + 'm>,
}

impl<'m> Ints<'m> {
    /// The values of a decoded index array.
    fn of(values: &'m [u64]) -> Self {
        Ints {
            len: values.len(),
            values: Box::new(values.iter().copied()),
        }
    }
}

/// What [`StfMesh::problems`] and `info` look at of a mesh, decoded ([`StfMesh`]) or in
/// its buffers ([`MeshView`]): array lengths, and the index arrays as values to look
/// through once.
struct Outline<'m> {
    id: &'m str,
    name: &'m str,
    vertices: usize,
    splits: usize,
    face_corners: usize,
    tris: usize,
    faces: usize,
    /// The triangles' face corners, three per triangle.
    tri_corners: Box<dyn Iterator<Item = u64> + 'm>,
    /// Per face corner, its split.
    corner_splits: Box<dyn Iterator<Item = u64> + 'm>,
    /// Per split, its vertex.
    split_vertices: Box<dyn Iterator<Item = u64> + 'm>,
    /// Per face, its number of triangles.
    face_tris: Box<dyn Iterator<Item = u64> + 'm>,
    /// UV sets: name and length.
    uvs: Vec<(&'m str, usize)>,
    normals: bool,
    colors: bool,
    blendshapes: Vec<BlendOutline<'m>>,
}

/// A blendshape of an [`Outline`].
struct BlendOutline<'m> {
    name: &'m str,
    /// Position offsets.
    offsets: usize,
    indices: Option<Ints<'m>>,
    split_indices: Option<Ints<'m>>,
    /// Split normals, if any.
    split_normals: Option<usize>,
}

impl Outline<'_> {
    /// [`StfMesh::problems`] of the mesh.
    fn problems(self) -> Vec<String> {
        let mut out = Vec::new();
        let beyond = |values: Box<dyn Iterator<Item = u64> + '_>, len: usize| {
            values.map(|v| (v, len)).find(|&(v, len)| v >= len as u64)
        };
        let bad = [
            (
                "triangle corner",
                beyond(self.tri_corners, self.face_corners),
            ),
            ("face corner split", beyond(self.corner_splits, self.splits)),
            ("split vertex", beyond(self.split_vertices, self.vertices)),
        ];
        for (what, bad) in bad {
            if let Some((bad, len)) = bad {
                out.push(format!("{what} {bad} is out of range (of {len})"));
            }
        }
        // Wrapping, as an unchecked sum has always added them.
        let total = self.face_tris.fold(0u64, u64::wrapping_add);
        if total != self.tris as u64 {
            out.push(format!(
                "faces hold {total} triangles, but there are {}",
                self.tris
            ));
        }
        for (name, uv) in &self.uvs {
            if *uv != self.splits {
                out.push(format!(
                    "UV set {name:?} has {uv} entries for {} splits",
                    self.splits
                ));
            }
        }
        let (nv, ns) = (self.vertices, self.splits);
        for b in self.blendshapes {
            let name = b.name;
            let offsets = b.offsets;
            let (count, of) = match &b.indices {
                Some(i) => (i.len, "indices"),
                None => (nv, "vertices"),
            };
            if offsets != count {
                out.push(format!(
                    "blendshape {name:?} has {offsets} position offsets for {count} {of}"
                ));
            }
            let split_count = b.split_indices.as_ref().map(|i| i.len);
            if let Some(bad) = b
                .indices
                .and_then(|i| i.values.into_iter().find(|&i| i >= nv as u64))
            {
                out.push(format!(
                    "blendshape {name:?}: vertex index {bad} is out of range (of {nv})"
                ));
            }
            if let Some(bad) = b
                .split_indices
                .and_then(|i| i.values.into_iter().find(|&i| i >= ns as u64))
            {
                out.push(format!(
                    "blendshape {name:?}: split index {bad} is out of range (of {ns})"
                ));
            }
            if let Some(normals) = b.split_normals {
                let (count, of) = match split_count {
                    Some(n) => (n, "split indices"),
                    None => (ns, "splits"),
                };
                if normals != count {
                    out.push(format!(
                        "blendshape {name:?} has {normals} split normals for {count} {of}"
                    ));
                }
            }
        }
        out
    }

    /// What `meshcodec info` reports of the mesh.
    fn info(self) -> super::StfMeshInfo {
        super::StfMeshInfo {
            id: self.id.to_string(),
            name: self.name.to_string(),
            vertices: self.vertices,
            splits: self.splits,
            face_corners: self.face_corners,
            faces: self.tris,
            polygons: self.faces,
            uv_sets: self.uvs.iter().map(|(n, _)| n.to_string()).collect(),
            normals: self.normals,
            colors: self.colors,
            blendshapes: self
                .blendshapes
                .iter()
                .map(|b| b.name.to_string())
                .collect(),
            problems: self.problems(),
        }
    }
}

/// A float of 8 bytes, or of 4 widened. A 4-byte NaN is made quiet first, as widening
/// does on the machines we run on (x86-64, AArch64): written back as 4 bytes, it is then
/// the same NaN whether the compiler keeps the widening and narrowing or folds them
/// away (so decoding into [`StfMesh`] and writing, and encoding straight from the bytes,
/// give the same bytes).
fn float(b: &[u8]) -> f64 {
    match b.len() {
        8 => f64::from_le_bytes(b.try_into().unwrap_or_default()),
        _ => {
            let v = f32::from_le_bytes(b.try_into().unwrap_or_default());
            f64::from(if v.is_nan() {
                f32::from_bits(v.to_bits() | QUIET_F32)
            } else {
                v
            })
        }
    }
}

/// The quiet bit of an `f32` NaN (the top bit of the fraction).
const QUIET_F32: u32 = 1 << 22;

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
        self.outline().problems()
    }

    /// What [`StfMesh::problems`] looks at (the arrays looked through where they lie,
    /// not copied).
    fn outline(&self) -> Outline<'_> {
        Outline {
            id: &self.id,
            name: &self.name,
            vertices: self.vertices.len(),
            splits: self.splits.len(),
            face_corners: self.face_corners.len(),
            tris: self.tris.len(),
            faces: self.faces.len(),
            tri_corners: Box::new(self.tris.iter().flatten().copied()),
            corner_splits: Box::new(self.face_corners.iter().copied()),
            split_vertices: Box::new(self.splits.iter().copied()),
            face_tris: Box::new(self.faces.iter().copied()),
            uvs: self
                .uvs
                .iter()
                .map(|(n, uv)| (n.as_str(), uv.len()))
                .collect(),
            normals: self.split_normals.is_some(),
            colors: self.split_colors.is_some(),
            blendshapes: self
                .blendshapes
                .iter()
                .map(|b| BlendOutline {
                    name: &b.name,
                    offsets: b.position_offsets.len(),
                    indices: b.indices.as_deref().map(Ints::of),
                    split_indices: b.split_indices.as_deref().map(Ints::of),
                    split_normals: b.split_normals.as_ref().map(Vec::len),
                })
                .collect(),
        }
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
#[allow(clippy::indexing_slicing)] // JSON built and edited by the tests: `Value`'s index
mod tests {
    use serde_json::{json, Value};

    use super::{meshes, meshes_owned, StfBlendshape, StfContainer, StfMesh};
    use crate::error::Limits;
    use crate::file::contract::MeshFile;
    use crate::stf::write::ARRAY_KEYS as ARRAYS;

    /// Every STF fixture and corpus file, as bytes.
    fn stf_files() -> Vec<Vec<u8>> {
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
        files
    }

    /// The file, and the file with bytes changed all along it (JSON and buffers), those
    /// that still read as a container.
    fn changed_bytes(bytes: &[u8]) -> Vec<StfContainer> {
        let mut variants = vec![bytes.to_vec()];
        for i in (0..bytes.len()).step_by(bytes.len() / 200 + 1) {
            for b in [b'0', b'"', 0xff] {
                let mut d = bytes.to_vec();
                if let Some(x) = d.get_mut(i) {
                    *x = b;
                }
                variants.push(d);
            }
        }
        variants
            .iter()
            .filter_map(|v| StfContainer::read(v).ok())
            .collect()
    }

    /// `c` with its JSON document replaced by `doc`.
    fn with_doc(c: &StfContainer, doc: &Value) -> StfContainer {
        StfContainer {
            json: serde_json::to_vec(doc).expect("serializes").into(),
            ..c.clone()
        }
    }

    /// A change to a buffer.
    type Edit = Box<dyn Fn(&mut Vec<u8>)>;

    /// Damaged versions of a container, each what the decoder must judge: buffers cut
    /// short, grown, or filled with indices beyond every array; widths changed; each
    /// array property pointed at every buffer the mesh names (other sizes, other
    /// component types), at none, or at a missing or bad one; the buffer table's entries
    /// broken; blendshapes added, well and badly formed; and the meshes repeated until
    /// what they decode to passes the file's budget.
    fn damaged(c: &StfContainer) -> Vec<StfContainer> {
        let mut out = Vec::new();
        for k in 0..c.buffers.len() {
            let len = c.buffers.get(k).map_or(0, Vec::len);
            let mut edits: Vec<Edit> = vec![
                Box::new(|b| b.truncate(b.len().saturating_sub(1))),
                Box::new(|b| b.truncate(b.len() / 2)),
                Box::new(|b| b.clear()),
                Box::new(|b| b.push(0)),
                Box::new(|b| b.fill(0xff)),
                Box::new(|b| b.fill(0)),
            ];
            if len >= 2 {
                // The last index raised past every array, the rest kept.
                edits.push(Box::new(|b| {
                    if let Some(x) = b.last_mut() {
                        *x = 0x7f;
                    }
                }));
            }
            for edit in edits {
                let mut d = c.clone();
                if let Some(b) = d.buffers.get_mut(k) {
                    edit(b);
                }
                out.push(d);
            }
        }
        let Ok(doc) = super::document(c) else {
            return out;
        };
        let mesh_ids: Vec<String> = doc["resources"]
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(_, r)| r["type"] == "stf.mesh")
            .map(|(id, _)| id.clone())
            .collect();
        for id in &mesh_ids {
            let r = &doc["resources"][id];
            let refs: Vec<Value> = ARRAYS
                .iter()
                .map(|k| r[k].clone())
                .chain(
                    r["uvs"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(|u| u["uv"].clone()),
                )
                .filter(|v| !v.is_null())
                .collect();
            let first = refs.first().cloned().unwrap_or(json!(0));
            let mut edit = |f: &dyn Fn(&mut Value)| {
                let mut d = doc.clone();
                f(&mut d["resources"][id]);
                out.push(with_doc(c, &d));
            };
            for key in ["float_width", "indices_width", "material_indices_width"] {
                for v in [
                    json!(1),
                    json!(2),
                    json!(3),
                    json!(4),
                    json!(8),
                    json!(0),
                    json!(-1),
                    json!("4"),
                    json!(1.5),
                    Value::Null,
                ] {
                    edit(&|r| r[key] = v.clone());
                }
            }
            let bad_refs = [
                json!(99),
                json!(-1),
                json!(1.5),
                json!("no such buffer"),
                json!({}),
                json!([0]),
                Value::Null,
            ];
            for key in ARRAYS {
                for v in refs.iter().chain(&bad_refs) {
                    edit(&|r| r[key] = v.clone());
                }
                edit(&|r| {
                    if let Some(o) = r.as_object_mut() {
                        o.remove(key);
                    }
                });
            }
            for v in refs.iter().chain(&bad_refs) {
                edit(&|r| r["uvs"] = json!([{"name": "Extra", "uv": v}]));
            }
            edit(&|r| r["uvs"] = json!("not a list"));
            edit(&|r| r["uvs"] = json!([{"name": 7}]));
            edit(&|r| r["referenced_buffers"] = json!([]));
            edit(&|r| r["material_slots"] = json!(["a", null, 3]));
            edit(&|r| r["name"] = json!(12));
            // Blendshapes from the mesh's own buffers, in every role.
            for offsets in &refs {
                for indices in refs.iter().map(Some).chain([None]) {
                    let mut b = json!({"name": "B", "position_offsets": offsets});
                    if let Some(i) = indices {
                        b["indices"] = i.clone();
                        b["split_indices"] = i.clone();
                        b["split_normals"] = offsets.clone();
                    }
                    edit(&|r| r["blendshapes"] = json!([b, {"position_offsets": first}]));
                }
            }
            for b in [
                json!("not a list"),
                json!([7]),
                json!([{"name": "No offsets"}]),
                json!([{"position_offsets": first, "default_value": "x"}]),
                json!([{"position_offsets": first, "limit_upper": []}]),
                json!([{"position_offsets": first, "limit_lower": 0.5, "indices": 99}]),
                json!([{"position_offsets": first, "split_normals": "no such buffer"}]),
                json!([{"position_offsets": first, "split_indices": {}}]),
                Value::Null,
            ] {
                edit(&|r| r["blendshapes"] = b.clone());
            }
        }
        let buffer_ids: Vec<String> = doc["buffers"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(id, _)| id.clone())
            .collect();
        for id in &buffer_ids {
            for (key, v) in [
                ("index", json!(99)),
                ("index", json!(0)),
                ("index", json!(-1)),
                ("index", Value::Null),
                ("type", json!("stf.buffer.external")),
                ("type", Value::Null),
            ] {
                let mut d = doc.clone();
                d["buffers"][id][key] = v;
                out.push(with_doc(c, &d));
            }
        }
        for resources in [json!([]), Value::Null, json!({})] {
            let mut d = doc.clone();
            d["resources"] = resources;
            out.push(with_doc(c, &d));
        }
        // A mesh again and again, every array on its vertices' buffer, indices one byte
        // each (a byte decodes to eight): past the decode budget.
        if let Some(id) = mesh_ids.first() {
            let mut d = doc.clone();
            let mut r = d["resources"][id].clone();
            for key in ARRAYS {
                if let Some(o) = r.as_object_mut() {
                    o.remove(key);
                }
            }
            for key in ["vertices", "face_corners", "splits", "tris", "faces"] {
                r[key] = doc["resources"][id]["vertices"].clone();
            }
            r["float_width"] = json!(4);
            r["indices_width"] = json!(1);
            r["uvs"] = Value::Null;
            for n in 0..2000 {
                d["resources"][format!("{id}-{n}")] = r.clone();
            }
            out.push(with_doc(c, &d));
        }
        out
    }

    /// The lean `info` and `check` against `info_decoded` and [`meshes`] (the decoding
    /// they replace): the same counts and problems, or the same error. Returns whether
    /// the file decodes, and its problems.
    fn lean_is_decoded(c: &StfContainer) -> Option<usize> {
        let lean = c.info().map_err(|e| e.to_string());
        let decoded = c.info_decoded().map_err(|e| e.to_string());
        assert_eq!(lean, decoded);
        let check = MeshFile::check(c, &Limits::default()).map_err(|e| e.to_string());
        let oracle = meshes(c).map(drop).map_err(|e| e.to_string());
        assert_eq!(check, oracle);
        assert_eq!(check.is_ok(), lean.is_ok());
        let info = decoded.ok()?;
        Some(info.mesh_list.iter().map(|m| m.problems.len()).sum())
    }

    /// `info` and `check`, which look at the arrays where they lie, agree with decoding
    /// every mesh on every STF fixture and corpus file, whole, with bytes changed, and
    /// damaged in each way the decoder checks: the same counts and problems, or the same
    /// error.
    #[test]
    fn lean_info_and_check_are_what_decoding_gives() {
        let (mut ok, mut problems, mut failed, mut over_budget) = (0, 0, 0, 0);
        for bytes in stf_files() {
            let whole = StfContainer::read(&bytes).expect("reads");
            assert_eq!(lean_is_decoded(&whole), Some(0));
            for c in changed_bytes(&bytes).iter().chain(&damaged(&whole)) {
                match lean_is_decoded(c) {
                    Some(0) => ok += 1,
                    Some(_) => problems += 1,
                    None => failed += 1,
                }
                let e = c.info().err().map(|e| e.to_string()).unwrap_or_default();
                if e.contains("decoded STF mesh data") {
                    over_budget += 1;
                }
            }
        }
        assert!(
            ok > 100 && problems > 100 && failed > 500 && over_budget > 0,
            "{ok} decoded, {problems} with problems, {failed} failed ({over_budget} over \
             the budget)"
        );
    }

    /// `meshes_owned` (buffers dropped as decoded) gives what `meshes` gives, or the
    /// same error, on every STF fixture and corpus file, whole, with bytes changed and
    /// damaged.
    #[test]
    fn taking_the_container_decodes_the_same_meshes() {
        let (mut same, mut failed) = (0, 0);
        for bytes in stf_files() {
            let whole = StfContainer::read(&bytes).expect("reads");
            for c in changed_bytes(&bytes).into_iter().chain(damaged(&whole)) {
                let borrowed = meshes(&c).map_err(|e| e.to_string());
                let taken = meshes_owned(c).map(|(m, _)| m).map_err(|e| e.to_string());
                // Compared as printed: a NaN is not equal to itself.
                assert_eq!(format!("{borrowed:?}"), format!("{taken:?}"));
                if borrowed.is_ok() {
                    same += 1;
                } else {
                    failed += 1;
                }
            }
        }
        assert!(same > 20 && failed > 20, "{same} decoded, {failed} failed");
    }

    /// The file as `convert --to stf` once wrote it, and its error: every mesh decoded
    /// and written back by [`crate::stf::replace_meshes`].
    fn written_back_oracle(c: &StfContainer) -> Result<Vec<u8>, String> {
        meshes(c)
            .and_then(|m| crate::stf::replace_meshes(c, &m))
            .and_then(|out| out.write())
            .map_err(|e| e.to_string())
    }

    /// Edits to a decoded mesh, each changing what its properties encode to.
    fn mesh_edits() -> [fn(&mut StfMesh); 6] {
        [
            |m| {
                if let Some(v) = m.vertices.first_mut() {
                    v[1] += 0.5;
                }
            },
            |m| {
                let n = m.splits.len();
                m.uvs.push(("Extra".into(), vec![[0.25, 0.5]; n]));
                m.split_colors = None;
            },
            |m| m.float_width = 12 - m.float_width,
            |m| m.indices_width = 8,
            |m| {
                let n = m.faces.len() as u64;
                m.material_indices = Some((0..n).map(|i| i * 100).collect());
                m.material_slots = vec![None, Some("m".into())];
            },
            |m| {
                let n = m.vertices.len();
                m.blendshapes.push(StfBlendshape {
                    name: "All".into(),
                    position_offsets: vec![[0.0, 1.0, 0.0]; n],
                    ..Default::default()
                });
                let last_split = m.splits.len().saturating_sub(1) as u64;
                m.blendshapes.push(StfBlendshape {
                    name: "Some".into(),
                    default_value: 0.5,
                    indices: Some(vec![0]),
                    position_offsets: vec![[1.0, 0.0, 0.0]],
                    split_indices: Some(vec![last_split]),
                    split_normals: Some(vec![[0.0, 0.0, 1.0]]),
                    ..Default::default()
                });
            },
        ]
    }

    /// Files that the edits of [`mesh_edits`] make of `c` (each to every mesh): other
    /// widths, more buffers, blendshapes, in the resources' own reference style.
    fn edited(c: &StfContainer) -> Vec<StfContainer> {
        let Ok(decoded) = meshes(c) else {
            return Vec::new();
        };
        mesh_edits()
            .iter()
            .filter_map(|edit| {
                let mut m = decoded.clone();
                m.iter_mut().for_each(edit);
                crate::stf::replace_meshes(c, &m).ok()
            })
            .collect()
    }

    /// `c` with a signalling NaN at the start of buffer `k`: a float array there
    /// (any buffer a float property names, alone or shared) encodes to other bytes,
    /// since decoding makes the NaN quiet.
    fn with_nan(c: &StfContainer, k: usize) -> StfContainer {
        let mut d = c.clone();
        if let Some(b) = d.buffers.get_mut(k).and_then(|b| b.get_mut(..4)) {
            b.copy_from_slice(&0x7f80_0001_u32.to_le_bytes());
        }
        d
    }

    /// Writing every mesh back from where it lies ([`crate::stf::write::written_back`],
    /// borrowed and owned) gives the bytes, or the error, that
    /// decoding the meshes and [`crate::stf::replace_meshes`] give: on every STF fixture
    /// and corpus file, whole, with bytes changed, damaged, edited (widths, UV sets,
    /// material indices, blendshapes), and with a NaN in each buffer so that properties
    /// change (buffers alone, shared between properties and meshes, old- and new-style
    /// references).
    #[test]
    fn writing_back_in_place_is_what_the_decoded_meshes_give() {
        use crate::stf::write::{written_back, written_back_owned};
        let (mut unchanged, mut changed, mut new_buffers, mut failed) = (0, 0, 0, 0);
        for bytes in stf_files() {
            let whole = StfContainer::read(&bytes).expect("reads");
            let mut inputs = changed_bytes(&bytes);
            inputs.extend(damaged(&whole));
            inputs.extend(edited(&whole));
            let with_nans: Vec<StfContainer> = inputs
                .iter()
                .flat_map(|c| (0..c.buffers.len()).map(|k| with_nan(c, k)))
                .collect();
            inputs.extend(with_nans);
            for c in inputs {
                let oracle = written_back_oracle(&c);
                let borrowed = written_back(&c)
                    .map(|out| out.unwrap_or_else(|| c.clone()))
                    .and_then(|out| out.write())
                    .map_err(|e| e.to_string());
                assert_eq!(borrowed, oracle);
                let input = c.write().expect("writes");
                let buffers = c.buffers.len();
                let owned = written_back_owned(c);
                match &owned {
                    Ok(out) if out.write().ok() == Some(input) => unchanged += 1,
                    Ok(out) => {
                        changed += 1;
                        if out.buffers.len() > buffers {
                            new_buffers += 1;
                        }
                    }
                    Err(_) => failed += 1,
                }
                let owned = owned.and_then(|out| out.write()).map_err(|e| e.to_string());
                assert_eq!(owned, oracle);
            }
        }
        assert!(
            unchanged > 1000 && changed > 1000 && new_buffers > 40 && failed > 10000,
            "{unchanged} unchanged, {changed} changed ({new_buffers} with new buffers), \
             {failed} failed"
        );
    }
}
