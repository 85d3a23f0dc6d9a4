//! Verify an archive: every file below the given folders is detected, read within
//! limits, fully decoded (`check`: Draco, zstd, LZ4, STF buffers) and written back,
//! which must give its bytes exactly. One JSON line per file on standard output:
//!
//! ```text
//! {"path":"…/v5.00-facs.mesh","format":"filemesh","version":"5.00","status":"ok"}
//! {"path":"…/notes.txt","status":"skipped","reason":"not a mesh"}
//! {"path":"…/cut.mesh","format":"filemesh","status":"failed","error":"at byte 96 …"}
//! ```
//!
//! ```sh
//! cargo run --example verify_archive -- ARCHIVE… > report.jsonl
//! ```
//!
//! The exit status is 1 when any mesh fails.

use std::path::{Path, PathBuf};

use meshcodec::{detect, open_with_limits, Limits, MeshFile};
use serde_json::json;

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

/// One file's line.
fn verify(path: &Path, limits: &Limits) -> serde_json::Value {
    let name = path.display().to_string();
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => return json!({"path": name, "status": "failed", "error": e.to_string()}),
    };
    let Some(format) = detect(&bytes) else {
        return json!({"path": name, "status": "skipped", "reason": "not a mesh"});
    };
    let result = open_with_limits(&bytes, limits).and_then(|file| {
        file.check(limits)?;
        let exact = file.write()? == bytes;
        Ok((file.version_name(), exact))
    });
    match result {
        Ok((version, true)) => {
            json!({"path": name, "format": format.name(), "version": version, "status": "ok"})
        }
        Ok((version, false)) => json!({
            "path": name, "format": format.name(), "version": version,
            "status": "failed", "error": "written back, the bytes differ"
        }),
        Err(e) => json!({
            "path": name, "format": format.name(), "status": "failed", "error": e.to_string()
        }),
    }
}

fn main() {
    let roots: Vec<String> = std::env::args().skip(1).collect();
    if roots.is_empty() {
        eprintln!("usage: verify_archive FOLDER…");
        std::process::exit(2);
    }
    let mut paths = Vec::new();
    for r in &roots {
        files(Path::new(r), &mut paths);
    }
    // Hostile archives: at most 512 MB read, 1 GB decoded per file.
    let limits = Limits {
        max_input_bytes: 512 << 20,
        max_decoded_bytes: 1 << 30,
    };
    let mut failed = 0;
    for path in paths {
        let line = verify(&path, &limits);
        failed += usize::from(line["status"] == "failed");
        println!("{line}");
    }
    if failed > 0 {
        eprintln!("{failed} failed");
        std::process::exit(1);
    }
}
