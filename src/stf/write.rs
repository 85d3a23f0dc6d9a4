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
//!   meshes: `written_back_owned` encodes each property straight from where it lies (a
//!   `MeshSource` over the mesh's arrays in the buffers), value by value as decoding
//!   and writing the model would, one property at a time.
//! - Widths: `float_width` is the model's (4 or 8); `indices_width` and
//!   `material_indices_width` are the model's (or the resource's) unless an index does
//!   not fit, then the smallest of 1, 2, 4, 8 bytes that holds every index.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap, HashSet};

use serde_json::{json, Map, Value};

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
pub fn replace_meshes(c: &StfContainer, meshes: &[StfMesh]) -> Result<StfContainer> {
    Ok(replace(c, meshes.iter().map(Cow::Borrowed))?.unwrap_or_else(|| c.clone()))
}

/// [`replace_meshes`] taking the meshes: each array of a mesh is dropped once its
/// buffer is made, so the model and the new buffers are not held whole together.
pub(crate) fn replace_meshes_owned(c: &StfContainer, meshes: Vec<StfMesh>) -> Result<StfContainer> {
    Ok(replace(c, meshes.into_iter().map(Cow::Owned))?.unwrap_or_else(|| c.clone()))
}

/// The container with `meshes` written in; `None` when that changes nothing.
fn replace<'m>(
    c: &StfContainer,
    meshes: impl Iterator<Item = Cow<'m, StfMesh>>,
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
pub(crate) fn written_back_owned(c: StfContainer) -> Result<StfContainer> {
    match written_back_changes(&c)? {
        Some(changes) => assemble(changes, Cow::Owned(c)),
        None => Ok(c),
    }
}

/// [`written_back_owned`] of a borrowed container (`None` when nothing changes; the
/// buffers copied when something does). Tests only: the command-line tool gives the
/// container away.
#[cfg(test)]
pub(crate) fn written_back(c: &StfContainer) -> Result<Option<StfContainer>> {
    written_back_changes(c)?
        .map(|changes| assemble(changes, Cow::Borrowed(c)))
        .transpose()
}

/// What [`written_back_owned`] changes.
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

/// New ids, unique in the document: UUID-shaped (version 8, "custom"), from a counter
/// hashed with the document's size, so the same input gives the same ids.
pub(crate) struct IdSource {
    taken: HashSet<String>,
    state: u64,
}

impl IdSource {
    pub(crate) fn new(doc: &Value, c: &StfContainer) -> Self {
        let mut taken = HashSet::new();
        collect_ids(doc, &mut taken);
        // The time of writing is not content: two conversions of one input a second
        // apart must give the same ids.
        let timeless = doc.pointer("/stf/timestamp").and_then(|_| {
            let mut d = doc.clone();
            d.get_mut("stf")?.as_object_mut()?.remove("timestamp");
            serde_json::to_vec(&d).ok()
        });
        let json = timeless.as_deref().unwrap_or(&c.json);
        let seed = fnv(json) ^ (c.buffers.len() as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        IdSource { taken, state: seed }
    }

    /// From a seed (a hash of what the document is made from).
    pub(crate) fn seeded(seed: u64) -> Self {
        IdSource {
            taken: HashSet::new(),
            state: seed,
        }
    }

    pub(crate) fn next(&mut self) -> String {
        loop {
            let a = splitmix(&mut self.state);
            let b = splitmix(&mut self.state);
            let a = (a & !0xf000) | 0x8000; // version 8
            let b = (b & !(0b11 << 62)) | (0b10 << 62); // RFC 4122 variant
            let id = format!(
                "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
                a >> 32,
                (a >> 16) & 0xffff,
                a & 0xffff,
                b >> 48,
                b & 0xffff_ffff_ffff
            );
            if self.taken.insert(id.clone()) {
                return id;
            }
        }
    }
}

fn collect_ids(v: &Value, out: &mut HashSet<String>) {
    match v {
        Value::String(s) => {
            out.insert(s.clone());
        }
        Value::Array(a) => a.iter().for_each(|x| collect_ids(x, out)),
        Value::Object(o) => {
            for (k, x) in o {
                out.insert(k.clone());
                collect_ids(x, out);
            }
        }
        _ => {}
    }
}

/// FNV-1a, 64 bits.
pub(crate) fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The smallest of 1, 2, 4, 8 bytes that holds `max`, at least `width`.
pub(crate) fn fitting_width(width: u64, max: u64) -> u64 {
    let need = match max {
        0..=0xff => 1,
        0x100..=0xffff => 2,
        0x1_0000..=0xffff_ffff => 4,
        _ => 8,
    };
    if matches!(width, 1 | 2 | 4 | 8) {
        width.max(need)
    } else {
        need
    }
}

/// Floats of `width` bytes (4 or 8), little-endian.
pub(crate) fn float_bytes<'a>(values: impl IntoIterator<Item = &'a f64>, width: u64) -> Vec<u8> {
    let values = values.into_iter();
    let mut out = Vec::with_capacity(encoded_len(values.size_hint().0, width));
    for &v in values {
        push_float(&mut out, v, width);
    }
    out
}

