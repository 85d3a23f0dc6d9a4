//! Draco, the compressed mesh of a COREMESH version 2 chunk (FileMesh 7.00), through the
//! pure-Rust [`draco_core`] crate.
//!
//! A COREMESH v2 payload is a `u32` length and then a Draco bitstream. Roblox writes a
//! Draco 2.2 triangle mesh, sequential encoding, no metadata, with five attributes that
//! are found here by **unique id** (not by their position in the stream):
//!
//! | unique id | Draco type | layout | [`Vertex`] field |
//! |---|---|---|---|
//! | 0 | POSITION | f32 × 3 | `position` |
//! | 1 | GENERIC | f32 × 3, quantized to 11 bits | `normal` |
//! | 2 | TEX_COORD | f32 × 2 | `uv` |
//! | 3 | GENERIC | u8 × 4 | `tangent` |
//! | 4 | COLOR | u8 × 4 | `color` |
//!
//! Points come out in Draco point order, which for sequential encoding is the order the
//! vertices were written in: SKINNING envelopes and subset ranges index them directly.
//!
//! [`encode`] uses Roblox's settings ([`ENCODING_METHOD`], [`ENCODING_SPEED`],
//! [`NORMAL_QUANTIZATION_BITS`]); `encode(decode(blob))` gives back `blob` byte for byte
//! for every Roblox blob tried and for every stream [`encode`] writes ([`decode`] makes
//! the dequantized normals canonical for this). Positions, texture coordinates, tangents
//! and colours survive `decode(encode(..))` bit for bit, NaNs and −0 included; normals
//! are within the 11-bit quantization step (see [`normal_tolerance`]), and must be
//! finite.
//!
//! Untrusted input: [`decode`] never panics on a bad or truncated bitstream, and checks
//! the point and face counts of a sequential stream's header against
//! [`Limits::max_decoded_bytes`] before anything is decoded. Other Draco streams (with
//! metadata, or EdgeBreaker-encoded) are bounded by handing the same ceiling to
//! `draco-core`'s own [`DecodeLimits`], and checked again afterwards.

use draco_core::{
    DataType, DecodeLimits, DecoderBuffer, EncoderBuffer, EncoderOptions, GeometryAttributeType,
    Mesh, MeshDecoder, MeshEncoder, PointAttribute, PointCloud, PointIndex,
};

use crate::filemesh::raw::records::{Face, NonFiniteCounts, Vertex};

mod in_place;
use crate::error::{Error, ErrorKind, Limits, Result};

/// The context of every error from this module.
pub const CONTEXT: &str = "COREMESH v2 Draco";

/// Draco encoding method Roblox uses: 0, sequential (keeps the point order).
pub const ENCODING_METHOD: i32 = 0;
/// Draco encoding and decoding speed Roblox uses.
pub const ENCODING_SPEED: i32 = 3;
/// Quantization bits of the normal attribute (unique id 1), the only quantized one.
pub const NORMAL_QUANTIZATION_BITS: u32 = 11;

/// Unique id of the position attribute.
pub const UID_POSITION: u32 = 0;
/// Unique id of the normal attribute (Draco type GENERIC).
pub const UID_NORMAL: u32 = 1;
/// Unique id of the texture-coordinate attribute.
pub const UID_UV: u32 = 2;
/// Unique id of the tangent attribute (Draco type GENERIC, the vertex's four bytes).
pub const UID_TANGENT: u32 = 3;
/// Unique id of the colour attribute.
pub const UID_COLOR: u32 = 4;

/// Bytes that one decoded point costs (a [`Vertex`]).
const VERTEX_BYTES: u64 = std::mem::size_of::<Vertex>() as u64;
/// Bytes that one decoded face costs (a [`Face`]).
const FACE_BYTES: u64 = std::mem::size_of::<Face>() as u64;

/// `DRACO`, the first five bytes of every Draco bitstream.
const MAGIC: &[u8; 5] = b"DRACO";
/// Header flag: the stream carries metadata before the connectivity.
const METADATA_FLAG: u16 = 0x8000;
/// Length of the fixed header: magic, major, minor, geometry type, method, flags.
const HEADER_LEN: usize = 11;

/// The fixed header of a Draco bitstream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// Bitstream major version (2 for Roblox).
    pub major: u8,
    /// Bitstream minor version (2 for Roblox).
    pub minor: u8,
    /// 0 point cloud, 1 triangle mesh.
    pub geometry_type: u8,
    /// 0 sequential, 1 EdgeBreaker.
    pub method: u8,
    /// Header flags (0x8000: metadata present).
    pub flags: u16,
    /// Face and point counts, when the header says them before anything else: a
    /// sequential triangle mesh without metadata. `None` otherwise.
    pub counts: Option<Counts>,
}

/// Face and point counts of a sequential Draco mesh, as its header states them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counts {
    /// Number of faces.
    pub faces: u64,
    /// Number of points (vertices).
    pub points: u64,
}

impl Counts {
    /// Bytes the decoded vertices and faces take (40 per point, 12 per face).
    pub fn decoded_bytes(&self) -> u64 {
        self.points
            .saturating_mul(VERTEX_BYTES)
            .saturating_add(self.faces.saturating_mul(FACE_BYTES))
    }
}

fn invalid_at(offset: u64, message: impl Into<String>) -> Error {
    Error::at(offset, CONTEXT, ErrorKind::Invalid(message.into()))
}

fn invalid(message: impl Into<String>) -> Error {
    Error::new(CONTEXT, ErrorKind::Invalid(message.into()))
}

