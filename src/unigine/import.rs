//! The format-neutral [`Scene`] to a UNIGINE `.mesh` (ms10–ms14) and its animations,
//! the inverse of [`unigine::scene`](super::scene). What is carried, what is a guess and
//! what is lost: `docs/unigine-import.md`.
//!
//! - **Axes**: UNIGINE is +Z up. A +Y-up scene (glTF, FileMesh, STF) is turned to +Z up
//!   with the inverse of [`Scene::to_y_up`], (x, y, z) → (x, −z, y), applied to
//!   positions, normals, morph deltas, joints, inverse bind matrices and animated values;
//!   it only moves and negates components, so exporting the result back to glTF gives
//!   the numbers of the source. A +Z-up scene is kept as stored.
//! - **Surfaces**: one per primitive of the level-0 meshes, named after the primitive
//!   (else its mesh, else `surface_K`). Positions are kept one per vertex: the
//!   coordinate indices equal the triangle indices.
//! - **Tangent frames**: from the normals (computed from the faces when the primitive has
//!   none) and a tangent derived from the first UV set (any perpendicular without UVs),
//!   as the unit quaternion whose rotation of +Z is the normal; ms10 keeps x, y, z and a
//!   sign byte. The quantized quaternion is the one of its neighbours whose decoded
//!   normal is nearest.
//! - **Skins, morph targets**: the skeleton becomes the bones and their bind pose,
//!   joints and weights the bone weights (u16), morph targets UNIGINE targets (base
//!   position + delta).
//! - **Animations**: sampled at [`FRAME_RATE`]; embedded in ms10–ms12 meshes, one an11
//!   `.anim` file each for ms13 and ms14.

use super::raw::anim::{An11Animation, An11File, An11Key, EmbeddedAnimation, Key, KeyMask};
use super::raw::cint::UString;
use super::raw::mesh::{
    Bone, BoneWeight, Bounds, ClassicMesh, SurfaceData, SurfaceHeader, TargetData, Transform,
    Weights,
};
use super::raw::ms14::Ms14Mesh;
use super::raw::quant;
use super::{MeshBody, MeshVersion, UnigineAnim, UnigineMesh};
use crate::error::{Error, ErrorKind, Result};
use crate::loss::{Loss, LossKind};
use crate::scene::skin::{self, Mat4};
use crate::scene::{
    Animation, ChannelValues, Joint, Primitive, Scene, Skeleton, UpAxis, FRAME_RATE,
};

/// A scene written as a UNIGINE mesh ([`import`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Imported {
    /// The mesh, of the version asked for.
    pub mesh: UnigineMesh,
    /// For ms13 and ms14, one an11 file per animation of the scene, with the
    /// animation's name; empty for ms10–ms12 (which embed them) and for a scene without
    /// animations.
    pub animations: Vec<(String, UnigineAnim)>,
    /// What the mesh and animation files do not hold of the scene (empty: nothing).
    pub losses: Vec<Loss>,
    /// The mesh's counts, taken before an ms14 mesh compresses its geometry (the same
    /// as its `info`'s).
    pub counts: Counts,
}

/// How much an imported mesh holds ([`Imported::counts`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Surfaces.
    pub surfaces: usize,
    /// Vertices (tangent frames of the base target), over every surface.
    pub vertices: usize,
    /// Triangles, over every surface.
    pub faces: usize,
    /// Bones.
    pub bones: usize,
    /// Animations the mesh embeds (ms10–ms12).
    pub embedded_animations: usize,
}

/// The most bones a UNIGINE mesh can index: bone indices and parents are `i16`.
pub const MAX_BONES: usize = 1 << 15;

/// Writes `scene` as a UNIGINE mesh of `version`, with its animations (see the
/// [module docs](self)) and the list of what that loses.
///
/// Errors (never panics) when the scene is inconsistent ([`Scene::check`]: indices or
/// joints out of range, arrays of the wrong length …), has more than [`MAX_BONES`]
/// joints, a joint whose bind pose is singular, an animation of more than 2²⁷ keys
/// (frames × animated bones), or counts beyond what the format stores.
pub fn import(scene: &Scene, version: MeshVersion) -> Result<Imported> {
    scene.check()?;
    import_owned(scene.clone(), version)
}

/// [`import`] taking the scene, which it turns in place instead of copying, and whose
/// arrays it drops as the mesh's are made: for a conversion that has no further use for
/// the scene.
pub fn import_owned(scene: Scene, version: MeshVersion) -> Result<Imported> {
    let (classic, rest) = build(scene, version, false)?;
    let body = if version == MeshVersion::Ms14 {
        MeshBody::Ms14(Ms14Mesh::from_classic(classic, None)?)
    } else {
        MeshBody::Classic(classic)
    };
    Ok(Imported {
        mesh: UnigineMesh { version, body },
        animations: rest.animations,
        losses: rest.losses,
        counts: rest.counts,
    })
}

/// A scene imported and written: the bytes of [`import_owned`]'s mesh, with its
/// animation files, losses and counts.
pub(crate) struct ImportedFile {
    /// The mesh file.
    pub bytes: Vec<u8>,
    /// As [`Imported::animations`].
    pub animations: Vec<(String, UnigineAnim)>,
    /// As [`Imported::losses`].
    pub losses: Vec<Loss>,
    /// As [`Imported::counts`].
    pub counts: Counts,
}

impl Imported {
    /// The mesh written, with the rest.
    pub(crate) fn written(self) -> Result<ImportedFile> {
        Ok(ImportedFile {
            bytes: self.mesh.write()?,
            animations: self.animations,
            losses: self.losses,
            counts: self.counts,
        })
    }
}

