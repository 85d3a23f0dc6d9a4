//! `meshcodec`: inspect, verify and rewrite mesh files byte-exactly.
//!
//! Exit status: 0 success, 1 a problem with the input (the message names the file, the
//! byte offset and what was expected), 2 a usage error.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};
use meshcodec::filemesh::model::convert::CoreMesh;
use meshcodec::loss::Loss;
use meshcodec::scene::{self, Scene};
use meshcodec::{ConvertOptions, ExportOptions, Limits, MeshFile, Target};

#[path = "cli/batch.rs"]
mod batch;
use batch::{Entry, Report, Selection, Status};

#[derive(Parser)]
#[command(
    name = "meshcodec",
    version,
    about = "Read and write game mesh files exactly (Roblox FileMesh 1.00–7.00, CSGPHS, UNIGINE, STF)",
    long_about = "Read and write game mesh files exactly.\n\n\
        Supported now: Roblox FileMesh 1.00 to 7.00, every version (byte-exact).\n\
        Roblox CSGPHS (collision data) 0, 3, 5, 6, 7, 8 (byte-exact; version 8 decoded).\n\
        UNIGINE .mesh ms10 to ms14 and .anim an10, an11 (byte-exact; meshes convert\n\
        between all five, ms14 spatial trees built as UNIGINE builds them).\n\
        STF (stf.mesh): the container byte-exact, meshes decoded, written from the model\n\
        and from a scene (--to stf).\n\
        Roblox union graphics CSGMDL 2, 4, 5 and CSGK (byte-exact; export).\n\n\
        Exit status: 0 success, 1 a problem with the input, 2 a usage error."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Largest input file accepted (bytes; K, M, G suffixes: 512M). Larger files are
    /// refused before they are read.
    #[arg(long, global = true, value_name = "SIZE", default_value = "512M", value_parser = parse_size)]
    max_input: u64,
    /// Largest decompressed or decoded payload (Draco, zstd, LZ4, STF and glTF data),
    /// same units.
    #[arg(long, global = true, value_name = "SIZE", default_value = "512M", value_parser = parse_size)]
    max_decoded: u64,
    /// Batch runs (`info`, `verify`, `convert --out-dir`): how many files at once
    /// (default: one per core).
    #[arg(
        long,
        short = 'j',
        global = true,
        value_name = "N",
        default_value = "0"
    )]
    jobs: usize,
    /// Folders: take only files with these extensions (comma-separated, no dot:
    /// `mesh,bin`). Files named on the command line are always taken.
    #[arg(long, global = true, value_name = "EXT,…", value_delimiter = ',')]
    ext: Vec<String>,
    /// Folders: take only files whose name matches PATTERN (`*` any characters but
    /// `/`, `**` any, `?` one); a PATTERN with a `/` is matched against the path below
    /// the folder (`lods/**.mesh`).
    #[arg(long, global = true, value_name = "PATTERN")]
    glob: Option<String>,
}

/// `512M`, `2G`, `4096`: a size in bytes.
fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let (digits, shift) = match t.char_indices().last() {
        Some((i, 'K' | 'k')) => (&t[..i], 10),
        Some((i, 'M' | 'm')) => (&t[..i], 20),
        Some((i, 'G' | 'g')) => (&t[..i], 30),
        _ => (t, 0),
    };
    digits
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(1u64 << shift))
        .ok_or_else(|| format!("{s:?}: a size such as 4096, 512K, 512M or 2G"))
}

/// The limits the command line asked for (`--max-input`, `--max-decoded`).
static LIMITS: std::sync::OnceLock<Limits> = std::sync::OnceLock::new();

fn limits() -> Limits {
    LIMITS.get().copied().unwrap_or_default()
}

