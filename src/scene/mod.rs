//! The format-neutral scene, and its interchange formats: glTF 2.0 ([`gltf`], written;
//! [`import`] reads it) and Wavefront OBJ ([`obj`], written; [`import`] reads it).
//!
//! This module knows no mesh format: each format turns itself into a [`Scene`] (and,
//! where it can, back) in its own folder — [`filemesh::scene`](crate::filemesh::scene),
//! [`csg::phs::scene`](crate::csg::phs::scene), [`unigine::scene`](crate::unigine::scene),
//! [`stf::scene`](crate::stf::scene).
//!
//! A scene holds meshes made of primitives, each primitive a triangle list over its own
//! vertex arrays (positions, and where the source has them normals, one UV set and
//! colours). The numbers are the source's; [`Scene::up`] says which axis is up in them,
//! and [`Scene::to_y_up`] turns a +Z-up scene (UNIGINE) to glTF's +Y up, which export
//! does by default ([`axes`] lists each format's conventions). UVs are kept as stored.
//!
//! Skinned meshes also give a [`Skeleton`] ([`Scene::skeleton`]) and, per primitive,
//! four joints and weights per vertex ([`Primitive::joints`], [`Primitive::weights`]).
//! The glTF writer turns them into a skin; OBJ has none and ignores them. Animations
//! become [`Animation`]s: per animated joint, a [`Channel`] of translations, rotations
//! or scales, one key per frame at [`FRAME_RATE`]; glTF writes them as animations
//! targeting the joint nodes, OBJ ignores them. Morph targets and blendshapes become
//! [`MorphTarget`]s: per-vertex position deltas ([`Primitive::morph_targets`]), written
//! as glTF morph targets; OBJ ignores them.
//!
//! Every format's adapter ends with [`Scene::prepare`]: each primitive keeps only the
//! vertices its triangles use (in their original order), values that are not finite are
//! replaced (0; 1 for a scale) and zero normals become (0, 0, 1). What that changed is
//! listed, with counts, in [`Scene::notes`] ([`ExportNote`]); the CLI prints the notes.
//!
//! # Example
//!
//! A scene from any file, looked at and written as glTF; the same scene read back:
//!
//! ```
//! use meshcodec::{open, scene, Limits, MeshFile};
//!
//! let bytes = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/roundtrip-fixtures/unigine/ms11-skinned.mesh"));
//! let s = open(bytes)?.to_scene(&Default::default(), &Limits::default())?;
//! assert_eq!(s.up, scene::axes::UpAxis::Y); // turned to glTF's +Y up
//! let primitive = &s.meshes[0].primitives[0];
//! assert!(primitive.joints.is_some() && s.skeleton.is_some());
//! let glb = scene::gltf::to_glb(&s)?;
//! let back = scene::import::read_gltf(&glb, None)?;
//! assert_eq!(back.meshes[0].primitives[0].positions.len(), primitive.positions.len());
//! # Ok::<(), meshcodec::Error>(())
//! ```

pub mod axes;
pub(crate) mod carry;
pub mod edit;
pub mod gltf;
pub mod import;
pub mod obj;
pub(crate) mod skin;

use serde::Serialize;

use crate::error::{Error, ErrorKind, Result};

pub use axes::UpAxis;
pub use edit::{Bounds, Transform};

/// What an export holds.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Scene {
    /// The meshes, each becoming a glTF mesh (and node) or an OBJ object.
    pub meshes: Vec<ExportMesh>,
    /// The skeleton that [`Primitive::joints`] index into, shared by every mesh (one
    /// glTF skin); `None` for a scene without bones.
    pub skeleton: Option<Skeleton>,
    /// Animations of the skeleton's joints (glTF animations); empty when the source
    /// has none. OBJ ignores them.
    pub animations: Vec<Animation>,
    /// What the adapter changed so that glTF and OBJ can hold the data (vertices no
    /// triangle uses left out, values that are not finite replaced …), with counts;
    /// empty when nothing changed. See [`Scene::prepare`].
    pub notes: Vec<ExportNote>,
    /// The axis that points up in the numbers: the source format's ([`axes`]). Export
    /// turns a +Z-up scene to glTF's +Y up ([`Scene::to_y_up`]) unless asked to keep
    /// the values as stored.
    pub up: UpAxis,
}

