//! [`survey`] without `draco-core`'s mesh: a Roblox-shaped Draco stream
//! walked where it lies, for `info` and `verify`; and the same walk writing the values
//! straight into the vertices and faces, for [`decode`] (`decode` here).
//!
//! Checking a bitstream means decoding it, and `draco-core`'s decoder builds the whole
//! mesh (40 bytes a point, 12 a face: 80 MB for the 58 MB bench file) beside the file.
//! This walk reads the same stream with the same decisions and keeps nothing but a
//! buffer of 64 Ki symbols:
//!
//! - the header, connectivity and attribute descriptions are read with `draco-core`'s
//!   own [`DecoderBuffer`], in the order and with the checks of its sequential mesh
//!   decoder (`mesh_decoder.rs`, `sequential_*_attribute_decoder.rs`);
//! - entropy-coded symbols are drawn from `draco-core`'s own [`RAnsSymbolDecoder`] in
//!   pieces (`decode_run`, which its decoder also calls piece by piece), and raw face
//!   indices and raw values are checked or counted in place;
//! - a float attribute's non-finite values are counted where they lie; a quantized one's
//!   are known from its parameters alone unless its range could overflow, and then its
//!   values are decoded again, now knowing them.
//!
//! The walk answers only when it is sure of `draco-core`'s verdict. It takes the shape
//! Roblox writes (Draco 2.2, sequential, no metadata, the five attributes with the
//! layouts [`decode`] requires, each once, and any others, as the reference
//! encoder's own position; generic, integer or quantized values; difference prediction
//! or none), and gives up (`None`) on anything else and on
//! anything wrong. It keeps `draco-core`'s allocation budget as that does ([`Budget`]):
//! a constant attribute's symbols carry no payload and are charged to it.
//! The caller then runs `draco-core`, which gives the verdict and the error. A
//! disagreement would be a stream this walk accepts and `draco-core` refuses; the tests
//! (`tests/formats/draco.rs`, `survey_in_place_answers_roblox_streams_as_draco_core_does`)
//! compare the two on about 100,000 damaged streams, the `draco` fuzz target does the
//! same on mutated ones, and the `filemesh` one compares `verify` with reading.
//!
//! The checks mirrored are `draco-core` 2.3's (the version in `Cargo.lock`); a newer
//! `draco-core` may check more, and must pass that comparison before it is taken.
//!
//! [`survey`]: super::survey
//! [`decode`]: crate::codec::draco::decode()

use draco_core::rans_symbol_coding::compute_rans_precision_from_unique_symbols_bit_length;
use draco_core::rans_symbol_decoder::RAnsSymbolDecoder;
use draco_core::DecoderBuffer;

use super::Survey;
use crate::codec::draco::core::draco_limits;
use crate::codec::draco::header::read_header;
use crate::codec::draco::{
    FACE_BYTES, UID_COLOR, UID_NORMAL, UID_POSITION, UID_TANGENT, UID_UV, VERTEX_BYTES,
};
use crate::error::Limits;
use crate::filemesh::raw::records::{Face, NonFiniteCounts, Vertex};

/// Symbols decoded at a time.
const PIECE: usize = 1 << 16;

/// Draco's attribute data types that a Roblox mesh uses.
const DT_UINT8: u8 = 2;
const DT_FLOAT32: u8 = 9;

/// The layouts [`attributes`] requires, by unique id: data type, components.
///
/// [`attributes`]: crate::codec::draco::core::attributes
const LAYOUTS: [(u8, u8); 5] = [
    (DT_FLOAT32, 3),
    (DT_FLOAT32, 3),
    (DT_FLOAT32, 2),
    (DT_UINT8, 4),
    (DT_UINT8, 4),
];

/// `draco-core`'s allocation budget for one decode (`DecoderBuffer`'s `charge_unbacked`):
/// symbols no coded byte backs are drawn first from the attribute values the caller's
/// limits admitted, and the rest, at 4 bytes each, may reach neither 256 MiB nor 2^20
/// bytes per byte of the stream.
struct Budget {
    stream_len: usize,
    admitted_values: usize,
    spent: usize,
}

impl Budget {
    fn charge_unbacked(&mut self, count: usize) -> Option<()> {
        let admitted = count.min(self.admitted_values);
        let total = self
            .spent
            .saturating_add((count - admitted).saturating_mul(4));
        if total > 256 << 20 || total / (1 << 20) > self.stream_len {
            return None;
        }
        self.spent = total;
        self.admitted_values -= admitted;
        Some(())
    }
}

