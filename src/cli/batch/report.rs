//! One file's report in a batch run ([`Report`]: a line for people, the fields of a JSON
//! line for scripts) and the totals of a run ([`Tally`]).

use std::path::Path;

use serde_json::{Map, Value};

/// How one file went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Done (verify: byte-identical).
    Ok,
    /// Verify: read and written back, not byte-identical.
    Differs,
    /// An error.
    Failed,
    /// A conversion refused for what it would lose (no `--allow-lossy`).
    Lossy,
    /// Passed over: not a mesh file, a symbolic link …
    Skipped,
}

impl Status {
    /// The name in a JSON line's `status`.
    pub(super) fn name(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Differs => "differs",
            Status::Failed => "error",
            Status::Lossy => "lossy",
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
    /// starts with the path loses that start); a refused lossy conversion has status
    /// `lossy` and its report as `losses` (`{"kind", "level", "count", "text"}` each).
    pub fn of_failure(path: &Path, failure: &super::super::failure::Failure) -> Report {
        if failure.refused.is_empty() {
            return Report::failed(path, &failure.message);
        }
        let shown = format!("{}: ", path.display());
        let message = failure.message.as_str();
        let message = message.strip_prefix(&shown).unwrap_or(message);
        let mut json = Map::new();
        json.insert("message".into(), Value::from(message));
        json.insert(
            "losses".into(),
            super::super::losses::json(&failure.refused),
        );
        Report {
            status: Status::Lossy,
            text: format!("LOSSY     {}: {message}", path.display()),
            json,
        }
    }

    /// An error (see [`Report::of_failure`]).
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
    /// Conversions refused for what they would lose.
    pub lossy: usize,
    /// Passed over.
    pub skipped: usize,
}

impl Tally {
    /// Files worked on (not skipped).
    pub fn done(&self) -> usize {
        self.ok + self.differs + self.failed + self.lossy
    }

    /// "N ok, N failed, N skipped (not mesh files or links)" for the end of a run.
    pub fn line(&self, ok: &str) -> String {
        let mut parts = vec![format!("{} {ok}", self.ok)];
        if self.differs > 0 {
            parts.push(format!("{} not byte-identical", self.differs));
        }
        if self.lossy > 0 {
            parts.push(format!("{} refused as lossy", self.lossy));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tally_line() {
        let t = Tally {
            ok: 3,
            differs: 1,
            failed: 2,
            lossy: 0,
            skipped: 4,
        };
        assert_eq!(
            t.line("ok"),
            "6 files: 3 ok, 1 not byte-identical, 2 failed, \
             4 skipped (not mesh files, links or devices)"
        );
    }
}
