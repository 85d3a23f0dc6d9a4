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
//! made by another compressor is listed. `tests/csg_model.rs` checks this property.

use std::borrow::Cow;

use serde::Serialize;

use super::edgebreaker::{encode_hull, word_bytes, BitReader, BitWriter, Encoded, HullDecoder};
use super::raw::{
    physics_from_hulls, Compressed, CompressedInfo, CsgBody, CsgInfo, Csgphs, Hull, HullCounts,
    HullList, PhysicsHulls, PhysicsInfo, RawHulls, TypedPhysicsHulls, V8Payload,
};
use crate::error::{Error, ErrorKind, Limits, Result};
use crate::loss::{Loss, LossKind};

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

    /// What writing this model as CSGPHS `target` would lose (empty: nothing): exactly the
    /// changes that reading the written blob back would show (see the module docs).
    pub fn losses(&self, target: u32) -> Vec<Loss> {
        let mut out = Vec::new();
        if !CSGPHS_VERSIONS.contains(&target) {
            return out;
        }
        let mut loss = |kind, detail: String| out.push(Loss { kind, detail });
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

    /// Writes the model as CSGPHS `version` (see the module docs for the defaults and what
    /// is reused from the source). Fails for unknown versions and hulls with out-of-range
    /// indices; check [`CsgMesh::losses`] first.
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
    fn v8_written(&self) -> Result<(V8Payload, Carried<'_>)> {
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
enum Carried<'a> {
    /// The source's, which still describes the hulls (its frame goes with it).
    Reused(&'a V8Encoding),
    /// Encoded afresh by this plan.
    Fresh(V8Plan),
}

fn physics_from(hulls: &[CsgHull]) -> PhysicsInfo {
    physics_from_hulls(hulls.iter().map(|h| (&h.positions[..], &h.triangles[..])))
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

/// A version 8 payload for `hulls`, encoded afresh; hulls equal to one of `keep_raw` are
/// stored plainly.
fn fresh_v8(hulls: &[CsgHull], keep_raw: &[CsgHull]) -> Result<(V8Payload, V8Plan)> {
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
                true => Err(super::edgebreaker::NotCodable::TooSmall),
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