/// A little reader over the header bytes; every read is checked.
struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Cursor<'_> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N]> {
        let out = self
            .bytes
            .get(self.pos..)
            .and_then(|rest| rest.first_chunk::<N>())
            .copied()
            .ok_or_else(|| Error::at(self.pos as u64, CONTEXT, ErrorKind::UnexpectedEof))?;
        self.pos += N;
        Ok(out)
    }

    fn u8(&mut self) -> Result<u8> {
        Ok(self.take::<1>()?[0])
    }

    /// Draco's unsigned LEB128 varint (at most 64 bits).
    fn varint(&mut self) -> Result<u64> {
        let start = self.pos;
        let mut value = 0u64;
        let mut shift = 0u32;
        loop {
            let byte = self.u8()?;
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
            shift += 7;
            if shift >= 64 {
                return Err(invalid_at(start as u64, "Draco varint longer than 64 bits"));
            }
        }
    }
}

/// Reads the fixed header of a Draco bitstream, and the face and point counts when a
/// sequential mesh states them up front. Cheap: it reads at most 21 bytes.
///
/// Errors if the bitstream is not Draco, is a point cloud, or ends inside the header.
/// Offsets in errors are relative to the start of `bitstream`.
pub fn read_header(bitstream: &[u8]) -> Result<Header> {
    let mut c = Cursor {
        bytes: bitstream,
        pos: 0,
    };
    if bitstream.len() < HEADER_LEN {
        return Err(Error::at(
            bitstream.len() as u64,
            CONTEXT,
            ErrorKind::UnexpectedEof,
        ));
    }
    let magic = c.take::<5>()?;
    if &magic != MAGIC {
        return Err(invalid_at(
            0,
            format!("not a Draco bitstream: starts with {magic:02x?}, not \"DRACO\""),
        ));
    }
    let major = c.u8()?;
    let minor = c.u8()?;
    let geometry_type = c.u8()?;
    let method = c.u8()?;
    let flags = u16::from_le_bytes(c.take::<2>()?);
    match geometry_type {
        1 => {}
        0 => {
            return Err(invalid_at(
                7,
                "the Draco bitstream is a point cloud, not a triangle mesh",
            ))
        }
        t => return Err(invalid_at(7, format!("unknown Draco geometry type {t}"))),
    }
    let counts = if method == 0 && flags & METADATA_FLAG == 0 {
        // Draco 2.2 writes the counts as varints, earlier versions as u32.
        let (faces, points) = if (major, minor) >= (2, 2) {
            (c.varint()?, c.varint()?)
        } else {
            (
                u64::from(u32::from_le_bytes(c.take::<4>()?)),
                u64::from(u32::from_le_bytes(c.take::<4>()?)),
            )
        };
        Some(Counts { faces, points })
    } else {
        None
    };
    Ok(Header {
        major,
        minor,
        geometry_type,
        method,
        flags,
        counts,
    })
}

fn limit_exceeded(requested: u64, limits: &Limits) -> Error {
    Error::new(
        CONTEXT,
        ErrorKind::LimitExceeded {
            what: "decoded Draco mesh",
            requested,
            limit: limits.max_decoded_bytes,
        },
    )
}

/// `draco-core`'s ceilings for our limit: a point costs us 40 bytes, a face 12.
fn draco_limits(limits: &Limits) -> DecodeLimits {
    let max = limits.max_decoded_bytes;
    DecodeLimits::permissive()
        .with_max_points(max / VERTEX_BYTES)
        .with_max_faces(max / FACE_BYTES)
        .with_max_decoded_bytes(max)
}

/// Turns a `draco-core` refusal into our error.
fn from_draco(err: &draco_core::DracoError, limits: &Limits) -> Error {
    if err.kind() == draco_core::ErrorKind::LimitExceeded {
        // "stream decodes {value} {what}, over the caller's ceiling of {ceiling}"
        let requested = err
            .message()
            .strip_prefix("stream decodes ")
            .and_then(|rest| rest.split_once(' '))
            .and_then(|(n, rest)| {
                let n: u64 = n.parse().ok()?;
                Some(if rest.starts_with("points") {
                    n.saturating_mul(VERTEX_BYTES)
                } else if rest.starts_with("faces") {
                    n.saturating_mul(FACE_BYTES)
                } else {
                    n
                })
            });
        if let Some(requested) = requested {
            return limit_exceeded(requested, limits);
        }
    }
    invalid(format!("the Draco decoder refused the bitstream: {err}"))
}

/// Decodes a COREMESH v2 Draco bitstream into vertices (in Draco point order, which is
/// the original vertex order) and faces.
///
/// `limits.max_decoded_bytes` caps the decoded vertices and faces (40 bytes a point,
/// 12 a face); a sequential stream is checked from its header before decoding.
///
/// The five attributes are looked up by unique id (see the [module docs](self)) and
/// must have the layout in that table; their Draco semantic type is not checked, and
/// attributes with other unique ids are ignored. The bitstream must end where the
/// Draco mesh ends.
///
/// Normals are Draco's dequantized values, made canonical so that [`encode`] gives
/// back the same stream: where dequantization lost the sign of a zero minimum or the
/// last bit of the quantization range, the affected values get that sign back or move
/// by at most 64 ulps (far inside the quantization step). This applies when the stream ends
/// with the normal's quantization parameters, as Roblox's do.
///
/// # Errors
///
/// [`ErrorKind::LimitExceeded`] over the limit, [`ErrorKind::UnexpectedEof`] inside
/// the header, [`ErrorKind::TrailingData`] after the mesh, and
/// [`ErrorKind::Invalid`] for anything else wrong (not Draco, a point cloud, a stream
/// the decoder refuses, a missing attribute or one of the wrong layout). Offsets are
/// relative to the start of `bitstream`.
pub fn decode(bitstream: &[u8], limits: &Limits) -> Result<(Vec<Vertex>, Vec<Face>)> {
    let (mesh, num_points) = decode_mesh(bitstream, limits)?;
    arrays_of(mesh, num_points, tail(bitstream))
}

/// [`decode`] of a bitstream the caller gives away: it is dropped as soon as Draco's
/// decoder has read it, before the vertices and faces are copied out of the decoder's
/// mesh, so the bitstream, that mesh and the arrays are never held at once.
///
/// # Errors
///
/// As [`decode`].
pub fn decode_owned(bitstream: Vec<u8>, limits: &Limits) -> Result<(Vec<Vertex>, Vec<Face>)> {
    let (mesh, num_points) = decode_mesh(&bitstream, limits)?;
    let tail = tail(&bitstream).to_vec();
    drop(bitstream);
    arrays_of(mesh, num_points, &tail)
}

