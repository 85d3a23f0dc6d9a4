//! Downgrade a folder for an old client: every FileMesh of version 4.00 or later below
//! IN is written as 2.00 (or the version given) under OUT, at the same relative path;
//! everything else is copied unchanged. What each file loses (bones, skinning, FACS,
//! other LODs …) is printed, one line per loss: the revival-server job, where an old
//! client reads only 2.00 and the losses are accepted.
//!
//! ```sh
//! cargo run --example downgrade_folder -- IN OUT [--to 2.00]
//! ```
//!
//! The last line counts the files converted, copied and failed; the exit status is 1
//! when any FileMesh fails to convert.

use std::path::{Path, PathBuf};

use meshcodec::filemesh::Version;
use meshcodec::{convert_to, open, ConvertOptions, Format, Limits, MeshFile};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// The file as the old client gets it: `Some((bytes, loss lines))` for a FileMesh newer
/// than `to`, `None` for anything to copy as it is.
fn downgrade(bytes: &[u8], to: Version) -> meshcodec::Result<Option<(Vec<u8>, Vec<String>)>> {
    let Ok(file) = open(bytes) else {
        return Ok(None); // not a mesh, or not one this crate reads: copied
    };
    if file.format() != Format::FileMesh {
        return Ok(None);
    }
    let version: Version = file.version_name().parse().map_err(|_| {
        meshcodec::Error::new("downgrade", meshcodec::ErrorKind::Invalid("version".into()))
    })?;
    if version <= to {
        return Ok(None);
    }
    let out = convert_to(
        &file,
        &to.to_string(),
        &ConvertOptions::default(),
        &Limits::default(),
    )?;
    Ok(Some((
        out.bytes,
        out.losses.iter().map(|l| l.to_string()).collect(),
    )))
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (input, output, to) = match args.as_slice() {
        [i, o] => (i, o, "2.00"),
        [i, o, flag, v] if flag == "--to" => (i, o, v.as_str()),
        _ => {
            eprintln!("usage: downgrade_folder IN OUT [--to VERSION]");
            std::process::exit(2);
        }
    };
    let Ok(to) = to.parse::<Version>() else {
        eprintln!("--to {to}: a FileMesh version, 1.00 to 7.00");
        std::process::exit(2);
    };
    let mut paths = Vec::new();
    files(Path::new(input), &mut paths);
    let (mut converted, mut copied, mut failed) = (0, 0, 0);
    for path in paths {
        let rel = path.strip_prefix(input).unwrap_or(&path);
        let target = Path::new(output).join(rel);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("{}: {e}", path.display());
                failed += 1;
                continue;
            }
        };
        let written = match downgrade(&bytes, to) {
            Ok(Some((out, losses))) => {
                println!("{}: {to}", rel.display());
                for l in losses {
                    println!("  lost: {l}");
                }
                converted += 1;
                out
            }
            Ok(None) => {
                copied += 1;
                bytes
            }
            Err(e) => {
                eprintln!("{}: {e}", path.display());
                failed += 1;
                continue;
            }
        };
        let done = target
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| meshcodec::output::write_atomically(&target, &written));
        if let Err(e) = done {
            eprintln!("{}: {e}", target.display());
            failed += 1;
        }
    }
    println!("{converted} converted to {to}, {copied} copied, {failed} failed");
    if failed > 0 {
        std::process::exit(1);
    }
}
