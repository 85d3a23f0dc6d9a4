//! The command line's batch runs: many files and folders, on every core, one report per
//! file, in the order the files were named (folders in name order).
//!
//! - **Gathering** ([`gather`]): a file named on the command line is always taken; a
//!   folder is walked recursively (symbolic links inside it are not followed, but listed
//!   as skipped), keeping the files that pass `--ext` and `--glob`. A walked file whose
//!   first bytes are no mesh format is skipped and listed as such; a named one is an
//!   error, as before.
//! - **Running** ([`run`]): files are handed out in order to a `rayon` pool (`--jobs`,
//!   default every core); each report is printed as soon as the reports before it are,
//!   as a line for people or, with `--json`, one JSON object per line (JSON lines).
//! - **Progress**: on a terminal, a bar on standard error; never in piped output.

use std::collections::BTreeMap;
use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::sync::mpsc;

use rayon::iter::{ParallelBridge, ParallelIterator};
use serde_json::{Map, Value};

/// One file to work on.
#[derive(Clone, Debug)]
pub struct Input {
    /// Where it is.
    pub path: PathBuf,
    /// Its path below the folder it was found in (its file name when named directly):
    /// where its output goes below `--out-dir`.
    pub rel: PathBuf,
    /// Named on the command line rather than found in a folder.
    pub named: bool,
}

/// What a batch run is given: files to work on, and what the walk passed over.
#[derive(Debug)]
pub enum Entry {
    /// A file to work on.
    File(Input),
    /// Passed over, with the reason (a symbolic link, a device …).
    Skip(PathBuf, String),
    /// A folder that could not be read.
    Fail(PathBuf, String),
}

/// `--ext` and `--glob`: which files found in folders are taken.
#[derive(Clone, Debug, Default)]
pub struct Selection {
    /// Extensions (lower case, no dot); empty: any.
    pub ext: Vec<String>,
    /// A pattern matched against the file name, or, when it holds a `/`, against the
    /// path below the folder: `*` any characters but `/`, `**` any characters, `?` one.
    pub glob: Option<String>,
}

impl Selection {
    fn wants(&self, rel: &Path) -> bool {
        let ext_ok = self.ext.is_empty()
            || rel
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| self.ext.iter().any(|x| x.eq_ignore_ascii_case(e)));
        let glob_ok = self.glob.as_deref().is_none_or(|g| {
            let rel = rel.to_string_lossy().replace('\\', "/");
            if g.contains('/') {
                glob_match(g.as_bytes(), rel.as_bytes())
            } else {
                let name = rel.rsplit('/').next().unwrap_or("");
                glob_match(g.as_bytes(), name.as_bytes())
            }
        });
        ext_ok && glob_ok
    }
}

/// Whether `text` matches `pattern` (`*` any run without `/`, `**` any run, `?` one
/// character but `/`), in O(len(pattern) × len(text)).
pub fn glob_match(pattern: &[u8], text: &[u8]) -> bool {
    // Tokens: a literal byte, `?`, `*` or `**`.
    #[derive(Clone, Copy, PartialEq)]
    enum T {
        Byte(u8),
        One,
        Star,
        Stars,
    }
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < pattern.len() {
        match pattern[i] {
            b'*' if pattern.get(i + 1) == Some(&b'*') => {
                tokens.push(T::Stars);
                i += 1;
            }
            b'*' => tokens.push(T::Star),
            b'?' => tokens.push(T::One),
            b => tokens.push(T::Byte(b)),
        }
        i += 1;
    }
    // can[j]: the first `p` tokens match the first `j` bytes.
    let mut can = vec![false; text.len() + 1];
    can[0] = true;
    for t in tokens {
        let mut next = vec![false; text.len() + 1];
        for j in 0..=text.len() {
            next[j] = match t {
                T::Byte(b) => j > 0 && can[j - 1] && text[j - 1] == b,
                T::One => j > 0 && can[j - 1] && text[j - 1] != b'/',
                T::Star => can[j] || (j > 0 && next[j - 1] && text[j - 1] != b'/'),
                T::Stars => can[j] || (j > 0 && next[j - 1]),
            };
        }
        can = next;
    }
    can[text.len()]
}

/// The files to work on: named files as they are, folders walked recursively in name
/// order. `batch` in the result says whether a folder was named (a batch even if it
/// holds one file).
pub fn gather(args: &[PathBuf], selection: &Selection) -> (Vec<Entry>, bool) {
    let mut entries = Vec::new();
    let mut folder = false;
    for arg in args {
        if arg.is_dir() {
            folder = true;
            walk(arg, Path::new(""), selection, &mut entries);
        } else {
            let rel = arg.file_name().map(PathBuf::from).unwrap_or_default();
            entries.push(Entry::File(Input {
                path: arg.clone(),
                rel,
                named: true,
            }));
        }
    }
    (entries, folder)
}

fn walk(root: &Path, rel: &Path, selection: &Selection, out: &mut Vec<Entry>) {
    let dir = root.join(rel);
    let listing = match std::fs::read_dir(&dir) {
        Ok(l) => l,
        Err(e) => {
            out.push(Entry::Fail(dir, format!("cannot read the folder: {e}")));
            return;
        }
    };
    let mut items: Vec<_> = listing.filter_map(std::result::Result::ok).collect();
    items.sort_by_key(std::fs::DirEntry::file_name);
    for item in items {
        let here = rel.join(item.file_name());
        let path = item.path();
        match item.file_type() {
            Ok(t) if t.is_dir() => walk(root, &here, selection, out),
            Ok(t) if t.is_file() => {
                if selection.wants(&here) {
                    out.push(Entry::File(Input {
                        path,
                        rel: here,
                        named: false,
                    }));
                }
            }
            Ok(t) if t.is_symlink() => {
                out.push(Entry::Skip(path, "a symbolic link, not followed".into()));
            }
            Ok(_) => out.push(Entry::Skip(path, "not a regular file".into())),
            Err(e) => out.push(Entry::Fail(path, format!("cannot read: {e}"))),
        }
    }
}