/// The end of a bitstream that [`canonicalize_normals`] reads (the normal's quantization
/// parameters in Roblox's streams): its last 17 bytes, or all of a shorter one.
fn tail(bitstream: &[u8]) -> &[u8] {
    let start = bitstream.len().saturating_sub(NORMAL_PARAMETERS_BYTES);
    bitstream.get(start..).unwrap_or(bitstream)
}

/// Bytes of the normal's quantization parameters at the end of Roblox's streams
/// (3 × f32 minimum, f32 range, u8 bits).
const NORMAL_PARAMETERS_BYTES: usize = 17;

/// The vertices and faces of a mesh Draco's decoder gave ([`decode`]), its normals made
/// canonical with the parameters at the end of the bitstream (`tail`).
fn arrays_of(mesh: Mesh, num_points: usize, tail: &[u8]) -> Result<(Vec<Vertex>, Vec<Face>)> {
    // The faces first, so that the decoder's copy of them is gone before the vertices
    // are built (the decoded mesh, its faces and the vertices are never held at once).
    let faces: Vec<Face> = mesh
        .faces()
        .iter()
        .map(|f| Face {
            indices: f.map(|p| p.0),
        })
        .collect();
    let mesh = mesh.into_point_cloud();
    let [position, normal, uv, tangent, color] = attributes(&mesh)?;
    let mut vertices = match (
        packed::<12>(&position, num_points),
        packed::<12>(&normal, num_points),
        packed::<8>(&uv, num_points),
        packed::<4>(&tangent, num_points),
        packed::<4>(&color, num_points),
    ) {
        // Sequential streams: one value a point, in point order. One pass builds each
        // vertex once.
        (Some(p), Some(n), Some(t), Some(g), Some(c)) => p
            .chunks_exact(12)
            .zip(n.chunks_exact(12))
            .zip(t.chunks_exact(8))
            .zip(g.chunks_exact(4))
            .zip(c.chunks_exact(4))
            .map(|((((p, n), t), g), c)| Vertex {
                position: f32s(p),
                normal: f32s(n),
                uv: f32s(t),
                tangent: g.try_into().unwrap_or_default(),
                color: c.try_into().unwrap_or_default(),
            })
            .collect(),
        _ => {
            let mut vertices = vec![Vertex::default(); num_points];
            fill(&position, &mut vertices, |v, b: &[u8; 12]| {
                v.position = f32s(b)
            })?;
            fill(&normal, &mut vertices, |v, b: &[u8; 12]| v.normal = f32s(b))?;
            fill(&uv, &mut vertices, |v, b: &[u8; 8]| v.uv = f32s(b))?;
            fill(&tangent, &mut vertices, |v, b: &[u8; 4]| v.tangent = *b)?;
            fill(&color, &mut vertices, |v, b: &[u8; 4]| v.color = *b)?;
            vertices
        }
    };
    drop(mesh);
    canonicalize_normals(tail, &mut vertices);

    let out_of_range = |f: &Face| f.indices.iter().any(|&p| p as usize >= num_points);
    if let Some(i) = faces.iter().position(out_of_range) {
        return Err(face_out_of_range(i, num_points));
    }
    Ok((vertices, faces))
}

/// What [`survey`] finds in a bitstream without copying its values out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Survey {
    /// Points (vertices) the bitstream decodes to.
    pub points: usize,
    /// Faces.
    pub faces: usize,
    /// Points whose position, normal or texture coordinate has a component that is not
    /// finite.
    pub non_finite: NonFiniteCounts,
}

/// Decodes a bitstream as [`decode`] does, with the same verdict and the same error,
/// but keeps none of its values: the counts, and which values are not finite. `info`
/// and `verify` use it.
///
/// A stream shaped as Roblox writes them is walked where it lies, its symbols drawn a
/// piece at a time from `draco-core`'s own rANS decoder, so nothing the size of the
/// mesh is held (`draco/in_place.rs`). Any other stream, and any stream that walk finds
/// wrong, goes through `draco-core`'s decoder, whose verdict and error it gets, and whose
/// mesh is then read where it lies.
///
/// # Errors
///
/// As [`decode`].
pub fn survey(bitstream: &[u8], limits: &Limits) -> Result<Survey> {
    if let Some(survey) = in_place::survey(bitstream, limits) {
        return Ok(survey);
    }
    decoder_survey(bitstream, limits)
}

/// [`survey`]'s walk of the stream where it lies, without `draco-core`'s mesh: `None`
/// where it leaves the verdict to `draco-core` (any stream not shaped as Roblox writes
/// them, and any it finds wrong). For tests and fuzzing, which compare the two.
#[doc(hidden)]
pub fn survey_in_place(bitstream: &[u8], limits: &Limits) -> Option<Survey> {
    in_place::survey(bitstream, limits)
}

/// [`survey`] through `draco-core`'s decoder and the mesh it builds: for the streams
/// [`in_place`] leaves to it, and what gives every refusal its error.
fn decoder_survey(bitstream: &[u8], limits: &Limits) -> Result<Survey> {
    let (mesh, num_points) = decode_mesh(bitstream, limits)?;
    let faces = mesh.num_faces();
    // `decode` reports a face past the points after the attributes: found now, reported
    // in that order.
    let bad_face = mesh
        .faces()
        .iter()
        .position(|f| f.iter().any(|p| p.0 as usize >= num_points));
    let mesh = mesh.into_point_cloud();
    let [position, normal, uv, tangent, color] = attributes(&mesh)?;
    let mut non_finite = NonFiniteCounts::default();
    let bad = |xs: &[f32]| usize::from(xs.iter().any(|x| !x.is_finite()));
    for_each_value(&position, num_points, |_, b: &[u8; 12]| {
        non_finite.positions += bad(&f32s::<3>(b));
    })?;
    // Canonical normals differ from the decoded ones only in finite values.
    for_each_value(&normal, num_points, |_, b: &[u8; 12]| {
        non_finite.normals += bad(&f32s::<3>(b));
    })?;
    for_each_value(&uv, num_points, |_, b: &[u8; 8]| {
        non_finite.uvs += bad(&f32s::<2>(b));
    })?;
    for_each_value(&tangent, num_points, |_, _: &[u8; 4]| ())?;
    for_each_value(&color, num_points, |_, _: &[u8; 4]| ())?;
    if let Some(i) = bad_face {
        return Err(face_out_of_range(i, num_points));
    }
    Ok(Survey {
        points: num_points,
        faces,
        non_finite,
    })
}

