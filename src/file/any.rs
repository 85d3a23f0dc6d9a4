//! The dispatch above the formats: [`detect`] a format from the first bytes, [`open`] a
//! file of any format as an [`AnyFile`], and convert across formats through the
//! format-neutral scene ([`convert_prepared`], [`import_scene`]). It imports the formats;
//! they import only [`super::contract`].

use super::contract::{
    ConvertOptions, Converted, ExportOptions, ExtraFile, Format, MeshFile, Prepared, Summary,
    Target,
};
use crate::csg::mdl::{CsgK, CsgMdl};
use crate::csg::phs::Csgphs;
use crate::error::{Error, ErrorKind, Limits, Result};
use crate::filemesh::FileMesh;
use crate::loss::Loss;
use crate::scene::carry::Carries;
use crate::scene::Scene;
use crate::stf::StfContainer;
use crate::unigine::{UnigineAnim, UnigineMesh};

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
    Csgmdl(CsgMdl),
    /// Roblox union graphics reference.
    Csgk(CsgK),
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
        Some(Format::Csgmdl) => AnyFile::Csgmdl(CsgMdl::read_with_limits(bytes, limits)?),
        Some(Format::Csgk) => AnyFile::Csgk(CsgK::read(bytes)?),
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
    fn version(&self) -> Option<String> {
        self.as_mesh_file().version()
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
    fn into_prepared(
        self,
        target: &Target,
        options: &ConvertOptions,
        limits: &Limits,
    ) -> Result<Prepared> {
        match self {
            AnyFile::FileMesh(f) => f.into_prepared(target, options, limits),
            AnyFile::Csgphs(f) => f.into_prepared(target, options, limits),
            AnyFile::UnigineMesh(f) => f.into_prepared(target, options, limits),
            AnyFile::UnigineAnim(f) => f.into_prepared(target, options, limits),
            AnyFile::Stf(f) => f.into_prepared(target, options, limits),
            AnyFile::Csgmdl(f) => f.into_prepared(target, options, limits),
            AnyFile::Csgk(f) => f.into_prepared(target, options, limits),
        }
    }
    fn to_scene(&self, options: &ExportOptions, limits: &Limits) -> Result<Scene> {
        self.as_mesh_file().to_scene(options, limits)
    }
    fn into_scene(self, options: &ExportOptions, limits: &Limits) -> Result<Scene> {
        match self {
            AnyFile::FileMesh(f) => f.into_scene(options, limits),
            AnyFile::Csgphs(f) => f.into_scene(options, limits),
            AnyFile::UnigineMesh(f) => f.into_scene(options, limits),
            AnyFile::UnigineAnim(f) => f.into_scene(options, limits),
            AnyFile::Stf(f) => f.into_scene(options, limits),
            AnyFile::Csgmdl(f) => f.into_scene(options, limits),
            AnyFile::Csgk(f) => f.into_scene(options, limits),
        }
    }
    fn into_scene_and_losses(
        self,
        options: &ExportOptions,
        limits: &Limits,
    ) -> Result<(Scene, Vec<Loss>)> {
        match self {
            AnyFile::FileMesh(f) => f.into_scene_and_losses(options, limits),
            AnyFile::Csgphs(f) => f.into_scene_and_losses(options, limits),
            AnyFile::UnigineMesh(f) => f.into_scene_and_losses(options, limits),
            AnyFile::UnigineAnim(f) => f.into_scene_and_losses(options, limits),
            AnyFile::Stf(f) => f.into_scene_and_losses(options, limits),
            AnyFile::Csgmdl(f) => f.into_scene_and_losses(options, limits),
            AnyFile::Csgk(f) => f.into_scene_and_losses(options, limits),
        }
    }
    fn scene_losses(&self, limits: &Limits) -> Result<Vec<Loss>> {
        self.as_mesh_file().scene_losses(limits)
    }
}

/// Writes a scene as `target` (`meshcodec import`): a FileMesh from every primitive,
/// CSGPHS collision hulls, one per primitive, union graphics, a UNIGINE mesh or a new
/// STF file, one `stf.mesh` per mesh; with the report of what the target loses.
///
/// The scene is borrowed, so it is copied first; [`import_scene`] takes it instead. A
/// UNIGINE ms13 or ms14 mesh keeps its animations in `.anim` files beside it, which this
/// function does not return: it names them as a loss. [`import_scene`] returns them.
pub fn import(scene: &Scene, target: &Target, options: &ConvertOptions) -> Result<Converted> {
    let (prepared, extra) = import_scene(scene.clone(), target, options)?;
    let mut converted = prepared.into_converted()?;
    converted
        .losses
        .extend(unwritten_animations(&extra, target));
    Ok(converted)
}