/// Something an export changed so that glTF and OBJ can hold the data, and how often.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ExportNote {
    /// What changed.
    pub kind: NoteKind,
    /// How many vertices, components or normals it concerns (the detail says which).
    pub count: usize,
    /// One sentence for a person, with the count.
    pub detail: String,
}

impl std::fmt::Display for ExportNote {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.detail)
    }
}

/// The kinds of [`ExportNote`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[non_exhaustive]
pub enum NoteKind {
    /// Vertices that no exported triangle uses, left out; the others keep their order
    /// and are renumbered.
    UnusedVertices,
    /// Numbers that are not finite (NaN, ±∞), replaced: by 0, or by 1 for a scale.
    NonFinite,
    /// Normals of zero length (once any component that is not finite became 0),
    /// replaced by (0, 0, 1).
    ZeroNormals,
    /// Import: content of the glTF or OBJ file that the scene does not carry (skins,
    /// animations, morph targets, further UV sets, materials …).
    NotImported,
}

/// What the adapters and [`Scene::prepare`] change, counted, per kind and per what
/// (`"position"`, `"bind pose"` …) with the value put in.
#[derive(Debug, Default)]
pub(crate) struct Fixes {
    counts: Vec<(NoteKind, &'static str, &'static str, usize)>,
}

impl Fixes {
    fn add(&mut self, kind: NoteKind, what: &'static str, with: &'static str, n: usize) {
        if n == 0 {
            return;
        }
        match self
            .counts
            .iter_mut()
            .find(|(k, w, r, _)| (*k, *w, *r) == (kind, what, with))
        {
            Some(entry) => entry.3 += n,
            None => self.counts.push((kind, what, with, n)),
        }
    }

    /// `x`, or `with` (counted as a `what` component) when `x` is not finite.
    pub(crate) fn finite<T: Finite>(&mut self, what: &'static str, x: T, with: T) -> T {
        if x.finite() {
            return x;
        }
        let name = if with.is_one() { "1" } else { "0" };
        self.add(NoteKind::NonFinite, what, name, 1);
        with
    }

    fn into_notes(self) -> Vec<ExportNote> {
        self.counts
            .into_iter()
            .map(|(kind, what, with, count)| {
                // "1 vertex … was", "2 vertices … were".
                let one = count == 1;
                let (was, s) = if one { ("was", "") } else { ("were", "s") };
                let detail = match kind {
                    NoteKind::UnusedVertices => format!(
                        "{count} {} that no exported triangle uses {was} left out",
                        if one { "vertex" } else { "vertices" }
                    ),
                    NoteKind::NonFinite => format!(
                        "{count} {what} component{s} that {was} not finite (NaN or infinite) \
                         {was} written as {with}"
                    ),
                    NoteKind::ZeroNormals => format!(
                        "{count} normal{s} of zero length (once components that were not \
                         finite became 0) {was} written as (0, 0, 1)"
                    ),
                    NoteKind::NotImported => format!("{count} {what} {was} not imported"),
                };
                ExportNote {
                    kind,
                    count,
                    detail,
                }
            })
            .collect()
    }
}

/// `f32` and `f64`, for [`Fixes::finite`].
pub(crate) trait Finite: Copy {
    fn finite(self) -> bool;
    fn is_one(self) -> bool;
}

impl Finite for f32 {
    fn finite(self) -> bool {
        self.is_finite()
    }
    fn is_one(self) -> bool {
        self == 1.0
    }
}

impl Finite for f64 {
    fn finite(self) -> bool {
        self.is_finite()
    }
    fn is_one(self) -> bool {
        self == 1.0
    }
}

