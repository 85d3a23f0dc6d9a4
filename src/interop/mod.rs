//! Export to interchange formats: glTF 2.0 ([`gltf`]) and Wavefront OBJ ([`obj`]).
//!
//! Every format this crate reads turns into one [`Scene`]: meshes made of primitives,
//! each primitive a triangle list over its own vertex arrays (positions, and where the
//! source has them normals, one UV set and colours). Coordinates and UVs are written as
//! the source stores them (no axis or V flip), so numbers can be compared one to one.
//!
//! - Roblox FileMesh: one mesh, one primitive per chosen LOD (LOD 0 by default);
//! - CSGPHS: one mesh, one primitive per convex hull;
//! - UNIGINE: one mesh, one primitive per surface (morph target 0), a vertex per
//!   triangle vertex (its position through the coordinate indices, its first UV set);
//! - STF: one mesh per `stf.mesh`, a vertex per split.
//!
//! Skinned FileMeshes (4.00 and later) and UNIGINE meshes with bones also give a
//! [`Skeleton`] ([`Scene::skeleton`]) and, per primitive, four joints and weights per
//! vertex ([`Primitive::joints`], [`Primitive::weights`]): see [`from_filemesh`] and
//! [`from_unigine`]. The glTF writer turns them into a skin; OBJ has none and ignores
//! them.
//!
//! UNIGINE animations (`.anim` files through [`from_unigine_anim`], and those embedded
//! in ms10–ms12 meshes) become [`Animation`]s: per animated joint, a [`Channel`] of
//! translations, rotations or scales, one key per frame at [`FRAME_RATE`]; glTF writes
//! them as animations targeting the joint nodes, OBJ ignores them.
//!
//! UNIGINE morph targets and STF blendshapes become [`MorphTarget`]s: per-vertex
//! position deltas ([`Primitive::morph_targets`]), written as glTF morph targets; OBJ
//! ignores them.
//!
//! Every adapter ends with [`Scene::prepare`]: each primitive keeps only the vertices
//! its triangles use (in their original order), values that are not finite are replaced
//! (0; 1 for a scale) and zero normals become (0, 0, 1). What that changed is listed,
//! with counts, in [`Scene::notes`] ([`ExportNote`]); the CLI prints the notes.

pub mod gltf;
pub mod import;
pub mod obj;
mod skin;

use serde::Serialize;

