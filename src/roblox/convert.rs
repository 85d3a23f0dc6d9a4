//! Model → raw: write a [`Mesh`] as any FileMesh version, with the list of what the
//! target version cannot hold.
//!
//! Defaults when upgrading:
//! - LOD offsets `[0, numFaces]` when the mesh has none;
//! - lodType 0 and no high-quality LODs below 4.00, as the mesh carries them above;
//! - padding byte 0;
//! - `facsDataFormat` 1 when there is FACS data, else 0;
//! - tangents `7f 7f 7f 00` ("none");
//! - colours 255.
//!
//! Below 3.00 only LOD 0, the full-detail mesh, is written.
//!
//! Skinning is laid out per LOD, as real files are: each LOD's vertex range is cut into
//! contiguous subsets of at most 26 bones, and each vertex's envelope indexes the subset
//! that holds it. Vertices are never reordered.

use std::fmt;

use serde::Serialize;

use super::chunks::{
    Chunk, ChunkData, CoreMeshV1, CoreMeshV2, FacsV1, FileMeshV6, HsrAvisV1, LodsV1, SkinningV1,
};
use super::facs::{Facs, FacsData, MatrixData, QuantizedMatrix, QuantizedTransforms};
use super::model::{FacsRig, MatrixEncoding, Mesh, Tangent};
use super::records::{
    Bone, Envelope, Face, Subset, ThreePoseCorrective, TwoPoseCorrective, Vertex, Vertex36,
};
use super::text::{FileMeshV1, TextFormat, VertexV1};
use super::v2::{FileMeshV2, LodOffsetsV3, VertexArray};
use super::v4::FileMeshV4;
use super::{Body, FileMesh, Version};
use crate::error::{Error, ErrorKind, Result};

/// Something a target version cannot hold.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Loss {
    /// What is lost.
    pub kind: LossKind,
    /// Details with counts.
    pub detail: String,
}

/// The kinds of [`Loss`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[non_exhaustive]
pub enum LossKind {
    /// Bones (below 4.00).
    Skeleton,
    /// Per-vertex skinning (below 4.00).
    Skinning,
    /// FACS data (below 5.00).
    Facs,
    /// Faces of LODs other than LOD 0 (below 3.00).
    Lods,
    /// `lodType` / `numHighQualityLODs` (below 4.00).
    LodInfo,
    /// Vertex colours (1.x).
    Colors,
    /// Tangents (1.x).
    Tangents,
    /// HSR "always visible" flags (below 6.00).
    Hsr,
    /// Normals quantized to 11 bits (7.00 Draco).
    NormalPrecision,
    /// Numbers rounded to 6 significant digits (1.x text).
    TextPrecision,
    /// CSGPHS: hull geometry, or the box shape of version 0.
    CsgHulls,
    /// CSGPHS: the geometry type byte (versions 7, 8).
    CsgGeometryType,
    /// CSGPHS: stored physics info that the geometry does not reproduce (versions 6, 7).
    CsgPhysics,
    /// CSGPHS: hull preambles, vertex/triangle order or hull order (version 8).
    CsgHullLayout,
    /// UNIGINE: animations embedded in the mesh (ms13 and later have none).
    UnigineAnimations,
    /// UNIGINE: surface lightmap channel and resolution (below ms12).
    UnigineLightmap,
    /// UNIGINE: tangents moved between ms10's encoding and the quaternions of later versions.
    UnigineTangents,
    /// UNIGINE: ms14's spatial trees, edge flags, leaf size and memory estimate.
    UnigineSpatialTree,
    /// CSGPHS: how the source encoded what the format leaves open, where the target cannot
    /// record it and writing the source version again would not derive it: the version 8
    /// zstd frame, payload layout and reserved byte, the bytes after `BLOCK`.
    CsgEncoding,
}

impl fmt::Display for Loss {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.detail)
    }
}