/// The frame rate at which UNIGINE animation frames are laid out in time: frame `f` is
/// at `f / FRAME_RATE` seconds. UNIGINE files store no rate; 30 frames per second is
/// this crate's documented default.
pub const FRAME_RATE: f32 = 30.0;

/// A named animation: keyframed transforms of [`Scene::skeleton`]'s joints.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Animation {
    /// Name.
    pub name: String,
    /// Its channels; at most one per joint and path (glTF allows no more), and at
    /// least one (glTF allows no empty animation).
    pub channels: Vec<Channel>,
}

/// The keyframes of one property (translation, rotation or scale) of one joint, linearly
/// interpolated.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Channel {
    /// Index of the animated joint in [`Skeleton::joints`].
    pub joint: usize,
    /// Key times in seconds: at least one, not negative, strictly increasing.
    pub times: Vec<f32>,
    /// The property and its value at each time (one per entry of `times`).
    pub values: ChannelValues,
}

/// The animated property of a [`Channel`] and its values, local to the joint's parent
/// as [`Joint`]'s transform is.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum ChannelValues {
    /// Translations.
    Translation(Vec<[f32; 3]>),
    /// Rotations, unit quaternions (x, y, z, w).
    Rotation(Vec<[f32; 4]>),
    /// Scales.
    Scale(Vec<[f32; 3]>),
}

impl ChannelValues {
    /// The glTF `target.path`: `"translation"`, `"rotation"` or `"scale"`.
    pub fn path(&self) -> &'static str {
        match self {
            ChannelValues::Translation(_) => "translation",
            ChannelValues::Rotation(_) => "rotation",
            ChannelValues::Scale(_) => "scale",
        }
    }

    /// The number of values.
    pub fn len(&self) -> usize {
        match self {
            ChannelValues::Translation(v) | ChannelValues::Scale(v) => v.len(),
            ChannelValues::Rotation(v) => v.len(),
        }
    }

    /// Whether there are no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Animation {
    /// Checks that the animation has channels, each naming one of `joints` joints, no two
    /// the same joint and path, each with as many values as times (at least one), times
    /// finite, not negative and strictly increasing, values finite and rotations unit
    /// quaternions (within 1e-3).
    pub fn check(&self, joints: usize) -> Result<()> {
        let name = &self.name;
        if self.channels.is_empty() {
            return Err(inconsistent(format!("animation {name:?} has no channels")));
        }
        let mut seen = std::collections::HashSet::new();
        for c in &self.channels {
            let (j, path) = (c.joint, c.values.path());
            let what = format!("animation {name:?}, joint {j} {path}");
            if j >= joints {
                return Err(inconsistent(format!(
                    "{what}: a skeleton of {joints} joints"
                )));
            }
            if !seen.insert((j, path)) {
                return Err(inconsistent(format!("{what}: two channels")));
            }
            if c.times.is_empty() || c.times.len() != c.values.len() {
                return Err(inconsistent(format!(
                    "{what}: {} times and {} values",
                    c.times.len(),
                    c.values.len()
                )));
            }
            let increasing = c.times.windows(2).all(|w| match w {
                [a, b] => a < b,
                _ => true,
            });
            if c.times.iter().any(|t| !t.is_finite() || *t < 0.0) || !increasing {
                return Err(inconsistent(format!(
                    "{what}: times must be finite, not negative and increasing"
                )));
            }
            let values: Vec<f32> = match &c.values {
                ChannelValues::Translation(v) | ChannelValues::Scale(v) => {
                    v.iter().flatten().copied().collect()
                }
                ChannelValues::Rotation(v) => v.iter().flatten().copied().collect(),
            };
            if let Some(x) = values.iter().find(|x| !x.is_finite()) {
                return Err(Error::new(
                    "export",
                    ErrorKind::Invalid(format!("{what}: value {x} cannot be written to glTF")),
                ));
            }
            if let ChannelValues::Rotation(v) = &c.values {
                let unit = |q: &[f32; 4]| {
                    let len = q.iter().map(|&x| f64::from(x).powi(2)).sum::<f64>().sqrt();
                    (len - 1.0).abs() <= 1e-3
                };
                if let Some(q) = v.iter().find(|q| !unit(q)) {
                    return Err(inconsistent(format!(
                        "{what}: rotation {q:?} is not a unit quaternion"
                    )));
                }
            }
        }
        Ok(())
    }
}