use crate::error::{Error, ErrorKind, Limits, Result};

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
    /// Per-vertex texture coordinates, if the source has them.
    pub uvs: Option<Vec<[f32; 2]>>,
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
        for v in self.uvs.iter_mut() {
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
        for x in self.uvs.iter_mut().flatten().flatten() {
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

/// A Roblox FileMesh as a scene: LOD `lod` (0 = full detail).
///
/// A mesh with bones also gives the skeleton: the bones in file order, each joint's
/// local transform its parent's world transform inverted times its own (FileMesh bones
/// are in world space; a bone's rotation is taken as the nearest unit quaternion), and
/// each inverse bind matrix the inverse of the bone's world matrix (as the joint's local
/// transforms compose it, which is the file's to rounding). A parent index out of range,
/// or one that closes a cycle, makes the bone a root.
///
/// With skinning, every vertex gets its influences as weights byte / 255 (influences on
/// the same bone added up, those on no bone dropped), heaviest first, scaled to sum to 1
/// (real files' bytes sum to 255, so this changes them by rounding only). A vertex with
/// no weight at all is bound to joint 0 with weight 1.
pub fn from_filemesh(mesh: &crate::roblox::model::Mesh, name: &str, lod: usize) -> Result<Scene> {
    let n = mesh.faces.len();
    let offsets = &mesh.lods.offsets;
    let range = if lod == 0 {
        mesh.lods.lod0(n)
    } else {
        match (offsets.get(lod), offsets.get(lod + 1)) {
            (Some(&a), Some(&b)) if a <= b && (b as usize) <= n => a as usize..b as usize,
            _ => {
                return Err(Error::new(
                    "export",
                    ErrorKind::Invalid(format!(
                        "no LOD {lod}: the mesh has {} (offsets {offsets:?})",
                        mesh.lods.count()
                    )),
                ))
            }
        }
    };
    let faces = mesh.faces.get(range).unwrap_or_default();
    let v = &mesh.vertices;
    let mut prim = Primitive {
        name: format!("LOD {lod}"),
        positions: v.iter().map(|x| x.position).collect(),
        normals: Some(v.iter().map(|x| x.normal).collect()),
        uvs: Some(v.iter().map(|x| x.uv).collect()),
        colors: Some(
            v.iter()
                .map(|x| x.color.map(|c| f32::from(c) / 255.0))
                .collect(),
        ),
        triangles: faces.to_vec(),
        ..Primitive::default()
    };
    let mut fixes = Fixes::default();
    let skeleton = filemesh_skeleton(&mesh.skeleton, &mut fixes)?;
    if let (Some(s), Some(skin)) = (&skeleton, &mesh.skinning) {
        let (joints, weights) = (0..v.len())
            .map(|i| {
                let influences = skin.get(i).map(|s| s.influences).unwrap_or_default();
                let raw = influences
                    .iter()
                    .map(|f| (usize::from(f.bone), f64::from(f.weight)));
                skin::vertex_skin(raw, s.joints.len())
            })
            .unzip();
        prim.joints = Some(joints);
        prim.weights = Some(weights);
    }
    let mut scene = Scene {
        meshes: vec![ExportMesh {
            name: name.to_string(),
            primitives: vec![prim],
        }],
        skeleton,
        ..Scene::default()
    };
    scene.prepare_with(fixes);
    Ok(scene)
}

/// The skeleton of FileMesh bones (world space), `None` without bones.
fn filemesh_skeleton(
    bones: &[crate::roblox::model::MeshBone],
    fixes: &mut Fixes,
) -> Result<Option<Skeleton>> {
    if bones.is_empty() {
        return Ok(None);
    }
    let parents: Vec<Option<usize>> = bones.iter().map(|b| b.parent.map(usize::from)).collect();
    let parents = skin::sane_parents(&parents);
    let mut bone = |x: f32| f64::from(fixes.finite("bone", x, 0.0));
    let world: Vec<([f64; 3], [f64; 4])> = bones
        .iter()
        .map(|b| {
            (
                b.position.map(&mut bone),
                skin::mat3_to_quat(b.rotation.map(&mut bone)),
            )
        })
        .collect();
    let joints = bones
        .iter()
        .zip(&world)
        .zip(&parents)
        .map(|((b, &(t, q)), &parent)| {
            let (translation, rotation) = match parent.and_then(|p| world.get(p)) {
                Some(&(pt, pq)) => {
                    let inv = skin::quat_conj(pq);
                    let d = [t[0] - pt[0], t[1] - pt[1], t[2] - pt[2]];
                    (skin::quat_rotate(inv, d), skin::quat_mul(inv, q))
                }
                None => (t, q),
            };
            skin::LocalJoint {
                name: b.name.clone(),
                parent,
                translation,
                rotation,
                scale: [1.0; 3],
            }
        })
        .collect();
    skin::skeleton_from_local(joints, fixes).map(Some)
}

/// CSGPHS collision hulls as a scene: one primitive per hull.
pub fn from_csg(model: &crate::roblox::csg_model::CsgMesh, name: &str) -> Scene {
    let mut scene = Scene {
        meshes: vec![ExportMesh {
            name: name.to_string(),
            primitives: model
                .hulls
                .iter()
                .enumerate()
                .map(|(i, h)| Primitive {
                    name: format!("hull {i}"),
                    positions: h.positions.clone(),
                    triangles: h.triangles.clone(),
                    ..Primitive::default()
                })
                .collect(),
        }],
        ..Scene::default()
    };
    scene.prepare();
    scene
}

/// A UNIGINE mesh as a scene: one primitive per surface (morph target 0).
///
/// Each further morph target of a surface becomes a [`MorphTarget`] named as in the
/// surface header, with default weight 0: each triangle vertex's delta is the target's
/// position minus the base's (target 0's) at the coordinate index its corners name,
/// computed in f32 (zero for a vertex no corner names). A target whose position count
/// differs from target 0's cannot be matched to the base positions and is left out (the
/// format has every target share target 0's coordinate indices, so such a file is
/// damaged; none of the fixtures or corpus files has one).
///
/// A mesh with bones (ms10–ms14) also gives the skeleton: the bones in file order,
/// each joint's local transform its bind pose transform (local to the parent bone; the
/// quaternion normalised), world matrices accumulated through the parents (which may
/// come after their children), each inverse bind matrix the inverse of the world
/// matrix. A parent index out of range, or one that closes a cycle, makes the bone a
/// root.
///
/// When any surface has skin weights, every surface is skinned: weights are stored per
/// position (coordinate vertex), so each triangle vertex takes those of the position
/// its corners name, weight / 65535; influences on the same bone are added up, those on
/// no bone dropped, the four largest kept and scaled to sum to 1. A vertex with no weight
/// at all (or in a surface without weights) is bound to joint 0 with weight 1.
///
/// The animations embedded in ms10–ms12 meshes become [`Animation`]s, one per clip,
/// named as in the header (f32 translations and scales, rotations i16 / 32767). UNIGINE
/// stores no frame rate: frame `f` is at `f / FRAME_RATE` seconds. Every animated bone
/// gets one [`Channel`] per path (translation, rotation, scale) that any key of the clip
/// stores, with one key per frame: a component a key leaves out keeps the previous
/// frame's value, and at frame 0 the bone's bind pose value. Rotations are normalised to
/// unit quaternions (a zero one becomes the identity). Animated bone indices outside
/// the skeleton are skipped (their keys are read and dropped), and so is a bone listed
/// again after its first slot; a clip with no frames or nothing left to write is left
/// out (glTF allows no empty animation).
pub fn from_unigine(
    mesh: &crate::unigine::UnigineMesh,
    name: &str,
    limits: &Limits,
) -> Result<Scene> {
    let body = mesh.classic_view(limits)?;
    let mut fixes = Fixes::default();
    let bind_pose = unigine_finite_pose(&body.bind_pose, &mut fixes);
    let skeleton = unigine_skeleton(&body.bones, &bind_pose, &mut fixes)?;
    let joint_count = skeleton.as_ref().map_or(0, |s| s.joints.len());
    let animations = body
        .animation_names
        .iter()
        .zip(&body.animations)
        .filter_map(|(n, a)| {
            let keys: Vec<StoredKey> = a.keys.iter().map(StoredKey::embedded).collect();
            let clip = Clip {
                name: n.text(),
                bones: &a.bones,
                frames: a.frame_count,
                keys: &keys,
            };
            unigine_clip(clip, &bind_pose, joint_count, &mut fixes)
        })
        .collect();
    let skinned = joint_count > 0 && body.data.iter().any(|d| !d.weights.counts.is_empty());
    let mut primitives = Vec::new();
    for (h, d) in body.surfaces.iter().zip(&body.data) {
        let Some(base) = d.targets.first() else {
            continue;
        };
        let nt = base.tangents.len();
        // Each triangle vertex takes the position its corners name.
        let mut positions = vec![[0.0f32; 3]; nt];
        let mut coordinate_of = vec![None; nt];
        for (c, t) in d.coordinate_indices.iter().zip(&d.triangle_indices) {
            let (Some(p), Some(slot), Some(coord)) = (
                base.positions.get(*c as usize),
                positions.get_mut(*t as usize),
                coordinate_of.get_mut(*t as usize),
            ) else {
                return Err(Error::new(
                    "export",
                    ErrorKind::Inconsistent(format!(
                        "surface {:?}: corner index {c}/{t} out of range",
                        h.name.text()
                    )),
                ));
            };
            *slot = *p;
            *coord = Some(*c as usize);
        }
        let triangles = d
            .triangle_indices
            .chunks_exact(3)
            .map(|t| <[u32; 3]>::try_from(t).unwrap_or_default())
            .collect();
        let (joints, weights) = if skinned {
            let per_position = unigine_vertex_skins(&d.weights, joint_count);
            let (j, w): (Vec<_>, Vec<_>) = coordinate_of
                .iter()
                .map(|c| {
                    c.and_then(|c| per_position.get(c).copied())
                        .unwrap_or_else(|| skin::vertex_skin([], joint_count))
                })
                .unzip();
            (Some(j), Some(w))
        } else {
            (None, None)
        };
        primitives.push(Primitive {
            name: h.name.text(),
            positions,
            normals: None,
            uvs: (d.uv0.len() == nt && nt > 0).then(|| d.uv0.clone()),
            colors: (d.colors.len() == nt && nt > 0).then(|| {
                d.colors
                    .iter()
                    .map(|c| c.map(crate::unigine::quant::unorm8_to_f32))
                    .collect()
            }),
            triangles,
            joints,
            weights,
            morph_targets: unigine_morph_targets(h, d, &coordinate_of),
        });
    }
    let mut scene = Scene {
        meshes: vec![ExportMesh {
            name: name.to_string(),
            primitives,
        }],
        skeleton,
        animations,
        notes: Vec::new(),
    };
    scene.prepare_with(fixes);
    Ok(scene)
}

/// The bind pose with every value that is not finite replaced (counted as `bind pose`
/// components): positions and rotation components by 0, scales by 1.
fn unigine_finite_pose(
    pose: &[crate::unigine::mesh::Transform],
    fixes: &mut Fixes,
) -> Vec<crate::unigine::mesh::Transform> {
    pose.iter()
        .map(|t| crate::unigine::mesh::Transform {
            position: t.position.map(|x| fixes.finite("bind pose", x, 0.0)),
            rotation: t.rotation.map(|x| fixes.finite("bind pose", x, 0.0)),
            scale: t.scale.map(|x| fixes.finite("bind pose", x, 1.0)),
        })
        .collect()
}

/// A surface's morph targets after target 0, as deltas from target 0 per triangle vertex
/// (`coordinate_of`: each triangle vertex's coordinate index); targets whose position
/// count differs from target 0's are left out.
fn unigine_morph_targets(
    h: &crate::unigine::mesh::SurfaceHeader,
    d: &crate::unigine::mesh::SurfaceData,
    coordinate_of: &[Option<usize>],
) -> Vec<MorphTarget> {
    let Some((base, rest)) = d.targets.split_first() else {
        return Vec::new();
    };
    rest.iter()
        .enumerate()
        .filter(|(_, t)| t.positions.len() == base.positions.len())
        .map(|(k, t)| MorphTarget {
            name: h.targets.get(k + 1).map(|n| n.text()).unwrap_or_default(),
            position_deltas: coordinate_of
                .iter()
                .map(|c| {
                    let pair = c.and_then(|c| Some((t.positions.get(c)?, base.positions.get(c)?)));
                    pair.map_or([0.0; 3], |(t, b)| [t[0] - b[0], t[1] - b[1], t[2] - b[2]])
                })
                .collect(),
            default_weight: 0.0,
        })
        .collect()
}

/// The bind pose transform of bone `i`: the identity when the bind pose is short.
fn unigine_bind_pose(
    bind_pose: &[crate::unigine::mesh::Transform],
    i: usize,
) -> crate::unigine::mesh::Transform {
    bind_pose
        .get(i)
        .copied()
        .unwrap_or(crate::unigine::mesh::Transform {
            position: [0.0; 3],
            rotation: [0.0, 0.0, 0.0, 1.0],
            scale: [1.0; 3],
        })
}

/// The skeleton of UNIGINE bones and their bind pose (of a mesh or an animation file),
/// `None` without bones.
fn unigine_skeleton(
    bones: &[crate::unigine::mesh::Bone],
    bind_pose: &[crate::unigine::mesh::Transform],
    fixes: &mut Fixes,
) -> Result<Option<Skeleton>> {
    if bones.is_empty() {
        return Ok(None);
    }
    let joints = bones
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let pose = unigine_bind_pose(bind_pose, i);
            skin::LocalJoint {
                name: b.name.text(),
                parent: usize::try_from(b.parent).ok(),
                translation: pose.position.map(f64::from),
                rotation: pose.rotation.map(f64::from),
                scale: pose.scale.map(f64::from),
            }
        })
        .collect();
    skin::skeleton_from_local(joints, fixes).map(Some)
}

