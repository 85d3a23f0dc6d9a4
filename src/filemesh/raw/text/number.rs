//! The numbers of a text mesh: C's `%g` printing (exact decimal rounding, ties to even,
//! and the layout), whether a format prints a value as a given token, and the exact
//! parsing helpers the reader shares (the `f32` fast path, the digits of a mantissa,
//! the form of a canonical token).

use std::fmt::Write as _;

use super::{ExponentDigits, TextFormat};
/// A decimal `±d₁.d₂…dₙ × 10^exp` without trailing zeros (zero is the single digit `0`
/// with exponent 0).
pub(super) struct Decimal {
    pub(super) negative: bool,
    digits: [u8; 17],
    pub(super) len: usize,
    pub(super) exp: i32,
}

impl Decimal {
    pub(super) fn digits(&self) -> &[u8] {
        self.digits.get(..self.len.max(1)).unwrap_or(b"0")
    }

    /// `value` rounded to `precision` (1..=17) significant digits, ties to even.
    pub(super) fn of(
        value: f32,
        precision: usize,
        scratch: &mut String,
    ) -> Result<Decimal, &'static str> {
        if let Some(d) = Decimal::exact(value, precision) {
            return Ok(d);
        }
        Decimal::formatted(value, precision, scratch)
    }

    /// [`Decimal::of`] through Rust's float formatting (for values [`Decimal::exact`]
    /// declines: zero, the extremes, subnormals).
    fn formatted(
        value: f32,
        precision: usize,
        scratch: &mut String,
    ) -> Result<Decimal, &'static str> {
        scratch.clear();
        // Rust's `{:.Ne}` is exact and rounds ties to even, like glibc's printf.
        write!(scratch, "{:.*e}", precision - 1, f64::from(value))
            .map_err(|_| "formatting failed")?;
        Decimal::from_exponential(scratch.as_bytes())
    }

    /// The decimal of Rust's `{:e}` text (`-d.ddde-N`).
    fn from_exponential(s: &[u8]) -> Result<Decimal, &'static str> {
        let (negative, s) = match s.split_first() {
            Some((b'-', rest)) => (true, rest),
            _ => (false, s),
        };
        let e = s
            .iter()
            .position(|&b| b == b'e')
            .ok_or("formatting failed")?;
        let (mantissa, exp) = s.split_at(e);
        let exp: i32 = std::str::from_utf8(exp.get(1..).unwrap_or_default())
            .ok()
            .and_then(|t| t.parse().ok())
            .ok_or("formatting failed")?;
        let mut d = Decimal {
            negative,
            digits: [b'0'; 17],
            len: 0,
            exp,
        };
        for &b in mantissa.iter().filter(|b| b.is_ascii_digit()) {
            if let Some(slot) = d.digits.get_mut(d.len) {
                *slot = b;
                d.len += 1;
            }
        }
        d.trim();
        Ok(d)
    }

    /// [`Decimal::of`] by integer arithmetic, for a finite nonzero `value` whose scaled
    /// value and divisor fit 128 bits (every `value` from about 10⁻¹⁵ to 10¹⁵ at six
    /// digits); `None` otherwise. `precision` is 1..=17.
    ///
    /// The value is `m·2^e` exactly. For a decimal exponent `k`, `t = ⌊value / 10^(k−P+1)⌋`
    /// has `P` digits exactly when `10^k ≤ value < 10^(k+1)` (the floor keeps both
    /// bounds, which are integers after scaling), so `k` is estimated and moved until it
    /// does; the remainder then rounds `t` to nearest, ties to even, as `printf` does.
    fn exact(value: f32, precision: usize) -> Option<Decimal> {
        let bits = value.to_bits();
        let field = (bits >> 23) & 0xff;
        let fraction = u128::from(bits & 0x7f_ffff);
        if field == 0xff {
            return None;
        }
        let (m, e2) = match field {
            0 => (fraction, -149),
            f => (fraction | 0x80_0000, f as i32 - 150),
        };
        if m == 0 {
            return None;
        }
        let p = i32::try_from(precision)
            .ok()
            .filter(|p| (1..=17).contains(p))?;
        let low = 10u128.pow(p as u32 - 1);
        let high = low * 10;
        // ⌊log10⌋ of the highest bit's value (2^(e2 + bits − 1)), off by at most one.
        let top = e2 + (128 - m.leading_zeros() as i32) - 1;
        let mut k = (top * 78_913).div_euclid(1 << 18);
        for _ in 0..4 {
            // value / 10^(k−p+1) = m·2^e2·10^(p−1−k) = numerator / denominator.
            let tens = p - 1 - k;
            let numerator = scaled(m, e2.max(0), tens.max(0))?;
            let denominator = scaled(1, (-e2).max(0), (-tens).max(0))?;
            // 64-bit division where both fit (the usual case), else 128-bit.
            let (t, r) = match (u64::try_from(numerator), u64::try_from(denominator)) {
                (Ok(n), Ok(d)) => (u128::from(n / d), u128::from(n % d)),
                _ => (numerator / denominator, numerator % denominator),
            };
            if t < low {
                k -= 1;
            } else if t >= high {
                k += 1;
            } else {
                let up = match (2 * r).cmp(&denominator) {
                    std::cmp::Ordering::Greater => true,
                    std::cmp::Ordering::Equal => t % 2 == 1,
                    std::cmp::Ordering::Less => false,
                };
                let (q, exp) = match t + u128::from(up) {
                    q if q == high => (low, k + 1),
                    q => (q, k),
                };
                let mut d = Decimal {
                    negative: value.is_sign_negative(),
                    digits: [b'0'; 17],
                    len: precision,
                    exp,
                };
                let mut q = q;
                for slot in d.digits.get_mut(..precision)?.iter_mut().rev() {
                    *slot = b'0' + (q % 10) as u8;
                    q /= 10;
                }
                d.trim();
                return Some(d);
            }
        }
        None
    }

    /// The decimal a number token spells exactly, if it has at most 17 significant
    /// digits and a small exponent. `token` matches the reader's number grammar.
    fn of_token(token: &[u8]) -> Option<Decimal> {
        let (negative, rest) = match token.split_first() {
            Some((b'-', rest)) => (true, rest),
            Some((b'+', rest)) => (false, rest),
            _ => (false, token),
        };
        let e = rest
            .iter()
            .position(|&b| b == b'e' || b == b'E')
            .unwrap_or(rest.len());
        let (mantissa, exp_text) = rest.split_at(e);
        let exp_text = exp_text.get(1..).unwrap_or_default();
        let written_exp: i32 = if exp_text.is_empty() {
            0
        } else if exp_text.len() <= 6 {
            std::str::from_utf8(exp_text).ok()?.parse().ok()?
        } else {
            return None;
        };
        let point = mantissa
            .iter()
            .position(|&b| b == b'.')
            .unwrap_or(mantissa.len());
        let mut d = Decimal {
            negative,
            digits: [b'0'; 17],
            len: 0,
            exp: 0,
        };
        let mut first_nonzero = None;
        for (i, &b) in mantissa
            .iter()
            .enumerate()
            .filter(|(_, b)| b.is_ascii_digit())
        {
            if first_nonzero.is_none() {
                if b == b'0' {
                    continue;
                }
                // The place value of this digit, as a power of ten.
                let place = point as i32 - i as i32 - i32::from(i < point);
                first_nonzero = Some(place);
            }
            *d.digits.get_mut(d.len)? = b;
            d.len += 1;
        }
        match first_nonzero {
            Some(place) => d.exp = place + written_exp,
            None => d.len = 0,
        }
        d.trim();
        Some(d)
    }

    fn trim(&mut self) {
        while self.len > 1 && self.digits.get(self.len - 1) == Some(&b'0') {
            self.len -= 1;
        }
        if self.len == 0 {
            self.len = 1;
            self.digits = [b'0'; 17];
            self.exp = 0;
        }
    }

    /// Appends the `%g` text of this decimal (already rounded to `precision` digits).
    pub(super) fn render(
        &self,
        precision: usize,
        exponent_digits: ExponentDigits,
        out: &mut Vec<u8>,
    ) {
        let digits = self.digits();
        let exp = self.exp;
        if self.negative {
            out.push(b'-');
        }
        if exp < -4 || exp >= precision as i32 {
            let (first, rest) = digits.split_at(1);
            out.extend_from_slice(first);
            if !rest.is_empty() {
                out.push(b'.');
                out.extend_from_slice(rest);
            }
            out.push(b'e');
            out.push(if exp < 0 { b'-' } else { b'+' });
            // |exp| <= 324 for any double, so at most three digits.
            let e = exp.unsigned_abs();
            let digit = |d: u32| b'0' + (d % 10) as u8;
            if e >= 100 || exponent_digits == ExponentDigits::Three {
                out.push(digit(e / 100));
            }
            out.push(digit(e / 10));
            out.push(digit(e));
        } else if exp >= 0 {
            let int_len = exp.unsigned_abs() as usize + 1;
            for i in 0..int_len {
                out.push(digits.get(i).copied().unwrap_or(b'0'));
            }
            if let Some(frac) = digits.get(int_len..).filter(|f| !f.is_empty()) {
                out.push(b'.');
                out.extend_from_slice(frac);
            }
        } else {
            out.extend_from_slice(b"0.");
            for _ in 1..exp.unsigned_abs() {
                out.push(b'0');
            }
            out.extend_from_slice(digits);
        }
    }
}

