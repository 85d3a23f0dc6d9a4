//! FileMesh 1.00 and 1.01: the text format (spec section "version 1.00 & 1.01").
//!
//! A text mesh is three lines:
//!
//! ```text
//! version 1.00
//! 2
//! [x,y,z][nx,ny,nz][u,v,w][x,y,z][nx,ny,nz][u,v,w]… (num_faces × 9 bracketed triples)
//! ```
//!
//! Line 2 is the face count; line 3 holds, for every face, three vertices of
//! `[position][normal][uvw]`. This is the raw layer: values are kept exactly as in the
//! file (1.00 positions are not halved, V is not flipped; that is the model's job).
//!
//! # Exact round trip without keeping the text
//!
//! Every number is parsed to the nearest `f32` (what the engine stores). The text is not
//! kept; instead a per-file [`TextFormat`] says how the file prints its numbers and lines:
//! line ending, final newline, `%g` precision and exponent width. Writing formats each
//! value with that descriptor. A token the descriptor cannot reproduce from its value
//! (`1.0`, `+2`, `.5`, `1E5`, more digits than the precision…) is kept in a sparse list
//! of [`TokenOverride`]s, so the round trip stays byte-exact. Every real file tried needs
//! no override at all.
//!
//! An override is used only while the value it belongs to is unchanged (same bits), so
//! editing a value simply makes it print in the file's style.
//!
//! Reading chooses the descriptor from the file: the line ending of line 1 (the other
//! lines must match it); whether a line ending follows the data; the exponent width most
//! numbers with an exponent use (two when no number has one); precision 6, unless the
//! largest count of significant digits in any number gives fewer overrides.
//!
//! # Canonical format
//!
//! Meshes made elsewhere ([`FileMeshV1::new`]) use [`TextFormat::canonical`]: LF line
//! endings, **no** newline after the last `]` (like every real file), C `%g` with 6
//! significant digits (C++ iostream's default for `float`, ties to even) and two-digit
//! exponents (`1.5e-07`, as C99 and every current C runtime print them).
//!
//! Exact ties are rounded to even (`0.4453125` → `0.445312`). The old runtime that wrote
//! real files rounded them away from zero (`0.445313` in a real 1.01 file, where the UV
//! was evidently 114/256). This never matters for a value read from a file (the nearest
//! f32 of a 6-digit decimal is never such a tie), only for values from elsewhere.

//! # Where the stages live
//!
//! This file holds the types and their public API; the stages are rooms of their own:
//! `read.rs` (the parser and the streaming reader; `read/parts.rs`, a long data line
//! read in parts on several threads), `scan.rs` (the word-at-a-time fast
//! path for canonical numbers), `seen.rs` (triples and numbers read before, looked up
//! by their text), `block.rs` (32 bytes of text as two SIMD vectors: the triples'
//! keys), `number.rs` (`%g` printing and the exact number helpers), `overrides.rs`
//! (choosing a file's format and finding the tokens it does not reproduce) and
//! `write.rs` (the streaming writer). Imports run one way among them: `read` uses
//! `seen`, `scan`, `overrides` and `number`; `seen` uses `scan` and `block`; `scan`,
//! `overrides` and `write` use `number`.

mod block;
mod number;
mod overrides;
mod read;
mod scan;
mod seen;
mod write;

use serde::Serialize;

use super::Version;
use crate::error::{Error, ErrorKind, Result};
use number::{fast_f32, format_g, Decimal, FAST_DIGITS};
use read::{Parser, READ_PIECE};

/// `n` zeroed values for the parser's tables and faces: from zeroed memory (calloc:
/// the C library clears it with its widest stores, or takes pages the system zeroed)
/// from 4 KiB up, where writing value by value took 3-5% of a 6 KB file's parse (the
/// instruction counts miss it: a clearing `rep stos` counts per iteration); below, value
/// by value, as calloc (which skips the allocator's per-thread cache) costs more than
/// the writes (a 174-byte file's 1 KiB table: 3% slower from calloc).
fn zeroed<T: bytemuck::Zeroable + Clone>(n: usize) -> Vec<T> {
    if n.saturating_mul(std::mem::size_of::<T>()) >= 4096 {
        bytemuck::zeroed_vec(n)
    } else {
        vec![T::zeroed(); n]
    }
}
pub(crate) use write::write_faces;
/// One vertex point of a text mesh: three bracketed triples, in file order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct VertexV1 {
    /// `[pos_X,pos_Y,pos_Z]` (1.00: at twice the size of later versions; kept as read).
    pub position: [f32; 3],
    /// `[norm_X,norm_Y,norm_Z]` (not always unit length in real files).
    pub normal: [f32; 3],
    /// `[tex_U,tex_V,tex_W]` (V as in the file, not flipped; W is usually 0, not always).
    pub uvw: [f32; 3],
}

