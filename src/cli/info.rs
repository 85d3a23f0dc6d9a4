//! `meshcodec info`: the format, version and counts of each file.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use meshcodec::{Limits, MeshFile};

use super::batch::{self, finish, Report, Status};
use super::failure::{fail, Failure};
use super::input::{done_with, load};
use super::stdout::print_json;
use super::Context;

/// Print the format, version and counts of each file.
///
/// Folders are walked recursively (files that are not meshes are skipped and counted);
/// several files run on every core and report in order.
#[derive(clap::Args)]
pub struct Args {
    /// Mesh files and folders.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Print JSON (keys: format, version, vertices, faces, …): one object for a single
    /// file, else one object per line (JSON lines) with `path` and `status` added.
    #[arg(long)]
    json: bool,
}

/// Runs `info`.
pub fn run(args: Args, cx: &Context) -> Result<ExitCode, Failure> {
    let Args { files: paths, json } = args;
    let (entries, many) = cx.gather(&paths);
    if !many {
        return info_one(&paths[0], json, &cx.limits);
    }
    let limits = cx.limits;
    let tally = batch::run(entries, cx.jobs, json, |input| {
        let path = &input.path;
        let summary = (|| {
            let file = load(path, &limits)?;
            let summary = file.summary(&limits).map_err(|e| fail(path, e));
            done_with(file);
            summary
        })();
        match summary {
            Err(f) => Report::of_failure(path, &f),
            Ok(s) => {
                let mut text = format!("{}:", path.display());
                for line in s.text.lines() {
                    text.push_str("\n  ");
                    text.push_str(line);
                }
                for p in &s.problems {
                    text.push_str(&format!("\n  ERROR: {p}"));
                }
                let mut fields = match s.json {
                    serde_json::Value::Object(map) => map,
                    other => [("info".to_string(), other)].into_iter().collect(),
                };
                let status = if s.problems.is_empty() {
                    Status::Ok
                } else {
                    fields.insert("problems".into(), s.problems.clone().into());
                    Status::Failed
                };
                Report {
                    status,
                    text,
                    json: fields,
                }
            }
        }
    });
    Ok(finish(&tally, &tally.line("read"), json))
}

fn info_one(path: &Path, json: bool, limits: &Limits) -> Result<ExitCode, Failure> {
    let file = load(path, limits)?;
    let summary = file.summary(limits).map_err(|e| fail(path, e))?;
    if json {
        print_json(path, &summary.json)?;
    } else {
        say!("{}", summary.text.trim_end_matches('\n'));
    }
    problems(path, &summary.problems)
}

/// Prints what did not decode; status 1 if anything.
fn problems(path: &Path, problems: &[String]) -> Result<ExitCode, Failure> {
    for p in problems {
        eprintln!("meshcodec: {}: {p}", path.display());
    }
    Ok(if problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
