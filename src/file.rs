//! The front door: open any supported file from its bytes and use it through one
//! interface, whatever its format.
//!
//! [`open`] detects the format ([`detect`]) and parses the file into its raw, byte-exact
//! layer, giving an [`AnyFile`]. Every format's file type implements [`MeshFile`], and so
//! does `AnyFile`: write it back, summarise it, dump it, check that every payload decodes,
//! convert it to another version with a loss report, or turn it into the format-neutral
//! [`Scene`] for export. [`import`] goes the other way, from a scene to a file.
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

use std::fmt;

use crate::csg::phs::Csgphs;
use crate::error::{Error, ErrorKind, Limits, Result};
use crate::filemesh::model::convert::CoreMesh;
use crate::filemesh::{FileMesh, Version};
use crate::loss::Loss;
use crate::scene::Scene;
use crate::stf::StfContainer;
use crate::unigine::{MeshVersion, UnigineAnim, UnigineMesh};

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
    /// Roblox union graphics (`CSGMDL`, obfuscated).
    Csgmdl,
    /// Roblox union graphics reference (`CSGK`).
    Csgk,
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
            Format::Csgmdl => "csgmdl",
            Format::Csgk => "csgk",
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
    if crate::filemesh::raw::looks_like_filemesh(bytes) {
        Some(Format::FileMesh)
    } else if bytes.starts_with(b"CSGPHS") {
        Some(Format::Csgphs)
    } else if bytes.starts_with(b"STF0") {
        Some(Format::Stf)
    } else if crate::csg::mdl::raw::looks_like_csgmdl(bytes) {
        Some(Format::Csgmdl)
    } else if bytes.starts_with(b"CSGK") {
        Some(Format::Csgk)
    } else if magic4.is_some_and(|m| m.starts_with(b"ms")) && digit(2) && digit(3) {
        Some(Format::UnigineMesh)
    } else if magic4.is_some_and(|m| m.starts_with(b"an")) && digit(2) && digit(3) {
        Some(Format::UnigineAnim)
    } else {
        None
    }
}

/// A parsed file of any supported format: its raw, byte-exact layer.
// One per file: the size of the inline variants does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq)]
pub enum AnyFile {
    /// Roblox FileMesh 1.00 … 7.00.
    FileMesh(FileMesh),
    /// Roblox CSGPHS collision data.
    Csgphs(Csgphs),
    /// UNIGINE `.mesh`.
    UnigineMesh(UnigineMesh),
    /// UNIGINE `.anim`.
    UnigineAnim(UnigineAnim),
    /// STF container.
    Stf(StfContainer),
    /// Roblox union graphics.
    Csgmdl(crate::csg::mdl::CsgMdl),
    /// Roblox union graphics reference.
    Csgk(crate::csg::mdl::CsgK),
}

/// Opens a file of any supported format from its bytes, with the default [`Limits`].
pub fn open(bytes: &[u8]) -> Result<AnyFile> {
    open_with_limits(bytes, &Limits::default())
}

/// [`open`] with explicit limits.
///
/// Errors: [`ErrorKind::UnknownFormat`] (naming the first bytes) when no format
/// matches; the format's own read errors otherwise.
pub fn open_with_limits(bytes: &[u8], limits: &Limits) -> Result<AnyFile> {
    Ok(match detect(bytes) {
        Some(Format::FileMesh) => AnyFile::FileMesh(FileMesh::read_with_limits(bytes, limits)?),
        Some(Format::Csgphs) => AnyFile::Csgphs(Csgphs::read_with_limits(bytes, limits)?),
        Some(Format::UnigineMesh) => {
            AnyFile::UnigineMesh(UnigineMesh::read_with_limits(bytes, limits)?)
        }
        Some(Format::UnigineAnim) => {
            AnyFile::UnigineAnim(UnigineAnim::read_with_limits(bytes, limits)?)
        }
        Some(Format::Stf) => AnyFile::Stf(StfContainer::read_with_limits(bytes, limits)?),
        Some(Format::Csgmdl) => {
            AnyFile::Csgmdl(crate::csg::mdl::CsgMdl::read_with_limits(bytes, limits)?)
        }
        Some(Format::Csgk) => AnyFile::Csgk(crate::csg::mdl::CsgK::read(bytes)?),
        None => {
            let head: Vec<String> = bytes.iter().take(8).map(|b| format!("{b:02x}")).collect();
            return Err(Error::new(
                format!("first bytes {}", head.join(" ")),
                ErrorKind::UnknownFormat,
            ));
        }
    })
}

/// [`open_with_limits`] from a reader at its start (a file, say). A binary FileMesh, a
/// UNIGINE mesh or an STF file is read straight from it, its arrays into place, so opening a file takes
/// about its size in memory rather than twice; other formats are read whole first, within
/// `limits.max_input_bytes` (checked against the input's length before reading).
pub fn open_reader<R: std::io::Read + std::io::Seek>(
    mut reader: R,
    limits: &Limits,
) -> Result<AnyFile> {
    use std::io::{Read, SeekFrom};
    let io = |e: std::io::Error| Error::new("input", ErrorKind::Io(e));
    let len = crate::io::checked_len(&mut reader, limits)?;
    let mut head = Vec::with_capacity(64);
    (&mut reader).take(64).read_to_end(&mut head).map_err(io)?;
    // Formats read straight from the reader, their arrays into place.
    match detect(&head) {
        Some(Format::FileMesh) => {
            return FileMesh::read_from(reader, limits).map(AnyFile::FileMesh)
        }
        Some(Format::UnigineMesh) => {
            return UnigineMesh::read_from(reader, limits).map(AnyFile::UnigineMesh)
        }
        Some(Format::Stf) => return StfContainer::read_from(reader, limits).map(AnyFile::Stf),
        _ => {}
    }
    reader.seek(SeekFrom::Start(0)).map_err(io)?;
    let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0));
    reader.read_to_end(&mut bytes).map_err(io)?;
    open_with_limits(&bytes, limits)
}

