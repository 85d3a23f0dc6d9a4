//! Writing `stf.mesh` resources from the model ([`StfMesh`]) back into a container.
//!
//! [`replace_meshes`] rewrites the resources of the given meshes (matched by id) and
//! leaves everything else as it was (`docs/stf-write.md`):
//!
//! - Only the keys the model holds are rewritten: `name`, `float_width`,
//!   `indices_width`, `material_indices_width`, `material_slots`, `vertices`,
//!   `face_corners`, `splits`, `split_normals`, `split_colors`, `uvs`, `tris`, `faces`,
//!   `material_indices`, `blendshapes`. Every other key of the resource (`lines`,
//!   `sharp_edges`, `components`, skin data …), every other resource and the document's
//!   header stay as they were, in their order. UV sets and blendshapes keep the unknown
//!   keys of the entry at the same position.
//! - A property whose encoded bytes equal the buffer it named keeps its reference; a
//!   changed one gets a new buffer. References are written in the resource's own style:
//!   buffer ids for an old-style resource (its `vertices` is a string), indices into its
//!   `referenced_buffers` otherwise.
//! - In `referenced_buffers`, an entry that only the rewritten properties named is
//!   reused for a new buffer (or, at the end of the list, removed); an entry that any
//!   other key might name (any integer below a key the model does not know) stays.
//! - A binary buffer that nothing names any more (its id appears nowhere in the
//!   document outside the `buffers` table) is dropped, and the remaining
//!   `stf.buffer.included` entries are renumbered in their old order; new buffers come
//!   after them.
//! - When nothing changes (every property encodes to the bytes it named, every key keeps
//!   its value), the container is returned as it was: writing it gives the same bytes.
//! - Writing every mesh back as it was read (`convert --to stf`) need not decode the
//!   meshes: `written_back` encodes each property straight from where it lies (a
//!   `MeshSource` over the mesh's arrays in the buffers), value by value as decoding
//!   and writing the model would, one property at a time.
//! - Widths: `float_width` is the model's (4 or 8); `indices_width` and
//!   `material_indices_width` are the model's (or the resource's) unless an index does
//!   not fit, then the smallest of 1, 2, 4, 8 bytes that holds every index.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap, HashSet};

use serde_json::{json, Value};

mod ids;
mod mesh;

pub(crate) use ids::{fnv, IdSource};
pub(crate) use mesh::indices_width;
use mesh::MeshWriter;

use super::model::source::MeshSource;
use super::model::{self, StfMesh};
use super::raw::StfContainer;
use crate::error::{Error, ErrorKind, Result};

fn bad(what: String) -> Error {
    Error::new("STF", ErrorKind::Invalid(what))
}

/// The keys of an `stf.mesh` that the model holds (and [`replace_meshes`] rewrites).
pub const MODEL_KEYS: &[&str] = &[
    "name",
    "float_width",
    "indices_width",
    "material_indices_width",
    "material_slots",
    "vertices",
    "face_corners",
    "splits",
    "split_normals",
    "split_colors",
    "uvs",
    "tris",
    "faces",
    "material_indices",
    "blendshapes",
];

/// The keys of an `stf.mesh` that name one buffer each (the UV sets' and blendshapes'
/// are in lists).
pub(crate) const ARRAY_KEYS: [&str; 8] = [
    "vertices",
    "face_corners",
    "splits",
    "split_normals",
    "split_colors",
    "tris",
    "faces",
    "material_indices",
];

/// Keys of an `stf.mesh` (besides [`MODEL_KEYS`]) that hold no buffer reference: their
/// integers are widths or resource references, not slots of `referenced_buffers`.
const NOT_BUFFER_KEYS: &[&str] = &[
    "type",
    "referenced_buffers",
    "referenced_resources",
    "components",
    "armature",
    "bones",
    "weight_lens_width",
    "bone_indices_width",
];

/// A container with the `stf.mesh` resources of `meshes` (matched by
/// [`StfMesh::id`]) rewritten from the model; see the [module docs](self) for what is
/// kept. An id that names no `stf.mesh`, or a mesh with [`StfMesh::problems`], is an
/// error (nothing is written that would not read back).
///
/// The meshes are borrowed (`&[StfMesh]`, read where they are) or given away
/// (`Vec<StfMesh>`: each array of a mesh is dropped once its buffer is made, so the
/// model and the new buffers are not held whole together).
pub fn replace_meshes<'m, M: Into<Cow<'m, StfMesh>>>(
    c: &StfContainer,
    meshes: impl IntoIterator<Item = M>,
) -> Result<StfContainer> {
    Ok(replace(c, meshes.into_iter().map(Into::into))?.unwrap_or_else(|| c.clone()))
}

