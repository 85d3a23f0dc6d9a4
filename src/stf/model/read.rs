//! Reading the `stf.mesh` resources of a container: the JSON document parsed, and each
//! mesh's arrays resolved and checked where they lie in the buffers (`MeshReader`), then
//! decoded ([`meshes`]), counted (`mesh_infos`), only checked (`check`) or handed to the
//! writer as they lie (`each_view`). Where the buffers come from (borrowed, counted, or
//! taken and dropped after their last use) is `Buffers`.

use std::borrow::Cow;

use serde_json::Value;

use super::source::MeshSource;
use super::view::{Array, BlendView, Bytes, MeshView};
use super::StfMesh;
use crate::error::{Error, ErrorKind, Result};
use crate::stf::raw::StfContainer;

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

/// Every `stf.mesh` resource of the file, decoded, in the JSON's order. The container
/// is borrowed (`&StfContainer`) or given away (`StfContainer`: each buffer is dropped
/// once the last property naming it is decoded, so the buffers and the meshes are not
/// held whole together).
pub fn meshes<'c>(c: impl Into<Cow<'c, StfContainer>>) -> Result<Vec<StfMesh>> {
    meshes_and_document(c.into()).map(|(meshes, _)| meshes)
}

/// What `meshcodec info` reports of each `stf.mesh` resource, in the JSON's order,
/// without decoding: each array is checked and charged as [`meshes`] does (so the same
/// files fail, with the same errors), then counted and its indices looked through where
/// they lie in the container's buffers.
pub(crate) fn mesh_infos(c: &StfContainer) -> Result<Vec<crate::stf::StfMeshInfo>> {
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

/// [`meshes`], and the parsed JSON. A container given away has each buffer dropped once
/// the last property naming it is decoded: which use is a buffer's last is found by
/// resolving every property first without decoding (buffers read as empty); if that
/// fails, the meshes are decoded from the borrowed buffers, for their error.
pub(crate) fn meshes_and_document(c: Cow<'_, StfContainer>) -> Result<(Vec<StfMesh>, Value)> {
    let doc = document(&c)?;
    let size = file_size(&c);
    let c = match c {
        Cow::Borrowed(c) => {
            let meshes = meshes_from(&doc, &Buffers::Borrowed(&c.buffers), size)?;
            return Ok((meshes, doc));
        }
        Cow::Owned(c) => c,
    };
    let uses = std::cell::RefCell::new(vec![0; c.buffers.len()]);
    if each_mesh(&doc, &Buffers::Counting(&uses), size, |_| Ok(())).is_err() {
        let meshes = meshes_from(&doc, &Buffers::Borrowed(&c.buffers), size)?;
        return Ok((meshes, doc));
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
