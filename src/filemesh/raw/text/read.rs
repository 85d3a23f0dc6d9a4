//! Reading a text mesh: the parser of the three lines (whole file or a window of it),
//! the streaming reader that feeds it a file in pieces, and the second pass over the data
//! that finds the overrides of a file not printed canonically.

use super::number::{canonical_g6, fast_f32, Digits, Token};
use super::overrides::{choose_format, NumberStats, OverrideScan, Unsure};
use super::scan::CanonicalTriple;
use super::seen::{Key, Seen};
use super::{ExponentDigits, FileMeshV1, LineEnding, VertexV1};
use crate::error::{Error, ErrorKind, Result};
use crate::filemesh::raw::Version;

mod parts;

/// Shortest text of a face: 9 triples of at least `[0,0,0]`.
const MIN_FACE_BYTES: u64 = 9 * 7;

/// The text's last bytes that [`Parser::slow_triple`] reads from a zero-padded copy:
/// the fast path needs 48 after a triple's `[`.
const TAIL: usize = 64;

/// Bytes [`FileMeshV1::read_from`] reads at a time.
pub(super) const READ_PIECE: usize = 1 << 18;

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
        // The parse kept where the tokens to compare start: read only as far as the last.
        if scan.unsure_done() {
            return Ok(());
        }
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
        let piece = input.buf.get(..cut).unwrap_or_default();
        if !scan.scan_unsure(piece, input.origin) {
            scan.scan(piece);
        }
        input.advance(cut);
        if input.eof {
            return Ok(());
        }
    }
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

/// A parser over `bytes`: the whole file, or a window of it (see
/// [`FileMeshV1::read_from`]).
pub(super) struct Parser<'a> {
    bytes: &'a [u8],
    pub(super) pos: usize,
    pub(super) stats: NumberStats,
    /// Triples read so far, by their text.
    seen: Seen,
    /// Where `bytes` starts in the file.
    origin: usize,
    /// The line (from 1) that `bytes` starts in, and where in the file that line starts.
    line: usize,
    line_start: usize,
    /// The file's length.
    file_len: usize,
    /// The text's last bytes, copied once for the triples there.
    tail: Tail,
}

/// The rest of a parser's bytes from `from` on (at most [`TAIL`] bytes) followed by
/// zeros, copied once for the triples there ([`Parser::slow_triple`]).
struct Tail {
    bytes: [u8; 2 * TAIL],
    /// `usize::MAX` until the copy is made.
    from: usize,
}

impl Tail {
    /// No copy yet.
    const NONE: Tail = Tail {
        bytes: [0; 2 * TAIL],
        from: usize::MAX,
    };
}