/// [`open_reader`] filling the arrays of files read before (kept in `spare`) instead of
/// allocating new ones: for reading many files one after another.
pub fn open_reader_with<R: std::io::Read + std::io::Seek>(
    reader: R,
    limits: &Limits,
    spare: &mut crate::Spare,
) -> Result<AnyFile> {
    spare.lend(|| open_reader(reader, limits))
}

impl crate::Spare {
    /// Keeps the arrays of a file you are done with, for the next read to fill.
    pub fn keep(&mut self, file: AnyFile) {
        if let AnyFile::FileMesh(f) = file {
            f.recycle(self);
        }
    }
}

/// What `meshcodec info` shows of a file.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// The `info --json` object (keys per format; every format has `format`, `version`,
    /// `vertices` and `faces`).
    pub json: serde_json::Value,
    /// The same for people, one item a line.
    pub text: String,
    /// Parts of the file that do not decode: the summary gives what the stored counts
    /// say, and the CLI prints these on standard error and exits with status 1.
    pub problems: Vec<String>,
}

impl Summary {
    /// A summary from a serialisable info value and its text.
    pub(crate) fn new(info: &impl serde::Serialize, text: String) -> Result<Summary> {
        let json = serde_json::to_value(info)
            .map_err(|e| Error::new("info", ErrorKind::Inconsistent(e.to_string())))?;
        Ok(Summary {
            json,
            text,
            problems: Vec::new(),
        })
    }
}

/// A version to convert to (the CLI's `--to`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Target {
    /// A FileMesh version.
    FileMesh(Version),
    /// A CSGPHS version (0, 3, 5, 6, 7, 8).
    Csgphs(u32),
    /// A UNIGINE mesh version.
    UnigineMesh(MeshVersion),
    /// A CSGMDL version (2, 4, 5).
    Csgmdl(u32),
    /// An STF file (one version: `stf`, `stf:0`); written by import and conversion as a
    /// new document ([`crate::stf::from_scene`]), or, from STF, with its meshes written
    /// back from the model.
    Stf,
}

/// The CSGPHS versions meshcodec writes.
pub use crate::csg::phs::model::CSGPHS_VERSIONS;

impl Target {
    /// Checks the spelling of a `--to` value: a version of some format meshcodec
    /// writes. Which format it must be is decided by the input ([`MeshFile::target`]).
    pub fn check_spelling(s: &str) -> std::result::Result<(), String> {
        if let Some(t) = Target::qualified(s) {
            return t.map(drop).map_err(|e| e.to_string());
        }
        let csg = s.parse::<u32>().is_ok_and(|v| {
            CSGPHS_VERSIONS.contains(&v) || crate::csg::mdl::raw::CSGMDL_VERSIONS.contains(&v)
        });
        if csg || s.parse::<Version>().is_ok() || s.parse::<MeshVersion>().is_ok() {
            Ok(())
        } else {
            Err(format!(
                "unknown version {s:?} (FileMesh: 1.00, 1.01, 2.00, 3.00, 3.01, 4.00, 4.01, \
                 5.00, 6.00, 7.00; CSGPHS: 0, 3, 5, 6, 7, 8; CSGMDL: 2, 4, 5; UNIGINE mesh: \
                 ms10, ms11, ms12, ms13, ms14; STF: stf)"
            ))
        }
    }

    /// A target named with its format, `FORMAT:VERSION` (`filemesh:4.01`, `csgphs:7`,
    /// `unigine:ms13`, `stf:0`; STF, having one version, also bare: `stf`): `None` when
    /// `s` names no format.
    pub fn qualified(s: &str) -> Option<Result<Target>> {
        let (format, version) = s
            .split_once(':')
            .or_else(|| s.eq_ignore_ascii_case("stf").then_some((s, "0")))?;
        let bad = |what: &str| {
            usage(format!(
                "--to {s}: {what} (formats: filemesh:1.00 … filemesh:7.00, csgphs:0 … \
                 csgphs:8, csgmdl:2, csgmdl:4, csgmdl:5, unigine:ms10 … unigine:ms14, stf)"
            ))
        };
        Some(match format.to_ascii_lowercase().as_str() {
            "filemesh" => version
                .parse::<Version>()
                .map(Target::FileMesh)
                .map_err(|_| bad("not a FileMesh version")),
            "csgphs" => match version.parse::<u32>() {
                Ok(v) if CSGPHS_VERSIONS.contains(&v) => Ok(Target::Csgphs(v)),
                _ => Err(bad("not a CSGPHS version")),
            },
            "csgmdl" => match version.parse::<u32>() {
                Ok(v) if crate::csg::mdl::raw::CSGMDL_VERSIONS.contains(&v) => {
                    Ok(Target::Csgmdl(v))
                }
                _ => Err(bad("not a CSGMDL version")),
            },
            "unigine" | "unigine-mesh" => version
                .parse::<MeshVersion>()
                .map(Target::UnigineMesh)
                .map_err(|_| bad("not a UNIGINE mesh version")),
            "stf" => match version {
                "0" | "0.0" | "0.1" => Ok(Target::Stf),
                _ => Err(bad("STF has one version: stf (stf:0)")),
            },
            _ => Err(bad("unknown format")),
        })
    }

