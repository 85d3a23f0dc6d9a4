//! Roblox CSGPHS physics (collision) data: the raw, byte-exact layer.
//!
//! Spec: `roblox-csgphs.txt`; FORMAT-NOTES "CSGPHS" (checked on real files):
//! - `CSGPHS` + u32 version;
//! - 0: `BLOCK` (box collision);
//! - 3, 5: hull records to the end of the file;
//! - 6: 40 bytes of physics info, then hulls;
//! - 7: a u8 geometry type, the physics info, then hulls;
//! - 8: a u16, then one zstd frame to the end of the file. The frame is kept as read
//!   (see [`Csgphs::decompress`]).

use binrw::{binrw, BinRead, BinResult, Endian};
use bytemuck::{Pod, Zeroable};
use serde::Serialize;
use std::io::{Read, Seek};

use crate::error::{Error, ErrorKind, Limits, Result};
use crate::io::{count_as, pod_write, read_all, rest_bytes, until_end, write_all, Records};

/// The 6 magic bytes.
pub const MAGIC: &[u8; 6] = b"CSGPHS";

/// A CSGPHS blob.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Csgphs {
    /// The u32 after the magic.
    pub version: u32,
    /// What follows, by version.
    pub body: CsgBody,
}

/// The body of a CSGPHS blob, by version. [`Csgphs::write`] checks that it matches
/// the version.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum CsgBody {
    /// Version 0: `BLOCK` (box collision), then any bytes kept as read.
    Block {
        /// Bytes after `BLOCK` (none in real blobs).
        trailing: Vec<u8>,
    },
    /// Versions 3 and 5: hulls only.
    Hulls(HullList),
    /// Version 6: physics info, then hulls.
    Physics(PhysicsHulls),
    /// Version 7: geometry type, physics info, then hulls.
    Typed(TypedPhysicsHulls),
    /// Version 8: a u16, then a zstd frame.
    Compressed(Compressed),
}

/// `volume`, `cog`, `im_*`: 40 bytes of physics info (versions 6, 7).
#[binrw]
#[brw(little)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable, Serialize)]
#[repr(C)]
pub struct PhysicsInfo {
    /// Unscaled volume.
    pub volume: f32,
    /// Centre of gravity `cog_x, cog_y, cog_z`.
    pub center_of_gravity: [f32; 3],
    /// Inertia tensor `xx, xy, xz, yy, yz, zz` (order per the spec's best guess).
    pub inertia: [f32; 6],
}

/// One convex hull record.
#[binrw]
#[brw(little)]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Hull {
    #[br(temp)]
    #[bw(try_calc = count_as::<u32>(preamble1.len(), "preamble bytes"))]
    preamble1_size: u32,
    /// The first 16-byte block (`trash1`; f32 0, 0, 0, 0 in real files), kept as data.
    #[br(count = u64::from(preamble1_size))]
    pub preamble1: Records<u8>,
    #[br(temp)]
    #[bw(try_calc = count_as::<u32>(preamble2.len(), "preamble bytes"))]
    preamble2_size: u32,
    /// The second 16-byte block (`trash2`; f32 0, 0, 0, 1 in real files), kept as data.
    #[br(count = u64::from(preamble2_size))]
    pub preamble2: Records<u8>,
    #[br(temp)]
    #[bw(try_calc = count_as::<u32>(vertices.len(), "vertex floats"))]
    verts_size: u32,
    #[br(temp, try_map = |w: u32| crate::io::one_of(w, &[4], "vert_width"))]
    #[bw(calc = 4)]
    vert_width: u32,
    /// `verts_size` floats: x, y, z of each vertex.
    #[br(count = u64::from(verts_size))]
    pub vertices: Records<f32>,
    #[br(temp)]
    #[bw(try_calc = count_as::<u32>(indices.len(), "face indices"))]
    faces_size: u32,
    /// `faces_size` vertex indices, three per triangle.
    #[br(count = u64::from(faces_size))]
    pub indices: Records<u32>,
}

impl Hull {
    /// Bytes as written.
    pub fn byte_size(&self) -> usize {
        24 + self.preamble1.len()
            + self.preamble2.len()
            + 4 * self.vertices.len()
            + 4 * self.indices.len()
    }

