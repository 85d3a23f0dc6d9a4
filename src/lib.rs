#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
// Indexing into input is how panics sneak in: the library uses checked access.
#![warn(clippy::indexing_slicing)]

pub mod csg;
pub mod error;
pub mod file;
pub mod filemesh;
pub(crate) mod io;
pub mod loss;
pub mod output;
pub mod render;
pub mod scene;
pub mod stf;
pub mod unigine;

pub use error::{Error, ErrorKind, Limits, Result};
pub use file::{
    convert_into, convert_to, detect, import, open, open_reader, open_reader_with,
    open_with_limits, AnyFile, ConvertOptions, Converted, ExportOptions, Format, MeshFile, Summary,
    Target,
};
pub use io::{PlainRecord, Records, Spare};
