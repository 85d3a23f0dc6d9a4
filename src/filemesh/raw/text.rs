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

use std::fmt::Write as _;

use serde::Serialize;

use super::Version;
use crate::error::{Error, ErrorKind, Result};

/// One vertex point of a text mesh: three bracketed triples, in file order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
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

/// Shortest text of a face: 9 triples of at least `[0,0,0]`.
const MIN_FACE_BYTES: u64 = 9 * 7;
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

    /// [`FileMeshV1::read_from`] reading `piece` bytes at a time (at least).
    fn read_in_pieces<R: std::io::Read + std::io::Seek>(
        mut reader: R,
        version: Version,
        len: u64,
        piece: usize,
    ) -> Result<FileMeshV1> {
        let file_len = usize::try_from(len).unwrap_or(usize::MAX);
        let mut input = Pieces::new(&mut reader, 0);
        // Lines 1 and 2 are decided within their first 64 bytes: a count of more than
        // 20 digits is too large.
        input.fill(piece.max(64))?;
        let mut p = Parser::new(&input.buf);
        p.file_len = file_len;
        let count = p.header(version)?;
        let data_start = p.pos;
        let (mut pos, mut stats) = (p.pos, std::mem::take(&mut p.stats));
        let mut faces = Vec::with_capacity(count.faces);
        // The first piece starts at line 1; later ones within line 3 (the data).
        let (mut line, mut line_start) = (1, 0);
        loop {
            let left = count.faces - faces.len();
            // Each face read takes exactly nine `]` (numbers hold none), so this many
            // faces are whole in the piece; errors within them are the file's. At the end
            // of the file, every face left is read (and the errors there reported).
            let whole = if input.eof {
                left
            } else {
                let closes = input.buf.get(pos..).unwrap_or_default();
                (closes.iter().filter(|&&b| b == b']').count() / 9).min(left)
            };
            let mut p = Parser {
                bytes: &input.buf,
                pos,
                stats,
                origin: input.origin,
                line,
                line_start,
                file_len,
            };
            for _ in 0..whole {
                let face = p.face(faces.len(), count.faces)?;
                faces.push(face);
            }
            (pos, stats) = (p.pos, p.stats);
            if faces.len() == count.faces {
                break;
            }
            input.advance(pos);
            pos = 0;
            (line, line_start) = (3, data_start);
            // A piece too short for the next face grows.
            input.fill(piece.max(2 * input.buf.len()))?;
        }
        let data_end = input.origin + pos;
        // The tail is at most a line ending: a few bytes decide it.
        input.advance(pos);
        input.fill(4)?;
        let mut p = Parser {
            bytes: &input.buf,
            pos: 0,
            stats,
            origin: input.origin,
            line: 3,
            line_start: data_start,
            file_len,
        };
        let final_newline = p.tail(count.faces, count.line_ending)?;
        let stats = p.stats;
        let mut failed = None;
        let (format, overrides) =
            choose_format(&stats, count.line_ending, final_newline, |format| {
                let mut scan = OverrideScan::new(&faces, format);
                if let Err(e) = scan_from(&mut reader, data_start, data_end, piece, &mut scan) {
                    failed.get_or_insert(e);
                }
                scan.found
            });
        if let Some(e) = failed {
            return Err(e);
        }
        Ok(FileMeshV1 {
            faces,
            format,
            overrides,
        })
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

/// Bytes [`FileMeshV1::read_from`] reads at a time.
const READ_PIECE: usize = 1 << 18;

/// A reader's bytes, a piece at a time: `buf` holds the file from `origin` on.
struct Pieces<'r, R> {
    reader: &'r mut R,
    buf: Vec<u8>,
    origin: usize,
    eof: bool,
}

impl<'r, R: std::io::Read> Pieces<'r, R> {
    /// Pieces of `reader`, which is at file offset `origin`.
    fn new(reader: &'r mut R, origin: usize) -> Self {
        Pieces {
            reader,
            buf: Vec::new(),
            origin,
            eof: false,
        }
    }

    /// Reads until `buf` holds `want` bytes or the file ends.
    fn fill(&mut self, want: usize) -> Result<()> {
        use std::io::Read;
        if self.buf.len() >= want || self.eof {
            return Ok(());
        }
        let more = (want - self.buf.len()) as u64;
        let got = (&mut *self.reader)
            .take(more)
            .read_to_end(&mut self.buf)
            .map_err(|e| Error::new("input", ErrorKind::Io(e)))?;
        if (got as u64) < more {
            self.eof = true;
        }
        Ok(())
    }

    /// Drops the first `n` bytes of `buf`.
    fn advance(&mut self, n: usize) {
        let n = n.min(self.buf.len());
        self.buf.drain(..n);
        self.origin += n;
    }
}

/// Scans the data line, `start..end` of the file `reader` holds, in pieces that end at a
/// separator, so that no token is cut.
fn scan_from<R: std::io::Read + std::io::Seek>(
    reader: &mut R,
    start: usize,
    end: usize,
    piece: usize,
    scan: &mut OverrideScan<'_>,
) -> Result<()> {
    use std::io::{Read, SeekFrom};
    let io = |e: std::io::Error| Error::new("input", ErrorKind::Io(e));
    reader.seek(SeekFrom::Start(start as u64)).map_err(io)?;
    let mut data = reader.take(end.saturating_sub(start) as u64);
    let mut input = Pieces::new(&mut data, start);
    loop {
        input.fill(piece.max(2 * input.buf.len()))?;
        let cut = if input.eof {
            input.buf.len()
        } else {
            match input
                .buf
                .iter()
                .rposition(|&b| matches!(b, b'[' | b']' | b','))
            {
                Some(i) => i + 1,
                // No separator yet: read more.
                None => continue,
            }
        };
        scan.scan(input.buf.get(..cut).unwrap_or_default());
        input.advance(cut);
        if input.eof {
            return Ok(());
        }
    }
}

