//! Writing output files atomically: a temporary file beside OUT, renamed into place once
//! complete (`meshcodec::output`), so OUT is untouched on any failure.

use std::path::{Path, PathBuf};

use meshcodec::output::beside_path;
use meshcodec::ExtraFile;

use super::failure::{fail, Failure};

/// Writes OUT atomically: a temporary file beside it, renamed into place once complete
/// (`meshcodec::output`); OUT is untouched on any failure.
pub fn write_output(output: &Path, bytes: &[u8]) -> Result<(), Failure> {
    meshcodec::output::write_atomically(output, bytes)
        .map_err(|e| fail(output, format!("cannot write: {e}")))
}

/// Writes OUT atomically with `write`, through a 64 KiB buffer; the number of bytes
/// written.
pub fn stream(
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

/// Creates the folder an output file goes into.
pub fn make_parent(output: &Path) -> Result<(), Failure> {
    match output.parent() {
        Some(parent) => std::fs::create_dir_all(parent)
            .map_err(|e| fail(parent, format!("cannot create the folder: {e}"))),
        None => Ok(()),
    }
}

/// Where the files an import or conversion writes beside OUT go (UNIGINE `.anim`):
/// OUT's path without its extension, then each file's suffix. Refused when one would
/// be OUT itself.
pub fn beside(output: &Path, files: Vec<ExtraFile>) -> Result<Vec<(PathBuf, ExtraFile)>, Failure> {
    let placed: Vec<(PathBuf, ExtraFile)> = files
        .into_iter()
        .map(|e| (beside_path(output, &e.suffix), e))
        .collect();
    if placed.iter().any(|(path, _)| path == output) {
        return Err(fail(
            output,
            "the animation file would have the mesh's own name: give OUT another extension \
             (.mesh)",
        ));
    }
    Ok(placed)
}

/// Writes the files beside OUT ([`beside`]), each atomically.
pub fn write_beside(placed: &[(PathBuf, ExtraFile)]) -> Result<(), Failure> {
    placed
        .iter()
        .try_for_each(|(path, e)| write_output(path, &e.bytes))
}