impl Mesh {
    /// What writing this mesh as `target` would lose (empty: nothing).
    pub fn losses(&self, target: Version) -> Vec<Loss> {
        let mut out = Vec::new();
        let mut loss = |kind, detail: String| out.push(Loss { kind, detail });
        if !target.has_skinning() {
            if !self.skeleton.is_empty() {
                loss(
                    LossKind::Skeleton,
                    format!("{} bones ({target} has no skeleton)", self.skeleton.len()),
                );
            }
            if self.skinning.is_some() {
                loss(
                    LossKind::Skinning,
                    format!("skinning of {} vertices", self.vertices.len()),
                );
            }
        }
        if !target.has_facs() && self.facs.is_some() {
            loss(LossKind::Facs, format!("FACS data ({target} has none)"));
        }
        if !target.has_lods() {
            let lod0 = self.lods.lod0(self.faces.len());
            let dropped = self.faces.len() - lod0.len();
            if dropped > 0 {
                loss(
                    LossKind::Lods,
                    format!("{dropped} faces of LODs other than LOD 0 ({target} has no LODs)"),
                );
            }
        }
        if !target.has_skinning()
            && (self.lods.lod_type != 0 || self.lods.num_high_quality_lods != 0)
        {
            loss(
                LossKind::LodInfo,
                format!(
                    "lodType {} and numHighQualityLODs {}",
                    self.lods.lod_type, self.lods.num_high_quality_lods
                ),
            );
        }
        if target.is_text() {
            let colored = self.vertices.iter().filter(|v| v.color != [255; 4]).count();
            if colored > 0 {
                loss(LossKind::Colors, format!("colours of {colored} vertices"));
            }
            let tangents = self.vertices.iter().filter(|v| v.tangent.is_some()).count();
            if tangents > 0 {
                loss(
                    LossKind::Tangents,
                    format!("tangents of {tangents} vertices"),
                );
            }
            let inexact = self.text_inexact(target);
            if inexact > 0 {
                loss(
                    LossKind::TextPrecision,
                    format!("{inexact} numbers rounded to 6 significant digits"),
                );
            }
        }
        if !target.is_chunked() {
            if let Some(h) = &self.hsr_always_visible {
                loss(
                    LossKind::Hsr,
                    format!("{} HSR always-visible flags", h.len()),
                );
            }
        }
        if target == Version::V7_00 && !self.vertices.is_empty() {
            loss(
                LossKind::NormalPrecision,
                "normals quantized to 11 bits by Draco".to_string(),
            );
        }
        out
    }

    /// Numbers that the canonical text format would not reproduce exactly.
    fn text_inexact(&self, target: Version) -> usize {
        let fmt = TextFormat::canonical();
        let mut s = String::new();
        let mut changed = |x: f32| {
            s.clear();
            fmt.write_number(x, &mut s).is_err()
                || s.parse::<f32>()
                    .map_or(true, |y| y.to_bits() != x.to_bits())
        };
        let faces = self.lod0_faces();
        let mut n = 0;
        for f in faces {
            for &i in f {
                let Some(v) = self.vertices.get(i as usize) else {
                    continue;
                };
                let t = text_vertex(v, target);
                n += t
                    .position
                    .iter()
                    .chain(&t.normal)
                    .chain(&t.uvw)
                    .filter(|&&x| changed(x))
                    .count();
            }
        }
        n
    }

    /// Writes the mesh as `target`, dropping what the version cannot hold (see
    /// [`Mesh::losses`]).
    pub fn to_file(&self, target: Version) -> Result<FileMesh> {
        self.check_indices()?;
        let body = match target {
            Version::V1_00 | Version::V1_01 => Body::V1(self.to_text(target)?),
            Version::V2_00 | Version::V3_00 | Version::V3_01 => Body::V2(self.to_v2(target)),
            Version::V4_00 | Version::V4_01 | Version::V5_00 => Body::V4(self.to_v4(target)?),
            Version::V6_00 | Version::V7_00 => Body::V6(self.to_v6(target)?),
        };
        Ok(FileMesh {
            version: target,
            body,
        })
    }

    fn check_indices(&self) -> Result<()> {
        let n = self.vertices.len();
        match self.faces.iter().flatten().find(|&&i| i as usize >= n) {
            Some(i) => Err(Error::new(
                "Mesh",
                ErrorKind::Inconsistent(format!("a face uses vertex {i} of {n}")),
            )),
            None => Ok(()),
        }
    }

    fn raw_vertices(&self) -> Vec<Vertex> {
        self.vertices
            .iter()
            .map(|v| Vertex {
                position: v.position,
                normal: v.normal,
                uv: v.uv,
                tangent: Tangent::to_bytes(v.tangent),
                color: v.color,
            })
            .collect()
    }

    fn raw_faces(&self, faces: &[[u32; 3]]) -> Vec<Face> {
        faces.iter().map(|&indices| Face { indices }).collect()
    }