    /// Number of vertices (`verts_size / 3`).
    pub fn num_vertices(&self) -> usize {
        self.vertices.len() / 3
    }

    /// Number of triangles (`faces_size / 3`).
    pub fn num_faces(&self) -> usize {
        self.indices.len() / 3
    }
}

/// Hull records to the end of the input (a hull cut short is an error).
#[binrw]
#[brw(little)]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct HullList {
    /// The hulls, in order.
    #[br(parse_with = until_end)]
    pub hulls: Vec<Hull>,
}

/// Version 6: physics info, then hulls.
#[binrw]
#[brw(little)]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct PhysicsHulls {
    /// Volume, centre of gravity, inertia.
    pub physics: PhysicsInfo,
    /// The hulls.
    pub hulls: HullList,
}

/// Version 7: a geometry type byte (2 and 3 seen), physics info, then hulls.
#[binrw]
#[brw(little)]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TypedPhysicsHulls {
    /// Geometry type.
    pub geometry_type: u8,
    /// Volume, centre of gravity, inertia.
    pub physics: PhysicsInfo,
    /// The hulls.
    pub hulls: HullList,
}

/// Version 8: a geometry type byte (0, 2, 3 seen, as in version 7), a byte that is 0 in
/// real blobs, and a zstd frame holding a [`V8Payload`], kept as read.
#[binrw]
#[brw(little)]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Compressed {
    /// Geometry type, as in version 7.
    pub geometry_type: u8,
    /// The byte after it (0 in every real blob), kept as data.
    pub reserved: u8,
    /// The zstd frame, to the end of the blob.
    #[br(parse_with = rest_bytes)]
    #[bw(write_with = pod_write)]
    #[serde(serialize_with = "byte_count")]
    pub frame: Vec<u8>,
}

/// The decompressed content of a version 8 blob (layout: `docs/csgphs-v8.md`).
///
/// Hulls that are closed genus-0 surfaces are Edgebreaker-coded: their connectivity is in
/// `bits` ([`super::edgebreaker`]) and their vertices, hull after hull, in `vertices`. Other
/// hulls (open, non-manifold, flat) are stored plainly in `raw_hulls`; the counts at the
/// top describe the coded hulls only.
#[binrw]
#[brw(little)]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct V8Payload {
    /// Number of coded hulls.
    pub hull_count: u32,
    /// Vertices of the coded hulls.
    pub vertex_count: u32,
    /// Triangles of the coded hulls (`2·vertex_count − 4·hull_count`).
    pub triangle_count: u32,
    /// Largest vertex count of one coded hull.
    pub max_hull_vertices: u32,
    /// Largest triangle count of one coded hull.
    pub max_hull_triangles: u32,
    #[br(temp)]
    #[bw(try_calc = count_as::<u32>(raw_hulls.as_ref().map_or(0, RawHulls::byte_size), "raw hull bytes"))]
    raw_block_size: u32,
    /// Number of connectivity bits.
    pub bit_count: u32,
    #[br(temp, try_map = |n: u32| whole_words(n))]
    #[bw(try_calc = count_as::<u32>(bits.len(), "connectivity bytes"))]
    bit_bytes: u32,
    #[br(temp, try_map = |n: u32| multiple_of_12(n))]
    #[bw(try_calc = count_as::<u32>(12 * vertices.len(), "vertex bytes"))]
    vertex_bytes: u32,
    /// Bounding box minimum of `vertices`.
    pub bbox_min: [f32; 3],
    /// Bounding box maximum of `vertices`.
    pub bbox_max: [f32; 3],
    /// Hulls stored plainly, when the block size is not 0.
    #[br(parse_with = raw_block, args(raw_block_size))]
    pub raw_hulls: Option<RawHulls>,
    /// Connectivity bits, packed in 32-bit words: `4·⌈bit_count / 32⌉` bytes in every
    /// real blob and as [`super::edgebreaker::BitWriter`] writes them. A longer buffer
    /// (whole words) is read and written back as it is.
    #[br(count = u64::from(bit_bytes))]
    #[serde(serialize_with = "byte_count")]
    pub bits: Records<u8>,
    /// Vertex positions of the coded hulls.
    #[br(count = u64::from(vertex_bytes / 12))]
    pub vertices: Records<[f32; 3]>,
}

