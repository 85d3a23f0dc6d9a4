#![doc = include_str!("../README.md")]
#![forbid(unsafe_code)]
// Indexing into input is how panics sneak in: the library uses checked access.
#![warn(clippy::indexing_slicing)]

pub mod codec;
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

/// The corpus's Roblox FileMeshes for the library's own tests: `MESHCODEC_CORPUS`, else
/// `../shared/corpus` beside the repository. A test reads what is there (nothing when it
/// is absent, so `cargo test` works on a clone alone); under `CI=true` a missing corpus
/// fails instead, so CI cannot pass by skipping.
#[cfg(test)]
pub(crate) fn test_corpus_roblox() -> std::path::PathBuf {
    let dir = std::env::var_os("MESHCODEC_CORPUS")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus")
        });
    let ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
    assert!(
        !ci || dir.join("MANIFEST.tsv").is_file(),
        "CI=true but the corpus is missing at {} (set MESHCODEC_CORPUS)",
        dir.display()
    );
    dir.join("roblox")
}
/// Every FileMesh that reads in the given fixture folders (below `roundtrip-fixtures`)
/// and in the Roblox corpus ([`test_corpus_roblox`]), with its path: what the library's
/// tests walk.
#[cfg(test)]
pub(crate) fn test_filemeshes(
    fixture_dirs: &[&str],
) -> Vec<(std::path::PathBuf, filemesh::FileMesh)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("roundtrip-fixtures");
    fixture_dirs
        .iter()
        .map(|d| root.join(d))
        .chain([test_corpus_roblox()])
        .flat_map(|dir| std::fs::read_dir(dir).into_iter().flatten().flatten())
        .filter_map(|e| {
            let f = filemesh::FileMesh::read(&std::fs::read(e.path()).ok()?).ok()?;
            Some((e.path(), f))
        })
        .collect()
}
pub use file::{
    convert_into, convert_prepared, convert_to, detect, import, import_with_files, open,
    open_reader, open_reader_with, open_with_limits, scene_summary, to_scene_into, AnyFile,
    ConvertOptions, Converted, ExportOptions, ExtraFile, Format, MeshFile, Prepared, Summary,
    Target,
};
pub use filemesh::model::convert::CoreMesh;
pub use io::{PlainRecord, Records, Spare};