/// `m · 2^twos · 10^tens`, if it fits 128 bits.
fn scaled(m: u128, twos: i32, tens: i32) -> Option<u128> {
    let v = m.checked_mul(10u128.checked_pow(u32::try_from(tens).ok()?)?)?;
    let twos = u32::try_from(twos).ok()?;
    (v.leading_zeros() > twos).then(|| v << twos)
}

/// Appends `%.{precision}g` of `value` (as a double) to `out`, with the format's
/// exponent width. `scratch` is reused between calls.
pub(super) fn format_g(
    value: f32,
    format: &TextFormat,
    scratch: &mut String,
    out: &mut Vec<u8>,
) -> Result<(), &'static str> {
    if !value.is_finite() {
        return Err("NaN and infinities cannot be written");
    }
    let precision = usize::from(format.precision.clamp(1, 17));
    Decimal::of(value, precision, scratch)?.render(precision, format.exponent_digits, out);
    Ok(())
}

/// Whether `format` prints `value` as `token` (which `value` was parsed from).
pub(super) fn prints_as(
    value: f32,
    token: &[u8],
    format: &TextFormat,
    scratch: &mut String,
    printed: &mut Vec<u8>,
) -> bool {
    printed.clear();
    let precision = usize::from(format.precision.clamp(1, 17));
    // Fast path without formatting a float: a token of at most `precision` <= 6 digits
    // whose nearest f32 is normal (or zero from a zero token) prints as that same
    // decimal (FLT_DIG), so render the token's own decimal and compare.
    if precision <= 6 && (value.is_normal() && value.abs() < 3.4e38 || value == 0.0) {
        if let Some(d) = Decimal::of_token(token) {
            let zero_from_zero = value != 0.0 || d.digits() == b"0";
            if d.len <= precision && zero_from_zero {
                d.render(precision, format.exponent_digits, printed);
                return printed == token;
            }
        }
    }
    format_g(value, format, scratch, printed).is_ok() && printed == token
}

