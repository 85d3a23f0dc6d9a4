//! What the scene of a UNIGINE mesh leaves behind ([`crate::MeshFile::scene_losses`]),
//! item by item, as the scene is made in [`super::scene::mesh_to_scene`].
//!
//! The scene keeps the surfaces (as primitives named after them, each its own
//! material), positions, the normal of each tangent frame, both UV sets, colours, the
//! skin, the morph targets after target 0, the skeleton and the embedded animations.
//! What stays behind is listed here; whether the target keeps the surfaces' names, the
//! second UV set, the skin or the animations, the target's import says
//! ([`crate::scene::carry`]).

use super::raw::mesh::ClassicMesh;
use super::{MeshBody, UnigineAnim, UnigineMesh};
use crate::error::{Limits, Result};
use crate::loss::{Level, Loss, LossKind};

/// The lines, [`Level::Lost`] for data the scene has no place for, [`Level::Relaid`]
/// for what is derived from the data it keeps (bounds, spatial trees, how vertices
/// share positions).
pub(crate) fn scene_losses(mesh: &UnigineMesh, limits: &Limits) -> Result<Vec<Loss>> {
    let body = mesh.classic_view(limits)?;
    let mut out = geometry(&body);
    if let MeshBody::Ms14(m) = &mesh.body {
        out.push(Loss::counted(
            LossKind::UnigineSpatialTree,
            m.surfaces.len(),
            format!(
                "ms14's spatial trees and edge flags of {} surface(s), its tree leaf size \
                 and memory estimate (built from the triangles; an ms14 target builds them \
                 anew)",
                m.surfaces.len()
            ),
        ));
    }
    out.extend(animations(&body));
    Ok(out)
}