/// One attribute as its descriptor and decoder type state it.
#[derive(Clone, Copy)]
struct Attribute {
    uid: u32,
    data_type: u8,
    components: u8,
    decoder: u8,
}

/// Where a quantized attribute's values start, and what pass one learnt of them.
struct Quantized {
    uid: u32,
    components: usize,
    start: usize,
    /// The wrap transform's bounds (`None` without prediction).
    wrap: Option<Wrap>,
    /// Dequantization: each component's minimum, and the step (read after every
    /// attribute's values).
    min: Vec<f32>,
    delta: f32,
}

/// The stream's header and counts read as `draco-core` reads them, for a stream shaped as
/// Roblox writes them: the buffer after the counts, the budget, and the face and point
/// counts.
fn open<'a>(
    bitstream: &'a [u8],
    limits: &Limits,
) -> Option<(DecoderBuffer<'a>, Budget, usize, usize)> {
    let header = read_header(bitstream).ok()?;
    let counts = header.counts?;
    if (header.major, header.minor) != (2, 2) || header.flags != 0 || header.method != 0 {
        return None;
    }
    if counts.decoded_bytes() > limits.max_decoded_bytes {
        return None;
    }
    let mut buffer = DecoderBuffer::new(bitstream).with_limits(draco_limits(limits));
    buffer.set_version(2, 2);
    // Magic, version, geometry type, method, flags: read by `read_header`.
    buffer.try_advance(11).ok()?;
    let num_faces = usize::try_from(buffer.decode_varint().ok()?).ok()?;
    let num_points = usize::try_from(buffer.decode_varint().ok()?).ok()?;
    if (num_faces as u64, num_points as u64) != (counts.faces, counts.points)
        || u32::try_from(num_points).is_err()
    {
        return None;
    }
    let budget = Budget {
        stream_len: bitstream.len(),
        admitted_values: 0,
        spent: 0,
    };
    Some((buffer, budget, num_faces, num_points))
}

/// The survey of a bitstream, or `None` where `draco-core` must decide.
pub(super) fn survey(bitstream: &[u8], limits: &Limits) -> Option<Survey> {
    let (mut buffer, mut budget, num_faces, num_points) = open(bitstream, limits)?;
    connectivity(
        &mut buffer,
        &mut budget,
        num_faces,
        num_points,
        limits,
        None,
    )?;

    let attributes = descriptions(&mut buffer, &mut budget, num_points, limits)?;
    let mut non_finite = NonFiniteCounts::default();
    let mut quantized = Vec::new();
    for a in &attributes {
        let components = usize::from(a.components);
        match a.decoder {
            0 => {
                let width = data_type_width(a.data_type)?;
                let len = num_points.checked_mul(components)?.checked_mul(width)?;
                let bytes = buffer.decode_slice(len).ok()?;
                if let Some(slot) = slot(&mut non_finite, a.uid) {
                    *slot += non_finite_floats(bytes, components * 4);
                }
            }
            // Integer values (int8 … uint32: what draco-core stores them as).
            1 if (1..=6).contains(&a.data_type) => {
                integer_values(&mut buffer, &mut budget, num_points, components, None, None)?;
            }
            2 if a.data_type == DT_FLOAT32 => {
                let start = buffer.position();
                let wrap =
                    integer_values(&mut buffer, &mut budget, num_points, components, None, None)?;
                quantized.push(Quantized {
                    uid: a.uid,
                    components,
                    start,
                    wrap,
                    min: Vec::new(),
                    delta: 0.0,
                });
            }
            _ => return None,
        }
    }
    // The quantization parameters follow every attribute's values, in attribute order.
    for q in &mut quantized {
        for _ in 0..q.components {
            q.min.push(buffer.decode::<f32>().ok()?);
        }
        let range = buffer.decode::<f32>().ok()?;
        let bits = buffer.decode_u8().ok()?;
        if !(1..=30).contains(&bits) {
            return None;
        }
        let max_quantized = ((1u32 << bits) - 1) as i32;
        q.delta = range / max_quantized as f32;
    }
    // `decode` refuses bytes after the mesh.
    if buffer.position() != bitstream.len() {
        return None;
    }
    for q in &quantized {
        if slot(&mut non_finite, q.uid).is_none() {
            continue;
        }
        let (min, delta) = (&q.min, q.delta);
        let count = if always_finite(min, delta) {
            0
        } else {
            // Pass two: the values again, now that their parameters are known.
            let mut again = DecoderBuffer::new(bitstream).with_limits(draco_limits(limits));
            again.set_version(2, 2);
            again.set_position(q.start).ok()?;
            let mut count = 0;
            let mut count_point = |entry: &[i32]| {
                let bad = entry
                    .iter()
                    .zip(min)
                    .any(|(&v, &m)| !(v as f32 * delta + m).is_finite());
                count += usize::from(bad);
            };
            // Its charges were made, and allowed, in pass one.
            let mut unlimited = Budget {
                stream_len: usize::MAX,
                admitted_values: usize::MAX,
                spent: 0,
            };
            integer_values(
                &mut again,
                &mut unlimited,
                num_points,
                q.components,
                Some((q.wrap, &mut count_point)),
                None,
            )?;
            count
        };
        *slot(&mut non_finite, q.uid)? += count;
    }
    Some(Survey {
        points: num_points,
        faces: num_faces,
        non_finite,
    })
}

