//! Running a batch: files handed out in order to a `rayon` pool (`--jobs`, default every
//! core); each report printed as soon as the reports before it are, as a line for people
//! or, with `--json`, one JSON object per line (JSON lines).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::mpsc;

use rayon::iter::{ParallelBridge, ParallelIterator};
use serde_json::{Map, Value};

use super::gather::{looks_like_a_mesh, Entry, Input};
use super::progress::progress_bar;
use super::report::{Report, Status, Tally};

/// Runs `work` on every file on `jobs` threads (0: one per core) and prints each report
/// in order, as text or (`json`) as a JSON line; a progress bar on standard error when
/// it is a terminal. Returns how the files went.
pub fn run(
    entries: Vec<Entry>,
    jobs: usize,
    json: bool,
    work: impl Fn(&Input) -> Report + Sync,
) -> Tally {
    let total = entries.len() as u64;
    let bar = progress_bar(total);
    let mut tally = Tally::default();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .expect("a thread pool of the asked size");
    let (tx, rx) = mpsc::channel::<(usize, PathBuf, Report)>();
    std::thread::scope(|scope| {
        let work = &work;
        let entries = &entries;
        scope.spawn(move || {
            pool.install(|| {
                // In order, one at a time from a shared iterator: reports come back
                // roughly in order, so they can be printed as they come.
                entries
                    .iter()
                    .enumerate()
                    .par_bridge()
                    .for_each_with(tx, |tx, (i, entry)| {
                        let (path, report) = match entry {
                            Entry::File(input) => (input.path.clone(), examine(input, work)),
                            Entry::Skip(p, why) => (p.clone(), Report::skipped(p, why)),
                            Entry::Fail(p, why) => (p.clone(), Report::failed(p, why)),
                        };
                        let _ = tx.send((i, path, report));
                    });
            });
        });
        let mut pending = BTreeMap::new();
        let mut next = 0;
        for (i, path, report) in rx {
            pending.insert(i, (path, report));
            while let Some((path, report)) = pending.remove(&next) {
                next += 1;
                match report.status {
                    Status::Ok => tally.ok += 1,
                    Status::Differs => tally.differs += 1,
                    Status::Failed => tally.failed += 1,
                    Status::Lossy => tally.lossy += 1,
                    Status::Skipped => tally.skipped += 1,
                }
                let line = if json {
                    let mut object = Map::new();
                    object.insert("path".into(), Value::from(path.to_string_lossy()));
                    object.insert("status".into(), Value::from(report.status.name()));
                    object.extend(report.json);
                    Value::Object(object).to_string()
                } else {
                    report.text
                };
                match &bar {
                    Some(bar) => {
                        bar.inc(1);
                        if !line.is_empty() {
                            bar.suspend(|| crate::cli::stdout::say(format_args!("{line}")));
                        }
                    }
                    None if !line.is_empty() => crate::cli::stdout::say(format_args!("{line}")),
                    None => {}
                }
            }
        }
    });
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    tally
}

/// Why a file found in a folder is passed over.
pub const NOT_A_MESH: &str = "not a mesh file of any format meshcodec reads";

/// `work` on a file, unless it was found in a folder and its first bytes are no mesh
/// format (skipped, not failed; a file named on the command line is always worked on).
fn examine(input: &Input, work: impl Fn(&Input) -> Report) -> Report {
    if input.named {
        return work(input);
    }
    match looks_like_a_mesh(&input.path) {
        Ok(true) => work(input),
        Ok(false) => Report::skipped(&input.path, NOT_A_MESH),
        Err(e) => Report::failed(&input.path, &format!("cannot read: {e}")),
    }
}
