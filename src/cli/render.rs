//! `meshcodec render`: a thumbnail of a file's geometry (PNG), drawn in software; with
//! `--out-dir`, one per file of folders.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use meshcodec::render::RenderOptions;
use meshcodec::{ExportOptions, Limits, MeshFile};

use super::batch::{self, fields, finish, Report, Status};
use super::failure::{fail, usage_error, Failure};
use super::input::load;
use super::output::{make_parent, write_output};
use super::Context;

/// Draw a thumbnail of the geometry of any format (PNG).
///
/// Draw a thumbnail: a shaded picture of the geometry of any format (PNG), upright
/// (glTF's +Y up), framed, lit, seen from the same angle for every file, drawn in
/// software (no GPU). With --out-dir DIR, one picture per input file and per mesh
/// file in input folders, mirroring the folders (`in/a/b.mesh` → `DIR/a/b.mesh.png`).
#[derive(clap::Args)]
pub struct Args {
    /// IN OUT.png; or, with --out-dir, input files and folders.
    #[arg(required = true, value_name = "IN OUT.png | INPUTS")]
    paths: Vec<PathBuf>,
    /// Batch: the folder to write the pictures into (created if missing).
    #[arg(long, value_name = "DIR")]
    out_dir: Option<PathBuf>,
    /// The picture's width and height in pixels (16 to 4096).
    #[arg(long, value_name = "N", default_value = "256")]
    size: u32,
    /// FileMesh and union graphics (CSGMDL): the level of detail to draw (0, the
    /// default, is full detail).
    #[arg(long, value_name = "N", default_value = "0")]
    lod: usize,
    /// Background colour as RRGGBB or RRGGBBAA hex (default: transparent).
    #[arg(long, value_name = "RRGGBB[AA]", value_parser = parse_colour)]
    background: Option<[u8; 4]>,
    /// The most fill work allowed per picture, estimated before drawing: the pixels
    /// each triangle covers (overlaps counted every time) plus 40 for each row it
    /// spans. Over it the picture is drawn with less or no edge smoothing
    /// (supersampling); over it even without, the file is refused. The default is a
    /// few seconds of drawing; real files need thousands of times less.
    #[arg(long, value_name = "N", default_value_t = meshcodec::render::DEFAULT_MAX_WORK)]
    max_work: u64,
    /// Print one JSON object per file (JSON lines); batch runs only.
    #[arg(long, requires = "out_dir")]
    json: bool,
}

/// Runs `render`: IN OUT.png, or (`--out-dir`) a batch.
pub fn run(args: Args, cx: &Context) -> Result<ExitCode, Failure> {
    let options = RenderOptions {
        size: args.size,
        background: args.background.unwrap_or([0; 4]),
        max_work: args.max_work,
    };
    let lod = args.lod;
    match (args.out_dir, args.paths.as_slice()) {
        (Some(dir), _) => render_batch(&args.paths, &dir, lod, &options, args.json, cx),
        (None, [input, output]) if !input.is_dir() => {
            render(input, output, lod, &options, &cx.limits).map(|_| ExitCode::SUCCESS)
        }
        (None, _) => usage_error(
            "render",
            "render takes IN OUT.png, or input files and folders with --out-dir DIR",
        ),
    }
}

/// `--background`: RRGGBB or RRGGBBAA in hex.
fn parse_colour(s: &str) -> Result<[u8; 4], String> {
    let hex = s.trim_start_matches('#');
    let byte = |i: usize| u8::from_str_radix(hex.get(i..i + 2).unwrap_or("x"), 16);
    match hex.len() {
        6 | 8 if hex.is_ascii() => {
            let alpha = if hex.len() == 8 { byte(6) } else { Ok(255) };
            match (byte(0), byte(2), byte(4), alpha) {
                (Ok(r), Ok(g), Ok(b), Ok(a)) => Ok([r, g, b, a]),
                _ => Err(format!("{s:?}: a colour such as ffffff or 20202080")),
            }
        }
        _ => Err(format!("{s:?}: a colour such as ffffff or 20202080")),
    }
}

/// Draws one file's geometry into a PNG at `output`; the picture's size in bytes.
fn render(
    input: &Path,
    output: &Path,
    lod: usize,
    options: &RenderOptions,
    limits: &Limits,
) -> Result<u64, Failure> {
    let file = load(input, limits)?;
    // The file and its model are dropped as the scene is built.
    let scene = file
        .into_scene(
            &ExportOptions {
                lod,
                all_lods: false,
                name: String::new(),
                keep_axes: false,
            },
            limits,
        )
        .map_err(|e| fail(input, format!("render: {e}")))?;
    let mut scene = scene;
    // The picture is drawn from the positions and triangles alone: the rest goes before
    // the drawing takes its own memory.
    for p in scene.meshes.iter_mut().flat_map(|m| &mut m.primitives) {
        p.normals = None;
        p.uvs = None;
        p.extra_uvs = Vec::new();
        p.colors = None;
        p.joints = None;
        p.weights = None;
        p.morph_targets = Vec::new();
    }
    let png = meshcodec::render::render_png(&scene, options).map_err(|e| {
        if matches!(e.kind(), meshcodec::ErrorKind::WorkLimitExceeded { .. }) {
            fail(input, format!("{e} (raise it with --max-work)"))
        } else {
            fail(input, e)
        }
    })?;
    write_output(output, &png)?;
    Ok(png.len() as u64)
}

/// `render --out-dir DIR INPUTS…`: a picture per file, `DIR/<path below its folder>.png`.
fn render_batch(
    paths: &[PathBuf],
    out_dir: &Path,
    lod: usize,
    options: &RenderOptions,
    json: bool,
    cx: &Context,
) -> Result<ExitCode, Failure> {
    let (entries, _) = cx.gather(paths);
    let tally = batch::run(entries, cx.jobs, json, |input| {
        let path = &input.path;
        let mut name = input.rel.clone().into_os_string();
        name.push(".png");
        let output = out_dir.join(name);
        let done = (|| {
            make_parent(&output)?;
            render(path, &output, lod, options, &cx.limits)
        })();
        match done {
            Err(f) => Report::of_failure(path, &f),
            Ok(bytes) => Report {
                status: Status::Ok,
                text: format!("rendered  {} -> {}", path.display(), output.display()),
                json: fields([
                    ("output", output.to_string_lossy().into()),
                    ("bytes", bytes.into()),
                ]),
            },
        }
    });
    Ok(finish(&tally, &tally.line("rendered"), json))
}
