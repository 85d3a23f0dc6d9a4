//! How a command fails: [`Failure`], a problem with the input (printed as
//! `meshcodec: FILE: MESSAGE`, exit status 1), and [`usage_error`] (status 2).

use std::path::Path;

use clap::CommandFactory;

/// An error for the user: printed as `meshcodec: FILE: MESSAGE`, exit 1.
pub struct Failure(pub String);

/// A [`Failure`] about `path`.
pub fn fail(path: &Path, msg: impl std::fmt::Display) -> Failure {
    Failure(format!("{}: {msg}", path.display()))
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