    /// The format a target writes.
    pub fn format(&self) -> Format {
        match self {
            Target::FileMesh(_) => Format::FileMesh,
            Target::Csgphs(_) => Format::Csgphs,
            Target::UnigineMesh(_) => Format::UnigineMesh,
            Target::Csgmdl(_) => Format::Csgmdl,
            Target::Stf => Format::Stf,
        }
    }

    /// The target of an import (`import --to`): a FileMesh version (`4.01`) or a CSGPHS
    /// version (`7`), bare or qualified (`filemesh:4.01`, `csgphs:7`), union graphics
    /// (`csgmdl:5`) or a UNIGINE mesh (`unigine:ms13`), qualified only, or STF (`stf`).
    pub fn for_import(s: &str) -> Result<Target> {
        if let Some(t) = Target::qualified(s) {
            return t;
        }
        if let Ok(v) = s.parse::<Version>() {
            return Ok(Target::FileMesh(v));
        }
        match s.trim().parse::<u32>() {
            Ok(v) if CSGPHS_VERSIONS.contains(&v) => Ok(Target::Csgphs(v)),
            _ => Err(usage(format!(
                "--to {s}: import writes a FileMesh (1.00 to 7.00), CSGPHS collision data \
                 (0, 3, 5, 6, 7, 8), union graphics (csgmdl:2, csgmdl:4, csgmdl:5), a \
                 UNIGINE mesh (unigine:ms10 to unigine:ms14) or STF (stf)"
            ))),
        }
    }
}

impl fmt::Display for Target {
    /// As the conversion messages name it: `4.01`, `CSGPHS 7`, `ms13`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Target::FileMesh(v) => write!(f, "{v}"),
            Target::Csgphs(v) => write!(f, "CSGPHS {v}"),
            Target::UnigineMesh(v) => write!(f, "{v}"),
            Target::Csgmdl(v) => write!(f, "CSGMDL {v}"),
            Target::Stf => f.write_str("STF"),
        }
    }
}

/// An error about what was asked rather than what the file holds.
pub(crate) fn usage(msg: String) -> Error {
    Error::new("", ErrorKind::Invalid(msg))
}

/// Refuses export options that pick a level of detail: only FileMesh has several.
pub(crate) fn one_level(options: &ExportOptions) -> Result<()> {
    if options.lod != 0 {
        return Err(usage("--lod applies to FileMesh only".to_string()));
    }
    Ok(())
}

/// Options of [`MeshFile::convert`] and [`import`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConvertOptions {
    /// FileMesh 7.00: how to write the core mesh.
    pub core_mesh: CoreMesh,
}

/// Options of [`MeshFile::to_scene`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExportOptions {
    /// FileMesh: the level of detail (0, the default, is full detail). Other formats
    /// have one and refuse any other value.
    pub lod: usize,
    /// FileMesh: every level of detail, one mesh each (`lod` is then ignored). Other
    /// formats have one level and ignore it.
    pub all_lods: bool,
    /// The name of the exported mesh (the file name, without its extension).
    pub name: String,
    /// Keep the numbers in the source's axes (UNIGINE: +Z up) instead of turning them to
    /// glTF's +Y up ([`Scene::to_y_up`]); the scene's [`Scene::up`] says which they are.
    pub keep_axes: bool,
}

/// A converted file, and what the conversion lost.
#[derive(Clone, Debug, PartialEq)]
pub struct Converted {
    /// The file written as the target.
    pub bytes: Vec<u8>,
    /// What the target changed or dropped (empty: nothing; see [`crate::loss`]).
    pub losses: Vec<Loss>,
    /// One line on what was written (`FileMesh 4.01, 9 vertices, 6 faces`).
    pub summary: String,
}

/// A conversion done, its file not yet written ([`convert_prepared`]): what the target
/// loses is known before a byte is written, and a target that would be large in memory
/// is written straight into the output ([`Prepared::write_to`]): a FileMesh streams its
/// arrays, and a text (1.00/1.01) target, about six times its binary size, is printed
/// from the model in pieces and never held whole.
pub struct Prepared {
    /// What the target changed or dropped (empty: nothing; see [`crate::loss`]).
    pub losses: Vec<Loss>,
    /// One line on what is written (`FileMesh 4.01, 9 vertices, 6 faces`).
    pub summary: String,
    body: PreparedBody,
}

/// What a [`Prepared`] writes.
enum PreparedBody {
    /// The file's bytes.
    Bytes(Vec<u8>),
    /// The text file of this model (the version is 1.00 or 1.01).
    Text(
        Box<crate::filemesh::model::Mesh>,
        crate::filemesh::raw::Version,
    ),
    /// A file of any format, written as it is.
    File(Box<AnyFile>),
}

impl Prepared {
    /// A conversion whose file is already written as bytes.
    pub(crate) fn bytes(c: Converted) -> Prepared {
        Prepared {
            losses: c.losses,
            summary: c.summary,
            body: PreparedBody::Bytes(c.bytes),
        }
    }

