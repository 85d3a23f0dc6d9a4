//! What `meshcodec info` prints of a CSGPHS blob ([`Csgphs::info`]), also when its hulls
//! do not decode.

use super::CsgMesh;
use crate::csg::phs::raw::{CompressedInfo, CsgBody, CsgInfo, Csgphs, HullCounts};
use crate::error::{Error, Limits, Result};

impl Csgphs {
    /// The summary printed by `meshcodec info` (decompresses and decodes version 8 within
    /// `limits`).
    ///
    /// When the hulls do not decode (an index out of range, connectivity bits that do not
    /// fit the counts), the summary still gives what the stored counts say, and `problem`
    /// says what is wrong; only a blob whose version 8 payload does not parse is an error.
    pub fn info(&self, limits: &Limits) -> Result<CsgInfo> {
        let model = match CsgMesh::from_csgphs(self, limits) {
            Ok(m) => m,
            Err(e) => return self.stored_counts_info(limits, e),
        };
        let hull_counts: Vec<HullCounts> = model
            .hulls
            .iter()
            .map(|h| HullCounts {
                vertices: h.positions.len(),
                faces: h.triangles.len(),
            })
            .collect();
        let compressed = match (&self.body, self.payload(limits)?) {
            (CsgBody::Compressed(c), Some(p)) => Some(CompressedInfo {
                reserved: c.reserved,
                frame_bytes: c.frame.len(),
                decompressed_bytes: p.to_bytes()?.len(),
                raw_hulls: model.hulls.len() - p.hull_count as usize,
                coded_hulls: p.hull_count as usize,
                connectivity_bits: p.bit_count,
            }),
            _ => None,
        };
        Ok(CsgInfo {
            format: "csgphs",
            version: self.version,
            hulls: hull_counts.len(),
            vertices: hull_counts.iter().map(|h| h.vertices).sum(),
            faces: hull_counts.iter().map(|h| h.faces).sum(),
            hull_counts,
            geometry_type: model.geometry_type,
            physics: model.physics,
            computed_physics: (!model.hulls.is_empty()).then(|| model.computed_physics()),
            physics_max_relative_difference: model.physics_difference(),
            compressed,
            problem: None,
        })
    }

    /// [`Csgphs::info`] from the stored counts alone, for hulls that do not decode.
    fn stored_counts_info(&self, limits: &Limits, problem: Error) -> Result<CsgInfo> {
        let counts = |floats: usize, indices: usize| HullCounts {
            vertices: floats / 3,
            faces: indices / 3,
        };
        let mut hull_counts: Vec<HullCounts> = self
            .hulls()
            .iter()
            .map(|h| counts(h.vertices.len(), h.indices.len()))
            .collect();
        let (mut hulls, mut vertices, mut faces) = (
            hull_counts.len(),
            hull_counts.iter().map(|h| h.vertices).sum(),
            hull_counts.iter().map(|h| h.faces).sum(),
        );
        let mut compressed = None;
        if let (CsgBody::Compressed(c), Some(p)) = (&self.body, self.payload(limits)?) {
            fn width(r: &[u32]) -> impl Iterator<Item = usize> + '_ {
                r.windows(2).map(|w| match *w {
                    [a, b] => b.saturating_sub(a) as usize,
                    _ => 0,
                })
            }
            if let Some(r) = &p.raw_hulls {
                hull_counts = width(&r.position_ranges)
                    .zip(width(&r.index_ranges))
                    .map(|(f, i)| counts(f, i))
                    .collect();
            }
            hulls = hull_counts.len() + p.hull_count as usize;
            vertices =
                hull_counts.iter().map(|h| h.vertices).sum::<usize>() + p.vertex_count as usize;
            faces = hull_counts.iter().map(|h| h.faces).sum::<usize>() + p.triangle_count as usize;
            compressed = Some(CompressedInfo {
                reserved: c.reserved,
                frame_bytes: c.frame.len(),
                decompressed_bytes: p.to_bytes()?.len(),
                raw_hulls: hull_counts.len(),
                coded_hulls: p.hull_count as usize,
                connectivity_bits: p.bit_count,
            });
        }
        Ok(CsgInfo {
            format: "csgphs",
            version: self.version,
            hulls,
            vertices,
            faces,
            hull_counts,
            geometry_type: match &self.body {
                CsgBody::Typed(t) => Some(t.geometry_type),
                CsgBody::Compressed(c) => Some(c.geometry_type),
                _ => None,
            },
            physics: self.physics().copied(),
            computed_physics: None,
            physics_max_relative_difference: None,
            compressed,
            problem: Some(problem.to_string()),
        })
    }
}