/// A UNIGINE animation file as a scene: its skeleton and one [`Animation`] per clip,
/// no meshes.
///
/// The skeleton is built from the file's bones and bind pose as [`from_unigine`] builds
/// a mesh's. Each clip (an10: one per name, named so; an11: the one clip, named `name`)
/// becomes an animation as described under [`from_unigine`]'s embedded animations:
/// frame `f` at `f / FRAME_RATE` seconds, one key per frame for every path the clip
/// stores. an10 translations and scales are decoded through the clip's boxes
/// ([`QuantBox::decode`](crate::unigine::anim::QuantBox::decode)), rotations are
/// i16 / 32767; an11 keys are f32 vectors.
pub fn from_unigine_anim(anim: &crate::unigine::anim::UnigineAnim, name: &str) -> Result<Scene> {
    use crate::unigine::anim::UnigineAnim;
    let (bones, bind_pose) = match anim {
        UnigineAnim::An10(f) => (&f.bones, &f.bind_pose),
        UnigineAnim::An11(f) => (&f.bones, &f.bind_pose),
    };
    let mut fixes = Fixes::default();
    let bind_pose = unigine_finite_pose(bind_pose, &mut fixes);
    let skeleton = unigine_skeleton(bones, &bind_pose, &mut fixes)?;
    let joints = skeleton.as_ref().map_or(0, |s| s.joints.len());
    let animations = match anim {
        UnigineAnim::An10(f) => f
            .names
            .iter()
            .zip(&f.animations)
            .filter_map(|(n, a)| {
                let keys: Vec<StoredKey> = a.keys.iter().map(|k| StoredKey::an10(k, a)).collect();
                let clip = Clip {
                    name: n.text(),
                    bones: &a.bones,
                    frames: a.frame_count,
                    keys: &keys,
                };
                unigine_clip(clip, &bind_pose, joints, &mut fixes)
            })
            .collect(),
        UnigineAnim::An11(f) => {
            let a = &f.animation;
            let keys: Vec<StoredKey> = a.keys.iter().map(StoredKey::an11).collect();
            let clip = Clip {
                name: name.to_string(),
                bones: &a.bones,
                frames: a.frame_count,
                keys: &keys,
            };
            unigine_clip(clip, &bind_pose, joints, &mut fixes)
                .into_iter()
                .collect()
        }
    };
    let mut scene = Scene {
        skeleton,
        animations,
        ..Scene::default()
    };
    scene.prepare_with(fixes);
    Ok(scene)
}