/// Exact powers of ten in `f32` (10¹⁰ = 2¹⁰ × 5¹⁰, and 5¹⁰ < 2²⁴).
pub(super) const POW10_F32: [f32; 11] = [
    1.0,
    10.0,
    100.0,
    1_000.0,
    10_000.0,
    100_000.0,
    1_000_000.0,
    10_000_000.0,
    100_000_000.0,
    1_000_000_000.0,
    10_000_000_000.0,
];

/// The digits of a mantissa, pushed in order: its significant digits (without leading
/// and trailing zeros) as an integer while there are at most [`FAST_DIGITS`], their
/// count, and the zeros before and after them.
#[derive(Default)]
pub(super) struct Digits {
    pub(super) value: u32,
    pub(super) count: usize,
    pub(super) leading: usize,
    /// Zeros since the last non-zero digit (the trailing zeros, at the end).
    pub(super) pending: usize,
}

/// Significant digits the exact `f32` fast path takes (below 2²⁴).
pub(super) const FAST_DIGITS: usize = 7;

impl Digits {
    pub(super) fn push(&mut self, b: u8) {
        let d = u32::from(b - b'0');
        if self.count == 0 && d == 0 {
            self.leading += 1;
        } else if d == 0 {
            self.pending += 1;
        } else {
            self.count += self.pending + 1;
            if self.count <= FAST_DIGITS {
                for _ in 0..self.pending {
                    self.value *= 10;
                }
                self.value = self.value * 10 + d;
            }
            self.pending = 0;
        }
    }
}

