//! How a command fails: [`Failure`], a problem with the input (printed as
//! `meshcodec: FILE: MESSAGE`, exit status 1) or a conversion refused for what it would
//! lose (status 3), and [`usage_error`] (status 2).

use std::path::Path;

use clap::CommandFactory;
use meshcodec::loss::Loss;

/// Exit status of a conversion refused because it would lose data (`--allow-lossy`
/// accepts it): apart from 1 (an error: a damaged file, an unwritable output) and 2 (a
/// usage error), so a script can tell a refusal from a failure.
pub const REFUSED: u8 = 3;

/// An error for the user: printed as `meshcodec: FILE: MESSAGE`, exit 1; or, with
/// `refused`, a lossy conversion refused, exit [`REFUSED`].
pub struct Failure {
    /// The message, starting with the file it is about.
    pub message: String,
    /// What a refused conversion would lose (its [`Level::Lost`](meshcodec::loss::Level)
    /// lines and the rest of its report); empty for other failures.
    pub refused: Vec<Loss>,
}

impl Failure {
    /// The process's exit status for this failure.
    pub fn exit_code(&self) -> u8 {
        if self.refused.is_empty() {
            1
        } else {
            REFUSED
        }
    }
}

/// A [`Failure`] about `path`.
pub fn fail(path: &Path, msg: impl std::fmt::Display) -> Failure {
    Failure {
        message: format!("{}: {msg}", path.display()),
        refused: Vec::new(),
    }
}

/// Ends with a usage error (status 2) for an option's value that the input shows to be
/// wrong (`convert --to 2` of a CSGPHS file), worded as clap words the values it refuses
/// itself (`--to filemesh:2`).
pub fn invalid_value(command: &str, option: &str, value: &str, why: &str) -> ! {
    usage_error(
        command,
        &format!("invalid value '{value}' for '{option}': {why}"),
    )
}

/// Ends with a usage error (status 2) showing `command`'s usage.
pub fn usage_error(command: &str, message: &str) -> ! {
    let mut cli = crate::Cli::command();
    match cli.find_subcommand_mut(command) {
        Some(sub) => sub.error(clap::error::ErrorKind::WrongNumberOfValues, message),
        None => cli.error(clap::error::ErrorKind::WrongNumberOfValues, message),
    }
    .exit()
}
