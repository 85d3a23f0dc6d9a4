//! `meshcodec convert`: a file written back byte-identically, or converted to another
//! version or format (`--to`); with `--out-dir`, every file of folders into a folder.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use meshcodec::loss::Loss;
use meshcodec::output::beside_path;
use meshcodec::{
    AnyFile, ConvertOptions, CoreMesh, ExtraFile, Format, Limits, MeshFile, Prepared, Target,
};

use super::batch::{self, fields, finish, Entry, Report, Status};
use super::failure::{fail, invalid_value, usage_error, Failure};
use super::input::load;
use super::losses::{self, print_losses, refuse_losses};
use super::output::{beside, make_parent, stream, write_beside};
use super::Context;

/// Rewrite a file byte-identically, or as another version or format (--to).
///
/// Rewrite IN as OUT: byte-identical without --to; with --to, convert through the
/// version-independent model, refusing (status 3, listing the losses) when the target
/// cannot hold everything unless --allow-lossy. With --out-dir DIR, every input file
/// and every mesh file in input folders is converted into DIR, mirroring the folders
/// (`in/a/b.mesh` → `DIR/a/b.mesh`); a file that fails is reported and the others go
/// on (status 1 if any failed, else 3 if any was refused).
#[derive(clap::Args)]
pub struct Args {
    /// IN OUT; or, with --out-dir, input files and folders.
    #[arg(required = true, value_name = "IN OUT | INPUTS")]
    paths: Vec<PathBuf>,
    /// Batch: the folder to write into (created if missing).
    #[arg(long, value_name = "DIR")]
    out_dir: Option<PathBuf>,
    /// Print one JSON object per file (JSON lines); batch runs only.
    #[arg(long, requires = "out_dir")]
    json: bool,
    /// Target version. FileMesh: 1.00, 1.01, 2.00, 3.00, 3.01, 4.00, 4.01, 5.00,
    /// 6.00, 7.00. CSGPHS: 0, 3, 5, 6, 7, 8. UNIGINE mesh: ms10, ms11, ms12, ms13, ms14.
    /// STF: stf (stf:0). A bare version is one of the input's format; FORMAT:VERSION
    /// (filemesh:4.01, csgphs:7) writes that format, across formats through the
    /// format-neutral scene (into STF: a new file; STF to STF: meshes written back
    /// from the model, the rest of the document kept).
    #[arg(long, value_name = "[FORMAT:]VER", value_parser = parse_target)]
    to: Option<String>,
    /// Accept a conversion that loses data the target cannot hold.
    #[arg(long)]
    allow_lossy: bool,
    /// FileMesh 7.00: how to write the core mesh. `auto` keeps the source's Draco
    /// bitstream or choice where it still applies, else uses Draco when it holds every
    /// value exactly and is smaller, else COREMESH v1 (never lossy); `draco` always
    /// compresses (normals quantized to 11 bits, a reported loss when they change);
    /// `v1` never does.
    #[arg(long, value_name = "HOW", default_value = "auto", value_parser = parse_coremesh)]
    coremesh: CoreMesh,
}

/// Runs `convert`: IN OUT, or (`--out-dir`) a batch.
pub fn run(args: Args, cx: &Context) -> Result<ExitCode, Failure> {
    let how = ConvertHow {
        to: args.to,
        allow_lossy: args.allow_lossy,
        core_mesh: args.coremesh,
    };
    match (args.out_dir, args.paths.as_slice()) {
        (Some(dir), _) => convert_batch(&args.paths, &dir, &how, args.json, cx),
        (None, [input, output]) if !input.is_dir() => convert(input, output, &how, &cx.limits),
        (None, _) => usage_error(
            "convert",
            "convert takes IN OUT, or input files and folders with --out-dir DIR",
        ),
    }
}

/// `convert`'s --to, --allow-lossy and --coremesh.
struct ConvertHow {
    to: Option<String>,
    allow_lossy: bool,
    core_mesh: CoreMesh,
}

/// What a conversion writes: the target, once its report is accepted, or (no --to) the
/// file itself, streamed back as it was read.
// One per file: the size of the inline variant does not matter.
#[allow(clippy::large_enum_variant)]
enum Payload {
    /// The file read, written back as it is.
    Same(AnyFile),
    /// A conversion, written when the report has been accepted.
    Prepared(Prepared),
}