/// `±value × 10^exp` as the nearest `f32` (`value` having `count` significant digits),
/// when that is one exact operation: at most [`FAST_DIGITS`] digits (below 2²⁴, exact
/// in an `f32`) and |exp| ≤ 10 (an exact power of ten), so one correctly rounded
/// multiplication or division gives the correctly rounded result (Clinger's fast path).
/// `None` otherwise.
pub(super) fn fast_f32(negative: bool, value: u32, exp: i32, count: usize) -> Option<f32> {
    if count > FAST_DIGITS {
        return None;
    }
    let m = value as f32;
    let v = if count == 0 {
        0.0
    } else if exp >= 0 {
        m * *POW10_F32.get(exp as usize)?
    } else {
        m / *POW10_F32.get(exp.unsigned_abs() as usize)?
    };
    Some(if negative { -v } else { v })
}

/// The parts of a number token as [`Parser::number`](super::read::Parser::number) scanned them.
pub(super) struct Token<'a> {
    pub(super) plus: bool,
    pub(super) int: &'a [u8],
    pub(super) frac: Option<&'a [u8]>,
    /// (`e` or `E`, the exponent's sign, its digits)
    pub(super) exp: Option<(u8, Option<u8>, &'a [u8])>,
    /// Zeros before the first significant digit of `int` followed by `frac`.
    pub(super) leading: usize,
    /// Significant digits (no leading or trailing zeros).
    pub(super) significant: usize,
}

