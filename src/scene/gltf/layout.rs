//! The glTF document and its buffer laid out from a scene: nodes, meshes, primitives,
//! the skin and the animations as JSON, and each array's bytes, bufferView and accessor
//! as they are written to a [`Sink`] (see the [module documentation](super) for the
//! layout itself).

use std::collections::HashMap;

use serde_json::{json, Map, Value};

use super::sink::Sink;
use crate::error::{Error, ErrorKind, Result};
use crate::scene::{ChannelValues, MorphTarget, Primitive, Scene};

/// `componentType` FLOAT.
pub(super) const FLOAT: u32 = 5126;
/// `componentType` UNSIGNED_BYTE.
const UNSIGNED_BYTE: u32 = 5121;
/// `componentType` UNSIGNED_SHORT.
const UNSIGNED_SHORT: u32 = 5123;
/// `componentType` UNSIGNED_INT.
const UNSIGNED_INT: u32 = 5125;
/// bufferView `target` ARRAY_BUFFER (vertex data).
pub(super) const ARRAY_BUFFER: u32 = 34962;
/// bufferView `target` ELEMENT_ARRAY_BUFFER (indices).
const ELEMENT_ARRAY_BUFFER: u32 = 34963;
/// Primitive `mode` TRIANGLES.
const TRIANGLES: u32 = 4;

/// The document (its buffer without a `uri`) and the buffer's bytes.
pub(super) fn build(scene: &Scene) -> Result<(Value, Vec<u8>)> {
    let (doc, w) = build_into(scene, Sink::Memory(Vec::new()))?;
    let bin = match w.sink {
        Sink::Memory(bin) => bin,
        _ => Vec::new(),
    };
    Ok((doc, bin))
}

