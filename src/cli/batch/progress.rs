//! The progress bar of a batch run: on standard error when it is a terminal, never in
//! piped output.

use std::io::IsTerminal;

/// A progress bar on standard error, if it is a terminal and there is more than one
/// file.
pub fn progress_bar(total: u64) -> Option<indicatif::ProgressBar> {
    if total < 2 || !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(total),
        indicatif::ProgressDrawTarget::stderr(),
    );
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{elapsed_precise} [{bar:40}] {pos}/{len} files, {eta} left",
    ) {
        bar.set_style(style.progress_chars("=> "));
    }
    Some(bar)
}
