//! The `meshcodec` command line: one file per command, and the pieces they share.
//!
//! `src/main.rs` parses the arguments and hands each command to its file here
//! (`info`, `convert`, `verify`, `export`, `import`, `render`, `dump`), with the
//! [`Context`] of the global options. Shared pieces: [`input`] (reading within the
//! limits, each thread's spare arrays), [`output`] (files written atomically),
//! [`stdout`] (results on standard output), [`failure`] (the errors and exit status),
//! [`losses`] (refusing lossy conversions), [`batch`] (folders and many files on every
//! core) and [`memory`] (the allocator's settings).

/// `println!` for results on standard output, which ends the program quietly (status 0)
/// when the reader has gone away (`meshcodec dump F | head`), as the rest of the output
/// is not wanted; any other write error ends it with status 1.
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::cli::stdout::say(format_args!($($arg)*))
    };
}

pub mod batch;
pub mod convert;
pub mod dump;
pub mod export;
pub mod failure;
pub mod import;
pub mod info;
pub mod input;
pub mod losses;
pub mod memory;
pub mod output;
pub mod render;
pub mod stdout;
pub mod verify;

use std::path::PathBuf;

use meshcodec::Limits;

use batch::{Entry, Selection};

/// The global options every command is run with.
pub struct Context {
    /// `--max-input`, `--max-decoded`.
    pub limits: Limits,
    /// `--jobs`: how many files a batch run works on at once (0: one per core).
    pub jobs: usize,
    /// `--ext`, `--glob`: which files found in folders are taken.
    pub selection: Selection,
}

impl Context {
    /// The files to work on, and whether this is a batch (several files or a folder).
    pub fn gather(&self, args: &[PathBuf]) -> (Vec<Entry>, bool) {
        let (entries, folder) = batch::gather(args, &self.selection);
        let many = folder || entries.len() != 1;
        (entries, many)
    }
}

/// `512M`, `2G`, `4096`: a size in bytes.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (digits, shift) = match t.char_indices().last() {
        Some((i, 'K' | 'k')) => (&t[..i], 10),
        Some((i, 'M' | 'm')) => (&t[..i], 20),
        Some((i, 'G' | 'g')) => (&t[..i], 30),
        _ => (t, 0),
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(1u64 << shift))
        .ok_or_else(|| format!("{s:?}: a size such as 4096, 512K, 512M or 2G"))
}
