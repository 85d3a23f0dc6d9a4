//! UNIGINE meshes and animations through the front door ([`MeshFile`]): info text,
//! dump, check, conversion between mesh versions.

use std::fmt::Write as _;

use super::raw::anim::AnimInfo;
use super::{MeshInfo, MeshVersion, UnigineAnim, UnigineMesh};
use crate::error::{Limits, Result};
use crate::file::contract::{
    to_json, usage, ConvertOptions, Converted, ExportOptions, ExtraFile, Format, MeshFile,
    Prepared, Summary, Target,
};
use crate::scene::carry::Carries;
use crate::scene::Scene;

impl MeshFile for UnigineMesh {
    fn format(&self) -> Format {
        Format::UnigineMesh
    }

    fn version_name(&self) -> String {
        self.version.to_string()
    }

    fn write(&self) -> Result<Vec<u8>> {
        UnigineMesh::write(self)
    }

    fn write_to(&self, out: &mut dyn std::io::Write) -> Result<()> {
        UnigineMesh::write_to(self, out)
    }

    fn summary(&self, limits: &Limits) -> Result<Summary> {
        let info = self.info(limits)?;
        Summary::new(&info, mesh_text(&info))
    }

    fn dump(&self, _: &Limits) -> Result<serde_json::Value> {
        to_json(self)
    }

    fn check(&self, limits: &Limits) -> Result<()> {
        // Every LZ4 block of ms14: geometry and spatial tree.
        self.info(limits).map(|_| ())
    }

    fn target(&self, to: &str) -> Result<Target> {
        to.parse::<MeshVersion>()
            .map(Target::UnigineMesh)
            .map_err(|e| usage(format!("--to {to}: {e}")))
    }

    /// The mesh copied, then converted as [`MeshFile::into_prepared`] converts it.
    fn convert(
        &self,
        target: &Target,
        options: &ConvertOptions,
        limits: &Limits,
    ) -> Result<Converted> {
        self.clone()
            .into_prepared(target, options, limits)?
            .into_converted()
    }

    /// ms11–ms13 to ms14: the file written straight from the classic body taken
    /// (`Ms14Mesh::write_classic`), never holding the mesh, its blocks and the file at
    /// once.
    fn into_prepared(
        self,
        target: &Target,
        _: &ConvertOptions,
        limits: &Limits,
    ) -> Result<Prepared> {
        let Target::UnigineMesh(v) = *target else {
            return Err(usage(format!(
                "--to {target}: unknown UNIGINE mesh version (ms10, ms11, ms12, ms13, ms14)"
            )));
        };
        let summary = format!("UNIGINE mesh {v}");
        if v == self.version {
            return Ok(Prepared::later(Box::new(self), Vec::new(), summary));
        }
        let losses = self.losses(v)?;
        // ms13 and ms14 embed no animations: those of the source go beside, as an11
        // files (the line saying ms13 cannot embed them stays until they are taken).
        let (beside, unwritten) = if !v.embeds_animations() && self.version.embeds_animations() {
            let body = self.classic_view(limits)?;
            let files = beside_files(&super::convert::anim::an11_files(&body))?;
            let unwritten = losses
                .iter()
                .find(|l| l.kind == crate::loss::LossKind::UnigineAnimations)
                .cloned();
            (files, unwritten)
        } else {
            (Vec::new(), None)
        };
        if v == MeshVersion::Ms14 && self.version != MeshVersion::Ms10 {
            let body = self.into_classic(limits)?;
            let bytes = super::raw::ms14::Ms14Mesh::write_classic(body, None)?;
            return Ok(Prepared::bytes(Converted {
                bytes,
                losses,
                summary,
            })
            .with_beside(beside, unwritten));
        }
        Ok(
            Prepared::later(Box::new(self.to_version(v)?), losses, summary)
                .with_beside(beside, unwritten),
        )
    }

    /// The mesh copied, then turned as [`MeshFile::into_scene`] turns it.
    fn to_scene(&self, options: &ExportOptions, limits: &Limits) -> Result<Scene> {
        self.clone().into_scene(options, limits)
    }