/// The container with `meshes` (any [`MeshSource`]) written in; `None` when that
/// changes nothing.
pub(crate) fn replace<S: MeshSource>(
    c: &StfContainer,
    meshes: impl IntoIterator<Item = S>,
) -> Result<Option<StfContainer>> {
    let mut rewrite = Rewrite::new(c)?;
    for mut m in meshes {
        rewrite.mesh(&mut m)?;
    }
    rewrite
        .finish()
        .map(|changes| assemble(changes, Cow::Borrowed(c)))
        .transpose()
}

/// Every mesh of `c` written back from its own arrays: what
/// `replace_meshes(&c, &model::meshes(&c)?)` gives, byte for byte and error for error,
/// without decoding the meshes. The meshes are resolved and checked as
/// [`model::meshes`] does it (its errors first), then each property is decoded from
/// where it lies as it is encoded again ([`MeshSource`] of a mesh view), so one
/// property's bytes are held at a time, not the decoded model. The container is given
/// away: its buffers are moved into the result, not copied (the container itself is the
/// result when nothing changes).
pub(crate) fn written_back(c: StfContainer) -> Result<StfContainer> {
    match written_back_changes(&c)? {
        Some(changes) => assemble(changes, Cow::Owned(c)),
        None => Ok(c),
    }
}

/// What [`written_back`] changes.
fn written_back_changes(c: &StfContainer) -> Result<Option<Changes>> {
    // Every read error `model::meshes` would give, before anything is written.
    model::check(c)?;
    let mut rewrite = Rewrite::new(c)?;
    model::each_view(c, |m| rewrite.mesh(m))?;
    Ok(rewrite.finish())
}

/// Meshes written one by one into a copy of a container's document.
struct Rewrite<'c> {
    c: &'c StfContainer,
    doc: Value,
    /// The document as read, serialised (to tell whether anything changed).
    original: Option<Vec<u8>>,
    new_buffers: Vec<(String, Vec<u8>)>,
    released: HashSet<String>,
    ids: IdSource,
}

/// What a [`Rewrite`] changed: the new document, the new buffers (id, bytes), and the
/// buffer ids the old versions of rewritten properties named.
struct Changes {
    doc: Value,
    new_buffers: Vec<(String, Vec<u8>)>,
    released: HashSet<String>,
}

impl<'c> Rewrite<'c> {
    fn new(c: &'c StfContainer) -> Result<Self> {
        let doc = model::document(c)?;
        let original = serde_json::to_vec(&doc).ok();
        let ids = IdSource::new(&doc, c);
        Ok(Rewrite {
            c,
            doc,
            original,
            new_buffers: Vec::new(),
            released: HashSet::new(),
            ids,
        })
    }

    /// Writes mesh `m` in place of the `stf.mesh` resource of its id.
    fn mesh(&mut self, m: &mut dyn MeshSource) -> Result<()> {
        if let Some(p) = m.problems().first() {
            return Err(Error::new(
                "STF",
                ErrorKind::Inconsistent(format!("mesh {}: {p}", m.id())),
            ));
        }
        let id = m.id().to_string();
        let old = self
            .doc
            .get("resources")
            .and_then(|r| r.get(&id))
            .filter(|r| r.get("type").and_then(Value::as_str) == Some("stf.mesh"))
            .and_then(Value::as_object)
            .cloned()
            .ok_or_else(|| bad(format!("no stf.mesh resource {id:?} to replace")))?;
        let resource = MeshWriter {
            c: self.c,
            doc: &self.doc,
            old: &old,
            new_buffers: &mut self.new_buffers,
            ids: &mut self.ids,
            released: &mut self.released,
            fresh: Vec::new(),
            reused: BTreeSet::new(),
        }
        .write(m)?;
        if let Some(r) = self.doc.get_mut("resources").and_then(Value::as_object_mut) {
            r.insert(id, Value::Object(resource));
        }
        Ok(())
    }

