//! CSGMDL and CSGK through the front door ([`MeshFile`]).

use serde::Serialize;

use super::raw::{MdlBody, MeshV2};
use super::{CsgK, CsgMdl};
use crate::error::{Limits, Result};
use crate::file::contract::{
    to_json, usage, ConvertOptions, Converted, ExportOptions, Format, MeshFile, Summary, Target,
};
use crate::loss::{Loss, LossKind};
use crate::scene::carry::{Carries, Rig};
use crate::scene::{ExportMesh, Primitive, Scene};

/// What `meshcodec info` prints for a CSGMDL blob.
#[derive(Serialize)]
struct MdlInfo {
    format: &'static str,
    version: u32,
    vertices: usize,
    /// The triangles of LOD 0 (the first index range).
    faces: usize,
    /// The triangles of each index range, LOD 0 first.
    lod_faces: Vec<usize>,
    /// Version 4: the values of the list after the mesh.
    #[serde(skip_serializing_if = "Option::is_none")]
    extra_values: Option<usize>,
    /// Version 5: bytes of the corner stream, and its range markers.
    #[serde(skip_serializing_if = "Option::is_none")]
    face_stream_bytes: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    range_markers: Option<usize>,
}

impl MeshFile for CsgMdl {
    fn format(&self) -> Format {
        Format::Csgmdl
    }

    fn version_name(&self) -> String {
        format!("CSGMDL {}", self.header.version)
    }

    fn version(&self) -> Option<String> {
        Some(self.header.version.to_string())
    }

    fn write(&self) -> Result<Vec<u8>> {
        CsgMdl::write(self)
    }

    fn summary(&self, _: &Limits) -> Result<Summary> {
        let (vertices, faces) = self.counts();
        let (extra, stream, tail) = match &self.body {
            MdlBody::Plain(m) => (m.extra.as_ref().map(|e| e.values.len()), None, None),
            MdlBody::Packed(m) => (None, Some(m.faces.len()), Some(m.ranges.len())),
        };
        let lod_faces = self.range_faces();
        let info = MdlInfo {
            format: "csgmdl",
            version: self.header.version,
            vertices,
            faces,
            lod_faces: lod_faces.clone(),
            extra_values: extra,
            face_stream_bytes: stream,
            range_markers: tail,
        };
        let mut text = format!(
            "format:     CSGMDL {} (union graphics)\nvertices:   {vertices}\nfaces:      {faces} (LOD 0)\n",
            self.header.version
        );
        if lod_faces.len() > 1 {
            let each: Vec<String> = lod_faces.iter().map(ToString::to_string).collect();
            text.push_str(&format!(
                "lods:       {} index ranges, triangles {} (LOD 0 first)\n",
                lod_faces.len(),
                each.join(", ")
            ));
        }
        if let Some(n) = extra {
            let markers = match &self.body {
                MdlBody::Plain(m) if lod_faces.len() > 1 => m
                    .extra
                    .as_ref()
                    .map(|e| format!(": the range markers {:?}", e.values.to_vec())),
                _ => None,
            };
            text.push_str(&format!(
                "extra list: {n} values after the mesh{}\n",
                markers.unwrap_or_default()
            ));
        }
        if let (Some(s), Some(t)) = (stream, tail) {
            text.push_str(&format!(
                "face data:  a {s}-byte delta-coded corner stream (kept as stored), {t} range markers\n"
            ));
        }
        Summary::new(&info, text)
    }

    fn dump(&self, _: &Limits) -> Result<serde_json::Value> {
        to_json(self)
    }

    /// Version 5: the corner stream decodes to its count and the ranges lie inside it.
    fn check(&self, _: &Limits) -> Result<()> {
        if let MdlBody::Packed(m) = &self.body {
            m.triangles().map_err(corner_error)?;
        }
        Ok(())
    }

    fn target(&self, to: &str) -> Result<Target> {
        match to.trim().parse::<u32>() {
            Ok(v) if super::raw::CSGMDL_VERSIONS.contains(&v) => Ok(Target::Csgmdl(v)),
            _ => Err(usage(format!(
                "--to {to}: this is CSGMDL union graphics; its versions are 2, 4, 5"
            ))),
        }
    }