/// The line ending a text mesh uses (after the version line, the face count and, when
/// there is one, the data line).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub enum LineEnding {
    /// `\n`.
    #[default]
    Lf,
    /// `\r\n` (some real 1.00 files, throughout, version line included).
    CrLf,
}

impl LineEnding {
    /// The bytes of this line ending.
    pub fn as_bytes(self) -> &'static [u8] {
        match self {
            LineEnding::Lf => b"\n",
            LineEnding::CrLf => b"\r\n",
        }
    }
}

/// The minimum number of exponent digits of numbers in scientific notation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub enum ExponentDigits {
    /// At least two digits, `1.50996e-07`: C99, glibc, the current Microsoft runtime.
    #[default]
    Two,
    /// At least three digits, `1.50996e-007`: the Microsoft C runtime before 2015, which
    /// wrote the real CRLF 1.00 files.
    Three,
}

/// How a text mesh prints its numbers and lines: everything needed, with the values, to
/// write the file again byte for byte (see the [module docs](self)).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct TextFormat {
    /// Line ending of every line.
    pub line_ending: LineEnding,
    /// Whether the data line (line 3) is followed by a line ending.
    pub final_newline: bool,
    /// Significant digits of C's `%g` (C++ iostream's default precision is 6); 1 to 17.
    ///
    /// Numbers are printed like `printf("%.*g", precision, (double)value)`: the value is
    /// rounded to this many significant digits (ties to even), printed in scientific
    /// notation when its decimal exponent is below −4 or at least `precision`, else in
    /// fixed notation, and trailing zeros (and a trailing `.`) are removed.
    pub precision: u8,
    /// Minimum exponent width in scientific notation.
    pub exponent_digits: ExponentDigits,
}

impl TextFormat {
    /// The format for meshes that do not come from a file: LF, no final newline, `%g`
    /// with 6 significant digits, two-digit exponents.
    pub const fn canonical() -> TextFormat {
        TextFormat {
            line_ending: LineEnding::Lf,
            final_newline: false,
            precision: 6,
            exponent_digits: ExponentDigits::Two,
        }
    }

    /// Prints one number as this format does (`%g`, see [`TextFormat::precision`]),
    /// appending it to `out`. Fails for NaN, infinities and a precision outside 1..=17.
    pub fn write_number(&self, value: f32, out: &mut String) -> Result<()> {
        self.check()?;
        let mut bytes = Vec::with_capacity(16);
        let mut scratch = String::with_capacity(32);
        format_g(value, self, &mut scratch, &mut bytes).map_err(|m| {
            Error::new(
                "FileMeshV1",
                ErrorKind::Inconsistent(format!("{value}: {m}")),
            )
        })?;
        // Only ASCII is ever produced.
        out.extend(bytes.iter().map(|&b| char::from(b)));
        Ok(())
    }

    /// The value a reader gets from the text this format prints for `value`: `value`
    /// rounded to [`TextFormat::precision`] significant digits, then to the nearest `f32`
    /// (as [`FileMeshV1::read`] does, ±`f32::MAX` beyond the range). Fails for NaN and
    /// infinities, which text cannot hold. `scratch` and `printed` are reused between
    /// calls.
    pub(crate) fn read_back(
        &self,
        value: f32,
        scratch: &mut String,
        printed: &mut Vec<u8>,
    ) -> Result<f32, &'static str> {
        if !value.is_finite() {
            return Err("NaN and infinities cannot be written");
        }
        let precision = usize::from(self.precision.clamp(1, 17));
        // Nine significant digits tell every f32 apart: correctly rounded both ways, the
        // round trip gives the value back.
        if precision >= 9 {
            return Ok(value);
        }
        let d = Decimal::of(value, precision, scratch)?;
        // The reader's exact fast path, taken from the digits, where it applies.
        if d.len <= FAST_DIGITS {
            let digits = d.digits();
            let int = digits
                .iter()
                .fold(0u32, |acc, &b| acc * 10 + u32::from(b - b'0'));
            let count = if int == 0 { 0 } else { digits.len() };
            let place = d.exp - (digits.len() as i32 - 1);
            if let Some(v) = fast_f32(d.negative, int, place, count) {
                return Ok(v);
            }
        }
        printed.clear();
        d.render(precision, self.exponent_digits, printed);
        lexical_core::parse::<f32>(printed)
            .map(|v| v.clamp(f32::MIN, f32::MAX))
            .map_err(|_| "the printed number does not parse")
    }

    fn check(&self) -> Result<()> {
        if (1..=17).contains(&self.precision) {
            Ok(())
        } else {
            Err(Error::new(
                "FileMeshV1.format",
                ErrorKind::Inconsistent(format!("precision {} is outside 1..=17", self.precision)),
            ))
        }
    }
}