    /// A conversion into `file`, written when asked ([`MeshFile::write_to`]).
    pub(crate) fn file(file: AnyFile, losses: Vec<Loss>, summary: String) -> Prepared {
        Prepared {
            losses,
            summary,
            body: PreparedBody::File(Box::new(file)),
        }
    }

    /// A conversion into text version `v` of `mesh`, printed when asked.
    pub(crate) fn text(
        mesh: crate::filemesh::model::Mesh,
        v: crate::filemesh::raw::Version,
        losses: Vec<Loss>,
        summary: String,
    ) -> Prepared {
        Prepared {
            losses,
            summary,
            body: PreparedBody::Text(Box::new(mesh), v),
        }
    }

    /// Writes the converted file into `out` (in pieces, where its format writes so: FileMesh, text included, UNIGINE, STF).
    pub fn write_to(&self, out: &mut dyn std::io::Write) -> Result<()> {
        match &self.body {
            PreparedBody::Bytes(b) => out
                .write_all(b)
                .map_err(|e| Error::new("output", ErrorKind::Io(e))),
            PreparedBody::Text(mesh, v) => mesh.write_text_to(*v, out),
            PreparedBody::File(f) => f.write_to(out),
        }
    }

    /// The converted file as bytes, with the report ([`convert_into`]).
    pub fn into_converted(self) -> Result<Converted> {
        let bytes = match self.body {
            PreparedBody::Bytes(b) => b,
            PreparedBody::Text(mesh, v) => {
                let mut out = Vec::new();
                mesh.write_text_to(v, &mut out)?;
                out
            }
            PreparedBody::File(f) => f.write()?,
        };
        Ok(Converted {
            bytes,
            losses: self.losses,
            summary: self.summary,
        })
    }
}

impl std::fmt::Debug for Prepared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let body = match &self.body {
            PreparedBody::Bytes(b) => format!("{} bytes", b.len()),
            PreparedBody::Text(_, v) => format!("FileMesh {v} (text, printed when written)"),
            PreparedBody::File(file) => format!("{} {}", file.format().name(), file.version_name()),
        };
        f.debug_struct("Prepared")
            .field("losses", &self.losses)
            .field("summary", &self.summary)
            .field("body", &body)
            .finish()
    }
}

/// What every supported format offers. Implemented by each format's raw file type, and
/// by [`AnyFile`] for a file of any format.
pub trait MeshFile {
    /// The format.
    fn format(&self) -> Format;

    /// The version as `info` prints it and conversion messages name it (`5.00`,
    /// `CSGPHS 7`, `ms14`, `an10`, `0.0`).
    fn version_name(&self) -> String;

    /// Writes the file: byte-identical to what was read for an unmodified file.
    fn write(&self) -> Result<Vec<u8>>;

    /// [`MeshFile::write`] into `out`; formats that can stream their arrays do so
    /// without building the whole file in memory (FileMesh, UNIGINE, STF).
    fn write_to(&self, out: &mut dyn std::io::Write) -> Result<()> {
        out.write_all(&self.write()?)
            .map_err(|e| Error::new("output", ErrorKind::Io(e)))
    }

    /// The summary `meshcodec info` prints (decodes payloads within `limits`).
    fn summary(&self, limits: &Limits) -> Result<Summary>;

    /// The raw structure as JSON (`meshcodec dump`), with decoded payloads where the
    /// file keeps them compressed.
    fn dump(&self, limits: &Limits) -> Result<serde_json::Value>;

    /// Decodes everything the file holds (Draco bitstreams, zstd frames, LZ4 blocks,
    /// Edgebreaker hulls, STF meshes): an error names the first part that does not.
    fn check(&self, limits: &Limits) -> Result<()>;

    /// Reads a `--to` value as a version of this file's format; the error says which
    /// versions there are.
    fn target(&self, to: &str) -> Result<Target>;

    /// Converts to `target`: the same version writes the file back unchanged; another
    /// goes through the format's model, with the report of what the target loses.
    fn convert(
        &self,
        target: &Target,
        options: &ConvertOptions,
        limits: &Limits,
    ) -> Result<Converted>;

    /// The format-neutral scene for export (glTF, OBJ).
    fn to_scene(&self, options: &ExportOptions, limits: &Limits) -> Result<Scene>;

    /// What this file holds that its default scene ([`MeshFile::to_scene`]) does not
    /// carry, for a conversion to another format ([`convert_to`]). The default names
    /// the format's own data as a whole, so that such a conversion is never called
    /// lossless without a format saying precisely what its scene keeps.
    fn scene_losses(&self, _limits: &Limits) -> Result<Vec<Loss>> {
        Ok(vec![Loss {
            kind: crate::loss::LossKind::NotImported,
            detail: format!(
                "{} data beyond the geometry, skin, morph targets and animations that the \
                 format-neutral scene carries",
                self.format().name()
            ),
        }])
    }
}

impl AnyFile {
    /// The file as its format's [`MeshFile`].
    pub fn as_mesh_file(&self) -> &dyn MeshFile {
        match self {
            AnyFile::FileMesh(f) => f,
            AnyFile::Csgphs(f) => f,
            AnyFile::UnigineMesh(f) => f,
            AnyFile::UnigineAnim(f) => f,
            AnyFile::Stf(f) => f,
            AnyFile::Csgmdl(f) => f,
            AnyFile::Csgk(f) => f,
        }
    }
}

