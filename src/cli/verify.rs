//! `meshcodec verify`: each file read and written back, compared byte for byte with
//! itself (through [`Compare`], never holding the copy), and its payloads decoded.

use std::path::PathBuf;
use std::process::ExitCode;

use meshcodec::MeshFile;

use super::batch::{self, finish, Report, Status};
use super::failure::{fail, Failure};
use super::input::{done_with, load, open_input};
use super::Context;

/// Check that each file writes back byte-identically and that its payloads decode.
///
/// Read and write back each file, and decode every payload it holds (Draco, zstd,
/// LZ4, Edgebreaker hulls, STF meshes); exit 1 if any is not byte-identical or does
/// not decode. Folders are walked recursively (files that are not meshes are skipped
/// and counted); files run on every core and report in order.
#[derive(clap::Args)]
pub struct Args {
    /// Files and folders to check.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Print one JSON object per file (JSON lines: path, status, bytes, …) and the
    /// totals on standard error.
    #[arg(long)]
    json: bool,
}

/// Runs `verify`.
pub fn run(args: Args, cx: &Context) -> Result<ExitCode, Failure> {
    let Args { files: paths, json } = args;
    let limits = cx.limits;
    let (entries, _) = cx.gather(&paths);
    let tally = batch::run(entries, cx.jobs, json, |input| {
        let path = &input.path;
        let outcome = (|| {
            let file = load(path, &limits)?;
            let original = open_input(path, &limits)?;
            let len = original
                .metadata()
                .map_err(|e| fail(path, format!("cannot read: {e}")))?
                .len();
            let mut compare = Compare::new(std::io::BufReader::new(original));
            let mut out = std::io::BufWriter::with_capacity(1 << 16, &mut compare);
            file.write_to(&mut out).map_err(|e| fail(path, e))?;
            std::io::Write::flush(&mut out).map_err(|e| fail(path, e))?;
            drop(out);
            let written = compare.written;
            let differs = compare.finish(len);
            // Byte-exact containers can still hold payloads that do not decode.
            let checked = file.check(&limits).map_err(|e| fail(path, e));
            done_with(file);
            checked?;
            Ok((len, written, differs))
        })();
        match outcome {
            Err(f) => Report::of_failure(path, &f),
            Ok((len, written, differs)) => {
                let mut fields = serde_json::Map::new();
                fields.insert("bytes".into(), len.into());
                let Some((at, _)) = differs else {
                    return Report {
                        status: Status::Ok,
                        text: format!("ok        {} ({len} bytes)", path.display()),
                        json: fields,
                    };
                };
                fields.insert("written".into(), written.into());
                fields.insert("first_difference".into(), at.into());
                Report {
                    status: Status::Differs,
                    text: format!(
                        "DIFFERS   {}: first difference at byte {at} ({len} bytes read, {written} written)",
                        path.display(),
                    ),
                    json: fields,
                }
            }
        }
    });
    let line = format!(
        "{} of {} files byte-identical after read and write{}",
        tally.ok,
        tally.done(),
        match (tally.failed, tally.skipped) {
            (0, 0) => String::new(),
            (f, 0) => format!(" ({f} failed)"),
            (0, s) => format!(" ({s} skipped: not mesh files, links or devices)"),
            (f, s) => format!(" ({f} failed, {s} skipped: not mesh files, links or devices)"),
        }
    );
    Ok(finish(&tally, &line, json))
}

/// A writer that compares what is written with a file's bytes instead of keeping it:
/// `verify` writes a file back through it, so the copy is never held in memory.
struct Compare<R> {
    original: R,
    written: u64,
    first_difference: Option<u64>,
    scratch: Vec<u8>,
}

impl<R: std::io::Read> Compare<R> {
    fn new(original: R) -> Self {
        Compare {
            original,
            written: 0,
            first_difference: None,
            scratch: Vec::new(),
        }
    }

    /// The first byte at which the written bytes and the file differ (also where one
    /// ends before the other), and the file's length; `None` when identical.
    fn finish(mut self, len: u64) -> Option<(u64, u64)> {
        let mut one = [0u8; 1];
        if self.first_difference.is_none() && self.original.read(&mut one).unwrap_or(0) > 0 {
            self.first_difference = Some(self.written);
        }
        self.first_difference.map(|at| (at, len))
    }
}

impl<R: std::io::Read> std::io::Write for Compare<R> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        // In pieces, so a whole array written at once needs no copy of its size.
        for piece in buf.chunks(1 << 16) {
            if self.first_difference.is_none() {
                self.scratch.resize(piece.len(), 0);
                let mut got = 0;
                while got < piece.len() {
                    match self.original.read(&mut self.scratch[got..])? {
                        0 => break,
                        n => got += n,
                    }
                }
                let differs = piece[..got]
                    .iter()
                    .zip(&self.scratch[..got])
                    .position(|(a, b)| a != b)
                    .or((got < piece.len()).then_some(got));
                if let Some(i) = differs {
                    self.first_difference = Some(self.written + i as u64);
                }
            }
            self.written += piece.len() as u64;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::Compare;
    use std::io::Write;

    /// Writes `written` in pieces of `step` through a [`Compare`] with `original`.
    fn compare(original: &[u8], written: &[u8], step: usize) -> Option<(u64, u64)> {
        let mut c = Compare::new(original);
        for piece in written.chunks(step.max(1)) {
            c.write_all(piece).unwrap();
        }
        c.finish(original.len() as u64)
    }

    #[test]
    fn compare_finds_the_first_difference_in_any_piece_size() {
        let a: Vec<u8> = (0..200_000u32).map(|i| (i * 7 % 251) as u8).collect();
        for step in [1, 3, 4096, 1 << 16, 1 << 20] {
            assert_eq!(compare(&a, &a, step), None, "step {step}");
            let mut b = a.clone();
            b[150_001] ^= 1;
            b[170_000] ^= 1;
            assert_eq!(
                compare(&a, &b, step),
                Some((150_001, 200_000)),
                "step {step}"
            );
            // Shorter and longer outputs differ where the shorter one ends.
            assert_eq!(compare(&a, &a[..99_999], step), Some((99_999, 200_000)));
            let mut longer = a.clone();
            longer.push(0);
            assert_eq!(compare(&a, &longer, step), Some((200_000, 200_000)));
        }
        assert_eq!(compare(b"", b"", 1), None);
        assert_eq!(compare(b"", b"x", 1), Some((0, 0)));
    }
}
