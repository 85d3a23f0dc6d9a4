//! The fast path of the reader: a number exactly as the canonical format prints it,
//! read a word (eight bytes) at a time (SWAR: digit runs, separators, digit values) and
//! scaled to the nearest `f32` by one exact operation.

use super::number::POW10_F32;
/// A number [`canonical_number`] read: its value, its length in bytes, its significant
/// digits and how many digits its exponent has (0 without one, 2, or 3 for the
/// three-digit form `e-007` of older C runtimes).
#[derive(Clone, Copy, Default, bytemuck::Zeroable)]
pub(super) struct Canonical {
    pub(super) value: f32,
    /// At most 16 (the separator is within the sixteen bytes looked at).
    pub(super) len: u8,
    /// At most 6.
    pub(super) significant: u8,
    pub(super) exponent: u8,
}

/// `'0'` in every byte.
const ZEROS: u64 = 0x3030_3030_3030_3030;

/// The eight bytes from `at` as a little-endian word (the first byte lowest), if there
/// are eight.
#[inline(always)]
fn load8(bytes: &[u8], at: usize) -> Option<u64> {
    let word: [u8; 8] = bytes.get(at..at.checked_add(8)?)?.try_into().ok()?;
    Some(u64::from_le_bytes(word))
}

/// How many bytes of `word` (from the lowest) are ASCII digits before the first that is
/// not one (8: all eight are).
///
/// A byte below `'0'` gets its top bit from the subtraction, one above `'9'` from the
/// addition (or, from 0xBA up, where the addition wraps, from the subtraction). Carries
/// and borrows only move towards later bytes and only start at a non-digit, so the
/// first non-digit is always marked, even if the bytes after it are not exact.
#[inline(always)]
fn digit_run(word: u64) -> usize {
    let marks = (word.wrapping_add(0x4646_4646_4646_4646) | word.wrapping_sub(ZEROS))
        & 0x8080_8080_8080_8080;
    (marks.trailing_zeros() / 8) as usize
}

/// The value of the first `n` (1..=8) bytes of `word`, ASCII digits, the first byte
/// the most significant: the digits move to the top bytes (zero bytes below them act
/// as leading zeros), then pairs, quads and the two halves combine in three
/// multiplications.
#[inline(always)]
fn swar_digits(word: u64, n: usize) -> u32 {
    let v = (word << (64 - 8 * n as u32)) & 0x0F0F_0F0F_0F0F_0F0F;
    // Each 16-bit lane: 10 × its first digit + its second.
    let v = (v.wrapping_mul(10 << 8 | 1) >> 8) & 0x00FF_00FF_00FF_00FF;
    // Each 32-bit lane: 100 × its first pair + its second.
    let v = (v.wrapping_mul(100 << 16 | 1) >> 16) & 0x0000_FFFF_0000_FFFF;
    // 10⁴ × the first quad + the second.
    (v.wrapping_mul(10_000 << 32 | 1) >> 32) as u32
}

/// Marks (top bits) on the bytes of `w` equal to `byte` (ASCII) and on bytes from 0x80
/// up (but the one whose XOR with `byte` is 0x80): the first mark is the first `byte`
/// when the bytes before it are ASCII.
///
/// A byte equal to the one sought becomes 0 under the XOR, and subtracting 1 sets its
/// top bit; an ASCII byte other than it becomes 0x01 to 0x7F and gets no mark unless
/// a borrow reaches it, and borrows start only at a 0 byte and move towards later
/// bytes. (The exact test would also clear the marks of bytes with their top bit set:
/// one more operation and a copy a word.) The callers keep and find only ASCII texts
/// ending at the byte sought, so a mark on a byte from 0x80 up only ends a text early
/// that is then never kept nor found.
#[inline(always)]
fn byte_marks(w: u64, byte: u8) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const TOPS: u64 = 0x8080_8080_8080_8080;
    (w ^ (ONES * u64::from(byte))).wrapping_sub(ONES) & TOPS
}

/// Marks on the `,` and `]` bytes of `w` and on bytes from 0x80 up ([`byte_marks`]
/// of both: no byte from 0x80 up escapes both): a number that seems to end at such a
/// byte is not canonical (its digits end before it, at a byte that is not a
/// separator), and [`canonical_number`] gives `None`.
#[inline(always)]
pub(super) fn separator_marks(w: u64) -> u64 {
    byte_marks(w, b',') | byte_marks(w, b']')
}

