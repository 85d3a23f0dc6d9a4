//! [`decode`]: a stream shaped as Roblox writes them decoded straight into [`Vertex`]
//! records and faces by the in-place walk (`survey/in_place.rs`, the same checks as
//! `draco-core`'s, so the same verdict; nothing is copied out of a decoded mesh); any
//! other stream, and any that walk finds wrong, through `draco-core`'s decoder run within
//! the caller's limits, the five attributes of a Roblox core mesh found by unique id and
//! copied out (following Draco's point → value mapping), with the faces.

use std::borrow::Cow;

use draco_core::{
    DataType, DecodeLimits, DecoderBuffer, Mesh, MeshDecoder, PointAttribute, PointCloud,
    PointIndex,
};

use super::header::{read_header, Counts};
use super::normals::{canonicalize_normals, tail};
use super::survey::decode_in_place;
use super::{
    invalid, limit_exceeded, CONTEXT, FACE_BYTES, UID_COLOR, UID_NORMAL, UID_POSITION, UID_TANGENT,
    UID_UV, VERTEX_BYTES,
};
use crate::error::{Error, ErrorKind, Limits, Result};
use crate::filemesh::raw::records::{Face, Vertex};

/// `draco-core`'s ceilings for our limit: a point costs us 40 bytes, a face 12.
pub(super) fn draco_limits(limits: &Limits) -> DecodeLimits {
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
/// The five attributes are looked up by unique id (see the [module docs](super)) and
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
///
/// The bitstream is borrowed (`&[u8]`, `&Vec<u8>`) or given away (`Vec<u8>`). A stream
/// shaped as Roblox writes them is decoded straight into the arrays (no mesh of
/// `draco-core`'s between), so at most the bitstream, the arrays and one attribute's
/// corrections are held. Through `draco-core`, one given away is dropped as soon as its
/// decoder has read it, before the vertices and faces are copied out of the decoder's
/// mesh, so the bitstream, that mesh and the arrays are never held at once.
///
/// [`encode`]: super::encode()
pub fn decode<'a>(
    bitstream: impl Into<Cow<'a, [u8]>>,
    limits: &Limits,
) -> Result<(Vec<Vertex>, Vec<Face>)> {
    let bitstream = bitstream.into();
    // A stream shaped as Roblox writes them: decoded straight into the arrays.
    if let Some((mut vertices, faces)) = decode_in_place(&bitstream, limits) {
        canonicalize_normals(tail(&bitstream), &mut vertices);
        return Ok((vertices, faces));
    }
    let (mesh, num_points) = decode_mesh(&bitstream, limits)?;
    // Of a bitstream given away, only its end (the normal's parameters) outlives this.
    let tail = match bitstream {
        Cow::Borrowed(b) => Cow::Borrowed(tail(b)),
        Cow::Owned(b) => Cow::Owned(tail(&b).to_vec()),
    };
    arrays_of(mesh, num_points, &tail)
}

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

/// Runs Draco's decoder over a bitstream within `limits`: the mesh and its point count,
/// checked against the limits and the 32-bit face indices, the bitstream read to its end.
pub(super) fn decode_mesh(bitstream: &[u8], limits: &Limits) -> Result<(Mesh, usize)> {
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
pub(super) fn run_decoder(bitstream: &[u8], limits: &Limits) -> Result<(Mesh, usize)> {
    let mut buffer = DecoderBuffer::new(bitstream).with_limits(draco_limits(limits));
    let mut mesh = Mesh::new();
    MeshDecoder::new()
        .decode(&mut buffer, &mut mesh)
        .map_err(|e| from_draco(&e, limits))?;
    Ok((mesh, buffer.position()))
}

/// The five attributes of a Roblox core mesh, in [`Vertex`] order.
pub(super) fn attributes(mesh: &PointCloud) -> Result<[Found<'_>; 5]> {
    Ok([
        find(mesh, UID_POSITION, "position", DataType::Float32, 3)?,
        find(mesh, UID_NORMAL, "normal", DataType::Float32, 3)?,
        find(mesh, UID_UV, "texture coordinate", DataType::Float32, 2)?,
        find(mesh, UID_TANGENT, "tangent", DataType::Uint8, 4)?,
        find(mesh, UID_COLOR, "colour", DataType::Uint8, 4)?,
    ])
}

pub(super) fn face_out_of_range(i: usize, num_points: usize) -> Error {
    invalid(format!(
        "Draco face {i} names a point past the mesh's {num_points} points"
    ))
}

/// One attribute found by unique id, with its layout checked.
pub(super) struct Found<'a> {
    attribute: &'a PointAttribute,
    what: &'static str,
    uid: u32,
}

pub(super) fn find<'a>(
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
pub(super) fn f32s<const N: usize>(bytes: &[u8]) -> [f32; N] {
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
pub(super) fn fill<const B: usize>(
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
pub(super) fn for_each_value<const B: usize>(
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