/// Unsigned integers of `width` bytes (1, 2, 4 or 8), little-endian.
pub(crate) fn uint_bytes<'a>(values: impl IntoIterator<Item = &'a u64>, width: u64) -> Vec<u8> {
    let values = values.into_iter();
    let mut out = Vec::with_capacity(encoded_len(values.size_hint().0, width));
    for &v in values {
        push_uint(&mut out, v, width);
    }
    out
}

/// The bytes `count` values of `width` bytes take (no more than 8 bytes each, as
/// [`push_float`] and [`push_uint`] write them).
pub(crate) fn encoded_len(count: usize, width: u64) -> usize {
    count.saturating_mul(width.min(8) as usize)
}

/// A float as `width` bytes: 8 as it is, else as an `f32`. Both ways of writing a mesh
/// (from [`StfMesh`], and from its arrays where they lie) encode every value here.
pub(crate) fn push_float(out: &mut Vec<u8>, v: f64, width: u64) {
    if width == 8 {
        out.extend_from_slice(&v.to_le_bytes());
    } else {
        out.extend_from_slice(&(v as f32).to_le_bytes());
    }
}

/// An unsigned integer as its low `width` bytes (none for a width over 8).
pub(crate) fn push_uint(out: &mut Vec<u8>, v: u64, width: u64) {
    out.extend_from_slice(v.to_le_bytes().get(..width as usize).unwrap_or_default());
}

/// An array property of a mesh, as [`MeshSource`] gives it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Prop {
    Vertices,
    FaceCorners,
    Splits,
    SplitNormals,
    SplitColors,
    /// The UV set at this position.
    Uv(usize),
    Tris,
    Faces,
    MaterialIndices,
    /// `indices` of the blendshape at this position.
    BlendIndices(usize),
    /// `position_offsets` of the blendshape at this position.
    BlendOffsets(usize),
    /// `split_indices` of the blendshape at this position.
    BlendSplitIndices(usize),
    /// `split_normals` of the blendshape at this position.
    BlendSplitNormals(usize),
}

impl Prop {
    /// Whether the property holds floats (else indices).
    pub(crate) fn is_float(self) -> bool {
        matches!(
            self,
            Prop::Vertices
                | Prop::SplitNormals
                | Prop::SplitColors
                | Prop::Uv(_)
                | Prop::BlendOffsets(_)
                | Prop::BlendSplitNormals(_)
        )
    }
}

/// The values of a blendshape that are not arrays.
pub(crate) struct BlendHead {
    pub(crate) name: String,
    pub(crate) default_value: f64,
    pub(crate) limit_upper: f64,
    pub(crate) limit_lower: f64,
}

