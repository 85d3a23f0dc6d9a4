//! Lossy conversions (`convert --to`, `import`): refused, listing what they would lose,
//! unless `--allow-lossy`.

use std::path::Path;

use meshcodec::loss::Loss;

use super::failure::{fail, Failure};

/// Refuses a lossy conversion unless allowed, listing what it would lose.
pub fn refuse_losses(
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
pub fn check_losses(
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