impl MeshFile for AnyFile {
    fn format(&self) -> Format {
        self.as_mesh_file().format()
    }
    fn version_name(&self) -> String {
        self.as_mesh_file().version_name()
    }
    fn write(&self) -> Result<Vec<u8>> {
        self.as_mesh_file().write()
    }
    fn write_to(&self, out: &mut dyn std::io::Write) -> Result<()> {
        self.as_mesh_file().write_to(out)
    }
    fn summary(&self, limits: &Limits) -> Result<Summary> {
        self.as_mesh_file().summary(limits)
    }
    fn dump(&self, limits: &Limits) -> Result<serde_json::Value> {
        self.as_mesh_file().dump(limits)
    }
    fn check(&self, limits: &Limits) -> Result<()> {
        self.as_mesh_file().check(limits)
    }
    fn target(&self, to: &str) -> Result<Target> {
        self.as_mesh_file().target(to)
    }
    fn convert(
        &self,
        target: &Target,
        options: &ConvertOptions,
        limits: &Limits,
    ) -> Result<Converted> {
        self.as_mesh_file().convert(target, options, limits)
    }
    fn to_scene(&self, options: &ExportOptions, limits: &Limits) -> Result<Scene> {
        self.as_mesh_file().to_scene(options, limits)
    }
    fn scene_losses(&self, limits: &Limits) -> Result<Vec<Loss>> {
        self.as_mesh_file().scene_losses(limits)
    }
}

/// Writes a scene as `target` (`meshcodec import`): a FileMesh from every primitive,
/// CSGPHS collision hulls, one per primitive, union graphics, a UNIGINE mesh or a new
/// STF file, one `stf.mesh` per mesh; with the report of what the target loses.
///
/// A UNIGINE ms13 or ms14 mesh keeps its animations in `.anim` files beside it, which
/// this function does not return: it names them as a loss. [`import_with_files`]
/// returns them.
pub fn import(scene: &Scene, target: &Target, options: &ConvertOptions) -> Result<Converted> {
    let (mut converted, extra) = import_with_files(scene, target, options)?;
    converted
        .losses
        .extend(unwritten_animations(&extra, target));
    Ok(converted)
}

/// A file that an import writes beside its output: a UNIGINE `.anim` file per animation
/// of a scene imported as ms13 or ms14.
#[derive(Clone, Debug, PartialEq)]
pub struct ExtraFile {
    /// What follows the output's path without its extension: `.anim` for a scene's only
    /// animation, `_NAME.anim` for each of several (the name with every character but
    /// ASCII letters, digits, `-` and `_` made `_`; `animation_K` for an empty one; `_K`
    /// added where two would be the same).
    pub suffix: String,
    /// What it holds, for messages (`animation "Walk"`).
    pub what: String,
    /// The file.
    pub bytes: Vec<u8>,
}

/// [`import`], also returning the files written beside the output ([`ExtraFile`]): the
/// `.anim` files of a UNIGINE ms13 or ms14 import.
pub fn import_with_files(
    scene: &Scene,
    target: &Target,
    options: &ConvertOptions,
) -> Result<(Converted, Vec<ExtraFile>)> {
    let original = scene;
    // Coarser levels of detail go only where the target has a place for them.
    let keeps_lods = matches!(target, Target::FileMesh(v) if v.has_lods());
    let lod0_only;
    let scene = if !keeps_lods && scene.meshes.iter().any(|m| m.lod > 0) {
        lod0_only = Scene {
            meshes: scene
                .meshes
                .iter()
                .filter(|m| m.lod == 0)
                .cloned()
                .collect(),
            ..scene.clone()
        };
        &lod0_only
    } else {
        scene
    };
    let (mut converted, extra) = match *target {
        Target::FileMesh(v) => (
            crate::filemesh::file::import(scene, v, options)?,
            Vec::new(),
        ),
        Target::Csgphs(v) => (crate::csg::phs::file::import(scene, v)?, Vec::new()),
        Target::Csgmdl(v) => (crate::csg::mdl::file::import(scene, v)?, Vec::new()),
        Target::Stf => (crate::stf::file::import(scene)?, Vec::new()),
        Target::UnigineMesh(v) => crate::unigine::file::import(scene, v)?,
    };
    // What the scene holds that the target does not carry comes first in the report:
    // nothing is dropped in silence.
    let mut losses = scene_losses(scene, target);
    let coarse: Vec<&str> = original
        .meshes
        .iter()
        .filter(|m| m.lod > 0 && !keeps_lods)
        .map(|m| m.name.as_str())
        .collect();
    losses.splice(0..0, coarse_loss(&coarse, target));
    losses.append(&mut converted.losses);
    converted.losses = losses;
    Ok((converted, extra))
}

/// The loss of the coarser levels of detail named, if any, for a target without LODs.
fn coarse_loss(coarse: &[&str], target: &Target) -> Option<Loss> {
    (!coarse.is_empty()).then(|| Loss {
        kind: crate::loss::LossKind::NotImported,
        detail: format!(
            "{} coarser levels of detail ({}): {target} has no LODs",
            coarse.len(),
            coarse.join(", ")
        ),
    })
}

