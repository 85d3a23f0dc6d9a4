//! `draco-core`'s decoder run within the caller's limits, and reading its mesh: the
//! five attributes of a Roblox core mesh found by unique id (following Draco's point →
//! value mapping) and copied into [`Vertex`] fields. Used by [`decode`](super::decode())
//! for streams the in-place walk does not take, and by the survey to compare with it.

use draco_core::{
    DataType, DecodeLimits, DecoderBuffer, Mesh, MeshDecoder, PointAttribute, PointCloud,
    PointIndex,
};

use super::header::{read_header, Counts};
use super::{
    invalid, limit_exceeded, CONTEXT, FACE_BYTES, UID_COLOR, UID_NORMAL, UID_POSITION, UID_TANGENT,
    UID_UV, VERTEX_BYTES,
};
use crate::error::{Error, ErrorKind, Limits, Result};
use crate::filemesh::raw::records::Vertex;

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
pub(super) fn packed<'a, const B: usize>(found: &Found<'a>, n: usize) -> Option<&'a [u8]> {
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
