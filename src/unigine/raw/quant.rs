//! The integers UNIGINE files store for real numbers, and the real numbers they stand for.
//!
//! Each dequantizer (integer → `f32`) comes with its quantizer (`f32` → integer), and the
//! quantizer is the dequantizer's exact inverse: quantizing a dequantized value gives the
//! stored integer back, for every integer the file can hold (`tests/formats/quantizers.rs`
//! checks all of them). Where two integers stand for the same `f32` (an an10 box too
//! narrow for its 65,536 steps), the quantizer gives the smallest, which stands for the
//! same value.
//!
//! | stored | where | value | quantizer |
//! |---|---|---|---|
//! | `i16` | ms11+ tangent quaternions (x, y, z, w), ms10 tangents (x, y, z), rotations of an10 and embedded keys | `q / 32767` | [`snorm16`] |
//! | `i8` | ms10 tangent w | `q / 127` | [`snorm8`] |
//! | `u16` | skin weights | `q / 65535` | [`unorm16`] |
//! | `u8` | vertex colours | `q / 255` | [`unorm8`] |
//! | `u16` | an10 translations and scales | `min + size · q / 65535` | `anim::QuantBox::encode` |
//!
//! UNIGINE's own writer (the public format description) truncates: `(int)(x * 32767)`,
//! `(int)(w * 65535)`, `(int)((v − min) / size · 65535)`. For the fixed scales that
//! happens to give every integer back from its `f32` too, but for an an10 box it does not
//! (on a real translation box 13,783 of the 65,536 integers come back one lower), so the
//! quantizers here round to the nearest integer, and the box one searches for the integer
//! whose value it is. The range is the integer type's whole range, so a stored −32768
//! (which UNIGINE's writer, clamping to ±32767, does not produce) comes back too.

/// `q / 32767`: a signed 16-bit normalized number (−32768 gives −1.0000305).
pub fn snorm16_to_f32(q: i16) -> f32 {
    f32::from(q) / 32767.0
}

/// The `i16` that [`snorm16_to_f32`] maps to `x`, or the nearest: `x · 32767` rounded,
/// clamped to the `i16` range; NaN gives 0.
pub fn snorm16(x: f32) -> i16 {
    // `as` saturates and maps NaN to 0.
    (x * 32767.0).round() as i16
}

/// `q / 127`: a signed 8-bit normalized number (ms10's tangent w; −128 gives −1.0079).
pub fn snorm8_to_f32(q: i8) -> f32 {
    f32::from(q) / 127.0
}

/// The `i8` that [`snorm8_to_f32`] maps to `x`, or the nearest (rounded, clamped; NaN
/// gives 0).
pub fn snorm8(x: f32) -> i8 {
    (x * 127.0).round() as i8
}

/// `q / 65535`: an unsigned 16-bit normalized number (skin weights).
pub fn unorm16_to_f32(q: u16) -> f32 {
    f32::from(q) / 65535.0
}

/// The `u16` that [`unorm16_to_f32`] maps to `x`, or the nearest (rounded, clamped; NaN
/// gives 0).
pub fn unorm16(x: f32) -> u16 {
    (x * 65535.0).round() as u16
}

/// `q / 255`: an unsigned 8-bit normalized number (colour channels).
pub fn unorm8_to_f32(q: u8) -> f32 {
    f32::from(q) / 255.0
}

/// The `u8` that [`unorm8_to_f32`] maps to `x`, or the nearest (rounded, clamped; NaN
/// gives 0).
pub fn unorm8(x: f32) -> u8 {
    (x * 255.0).round() as u8
}

/// An ms10 tangent w (a byte, `q / 127`) as the `i16` of the later versions (`q / 32767`):
/// the same value, to the nearest step. Every byte but −128 (−1.0079, beyond the `i16`
/// scale's −1.0000305) comes back through [`tangent_w_to_byte`].
pub fn tangent_w_to_short(w: i8) -> i16 {
    snorm16(snorm8_to_f32(w))
}

/// A tangent w of ms11 and later (`q / 32767`) as ms10's byte (`q / 127`), to the
/// nearest step.
pub fn tangent_w_to_byte(w: i16) -> i8 {
    snorm8(snorm16_to_f32(w))
}

/// An an10 box quantizer: the smallest `q` with `decode(q) == v`, else the `q` whose
/// `decode(q)` is nearest to `v`. `decode` must be monotonic in `q` (it is when its
/// `min` and `size` are finite: each `f32` operation rounds monotonically), so a binary
/// search finds it in 17 steps. `None` when `v` is NaN.
pub(crate) fn invert_monotonic(decode: impl Fn(u16) -> f32, v: f32) -> Option<u16> {
    if v.is_nan() {
        return None;
    }
    let (first, last) = (decode(0), decode(u16::MAX));
    let rising = first <= last;
    // `below(q)`: decode(q) comes before v in the direction of the steps.
    let below = |q: u16| {
        let d = decode(q);
        if rising {
            d < v
        } else {
            d > v
        }
    };
    // The first q that is not below v (65536 if none).
    let (mut lo, mut hi) = (0u32, 65536u32);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if below(mid as u16) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    let Ok(q) = u16::try_from(lo) else {
        return Some(u16::MAX);
    };
    if decode(q) == v || q == 0 {
        return Some(q);
    }
    let gap = |q: u16| (f64::from(decode(q)) - f64::from(v)).abs();
    Some(if gap(q - 1) <= gap(q) { q - 1 } else { q })
}