impl Payload {
    /// Writes OUT atomically; the number of bytes written.
    fn write(&self, output: &Path) -> Result<u64, Failure> {
        match self {
            Payload::Same(file) => stream(output, |w| file.write_to(w)),
            Payload::Prepared(p) => stream(output, |w| p.write_to(w)),
        }
    }
}

/// A conversion's result: what to write, the source and target version names and what
/// was dropped (empty without --to).
struct Conversion {
    payload: Payload,
    from: String,
    from_format: Format,
    to: String,
    to_format: Format,
    losses: Vec<Loss>,
    /// Files to write beside OUT (a UNIGINE ms13/ms14 target's `.anim` files).
    beside: Vec<ExtraFile>,
}

/// Converts one opened file as `how` says; a lossy conversion is refused (an error
/// listing the losses) unless --allow-lossy.
fn convert_file(
    input: &Path,
    file: AnyFile,
    how: &ConvertHow,
    limits: &Limits,
) -> Result<Conversion, Failure> {
    let from = file.version_name();
    let from_format = file.format();
    let Some(to) = how.to.as_deref() else {
        // No --to: the raw layer writes the file back byte for byte, as it is written
        // out (a FileMesh streams its arrays; nothing is built whole in memory).
        return Ok(Conversion {
            payload: Payload::Same(file),
            to: from.clone(),
            from,
            from_format,
            to_format: from_format,
            losses: Vec::new(),
            beside: Vec::new(),
        });
    };
    let options = ConvertOptions {
        core_mesh: how.core_mesh,
    };
    let target = Target::qualified(to)
        .and_then(Result::ok)
        .or_else(|| file.target(to).ok());
    let mut c =
        meshcodec::convert_prepared(file, to, &options, limits).map_err(|e| fail(input, e))?;
    // Written beside OUT, so no longer reported as left out.
    let beside = c.take_beside();
    let shown = target
        .as_ref()
        .map_or_else(|| to.to_string(), ToString::to_string);
    refuse_losses(input, &from, &shown, &c.losses, how.allow_lossy)?;
    Ok(Conversion {
        losses: std::mem::take(&mut c.losses),
        payload: Payload::Prepared(c),
        from,
        from_format,
        to: shown,
        to_format: target.map_or(from_format, |t| t.format()),
        beside,
    })
}

/// Writes a conversion: OUT, then the files beside it; the bytes of OUT, and the path
/// and content (`animation "Walk"`) of each file beside.
fn write_conversion(
    c: &mut Conversion,
    output: &Path,
) -> Result<(u64, Vec<(PathBuf, String)>), Failure> {
    let placed = beside(output, std::mem::take(&mut c.beside))?;
    let written = c.payload.write(output)?;
    write_beside(&placed)?;
    let beside = placed.into_iter().map(|(path, e)| (path, e.what)).collect();
    Ok((written, beside))
}

/// The line of a file written beside OUT.
fn beside_line((path, what): &(PathBuf, String)) -> String {
    format!("{what} written beside it, in {}", path.display())
}

fn convert(
    input: &Path,
    output: &Path,
    how: &ConvertHow,
    limits: &Limits,
) -> Result<ExitCode, Failure> {
    let file = load(input, limits)?;
    // A bare version is one of the input's format: a usage error when it is not one,
    // as a qualified version that is no version is (status 2).
    if let Some(to) = how.to.as_deref() {
        if Target::qualified(to).is_none() {
            if let Err(e) = file.target(to) {
                invalid_value("convert", "--to <[FORMAT:]VER>", to, &e.to_string());
            }
        }
    }
    let mut c = convert_file(input, file, how, limits)?;
    print_losses(input, &c.losses);
    let (_, beside) = write_conversion(&mut c, output)?;
    for b in &beside {
        eprintln!("meshcodec: {}: {}", output.display(), beside_line(b));
    }
    Ok(ExitCode::SUCCESS)
}