/// [`import`] into FileMesh, STF or UNIGINE taking the scene, with the same result: the
/// scene is not copied (UNIGINE turns it in place), STF writes each buffer straight from
/// the scene's arrays, dropping each array once written, and a FileMesh drops the scene
/// once its model is built (the model converted as [`crate::filemesh::file::convert_owned`]
/// does), so the scene and the file are not held whole together.
fn import_owned(mut scene: Scene, target: &Target, options: &ConvertOptions) -> Result<Prepared> {
    let keeps_lods = matches!(target, Target::FileMesh(v) if v.has_lods());
    let coarse: Vec<String> = scene
        .meshes
        .iter()
        .filter(|m| m.lod > 0 && !keeps_lods)
        .map(|m| m.name.clone())
        .collect();
    if !keeps_lods {
        scene.meshes.retain(|m| m.lod == 0);
    }
    let mut losses = scene_losses(&scene, target);
    let names: Vec<&str> = coarse.iter().map(String::as_str).collect();
    losses.splice(0..0, coarse_loss(&names, target));
    let mut converted = match *target {
        Target::UnigineMesh(v) => {
            let (mut c, extra) = crate::unigine::file::import_owned(scene, v)?;
            if let Some(l) = unwritten_animations(&extra, target) {
                c.losses.push(l);
            }
            Prepared::bytes(c)
        }
        Target::FileMesh(v) => {
            let mesh = crate::filemesh::scene::from_scene(&scene)?;
            drop(scene);
            crate::filemesh::file::convert_owned(
                mesh,
                v,
                options,
                crate::filemesh::model::convert::AsRead::Unknown,
                None,
            )?
        }
        _ => Prepared::bytes(crate::stf::file::import_owned(scene)?),
    };
    losses.append(&mut converted.losses);
    converted.losses = losses;
    Ok(converted)
}

/// The loss of the `.anim` files an import writes beside its output, for a conversion,
/// which writes only the one file.
fn unwritten_animations(extra: &[ExtraFile], target: &Target) -> Option<Loss> {
    (!extra.is_empty()).then(|| Loss {
        kind: crate::loss::LossKind::UnigineAnimations,
        detail: format!(
            "{} animation(s): {target} keeps them in .anim files beside the mesh, which \
             are not written here",
            extra.len()
        ),
    })
}

/// What writing `scene` as `target` leaves behind before the target's own conversion:
/// what the scene's reader or adapter already left out or replaced (its notes), and
/// what the scene holds that import does not carry into the target's model.
fn scene_losses(scene: &Scene, target: &Target) -> Vec<Loss> {
    use crate::loss::LossKind;
    let mut losses: Vec<Loss> = scene
        .notes
        .iter()
        .map(|n| Loss {
            kind: match n.kind {
                crate::scene::NoteKind::NonFinite | crate::scene::NoteKind::ZeroNormals => {
                    LossKind::NonFinite
                }
                _ => LossKind::NotImported,
            },
            detail: n.detail.clone(),
        })
        .collect();
    let mut lose = |kind: LossKind, count: usize, detail: String| {
        if count > 0 {
            losses.push(Loss { kind, detail });
        }
    };
    let prims: Vec<&crate::scene::Primitive> =
        scene.meshes.iter().flat_map(|m| &m.primitives).collect();
    // A UNIGINE mesh carries skeletons, morph targets and animations itself (what it
    // does not carry of them, its import names).
    let carries_rigs = matches!(target, Target::UnigineMesh(_));
    let carries_skins = matches!(target, Target::FileMesh(v) if v.has_skinning());
    if let (true, Some(s)) = (carries_skins, &scene.skeleton) {
        // FileMesh bones hold a position and a rotation: a scale in the bind pose is lost.
        let local: Vec<_> = s
            .joints
            .iter()
            .map(crate::scene::skin::local_matrix)
            .collect();
        let parents: Vec<_> = s.joints.iter().map(|j| j.parent).collect();
        let scaled = crate::scene::skin::world_matrices(&local, &parents)
            .iter()
            .filter(|w| {
                let (_, _, scale) = crate::scene::skin::decompose(w);
                scale.iter().any(|x| (x - 1.0).abs() > 1e-4)
            })
            .count();
        lose(
            LossKind::Skeleton,
            scaled,
            format!(
                "the bind-pose scale of {scaled} joints: FileMesh bones hold a position and \
                 a rotation"
            ),
        );
    } else if let Some(s) = scene.skeleton.as_ref().filter(|_| !carries_rigs) {
        let skinned = prims.iter().filter(|p| p.joints.is_some()).count();
        lose(
            LossKind::Skeleton,
            s.joints.len().max(skinned),
            format!(
                "the skeleton ({} joints) and the skins of {skinned} primitives are not \
                 carried by import into {target}",
                s.joints.len()
            ),
        );
    }
    let morphs: usize = prims.iter().map(|p| p.morph_targets.len()).sum();
    // STF keeps morph targets (as blendshapes).
    let morphs = if *target == Target::Stf { 0 } else { morphs };
    lose(
        LossKind::NotImported,
        if carries_rigs { 0 } else { morphs },
        format!("{morphs} morph targets are not carried into {target}"),
    );
    let animations = if carries_rigs {
        0
    } else {
        scene.animations.len()
    };
    lose(
        LossKind::NotImported,
        animations,
        format!("{animations} animations are not carried into {target}"),
    );
    if matches!(target, Target::FileMesh(_) | Target::Csgmdl(_)) {
        let extra = prims.iter().filter(|p| !p.extra_uvs.is_empty()).count();
        lose(
            LossKind::NotImported,
            extra,
            format!("the further UV sets of {extra} primitives: {target} holds one UV set"),
        );
    }
    match target {
        Target::Csgphs(_) => {
            for (what, n) in [
                (
                    "normals",
                    prims.iter().filter(|p| p.normals.is_some()).count(),
                ),
                ("UVs", prims.iter().filter(|p| p.uvs.is_some()).count()),
                (
                    "colours",
                    prims.iter().filter(|p| p.colors.is_some()).count(),
                ),
            ] {
                lose(
                    LossKind::NotImported,
                    n,
                    format!("the {what} of {n} primitives: CSGPHS stores hull positions only"),
                );
            }
        }
        Target::FileMesh(_) => {
            // FileMesh colours are bytes: a colour off the 1/255 grid is rounded.
            let off_grid = prims
                .iter()
                .flat_map(|p| p.colors.iter().flatten().flatten())
                .filter(|&&c| {
                    let q = (c.clamp(0.0, 1.0) * 255.0).round() / 255.0;
                    q != c
                })
                .count();
            lose(
                LossKind::Colors,
                off_grid,
                format!("{off_grid} colour components rounded to FileMesh's 8-bit steps"),
            );
        }
        Target::Csgmdl(_) => {
            let prims_n = prims.len();
            lose(
                LossKind::NotImported,
                prims_n,
                "the NormalId of each vertex (the part face it came from) is derived from its \
                 normal's direction, a stand-in; tangents are written as zero"
                    .into(),
            );
        }
        // Coarser levels of detail are left out (and named) by `import` for every
        // target without LODs.
        Target::Stf | Target::UnigineMesh(_) => {}
    }
    losses
}