/// Runs Draco's decoder over a bitstream within `limits`: the mesh and its point count,
/// checked against the limits and the 32-bit face indices, the bitstream read to its end.
fn decode_mesh(bitstream: &[u8], limits: &Limits) -> Result<(Mesh, usize)> {
    let header = read_header(bitstream)?;
    if let Some(counts) = header.counts {
        let requested = counts.decoded_bytes();
        if requested > limits.max_decoded_bytes {
            return Err(limit_exceeded(requested, limits));
        }
    }

    let (mesh, consumed) = run_decoder(bitstream, limits)?;
    if consumed < bitstream.len() {
        return Err(Error::at(
            consumed as u64,
            CONTEXT,
            ErrorKind::TrailingData {
                bytes: (bitstream.len() - consumed) as u64,
            },
        ));
    }

    let num_points = mesh.num_points();
    let num_faces = mesh.num_faces();
    let requested = Counts {
        faces: num_faces as u64,
        points: num_points as u64,
    }
    .decoded_bytes();
    if requested > limits.max_decoded_bytes {
        return Err(limit_exceeded(requested, limits));
    }
    if u32::try_from(num_points).is_err() {
        return Err(invalid(format!(
            "{num_points} Draco points do not fit 32-bit face indices"
        )));
    }
    Ok((mesh, num_points))
}

/// Draco's decoder over a bitstream, within `limits`: the mesh, and how many bytes of
/// the bitstream it read.
fn run_decoder(bitstream: &[u8], limits: &Limits) -> Result<(Mesh, usize)> {
    let mut buffer = DecoderBuffer::new(bitstream).with_limits(draco_limits(limits));
    let mut mesh = Mesh::new();
    MeshDecoder::new()
        .decode(&mut buffer, &mut mesh)
        .map_err(|e| from_draco(&e, limits))?;
    Ok((mesh, buffer.position()))
}

/// The five attributes of a Roblox core mesh, in [`Vertex`] order.
fn attributes(mesh: &PointCloud) -> Result<[Found<'_>; 5]> {
    Ok([
        find(mesh, UID_POSITION, "position", DataType::Float32, 3)?,
        find(mesh, UID_NORMAL, "normal", DataType::Float32, 3)?,
        find(mesh, UID_UV, "texture coordinate", DataType::Float32, 2)?,
        find(mesh, UID_TANGENT, "tangent", DataType::Uint8, 4)?,
        find(mesh, UID_COLOR, "colour", DataType::Uint8, 4)?,
    ])
}

fn face_out_of_range(i: usize, num_points: usize) -> Error {
    invalid(format!(
        "Draco face {i} names a point past the mesh's {num_points} points"
    ))
}

/// A Draco mesh as glTF's `KHR_draco_mesh_compression` uses one: the values of the
/// attributes asked for, one row of components per point, and the triangles.
#[derive(Clone, Debug, PartialEq)]
pub struct DecodedAttributes {
    /// Number of points.
    pub points: usize,
    /// Per attribute asked for: components per point and the values (`points ×
    /// components`), integers scaled to [0, 1] or [−1, 1] when asked as normalized.
    pub attributes: Vec<(usize, Vec<f64>)>,
    /// Triangles, as point indices.
    pub faces: Vec<[u32; 3]>,
}

/// Decodes any Draco mesh bitstream within `limits` and reads the attributes with the
/// given unique ids (and whether each is normalized), whatever their data type and
/// component count: the decoder of glTF's `KHR_draco_mesh_compression`.
pub fn decode_attributes(
    bitstream: &[u8],
    wanted: &[(u32, bool)],
    limits: &Limits,
) -> Result<DecodedAttributes> {
    let (mesh, _) = run_decoder(bitstream, limits)?;
    let points = mesh.num_points();
    let requested = Counts {
        faces: mesh.num_faces() as u64,
        points: points as u64,
    }
    .decoded_bytes()
    .saturating_mul((wanted.len() as u64).max(1));
    if requested > limits.max_decoded_bytes {
        return Err(limit_exceeded(requested, limits));
    }
    let mut attributes = Vec::with_capacity(wanted.len());
    for &(uid, normalized) in wanted {
        let a = mesh.attribute_by_unique_id(uid).ok_or_else(|| {
            invalid(format!(
                "the Draco mesh has no attribute with unique id {uid}"
            ))
        })?;
        let n = usize::from(a.num_components());
        let (size, read): (usize, ReadComponent) = match a.data_type() {
            DataType::Float32 => (4, |b, _| f64::from(f32::from_le_bytes(arr(b)))),
            DataType::Uint8 => (1, |b, u| unit(f64::from(arr::<1>(b)[0]), 255.0, u)),
            DataType::Int8 => (1, |b, u| unit(f64::from(arr::<1>(b)[0] as i8), 127.0, u)),
            DataType::Uint16 => (2, |b, u| {
                unit(f64::from(u16::from_le_bytes(arr(b))), 65535.0, u)
            }),
            DataType::Int16 => (2, |b, u| {
                unit(f64::from(i16::from_le_bytes(arr(b))), 32767.0, u)
            }),
            DataType::Uint32 => (4, |b, _| f64::from(u32::from_le_bytes(arr(b)))),
            DataType::Int32 => (4, |b, _| f64::from(i32::from_le_bytes(arr(b)))),
            t => {
                return Err(invalid(format!(
                    "Draco attribute {uid} has data type {t:?}, which glTF cannot hold"
                )))
            }
        };
        let stride = usize::try_from(a.byte_stride()).unwrap_or(0);
        if n == 0 || stride < n * size {
            return Err(invalid(format!(
                "Draco attribute {uid}: {n} components, stride {stride}"
            )));
        }
        let data = a.buffer().data();
        let mut values = Vec::with_capacity(points * n);
        for point in 0..points {
            let index = a.mapped_index(PointIndex(point as u32)).0 as usize;
            let row = (index < a.size())
                .then(|| index.checked_mul(stride))
                .flatten()
                .and_then(|start| data.get(start..start + n * size))
                .ok_or_else(|| {
                    invalid(format!(
                        "Draco attribute {uid} has no value for point {point}"
                    ))
                })?;
            values.extend(row.chunks_exact(size).map(|b| read(b, normalized)));
        }
        attributes.push((n, values));
    }
    let faces: Vec<[u32; 3]> = mesh.faces().iter().map(|f| f.map(|p| p.0)).collect();
    if let Some(i) = faces
        .iter()
        .position(|f| f.iter().any(|&p| p as usize >= points))
    {
        return Err(invalid(format!(
            "Draco face {i} names a point past the mesh's {points} points"
        )));
    }
    Ok(DecodedAttributes {
        points,
        attributes,
        faces,
    })
}