impl Default for TextFormat {
    /// [`TextFormat::canonical`].
    fn default() -> Self {
        TextFormat::canonical()
    }
}

/// A number whose text the file's [`TextFormat`] does not reproduce from its value, kept
/// as written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TokenOverride {
    /// Position of the number in the data line, from 0: face `index / 27`, vertex
    /// `index / 9 % 3`, triple `index / 3 % 3` (position, normal, uvw), component
    /// `index % 3`.
    pub index: usize,
    /// Bits of the `f32` the text was parsed to; the text is written only while the
    /// value there still has these bits.
    pub bits: u32,
    /// The text as in the file.
    pub text: String,
}

/// A FileMesh 1.00/1.01 text mesh: the faces and how the file prints them.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct FileMeshV1 {
    /// Three vertex points per face, in file order (line 2's count is derived on write).
    pub faces: Vec<[VertexV1; 3]>,
    /// How numbers and lines are printed.
    pub format: TextFormat,
    /// Tokens `format` does not reproduce, sorted by index (empty for every real file
    /// tried).
    overrides: Vec<TokenOverride>,
}

/// Numbers per face: 3 vertices × 3 triples × 3 components.
const NUMBERS_PER_FACE: usize = 27;

impl FileMeshV1 {
    /// A mesh from faces, with the [canonical format](TextFormat::canonical).
    pub fn new(faces: Vec<[VertexV1; 3]>) -> FileMeshV1 {
        Self::with_format(faces, TextFormat::canonical())
    }

    /// A mesh from faces with the given format.
    pub fn with_format(faces: Vec<[VertexV1; 3]>, format: TextFormat) -> FileMeshV1 {
        FileMeshV1 {
            faces,
            format,
            overrides: Vec::new(),
        }
    }

    /// Reads a whole text file (version line included); `version` is what the version
    /// line says (1.00 or 1.01). Every byte must belong to the three lines (plus one
    /// optional final line ending).
    ///
    /// Numbers follow `[+-]?(d+(.d*)?|.d+)([eE][+-]?d+)?` and are rounded to the nearest
    /// f32; a decimal beyond the f32 range reads as ±`f32::MAX` (its text kept as an
    /// override). Not accepted, as the layout could not be written back: whitespace
    /// anywhere, mixed LF/CRLF line endings, a face count with a sign or leading zero,
    /// `inf`/`nan`, anything after the optional final line ending.
    ///
    /// Errors ([`ErrorKind::Invalid`]) give the byte offset, and "line L, column C"
    /// (both from 1, columns in bytes) at the start of the message.
    pub fn read(bytes: &[u8], version: Version) -> Result<FileMeshV1> {
        Parser::new(bytes).read(version)
    }

    /// [`FileMeshV1::read`] from a reader at the file's start, `len` bytes long, without
    /// holding the text: it is read in pieces of about 256 KiB, so reading
    /// takes the faces' size in memory, not the text's as well. The same checks, errors
    /// (offsets, lines and columns) and result as [`FileMeshV1::read`].
    ///
    /// A file whose numbers are not all printed as the canonical format prints them (no
    /// real file tried) is read again to find the tokens to keep.
    pub fn read_from<R: std::io::Read + std::io::Seek>(
        reader: R,
        version: Version,
        len: u64,
    ) -> Result<FileMeshV1> {
        Self::read_in_pieces(reader, version, len, READ_PIECE)
    }

