//! How a text (1.00/1.01) source printed its numbers and lines, against how writing it
//! again from the target would print them: the values go over exactly (the model holds
//! the `f32`s the text reads as), but not the printing, which no binary version has a
//! place for. Where it differs, converting back gives other bytes with the same values,
//! so the report says so (re-laid; values the target's printing would round are
//! reported by the conversion back): a real 1.00 file's CRLF lines and three-digit
//! exponents (`-2.18582e-007`) come back from 2.00 as LF and `-2.18582e-07`. So does a
//! texture coordinate's V, which 1.x stores flipped: the model holds `1 − v` rounded to
//! `f32` (what any reader of both gets), and flipped back a V such as `0.01` prints as
//! `0.00999999`.

use crate::filemesh::model::Mesh;
use crate::filemesh::raw::text::{ExponentDigits, LineEnding, TextFormat};
use crate::filemesh::raw::Version;
use crate::loss::{Loss, LossKind};

/// The printing `before` (a text source's model) has and `after` (the target read back)
/// would not give back when `source` is written again from it; `None` when it would, or
/// when `before` is not from a text file. `back` says what is written again.
pub(super) fn text_printing(
    before: &Mesh,
    after: &Mesh,
    source: Version,
    back: &str,
) -> Option<Loss> {
    let b = before.stored.text.as_ref()?;
    let a = after.stored.text.as_ref();
    let a_format = a.map_or(TextFormat::canonical(), |t| t.format);
    let a_otherwise = a.map_or(0, |t| t.printed_otherwise);
    let mut parts = Vec::new();
    if b.format.precision != a_format.precision {
        parts.push(format!("%g with {} significant digits", b.format.precision));
    }
    if b.format.exponent_digits != a_format.exponent_digits {
        parts.push(exponents(b.format.exponent_digits).to_string());
    }
    if b.format.line_ending != a_format.line_ending {
        parts.push(format!("{} line ends", line_ends(b.format.line_ending)));
    }
    if b.format.final_newline != a_format.final_newline {
        let has = if b.format.final_newline { "a" } else { "no" };
        parts.push(format!("{has} line end after the data"));
    }
    // A text target writes the text's own V (and reads back with it); a binary one
    // holds only the flip.
    let flips = if a.is_some() {
        0
    } else {
        reprinted_v(before, &b.format, &b.v)
    };
    if flips > 0 {
        parts.push(format!(
            "the V of {flips} texture coordinates, which the text stores flipped (1 - v in \
             f32 does not give them back: `0.01` prints as `0.00999999`)"
        ));
    }
    if b.printed_otherwise > a_otherwise {
        parts.push(format!(
            "{} numbers printed otherwise than %g prints their values (`1.0`, `.5`, more \
             digits …)",
            b.printed_otherwise
        ));
    }
    if parts.is_empty() {
        return None;
    }
    Some(Loss::new(
        LossKind::Layout,
        format!(
            "how the {source} text printed its numbers and lines: {} ({back} prints them \
             as %g with {} significant digits, {}, {} line ends{})",
            parts.join(", "),
            a_format.precision,
            exponents(a_format.exponent_digits),
            line_ends(a_format.line_ending),
            if a_format.final_newline {
                ", a line end after the data"
            } else {
                ""
            }
        ),
    ))
}

/// How many of the text's V values (`text`, by model vertex) the model still holds,
/// flipped, and would print otherwise flipped back (`format` prints both).
fn reprinted_v(before: &Mesh, format: &TextFormat, text: &[f32]) -> usize {
    // Other vertices than the text's (an edit with new counts): none of its V is kept.
    if text.len() != before.vertices.len() {
        return 0;
    }
    let (mut a, mut b) = (String::new(), String::new());
    before
        .vertices
        .iter()
        .zip(text)
        .filter(|&(m, &v)| {
            let back = 1.0 - m.uv[1];
            // Flipped back exactly (most V of 0.5 and more), or edited (then the V is
            // the edit's, not the text's).
            if back.to_bits() == v.to_bits() || m.uv[1].to_bits() != (1.0 - v).to_bits() {
                return false;
            }
            a.clear();
            b.clear();
            format.write_number(v, &mut a).is_ok()
                && format.write_number(back, &mut b).is_ok()
                && a != b
        })
        .count()
}

fn exponents(d: ExponentDigits) -> &'static str {
    match d {
        ExponentDigits::Two => "two-digit exponents",
        ExponentDigits::Three => "three-digit exponents",
    }
}

fn line_ends(l: LineEnding) -> &'static str {
    match l {
        LineEnding::Lf => "LF",
        LineEnding::CrLf => "CRLF",
    }
}
