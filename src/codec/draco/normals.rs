//! The normals, the one quantized attribute: decoded normals made canonical
//! ([`canonicalize_normals`]) so that [`encode`] gives back the stream
//! byte for byte, from the quantization parameters at the end of Roblox's streams; and
//! [`normal_tolerance`], the error a round trip may put on a normal.
//!
//! [`encode`]: super::encode()

use super::NORMAL_QUANTIZATION_BITS;
use crate::filemesh::raw::records::Vertex;

/// The end of a bitstream that [`canonicalize_normals`] reads (the normal's quantization
/// parameters in Roblox's streams): its last 17 bytes, or all of a shorter one.
pub(super) fn tail(bitstream: &[u8]) -> &[u8] {
    let start = bitstream.len().saturating_sub(NORMAL_PARAMETERS_BYTES);
    bitstream.get(start..).unwrap_or(bitstream)
}

/// Bytes of the normal's quantization parameters at the end of Roblox's streams
/// (3 × f32 minimum, f32 range, u8 bits).
const NORMAL_PARAMETERS_BYTES: usize = 17;

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
///
/// [`encode`]: super::encode()
pub(super) fn canonicalize_normals(bitstream: &[u8], vertices: &mut [Vertex]) {
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

/// Largest error [`decode`]`(`[`encode`]`(..))` can put on a normal component:
/// half a quantization step over the widest component range, plus float rounding.
///
/// Draco quantizes all three components over one range, `max(max_i − min_i)`; for
/// normals in `[-1, 1]` the bound is about 0.000 49.
///
/// [`decode`]: super::decode()
/// [`encode`]: super::encode()
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