/// The components one UNIGINE key stores (`None`: absent), decoded.
#[derive(Clone, Copy, Debug, Default)]
struct StoredKey {
    translation: [Option<f32>; 3],
    /// As stored, any length.
    rotation: Option<[f64; 4]>,
    scale: [Option<f32>; 3],
}

/// The flagged components of a vector, decoded.
fn flagged<T: Copy>(
    on: [bool; 3],
    v: [T; 3],
    decode: impl Fn(usize, T) -> f32,
) -> [Option<f32>; 3] {
    let mut out = [None; 3];
    for (axis, ((o, on), v)) in out.iter_mut().zip(on).zip(v).enumerate() {
        if on {
            *o = Some(decode(axis, v));
        }
    }
    out
}

/// An i16 rotation as stored: each component / 32767.
fn i16_rotation(r: [i16; 4]) -> [f64; 4] {
    r.map(|x| f64::from(crate::unigine::quant::snorm16_to_f32(x)))
}

impl StoredKey {
    /// A key of an animation embedded in an ms10–ms12 mesh.
    fn embedded(k: &crate::unigine::anim::Key<f32>) -> Self {
        let m = k.mask;
        StoredKey {
            translation: flagged(m.translation(), k.translation, |_, x| x),
            rotation: m.rotation().then(|| i16_rotation(k.rotation)),
            scale: flagged(m.scale(), k.scale, |_, x| x),
        }
    }

