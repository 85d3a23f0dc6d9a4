//! Writing a model as any CSGPHS version ([`CsgMesh::to_csgphs`]): the carried version 8
//! payload reused while it describes the hulls, else one encoded afresh (which hulls are
//! Edgebreaker-coded and which stored plainly).

use super::{same_geometry, CsgHull, CsgLayout, CsgMesh, V8Encoding, DEFAULT_GEOMETRY_TYPE};
use crate::csg::phs::edgebreaker::{encode_hull, BitWriter, Encoded, NotCodable};
use crate::csg::phs::raw::{
    Compressed, CsgBody, Csgphs, HullList, PhysicsHulls, RawHulls, TypedPhysicsHulls, V8Payload,
};
use crate::error::{Error, ErrorKind, Result};

impl CsgMesh {
    /// Writes the model as CSGPHS `version` (see the [model docs](crate::csg::phs::model)
    /// for the defaults and what is reused from the source). Fails for unknown versions and
    /// hulls with out-of-range indices; check [`CsgMesh::losses`] first.
    pub fn to_csgphs(&self, version: u32) -> Result<Csgphs> {
        for (i, h) in self.hulls.iter().enumerate() {
            h.check(i)?;
        }
        let records = || HullList {
            hulls: self.hulls.iter().map(CsgHull::record).collect(),
        };
        let geometry_type = self.geometry_type.unwrap_or(DEFAULT_GEOMETRY_TYPE);
        let body = match version {
            0 => CsgBody::Block {
                trailing: self.layout.block_trailing.clone(),
            },
            3 | 5 => CsgBody::Hulls(records()),
            6 => CsgBody::Physics(PhysicsHulls {
                physics: self.effective_physics(),
                hulls: records(),
            }),
            7 => CsgBody::Typed(TypedPhysicsHulls {
                geometry_type,
                physics: self.effective_physics(),
                hulls: records(),
            }),
            8 => CsgBody::Compressed(Compressed {
                geometry_type,
                reserved: self.layout.reserved.unwrap_or(0),
                frame: match self.v8_written()? {
                    (_, Carried::Reused(e)) => e.frame.clone(),
                    (payload, Carried::Fresh(_)) => payload.compress()?,
                },
            }),
            v => {
                return Err(Error::new(
                    "CSGPHS",
                    ErrorKind::UnsupportedVersion(format!(
                        "CSGPHS {v} (writable: 0, 3, 5, 6, 7, 8)"
                    )),
                ))
            }
        };
        Ok(Csgphs { version, body })
    }

    /// The content of the version 8 zstd frame that [`CsgMesh::to_csgphs`] writes: the
    /// source's payload while it still describes the hulls, else [`CsgMesh::encode_v8_payload`].
    pub fn to_v8_payload(&self) -> Result<V8Payload> {
        self.v8_written().map(|(p, _)| p)
    }

    /// A version 8 payload encoded afresh from the hulls: closed genus-0 hulls
    /// Edgebreaker-coded, the others stored plainly, first. A hull that the source stored
    /// plainly stays plain while it is unchanged.
    pub fn encode_v8_payload(&self) -> Result<V8Payload> {
        let keep = self
            .layout
            .v8
            .as_ref()
            .map(V8Encoding::raw_hulls)
            .unwrap_or_default();
        fresh_v8(&self.hulls, &keep).map(|(p, _)| p)
    }

    /// The payload to write, and where it comes from.
    pub(super) fn v8_written(&self) -> Result<(V8Payload, Carried<'_>)> {
        if let Some(e) = CsgLayout::reused(self.layout.v8.as_ref(), &self.hulls) {
            return Ok((e.payload.clone(), Carried::Reused(e)));
        }
        let keep = self
            .layout
            .v8
            .as_ref()
            .map(V8Encoding::raw_hulls)
            .unwrap_or_default();
        fresh_v8(&self.hulls, &keep).map(|(p, plan)| (p, Carried::Fresh(plan)))
    }
}

/// Where a version 8 payload to write comes from.
pub(super) enum Carried<'a> {
    /// The source's, which still describes the hulls (its frame goes with it).
    Reused(&'a V8Encoding),
    /// Encoded afresh by this plan.
    Fresh(V8Plan),
}