/// The place of the first `,` or `]` in 16 bytes (`low` first), if there is one.
#[inline(always)]
fn separator(low: u64, high: u64) -> Option<usize> {
    let marks = u128::from(separator_marks(low)) | u128::from(separator_marks(high)) << 64;
    (marks != 0).then(|| (marks.trailing_zeros() / 8) as usize)
}

/// Exact powers of ten in `f64`, 10⁰ to 10²² (5²² < 2⁵³).
const POW10_F64: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// The nearest `f64`s of 10⁰ to 10⁻¹⁰ (for [`scale`]).
const INV_POW10_F64: [f64; 11] = [
    1e0, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10,
];

/// The 29 low bits of an `f64` that rounding to `f32` drops (for an `f64` in the range
/// of normal `f32`s): `HALF` there is exactly halfway between two `f32`s.
const DROPPED: u64 = 0x1FFF_FFFF;
const HALF: u64 = 0x1000_0000;

/// `m × 10^exp` (`m` below 2²⁴) as the nearest `f32`, when that is cheap and exact:
///
/// - |exp| ≤ 10: one `f32` operation with an exact power of ten, correctly rounded
///   (Clinger's fast path, as [`fast_f32`](super::number::fast_f32));
/// - |exp| ≤ 22: one `f64` operation with an exact power of ten gives the nearest
///   `f64`, and rounding that to `f32` is the nearest `f32` unless the `f64` is exactly
///   halfway between two `f32`s (then `None`). Every such halfway point is an `f64` (with
///   [`HALF`] in its low bits), and rounding to the nearest `f64` keeps a value on its
///   side of it (or on it, only when it is that point), so the two roundings agree
///   everywhere else. The result is a normal `f32` here (between 10⁻²² and
///   2²⁴ × 10²²).
///
/// (Multiplying by the nearest `f64` of 10^exp instead of dividing, with a wider check,
/// measured no faster.)
#[inline(always)]
fn scale(m: u32, exp: i32) -> Option<f32> {
    let k = exp.unsigned_abs() as usize;
    if exp < 0 {
        if let Some(&r) = INV_POW10_F64.get(k) {
            // A multiplication by the nearest `f64` of 10^-k instead of a division: the
            // product is within two `f64` units of the exact quotient, so rounding it to
            // `f32` gives the nearest `f32` unless an `f32` halfway point could lie
            // between them, which shows in the dropped bits; then divide exactly.
            let v = f64::from(m) * r;
            let off = (v.to_bits() & DROPPED).wrapping_sub(HALF - 2);
            if off > 4 {
                return Some(v as f32);
            }
        }
    }
    if let Some(&p) = POW10_F32.get(k) {
        let m = m as f32;
        return Some(if exp >= 0 { m * p } else { m / p });
    }
    let (m, p) = (f64::from(m), *POW10_F64.get(k)?);
    let v = if exp >= 0 { m * p } else { m / p };
    (v.to_bits() & DROPPED != HALF).then_some(v as f32)
}

/// A number exactly as the canonical format ([`TextFormat::canonical`](super::TextFormat::canonical): `%g`, six
/// significant digits, two-digit exponent) prints its value, at the start of `rest`,
/// followed by `,` or `]`: `-?` then `0`, `0.ddd` (first significant digit at most
/// four places after the point), `d…` (up to 6 digits, the first not 0), `d….d…` or
/// `d.d…e±dd` (exponent below −4 or above 5), at most six significant digits, no
/// trailing zero after a point. Such tokens are ones [`canonical_g6`](super::number::canonical_g6) accepts; they are
/// read with a few word operations into the value the general scan gives. Also taken:
/// the same with a three-digit exponent starting with 0 (`1.5e-007`, as older Windows C
/// runtimes print; not canonical, which the caller counts). `None` for
/// anything else, and for the few such tokens [`scale`] leaves (a power of ten beyond
/// 10²², an `f64` halfway case) or that start within sixteen bytes of the end of the
/// data.
#[inline(always)]
pub(super) fn canonical_number(rest: &[u8]) -> Option<Canonical> {
    // Where the number ends, found first and apart from the parse (which must end
    // there too): the next number's start then depends on two loads and a few word
    // operations, not on the whole parse, so consecutive numbers overlap.
    canonical_number_at(rest, separator(load8(rest, 0)?, load8(rest, 8)?)?)
}

