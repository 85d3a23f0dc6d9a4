//! The CSGPHS model: hulls as vertex positions and triangles, the stored physics info, and
//! writing any CSGPHS version from it, with the list of what the target cannot hold.
//!
//! Reading: versions 3–7 give their hull records as they are; version 8 is decompressed,
//! its plainly stored ("raw") hulls come first, then the Edgebreaker-coded ones
//! ([`super::edgebreaker`]), in the order the payload holds them.
//!
//! Writing, by target version:
//! - 0: `BLOCK` (box collision; the hulls are dropped);
//! - 3, 5: hull records;
//! - 6: physics info, then hull records;
//! - 7: geometry type, physics info, hull records;
//! - 8: geometry type, then a zstd frame: hulls that are closed genus-0 surfaces are
//!   Edgebreaker-coded, which renumbers their vertices and triangles in traversal order;
//!   the others go to the raw block, which comes first.
//!
//! Defaults: physics info computed from the hulls ([`physics_from_hulls`]) when the model
//! has none stored; geometry type [`DEFAULT_GEOMETRY_TYPE`]; hull preambles `0,0,0,0` and
//! `0,0,0,1` (as f32), as in every real blob.

use serde::Serialize;

use super::convert::{Loss, LossKind};
use super::csgphs::{
    physics_from_hulls, Compressed, CompressedInfo, CsgBody, CsgInfo, Csgphs, Hull, HullCounts,
    HullList, PhysicsHulls, PhysicsInfo, RawHulls, TypedPhysicsHulls, V8Payload,
};
use super::edgebreaker::{encode_hull, BitReader, BitWriter, Encoded, HullDecoder};
use crate::error::{Error, ErrorKind, Limits, Result};

/// The CSGPHS versions this crate reads and writes.
pub const CSGPHS_VERSIONS: [u32; 6] = [0, 3, 5, 6, 7, 8];

/// Geometry type written to versions 7 and 8 when the source has none. Real blobs hold 0, 2
/// and 3; what the values mean is not known.
pub const DEFAULT_GEOMETRY_TYPE: u8 = 0;

/// Relative difference below which stored physics info counts as what the geometry gives
/// (real blobs agree to about 1e-7).
pub const PHYSICS_TOLERANCE: f64 = 1e-5;

/// The first hull preamble of every real blob: f32 `0, 0, 0, 0`.
pub const PREAMBLE1: [u8; 16] = [0; 16];
/// The second hull preamble of every real blob: f32 `0, 0, 0, 1`.
pub const PREAMBLE2: [u8; 16] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x80, 0x3f];

/// Collision geometry of a mesh or union.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CsgMesh {
    /// Box collision (version 0): no hulls.
    pub block: bool,
    /// Geometry type byte (versions 7 and 8).
    pub geometry_type: Option<u8>,
    /// Physics info as stored (versions 6 and 7).
    pub physics: Option<PhysicsInfo>,
    /// The convex hulls.
    pub hulls: Vec<CsgHull>,
}

/// One convex hull.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CsgHull {
    /// Vertex positions.
    pub positions: Vec<[f32; 3]>,
    /// Triangles, indices into `positions`, counter-clockwise seen from outside.
    pub triangles: Vec<[u32; 3]>,
    /// The two 16-byte blocks before a hull record's vertices (versions 3–7).
    pub preambles: [Vec<u8>; 2],
}

impl CsgHull {
    /// A hull with the standard preambles.
    pub fn new(positions: Vec<[f32; 3]>, triangles: Vec<[u32; 3]>) -> Self {
        CsgHull {
            positions,
            triangles,
            preambles: [PREAMBLE1.to_vec(), PREAMBLE2.to_vec()],
        }
    }

    /// True when the preambles are those of every real blob.
    pub fn has_standard_preambles(&self) -> bool {
        self.preambles[0] == PREAMBLE1 && self.preambles[1] == PREAMBLE2
    }

    fn record(&self) -> Hull {
        Hull {
            preamble1: self.preambles[0].clone(),
            preamble2: self.preambles[1].clone(),
            vertices: self.positions.iter().flatten().copied().collect(),
            indices: self.triangles.iter().flatten().copied().collect(),
        }
    }

