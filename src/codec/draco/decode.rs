//! [`decode`]: a stream shaped as Roblox writes them decoded straight into [`Vertex`]
//! records and faces by the in-place walk (`survey/in_place.rs`, the same checks as
//! `draco-core`'s, so the same verdict; nothing is copied out of a decoded mesh); any
//! other stream, and any that walk finds wrong, through `draco-core`'s decoder
//! (`core.rs`), the five attributes copied out of its mesh, with the faces.

use std::borrow::Cow;

use draco_core::Mesh;

use super::core::{attributes, decode_mesh, f32s, face_out_of_range, fill, packed};
use super::normals::{canonicalize_normals, tail};
use super::survey::decode_in_place;
use crate::error::{Limits, Result};
use crate::filemesh::raw::records::{Face, Vertex};

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
/// [`ErrorKind::LimitExceeded`](crate::ErrorKind::LimitExceeded) over the limit, [`ErrorKind::UnexpectedEof`](crate::ErrorKind::UnexpectedEof) inside
/// the header, [`ErrorKind::TrailingData`](crate::ErrorKind::TrailingData) after the mesh, and
/// [`ErrorKind::Invalid`](crate::ErrorKind::Invalid) for anything else wrong (not Draco, a point cloud, a stream
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
