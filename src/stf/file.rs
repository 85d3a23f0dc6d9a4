//! STF through the front door ([`MeshFile`]): info text, dump (container, parsed JSON
//! and decoded meshes), check.

use std::fmt::Write as _;

use super::{model, StfContainer, StfInfo};
use crate::error::{Limits, Result};
use crate::file::{
    to_json, usage, ConvertOptions, Converted, ExportOptions, Format, MeshFile, Summary, Target,
};
use crate::scene::Scene;

impl MeshFile for StfContainer {
    fn format(&self) -> Format {
        Format::Stf
    }

    fn version_name(&self) -> String {
        self.info().map(|i| i.version).unwrap_or_default()
    }

    fn write(&self) -> Result<Vec<u8>> {
        StfContainer::write(self)
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

    fn check(&self, _: &Limits) -> Result<()> {
        model::meshes(self).map(|_| ())
    }

    fn target(&self, to: &str) -> Result<Target> {
        match Target::qualified(to) {
            Some(Ok(Target::Stf)) => Ok(Target::Stf),
            _ => Err(usage(format!(
                "--to {to}: STF has one version (stf); without --to the file is rewritten"
            ))),
        }
    }

    /// STF to STF: every mesh decoded and written back from the model
    /// ([`super::replace_meshes`]), the rest of the document kept.
    fn convert(&self, target: &Target, _: &ConvertOptions, _: &Limits) -> Result<Converted> {
        if *target != Target::Stf {
            return Err(MeshFile::target(self, &target.to_string())
                .err()
                .unwrap_or_else(|| usage(format!("--to {target}: not an STF target"))));
        }
        let meshes = model::meshes(self)?;
        let out = super::replace_meshes(self, &meshes)?;
        Ok(Converted {
            summary: line(&out)?,
            bytes: out.write()?,
            losses: Vec::new(),
        })
    }

    fn to_scene(&self, options: &ExportOptions, _: &Limits) -> Result<Scene> {
        if options.lod != 0 {
            return Err(usage("--lod applies to FileMesh only".to_string()));
        }
        super::scene::to_scene(self)
    }
}

/// A scene as a new STF file ([`super::from_scene`]); what the scene holds that STF
/// does not get is reported by [`crate::import`] (skins, animations, other LODs).
pub(crate) fn import(scene: &Scene) -> Result<Converted> {
    let out = super::from_scene(scene, "")?;
    Ok(Converted {
        summary: line(&out)?,
        bytes: out.write()?,
        losses: Vec::new(),
    })
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