/// [`decode`] of a stream shaped as Roblox writes them, walked as [`survey`] walks it
/// (the same checks, so the same verdict) with the values written straight into the
/// vertices and faces instead of into `draco-core`'s mesh and then copied: raw values
/// (positions, texture coordinates) go from the stream to their field, integer and
/// quantized values are rebuilt from their corrections into their field (a quantized
/// value's integer held in its `f32`'s bits until the parameters after the last
/// attribute dequantize it, as `draco-core` does: `q · delta + min`). `None` where
/// `draco-core` must decide, and where the arrays would be more than 8 times the
/// stream (only what the stream backs is allocated ahead; `draco-core` then decides
/// with its own budget). The normals are left as dequantized (the caller makes them
/// canonical).
///
/// [`decode`]: crate::codec::draco::decode()
pub(in crate::codec::draco) fn decode(
    bitstream: &[u8],
    limits: &Limits,
) -> Option<(Vec<Vertex>, Vec<Face>)> {
    let (mut buffer, mut budget, num_faces, num_points) = open(bitstream, limits)?;
    let arrays = (num_points as u64)
        .checked_mul(VERTEX_BYTES)?
        .checked_add((num_faces as u64).checked_mul(FACE_BYTES)?)?;
    if arrays > (bitstream.len() as u64).saturating_mul(8) {
        return None;
    }
    let mut faces = Faces {
        faces: Vec::with_capacity(num_faces),
        next: [0; 3],
        filled: 0,
    };
    connectivity(
        &mut buffer,
        &mut budget,
        num_faces,
        num_points,
        limits,
        Some(&mut faces),
    )?;
    let faces = faces.faces;

    let attributes = descriptions(&mut buffer, &mut budget, num_points, limits)?;
    // Zeroed pages from the allocator: each field is written once, by its attribute.
    let mut vertices: Vec<Vertex> = bytemuck::zeroed_vec(num_points);
    let mut corrections: Vec<i32> = Vec::new();
    let mut quantized = Vec::new();
    // With one quantized attribute (Roblox's normals), its parameters are the stream's
    // last bytes: read ahead, they dequantize its values as they are rebuilt. (Read
    // again in order below, they must be the same bytes.)
    let mut quantizing = attributes.iter().filter(|a| a.decoder == 2);
    let ahead = match (quantizing.next(), quantizing.next()) {
        (Some(a), None) => {
            parameters_at_end(bitstream, usize::from(a.components)).map(|p| (a.uid, p))
        }
        _ => None,
    };
    for a in &attributes {
        let components = usize::from(a.components);
        match a.decoder {
            0 => {
                let width = data_type_width(a.data_type)?;
                let len = num_points.checked_mul(components)?.checked_mul(width)?;
                let bytes = buffer.decode_slice(len).ok()?;
                raw_values(&mut vertices, a.uid, bytes);
            }
            1 if (1..=6).contains(&a.data_type) => {
                corrections.clear();
                corrections.reserve(num_points.saturating_mul(components));
                let wrap = integer_values(
                    &mut buffer,
                    &mut budget,
                    num_points,
                    components,
                    None,
                    Some(&mut corrections),
                )?;
                // The layouts make these uint8 × 4: `draco-core` stores each as `as u8`.
                let byte = |v: [i32; 4]| v.map(|x| x as u8);
                match a.uid {
                    UID_TANGENT => rebuild(&corrections, wrap, &mut vertices, |v, x| {
                        v.tangent = byte(x);
                    }),
                    UID_COLOR => rebuild(&corrections, wrap, &mut vertices, |v, x| {
                        v.color = byte(x);
                    }),
                    _ => {}
                }
            }
            2 if a.data_type == DT_FLOAT32 => {
                corrections.clear();
                corrections.reserve(num_points.saturating_mul(components));
                let wrap = integer_values(
                    &mut buffer,
                    &mut budget,
                    num_points,
                    components,
                    None,
                    Some(&mut corrections),
                )?;
                match ahead {
                    Some((uid, p)) if uid == a.uid => {
                        let dq = |x: [i32; 3]| {
                            let mut out = [0f32; 3];
                            for ((o, x), m) in out.iter_mut().zip(x).zip(p.min) {
                                *o = x as f32 * p.delta + m;
                            }
                            out
                        };
                        match a.uid {
                            UID_POSITION => rebuild(&corrections, wrap, &mut vertices, |v, x| {
                                v.position = dq(x);
                            }),
                            UID_NORMAL => rebuild(&corrections, wrap, &mut vertices, |v, x| {
                                v.normal = dq(x);
                            }),
                            UID_UV => rebuild(&corrections, wrap, &mut vertices, |v, [x, y]| {
                                let [u, w, _] = dq([x, y, 0]);
                                v.uv = [u, w];
                            }),
                            _ => {}
                        }
                    }
                    _ => {
                        // The integers, held in the floats' bits until dequantized below.
                        let bits = |v: [i32; 3]| v.map(|x| f32::from_bits(x as u32));
                        match a.uid {
                            UID_POSITION => rebuild(&corrections, wrap, &mut vertices, |v, x| {
                                v.position = bits(x);
                            }),
                            UID_NORMAL => rebuild(&corrections, wrap, &mut vertices, |v, x| {
                                v.normal = bits(x);
                            }),
                            UID_UV => {
                                rebuild(&corrections, wrap, &mut vertices, |v, x: [i32; 2]| {
                                    v.uv = x.map(|x| f32::from_bits(x as u32));
                                })
                            }
                            _ => {}
                        }
                    }
                }
                quantized.push((a.uid, components));
            }
            _ => return None,
        }
    }
    drop(corrections);
    // The quantization parameters follow every attribute's values, in attribute order.
    for &(uid, components) in &quantized {
        let mut min = [0f32; 3];
        for c in 0..components {
            let m = buffer.decode::<f32>().ok()?;
            if let Some(slot) = min.get_mut(c) {
                *slot = m;
            }
        }
        let range = buffer.decode::<f32>().ok()?;
        let bits = buffer.decode_u8().ok()?;
        if !(1..=30).contains(&bits) {
            return None;
        }
        let delta = range / ((1u32 << bits) - 1) as i32 as f32;
        if let Some((ahead_uid, p)) = ahead {
            // Dequantized already, with the same bytes (the stream ends with them).
            let same = p.min.map(f32::to_bits) == min.map(f32::to_bits)
                && p.delta.to_bits() == delta.to_bits();
            if ahead_uid != uid || !same {
                return None;
            }
            continue;
        }
        let dequantize = |values: &mut [f32]| {
            for (x, m) in values.iter_mut().zip(min) {
                *x = (x.to_bits() as i32) as f32 * delta + m;
            }
        };
        match uid {
            UID_POSITION => vertices
                .iter_mut()
                .for_each(|v| dequantize(&mut v.position)),
            UID_NORMAL => vertices.iter_mut().for_each(|v| dequantize(&mut v.normal)),
            UID_UV => vertices.iter_mut().for_each(|v| dequantize(&mut v.uv)),
            _ => {}
        }
    }
    // `decode` refuses bytes after the mesh.
    if buffer.position() != bitstream.len() {
        return None;
    }
    Some((vertices, faces))
}