/// Reads one component from its bytes (little-endian), normalized or not.
type ReadComponent = fn(&[u8], bool) -> f64;

/// The first `N` bytes of `b` (zeros where it is shorter).
fn arr<const N: usize>(b: &[u8]) -> [u8; N] {
    let mut out = [0; N];
    for (o, x) in out.iter_mut().zip(b) {
        *o = *x;
    }
    out
}

/// An integer as glTF reads it: scaled to [0, 1] or [−1, 1] when normalized.
fn unit(v: f64, max: f64, normalized: bool) -> f64 {
    if normalized {
        (v / max).max(-1.0)
    } else {
        v
    }
}

/// The quantization parameters Draco stores for the normal attribute: per-component
/// minimum and the range.
struct NormalQuantization {
    min: [f32; 3],
    range: f32,
}

/// In Roblox's streams the normal is the only attribute with transform data, so its
/// quantization parameters (3 × f32 minimum, f32 range, u8 bits) are the last 17 bytes.
/// Returns them when the tail looks like that and agrees with the decoded normals.
fn normal_quantization(bitstream: &[u8], decoded_min: [f32; 3]) -> Option<NormalQuantization> {
    let tail: &[u8; NORMAL_PARAMETERS_BYTES] = bitstream.last_chunk()?;
    let (floats, bits) = tail.split_first_chunk::<16>()?;
    if bits != [NORMAL_QUANTIZATION_BITS as u8] {
        return None;
    }
    let mut f = [0f32; 4];
    for (o, chunk) in f.iter_mut().zip(floats.chunks_exact(4)) {
        *o = f32::from_le_bytes(chunk.try_into().ok()?);
    }
    let [x, y, z, range] = f;
    let min = [x, y, z];
    if !(range.is_finite() && range > 0.0) || min.iter().any(|m| !m.is_finite()) {
        return None;
    }
    // Every dequantized value is min + q·delta with q ≥ 0, and some q is 0: the decoded
    // minimum of each component equals the stored one (up to the sign of zero).
    (decoded_min == min).then_some(NormalQuantization { min, range })
}

/// Per-component minimum and maximum of the normals, computed the way Draco's encoder
/// does (the first value that attains it wins, which matters for −0 against +0).
fn bounds(vertices: &[Vertex]) -> Option<([f32; 3], [f32; 3])> {
    let first = vertices.first()?.normal;
    let (mut lo, mut hi) = (first, first);
    for v in vertices {
        for ((l, h), &x) in lo.iter_mut().zip(hi.iter_mut()).zip(&v.normal) {
            if *l > x {
                *l = x;
            }
            if *h < x {
                *h = x;
            }
        }
    }
    Some((lo, hi))
}

/// The range Draco's encoder computes from the normals: the widest component span, or
/// 1 when every value is the same.
fn encoder_range(vertices: &[Vertex]) -> Option<f32> {
    let (lo, hi) = bounds(vertices)?;
    Some(range_of(lo, hi))
}

/// The range Draco's encoder computes from per-component bounds.
fn range_of(lo: [f32; 3], hi: [f32; 3]) -> f32 {
    let mut range = 0.0f32;
    for (l, h) in lo.iter().zip(hi) {
        let diff = h - l;
        if diff > range {
            range = diff;
        }
    }
    if range == 0.0 {
        1.0
    } else {
        range
    }
}