/// [`import_owned`] written, with the same bytes: an ms14 mesh is written as it is
/// built ([`Ms14Mesh::write_classic`]), so its classic mesh, geometry payload, LZ4
/// blocks and file are not all held at once.
pub(crate) fn import_file(scene: Scene, version: MeshVersion) -> Result<ImportedFile> {
    let ms14 = version == MeshVersion::Ms14;
    let (classic, rest) = build(scene, version, ms14)?;
    let bytes = if ms14 {
        let shared = vec![true; classic.data.len()];
        Ms14Mesh::write_classic_shared(classic, &shared, None)?
    } else {
        UnigineMesh {
            version,
            body: MeshBody::Classic(classic),
        }
        .write()?
    };
    Ok(ImportedFile {
        bytes,
        animations: rest.animations,
        losses: rest.losses,
        counts: rest.counts,
    })
}

/// What an import makes besides the mesh.
struct Rest {
    animations: Vec<(String, UnigineAnim)>,
    losses: Vec<Loss>,
    counts: Counts,
}

/// The scene as a mesh in the ms10–ms13 layout (ms14's is made from it) and the rest;
/// the scene's primitives are dropped one by one as their surfaces are made. With
/// `shared_indices`, the surfaces' triangle indices (the same as their coordinate
/// indices) are left empty, for [`Ms14Mesh::write_classic_shared`].
fn build(
    mut scene: Scene,
    version: MeshVersion,
    shared_indices: bool,
) -> Result<(ClassicMesh, Rest)> {
    scene.check()?;
    if scene.up == UpAxis::Y {
        to_z_up(&mut scene);
    }
    let mut losses = Vec::new();
    let joints: &[Joint] = scene.skeleton.as_ref().map_or(&[], |s| s.joints.as_slice());
    if joints.len() > MAX_BONES {
        return Err(refused(format!(
            "{} joints: a UNIGINE mesh holds at most {MAX_BONES} bones (16-bit indices)",
            joints.len()
        )));
    }
    let (bones, bind_pose) = match &scene.skeleton {
        Some(s) => bones_of(s, &mut losses)?,
        None => (Vec::new(), Vec::new()),
    };

    let skinned = !joints.is_empty()
        && scene
            .meshes
            .iter()
            .filter(|m| m.lod == 0)
            .flat_map(|m| &m.primitives)
            .any(|p| p.joints.is_some());
    let mut stats = Stats::default();
    let mut surfaces = Vec::new();
    let mut data = Vec::new();
    for m in std::mem::take(&mut scene.meshes) {
        if m.lod != 0 {
            stats.lod_meshes += 1;
            continue;
        }
        for p in m.primitives {
            let name = if !p.name.is_empty() {
                p.name.clone()
            } else if !m.name.is_empty() {
                m.name.clone()
            } else {
                format!("surface_{}", surfaces.len())
            };
            let (h, d) = surface(p, name, version, skinned, shared_indices, &mut stats);
            surfaces.push(h);
            data.push(d);
        }
    }
    losses.extend(stats.losses(version));

    let mut animation_files = Vec::new();
    let mut animation_names = Vec::new();
    let mut embedded = Vec::new();
    let mut resampled = 0;
    for a in &scene.animations {
        let clip = sample(a, joints, &mut resampled)?;
        if version.embeds_animations() {
            animation_names.push(UString::new(&a.name));
            embedded.push(clip.embedded());
        } else {
            animation_files.push((
                a.name.clone(),
                UnigineAnim::An11(An11File {
                    bones: bones.clone(),
                    bind_pose: bind_pose.clone().into(),
                    animation: clip.an11(),
                }),
            ));
        }
    }
    if resampled > 0 {
        losses.push(Loss {
            kind: LossKind::UnigineAnimations,
            detail: format!(
                "{resampled} animation channel(s) have keys between UNIGINE's frames \
                 ({FRAME_RATE} per second): they were resampled at the frames"
            ),
        });
    }

    let bounds = union_bounds(surfaces.iter().map(|s: &SurfaceHeader| s.bounds));
    let classic = ClassicMesh {
        bounds,
        bones,
        animation_names,
        surfaces,
        bind_pose: bind_pose.into(),
        animations: embedded,
        data,
    };
    let counts = Counts {
        surfaces: classic.surfaces.len(),
        vertices: classic
            .data
            .iter()
            .map(|d| d.targets.first().map_or(0, |t| t.tangents.len()))
            .sum(),
        faces: classic
            .data
            .iter()
            .map(|d| d.coordinate_indices.len() / 3)
            .sum(),
        bones: classic.bones.len(),
        embedded_animations: classic.animation_names.len(),
    };
    Ok((
        classic,
        Rest {
            animations: animation_files,
            losses,
            counts,
        },
    ))
}

fn refused(what: String) -> Error {
    Error::new("UNIGINE import", ErrorKind::Invalid(what))
}

// ---------------------------------------------------------------------------------------
// Axes

/// A vector turned from +Y up to +Z up: the inverse of `Scene::to_y_up`'s.
fn z_vec3(v: [f32; 3]) -> [f32; 3] {
    [v[0], -v[2], v[1]]
}

/// A rotation turned from +Y up to +Z up: its axis turns as a vector does.
fn z_quat(q: [f32; 4]) -> [f32; 4] {
    [q[0], -q[2], q[1], q[3]]
}

/// A scale along local axes: the axes swap, the factors keep their sign.
fn z_scale(s: [f32; 3]) -> [f32; 3] {
    [s[0], s[2], s[1]]
}

/// `R⁻¹ × m × R` for a column-major 4×4 matrix (R the +Z-up to +Y-up rotation).
fn z_mat4(m: [f32; 16]) -> [f32; 16] {
    // Row i of R⁻¹ picks axis p(i) with sign s(i).
    const PICK: [(usize, f32); 4] = [(0, 1.0), (2, -1.0), (1, 1.0), (3, 1.0)];
    let mut out = [0.0f32; 16];
    for (c, &(pc, sc)) in PICK.iter().enumerate() {
        for (r, &(pr, sr)) in PICK.iter().enumerate() {
            if let Some(o) = out.get_mut(c * 4 + r) {
                *o = sr * sc * m.get(pc * 4 + pr).copied().unwrap_or(0.0);
            }
        }
    }
    out
}