/// A quantized attribute's dequantization: each component's minimum (3 at most), and
/// the step.
#[derive(Clone, Copy)]
struct Dequantization {
    min: [f32; 3],
    delta: f32,
}

/// The quantization parameters of an attribute of `components` components, if they are
/// the last bytes of the stream (its minima, range and bits), and valid.
fn parameters_at_end(bitstream: &[u8], components: usize) -> Option<Dequantization> {
    let len = 4 * components + 5;
    let tail = bitstream.get(bitstream.len().checked_sub(len)?..)?;
    let (floats, rest) = tail.as_chunks::<4>();
    let mut min = [0f32; 3];
    for (m, f) in min.iter_mut().zip(floats.get(..components)?) {
        *m = f32::from_le_bytes(*f);
    }
    let range = f32::from_le_bytes(*floats.get(components)?);
    let bits = u32::from(*rest.first()?);
    if !(1..=30).contains(&bits) || components > 3 {
        return None;
    }
    Some(Dequantization {
        min,
        delta: range / ((1u32 << bits) - 1) as i32 as f32,
    })
}

/// An attribute's raw values (one a point, in point order) into its field, for the five
/// attributes (whose layouts [`descriptions`] checked); others are skipped.
fn raw_values(vertices: &mut [Vertex], uid: u32, bytes: &[u8]) {
    fn each<const B: usize>(
        vertices: &mut [Vertex],
        bytes: &[u8],
        set: impl Fn(&mut Vertex, &[u8; B]),
    ) {
        for (v, b) in vertices.iter_mut().zip(bytes.as_chunks::<B>().0) {
            set(v, b);
        }
    }
    let floats = |b: &[u8; 12]| {
        let (f, _) = b.as_chunks::<4>();
        [0, 1, 2].map(|i| f.get(i).map_or(0.0, |&f| f32::from_le_bytes(f)))
    };
    match uid {
        UID_POSITION => each(vertices, bytes, |v, b: &[u8; 12]| v.position = floats(b)),
        UID_NORMAL => each(vertices, bytes, |v, b: &[u8; 12]| v.normal = floats(b)),
        UID_UV => each(vertices, bytes, |v, b: &[u8; 8]| {
            let (f, _) = b.as_chunks::<4>();
            v.uv = [0, 1].map(|i| f.get(i).map_or(0.0, |&f| f32::from_le_bytes(f)));
        }),
        UID_TANGENT => each(vertices, bytes, |v, b: &[u8; 4]| v.tangent = *b),
        UID_COLOR => each(vertices, bytes, |v, b: &[u8; 4]| v.color = *b),
        _ => {}
    }
}

