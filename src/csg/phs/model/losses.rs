//! What writing a model as a CSGPHS version would lose ([`CsgMesh::losses`]): exactly
//! the changes reading the written blob back would show (see the [model docs](super)).

use std::borrow::Cow;

use super::write::{fresh_v8, Carried};
use super::{
    physics_from, relative_difference, same_geometry, same_physics, CsgHull, CsgMesh,
    CSGPHS_VERSIONS, DEFAULT_GEOMETRY_TYPE,
};
use crate::csg::phs::edgebreaker::word_bytes;
use crate::csg::phs::raw::V8Payload;
use crate::loss::{Loss, LossKind};

impl CsgMesh {
    /// What writing this model as CSGPHS `target` would lose (empty: nothing): exactly the
    /// changes that reading the written blob back would show (see the
    /// [model docs](crate::csg::phs::model)).
    pub fn losses(&self, target: u32) -> Vec<Loss> {
        let mut out = Vec::new();
        if !CSGPHS_VERSIONS.contains(&target) {
            return out;
        }
        let mut loss = |kind, detail: String| out.push(Loss::new(kind, detail));
        if target == 0 && !self.hulls.is_empty() {
            loss(
                LossKind::CsgHulls,
                format!(
                    "{} hulls (CSGPHS 0 is box collision, \"BLOCK\" only)",
                    self.hulls.len()
                ),
            );
        } else if target == 0 && !self.block {
            loss(
                LossKind::CsgHulls,
                "an empty hull list (CSGPHS 0 makes it box collision)".into(),
            );
        }
        if target != 0 && self.block {
            loss(
                LossKind::CsgHulls,
                format!(
                    "box collision (\"BLOCK\"): CSGPHS {target} holds hulls, and there are none"
                ),
            );
        }
        if target != 0 && !self.layout.block_trailing.is_empty() {
            loss(
                LossKind::CsgEncoding,
                format!(
                    "{} bytes after \"BLOCK\" (only CSGPHS 0 holds them)",
                    self.layout.block_trailing.len()
                ),
            );
        }
        if let Some(g) = self.geometry_type {
            if !matches!(target, 7 | 8) && g != DEFAULT_GEOMETRY_TYPE {
                loss(
                    LossKind::CsgGeometryType,
                    format!(
                        "geometry type {g} (only CSGPHS 7 and 8 hold it; they would get \
                         {DEFAULT_GEOMETRY_TYPE} back)"
                    ),
                );
            }
        }
        // The hulls as the target gives them back.
        let after: Cow<[CsgHull]> = match target {
            0 => Cow::Owned(Vec::new()),
            8 => match self.v8_losses(&mut loss) {
                Some(hulls) => Cow::Owned(hulls),
                // The model cannot be written as version 8 (to_csgphs fails).
                None => return out,
            },
            _ => Cow::Borrowed(&self.hulls),
        };
        let before = self.effective_physics();
        let physics_after = match target {
            6 | 7 => before,
            _ => physics_from(&after),
        };
        if !same_physics(&before, &physics_after) {
            let what = if self.physics.is_some() {
                "stored physics info"
            } else {
                "physics info computed from the hulls"
            };
            loss(
                LossKind::CsgPhysics,
                format!(
                    "{what}: CSGPHS {target} stores none, and computing it from the hulls \
                     {} gives other values (largest relative difference {:.1e})",
                    if target == 8 {
                        "in the order CSGPHS 8 keeps them"
                    } else {
                        "read back"
                    },
                    relative_difference(&before, &physics_after)
                ),
            );
        }
        if target != 8 {
            self.v8_layout_losses(&after, &mut loss);
        }
        out
    }