/// Turns a +Y-up scene to UNIGINE's +Z up (exactly: components move and change sign).
fn to_z_up(scene: &mut Scene) {
    for p in scene.meshes.iter_mut().flat_map(|m| &mut m.primitives) {
        for v in &mut p.positions {
            *v = z_vec3(*v);
        }
        for n in p.normals.iter_mut().flatten() {
            *n = z_vec3(*n);
        }
        for d in p
            .morph_targets
            .iter_mut()
            .flat_map(|t| &mut t.position_deltas)
        {
            *d = z_vec3(*d);
        }
    }
    for j in scene.skeleton.iter_mut().flat_map(|s| &mut s.joints) {
        j.translation = z_vec3(j.translation);
        j.rotation = z_quat(j.rotation);
        j.scale = z_scale(j.scale);
        j.inverse_bind_matrix = z_mat4(j.inverse_bind_matrix);
    }
    for c in scene.animations.iter_mut().flat_map(|a| &mut a.channels) {
        match &mut c.values {
            ChannelValues::Translation(v) => v.iter_mut().for_each(|x| *x = z_vec3(*x)),
            ChannelValues::Rotation(v) => v.iter_mut().for_each(|q| *q = z_quat(*q)),
            ChannelValues::Scale(v) => v.iter_mut().for_each(|s| *s = z_scale(*s)),
        }
    }
    scene.up = UpAxis::Z;
}

// ---------------------------------------------------------------------------------------
// Skeleton

/// The bones and their bind pose (local to the parent). UNIGINE skins with the bind
/// pose, so it is taken from the inverse bind matrices; where those agree with the
/// joints' own transforms (to 1e-4), the joints' transforms are written as they are.
fn bones_of(s: &Skeleton, losses: &mut Vec<Loss>) -> Result<(Vec<Bone>, Vec<Transform>)> {
    let parents: Vec<Option<usize>> = s.joints.iter().map(|j| j.parent).collect();
    let local: Vec<Mat4> = s.joints.iter().map(skin::local_matrix).collect();
    let world = skin::world_matrices(&local, &parents);
    let bind_world: Vec<Mat4> = s
        .joints
        .iter()
        .map(|j| {
            skin::invert(&j.inverse_bind_matrix.map(f64::from)).ok_or_else(|| {
                refused(format!(
                    "joint {:?}: its inverse bind matrix is singular",
                    j.name
                ))
            })
        })
        .collect::<Result<_>>()?;
    let agrees: Vec<bool> = world
        .iter()
        .zip(&s.joints)
        .map(|(w, j)| {
            let p = skin::mul(w, &j.inverse_bind_matrix.map(f64::from));
            let scale = w.iter().fold(1.0f64, |a, x| a.max(x.abs()));
            p.iter()
                .zip(skin::IDENTITY)
                .all(|(a, b)| (a - b).abs() <= 1e-4 * scale)
        })
        .collect();
    let (mut moved, mut sheared) = (0, 0);
    let mut bones = Vec::with_capacity(s.joints.len());
    let mut pose = Vec::with_capacity(s.joints.len());
    for (i, j) in s.joints.iter().enumerate() {
        let parent = parents.get(i).copied().flatten();
        bones.push(Bone {
            name: UString::new(&j.name),
            parent: parent.map_or(-1, |p| i16::try_from(p).unwrap_or(-1)),
        });
        let own = Transform {
            position: j.translation,
            rotation: j.rotation,
            scale: j.scale,
        };
        let parent_agrees = parent.is_none_or(|p| agrees.get(p).copied().unwrap_or(true));
        if agrees.get(i).copied().unwrap_or(true) && parent_agrees {
            pose.push(own);
            continue;
        }
        let parent_world = match parent.and_then(|p| bind_world.get(p)) {
            Some(w) => skin::invert(w),
            None => Some(skin::IDENTITY),
        };
        let m = parent_world
            .zip(bind_world.get(i))
            .map(|(pw, w)| skin::mul(&pw, w));
        match m.and_then(|m| decompose(&m)) {
            Some(t) => {
                if !agrees.get(i).copied().unwrap_or(true) {
                    moved += 1;
                }
                pose.push(t);
            }
            None => {
                sheared += 1;
                pose.push(own);
            }
        }
    }
    if moved > 0 {
        losses.push(Loss {
            kind: LossKind::Skeleton,
            detail: format!(
                "the rest pose of {moved} joint(s), which differs from their bind pose: \
                 UNIGINE stores the bind pose (from the inverse bind matrices) only"
            ),
        });
    }
    if sheared > 0 {
        losses.push(Loss {
            kind: LossKind::Skeleton,
            detail: format!(
                "the bind pose of {sheared} joint(s) is sheared (not a translation, rotation \
                 and scale): their rest pose was written instead"
            ),
        });
    }
    Ok((bones, pose))
}