    /// Offsets to write where the version has LODs: the mesh's, or `[0, numFaces]`.
    fn lod_offsets(&self) -> Vec<u32> {
        if self.lods.offsets.is_empty() {
            vec![0, self.faces.len() as u32]
        } else {
            self.lods.offsets.clone()
        }
    }

    /// Face ranges of the LODs; an empty first range (`[0, 0]`) means one LOD of every face.
    fn lod_ranges(&self) -> Vec<(usize, usize)> {
        let n = self.faces.len();
        let o: Vec<usize> = self
            .lods
            .offsets
            .iter()
            .map(|&x| (x as usize).min(n))
            .collect();
        match o.as_slice() {
            [a, b, ..] if b > a => o
                .windows(2)
                .filter_map(|w| match w {
                    [a, b] if b >= a => Some((*a, *b)),
                    _ => None,
                })
                .collect(),
            _ => vec![(0, n)],
        }
    }

    fn lod0_faces(&self) -> &[[u32; 3]] {
        self.faces
            .get(self.lods.lod0(self.faces.len()))
            .unwrap_or_default()
    }

    fn to_text(&self, target: Version) -> Result<FileMeshV1> {
        let faces = self
            .lod0_faces()
            .iter()
            .map(|f| {
                f.map(|i| {
                    self.vertices
                        .get(i as usize)
                        .map(|v| text_vertex(v, target))
                        .unwrap_or_default()
                })
            })
            .collect();
        Ok(FileMeshV1::new(faces))
    }

    fn to_v2(&self, target: Version) -> FileMeshV2 {
        let raw = self.raw_vertices();
        let vertices = if raw.iter().all(|v| v.color == [255; 4]) {
            VertexArray::Size36(
                raw.iter()
                    .map(|v| Vertex36 {
                        position: v.position,
                        normal: v.normal,
                        uv: v.uv,
                        tangent: v.tangent,
                    })
                    .collect(),
            )
        } else {
            VertexArray::Size40(raw)
        };
        let (faces, lods) = if target.has_lods() {
            (
                self.raw_faces(&self.faces),
                Some(LodOffsetsV3 {
                    sizeof_lod_offset: 4,
                    lod_offsets: self.lod_offsets(),
                }),
            )
        } else {
            (self.raw_faces(self.lod0_faces()), None)
        };
        FileMeshV2 {
            header_tail: Vec::new(),
            vertices,
            faces,
            lods,
            trailing: Vec::new(),
        }
    }

    fn to_v4(&self, target: Version) -> Result<FileMeshV4> {
        let skin = self.raw_skinning()?;
        let (facs_data_format, facs) = match (&self.facs, target.has_facs()) {
            (Some(rig), true) => (1, Facs::Data(facs_data(rig)?)),
            _ => (0, Facs::None),
        };
        Ok(FileMeshV4 {
            lod_type: self.lods.lod_type,
            num_high_quality_lods: self.lods.num_high_quality_lods,
            unused_padding: 0,
            facs_data_format,
            header_tail: Vec::new(),
            vertices: self.raw_vertices(),
            envelopes: skin.envelopes,
            faces: self.raw_faces(&self.faces),
            lod_offsets: self.lod_offsets(),
            bones: skin.bones,
            bone_names: skin.bone_names,
            subsets: skin.subsets,
            facs,
            trailing: Vec::new(),
        })
    }

    fn to_v6(&self, target: Version) -> Result<FileMeshV6> {
        let core = CoreMeshV1 {
            vertices: self.raw_vertices(),
            faces: self.raw_faces(&self.faces),
        };
        let mut chunks = vec![Chunk::new(if target == Version::V7_00 {
            ChunkData::CoreMeshV2(CoreMeshV2::encode(&core)?)
        } else {
            ChunkData::CoreMeshV1(core)
        })];
        chunks.push(Chunk::new(ChunkData::LodsV1(LodsV1 {
            lod_type: self.lods.lod_type,
            num_high_quality_lods: self.lods.num_high_quality_lods,
            lod_offsets: self.lod_offsets(),
        })));
        if self.skinning.is_some() || !self.skeleton.is_empty() {
            chunks.push(Chunk::new(ChunkData::SkinningV1(self.raw_skinning()?)));
        }
        if let Some(rig) = &self.facs {
            chunks.push(Chunk::new(ChunkData::FacsV1(FacsV1 {
                facs: Facs::Data(facs_data(rig)?),
            })));
        }
        if let Some(flags) = &self.hsr_always_visible {
            chunks.push(Chunk::new(ChunkData::HsrAvisV1(HsrAvisV1::from_flags(
                flags,
            )?)));
        }
        Ok(FileMeshV6 { chunks })
    }