/// Bytes gathered before they are passed on to the writer.
const WRITE_PIECE: usize = 1 << 16;

/// Writes a text mesh of `num_faces` faces, given one at a time, into `out` (see
/// [`FileMeshV1::write`]), in pieces of about [`WRITE_PIECE`] bytes. `overrides` (sorted
/// by index) give the text of a number while it has their bits. Fails, having written
/// part of the file, if `faces` gives a number of faces other than `num_faces`.
pub(crate) fn write_faces(
    version: Version,
    format: &TextFormat,
    overrides: &[TokenOverride],
    num_faces: usize,
    faces: impl Iterator<Item = [VertexV1; 3]>,
    out: &mut dyn std::io::Write,
) -> Result<()> {
    if !version.is_text() {
        return Err(Error::new(
            "FileMeshV1",
            ErrorKind::Inconsistent(format!("{version} is not a text version")),
        ));
    }
    format.check()?;
    let io = |e: std::io::Error| Error::new("output", ErrorKind::Io(e));
    let nl = format.line_ending.as_bytes();
    let mut piece = Vec::with_capacity(WRITE_PIECE + 1024);
    piece.extend_from_slice(version.line().get(..12).unwrap_or_default());
    piece.extend_from_slice(nl);
    piece.extend_from_slice(num_faces.to_string().as_bytes());
    piece.extend_from_slice(nl);
    let mut scratch = String::with_capacity(32);
    let mut overrides = overrides.iter().peekable();
    let mut index = 0usize;
    let mut written = 0usize;
    for (f, face) in faces.enumerate() {
        for vertex in &face {
            for triple in [&vertex.position, &vertex.normal, &vertex.uvw] {
                piece.push(b'[');
                for (c, &value) in triple.iter().enumerate() {
                    if c > 0 {
                        piece.push(b',');
                    }
                    while overrides.next_if(|o| o.index < index).is_some() {}
                    match overrides.next_if(|o| o.index == index) {
                        Some(o) if o.bits == value.to_bits() => {
                            piece.extend_from_slice(o.text.as_bytes())
                        }
                        _ => format_g(value, format, &mut scratch, &mut piece).map_err(|m| {
                            Error::new(
                                format!("FileMeshV1.faces[{f}]"),
                                ErrorKind::Inconsistent(format!("number {index} ({value}): {m}")),
                            )
                        })?,
                    }
                    index += 1;
                }
                piece.push(b']');
            }
        }
        written += 1;
        if piece.len() >= WRITE_PIECE {
            out.write_all(&piece).map_err(io)?;
            piece.clear();
        }
    }
    if written != num_faces {
        return Err(Error::new(
            "FileMeshV1",
            ErrorKind::Inconsistent(format!("{written} faces given for {num_faces}")),
        ));
    }
    if format.final_newline {
        piece.extend_from_slice(nl);
    }
    out.write_all(&piece).map_err(io)
}

/// A decimal `±d₁.d₂…dₙ × 10^exp` without trailing zeros (zero is the single digit `0`
/// with exponent 0).
struct Decimal {
    negative: bool,
    digits: [u8; 17],
    len: usize,
    exp: i32,
}

impl Decimal {
    fn digits(&self) -> &[u8] {
        self.digits.get(..self.len.max(1)).unwrap_or(b"0")
    }

