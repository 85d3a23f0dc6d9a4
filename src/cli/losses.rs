//! Lossy conversions (`convert --to`, `import`): refused, listing what they would lose,
//! unless `--allow-lossy`; the lines of a report as printed.

use std::path::Path;

use meshcodec::loss::{any_lost, Loss};

use super::failure::{Failure, REFUSED};

/// Refuses a conversion that loses data ([`Level::Lost`](meshcodec::loss::Level)) unless
/// allowed, listing its report; a report of re-laid lines only needs no permission.
pub fn refuse_losses(
    input: &Path,
    from: &str,
    to: &str,
    losses: &[Loss],
    allow_lossy: bool,
) -> Result<(), Failure> {
    if !any_lost(losses) || allow_lossy {
        return Ok(());
    }
    let list: Vec<String> = losses.iter().map(|l| format!("  - {}", line(l))).collect();
    Err(Failure {
        message: format!(
            "{}: converting {from} to {to} would lose:\n{}\n(pass --allow-lossy to convert \
             anyway; exit status {REFUSED})",
            input.display(),
            list.join("\n")
        ),
        refused: losses.to_vec(),
    })
}

/// Refuses a lossy conversion unless allowed; prints the report when it goes ahead.
pub fn check_losses(
    input: &Path,
    from: &str,
    to: &str,
    losses: &[Loss],
    allow_lossy: bool,
) -> Result<(), Failure> {
    refuse_losses(input, from, to, losses, allow_lossy)?;
    print_losses(input, losses);
    Ok(())
}

/// Prints a report on standard error, a line per loss.
pub fn print_losses(input: &Path, losses: &[Loss]) {
    for l in losses {
        eprintln!("meshcodec: {}: {}", input.display(), line(l));
    }
}

/// A loss as printed: `dropped: …` for lost data, `re-laid: …` for a layout.
pub fn line(l: &Loss) -> String {
    if l.is_lost() {
        format!("dropped: {l}")
    } else {
        format!("re-laid: {l}")
    }
}

/// A report as JSON: `[{"kind", "level", "count", "text"}, …]`.
pub fn json(losses: &[Loss]) -> serde_json::Value {
    serde_json::to_value(losses).unwrap_or_default()
}