    /// Item by item: bounds and ms14's spatial trees (re-laid: derived), tangent frames,
    /// how vertices share positions, lightmap settings, and whatever the scene's
    /// surfaces, skin and animations leave out (`super::scene_losses`).
    fn scene_losses(&self, limits: &Limits) -> Result<Vec<crate::loss::Loss>> {
        super::scene_losses::scene_losses(self, limits)
    }

    /// The scene of a mesh given away (see [`super::scene::mesh_to_scene`]): an
    /// ms14 mesh's compressed blocks are dropped as they are decoded, and the mesh once
    /// the scene is built.
    fn into_scene(self, options: &ExportOptions, limits: &Limits) -> Result<Scene> {
        scene_with(options, |name| {
            super::scene::mesh_to_scene(self, name, limits)
        })
    }
}

/// The scene `build` makes under the export's name, with the export's options applied
/// (one level of detail; +Y up unless the axes are kept).
fn scene_with(options: &ExportOptions, build: impl FnOnce(&str) -> Result<Scene>) -> Result<Scene> {
    crate::file::contract::one_level(options)?;
    let mut scene = build(&options.name)?;
    if !options.keep_axes {
        scene.to_y_up();
    }
    Ok(scene)
}

impl MeshFile for UnigineAnim {
    fn format(&self) -> Format {
        Format::UnigineAnim
    }

    fn version_name(&self) -> String {
        self.version().to_string()
    }

    fn write(&self) -> Result<Vec<u8>> {
        UnigineAnim::write(self)
    }

    fn summary(&self, _: &Limits) -> Result<Summary> {
        let info = self.info();
        Summary::new(&info, anim_text(&info))
    }

    fn dump(&self, _: &Limits) -> Result<serde_json::Value> {
        to_json(self)
    }

    fn check(&self, _: &Limits) -> Result<()> {
        // Nothing is compressed: reading checked everything.
        Ok(())
    }

    fn target(&self, to: &str) -> Result<Target> {
        Err(usage(format!(
            "--to {to}: converting between UNIGINE animation versions is not supported; \
             without --to the file is rewritten as {}",
            self.version()
        )))
    }

    fn convert(&self, target: &Target, _: &ConvertOptions, _: &Limits) -> Result<Converted> {
        Err(MeshFile::target(self, &target.to_string()).unwrap_err())
    }

    /// Item by item (`super::scene_losses::anim_losses`).
    fn scene_losses(&self, _: &Limits) -> Result<Vec<crate::loss::Loss>> {
        Ok(super::scene_losses::anim_losses(self))
    }

    fn to_scene(&self, options: &ExportOptions, _: &Limits) -> Result<Scene> {
        crate::file::contract::one_level(options)?;
        let mut scene = super::scene::anim_to_scene(self, &options.name)?;
        if !options.keep_axes {
            scene.to_y_up();
        }
        Ok(scene)
    }
}

/// `meshcodec info`'s lines for a UNIGINE mesh.
fn mesh_text(info: &MeshInfo) -> String {
    let mut t = String::new();
    let mut put = |s: String| {
        // Writing to a String cannot fail.
        let _ = writeln!(t, "{s}");
    };
    put(format!("format:     UNIGINE mesh {}", info.version));
    put(format!(
        "surfaces:   {} ({} vertices on {} positions, {} triangles)",
        info.surfaces, info.vertices, info.positions, info.faces
    ));
    for s in &info.surface_list {
        let targets = if s.targets.len() > 1 {
            format!(", morph targets: {}", s.targets.join(", "))
        } else {
            String::new()
        };
        put(format!(
            "  {:?}: {} vertices, {} positions, {} triangles, {} weighted, uv0 {}, uv1 {}, \
             colours {}{targets}",
            s.name, s.vertices, s.positions, s.faces, s.weighted_vertices, s.uv0, s.uv1, s.colors
        ));
        if let Some(n) = s.tree_nodes {
            put(format!("    spatial tree: {n} nodes"));
        }
    }
    if info.bones > 0 {
        put(format!(
            "bones:      {} ({})",
            info.bones,
            info.bone_names.join(", ")
        ));
    }
    if !info.animations.is_empty() {
        put(format!("animations: {}", info.animations.join(", ")));
    }
    let n = info.non_finite;
    if n.positions + n.uvs + n.bind_pose > 0 {
        put(format!(
            "not finite: {} positions, {} UVs, {} bind pose transforms hold NaN or infinity \
             (kept as read)",
            n.positions, n.uvs, n.bind_pose
        ));
    }
    t
}