    fn from_record(i: usize, h: &Hull) -> Result<CsgHull> {
        let hull = CsgHull {
            positions: triples(&h.vertices, || {
                bad(i, "its float count is not a multiple of 3")
            })?,
            triangles: triples(&h.indices, || {
                bad(i, "its index count is not a multiple of 3")
            })?,
            preambles: [h.preamble1.clone(), h.preamble2.clone()],
        };
        hull.check(i)?;
        Ok(hull)
    }

    fn check(&self, i: usize) -> Result<()> {
        let n = self.positions.len();
        match self.triangles.iter().flatten().find(|&&v| v as usize >= n) {
            Some(v) => Err(bad(i, &format!("index {v} is out of range ({n} vertices)"))),
            None => Ok(()),
        }
    }
}

fn bad(hull: usize, what: &str) -> Error {
    Error::new(
        format!("CSGPHS hull {hull}"),
        ErrorKind::Inconsistent(what.to_string()),
    )
}

fn triples<T: bytemuck::Pod>(flat: &[T], err: impl Fn() -> Error) -> Result<Vec<[T; 3]>> {
    bytemuck::try_cast_slice::<T, [T; 3]>(flat)
        .map(<[[T; 3]]>::to_vec)
        .map_err(|_| err())
}

impl CsgMesh {
    /// Reads a CSGPHS blob into the model.
    pub fn read(bytes: &[u8]) -> Result<CsgMesh> {
        let limits = Limits::default();
        CsgMesh::from_csgphs(&Csgphs::read_with_limits(bytes, &limits)?, &limits)
    }

    /// The model of a raw blob (decompresses and decodes version 8 within `limits`).
    pub fn from_csgphs(c: &Csgphs, limits: &Limits) -> Result<CsgMesh> {
        let from_records = |hulls: &HullList| -> Result<Vec<CsgHull>> {
            hulls
                .hulls
                .iter()
                .enumerate()
                .map(|(i, h)| CsgHull::from_record(i, h))
                .collect()
        };
        Ok(match &c.body {
            CsgBody::Block { .. } => CsgMesh {
                block: true,
                ..CsgMesh::default()
            },
            CsgBody::Hulls(h) => CsgMesh {
                hulls: from_records(h)?,
                ..CsgMesh::default()
            },
            CsgBody::Physics(p) => CsgMesh {
                physics: Some(p.physics),
                hulls: from_records(&p.hulls)?,
                ..CsgMesh::default()
            },
            CsgBody::Typed(t) => CsgMesh {
                geometry_type: Some(t.geometry_type),
                physics: Some(t.physics),
                hulls: from_records(&t.hulls)?,
                ..CsgMesh::default()
            },
            CsgBody::Compressed(z) => {
                let payload = c.payload(limits)?.ok_or_else(|| {
                    Error::new("CSGPHS v8", ErrorKind::Inconsistent("no payload".into()))
                })?;
                CsgMesh {
                    geometry_type: Some(z.geometry_type),
                    hulls: payload.hulls()?,
                    ..CsgMesh::default()
                }
            }
        })
    }

    /// Physics info computed from the hulls.
    pub fn computed_physics(&self) -> PhysicsInfo {
        physics_from_hulls(
            self.hulls
                .iter()
                .map(|h| (&h.positions[..], &h.triangles[..])),
        )
    }

    /// Largest relative difference between the stored and the computed physics info
    /// (relative to the largest stored magnitude), if physics info is stored.
    pub fn physics_difference(&self) -> Option<f64> {
        let s = self.physics?;
        let c = self.computed_physics();
        let values = |p: &PhysicsInfo| {
            [p.volume]
                .into_iter()
                .chain(p.center_of_gravity)
                .chain(p.inertia)
                .map(f64::from)
                .collect::<Vec<f64>>()
        };
        let (a, b) = (values(&s), values(&c));
        let scale = a.iter().fold(0f64, |m, x| m.max(x.abs())).max(1e-30);
        Some(
            a.iter()
                .zip(&b)
                .map(|(x, y)| (x - y).abs() / scale)
                .fold(0f64, f64::max),
        )
    }

