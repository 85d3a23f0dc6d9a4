//! Writing a text mesh: the three lines, streamed to a writer in pieces, each number
//! printed with the file's [`TextFormat`] unless an override keeps its text.

use super::number::format_g;
use super::{TextFormat, TokenOverride, VertexV1};
use crate::error::{Error, ErrorKind, Result};
use crate::filemesh::raw::Version;
/// Bytes gathered before they are passed on to the writer.
const WRITE_PIECE: usize = 1 << 16;

/// Writes a text mesh of `num_faces` faces, given one at a time, into `out` (see
/// [`FileMeshV1::write`](super::FileMeshV1::write)), in pieces of about [`WRITE_PIECE`] bytes. `overrides` (sorted
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
