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
//!
//! # Carried layout: one mechanism
//!
//! A blob makes choices that its values do not determine: the zstd frame (compressor and
//! settings), the version 8 payload (buffer sizes, padding, which hulls are stored plainly,
//! header fields), the physics info Roblox computed with its own rounding, the reserved
//! byte, the bytes after `BLOCK`. Reading keeps each in [`CsgMesh::layout`]
//! ([`CsgLayout`]), and writing follows one rule for all of them:
//!
//! > a carried choice is reused as long as it still describes the model's data
//! > ([`Carry::describes`]); otherwise the writer derives that part afresh.
//!
//! The data a choice encodes is the hull geometry (positions and triangles, in order, bit
//! for bit). The version 8 payload describes the hulls when it decodes to them; the stored
//! physics info when the hulls are those it was read with. So an unedited model writes its
//! source blob again byte for byte, and editing one vertex gives a fresh payload, a fresh
//! zstd frame and fresh physics info, while the reserved byte and the geometry type are
//! kept. At a finer grain, a hull the source stored plainly stays plain while it is
//! unchanged, even when the rest of the payload is encoded afresh. Physics info that you
//! set yourself (a value other than the one read) is data, and always written.
//!
//! # Losses
//!
//! [`CsgMesh::losses`] lists a loss exactly when converting to the target and reading the
//! result back gives a model that differs: in `block`, or in the bytes it writes for any
//! version. Layout that the target cannot hold counts only when the writer would not
//! derive it again: the frame of a real version 8 blob is what `meshcodec` compresses
//! anyway, so going to 7 and back to 8 gives the same bytes and nothing is listed; a frame
//! made by another compressor is listed. `tests/formats/csg_model.rs` checks this property.
//!
//! # Rooms
//!
//! This file holds the model, the carried layout and reading; writing any version is in
//! `write`, the loss report in `losses`, and `meshcodec info`'s summary in `info`.

use serde::Serialize;

use super::edgebreaker::{BitReader, HullDecoder};
use super::raw::{physics_from_hulls, CsgBody, Csgphs, Hull, HullList, PhysicsInfo, V8Payload};
use crate::error::{Error, ErrorKind, Limits, Result};

mod info;
mod losses;
mod write;

/// The CSGPHS versions this crate reads and writes.
pub const CSGPHS_VERSIONS: [u32; 6] = [0, 3, 5, 6, 7, 8];

/// Geometry type written to versions 7 and 8 when the source has none. Real blobs hold 0, 2
/// and 3; what the values mean is not known.
pub const DEFAULT_GEOMETRY_TYPE: u8 = 0;

/// Relative difference below which `meshcodec info` says the stored physics info agrees
/// with the geometry (real blobs agree to about 1e-7). The loss report compares bits.
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
    /// Physics info as stored (versions 6 and 7). Written to 6 and 7 unless it is the
    /// value read and the hulls changed since ([`CsgMesh::effective_physics`]).
    pub physics: Option<PhysicsInfo>,
    /// The convex hulls.
    pub hulls: Vec<CsgHull>,
    /// How the source encoded what the format leaves open (see the module docs).
    #[serde(skip)]
    pub layout: CsgLayout,
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

/// A choice carried from the source blob (see the module docs).
pub trait Carry {
    /// True while the choice still encodes `hulls`, so that writing may reuse it.
    fn describes(&self, hulls: &[CsgHull]) -> bool;
}

/// What a source blob chose where the format leaves a choice open, kept by
/// [`CsgMesh::from_csgphs`] and reused by [`CsgMesh::to_csgphs`] while it still describes
/// the model's data. A model built in memory has the default: nothing carried.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CsgLayout {
    /// The version read (`None`: built in memory).
    pub version: Option<u32>,
    /// Bytes after `BLOCK` (version 0; none in real blobs), written back to version 0.
    pub block_trailing: Vec<u8>,
    /// The byte after the geometry type (version 8; 0 in real blobs), written back to
    /// version 8.
    pub reserved: Option<u8>,
    /// The physics info as a version 6 or 7 blob stored it.
    pub physics: Option<StoredPhysics>,
    /// The payload and zstd frame of a version 8 blob.
    pub v8: Option<V8Encoding>,
}

impl CsgLayout {
    fn reused<'a, C: Carry>(choice: Option<&'a C>, hulls: &[CsgHull]) -> Option<&'a C> {
        choice.filter(|c| c.describes(hulls))
    }
}

/// Physics info as stored, with the hulls it was stored for.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredPhysics {
    value: PhysicsInfo,
    hulls: Vec<CsgHull>,
}

impl StoredPhysics {
    /// `value`, stored for `hulls`.
    pub fn new(value: PhysicsInfo, hulls: &[CsgHull]) -> Self {
        StoredPhysics {
            value,
            hulls: hulls.to_vec(),
        }
    }

    /// The value as stored.
    pub fn value(&self) -> PhysicsInfo {
        self.value
    }
}

impl Carry for StoredPhysics {
    fn describes(&self, hulls: &[CsgHull]) -> bool {
        same_geometry(&self.hulls, hulls)
    }
}

/// A version 8 blob's payload and the zstd frame that holds it, as read.
#[derive(Clone, Debug, PartialEq)]
pub struct V8Encoding {
    payload: V8Payload,
    frame: Vec<u8>,
}

impl V8Encoding {
    /// The decompressed payload.
    pub fn payload(&self) -> &V8Payload {
        &self.payload
    }

    /// The zstd frame (its content is [`V8Encoding::payload`]).
    pub fn frame(&self) -> &[u8] {
        &self.frame
    }

    /// The hulls the source stored plainly (the payload's raw block).
    fn raw_hulls(&self) -> Vec<CsgHull> {
        raw_hulls_of(&self.payload).unwrap_or_default()
    }
}