/// Converts `file` to `to`: a version of its own format (`4.01`, or qualified,
/// `filemesh:4.01`), through [`MeshFile::convert`]; or a version of another format
/// (`csgphs:7`), through the format-neutral scene ([`MeshFile::to_scene`] with default
/// options, then [`import`]), whose loss report also names what the scene leaves
/// behind.
pub fn convert_to(
    file: &dyn MeshFile,
    to: &str,
    options: &ConvertOptions,
    limits: &Limits,
) -> Result<Converted> {
    match Target::qualified(to).transpose()? {
        Some(t) if t.format() != file.format() => {
            let scene = file.to_scene(&ExportOptions::default(), limits)?;
            let mut c = import(&scene, &t, options)?;
            let mut losses = file.scene_losses(limits)?;
            losses.append(&mut c.losses);
            c.losses = losses;
            Ok(c)
        }
        Some(t) => file.convert(&t, options, limits),
        None => file.convert(&file.target(to)?, options, limits),
    }
}

/// [`convert_to`] taking the file: a FileMesh converted to another FileMesh version is
/// dropped once its model is built, so the conversion never holds the source file, its
/// model, the target and its read-back model at once.
pub fn convert_into(
    file: AnyFile,
    to: &str,
    options: &ConvertOptions,
    limits: &Limits,
) -> Result<Converted> {
    convert_prepared(file, to, options, limits)?.into_converted()
}

/// [`convert_into`], with the target written only when asked ([`Prepared::write_to`]):
/// the report can be read (and a lossy conversion refused) before a byte is written,
/// and a FileMesh target (text included) is written into the output without being
/// built whole in memory.
pub fn convert_prepared(
    file: AnyFile,
    to: &str,
    options: &ConvertOptions,
    limits: &Limits,
) -> Result<Prepared> {
    let target = match Target::qualified(to).transpose()? {
        Some(t) => t,
        None => file.target(to)?,
    };
    match (file, target) {
        (AnyFile::FileMesh(f), Target::FileMesh(v)) if v != f.version => {
            use crate::filemesh::file::Bitstream;
            // Only a 7.00 target writes a stored Draco bitstream; the others' reports
            // need only its fingerprint.
            let bitstream = if v == crate::filemesh::Version::V7_00 {
                Bitstream::Keep
            } else {
                Bitstream::Fingerprint
            };
            let (mesh, dropped) =
                crate::filemesh::file::model_and_fingerprint(f, limits, bitstream)?;
            crate::filemesh::file::convert_owned(
                mesh,
                v,
                options,
                crate::filemesh::model::convert::AsRead::Decoded,
                dropped,
            )
        }
        // ms11–ms13 to ms14: the file written straight from the classic body taken
        // (`Ms14Mesh::write_classic`), never holding the mesh, its blocks and the file at
        // once.
        (AnyFile::UnigineMesh(m), Target::UnigineMesh(MeshVersion::Ms14))
            if !matches!(m.version, MeshVersion::Ms10 | MeshVersion::Ms14) =>
        {
            let losses = m.losses(MeshVersion::Ms14)?;
            let body = m.into_classic(limits)?;
            Ok(Prepared::bytes(Converted {
                bytes: crate::unigine::raw::ms14::Ms14Mesh::write_classic(body, None)?,
                losses,
                summary: format!("UNIGINE mesh {}", MeshVersion::Ms14),
            }))
        }
        // STF written back from its meshes, the container taken.
        (AnyFile::Stf(c), Target::Stf) => crate::stf::file::convert_owned(c),
        // Another format, as `convert_to` does it (the scene, and what it leaves behind),
        // from one decoding of the file, which is dropped before the import; into
        // FileMesh, STF or UNIGINE the scene is given away too.
        (file, t) if t.format() != file.format() => {
            let (scene, mut losses) =
                scene_and_losses_into(file, &ExportOptions::default(), limits)?;
            let mut c = if matches!(
                t,
                Target::FileMesh(_) | Target::Stf | Target::UnigineMesh(_)
            ) {
                import_owned(scene, &t, options)?
            } else {
                Prepared::bytes(import(&scene, &t, options)?)
            };
            losses.append(&mut c.losses);
            c.losses = losses;
            Ok(c)
        }
        (file, _) => convert_to(&file, to, options, limits).map(Prepared::bytes),
    }
}