#[derive(Subcommand)]
enum Command {
    /// Print the format, version and counts of each file. Folders are walked
    /// recursively (files that are not meshes are skipped and counted); several files
    /// run on every core and report in order.
    Info {
        /// Mesh files and folders.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Print JSON (keys: format, version, vertices, faces, …): one object for a single
        /// file, else one object per line (JSON lines) with `path` and `status` added.
        #[arg(long)]
        json: bool,
    },
    /// Rewrite IN as OUT: byte-identical without --to; with --to, convert through the
    /// version-independent model, refusing (status 1, listing the losses) when the target
    /// cannot hold everything unless --allow-lossy. With --out-dir DIR, every input file
    /// and every mesh file in input folders is converted into DIR, mirroring the folders
    /// (`in/a/b.mesh` → `DIR/a/b.mesh`); a file that fails is reported and the others go
    /// on (status 1 if any failed).
    Convert {
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
    },
    /// Read and write back each file, and decode every payload it holds (Draco, zstd,
    /// LZ4, Edgebreaker hulls, STF meshes); exit 1 if any is not byte-identical or does
    /// not decode. Folders are walked recursively (files that are not meshes are skipped
    /// and counted); files run on every core and report in order.
    Verify {
        /// Files and folders to check.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Print one JSON object per file (JSON lines: path, status, bytes, …) and the
        /// totals on standard error.
        #[arg(long)]
        json: bool,
    },
    /// Export the geometry as glTF 2.0 (.gltf with its buffer embedded, or .glb) or
    /// Wavefront OBJ, picked by OUT's extension. Positions, normals, the first UV set and
    /// colours, turned to glTF's +Y up where the source is +Z up (UNIGINE; --keep-axes
    /// writes the stored numbers); in glTF also skins (FileMesh
    /// bones, UNIGINE bones), morph targets (UNIGINE targets, STF blendshapes) and
    /// UNIGINE animations (ms10–ms12 embedded ones; a .anim file exports its skeleton
    /// and clips, to glTF only), one key per frame at 30 frames per second. Only the
    /// vertices the exported faces use are written (in their order); values that are not
    /// finite become 0 (scales 1) and zero normals (0, 0, 1): each such change is printed
    /// as a note on stderr, and the export still succeeds.
    Export {
        /// Input file (FileMesh, CSGPHS, UNIGINE mesh or animation, STF).
        input: PathBuf,
        /// Output file: .gltf, .glb or .obj.
        #[arg(value_parser = interchange_path)]
        output: PathBuf,
        /// FileMesh: the level of detail to export (0, the default, is full detail), or
        /// `all` for every level, one glTF mesh (OBJ object) each.
        #[arg(long, value_name = "N|all", default_value = "0", value_parser = lod_choice)]
        lod: Lod,
        /// Write positions, normals and transforms in the source's own axes (UNIGINE:
        /// +Z up) instead of glTF's +Y up, to compare numbers with the file's.
        #[arg(long)]
        keep_axes: bool,
    },
    /// Import a glTF 2.0 (.gltf, .glb) or OBJ file as a Roblox FileMesh (every triangle
    /// primitive's positions, normals, first UV set and colours, placed where the
    /// scene's nodes put them, a copy per node), as CSGPHS collision data (one convex
    /// hull per primitive), as a UNIGINE mesh (`--to unigine:ms13`: a surface per
    /// primitive, with skin, morph targets and two UV sets; turned to UNIGINE's +Z up) or
    /// as a new STF file (`--to stf`: one stf.mesh per mesh: normals, UV sets, colours,
    /// morph targets as blendshapes; what stf_blender imports). Skins, morph targets,
    /// animations, further UV sets and levels of detail are read from glTF and carried
    /// where the target holds them (FileMesh 4.00+: bones and skin; 3.00+: LODs).
    /// UNIGINE ms10–ms12 embed the animations; ms13 and ms14 write each beside OUT as an
    /// an11 file, OUT's path with `.anim` for its extension for a scene's only animation
    /// (`y.mesh` → `y.anim`), with `_NAME.anim` for each of several (`y_Walk.anim`).
    Import {
        /// Input file: .gltf, .glb or .obj.
        #[arg(value_parser = interchange_path)]
        input: PathBuf,
        /// Output file.
        output: PathBuf,
        /// Version to write: FileMesh 1.00, 1.01, 2.00, 3.00, 3.01, 4.00, 4.01, 5.00,
        /// 6.00, 7.00, or CSGPHS 0, 3, 5, 6, 7, 8 (also qualified: filemesh:4.01,
        /// csgphs:7); union graphics csgmdl:2, csgmdl:4, csgmdl:5; UNIGINE unigine:ms10 …
        /// unigine:ms14; stf.
        #[arg(long, value_name = "VER")]
        to: String,
        /// Accept a version that cannot hold everything (1.x: 6 significant digits,
        /// no colours; 7.00 with --coremesh draco: normals quantized).
        #[arg(long)]
        allow_lossy: bool,
        /// FileMesh 7.00: how to write the core mesh (auto, draco, v1; see `convert`).
        #[arg(long, value_name = "HOW", default_value = "auto", value_parser = parse_coremesh)]
        coremesh: CoreMesh,
        /// glTF: the folder external buffers may be read from (default: the glTF file's
        /// own folder). Buffers outside it, absolute paths, `..`, URI schemes other than
        /// data: and files that are not regular files are refused.
        #[arg(long, value_name = "DIR")]
        resource_root: Option<PathBuf>,
    },
    /// Draw a thumbnail: a shaded picture of the geometry of any format (PNG), upright
    /// (glTF's +Y up), framed, lit, seen from the same angle for every file, drawn in
    /// software (no GPU). With --out-dir DIR, one picture per input file and per mesh
    /// file in input folders, mirroring the folders (`in/a/b.mesh` → `DIR/a/b.mesh.png`).
    Render {
        /// IN OUT.png; or, with --out-dir, input files and folders.
        #[arg(required = true, value_name = "IN OUT.png | INPUTS")]
        paths: Vec<PathBuf>,
        /// Batch: the folder to write the pictures into (created if missing).
        #[arg(long, value_name = "DIR")]
        out_dir: Option<PathBuf>,
        /// The picture's width and height in pixels (16 to 4096).
        #[arg(long, value_name = "N", default_value = "256")]
        size: u32,
        /// FileMesh: the level of detail to draw (0, the default, is full detail).
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
    },
    /// Print the raw structure of a file as JSON.
    Dump {
        /// The mesh file.
        file: PathBuf,
    },
}