    fn convert(&self, target: &Target, _: &ConvertOptions, _: &Limits) -> Result<Converted> {
        let Target::Csgmdl(v) = *target else {
            return Err(usage(format!(
                "--to {target}: this is CSGMDL union graphics; its versions are 2, 4, 5"
            )));
        };
        let (vertices, faces) = self.counts();
        let summary = format!("CSGMDL {v}, {vertices} vertices, {faces} faces");
        if v == self.header.version {
            // The raw layer writes the blob back byte for byte.
            return Ok(Converted {
                bytes: self.write()?,
                losses: Vec::new(),
                summary,
            });
        }
        let (bytes, losses) = super::UnionMesh::from_blob(self)?.convert(v)?;
        Ok(Converted {
            bytes,
            losses,
            summary,
        })
    }

    /// LOD 0 (the first index range), another (`lod`) or every range as a level of
    /// detail (`all_lods`: one mesh each, named `NAME LOD k`, as FileMesh's).
    fn to_scene(&self, options: &ExportOptions, _: &Limits) -> Result<Scene> {
        let (prim, corners) = match &self.body {
            MdlBody::Plain(m) => (attributes_of(m), m.indices.to_vec()),
            MdlBody::Packed(m) => (attributes_of_v5(m), m.corners().map_err(corner_error)?),
        };
        let ranges = self.index_ranges();
        let picked: Vec<usize> = if options.all_lods {
            (0..ranges.len()).collect()
        } else if options.lod < ranges.len() {
            vec![options.lod]
        } else {
            return Err(usage(format!(
                "no LOD {}: the union has {} index range(s), LOD 0 to LOD {}",
                options.lod,
                ranges.len(),
                ranges.len().saturating_sub(1)
            )));
        };
        let mut meshes = Vec::with_capacity(picked.len());
        for k in picked {
            let range = ranges.get(k).cloned().unwrap_or(0..0);
            let triangles = corners
                .get(range.clone())
                .ok_or_else(|| {
                    corner_error(format!(
                        "range {}..{} is outside the {} corners",
                        range.start,
                        range.end,
                        corners.len()
                    ))
                })?
                .chunks_exact(3)
                .map(|t| [t.first(), t.get(1), t.get(2)].map(|i| i.copied().unwrap_or(0)))
                .collect();
            meshes.push(ExportMesh {
                lod: k,
                name: if options.all_lods {
                    format!("{} LOD {k}", options.name)
                } else {
                    options.name.clone()
                },
                primitives: vec![Primitive {
                    triangles,
                    ..prim.clone()
                }],
            });
        }
        let mut scene = Scene {
            meshes,
            ..Scene::default()
        };
        scene.prepare();
        Ok(scene)
    }

    /// The scene holds positions, normals, UVs and colours of the exported ranges: the
    /// other ranges (levels of detail), NormalIds, tangents, the hash, reserved vertex
    /// bytes and a version 4 list that holds no range markers stay behind.
    fn scene_losses(&self, _: &Limits) -> Result<Vec<Loss>> {
        Ok(super::losses::scene_losses(self, &ExportOptions::default()))
    }

    fn into_scene_and_losses(
        self,
        options: &ExportOptions,
        limits: &Limits,
    ) -> Result<(Scene, Vec<Loss>)> {
        let mut scene = self.to_scene(options, limits)?;
        // The vertices left out are counted in the losses, with the ranges that use them.
        scene
            .notes
            .retain(|n| n.kind != crate::scene::NoteKind::UnusedVertices);
        Ok((scene, super::losses::scene_losses(&self, options)))
    }
}

/// Versions 2 and 4's vertex attributes as a primitive (without triangles).
fn attributes_of(m: &MeshV2) -> Primitive {
    let v = &m.vertices;
    Primitive {
        name: "union".into(),
        positions: v.iter().map(|x| x.position).collect(),
        normals: Some(v.iter().map(|x| x.normal).collect()),
        uvs: Some(v.iter().map(|x| x.uv).collect()),
        colors: Some(
            v.iter()
                .map(|x| x.color.map(|c| f32::from(c) / 255.0))
                .collect(),
        ),
        ..Primitive::default()
    }
}

fn corner_error(e: String) -> crate::Error {
    crate::Error::new(
        "CSGMDL 5 corner stream",
        crate::error::ErrorKind::Invalid(e),
    )
}