/// An integer attribute's values from its corrections (`C` a point) into the vertices:
/// `draco-core`'s difference prediction through the wrap transform (each point predicted
/// from the one before, the first from 0), or the corrections themselves without
/// prediction.
fn rebuild<const C: usize>(
    corrections: &[i32],
    wrap: Option<Wrap>,
    vertices: &mut [Vertex],
    set: impl Fn(&mut Vertex, [i32; C]),
) {
    let (points, _) = corrections.as_chunks::<C>();
    match wrap {
        None => {
            for (v, &p) in vertices.iter_mut().zip(points) {
                set(v, p);
            }
        }
        Some(w) => {
            let mut previous = [0i32; C];
            for (v, &p) in vertices.iter_mut().zip(points) {
                let mut value = p;
                for (x, q) in value.iter_mut().zip(previous) {
                    *x = w.original(q, *x);
                }
                set(v, value);
                previous = value;
            }
        }
    }
}

/// The count a float attribute's non-finite points go to (tangents, colours and other
/// attributes have none).
fn slot(counts: &mut NonFiniteCounts, uid: u32) -> Option<&mut usize> {
    match uid {
        UID_POSITION => Some(&mut counts.positions),
        UID_NORMAL => Some(&mut counts.normals),
        UID_UV => Some(&mut counts.uvs),
        _ => None,
    }
}

/// Points of `stride` bytes of little-endian floats with a value that is not finite.
fn non_finite_floats(bytes: &[u8], stride: usize) -> usize {
    bytes
        .chunks_exact(stride)
        .filter(|point| {
            let (floats, _) = point.as_chunks::<4>();
            floats.iter().any(|&f| !f32::from_le_bytes(f).is_finite())
        })
        .count()
}

/// Whether `q · delta + min` is finite for every `i32` q of every component, so that
/// no value need be looked at. Worked out in `f64`, with a margin for the `f32`
/// rounding of the product and the sum.
fn always_finite(min: &[f32], delta: f32) -> bool {
    let largest = 2f64.powi(31) * f64::from(delta.abs());
    delta.is_finite()
        && min
            .iter()
            .all(|m| m.is_finite() && largest + f64::from(m.abs()) < f64::from(f32::MAX) / 2.0)
}

/// Face indices as they come, three to a face.
struct Faces {
    faces: Vec<Face>,
    next: [u32; 3],
    filled: usize,
}