    /// `value` rounded to `precision` (1..=17) significant digits, ties to even.
    fn of(value: f32, precision: usize, scratch: &mut String) -> Result<Decimal, &'static str> {
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
    fn render(&self, precision: usize, exponent_digits: ExponentDigits, out: &mut Vec<u8>) {
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
fn format_g(
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
fn prints_as(
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

/// Error contexts of the three lines.
const LINE1: &str = "version line";
const LINE2: &str = "FileMeshV1.num_faces";
const LINE3: &str = "FileMeshV1.faces";

/// What lines 1 and 2 say.
struct Header {
    line_ending: LineEnding,
    faces: usize,
}

/// The format a file's numbers are printed in, and the tokens it does not reproduce:
/// the exponent width most numbers use; precision 6, unless the largest count of
/// significant digits gives fewer overrides. `overrides_for` finds a format's
/// overrides (a pass over the data).
fn choose_format(
    stats: &NumberStats,
    line_ending: LineEnding,
    final_newline: bool,
    mut overrides_for: impl FnMut(&TextFormat) -> Vec<TokenOverride>,
) -> (TextFormat, Vec<TokenOverride>) {
    let mut format = TextFormat {
        line_ending,
        final_newline,
        exponent_digits: if stats.exp_three > stats.exp_two {
            ExponentDigits::Three
        } else {
            ExponentDigits::Two
        },
        ..TextFormat::canonical()
    };
    // Every number as the canonical format prints it: nothing to keep.
    let canonical = stats.not_canonical == 0
        && format.precision == 6
        && format.exponent_digits == ExponentDigits::Two;
    let mut overrides = if canonical {
        Vec::new()
    } else {
        overrides_for(&format)
    };
    // Another precision only when 6 does not fit and the digits suggest one.
    let digits = stats.max_digits;
    if !overrides.is_empty() && (1..=17).contains(&digits) && digits != 6 {
        let other = TextFormat {
            precision: digits as u8,
            ..format
        };
        let alt = overrides_for(&other);
        if alt.len() < overrides.len() {
            format = other;
            overrides = alt;
        }
    }
    (format, overrides)
}

/// What the number scan learns for choosing the format.
#[derive(Default)]
struct NumberStats {
    /// Numbers with a two-digit exponent (`e-07`).
    exp_two: usize,
    /// Numbers with a three-digit exponent starting with 0 (`e-007`).
    exp_three: usize,
    /// Most significant digits in any number.
    max_digits: usize,
    /// Numbers that the canonical format would not print as written.
    not_canonical: usize,
}

/// A parser over `bytes`: the whole file, or a window of it (see
/// [`FileMeshV1::read_from`]).
struct Parser<'a> {
    bytes: &'a [u8],
    pos: usize,
    stats: NumberStats,
    /// Where `bytes` starts in the file.
    origin: usize,
    /// The line (from 1) that `bytes` starts in, and where in the file that line starts.
    line: usize,
    line_start: usize,
    /// The file's length.
    file_len: usize,
}

impl<'a> Parser<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Parser {
            bytes,
            pos: 0,
            stats: NumberStats::default(),
            origin: 0,
            line: 1,
            line_start: 0,
            file_len: bytes.len(),
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    /// An error at `offset` with "line L, column C: msg".
    fn error_at(&self, offset: usize, context: &str, msg: impl std::fmt::Display) -> Error {
        let before = self.bytes.get(..offset).unwrap_or(self.bytes);
        let line = self.line + before.iter().filter(|&&b| b == b'\n').count();
        let line_start = before
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(self.line_start, |p| self.origin + p + 1);
        let at = self.origin + offset;
        let column = at.saturating_sub(line_start) + 1;
        Error::at(
            at as u64,
            context,
            ErrorKind::Invalid(format!("line {line}, column {column}: {msg}")),
        )
    }

    fn error(&self, context: &str, msg: impl std::fmt::Display) -> Error {
        self.error_at(self.pos, context, msg)
    }

    /// What is at the current position, for messages.
    fn found(&self) -> String {
        describe(self.peek())
    }

    /// Reads a line ending; `expected` is the file's style once known.
    fn line_ending(&mut self, expected: Option<LineEnding>, context: &str) -> Result<LineEnding> {
        let got = match (self.peek(), self.bytes.get(self.pos + 1)) {
            (Some(b'\n'), _) => LineEnding::Lf,
            (Some(b'\r'), Some(b'\n')) => LineEnding::CrLf,
            _ => {
                return Err(self.error(
                    context,
                    format_args!("expected a line ending, found {}", self.found()),
                ))
            }
        };
        if let Some(want) = expected.filter(|&w| w != got) {
            return Err(self.error(
                context,
                format_args!(
                    "mixed line endings: {} here but {} after line 1",
                    name(got),
                    name(want)
                ),
            ));
        }
        self.pos += got.as_bytes().len();
        Ok(got)
    }

    #[inline]
    fn expect(&mut self, byte: u8, context: &str, what: &str) -> Result<()> {
        if self.peek() == Some(byte) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.expected(byte, context, what))
        }
    }

    #[cold]
    #[inline(never)]
    fn expected(&self, byte: u8, context: &str, what: &str) -> Error {
        self.error(
            context,
            format_args!(
                "expected '{}' {what}, found {}",
                char::from(byte),
                self.found()
            ),
        )
    }

    fn read(mut self, version: Version) -> Result<FileMeshV1> {
        let count = self.header(version)?;
        let data_start = self.pos;
        let mut faces = Vec::with_capacity(count.faces);
        for f in 0..count.faces {
            faces.push(self.face(f, count.faces)?);
        }
        let data_end = self.pos;
        let final_newline = self.tail(count.faces, count.line_ending)?;
        let data = self.bytes.get(data_start..data_end).unwrap_or_default();
        let (format, overrides) =
            choose_format(&self.stats, count.line_ending, final_newline, |format| {
                let mut scan = OverrideScan::new(&faces, format);
                scan.scan(data);
                scan.found
            });
        Ok(FileMeshV1 {
            faces,
            format,
            overrides,
        })
    }

    /// Lines 1 and 2: the version line and the face count, which must fit the rest of
    /// the file.
    fn header(&mut self, version: Version) -> Result<Header> {
        if !version.is_text() {
            return Err(self.error(LINE1, format_args!("{version} is not a text version")));
        }
        let line = version.line();
        let want = line.get(..12).unwrap_or_default();
        if let Some(bad) = (0..12).find(|&i| self.bytes.get(i) != want.get(i)) {
            return Err(self.error_at(
                bad,
                LINE1,
                format_args!(
                    "expected \"version {version}\", found {}",
                    describe(self.bytes.get(bad).copied())
                ),
            ));
        }
        self.pos = 12;
        let line_ending = self.line_ending(None, LINE1)?;

        // Line 2: the face count, plain decimal digits.
        let count_start = self.pos;
        let mut count: u64 = 0;
        while let Some(b @ b'0'..=b'9') = self.peek() {
            if self.pos > count_start && count == 0 {
                return Err(self.error_at(
                    count_start,
                    LINE2,
                    "a face count with a leading zero is not supported",
                ));
            }
            count = count
                .checked_mul(10)
                .and_then(|c| c.checked_add(u64::from(b - b'0')))
                .ok_or_else(|| self.error_at(count_start, LINE2, "the face count is too large"))?;
            self.pos += 1;
        }
        if self.pos == count_start {
            return Err(self.error(
                LINE2,
                format_args!("expected the face count (digits), found {}", self.found()),
            ));
        }
        if !matches!(self.peek(), Some(b'\r' | b'\n')) {
            return Err(self.error(
                LINE2,
                format_args!(
                    "expected a line ending after the face count, found {}",
                    self.found()
                ),
            ));
        }
        self.line_ending(Some(line_ending), LINE2)?;

        // Never allocate for more faces than the remaining text can hold.
        let remaining = self.file_len.saturating_sub(self.origin + self.pos) as u64;
        let needed = count.saturating_mul(MIN_FACE_BYTES);
        if needed > remaining {
            return Err(self.error_at(
                count_start,
                LINE2,
                format_args!(
                    "{count} faces need at least {needed} bytes of text but only {remaining} remain"
                ),
            ));
        }
        let faces = usize::try_from(count)
            .map_err(|_| self.error_at(count_start, LINE2, "the face count is too large"))?;
        Ok(Header { line_ending, faces })
    }

