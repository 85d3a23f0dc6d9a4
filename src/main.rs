//! `meshcodec`: inspect, verify and rewrite mesh files byte-exactly.
//!
//! Exit status: 0 success, 1 a problem with the input (the message names the file, the
//! byte offset and what was expected), 2 a usage error.
//!
//! This file parses the command line and hands each command to its file in `src/cli/`.

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use meshcodec::Limits;

mod cli;
use cli::batch::Selection;
use cli::{convert, dump, export, import, info, parse_size, render, verify, Context};

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
        Exit status: 0 success, 1 a problem with the input, 2 a usage error, 3 a\n\
        conversion or import refused for what it would lose (--allow-lossy accepts it)."
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

/// The commands: each one's arguments, help and work are in its file in `src/cli/`.
#[derive(Subcommand)]
enum Command {
    Info(info::Args),
    Convert(convert::Args),
    Verify(verify::Args),
    Export(export::Args),
    Import(import::Args),
    Render(render::Args),
    Dump(dump::Args),
}

fn main() -> ExitCode {
    cli::memory::fix_mmap_threshold();
    let cli = Cli::parse();
    let cx = Context {
        limits: Limits {
            max_input_bytes: cli.max_input,
            max_decoded_bytes: cli.max_decoded,
        },
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
        Command::Info(args) => info::run(args, &cx),
        Command::Convert(args) => convert::run(args, &cx),
        Command::Verify(args) => verify::run(args, &cx),
        Command::Export(args) => export::run(args, &cx),
        Command::Import(args) => import::run(args, &cx),
        Command::Render(args) => render::run(args, &cx),
        Command::Dump(args) => dump::run(args, &cx),
    };
    match result {
        Ok(code) => code,
        Err(f) => {
            eprintln!("meshcodec: {}", f.message);
            ExitCode::from(f.exit_code())
        }
    }
}
