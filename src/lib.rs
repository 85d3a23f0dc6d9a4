#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
// Indexing into input is how panics sneak in: the library uses checked access.
#![warn(clippy::indexing_slicing)]

pub mod csg;
pub mod error;
pub mod filemesh;
pub(crate) mod io;
pub mod loss;
pub mod scene;
pub mod stf;
pub mod unigine;

pub use error::{Error, ErrorKind, Limits, Result};
pub use io::PlainRecord;

/// A file format this crate recognises from the first bytes of a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// Roblox FileMesh (`version X.YY`).
    FileMesh,
    /// Roblox CSGPHS physics data (`CSGPHS`).
    Csgphs,
    /// UNIGINE mesh (`ms10` … `ms15`).
    UnigineMesh,
    /// UNIGINE animation (`an10` … `an12`).
    UnigineAnim,
    /// STF container (`STF0`).
    Stf,
}

impl Format {
    /// The name used in `meshcodec info --json` (`"filemesh"`, `"csgphs"` …).
    pub fn name(self) -> &'static str {
        match self {
            Format::FileMesh => "filemesh",
            Format::Csgphs => "csgphs",
            Format::UnigineMesh => "unigine-mesh",
            Format::UnigineAnim => "unigine-anim",
            Format::Stf => "stf",
        }
    }
}

/// Recognises a format from the first bytes of a file; `None` if none matches.
///
/// ```
/// assert_eq!(meshcodec::detect(b"version 4.01\n"), Some(meshcodec::Format::FileMesh));
/// assert_eq!(meshcodec::detect(b"PK\x03\x04"), None);
/// ```
pub fn detect(bytes: &[u8]) -> Option<Format> {
    let magic4 = bytes.get(..4);
    let digit = |i: usize| bytes.get(i).is_some_and(u8::is_ascii_digit);
    if filemesh::raw::looks_like_filemesh(bytes) {
        Some(Format::FileMesh)
    } else if bytes.starts_with(b"CSGPHS") {
        Some(Format::Csgphs)
    } else if bytes.starts_with(b"STF0") {
        Some(Format::Stf)
    } else if magic4.is_some_and(|m| m.starts_with(b"ms")) && digit(2) && digit(3) {
        Some(Format::UnigineMesh)
    } else if magic4.is_some_and(|m| m.starts_with(b"an")) && digit(2) && digit(3) {
        Some(Format::UnigineAnim)
    } else {
        None
    }
}