fn whole_words(n: u32) -> std::result::Result<u32, crate::error::Invalid> {
    if n.is_multiple_of(4) {
        Ok(n)
    } else {
        Err(crate::error::Invalid(format!(
            "connectivity byte size {n} is not a multiple of 4 (the bits are stored in 32-bit words)"
        )))
    }
}

fn multiple_of_12(n: u32) -> std::result::Result<u32, crate::error::Invalid> {
    if n.is_multiple_of(12) {
        Ok(n)
    } else {
        Err(crate::error::Invalid(format!(
            "vertex byte size {n} is not a multiple of 12"
        )))
    }
}

/// Hulls stored plainly inside a version 8 payload: per-hull ranges into a flat index
/// array and a flat float array (`[0, end₀, end₁, …]`), indices local to each hull.
#[binrw]
#[brw(little)]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RawHulls {
    #[br(temp)]
    #[bw(try_calc = count_as::<u32>(index_ranges.len(), "raw hull ranges"))]
    index_range_count: u32,
    /// Offsets into `indices`, one more than the hull count.
    #[br(count = u64::from(index_range_count))]
    pub index_ranges: Records<u32>,
    /// Triangle vertex indices, three per triangle.
    #[br(count = u64::from(index_ranges.last().copied().unwrap_or(0)))]
    pub indices: Records<u32>,
    #[br(temp)]
    #[bw(try_calc = count_as::<u32>(position_ranges.len(), "raw hull ranges"))]
    position_range_count: u32,
    /// Offsets into `positions` (in floats), one more than the hull count.
    #[br(count = u64::from(position_range_count))]
    pub position_ranges: Records<u32>,
    /// x, y, z of every vertex.
    #[br(count = u64::from(position_ranges.last().copied().unwrap_or(0)))]
    pub positions: Records<f32>,
}

impl RawHulls {
    /// Bytes as written.
    pub fn byte_size(&self) -> usize {
        8 + 4
            * (self.index_ranges.len()
                + self.indices.len()
                + self.position_ranges.len()
                + self.positions.len())
    }

    /// True when the arrays are as long as the last ranges say (what a reader needs).
    pub fn is_consistent(&self) -> bool {
        let last = |r: &[u32]| r.last().map_or(0, |&x| x as usize);
        last(&self.index_ranges) == self.indices.len()
            && last(&self.position_ranges) == self.positions.len()
    }
}

/// binrw `parse_with`: the raw hull block of `size` bytes (none when 0).
fn raw_block<R: Read + Seek>(
    reader: &mut R,
    endian: Endian,
    (size,): (u32,),
) -> BinResult<Option<RawHulls>> {
    if size == 0 {
        return Ok(None);
    }
    let start = reader.stream_position()?;
    let hulls = RawHulls::read_options(reader, endian, ())?;
    let end = reader.stream_position()?;
    if end - start != u64::from(size) {
        return Err(crate::io::invalid(
            start,
            format!(
                "the raw hull block is {size} bytes, its ranges describe {}",
                end - start
            ),
        ));
    }
    Ok(Some(hulls))
}

/// The zstd level that reproduces Roblox's version 8 frames (with libzstd 1.5.2, any of
/// 16–22 does; see `docs/csgphs-v8.md`).
pub const ZSTD_LEVEL: i32 = 19;

impl V8Payload {
    /// Parses decompressed payload bytes.
    pub fn read_bytes(bytes: &[u8]) -> Result<V8Payload> {
        read_all(bytes, &Limits::default(), ())
    }

    /// The payload bytes.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let cap = 60
            + self.raw_hulls.as_ref().map_or(0, RawHulls::byte_size)
            + self.bits.len()
            + 12 * self.vertices.len();
        if let Some(r) = &self.raw_hulls {
            if !r.is_consistent() {
                return Err(Error::new(
                    "CSGPHS v8 raw hulls",
                    ErrorKind::Inconsistent("the arrays do not match their last ranges".into()),
                ));
            }
        }
        write_all(&[], self, cap, ())
    }

    /// A zstd frame as Roblox writes it: one shot, level [`ZSTD_LEVEL`], content size, no
    /// checksum.
    pub fn compress(&self) -> Result<Vec<u8>> {
        let bytes = self.to_bytes()?;
        let err = |e: std::io::Error| Error::new("CSGPHS zstd frame", ErrorKind::Io(e));
        let mut c = zstd::bulk::Compressor::new(ZSTD_LEVEL).map_err(err)?;
        c.include_checksum(false).map_err(err)?;
        c.include_contentsize(true).map_err(err)?;
        c.compress(&bytes).map_err(err)
    }
}

