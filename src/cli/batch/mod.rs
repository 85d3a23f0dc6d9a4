//! The command line's batch runs: many files and folders, on every core, one report per
//! file, in the order the files were named (folders in name order).
//!
//! - **Gathering** ([`gather()`]): named files and walked folders, `--ext` and `--glob`.
//! - **Running** ([`run()`]): files handed out in order to a pool of `--jobs` threads,
//!   each report printed as soon as the ones before it are.
//! - **Reports** ([`report`]): one per file, as a line for people or a JSON line.
//! - **Progress** ([`progress`]): on a terminal, a bar on standard error.

mod gather;
mod progress;
mod report;
mod run;

use std::process::ExitCode;

pub use gather::{gather, Entry, Selection};
pub use report::{Report, Status, Tally};
pub use run::run;

/// A JSON line's fields from (key, value) pairs.
pub fn fields<const N: usize>(
    pairs: [(&str, serde_json::Value); N],
) -> serde_json::Map<String, serde_json::Value> {
    pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

/// The end of a batch run: the totals `line` (on standard error with --json, where
/// standard output holds only JSON lines), and status 1 if any file failed or differed,
/// else 3 if a conversion was refused as lossy.
pub fn finish(tally: &Tally, line: &str, json: bool) -> ExitCode {
    if json {
        eprintln!("meshcodec: {line}");
    } else {
        say!("{line}");
    }
    if tally.failed + tally.differs > 0 {
        ExitCode::from(1)
    } else if tally.lossy > 0 {
        ExitCode::from(super::failure::REFUSED)
    } else {
        ExitCode::SUCCESS
    }
}