/// A mesh as [`MeshWriter`] writes it: the decoded model ([`StfMesh`]), or a mesh's
/// arrays where they lie in the container (each decoded as it is encoded). Arrays are
/// asked for one at a time, so a source may hold only the one being written.
pub(crate) trait MeshSource {
    /// The resource id.
    fn id(&self) -> &str;
    /// [`StfMesh::problems`].
    fn problems(&self) -> Vec<String>;
    /// [`StfMesh::name`].
    fn name(&self) -> &str;
    /// [`StfMesh::float_width`].
    fn float_width(&self) -> u64;
    /// [`StfMesh::indices_width`].
    fn indices_width(&self) -> u64;
    /// [`StfMesh::material_slots`].
    fn material_slots(&self) -> Vec<Option<String>>;
    /// The UV sets' names, in order.
    fn uv_names(&self) -> Vec<String>;
    /// The blendshapes, in order.
    fn blendshapes(&self) -> Vec<BlendHead>;
    /// Whether the mesh has the property (required ones always).
    fn has(&self, p: Prop) -> bool;
    /// The largest value of an index property (0 when empty or absent).
    fn max(&self, p: Prop) -> u64;
    /// The property's values, in order, each as `width` bytes ([`push_float`],
    /// [`push_uint`]); empty when absent.
    fn encode(&self, p: Prop, width: u64) -> Vec<u8>;
    /// The property is written: what holds it may let it go.
    fn spend(&mut self, p: Prop);
}

/// The values of one property of an [`StfMesh`], flat.
enum Values<'m> {
    Floats(&'m [f64]),
    Uints(&'m [u64]),
}

/// Property `p` of `m`.
fn values(m: &StfMesh, p: Prop) -> Option<Values<'_>> {
    let blend = |k: usize| m.blendshapes.get(k);
    Some(match p {
        Prop::Vertices => Values::Floats(m.vertices.as_flattened()),
        Prop::FaceCorners => Values::Uints(&m.face_corners),
        Prop::Splits => Values::Uints(&m.splits),
        Prop::SplitNormals => Values::Floats(m.split_normals.as_ref()?.as_flattened()),
        Prop::SplitColors => Values::Floats(m.split_colors.as_ref()?.as_flattened()),
        Prop::Uv(k) => Values::Floats(m.uvs.get(k)?.1.as_flattened()),
        Prop::Tris => Values::Uints(m.tris.as_flattened()),
        Prop::Faces => Values::Uints(&m.faces),
        Prop::MaterialIndices => Values::Uints(m.material_indices.as_ref()?),
        Prop::BlendIndices(k) => Values::Uints(blend(k)?.indices.as_ref()?),
        Prop::BlendOffsets(k) => Values::Floats(blend(k)?.position_offsets.as_flattened()),
        Prop::BlendSplitIndices(k) => Values::Uints(blend(k)?.split_indices.as_ref()?),
        Prop::BlendSplitNormals(k) => {
            Values::Floats(blend(k)?.split_normals.as_ref()?.as_flattened())
        }
    })
}

