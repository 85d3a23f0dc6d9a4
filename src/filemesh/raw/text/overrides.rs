//! A file's format and its overrides: the [`TextFormat`] chosen from what the number
//! scan learns, and the tokens of the data line that format does not print as written
//! (kept as [`TokenOverride`]s).

use super::number::prints_as;
use super::{ExponentDigits, LineEnding, TextFormat, TokenOverride, VertexV1, NUMBERS_PER_FACE};
/// The format a file's numbers are printed in, and the tokens it does not reproduce:
/// the exponent width most numbers use; precision 6, unless the largest count of
/// significant digits gives fewer overrides. `overrides_for` finds a format's
/// overrides (a pass over the data).
pub(super) fn choose_format(
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
pub(super) struct NumberStats {
    /// Numbers with a two-digit exponent (`e-07`).
    pub(super) exp_two: usize,
    /// Numbers with a three-digit exponent starting with 0 (`e-007`).
    pub(super) exp_three: usize,
    /// Most significant digits in any number.
    pub(super) max_digits: usize,
    /// Numbers that the canonical format would not print as written.
    pub(super) not_canonical: usize,
    /// Numbers read so far.
    pub(super) numbers: usize,
    /// One bit per number, set for a number that is not canonical or has an exponent
    /// (the words after the last set bit are not there: their bits are 0):
    /// the others print as written in any format of six significant digits (fixed
    /// notation does not depend on the exponent's width), so the override scan skips
    /// them.
    pub(super) unsure: Vec<u64>,
    /// Each unsure number's index, where its token starts in the file and what the
    /// parse knows of it, while they are few (see [`UNSURE_KEPT`]): the override scan
    /// of a file in memory then goes straight to them instead of splitting the whole
    /// line into tokens.
    pub(super) unsure_at: Vec<(usize, usize, Unsure)>,
    /// Set once the unsure numbers are too many to keep where they are.
    pub(super) unsure_many: bool,
}

/// Where unsure numbers start is kept for the first 1024 of them, then while they are at
/// most one number in eight (24 bytes each: at most 3 bytes a number, under the text's
/// own 5 or more).
const UNSURE_KEPT: usize = 1024;

/// What the parse knows of a number that may not print as written.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Unsure {
    /// Nothing: compare the token with the format's print.
    Any,
    /// A token of the canonical form (`canonical_number`'s) but for its exponent, which
    /// has this many digits: a six-digit format with that exponent width prints it as
    /// written (the digits are those of the value's six-digit rounding), another one not.
    Exponent(ExponentDigits),
}

impl NumberStats {
    /// Counts one number, whose token starts at byte `at` of the file; `unsure` (`None`
    /// for a number any six-digit format prints as written) as [`NumberStats::unsure`]
    /// says. Counting a number that is not unsure is only the count (a plain triple's
    /// three are counted by adding 3 to [`NumberStats::numbers`]).
    #[inline(always)]
    pub(super) fn count(&mut self, unsure: Option<Unsure>, at: usize) {
        if let Some(kind) = unsure {
            self.mark_unsure(kind, at);
        }
        self.numbers += 1;
    }

    /// Sets the bit of number [`NumberStats::numbers`] (the words up to its own made
    /// when first needed) and keeps where it starts.
    #[inline(never)]
    fn mark_unsure(&mut self, kind: Unsure, at: usize) {
        let (word, bit) = (self.numbers / 64, self.numbers % 64);
        if self.unsure.len() <= word {
            self.unsure.resize(word + 1, 0);
        }
        if let Some(w) = self.unsure.get_mut(word) {
            *w |= 1 << bit;
        }
        self.keep_unsure(at, kind);
    }

    /// Keeps where unsure number [`NumberStats::numbers`] starts, or stops keeping them
    /// once they are many.
    #[inline]
    fn keep_unsure(&mut self, at: usize, kind: Unsure) {
        if self.unsure_many {
            return;
        }
        if self.keeps_too_many() {
            self.unsure_many = true;
            self.unsure_at = Vec::new();
        } else {
            self.unsure_at.push((self.numbers, at, kind));
        }
    }

    /// Whether the unsure numbers kept are too many to keep: [`UNSURE_KEPT`] or more, and
    /// more than one number in eight.
    fn keeps_too_many(&self) -> bool {
        self.unsure_at.len() >= UNSURE_KEPT && self.unsure_at.len() * 8 > self.numbers
    }

    /// Adds the statistics of the numbers that follow these, counted by a parser that
    /// started at number [`NumberStats::numbers`] of these (so its indices are the
    /// file's): what one parser reading both would have.
    pub(super) fn append(&mut self, later: NumberStats) {
        self.exp_two += later.exp_two;
        self.exp_three += later.exp_three;
        self.max_digits = self.max_digits.max(later.max_digits);
        self.not_canonical += later.not_canonical;
        self.numbers = later.numbers;
        if self.unsure.len() < later.unsure.len() {
            self.unsure.resize(later.unsure.len(), 0);
        }
        for (word, more) in self.unsure.iter_mut().zip(&later.unsure) {
            *word |= more;
        }
        self.unsure_many |= later.unsure_many;
        if !self.unsure_many {
            self.unsure_at.extend(later.unsure_at);
            self.unsure_many = self.keeps_too_many();
        }
        if self.unsure_many {
            self.unsure_at = Vec::new();
        }
    }