/// Whether a file found in a folder starts like a mesh file of some format (its first
/// 64 bytes), so that a folder's other files are passed over rather than failed.
pub fn looks_like_a_mesh(path: &Path) -> std::io::Result<bool> {
    let mut head = Vec::with_capacity(64);
    std::fs::File::open(path)?.take(64).read_to_end(&mut head)?;
    Ok(meshcodec::detect(&head).is_some())
}

/// How one file went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Done (verify: byte-identical).
    Ok,
    /// Verify: read and written back, not byte-identical.
    Differs,
    /// An error.
    Failed,
    /// Passed over: not a mesh file, a symbolic link …
    Skipped,
}

impl Status {
    fn name(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Differs => "differs",
            Status::Failed => "error",
            Status::Skipped => "skipped",
        }
    }
}

/// One file's report: a line (or lines) for people, and the fields of its JSON line
/// (`path` and `status` are added).
#[derive(Debug)]
pub struct Report {
    /// How it went.
    pub status: Status,
    /// For people; printed as it is (nothing when empty).
    pub text: String,
    /// For scripts.
    pub json: Map<String, Value>,
}

impl Report {
    /// A failure: `text` for people, `{"error": message}` for scripts (a message that
    /// starts with the path loses that start).
    pub fn failed(path: &Path, message: &str) -> Report {
        let shown = format!("{}: ", path.display());
        let message = message.strip_prefix(&shown).unwrap_or(message);
        let mut json = Map::new();
        json.insert("error".into(), Value::from(message));
        Report {
            status: Status::Failed,
            text: format!("ERROR     {}: {message}", path.display()),
            json,
        }
    }

    /// Passed over, with the reason.
    pub fn skipped(path: &Path, reason: &str) -> Report {
        let mut json = Map::new();
        json.insert("reason".into(), Value::from(reason));
        Report {
            status: Status::Skipped,
            text: format!("skipped   {}: {reason}", path.display()),
            json,
        }
    }
}

/// How many files ended how.
#[derive(Debug, Default)]
pub struct Tally {
    /// Files that are done (verify: identical).
    pub ok: usize,
    /// Verify: not identical.
    pub differs: usize,
    /// Errors.
    pub failed: usize,
    /// Passed over.
    pub skipped: usize,
}

impl Tally {
    /// Files worked on (not skipped).
    pub fn done(&self) -> usize {
        self.ok + self.differs + self.failed
    }

    /// "N ok, N failed, N skipped (not mesh files or links)" for the end of a run.
    pub fn line(&self, ok: &str) -> String {
        let mut parts = vec![format!("{} {ok}", self.ok)];
        if self.differs > 0 {
            parts.push(format!("{} not byte-identical", self.differs));
        }
        parts.push(format!("{} failed", self.failed));
        if self.skipped > 0 {
            parts.push(format!(
                "{} skipped (not mesh files, links or devices)",
                self.skipped
            ));
        }
        format!("{} files: {}", self.done(), parts.join(", "))
    }
}

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
                            bar.suspend(|| crate::say(format_args!("{line}")));
                        }
                    }
                    None if !line.is_empty() => crate::say(format_args!("{line}")),
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

/// A progress bar on standard error, if it is a terminal and there is more than one
/// file.
fn progress_bar(total: u64) -> Option<indicatif::ProgressBar> {
    if total < 2 || !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(total),
        indicatif::ProgressDrawTarget::stderr(),
    );
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{elapsed_precise} [{bar:40}] {pos}/{len} files, {eta} left",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }
    Some(bar)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        let m = |p: &str, t: &str| glob_match(p.as_bytes(), t.as_bytes());
        assert!(m("*.mesh", "a.mesh"));
        assert!(!m("*.mesh", "a.mesh.bak"));
        assert!(!m("*.mesh", "d/a.mesh"));
        assert!(m("**.mesh", "d/e/a.mesh"));
        assert!(m("d/**/a?.bin", "d/x/y/ab.bin"));
        assert!(!m("d/*/a?.bin", "d/x/y/ab.bin"));
        assert!(m("", ""));
        assert!(!m("?", ""));
        assert!(m("*", ""));
        // No exponential backtracking on a hostile pattern.
        let long = "a".repeat(5000);
        assert!(!m(&"*a".repeat(40).replace("a", "b"), &long));
    }

    #[test]
    fn selection_by_extension_and_pattern() {
        let s = Selection {
            ext: vec!["mesh".into(), "bin".into()],
            glob: None,
        };
        assert!(s.wants(Path::new("x/a.MESH")));
        assert!(!s.wants(Path::new("x/a.txt")));
        let s = Selection {
            ext: vec![],
            glob: Some("v5*".into()),
        };
        assert!(s.wants(Path::new("x/v5.00.mesh")));
        assert!(!s.wants(Path::new("v5/a.mesh")));
    }

    #[test]
    fn tally_line() {
        let t = Tally {
            ok: 3,
            differs: 1,
            failed: 2,
            skipped: 4,
        };
        assert_eq!(
            t.line("ok"),
            "6 files: 3 ok, 1 not byte-identical, 2 failed, \
             4 skipped (not mesh files, links or devices)"
        );
    }
}