/// A version 8 payload for `hulls`, encoded afresh; hulls equal to one of `keep_raw` are
/// stored plainly.
pub(super) fn fresh_v8(hulls: &[CsgHull], keep_raw: &[CsgHull]) -> Result<(V8Payload, V8Plan)> {
    let plan = V8Plan::new(hulls, keep_raw);
    let too_big = |what: &str| {
        Error::new(
            "CSGPHS v8",
            ErrorKind::Inconsistent(format!("{what} do not fit a u32")),
        )
    };
    let u32_of = |n: usize, what: &str| u32::try_from(n).map_err(|_| too_big(what));
    let raw_hulls = if plan.raw.is_empty() {
        None
    } else {
        let mut r = RawHulls {
            index_ranges: vec![0].into(),
            position_ranges: vec![0].into(),
            ..RawHulls::default()
        };
        for &i in &plan.raw {
            let Some(h) = hulls.get(i) else { continue };
            r.indices.extend(h.triangles.iter().flatten());
            r.positions.extend(h.positions.iter().flatten());
            r.index_ranges
                .push(u32_of(r.indices.len(), "raw hull indices")?);
            r.position_ranges
                .push(u32_of(r.positions.len(), "raw hull floats")?);
        }
        Some(r)
    };
    let mut bits = BitWriter::default();
    let mut vertices: Vec<[f32; 3]> = Vec::new();
    let (mut max_v, mut max_t, mut triangles) = (0usize, 0usize, 0usize);
    for (i, e) in &plan.coded {
        let Some(h) = hulls.get(*i) else {
            continue;
        };
        e.symbols.iter().for_each(|&s| bits.symbol(s));
        vertices.extend(
            e.vertex_order
                .iter()
                .filter_map(|&v| h.positions.get(v as usize)),
        );
        max_v = max_v.max(e.vertex_order.len());
        max_t = max_t.max(e.triangles.len());
        triangles += e.triangles.len();
    }
    let (bit_count, bits) = bits.finish();
    let (mut lo, mut hi) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
    for p in &vertices {
        for ((l, h), &x) in lo.iter_mut().zip(hi.iter_mut()).zip(p) {
            *l = l.min(x);
            *h = h.max(x);
        }
    }
    if vertices.is_empty() {
        (lo, hi) = ([0.0; 3], [0.0; 3]);
    }
    let payload = V8Payload {
        hull_count: u32_of(plan.coded.len(), "hulls")?,
        vertex_count: u32_of(vertices.len(), "vertices")?,
        triangle_count: u32_of(triangles, "triangles")?,
        max_hull_vertices: u32_of(max_v, "vertices")?,
        max_hull_triangles: u32_of(max_t, "triangles")?,
        bit_count,
        bbox_min: lo,
        bbox_max: hi,
        raw_hulls,
        bits: bits.into(),
        vertices: vertices.into(),
    };
    Ok((payload, plan))
}

/// How a model's hulls go into a version 8 payload.
pub(super) struct V8Plan {
    /// Hulls stored plainly, in model order.
    pub(super) raw: Vec<usize>,
    /// Hulls Edgebreaker-coded, in model order.
    pub(super) coded: Vec<(usize, Encoded)>,
    /// Coded hulls whose vertices or triangles come out in another order.
    pub(super) renumbered: usize,
    /// A raw hull follows a coded one in the model, so the hull order changes.
    pub(super) reordered: bool,
}

impl V8Plan {
    /// Codes every hull that can be, but those equal to one of `keep_raw`.
    fn new(hulls: &[CsgHull], keep_raw: &[CsgHull]) -> V8Plan {
        let mut plan = V8Plan {
            raw: Vec::new(),
            coded: Vec::new(),
            renumbered: 0,
            reordered: false,
        };
        for (i, h) in hulls.iter().enumerate() {
            let keep = keep_raw
                .iter()
                .any(|k| same_geometry(std::slice::from_ref(k), std::slice::from_ref(h)));
            let coded = match keep {
                true => Err(NotCodable::TooSmall),
                false => encode_hull(h.positions.len(), &h.triangles),
            };
            match coded {
                Ok(e) => {
                    let same = e
                        .vertex_order
                        .iter()
                        .enumerate()
                        .all(|(k, &v)| k == v as usize)
                        && e.triangles == h.triangles;
                    plan.renumbered += usize::from(!same);
                    plan.coded.push((i, e));
                }
                Err(_) => {
                    plan.reordered |= !plan.coded.is_empty();
                    plan.raw.push(i);
                }
            }
        }
        plan
    }
}