fn byte_count<S: serde::Serializer>(b: &[u8], s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(&format!("<{} bytes>", b.len()))
}

impl Csgphs {
    /// Reads a CSGPHS blob with the default [`Limits`].
    pub fn read(bytes: &[u8]) -> Result<Csgphs> {
        Self::read_with_limits(bytes, &Limits::default())
    }

    /// Reads a CSGPHS blob.
    pub fn read_with_limits(bytes: &[u8], limits: &Limits) -> Result<Csgphs> {
        limits.check_input(bytes.len())?;
        if !bytes.starts_with(MAGIC) {
            return Err(Error::at(
                0,
                "CSGPHS magic",
                ErrorKind::Invalid("\"CSGPHS\" expected".into()),
            ));
        }
        let version = bytes
            .get(6..10)
            .and_then(|b| <[u8; 4]>::try_from(b).ok())
            .map(u32::from_le_bytes)
            .ok_or_else(|| Error::at(6, "CSGPHS version", ErrorKind::UnexpectedEof))?;
        let rest = bytes.get(10..).unwrap_or_default();
        let shift = |mut e: Error| {
            e.shift(10);
            e
        };
        let body = match version {
            0 => match rest.strip_prefix(b"BLOCK") {
                Some(trailing) => CsgBody::Block {
                    trailing: trailing.to_vec(),
                },
                None => {
                    return Err(Error::at(
                        10,
                        "CSGPHS version 0",
                        ErrorKind::Invalid("\"BLOCK\" expected".into()),
                    ))
                }
            },
            3 | 5 => CsgBody::Hulls(read_all(rest, limits, ()).map_err(shift)?),
            6 => CsgBody::Physics(read_all(rest, limits, ()).map_err(shift)?),
            7 => CsgBody::Typed(read_all(rest, limits, ()).map_err(shift)?),
            8 => CsgBody::Compressed(read_all(rest, limits, ()).map_err(shift)?),
            v => {
                return Err(Error::at(
                    6,
                    "CSGPHS version",
                    ErrorKind::UnsupportedVersion(format!("CSGPHS {v} (known: 0, 3, 5, 6, 7, 8)")),
                ))
            }
        };
        Ok(Csgphs { version, body })
    }

    /// Writes the blob; fails if the body does not fit the version.
    pub fn write(&self) -> Result<Vec<u8>> {
        let mut head = MAGIC.to_vec();
        head.extend_from_slice(&self.version.to_le_bytes());
        let cap = head.len() + self.body_len();
        match (&self.body, self.version) {
            (CsgBody::Block { trailing }, 0) => {
                head.extend_from_slice(b"BLOCK");
                head.extend_from_slice(trailing);
                Ok(head)
            }
            (CsgBody::Hulls(h), 3 | 5) => write_all(&head, h, cap, ()),
            (CsgBody::Physics(h), 6) => write_all(&head, h, cap, ()),
            (CsgBody::Typed(h), 7) => write_all(&head, h, cap, ()),
            (CsgBody::Compressed(c), 8) => write_all(&head, c, cap, ()),
            (_, v) => Err(Error::new(
                "Csgphs",
                ErrorKind::Inconsistent(format!("the body does not match CSGPHS version {v}")),
            )),
        }
    }

    fn body_len(&self) -> usize {
        let hulls = |h: &HullList| h.hulls.iter().map(Hull::byte_size).sum::<usize>();
        match &self.body {
            CsgBody::Block { trailing } => 5 + trailing.len(),
            CsgBody::Hulls(h) => hulls(h),
            CsgBody::Physics(p) => 40 + hulls(&p.hulls),
            CsgBody::Typed(t) => 41 + hulls(&t.hulls),
            CsgBody::Compressed(c) => 2 + c.frame.len(),
        }
    }

