//! Results on standard output ([`say()`], behind the `say!` macro, and [`print_json`]):
//! a reader that has gone away ends the program quietly.

use std::path::Path;

use super::failure::{fail, Failure};

/// Prints `text` and a newline on standard output (see `say!`).
pub fn say(text: std::fmt::Arguments) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_fmt(text).and_then(|()| out.write_all(b"\n")) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("meshcodec: cannot write to standard output: {e}");
        std::process::exit(1);
    }
}

/// Prints a value as pretty JSON on standard output.
pub fn print_json(path: &Path, value: &impl serde::Serialize) -> Result<(), Failure> {
    let text = serde_json::to_string_pretty(value).map_err(|e| fail(path, e))?;
    say!("{text}");
    Ok(())
}