    /// Bones, name table, subsets (one per LOD) and envelopes.
    fn raw_skinning(&self) -> Result<SkinningV1> {
        let mut out = SkinningV1::default();
        for b in &self.skeleton {
            let index = u32::try_from(out.bone_names.len()).map_err(|_| too_big("bone names"))?;
            out.bone_names.extend_from_slice(b.name.as_bytes());
            out.bone_names.push(0);
            out.bones.push(Bone {
                bone_name_index: index,
                parent_index: b.parent.unwrap_or(0xFFFF),
                lod_parent_index: b.lod_parent.unwrap_or(0xFFFF),
                culling: b.culling,
                rotation: b.rotation,
                position: b.position,
            });
        }
        let Some(skin) = &self.skinning else {
            return Ok(out);
        };
        if skin.len() != self.vertices.len() {
            return Err(inconsistent(format!(
                "{} skinning entries for {} vertices",
                skin.len(),
                self.vertices.len()
            )));
        }
        // One subset per LOD: its faces, the vertex range they use, the bones of those
        // vertices. Each vertex belongs to the first subset whose range holds it.
        let mut owner: Vec<Option<usize>> = vec![None; self.vertices.len()];
        for (a, b) in self.lod_ranges() {
            let faces = self.faces.get(a..b).unwrap_or_default();
            let Some(&lo) = faces.iter().flatten().min() else {
                continue;
            };
            let hi = faces.iter().flatten().max().copied().unwrap_or(lo);
            // Walk the LOD's vertex range, closing a subset before its bone table would
            // pass 26. Vertices already owned by an earlier LOD's subset keep that owner.
            let first = out.subsets.len();
            let mut start = lo as usize;
            let mut table: Vec<u16> = Vec::new();
            for v in lo as usize..=hi as usize {
                let (Some(None), Some(sk)) = (owner.get(v), skin.get(v)) else {
                    continue;
                };
                let mut bones: Vec<u16> = Vec::new();
                for i in sk.influences.iter().filter(|i| i.weight > 0) {
                    if !table.contains(&i.bone) && !bones.contains(&i.bone) {
                        bones.push(i.bone);
                    }
                }
                if table.len() + bones.len() > 26 {
                    out.subsets.push(subset(start, v, &table));
                    start = v;
                    table.clear();
                    bones.clear();
                    for i in sk.influences.iter().filter(|i| i.weight > 0) {
                        if !bones.contains(&i.bone) {
                            bones.push(i.bone);
                        }
                    }
                }
                table.extend(bones);
                if let Some(o) = owner.get_mut(v) {
                    *o = Some(out.subsets.len());
                }
            }
            out.subsets.push(subset(start, hi as usize + 1, &table));
            if let Some(lod_subsets) = out.subsets.get_mut(first..) {
                assign_faces(lod_subsets, faces, a);
            }
        }
        for (v, (s, own)) in skin.iter().zip(&owner).enumerate() {
            let table = own
                .and_then(|k| out.subsets.get(k))
                .map(|s| &s.bone_indices);
            let mut e = Envelope::default();
            for (slot, i) in s
                .influences
                .iter()
                .enumerate()
                .filter(|(_, i)| i.weight > 0)
            {
                let byte = table
                    .and_then(|t| t.iter().position(|&g| g == i.bone))
                    .ok_or_else(|| {
                        inconsistent(format!("vertex {v} is skinned but used by no face"))
                    })?;
                if let (Some(b), Some(w)) = (e.bones.get_mut(slot), e.weights.get_mut(slot)) {
                    *b = byte as u8;
                    *w = i.weight;
                }
            }
            out.envelopes.push(e);
        }
        Ok(out)
    }
}

/// A subset over vertices `start..end` with `table` as its bones (face range set later).
fn subset(start: usize, end: usize, table: &[u16]) -> Subset {
    let mut bone_indices = [0xFFFF; 26];
    for (dst, src) in bone_indices.iter_mut().zip(table) {
        *dst = *src;
    }
    Subset {
        faces_begin: 0,
        faces_length: 0,
        verts_begin: start as u32,
        verts_length: end.saturating_sub(start) as u32,
        num_bone_indices: table.len() as u32,
        bone_indices,
    }
}

