//! Writing output files so that a failure never destroys the user's previous file.
//!
//! [`write_atomically`] writes to a new temporary file beside the target (same folder,
//! so the final rename stays on one file system), flushes it, syncs it to disk when it
//! replaces a file, and only then renames it over the target. Until the rename the target is untouched; if
//! anything fails, or the process dies, the target is as it was (a killed process can
//! leave its temporary file, named `.NAME.meshcodec-PID-N.tmp`, behind; a failure
//! removes it). Consequences worth knowing:
//!
//! - `meshcodec convert X X` is safe: X is read whole before anything is written.
//! - A symbolic link at the target is replaced by the new file, as `rename` does; the
//!   file it pointed to is not written through, and stays as it was.
//! - A target that is a directory is refused.
//! - An existing target's permissions carry over to the new file.
//! - A new file (no previous one at the target) is not synced before the rename: a
//!   killed process still never leaves part of it under the target's name, but after a
//!   crash of the machine it may be empty or missing, as any freshly written file can be.
//!
//! # Example
//!
//! ```
//! use meshcodec::output::write_atomically;
//!
//! let dir = std::env::temp_dir().join(format!("meshcodec-output-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let target = dir.join("out.mesh");
//! write_atomically(&target, b"first")?;
//! write_atomically(&target, b"second")?; // replaces it whole, or not at all
//! assert_eq!(std::fs::read(&target)?, b"second");
//! // Nothing is left beside it.
//! assert_eq!(std::fs::read_dir(&dir)?.count(), 1);
//! std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), std::io::Error>(())
//! ```

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Distinguishes temporary files of one process.
static COUNTER: AtomicU64 = AtomicU64::new(0);

/// Where a file written beside `output` goes (a UNIGINE ms13/ms14 mesh's `.anim` files,
/// [`ExtraFile`](crate::ExtraFile)): `output` without its extension, then `suffix`
/// (`y.mesh` and `.anim`: `y.anim`).
pub fn beside_path(output: &Path, suffix: &str) -> PathBuf {
    let mut path = output.with_extension("").into_os_string();
    path.push(suffix);
    PathBuf::from(path)
}

/// Writes `bytes` to `path` atomically (see the [module docs](self)).
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomically_with(path, |w| w.write_all(bytes))
}

/// Writes what `fill` writes to `path` atomically (see the [module docs](self)). `fill`
/// gets the temporary file; an error from it (or from flushing, syncing or renaming)
/// leaves `path` as it was and removes the temporary file.
pub fn write_atomically_with(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let existing = fs::symlink_metadata(path).ok();
    if fs::metadata(path).is_ok_and(|m| m.is_dir()) {
        return Err(io::Error::new(
            io::ErrorKind::IsADirectory,
            "is a directory: name a file to write",
        ));
    }
    let (temp, mut file) = create_temp(path)?;
    let written = (|| {
        let mut w = io::BufWriter::new(&mut file);
        fill(&mut w)?;
        w.flush()?;
        drop(w);
        if let Some(m) = existing.as_ref().filter(|m| m.is_file()) {
            file.set_permissions(m.permissions())?;
        }
        // Syncing before the rename is what keeps a previous file safe from a crash
        // of the machine (the rename could reach the disk before the data). With no
        // previous file there is nothing to keep, and a batch writing thousands of new
        // files should not wait for the disk once per file.
        if existing.is_some() {
            file.sync_all()?;
        }
        fs::rename(&temp, path)
    })();
    if written.is_err() {
        let _ = fs::remove_file(&temp);
    }
    written
}

/// A new file beside `path`, created exclusively so no other file is overwritten.
fn create_temp(path: &Path) -> io::Result<(PathBuf, File)> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "output".into());
    loop {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let temp = dir.join(format!(".{name}.meshcodec-{}-{n}.tmp", std::process::id()));
        match OpenOptions::new().write(true).create_new(true).open(&temp) {
            Ok(f) => return Ok((temp, f)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}