/// Makes the decoded normals give Draco's encoder back the quantization parameters
/// they were decoded with, so that [`encode`] reproduces the stream byte for byte.
///
/// Dequantization (`q·delta + min`) loses two things: the sign of a zero minimum
/// (`0 + −0 = +0`), and, about once in two thousand meshes, the last bit of the range
/// (`max − min` computed again comes out one ulp off). Values equal to a component's
/// minimum get the minimum's exact bits; the largest values of the component that sets
/// the range move by at most 64 ulps so that `max − min` is the stored range again.
/// Both changes are far inside the quantization step.
///
/// `bitstream` may be only its end ([`tail`]): the parameters are read from there.
fn canonicalize_normals(bitstream: &[u8], vertices: &mut [Vertex]) {
    // One pass over the normals in the usual case; the fixes below are rare.
    let Some((lo, hi)) = bounds(vertices) else {
        return;
    };
    let Some(q) = normal_quantization(bitstream, lo) else {
        return;
    };
    let signs_differ = q
        .min
        .iter()
        .zip(&lo)
        .any(|(a, b)| a.to_bits() != b.to_bits());
    if !signs_differ && range_of(lo, hi) == q.range {
        return;
    }
    for (c, (&min, decoded)) in q.min.iter().zip(&lo).enumerate() {
        if min.to_bits() != decoded.to_bits() {
            for v in vertices.iter_mut() {
                if let Some(x) = v.normal.get_mut(c) {
                    if *x == min {
                        *x = min;
                    }
                }
            }
        }
    }
    if encoder_range(vertices) == Some(q.range) {
        return;
    }
    let Some((lo, hi)) = bounds(vertices) else {
        return;
    };
    let range = q.range;
    // Components whose span came out wider than the range: their largest values (which
    // quantized to the top step) come down to the largest m with m − min ≤ range.
    for (c, (&min, &max)) in lo.iter().zip(&hi).enumerate() {
        if max - min > range {
            if let Some(m) = near(min, range, |m| m - min <= range, true) {
                if may_move(max, m) {
                    replace(vertices, c, max, m);
                }
            }
        }
    }
    if encoder_range(vertices) == Some(range) {
        return;
    }
    // No component spans the range any more: the widest one is moved up to span it.
    let Some((lo, hi)) = bounds(vertices) else {
        return;
    };
    let mut order: Vec<usize> = (0..3).collect();
    let span = |c: &usize| match (hi.get(*c), lo.get(*c)) {
        (Some(h), Some(l)) => h - l,
        _ => 0.0,
    };
    order.sort_by(|a, b| span(b).total_cmp(&span(a)));
    for c in order {
        let (Some(&min), Some(&max)) = (lo.get(c), hi.get(c)) else {
            continue;
        };
        if let Some(m) = near(min, range, |m| m - min == range, false) {
            if !may_move(max, m) {
                continue;
            }
            replace(vertices, c, max, m);
            if encoder_range(vertices) == Some(range) {
                return;
            }
            replace(vertices, c, m, max);
        }
    }
}

/// A float m near `min + range` that satisfies `ok`: the largest of a few dozen
/// neighbours when `largest`, else the nearest.
fn near(min: f32, range: f32, ok: impl Fn(f32) -> bool, largest: bool) -> Option<f32> {
    let m0 = (f64::from(min) + f64::from(range)) as f32;
    let mut found: Option<f32> = None;
    for k in 0..=64i64 {
        for dir in [1i64, -1] {
            let m = step(m0, k * dir);
            if !m.is_finite() || !ok(m) {
                continue;
            }
            if !largest {
                return Some(m);
            }
            if found.is_none_or(|f| m > f) {
                found = Some(m);
            }
        }
    }
    found
}

/// A float's place on a line where neighbouring floats are one apart (−0 and +0 both 0).
fn key(x: f32) -> i64 {
    let bits = x.to_bits();
    if bits & 0x8000_0000 != 0 {
        -i64::from(bits & 0x7fff_ffff)
    } else {
        i64::from(bits)
    }
}

/// The float `k` representable values above (or below, for negative `k`) `x`.
fn step(x: f32, k: i64) -> f32 {
    let key = key(x) + k;
    let bits = if key < 0 {
        0x8000_0000 | u32::try_from(-key).unwrap_or(u32::MAX)
    } else {
        u32::try_from(key).unwrap_or(u32::MAX)
    };
    f32::from_bits(bits)
}

/// Whether canonicalization may move `from` to `to`: both finite, at most 64 ulps
/// apart. Anything farther (an overflowed or damaged stream's values) is left as
/// decoded.
fn may_move(from: f32, to: f32) -> bool {
    from.is_finite() && to.is_finite() && (key(from) - key(to)).abs() <= 64
}

/// Sets every normal component `c` equal to `from` to `to`.
fn replace(vertices: &mut [Vertex], c: usize, from: f32, to: f32) {
    for v in vertices.iter_mut() {
        if let Some(x) = v.normal.get_mut(c) {
            if *x == from {
                *x = to;
            }
        }
    }
}

/// One attribute found by unique id, with its layout checked.
struct Found<'a> {
    attribute: &'a PointAttribute,
    what: &'static str,
    uid: u32,
}

fn find<'a>(
    mesh: &'a PointCloud,
    uid: u32,
    what: &'static str,
    data_type: DataType,
    components: u8,
) -> Result<Found<'a>> {
    let attribute = mesh.attribute_by_unique_id(uid).ok_or_else(|| {
        invalid(format!(
            "the Draco mesh has no attribute with unique id {uid} ({what})"
        ))
    })?;
    if attribute.data_type() != data_type || attribute.num_components() != components {
        return Err(invalid(format!(
            "Draco attribute {uid} ({what}) is {} × {:?}, expected {components} × {data_type:?}",
            attribute.num_components(),
            attribute.data_type(),
        )));
    }
    Ok(Found {
        attribute,
        what,
        uid,
    })
}

/// `N` little-endian floats from the start of `bytes` (zeros past its end).
fn f32s<const N: usize>(bytes: &[u8]) -> [f32; N] {
    let mut out = [0.0; N];
    for (o, chunk) in out.iter_mut().zip(bytes.chunks_exact(4)) {
        if let Ok(chunk) = <[u8; 4]>::try_from(chunk) {
            *o = f32::from_le_bytes(chunk);
        }
    }
    out
}

/// The attribute's values, when they are one a point in point order (identity mapping,
/// tightly packed): the first `n · B` bytes of its buffer.
fn packed<'a, const B: usize>(found: &Found<'a>, n: usize) -> Option<&'a [u8]> {
    let a = found.attribute;
    let data = a.buffer().data();
    (a.is_mapping_identity() && usize::try_from(a.byte_stride()) == Ok(B) && a.size() >= n)
        .then(|| data.get(..n.checked_mul(B)?))
        .flatten()
}