/// Ends with a usage error (status 2) showing `command`'s usage.
fn usage_error(command: &str, message: &str) -> ! {
    let mut cli = Cli::command();
    match cli.find_subcommand_mut(command) {
        Some(sub) => sub.error(clap::error::ErrorKind::WrongNumberOfValues, message),
        None => cli.error(clap::error::ErrorKind::WrongNumberOfValues, message),
    }
    .exit()
}

/// An error for the user: printed as `meshcodec: FILE: MESSAGE`, exit 1.
struct Failure(String);

fn fail(path: &Path, msg: impl std::fmt::Display) -> Failure {
    Failure(format!("{}: {msg}", path.display()))
}

/// Big arrays always in their own memory mapping, given back to the system when freed.
///
/// glibc serves a block above its mmap threshold (128 KiB at first) from a mapping of
/// its own, but raises the threshold, up to 32 MB, each time such a block is freed; the
/// arrays of a big mesh (tens of MB, allocated and freed in turn as a file is read,
/// converted and written) then come from the heap, which keeps what they leave behind
/// resident. A conversion's peak resident size then depends on the order of its
/// allocations: UNIGINE ms14 from the 72 MB bench file took 254.5 MB resident for a
/// 186 MB heap peak. Setting the threshold turns the raising off (glibc's `mallopt`
/// documentation): 182.4 MB. See docs/benchmarks.md, "The allocator".
///
/// The trim threshold (how much free memory at the heap's top glibc keeps rather than
/// give back) is raised with it to 8 MiB, as the dynamic scheme would have raised it:
/// left at 128 KiB, the heap shrank and grew again for every file of a batch, and a
/// batch conversion of the archive bench took 0.33 s instead of 0.28 s.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn fix_mmap_threshold() {
    /// Blocks from 1 MiB up are mapped (the 128 KiB start gave the same peaks).
    const MMAP_THRESHOLD: libc::c_int = 1 << 20;
    /// Free memory kept at the top of the heap.
    const TRIM_THRESHOLD: libc::c_int = 8 << 20;
    // SAFETY: `mallopt` only sets allocator parameters, and is called before any other
    // thread exists; a refusal (0) leaves glibc's default, which is still correct.
    #[allow(unsafe_code)]
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, MMAP_THRESHOLD);
        libc::mallopt(libc::M_TRIM_THRESHOLD, TRIM_THRESHOLD);
    }
}

fn main() -> ExitCode {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    fix_mmap_threshold();
    let cli = Cli::parse();
    let _ = LIMITS.set(Limits {
        max_input_bytes: cli.max_input,
        max_decoded_bytes: cli.max_decoded,
    });
    let batch = BatchOptions {
        jobs: cli.jobs,
        selection: Selection {
            ext: cli
                .ext
                .iter()
                .map(|e| e.trim_start_matches('.').to_ascii_lowercase())
                .collect(),
            glob: cli.glob,
        },
    };
    let result = match cli.command {
        Command::Info { files, json } => info(&files, json, &batch),
        Command::Convert {
            paths,
            out_dir,
            json,
            to,
            allow_lossy,
            coremesh,
        } => {
            let how = ConvertHow {
                to,
                allow_lossy,
                core_mesh: coremesh,
            };
            match (out_dir, paths.as_slice()) {
                (Some(dir), _) => convert_batch(&paths, &dir, &how, json, &batch),
                (None, [input, output]) if !input.is_dir() => convert(input, output, &how),
                (None, _) => usage_error(
                    "convert",
                    "convert takes IN OUT, or input files and folders with --out-dir DIR",
                ),
            }
        }
        Command::Verify { files, json } => verify(&files, json, &batch),
        Command::Export {
            input,
            output,
            lod,
            keep_axes,
        } => export(&input, &output, lod, keep_axes),
        Command::Import {
            input,
            output,
            to,
            allow_lossy,
            coremesh,
            resource_root,
        } => import(&input, &output, &to, allow_lossy, coremesh, resource_root),
        Command::Dump { file } => dump(&file),
        Command::Render {
            paths,
            out_dir,
            size,
            lod,
            background,
            max_work,
            json,
        } => {
            let options = meshcodec::render::RenderOptions {
                size,
                background: background.unwrap_or([0; 4]),
                max_work,
            };
            match (out_dir, paths.as_slice()) {
                (Some(dir), _) => render_batch(&paths, &dir, lod, &options, json, &batch),
                (None, [input, output]) if !input.is_dir() => {
                    render(input, output, lod, &options).map(|_| ExitCode::SUCCESS)
                }
                (None, _) => usage_error(
                    "render",
                    "render takes IN OUT.png, or input files and folders with --out-dir DIR",
                ),
            }
        }
    };
    match result {
        Ok(code) => code,
        Err(Failure(msg)) => {
            eprintln!("meshcodec: {msg}");
            ExitCode::from(1)
        }
    }
}