/// `meshcodec info`'s lines for a UNIGINE animation.
fn anim_text(info: &AnimInfo) -> String {
    let mut t = String::new();
    let mut put = |s: String| {
        // Writing to a String cannot fail.
        let _ = writeln!(t, "{s}");
    };
    put(format!("format:     UNIGINE animation {}", info.version));
    put(format!(
        "bones:      {} ({})",
        info.bones,
        info.bone_names.join(", ")
    ));
    for c in &info.animations {
        let name = if c.name.is_empty() {
            String::from("(unnamed)")
        } else {
            format!("{:?}", c.name)
        };
        put(format!(
            "animation:  {name}: {} frames of {} bones, {} keys store values",
            c.frames, c.animated_bones, c.stored_keys
        ));
    }
    t
}

/// What a UNIGINE import keeps of a scene: everything but coarser levels of detail (what
/// it cannot place of skeletons, morphs and animations, its import reports).
pub(crate) const CARRIES: Carries = Carries {
    lods: false,
    ..Carries::all("UNIGINE")
};

/// A scene as a UNIGINE mesh of `version`, with its `.anim` files (ms13, ms14), for
/// [`crate::import_scene`]: the scene is dropped as the mesh is made, and an ms14 mesh
/// is written as it is built ([`super::import::import_file`]).
pub(crate) fn import(scene: Scene, version: MeshVersion) -> Result<(Converted, Vec<ExtraFile>)> {
    written(super::import::import_file(scene, version)?, version)
}

/// The file, summary and `.anim` files of an imported mesh.
fn written(
    imported: super::import::ImportedFile,
    version: MeshVersion,
) -> Result<(Converted, Vec<ExtraFile>)> {
    let super::import::ImportedFile {
        bytes,
        animations,
        losses,
        counts,
    } = imported;
    let extra = beside_files(&animations)?;
    let embedded = if counts.embedded_animations == 0 {
        String::new()
    } else {
        format!(", {} embedded animation(s)", counts.embedded_animations)
    };
    let summary = format!(
        "UNIGINE mesh {version}, {} surface(s), {} vertices, {} triangles, {} bone(s){embedded}",
        counts.surfaces, counts.vertices, counts.faces, counts.bones
    );
    Ok((
        Converted {
            bytes,
            losses,
            summary,
        },
        extra,
    ))
}

/// The `.anim` files of `animations` as [`ExtraFile`]s, named as
/// [`ExtraFile::suffix`] says.
fn beside_files(animations: &[(String, UnigineAnim)]) -> Result<Vec<ExtraFile>> {
    let mut extra = Vec::new();
    let mut taken = std::collections::HashSet::new();
    let several = animations.len() > 1;
    for (k, (name, anim)) in animations.iter().enumerate() {
        let suffix = if several {
            let mut stem: String = name
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            if stem.is_empty() {
                stem = format!("animation_{k}");
            }
            let mut suffix = format!("_{stem}.anim");
            if !taken.insert(suffix.clone()) {
                suffix = format!("_{stem}_{k}.anim");
                taken.insert(suffix.clone());
            }
            suffix
        } else {
            ".anim".to_string()
        };
        extra.push(ExtraFile {
            suffix,
            what: format!("animation {name:?}"),
            bytes: anim.write()?,
        });
    }
    Ok(extra)
}