    /// What changed; `None` when nothing did (every property kept its buffer, every key
    /// its value and place: the file as it was, byte for byte).
    fn finish(self) -> Option<Changes> {
        if self.new_buffers.is_empty()
            && self.original.is_some()
            && serde_json::to_vec(&self.doc).ok() == self.original
        {
            return None;
        }
        Some(Changes {
            doc: self.doc,
            new_buffers: self.new_buffers,
            released: self.released,
        })
    }
}

/// Drops the buffers that the old versions of the rewritten properties named
/// (`released`) and nothing names any more, renumbers the rest (every other buffer and
/// `buffers` entry is kept, named or not), appends the new buffers (id, bytes) with
/// their `buffers` entries, and serialises. A container given away (`Cow::Owned`)
/// gives its buffers to the result; a borrowed one's are copied.
fn assemble(changes: Changes, c: Cow<'_, StfContainer>) -> Result<StfContainer> {
    let Changes {
        mut doc,
        new_buffers,
        released,
    } = changes;
    let mut named = HashSet::new();
    if let Some(top) = doc.as_object() {
        for (k, v) in top {
            if k != "buffers" {
                strings(v, &mut named);
            }
        }
    }
    let table = doc
        .get_mut("buffers")
        .and_then(Value::as_object_mut)
        .ok_or_else(|| bad("the JSON has no \"buffers\" object".into()))?;
    let included = |e: &Value| e.get("type").and_then(Value::as_str) == Some("stf.buffer.included");
    let dead: Vec<String> = table
        .iter()
        .filter(|(id, e)| included(e) && released.contains(*id) && !named.contains(id.as_str()))
        .map(|(id, _)| id.clone())
        .collect();
    let mut dead_index = BTreeSet::new();
    for id in &dead {
        if let Some(i) = table
            .shift_remove(id)
            .and_then(|e| e.get("index").and_then(Value::as_u64))
        {
            dead_index.insert(i);
        }
    }
    // A binary buffer another entry still names stays.
    for e in table.values().filter(|e| included(e)) {
        if let Some(i) = e.get("index").and_then(Value::as_u64) {
            dead_index.remove(&i);
        }
    }
    let kept = |i: usize| !dead_index.contains(&(i as u64));
    let mut renumber = HashMap::new();
    for i in (0..c.buffers.len()).filter(|&i| kept(i)) {
        renumber.insert(i as u64, renumber.len() as u64);
    }
    let (version_major, version_minor) = (c.version_major, c.version_minor);
    let (mut buffers, trailing): (Vec<Vec<u8>>, Vec<u8>) = match c {
        Cow::Borrowed(c) => (
            c.buffers
                .iter()
                .enumerate()
                .filter(|&(i, _)| kept(i))
                .map(|(_, b)| b.clone())
                .collect(),
            c.trailing.clone(),
        ),
        Cow::Owned(c) => (
            c.buffers
                .into_iter()
                .enumerate()
                .filter(|&(i, _)| kept(i))
                .map(|(_, b)| b)
                .collect(),
            c.trailing,
        ),
    };
    for e in table.values_mut() {
        if !included(e) {
            continue;
        }
        let new = e
            .get("index")
            .and_then(Value::as_u64)
            .and_then(|i| renumber.get(&i));
        if let (Some(&new), Some(o)) = (new, e.as_object_mut()) {
            o.insert("index".into(), json!(new));
        }
    }
    for (id, bytes) in new_buffers {
        table.insert(
            id,
            json!({"type": "stf.buffer.included", "index": buffers.len()}),
        );
        buffers.push(bytes);
    }
    let json = serde_json::to_vec(&doc)
        .map_err(|e| Error::new("STF", ErrorKind::Inconsistent(e.to_string())))?;
    Ok(StfContainer {
        version_major,
        version_minor,
        json: json.into(),
        buffers,
        trailing,
    })
}

/// Every string value (not object keys) in `v`.
fn strings(v: &Value, out: &mut HashSet<String>) {
    match v {
        Value::String(s) => {
            out.insert(s.clone());
        }
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(o) => o.values().for_each(|x| strings(x, out)),
        _ => {}
    }
}

/// Every integer in `v`.
fn integers(v: &Value, out: &mut BTreeSet<u64>) {
    match v {
        Value::Number(n) => {
            if let Some(i) = n.as_u64() {
                out.insert(i);
            }
        }
        Value::Array(a) => a.iter().for_each(|x| integers(x, out)),
        Value::Object(o) => o.values().for_each(|x| integers(x, out)),
        _ => {}
    }
}
