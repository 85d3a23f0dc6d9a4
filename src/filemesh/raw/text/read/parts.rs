//! A long data line read in parts, one thread each: the line is cut at face boundaries
//! found by counting `]` (a face is nine triples and every triple has exactly one `]`:
//! numbers hold none), each part is parsed by a parser of its own into its own faces,
//! and the parts' number statistics are joined in order.
//!
//! The result is the one-thread parse's, by construction: a parser's output from a
//! position is a function of the bytes from there on (the tables of triples seen are
//! caches, exact by construction; a part's numbers are counted from its first number's
//! index in the file), and a part counts only if the part before it ended exactly where
//! it starts. When one did not (a damaged line: the `]` count lied), when a part failed,
//! or when a thread could not be started, the caller reads the whole line on one thread,
//! which also gives an error its usual place.
//!
//! The threads are started for the line and joined before it is done (`std::thread::
//! scope`), not taken from a pool that lives on: a pool's threads are gone in a process
//! forked from one that used them (Python's `multiprocessing` forks by default on
//! Linux), and work handed to them there would wait forever. Starting a thread costs
//! 20-40 µs here (with its join and the other core waking), what reading 30 KB
//! costs, hence [`PART_BYTES`].

use super::super::overrides::NumberStats;
use super::super::seen::Seen;
use super::super::{VertexV1, NUMBERS_PER_FACE};
use super::{Parser, Tail};
use std::sync::OnceLock;

/// The fewest bytes of data a part gets. Lines cut from the 320 KB real 1.00 file,
/// read here (two cores; best of 300 in each of six processes): 128 KB in two parts 126
/// µs against 112 µs on one thread, 192 KB 155 against 211 µs, the whole file 143-174
/// against 288 µs.
const PART_BYTES: usize = 96 * 1024;

/// Parts at most, whatever the machine.
const MOST_PARTS: usize = 8;

