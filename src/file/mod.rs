//! The front door: open any supported file from its bytes and use it through one
//! interface, whatever its format.
//!
//! [`open`] detects the format ([`detect`]) and parses the file into its raw, byte-exact
//! layer, giving an [`AnyFile`]. Every format's file type implements [`MeshFile`], and so
//! does `AnyFile`: write it back, summarise it, dump it, check that every payload decodes,
//! convert it to another version with a loss report, or turn it into the format-neutral
//! [`Scene`](crate::scene::Scene) for export. [`import`] goes the other way, from a scene to a file.
//!
//! Two rooms, imports running one way: [`contract`] is what every format implements and
//! the types it speaks in (the formats import it, and nothing else from here); [`any`] is
//! the dispatch above the formats (it imports them; they never import it).
//!
//! ```
//! use meshcodec::{open, MeshFile, Limits};
//!
//! let limits = Limits::default();
//! for path in [
//!     "roundtrip-fixtures/filemesh/v5.00-facs.mesh",
//!     "roundtrip-fixtures/csgphs/csgphs7.bin",
//!     "roundtrip-fixtures/unigine/ms12-morph.mesh",
//!     "roundtrip-fixtures/stf/quad-new-style.stf",
//! ] {
//!     let bytes = std::fs::read(path)?;
//!     let file = open(&bytes)?;
//!     assert_eq!(file.write()?, bytes); // byte-exact
//!     file.check(&limits)?; // every payload decodes
//!     let info = file.summary(&limits)?;
//!     println!("{} {}: {} vertices", file.format().name(), file.version_name(), info.json["vertices"]);
//!     let scene = file.to_scene(&Default::default(), &limits)?;
//!     assert!(!scene.meshes.is_empty());
//! }
//!
//! // Convert through the same interface: the report says what the target cannot hold.
//! let file = open(&std::fs::read("roundtrip-fixtures/filemesh/v5.00-facs.mesh")?)?;
//! let target = file.target("4.01")?;
//! let out = file.convert(&target, &Default::default(), &limits)?;
//! assert_eq!(out.losses.len(), 1); // FACS
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod any;
pub mod contract;

pub use any::{
    convert_prepared, convert_to, detect, import, import_scene, open, open_reader,
    open_reader_with, open_with_limits, scene_summary, AnyFile,
};
pub use contract::{
    ConvertOptions, Converted, CoreMesh, ExportOptions, ExtraFile, Format, MeshFile, Prepared,
    Summary, Target, CSGMDL_VERSIONS, CSGPHS_VERSIONS,
};
