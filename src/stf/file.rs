//! STF through the front door ([`MeshFile`]): info text, dump (container, parsed JSON
//! and decoded meshes), check.

use std::borrow::Cow;
use std::fmt::Write as _;

use super::{model, StfContainer, StfInfo};
use crate::error::{Limits, Result};
use crate::file::contract::{
    to_json, usage, ConvertOptions, Converted, ExportOptions, Format, MeshFile, Prepared, Summary,
    Target,
};
use crate::scene::carry::{Carries, Rig};
use crate::scene::Scene;

impl MeshFile for StfContainer {
    fn format(&self) -> Format {
        Format::Stf
    }

    fn version_name(&self) -> String {
        // As `info` gives it, without decoding the meshes.
        format!("{}.{}", self.version_major, self.version_minor)
    }

    fn write(&self) -> Result<Vec<u8>> {
        StfContainer::write(self)
    }

    fn write_to(&self, out: &mut dyn std::io::Write) -> Result<()> {
        StfContainer::write_to(self, out)
    }

    fn summary(&self, _: &Limits) -> Result<Summary> {
        let info = self.info()?;
        Summary::new(&info, text(&info))
    }

    fn dump(&self, _: &Limits) -> Result<serde_json::Value> {
        // The JSON document parsed, and the meshes decoded, beside the container.
        #[derive(serde::Serialize)]
        struct Dump<'a> {
            container: &'a StfContainer,
            document: serde_json::Value,
            meshes: Vec<super::StfMesh>,
        }
        to_json(&Dump {
            container: self,
            document: model::document(self)?,
            meshes: model::meshes(self)?,
        })
    }

    /// Every mesh's arrays resolved and checked as decoding them checks them, without
    /// decoding (`model::check`: the values of whole, in-range arrays always decode).
    fn check(&self, _: &Limits) -> Result<()> {
        model::check(self)
    }

    fn target(&self, to: &str) -> Result<Target> {
        match Target::qualified(to) {
            Some(Ok(Target::Stf)) => Ok(Target::Stf),
            _ => Err(usage(format!(
                "--to {to}: STF has one version (stf); without --to the file is rewritten"
            ))),
        }
    }

    /// The container copied, then converted as [`MeshFile::into_prepared`] converts it.
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

    /// The scene holds each `stf.mesh`'s triangles with split normals, UV sets,
    /// colours and blendshape offsets: what else the file holds stays behind (the
    /// polygons the triangles form, material slots, blendshape split normals and limits,
    /// UV set names, mesh keys the model does not read, and every other resource —
    /// nodes and their transforms, materials, armatures …).
    fn scene_losses(&self, _: &Limits) -> Result<Vec<crate::loss::Loss>> {
        Ok(losses_of(&model::meshes(self)?, &model::document(self)?))
    }

    /// The container copied, then turned as [`MeshFile::into_scene`] turns it.
    fn to_scene(&self, options: &ExportOptions, limits: &Limits) -> Result<Scene> {
        self.clone().into_scene(options, limits)
    }

    /// STF to STF: each property of each mesh decoded and encoded again where it lies,
    /// never the whole model (`write::written_back`); the container's buffers
    /// moved into the result, not copied (the container itself when nothing changed),
    /// and the result written when asked.
    fn into_prepared(self, target: &Target, _: &ConvertOptions, _: &Limits) -> Result<Prepared> {
        if *target != Target::Stf {
            return Err(MeshFile::target(&self, &target.to_string())
                .err()
                .unwrap_or_else(|| usage(format!("--to {target}: not an STF target"))));
        }
        let out = super::write::written_back(self)?;
        let summary = line(&out)?;
        Ok(Prepared::later(Box::new(out), Vec::new(), summary))
    }

    fn into_scene(self, options: &ExportOptions, limits: &Limits) -> Result<Scene> {
        self.into_scene_and_losses(options, limits).map(|(s, _)| s)
    }

    /// From one decoding of its meshes: each buffer of the container is dropped once
    /// decoded (`model::meshes_and_document`), and each mesh's arrays as the scene
    /// takes them (`scene::from_meshes`).
    fn into_scene_and_losses(
        self,
        options: &ExportOptions,
        _: &Limits,
    ) -> Result<(Scene, Vec<crate::loss::Loss>)> {
        crate::file::contract::one_level(options)?;
        let (meshes, doc) = model::meshes_and_document(Cow::Owned(self))?;
        let losses = losses_of(&meshes, &doc);
        drop(doc);
        Ok((super::scene::from_meshes(meshes)?, losses))
    }
}

/// What an STF import keeps of a scene: the meshes' attributes, UV sets and morph
/// targets (as blendshapes) of the first level of detail, the skeleton (an armature whose
/// bones hold a position and a rotation: a bind-pose scale is lost), the skins (per-vertex
/// weights) and the animations (`stf.animation` tracks on the bones).
pub(crate) const CARRIES: Carries = Carries {
    format: "STF",
    rig: Rig::PositionRotation,
    morph_targets: true,
    animations: true,
    lods: false,
    extra_uv_sets: true,
    attributes: true,
    byte_colors: false,
};