/// `println!` for results on standard output, which ends the program quietly (status 0)
/// when the reader has gone away (`meshcodec dump F | head`), as the rest of the output
/// is not wanted; any other write error ends it with status 1.
macro_rules! say {
    ($($arg:tt)*) => {
        say(format_args!($($arg)*))
    };
}

fn say(text: std::fmt::Arguments) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_fmt(text).and_then(|()| out.write_all(b"\n")) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("meshcodec: cannot write to standard output: {e}");
        std::process::exit(1);
    }
}

/// Reads a file whose size is within `--max-input` (checked before reading).
fn read_file(path: &Path) -> Result<Vec<u8>, Failure> {
    let max = limits().max_input_bytes;
    let len = std::fs::metadata(path)
        .map_err(|e| fail(path, format!("cannot read: {e}")))?
        .len();
    if len > max {
        return Err(fail(
            path,
            format!("{len} bytes, more than --max-input allows ({max})"),
        ));
    }
    std::fs::read(path).map_err(|e| fail(path, format!("cannot read: {e}")))
}

/// Writes OUT atomically: a temporary file beside it, renamed into place once complete
/// (`meshcodec::output`); OUT is untouched on any failure.
fn write_output(output: &Path, bytes: &[u8]) -> Result<(), Failure> {
    meshcodec::output::write_atomically(output, bytes)
        .map_err(|e| fail(output, format!("cannot write: {e}")))
}

/// Opens a file of any format within `--max-input` (checked before reading). A binary
/// FileMesh is read straight from the file, its arrays into place, so the file's bytes
/// are never held besides them.
///
/// Each thread keeps the arrays of the last file it was done with ([`done_with`]) and
/// the next read fills them, so a batch run pays fresh memory once per thread, not once
/// per file.
fn load(path: &Path) -> Result<meshcodec::AnyFile, Failure> {
    let file = std::io::BufReader::new(open_input(path)?);
    SPARE
        .with(|spare| meshcodec::open_reader_with(file, &limits(), &mut spare.borrow_mut()))
        .map_err(|e| fail(path, e))
}

thread_local! {
    /// The arrays of the last file this thread was done with, for the next to fill.
    static SPARE: std::cell::RefCell<meshcodec::Spare> = std::cell::RefCell::default();
}

/// Keeps a file's arrays for the next file this thread reads.
fn done_with(file: meshcodec::AnyFile) {
    SPARE.with(|spare| spare.borrow_mut().keep(file));
}

/// Opens a file for reading once its size is known to be within `--max-input`.
fn open_input(path: &Path) -> Result<std::fs::File, Failure> {
    let max = limits().max_input_bytes;
    let file = std::fs::File::open(path).map_err(|e| fail(path, format!("cannot read: {e}")))?;
    let meta = file
        .metadata()
        .map_err(|e| fail(path, format!("cannot read: {e}")))?;
    if meta.is_dir() {
        return Err(fail(path, "cannot read: is a directory"));
    }
    if meta.len() > max {
        return Err(fail(
            path,
            format!("{} bytes, more than --max-input allows ({max})", meta.len()),
        ));
    }
    Ok(file)
}

/// A writer that compares what is written with a file's bytes instead of keeping it:
/// `verify` writes a file back through it, so the copy is never held in memory.
struct Compare<R> {
    original: R,
    written: u64,
    first_difference: Option<u64>,
    scratch: Vec<u8>,
}

impl<R: std::io::Read> Compare<R> {
    fn new(original: R) -> Self {
        Compare {
            original,
            written: 0,
            first_difference: None,
            scratch: Vec::new(),
        }
    }

    /// The first byte at which the written bytes and the file differ (also where one
    /// ends before the other), and the file's length; `None` when identical.
    fn finish(mut self, len: u64) -> Option<(u64, u64)> {
        let mut one = [0u8; 1];
        if self.first_difference.is_none() && self.original.read(&mut one).unwrap_or(0) > 0 {
            self.first_difference = Some(self.written);
        }
        self.first_difference.map(|at| (at, len))
    }
}

