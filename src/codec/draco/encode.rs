//! [`encode`]: `draco-core`'s mesh built from [`Vertex`] and [`Face`] records and its
//! encoder run with Roblox's settings; and [`normals_survive`], the prediction whether a
//! round trip gives every normal back bit for bit.

use std::borrow::Cow;

use draco_core::{
    DataType, DecoderBuffer, EncoderBuffer, EncoderOptions, GeometryAttributeType, Mesh,
    MeshDecoder, MeshEncoder, PointAttribute,
};

use super::core::{f32s, fill, find};
use super::normals::canonicalize_normals;
use super::{CONTEXT, ENCODING_METHOD, ENCODING_SPEED, NORMAL_QUANTIZATION_BITS};
use crate::error::{Error, ErrorKind, Result};
use crate::filemesh::raw::records::{Face, Vertex};

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
///
/// The arrays are borrowed (`&[T]`, `&Vec<T>`) or given away (`Vec<T>`). Arrays given
/// away are dropped as soon as `draco-core`'s copy of them is built, before its encoder
/// runs (which, that copy included, takes about 2.4 times the arrays' size), so they are
/// never held beside it.
pub fn encode<'v, 'f>(
    vertices: impl Into<Cow<'v, [Vertex]>>,
    faces: impl Into<Cow<'f, [Face]>>,
) -> Result<Vec<u8>> {
    let (vertices, faces) = (vertices.into(), faces.into());
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
///
/// [`decode`]: super::decode()
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