/// Bounds, tangent frames, shared positions, lightmap settings, base target names,
/// surfaces or attributes the scene leaves out, morph targets of another size, weights.
fn geometry(body: &ClassicMesh) -> Vec<Loss> {
    let mut out = Vec::new();
    let surfaces = body.surfaces.len();
    out.push(
        Loss::counted(
            LossKind::Layout,
            surfaces + 1,
            format!(
                "the bounding boxes and spheres of the mesh and its {surfaces} surface(s) \
                 (derived from the positions; a target that stores bounds computes them \
                 again)"
            ),
        )
        .at(Level::Relaid),
    );
    let mut empty = Vec::new();
    let (mut frames, mut vertices, mut positions) = (0usize, 0usize, 0usize);
    let mut odd_attributes = Vec::new();
    let mut unplaced_targets = 0usize;
    let (mut over_four, mut off_skeleton) = (0usize, 0usize);
    for (h, d) in body.surfaces.iter().zip(&body.data) {
        let name = h.name.text();
        let Some(base) = d.targets.first() else {
            empty.push(name);
            continue;
        };
        let nt = base.tangents.len();
        frames += nt;
        vertices += nt;
        positions += base.positions.len();
        let uv0 = d.uv0.len() == nt;
        for (what, n, kept) in [
            ("first UV set", d.uv0.len(), uv0),
            ("second UV set", d.uv1.len(), uv0 && d.uv1.len() == nt),
            ("colours", d.colors.len(), d.colors.len() == nt),
        ] {
            if n > 0 && (!kept || nt == 0) {
                odd_attributes.push(format!("{name:?}'s {what} ({n} values)"));
            }
        }
        unplaced_targets += d
            .targets
            .iter()
            .skip(1)
            .filter(|t| t.positions.len() != base.positions.len())
            .count();
        let mut rest = d.weights.entries.as_slice();
        for &k in &d.weights.counts {
            let (these, after) = rest.split_at(usize::from(k).min(rest.len()));
            rest = after;
            let on: Vec<_> = these
                .iter()
                .filter(|e| usize::try_from(e.bone).is_ok_and(|b| b < body.bones.len()))
                .collect();
            off_skeleton += these.len() - on.len();
            if on.len() > 4 {
                over_four += 1;
            }
        }
    }
    if frames > 0 {
        out.push(Loss::counted(
            LossKind::Tangents,
            frames,
            format!(
                "the tangent frames of {frames} vertices: the scene keeps the normal each \
                 frame gives, not its tangent and handedness"
            ),
        ));
    }
    if positions != vertices && vertices > 0 {
        out.push(Loss::counted(
            LossKind::VertexSharing,
            positions,
            format!(
                "how {vertices} vertices share {positions} positions (the scene gives each \
                 vertex its own position; the skin and morph targets per position are \
                 copied to each vertex)"
            ),
        ));
    }
    let lightmaps = body
        .surfaces
        .iter()
        .filter(|s| s.lightmap_channel != 0 || s.lightmap_resolution != 0)
        .count();
    if lightmaps > 0 {
        out.push(Loss::counted(
            LossKind::UnigineLightmap,
            lightmaps,
            format!("the lightmap channel and resolution of {lightmaps} surface(s)"),
        ));
    }
    let base_names: Vec<String> = body
        .surfaces
        .iter()
        .filter_map(|s| s.targets.first().map(|t| t.text()))
        .filter(|t| !t.is_empty())
        .collect();
    if !base_names.is_empty() {
        out.push(Loss::counted(
            LossKind::NotImported,
            base_names.len(),
            format!(
                "the names of {} base morph target(s) (target 0: {}; the scene's base \
                 shape has no name)",
                base_names.len(),
                base_names.join(", ")
            ),
        ));
    }
    if !empty.is_empty() {
        out.push(Loss::counted(
            LossKind::NotImported,
            empty.len(),
            format!(
                "{} surface(s) without geometry ({}): the scene has no primitive for them",
                empty.len(),
                empty.join(", ")
            ),
        ));
    }
    if !odd_attributes.is_empty() {
        out.push(Loss::counted(
            LossKind::NotImported,
            odd_attributes.len(),
            format!(
                "{}: not one value per vertex (or a second UV set without a first)",
                odd_attributes.join(", ")
            ),
        ));
    }
    if unplaced_targets > 0 {
        out.push(Loss::counted(
            LossKind::NotImported,
            unplaced_targets,
            format!(
                "{unplaced_targets} morph target(s) whose position count differs from \
                 target 0's"
            ),
        ));
    }
    if over_four > 0 {
        out.push(Loss::counted(
            LossKind::Skinning,
            over_four,
            format!(
                "the weights beyond the four largest of {over_four} positions (the scene \
                 keeps four per vertex, scaled to sum to 1)"
            ),
        ));
    }
    if off_skeleton > 0 {
        out.push(Loss::counted(
            LossKind::Skinning,
            off_skeleton,
            format!("{off_skeleton} weights on bones outside the skeleton"),
        ));
    }
    out
}

/// What [`clip_losses`] needs of a clip.
struct ClipFacts<'a> {
    name: String,
    bones: &'a [i16],
    frames: u32,
    /// Whether any key stores a value.
    stores: bool,
    /// The flag byte (embedded and an10 clips).
    flag: Option<u8>,
}

impl<'a> ClipFacts<'a> {
    /// An embedded or an10 clip, from its keys' masks.
    fn of(
        name: String,
        bones: &'a [i16],
        frames: u32,
        mut masks: impl Iterator<Item = super::raw::anim::KeyMask>,
        flag: u8,
    ) -> ClipFacts<'a> {
        ClipFacts {
            name,
            bones,
            frames,
            stores: masks.any(|m| {
                m.translation().contains(&true) || m.rotation() || m.scale().contains(&true)
            }),
            flag: Some(flag),
        }
    }
}

/// The embedded clips of a mesh.
fn animations(body: &ClassicMesh) -> Vec<Loss> {
    let clips: Vec<ClipFacts> = body
        .animation_names
        .iter()
        .zip(&body.animations)
        .map(|(name, a)| {
            let masks = a.keys.iter().map(|k| k.mask);
            ClipFacts::of(name.text(), &a.bones, a.frame_count, masks, a.flag)
        })
        .collect();
    clip_losses(&clips, body.bones.len())
}

