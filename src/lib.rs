//! Read and write game mesh files **exactly**: Roblox FileMesh 1.00–7.00, Roblox CSGPHS
//! collision data and union graphics (CSGMDL, CSGK), UNIGINE `.mesh` (ms10–ms14) and
//! `.anim` (an10, an11), and STF `stf.mesh`. A file read and written back is byte for
//! byte the same; a count in a damaged file cannot make a reader panic, hang or allocate
//! gigabytes. The command-line tool `meshcodec` is a thin layer over this library.
//!
//! # The layers: bytes in, bytes out
//!
//! ```text
//!  bytes ──► raw     the file exactly as stored: one #[binrw] type per spec structure;
//!             │       read, write back, the same bytes
//!             ▼
//!           model   one editable, version-independent value per format; writes any
//!             │       version of its format, with a report of what the target loses
//!             ▼
//!           scene   format-neutral meshes, skins, morph targets and animations
//!                   ([`scene`]): glTF 2.0 and OBJ out ([`scene::gltf`], [`scene::obj`]),
//!                   glTF and OBJ in, and the road between formats
//! ```
//!
//! Each format lives in its own module ([`filemesh`], [`csg`], [`unigine`], [`stf`]),
//! with these layers inside it. A program that does not care which format it holds
//! never needs them: it goes through the front door.
//!
//! # The front door
//!
//! - [`open`] (or [`open_with_limits`]) detects the format from the bytes ([`detect`],
//!   [`Format`]) and parses the raw layer, giving an [`AnyFile`];
//! - every format's file, and `AnyFile`, implements [`MeshFile`]: `write` it back,
//!   `summary` (what `meshcodec info` prints, as a [`Summary`]), `dump`, `check` that
//!   every payload decodes, `convert` to a [`Target`] version of its own format, and
//!   `to_scene` for export;
//! - [`convert_to`] converts to a version of any format (`"4.01"`, `"csgphs:7"`,
//!   `"unigine:ms13"`, `"stf"`), through the scene when the format changes; the
//!   [`Converted`] result carries the bytes and the [`loss`] report;
//! - [`import`] writes a scene as a file of any format;
//! - [`Limits`] caps what reading may take; every failure is an [`Error`] with the byte
//!   offset, the structure being read, and an [`ErrorKind`].
//!
//! The examples below run on the files in `roundtrip-fixtures/`. More, per format:
//! `docs/library.md`; the command line: `docs/cli.md`.
//!
//! # Open a file and print its summary
//!
//! ```
//! use meshcodec::{open, Limits, MeshFile};
//!
//! let bytes = std::fs::read(concat!(
//!     env!("CARGO_MANIFEST_DIR"),
//!     "/roundtrip-fixtures/filemesh/v5.00-facs.mesh"
//! ))?;
//! let file = open(&bytes)?;
//! assert_eq!(file.format(), meshcodec::Format::FileMesh);
//! assert_eq!(file.version_name(), "5.00");
//!
//! let summary = file.summary(&Limits::default())?;
//! println!("{}", summary.text); // what `meshcodec info` prints
//! assert_eq!(summary.json["vertices"], 15); // what `meshcodec info --json` prints
//! assert_eq!(summary.json["bones"], 4);
//! assert!(summary.problems.is_empty());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Write it back, byte-identical
//!
//! Every format: open, write, compare. `check` also decodes every payload (Draco, zstd,
//! LZ4, STF buffers) that reading leaves as stored.
//!
//! ```
//! use meshcodec::{open, Limits, MeshFile};
//!
//! let files: [&[u8]; 6] = [
//!     include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/roundtrip-fixtures/text/v1.00-crlf.mesh")),
//!     include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/roundtrip-fixtures/chunked/v7.00-draco-grid-272.mesh")),
//!     include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/roundtrip-fixtures/csgphs/csgphs8-boxes.bin")),
//!     include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/roundtrip-fixtures/csgmdl/csgmdl5-quad-lod.bin")),
//!     include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/roundtrip-fixtures/unigine/ms14-two-surfaces.mesh")),
//!     include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/roundtrip-fixtures/stf/two-meshes.stf")),
//! ];
//! for bytes in files {
//!     let file = open(bytes)?;
//!     file.check(&Limits::default())?;
//!     assert_eq!(file.write()?, bytes, "{:?} {}", file.format(), file.version_name());
//! }
//! # Ok::<(), meshcodec::Error>(())
//! ```
//!
//! # Convert to another version, with the loss report
//!
//! The report is empty exactly when the conversion changes nothing. Refuse a lossy
//! conversion unless the caller allows it, as `meshcodec convert --to` does without
//! `--allow-lossy`:
//!
//! ```
//! use meshcodec::{convert_to, loss::LossKind, open, ConvertOptions, Converted, Limits, MeshFile};
//!
//! fn convert(bytes: &[u8], to: &str, allow_lossy: bool) -> Result<Converted, String> {
//!     let file = open(bytes).map_err(|e| e.to_string())?;
//!     let out = convert_to(&file, to, &ConvertOptions::default(), &Limits::default())
//!         .map_err(|e| e.to_string())?;
//!     // Lost data needs permission; re-laid layouts (`Level::Relaid`) do not.
//!     if meshcodec::loss::any_lost(&out.losses) && !allow_lossy {
//!         let lost: Vec<String> = out.losses.iter().map(|l| l.to_string()).collect();
//!         return Err(format!("converting to {to} would lose: {}", lost.join("; ")));
//!     }
//!     Ok(out)
//! }
//!
//! let v5 = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/roundtrip-fixtures/filemesh/v5.00-facs.mesh"));
//!
//! // 6.00 holds everything 5.00 does: nothing lost.
//! let v6 = convert(v5, "6.00", false)?;
//! assert!(v6.losses.is_empty());
//! assert_eq!(open(&v6.bytes).unwrap().version_name(), "6.00");
//!
//! // 4.01 has no FACS: refused, unless allowed.
//! let refused = convert(v5, "4.01", false).unwrap_err();
//! assert!(refused.contains("would lose"), "{refused}");
//! let v4 = convert(v5, "4.01", true)?;
//! assert_eq!(v4.losses.len(), 1);
//! assert_eq!(v4.losses[0].kind, LossKind::Facs);
//!
//! // And back up: 6.00 → 5.00 gives the original bytes again.
//! assert_eq!(convert(&v6.bytes, "5.00", false)?.bytes, v5);
//! # Ok::<(), String>(())
//! ```
//!
//! Another format is named with it (`"filemesh:4.01"`, `"csgphs:7"`, `"unigine:ms13"`,
//! `"stf"`); the conversion goes through the scene, and the report also names what the
//! scene leaves behind:
//!
//! ```
//! use meshcodec::{convert_to, open, Format, Limits, MeshFile};
//!
//! let hulls = open(include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/roundtrip-fixtures/csgphs/csgphs7.bin")))?;
//! let mesh = convert_to(&hulls, "filemesh:4.01", &Default::default(), &Limits::default())?;
//! println!("{}", mesh.summary); // FileMesh 4.01, … vertices, … faces
//! for loss in &mesh.losses {
//!     println!("lost: {loss}"); // the stored physics, the geometry type, the hull split
//! }
//! assert!(!mesh.losses.is_empty());
//! assert_eq!(open(&mesh.bytes)?.format(), Format::FileMesh);
//! # Ok::<(), meshcodec::Error>(())
//! ```
//!
//! # Export to glTF (and OBJ)
//!
//! ```
//! use meshcodec::{open, scene, ExportOptions, Limits, MeshFile};
//!
//! let file = open(include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/roundtrip-fixtures/unigine/ms12-morph.mesh")))?;
//! let options = ExportOptions { name: "morph".into(), ..Default::default() };
//! let scene = file.to_scene(&options, &Limits::default())?; // turned to glTF's +Y up
//! println!("{}", meshcodec::scene_summary(&scene));
//!
//! let glb: Vec<u8> = scene::gltf::to_glb(&scene)?; // binary glTF
//! assert_eq!(&glb[..4], b"glTF");
//! let gltf: String = scene::gltf::to_gltf(&scene)?; // JSON, buffer embedded as base64
//! assert!(gltf.contains("\"targets\"")); // the morph targets
//! let obj: String = scene::obj::to_obj(&scene)?; // geometry only
//! assert!(obj.lines().any(|l| l.starts_with("f ")));
//! # Ok::<(), meshcodec::Error>(())
//! ```
//!
//! # Import a scene
//!
//! A scene from glTF or OBJ ([`scene::import`]), or from any file's `to_scene`, written
//! as a file of any format; the report names what the target cannot hold.
//!
//! ```
//! use meshcodec::{import, open, scene, ConvertOptions, Limits, MeshFile, Target};
//!
//! // A glTF file: here one exported from a skinned FileMesh.
//! let source = open(include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/roundtrip-fixtures/filemesh/v4.01-bones.mesh")))?;
//! let glb = scene::gltf::to_glb(&source.to_scene(&Default::default(), &Limits::default())?)?;
//!
//! let scene = scene::import::read_gltf(&glb, None)?;
//! assert!(scene.skeleton.is_some());
//!
//! // FileMesh 4.00 and later hold the skeleton and the skin.
//! let mesh = import(&scene, &Target::for_import("5.00")?, &ConvertOptions::default())?;
//! assert!(mesh.losses.is_empty(), "{:?}", mesh.losses);
//! assert_eq!(open(&mesh.bytes)?.version_name(), "5.00");
//!
//! // 2.00 has no bones: the skin is named as a loss, the geometry written.
//! let old = import(&scene, &Target::for_import("2.00")?, &ConvertOptions::default())?;
//! assert!(!old.losses.is_empty());
//!
//! // The same scene as UNIGINE and as STF.
//! for to in ["unigine:ms13", "stf"] {
//!     let out = import(&scene, &Target::for_import(to)?, &ConvertOptions::default())?;
//!     println!("{to}: {}", out.summary);
//! }
//! # Ok::<(), meshcodec::Error>(())
//! ```
//!
//! # Verify hostile bytes with limits
//!
//! Every count is checked against the bytes that remain before anything is allocated,
//! and the error says where: the byte offset, the field, and why.
//!
//! ```
//! use meshcodec::{open, open_with_limits, ErrorKind, Limits, MeshFile};
//!
//! // A FileMesh 2.00 header that claims 4,294,967,295 vertices, and no vertex data.
//! let mut bytes = b"version 2.00\n".to_vec();
//! bytes.extend([12, 0, 40, 12]); // header size, vertex size, face size
//! bytes.extend(u32::MAX.to_le_bytes()); // vertices
//! bytes.extend(0u32.to_le_bytes()); // faces
//!
//! let err = open(&bytes).unwrap_err();
//! assert_eq!(err.offset(), Some(25)); // where the vertices would start
//! assert_eq!(err.context(), "FileMeshV2.vertices");
//! assert!(matches!(err.kind(), ErrorKind::CountTooLarge { count: 4294967295, .. }));
//! assert_eq!(
//!     err.to_string(),
//!     "at byte 25 (0x19), reading FileMeshV2.vertices: 4294967295 vertices need \
//!      171798691800 bytes but only 0 remain"
//! );
//!
//! // Limits: the largest input, and the largest decoded payload (Draco, zstd, LZ4 …).
//! let draco = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/roundtrip-fixtures/chunked/v7.00-draco-grid-272.mesh"));
//! let small = Limits { max_input_bytes: 1 << 10, ..Limits::default() };
//! let err = open_with_limits(draco, &small).unwrap_err();
//! assert!(matches!(err.kind(), ErrorKind::LimitExceeded { .. }), "{err}");
//!
//! let tight = Limits { max_decoded_bytes: 1 << 10, ..Limits::default() };
//! let file = open_with_limits(draco, &tight)?; // the raw layer keeps Draco as stored
//! assert!(file.check(&tight).is_err()); // decoding it would take more
//! file.check(&Limits::default())?;
//! # Ok::<(), meshcodec::Error>(())
//! ```
//!
//! # Render a thumbnail, write it atomically
//!
//! ```
//! use meshcodec::{open, render, Limits, MeshFile};
//!
//! let file = open(include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/roundtrip-fixtures/filemesh/v3.00-lods.mesh")))?;
//! let scene = file.to_scene(&Default::default(), &Limits::default())?;
//! let options = render::RenderOptions { size: 64, ..Default::default() };
//! let png = render::render_png(&scene, &options)?;
//! assert_eq!(&png[1..4], b"PNG");
//!
//! let dir = std::env::temp_dir().join(format!("meshcodec-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! // A temporary file beside the target, renamed over it: never half a file.
//! meshcodec::output::write_atomically(&dir.join("thumb.png"), &png)?;
//! assert_eq!(std::fs::read(dir.join("thumb.png"))?, png);
//! std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Big files: take the file, write the target as it is made
//!
//! [`MeshFile::into_scene`] and [`convert_prepared`] take the [`AnyFile`] and drop what they no
//! longer need as they go, so a big file is never held twice; a prepared conversion
//! gives its report before a byte is written.
//!
//! ```
//! use meshcodec::{convert_prepared, open, Limits, MeshFile};
//!
//! let bytes = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/roundtrip-fixtures/filemesh/v5.00-facs.mesh"));
//! let limits = Limits::default();
//!
//! let scene = open(bytes)?.into_scene(&Default::default(), &limits)?;
//! assert_eq!(scene.skeleton.as_ref().map(|s| s.joints.len()), Some(4));
//!
//! let prepared = convert_prepared(open(bytes)?, "1.00", &Default::default(), &limits)?;
//! assert!(!prepared.losses.is_empty()); // text has no bones, no FACS, 6 digits
//! let mut text = Vec::new();
//! prepared.write_to(&mut text)?; // printed in pieces, never held whole
//! assert!(text.starts_with(b"version 1.00"));
//! # Ok::<(), meshcodec::Error>(())
//! ```
//!
//! # Property-test your own code
//!
//! With the feature `proptest`, `meshcodec::strategy` makes
//! valid files of every format and version (and the models and scenes behind them, and
//! damaged copies) for a downstream crate's own property tests; `strategy` lists what
//! each function covers.
//!
//! ```
//! use meshcodec::{open, MeshFile};
//! use proptest::prelude::*;
//! use proptest::test_runner::{Config, TestRunner};
//!
//! let mut runner = TestRunner::new(Config::with_cases(32));
//! runner.run(&meshcodec::strategy::any_file(), |bytes| {
//!     let file = open(&bytes).unwrap(); // every generated file opens …
//!     prop_assert_eq!(file.write().unwrap(), bytes); // … and is written back exactly
//!     Ok(())
//! }).unwrap();
//! ```
//!
//! # Examples, a job each
//!
//! `examples/` holds programs CI runs on the fixtures and the corpus:
//! `downgrade_folder` (every 4.00+ FileMesh of a folder as 2.00 for an old client, with
//! its losses), `scale_mesh` (edit and write back, keeping everything else),
//! `verify_archive` (an archive checked, one JSON line per file), `union_to_gltf`
//! (CSGMDL graphics and CSGPHS hulls as binary glTF), `proptest_your_code` (the above
//! for your own function; `--features proptest`), `open_all` and `big_files`.
#![forbid(unsafe_code)]
// docs.rs builds with every feature and marks what needs one.
#![cfg_attr(docsrs, feature(doc_cfg))]
// Indexing into input is how panics sneak in: the library uses checked access.
#![warn(clippy::indexing_slicing)]

