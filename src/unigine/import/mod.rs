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
//!
//! This file holds the import as a whole (the scene in, the mesh, animation files, losses
//! and counts out); its stages each have a room: `axes` (+Y up to +Z up), `skeleton`
//! (bones and bind pose), `surfaces` (primitives as surfaces: tangent frames, skin
//! weights, bounds), `animation` (sampling, embedded and an11 clips) and `vector` (the
//! 3-vector arithmetic they share).

mod animation;
mod axes;
mod skeleton;
mod surfaces;
mod vector;

use super::raw::anim::An11File;
use super::raw::cint::UString;
use super::raw::mesh::{ClassicMesh, SurfaceHeader};
use super::raw::ms14::Ms14Mesh;
use super::{MeshBody, MeshVersion, UnigineAnim, UnigineMesh};
use crate::error::{Error, ErrorKind, Result};
use crate::loss::{Loss, LossKind};
use crate::scene::{Joint, Scene, UpAxis, FRAME_RATE};
use animation::sample;
use axes::to_z_up;
use skeleton::bones_of;
use surfaces::{surface, union_bounds, Stats};

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
/// [module docs](self)) and the list of what that loses. The scene is taken: it is
/// turned in place instead of copied, and its arrays are dropped as the mesh's are made
/// (a caller that keeps its scene passes a clone).
///
/// Errors (never panics) when the scene is inconsistent ([`Scene::check`]: indices or
/// joints out of range, arrays of the wrong length …), has more than [`MAX_BONES`]
/// joints, a joint whose bind pose is singular, an animation of more than 2²⁷ keys
/// (frames × animated bones), or counts beyond what the format stores.
pub fn import(scene: Scene, version: MeshVersion) -> Result<Imported> {
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

/// A scene imported and written: the bytes of [`import`]'s mesh, with its
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

/// [`import`] written, with the same bytes: an ms14 mesh is written as it is
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
        losses.push(Loss::new(
            LossKind::UnigineAnimations,
            format!(
                "{resampled} animation channel(s) have keys between UNIGINE's frames \
                 ({FRAME_RATE} per second): they were resampled at the frames"
            ),
        ));
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

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::surfaces::{encode_frame, perpendicular};
    use super::vector::dot;
    use super::*;
    use crate::scene::Skeleton;

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