    /// Losses of going to version 8 that concern the hulls; returns the hulls as read back.
    fn v8_losses(&self, loss: &mut impl FnMut(LossKind, String)) -> Option<Vec<CsgHull>> {
        let odd = self
            .hulls
            .iter()
            .filter(|h| !h.has_standard_preambles())
            .count();
        if odd > 0 {
            loss(
                LossKind::CsgHullLayout,
                format!("non-standard preambles of {odd} hulls (CSGPHS 8 has none)"),
            );
        }
        let (payload, source) = self.v8_written().ok()?;
        let after = payload.hulls().ok()?;
        if same_geometry(&after, &self.hulls) {
            return Some(after);
        }
        let mut said = false;
        if let Carried::Fresh(plan) = source {
            if plan.renumbered > 0 {
                said = true;
                loss(
                    LossKind::CsgHullLayout,
                    format!(
                        "vertex and triangle order of {} hulls (CSGPHS 8 stores them in \
                         Edgebreaker traversal order; the surfaces are unchanged)",
                        plan.renumbered
                    ),
                );
            }
            if plan.reordered {
                said = true;
                loss(
                    LossKind::CsgHullLayout,
                    format!(
                        "hull order: the {} hulls stored plainly move to the front",
                        plan.raw.len()
                    ),
                );
            }
        }
        if !said {
            loss(
                LossKind::CsgHullLayout,
                "the hulls as stored (CSGPHS 8 gives them back in another form)".into(),
            );
        }
        Some(after)
    }

    /// Losses of leaving version 8: what writing 8 again from the target's blob (whose
    /// hulls are `after`) would not give back.
    fn v8_layout_losses(&self, after: &[CsgHull], loss: &mut impl FnMut(LossKind, String)) {
        if let Some(r) = self.layout.reserved.filter(|&r| r != 0) {
            loss(
                LossKind::CsgEncoding,
                format!("the byte {r} after the geometry type (only CSGPHS 8 holds it)"),
            );
        }
        if self.layout.v8.is_none() {
            // Both write version 8 afresh from the same hulls, or the hulls are lost.
            return;
        }
        let (Ok((ours, source)), Ok((theirs, _))) = (self.v8_written(), fresh_v8(after, &[]))
        else {
            return;
        };
        let (Ok(a), Ok(b)) = (ours.to_bytes(), theirs.to_bytes()) else {
            return;
        };
        if a != b {
            loss(
                LossKind::CsgEncoding,
                format!(
                    "the CSGPHS 8 payload as encoded ({}): writing CSGPHS 8 again would \
                     encode it differently",
                    payload_differences(&ours, &theirs)
                ),
            );
            return;
        }
        if let Carried::Reused(e) = source {
            if theirs.compress().is_ok_and(|f| f != e.frame) {
                loss(
                    LossKind::CsgEncoding,
                    format!(
                        "the zstd frame of CSGPHS 8 ({} bytes): compressing the payload \
                         again gives other bytes (it was made by another compressor or \
                         with other settings)",
                        e.frame.len()
                    ),
                );
            }
        }
    }
}

/// Which parts of two payloads differ, for a loss message.
fn payload_differences(ours: &V8Payload, fresh: &V8Payload) -> String {
    let mut parts = Vec::new();
    if ours.bits.len() != fresh.bits.len() {
        parts.push(format!(
            "a {}-byte connectivity buffer for {} bits, where {} bytes are written",
            ours.bits.len(),
            ours.bit_count,
            word_bytes(ours.bit_count)
        ));
    } else if ours.bits != fresh.bits {
        parts.push("the connectivity bits".to_string());
    }
    if (ours.hull_count, ours.raw_hulls.is_some()) != (fresh.hull_count, fresh.raw_hulls.is_some())
    {
        parts.push("which hulls are stored plainly".to_string());
    } else if ours.raw_hulls != fresh.raw_hulls {
        parts.push("the raw hull block".to_string());
    }
    if (ours.max_hull_vertices, ours.max_hull_triangles)
        != (fresh.max_hull_vertices, fresh.max_hull_triangles)
    {
        parts.push("the largest-hull counts".to_string());
    }
    let bits = |p: &V8Payload| {
        p.bbox_min
            .iter()
            .chain(&p.bbox_max)
            .map(|x| x.to_bits())
            .collect::<Vec<_>>()
    };
    if bits(ours) != bits(fresh) {
        parts.push("the bounding box".to_string());
    }
    if parts.is_empty() {
        parts.push("the header or vertex array".to_string());
    }
    parts.join(", ")
}