/// Copies one attribute into the vertices, following Draco's point → value mapping.
fn fill<const B: usize>(
    found: &Found<'_>,
    vertices: &mut [Vertex],
    mut set: impl FnMut(&mut Vertex, &[u8; B]),
) -> Result<()> {
    let n = vertices.len();
    for_each_value(found, n, |point, value| {
        if let Some(v) = vertices.get_mut(point) {
            set(v, value);
        }
    })
}

/// Calls `f` with each of the first `n` points and its value of one attribute, following
/// Draco's point → value mapping. Errors, naming the point, where a point has no value.
fn for_each_value<const B: usize>(
    found: &Found<'_>,
    n: usize,
    mut f: impl FnMut(usize, &[u8; B]),
) -> Result<()> {
    let a = found.attribute;
    let stride = usize::try_from(a.byte_stride()).unwrap_or(0);
    let data = a.buffer().data();
    let values = a.size();
    let bad = |point: usize| {
        invalid(format!(
            "Draco attribute {} ({}) has no value for point {point}",
            found.uid, found.what
        ))
    };
    if stride < B {
        return Err(bad(0));
    }
    if let Some(p) = packed::<B>(found, n) {
        for (point, value) in p.chunks_exact(B).enumerate() {
            if let Some(value) = value.first_chunk::<B>() {
                f(point, value);
            }
        }
        return Ok(());
    }
    for point in 0..n {
        let index = a.mapped_index(PointIndex(point as u32)).0 as usize;
        let value = (index < values)
            .then(|| index.checked_mul(stride))
            .flatten()
            .and_then(|start| data.get(start..))
            .and_then(|rest| rest.first_chunk::<B>())
            .ok_or_else(|| bad(point))?;
        f(point, value);
    }
    Ok(())
}

/// Largest error [`decode`]`(`[`encode`]`(..))` can put on a normal component:
/// half a quantization step over the widest component range, plus float rounding.
///
/// Draco quantizes all three components over one range, `max(max_i − min_i)`; for
/// normals in `[-1, 1]` the bound is about 0.000 49.
pub fn normal_tolerance(vertices: &[Vertex]) -> f32 {
    let mut min = [f32::INFINITY; 3];
    let mut max = [f32::NEG_INFINITY; 3];
    for v in vertices {
        for ((lo, hi), x) in min.iter_mut().zip(max.iter_mut()).zip(v.normal) {
            *lo = lo.min(x);
            *hi = hi.max(x);
        }
    }
    let range = min
        .iter()
        .zip(max)
        .map(|(lo, hi)| hi - lo)
        .fold(0.0f32, f32::max);
    let step = range / ((1u32 << NORMAL_QUANTIZATION_BITS) - 1) as f32;
    step * 0.5 * 1.001 + range * f32::EPSILON * 4.0
}

/// A Draco attribute of `components` values of `data_type` per vertex, written straight
/// into its buffer by `write` (one stride-sized chunk a vertex, little endian).
fn attribute(
    kind: GeometryAttributeType,
    components: u8,
    data_type: DataType,
    vertices: &[Vertex],
    write: impl Fn(&mut [u8], &Vertex),
) -> PointAttribute {
    let mut a = PointAttribute::new();
    a.init(kind, components, data_type, false, vertices.len());
    let stride = usize::from(components) * data_type.byte_length();
    for (chunk, v) in a
        .buffer_mut()
        .data_mut()
        .chunks_exact_mut(stride)
        .zip(vertices)
    {
        write(chunk, v);
    }
    a
}

/// Writes floats little endian into `out`.
fn put_f32s(out: &mut [u8], values: &[f32]) {
    for (o, x) in out.chunks_exact_mut(4).zip(values) {
        o.copy_from_slice(&x.to_le_bytes());
    }
}

/// Encodes vertices and faces with Roblox's settings: sequential encoding (the point
/// order is kept), encoding and decoding speed 3, 11-bit quantization of the normal
/// attribute (unique id 1) only. Gives the bytes Roblox writes for the same mesh.
///
/// # Errors
///
/// [`ErrorKind::Inconsistent`] when a face names a vertex that does not exist, there
/// are more vertices than 32-bit indices reach, a normal component is not finite (Draco
/// cannot quantize it), or `draco-core` refuses the mesh.
pub fn encode(vertices: &[Vertex], faces: &[Face]) -> Result<Vec<u8>> {
    let (mesh, options) = prepare(vertices, faces)?;
    run_encoder(mesh, &options)
}

/// [`encode`] of arrays the caller gives away: they are dropped as soon as
/// `draco-core`'s copy of them is built, before its encoder runs (which, that copy
/// included, takes about 2.4 times the arrays' size), so they are never held beside it.
///
/// # Errors
///
/// As [`encode`].
pub fn encode_owned(vertices: Vec<Vertex>, faces: Vec<Face>) -> Result<Vec<u8>> {
    let (mesh, options) = prepare(&vertices, &faces)?;
    drop((vertices, faces));
    run_encoder(mesh, &options)
}

/// [`normals_survive`] of a mesh whose normals take these values, each component's
/// distinct values (by their bits) in the order they first appear (any number of
/// vertices, `distinct` shorter), found from a mesh of as many vertices as the longest
/// list: vertex `i` takes each component's `i`-th value, or its last one.
///
/// The same answer, at the cost of a few thousand vertices: Draco quantizes each value
/// on its own, from each component's minimum and the widest component span (the first
/// value reaching a bound sets it, which matters only for −0 against +0, and the order
/// keeps that); decoding and making canonical map each value on its own, from the same
/// bounds; and the lists have the same values, so the same bounds. A test compares the
/// two on every fixture and corpus mesh and on made-up normals.
pub fn distinct_normals_survive(distinct: &[Vec<f32>; 3]) -> bool {
    let n = distinct.iter().map(Vec::len).max().unwrap_or(0);
    let value = |c: usize, i: usize| {
        distinct
            .get(c)
            .and_then(|d| d.get(i).or(d.last()))
            .copied()
            .unwrap_or(0.0)
    };
    let vertices: Vec<Vertex> = (0..n)
        .map(|i| Vertex {
            normal: [value(0, i), value(1, i), value(2, i)],
            ..Vertex::default()
        })
        .collect();
    normals_survive(&vertices)
}