/// A scene as a new STF file ([`super::from_scene`]), for [`crate::import_scene`]: each
/// mesh's arrays moved into the writer instead of copied (each dropped once its buffer
/// is made). What the scene holds that STF does not get is reported by the import
/// (bind-pose scales, other LODs).
pub(crate) fn import(scene: Scene) -> Result<Converted> {
    let (out, counts) = super::import::from_scene_counted(Cow::Owned(scene), "")?;
    Ok(converted(out.into_bytes()?, counts))
}

fn converted(bytes: Vec<u8>, [meshes, vertices, faces]: super::import::Counts) -> Converted {
    // Counted from the meshes as they are written (not decoded back from the file).
    Converted {
        summary: format!("STF, {meshes} meshes, {vertices} vertices, {faces} triangles"),
        bytes,
        losses: Vec::new(),
    }
}

/// The one-line summary of a written file.
fn line(c: &StfContainer) -> Result<String> {
    let info = c.info()?;
    Ok(format!(
        "STF, {} meshes, {} vertices, {} triangles",
        info.meshes, info.vertices, info.faces
    ))
}

/// `meshcodec info`'s lines for an STF file.
fn text(info: &StfInfo) -> String {
    let mut t = String::new();
    let mut put = |s: String| {
        // Writing to a String cannot fail.
        let _ = writeln!(t, "{s}");
    };
    put(format!(
        "format:     STF {} ({} buffers, {} bytes of JSON)",
        info.version, info.buffers, info.json_bytes
    ));
    put(format!(
        "meshes:     {} ({} vertices, {} triangles)",
        info.meshes, info.vertices, info.faces
    ));
    for m in &info.mesh_list {
        put(format!(
            "  {:?}: {} vertices, {} splits, {} face corners, {} triangles in {} faces, UV sets \
             [{}]{}{}",
            m.name,
            m.vertices,
            m.splits,
            m.face_corners,
            m.faces,
            m.polygons,
            m.uv_sets.join(", "),
            if m.normals { ", normals" } else { "" },
            if m.colors { ", colours" } else { "" }
        ));
        for p in &m.problems {
            put(format!("    problem: {p}"));
        }
    }
    t
}

/// What the scene of these meshes (of a file whose JSON is `doc`) leaves behind
/// ([`MeshFile::scene_losses`]).
fn losses_of(meshes: &[super::StfMesh], doc: &serde_json::Value) -> Vec<crate::loss::Loss> {
    use crate::loss::{Loss, LossKind};
    let mut losses = Vec::new();
    let mut lose = |n: usize, detail: String| {
        if n > 0 {
            losses.push(Loss::new(LossKind::NotImported, detail));
        }
    };
    let polygons = meshes
        .iter()
        .flat_map(|m| &m.faces)
        .filter(|&&f| f > 1)
        .count();
    lose(
        polygons,
        format!("{polygons} faces of several triangles (the scene holds triangles)"),
    );
    let slots = meshes
        .iter()
        .filter(|m| !m.material_slots.is_empty())
        .count();
    lose(
        slots,
        format!("the material slots and material indices of {slots} meshes"),
    );
    let split_normals = meshes
        .iter()
        .flat_map(|m| &m.blendshapes)
        .filter(|b| b.split_normals.is_some())
        .count();
    lose(
        split_normals,
        format!("the split normals of {split_normals} blendshapes"),
    );
    let limits = meshes
        .iter()
        .flat_map(|m| &m.blendshapes)
        .filter(|b| b.limit_lower != 0.0 || b.limit_upper != 1.0)
        .count();
    lose(limits, format!("the weight limits of {limits} blendshapes"));
    let resources = doc.get("resources").and_then(serde_json::Value::as_object);
    let mut keys = std::collections::BTreeSet::new();
    let mut others = std::collections::BTreeMap::<String, usize>::new();
    for r in resources.into_iter().flat_map(|r| r.values()) {
        let kind = r
            .get("type")
            .and_then(serde_json::Value::as_str)
            .unwrap_or("");
        if kind == "stf.mesh" {
            for k in r.as_object().into_iter().flat_map(|o| o.keys()) {
                let known = super::write::MODEL_KEYS.contains(&k.as_str())
                    || matches!(k.as_str(), "type" | "referenced_buffers");
                if !known {
                    keys.insert(k.clone());
                }
            }
        } else {
            *others.entry(kind.to_string()).or_default() += 1;
        }
    }
    lose(
        keys.len(),
        format!(
            "mesh data the model does not read: {}",
            keys.into_iter().collect::<Vec<_>>().join(", ")
        ),
    );
    lose(
        others.len(),
        format!(
            "the other resources (nodes and their transforms, materials …): {}",
            others
                .iter()
                .map(|(k, n)| format!("{n} {k}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    );
    losses
}