    /// The hulls of versions 3–7 (none for 0; for 8 they are inside the zstd frame).
    pub fn hulls(&self) -> &[Hull] {
        match &self.body {
            CsgBody::Hulls(h) => &h.hulls,
            CsgBody::Physics(p) => &p.hulls.hulls,
            CsgBody::Typed(t) => &t.hulls.hulls,
            CsgBody::Block { .. } | CsgBody::Compressed(_) => &[],
        }
    }

    /// The stored physics info (versions 6, 7).
    pub fn physics(&self) -> Option<&PhysicsInfo> {
        match &self.body {
            CsgBody::Physics(p) => Some(&p.physics),
            CsgBody::Typed(t) => Some(&t.physics),
            _ => None,
        }
    }

    /// Version 8: the parsed content of the zstd frame.
    pub fn payload(&self, limits: &Limits) -> Result<Option<V8Payload>> {
        match self.decompress(limits)? {
            Some(bytes) => read_all(&bytes, limits, ())
                .map(Some)
                .map_err(|e: Error| e.within("decompressed CSGPHS v8 payload")),
            None => Ok(None),
        }
    }

    /// Version 8: the decompressed frame, at most `limits.max_decoded_bytes`.
    pub fn decompress(&self, limits: &Limits) -> Result<Option<Vec<u8>>> {
        let CsgBody::Compressed(c) = &self.body else {
            return Ok(None);
        };
        let err = |m: String| Error::at(12, "CSGPHS zstd frame", ErrorKind::Invalid(m));
        let mut decoder =
            zstd::stream::read::Decoder::new(c.frame.as_slice()).map_err(|e| err(e.to_string()))?;
        // The payload's header gives its exact size (60 bytes, the raw hull block, the
        // bitstream and the vertices): nothing beyond it is decoded, and the buffer grows
        // with the data that arrives rather than with what a header claims.
        let mut out = vec![0u8; V8_HEADER_BYTES];
        decoder.read_exact(&mut out).map_err(|e| {
            err(format!(
                "the payload ends inside its {V8_HEADER_BYTES}-byte header ({e})"
            ))
        })?;
        let word = |k: usize| {
            let b: [u8; 4] = out
                .get(4 * k..4 * k + 4)
                .and_then(|b| b.try_into().ok())
                .unwrap_or_default();
            u64::from(u32::from_le_bytes(b))
        };
        // [5] raw hull block, [7] bitstream bytes, [8] vertex bytes.
        let expected = V8_HEADER_BYTES as u64 + word(5) + word(7) + word(8);
        if expected > limits.max_decoded_bytes {
            return Err(Error::at(
                12,
                "CSGPHS zstd frame",
                ErrorKind::LimitExceeded {
                    what: "decompressed CSGPHS data (as its header counts it)",
                    requested: expected,
                    limit: limits.max_decoded_bytes,
                },
            ));
        }
        let announced = zstd::zstd_safe::get_frame_content_size(&c.frame);
        if announced != zstd::zstd_safe::CONTENTSIZE_UNKNOWN && announced != expected {
            return Err(err(format!(
                "the frame announces {announced} bytes, the payload's header counts {expected}"
            )));
        }
        (&mut decoder)
            .take(expected - V8_HEADER_BYTES as u64)
            .read_to_end(&mut out)
            .map_err(|e| err(e.to_string()))?;
        if (out.len() as u64) < expected {
            return Err(err(format!(
                "the payload's header counts {expected} bytes, the frame holds {}",
                out.len()
            )));
        }
        let mut more = [0u8; 1];
        if decoder.read(&mut more).map_err(|e| err(e.to_string()))? != 0 {
            return Err(err(format!(
                "the frame holds more than the {expected} bytes the payload's header counts"
            )));
        }
        Ok(Some(out))
    }
}

/// The fixed start of a version 8 payload: nine u32 counts and sizes, then the bounding
/// box (six f32).
const V8_HEADER_BYTES: usize = 60;