/// Version 5's vertex attributes as a primitive (without triangles).
fn attributes_of_v5(m: &super::raw::MeshV5) -> Primitive {
    let n = m.positions.values.len();
    let normals = m.normals.vectors().filter(|v| v.len() == n);
    Primitive {
        name: "union".into(),
        positions: m.positions.values.to_vec(),
        normals,
        uvs: (m.uvs.values.len() == n).then(|| m.uvs.values.to_vec()),
        colors: (m.colors.values.len() == n).then(|| {
            m.colors
                .values
                .iter()
                .map(|c| c.map(|x| f32::from(x) / 255.0))
                .collect()
        }),
        ..Primitive::default()
    }
}

#[derive(Serialize)]
struct KInfo<'a> {
    format: &'static str,
    version: Option<u32>,
    vertices: usize,
    faces: usize,
    key: &'a str,
}

impl MeshFile for CsgK {
    fn format(&self) -> Format {
        Format::Csgk
    }

    fn version_name(&self) -> String {
        "CSGK".into()
    }

    fn version(&self) -> Option<String> {
        None
    }

    fn write(&self) -> Result<Vec<u8>> {
        CsgK::write(self)
    }

    fn summary(&self, _: &Limits) -> Result<Summary> {
        let key = String::from_utf8_lossy(&self.key).into_owned();
        let info = KInfo {
            format: "csgk",
            version: None,
            vertices: 0,
            faces: 0,
            key: &key,
        };
        Summary::new(
            &info,
            format!("format:     CSGK (a reference to union graphics stored elsewhere)\nkey:        {key}\n"),
        )
    }

    fn dump(&self, _: &Limits) -> Result<serde_json::Value> {
        to_json(self)
    }

    fn check(&self, _: &Limits) -> Result<()> {
        Ok(())
    }

    fn target(&self, to: &str) -> Result<Target> {
        Err(usage(format!(
            "--to {to}: a CSGK blob is a reference with no geometry; it has no versions"
        )))
    }

    fn convert(&self, target: &Target, _: &ConvertOptions, _: &Limits) -> Result<Converted> {
        Err(usage(format!(
            "--to {target}: a CSGK blob is a reference with no geometry"
        )))
    }

    fn to_scene(&self, _: &ExportOptions, _: &Limits) -> Result<Scene> {
        Err(usage(
            "a CSGK blob is a reference to a mesh stored elsewhere: it has no geometry to export"
                .to_string(),
        ))
    }

    fn scene_losses(&self, _: &Limits) -> Result<Vec<crate::loss::Loss>> {
        Ok(Vec::new())
    }
}

/// What a CSGMDL import keeps of a scene: positions, normals, one UV set and colours of
/// the first level of detail; no skeleton, morph targets or animations.
pub(crate) const CARRIES: Carries = Carries {
    format: "CSGMDL",
    rig: Rig::None,
    morph_targets: false,
    animations: false,
    lods: false,
    extra_uv_sets: false,
    attributes: true,
    byte_colors: false,
};

/// A scene as union graphics of version `v` (`meshcodec import --to csgmdl:V`).
pub(crate) fn import(scene: &Scene, v: u32) -> Result<Converted> {
    let model = super::UnionMesh::from_scene(scene)?;
    let blob = model.to_blob(v)?;
    let (vertices, faces) = blob.counts();
    // What the version cannot hold of the model (v5: normals quantized …).
    let (bytes, mut losses) = model.convert(v)?;
    // What the scene has no place for, derived.
    let prims = scene
        .meshes
        .iter()
        .map(|m| m.primitives.len())
        .sum::<usize>();
    if prims > 0 {
        losses.insert(
            0,
            // Fields the scene has no value for, given defaults: a layout, not data.
            Loss::counted(
                LossKind::NotImported,
                prims,
                "the NormalId of each vertex (the part face it came from) is derived from \
                 its normal's direction, a stand-in; tangents are written as zero",
            )
            .at(crate::loss::Level::Relaid),
        );
    }
    Ok(Converted {
        bytes,
        losses,
        summary: format!("CSGMDL {v}, {vertices} vertices, {faces} faces"),
    })
}