/// The document (its buffer without a `uri`), the buffer's bytes going to `sink`; the
/// writer is given back with its sink and the buffer's length.
pub(super) fn build_into<'a>(scene: &Scene, sink: Sink<'a>) -> Result<(Value, Writer<'a>)> {
    scene.check()?;
    let skeleton = scene.skeleton.as_ref().filter(|s| !s.joints.is_empty());
    let joint_count = skeleton.map_or(0, |s| s.joints.len());
    let mut w = Writer::new(sink);
    let mut meshes = Vec::new();
    let mut nodes = Vec::new();
    for mesh in &scene.meshes {
        let written: Vec<&Primitive> = mesh
            .primitives
            .iter()
            .filter(|p| !p.triangles.is_empty())
            .collect();
        let skinned = skeleton.is_some() && written.iter().any(|p| p.joints.is_some());
        let targets = MeshTargets::of(&written);
        let mut primitives = Vec::new();
        for (prim, row) in written.iter().zip(&targets.rows) {
            primitives.push(w.primitive(prim, skinned.then_some(joint_count), row)?);
        }
        if primitives.is_empty() {
            continue;
        }
        let mut node = json!({ "name": mesh.name, "mesh": meshes.len() });
        if let (true, Some(obj)) = (skinned, node.as_object_mut()) {
            obj.insert("skin".into(), json!(0));
        }
        nodes.push(node);
        let mut m = json!({ "name": mesh.name, "primitives": primitives });
        if let (false, Some(obj)) = (targets.names.is_empty(), m.as_object_mut()) {
            if let Some(x) = targets.weights.iter().find(|x| !x.is_finite()) {
                return Err(Error::new(
                    "glTF export",
                    ErrorKind::Invalid(format!(
                        "mesh {:?}: morph target weight {x} cannot be written to glTF",
                        mesh.name
                    )),
                ));
            }
            let weights: Vec<f64> = targets.weights.iter().map(|&x| f64::from(x)).collect();
            obj.insert("weights".into(), json!(weights));
            obj.insert("extras".into(), json!({ "targetNames": targets.names }));
        }
        meshes.push(m);
    }
    let mut roots: Vec<usize> = (0..nodes.len()).collect();
    let mut skins = Vec::new();
    let first = nodes.len();
    if let Some(s) = skeleton {
        let mut children = vec![Vec::new(); s.joints.len()];
        let mut joint_roots = Vec::new();
        for (i, j) in s.joints.iter().enumerate() {
            match j.parent.and_then(|p| children.get_mut(p)) {
                Some(c) => c.push(first + i),
                None => joint_roots.push(first + i),
            }
        }
        for (j, c) in s.joints.iter().zip(children) {
            let num = |v: &[f32]| v.iter().map(|&x| f64::from(x)).collect::<Vec<_>>();
            let mut node = json!({
                "name": j.name,
                "translation": num(&j.translation),
                "rotation": num(&j.rotation),
                "scale": num(&j.scale),
            });
            if let (false, Some(obj)) = (c.is_empty(), node.as_object_mut()) {
                obj.insert("children".into(), json!(c));
            }
            nodes.push(node);
        }
        let root = match joint_roots.as_slice() {
            [one] => *one,
            _ => {
                nodes.push(json!({ "name": "skeleton", "children": joint_roots }));
                nodes.len() - 1
            }
        };
        roots.push(root);
        let view = w.view(
            s.joints
                .iter()
                .flat_map(|j| j.inverse_bind_matrix)
                .flat_map(f32::to_le_bytes),
            None,
        );
        let ibm = w.accessor(json!({
            "name": "inverse bind matrices",
            "bufferView": view,
            "componentType": FLOAT,
            "count": s.joints.len(),
            "type": "MAT4",
        }));
        skins.push(json!({
            "name": "skeleton",
            "inverseBindMatrices": ibm,
            "joints": (first..first + s.joints.len()).collect::<Vec<_>>(),
            "skeleton": root,
        }));
    }
    let mut animations = Vec::new();
    let mut inputs = HashMap::<Vec<u32>, usize>::new();
    for a in &scene.animations {
        let (mut samplers, mut channels) = (Vec::new(), Vec::new());
        for c in &a.channels {
            let bits: Vec<u32> = c.times.iter().map(|t| t.to_bits()).collect();
            let input = match inputs.get(&bits) {
                Some(&i) => i,
                None => {
                    let view = w.view(c.times.iter().flat_map(|t| t.to_le_bytes()), None);
                    let (lo, hi) = (c.times.first(), c.times.last());
                    let i = w.accessor(json!({
                        "name": format!("{} times", a.name),
                        "bufferView": view,
                        "componentType": FLOAT,
                        "count": c.times.len(),
                        "type": "SCALAR",
                        "min": [lo.copied().map(f64::from)],
                        "max": [hi.copied().map(f64::from)],
                    }));
                    inputs.insert(bits, i);
                    i
                }
            };
            let (bytes, ty): (Vec<u8>, &str) = match &c.values {
                ChannelValues::Translation(v) | ChannelValues::Scale(v) => (
                    v.iter().flatten().flat_map(|x| x.to_le_bytes()).collect(),
                    "VEC3",
                ),
                ChannelValues::Rotation(v) => (
                    v.iter().flatten().flat_map(|x| x.to_le_bytes()).collect(),
                    "VEC4",
                ),
            };
            let path = c.values.path();
            let view = w.view(bytes.into_iter(), None);
            let output = w.accessor(json!({
                "name": format!("{} joint {} {path}", a.name, c.joint),
                "bufferView": view,
                "componentType": FLOAT,
                "count": c.values.len(),
                "type": ty,
            }));
            channels.push(json!({
                "sampler": samplers.len(),
                "target": { "node": first + c.joint, "path": path },
            }));
            samplers.push(json!({
                "input": input,
                "output": output,
                "interpolation": "LINEAR",
            }));
        }
        animations.push(json!({
            "name": a.name,
            "channels": channels,
            "samplers": samplers,
        }));
    }

    let mut doc = Map::new();
    doc.insert(
        "asset".into(),
        json!({ "version": "2.0", "generator": "meshcodec" }),
    );
    doc.insert("scene".into(), json!(0));
    let scene_obj = if roots.is_empty() {
        json!({})
    } else {
        json!({ "nodes": roots })
    };
    doc.insert("scenes".into(), json!([scene_obj]));
    if !nodes.is_empty() {
        doc.insert("nodes".into(), Value::Array(nodes));
    }
    if !meshes.is_empty() {
        doc.insert("meshes".into(), Value::Array(meshes));
    }
    if !skins.is_empty() {
        doc.insert("skins".into(), Value::Array(skins));
    }
    if !animations.is_empty() {
        doc.insert("animations".into(), Value::Array(animations));
    }
    if !w.materials.is_empty() {
        // A name only: the primitives' grouping, which tools keep (Blender's material
        // slots), not a look.
        let materials = std::mem::take(&mut w.materials);
        doc.insert(
            "materials".into(),
            materials.iter().map(|m| json!({ "name": m })).collect(),
        );
    }
    if !w.accessors.is_empty() {
        let views = std::mem::take(&mut w.views);
        doc.insert(
            "accessors".into(),
            Value::Array(std::mem::take(&mut w.accessors)),
        );
        doc.insert("bufferViews".into(), Value::Array(views));
        doc.insert("buffers".into(), json!([{ "byteLength": w.len }]));
    }
    Ok((Value::Object(doc), w))
}

