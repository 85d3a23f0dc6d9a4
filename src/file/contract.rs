//! The contract every format implements: the [`MeshFile`] trait and the types it speaks
//! in ([`Format`], [`Target`], [`ConvertOptions`], [`ExportOptions`], [`Converted`],
//! [`Prepared`], [`Summary`]).
//!
//! This is the one thing the formats import from the front door. The dispatch above the
//! formats (detecting a format, opening a file of any format, converting across formats:
//! [`super::any`]) imports the formats; no format imports it.

use std::fmt;

use crate::error::{Error, ErrorKind, Limits, Result};
use crate::filemesh::raw::Version;
use crate::loss::Loss;
use crate::scene::Scene;
use crate::unigine::raw::MeshVersion;

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

/// FileMesh 7.00: how a conversion writes the core mesh ([`ConvertOptions::core_mesh`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CoreMesh {
    /// The source's Draco bitstream or v1/v2 choice where it still applies; otherwise
    /// Draco when it holds every value exactly and is smaller, else COREMESH v1. Never
    /// loses a value.
    #[default]
    Auto,
    /// Always Draco (COREMESH v2), as Roblox's upload pipeline writes: normals are
    /// quantized to 11 bits (a reported loss when they change).
    Draco,
    /// Always COREMESH v1 (uncompressed).
    Uncompressed,
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

/// The CSGMDL versions meshcodec reads and writes.
pub use crate::csg::mdl::raw::CSGMDL_VERSIONS;
/// The CSGPHS versions meshcodec writes.
pub use crate::csg::phs::model::CSGPHS_VERSIONS;

impl Target {
    /// Checks the spelling of a `--to` value: a version of some format meshcodec
    /// writes. Which format it must be is decided by the input ([`MeshFile::target`]).
    pub fn check_spelling(s: &str) -> std::result::Result<(), String> {
        if let Some(t) = Target::qualified(s) {
            return t.map(drop).map_err(|e| e.to_string());
        }
        let csg = s
            .parse::<u32>()
            .is_ok_and(|v| CSGPHS_VERSIONS.contains(&v) || CSGMDL_VERSIONS.contains(&v));
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
                Ok(v) if CSGMDL_VERSIONS.contains(&v) => Ok(Target::Csgmdl(v)),
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

/// Refuses export options that pick a level of detail: only FileMesh and CSGMDL have
/// several.
pub(crate) fn one_level(options: &ExportOptions) -> Result<()> {
    if options.lod != 0 {
        return Err(usage(
            "--lod applies to FileMesh and CSGMDL union graphics only".to_string(),
        ));
    }
    Ok(())
}

/// Options of [`MeshFile::convert`] and [`crate::import`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ConvertOptions {
    /// FileMesh 7.00: how to write the core mesh.
    pub core_mesh: CoreMesh,
}

/// Options of [`MeshFile::to_scene`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExportOptions {
    /// FileMesh and CSGMDL (whose index ranges are its levels): the level of detail (0,
    /// the default, is full detail). Other formats have one and refuse any other value.
    pub lod: usize,
    /// FileMesh and CSGMDL: every level of detail, one mesh each (`lod` is then
    /// ignored). Other formats have one level and ignore it.
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

/// A conversion done, its file not yet written ([`MeshFile::into_prepared`]): what the target
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
    /// Files to write beside the output ([`Prepared::take_beside`]).
    beside: Vec<ExtraFile>,
    /// The lines of [`Prepared::losses`] that say the files beside are not written.
    unwritten: Vec<Loss>,
}

/// What a [`Prepared`] writes.
enum PreparedBody {
    /// The file's bytes.
    Bytes(Vec<u8>),
    /// A file (or a model) written when asked.
    Later(Box<dyn WriteLater>),
}

/// A converted file not yet written: a format's file written as it is, or a model
/// printed when asked (FileMesh text).
pub(crate) trait WriteLater: Send + Sync {
    /// Writes the file into `out`.
    fn write_later(&self, out: &mut dyn std::io::Write) -> Result<()>;
    /// What it is, for `Debug` (`filemesh 4.01`).
    fn describe(&self) -> String;
}

impl<T: MeshFile + Send + Sync> WriteLater for T {
    fn write_later(&self, out: &mut dyn std::io::Write) -> Result<()> {
        self.write_to(out)
    }
    fn describe(&self) -> String {
        format!("{} {}", self.format().name(), self.version_name())
    }
}

impl Prepared {
    /// A conversion whose file is already written as bytes.
    pub(crate) fn bytes(c: Converted) -> Prepared {
        Prepared {
            losses: c.losses,
            summary: c.summary,
            body: PreparedBody::Bytes(c.bytes),
            beside: Vec::new(),
            unwritten: Vec::new(),
        }
    }

    /// A conversion whose file (or model) is written when asked
    /// ([`Prepared::write_to`]).
    pub(crate) fn later(body: Box<dyn WriteLater>, losses: Vec<Loss>, summary: String) -> Prepared {
        Prepared {
            losses,
            summary,
            body: PreparedBody::Later(body),
            beside: Vec::new(),
            unwritten: Vec::new(),
        }
    }