impl Faces {
    #[inline(always)]
    fn push(&mut self, index: u32) {
        if let Some(slot) = self.next.get_mut(self.filled) {
            *slot = index;
        }
        self.filled += 1;
        if self.filled == 3 {
            self.faces.push(Face { indices: self.next });
            self.filled = 0;
        }
    }
}

/// The face indices, checked as `draco-core`'s sequential connectivity decoder checks
/// them, and appended to `indices` if given (held nowhere otherwise).
fn connectivity(
    buffer: &mut DecoderBuffer<'_>,
    budget: &mut Budget,
    num_faces: usize,
    num_points: usize,
    limits: &Limits,
    mut indices: Option<&mut Faces>,
) -> Option<()> {
    let num_indices = num_faces.checked_mul(3)?;
    let names_a_point = |index: u64| index < num_points as u64;
    match buffer.decode_u8().ok()? {
        0 => {
            // Compressed: index deltas as symbols.
            if num_indices > buffer.size().saturating_mul(8) {
                return None;
            }
            let mut last = 0i32;
            let mut ok = true;
            symbols(buffer, budget, num_indices, 1, |piece| {
                for &encoded in piece {
                    let mut diff = (encoded >> 1) as i32;
                    if encoded & 1 != 0 {
                        if diff > last {
                            ok = false;
                            return;
                        }
                        diff = -diff;
                    } else if diff > i32::MAX - last {
                        ok = false;
                        return;
                    }
                    let index = last + diff;
                    if !names_a_point(index as u64) {
                        ok = false;
                        return;
                    }
                    if let Some(out) = indices.as_deref_mut() {
                        out.push(index as u32);
                    }
                    last = index;
                }
            })?;
            ok.then_some(())?;
        }
        1 => {
            if num_points < 256 {
                fixed_width_indices::<1>(buffer, num_indices, num_points, indices)?;
            } else if num_points < 1 << 16 {
                fixed_width_indices::<2>(buffer, num_indices, num_points, indices)?;
            } else if num_points < 1 << 21 {
                if num_indices > buffer.remaining_size() {
                    return None;
                }
                for _ in 0..num_indices {
                    let index = buffer.decode_varint().ok()?;
                    if !names_a_point(index) {
                        return None;
                    }
                    if let Some(out) = indices.as_deref_mut() {
                        out.push(index as u32);
                    }
                }
            } else {
                fixed_width_indices::<4>(buffer, num_indices, num_points, indices)?;
            }
        }
        _ => return None,
    }
    // The caller's ceiling on faces (checked by `draco-core` once the indices are read).
    (num_faces as u64 <= limits.max_decoded_bytes / FACE_BYTES).then_some(())
}

/// Raw face indices of `W` little-endian bytes each, all naming one of the points,
/// appended to `out` if given.
fn fixed_width_indices<const W: usize>(
    buffer: &mut DecoderBuffer<'_>,
    num_indices: usize,
    num_points: usize,
    out: Option<&mut Faces>,
) -> Option<()> {
    let bytes = buffer.decode_slice(num_indices.checked_mul(W)?).ok()?;
    let (indices, _) = bytes.as_chunks::<W>();
    let value = |index: &[u8; W]| {
        let mut word = [0u8; 8];
        for (w, &b) in word.iter_mut().zip(index) {
            *w = b;
        }
        u64::from_le_bytes(word)
    };
    indices
        .iter()
        .all(|index| value(index) < num_points as u64)
        .then_some(())?;
    if let Some(out) = out {
        for index in indices {
            out.push(value(index) as u32);
        }
    }
    Some(())
}