impl<'a> Parser<'a> {
    pub(super) fn new(bytes: &'a [u8]) -> Self {
        Parser {
            bytes,
            pos: 0,
            stats: NumberStats::default(),
            seen: Seen::none(),
            origin: 0,
            line: 1,
            line_start: 0,
            file_len: bytes.len(),
            tail: Tail::NONE,
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

    pub(super) fn read(mut self, version: Version) -> Result<FileMeshV1> {
        let count = self.header(version)?;
        self.seen = Seen::new(count.faces.saturating_mul(9));
        let data_start = self.pos;
        // Parsed in place (a face built on the stack and then copied out was read back
        // wider than it was written: a stalled store forward per triple).
        let mut faces: Vec<[VertexV1; 3]> = super::zeroed(count.faces);
        if !self.faces_in_parts(&mut faces, 0, count.faces) {
            self.faces(&mut faces, 0, count.faces)?;
        }
        let data_end = self.pos;
        let final_newline = self.tail(count.faces, count.line_ending)?;
        let data = self.bytes.get(data_start..data_end).unwrap_or_default();
        let (format, overrides) =
            choose_format(&self.stats, count.line_ending, final_newline, |format| {
                let mut scan = OverrideScan::new(&faces, format, &self.stats);
                // The parse kept file offsets: `bytes` is the file when `origin` is 0.
                if self.origin != 0 || !scan.scan_unsure(self.bytes, 0) {
                    scan.scan(data);
                }
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

    /// Faces `first..` (as many as `faces` holds) of the `count` line 2 gives (line 3),
    /// into `faces`.
    ///
    /// The loop every triple of the data goes through, so its state lives in locals:
    /// the position and the count of numbers read stay in registers (as the parser's
    /// fields they were stored and loaded again on every triple, and the next triple's
    /// start waited on that), written back only around the calls that need them. A
    /// triple seen before is taken from the table here; the others go to
    /// [`Parser::parse_triple`].
    fn faces(&mut self, faces: &mut [[VertexV1; 3]], first: usize, count: usize) -> Result<()> {
        let bytes = self.bytes;
        let mut pos = self.pos;
        let mut numbers = self.stats.numbers;
        for (f, face) in faces.iter_mut().enumerate() {
            if matches!(bytes.get(pos), None | Some(b'\r' | b'\n')) {
                self.pos = pos;
                return Err(self.error(
                    LINE3,
                    format_args!(
                        "line 2 says {count} faces but the data ends after {} (found {})",
                        first + f,
                        self.found()
                    ),
                ));
            }
            let triples: &mut [[f32; 3]; 9] = bytemuck::cast_mut(face);
            for out in triples {
                let key = Seen::key(bytes, pos);
                if let Some(key) = &key {
                    if let Some(t) = self.seen.get(key) {
                        *out = t.value;
                        let (plain, exponents, starts) = (t.plain, t.exponents, t.starts);
                        // Its digits already count; its numbers count again.
                        numbers = self.count_triple(plain, exponents, starts, pos, numbers);
                        pos += key.len;
                        continue;
                    }
                }
                self.pos = pos;
                self.stats.numbers = numbers;
                self.parse_triple(LINE3, out, key)?;
                pos = self.pos;
                numbers = self.stats.numbers;
            }
        }
        self.pos = pos;
        self.stats.numbers = numbers;
        Ok(())
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

    /// `[a,b,c]`, into `out`, not found among those seen: a canonical one read (and
    /// kept under `key`, the lookup's), else read by the general scan. Inlined into
    /// [`Parser::faces`] (out of line, the call and its result through memory cost more
    /// than the registers it freed).
    #[inline(always)]
    fn parse_triple(&mut self, context: &str, out: &mut [f32; 3], key: Option<Key>) -> Result<()> {
        let rest = self.bytes.get(self.pos..).unwrap_or_default();
        *out = match self.seen.triple(rest) {
            Some(t) => self.take_read(t, key),
            None => self.slow_triple(context)?,
        };
        Ok(())
    }

    /// A canonical triple just read at the current position (not found among those
    /// seen): its digits and numbers counted, kept under `key`, the position past it.
    #[inline(always)]
    fn take_read(&mut self, t: CanonicalTriple, key: Option<Key>) -> [f32; 3] {
        self.stats.max_digits = self.stats.max_digits.max(usize::from(t.digits));
        if let Some(k) = key {
            self.seen.put(k, t);
        }
        self.take_seen(&t)
    }

    /// A canonical triple at the current position, read now or before: its numbers
    /// counted (its digits already count if it was read before), the position past it.
    #[inline(always)]
    fn take_seen(&mut self, t: &CanonicalTriple) -> [f32; 3] {
        self.stats.numbers =
            self.count_triple(t.plain, t.exponents, t.starts, self.pos, self.stats.numbers);
        self.pos += usize::from(t.len);
        t.value
    }

    /// A triple the fast path did not read: if the text ends within [`TAIL`] bytes (its
    /// numbers then lack the sixteen bytes after them that the fast path loads), looked
    /// up and read as the fast path does from a copy of the rest followed by zeros,
    /// which changes nothing it reads (a triple read ends at its `]`, a byte of the
    /// text; a zero is no separator); else, or if that fails, by the general scan. The
    /// copy is made once, for the first such triple, and serves those after it.
    #[inline(never)]
    fn slow_triple(&mut self, context: &str) -> Result<[f32; 3]> {
        let rest = self.bytes.get(self.pos..).unwrap_or_default();
        if rest.len() <= TAIL {
            if self.tail.from > self.pos {
                self.tail = Tail::NONE;
                if let Some(copy) = self.tail.bytes.get_mut(..rest.len()) {
                    copy.copy_from_slice(rest);
                }
                self.tail.from = self.pos;
            }
            // At most `TAIL` bytes in: `TAIL` bytes and more follow.
            let padded = self
                .tail
                .bytes
                .get(self.pos - self.tail.from..)
                .unwrap_or_default();
            let key = Seen::key(padded, 0);
            if let Some(t) = key.as_ref().and_then(|k| self.seen.get(k)).copied() {
                return Ok(self.take_seen(&t));
            }
            if let Some(t) = self.seen.triple(padded) {
                return Ok(self.take_read(t, key));
            }
        }
        self.any_triple(context)
    }

    /// Counts the numbers of a canonical triple whose `[` is at `pos` (`plain`,
    /// `exponents` and `starts` as [`CanonicalTriple`] has them), `numbers` counted
    /// before it (the caller keeps the count); the count after it. One place for both
    /// the table's hits and the triples parsed.
    #[inline(always)]
    fn count_triple(
        &mut self,
        plain: bool,
        exponents: [u8; 3],
        starts: [u8; 2],
        pos: usize,
        numbers: usize,
    ) -> usize {
        if plain {
            // Their bits stay 0.
            return numbers + 3;
        }
        self.stats.numbers = numbers;
        let at = self.origin + pos;
        let [s1, s2] = starts;
        self.count_exponents(
            exponents,
            [at + 1, at + usize::from(s1), at + usize::from(s2)],
        );
        self.stats.numbers
    }

    /// Counts a canonical triple with an exponent in it: its numbers' exponent digits
    /// (0 for none, 2, or 3: not how the canonical format prints, so also counted as not
    /// canonical) and where each starts.
    #[cold]
    #[inline(never)]
    fn count_exponents(&mut self, exponents: [u8; 3], starts: [usize; 3]) {
        for (digits, at) in exponents.into_iter().zip(starts) {
            let unsure = match digits {
                0 => None,
                2 => {
                    self.stats.exp_two += 1;
                    Some(Unsure::Exponent(ExponentDigits::Two))
                }
                _ => {
                    self.stats.exp_three += 1;
                    self.stats.not_canonical += 1;
                    Some(Unsure::Exponent(ExponentDigits::Three))
                }
            };
            self.stats.count(unsure, at);
        }
    }

    /// A triple `[a,b,c]` with any numbers the grammar admits (the general scan).
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
    pub(super) fn number(&mut self, context: &str) -> Result<f32> {
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
        let canonical = canonical_g6(&point, value);
        if !canonical {
            self.stats.not_canonical += 1;
        }
        let unsure = (!canonical || exp.is_some()).then_some(Unsure::Any);
        self.stats.count(unsure, self.origin + start);
        self.pos = start + i;
        Ok(value)
    }
}

impl FileMeshV1 {
    /// [`FileMeshV1::read_from`] reading `piece` bytes at a time (at least).
    pub(super) fn read_in_pieces<R: std::io::Read + std::io::Seek>(
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
        let mut seen = Seen::new(count.faces.saturating_mul(9));
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
                (closes(input.buf.get(pos..).unwrap_or_default()) / 9).min(left)
            };
            let mut p = Parser {
                bytes: &input.buf,
                pos,
                stats,
                seen,
                origin: input.origin,
                line,
                line_start,
                file_len,
                tail: Tail::NONE,
            };
            let f = faces.len();
            faces.resize(f + whole, [VertexV1::default(); 3]);
            let these = faces.get_mut(f..).unwrap_or_default();
            if !p.faces_in_parts(these, f, count.faces) {
                p.faces(these, f, count.faces)?;
            }
            (pos, stats, seen) = (p.pos, p.stats, p.seen);
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
            seen: Seen::none(),
            origin: input.origin,
            line: 3,
            line_start: data_start,
            file_len,
            tail: Tail::NONE,
        };
        let final_newline = p.tail(count.faces, count.line_ending)?;
        let stats = p.stats;
        let mut failed = None;
        let (format, overrides) =
            choose_format(&stats, count.line_ending, final_newline, |format| {
                let mut scan = OverrideScan::new(&faces, format, &stats);
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
}

/// How many `]` `bytes` holds: each face read takes exactly nine (numbers hold none).
///
/// Counted 255 bytes at a time into a byte, which the compiler turns into vector
/// compares and adds; `filter(..).count()` widened every byte's count to 64 bits, a
/// dozen times slower (68 µs against 5 µs for 160 KB here).
fn closes(bytes: &[u8]) -> usize {
    bytes
        .chunks(255)
        .map(|c| {
            c.iter()
                .fold(0u8, |n, &b| n.wrapping_add(u8::from(b == b']')))
        })
        .map(usize::from)
        .sum()
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
    use super::*;
    use crate::filemesh::raw::text::number::{format_g, prints_as};
    use crate::filemesh::raw::text::{TextFormat, NUMBERS_PER_FACE};
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
        made.extend(mixed_exponent_texts());
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

    /// Texts whose numbers have two- and three-digit exponents mixed, either the more.
    fn mixed_exponent_texts() -> Vec<String> {
        let face = "[1,2,3][0,1,0][0.5,0.25,0]".repeat(3);
        let three = face.replace("[1,2,3]", "[1.5e-007,2.5e-07,-3e+008]");
        let two = face.replace("[1,2,3]", "[1.5e-07,2.5e-007,-3e+08]");
        // And many numbers not canonical (`1.0`: a third of them): past the first 1024
        // the parse stops keeping where each starts, and the scan reads every token.
        let many = face.replace("[1,2,3]", "[1.0,2.0,3.0]").repeat(200);
        vec![
            format!("version 1.00\n2\n{three}{face}"),
            format!("version 1.01\r\n2\r\n{face}{two}"),
            format!("version 1.00\n200\n{many}"),
        ]
    }

    /// Reading from a reader, the override scan reads the data line again only as far as
    /// the last token it must compare: not at all when the only numbers the parse could
    /// not vouch for have the exponent width the format prints (real files: `e-007`),
    /// one piece when the only odd token is near the start.
    #[test]
    fn the_override_scan_reads_only_as_far_as_it_must() {
        use super::FileMeshV1;
        use crate::filemesh::raw::Version;
        use std::io::{Read, Seek, SeekFrom};
        struct Counting<'t> {
            inner: std::io::Cursor<&'t [u8]>,
            read: usize,
        }
        impl Read for Counting<'_> {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                let n = self.inner.read(buf)?;
                self.read += n;
                Ok(n)
            }
        }
        impl Seek for Counting<'_> {
            fn seek(&mut self, to: SeekFrom) -> std::io::Result<u64> {
                self.inner.seek(to)
            }
        }
        // Six significant digits somewhere: no other precision to try (which compares
        // every token).
        let face = "[1.5e-007,2,3.12345][0,1,0][0.5,0.25,0]".repeat(3);
        let wide = format!("version 1.00\n400\n{}", face.repeat(400));
        let odd = wide.replacen("[0.5,0.25,0]", "[0.50,0.25,0]", 1);
        for (text, most) in [(&wide, wide.len()), (&odd, odd.len() + 1000)] {
            let mut counting = Counting {
                inner: std::io::Cursor::new(text.as_bytes()),
                read: 0,
            };
            let len = text.len() as u64;
            let mesh =
                FileMeshV1::read_in_pieces(&mut counting, Version::V1_00, len, 1000).unwrap();
            assert_eq!(mesh.write(Version::V1_00).unwrap(), text.as_bytes());
            assert!(
                counting.read <= most,
                "{} bytes read of {}",
                counting.read,
                text.len()
            );
        }
    }

    /// Triples read again from the table of those seen give what parsing them gives:
    /// every value as Rust parses its token, the file written back byte for byte, also
    /// for repeats near the end of the data (not looked up there) and for repeated
    /// tokens the canonical path does not take (never kept).
    #[test]
    fn repeated_triples_read_as_parsed() {
        use super::FileMeshV1;
        use crate::filemesh::raw::Version;
        let triples = [
            "[-0.968616,0.320282,-3.52221]",
            "[1,1.50996e-007,0]",
            "[0.530481,0.38697,0]",
            "[1.0,2.0,3.0]",
            "[0,0,1]",
            "[-1.5e-07,2,-3e+08]",
        ];
        // A face is nine triples; 40 faces, the triples in a rotating order so that each
        // comes back at other distances, the last face all repeats.
        let picks: Vec<&str> = (0..360)
            .filter_map(|i| triples.get((i * 7 + i / 9) % 6).copied())
            .collect();
        let data = picks.concat();
        let text = format!("version 1.00\r\n40\r\n{data}\r\n");
        let mesh = FileMeshV1::read(text.as_bytes(), Version::V1_00).unwrap();
        let read: Vec<[f32; 3]> = mesh
            .faces
            .iter()
            .flatten()
            .flat_map(|v| [v.position, v.normal, v.uvw])
            .collect();
        for (got, token) in read.iter().zip(&picks) {
            let want: Vec<f32> = token
                .trim_matches(|c| c == '[' || c == ']')
                .split(',')
                .map(|n| n.parse().unwrap())
                .collect();
            assert_eq!(
                got.map(f32::to_bits).to_vec(),
                want.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
                "{token}"
            );
        }
        assert_eq!(mesh.write(Version::V1_00).unwrap(), text.as_bytes());
    }

    /// A text mixing exponent widths writes back byte for byte: the width most numbers
    /// use is the format's, the others are overrides (the parse's kind of each unsure
    /// number lets the scan skip those the format prints as written).
    #[test]
    fn mixed_exponent_widths_write_back_exactly() {
        use super::FileMeshV1;
        use crate::filemesh::raw::text::ExponentDigits;
        use crate::filemesh::raw::Version;
        for (text, (width, overrides)) in mixed_exponent_texts().into_iter().zip([
            (ExponentDigits::Three, 3),
            (ExponentDigits::Two, 3),
            (ExponentDigits::Two, 1800),
        ]) {
            let version = if text.starts_with("version 1.01") {
                Version::V1_01
            } else {
                Version::V1_00
            };
            let mesh = FileMeshV1::read(text.as_bytes(), version).unwrap();
            assert_eq!(mesh.format.exponent_digits, width, "{text}");
            // One number of each vertex's first triple has the other width (or is `1.0`).
            assert_eq!(mesh.overrides.len(), overrides, "{}", &text[..40]);
            assert_eq!(mesh.write(version).unwrap(), text.as_bytes());
        }
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
}