/// [`MeshFile::to_scene`] taking the file: a FileMesh is dropped once its model is
/// built, and the model once the scene is, so an export never holds the file, its model
/// and the scene at once; an ms14 mesh's compressed blocks are dropped as they are
/// decoded, and the mesh once the scene is built; an STF container once its meshes are
/// decoded, and their arrays as the scene takes them.
pub fn to_scene_into(file: AnyFile, options: &ExportOptions, limits: &Limits) -> Result<Scene> {
    match file {
        AnyFile::FileMesh(f) => crate::filemesh::file::to_scene_owned(f, options, limits),
        AnyFile::UnigineMesh(m) => crate::unigine::file::to_scene_owned(m, options, limits),
        AnyFile::Stf(c) => crate::stf::file::scene_and_losses_owned(c, options).map(|(s, _)| s),
        file => file.to_scene(options, limits),
    }
}

/// [`MeshFile::scene_losses`] and [`to_scene_into`] of a file the caller gives away: a
/// FileMesh's model (its Draco core mesh decoded once) and an STF file's meshes are
/// decoded once for both.
fn scene_and_losses_into(
    file: AnyFile,
    options: &ExportOptions,
    limits: &Limits,
) -> Result<(Scene, Vec<Loss>)> {
    match file {
        AnyFile::FileMesh(f) => crate::filemesh::file::scene_and_losses_owned(f, options, limits),
        AnyFile::Stf(c) => crate::stf::file::scene_and_losses_owned(c, options),
        file => {
            let losses = file.scene_losses(limits)?;
            Ok((to_scene_into(file, options, limits)?, losses))
        }
    }
}

/// Serialises a value as JSON for [`MeshFile::dump`].
pub(crate) fn to_json(value: &impl serde::Serialize) -> Result<serde_json::Value> {
    serde_json::to_value(value)
        .map_err(|e| Error::new("dump", ErrorKind::Inconsistent(e.to_string())))
}

/// The one-line summary of a scene's content (what export and import print).
pub fn scene_summary(scene: &Scene) -> String {
    let prims = scene.meshes.iter().flat_map(|m| &m.primitives);
    let (p, v, t) = prims.fold((0, 0, 0), |(p, v, t), x| {
        (p + 1, v + x.positions.len(), t + x.triangles.len())
    });
    let joints = scene.skeleton.as_ref().map_or(0, |s| s.joints.len());
    format!(
        "{} mesh(es), {p} primitive(s), {v} vertices, {t} triangles, {joints} joint(s), {} \
         animation(s)",
        scene.meshes.len(),
        scene.animations.len()
    )
}

#[cfg(test)]
mod tests {
    use super::{convert_into, convert_to, open, ConvertOptions, Limits, MeshFile};
    use std::path::Path;

    /// A FileMesh converted to another format once given away is converted as
    /// [`convert_to`] converts it: the same bytes (STF aside, which names itself with a
    /// time stamp and fresh ids), losses, summary or error, for every fixture and corpus
    /// FileMesh and every other format.
    #[test]
    fn owned_cross_format_conversion_is_the_conversion() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut checked = 0;
        for dir in [
            "roundtrip-fixtures/filemesh",
            "roundtrip-fixtures/chunked",
            "roundtrip-fixtures/text",
        ]
        .map(|d| root.join(d))
        .into_iter()
        .chain([crate::test_corpus_roblox()])
        {
            for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let bytes = std::fs::read(e.path()).unwrap_or_default();
                let Ok(file) = open(&bytes) else {
                    continue;
                };
                if file.format() != super::Format::FileMesh {
                    continue;
                }
                for to in ["csgphs:7", "csgmdl:5", "unigine-mesh:ms14", "stf"] {
                    let (options, limits) = (ConvertOptions::default(), Limits::default());
                    let old = convert_to(&file, to, &options, &limits).map_err(|e| e.to_string());
                    let Ok(owned) = open(&bytes) else {
                        continue;
                    };
                    let new = convert_into(owned, to, &options, &limits).map_err(|e| e.to_string());
                    match (old, new) {
                        (Ok(a), Ok(b)) => {
                            assert_eq!(a.losses, b.losses, "{} {to}", e.path().display());
                            assert_eq!(a.summary, b.summary);
                            if to != "stf" {
                                assert!(a.bytes == b.bytes, "{} {to}", e.path().display());
                            }
                        }
                        (a, b) => assert_eq!(
                            a.map(|c| c.summary),
                            b.map(|c| c.summary),
                            "{} {to}",
                            e.path().display()
                        ),
                    }
                    checked += 1;
                }
            }
        }
        assert!(checked > 80, "{checked}");
    }
}