/// The joints of a skin, in the order [`Primitive::joints`] index them.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Skeleton {
    /// The joints; parents may come after their children.
    pub joints: Vec<Joint>,
}

/// One joint (bone) in its bind pose.
///
/// Its world matrix is its parent's world matrix × its local matrix `T × R × S`
/// (a root's local matrix is its world matrix).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Joint {
    /// Name.
    pub name: String,
    /// Index of the parent joint in [`Skeleton::joints`], `None` for a root.
    pub parent: Option<usize>,
    /// Translation, local to the parent.
    pub translation: [f32; 3],
    /// Rotation local to the parent, a unit quaternion (x, y, z, w).
    pub rotation: [f32; 4],
    /// Scale, local to the parent.
    pub scale: [f32; 3],
    /// The inverse of the joint's world matrix in the bind pose, column-major (as glTF
    /// stores it); its last row is (0, 0, 0, 1).
    pub inverse_bind_matrix: [f32; 16],
}

impl Default for Joint {
    /// A root at the origin: identity transform and inverse bind matrix.
    fn default() -> Self {
        Joint {
            name: String::new(),
            parent: None,
            translation: [0.0; 3],
            rotation: [0.0, 0.0, 0.0, 1.0],
            scale: [1.0; 3],
            inverse_bind_matrix: skin::IDENTITY.map(|x| x as f32),
        }
    }
}

fn inconsistent(what: String) -> Error {
    Error::new("export", ErrorKind::Inconsistent(what))
}

impl Skeleton {
    /// Checks that every parent is in range and no joint is its own ancestor, that every
    /// value is finite, rotations are unit quaternions (within 1e-3) and inverse bind
    /// matrices end in the row (0, 0, 0, 1), and that there are at most 65,536 joints.
    pub fn check(&self) -> Result<()> {
        let n = self.joints.len();
        if n > 1 << 16 {
            return Err(inconsistent(format!(
                "{n} joints: more than 16-bit joint indices reach"
            )));
        }
        let parents: Vec<Option<usize>> = self.joints.iter().map(|j| j.parent).collect();
        let sane = skin::sane_parents(&parents);
        for (j, (p, s)) in self.joints.iter().zip(parents.iter().zip(&sane)) {
            let name = &j.name;
            if p != s {
                return Err(inconsistent(match p {
                    Some(p) if *p >= n => format!("joint {name:?}: parent {p} of {n} joints"),
                    _ => format!("joint {name:?}: its parents form a cycle"),
                }));
            }
            let values = j.translation.iter().chain(&j.rotation).chain(&j.scale);
            if let Some(x) = values
                .chain(&j.inverse_bind_matrix)
                .find(|x| !x.is_finite())
            {
                return Err(Error::new(
                    "export",
                    ErrorKind::Invalid(format!(
                        "joint {name:?}: value {x} cannot be written to glTF"
                    )),
                ));
            }
            let len = j
                .rotation
                .iter()
                .map(|&x| f64::from(x).powi(2))
                .sum::<f64>()
                .sqrt();
            if (len - 1.0).abs() > 1e-3 {
                return Err(inconsistent(format!(
                    "joint {name:?}: rotation {:?} is not a unit quaternion",
                    j.rotation
                )));
            }
            let m = &j.inverse_bind_matrix;
            let last_row = [m.get(3), m.get(7), m.get(11), m.get(15)];
            if last_row != [Some(&0.0), Some(&0.0), Some(&0.0), Some(&1.0)] {
                return Err(inconsistent(format!(
                    "joint {name:?}: inverse bind matrix's last row is not (0, 0, 0, 1)"
                )));
            }
        }
        Ok(())
    }
}