/// [`canonical_number`] when the caller has found where the number ends: `len` is the
/// place of the first `,` or `]` (or byte from 0x80 up, as [`separator_marks`] marks
/// them) in the first sixteen bytes of `rest`.
#[inline(always)]
pub(super) fn canonical_number_at(rest: &[u8], len: usize) -> Option<Canonical> {
    let negative = *rest.first()? == b'-';
    let start = usize::from(negative);
    let word = load8(rest, start)?;
    let int_len = digit_run(word);
    let first = word as u8;
    // At most six integer digits (a seventh would print in scientific notation),
    // and no leading zero.
    if int_len == 0 || int_len > 6 || first == b'0' && int_len > 1 {
        return None;
    }
    // With no leading zeros, the integer part is 0 exactly when its first digit is.
    let zero_int = first == b'0';
    // The byte after the integer digits (int_len ≤ 6, so within the word).
    let after_int = (word >> (8 * int_len)) as u8;
    let (m, frac_len, significant, i, next) = if after_int != b'.' {
        // Integer digits only; zeros at their end are not significant.
        let int = swar_digits(word, int_len);
        let mut significant = 0;
        if int != 0 {
            let mut x = int;
            significant = int_len;
            while x.is_multiple_of(10) {
                x /= 10;
                significant -= 1;
            }
        }
        (int, 0, significant, start + int_len, after_int)
    } else if !zero_int {
        // `d….d…`: at most six digits in all, so the mantissa and the byte after it are
        // in the word. Without the point (the bytes after it moved down one, a 0 byte
        // coming in at the top) the digits read as one number.
        let keep = (1u64 << (8 * int_len)) - 1;
        let merged = (word & keep) | ((word >> 8) & !keep);
        let n = digit_run(merged);
        // A digit after the point, at most six in all, the last not 0.
        if n == int_len || n > 6 || (merged >> (8 * (n - 1))) as u8 == b'0' {
            return None;
        }
        let next = (merged >> (8 * n)) as u8;
        (swar_digits(merged, n), n - int_len, n, start + n + 1, next)
    } else {
        // `0.…`: zeros after the point, before the first significant digit, at most
        // three (a fifth place would print in scientific notation); then the significant
        // digits start a word.
        let mut at = start + 2;
        let mut frac = load8(rest, at)?;
        let leading = ((frac ^ ZEROS).trailing_zeros() / 8) as usize;
        if leading > 3 {
            return None;
        }
        if leading > 0 {
            at += leading;
            frac = load8(rest, at)?;
        }
        // At least one significant digit, at most six (so the byte after them is in the
        // word), the last not 0.
        let run = digit_run(frac);
        if run == 0 || run > 6 || (frac >> (8 * (run - 1))) as u8 == b'0' {
            return None;
        }
        let next = (frac >> (8 * run)) as u8;
        (swar_digits(frac, run), leading + run, run, at + run, next)
    };
    let (value, end, significant, exponent) = match next {
        b',' | b']' => (scale(m, -(frac_len as i32))?, i, significant, 0),
        b'e' => {
            // `d.d…e±dd`: one integer digit, not 0.
            if int_len != 1 || zero_int {
                return None;
            }
            // At most 1 + 1 + 5 + 5 bytes and a separator: inside the 16 bytes the
            // separator was found in.
            let &[sign, d1, d2, d3, d4] = rest.get(i + 1..i + 6)? else {
                return None;
            };
            if !d1.is_ascii_digit() || !d2.is_ascii_digit() {
                return None;
            }
            let (e, width) = if matches!(d3, b',' | b']') {
                (i32::from(d1 - b'0') * 10 + i32::from(d2 - b'0'), 2u8)
            } else if d1 == b'0' && d3.is_ascii_digit() && matches!(d4, b',' | b']') {
                (i32::from(d2 - b'0') * 10 + i32::from(d3 - b'0'), 3u8)
            } else {
                return None;
            };
            let e = match sign {
                b'-' => -e,
                b'+' => e,
                _ => return None,
            };
            if (-4..=5).contains(&e) {
                return None;
            }
            let end = i + 2 + usize::from(width);
            (scale(m, e - frac_len as i32)?, end, significant, width)
        }
        _ => return None,
    };
    if len != end {
        return None;
    }
    Some(Canonical {
        value: if negative { -value } else { value },
        // Both small (above): a number's table slot is 16 bytes.
        len: len as u8,
        significant: significant as u8,
        exponent,
    })
}