/// The README's code examples, compiled and run as doctests (`cargo test --doc`).
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The code examples of `docs/library.md`, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../docs/library.md")]
pub struct LibraryDocDoctests;

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
#[cfg(feature = "proptest")]
#[cfg_attr(docsrs, doc(cfg(feature = "proptest")))]
pub mod strategy;
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
    convert_prepared, convert_to, detect, import, import_scene, open, open_reader,
    open_reader_with, open_with_limits, scene_summary, AnyFile, ConvertOptions, Converted,
    CoreMesh, ExportOptions, ExtraFile, Format, MeshFile, Prepared, Summary, Target,
};
pub use io::Spare;
// The array machinery, at the root for code written before `records` (hidden there).
#[doc(hidden)]
pub use io::{Arrays, Counted, Owned, PlainRecord, Records};

/// The arrays the raw layouts are made of: [`Records`], a counted
/// array read and written in bulk (it dereferences to a `Vec`); the holders a layout is
/// generic over ([`Owned`] in memory, or in place in the caller's
/// bytes); and [`Spare`] arrays of earlier files to read the next into.
///
/// ```
/// use meshcodec::filemesh::raw::{Body, FileMesh};
/// use meshcodec::records::Records;
///
/// let bytes = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/roundtrip-fixtures/filemesh/v4.01-bones.mesh"));
/// let Body::V4(body) = FileMesh::read(bytes)?.body else { unreachable!() };
/// let faces: &Records<_> = &body.faces;
/// assert!(!faces.is_empty()); // a Vec's methods, through Deref
/// # Ok::<(), meshcodec::Error>(())
/// ```
pub mod records {
    pub use crate::io::{Arrays, Counted, Owned, PlainRecord, Records, Spare};
}