    /// What writing this model as CSGPHS `target` would lose (empty: nothing).
    pub fn losses(&self, target: u32) -> Vec<Loss> {
        let mut out = Vec::new();
        let mut loss = |kind, detail: String| out.push(Loss { kind, detail });
        if target == 0 && !self.hulls.is_empty() {
            loss(
                LossKind::CsgHulls,
                format!(
                    "{} hulls (CSGPHS 0 is box collision, \"BLOCK\" only)",
                    self.hulls.len()
                ),
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
        if let (Some(g), false) = (self.geometry_type, matches!(target, 7 | 8)) {
            loss(
                LossKind::CsgGeometryType,
                format!("geometry type {g} (only CSGPHS 7 and 8 hold it)"),
            );
        }
        if let (Some(d), false) = (self.physics_difference(), matches!(target, 6 | 7)) {
            if d > PHYSICS_TOLERANCE {
                loss(
                    LossKind::CsgPhysics,
                    format!(
                        "stored physics info, which differs from the hulls' geometry by {d:.1e} \
                         (CSGPHS {target} stores none; readers compute it from the hulls)"
                    ),
                );
            }
        }
        if target == 8 {
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
            let plan = V8Plan::new(&self.hulls);
            if plan.renumbered > 0 {
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
                loss(
                    LossKind::CsgHullLayout,
                    format!(
                        "hull order: the {} hulls that cannot be Edgebreaker-coded move to the front",
                        plan.raw.len()
                    ),
                );
            }
        }
        out
    }

    /// Writes the model as CSGPHS `version` (see the module docs for the defaults). Fails
    /// for unknown versions and hulls with out-of-range indices; check [`CsgMesh::losses`]
    /// first.
    pub fn to_csgphs(&self, version: u32) -> Result<Csgphs> {
        for (i, h) in self.hulls.iter().enumerate() {
            h.check(i)?;
        }
        let records = || HullList {
            hulls: self.hulls.iter().map(CsgHull::record).collect(),
        };
        let physics = || self.physics.unwrap_or_else(|| self.computed_physics());
        let geometry_type = self.geometry_type.unwrap_or(DEFAULT_GEOMETRY_TYPE);
        let body = match version {
            0 => CsgBody::Block {
                trailing: Vec::new(),
            },
            3 | 5 => CsgBody::Hulls(records()),
            6 => CsgBody::Physics(PhysicsHulls {
                physics: physics(),
                hulls: records(),
            }),
            7 => CsgBody::Typed(TypedPhysicsHulls {
                geometry_type,
                physics: physics(),
                hulls: records(),
            }),
            8 => CsgBody::Compressed(Compressed {
                geometry_type,
                reserved: 0,
                frame: self.to_v8_payload()?.compress()?,
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

    /// The content of a version 8 zstd frame for this model.
    pub fn to_v8_payload(&self) -> Result<V8Payload> {
        let plan = V8Plan::new(&self.hulls);
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
                index_ranges: vec![0],
                position_ranges: vec![0],
                ..RawHulls::default()
            };
            for &i in &plan.raw {
                let Some(h) = self.hulls.get(i) else { continue };
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
            let Some(h) = self.hulls.get(*i) else {
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
        Ok(V8Payload {
            hull_count: u32_of(plan.coded.len(), "hulls")?,
            vertex_count: u32_of(vertices.len(), "vertices")?,
            triangle_count: u32_of(triangles, "triangles")?,
            max_hull_vertices: u32_of(max_v, "vertices")?,
            max_hull_triangles: u32_of(max_t, "triangles")?,
            bit_count,
            bbox_min: lo,
            bbox_max: hi,
            raw_hulls,
            bits,
            vertices,
        })
    }
}

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

/// How a model's hulls go into a version 8 payload.
struct V8Plan {
    /// Hulls stored plainly, in model order.
    raw: Vec<usize>,
    /// Hulls Edgebreaker-coded, in model order.
    coded: Vec<(usize, Encoded)>,
    /// Coded hulls whose vertices or triangles come out in another order.
    renumbered: usize,
    /// A raw hull follows a coded one in the model, so the hull order changes.
    reordered: bool,
}

impl V8Plan {
    fn new(hulls: &[CsgHull]) -> V8Plan {
        let mut plan = V8Plan {
            raw: Vec::new(),
            coded: Vec::new(),
            renumbered: 0,
            reordered: false,
        };
        for (i, h) in hulls.iter().enumerate() {
            match encode_hull(h.positions.len(), &h.triangles) {
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

impl V8Payload {
    /// The hulls: raw ones first, then the Edgebreaker-coded ones, decoded. Fails when
    /// the connectivity bits, the counts and the vertex array do not fit together.
    pub fn hulls(&self) -> Result<Vec<CsgHull>> {
        hulls_from_payload(self)
    }
}

fn hulls_from_payload(p: &V8Payload) -> Result<Vec<CsgHull>> {
    let mut hulls = Vec::new();
    if let Some(r) = &p.raw_hulls {
        let err = |what: String| Error::new("CSGPHS v8 raw hulls", ErrorKind::Inconsistent(what));
        if r.index_ranges.len() != r.position_ranges.len() {
            return Err(err(format!(
                "{} index ranges but {} position ranges",
                r.index_ranges.len(),
                r.position_ranges.len()
            )));
        }
        let pairs = r.index_ranges.windows(2).zip(r.position_ranges.windows(2));
        for (k, (ir, pr)) in pairs.enumerate() {
            let (&[i0, i1], &[p0, p1]) = (ir, pr) else {
                continue;
            };
            let slice = |a: u32, b: u32, len: usize| {
                (a <= b && b as usize <= len).then_some(a as usize..b as usize)
            };
            let (Some(ii), Some(pp)) = (
                slice(i0, i1, r.indices.len()),
                slice(p0, p1, r.positions.len()),
            ) else {
                return Err(err(format!(
                    "raw hull {k}: ranges out of order or out of bounds"
                )));
            };
            let positions = triples(r.positions.get(pp).unwrap_or_default(), || {
                err(format!("raw hull {k}: float count is not a multiple of 3"))
            })?;
            let triangles = triples(r.indices.get(ii).unwrap_or_default(), || {
                err(format!("raw hull {k}: index count is not a multiple of 3"))
            })?;
            let hull = CsgHull::new(positions, triangles);
            hull.check(hulls.len())?;
            hulls.push(hull);
        }
    }
    let mut reader = BitReader::new(&p.bits, p.bit_count)?;
    let mut offset = 0usize;
    let mut triangles_left = u64::from(p.triangle_count);
    let mut decoder = HullDecoder::default();
    let err = |what: String| Error::new("CSGPHS v8", ErrorKind::Inconsistent(what));
    for k in 0..p.hull_count {
        let coded = decoder
            .decode(&mut reader, triangles_left)
            .map_err(|e| e.within(&format!("coded hull {k}")))?;
        triangles_left -= coded.triangles.len() as u64;
        let n = coded.vertices as usize;
        let positions = p
            .vertices
            .get(offset..offset + n)
            .ok_or_else(|| {
                err(format!(
                    "coded hull {k} needs vertices {offset}..{}, the payload has {}",
                    offset + n,
                    p.vertices.len()
                ))
            })?
            .to_vec();
        offset += n;
        hulls.push(CsgHull::new(positions, coded.triangles));
    }
    if offset != p.vertices.len()
        || p.vertex_count as usize != offset
        || triangles_left != 0
        || reader.remaining() != 0
    {
        return Err(err(format!(
            "the {} coded hulls use {offset} of {} vertices, {} of {} triangles and {} of {} bits",
            p.hull_count,
            p.vertices.len(),
            u64::from(p.triangle_count) - triangles_left,
            p.triangle_count,
            reader.position(),
            p.bit_count
        )));
    }
    Ok(hulls)
}