impl Scene {
    /// Makes the scene fit glTF and OBJ, and adds to [`Scene::notes`] what that changed
    /// (with counts). The adapters (`from_*`) call it; call it on a scene built by hand
    /// before writing, as the writers refuse values that are not finite.
    ///
    /// 1. Each primitive keeps only the vertices its triangles use, in their original
    ///    order, renumbered; normals, UVs, colours, joints, weights and morph target
    ///    deltas follow. (A primitive with an index out of range is left as it is, for
    ///    [`Primitive::check`] to report.)
    /// 2. Components that are not finite (NaN, ±∞) become 0: of positions, normals, UVs,
    ///    colours, skin weights, morph target deltas, animated translations and rotations;
    ///    animated scales become 1.
    /// 3. Normals are scaled to unit length (glTF requires it); a normal of zero length
    ///    (a zero one, or one with no finite component) becomes (0, 0, 1).
    /// 4. A vertex with a skin weight replaced is scaled to sum to 1 again, or bound to
    ///    joint 0 with weight 1 when no weight is left.
    /// 5. Animated rotations are normalised; a zero one becomes the identity.
    pub fn prepare(&mut self) {
        self.prepare_with(Fixes::default());
    }

    /// [`Scene::prepare`], adding what the adapter already counted.
    pub(crate) fn prepare_with(&mut self, mut fixes: Fixes) {
        for p in self.meshes.iter_mut().flat_map(|m| &mut m.primitives) {
            p.drop_unused_vertices(&mut fixes);
            p.replace_non_finite(&mut fixes);
        }
        for c in self.animations.iter_mut().flat_map(|a| &mut a.channels) {
            match &mut c.values {
                ChannelValues::Translation(v) => {
                    for x in v.iter_mut().flatten() {
                        *x = fixes.finite("animation translation", *x, 0.0);
                    }
                }
                ChannelValues::Scale(v) => {
                    for x in v.iter_mut().flatten() {
                        *x = fixes.finite("animation scale", *x, 1.0);
                    }
                }
                ChannelValues::Rotation(v) => {
                    for q in v.iter_mut() {
                        let r = q.map(|x| f64::from(fixes.finite("animation rotation", x, 0.0)));
                        *q = skin::normalize_quat(r).map(|x| x as f32);
                    }
                }
            }
        }
        self.notes.extend(fixes.into_notes());
    }

    /// Checks every primitive ([`Primitive::check`]), the skeleton
    /// ([`Skeleton::check`]) and every animation ([`Animation::check`]), and that every
    /// joint index names a joint.
    pub fn check(&self) -> Result<()> {
        let joints = match &self.skeleton {
            Some(s) => {
                s.check()?;
                s.joints.len()
            }
            None => 0,
        };
        for a in &self.animations {
            a.check(joints)?;
        }
        for m in &self.meshes {
            for p in &m.primitives {
                p.check()?;
                if let Some(j) = p
                    .joints
                    .iter()
                    .flatten()
                    .flatten()
                    .find(|&&j| usize::from(j) >= joints)
                {
                    return Err(inconsistent(format!(
                        "primitive {:?}: joint {j} of a skeleton of {joints}",
                        p.name
                    )));
                }
            }
        }
        Ok(())
    }
}

/// A named mesh.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ExportMesh {
    /// Name.
    pub name: String,
    /// Its parts.
    pub primitives: Vec<Primitive>,
    /// The level of detail the mesh is (0: full detail, 1: the next coarser …). A FileMesh
    /// export of every LOD gives one mesh per level; import reads it back from glTF's
    /// `MSFT_lod` or from mesh names ending in `LOD k`.
    pub lod: usize,
}