/// The threads the machine gives this process, asked once (the question reads cgroup
/// files on Linux).
fn threads() -> usize {
    static THREADS: OnceLock<usize> = OnceLock::new();
    *THREADS.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// The fewest bytes of a part and the most parts: [`PART_BYTES`] and the threads there
/// are (at most [`MOST_PARTS`]), or what a test asks for.
fn shape() -> (usize, usize) {
    #[cfg(test)]
    if let Some(shape) = tests::SHAPE.get() {
        return shape;
    }
    (PART_BYTES, threads().min(MOST_PARTS))
}

/// Where a part after the first starts: its first face and the byte of that face's `[`.
#[derive(Clone, Copy)]
struct Cut {
    face: usize,
    at: usize,
}

/// Where the data from `start` on (`faces` faces) would be cut into `parts` parts of
/// about equal bytes, each at the end of the face whose last `]` comes last before the
/// part's share ends. Exact for a well-formed line; for a damaged one the parse finds
/// the parts do not meet.
fn cuts(bytes: &[u8], start: usize, parts: usize, faces: usize) -> Vec<Cut> {
    let data = bytes.len().saturating_sub(start);
    let mut cuts: Vec<Cut> = Vec::with_capacity(parts);
    let (mut face, mut at) = (0, start);
    for k in 1..parts {
        let share = start + data / parts * k;
        let Some(piece) = bytes.get(at..share) else {
            continue;
        };
        let closes = super::closes(piece);
        let whole = closes / 9;
        // After the last `]` of the last whole face: `closes - 9 × whole` of them follow.
        let Some(end) = piece
            .iter()
            .rposition(|&b| b == b']')
            .and_then(|last| after_close(piece, last, closes - 9 * whole))
            .filter(|_| whole > 0)
        else {
            continue;
        };
        face += whole;
        at += end;
        if face >= faces {
            break;
        }
        cuts.push(Cut { face, at });
    }
    cuts
}

/// Just after the `]` that has `later` more after it in `piece`, `last` being the
/// place of the last one.
fn after_close(piece: &[u8], last: usize, later: usize) -> Option<usize> {
    let mut at = last;
    for _ in 0..later {
        at = piece.get(..at)?.iter().rposition(|&b| b == b']')?;
    }
    Some(at + 1)
}

impl<'a> Parser<'a> {
    /// [`Parser::faces`] in parts on several threads when the data is long and the
    /// machine has threads to give: reads `faces` (faces `first..` of `count`), the
    /// parser at the first one's `[`; whether it did. If not, the parser is as it was
    /// (its table of triples seen may hold more) and the caller reads them on one thread.
    pub(super) fn faces_in_parts(
        &mut self,
        faces: &mut [[VertexV1; 3]],
        first: usize,
        count: usize,
    ) -> bool {
        let start = self.pos;
        let data = self.bytes.len().saturating_sub(start);
        let (part_bytes, most) = shape();
        let parts = (data / part_bytes).min(most);
        if parts < 2 {
            return false;
        }
        let mut starts = vec![Cut { face: 0, at: start }];
        starts.extend(cuts(self.bytes, start, parts, faces.len()));
        if starts.len() < 2 {
            return false;
        }
        // Each part's parser and faces; the first part's parser has this one's table.
        let total = faces.len();
        let mut jobs = Vec::with_capacity(starts.len());
        let mut rest = faces;
        for (i, cut) in starts.iter().enumerate() {
            let end = starts.get(i + 1).map_or(total, |next| next.face);
            let (mine, after) = std::mem::take(&mut rest).split_at_mut(end - cut.face);
            rest = after;
            let seen = if i == 0 {
                std::mem::replace(&mut self.seen, Seen::none())
            } else {
                Seen::new(mine.len().saturating_mul(9))
            };
            jobs.push((self.part(*cut, seen), mine, first + cut.face));
        }
        // Each part's parser when done, and whether it read its faces.
        let mut done: Vec<Option<(bool, Parser<'a>)>> = Vec::new();
        done.resize_with(jobs.len(), || None);
        // The first part on this thread, each other on a thread of its own, all joined
        // before the scope ends.
        std::thread::scope(|s| {
            let mut jobs = jobs.into_iter().zip(&mut done);
            let here = jobs.next();
            for ((mut p, faces, first), out) in jobs {
                // A thread that cannot start leaves its part unread.
                let _ = std::thread::Builder::new().spawn_scoped(s, move || {
                    let read = p.faces(faces, first, count).is_ok();
                    *out = Some((read, p));
                });
            }
            if let Some(((mut p, faces, first), out)) = here {
                let read = p.faces(faces, first, count).is_ok();
                *out = Some((read, p));
            }
        });
        if let Some(Some((_, p))) = done.first_mut() {
            self.seen = std::mem::replace(&mut p.seen, Seen::none());
        }
        // Every part read, each ending where the next starts.
        let met = done
            .iter()
            .enumerate()
            .all(|(i, d)| match (d, starts.get(i + 1)) {
                (Some((true, p)), Some(next)) => p.pos == next.at,
                (Some((true, _)), None) => true,
                _ => false,
            });
        if !met {
            return false;
        }
        for (_, p) in done.into_iter().flatten() {
            self.pos = p.pos;
            self.stats.append(p.stats);
        }
        #[cfg(test)]
        tests::READ_IN_PARTS.set(tests::READ_IN_PARTS.get() + 1);
        true
    }

    /// A parser for the part starting at `cut` (its face counted from this parser's
    /// position) with the table `seen`: this parser's bytes and place in the file, its
    /// numbers counted from that face's first.
    fn part(&self, cut: Cut, seen: Seen) -> Parser<'a> {
        Parser {
            bytes: self.bytes,
            pos: cut.at,
            stats: NumberStats {
                numbers: self.stats.numbers + cut.face * NUMBERS_PER_FACE,
                ..NumberStats::default()
            },
            seen,
            origin: self.origin,
            line: self.line,
            line_start: self.line_start,
            file_len: self.file_len,
            tail: Tail::NONE,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::FileMeshV1;
    use crate::filemesh::raw::Version;
    use std::cell::Cell;

    thread_local! {
        /// The part shape a test asks for ([`super::shape`]).
        pub(super) static SHAPE: Cell<Option<(usize, usize)>> = const { Cell::new(None) };
        /// Lines read in parts on this thread.
        pub(super) static READ_IN_PARTS: Cell<usize> = const { Cell::new(0) };
    }

    /// A read's result, its values by their bits (`-0` is not `0`).
    fn outcome(read: crate::error::Result<FileMeshV1>) -> Result<(Vec<u32>, String), String> {
        read.map(|m| {
            let bits = m
                .faces
                .iter()
                .flatten()
                .flat_map(|v| [v.position, v.normal, v.uvw])
                .flatten()
                .map(f32::to_bits)
                .collect();
            (bits, format!("{:?} {:?}", m.format, m.overrides))
        })
        .map_err(|e| e.to_string())
    }

    fn version_of(text: &[u8]) -> Version {
        if text.starts_with(b"version 1.01") {
            Version::V1_01
        } else {
            Version::V1_00
        }
    }

    /// Text files to read: the text fixtures and corpus files, texts of numbers not
    /// canonical and with three-digit exponents, and damaged copies of them all (cut
    /// short, a byte changed, a `]` added or taken away: the `]` count then lies).
    fn texts() -> Vec<Vec<u8>> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut texts = Vec::new();
        for dir in [
            root.join("roundtrip-fixtures").join("text"),
            crate::test_corpus_roblox(),
        ] {
            let mut paths: Vec<_> = std::fs::read_dir(dir)
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.path())
                .collect();
            paths.sort();
            for p in paths {
                let bytes = std::fs::read(&p).unwrap_or_default();
                if bytes.starts_with(b"version 1.0") {
                    texts.push(bytes);
                }
            }
        }
        let face = "[1,2,3][0,1,0][0.5,0.25,0]".repeat(3);
        let odd = "[1.0,+2,.5][1E5,1e-007,0.000001][00,-0,1e+05]";
        // Two faces: one canonical, one with a vertex of odd tokens.
        let mixed = format!("{face}{odd}{}", &face[..52]).repeat(40);
        texts.push(format!("version 1.00\n80\n{mixed}").into_bytes());
        texts.push(format!("version 1.01\r\n80\r\n{mixed}\r\n").into_bytes());
        // Plain faces, then faces whose numbers have three-digit exponents and more
        // digits than six: only the later parts see them.
        let late = face.replace("[1,2,3]", "[1.5e-007,2.5e-007,-3.2345678e+008]");
        let late = format!("version 1.00\n80\n{}{}", face.repeat(60), late.repeat(20));
        texts.push(late.into_bytes());
        let whole = texts.len();
        for t in texts.clone().iter().take(whole) {
            let mut damaged = vec![t.get(..t.len() * 2 / 3).unwrap_or_default().to_vec()];
            for (at, byte) in [(3, b'#'), (2, b']'), (4, b'7')] {
                let mut bad = t.clone();
                if let Some(b) = bad.get_mut(t.len() * at / 5) {
                    *b = byte;
                }
                damaged.push(bad);
            }
            // A `]` taken away (the one nearest two thirds in).
            if let Some(i) = t.iter().skip(t.len() * 2 / 3).position(|&b| b == b']') {
                let mut bad = t.clone();
                bad.remove(t.len() * 2 / 3 + i);
                damaged.push(bad);
            }
            texts.extend(damaged);
        }
        texts
    }

    /// Reading in parts gives what reading on one thread gives, value bits, format,
    /// overrides and errors (offset, line, column) alike, for parts of every size down to
    /// a few faces and up to eight of them, whole and in pieces; and it does read in
    /// parts (not always falling back).
    #[test]
    fn reading_in_parts_is_reading_on_one_thread() {
        let texts = texts();
        assert!(texts.len() >= 20, "{} texts", texts.len());
        let (mut compared, mut in_parts) = (0, 0);
        for text in &texts {
            let version = version_of(text);
            SHAPE.set(Some((usize::MAX, 1)));
            let alone = outcome(FileMeshV1::read(text, version));
            let pieces = |piece| {
                let cursor = std::io::Cursor::new(text.as_slice());
                outcome(FileMeshV1::read_in_pieces(
                    cursor,
                    version,
                    text.len() as u64,
                    piece,
                ))
            };
            assert_eq!(pieces(1000), alone);
            let faces = alone.as_ref().map_or(0, |(bits, _)| bits.len() / 27);
            for shape in [(64, 2), (300, 3), (1000, 8), (4096, 2)] {
                SHAPE.set(Some(shape));
                let label = String::from_utf8_lossy(text.get(..24).unwrap_or_default());
                let before = READ_IN_PARTS.get();
                assert_eq!(
                    outcome(FileMeshV1::read(text, version)),
                    alone,
                    "{shape:?} {label}"
                );
                // A line of ten faces or more that reads is read in two parts of 64 bytes
                // or more.
                if shape == (64, 2) && faces >= 10 {
                    assert_eq!(READ_IN_PARTS.get(), before + 1, "{label} not in parts");
                    in_parts += 1;
                }
                assert_eq!(pieces(1000), alone, "{shape:?} in pieces: {label}");
                compared += 2;
            }
        }
        SHAPE.set(None);
        assert!(compared > 100 && in_parts >= 2, "{compared} {in_parts}");
    }

    /// The cuts fall after a face's ninth `]`, each a face further on, none at the end.
    #[test]
    fn cuts_fall_between_faces() {
        let face = "[1,2,3][0,1,0][0.5,0.25,0]".repeat(3);
        let data = face.repeat(10);
        let bytes = format!("ab{data}");
        let cuts = super::cuts(bytes.as_bytes(), 2, 4, 10);
        assert_eq!(cuts.len(), 3);
        let mut last = 0;
        for cut in &cuts {
            assert!(cut.face > last && cut.face < 10);
            assert_eq!(cut.at, 2 + cut.face * face.len());
            last = cut.face;
        }
        // Fewer faces than parts: only whole faces make cuts.
        assert!(super::cuts(bytes.as_bytes(), 2, 4, 1).is_empty());
        assert!(super::cuts(b"ab[1,2,3]", 2, 2, 1).is_empty());
    }
}