    /// Adds files to write beside the output (none: nothing changes), and the line that
    /// says they are not written: it stays in [`Prepared::losses`] until they are taken
    /// ([`Prepared::take_beside`]), so a caller that writes the output only is told.
    pub(crate) fn with_beside(
        mut self,
        files: Vec<ExtraFile>,
        unwritten: Option<Loss>,
    ) -> Prepared {
        if files.is_empty() {
            return self;
        }
        self.beside.extend(files);
        if let Some(l) = unwritten {
            if !self.losses.contains(&l) {
                self.losses.push(l.clone());
            }
            self.unwritten.push(l);
        }
        self
    }

    /// The files to write beside the output (a UNIGINE ms13 or ms14 target's `.anim`
    /// files, one per animation the source embeds or the scene holds), taken: the
    /// caller writes them, so the lines of [`Prepared::losses`] that said they were not
    /// written leave it. Empty for every other conversion.
    pub fn take_beside(&mut self) -> Vec<ExtraFile> {
        let unwritten = std::mem::take(&mut self.unwritten);
        self.losses.retain(|l| !unwritten.contains(l));
        std::mem::take(&mut self.beside)
    }

    /// Writes the converted file into `out` (in pieces, where its format writes so: FileMesh, text included, UNIGINE, STF).
    pub fn write_to(&self, out: &mut dyn std::io::Write) -> Result<()> {
        match &self.body {
            PreparedBody::Bytes(b) => out
                .write_all(b)
                .map_err(|e| Error::new("output", ErrorKind::Io(e))),
            PreparedBody::Later(f) => f.write_later(out),
        }
    }

    /// The converted file as bytes, with the report.
    pub fn into_converted(self) -> Result<Converted> {
        let bytes = match self.body {
            PreparedBody::Bytes(b) => b,
            PreparedBody::Later(f) => {
                let mut out = Vec::new();
                f.write_later(&mut out)?;
                out
            }
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
            PreparedBody::Later(f) => f.describe(),
        };
        f.debug_struct("Prepared")
            .field("losses", &self.losses)
            .field("summary", &self.summary)
            .field("body", &body)
            .field("beside", &self.beside.len())
            .finish()
    }
}

/// A file that an import or conversion writes beside its output: a UNIGINE `.anim` file
/// per animation of a scene imported as ms13 or ms14, or embedded in an ms10–ms12 mesh
/// converted to ms13 or ms14.
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

/// What every supported format offers. Implemented by each format's raw file type, and
/// by [`AnyFile`](crate::AnyFile) for a file of any format.
pub trait MeshFile {
    /// The format.
    fn format(&self) -> Format;

    /// The version as `info` prints it and conversion messages name it (`5.00`,
    /// `CSGPHS 7`, `ms14`, `an10`, `0.0`).
    fn version_name(&self) -> String;

    /// The version as `info --json` gives it, the format's name left out (`5.00`, `7`
    /// for CSGPHS 7, `2` for CSGMDL 2, `ms14`); `None` for a format without versions
    /// (CSGK).
    fn version(&self) -> Option<String> {
        Some(self.version_name())
    }

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

    /// [`MeshFile::convert`] taking the file, with the target written only when asked
    /// ([`Prepared::write_to`]): the report can be read (and a lossy conversion refused)
    /// before a byte is written. A format whose file is large in memory gives its
    /// arrays away as it converts (FileMesh, UNIGINE, STF), so a conversion never holds
    /// the source, its model and the target at once; the default converts the borrowed
    /// file.
    fn into_prepared(
        self,
        target: &Target,
        options: &ConvertOptions,
        limits: &Limits,
    ) -> Result<Prepared>
    where
        Self: Sized,
    {
        self.convert(target, options, limits).map(Prepared::bytes)
    }

    /// The format-neutral scene for export (glTF, OBJ).
    fn to_scene(&self, options: &ExportOptions, limits: &Limits) -> Result<Scene>;

    /// [`MeshFile::to_scene`] taking the file: a format that can builds the scene from
    /// the file's own arrays, dropping each part once it is used, so an export never
    /// holds the file, its model and the scene at once. The default builds it from the
    /// borrowed file.
    fn into_scene(self, options: &ExportOptions, limits: &Limits) -> Result<Scene>
    where
        Self: Sized,
    {
        self.to_scene(options, limits)
    }

    /// [`MeshFile::into_scene`] and [`MeshFile::scene_losses`] from one decoding of the
    /// file (a FileMesh's Draco core mesh, an STF file's meshes are decoded once for both).
    fn into_scene_and_losses(
        self,
        options: &ExportOptions,
        limits: &Limits,
    ) -> Result<(Scene, Vec<Loss>)>
    where
        Self: Sized,
    {
        let losses = self.scene_losses(limits)?;
        Ok((self.into_scene(options, limits)?, losses))
    }

    /// What this file holds that its default scene ([`MeshFile::to_scene`]) does not
    /// carry, for a conversion to another format ([`crate::convert_to`]). The default names
    /// the format's own data as a whole, so that such a conversion is never called
    /// lossless without a format saying precisely what its scene keeps.
    fn scene_losses(&self, _limits: &Limits) -> Result<Vec<Loss>> {
        Ok(vec![Loss::new(
            crate::loss::LossKind::NotImported,
            format!(
                "{} data beyond the geometry, skin, morph targets and animations that the \
                 format-neutral scene carries",
                self.format().name()
            ),
        )])
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

/// Serialises a value as JSON for [`MeshFile::dump`].
pub(crate) fn to_json(value: &impl serde::Serialize) -> Result<serde_json::Value> {
    serde_json::to_value(value)
        .map_err(|e| Error::new("dump", ErrorKind::Inconsistent(e.to_string())))
}