    /// A key of an an10 clip, decoded through the clip's boxes.
    fn an10(k: &crate::unigine::anim::Key<u16>, a: &crate::unigine::anim::An10Animation) -> Self {
        let m = k.mask;
        StoredKey {
            translation: flagged(m.translation(), k.translation, |c, q| {
                a.translation_box.decode(c, q)
            }),
            rotation: m.rotation().then(|| i16_rotation(k.rotation)),
            scale: flagged(m.scale(), k.scale, |c, q| a.scale_box.decode(c, q)),
        }
    }

    /// A key of an an11 clip.
    fn an11(k: &crate::unigine::anim::An11Key) -> Self {
        use crate::unigine::anim::An11Key;
        let has = |bit: u8| k.mask & bit != 0;
        StoredKey {
            translation: flagged([has(An11Key::POSITION); 3], k.position, |_, x| x),
            rotation: has(An11Key::ROTATION).then(|| k.rotation.map(f64::from)),
            scale: flagged([has(An11Key::SCALE); 3], k.scale, |_, x| x),
        }
    }
}

/// One bone's translations, rotations and scales, a value per frame.
type Tracks = (Vec<[f32; 3]>, Vec<[f32; 4]>, Vec<[f32; 3]>);

/// A UNIGINE clip as stored: `keys` are frame-major, `bones.len()` per frame.
struct Clip<'a> {
    name: String,
    bones: &'a [i16],
    frames: u32,
    keys: &'a [StoredKey],
}

