//! One `stf.mesh` resource written from a [`MeshSource`] (`MeshWriter`): its keys
//! rewritten in place, each array property encoded and referenced (the buffer it named
//! when the bytes are the same, else a new one), and new buffers given slots of
//! `referenced_buffers`.

use std::collections::{BTreeSet, HashSet};

use serde_json::{json, Map, Value};

use super::{bad, integers, IdSource, ARRAY_KEYS, MODEL_KEYS, NOT_BUFFER_KEYS};
use crate::error::Result;
use crate::stf::model::source::{MeshSource, Prop};
use crate::stf::raw::StfContainer;

/// The smallest of 1, 2, 4, 8 bytes that holds `max`, at least `width`.
fn fitting_width(width: u64, max: u64) -> u64 {
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
/// The `indices_width` a mesh is written with (of `blendshapes` blendshapes): its own,
/// or the smallest of 1, 2, 4, 8 bytes that holds every index.
pub(crate) fn indices_width(m: &dyn MeshSource, blendshapes: usize) -> u64 {
    let index_props = [Prop::FaceCorners, Prop::Splits, Prop::Tris, Prop::Faces]
        .into_iter()
        .chain((0..blendshapes).map(Prop::BlendIndices))
        .chain((0..blendshapes).map(Prop::BlendSplitIndices));
    let max_index = index_props.map(|p| m.max(p)).max().unwrap_or(0);
    fitting_width(m.indices_width(), max_index)
}

/// Writes one mesh resource.
pub(super) struct MeshWriter<'a> {
    pub(super) c: &'a StfContainer,
    pub(super) doc: &'a Value,
    pub(super) old: &'a Map<String, Value>,
    pub(super) new_buffers: &'a mut Vec<(String, Vec<u8>)>,
    pub(super) ids: &'a mut IdSource,
    /// Buffer ids the old versions of rewritten properties named (candidates to drop).
    pub(super) released: &'a mut HashSet<String>,
    /// Buffer ids of the new buffers this mesh names, in order (new style: to place
    /// into `referenced_buffers`).
    pub(super) fresh: Vec<String>,
    /// Slots of the old `referenced_buffers` that rewritten properties still name.
    pub(super) reused: BTreeSet<u64>,
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

    pub(super) fn write(mut self, m: &mut dyn MeshSource) -> Result<Map<String, Value>> {
        self.release_all();
        let fw = m.float_width();
        if !matches!(fw, 4 | 8) {
            return Err(bad(format!("mesh {}: float_width {fw}: 4 or 8", m.id())));
        }
        let blendshapes = m.blendshapes();
        let iw = indices_width(m, blendshapes.len());
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