/// Whether [`decode`]`(`[`encode`]`(vertices, ..))` would give back every normal bit for
/// bit, found from the normals alone: they are encoded as the only attribute of a mesh
/// without faces, with the same settings, and decoded and made canonical as [`decode`]
/// does. The normal attribute is quantized from its own values only, and the other
/// attributes and the faces are kept exactly, so this costs a fraction of the whole
/// round trip. False when anything in it fails (a normal that is not finite, say).
/// A prediction: a caller that relies on it checks the whole round trip's result.
pub fn normals_survive(vertices: &[Vertex]) -> bool {
    let n = vertices.len();
    if n == 0 || u32::try_from(n).is_err() {
        return n == 0;
    }
    let mut mesh = Mesh::new();
    mesh.set_num_points(n);
    let id = mesh.add_attribute(attribute(
        GeometryAttributeType::Generic,
        3,
        DataType::Float32,
        vertices,
        |o, v| put_f32s(o, &v.normal),
    ));
    let mut options = EncoderOptions::new();
    options.set_encoding_method(ENCODING_METHOD);
    options.set_global_int("encoding_speed", ENCODING_SPEED);
    options.set_global_int("decoding_speed", ENCODING_SPEED);
    options.set_attribute_quantization(id, NORMAL_QUANTIZATION_BITS as i32);
    let Ok(stream) = run_encoder(mesh, &options) else {
        return false;
    };
    let mut buffer = DecoderBuffer::new(&stream);
    let mut mesh = Mesh::new();
    if MeshDecoder::new().decode(&mut buffer, &mut mesh).is_err() || mesh.num_points() != n {
        return false;
    }
    let mesh = mesh.into_point_cloud();
    let Ok(normal) = find(&mesh, 0, "normal", DataType::Float32, 3) else {
        return false;
    };
    let mut back = vec![Vertex::default(); n];
    if fill(&normal, &mut back, |v, b: &[u8; 12]| v.normal = f32s(b)).is_err() {
        return false;
    }
    drop(mesh);
    canonicalize_normals(&stream, &mut back);
    back.iter()
        .zip(vertices)
        .all(|(a, b)| a.normal.map(f32::to_bits) == b.normal.map(f32::to_bits))
}

/// `draco-core`'s mesh of the arrays and Roblox's encoder options for it (see [`encode`]).
fn prepare(vertices: &[Vertex], faces: &[Face]) -> Result<(Mesh, EncoderOptions)> {
    let inconsistent = |m: String| Error::new(CONTEXT, ErrorKind::Inconsistent(m));
    let n = vertices.len();
    if u32::try_from(n).is_err() {
        return Err(inconsistent(format!(
            "{n} vertices do not fit Draco's 32-bit point indices"
        )));
    }
    for (i, f) in faces.iter().enumerate() {
        if let Some(bad) = f.indices.iter().find(|&&p| p as usize >= n) {
            return Err(inconsistent(format!(
                "face {i} names vertex {bad} of {n} vertices"
            )));
        }
    }
    if let Some(i) = vertices
        .iter()
        .position(|v| v.normal.iter().any(|x| !x.is_finite()))
    {
        return Err(inconsistent(format!(
            "vertex {i} has a normal component that is not finite, which Draco cannot quantize"
        )));
    }

    let mut mesh = Mesh::new();
    mesh.set_num_points(n);
    // add_attribute gives unique ids 0, 1, 2 … in order: the table in the module docs.
    use GeometryAttributeType as T;
    let ids = [
        mesh.add_attribute(attribute(
            T::Position,
            3,
            DataType::Float32,
            vertices,
            |o, v| put_f32s(o, &v.position),
        )),
        mesh.add_attribute(attribute(
            T::Generic,
            3,
            DataType::Float32,
            vertices,
            |o, v| put_f32s(o, &v.normal),
        )),
        mesh.add_attribute(attribute(
            T::TexCoord,
            2,
            DataType::Float32,
            vertices,
            |o, v| put_f32s(o, &v.uv),
        )),
        mesh.add_attribute(attribute(
            T::Generic,
            4,
            DataType::Uint8,
            vertices,
            |o, v| o.copy_from_slice(&v.tangent),
        )),
        mesh.add_attribute(attribute(T::Color, 4, DataType::Uint8, vertices, |o, v| {
            o.copy_from_slice(&v.color)
        })),
    ];
    debug_assert_eq!(ids, [0, 1, 2, 3, 4]);
    mesh.set_num_faces(faces.len());
    mesh.set_faces_from_flat_indices(bytemuck::cast_slice::<Face, u32>(faces));

    let mut options = EncoderOptions::new();
    options.set_encoding_method(ENCODING_METHOD);
    options.set_global_int("encoding_speed", ENCODING_SPEED);
    options.set_global_int("decoding_speed", ENCODING_SPEED);
    if n > 0 {
        // Draco cannot compute quantization parameters for an empty attribute; a mesh
        // without vertices has nothing to quantize.
        options.set_attribute_quantization(ids[1], NORMAL_QUANTIZATION_BITS as i32);
    }
    Ok((mesh, options))
}

/// Runs `draco-core`'s encoder on a mesh [`prepare`]d.
fn run_encoder(mesh: Mesh, options: &EncoderOptions) -> Result<Vec<u8>> {
    let inconsistent = |m: String| Error::new(CONTEXT, ErrorKind::Inconsistent(m));
    let mut encoder = MeshEncoder::new();
    encoder.set_mesh(mesh);
    let mut out = EncoderBuffer::new();
    encoder
        .encode(options, &mut out)
        .map_err(|e| inconsistent(format!("the Draco encoder refused the mesh: {e}")))?;
    // The encoder holds a copy of the mesh: gone before the bitstream is copied out.
    drop(encoder);
    Ok(out.data().to_vec())
}