/// The decoded model; an owned one gives up each array once it is written, so the
/// model and the new buffers are not held whole together.
impl MeshSource for Cow<'_, StfMesh> {
    fn id(&self) -> &str {
        &self.id
    }

    fn problems(&self) -> Vec<String> {
        StfMesh::problems(self)
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn float_width(&self) -> u64 {
        self.float_width
    }

    fn indices_width(&self) -> u64 {
        self.indices_width
    }

    fn material_slots(&self) -> Vec<Option<String>> {
        self.material_slots.clone()
    }

    fn uv_names(&self) -> Vec<String> {
        self.uvs.iter().map(|(name, _)| name.clone()).collect()
    }

    fn blendshapes(&self) -> Vec<BlendHead> {
        self.blendshapes
            .iter()
            .map(|b| BlendHead {
                name: b.name.clone(),
                default_value: b.default_value,
                limit_upper: b.limit_upper,
                limit_lower: b.limit_lower,
            })
            .collect()
    }

    fn has(&self, p: Prop) -> bool {
        values(self, p).is_some()
    }

    fn max(&self, p: Prop) -> u64 {
        match values(self, p) {
            Some(Values::Uints(v)) => v.iter().copied().max().unwrap_or(0),
            _ => 0,
        }
    }

    fn encode(&self, p: Prop, width: u64) -> Vec<u8> {
        match values(self, p) {
            Some(Values::Floats(v)) => float_bytes(v, width),
            Some(Values::Uints(v)) => uint_bytes(v, width),
            None => Vec::new(),
        }
    }

    fn spend(&mut self, p: Prop) {
        fn clear<T>(v: &mut Option<Vec<T>>) {
            if let Some(v) = v {
                *v = Vec::new();
            }
        }
        let Cow::Owned(m) = self else {
            return;
        };
        let blend = m.blendshapes.get_mut(match p {
            Prop::BlendIndices(k)
            | Prop::BlendOffsets(k)
            | Prop::BlendSplitIndices(k)
            | Prop::BlendSplitNormals(k) => k,
            _ => usize::MAX,
        });
        match (p, blend) {
            (Prop::Vertices, _) => m.vertices = Vec::new(),
            (Prop::FaceCorners, _) => m.face_corners = Vec::new(),
            (Prop::Splits, _) => m.splits = Vec::new(),
            (Prop::SplitNormals, _) => clear(&mut m.split_normals),
            (Prop::SplitColors, _) => clear(&mut m.split_colors),
            (Prop::Uv(k), _) => {
                if let Some((_, uv)) = m.uvs.get_mut(k) {
                    *uv = Vec::new();
                }
            }
            (Prop::Tris, _) => m.tris = Vec::new(),
            (Prop::Faces, _) => m.faces = Vec::new(),
            (Prop::MaterialIndices, _) => clear(&mut m.material_indices),
            (Prop::BlendIndices(_), Some(b)) => clear(&mut b.indices),
            (Prop::BlendOffsets(_), Some(b)) => b.position_offsets = Vec::new(),
            (Prop::BlendSplitIndices(_), Some(b)) => clear(&mut b.split_indices),
            (Prop::BlendSplitNormals(_), Some(b)) => clear(&mut b.split_normals),
            (_, None) => {}
        }
    }
}

/// Writes one mesh resource.
struct MeshWriter<'a> {
    c: &'a StfContainer,
    doc: &'a Value,
    old: &'a Map<String, Value>,
    new_buffers: &'a mut Vec<(String, Vec<u8>)>,
    ids: &'a mut IdSource,
    /// Buffer ids the old versions of rewritten properties named (candidates to drop).
    released: &'a mut HashSet<String>,
    /// Buffer ids of the new buffers this mesh names, in order (new style: to place
    /// into `referenced_buffers`).
    fresh: Vec<String>,
    /// Slots of the old `referenced_buffers` that rewritten properties still name.
    reused: BTreeSet<u64>,
}