/// One UNIGINE clip as an animation (see [`from_unigine`]); `None` when it has nothing
/// glTF can hold (no frames, no animated bone in the skeleton, no stored component).
/// `joints` is the skeleton's size; `bind_pose` finite. Stored components of exported
/// bones that are not finite are replaced (counted in `fixes`): translations and
/// rotation components by 0, scales by 1.
fn unigine_clip(
    clip: Clip,
    bind_pose: &[crate::unigine::mesh::Transform],
    joints: usize,
    fixes: &mut Fixes,
) -> Option<Animation> {
    let Clip {
        name,
        bones,
        frames,
        keys,
    } = clip;
    let n = bones.len();
    let stores = |f: &dyn Fn(&StoredKey) -> bool| keys.iter().any(f);
    let paths = [
        stores(&|k| k.translation.iter().any(Option::is_some)),
        stores(&|k| k.rotation.is_some()),
        stores(&|k| k.scale.iter().any(Option::is_some)),
    ];
    // Each bone's state: its bind pose, then the keys as they come.
    let mut state: Vec<([f32; 3], [f32; 4], [f32; 3])> = bones
        .iter()
        .map(|&b| {
            let pose = usize::try_from(b)
                .ok()
                .filter(|&b| b < joints)
                .map(|b| unigine_bind_pose(bind_pose, b))
                .unwrap_or_else(|| unigine_bind_pose(&[], 0));
            let rotation = skin::normalize_quat(pose.rotation.map(f64::from)).map(|x| x as f32);
            (pose.position, rotation, pose.scale)
        })
        .collect();
    // The slots exported: in the skeleton, first of their bone.
    let mut seen = std::collections::HashSet::new();
    let exported: Vec<(usize, usize)> = bones
        .iter()
        .enumerate()
        .filter_map(|(slot, &b)| {
            let b = usize::try_from(b).ok().filter(|&b| b < joints)?;
            seen.insert(b).then_some((slot, b))
        })
        .collect();
    if frames == 0 || exported.is_empty() || !paths.iter().any(|&p| p) {
        return None;
    }
    let frame_count = frames as usize;
    let mut values: Vec<Tracks> = exported
        .iter()
        .map(|_| {
            (
                Vec::with_capacity(frame_count),
                Vec::with_capacity(frame_count),
                Vec::with_capacity(frame_count),
            )
        })
        .collect();
    let mut is_exported = vec![false; n];
    for &(slot, _) in &exported {
        if let Some(e) = is_exported.get_mut(slot) {
            *e = true;
        }
    }
    let mut frame_keys = keys.chunks(n.max(1));
    for _ in 0..frames {
        let these = frame_keys.next().unwrap_or_default();
        for ((s, k), _) in state
            .iter_mut()
            .zip(these)
            .zip(&is_exported)
            .filter(|(_, e)| **e)
        {
            for (v, x) in s.0.iter_mut().zip(k.translation) {
                *v = x.map_or(*v, |x| fixes.finite("animation translation", x, 0.0));
            }
            if let Some(r) = k.rotation {
                let r = r.map(|x| fixes.finite("animation rotation", x, 0.0));
                s.1 = skin::normalize_quat(r).map(|x| x as f32);
            }
            for (v, x) in s.2.iter_mut().zip(k.scale) {
                *v = x.map_or(*v, |x| fixes.finite("animation scale", x, 1.0));
            }
        }
        for ((slot, _), out) in exported.iter().zip(&mut values) {
            if let Some(s) = state.get(*slot) {
                out.0.push(s.0);
                out.1.push(s.1);
                out.2.push(s.2);
            }
        }
    }
    let times: Vec<f32> = (0..frames).map(|f| f as f32 / FRAME_RATE).collect();
    let mut channels = Vec::new();
    for ((_, joint), (t, r, s)) in exported.into_iter().zip(values) {
        let all = [
            ChannelValues::Translation(t),
            ChannelValues::Rotation(r),
            ChannelValues::Scale(s),
        ];
        for (values, _) in all.into_iter().zip(paths).filter(|(_, p)| *p) {
            channels.push(Channel {
                joint,
                times: times.clone(),
                values,
            });
        }
    }
    Some(Animation { name, channels })
}

