//! `meshcodec dump`: the raw structure of a file as JSON.

use std::path::PathBuf;
use std::process::ExitCode;

use meshcodec::MeshFile;

use super::failure::{fail, Failure};
use super::input::load;
use super::stdout::print_json;
use super::Context;

/// Print the raw structure of a file as JSON.
#[derive(clap::Args)]
pub struct Args {
    /// The mesh file.
    file: PathBuf,
}

/// Runs `dump`.
pub fn run(args: Args, cx: &Context) -> Result<ExitCode, Failure> {
    let path = &args.file;
    let value = load(path, &cx.limits)?
        .dump(&cx.limits)
        .map_err(|e| fail(path, e))?;
    print_json(path, &value)?;
    Ok(ExitCode::SUCCESS)
}