    /// Whether number `index` needs comparing with how a six-digit format prints it.
    #[inline(always)]
    fn is_unsure(&self, index: usize) -> bool {
        self.unsure
            .get(index / 64)
            .is_some_and(|w| w >> (index % 64) & 1 == 1)
    }
}

/// The numbers of a validated data line that `format` does not print as written.
/// The numbers of the data line that a format does not print as written, found token
/// by token over the data given in pieces (each ending at a `[`, `]` or `,`).
pub(super) struct OverrideScan<'f> {
    faces: &'f [[VertexV1; 3]],
    format: &'f TextFormat,
    /// The parse's statistics, whose [`NumberStats::unsure`] bits let a six-digit format
    /// skip the numbers it prints as written.
    stats: Option<&'f NumberStats>,
    /// The next number's index.
    index: usize,
    /// The next of [`NumberStats::unsure_at`] to compare ([`OverrideScan::scan_unsure`]).
    next_unsure: usize,
    scratch: String,
    printed: Vec<u8>,
    pub(super) found: Vec<TokenOverride>,
}

impl<'f> OverrideScan<'f> {
    pub(super) fn new(
        faces: &'f [[VertexV1; 3]],
        format: &'f TextFormat,
        stats: &'f NumberStats,
    ) -> Self {
        OverrideScan {
            faces,
            format,
            stats: (format.precision == 6 && stats.numbers == faces.len() * NUMBERS_PER_FACE)
                .then_some(stats),
            index: 0,
            next_unsure: 0,
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

    /// The tokens that may not print as written, taken from where the parse saw them
    /// start ([`NumberStats::unsure_at`]), those starting in `piece`, the file's bytes
    /// from offset `origin` on (the whole file, or pieces in order, each ending at a `[`,
    /// `]` or `,`, as [`OverrideScan::scan`] takes them); `false` (nothing scanned) when
    /// the format must compare every token or the parse did not keep where they are, for
    /// [`OverrideScan::scan`] to do.
    pub(super) fn scan_unsure(&mut self, piece: &[u8], origin: usize) -> bool {
        let Some(stats) = self.stats.filter(|s| !s.unsure_many) else {
            return false;
        };
        while let Some(&(index, at, _)) = self.next_to_compare(stats) {
            // A token starts in this piece when a byte of it is here.
            let Some(rest) = at
                .checked_sub(origin)
                .and_then(|i| piece.get(i..))
                .filter(|r| !r.is_empty())
            else {
                return true;
            };
            self.next_unsure += 1;
            let len = rest
                .iter()
                .position(|&b| matches!(b, b'[' | b']' | b','))
                .unwrap_or(rest.len());
            if !self.compare(index, rest.get(..len).unwrap_or_default()) {
                // No such number: nothing after it either.
                self.next_unsure = usize::MAX;
                return true;
            }
        }
        self.index = self.faces.len() * NUMBERS_PER_FACE;
        true
    }

    /// Whether every token [`OverrideScan::scan_unsure`] has to compare has been (so
    /// the rest of the data need not be read); `false` when it cannot scan.
    pub(super) fn unsure_done(&mut self) -> bool {
        match self.stats.filter(|s| !s.unsure_many) {
            Some(stats) => self.next_to_compare(stats).is_none(),
            None => false,
        }
    }

    /// The next unsure number to compare, past those whose exponent width the format
    /// prints as written.
    fn next_to_compare<'s>(
        &mut self,
        stats: &'s NumberStats,
    ) -> Option<&'s (usize, usize, Unsure)> {
        let skip = Unsure::Exponent(self.format.exponent_digits);
        while let Some(entry) = stats.unsure_at.get(self.next_unsure) {
            if entry.2 != skip {
                return Some(entry);
            }
            self.next_unsure += 1;
        }
        None
    }

    /// Keeps `token` as an override when the format does not print number `index` as
    /// written; `false` when there is no such number.
    fn compare(&mut self, index: usize, token: &[u8]) -> bool {
        let Some(value) = self.value(index) else {
            return false;
        };
        if !prints_as(
            value,
            token,
            self.format,
            &mut self.scratch,
            &mut self.printed,
        ) {
            self.found.push(TokenOverride {
                index,
                bits: value.to_bits(),
                text: String::from_utf8_lossy(token).into_owned(),
            });
        }
        true
    }

    /// The tokens of `data`, the piece of the data line after those scanned so far.
    pub(super) fn scan(&mut self, data: &[u8]) {
        let tokens = data
            .split(|&b| matches!(b, b'[' | b']' | b','))
            .filter(|t| !t.is_empty());
        for token in tokens {
            if self.stats.is_some_and(|s| !s.is_unsure(self.index)) {
                self.index += 1;
                continue;
            }
            if !self.compare(self.index, token) {
                return;
            }
            self.index += 1;
        }
    }
}
