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
//! - Widths: `float_width` is the model's (4 or 8); `indices_width` and
//!   `material_indices_width` are the model's (or the resource's) unless an index does
//!   not fit, then the smallest of 1, 2, 4, 8 bytes that holds every index.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap, HashSet};

use serde_json::{json, Map, Value};

use super::model::{self, StfBlendshape, StfMesh};
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
    Ok(changed_meshes_owned(c, meshes)?.unwrap_or_else(|| c.clone()))
}

/// [`replace_meshes_owned`], `None` when nothing changed (the container as it was), so
/// that it need not be copied.
pub(crate) fn changed_meshes_owned(
    c: &StfContainer,
    meshes: Vec<StfMesh>,
) -> Result<Option<StfContainer>> {
    replace(c, meshes.into_iter().map(Cow::Owned))
}

/// The container with `meshes` written in; `None` when that changes nothing.
fn replace<'m>(
    c: &StfContainer,
    meshes: impl Iterator<Item = Cow<'m, StfMesh>>,
) -> Result<Option<StfContainer>> {
    let mut doc = model::document(c)?;
    let original = serde_json::to_vec(&doc).ok();
    let mut new_buffers: Vec<(String, Vec<u8>)> = Vec::new();
    let mut released = HashSet::new();
    let mut ids = IdSource::new(&doc, c);
    for mut m in meshes {
        if let Some(p) = m.problems().first() {
            return Err(Error::new(
                "STF",
                ErrorKind::Inconsistent(format!("mesh {}: {p}", m.id)),
            ));
        }
        let old = doc
            .get("resources")
            .and_then(|r| r.get(&m.id))
            .filter(|r| r.get("type").and_then(Value::as_str) == Some("stf.mesh"))
            .and_then(Value::as_object)
            .cloned()
            .ok_or_else(|| bad(format!("no stf.mesh resource {:?} to replace", m.id)))?;
        let resource = MeshWriter {
            c,
            doc: &doc,
            old: &old,
            new_buffers: &mut new_buffers,
            ids: &mut ids,
            released: &mut released,
            fresh: Vec::new(),
            reused: BTreeSet::new(),
        }
        .write(&mut m)?;
        if let Some(r) = doc.get_mut("resources").and_then(Value::as_object_mut) {
            r.insert(m.id.clone(), Value::Object(resource));
        }
    }
    // Nothing changed (every property kept its buffer, every key its value and
    // place): the file as it was, byte for byte.
    if new_buffers.is_empty() && original.is_some() && serde_json::to_vec(&doc).ok() == original {
        return Ok(None);
    }
    assemble(doc, c, new_buffers, &released).map(Some)
}

/// Drops the buffers that the old versions of the rewritten properties named
/// (`released`) and nothing names any more, renumbers the rest (every other buffer and
/// `buffers` entry is kept, named or not), appends `new_buffers` (id, bytes) with their
/// `buffers` entries, and serialises.
fn assemble(
    mut doc: Value,
    c: &StfContainer,
    new_buffers: Vec<(String, Vec<u8>)>,
    released: &HashSet<String>,
) -> Result<StfContainer> {
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
    let mut renumber = HashMap::new();
    let mut buffers = Vec::new();
    for (i, b) in c.buffers.iter().enumerate() {
        if !dead_index.contains(&(i as u64)) {
            renumber.insert(i as u64, buffers.len() as u64);
            buffers.push(b.clone());
        }
    }
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
        version_major: c.version_major,
        version_minor: c.version_minor,
        json: json.into(),
        buffers,
        trailing: c.trailing.clone(),
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
    let mut out = Vec::new();
    for &v in values {
        if width == 8 {
            out.extend_from_slice(&v.to_le_bytes());
        } else {
            out.extend_from_slice(&(v as f32).to_le_bytes());
        }
    }
    out
}

