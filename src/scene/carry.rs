//! What a target format carries of a scene, and what it does not.
//!
//! Each format declares what its import keeps of a [`Scene`] in one [`Carries`] value
//! (next to its import: `filemesh::file::CARRIES`, `csg::phs::file::CARRIES` …); this
//! module turns a scene and that declaration into the loss report's first lines, so the
//! rules are spelled once per format and the wording once for all. What the format's
//! own model then cannot hold (FileMesh 2.00's bones, say) its conversion reports; a
//! format that carries something into its model declares it carried here, so each
//! loss is named once.

use super::{NoteKind, Primitive, Scene};
use crate::loss::{Loss, LossKind};

/// What a format's import keeps of a scene.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Carries {
    /// The format's name in the report's lines (`FileMesh`).
    pub format: &'static str,
    /// The skeleton and skins.
    pub rig: Rig,
    /// Morph targets (as blendshapes, or as the format's own morphs).
    pub morph_targets: bool,
    /// Animations of the skeleton (embedded, or in files beside the target).
    pub animations: bool,
    /// Coarser levels of detail (meshes with `lod > 0`).
    pub lods: bool,
    /// UV sets after the first.
    pub extra_uv_sets: bool,
    /// Per-vertex normals, UVs and colours (`false`: positions only).
    pub attributes: bool,
    /// Colours are stored as bytes: a component off the 1/255 grid is rounded.
    pub byte_colors: bool,
}

/// What a format keeps of a scene's skeleton and skins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rig {
    /// Nothing: the skeleton and skins are dropped.
    None,
    /// Bones as a position and a rotation: a scale in the bind pose is lost. What the
    /// target version does not hold of the bones, the format's conversion reports.
    PositionRotation,
    /// All of it (what the format's import cannot place, it reports itself).
    Full,
}

impl Carries {
    /// A format that keeps every part of the scene (its import reports what it cannot
    /// place).
    pub(crate) const fn all(format: &'static str) -> Carries {
        Carries {
            format,
            rig: Rig::Full,
            morph_targets: true,
            animations: true,
            lods: true,
            extra_uv_sets: true,
            attributes: true,
            byte_colors: false,
        }
    }
}