/// `convert --out-dir DIR INPUTS…`: every file into DIR, mirroring the input folders.
fn convert_batch(
    paths: &[PathBuf],
    out_dir: &Path,
    how: &ConvertHow,
    json: bool,
    cx: &Context,
) -> Result<ExitCode, Failure> {
    let (entries, _) = cx.gather(paths);
    // Two inputs must not write the same output (two named files of one name).
    let mut seen = std::collections::HashMap::new();
    for e in &entries {
        if let Entry::File(i) = e {
            if let Some(other) = seen.insert(i.rel.clone(), i.path.clone()) {
                return Err(fail(
                    &i.path,
                    format!(
                        "would be written to {} as {} is: rename one, or convert them apart",
                        out_dir.join(&i.rel).display(),
                        other.display()
                    ),
                ));
            }
        }
    }
    // Files written beside an output (UNIGINE .anim) must be neither another input's
    // output nor a file beside another's: known once converted, so claimed as they come
    // (the input that comes second fails, writing nothing).
    let outputs: std::collections::HashMap<PathBuf, PathBuf> = seen
        .into_iter()
        .map(|(rel, path)| (out_dir.join(rel), path))
        .collect();
    let claimed = std::sync::Mutex::new(std::collections::HashMap::new());
    let tally = batch::run(entries, cx.jobs, json, |input| {
        let path = &input.path;
        let output = out_dir.join(&input.rel);
        let done = (|| {
            let file = load(path, &cx.limits)?;
            let mut c = convert_file(path, file, how, &cx.limits)?;
            claim_beside(&output, path, &c.beside, &outputs, &claimed)?;
            make_parent(&output)?;
            let (written, beside) = write_conversion(&mut c, &output)?;
            Ok((c, written, beside))
        })();
        match done {
            Err(f) => Report::of_failure(path, &f),
            Ok((c, written, beside)) => {
                let mut text = format!(
                    "converted {} -> {} ({} to {}, {} bytes)",
                    path.display(),
                    output.display(),
                    c.from,
                    c.to,
                    written
                );
                for l in &c.losses {
                    text.push_str(&format!("\n  {}", losses::line(l)));
                }
                for b in &beside {
                    text.push_str(&format!("\n  {}", beside_line(b)));
                }
                let lossless = c.losses.is_empty();
                let json = fields([
                    ("output", output.to_string_lossy().into()),
                    ("from_format", c.from_format.name().into()),
                    ("from", c.from.into()),
                    ("to_format", c.to_format.name().into()),
                    ("to", c.to.into()),
                    ("bytes", written.into()),
                    ("lossless", lossless.into()),
                    ("losses", losses::json(&c.losses)),
                    (
                        "beside",
                        beside
                            .iter()
                            .map(|(p, what)| {
                                serde_json::json!({"path": p.to_string_lossy(), "what": what})
                            })
                            .collect(),
                    ),
                ]);
                Report {
                    status: Status::Ok,
                    text,
                    json,
                }
            }
        }
    });
    Ok(finish(&tally, &tally.line("converted"), json))
}

/// Claims the paths of the files to be written beside `output` (the conversion of
/// `input`) for it: refused when one is another input's output (`outputs`: output to
/// input) or already claimed beside another's (`claimed`).
fn claim_beside(
    output: &Path,
    input: &Path,
    files: &[ExtraFile],
    outputs: &std::collections::HashMap<PathBuf, PathBuf>,
    claimed: &std::sync::Mutex<std::collections::HashMap<PathBuf, PathBuf>>,
) -> Result<(), Failure> {
    let paths: Vec<PathBuf> = files
        .iter()
        .map(|e| beside_path(output, &e.suffix))
        .collect();
    for p in &paths {
        if let Some(other) = outputs.get(p).filter(|&o| o != input) {
            return Err(fail(
                input,
                format!(
                    "its animation would be written to {}, the output of {}: rename one, or \
                     convert them apart",
                    p.display(),
                    other.display()
                ),
            ));
        }
    }
    // A poisoned lock only means another job panicked; the map is still whole.
    let mut claimed = claimed.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((p, other)) = paths
        .iter()
        .find_map(|p| claimed.get(p).filter(|&o| o != input).map(|o| (p, o)))
    {
        return Err(fail(
            input,
            format!(
                "its animation would be written to {}, as {}'s is: rename one, or convert them \
                 apart",
                p.display(),
                other.display()
            ),
        ));
    }
    for p in paths {
        claimed.insert(p, input.to_path_buf());
    }
    Ok(())
}

/// `--coremesh`: how a 7.00 core mesh is written.
pub fn parse_coremesh(s: &str) -> Result<CoreMesh, String> {
    match s {
        "auto" => Ok(CoreMesh::Auto),
        "draco" | "v2" => Ok(CoreMesh::Draco),
        "v1" | "uncompressed" => Ok(CoreMesh::Uncompressed),
        _ => Err(format!("{s:?}: auto, draco or v1 expected")),
    }
}

/// `--to`: a version of some format meshcodec writes (which one must fit the input is
/// checked later).
fn parse_target(t: &str) -> Result<String, String> {
    Target::check_spelling(t).map(|()| t.to_string())
}
