//! Shared by the integration tests: where the corpus and fixtures are, and a hand-built
//! STF file with blendshapes ([`stf_blendshapes`]).
#![allow(dead_code)]

use std::path::{Path, PathBuf};

pub mod stf_blendshapes;

/// The real-file corpus: `MESHCODEC_CORPUS`, else `../shared/corpus` beside the repo.
///
/// Returns `None` (after saying so) when it is absent; under `CI=true` a missing corpus
/// fails the test instead, so CI can never pass by skipping.
pub fn corpus() -> Option<PathBuf> {
    let dir = std::env::var_os("MESHCODEC_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"));
    if dir.join("MANIFEST.tsv").is_file() {
        return Some(dir);
    }
    let ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
    assert!(
        !ci,
        "CI=true but the corpus is missing at {} (set MESHCODEC_CORPUS)",
        dir.display()
    );
    eprintln!(
        "SKIPPED: corpus not found at {} (set MESHCODEC_CORPUS to run the corpus tests)",
        dir.display()
    );
    None
}

/// One row of the corpus manifest.
pub struct CorpusFile {
    pub path: PathBuf,
    pub format: String,
    pub version: String,
    pub bytes: u64,
}

/// The manifest's rows, with paths resolved.
pub fn manifest(dir: &Path) -> Vec<CorpusFile> {
    let text = std::fs::read_to_string(dir.join("MANIFEST.tsv")).expect("read MANIFEST.tsv");
    text.lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let cols: Vec<&str> = l.split('\t').collect();
            CorpusFile {
                path: dir.join(cols[0]),
                format: cols[1].to_string(),
                version: cols[2].to_string(),
                bytes: cols[3].parse().expect("byte count"),
            }
        })
        .collect()
}

/// Every FileMesh file in the corpus directory tree whose version line says one of
/// `versions` — found by content, so files added beside the manifest count too.
pub fn corpus_filemeshes(dir: &Path, versions: &[&str]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).expect("read corpus dir") {
            let p = entry.expect("dir entry").path();
            if p.is_dir() {
                stack.push(p);
            } else if let Ok(bytes) = std::fs::read(&p) {
                if let Some(v) = bytes.get(8..12) {
                    if bytes.starts_with(b"version ") && versions.iter().any(|w| w.as_bytes() == v)
                    {
                        out.push(p);
                    }
                }
            }
        }
    }
    out.sort();
    out
}

/// The project's own fixtures directory for 2.00–5.00.
pub fn fixtures() -> PathBuf {
    fixture_dir("filemesh")
}

/// A fixtures subdirectory (`filemesh`, `chunked`, `text`, `draco`).
pub fn fixture_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("roundtrip-fixtures")
        .join(name)
}

/// The FileMesh fixture sets, each with an expected.json.
pub const FIXTURE_SETS: &[&str] = &["filemesh", "chunked", "text"];

/// Every `.mesh` fixture of every set.
pub fn fixture_files() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = FIXTURE_SETS
        .iter()
        .flat_map(|set| std::fs::read_dir(fixture_dir(set)).expect("fixtures dir"))
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "mesh"))
        .collect();
    v.sort();
    v
}

/// Every FileMesh version.
pub const ALL_VERSIONS: &[&str] = &[
    "1.00", "1.01", "2.00", "3.00", "3.01", "4.00", "4.01", "5.00", "6.00", "7.00",
];

/// The binary versions.
pub const BINARY_VERSIONS: &[&str] = &[
    "2.00", "3.00", "3.01", "4.00", "4.01", "5.00", "6.00", "7.00",
];

/// Every fixture of every set, plus every FileMesh in the corpus when it is present.
pub fn fixtures_and_corpus_filemeshes() -> Vec<PathBuf> {
    let mut files = fixture_files();
    if let Some(dir) = corpus() {
        files.extend(corpus_filemeshes(&dir, ALL_VERSIONS));
    }
    files
}

/// Every file below `dir`, in name order, folders walked recursively (nothing when
/// `dir` cannot be read).
pub fn files_below(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for p in entries.flatten().map(|e| e.path()) {
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}