/// [`import`] taking the scene, with the target written only when asked
/// ([`Prepared::write_to`]) and the files written beside it ([`ExtraFile`]: the `.anim`
/// files of a UNIGINE ms13 or ms14 import).
///
/// The scene is not copied: UNIGINE turns it in place, STF writes each buffer straight
/// from the scene's arrays, dropping each array once written, and a FileMesh drops the
/// scene once its model is built, so the scene and the file are not held whole together.
pub fn import_scene(
    mut scene: Scene,
    target: &Target,
    options: &ConvertOptions,
) -> Result<(Prepared, Vec<ExtraFile>)> {
    // What the scene holds that the target does not carry comes first in the report:
    // nothing is dropped in silence. Coarser levels of detail go only where the target
    // has a place for them.
    let carries = carries(target);
    let mut losses = scene.uncarried(&carries, &target.to_string());
    // Only UNIGINE names its surfaces (after their materials).
    if target.format() != Format::UnigineMesh {
        losses.extend(scene.unnamed(carries.lods, &target.to_string()));
    }
    if !carries.lods {
        scene.meshes.retain(|m| m.lod == 0);
    }
    let (mut prepared, extra) = match *target {
        Target::FileMesh(v) => (
            crate::filemesh::file::import(scene, v, options)?,
            Vec::new(),
        ),
        Target::Csgphs(v) => (
            Prepared::bytes(crate::csg::phs::file::import(&scene, v)?),
            Vec::new(),
        ),
        Target::Csgmdl(v) => (
            Prepared::bytes(crate::csg::mdl::file::import(&scene, v)?),
            Vec::new(),
        ),
        Target::Stf => (
            Prepared::bytes(crate::stf::file::import(scene)?),
            Vec::new(),
        ),
        Target::UnigineMesh(v) => {
            let (c, extra) = crate::unigine::file::import(scene, v)?;
            (Prepared::bytes(c), extra)
        }
    };
    losses.append(&mut prepared.losses);
    prepared.losses = losses;
    Ok((prepared, extra))
}

/// The loss of the `.anim` files an import writes beside its output, for a conversion,
/// which writes only the one file.
fn unwritten_animations(extra: &[ExtraFile], target: &Target) -> Option<Loss> {
    (!extra.is_empty()).then(|| {
        Loss::new(
            crate::loss::LossKind::UnigineAnimations,
            format!(
                "{} animation(s): {target} keeps them in .anim files beside the mesh, which \
             are not written here",
                extra.len()
            ),
        )
    })
}

/// What `target`'s import keeps of a scene, as its format declares it.
fn carries(target: &Target) -> Carries {
    match *target {
        Target::FileMesh(v) => crate::filemesh::file::carries(v),
        Target::Csgphs(_) => crate::csg::phs::file::CARRIES,
        Target::Csgmdl(_) => crate::csg::mdl::file::CARRIES,
        Target::Stf => crate::stf::file::CARRIES,
        Target::UnigineMesh(_) => crate::unigine::file::CARRIES,
    }
}

/// Converts `file` to `to`: a version of its own format (`4.01`, or qualified,
/// `filemesh:4.01`), through [`MeshFile::convert`]; or a version of another format
/// (`csgphs:7`), through the format-neutral scene ([`MeshFile::to_scene`] with default
/// options, then [`import`]), whose loss report also names what the scene leaves
/// behind.
///
/// The file is borrowed, so it is copied first; [`convert_prepared`] takes it instead.
pub fn convert_to(
    file: &AnyFile,
    to: &str,
    options: &ConvertOptions,
    limits: &Limits,
) -> Result<Converted> {
    convert_prepared(file.clone(), to, options, limits)?.into_converted()
}

/// [`convert_to`] taking the file, with the target written only when asked
/// ([`Prepared::write_to`]): the report can be read (and a lossy conversion refused)
/// before a byte is written, and a large target (a FileMesh, text included) is written
/// into the output without being built whole in memory. The file is given away as it
/// is converted ([`MeshFile::into_prepared`], [`MeshFile::into_scene_and_losses`],
/// [`import_scene`]), so the source, its model and the target are never held at once.
///
/// A UNIGINE ms13 or ms14 target keeps animations in `.anim` files beside the mesh (the
/// source's embedded ones, or the scene's): [`Prepared::take_beside`] gives them to
/// write; until taken, the report names them as not written.
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
    if target.format() == file.format() {
        return file.into_prepared(&target, options, limits);
    }
    // Another format: through the scene, and what it leaves behind, from one decoding
    // of the file, which is dropped before the import.
    let (scene, mut losses) = file.into_scene_and_losses(&ExportOptions::default(), limits)?;
    let (prepared, extra) = import_scene(scene, &target, options)?;
    let unwritten = unwritten_animations(&extra, &target);
    let mut prepared = prepared.with_beside(extra, unwritten);
    losses.append(&mut prepared.losses);
    prepared.losses = losses;
    Ok(prepared)
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