/// A triangle list over its own vertices.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Primitive {
    /// Name (a surface, a hull, a LOD).
    pub name: String,
    /// Vertex positions.
    pub positions: Vec<[f32; 3]>,
    /// Per-vertex normals (unit length), if the source has them.
    pub normals: Option<Vec<[f32; 3]>>,
    /// Per-vertex texture coordinates, if the source has them (glTF `TEXCOORD_0`).
    pub uvs: Option<Vec<[f32; 2]>>,
    /// Further UV sets, each with one entry per vertex (glTF `TEXCOORD_1`, `TEXCOORD_2`
    /// …; UNIGINE's second set, STF's further sets); empty when the source has none.
    /// Only meaningful when [`Primitive::uvs`] is present.
    pub extra_uvs: Vec<Vec<[f32; 2]>>,
    /// Per-vertex RGBA colours in 0..=1, if the source has them.
    pub colors: Option<Vec<[f32; 4]>>,
    /// Triangles as three vertex indices.
    pub triangles: Vec<[u32; 3]>,
    /// Per-vertex skin joints: four indices into [`Scene::skeleton`]'s joints (unused
    /// slots 0, with weight 0), when the primitive is skinned.
    pub joints: Option<Vec<[u16; 4]>>,
    /// Per-vertex skin weights, one per joint of [`Primitive::joints`], summing to 1;
    /// present exactly when `joints` is.
    pub weights: Option<Vec<[f32; 4]>>,
    /// Morph targets (blend shapes), each with one position delta per vertex; empty
    /// when the source has none.
    pub morph_targets: Vec<MorphTarget>,
    /// The material the primitive is drawn with, by name, where the source names one
    /// (a UNIGINE surface is its own material): glTF writes one material per name, so
    /// tools that group faces by material (Blender) keep the primitives apart, and the
    /// glTF reader names a primitive after its material.
    pub material: Option<String>,
}

/// One morph target of a [`Primitive`]: the shape is the primitive's positions plus
/// `weight × position_deltas`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct MorphTarget {
    /// Name (may be empty).
    pub name: String,
    /// Per-vertex position offsets from [`Primitive::positions`].
    pub position_deltas: Vec<[f32; 3]>,
    /// The weight the target has by default (the glTF mesh's `weights`): 0, or STF's
    /// `default_value`.
    pub default_weight: f32,
}

impl Primitive {
    /// Checks that every array (morph target deltas too) has one entry per vertex, every
    /// index is in range, joints and weights come together, and weights are finite and
    /// not negative. (Joint indices are checked against the skeleton by
    /// [`Scene::check`].)
    pub fn check(&self) -> Result<()> {
        let n = self.positions.len();
        let bad = |what: String| Err(Error::new("export", ErrorKind::Inconsistent(what)));
        for (what, len) in [
            ("normals", self.normals.as_ref().map(Vec::len)),
            ("uvs", self.uvs.as_ref().map(Vec::len)),
            ("colors", self.colors.as_ref().map(Vec::len)),
            ("joints", self.joints.as_ref().map(Vec::len)),
            ("weights", self.weights.as_ref().map(Vec::len)),
        ] {
            if let Some(len) = len {
                if len != n {
                    return bad(format!(
                        "primitive {:?}: {len} {what} for {n} vertices",
                        self.name
                    ));
                }
            }
        }
        for (k, uv) in self.extra_uvs.iter().enumerate() {
            if uv.len() != n {
                return bad(format!(
                    "primitive {:?}: {} entries in UV set {} for {n} vertices",
                    self.name,
                    uv.len(),
                    k + 1
                ));
            }
        }
        for t in &self.morph_targets {
            let len = t.position_deltas.len();
            if len != n {
                return bad(format!(
                    "primitive {:?}: morph target {:?} has {len} deltas for {n} vertices",
                    self.name, t.name
                ));
            }
        }
        if let Some(i) = self.triangles.iter().flatten().find(|&&i| i as usize >= n) {
            return bad(format!(
                "primitive {:?}: index {i} out of range (of {n})",
                self.name
            ));
        }
        if self.joints.is_some() != self.weights.is_some() {
            return bad(format!(
                "primitive {:?}: joints and weights must come together",
                self.name
            ));
        }
        let mut weights = self.weights.iter().flatten().flatten();
        if let Some(w) = weights.find(|w| !w.is_finite() || **w < 0.0) {
            return bad(format!("primitive {:?}: weight {w}", self.name));
        }
        Ok(())
    }

