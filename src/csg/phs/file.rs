//! CSGPHS through the front door ([`MeshFile`]): info text, dump (with the version 8
//! payload), check, conversion between versions and import from a scene.

use std::fmt::Write as _;

use super::model::{CSGPHS_VERSIONS, PHYSICS_TOLERANCE};
use super::raw::CsgInfo;
use super::{CsgMesh, Csgphs};
use crate::error::{Limits, Result};
use crate::file::contract::{
    to_json, usage, ConvertOptions, Converted, ExportOptions, Format, MeshFile, Summary, Target,
};
use crate::scene::carry::{Carries, Rig};
use crate::scene::Scene;

fn versions_error(to: impl std::fmt::Display) -> crate::Error {
    usage(format!(
        "--to {to}: this is CSGPHS data; its versions are 0, 3, 5, 6, 7, 8"
    ))
}

impl MeshFile for Csgphs {
    fn format(&self) -> Format {
        Format::Csgphs
    }

    fn version_name(&self) -> String {
        format!("CSGPHS {}", self.version)
    }

    fn version(&self) -> Option<String> {
        Some(self.version.to_string())
    }

    fn write(&self) -> Result<Vec<u8>> {
        Csgphs::write(self)
    }

    fn summary(&self, limits: &Limits) -> Result<Summary> {
        let info = self.info(limits)?;
        let mut s = Summary::new(&info, text(&info))?;
        if let Some(p) = &info.problem {
            s.problems.push(format!(
                "the hulls do not decode, so the counts are the stored ones: {p}"
            ));
        }
        Ok(s)
    }

    fn dump(&self, limits: &Limits) -> Result<serde_json::Value> {
        // Version 8: the zstd frame's content too, parsed.
        #[derive(serde::Serialize)]
        struct Dump<'a> {
            #[serde(flatten)]
            raw: &'a Csgphs,
            #[serde(skip_serializing_if = "Option::is_none")]
            payload: Option<super::raw::V8Payload>,
        }
        to_json(&Dump {
            raw: self,
            payload: self.payload(limits)?,
        })
    }

    fn check(&self, limits: &Limits) -> Result<()> {
        // The model decompresses version 8 and decodes its Edgebreaker hulls.
        CsgMesh::from_csgphs(self, limits).map(|_| ())
    }

    fn target(&self, to: &str) -> Result<Target> {
        match to.trim().parse::<u32>() {
            Ok(v) if CSGPHS_VERSIONS.contains(&v) => Ok(Target::Csgphs(v)),
            _ => Err(versions_error(to)),
        }
    }

    fn convert(&self, target: &Target, _: &ConvertOptions, limits: &Limits) -> Result<Converted> {
        let Target::Csgphs(v) = *target else {
            return Err(versions_error(target));
        };
        let model = CsgMesh::from_csgphs(self, limits)?;
        if v == self.version {
            return Ok(Converted {
                bytes: Csgphs::write(self)?,
                losses: Vec::new(),
                summary: line(v, &model),
            });
        }
        convert_model(&model, v)
    }

    fn to_scene(&self, options: &ExportOptions, limits: &Limits) -> Result<Scene> {
        crate::file::contract::one_level(options)?;
        let model = CsgMesh::from_csgphs(self, limits)?;
        Ok(super::scene::to_scene(&model, &options.name))
    }

    /// The scene holds the hulls' triangles, one primitive each: the stored physics,
    /// the geometry type and the hulls as separate convex pieces stay behind.
    fn scene_losses(&self, limits: &Limits) -> Result<Vec<crate::loss::Loss>> {
        use crate::loss::{Loss, LossKind};
        let model = CsgMesh::from_csgphs(self, limits)?;
        let mut losses = Vec::new();
        if model.physics.is_some() {
            losses.push(Loss::new(
                LossKind::CsgPhysics,
                "the stored physics info (volume, centre of gravity, inertia)",
            ));
        }
        if let Some(g) = model.geometry_type {
            losses.push(Loss::new(
                LossKind::CsgGeometryType,
                format!("the geometry type byte ({g})"),
            ));
        }
        if model.hulls.len() > 1 {
            losses.push(Loss::new(
                LossKind::CsgHulls,
                format!(
                    "the split into {} convex hulls (they become one mesh's parts)",
                    model.hulls.len()
                ),
            ));
        }
        Ok(losses)
    }
}

/// What a CSGPHS import keeps of a scene: hull positions, nothing else.
pub(crate) const CARRIES: Carries = Carries {
    format: "CSGPHS",
    rig: Rig::None,
    morph_targets: false,
    animations: false,
    lods: false,
    extra_uv_sets: false,
    attributes: false,
    byte_colors: false,
};

/// A scene as CSGPHS `v`: one hull per primitive.
pub(crate) fn import(scene: &Scene, v: u32) -> Result<Converted> {
    convert_model(&super::scene::from_scene(scene)?, v)
}

fn convert_model(model: &CsgMesh, v: u32) -> Result<Converted> {
    let losses = model.losses(v);
    Ok(Converted {
        bytes: model.to_csgphs(v)?.write()?,
        losses,
        summary: line(v, model),
    })
}

fn line(v: u32, model: &CsgMesh) -> String {
    format!("CSGPHS {v}, {} hulls", model.hulls.len())
}

/// `meshcodec info`'s lines for CSGPHS data.
fn text(info: &CsgInfo) -> String {
    let mut t = String::new();
    let mut put = |s: String| {
        // Writing to a String cannot fail.
        let _ = writeln!(t, "{s}");
    };
    put(format!("format:     CSGPHS {}", info.version));
    if let Some(g) = info.geometry_type {
        put(format!("geometry:   type {g}"));
    }
    put(format!(
        "hulls:      {} ({} vertices, {} triangles)",
        info.hulls, info.vertices, info.faces
    ));
    if let Some(p) = &info.physics {
        put(format!(
            "physics:    volume {}, centre of gravity {:?}, inertia {:?}",
            p.volume, p.center_of_gravity, p.inertia
        ));
    }
    if let Some(p) = &info.computed_physics {
        put(format!(
            "from hulls: volume {}, centre of gravity {:?}, inertia {:?}",
            p.volume, p.center_of_gravity, p.inertia
        ));
    }
    if let Some(d) = info.physics_max_relative_difference {
        let verdict = if d <= PHYSICS_TOLERANCE {
            "agrees with"
        } else {
            "DIFFERS from"
        };
        put(format!(
            "physics:    stored {verdict} the geometry (largest relative difference {d:.1e})"
        ));
    }
    if let Some(z) = &info.compressed {
        put(format!(
            "zstd:       {} bytes → {} bytes; {} Edgebreaker-coded hulls ({} bits), {} raw",
            z.frame_bytes, z.decompressed_bytes, z.coded_hulls, z.connectivity_bits, z.raw_hulls
        ));
    }
    t
}