/// Whether `t` is exactly how `%g` with six significant digits and two-digit exponents
/// ([`TextFormat::canonical`]) prints `value`, judged from the token's form alone. It
/// says yes only where [`prints_as`] would (a test checks it on many tokens): at most six
/// significant digits and a normal (or zero) value, so the value prints back to the same
/// digits (FLT_DIG); then `%g`'s layout — fixed notation for exponents −4 to 5, with no
/// leading or trailing zeros and no bare point; else one digit, the fraction, and `e±dd`.
pub(super) fn canonical_g6(t: &Token<'_>, value: f32) -> bool {
    if t.plus {
        return false;
    }
    let frac_ok = match t.frac {
        None => true,
        Some(f) => f.last().is_some_and(|&b| b != b'0'),
    };
    if t.significant == 0 {
        // Zero prints as `0` or `-0`.
        return value == 0.0 && t.int == b"0" && t.frac.is_none() && t.exp.is_none();
    }
    if t.significant > 6 || !value.is_normal() || value.abs() >= 3.4e38 || !frac_ok {
        return false;
    }
    // The place of the first significant digit, as written in the mantissa.
    let place = t.int.len() as i32 - 1 - t.leading as i32;
    match t.exp {
        None => {
            if !(-4..=5).contains(&place) {
                return false;
            }
            if place >= 0 {
                t.int.first() != Some(&b'0')
            } else {
                t.int == b"0"
            }
        }
        Some((letter, sign, digits)) => {
            let e: i32 = digits.iter().fold(0i32, |acc, &b| {
                acc.saturating_mul(10).saturating_add(i32::from(b - b'0'))
            });
            let e = if sign == Some(b'-') { -e } else { e };
            let x = place + e;
            letter == b'e'
                && sign.is_some()
                && t.int.len() == 1
                && t.int.first() != Some(&b'0')
                && !(-4..=5).contains(&x)
                && digits.len() == if e.abs() >= 100 { 3 } else { 2 }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    /// `Decimal::exact` (integer arithmetic) rounds as Rust's exact `{:.*e}` does (ties
    /// to even, like glibc's `printf`), at every precision, on random bit patterns, on
    /// the neighbours of powers of ten and of values that round up to one, and on ties;
    /// it declines only zero, subnormals, infinities, NaN and values too far from 1.
    #[test]
    fn exact_decimal_agrees_with_rust_formatting() {
        use std::fmt::Write as _;
        let reference = |v: f32, p: usize| {
            let mut s = String::new();
            let _ = write!(s, "{:.*e}", p - 1, f64::from(v));
            super::Decimal::from_exponential(s.as_bytes()).expect("formats")
        };
        let same = |a: &super::Decimal, b: &super::Decimal| {
            a.negative == b.negative && a.exp == b.exp && a.digits() == b.digits()
        };
        let mut values: Vec<f32> = Vec::new();
        // A fixed pseudo-random sequence of bit patterns (xorshift).
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            values.push(f32::from_bits(x as u32));
        }
        for k in -40..=38 {
            let p = 10f64.powi(k) as f32;
            for v in [p, 9.5 * p / 10.0, 0.999_999_5 * p, 0.999_999_4 * p] {
                let b = v.to_bits();
                values.extend([b.wrapping_sub(1), b, b + 1].map(f32::from_bits));
            }
        }
        // Ties at six digits and at fewer: exact halves.
        values.extend([
            0.5,
            1.5,
            2.5,
            1_234_565.0,
            1_234_575.0,
            0.125,
            0.375,
            8_388_609.0,
        ]);
        let (mut exact, mut declined) = (0, 0);
        for v in values.iter().flat_map(|&v| [v, -v]) {
            for p in 1..=17 {
                match super::Decimal::exact(v, p) {
                    Some(d) => {
                        let r = reference(v, p);
                        assert!(same(&d, &r), "{v:e} ({:#x}) at {p} digits", v.to_bits());
                        exact += 1;
                    }
                    None => {
                        let tiny_or_huge = v.abs() < 1e-15 || v.abs() > 1e15;
                        assert!(
                            !v.is_normal() || tiny_or_huge || p > 6,
                            "{v:e} declined at {p} digits"
                        );
                        declined += 1;
                    }
                }
            }
        }
        assert!(
            exact > 1_000_000 && declined > 1_000,
            "{exact} exact, {declined} declined"
        );
    }

    /// The token fast path agrees with formatting the parsed value.
    #[test]
    fn fast_path_matches_formatting() {
        let tokens = [
            "0",
            "-0",
            "0.0",
            "00",
            "1",
            "1.0",
            "+1",
            ".5",
            "0.5",
            "5.",
            "100000",
            "1e+05",
            "1e5",
            "999999",
            "1e+06",
            "1000000",
            "0.0001",
            "1e-04",
            "1e-05",
            "0.00001",
            "1.5e-07",
            "1.5e-007",
            "1.50996e-007",
            "-1.23457e+06",
            "123456",
            "123456.7",
            "12345.6",
            "0.0068099",
            "0.00680995",
            "3.40282e+38",
            "1.17549e-38",
            "1.17549e-038",
            "9.99999e-05",
            "0.000999999",
            "-3.52221",
            "1E5",
            "1e-50",
            "0e0",
            "7e+010",
        ];
        let mut scratch = String::new();
        let mut printed = Vec::new();
        for precision in 1..=8 {
            for exponent_digits in [ExponentDigits::Two, ExponentDigits::Three] {
                let format = TextFormat {
                    precision,
                    exponent_digits,
                    ..TextFormat::canonical()
                };
                for t in tokens {
                    let v: f32 = t.parse::<f32>().unwrap().clamp(f32::MIN, f32::MAX);
                    let mut slow = Vec::new();
                    format_g(v, &format, &mut scratch, &mut slow).unwrap();
                    let fast = prints_as(v, t.as_bytes(), &format, &mut scratch, &mut printed);
                    assert_eq!(fast, slow == t.as_bytes(), "{t} at %.{precision}g");
                }
            }
        }
    }

    #[test]
    fn decimal_of_token() {
        let d = Decimal::of_token(b"-0.00120").unwrap();
        assert!(d.negative);
        assert_eq!((d.digits(), d.exp), (&b"12"[..], -3));
        let d = Decimal::of_token(b"120.5e-002").unwrap();
        assert_eq!((d.digits(), d.exp), (&b"1205"[..], 0));
        let d = Decimal::of_token(b"000").unwrap();
        assert_eq!((d.digits(), d.exp), (&b"0"[..], 0));
        assert!(Decimal::of_token(b"1.234567890123456789").is_none());
    }
}