    /// Keeps only the vertices the triangles use (see [`Scene::prepare`]).
    fn drop_unused_vertices(&mut self, fixes: &mut Fixes) {
        const UNUSED: u32 = u32::MAX;
        let n = self.positions.len();
        let mut index = vec![UNUSED; n];
        for &i in self.triangles.iter().flatten() {
            match index.get_mut(i as usize) {
                Some(slot) => *slot = 0,
                // Out of range: left for `check` to report.
                None => return,
            }
        }
        let mut kept = 0u32;
        for slot in &mut index {
            if *slot != UNUSED {
                *slot = kept;
                kept += 1;
            }
        }
        let kept = kept as usize;
        if kept == n {
            return;
        }
        fixes.add(NoteKind::UnusedVertices, "vertices", "", n - kept);
        fn keep<T>(v: &mut Vec<T>, index: &[u32]) {
            // Arrays of another length are left for `check` to report.
            if v.len() == index.len() {
                let mut k = index.iter();
                v.retain(|_| k.next().is_some_and(|&i| i != UNUSED));
            }
        }
        keep(&mut self.positions, &index);
        for v in self.normals.iter_mut() {
            keep(v, &index);
        }
        for v in self.uvs.iter_mut().chain(&mut self.extra_uvs) {
            keep(v, &index);
        }
        for v in self.colors.iter_mut() {
            keep(v, &index);
        }
        for v in self.joints.iter_mut() {
            keep(v, &index);
        }
        for v in self.weights.iter_mut() {
            keep(v, &index);
        }
        for t in &mut self.morph_targets {
            keep(&mut t.position_deltas, &index);
        }
        for i in self.triangles.iter_mut().flatten() {
            *i = index.get(*i as usize).copied().unwrap_or(*i);
        }
    }

    /// Replaces values glTF cannot hold and makes normals unit length (see
    /// [`Scene::prepare`]).
    fn replace_non_finite(&mut self, fixes: &mut Fixes) {
        for x in self.positions.iter_mut().flatten() {
            *x = fixes.finite("position", *x, 0.0);
        }
        for n in self.normals.iter_mut().flatten() {
            let v = n.map(|x| f64::from(fixes.finite("normal", x, 0.0)));
            let len = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
            *n = if len > 0.0 && len.is_finite() {
                v.map(|x| (x / len) as f32)
            } else {
                fixes.add(NoteKind::ZeroNormals, "normals", "", 1);
                [0.0, 0.0, 1.0]
            };
        }
        for x in self
            .uvs
            .iter_mut()
            .chain(&mut self.extra_uvs)
            .flatten()
            .flatten()
        {
            *x = fixes.finite("UV", *x, 0.0);
        }
        for x in self.colors.iter_mut().flatten().flatten() {
            *x = fixes.finite("colour", *x, 0.0);
        }
        for x in self
            .morph_targets
            .iter_mut()
            .flat_map(|t| &mut t.position_deltas)
            .flatten()
        {
            *x = fixes.finite("morph target delta", *x, 0.0);
        }
        if let (Some(joints), Some(weights)) = (&mut self.joints, &mut self.weights) {
            for (j, w) in joints.iter_mut().zip(weights.iter_mut()) {
                if w.iter().all(|x| x.is_finite()) {
                    continue;
                }
                let kept = w.map(|x| fixes.finite("skin weight", x, 0.0));
                let influences = j
                    .iter()
                    .zip(kept)
                    .map(|(&j, w)| (usize::from(j), f64::from(w)));
                (*j, *w) = skin::vertex_skin(influences, usize::MAX);
            }
        }
    }
}