/// Each position's four joints and weights, from a surface's weights (positions past
/// the end of the weights get joint 0 with weight 1).
fn unigine_vertex_skins(
    w: &crate::unigine::mesh::Weights,
    joint_count: usize,
) -> Vec<([u16; 4], [f32; 4])> {
    let mut rest = w.entries.as_slice();
    w.counts
        .iter()
        .map(|&k| {
            let (these, after) = rest.split_at(usize::from(k).min(rest.len()));
            rest = after;
            let raw = these.iter().filter_map(|e| {
                usize::try_from(e.bone)
                    .ok()
                    .map(|b| (b, f64::from(e.weight)))
            });
            skin::vertex_skin(raw, joint_count)
        })
        .collect()
}

/// The `stf.mesh` resources of an STF file as a scene: a vertex per split.
///
/// Each blendshape becomes a [`MorphTarget`] (its name, its `default_value` as the
/// default weight): every split takes the offset of its vertex (the offset listed for
/// it when the blendshape has `indices`, zero for a vertex not listed), converted to
/// f32. Blendshape split normals are not exported.
pub fn from_stf(file: &crate::stf::StfContainer) -> Result<Scene> {
    let mut meshes = Vec::new();
    for m in crate::stf::mesh::meshes(file)? {
        let problems = m.problems();
        if let Some(p) = problems.first() {
            return Err(Error::new(
                "export",
                ErrorKind::Inconsistent(format!("mesh {:?}: {p}", m.name)),
            ));
        }
        let f = |x: f64| x as f32;
        let positions = m
            .splits
            .iter()
            .map(|&s| {
                m.vertices
                    .get(s as usize)
                    .copied()
                    .unwrap_or_default()
                    .map(f)
            })
            .collect();
        let morph_targets = m
            .blendshapes
            .iter()
            .map(|b| {
                let offsets = b.vertex_offsets(m.vertices.len());
                MorphTarget {
                    name: b.name.clone(),
                    position_deltas: m
                        .splits
                        .iter()
                        .map(|&s| offsets.get(s as usize).copied().unwrap_or_default().map(f))
                        .collect(),
                    default_weight: b.default_value as f32,
                }
            })
            .collect();
        let triangles = m
            .tris
            .iter()
            .map(|t| t.map(|c| m.face_corners.get(c as usize).copied().unwrap_or(0) as u32))
            .collect();
        let prim = Primitive {
            name: m.name.clone(),
            positions,
            normals: m
                .split_normals
                .as_ref()
                .map(|n| n.iter().map(|x| x.map(f)).collect()),
            uvs: m
                .uvs
                .first()
                .map(|(_, uv)| uv.iter().map(|x| x.map(f)).collect()),
            colors: m
                .split_colors
                .as_ref()
                .map(|c| c.iter().map(|x| x.map(f)).collect()),
            triangles,
            morph_targets,
            ..Primitive::default()
        };
        meshes.push(ExportMesh {
            name: m.name,
            primitives: vec![prim],
        });
    }
    let mut scene = Scene {
        meshes,
        ..Scene::default()
    };
    scene.prepare();
    Ok(scene)
}