/// The one attributes decoder's descriptions: the five attributes, each unique id once,
/// with the layouts [`decode`] requires, and any others, admitted under the
/// caller's ceiling as `draco-core` admits them.
///
/// [`decode`]: crate::codec::draco::decode()
fn descriptions(
    buffer: &mut DecoderBuffer<'_>,
    budget: &mut Budget,
    num_points: usize,
    limits: &Limits,
) -> Option<Vec<Attribute>> {
    if buffer.decode_u8().ok()? != 1 {
        return None;
    }
    let count = usize::try_from(buffer.decode_varint().ok()?).ok()?;
    if !(5..=64).contains(&count) || count > buffer.remaining_size() / 6 {
        return None;
    }
    let mut attributes = Vec::with_capacity(count);
    let mut seen = [false; 5];
    let mut admitted: u64 = 0;
    for _ in 0..count {
        let kind = buffer.decode_u8().ok()?;
        let data_type = buffer.decode_u8().ok()?;
        let components = buffer.decode_u8().ok()?;
        let _normalized = buffer.decode_u8().ok()?;
        let uid = buffer.decode_varint().ok()? as u32;
        if kind > 4 || components == 0 {
            return None;
        }
        // One of the five: the layout `decode` requires, and only once. Another (an
        // encoder's own, as DracoPy's quantized position) is ignored by `decode`, but
        // decoded and checked as any.
        if let Some(&(want_type, want_components)) = LAYOUTS.get(uid as usize) {
            if data_type != want_type || components != want_components {
                return None;
            }
            if std::mem::replace(seen.get_mut(uid as usize)?, true) {
                return None;
            }
        }
        let width = data_type_width(data_type)?;
        admitted = admitted.saturating_add(
            (num_points as u64).saturating_mul(u64::from(components) * width as u64),
        );
        if admitted > limits.max_decoded_bytes {
            return None;
        }
        budget.admitted_values = budget
            .admitted_values
            .saturating_add(usize::from(components).saturating_mul(num_points));
        attributes.push(Attribute {
            uid,
            data_type,
            components,
            decoder: 0,
        });
    }
    if seen.contains(&false) {
        return None;
    }
    for a in &mut attributes {
        a.decoder = buffer.decode_u8().ok()?;
    }
    Some(attributes)
}

/// Bytes of one value of a Draco data type (1 int8 … 11 bool), `None` for no type.
fn data_type_width(data_type: u8) -> Option<usize> {
    match data_type {
        1 | 2 | 11 => Some(1),
        3 | 4 => Some(2),
        5 | 6 | 9 => Some(4),
        7 | 8 | 10 => Some(8),
        _ => None,
    }
}

/// The wrap transform's bounds.
#[derive(Clone, Copy)]
struct Wrap {
    min: i32,
    max: i32,
    dif: i32,
}

impl Wrap {
    /// `draco-core`'s `compute_original_value` for one component.
    fn original(&self, predicted: i32, correction: i32) -> i32 {
        let pred = predicted.clamp(self.min, self.max);
        match pred.checked_add(correction) {
            Some(sum) if sum < self.min => sum.wrapping_add(self.dif),
            Some(sum) if sum > self.max => sum.wrapping_sub(self.dif),
            Some(sum) => sum,
            None => {
                let sum = i64::from(pred) + i64::from(correction);
                if sum > i64::from(self.max) {
                    (sum - i64::from(self.dif)) as i32
                } else {
                    (sum + i64::from(self.dif)) as i32
                }
            }
        }
    }
}

/// What pass two does with the values: the wrap bounds pass one read (`None` without
/// prediction), and a sink for each point's values.
type Sink<'s> = (Option<Wrap>, &'s mut dyn FnMut(&[i32]));