/// Unsigned integers of `width` bytes (1, 2, 4 or 8), little-endian.
pub(crate) fn uint_bytes<'a>(values: impl IntoIterator<Item = &'a u64>, width: u64) -> Vec<u8> {
    let mut out = Vec::new();
    for &v in values {
        out.extend_from_slice(v.to_le_bytes().get(..width as usize).unwrap_or_default());
    }
    out
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

    fn write(mut self, cow: &mut Cow<'_, StfMesh>) -> Result<Map<String, Value>> {
        // An owned mesh gives up each array once it is written.
        fn spend(cow: &mut Cow<'_, StfMesh>, take: impl FnOnce(&mut StfMesh)) {
            if let Cow::Owned(m) = cow {
                take(m);
            }
        }
        let m: &StfMesh = cow;
        self.release_all();
        if !matches!(m.float_width, 4 | 8) {
            return Err(bad(format!(
                "mesh {}: float_width {}: 4 or 8",
                m.id, m.float_width
            )));
        }
        let fw = m.float_width;
        let max_index = m
            .face_corners
            .iter()
            .chain(&m.splits)
            .chain(m.tris.iter().flatten())
            .chain(&m.faces)
            .chain(
                m.blendshapes
                    .iter()
                    .flat_map(|b| b.indices.iter().flatten()),
            )
            .chain(
                m.blendshapes
                    .iter()
                    .flat_map(|b| b.split_indices.iter().flatten()),
            )
            .copied()
            .max()
            .unwrap_or(0);
        let iw = fitting_width(m.indices_width, max_index);
        let old = self.old;
        let mut r = old.clone();
        let set = |r: &mut Map<String, Value>, k: &str, v: Value| {
            r.insert(k.to_string(), v);
        };
        if !m.name.is_empty() || old.contains_key("name") {
            set(&mut r, "name", json!(m.name));
        }
        // material_slots: kept as written when the model reads the same from it.
        let old_slots: Vec<Option<String>> = old
            .get("material_slots")
            .and_then(Value::as_array)
            .map(|a| a.iter().map(|v| v.as_str().map(str::to_string)).collect())
            .unwrap_or_default();
        if old_slots != m.material_slots {
            if m.material_slots.is_empty() {
                r.shift_remove("material_slots");
            } else {
                set(&mut r, "material_slots", json!(m.material_slots));
            }
        }
        // Widths are written where the resource had them or they are not the default 4.
        if old.contains_key("float_width") || fw != 4 {
            set(&mut r, "float_width", json!(fw));
        }
        if old.contains_key("indices_width") || iw != 4 {
            set(&mut r, "indices_width", json!(iw));
        }
        let v = self.reference(
            old.get("vertices"),
            float_bytes(cow.vertices.iter().flatten(), fw),
        );
        set(&mut r, "vertices", v);
        spend(cow, |m| m.vertices = Vec::new());
        let v = self.reference(old.get("face_corners"), uint_bytes(&cow.face_corners, iw));
        set(&mut r, "face_corners", v);
        spend(cow, |m| m.face_corners = Vec::new());
        let v = self.reference(old.get("splits"), uint_bytes(&cow.splits, iw));
        set(&mut r, "splits", v);
        spend(cow, |m| m.splits = Vec::new());
        match &cow.split_normals {
            Some(n) => {
                let v = self.reference(
                    old.get("split_normals"),
                    float_bytes(n.iter().flatten(), fw),
                );
                set(&mut r, "split_normals", v);
            }
            None => {
                r.shift_remove("split_normals");
            }
        }
        spend(cow, |m| m.split_normals = None);
        match &cow.split_colors {
            Some(cs) => {
                let v = self.reference(
                    old.get("split_colors"),
                    float_bytes(cs.iter().flatten(), fw),
                );
                set(&mut r, "split_colors", v);
            }
            None => {
                r.shift_remove("split_colors");
            }
        }
        spend(cow, |m| m.split_colors = None);
        if cow.uvs.is_empty() {
            r.shift_remove("uvs");
        } else {
            let old_uvs = old.get("uvs").and_then(Value::as_array);
            let mut list = Vec::new();
            for (k, (name, uv)) in cow.uvs.iter().enumerate() {
                let prev = old_uvs.and_then(|l| l.get(k)).and_then(Value::as_object);
                let mut e = prev.cloned().unwrap_or_default();
                if prev.is_none_or(|p| p.contains_key("name")) || !name.is_empty() {
                    e.insert("name".into(), json!(name));
                }
                let v = self.reference(
                    prev.and_then(|p| p.get("uv")),
                    float_bytes(uv.iter().flatten(), fw),
                );
                e.insert("uv".into(), v);
                list.push(Value::Object(e));
            }
            set(&mut r, "uvs", Value::Array(list));
        }
        spend(cow, |m| m.uvs = Vec::new());
        let v = self.reference(old.get("tris"), uint_bytes(cow.tris.iter().flatten(), iw));
        set(&mut r, "tris", v);
        spend(cow, |m| m.tris = Vec::new());
        let v = self.reference(old.get("faces"), uint_bytes(&cow.faces, iw));
        set(&mut r, "faces", v);
        spend(cow, |m| m.faces = Vec::new());
        match &cow.material_indices {
            Some(mi) => {
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
                let mw = fitting_width(declared, mi.iter().copied().max().unwrap_or(0));
                if had || mw != 4 {
                    set(&mut r, "material_indices_width", json!(mw));
                }
                let v = self.reference(old.get("material_indices"), uint_bytes(mi, mw));
                set(&mut r, "material_indices", v);
            }
            None => {
                r.shift_remove("material_indices");
                r.shift_remove("material_indices_width");
            }
        }
        if cow.blendshapes.is_empty() {
            r.shift_remove("blendshapes");
        } else {
            let old_list = old.get("blendshapes").and_then(Value::as_array);
            let mut list = Vec::new();
            for (k, b) in cow.blendshapes.iter().enumerate() {
                let prev = old_list.and_then(|l| l.get(k)).and_then(Value::as_object);
                list.push(Value::Object(self.blendshape(prev, b, fw, iw)));
            }
            set(&mut r, "blendshapes", Value::Array(list));
        }
        self.place(&mut r);
        Ok(r)
    }

    fn blendshape(
        &mut self,
        prev: Option<&Map<String, Value>>,
        b: &StfBlendshape,
        fw: u64,
        iw: u64,
    ) -> Map<String, Value> {
        let mut e = prev.cloned().unwrap_or_default();
        let get = |k: &str| prev.and_then(|p| p.get(k));
        // Keys the entry had, and values other than the defaults (a new entry always
        // gets its name, which the spec requires).
        let had = |k: &str| prev.is_some_and(|p| p.contains_key(k));
        if had("name") || prev.is_none() || !b.name.is_empty() {
            e.insert("name".into(), json!(b.name));
        }
        for (k, v, default) in [
            ("default_value", b.default_value, 0.0),
            ("limit_upper", b.limit_upper, 1.0),
            ("limit_lower", b.limit_lower, 0.0),
        ] {
            if had(k) || v != default {
                e.insert(k.into(), json!(v));
            }
        }
        match &b.indices {
            Some(i) => {
                let v = self.reference(get("indices"), uint_bytes(i, iw));
                e.insert("indices".into(), v);
            }
            None => {
                e.shift_remove("indices");
            }
        }
        let v = self.reference(
            get("position_offsets"),
            float_bytes(b.position_offsets.iter().flatten(), fw),
        );
        e.insert("position_offsets".into(), v);
        match &b.split_indices {
            Some(i) => {
                let v = self.reference(get("split_indices"), uint_bytes(i, iw));
                e.insert("split_indices".into(), v);
            }
            None => {
                e.shift_remove("split_indices");
            }
        }
        match &b.split_normals {
            Some(n) => {
                let v = self.reference(get("split_normals"), float_bytes(n.iter().flatten(), fw));
                e.insert("split_normals".into(), v);
            }
            None => {
                e.shift_remove("split_normals");
            }
        }
        e
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