    /// Face `f` of the `count` line 2 gives (line 3).
    #[inline]
    fn face(&mut self, f: usize, count: usize) -> Result<[VertexV1; 3]> {
        if matches!(self.peek(), None | Some(b'\r' | b'\n')) {
            return Err(self.error(
                LINE3,
                format_args!(
                    "line 2 says {count} faces but the data ends after {f} (found {})",
                    self.found()
                ),
            ));
        }
        let mut face = [VertexV1::default(); 3];
        for vertex in &mut face {
            for triple in [&mut vertex.position, &mut vertex.normal, &mut vertex.uvw] {
                *triple = self.triple(LINE3)?;
            }
        }
        Ok(face)
    }

    /// What follows the last face: nothing, or one line ending, then the end of the
    /// file. Whether there is a final line ending.
    fn tail(&mut self, count: usize, line_ending: LineEnding) -> Result<bool> {
        let final_newline = match self.peek() {
            None => false,
            Some(b'[') => {
                return Err(self.error(
                    LINE3,
                    format_args!("more data after the {count} faces line 2 says"),
                ))
            }
            Some(b'\r' | b'\n') => {
                self.line_ending(Some(line_ending), LINE3)?;
                true
            }
            Some(_) => {
                return Err(self.error(
                    LINE3,
                    format_args!("unexpected {} after the last face", self.found()),
                ))
            }
        };
        let end = self.origin + self.pos;
        if end < self.file_len {
            return Err(self.error(
                LINE3,
                format_args!(
                    "{} unexpected bytes after the last line",
                    self.file_len - end
                ),
            ));
        }
        Ok(final_newline)
    }

    /// `[a,b,c]`.
    #[inline]
    fn triple(&mut self, context: &str) -> Result<[f32; 3]> {
        match self.canonical_triple() {
            Some(t) => Ok(t),
            None => self.any_triple(context),
        }
    }

    /// `[a,b,c]` with three numbers as the canonical format prints them
    /// ([`canonical_number`]), which is what real files hold: read without the general
    /// scan. `None` (nothing read) for anything else, which [`Parser::any_triple`] then
    /// reads (or reports).
    #[inline(always)]
    fn canonical_triple(&mut self) -> Option<[f32; 3]> {
        let rest = self.bytes.get(self.pos..)?;
        if rest.first() != Some(&b'[') {
            return None;
        }
        let mut i = 1;
        let mut out = [0.0f32; 3];
        let (mut exp_two, mut max_digits) = (0, 0);
        for (k, slot) in out.iter_mut().enumerate() {
            let n = canonical_number(rest.get(i..)?)?;
            i += n.len;
            let close = if k == 2 { b']' } else { b',' };
            if rest.get(i) != Some(&close) {
                return None;
            }
            i += 1;
            *slot = n.value;
            exp_two += usize::from(n.exponent);
            max_digits = max_digits.max(n.significant);
        }
        self.stats.exp_two += exp_two;
        self.stats.max_digits = self.stats.max_digits.max(max_digits);
        self.pos += i;
        Some(out)
    }

    /// [`Parser::triple`] for any numbers the grammar admits.
    #[inline(never)]
    fn any_triple(&mut self, context: &str) -> Result<[f32; 3]> {
        self.expect(b'[', context, "to open a triple")?;
        let a = self.number(context)?;
        self.expect(b',', context, "after a number")?;
        let b = self.number(context)?;
        self.expect(b',', context, "after a number")?;
        let c = self.number(context)?;
        self.expect(b']', context, "after the third number")?;
        Ok([a, b, c])
    }

