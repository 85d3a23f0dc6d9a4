//! [`decode_attributes`]: any Draco mesh, its attributes read by unique id whatever their
//! data type and component count (the decoder of glTF's `KHR_draco_mesh_compression`).

use draco_core::{DataType, PointIndex};

use super::core::run_decoder;
use super::header::Counts;
use super::{invalid, limit_exceeded};
use crate::error::{Limits, Result};

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