impl MeshWriter<'_> {
    fn old_style(&self) -> bool {
        self.old.get("vertices").is_some_and(Value::is_string)
    }

    /// The buffer id the reference `r` (in the old resource) names.
    fn old_id<'b>(&'b self, r: Option<&'b Value>) -> Option<&'b str> {
        Some(match r? {
            Value::String(s) => s.as_str(),
            Value::Number(n) => self
                .old
                .get("referenced_buffers")?
                .get(usize::try_from(n.as_u64()?).ok()?)?
                .as_str()?,
            _ => return None,
        })
    }

    /// The bytes the reference `r` (in the old resource) names, if it resolves.
    fn old_bytes(&self, r: Option<&Value>) -> Option<&[u8]> {
        let id = self.old_id(r)?;
        let e = self.doc.get("buffers")?.get(id)?;
        if e.get("type").and_then(Value::as_str) != Some("stf.buffer.included") {
            return None;
        }
        let i = usize::try_from(e.get("index")?.as_u64()?).ok()?;
        self.c.buffers.get(i).map(Vec::as_slice)
    }

    /// A reference to `bytes`: the old reference `old` if it names the same bytes, else
    /// a new buffer. New-style references are placeholders (`{"fresh": k}`) until
    /// [`MeshWriter::place`] gives them slots.
    fn reference(&mut self, old: Option<&Value>, bytes: Vec<u8>) -> Value {
        if let Some(r) = old {
            if self.old_bytes(Some(r)) == Some(bytes.as_slice()) {
                if let Some(n) = r.as_u64() {
                    self.reused.insert(n);
                }
                return r.clone();
            }
        }
        let id = self.ids.next();
        self.new_buffers.push((id.clone(), bytes));
        if self.old_style() {
            Value::String(id)
        } else {
            self.fresh.push(id);
            json!({ "fresh": self.fresh.len() - 1 })
        }
    }

    /// Notes every buffer the old resource's model properties name as released.
    fn release_all(&mut self) {
        let old = self.old;
        let mut refs: Vec<&Value> = ARRAY_KEYS.iter().filter_map(|k| old.get(*k)).collect();
        for e in old
            .get("uvs")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            refs.extend(e.get("uv"));
        }
        for e in old
            .get("blendshapes")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            for k in [
                "indices",
                "position_offsets",
                "split_indices",
                "split_normals",
            ] {
                refs.extend(e.get(k));
            }
        }
        for r in refs {
            if let Some(id) = self.old_id(Some(r)) {
                self.released.insert(id.to_string());
            }
        }
    }

    fn write(mut self, m: &mut dyn MeshSource) -> Result<Map<String, Value>> {
        self.release_all();
        let fw = m.float_width();
        if !matches!(fw, 4 | 8) {
            return Err(bad(format!("mesh {}: float_width {fw}: 4 or 8", m.id())));
        }
        let blendshapes = m.blendshapes();
        let index_props = [Prop::FaceCorners, Prop::Splits, Prop::Tris, Prop::Faces]
            .into_iter()
            .chain((0..blendshapes.len()).map(Prop::BlendIndices))
            .chain((0..blendshapes.len()).map(Prop::BlendSplitIndices));
        let max_index = index_props.map(|p| m.max(p)).max().unwrap_or(0);
        let iw = fitting_width(m.indices_width(), max_index);
        let old = self.old;
        let mut r = old.clone();
        let set = |r: &mut Map<String, Value>, k: &str, v: Value| {
            r.insert(k.to_string(), v);
        };
        if !m.name().is_empty() || old.contains_key("name") {
            set(&mut r, "name", json!(m.name()));
        }
        // material_slots: kept as written when the model reads the same from it.
        let old_slots: Vec<Option<String>> = old
            .get("material_slots")
            .and_then(Value::as_array)
            .map(|a| a.iter().map(|v| v.as_str().map(str::to_string)).collect())
            .unwrap_or_default();
        let slots = m.material_slots();
        if old_slots != slots {
            if slots.is_empty() {
                r.shift_remove("material_slots");
            } else {
                set(&mut r, "material_slots", json!(slots));
            }
        }
        // Widths are written where the resource had them or they are not the default 4.
        if old.contains_key("float_width") || fw != 4 {
            set(&mut r, "float_width", json!(fw));
        }
        if old.contains_key("indices_width") || iw != 4 {
            set(&mut r, "indices_width", json!(iw));
        }
        // One property encoded, referenced, and let go.
        let array = |this: &mut Self, m: &mut dyn MeshSource, old: Option<&Value>, p, w| {
            let v = this.reference(old, m.encode(p, w));
            m.spend(p);
            v
        };
        for (key, p) in [
            ("vertices", Prop::Vertices),
            ("face_corners", Prop::FaceCorners),
            ("splits", Prop::Splits),
            ("split_normals", Prop::SplitNormals),
            ("split_colors", Prop::SplitColors),
        ] {
            if m.has(p) {
                let w = if p.is_float() { fw } else { iw };
                let v = array(&mut self, m, old.get(key), p, w);
                set(&mut r, key, v);
            } else {
                r.shift_remove(key);
            }
        }
        let uv_names = m.uv_names();
        if uv_names.is_empty() {
            r.shift_remove("uvs");
        } else {
            let old_uvs = old.get("uvs").and_then(Value::as_array);
            let mut list = Vec::new();
            for (k, name) in uv_names.iter().enumerate() {
                let prev = old_uvs.and_then(|l| l.get(k)).and_then(Value::as_object);
                let mut e = prev.cloned().unwrap_or_default();
                if prev.is_none_or(|p| p.contains_key("name")) || !name.is_empty() {
                    e.insert("name".into(), json!(name));
                }
                let v = array(
                    &mut self,
                    m,
                    prev.and_then(|p| p.get("uv")),
                    Prop::Uv(k),
                    fw,
                );
                e.insert("uv".into(), v);
                list.push(Value::Object(e));
            }
            set(&mut r, "uvs", Value::Array(list));
        }
        for (key, p) in [("tris", Prop::Tris), ("faces", Prop::Faces)] {
            let v = array(&mut self, m, old.get(key), p, iw);
            set(&mut r, key, v);
        }
        if m.has(Prop::MaterialIndices) {
            // The resource's width (the default 4 when it had material indices but no
            // width); for new material indices, the smallest that fits.
            let had = old.contains_key("material_indices_width");
            let declared = old
                .get("material_indices_width")
                .and_then(Value::as_u64)
                .unwrap_or(if old.contains_key("material_indices") {
                    4
                } else {
                    1
                });
            let mw = fitting_width(declared, m.max(Prop::MaterialIndices));
            if had || mw != 4 {
                set(&mut r, "material_indices_width", json!(mw));
            }
            let v = array(
                &mut self,
                m,
                old.get("material_indices"),
                Prop::MaterialIndices,
                mw,
            );
            set(&mut r, "material_indices", v);
        } else {
            r.shift_remove("material_indices");
            r.shift_remove("material_indices_width");
        }
        if blendshapes.is_empty() {
            r.shift_remove("blendshapes");
        } else {
            let old_list = old.get("blendshapes").and_then(Value::as_array);
            let mut list = Vec::new();
            for (k, b) in blendshapes.iter().enumerate() {
                let prev = old_list.and_then(|l| l.get(k)).and_then(Value::as_object);
                let mut e = prev.cloned().unwrap_or_default();
                let get = |key: &str| prev.and_then(|p| p.get(key));
                // Keys the entry had, and values other than the defaults (a new entry
                // always gets its name, which the spec requires).
                let had = |key: &str| prev.is_some_and(|p| p.contains_key(key));
                if had("name") || prev.is_none() || !b.name.is_empty() {
                    e.insert("name".into(), json!(b.name));
                }
                for (key, v, default) in [
                    ("default_value", b.default_value, 0.0),
                    ("limit_upper", b.limit_upper, 1.0),
                    ("limit_lower", b.limit_lower, 0.0),
                ] {
                    if had(key) || v != default {
                        e.insert(key.into(), json!(v));
                    }
                }
                for (key, p, w) in [
                    ("indices", Prop::BlendIndices(k), iw),
                    ("position_offsets", Prop::BlendOffsets(k), fw),
                    ("split_indices", Prop::BlendSplitIndices(k), iw),
                    ("split_normals", Prop::BlendSplitNormals(k), fw),
                ] {
                    if m.has(p) {
                        let v = array(&mut self, m, get(key), p, w);
                        e.insert(key.into(), v);
                    } else {
                        e.shift_remove(key);
                    }
                }
                list.push(Value::Object(e));
            }
            set(&mut r, "blendshapes", Value::Array(list));
        }
        self.place(&mut r);
        Ok(r)
    }

    /// New style: gives the new buffers slots in `referenced_buffers` (freed slots
    /// first, then appended) and turns the placeholders into those slot numbers.
    fn place(&mut self, r: &mut Map<String, Value>) {
        if self.old_style() {
            return;
        }
        let mut list: Vec<Value> = self
            .old
            .get("referenced_buffers")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        // Slots the old model properties named …
        let mut owned = BTreeSet::new();
        for k in MODEL_KEYS {
            if !matches!(
                *k,
                "name" | "material_slots" | "float_width" | "indices_width"
            ) && !k.ends_with("_width")
            {
                if let Some(v) = self.old.get(*k) {
                    integers(v, &mut owned);
                }
            }
        }
        // … minus those any other key may name, or a rewritten property still names.
        let mut other = BTreeSet::new();
        for (k, v) in self.old {
            if !MODEL_KEYS.contains(&k.as_str()) && !NOT_BUFFER_KEYS.contains(&k.as_str()) {
                integers(v, &mut other);
            }
        }
        // Unknown keys of kept UV-set and blendshape entries may name slots too.
        for (list_key, known) in [
            ("uvs", &["name", "uv"][..]),
            (
                "blendshapes",
                &[
                    "name",
                    "default_value",
                    "limit_upper",
                    "limit_lower",
                    "indices",
                    "position_offsets",
                    "split_indices",
                    "split_normals",
                ][..],
            ),
        ] {
            for e in r
                .get(list_key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                for (k, v) in e.as_object().into_iter().flatten() {
                    if !known.contains(&k.as_str()) {
                        integers(v, &mut other);
                    }
                }
            }
        }
        let mut free: Vec<usize> = owned
            .iter()
            .filter(|s| !other.contains(s) && !self.reused.contains(s))
            .filter_map(|&s| usize::try_from(s).ok())
            .filter(|&s| s < list.len())
            .collect();
        free.reverse(); // pop() takes the lowest first
        let mut slot_of = Vec::with_capacity(self.fresh.len());
        for id in &self.fresh {
            let slot = match free.pop() {
                Some(s) => {
                    if let Some(e) = list.get_mut(s) {
                        *e = json!(id);
                    }
                    s
                }
                None => {
                    list.push(json!(id));
                    list.len() - 1
                }
            };
            slot_of.push(slot);
        }
        // Freed slots left over: removed at the end of the list; elsewhere pointed at a
        // buffer of this mesh (nothing names them).
        let mut left: BTreeSet<usize> = free.into_iter().collect();
        while let Some(&last) = left.last() {
            if last + 1 == list.len() {
                list.pop();
                left.remove(&last);
            } else {
                break;
            }
        }
        let filler = r
            .get("vertices")
            .and_then(|v| match v {
                Value::Number(n) => n.as_u64(),
                Value::Object(o) => o
                    .get("fresh")
                    .and_then(Value::as_u64)
                    .and_then(|k| slot_of.get(k as usize))
                    .map(|&s| s as u64),
                _ => None,
            })
            .and_then(|s| list.get(s as usize).cloned());
        for s in left {
            if let (Some(e), Some(f)) = (list.get_mut(s), &filler) {
                *e = f.clone();
            }
        }
        for k in MODEL_KEYS {
            if let Some(v) = r.get_mut(*k) {
                resolve(v, &slot_of);
            }
        }
        r.insert("referenced_buffers".into(), Value::Array(list));
    }
}

/// Turns `{"fresh": k}` placeholders into slot numbers.
fn resolve(v: &mut Value, slot_of: &[usize]) {
    let slot = match v {
        Value::Object(o) if o.len() == 1 => o
            .get("fresh")
            .and_then(Value::as_u64)
            .and_then(|k| slot_of.get(k as usize)),
        _ => None,
    };
    if let Some(&s) = slot {
        *v = json!(s);
        return;
    }
    match v {
        Value::Array(a) => a.iter_mut().for_each(|x| resolve(x, slot_of)),
        Value::Object(o) => o.values_mut().for_each(|x| resolve(x, slot_of)),
        _ => {}
    }
}