    /// `[+-]?(d+(.d*)?|.d+)([eE][+-]?d+)?`, to the nearest finite f32.
    ///
    /// One pass over the token: its parts give the value (exactly, by [`fast_f32`], for
    /// the short decimals Roblox writes; else by `lexical-core`), the statistics that
    /// choose the format, and whether the token is how the canonical format prints its
    /// value ([`canonical_g6`]), which saves comparing it later.
    fn number(&mut self, context: &str) -> Result<f32> {
        let start = self.pos;
        let bytes = self.bytes;
        let rest = bytes.get(start..).unwrap_or_default();
        let negative = rest.first() == Some(&b'-');
        let plus = rest.first() == Some(&b'+');
        let mut i = usize::from(negative || plus);
        // The mantissa's digits in one pass: its significant digits as an integer (while
        // they fit the fast path), how many there are, and the zeros around them.
        let mut digits = Digits::default();
        let int_start = i;
        while let Some(&b @ b'0'..=b'9') = rest.get(i) {
            digits.push(b);
            i += 1;
        }
        let int = rest.get(int_start..i).unwrap_or_default();
        let mut frac: Option<&[u8]> = None;
        if rest.get(i) == Some(&b'.') {
            i += 1;
            let frac_start = i;
            while let Some(&b @ b'0'..=b'9') = rest.get(i) {
                digits.push(b);
                i += 1;
            }
            frac = rest.get(frac_start..i);
        }
        let frac_digits = frac.unwrap_or_default();
        let mantissa_digits = int.len() + frac_digits.len();
        // (letter, sign, digits)
        let mut exp: Option<(u8, Option<u8>, &[u8])> = None;
        if let (true, Some(&letter @ (b'e' | b'E'))) = (mantissa_digits > 0, rest.get(i)) {
            let sign = rest
                .get(i + 1)
                .copied()
                .filter(|b| matches!(b, b'+' | b'-'));
            let mut j = i + 1 + usize::from(sign.is_some());
            let exp_start = j;
            while let Some(b'0'..=b'9') = rest.get(j) {
                j += 1;
            }
            if j > exp_start {
                exp = Some((letter, sign, rest.get(exp_start..j).unwrap_or_default()));
                i = j;
            }
        }
        if mantissa_digits == 0
            || matches!(
                rest.get(i),
                Some(b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-')
            )
        {
            let at = |k: usize| bytes.get(k).copied();
            let end = (start + i..)
                .find(|&k| !matches!(at(k), Some(b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-')))
                .unwrap_or(start + i);
            let msg = if end == start {
                format!("expected a number, found {}", self.found())
            } else {
                let text = String::from_utf8_lossy(bytes.get(start..end).unwrap_or_default());
                format!("{text:?} is not a number")
            };
            return Err(self.error_at(start, context, msg));
        }
        let text = rest.get(..i).unwrap_or_default();
        // The exponent as written (`None` when too long to matter for the fast path).
        let written_exp: Option<i32> = match exp {
            None => Some(0),
            Some((_, sign, d)) if d.len() <= 4 => {
                let v = d
                    .iter()
                    .fold(0i32, |acc, &b| acc * 10 + i32::from(b - b'0'));
                Some(if sign == Some(b'-') { -v } else { v })
            }
            Some(_) => None,
        };
        let (leading, trailing, significant) = (digits.leading, digits.pending, digits.count);
        // A decimal beyond the f32 range (`1e39`, or `3.403e+38`, f32::MAX printed with 4
        // digits) gets the nearest finite f32, ±f32::MAX; the text is then kept as an
        // override if need be.
        let fast = written_exp.and_then(|e| {
            // The place of the last significant digit.
            let place = e - frac_digits.len() as i32 + trailing as i32;
            fast_f32(negative, digits.value, place, significant)
        });
        let value = match fast {
            Some(v) => v,
            // The scan above admits only the grammar's ASCII, which lexical-core parses as
            // it stands (no UTF-8 pass), correctly rounded to the nearest f32 as Rust's
            // parser does (a test compares the two).
            None => lexical_core::parse::<f32>(text)
                .map_err(|_| self.error_at(start, context, "not a number"))?
                .clamp(f32::MIN, f32::MAX),
        };
        match exp {
            Some((_, _, d)) if d.len() == 2 => self.stats.exp_two += 1,
            Some((_, _, d)) if d.len() == 3 && d.first() == Some(&b'0') => {
                self.stats.exp_three += 1
            }
            _ => {}
        }
        self.stats.max_digits = self.stats.max_digits.max(significant);
        let point = Token {
            plus,
            int,
            frac,
            exp,
            leading,
            significant,
        };
        if !canonical_g6(&point, value) {
            self.stats.not_canonical += 1;
        }
        self.pos = start + i;
        Ok(value)
    }
}

/// A number [`canonical_number`] read: its value, its length in bytes, its significant
/// digits and whether it has an exponent.
struct Canonical {
    value: f32,
    len: usize,
    significant: usize,
    exponent: bool,
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

/// The place of the first `,` or `]` in 16 bytes (`low` first), if there is one.
///
/// A byte equal to the one sought becomes 0 under the XOR, and subtracting 1 sets its
/// top bit; no other byte gets a mark (top bit set by the subtraction and clear before
/// it) unless a borrow reaches it, and borrows start only at a 0 byte and move towards
/// later bytes. So the first mark of each search is exact, and so is the first of
/// their union.
#[inline(always)]
fn separator(low: u64, high: u64) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const TOPS: u64 = 0x8080_8080_8080_8080;
    let zero = |x: u64| x.wrapping_sub(ONES) & !x & TOPS;
    let marks = |w: u64| zero(w ^ (ONES * u64::from(b','))) | zero(w ^ (ONES * u64::from(b']')));
    let marks = u128::from(marks(low)) | u128::from(marks(high)) << 64;
    (marks != 0).then(|| (marks.trailing_zeros() / 8) as usize)
}

/// Exact powers of ten in `f64`, 10⁰ to 10²² (5²² < 2⁵³).
const POW10_F64: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// The 29 low bits of an `f64` that rounding to `f32` drops (for an `f64` in the range
/// of normal `f32`s): `HALF` there is exactly halfway between two `f32`s.
const DROPPED: u64 = 0x1FFF_FFFF;
const HALF: u64 = 0x1000_0000;

/// `m × 10^exp` (`m` below 2²⁴) as the nearest `f32`, when that is cheap and exact:
///
/// - |exp| ≤ 10: one `f32` operation with an exact power of ten, correctly rounded
///   (Clinger's fast path, as [`fast_f32`]);
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
    if let Some(&p) = POW10_F32.get(k) {
        let m = m as f32;
        return Some(if exp >= 0 { m * p } else { m / p });
    }
    let (m, p) = (f64::from(m), *POW10_F64.get(k)?);
    let v = if exp >= 0 { m * p } else { m / p };
    (v.to_bits() & DROPPED != HALF).then_some(v as f32)
}

/// A number exactly as the canonical format ([`TextFormat::canonical`]: `%g`, six
/// significant digits, two-digit exponent) prints its value, at the start of `rest`,
/// followed by `,` or `]`: `-?` then `0`, `0.ddd` (first significant digit at most
/// four places after the point), `d…` (up to 6 digits, the first not 0), `d….d…` or
/// `d.d…e±dd` (exponent below −4 or above 5), at most six significant digits, no
/// trailing zero after a point. Such tokens are ones [`canonical_g6`] accepts; they are
/// read with a few word operations into the value the general scan gives. `None` for
/// anything else, and for the few such tokens [`scale`] leaves (a power of ten beyond
/// 10²², an `f64` halfway case) or that start within sixteen bytes of the end of the
/// data.
#[inline(always)]
fn canonical_number(rest: &[u8]) -> Option<Canonical> {
    // Where the number ends, found first and apart from the parse below (which must
    // end there too): the next number's start then depends on two loads and a few word
    // operations, not on the whole parse, so consecutive numbers overlap.
    let len = separator(load8(rest, 0)?, load8(rest, 8)?)?;
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
        b',' | b']' => (scale(m, -(frac_len as i32))?, i, significant, false),
        b'e' => {
            // `d.d…e±dd`: one integer digit, not 0.
            if int_len != 1 || zero_int {
                return None;
            }
            let &[sign, d1, d2, end] = rest.get(i + 1..i + 5)? else {
                return None;
            };
            if !d1.is_ascii_digit() || !d2.is_ascii_digit() || !matches!(end, b',' | b']') {
                return None;
            }
            let e = i32::from(d1 - b'0') * 10 + i32::from(d2 - b'0');
            let e = match sign {
                b'-' => -e,
                b'+' => e,
                _ => return None,
            };
            if (-4..=5).contains(&e) {
                return None;
            }
            (scale(m, e - frac_len as i32)?, i + 4, significant, true)
        }
        _ => return None,
    };
    if len != end {
        return None;
    }
    Some(Canonical {
        value: if negative { -value } else { value },
        len,
        significant,
        exponent,
    })
}

/// Exact powers of ten in `f32` (10¹⁰ = 2¹⁰ × 5¹⁰, and 5¹⁰ < 2²⁴).
const POW10_F32: [f32; 11] = [
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
struct Digits {
    value: u32,
    count: usize,
    leading: usize,
    /// Zeros since the last non-zero digit (the trailing zeros, at the end).
    pending: usize,
}

/// Significant digits the exact `f32` fast path takes (below 2²⁴).
const FAST_DIGITS: usize = 7;

impl Digits {
    fn push(&mut self, b: u8) {
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
fn fast_f32(negative: bool, value: u32, exp: i32, count: usize) -> Option<f32> {
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

/// The parts of a number token as [`Parser::number`] scanned them.
struct Token<'a> {
    plus: bool,
    int: &'a [u8],
    frac: Option<&'a [u8]>,
    /// (`e` or `E`, the exponent's sign, its digits)
    exp: Option<(u8, Option<u8>, &'a [u8])>,
    /// Zeros before the first significant digit of `int` followed by `frac`.
    leading: usize,
    /// Significant digits (no leading or trailing zeros).
    significant: usize,
}

/// Whether `t` is exactly how `%g` with six significant digits and two-digit exponents
/// ([`TextFormat::canonical`]) prints `value`, judged from the token's form alone. It
/// says yes only where [`prints_as`] would (a test checks it on many tokens): at most six
/// significant digits and a normal (or zero) value, so the value prints back to the same
/// digits (FLT_DIG); then `%g`'s layout — fixed notation for exponents −4 to 5, with no
/// leading or trailing zeros and no bare point; else one digit, the fraction, and `e±dd`.
fn canonical_g6(t: &Token<'_>, value: f32) -> bool {
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

/// The numbers of a validated data line that `format` does not print as written.
/// The numbers of the data line that a format does not print as written, found token
/// by token over the data given in pieces (each ending at a `[`, `]` or `,`).
struct OverrideScan<'f> {
    faces: &'f [[VertexV1; 3]],
    format: &'f TextFormat,
    /// The next number's index.
    index: usize,
    scratch: String,
    printed: Vec<u8>,
    found: Vec<TokenOverride>,
}

impl<'f> OverrideScan<'f> {
    fn new(faces: &'f [[VertexV1; 3]], format: &'f TextFormat) -> Self {
        OverrideScan {
            faces,
            format,
            index: 0,
            scratch: String::with_capacity(32),
            printed: Vec::with_capacity(32),
            found: Vec::new(),
        }
    }

    /// Number `index` of the faces (face, vertex, triple, component).
    fn value(&self, index: usize) -> Option<f32> {
        let v = self
            .faces
            .get(index / NUMBERS_PER_FACE)?
            .get(index / 9 % 3)?;
        let triple = match index / 3 % 3 {
            0 => &v.position,
            1 => &v.normal,
            _ => &v.uvw,
        };
        triple.get(index % 3).copied()
    }

    /// The tokens of `data`, the piece of the data line after those scanned so far.
    fn scan(&mut self, data: &[u8]) {
        let tokens = data
            .split(|&b| matches!(b, b'[' | b']' | b','))
            .filter(|t| !t.is_empty());
        for token in tokens {
            let Some(value) = self.value(self.index) else {
                return;
            };
            if !prints_as(
                value,
                token,
                self.format,
                &mut self.scratch,
                &mut self.printed,
            ) {
                self.found.push(TokenOverride {
                    index: self.index,
                    bits: value.to_bits(),
                    text: String::from_utf8_lossy(token).into_owned(),
                });
            }
            self.index += 1;
        }
    }
}

fn name(l: LineEnding) -> &'static str {
    match l {
        LineEnding::Lf => "LF",
        LineEnding::CrLf => "CRLF",
    }
}

/// A byte for an error message.
fn describe(b: Option<u8>) -> String {
    match b {
        None => "the end of the data".into(),
        Some(b'\n') => "a line ending".into(),
        Some(b'\r') => "a carriage return".into(),
        Some(b) if b.is_ascii_graphic() || b == b' ' => format!("'{}'", char::from(b)),
        Some(b) => format!("byte 0x{b:02x}"),
    }
}

#[cfg(test)]
mod tests {

    /// Reading in pieces gives what reading the whole text gives (the same mesh, or the
    /// same error with the same offset, line and column), with pieces of every size from
    /// one byte, on every text fixture and corpus text file, on texts whose numbers are
    /// not canonical (kept as overrides, found on a second pass), and on damaged texts.
    #[test]
    fn reading_in_pieces_is_reading_whole() {
        use super::FileMeshV1;
        use crate::filemesh::raw::Version;
        let mut texts: Vec<Vec<u8>> = Vec::new();
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        for dir in [
            root.join("roundtrip-fixtures").join("text"),
            crate::test_corpus_roblox(),
        ] {
            let Ok(entries) = std::fs::read_dir(dir) else {
                continue;
            };
            let mut paths: Vec<_> = entries.flatten().map(|e| e.path()).collect();
            paths.sort();
            for p in paths {
                let bytes = std::fs::read(&p).unwrap_or_default();
                if bytes.starts_with(b"version 1.0") {
                    texts.push(bytes);
                }
            }
        }
        let fixtures = texts.len();
        assert!(fixtures >= 3, "{fixtures} text files");
        let face = "[1,2,3][0,1,0][0.5,0.25,0]".repeat(3);
        let odd =
            "[1.0,+2,.5][1E5,1e-007,0.000001][00,-0,1e+05]".to_string() + &face.repeat(2)[81..];
        let mut made = vec![
            format!("version 1.00\n2\n{face}{odd}"),
            format!("version 1.01\r\n1\r\n{odd}\r\n"),
            format!("version 1.00\n1\n[1.23456789,2,3]{}", &face[7..]),
            format!("version 1.00\n2\n{face}"),
            format!("version 1.00\n1\n{face}[1,2,3]"),
            format!("version 1.00\n1\n{face}\n\n"),
            format!("version 1.00\n1\n{face}x"),
            format!("version 1.00\n1\n{}", &face[..face.len() - 1]),
            format!("version 1.00\n1\n{}]", face.replace("0.25", "0.2x")),
            format!("version 1.00\n3\n{face}\n{face}"),
            format!("version 1.00\n01\n{face}"),
            format!("version 1.00\n1\r\n{face}"),
            format!("version 1.00\n1\n{}", "[1,2,3]".repeat(8) + "[1,2,3"),
        ];
        made.push(format!(
            "version 1.00\n1\n{}",
            face.replace('1', &"1".repeat(700))
        ));
        texts.extend(made.into_iter().map(String::into_bytes));
        // Damaged real files: cut short, and a byte changed in the data.
        for t in texts.clone().iter().take(fixtures) {
            texts.push(t.get(..t.len() * 2 / 3).unwrap_or_default().to_vec());
            let mut bad = t.clone();
            if let Some(b) = bad.get_mut(t.len() / 2) {
                *b = b'#';
            }
            texts.push(bad);
        }
        let mut compared = 0;
        for text in &texts {
            let version = if text.starts_with(b"version 1.01") {
                Version::V1_01
            } else {
                Version::V1_00
            };
            let whole = FileMeshV1::read(text, version).map_err(|e| e.to_string());
            let long = text.len() > 4096;
            let pieces: Vec<usize> = if long {
                vec![1, 7, 100, 1000, super::READ_PIECE]
            } else {
                (1..80).chain([200, 1000, super::READ_PIECE]).collect()
            };
            for piece in pieces {
                let cursor = std::io::Cursor::new(text.as_slice());
                let read = FileMeshV1::read_in_pieces(cursor, version, text.len() as u64, piece)
                    .map_err(|e| e.to_string());
                assert_eq!(
                    read,
                    whole,
                    "piece {piece}: {}",
                    String::from_utf8_lossy(text.get(..60).unwrap_or_default())
                );
                compared += 1;
            }
        }
        assert!(compared > 500, "{compared}");
    }

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

    /// lexical-core and Rust's own parser give the same f32 for every form the number
    /// grammar admits: signs, no integer or no fraction digits, exponents, long digit
    /// strings, halfway cases, subnormals and values beyond the f32 range.
    #[test]
    fn lexical_matches_std_on_the_grammar() {
        let mut tokens: Vec<String> = [
            "0",
            "-0",
            "+0",
            "1.",
            ".5",
            "-.5",
            "+1.5e3",
            "1e-45",
            "7e-46",
            "1.4e-45",
            "3.4028235e38",
            "3.4028236e38",
            "1e39",
            "-1e39",
            "0.000001",
            "1E5",
            "1e+05",
            "1e-007",
            "16777217",
            "16777216.5",
            "0.1",
            "0.30000001192092896",
            "1.00000005960464477539",
            "123456789012345678901234567890",
            "9.99999e-05",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let bits = (x >> 32) as u32;
            let v = f32::from_bits(bits);
            if !v.is_finite() {
                continue;
            }
            let digits = (x & 7) as usize + 1;
            tokens.push(format!("{v}"));
            tokens.push(format!("{v:e}"));
            tokens.push(format!("{:.*e}", digits, f64::from(v)));
            // Halfway between two f32 neighbours, in f64 digits.
            let next = f32::from_bits(bits.wrapping_add(1));
            if next.is_finite() {
                tokens.push(format!("{:e}", (f64::from(v) + f64::from(next)) / 2.0));
            }
        }
        for t in &tokens {
            let ours: f32 = lexical_core::parse(t.as_bytes()).expect(t);
            let std: f32 = t.parse().expect(t);
            assert_eq!(ours.to_bits(), std.to_bits(), "{t}");
        }
    }
    use super::*;

    /// The number scan's exact fast path gives Rust's own parse, and a token it calls
    /// canonical is one the canonical format prints as written (so no override is
    /// lost); canonical output of random values is recognised as such.
    #[test]
    fn number_scan_parses_exactly_and_knows_canonical_tokens() {
        let mut tokens: Vec<String> = [
            "0",
            "-0",
            "+0",
            "0.0",
            "00",
            "1",
            "1.",
            ".5",
            "-.5",
            "+1.5e3",
            "1e+05",
            "1e5",
            "100000",
            "1e+06",
            "1000000",
            "999999",
            "0.0001",
            "1e-04",
            "1e-05",
            "0.00001",
            "12.50",
            "12.5",
            "-12.5",
            "1.5E+07",
            "1.5e7",
            "1.5e+007",
            "3.40282e+38",
            "1e-38",
            "1.17549e-38",
            "7e-46",
            "1e39",
            "16777217",
            "0.1234567",
            "123456.7",
            "1234567",
            "9.99999e-05",
            "5e-324",
            "0.000123",
            "-0.000123",
            "1.0e+10",
            "2e+10",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let canonical = TextFormat::canonical();
        let (mut scratch, mut out) = (String::new(), Vec::new());
        let mut printed = Vec::new();
        let mut recognised = 0;
        for _ in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = f32::from_bits((x >> 32) as u32);
            if !v.is_finite() {
                continue;
            }
            let small = (x as f32 / u64::MAX as f32 - 0.5) * 20.0;
            for v in [v, small, small / 1000.0, (small * 1000.0).round()] {
                out.clear();
                format_g(v, &canonical, &mut scratch, &mut out).unwrap();
                let text = String::from_utf8(out.clone()).unwrap();
                // Canonical output of a value that prints back to itself is recognised.
                let mut p = Parser::new(text.as_bytes());
                let got = p.number("t").unwrap();
                if got.is_normal() && got.abs() < 3.4e38 || got == 0.0 {
                    assert_eq!(p.stats.not_canonical, 0, "{text} for {v:e}");
                    recognised += 1;
                }
                tokens.push(text);
                tokens.push(format!("{v}"));
                tokens.push(format!("{:.3e}", f64::from(v)));
            }
        }
        assert!(recognised > 300_000, "{recognised}");
        for t in &tokens {
            let mut p = Parser::new(t.as_bytes());
            let got = p.number("t").expect(t);
            assert_eq!(p.pos, t.len(), "{t}");
            let std: f32 = t.parse::<f32>().expect(t).clamp(f32::MIN, f32::MAX);
            assert_eq!(got.to_bits(), std.to_bits(), "{t}");
            if p.stats.not_canonical == 0 {
                assert!(
                    prints_as(got, t.as_bytes(), &canonical, &mut scratch, &mut printed),
                    "{t} called canonical"
                );
            }
        }
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
        assert_eq!(n.len, token.len(), "{token}");
        assert_eq!(p.stats.not_canonical, 0, "{token}");
        assert_eq!(n.significant, p.stats.max_digits, "{token}");
        assert_eq!(usize::from(n.exponent), p.stats.exp_two, "{token}");
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
            "1.5e+007",
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

    /// Every value a whole-file read gives has the bits of Rust's own parse of its
    /// token: on the text fixtures, on the text files of the corpus when there is one
    /// (`MESHCODEC_CORPUS`), and on a canonical file of random values (so the triple
    /// fast path meets every kind of number the canonical format prints).
    #[test]
    fn whole_file_values_match_std_parse() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut stack = vec![root.join("roundtrip-fixtures/text")];
        stack.extend(std::env::var_os("MESHCODEC_CORPUS").map(std::path::PathBuf::from));
        let mut files = Vec::new();
        while let Some(d) = stack.pop() {
            for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
                let p = entry.path();
                if p.is_dir() {
                    stack.push(p);
                } else if let Ok(bytes) = std::fs::read(&p) {
                    if bytes.starts_with(b"version 1.0") {
                        files.push(bytes);
                    }
                }
            }
        }
        let mut x: u64 = 0x0dd5_eed5_0bad_cafe;
        let mut values = Vec::new();
        for k in 0..30_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let unit = (x >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0;
            values.push(match k % 5 {
                0 => unit * 8.0,
                1 => unit * 10f32.powi((x % 45) as i32 - 25),
                2 => f32::from_bits((x >> 32) as u32).clamp(f32::MIN, f32::MAX),
                3 => (unit * 1e6).round(),
                _ => unit,
            });
        }
        let values: Vec<f32> = values.into_iter().filter(|v| v.is_finite()).collect();
        let faces = values
            .chunks_exact(27)
            .map(|c| {
                std::array::from_fn(|v| VertexV1 {
                    position: std::array::from_fn(|k| *c.get(v * 9 + k).unwrap()),
                    normal: std::array::from_fn(|k| *c.get(v * 9 + 3 + k).unwrap()),
                    uvw: std::array::from_fn(|k| *c.get(v * 9 + 6 + k).unwrap()),
                })
            })
            .collect();
        files.push(FileMeshV1::new(faces).write(Version::V1_00).unwrap());
        for bytes in &files {
            let version = if bytes.starts_with(b"version 1.00") {
                Version::V1_00
            } else {
                Version::V1_01
            };
            let mesh = FileMeshV1::read(bytes, version).unwrap();
            assert_eq!(mesh.write(version).unwrap(), *bytes);
            let data = bytes.split(|&b| b == b'\n').nth(2).unwrap();
            let tokens = data
                .split(|&b| matches!(b, b'[' | b']' | b',' | b'\r'))
                .filter(|t| !t.is_empty());
            let read = mesh
                .faces
                .iter()
                .flatten()
                .flat_map(|v| [v.position, v.normal, v.uvw])
                .flatten();
            let mut n = 0;
            for (value, token) in read.zip(tokens) {
                let token = std::str::from_utf8(token).unwrap();
                let std = token.parse::<f32>().unwrap().clamp(f32::MIN, f32::MAX);
                assert_eq!(value.to_bits(), std.to_bits(), "{token}");
                n += 1;
            }
            assert_eq!(n, mesh.num_faces() * NUMBERS_PER_FACE);
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