/// The morph targets of a mesh's written primitives (see the module documentation).
struct MeshTargets<'a> {
    /// The mesh's targets' names.
    names: Vec<&'a str>,
    /// Their default weights.
    weights: Vec<f32>,
    /// Per primitive, per mesh target, the primitive's target (`None`: zero deltas).
    rows: Vec<Vec<Option<&'a MorphTarget>>>,
}

impl<'a> MeshTargets<'a> {
    fn of(primitives: &[&'a Primitive]) -> Self {
        let mut names = Vec::new();
        let mut weights = Vec::new();
        // (name, occurrence) -> mesh target.
        let mut slot_of = HashMap::<(&str, usize), usize>::new();
        let mut placed = Vec::new();
        for p in primitives {
            let mut seen = HashMap::<&str, usize>::new();
            let mut mine = Vec::new();
            for t in &p.morph_targets {
                let n = seen.entry(t.name.as_str()).or_insert(0);
                let key = (t.name.as_str(), *n);
                *n += 1;
                let slot = *slot_of.entry(key).or_insert_with(|| {
                    names.push(t.name.as_str());
                    weights.push(t.default_weight);
                    names.len() - 1
                });
                mine.push((slot, t));
            }
            placed.push(mine);
        }
        let rows = placed
            .into_iter()
            .map(|mine| {
                let mut row = vec![None; names.len()];
                for (slot, t) in mine {
                    if let Some(r) = row.get_mut(slot) {
                        *r = Some(t);
                    }
                }
                row
            })
            .collect();
        MeshTargets {
            names,
            weights,
            rows,
        }
    }
}

/// The buffer, bufferViews and accessors as they grow.
pub(super) struct Writer<'a> {
    pub(super) sink: Sink<'a>,
    /// The buffer's length so far.
    pub(super) len: usize,
    views: Vec<Value>,
    accessors: Vec<Value>,
    /// The materials the primitives name, in order of first use.
    materials: Vec<String>,
}

impl<'a> Writer<'a> {
    fn new(sink: Sink<'a>) -> Self {
        Writer {
            sink,
            len: 0,
            views: Vec::new(),
            accessors: Vec::new(),
            materials: Vec::new(),
        }
    }