/// Where [`canonical_triple`] gets its numbers: what [`canonical_number`] gives, from
/// a table of those read before or by calling it.
pub(super) trait Numbers {
    /// [`canonical_number`] at the start of `rest`.
    fn number(&mut self, rest: &[u8]) -> Option<Canonical>;
}

/// A triple [`canonical_triple`] read: its numbers, its length from `[` to `]`, its
/// numbers' most significant digits, their exponent digits (as [`Canonical::exponent`])
/// and where the second and third numbers start (from the `[`).
#[derive(Clone, Copy, Default, bytemuck::Zeroable)]
pub(super) struct CanonicalTriple {
    pub(super) value: [f32; 3],
    pub(super) len: u8,
    pub(super) digits: u8,
    pub(super) exponents: [u8; 3],
    pub(super) starts: [u8; 2],
    /// No number has an exponent (`exponents` all 0): one test where the loop counts.
    pub(super) plain: bool,
}

/// `[a,b,c]` at the start of `rest` with three numbers as the canonical format prints
/// them, which is what real files hold, each read by `numbers`; `None` for anything else (the general scan then reads it, or reports it).
#[inline(always)]
pub(super) fn canonical_triple(rest: &[u8], numbers: &mut impl Numbers) -> Option<CanonicalTriple> {
    if rest.first() != Some(&b'[') {
        return None;
    }
    // Each number, then its separator: `,`, `,`, `]`.
    let a = numbers.number(rest.get(1..)?)?;
    let i1 = 1 + usize::from(a.len);
    if rest.get(i1) != Some(&b',') {
        return None;
    }
    let b = numbers.number(rest.get(i1 + 1..)?)?;
    let i2 = i1 + 1 + usize::from(b.len);
    if rest.get(i2) != Some(&b',') {
        return None;
    }
    let c = numbers.number(rest.get(i2 + 1..)?)?;
    let end = i2 + 1 + usize::from(c.len);
    if rest.get(end) != Some(&b']') {
        return None;
    }
    // A canonical number is at most 13 bytes: everything fits a byte.
    Some(CanonicalTriple {
        value: [a.value, b.value, c.value],
        len: (end + 1) as u8,
        digits: a.significant.max(b.significant).max(c.significant),
        exponents: [a.exponent, b.exponent, c.exponent],
        starts: [(i1 + 1) as u8, (i2 + 1) as u8],
        plain: a.exponent | b.exponent | c.exponent == 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::filemesh::raw::text::number::format_g;
    use crate::filemesh::raw::text::read::Parser;
    use crate::filemesh::raw::text::TextFormat;
    /// The word helpers against byte-by-byte loops, on every digit count and on
    /// digits followed by each possible byte.
    #[test]
    fn word_helpers_match_loops() {
        let mut x: u64 = 0x853c_49e6_748f_ea9b;
        for round in 0..200_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let mut bytes = x.to_le_bytes();
            let run = (round % 9) as usize;
            for (k, b) in bytes.iter_mut().enumerate() {
                if k < run {
                    *b = b'0' + (*b % 10);
                } else if k == run {
                    // Every byte value in turn, digits included.
                    *b = (round / 9 % 256) as u8;
                }
            }
            let word = u64::from_le_bytes(bytes);
            let want_run = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
            assert_eq!(digit_run(word), want_run, "{bytes:?}");
            for n in 1..=want_run {
                let want = bytes
                    .iter()
                    .take(n)
                    .fold(0u32, |a, &b| a * 10 + u32::from(b - b'0'));
                assert_eq!(swar_digits(word, n), want, "{bytes:?} {n}");
            }
        }
    }

    /// [`scale`] of a negative power of ten (a multiplication, checked, or a division)
    /// is the nearest `f32` of `m × 10^exp`, as Rust's parser gives it, for mantissas
    /// of every size and the exact halfway cases among them.
    #[test]
    fn scale_rounds_to_nearest() {
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        for round in 0..300_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let bits = 1 + round % 24;
            let m = (x as u32) & ((1u32 << bits) - 1);
            let exp = -(((x >> 40) % 23) as i32);
            let want: f32 = format!("{m}e{exp}").parse().unwrap();
            if let Some(got) = scale(m, exp) {
                assert_eq!(got.to_bits(), want.to_bits(), "{m}e{exp}");
            }
        }
        // Quotients that are f32 halfway points (m = 5^k × an odd number × 2^j ...).
        for k in 1..=10u32 {
            for odd in (1u32..2000).step_by(2) {
                let Some(m) = 5u32.pow(k).checked_mul(odd) else {
                    continue;
                };
                if m >= 1 << 24 {
                    continue;
                }
                let exp = -(k as i32);
                let want: f32 = format!("{m}e{exp}").parse().unwrap();
                let got = scale(m, exp).unwrap();
                assert_eq!(got.to_bits(), want.to_bits(), "{m}e{exp}");
            }
        }
    }

    /// What [`canonical_number`] reads from `token` followed by `,`, checked against the
    /// general scan: the same value (bits), length and statistics, and a token the
    /// general scan calls canonical. Returns whether the fast path took it.
    fn check_canonical_number(token: &str) -> bool {
        let padded = format!("{token},[0,0,0][0,0,0]");
        let Some(n) = canonical_number(padded.as_bytes()) else {
            return false;
        };
        let mut p = Parser::new(padded.as_bytes());
        let general = p.number("t").expect(token);
        let std: f32 = token.parse::<f32>().expect(token);
        assert_eq!(n.value.to_bits(), std.to_bits(), "{token}");
        assert_eq!(n.value.to_bits(), general.to_bits(), "{token}");
        assert_eq!(usize::from(n.len), token.len(), "{token}");
        assert_eq!(
            p.stats.not_canonical,
            usize::from(n.exponent == 3),
            "{token}"
        );
        assert_eq!(usize::from(n.significant), p.stats.max_digits, "{token}");
        assert_eq!(usize::from(n.exponent == 2), p.stats.exp_two, "{token}");
        assert_eq!(usize::from(n.exponent == 3), p.stats.exp_three, "{token}");
        true
    }

    /// The canonical fast path gives exactly what the general scan gives, takes every
    /// canonical six-digit print of values it can scale exactly, and leaves other forms
    /// to the general scan.
    #[test]
    fn canonical_number_matches_the_general_scan() {
        let taken = [
            "0",
            "-0",
            "1",
            "-1",
            "100000",
            "999999",
            "0.5",
            "-0.5",
            "0.0001",
            "0.000123",
            "-0.000999999",
            "12.5",
            "123456",
            "1.5e-07",
            "1.23457e-05",
            "-9.99999e+22",
            "1.50996e-007",
            "1.5e+007",
            "-3.4e+021",
            "1e+06",
            "3.52221",
            "1.17549e-15",
            "8e-22",
            "9.99999e-17",
        ];
        for t in taken {
            assert!(check_canonical_number(t), "{t} not taken");
        }
        let left = [
            "+1",
            "00",
            "01",
            "0.0",
            "1.",
            ".5",
            "1.0",
            "1234567",
            "9999999",
            "16777217",
            "0.1234567",
            "0.00001",
            "1e+05",
            "1e5",
            "1E+06",
            "1.5e7",
            "0e+00",
            "1e-45",
            "1.4e-45",
            "7e-46",
            "1e-38",
            "1.17549e-38",
            "3.40282e+38",
            "1e+39",
            "1.5e-05x",
            "12.50",
            "1234567.5",
            "1.234567e-05",
            "5e-324",
            "-",
            "e",
            "",
            "1.5e-0",
            "1.5e-",
            "1.5e+1234",
            "1.5e-107",
            "1.5e-0007",
            "1.5e-004",
            "1.5e+005",
        ];
        for t in left {
            assert!(!check_canonical_number(t), "{t} taken");
        }
        // The canonical print of many values: taken whenever the exponent is small
        // enough to scale exactly (a few exact f64 ties aside).
        let canonical = TextFormat::canonical();
        let (mut scratch, mut out) = (String::new(), Vec::new());
        let mut x: u64 = 0x1234_5678_9abc_def1;
        let (mut taken, mut total) = (0, 0);
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = f32::from_bits((x >> 32) as u32);
            let small = (x as f32 / u64::MAX as f32 - 0.5) * 20.0;
            for v in [v, small, small / 1000.0] {
                if !v.is_finite() {
                    continue;
                }
                out.clear();
                format_g(v, &canonical, &mut scratch, &mut out).unwrap();
                let text = std::str::from_utf8(&out).unwrap();
                let fits = v == 0.0 || (1e-16..1e22).contains(&v.abs());
                total += usize::from(fits);
                if check_canonical_number(text) {
                    taken += 1;
                } else {
                    assert!(!fits, "{text} not taken");
                }
            }
        }
        assert!(taken >= total, "{taken} of {total}");
    }

    proptest::proptest! {
        /// Random digit strings, points and exponents: the fast path either leaves a
        /// token or reads it exactly as the general scan and Rust's parser do.
        #[test]
        fn canonical_number_is_exact_on_random_tokens(
            sign in "[-+]?",
            int in "[0-9]{0,8}",
            frac in proptest::option::of("[0-9]{0,9}"),
            exp in proptest::option::of("[eE][-+]?[0-9]{1,3}"),
        ) {
            let mut token = sign + &int;
            if let Some(f) = frac {
                token.push('.');
                token.push_str(&f);
            }
            if let Some(e) = exp {
                token.push_str(&e);
            }
            if token.parse::<f32>().is_ok() && !int.is_empty() {
                check_canonical_number(&token);
            } else {
                let padded = format!("{token},[0,0,0][0,0,0]");
                if let Some(n) = canonical_number(padded.as_bytes()) {
                    proptest::prop_assert!(false, "{} read as {}", token, n.value);
                }
            }
        }

        /// A canonical number with a byte from 0x80 up put anywhere into it, or in place
        /// of one of its bytes, is never read (the separator search marks such bytes
        /// too, and the number then ends where no separator is).
        #[test]
        fn a_byte_from_0x80_up_is_never_part_of_a_number(
            digits in 1u32..1_000_000,
            exp in -12i32..=12,
            negative: bool,
            high in 0x80u8..=0xFF,
            at in 0usize..16,
            replace: bool,
        ) {
            let value = (digits as f64 * 10f64.powi(exp)) as f32;
            let mut bytes = Vec::new();
            let canonical = crate::filemesh::raw::text::TextFormat::canonical();
            format_g(if negative { -value } else { value }, &canonical, &mut String::new(), &mut bytes)
                .unwrap();
            let text = String::from_utf8_lossy(&bytes).into_owned();
            let at = at % (bytes.len() + 1);
            match bytes.get_mut(at) {
                Some(b) if replace => *b = high,
                _ => bytes.insert(at, high),
            }
            bytes.extend_from_slice(b",[0,0,0][0,0,0]");
            if let Some(n) = canonical_number(&bytes) {
                proptest::prop_assert!(false, "{:?} (from {}) read as {}", bytes, text, n.value);
            }
        }

        /// Six-digit decimals at every exponent `%g` writes with two digits.
        #[test]
        fn canonical_number_is_exact_on_six_digit_decimals(
            negative: bool,
            digits in 1u32..1_000_000,
            exp in -99i32..=99,
        ) {
            let text = format!("{}{}e{:+03}", if negative { "-" } else { "" }, digits, exp);
            let v: f64 = text.parse().unwrap();
            let token = format!("{:.5e}", v);
            // The token in %g form: mantissa without trailing zeros, two-digit exponent.
            let (mantissa, e) = token.split_once('e').unwrap();
            let mantissa = mantissa.trim_end_matches('0').trim_end_matches('.');
            let e: i32 = e.parse().unwrap();
            let token = format!("{mantissa}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs());
            if !(-4..=5).contains(&e) {
                check_canonical_number(&token);
            }
        }
    }

    /// [`scale`] gives the nearest f32 of `m × 10^exp` (Rust's own parse of the
    /// decimal) whenever it gives anything, and almost always gives something.
    #[test]
    fn scale_is_correctly_rounded() {
        let mut x: u64 = 0x6a09_e667_f3bc_c909;
        let mut left = 0;
        for round in 0..400_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let m = match round % 4 {
                0 => (x >> 40) as u32,
                1 => (x >> 44) as u32 % 1_000_000,
                2 => (x >> 54) as u32,
                _ => 16_777_215 - (x >> 56) as u32,
            };
            let exp = (x % 45) as i32 - 22;
            let want: f32 = format!("{m}e{exp}").parse().unwrap();
            match scale(m, exp) {
                Some(v) => assert_eq!(v.to_bits(), want.to_bits(), "{m}e{exp}"),
                None => left += 1,
            }
        }
        assert!(left < 10, "{left}");
    }
}