/// Face ranges of one LOD's subsets (`faces` start at face `base`): the whole LOD for a
/// single subset, else the span of the faces whose lowest vertex lies in each subset's
/// vertex range (contiguous when the faces are ordered by vertex block, as Roblox lays
/// them out).
fn assign_faces(subsets: &mut [Subset], faces: &[[u32; 3]], base: usize) {
    if let [only] = subsets {
        only.faces_begin = base as u32;
        only.faces_length = faces.len() as u32;
        return;
    }
    for s in subsets.iter_mut() {
        let range = s.verts_begin..s.verts_begin + s.verts_length;
        let mut hits = faces
            .iter()
            .enumerate()
            .filter(|(_, f)| f.iter().min().is_some_and(|v| range.contains(v)))
            .map(|(k, _)| base + k);
        if let Some(first) = hits.next() {
            let last = hits.next_back().unwrap_or(first);
            s.faces_begin = first as u32;
            s.faces_length = (last - first + 1) as u32;
        } else {
            s.faces_begin = base as u32;
        }
    }
}

fn text_vertex(v: &super::model::MeshVertex, target: Version) -> VertexV1 {
    let scale = if target == Version::V1_00 { 2.0 } else { 1.0 };
    VertexV1 {
        position: v.position.map(|x| x * scale),
        normal: v.normal,
        uvw: [v.uv[0], 1.0 - v.uv[1], 0.0],
    }
}

fn inconsistent(msg: String) -> Error {
    Error::new("Mesh", ErrorKind::Inconsistent(msg))
}

fn too_big(what: &str) -> Error {
    inconsistent(format!("{what} too large"))
}

/// The FACS block of a rig; matrices quantized (version 2) unless they came raw.
fn facs_data(rig: &FacsRig) -> Result<FacsData> {
    let blob = |names: &[String]| {
        names
            .iter()
            .flat_map(|n| n.bytes().chain(std::iter::once(0)))
            .collect::<Vec<u8>>()
    };
    let rows = rig.face_bone_names.len();
    let cols = rig.poses.len();
    if rig.poses.iter().any(|c| c.len() != rows) {
        return Err(inconsistent(
            "FACS poses do not match the face bones".into(),
        ));
    }
    let matrix = |k: usize| -> Result<QuantizedMatrix> {
        let value = |r: usize, c: usize| {
            let p = rig
                .poses
                .get(c)
                .and_then(|col| col.get(r))
                .copied()
                .unwrap_or_default();
            let xyz = if k < 3 { p.position } else { p.rotation };
            xyz.get(k % 3).copied().unwrap_or_default()
        };
        let values: Vec<f32> = (0..rows)
            .flat_map(|r| (0..cols).map(move |c| (r, c)))
            .map(|(r, c)| value(r, c))
            .collect();
        let data = match rig.encodings.get(k).copied().unwrap_or_default() {
            MatrixEncoding::Raw => MatrixData::Raw(values),
            MatrixEncoding::Quantized => quantize(&values),
        };
        Ok(QuantizedMatrix {
            rows: u32::try_from(rows).map_err(|_| too_big("FACS rows"))?,
            cols: u32::try_from(cols).map_err(|_| too_big("FACS columns"))?,
            data,
        })
    };
    Ok(FacsData {
        face_bone_names_blob: blob(&rig.face_bone_names),
        face_control_names_blob: blob(&rig.control_names),
        quantized_transforms: QuantizedTransforms {
            px: matrix(0)?,
            py: matrix(1)?,
            pz: matrix(2)?,
            rx: matrix(3)?,
            ry: matrix(4)?,
            rz: matrix(5)?,
        },
        two_pose_correctives: rig
            .two_pose_correctives
            .iter()
            .map(|&control_indices| TwoPoseCorrective { control_indices })
            .collect(),
        three_pose_correctives: rig
            .three_pose_correctives
            .iter()
            .map(|&control_indices| ThreePoseCorrective { control_indices })
            .collect(),
    })
}

/// Version-2 quantization: u16 steps between the values' min and max.
fn quantize(values: &[f32]) -> MatrixData {
    let min = values.iter().copied().fold(f32::INFINITY, f32::min);
    let max = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let (min, max) = if min.is_finite() && max.is_finite() {
        (min, max)
    } else {
        (0.0, 0.0)
    };
    let precision = (max - min) / 65535.0;
    let values = values
        .iter()
        .map(|&v| {
            if precision > 0.0 {
                ((v - min) / precision).round().clamp(0.0, 65535.0) as u16
            } else {
                0
            }
        })
        .collect();
    MatrixData::Quantized { min, max, values }
}