    /// Writes one primitive's arrays; returns the glTF primitive. `skin` is the joint
    /// count when the primitive's mesh is skinned; `targets` the primitive's target for
    /// each of the mesh's (`None`: zero deltas).
    fn primitive(
        &mut self,
        p: &Primitive,
        skin: Option<usize>,
        targets: &[Option<&MorphTarget>],
    ) -> Result<Value> {
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
            for (k, uv) in p.extra_uvs.iter().enumerate() {
                let name = format!("TEXCOORD_{}", k + 1);
                finite(p, "UV", uv.iter().flatten())?;
                let a = self.floats(&name, p, uv, None);
                attributes.insert(name, json!(a));
            }
        }
        if let Some(c) = &p.colors {
            finite(p, "colour", c.iter().flatten())?;
            attributes.insert("COLOR_0".into(), json!(self.floats("COLOR_0", p, c, None)));
        }
        if let Some(joint_count) = skin {
            let n = p.positions.len();
            let unbound;
            let (joints, weights) = match (&p.joints, &p.weights) {
                (Some(j), Some(w)) => (j, w),
                _ => {
                    unbound = (vec![[0u16; 4]; n], vec![[1.0f32, 0.0, 0.0, 0.0]; n]);
                    (&unbound.0, &unbound.1)
                }
            };
            let (component, view) = if joint_count <= 256 {
                let bytes = joints.iter().flatten().map(|&j| j.to_le_bytes()[0]);
                (UNSIGNED_BYTE, self.view(bytes, Some(ARRAY_BUFFER)))
            } else {
                let bytes = joints.iter().flatten().flat_map(|j| j.to_le_bytes());
                (UNSIGNED_SHORT, self.view(bytes, Some(ARRAY_BUFFER)))
            };
            let a = self.accessor(json!({
                "name": format!("{} JOINTS_0", p.name),
                "bufferView": view,
                "componentType": component,
                "count": n,
                "type": "VEC4",
            }));
            attributes.insert("JOINTS_0".into(), json!(a));
            let a = self.floats("WEIGHTS_0", p, weights, None);
            attributes.insert("WEIGHTS_0".into(), json!(a));
        }
        let mut target_list = Vec::new();
        for (k, t) in targets.iter().enumerate() {
            let semantic = format!("target {k} POSITION");
            let a = match t {
                Some(t) => {
                    let d = &t.position_deltas;
                    finite(p, "morph target delta", d.iter().flatten())?;
                    self.floats(&semantic, p, d, Some(bounds(d)))
                }
                None => self.accessor(json!({
                    "name": format!("{} {semantic}", p.name),
                    "componentType": FLOAT,
                    "count": p.positions.len(),
                    "type": "VEC3",
                    "min": [0.0, 0.0, 0.0],
                    "max": [0.0, 0.0, 0.0],
                })),
            };
            target_list.push(json!({ "POSITION": a }));
        }

        let view = self.view(
            p.triangles.iter().flatten().flat_map(|i| i.to_le_bytes()),
            Some(ELEMENT_ARRAY_BUFFER),
        );
        let indices = self.accessor(json!({
            "name": format!("{} indices", p.name),
            "bufferView": view,
            "componentType": UNSIGNED_INT,
            "count": p.triangles.len() * 3,
            "type": "SCALAR",
        }));
        let mut prim = json!({
            "attributes": attributes,
            "indices": indices,
            "mode": TRIANGLES,
            "extras": { "name": p.name },
        });
        if let (false, Some(obj)) = (target_list.is_empty(), prim.as_object_mut()) {
            obj.insert("targets".into(), Value::Array(target_list));
        }
        if let (Some(name), Some(obj)) = (&p.material, prim.as_object_mut()) {
            let k = match self.materials.iter().position(|m| m == name) {
                Some(k) => k,
                None => {
                    self.materials.push(name.clone());
                    self.materials.len() - 1
                }
            };
            obj.insert("material".into(), json!(k));
        }
        Ok(prim)
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
            Some(ARRAY_BUFFER),
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
    fn view(&mut self, bytes: impl Iterator<Item = u8>, target: Option<u32>) -> usize {
        let padding = (4 - self.len % 4) % 4;
        self.len += self.sink.put(std::iter::repeat_n(0, padding));
        let start = self.len;
        self.len += self.sink.put(bytes);
        let mut view = json!({
            "buffer": 0,
            "byteOffset": start,
            "byteLength": self.len - start,
        });
        if let (Some(t), Some(obj)) = (target, view.as_object_mut()) {
            obj.insert("target".into(), json!(t));
        }
        self.views.push(view);
        self.views.len() - 1
    }

    fn accessor(&mut self, a: Value) -> usize {
        self.accessors.push(a);
        self.accessors.len() - 1
    }
}

/// Component-wise minimum and maximum (of a non-empty, finite array).
pub(super) fn bounds<const N: usize>(values: &[[f32; N]]) -> (Vec<f32>, Vec<f32>) {
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