/// A matrix as translation, rotation and scale; `None` when it is sheared or singular.
fn decompose(m: &Mat4) -> Option<Transform> {
    let at = |k: usize| m.get(k).copied().unwrap_or(0.0);
    let col = |c: usize| [at(c * 4), at(c * 4 + 1), at(c * 4 + 2)];
    let (c0, c1, c2) = (col(0), col(1), col(2));
    let len = |v: [f64; 3]| dot(v, v).sqrt();
    let mut s = [len(c0), len(c1), len(c2)];
    if s.iter().any(|x| !x.is_normal()) {
        return None;
    }
    if dot(cross(c0, c1), c2) < 0.0 {
        s[0] = -s[0];
    }
    let [a, b, c] = [
        c0.map(|x| x / s[0]),
        c1.map(|x| x / s[1]),
        c2.map(|x| x / s[2]),
    ];
    if dot(a, b).abs() > 1e-3 || dot(a, c).abs() > 1e-3 || dot(b, c).abs() > 1e-3 {
        return None;
    }
    let r = [a[0], b[0], c[0], a[1], b[1], c[1], a[2], b[2], c[2]];
    let q = skin::mat3_to_quat(r);
    Some(Transform {
        position: [at(12), at(13), at(14)].map(|x| x as f32),
        rotation: q.map(|x| x as f32),
        scale: s.map(|x| x as f32),
    })
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn normalized(v: [f64; 3]) -> Option<[f64; 3]> {
    let l = dot(v, v).sqrt();
    (l > 1e-12 && l.is_finite()).then(|| v.map(|x| x / l))
}

// ---------------------------------------------------------------------------------------
// Surfaces

/// What the surfaces lose, counted over all of them.
#[derive(Default)]
struct Stats {
    lod_meshes: usize,
    extra_uv_sets: usize,
    uv1_without_uv0: usize,
    off_grid_colors: usize,
    unskinned: usize,
    dropped_influences: usize,
    morph_weights: usize,
}

impl Stats {
    fn losses(&self, version: MeshVersion) -> Vec<Loss> {
        let mut out = Vec::new();
        let mut lose = |n: usize, kind: LossKind, detail: String| {
            if n > 0 {
                out.push(Loss { kind, detail });
            }
        };
        lose(
            self.lod_meshes,
            LossKind::Lods,
            format!(
                "{} mesh(es) of a coarser level of detail: a UNIGINE mesh has one level",
                self.lod_meshes
            ),
        );
        lose(
            self.extra_uv_sets,
            LossKind::NotImported,
            format!(
                "{} UV set(s) after the second: {version} holds two",
                self.extra_uv_sets
            ),
        );
        lose(
            self.uv1_without_uv0,
            LossKind::NotImported,
            format!(
                "the further UV sets of {} primitive(s) without a first UV set",
                self.uv1_without_uv0
            ),
        );
        lose(
            self.off_grid_colors,
            LossKind::Colors,
            format!(
                "{} colour components rounded to UNIGINE's 8-bit steps",
                self.off_grid_colors
            ),
        );
        lose(
            self.unskinned,
            LossKind::Skinning,
            format!(
                "{} primitive(s) without a skin in a skinned mesh: UNIGINE reads their \
                 vertices as bound to bone 0",
                self.unskinned
            ),
        );
        lose(
            self.dropped_influences,
            LossKind::Skinning,
            format!(
                "{} skin influence(s) too small for UNIGINE's 16-bit weights (below \
                 1/131070), dropped; the others are read back scaled to sum to 1",
                self.dropped_influences
            ),
        );
        lose(
            self.morph_weights,
            LossKind::NotImported,
            format!(
                "the default weights of {} morph target(s): UNIGINE stores none (they read \
                 back as 0)",
                self.morph_weights
            ),
        );
        out
    }
}

/// One primitive as a surface header and its geometry. The primitive's arrays are
/// moved into the surface where they are stored as they are (positions, UVs, indices)
/// and dropped once used where they are not (normals, colours, skin). With
/// `shared_indices` the triangle indices are left empty (see [`build`]).
fn surface(
    mut p: Primitive,
    name: String,
    version: MeshVersion,
    skinned: bool,
    shared_indices: bool,
    stats: &mut Stats,
) -> (SurfaceHeader, SurfaceData) {
    let n = p.positions.len();
    let normals = match p.normals.take() {
        Some(v) => v.iter().map(|x| x.map(f64::from)).collect(),
        None => face_normals(&p),
    };
    let tangents = tangent_frames(&p, &normals, version);
    drop(normals);
    let weights = match (p.joints.take(), p.weights.take()) {
        (Some(j), Some(w)) if skinned => skin_weights(&j, &w, stats),
        _ => {
            if skinned && n > 0 {
                stats.unskinned += 1;
            }
            Weights::default()
        }
    };
    let colors: Vec<[u8; 4]> = p
        .colors
        .take()
        .iter()
        .flatten()
        .map(|c| {
            c.map(|x| {
                let q = quant::unorm8(x);
                if quant::unorm8_to_f32(q) != x {
                    stats.off_grid_colors += 1;
                }
                q
            })
        })
        .collect();
    let (uv0, uv1) = match p.uvs.take() {
        Some(uv) => {
            stats.extra_uv_sets += p.extra_uvs.len().saturating_sub(1);
            (uv, p.extra_uvs.drain(..).next().unwrap_or_default())
        }
        None => {
            if !p.extra_uvs.is_empty() && n > 0 {
                stats.uv1_without_uv0 += 1;
            }
            (Vec::new(), Vec::new())
        }
    };
    let mut names = vec![UString::new("")];
    let mut morphs = Vec::with_capacity(p.morph_targets.len());
    for t in std::mem::take(&mut p.morph_targets) {
        if t.default_weight != 0.0 {
            stats.morph_weights += 1;
        }
        names.push(UString::new(&t.name));
        let positions: Vec<[f32; 3]> = p
            .positions
            .iter()
            .zip(&t.position_deltas)
            .map(|(b, d)| [b[0] + d[0], b[1] + d[1], b[2] + d[2]])
            .collect();
        morphs.push(TargetData {
            positions: positions.into(),
            tangents: tangents.clone(),
        });
    }
    let header = SurfaceHeader {
        name: UString::new(&name),
        lightmap_channel: 0,
        lightmap_resolution: 0,
        bounds: bounds_of(&p.positions),
        targets: names,
    };
    let mut targets = Vec::with_capacity(1 + morphs.len());
    targets.push(TargetData {
        positions: std::mem::take(&mut p.positions).into(),
        tangents,
    });
    targets.append(&mut morphs);
    // The triangles' buffer is the indices' (no copy); flattened only if it cannot be.
    let indices: Vec<u32> = bytemuck::allocation::try_cast_vec(std::mem::take(&mut p.triangles))
        .unwrap_or_else(|(_, t)| t.into_iter().flatten().collect());
    let data = SurfaceData {
        targets,
        weights,
        uv0: uv0.into(),
        uv1: uv1.into(),
        colors: colors.into(),
        triangle_indices: if shared_indices {
            Vec::new()
        } else {
            indices.clone()
        },
        coordinate_indices: indices,
    };
    (header, data)
}

/// Per-vertex normals from the faces (area-weighted), for a primitive without normals;
/// (0, 0, 1) where no face gives one.
fn face_normals(p: &Primitive) -> Vec<[f64; 3]> {
    let mut acc = vec![[0.0f64; 3]; p.positions.len()];
    let pos = |i: u32| p.positions.get(i as usize).map(|v| v.map(f64::from));
    for t in &p.triangles {
        let (Some(a), Some(b), Some(c)) = (pos(t[0]), pos(t[1]), pos(t[2])) else {
            continue;
        };
        let f = cross(sub(b, a), sub(c, a));
        for &i in t {
            if let Some(v) = acc.get_mut(i as usize) {
                *v = add(*v, f);
            }
        }
    }
    acc.into_iter()
        .map(|v| normalized(v).unwrap_or([0.0, 0.0, 1.0]))
        .collect()
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn add(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

/// The tangent frame of every vertex, quantized for `version`.
fn tangent_frames(p: &Primitive, normals: &[[f64; 3]], version: MeshVersion) -> Vec<[i16; 4]> {
    let n = p.positions.len();
    // Tangent and bitangent directions from the first UV set, summed over the faces.
    let mut tan = vec![[0.0f64; 3]; n];
    let mut bit = vec![[0.0f64; 3]; n];
    if let Some(uv) = &p.uvs {
        let pos = |i: u32| p.positions.get(i as usize).map(|v| v.map(f64::from));
        let tex = |i: u32| uv.get(i as usize).map(|v| v.map(f64::from));
        for t in &p.triangles {
            let (Some(a), Some(b), Some(c)) = (pos(t[0]), pos(t[1]), pos(t[2])) else {
                continue;
            };
            let (Some(ta), Some(tb), Some(tc)) = (tex(t[0]), tex(t[1]), tex(t[2])) else {
                continue;
            };
            let (e1, e2) = (sub(b, a), sub(c, a));
            let (du1, dv1, du2, dv2) = (tb[0] - ta[0], tb[1] - ta[1], tc[0] - ta[0], tc[1] - ta[1]);
            let det = du1 * dv2 - du2 * dv1;
            if det.abs() < 1e-20 || !det.is_finite() {
                continue;
            }
            let r = 1.0 / det;
            let tu = sub(e1.map(|x| x * dv2), e2.map(|x| x * dv1)).map(|x| x * r);
            let tv = sub(e2.map(|x| x * du1), e1.map(|x| x * du2)).map(|x| x * r);
            for &i in t {
                if let Some(v) = tan.get_mut(i as usize) {
                    *v = add(*v, tu);
                }
                if let Some(v) = bit.get_mut(i as usize) {
                    *v = add(*v, tv);
                }
            }
        }
    }
    normals
        .iter()
        .zip(tan.iter().zip(&bit))
        .map(|(&nrm, (&t, &b))| {
            let nrm = normalized(nrm).unwrap_or([0.0, 0.0, 1.0]);
            let t = normalized(sub(t, nrm.map(|x| x * dot(nrm, t))))
                .unwrap_or_else(|| perpendicular(nrm));
            let handed = if dot(cross(nrm, t), b) < 0.0 {
                -1.0
            } else {
                1.0
            };
            encode_frame(nrm, t, handed, version == MeshVersion::Ms10)
        })
        .collect()
}

/// A unit vector perpendicular to the unit vector `n`.
fn perpendicular(n: [f64; 3]) -> [f64; 3] {
    let other = if n[0].abs() < 0.9 {
        [1.0, 0.0, 0.0]
    } else {
        [0.0, 1.0, 0.0]
    };
    normalized(cross(n, other))
        .or_else(|| normalized(cross(n, [0.0, 0.0, 1.0])))
        .unwrap_or([1.0, 0.0, 0.0])
}

/// The stored tangent frame of a vertex: the quaternion rotating +X, +Y, +Z to the
/// tangent `t`, `n × t` and the normal `n` (unit, perpendicular), × 32767.
///
/// ms11 and later: the quaternion's sign carries the handedness of the UV frame (w < 0
/// for a mirrored one, where the UV bitangent is −(n × t)). ms10 keeps x, y, z of the
/// quaternion with w ≥ 0 (its reader takes w = +√(1 − x² − y² − z²)) and a sign byte,
/// −127 for a mirrored frame, else 127. Both are what every corpus file holds
/// (`docs/unigine-import.md`).
///
/// Of the quantized quaternion and its neighbours, the one whose decoded normal is
/// nearest to `n` is kept. ms10's derived w cannot reach every normal from every tangent
/// (near w = 0 the steps of x, y and z resolve it coarsely): where the normal would be
/// more than 0.03° off, the tangent is turned about the normal, 5° at a time either way,
/// to the first frame that gives it (else the best one).
pub(crate) fn encode_frame(n: [f64; 3], t: [f64; 3], handed: f64, ms10: bool) -> [i16; 4] {
    let (mut best, mut best_error) = encode_twisted(n, t, handed, ms10);
    // 1 − cos 0.03°.
    const GOOD: f64 = 1.4e-7;
    if !ms10 || best_error <= GOOD {
        return best;
    }
    let b = cross(n, t);
    for k in 1..=36 {
        for sign in [1.0, -1.0] {
            let a = f64::from(k) * 5.0f64.to_radians() * sign;
            let turned: [f64; 3] = add(t.map(|x| x * a.cos()), b.map(|x| x * a.sin()));
            let (c, e) = encode_twisted(n, turned, handed, ms10);
            if e < best_error {
                best = c;
                best_error = e;
            }
            if best_error <= GOOD {
                return best;
            }
        }
    }
    best
}

/// [`encode_frame`] for one tangent: the stored frame and its normal's 1 − cos error.
fn encode_twisted(n: [f64; 3], t: [f64; 3], handed: f64, ms10: bool) -> ([i16; 4], f64) {
    let b = cross(n, t);
    let r = [t[0], b[0], n[0], t[1], b[1], n[1], t[2], b[2], n[2]];
    let mut q = skin::mat3_to_quat(r);
    let flip = if ms10 {
        q[3] < 0.0
    } else {
        (q[3] < 0.0) != (handed < 0.0)
    };
    if flip {
        q = q.map(|x| -x);
    }
    let stored = q.map(|x| quant::snorm16(x as f32));
    let mut best = if ms10 {
        [
            stored[0],
            stored[1],
            stored[2],
            if handed < 0.0 { -127 } else { 127 },
        ]
    } else {
        // The sign of w must survive rounding: a mirrored frame whose w rounds to 0 keeps
        // w = −1 step (UNIGINE's files hold such small negative ws, −31 in `ms12-a`).
        let [x, y, z, w] = stored;
        [x, y, z, if handed < 0.0 { w.min(-1) } else { w.max(0) }]
    };
    let keeps_sign = |c: &[i16; 4]| ms10 || (c[3] < 0) == (handed < 0.0);
    // 1 − cos of the angle between `n` and the normal `c` decodes to (as
    // `scene::tangent_normal` decodes it, in f64 throughout).
    let error = |c: [i16; 4]| {
        let [x, y, z, w] = c.map(|x| f64::from(x) / 32767.0);
        let w = if ms10 {
            (1.0 - x * x - y * y - z * z).max(0.0).sqrt()
        } else {
            w
        };
        let d = skin::quat_rotate(skin::normalize_quat([x, y, z, w]), [0.0, 0.0, 1.0]);
        1.0 - dot(d, n)
    };
    let mut best_error = error(best);
    // Rounding error of a few 1/32767 steps is 0.01° at most. ms10's derived w is far
    // off near −Z (a small w comes from 1 − x² − y² − z², which the steps resolve
    // coarsely): there the two smaller components are searched around their steps and
    // the largest solved for the w wanted.
    // 1 − cos 0.01°.
    if best_error > 1.5e-8 {
        let start = best;
        if ms10 {
            let target = (1.0 - q[3] * q[3]) * 32767.0 * 32767.0;
            // Each component in turn is solved for; the other two step around theirs.
            for solve in 0..3 {
                let sign = if start.get(solve).is_some_and(|&x| x < 0) {
                    -1.0
                } else {
                    1.0
                };
                for da in -6i16..=6 {
                    for db in -6i16..=6 {
                        let mut c = start;
                        let mut others = 0.0;
                        let mut d = [da, db].into_iter();
                        for (k, x) in c.iter_mut().enumerate().take(3) {
                            if k != solve {
                                *x = x.saturating_add(d.next().unwrap_or(0));
                                others += f64::from(*x) * f64::from(*x);
                            }
                        }
                        let solved = (target - others).max(0.0).sqrt().round();
                        for dz in [-1.0, 0.0, 1.0] {
                            if let Some(x) = c.get_mut(solve) {
                                *x = (sign * (solved + dz)).clamp(-32767.0, 32767.0) as i16;
                            }
                            let e = error(c);
                            if e < best_error {
                                best_error = e;
                                best = c;
                            }
                        }
                    }
                }
            }
        } else {
            for d in 0..81 {
                let step = |k: u32| (d / 3i16.pow(k)) % 3 - 1;
                let c = [
                    start[0].saturating_add(step(0)),
                    start[1].saturating_add(step(1)),
                    start[2].saturating_add(step(2)),
                    start[3].saturating_add(step(3)),
                ];
                let e = error(c);
                if e < best_error && keeps_sign(&c) {
                    best_error = e;
                    best = c;
                }
            }
        }
    }
    (best, best_error)
}

/// A primitive's joints and weights as UNIGINE bone weights: per vertex the influences
/// with a weight that rounds to a nonzero u16, largest first.
fn skin_weights(joints: &[[u16; 4]], weights: &[[f32; 4]], stats: &mut Stats) -> Weights {
    let mut out = Weights::default();
    for (j, w) in joints.iter().zip(weights) {
        let mut these: Vec<(u16, u16)> = Vec::with_capacity(4);
        for (&b, &x) in j.iter().zip(w) {
            if x <= 0.0 {
                continue;
            }
            let q = quant::unorm16(x);
            if q == 0 {
                stats.dropped_influences += 1;
                continue;
            }
            match these.iter_mut().find(|(jb, _)| *jb == b) {
                Some(e) => e.1 = e.1.saturating_add(q),
                None => these.push((b, q)),
            }
        }
        these.sort_by_key(|e| std::cmp::Reverse(e.1));
        out.counts.push(these.len() as u8);
        out.entries.extend(these.iter().map(|&(b, q)| BoneWeight {
            bone: i16::try_from(b).unwrap_or(i16::MAX),
            weight: q,
        }));
    }
    out
}

/// The box of the positions and the sphere UNIGINE writes around it (centre: the box's,
/// radius: half its diagonal); the "empty" bounds UNIGINE writes without positions.
fn bounds_of(positions: &[[f32; 3]]) -> Bounds {
    let finite = positions.iter().filter(|p| p.iter().all(|x| x.is_finite()));
    let mut min = [f32::INFINITY; 3];
    let mut max = [f32::NEG_INFINITY; 3];
    for p in finite {
        grow(&mut min, &mut max, p, p);
    }
    box_bounds(min, max)
}

/// Widens the box `min`–`max` to hold `lo` and `hi`.
fn grow(min: &mut [f32; 3], max: &mut [f32; 3], lo: &[f32; 3], hi: &[f32; 3]) {
    for (m, x) in min.iter_mut().zip(lo) {
        *m = m.min(*x);
    }
    for (m, x) in max.iter_mut().zip(hi) {
        *m = m.max(*x);
    }
}

/// The bounds of the box `min`–`max` (the "empty" ones when it is inverted).
fn box_bounds(min: [f32; 3], max: [f32; 3]) -> Bounds {
    if min.iter().zip(&max).any(|(a, b)| a > b) {
        return Bounds {
            min: [1e9; 3],
            max: [-1e9; 3],
            center: [0.0; 3],
            radius: -1.0,
        };
    }
    let [a, b, c] = min;
    let [x, y, z] = max;
    let center = [(a + x) * 0.5, (b + y) * 0.5, (c + z) * 0.5];
    let radius = [x - a, y - b, z - c]
        .iter()
        .map(|d| f64::from(*d).powi(2))
        .sum::<f64>()
        .sqrt()
        * 0.5;
    Bounds {
        min,
        max,
        center,
        radius: radius as f32,
    }
}

/// The bounds around surfaces' bounds.
fn union_bounds(all: impl Iterator<Item = Bounds>) -> Bounds {
    let mut min = [f32::INFINITY; 3];
    let mut max = [f32::NEG_INFINITY; 3];
    for b in all.filter(|b| b.radius >= 0.0) {
        grow(&mut min, &mut max, &b.min, &b.max);
    }
    box_bounds(min, max)
}

// ---------------------------------------------------------------------------------------
// Animations

/// A joint's translation, rotation and scale at one frame.
type Pose = ([f32; 3], [f32; 4], [f32; 3]);

/// An animation sampled at UNIGINE's frames: per animated joint (in joint order), its
/// translation, rotation and scale at every frame.
struct Sampled {
    bones: Vec<i16>,
    frames: u32,
    /// `tracks[bone][frame]`.
    tracks: Vec<Vec<Pose>>,
}

/// The most keys (frames × animated bones) an animation is sampled to: beyond, the
/// animation is refused rather than filling memory (an hour at 30 frames a second of 100
/// bones is 10.8 million).
const MAX_KEYS: u64 = 1 << 27;

/// Samples `a` at frames `0 .. F` (`f / FRAME_RATE` seconds; F covering its last key).
/// A path a joint's channels leave out takes the joint's own transform. Counts in
/// `resampled` the channels with a key between frames whose values are not all equal.
fn sample(a: &Animation, joints: &[Joint], resampled: &mut usize) -> Result<Sampled> {
    let end = a
        .channels
        .iter()
        .filter_map(|c| c.times.last())
        .fold(0.0f32, |m, &t| m.max(t));
    let last = (f64::from(end) * f64::from(FRAME_RATE)).round();
    if !(0.0..=f64::from(u32::MAX - 1)).contains(&last) {
        return Err(refused(format!(
            "animation {:?}: {end} seconds is too long for UNIGINE's frame counts",
            a.name
        )));
    }
    let frames = last as u32 + 1;
    for c in &a.channels {
        let off_grid = c.times.iter().any(|&t| {
            let f = f64::from(t) * f64::from(FRAME_RATE);
            (f - f.round()).abs() > 1e-3
        });
        let varies = match &c.values {
            ChannelValues::Translation(v) | ChannelValues::Scale(v) => {
                v.iter().any(|x| Some(x) != v.first())
            }
            ChannelValues::Rotation(v) => v.iter().any(|x| Some(x) != v.first()),
        };
        if off_grid && varies {
            *resampled += 1;
        }
    }
    let mut animated: Vec<usize> = a.channels.iter().map(|c| c.joint).collect();
    animated.sort_unstable();
    animated.dedup();
    let keys = u64::from(frames).saturating_mul(animated.len() as u64);
    if keys > MAX_KEYS {
        return Err(refused(format!(
            "animation {:?}: {frames} frames of {} bones are {keys} keys, more than {MAX_KEYS}",
            a.name,
            animated.len()
        )));
    }
    let mut bones = Vec::with_capacity(animated.len());
    let mut tracks = Vec::with_capacity(animated.len());
    for &j in &animated {
        let joint = joints
            .get(j)
            .ok_or_else(|| refused(format!("animation {:?}: joint {j} out of range", a.name)))?;
        bones.push(i16::try_from(j).map_err(|_| refused(format!("joint {j}: beyond i16")))?);
        let mut track = Vec::with_capacity(frames as usize);
        for f in 0..frames {
            let t = f as f32 / FRAME_RATE;
            let mut v = (joint.translation, joint.rotation, joint.scale);
            for c in a.channels.iter().filter(|c| c.joint == j) {
                match &c.values {
                    ChannelValues::Translation(x) => v.0 = lerp3(&c.times, x, t),
                    ChannelValues::Rotation(x) => v.1 = slerp(&c.times, x, t),
                    ChannelValues::Scale(x) => v.2 = lerp3(&c.times, x, t),
                }
            }
            track.push(v);
        }
        tracks.push(track);
    }
    Ok(Sampled {
        bones,
        frames,
        tracks,
    })
}

/// The key segment around `t`: `(k, s)` interpolates keys `k` and `k + 1` by `s`, or
/// `(k, 0)` stands for key `k` itself (before the first, after the last, or on a key).
fn segment(times: &[f32], t: f32) -> (usize, f64) {
    let close = |a: f32| (f64::from(a) - f64::from(t)).abs() <= 1e-6;
    if let Some(k) = times.iter().position(|&x| close(x)) {
        return (k, 0.0);
    }
    match times.iter().position(|&x| x > t) {
        None => (times.len().saturating_sub(1), 0.0),
        Some(0) => (0, 0.0),
        Some(k) => {
            let at = |i: usize| f64::from(times.get(i).copied().unwrap_or(t));
            let (a, b) = (at(k - 1), at(k));
            (k - 1, (f64::from(t) - a) / (b - a))
        }
    }
}

fn lerp3(times: &[f32], v: &[[f32; 3]], t: f32) -> [f32; 3] {
    let (k, s) = segment(times, t);
    let a = v.get(k).copied().unwrap_or_default();
    if s == 0.0 {
        return a;
    }
    let b = v.get(k + 1).copied().unwrap_or(a);
    let mut out = a;
    for (o, (x, y)) in out.iter_mut().zip(a.iter().zip(&b)) {
        *o = (f64::from(*x) + (f64::from(*y) - f64::from(*x)) * s) as f32;
    }
    out
}

fn slerp(times: &[f32], v: &[[f32; 4]], t: f32) -> [f32; 4] {
    let (k, s) = segment(times, t);
    let a = v.get(k).copied().unwrap_or([0.0, 0.0, 0.0, 1.0]);
    if s == 0.0 {
        return a;
    }
    let a64 = a.map(f64::from);
    let mut b = v.get(k + 1).copied().unwrap_or(a).map(f64::from);
    let mut d: f64 = a64.iter().zip(&b).map(|(x, y)| x * y).sum();
    if d < 0.0 {
        b = b.map(|x| -x);
        d = -d;
    }
    let (wa, wb) = if d > 0.9995 {
        (1.0 - s, s)
    } else {
        let th = d.min(1.0).acos();
        let sin = th.sin();
        (((1.0 - s) * th).sin() / sin, (s * th).sin() / sin)
    };
    let mut q = a64;
    for (o, (x, y)) in q.iter_mut().zip(a64.iter().zip(&b)) {
        *o = x * wa + y * wb;
    }
    skin::normalize_quat(q).map(|x| x as f32)
}

impl Sampled {
    /// As an animation embedded in an ms10–ms12 mesh: frame 0 stores every component, a
    /// later frame the components that changed (rotations compared as stored, i16).
    fn embedded(&self) -> EmbeddedAnimation {
        let n = self.bones.len();
        let mut keys = Vec::with_capacity(n * self.frames as usize);
        let mut prev: Vec<Option<Key<f32>>> = vec![None; n];
        for f in 0..self.frames as usize {
            for (b, track) in self.tracks.iter().enumerate() {
                let Some(&(t, r, s)) = track.get(f) else {
                    continue;
                };
                let full = Key {
                    mask: KeyMask::from_bytes([KeyMask::ALL]),
                    translation: t,
                    rotation: r.map(quant::snorm16),
                    scale: s,
                };
                let key = match prev.get(b).copied().flatten() {
                    None => full,
                    Some(p) => {
                        let mut bits = 0u8;
                        for (k, (a, b)) in p.translation.iter().zip(&t).enumerate() {
                            if a != b {
                                bits |= 1 << k;
                            }
                        }
                        for (k, (a, b)) in p.scale.iter().zip(&s).enumerate() {
                            if a != b {
                                bits |= 1 << (4 + k);
                            }
                        }
                        if p.rotation != full.rotation {
                            bits |= 1 << 3;
                        }
                        let mask = KeyMask::from_bytes([bits]);
                        let pick = |on: [bool; 3], mut v: [f32; 3]| {
                            for (x, on) in v.iter_mut().zip(on) {
                                if !on {
                                    *x = 0.0;
                                }
                            }
                            v
                        };
                        Key {
                            mask,
                            translation: pick(mask.translation(), t),
                            rotation: if mask.rotation() {
                                full.rotation
                            } else {
                                [0; 4]
                            },
                            scale: pick(mask.scale(), s),
                        }
                    }
                };
                // What a reader holds for this bone after this key.
                if let Some(slot) = prev.get_mut(b) {
                    *slot = Some(full);
                }
                keys.push(key);
            }
        }
        EmbeddedAnimation {
            bones: self.bones.clone().into(),
            flag: KeyMask::ALL,
            frame_count: self.frames,
            keys,
        }
    }

    /// As the clip of an an11 file: frame 0 stores every vector, a later frame those
    /// that changed.
    fn an11(&self) -> An11Animation {
        let n = self.bones.len();
        let mut keys = Vec::with_capacity(n * self.frames as usize);
        let mut prev: Vec<Option<Pose>> = vec![None; n];
        for f in 0..self.frames as usize {
            for (b, track) in self.tracks.iter().enumerate() {
                let Some(&(t, r, s)) = track.get(f) else {
                    continue;
                };
                let mask = match prev.get(b).copied().flatten() {
                    None => An11Key::POSITION | An11Key::ROTATION | An11Key::SCALE,
                    Some((pt, pr, ps)) => {
                        (if pt != t { An11Key::POSITION } else { 0 })
                            | (if pr != r { An11Key::ROTATION } else { 0 })
                            | (if ps != s { An11Key::SCALE } else { 0 })
                    }
                };
                if let Some(slot) = prev.get_mut(b) {
                    *slot = Some((t, r, s));
                }
                keys.push(An11Key {
                    mask,
                    position: if mask & An11Key::POSITION != 0 {
                        t
                    } else {
                        [0.0; 3]
                    },
                    rotation: if mask & An11Key::ROTATION != 0 {
                        r
                    } else {
                        [0.0; 4]
                    },
                    scale: if mask & An11Key::SCALE != 0 {
                        s
                    } else {
                        [0.0; 3]
                    },
                });
            }
        }
        An11Animation {
            bones: self.bones.clone().into(),
            frame_count: self.frames,
            keys,
        }
    }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::*;

    #[test]
    fn z_up_undoes_y_up() {
        let mut s = Scene {
            up: UpAxis::Z,
            ..Scene::default()
        };
        s.skeleton = Some(Skeleton {
            joints: vec![Joint {
                translation: [1.0, 2.0, 3.0],
                rotation: [0.1, 0.2, 0.3, 0.927_361_8],
                scale: [1.0, 2.0, 3.0],
                inverse_bind_matrix: std::array::from_fn(|k| k as f32),
                ..Joint::default()
            }],
        });
        let before = s.clone();
        s.to_y_up();
        to_z_up(&mut s);
        assert_eq!(s, before);
    }

    #[test]
    fn frames_decode_to_their_normals() {
        for ms10 in [false, true] {
            for n in [
                [0.0, 0.0, 1.0],
                [0.0, 0.0, -1.0],
                [1.0, 0.0, 0.0],
                [0.0, -1.0, 0.0],
                [0.6, 0.0, -0.8],
            ] {
                let t = perpendicular(n);
                let c = encode_frame(n, t, 1.0, ms10);
                let d = super::super::scene::tangent_normal(c, ms10).map(f64::from);
                assert!(
                    dot(d, n) > (0.1f64).to_radians().cos(),
                    "{n:?} {d:?} {ms10}"
                );
            }
        }
    }
}
