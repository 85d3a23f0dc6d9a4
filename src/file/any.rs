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
    // Coarser levels of detail go only where the target has a place for them.
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
    // What the scene holds that the target does not carry comes first in the report:
    // nothing is dropped in silence.
    let mut losses = scene_losses(&scene, target);
    let names: Vec<&str> = coarse.iter().map(String::as_str).collect();
    losses.splice(0..0, coarse_loss(&names, target));
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
    let (mut prepared, extra) = import_scene(scene, &target, options)?;
    prepared
        .losses
        .extend(unwritten_animations(&extra, &target));
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