impl<R: std::io::Read> std::io::Write for Compare<R> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        // In pieces, so a whole array written at once needs no copy of its size.
        for piece in buf.chunks(1 << 16) {
            if self.first_difference.is_none() {
                self.scratch.resize(piece.len(), 0);
                let mut got = 0;
                while got < piece.len() {
                    match self.original.read(&mut self.scratch[got..])? {
                        0 => break,
                        n => got += n,
                    }
                }
                let differs = piece[..got]
                    .iter()
                    .zip(&self.scratch[..got])
                    .position(|(a, b)| a != b)
                    .or((got < piece.len()).then_some(got));
                if let Some(i) = differs {
                    self.first_difference = Some(self.written + i as u64);
                }
            }
            self.written += piece.len() as u64;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `--jobs`, `--ext`, `--glob`: how batch runs pick and share out their files.
struct BatchOptions {
    jobs: usize,
    selection: Selection,
}

impl BatchOptions {
    /// The files to work on, and whether this is a batch (several files or a folder).
    fn gather(&self, args: &[PathBuf]) -> (Vec<Entry>, bool) {
        let (entries, folder) = batch::gather(args, &self.selection);
        let many = folder || entries.len() != 1;
        (entries, many)
    }
}

/// Creates the folder an output file goes into.
fn make_parent(output: &Path) -> Result<(), Failure> {
    match output.parent() {
        Some(parent) => std::fs::create_dir_all(parent)
            .map_err(|e| fail(parent, format!("cannot create the folder: {e}"))),
        None => Ok(()),
    }
}

/// A JSON line's fields from (key, value) pairs.
fn fields<const N: usize>(
    pairs: [(&str, serde_json::Value); N],
) -> serde_json::Map<String, serde_json::Value> {
    pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}

/// The end of a batch run: totals (on standard error with --json, where standard output
/// holds only JSON lines), and status 1 if any file failed.
fn finish(tally: &batch::Tally, ok: &str, json: bool) -> ExitCode {
    let line = tally.line(ok);
    if json {
        eprintln!("meshcodec: {line}");
    } else {
        say!("{line}");
    }
    if tally.failed + tally.differs == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn info(paths: &[PathBuf], json: bool, options: &BatchOptions) -> Result<ExitCode, Failure> {
    let (entries, many) = options.gather(paths);
    if !many {
        return info_one(&paths[0], json);
    }
    let limits = limits();
    let tally = batch::run(entries, options.jobs, json, |input| {
        let path = &input.path;
        let summary = (|| {
            let file = load(path)?;
            let summary = file.summary(&limits).map_err(|e| fail(path, e));
            done_with(file);
            summary
        })();
        match summary {
            Err(Failure(msg)) => Report::failed(path, &msg),
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
    Ok(finish(&tally, "read", json))
}

fn info_one(path: &Path, json: bool) -> Result<ExitCode, Failure> {
    let file = load(path)?;
    let summary = file.summary(&limits()).map_err(|e| fail(path, e))?;
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
    Same(meshcodec::AnyFile),
    /// A conversion, written when the report has been accepted.
    Prepared(meshcodec::Prepared),
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

/// Writes OUT atomically with `write`, through a 64 KiB buffer; the number of bytes
/// written.
fn stream(
    output: &Path,
    write: impl FnOnce(&mut dyn std::io::Write) -> meshcodec::Result<()>,
) -> Result<u64, Failure> {
    let mut n = 0;
    meshcodec::output::write_atomically_with(output, |w| {
        let mut counted = Counted { inner: w, n: 0 };
        let mut buffered = std::io::BufWriter::with_capacity(1 << 16, &mut counted);
        write(&mut buffered).map_err(std::io::Error::other)?;
        std::io::Write::flush(&mut buffered)?;
        drop(buffered);
        n = counted.n;
        Ok(())
    })
    .map_err(|e| fail(output, format!("cannot write: {e}")))?;
    Ok(n)
}

/// A writer that counts what passes through it.
struct Counted<'a> {
    inner: &'a mut dyn std::io::Write,
    n: u64,
}

impl std::io::Write for Counted<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.n += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// A conversion's result: what to write, the source and target version names and what
/// was dropped (empty without --to).
struct Converted {
    payload: Payload,
    from: String,
    from_format: meshcodec::Format,
    to: String,
    to_format: meshcodec::Format,
    losses: Vec<Loss>,
}

/// Converts one opened file as `how` says; a lossy conversion is refused (an error
/// listing the losses) unless --allow-lossy.
fn convert_file(
    input: &Path,
    file: meshcodec::AnyFile,
    how: &ConvertHow,
) -> Result<Converted, Failure> {
    let from = file.version_name();
    let from_format = file.format();
    let Some(to) = how.to.as_deref() else {
        // No --to: the raw layer writes the file back byte for byte, as it is written
        // out (a FileMesh streams its arrays; nothing is built whole in memory).
        return Ok(Converted {
            payload: Payload::Same(file),
            to: from.clone(),
            from,
            from_format,
            to_format: from_format,
            losses: Vec::new(),
        });
    };
    let options = ConvertOptions {
        core_mesh: how.core_mesh,
    };
    let target = Target::qualified(to)
        .and_then(Result::ok)
        .or_else(|| file.target(to).ok());
    let mut c =
        meshcodec::convert_prepared(file, to, &options, &limits()).map_err(|e| fail(input, e))?;
    let shown = target
        .as_ref()
        .map_or_else(|| to.to_string(), ToString::to_string);
    refuse_losses(input, &from, &shown, &c.losses, how.allow_lossy)?;
    Ok(Converted {
        losses: std::mem::take(&mut c.losses),
        payload: Payload::Prepared(c),
        from,
        from_format,
        to: shown,
        to_format: target.map_or(from_format, |t| t.format()),
    })
}

fn convert(input: &Path, output: &Path, how: &ConvertHow) -> Result<ExitCode, Failure> {
    let file = load(input)?;
    let c = convert_file(input, file, how)?;
    for l in &c.losses {
        eprintln!("meshcodec: {}: dropped: {l}", input.display());
    }
    c.payload.write(output)?;
    Ok(ExitCode::SUCCESS)
}

/// `convert --out-dir DIR INPUTS…`: every file into DIR, mirroring the input folders.
fn convert_batch(
    paths: &[PathBuf],
    out_dir: &Path,
    how: &ConvertHow,
    json: bool,
    options: &BatchOptions,
) -> Result<ExitCode, Failure> {
    let (entries, _) = options.gather(paths);
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
    let tally = batch::run(entries, options.jobs, json, |input| {
        let path = &input.path;
        let output = out_dir.join(&input.rel);
        let done = (|| {
            let file = load(path)?;
            let c = convert_file(path, file, how)?;
            make_parent(&output)?;
            let written = c.payload.write(&output)?;
            Ok((c, written))
        })();
        match done {
            Err(Failure(msg)) => Report::failed(path, &msg),
            Ok((c, written)) => {
                let mut text = format!(
                    "converted {} -> {} ({} to {}, {} bytes)",
                    path.display(),
                    output.display(),
                    c.from,
                    c.to,
                    written
                );
                for l in &c.losses {
                    text.push_str(&format!("\n  dropped: {l}"));
                }
                let losses: Vec<String> = c.losses.iter().map(ToString::to_string).collect();
                let json = fields([
                    ("output", output.to_string_lossy().into()),
                    ("from_format", c.from_format.name().into()),
                    ("from", c.from.into()),
                    ("to_format", c.to_format.name().into()),
                    ("to", c.to.into()),
                    ("bytes", written.into()),
                    ("losses", losses.into()),
                ]);
                Report {
                    status: Status::Ok,
                    text,
                    json,
                }
            }
        }
    });
    Ok(finish(&tally, "converted", json))
}

/// `--coremesh`: how a 7.00 core mesh is written.
fn parse_coremesh(s: &str) -> Result<CoreMesh, String> {
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

/// Refuses a lossy conversion unless allowed, listing what it would lose.
fn refuse_losses(
    input: &Path,
    from: &str,
    to: &str,
    losses: &[Loss],
    allow_lossy: bool,
) -> Result<(), Failure> {
    if losses.is_empty() || allow_lossy {
        return Ok(());
    }
    let list: Vec<String> = losses.iter().map(|l| format!("  - {l}")).collect();
    Err(fail(
        input,
        format!(
            "converting {from} to {to} would lose:\n{}\n(pass --allow-lossy to convert anyway)",
            list.join("\n")
        ),
    ))
}

/// Refuses a lossy conversion unless allowed; prints what is dropped when it is.
fn check_losses(
    input: &Path,
    from: &str,
    to: &str,
    losses: &[Loss],
    allow_lossy: bool,
) -> Result<(), Failure> {
    refuse_losses(input, from, to, losses, allow_lossy)?;
    for l in losses {
        eprintln!("meshcodec: {}: dropped: {l}", input.display());
    }
    Ok(())
}

fn verify(paths: &[PathBuf], json: bool, options: &BatchOptions) -> Result<ExitCode, Failure> {
    let limits = limits();
    let (entries, _) = options.gather(paths);
    let tally = batch::run(entries, options.jobs, json, |input| {
        let path = &input.path;
        let outcome = (|| {
            let file = load(path)?;
            let original = open_input(path)?;
            let len = original
                .metadata()
                .map_err(|e| fail(path, format!("cannot read: {e}")))?
                .len();
            let mut compare = Compare::new(std::io::BufReader::new(original));
            let mut out = std::io::BufWriter::with_capacity(1 << 16, &mut compare);
            file.write_to(&mut out).map_err(|e| fail(path, e))?;
            std::io::Write::flush(&mut out).map_err(|e| fail(path, e))?;
            drop(out);
            let written = compare.written;
            let differs = compare.finish(len);
            // Byte-exact containers can still hold payloads that do not decode.
            let checked = file.check(&limits).map_err(|e| fail(path, e));
            done_with(file);
            checked?;
            Ok((len, written, differs))
        })();
        match outcome {
            Err(Failure(msg)) => Report::failed(path, &msg),
            Ok((len, written, differs)) => {
                let mut fields = serde_json::Map::new();
                fields.insert("bytes".into(), len.into());
                let Some((at, _)) = differs else {
                    return Report {
                        status: Status::Ok,
                        text: format!("ok        {} ({len} bytes)", path.display()),
                        json: fields,
                    };
                };
                fields.insert("written".into(), written.into());
                fields.insert("first_difference".into(), at.into());
                Report {
                    status: Status::Differs,
                    text: format!(
                        "DIFFERS   {}: first difference at byte {at} ({len} bytes read, {written} written)",
                        path.display(),
                    ),
                    json: fields,
                }
            }
        }
    });
    let line = format!(
        "{} of {} files byte-identical after read and write{}",
        tally.ok,
        tally.done(),
        match (tally.failed, tally.skipped) {
            (0, 0) => String::new(),
            (f, 0) => format!(" ({f} failed)"),
            (0, s) => format!(" ({s} skipped: not mesh files, links or devices)"),
            (f, s) => format!(" ({f} failed, {s} skipped: not mesh files, links or devices)"),
        }
    );
    if json {
        eprintln!("meshcodec: {line}");
    } else {
        say!("{line}");
    }
    Ok(if tally.failed + tally.differs == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// A path's extension, lower case ("" if none).
fn extension(path: &Path) -> String {
    path.extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default()
}

/// `export`'s OUT and `import`'s IN: the extension must name an interchange format.
fn interchange_path(p: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(p);
    match extension(&path).as_str() {
        "gltf" | "glb" | "obj" => Ok(path),
        _ => Err(format!("{p}: the extension must be .gltf, .glb or .obj")),
    }
}

/// `export --lod`: one level of detail, or all of them.
#[derive(Clone, Copy, Debug)]
enum Lod {
    Level(usize),
    All,
}

fn lod_choice(s: &str) -> Result<Lod, String> {
    if s == "all" {
        return Ok(Lod::All);
    }
    s.parse()
        .map(Lod::Level)
        .map_err(|_| format!("{s:?}: a level of detail (0, 1, …) or `all`"))
}

fn export(input: &Path, output: &Path, lod: Lod, keep_axes: bool) -> Result<ExitCode, Failure> {
    let name = input
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let file = load(input)?;
    // The file and its model are dropped as the scene is built.
    let scene = file
        .into_scene(
            &ExportOptions {
                lod: match lod {
                    Lod::Level(n) => n,
                    Lod::All => 0,
                },
                all_lods: matches!(lod, Lod::All),
                name,
                keep_axes,
            },
            &limits(),
        )
        .map_err(|e| fail(input, e))?;
    match extension(output).as_str() {
        "glb" => {
            // Laid out first, then written as the buffer's arrays are made: the file's
            // bytes are never held whole.
            let glb = scene::gltf::glb(&scene).map_err(|e| fail(input, e))?;
            meshcodec::output::write_atomically_with(output, |w| glb.write_to(w))
                .map_err(|e| fail(output, format!("cannot write: {e}")))?;
        }
        "gltf" => {
            // As the .glb: the buffer's base64 is written as it is made.
            let gltf = scene::gltf::gltf(&scene).map_err(|e| fail(input, e))?;
            meshcodec::output::write_atomically_with(output, |w| gltf.write_to(w))
                .map_err(|e| fail(output, format!("cannot write: {e}")))?;
        }
        _ if scene.meshes.is_empty() => {
            return Err(fail(
                input,
                "the file has no geometry, and OBJ holds neither skeletons nor animations: \
                 export it to .gltf or .glb",
            ))
        }
        _ => {
            // Checked first, then written as its lines are made.
            let obj = scene::obj::obj(&scene).map_err(|e| fail(input, e))?;
            meshcodec::output::write_atomically_with(output, |w| obj.write_to(w))
                .map_err(|e| fail(output, format!("cannot write: {e}")))?;
        }
    }
    Ok(exported(input, output, &scene))
}

/// Says what an export wrote.
fn exported(input: &Path, output: &Path, scene: &Scene) -> ExitCode {
    eprintln!(
        "meshcodec: {}: {}",
        output.display(),
        meshcodec::file::scene_summary(scene)
    );
    // What the export changed to fit the format (unused vertices left out, values that
    // are not finite replaced): said, not an error.
    for note in &scene.notes {
        eprintln!("meshcodec: {}: note: {note}", input.display());
    }
    ExitCode::SUCCESS
}

fn import(
    input: &Path,
    output: &Path,
    to: &str,
    allow_lossy: bool,
    core_mesh: CoreMesh,
    resource_root: Option<PathBuf>,
) -> Result<ExitCode, Failure> {
    let target = Target::for_import(to).map_err(|e| fail(input, e))?;
    let bytes = read_file(input)?;
    let obj = extension(input) == "obj";
    let scene: Scene = if obj {
        let text =
            std::str::from_utf8(&bytes).map_err(|e| fail(input, format!("not UTF-8: {e}")))?;
        scene::import::read_obj(text)
    } else {
        let dir = match input.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let options = scene::import::ImportOptions { resource_root };
        scene::import::read_gltf_with(&bytes, Some(dir), &options)
    }
    .map_err(|e| fail(input, e))?;
    let from = if obj {
        "the OBJ import"
    } else {
        "the glTF import"
    };
    // The scene is given away as the target is built.
    let (c, extra) = meshcodec::import_scene(scene, &target, &ConvertOptions { core_mesh })
        .and_then(|(prepared, extra)| Ok((prepared.into_converted()?, extra)))
        .map_err(|e| fail(input, e))?;
    check_losses(input, from, &target.to_string(), &c.losses, allow_lossy)?;
    // Files beside OUT (UNIGINE .anim): OUT's path without its extension, then the suffix.
    let stem = output.with_extension("");
    let extra: Vec<(PathBuf, meshcodec::ExtraFile)> = extra
        .into_iter()
        .map(|e| {
            let mut path = stem.clone().into_os_string();
            path.push(&e.suffix);
            (PathBuf::from(path), e)
        })
        .collect();
    if extra.iter().any(|(path, _)| path == output) {
        return Err(fail(
            output,
            "the animation file would have the mesh's own name: give OUT another extension \
             (.mesh)",
        ));
    }
    write_output(output, &c.bytes)?;
    for (path, e) in &extra {
        write_output(path, &e.bytes)?;
    }
    let also: String = extra
        .iter()
        .map(|(path, e)| format!("; {} in {}", e.what, path.display()))
        .collect();
    eprintln!("meshcodec: {}: {}{also}", output.display(), c.summary);
    Ok(ExitCode::SUCCESS)
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
    options: &meshcodec::render::RenderOptions,
) -> Result<u64, Failure> {
    let file = load(input)?;
    // The file and its model are dropped as the scene is built.
    let scene = file
        .into_scene(
            &ExportOptions {
                lod,
                all_lods: false,
                name: String::new(),
                keep_axes: false,
            },
            &limits(),
        )
        .map_err(|e| fail(input, e))?;
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
    options: &meshcodec::render::RenderOptions,
    json: bool,
    batch: &BatchOptions,
) -> Result<ExitCode, Failure> {
    let (entries, _) = batch.gather(paths);
    let tally = batch::run(entries, batch.jobs, json, |input| {
        let path = &input.path;
        let mut name = input.rel.clone().into_os_string();
        name.push(".png");
        let output = out_dir.join(name);
        let done = (|| {
            make_parent(&output)?;
            render(path, &output, lod, options)
        })();
        match done {
            Err(Failure(msg)) => Report::failed(path, &msg),
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
    Ok(finish(&tally, "rendered", json))
}

fn dump(path: &Path) -> Result<ExitCode, Failure> {
    let value = load(path)?.dump(&limits()).map_err(|e| fail(path, e))?;
    print_json(path, &value)?;
    Ok(ExitCode::SUCCESS)
}

/// Prints a value as pretty JSON on standard output.
fn print_json(path: &Path, value: &impl serde::Serialize) -> Result<(), Failure> {
    let text = serde_json::to_string_pretty(value).map_err(|e| fail(path, e))?;
    say!("{text}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::Compare;
    use std::io::Write;

    /// Writes `written` in pieces of `step` through a [`Compare`] with `original`.
    fn compare(original: &[u8], written: &[u8], step: usize) -> Option<(u64, u64)> {
        let mut c = Compare::new(original);
        for piece in written.chunks(step.max(1)) {
            c.write_all(piece).unwrap();
        }
        c.finish(original.len() as u64)
    }

    #[test]
    fn compare_finds_the_first_difference_in_any_piece_size() {
        let a: Vec<u8> = (0..200_000u32).map(|i| (i * 7 % 251) as u8).collect();
        for step in [1, 3, 4096, 1 << 16, 1 << 20] {
            assert_eq!(compare(&a, &a, step), None, "step {step}");
            let mut b = a.clone();
            b[150_001] ^= 1;
            b[170_000] ^= 1;
            assert_eq!(
                compare(&a, &b, step),
                Some((150_001, 200_000)),
                "step {step}"
            );
            // Shorter and longer outputs differ where the shorter one ends.
            assert_eq!(compare(&a, &a[..99_999], step), Some((99_999, 200_000)));
            let mut longer = a.clone();
            longer.push(0);
            assert_eq!(compare(&a, &longer, step), Some((200_000, 200_000)));
        }
        assert_eq!(compare(b"", b"", 1), None);
        assert_eq!(compare(b"", b"x", 1), Some((0, 0)));
    }
}