/// An integer attribute's values (`SequentialIntegerAttributeDecoder::decode_values`):
/// prediction header, corrections, prediction data. Pass one (`sink` `None`) checks
/// them and returns the wrap bounds; pass two also rebuilds each point's values and
/// hands them to the sink. With `corrections`, the corrections are appended to it
/// (the decode rebuilds the values itself once it has the wrap bounds).
fn integer_values(
    buffer: &mut DecoderBuffer<'_>,
    budget: &mut Budget,
    num_points: usize,
    components: usize,
    mut sink: Option<Sink<'_>>,
    mut corrections: Option<&mut Vec<i32>>,
) -> Option<Option<Wrap>> {
    let num_values = num_points.checked_mul(components)?;
    let predicted = match buffer.decode_u8().ok()? {
        0xFE | 0xFF => false,
        // Difference; its transform is the wrap unless it says octahedron (2, 3), and
        // there are no others.
        0 => {
            let transform = buffer.decode_u8().ok()?;
            if !matches!(transform, 0xFF | 0 | 1) {
                return None;
            }
            true
        }
        _ => return None,
    };
    let zigzag = |s: u32| ((s >> 1) as i32) ^ (-((s & 1) as i32));
    // Pass two rebuilds values as they come: the previous point's, for prediction.
    let mut previous = vec![0i32; components];
    let mut first = true;
    let mut entry = vec![0i32; components];
    // The component next filled: a piece may end inside a point.
    let mut c = 0;
    let mut rebuild = |corrections: &mut dyn Iterator<Item = i32>| {
        let Some((wrap, out)) = sink.as_mut() else {
            return;
        };
        for correction in corrections {
            let value = match wrap {
                Some(w) => {
                    let predicted = if first {
                        0
                    } else {
                        previous.get(c).copied().unwrap_or(0)
                    };
                    w.original(predicted, correction)
                }
                None => correction,
            };
            if let Some(slot) = entry.get_mut(c) {
                *slot = value;
            }
            c += 1;
            if c == components {
                out(&entry);
                previous.copy_from_slice(&entry);
                first = false;
                c = 0;
            }
        }
    };
    if buffer.decode_u8().ok()? > 0 {
        symbols(buffer, budget, num_values, components, |piece| {
            if let Some(out) = corrections.as_deref_mut() {
                out.extend(piece.iter().map(|&s| zigzag(s)));
            }
            rebuild(&mut piece.iter().map(|&s| zigzag(s)));
        })?;
    } else {
        let width = usize::from(buffer.decode_u8().ok()?);
        if width > 4 {
            return None;
        }
        if width == 0 {
            // Every correction zero: nothing in the stream backs them.
            budget.charge_unbacked(num_values)?;
            if let Some(out) = corrections.as_deref_mut() {
                out.resize(out.len() + num_values, 0);
            }
            rebuild(&mut std::iter::repeat_n(0, num_values));
        } else {
            let bytes = buffer.decode_slice(num_values.checked_mul(width)?).ok()?;
            let values = || {
                bytes.chunks_exact(width).map(|b| {
                    let mut word = [0u8; 4];
                    for (w, &x) in word.iter_mut().zip(b) {
                        *w = x;
                    }
                    zigzag(u32::from_le_bytes(word))
                })
            };
            if let Some(out) = corrections {
                out.extend(values());
            }
            rebuild(&mut values());
        }
    }
    if !predicted {
        return Some(None);
    }
    let min = buffer.decode::<i32>().ok()?;
    let max = buffer.decode::<i32>().ok()?;
    let dif = i64::from(max) - i64::from(min);
    if !(0..i64::from(i32::MAX)).contains(&dif) {
        return None;
    }
    Some(Some(Wrap {
        min,
        max,
        dif: 1 + dif as i32,
    }))
}

/// `draco-core`'s `decode_symbols`, a piece at a time: `each` gets the symbols in order.
fn symbols<'a>(
    buffer: &mut DecoderBuffer<'a>,
    budget: &mut Budget,
    num_values: usize,
    components: usize,
    mut each: impl FnMut(&[u32]),
) -> Option<()> {
    if num_values == 0 {
        return Some(());
    }
    if components == 0 || !num_values.is_multiple_of(components) {
        return None;
    }
    let mut piece = Vec::with_capacity(num_values.min(PIECE));
    match buffer.decode_u8().ok()? {
        0 => {
            // Tagged: each point's bit width through rANS, its values as raw bits.
            let mut tags = RAnsSymbolDecoder::new(12);
            if !tags.create(buffer) || !tags.start_decoding(buffer) {
                return None;
            }
            buffer.start_bit_decoding(false).ok()?;
            let step = (PIECE / components).max(1) * components;
            for _ in 0..num_values / components {
                let len = tags.try_decode_symbol()?;
                if len == 0 || len > 32 {
                    return None;
                }
                for _ in 0..components {
                    piece.push(buffer.decode_least_significant_bits32_fast(len).ok()?);
                }
                if piece.len() >= step {
                    each(&piece);
                    piece.clear();
                }
            }
            buffer.end_bit_decoding();
        }
        1 => {
            let bit_length = u32::from(buffer.decode_u8().ok()?);
            if !(1..=18).contains(&bit_length) {
                return None;
            }
            let mut decoder = RAnsSymbolDecoder::new(
                compute_rans_precision_from_unique_symbols_bit_length(bit_length),
            );
            if !decoder.create(buffer) {
                return None;
            }
            let before = buffer.remaining_size();
            if !decoder.start_decoding(buffer) {
                return None;
            }
            // Symbols past 64 a payload byte are charged to the budget (a constant
            // attribute has no payload at all).
            let backed = before
                .saturating_sub(buffer.remaining_size())
                .saturating_mul(64);
            if num_values > backed {
                budget.charge_unbacked(num_values - backed)?;
            }
            let mut left = num_values;
            while left > 0 {
                let n = left.min(PIECE);
                piece.clear();
                if !decoder.decode_run(&mut piece, n) {
                    return None;
                }
                each(&piece);
                left -= n;
            }
            piece.clear();
        }
        _ => return None,
    }
    if !piece.is_empty() {
        each(&piece);
    }
    Some(())
}
