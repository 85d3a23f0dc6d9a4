//! Where the glTF writer's buffer goes: kept in memory, only counted (the first pass
//! of a streamed file), or written out in pieces (its second pass).

use std::io::Write;

/// Where the buffer's bytes go.
pub(super) enum Sink<'a> {
    /// Kept in memory.
    Memory(Vec<u8>),
    /// Only counted: the first pass of a streamed `.glb`, which lays the buffer out.
    Count,
    /// Written out as they come, in pieces of [`STREAM_PIECE`] bytes: the second pass
    /// of a streamed `.glb`. The first error stops the writing and is kept.
    Stream {
        out: &'a mut dyn Write,
        piece: Vec<u8>,
        error: Option<std::io::Error>,
    },
}

/// The size of the pieces a streamed buffer is written in.
pub(super) const STREAM_PIECE: usize = 64 * 1024;

impl Sink<'_> {
    /// Appends `bytes`; returns how many there were.
    pub(super) fn put(&mut self, bytes: impl Iterator<Item = u8>) -> usize {
        match self {
            Sink::Memory(bin) => {
                let before = bin.len();
                bin.extend(bytes);
                bin.len() - before
            }
            Sink::Count => bytes.count(),
            Sink::Stream { out, piece, error } => {
                let mut n = 0;
                for b in bytes {
                    n += 1;
                    piece.push(b);
                    if piece.len() >= STREAM_PIECE {
                        if error.is_none() {
                            *error = out.write_all(piece).err();
                        }
                        piece.clear();
                    }
                }
                n
            }
        }
    }

    /// Writes out what a stream holds back; the first error of the stream.
    pub(super) fn finish(&mut self) -> std::io::Result<()> {
        if let Sink::Stream { out, piece, error } = self {
            if let Some(e) = error.take() {
                return Err(e);
            }
            out.write_all(piece)?;
            piece.clear();
        }
        Ok(())
    }
}
