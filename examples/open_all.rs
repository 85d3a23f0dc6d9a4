//! Opens every file under the given folders (default: the bundled fixtures) through the
//! front door, whatever its format, and prints one line per file: format, version,
//! vertices, faces, and whether writing it back gives the same bytes.
//!
//! ```sh
//! cargo run --example open_all -- roundtrip-fixtures ../shared/corpus
//! ```
//!
//! Files that are not meshes (generator scripts, JSON expectations) are listed as
//! "not a mesh"; files that are meshes but fail to read say why. The exit status is 1
//! if any mesh fails to read, check or write back exactly.

use std::path::{Path, PathBuf};

use meshcodec::{detect, open, Limits, MeshFile};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        out.push(dir.to_path_buf());
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

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let roots = if args.is_empty() {
        vec!["roundtrip-fixtures".to_string()]
    } else {
        args
    };
    let mut paths = Vec::new();
    for r in &roots {
        files(Path::new(r), &mut paths);
    }
    let limits = Limits::default();
    let (mut ok, mut failed, mut other) = (0, 0, 0);
    for path in paths {
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        if detect(&bytes).is_none() {
            other += 1;
            continue;
        }
        let line = open(&bytes).and_then(|file| {
            file.check(&limits)?;
            let info = file.summary(&limits)?;
            let exact = file.write()? == bytes;
            Ok((
                format!(
                    "{} {} vertices={} faces={} {}",
                    file.format().name(),
                    file.version_name(),
                    info.json["vertices"],
                    info.json["faces"],
                    if exact { "identical" } else { "DIFFERS" }
                ),
                exact,
            ))
        });
        match line {
            Ok((text, exact)) => {
                println!("{}: {text}", path.display());
                if exact {
                    ok += 1;
                } else {
                    failed += 1;
                }
            }
            Err(e) => {
                println!("{}: error: {e}", path.display());
                failed += 1;
            }
        }
    }
    println!("{ok} opened and written back identical, {failed} failed, {other} not a mesh");
    if failed > 0 {
        std::process::exit(1);
    }
}
