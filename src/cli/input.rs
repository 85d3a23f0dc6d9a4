//! Reading input files within `--max-input` (checked before reading), and each thread's
//! spare arrays ([`load`], [`done_with`]): a batch run pays fresh memory once per thread,
//! not once per file.

use std::path::Path;

use meshcodec::{AnyFile, Limits, Spare};

use super::failure::{fail, Failure};

/// Reads a file whose size is within `--max-input` (checked before reading).
pub fn read_file(path: &Path, limits: &Limits) -> Result<Vec<u8>, Failure> {
    let max = limits.max_input_bytes;
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

/// Opens a file of any format within `--max-input` (checked before reading). A binary
/// FileMesh is read straight from the file, its arrays into place, so the file's bytes
/// are never held besides them.
///
/// Each thread keeps the arrays of the last file it was done with ([`done_with`]) and
/// the next read fills them, so a batch run pays fresh memory once per thread, not once
/// per file.
pub fn load(path: &Path, limits: &Limits) -> Result<AnyFile, Failure> {
    let file = std::io::BufReader::new(open_input(path, limits)?);
    SPARE
        .with(|spare| meshcodec::open_reader_with(file, limits, &mut spare.borrow_mut()))
        .map_err(|e| fail(path, e))
}

thread_local! {
    /// The arrays of the last file this thread was done with, for the next to fill.
    static SPARE: std::cell::RefCell<Spare> = std::cell::RefCell::default();
}

/// Keeps a file's arrays for the next file this thread reads.
pub fn done_with(file: AnyFile) {
    SPARE.with(|spare| spare.borrow_mut().keep(file));
}

/// Opens a file for reading once its size is known to be within `--max-input`.
pub fn open_input(path: &Path, limits: &Limits) -> Result<std::fs::File, Failure> {
    let max = limits.max_input_bytes;
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