impl Scene {
    /// What writing this scene into a format that carries `carries` leaves behind
    /// before the format's own conversion, `target` naming the format in the lines:
    /// what the scene's reader or adapter already left out or replaced (its notes),
    /// then what the scene holds that the format's import does not keep.
    pub(crate) fn uncarried(&self, carries: &Carries, target: &str) -> Vec<Loss> {
        let format = carries.format;
        let mut losses: Vec<Loss> = self
            .notes
            .iter()
            .map(|n| {
                let kind = match n.kind {
                    NoteKind::NonFinite | NoteKind::ZeroNormals => LossKind::NonFinite,
                    _ => LossKind::NotImported,
                };
                Loss::counted(kind, n.count, n.detail.clone())
            })
            .collect();
        let mut lose = |kind: LossKind, count: usize, detail: String| {
            if count > 0 {
                losses.push(Loss::counted(kind, count, detail));
            }
        };
        if !carries.lods {
            let coarse: Vec<&str> = self
                .meshes
                .iter()
                .filter(|m| m.lod > 0)
                .map(|m| m.name.as_str())
                .collect();
            lose(
                LossKind::NotImported,
                coarse.len(),
                format!(
                    "{} coarser levels of detail ({}): {target} has no LODs",
                    coarse.len(),
                    coarse.join(", ")
                ),
            );
        }
        // Only the meshes the format keeps count below.
        let prims: Vec<&Primitive> = self
            .meshes
            .iter()
            .filter(|m| carries.lods || m.lod == 0)
            .flat_map(|m| &m.primitives)
            .collect();
        match (carries.rig, &self.skeleton) {
            (Rig::PositionRotation, Some(s)) => {
                let scaled = scaled_joints(s);
                lose(
                    LossKind::Skeleton,
                    scaled,
                    format!(
                        "the bind-pose scale of {scaled} joints: {format} bones hold a \
                         position and a rotation"
                    ),
                );
            }
            (Rig::None, Some(s)) => {
                let skinned = prims.iter().filter(|p| p.joints.is_some()).count();
                lose(
                    LossKind::Skeleton,
                    s.joints.len().max(skinned),
                    format!(
                        "the skeleton ({} joints) and the skins of {skinned} primitives are \
                         not carried into {target}",
                        s.joints.len()
                    ),
                );
            }
            _ => {}
        }
        if !carries.morph_targets {
            let morphs: usize = prims.iter().map(|p| p.morph_targets.len()).sum();
            lose(
                LossKind::NotImported,
                morphs,
                format!("{morphs} morph targets are not carried into {target}"),
            );
        }
        if !carries.animations {
            let animations = self.animations.len();
            lose(
                LossKind::NotImported,
                animations,
                format!("{animations} animations are not carried into {target}"),
            );
        }
        if !carries.attributes {
            for (what, n) in [
                (
                    "normals",
                    prims.iter().filter(|p| p.normals.is_some()).count(),
                ),
                (
                    "UVs",
                    prims
                        .iter()
                        .filter(|p| p.uvs.is_some() || !p.extra_uvs.is_empty())
                        .count(),
                ),
                (
                    "colours",
                    prims.iter().filter(|p| p.colors.is_some()).count(),
                ),
            ] {
                lose(
                    LossKind::NotImported,
                    n,
                    format!("the {what} of {n} primitives: {format} stores hull positions only"),
                );
            }
        } else if !carries.extra_uv_sets {
            let extra = prims.iter().filter(|p| !p.extra_uvs.is_empty()).count();
            lose(
                LossKind::NotImported,
                extra,
                format!("the further UV sets of {extra} primitives: {target} holds one UV set"),
            );
        }
        if carries.attributes && carries.byte_colors {
            let off_grid = prims
                .iter()
                .flat_map(|p| p.colors.iter().flatten().flatten())
                .filter(|&&c| (c.clamp(0.0, 1.0) * 255.0).round() / 255.0 != c)
                .count();
            lose(
                LossKind::Colors,
                off_grid,
                format!("{off_grid} colour components rounded to {format}'s 8-bit steps"),
            );
        }
        losses
    }
}

impl Scene {
    /// The names and materials of the primitives that have one (a UNIGINE surface's
    /// name, a glTF material's), for a target with no place for them (`target` names
    /// it): re-laid, since the geometry they label is kept (one line, or none).
    pub(crate) fn unnamed(&self, carries_lods: bool, target: &str) -> Option<Loss> {
        let names: Vec<&str> = self
            .meshes
            .iter()
            .filter(|m| carries_lods || m.lod == 0)
            .flat_map(|m| &m.primitives)
            .filter_map(|p| p.material.as_deref())
            .collect();
        (!names.is_empty()).then(|| {
            Loss::counted(
                LossKind::NotImported,
                names.len(),
                format!(
                    "the names and materials of {} primitive(s) ({}): {target} has no place \
                     for them",
                    names.len(),
                    names.join(", ")
                ),
            )
            .at(crate::loss::Level::Relaid)
        })
    }
}

/// Joints whose bind pose (in the world) has a scale other than 1.
fn scaled_joints(s: &super::Skeleton) -> usize {
    let local: Vec<_> = s.joints.iter().map(super::skin::local_matrix).collect();
    let parents: Vec<_> = s.joints.iter().map(|j| j.parent).collect();
    super::skin::world_matrices(&local, &parents)
        .iter()
        .filter(|w| {
            let (_, _, scale) = super::skin::decompose(w);
            scale.iter().any(|x| (x - 1.0).abs() > 1e-4)
        })
        .count()
}