impl Carry for V8Encoding {
    fn describes(&self, hulls: &[CsgHull]) -> bool {
        self.payload
            .hulls()
            .is_ok_and(|decoded| same_geometry(&decoded, hulls))
    }
}

/// Same hull count, and per hull the same positions (bit for bit) and triangles.
fn same_geometry(a: &[CsgHull], b: &[CsgHull]) -> bool {
    let bits = |p: &[[f32; 3]]| p.iter().flatten().map(|x| x.to_bits()).collect::<Vec<_>>();
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.triangles == y.triangles
                && x.positions.len() == y.positions.len()
                && bits(&x.positions) == bits(&y.positions)
        })
}

/// The same 40 bytes.
fn same_physics(a: &PhysicsInfo, b: &PhysicsInfo) -> bool {
    bytemuck::bytes_of(a) == bytemuck::bytes_of(b)
}

/// Largest difference between two physics infos relative to the largest magnitude of `a`.
fn relative_difference(a: &PhysicsInfo, b: &PhysicsInfo) -> f64 {
    let values = |p: &PhysicsInfo| {
        [p.volume]
            .into_iter()
            .chain(p.center_of_gravity)
            .chain(p.inertia)
            .map(f64::from)
            .collect::<Vec<f64>>()
    };
    let (a, b) = (values(a), values(b));
    let scale = a.iter().fold(0f64, |m, x| m.max(x.abs())).max(1e-30);
    a.iter()
        .zip(&b)
        .map(|(x, y)| (x - y).abs() / scale)
        .fold(0f64, f64::max)
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
            preamble1: self.preambles[0].clone().into(),
            preamble2: self.preambles[1].clone().into(),
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
            preambles: [h.preamble1.clone().into(), h.preamble2.clone().into()],
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

    /// The model of a raw blob (decompresses and decodes version 8 within `limits`),
    /// with the source's layout in [`CsgMesh::layout`].
    pub fn from_csgphs(c: &Csgphs, limits: &Limits) -> Result<CsgMesh> {
        let from_records = |hulls: &HullList| -> Result<Vec<CsgHull>> {
            hulls
                .hulls
                .iter()
                .enumerate()
                .map(|(i, h)| CsgHull::from_record(i, h))
                .collect()
        };
        let layout = CsgLayout {
            version: Some(c.version),
            ..CsgLayout::default()
        };
        let with_physics = |physics: PhysicsInfo, hulls: Vec<CsgHull>, geometry_type| CsgMesh {
            geometry_type,
            physics: Some(physics),
            layout: CsgLayout {
                physics: Some(StoredPhysics::new(physics, &hulls)),
                ..layout.clone()
            },
            hulls,
            block: false,
        };
        Ok(match &c.body {
            CsgBody::Block { trailing } => CsgMesh {
                block: true,
                layout: CsgLayout {
                    block_trailing: trailing.clone(),
                    ..layout
                },
                ..CsgMesh::default()
            },
            CsgBody::Hulls(h) => CsgMesh {
                hulls: from_records(h)?,
                layout,
                ..CsgMesh::default()
            },
            CsgBody::Physics(p) => with_physics(p.physics, from_records(&p.hulls)?, None),
            CsgBody::Typed(t) => {
                with_physics(t.physics, from_records(&t.hulls)?, Some(t.geometry_type))
            }
            CsgBody::Compressed(z) => {
                let payload = c.payload(limits)?.ok_or_else(|| {
                    Error::new("CSGPHS v8", ErrorKind::Inconsistent("no payload".into()))
                })?;
                CsgMesh {
                    geometry_type: Some(z.geometry_type),
                    hulls: payload.hulls()?,
                    layout: CsgLayout {
                        reserved: Some(z.reserved),
                        v8: Some(V8Encoding {
                            payload,
                            frame: z.frame.clone(),
                        }),
                        ..layout
                    },
                    ..CsgMesh::default()
                }
            }
        })
    }

    /// Physics info computed from the hulls.
    pub fn computed_physics(&self) -> PhysicsInfo {
        physics_from(&self.hulls)
    }

    /// The physics info versions 6 and 7 get: [`CsgMesh::physics`], unless it is the value
    /// read from the source and the hulls have changed since (then it no longer describes
    /// them); otherwise, and when there is none, [`CsgMesh::computed_physics`].
    pub fn effective_physics(&self) -> PhysicsInfo {
        match (self.physics, &self.layout.physics) {
            (Some(p), Some(s)) if same_physics(&p, &s.value) && !s.describes(&self.hulls) => {
                self.computed_physics()
            }
            (Some(p), _) => p,
            (None, _) => self.computed_physics(),
        }
    }

    /// Largest relative difference between the stored and the computed physics info
    /// (relative to the largest stored magnitude), if physics info is stored.
    pub fn physics_difference(&self) -> Option<f64> {
        Some(relative_difference(
            &self.physics?,
            &self.computed_physics(),
        ))
    }
}

fn physics_from(hulls: &[CsgHull]) -> PhysicsInfo {
    physics_from_hulls(hulls.iter().map(|h| (&h.positions[..], &h.triangles[..])))
}

impl V8Payload {
    /// The hulls: raw ones first, then the Edgebreaker-coded ones, decoded. Fails when
    /// the connectivity bits, the counts and the vertex array do not fit together.
    pub fn hulls(&self) -> Result<Vec<CsgHull>> {
        hulls_from_payload(self)
    }
}

/// The hulls of the raw block.
fn raw_hulls_of(p: &V8Payload) -> Result<Vec<CsgHull>> {
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
    Ok(hulls)
}

fn hulls_from_payload(p: &V8Payload) -> Result<Vec<CsgHull>> {
    let mut hulls = raw_hulls_of(p)?;
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