/// True when `bytes` start like a CSGPHS blob.
pub fn looks_like_csgphs(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

/// What `meshcodec info` prints for a CSGPHS blob.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CsgInfo {
    /// Always `"csgphs"`.
    pub format: &'static str,
    /// The version (0, 3, 5, 6, 7, 8).
    pub version: u32,
    /// Number of hulls.
    pub hulls: usize,
    /// Vertices, summed over the hulls.
    pub vertices: usize,
    /// Triangles, summed over the hulls.
    pub faces: usize,
    /// Per hull: vertices and triangles.
    pub hull_counts: Vec<HullCounts>,
    /// Geometry type byte (versions 7 and 8).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub geometry_type: Option<u8>,
    /// Stored physics info (versions 6, 7).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub physics: Option<PhysicsInfo>,
    /// Physics computed from the hulls' geometry ([`physics_from_hulls`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub computed_physics: Option<PhysicsInfo>,
    /// Largest relative difference between stored and computed physics values.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub physics_max_relative_difference: Option<f64>,
    /// Why the hulls could not be decoded, if they could not: the counts are then the
    /// stored ones, and `hull_counts` lists only the hulls stored plainly.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    /// Version 8: sizes and how the hulls are stored.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compressed: Option<CompressedInfo>,
}

/// Vertex and triangle counts of one hull.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct HullCounts {
    /// Vertices.
    pub vertices: usize,
    /// Triangles.
    pub faces: usize,
}

/// Version 8 figures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct CompressedInfo {
    /// The byte after the geometry type.
    pub reserved: u8,
    /// zstd frame bytes.
    pub frame_bytes: usize,
    /// Decompressed bytes.
    pub decompressed_bytes: usize,
    /// Hulls stored plainly (they come first in `hull_counts`).
    pub raw_hulls: usize,
    /// Edgebreaker-coded hulls.
    pub coded_hulls: usize,
    /// Connectivity bits.
    pub connectivity_bits: u32,
}

/// Mass properties of closed, outward-oriented triangle meshes given as (positions,
/// triangles) (density 1), by exact polyhedral integrals: each triangle and the origin form
/// a signed tetrahedron. Triangles with an index out of range are skipped.
///
/// Roblox's convention, checked on a real version 7 blob: volume is the sum of the hull
/// volumes (overlaps counted twice), the centre of gravity is volume-weighted, and the
/// inertia is the tensor about the centre of gravity, `xx, xy, xz, yy, yz, zz`, with
/// off-diagonal entries `I_xy = −∫(x − cx)(y − cy) dV`.
// Fixed 3-element arrays indexed by 0..3 loop counters: no input-dependent index.
#[allow(clippy::indexing_slicing)]
pub fn physics_from_hulls<'a>(
    hulls: impl IntoIterator<Item = (&'a [[f32; 3]], &'a [[u32; 3]])>,
) -> PhysicsInfo {
    let (mut vol, mut first) = (0f64, [0f64; 3]);
    let mut second = [[0f64; 3]; 3];
    for (positions, triangles) in hulls {
        let p = |i: u32| positions.get(i as usize).map(|p| p.map(f64::from));
        for &[i, j, k] in triangles {
            let (Some(a), Some(b), Some(c)) = (p(i), p(j), p(k)) else {
                continue;
            };
            let det = a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0])
                + a[2] * (b[0] * c[1] - b[1] * c[0]);
            let v = det / 6.0;
            vol += v;
            let s = [a[0] + b[0] + c[0], a[1] + b[1] + c[1], a[2] + b[2] + c[2]];
            for i in 0..3 {
                first[i] += v * s[i] / 4.0;
                for j in 0..3 {
                    // ∫ x_i x_j over the tetrahedron (0, a, b, c).
                    second[i][j] +=
                        v / 20.0 * (a[i] * a[j] + b[i] * b[j] + c[i] * c[j] + s[i] * s[j]);
                }
            }
        }
    }
    let cog = if vol != 0.0 {
        first.map(|x| x / vol)
    } else {
        [0.0; 3]
    };
    // Second moments about the centre of gravity.
    let mut c = second;
    for i in 0..3 {
        for j in 0..3 {
            c[i][j] -= vol * cog[i] * cog[j];
        }
    }
    let trace = c[0][0] + c[1][1] + c[2][2];
    let tensor = |i: usize, j: usize| if i == j { trace - c[i][i] } else { -c[i][j] };
    PhysicsInfo {
        volume: vol as f32,
        center_of_gravity: cog.map(|x| x as f32),
        inertia: [
            tensor(0, 0),
            tensor(0, 1),
            tensor(0, 2),
            tensor(1, 1),
            tensor(1, 2),
            tensor(2, 2),
        ]
        .map(|x| x as f32),
    }
}