/// What the scene of a `.anim` file (its skeleton and clips) leaves behind: an10's
/// bounds and quantization boxes (re-laid: the values are decoded), and what
/// [`clip_losses`] lists.
pub(crate) fn anim_losses(anim: &UnigineAnim) -> Vec<Loss> {
    use super::raw::anim::An11Key;
    let mut out = Vec::new();
    let (clips, bones) = match anim {
        UnigineAnim::An10(f) => {
            out.push(
                Loss::counted(
                    LossKind::Layout,
                    1,
                    "the bounding box and sphere of the an10 file (the scene computes bounds \
                     from what it holds)",
                )
                .at(Level::Relaid),
            );
            if !f.animations.is_empty() {
                out.push(
                    Loss::counted(
                        LossKind::Layout,
                        f.animations.len(),
                        format!(
                            "the translation and scale quantization boxes of {} clip(s) (the \
                             scene holds the values they decode to)",
                            f.animations.len()
                        ),
                    )
                    .at(Level::Relaid),
                );
            }
            let clips = f
                .names
                .iter()
                .zip(&f.animations)
                .map(|(name, a)| {
                    let masks = a.keys.iter().map(|k| k.mask);
                    ClipFacts::of(name.text(), &a.bones, a.frame_count, masks, a.flag)
                })
                .collect::<Vec<_>>();
            (clips, f.bones.len())
        }
        UnigineAnim::An11(f) => {
            let a = &f.animation;
            let all = An11Key::POSITION | An11Key::ROTATION | An11Key::SCALE;
            let clip = ClipFacts {
                name: String::new(),
                bones: &a.bones,
                frames: a.frame_count,
                stores: a.keys.iter().any(|k| k.mask & all != 0),
                flag: None,
            };
            (vec![clip], f.bones.len())
        }
    };
    out.extend(clip_losses(&clips, bones));
    out
}

/// Clips, or parts of them, that the scene's animations leave out, and how their keys
/// were laid out (re-laid: the scene has a value per frame).
fn clip_losses(clips: &[ClipFacts], bones: usize) -> Vec<Loss> {
    let mut out = Vec::new();
    let (mut dropped_clips, mut dropped_slots) = (Vec::new(), 0usize);
    for c in clips {
        let mut seen = std::collections::HashSet::new();
        let exported = c
            .bones
            .iter()
            .filter(|&&b| usize::try_from(b).is_ok_and(|b| b < bones) && seen.insert(b))
            .count();
        if c.frames == 0 || exported == 0 || !c.stores {
            dropped_clips.push(if c.name.is_empty() {
                "unnamed".to_string()
            } else {
                c.name.clone()
            });
        } else {
            dropped_slots += c.bones.len() - exported;
        }
    }
    let kept = clips.len() - dropped_clips.len();
    if kept > 0 {
        out.push(
            Loss::counted(
                LossKind::UnigineAnimations,
                kept,
                format!(
                    "which components each key of {kept} clip(s) stores (the scene holds \
                     every value at every frame, {} frames a second)",
                    crate::scene::FRAME_RATE
                ),
            )
            .at(Level::Relaid),
        );
    }
    if !dropped_clips.is_empty() {
        out.push(Loss::counted(
            LossKind::UnigineAnimations,
            dropped_clips.len(),
            format!(
                "{} animation(s) with no frame, no bone of the skeleton or no stored value \
                 ({})",
                dropped_clips.len(),
                dropped_clips.join(", ")
            ),
        ));
    }
    if dropped_slots > 0 {
        out.push(Loss::counted(
            LossKind::UnigineAnimations,
            dropped_slots,
            format!(
                "the keys of {dropped_slots} animated bone slot(s) outside the skeleton or \
                 listed twice"
            ),
        ));
    }
    let flags = clips
        .iter()
        .filter(|c| c.flag.is_some_and(|f| f != super::raw::anim::KeyMask::ALL))
        .count();
    if flags > 0 {
        out.push(Loss::counted(
            LossKind::UnigineAnimations,
            flags,
            format!("the flag byte of {flags} clip(s) (not 0x7f; meaning unknown)"),
        ));
    }
    out
}