    /// Writes the whole file (version line included).
    ///
    /// Fails for a non-text `version`, a value that is NaN or infinite, or a precision
    /// outside 1..=17.
    pub fn write(&self, version: Version) -> Result<Vec<u8>> {
        let mut out =
            Vec::with_capacity(32 + self.faces.len().saturating_mul(NUMBERS_PER_FACE * 10));
        self.write_to(version, &mut out)?;
        Ok(out)
    }

    /// [`FileMeshV1::write`] into `out`, in pieces of about 64 KiB: the whole text is
    /// never held in memory.
    pub fn write_to(&self, version: Version, out: &mut dyn std::io::Write) -> Result<()> {
        write_faces(
            version,
            &self.format,
            &self.overrides,
            self.faces.len(),
            self.faces.iter().copied(),
            out,
        )
    }

    /// Number of faces.
    pub fn num_faces(&self) -> usize {
        self.faces.len()
    }

    /// Number of vertex points (three per face).
    pub fn num_vertices(&self) -> usize {
        self.faces.len() * 3
    }

    /// The numbers kept as written because [`FileMeshV1::format`] does not reproduce
    /// them, sorted by index.
    ///
    /// On write, an override is used for the number at its index only while that number
    /// still has the override's bits, so the text written always parses back to the
    /// value. After changing `format`, [`FileMeshV1::clear_overrides`] makes every number
    /// follow it.
    pub fn overrides(&self) -> &[TokenOverride] {
        &self.overrides
    }

    /// Forgets the kept texts: every number is then printed with the format.
    pub fn clear_overrides(&mut self) {
        self.overrides.clear();
    }
}

#[cfg(test)]
mod tests {
    /// [`super::TextFormat::read_back`] gives what writing the number and reading the
    /// file gives, at every precision, on random bit patterns, the extremes, subnormals,
    /// zeros and neighbours of powers of ten.
    #[test]
    fn read_back_agrees_with_writing_and_reading() {
        use super::{ExponentDigits, FileMeshV1, TextFormat, VertexV1};
        use crate::filemesh::raw::Version;
        let mut values: Vec<f32> = vec![
            0.0,
            -0.0,
            f32::MAX,
            f32::MIN,
            f32::MIN_POSITIVE,
            f32::from_bits(1),
            -f32::from_bits(0x7f_ffff),
            1.0,
            0.445_312_5,
        ];
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..27 * 400 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = f32::from_bits(x as u32);
            values.push(if v.is_finite() { v } else { v.to_bits() as f32 });
        }
        for k in -45..=38 {
            let b = (10f64.powi(k) as f32).to_bits();
            values.extend([b.wrapping_sub(1), b, b + 1].map(f32::from_bits));
        }
        while !values.len().is_multiple_of(27) {
            values.push(0.5);
        }
        let faces: Vec<[VertexV1; 3]> = values
            .chunks(27)
            .map(|c| {
                let t = |k: usize| [0, 1, 2].map(|d| c.get(k + d).copied().unwrap_or(0.0));
                let v = |k: usize| VertexV1 {
                    position: t(k),
                    normal: t(k + 3),
                    uvw: t(k + 6),
                };
                [v(0), v(9), v(18)]
            })
            .collect();
        let (mut scratch, mut printed) = (String::new(), Vec::new());
        for precision in 1..=17 {
            for exponent_digits in [ExponentDigits::Two, ExponentDigits::Three] {
                let format = TextFormat {
                    precision,
                    exponent_digits,
                    ..TextFormat::canonical()
                };
                let mesh = FileMeshV1::with_format(faces.clone(), format);
                let bytes = mesh.write(Version::V1_01).unwrap();
                let back = FileMeshV1::read(&bytes, Version::V1_01).unwrap();
                let read: Vec<f32> = back
                    .faces
                    .iter()
                    .flatten()
                    .flat_map(|v| v.position.into_iter().chain(v.normal).chain(v.uvw))
                    .collect();
                assert_eq!(read.len(), values.len());
                for (&v, &r) in values.iter().zip(&read) {
                    let ours = format.read_back(v, &mut scratch, &mut printed).unwrap();
                    assert_eq!(
                        ours.to_bits(),
                        r.to_bits(),
                        "{v:e} ({:#x}) at precision {precision}",
                        v.to_bits()
                    );
                }
            }
        }
        assert!(TextFormat::canonical()
            .read_back(f32::NAN, &mut scratch, &mut printed)
            .is_err());
    }
}
