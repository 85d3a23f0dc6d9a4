//! The version-independent mesh model: what users program against.
//!
//! No binrw and no byte layout here: [`Mesh::from_file`] turns any [`FileMesh`]
//! (1.00 … 7.00) into plain values. Per version it:
//! - halves 1.00 positions;
//! - flips V in 1.x (`v → 1 − v`);
//! - decodes tangent bytes as unsigned with a bias of 127;
//! - resolves envelope bone bytes through the subset that holds the vertex (checked at
//!   the read, resolved when first looked at: [`Skinning`]);
//! - decodes Draco;
//! - dequantizes FACS matrices.
//!
//! It also records, in [`Mesh::stored`], how the file encoded what its format leaves
//! open and the bytes the model does not interpret, so that writing changes nothing that
//! need not change (see [`stored`], "Carry-over").
//!
//! Writing a model as any version, and the loss report of a conversion, are in
//! [`convert`].
//!
//! # Example
//!
//! ```
//! use meshcodec::filemesh::{Mesh, Version};
//!
//! let mesh = Mesh::read(include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/roundtrip-fixtures/chunked/v7.00-draco-grid-272.mesh")))?; // Draco decoded
//! assert_eq!(mesh.stored.version, Some(Version::V7_00));
//! let lod0 = &mesh.faces[mesh.lods.lod0(mesh.faces.len())];
//! assert!(!lod0.is_empty());
//! // Down to 4.00: what 4.00 cannot hold is in the report.
//! let v4 = mesh.convert(Version::V4_00)?;
//! for loss in &v4.losses {
//!     println!("{loss}");
//! }
//! assert_eq!(Mesh::read(&v4.file.write()?)?.vertices.len(), mesh.vertices.len());
//! # Ok::<(), meshcodec::Error>(())
//! ```

pub mod convert;
pub mod facs_eval;
mod facs_pose;
mod resolve;
pub mod skinning;
pub mod stored;

pub use skinning::Skinning;

pub(crate) use resolve::{check_skinning, each_skin, skinning};

use serde::Serialize;

use crate::error::{Error, ErrorKind, Limits, Result};
use crate::filemesh::raw::chunks::{Chunk, ChunkData, SkinningV1};
use crate::filemesh::raw::facs::{Facs, FacsData, MatrixData, QuantizedMatrix};
use crate::filemesh::raw::records::{name_at, split_names, Bone, Face, Vertex};
use crate::filemesh::raw::v4::FileMeshV4;
use crate::filemesh::raw::{Body, FileMesh, Version};
use stored::{
    ChunkKind, ChunkSlot, HeaderLayout, HeaderTail, Stored, StoredCore, StoredFacs, StoredText,
};

/// A Roblox mesh, whatever version it came from.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Mesh {
    /// Vertices; faces index into this array.
    pub vertices: Vec<MeshVertex>,
    /// Triangles, every LOD included (see [`Lods`]).
    pub faces: Vec<[u32; 3]>,
    /// How the faces split into levels of detail.
    pub lods: Lods,
    /// Bones, in file order (indices in [`Influence::bone`] and parents refer to it).
    pub skeleton: Vec<MeshBone>,
    /// Per-vertex skinning, one entry per vertex, when the mesh is skinned. Read from
    /// a file, it is resolved to skeleton bones when first looked at ([`Skinning`]).
    pub skinning: Option<Skinning>,
    /// Facial animation (FACS) data.
    pub facs: Option<FacsRig>,
    /// HSR "always visible" flag per face (6.00+ `HSRAVIS`).
    pub hsr_always_visible: Option<Vec<bool>>,
    /// How the source file encoded what its format leaves open, and the bytes the model
    /// does not interpret; writing reuses each part while it still describes the data
    /// (see [`stored`]). Empty for a mesh built from scratch.
    #[serde(skip)]
    pub stored: Stored,
}

/// One vertex, in model units (1.00 positions halved) and binary-version UV space.
///
/// It has the layout of the files' 40-byte vertex record ([`Vertex`]), so reading a
/// 2.00–5.00 file moves the file's vertex array into the model instead of copying it
/// into a second one. The tangent is therefore kept as its four bytes
/// ([`MeshVertex::tangent_bytes`]); [`MeshVertex::tangent`] decodes them and
/// [`MeshVertex::set_tangent`] encodes (the two are exact inverses).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, bytemuck::Pod, bytemuck::Zeroable)]
#[repr(C)]
pub struct MeshVertex {
    /// Position.
    pub position: [f32; 3],
    /// Normal (not always unit length in real files).
    pub normal: [f32; 3],
    /// Texture coordinate (binary convention: 1.x V is flipped on the way in).
    pub uv: [f32; 2],
    /// The tangent's bytes `tx, ty, tz, ts` ([`Tangent::ABSENT_BYTES`] for "no tangent",
    /// and in 1.x). Serialised as the decoded [`Tangent`] (or `null`).
    #[serde(rename = "tangent", serialize_with = "serialize_tangent")]
    pub tangent_bytes: [u8; 4],
    /// RGBA colour (255s where the version has none).
    pub color: [u8; 4],
}

impl Default for MeshVertex {
    /// Zeros, but for the tangent: [`Tangent::ABSENT_BYTES`] (no tangent).
    fn default() -> Self {
        MeshVertex {
            position: [0.0; 3],
            normal: [0.0; 3],
            uv: [0.0; 2],
            tangent_bytes: Tangent::ABSENT_BYTES,
            color: [0; 4],
        }
    }
}

fn serialize_tangent<S: serde::Serializer>(bytes: &[u8; 4], s: S) -> Result<S::Ok, S::Error> {
    serde::Serialize::serialize(&Tangent::from_bytes(*bytes), s)
}

/// A tangent decoded from its four bytes: component = (b − 127) / 127.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Tangent {
    /// Direction (unit length when the file's bytes are).
    pub direction: [f32; 3],
    /// Bitangent sign: −1 or +1 (byte 0 or 254).
    pub sign: f32,
}

impl Tangent {
    /// The bytes that mean "no tangent".
    pub const ABSENT_BYTES: [u8; 4] = [0x7f, 0x7f, 0x7f, 0x00];

    /// Decodes tangent bytes; `None` for [`Tangent::ABSENT_BYTES`].
    pub fn from_bytes(b: [u8; 4]) -> Option<Tangent> {
        if b == Self::ABSENT_BYTES {
            return None;
        }
        let c = |x: u8| (f32::from(x) - 127.0) / 127.0;
        Some(Tangent {
            direction: [c(b[0]), c(b[1]), c(b[2])],
            sign: c(b[3]),
        })
    }

    /// Encodes as bytes (round to nearest, clamped); exact inverse of
    /// [`Tangent::from_bytes`].
    pub fn to_bytes(t: Option<Tangent>) -> [u8; 4] {
        let Some(t) = t else {
            return Self::ABSENT_BYTES;
        };
        let e = |x: f32| (x * 127.0 + 127.0).round().clamp(0.0, 255.0) as u8;
        [
            e(t.direction[0]),
            e(t.direction[1]),
            e(t.direction[2]),
            e(t.sign),
        ]
    }
}

/// Levels of detail: `offsets[i]..offsets[i + 1]` are the faces of LOD i.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Lods {
    /// `lodType` (how the LODs were generated; 0 when the version has none).
    pub lod_type: u16,
    /// `numHighQualityLODs`.
    pub num_high_quality_lods: u8,
    /// Face offsets, as stored (empty before 3.00).
    pub offsets: Vec<u32>,
}

impl Lods {
    /// The face range of LOD 0, the full-detail mesh. No offsets, or an empty first
    /// range (`[0, 0]`), mean every face is LOD 0.
    pub fn lod0(&self, num_faces: usize) -> std::ops::Range<usize> {
        match self.offsets.as_slice() {
            [a, b, ..] if b > a => (*a as usize).min(num_faces)..(*b as usize).min(num_faces),
            _ => 0..num_faces,
        }
    }

    /// Number of LODs (at least 1).
    pub fn count(&self) -> usize {
        self.offsets.len().saturating_sub(1).max(1)
    }
}

/// A bone of the skeleton.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct MeshBone {
    /// Name (from the name table).
    pub name: String,
    /// Parent bone index, `None` for a root (0xFFFF in the file).
    pub parent: Option<u16>,
    /// Parent at lower LODs, `None` for none.
    pub lod_parent: Option<u16>,
    /// Distance to the furthest vertex the bone influences.
    pub culling: f32,
    /// World-space rotation, row major (`r00 … r22`).
    pub rotation: [f32; 9],
    /// World-space position.
    pub position: [f32; 3],
}

/// One bone influence.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Influence {
    /// Index into [`Mesh::skeleton`] (0 when `weight` is 0).
    pub bone: u16,
    /// Weight, 0–255; the four of a vertex sum to 255 in real files.
    pub weight: u8,
}

/// Up to four bone influences of one vertex.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct VertexSkin {
    /// The influences, in file order.
    pub influences: [Influence; 4],
}

/// FACS data, decoded.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct FacsRig {
    /// Bones FACS drives (rows of the matrices).
    pub face_bone_names: Vec<String>,
    /// Control names (`c_JD`, `l_EC` …), the first columns.
    pub control_names: Vec<String>,
    /// Two-pose correctives: control indices; the columns after the controls.
    pub two_pose_correctives: Vec<[u16; 2]>,
    /// Three-pose correctives: control indices; the last columns.
    pub three_pose_correctives: Vec<[u16; 3]>,
    /// `poses[column][face bone]`: position and rotation (degrees) of each bone at
    /// full weight of each control or corrective.
    pub poses: Vec<Vec<BonePose>>,
    /// How each of the six matrices (px, py, pz, rx, ry, rz) was stored.
    pub encodings: [MatrixEncoding; 6],
}

/// A face bone's offset at full weight of one pose.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct BonePose {
    /// Translation.
    pub position: [f32; 3],
    /// Rotation, Euler XYZ in degrees.
    pub rotation: [f32; 3],
}

/// How a FACS matrix is stored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub enum MatrixEncoding {
    /// Version 1: raw f32.
    Raw,
    /// Version 2: u16 between `min` and `max` (written this way unless it came raw).
    #[default]
    Quantized,
}

impl Mesh {
    /// [`Mesh::read`] filling the arrays of meshes read before (given to `spare` with
    /// [`Mesh::recycle`], or files with [`crate::Spare::keep`]) instead of allocating new
    /// ones: for reading many files one after another. The arrays of the raw file read
    /// on the way go back to `spare`.
    pub fn read_reusing(bytes: &[u8], spare: &mut crate::Spare) -> Result<Mesh> {
        spare.lend(|| Self::read(bytes))
    }

    /// Gives the mesh's big arrays (vertices, faces, skinning) to `spare` for a later
    /// [`Mesh::read_reusing`] or file read to fill.
    pub fn recycle(self, spare: &mut crate::Spare) {
        // As the raw record, which file reads fill.
        spare.put(bytemuck::allocation::cast_vec::<MeshVertex, Vertex>(
            self.vertices,
        ));
        spare.put(bytemuck::allocation::cast_vec::<[u32; 3], Face>(self.faces));
        // The skinning first: it may share the stored skin.
        if let Some(s) = self.skinning.and_then(Skinning::into_resolved) {
            spare.put(s);
        }
        if let Some(skin) = self
            .stored
            .skin
            .and_then(|s| std::sync::Arc::try_unwrap(s).ok())
        {
            spare.put(skin.envelopes.into_vec());
            spare.put(skin.subsets.into_vec());
        }
    }

    /// Reads any FileMesh file into the model.
    pub fn read(bytes: &[u8]) -> Result<Mesh> {
        let mut file = FileMesh::read(bytes)?;
        // The raw file is ours: its skinning arrays move into the model's record of
        // what was stored instead of being copied.
        if let Body::V4(b) = &mut file.body {
            let skin = SkinningV1 {
                envelopes: std::mem::take(&mut b.envelopes),
                bones: std::mem::take(&mut b.bones),
                bone_names: std::mem::take(&mut b.bone_names),
                subsets: std::mem::take(&mut b.subsets),
            };
            // Faces are the same twelve bytes in both, and so are vertices: the arrays
            // move, not a copy.
            let faces = std::mem::take(&mut b.faces);
            let vertices =
                bytemuck::allocation::cast_vec(std::mem::take(&mut b.vertices).into_vec());
            let mut m = v4_model(b, vertices, skin, file.version)?;
            m.faces = bytemuck::allocation::cast_vec(faces.into_vec());
            m.stored.version = Some(file.version);
            // What is left of the raw file (its vertices) goes to the running read's
            // spare, if it has one.
            crate::Spare::give_current(file);
            return Ok(m);
        }
        Mesh::from_file(&file)
    }

    /// The model of a raw file, with the default [`Limits`] for Draco.
    pub fn from_file(file: &FileMesh) -> Result<Mesh> {
        Mesh::from_file_with_limits(file, &Limits::default())
    }

    /// Whether [`Mesh::from_file_with_limits`] would accept `file`, with the same error,
    /// without building the model: skinning and FACS are decoded and checked, a Draco
    /// core mesh is decoded ([`survey`](crate::codec::draco::survey)), and no
    /// array is copied. `meshcodec verify` uses it, so checking a big file takes
    /// little more memory than the file (and, for a Draco core mesh, the decoder).
    pub fn check_file(file: &FileMesh, limits: &Limits) -> Result<()> {
        match &file.body {
            Body::V1(_) | Body::V2(_) => Ok(()),
            Body::V4(b) => {
                if !b.bones.is_empty() {
                    check_skinning(&b.envelopes, &b.subsets, b.bones.len())?;
                }
                if let Facs::Data(d) = &b.facs {
                    facs(d)?;
                }
                Ok(())
            }
            Body::V6(b) => {
                // The chunks the model reads, checked as `read_chunk` reads them, with
                // nothing copied: a Draco core mesh is decoded and its values left where
                // the decoder put them.
                let mut read = Vec::with_capacity(b.chunks.len());
                for c in &b.chunks {
                    let Some(kind) = model_kind(&c.data) else {
                        continue;
                    };
                    if read.contains(&kind) {
                        continue;
                    }
                    read.push(kind);
                    match &c.data {
                        ChunkData::CoreMeshV2(cm) => {
                            crate::codec::draco::survey(&cm.draco, limits)?;
                        }
                        ChunkData::SkinningV1(s) if !s.bones.is_empty() => {
                            check_skinning(&s.envelopes, &s.subsets, s.bones.len())?;
                        }
                        ChunkData::FacsV1(f) => {
                            if let Facs::Data(d) = &f.facs {
                                facs(d)?;
                            }
                        }
                        _ => {}
                    }
                }
                Ok(())
            }
        }
    }

    /// The model of a raw file, with explicit [`Limits`] for Draco.
    pub fn from_file_with_limits(file: &FileMesh, limits: &Limits) -> Result<Mesh> {
        let mut m = match &file.body {
            Body::V1(b) => from_text(b, file.version),
            Body::V2(b) => {
                let layout = if file.version.has_lods() {
                    HeaderLayout::V3
                } else {
                    HeaderLayout::V2
                };
                Mesh {
                    // Raw and model vertices are the same 40 bytes: one pass.
                    vertices: bytemuck::allocation::cast_vec(b.vertices.to_vertices()),
                    faces: b.faces.iter().map(|f| f.indices).collect(),
                    lods: Lods {
                        offsets: b
                            .lods
                            .as_ref()
                            .map(|l| l.lod_offsets.to_vec())
                            .unwrap_or_default(),
                        ..Lods::default()
                    },
                    stored: Stored {
                        vertex_size: Some(b.vertices.vertex_size()),
                        sizeof_lod_offset: b.lods.as_ref().map(|l| l.sizeof_lod_offset),
                        header_tail: tail(layout, &b.header_tail),
                        trailing: b.trailing.to_vec(),
                        ..Stored::default()
                    },
                    ..Mesh::default()
                }
            }
            Body::V4(b) => {
                let skin = SkinningV1 {
                    envelopes: b.envelopes.clone(),
                    bones: b.bones.clone(),
                    bone_names: b.bone_names.clone(),
                    subsets: b.subsets.clone(),
                };
                v4_model(b, vertices_of(&b.vertices), skin, file.version)?
            }
            Body::V6(b) => {
                let mut m = Mesh::default();
                let mut slots = Vec::with_capacity(b.chunks.len());
                // The first chunk of each kind counts, as the engine reads it; the others
                // are kept whole.
                for c in &b.chunks {
                    let Some(kind) = model_kind(&c.data) else {
                        slots.push(ChunkSlot::Kept(Box::new(c.clone())));
                        continue;
                    };
                    if slots.contains(&ChunkSlot::Model(kind)) {
                        slots.push(ChunkSlot::Kept(Box::new(c.clone())));
                        continue;
                    }
                    slots.push(ChunkSlot::Model(kind));
                    read_chunk(&mut m, c, file.version, limits)?;
                }
                m.stored.chunks = Some(slots);
                m
            }
        };
        m.stored.version = Some(file.version);
        Ok(m)
    }
}

/// The model vertices of raw 40-byte vertices (the same bytes), in an array from the
/// running read's spare when it has one.
fn vertices_of(raw: &[Vertex]) -> Vec<MeshVertex> {
    let mut v: Vec<Vertex> = crate::Spare::vec_for(raw.len());
    v.extend_from_slice(raw);
    bytemuck::allocation::cast_vec(v)
}

/// The model of a 4.00–5.00 body whose vertices are `vertices` and skinning arrays
/// `skin`.
fn v4_model(
    b: &FileMeshV4,
    vertices: Vec<MeshVertex>,
    skin: SkinningV1,
    version: Version,
) -> Result<Mesh> {
    let layout = if version.has_facs() {
        HeaderLayout::V5
    } else {
        HeaderLayout::V4
    };
    let mut m = Mesh {
        vertices,
        faces: b.faces.iter().map(|f| f.indices).collect(),
        lods: Lods {
            lod_type: b.lod_type,
            num_high_quality_lods: b.num_high_quality_lods,
            offsets: b.lod_offsets.clone().into(),
        },
        ..Mesh::default()
    };
    read_skin(&mut m, skin)?;
    if let Facs::Data(d) = &b.facs {
        m.facs = Some(facs(d)?);
    }
    m.stored = Stored {
        header_tail: tail(layout, &b.header_tail),
        padding: Some(b.unused_padding),
        trailing: b.trailing.to_vec(),
        skin: m.stored.skin.take(),
        facs: version.has_facs().then(|| StoredFacs {
            format: Some(b.facs_data_format),
            facs: b.facs.clone(),
        }),
        ..Stored::default()
    };
    Ok(m)
}

/// Header bytes beyond the known fields, if there are any.
fn tail(layout: HeaderLayout, bytes: &[u8]) -> Option<HeaderTail> {
    (!bytes.is_empty()).then(|| HeaderTail {
        layout,
        bytes: bytes.to_vec(),
    })
}

/// Bones and skinning from a stored skin (4.00+ body or SKINNING chunk), which the
/// model keeps as stored: the skinning is checked now and resolved from it when first
/// looked at ([`Skinning`]).
fn read_skin(m: &mut Mesh, s: SkinningV1) -> Result<()> {
    m.skeleton = bones(&s.bones, &s.bone_names);
    let s = std::sync::Arc::new(s);
    if !s.bones.is_empty() {
        check_skinning(&s.envelopes, &s.subsets, s.bones.len())?;
        m.skinning = Some(Skinning::stored(std::sync::Arc::clone(&s)));
    }
    m.stored.skin = Some(s);
    Ok(())
}

/// The kind of chunk the model reads a payload as; `None` for one it keeps as bytes.
fn model_kind(data: &ChunkData) -> Option<ChunkKind> {
    Some(match data {
        ChunkData::CoreMeshV1(_) | ChunkData::CoreMeshV2(_) => ChunkKind::CoreMesh,
        ChunkData::LodsV1(_) => ChunkKind::Lods,
        ChunkData::SkinningV1(_) => ChunkKind::Skinning,
        ChunkData::FacsV1(_) => ChunkKind::Facs,
        ChunkData::HsrAvisV1(_) => ChunkKind::HsrAvis,
        ChunkData::Unknown(_) => return None,
    })
}

/// Reads the first chunk of a kind into the model, recording how it was stored.
fn read_chunk(m: &mut Mesh, c: &Chunk, version: Version, limits: &Limits) -> Result<()> {
    match &c.data {
        ChunkData::CoreMeshV1(cm) => {
            m.vertices = cm.vertices.iter().map(vertex).collect();
            m.faces = cm.faces.iter().map(|f| f.indices).collect();
            // 6.00 has only version 1 (spec): a choice only in 7.00.
            if version == Version::V7_00 {
                m.stored.core = Some(StoredCore::Uncompressed);
            }
        }
        ChunkData::CoreMeshV2(cm) => {
            // The decoded arrays have the model's layout: they move, not a copy.
            let core = cm.decode(limits)?;
            m.vertices = bytemuck::allocation::cast_vec(core.vertices.into_vec());
            m.faces = bytemuck::allocation::cast_vec(core.faces.into_vec());
            m.stored.core = Some(StoredCore::Draco(cm.draco.to_vec()));
        }
        ChunkData::LodsV1(l) => {
            m.lods = Lods {
                lod_type: l.lod_type,
                num_high_quality_lods: l.num_high_quality_lods,
                offsets: l.lod_offsets.clone().into(),
            };
        }
        ChunkData::SkinningV1(s) => {
            read_skin(m, s.clone())?;
        }
        ChunkData::FacsV1(f) => {
            if let Facs::Data(d) = &f.facs {
                m.facs = Some(facs(d)?);
            }
            m.stored.facs = Some(StoredFacs {
                format: None,
                facs: f.facs.clone(),
            });
        }
        ChunkData::HsrAvisV1(h) => {
            m.hsr_always_visible = Some(h.flags());
            m.stored.hsr = Some(h.clone());
        }
        ChunkData::Unknown(_) => {}
    }
    Ok(())
}

pub(crate) fn vertex(v: &Vertex) -> MeshVertex {
    MeshVertex {
        position: v.position,
        normal: v.normal,
        uv: v.uv,
        tangent_bytes: v.tangent,
        color: v.color,
    }
}

/// 1.x: one vertex per face corner; 1.00 positions halved; V flipped. Done in f32.
fn from_text(b: &crate::filemesh::raw::FileMeshV1, version: Version) -> Mesh {
    // Each array collected from a slice of the vertex points: sized once, no checks of
    // capacity per vertex.
    let points = b.faces.as_flattened();
    let vertices = points
        .iter()
        .map(|v| text_model_vertex(v, version))
        .collect();
    // The text's V, and whether any `w` is other than +0 (its bits, so −0 counts).
    let mut w_bits = 0u32;
    let v = points
        .iter()
        .map(|p| {
            w_bits |= p.uvw[2].to_bits();
            p.uvw[1]
        })
        .collect();
    // Every `w` +0 (as in every real file): none kept, which reads as +0 for each.
    let w = if w_bits != 0 {
        points.iter().map(|p| p.uvw[2]).collect()
    } else {
        Vec::new()
    };
    let mut m = Mesh {
        vertices,
        faces: (0..b.faces.len() as u32)
            .map(|i| [3 * i, 3 * i + 1, 3 * i + 2])
            .collect(),
        ..Mesh::default()
    };
    m.stored.text = Some(StoredText {
        format: b.format,
        w,
        printed_otherwise: b.overrides().len(),
        v,
    });
    m
}

/// A text vertex point as the model holds it: 1.00 positions halved, V flipped, no
/// tangent, white.
pub(crate) fn text_model_vertex(
    v: &crate::filemesh::raw::text::VertexV1,
    version: Version,
) -> MeshVertex {
    let scale = if version == Version::V1_00 { 0.5 } else { 1.0 };
    let [x, y, z] = v.position;
    MeshVertex {
        position: [x * scale, y * scale, z * scale],
        normal: v.normal,
        uv: [v.uvw[0], 1.0 - v.uvw[1]],
        tangent_bytes: Tangent::ABSENT_BYTES,
        color: [255; 4],
    }
}

pub(crate) fn parent(i: u16) -> Option<u16> {
    (i != 0xFFFF).then_some(i)
}

pub(crate) fn bones(raw: &[Bone], table: &[u8]) -> Vec<MeshBone> {
    raw.iter()
        .map(|b| MeshBone {
            name: name_at(table, b.bone_name_index).unwrap_or_default(),
            parent: parent(b.parent_index),
            lod_parent: parent(b.lod_parent_index),
            culling: b.culling,
            rotation: b.rotation,
            position: b.position,
        })
        .collect()
}

pub(crate) fn facs(d: &FacsData) -> Result<FacsRig> {
    let q = &d.quantized_transforms;
    let mats = q.matrices();
    let rows = q.px.rows;
    let cols = q.px.cols;
    if mats.iter().any(|m| m.rows != rows || m.cols != cols) {
        return Err(Error::new(
            "FACS",
            ErrorKind::Invalid("the six QuantizedMatrix differ in size".into()),
        ));
    }
    let get = |m: &QuantizedMatrix, r: u32, c: u32| m.get(r, c).unwrap_or(0.0);
    let poses = (0..cols)
        .map(|c| {
            (0..rows)
                .map(|r| BonePose {
                    position: [get(&q.px, r, c), get(&q.py, r, c), get(&q.pz, r, c)],
                    rotation: [get(&q.rx, r, c), get(&q.ry, r, c), get(&q.rz, r, c)],
                })
                .collect()
        })
        .collect();
    let enc = |m: &QuantizedMatrix| match m.data {
        MatrixData::Raw(_) => MatrixEncoding::Raw,
        MatrixData::Quantized { .. } => MatrixEncoding::Quantized,
    };
    Ok(FacsRig {
        face_bone_names: split_names(&d.face_bone_names_blob),
        control_names: split_names(&d.face_control_names_blob),
        two_pose_correctives: d
            .two_pose_correctives
            .iter()
            .map(|c| c.control_indices)
            .collect(),
        three_pose_correctives: d
            .three_pose_correctives
            .iter()
            .map(|c| c.control_indices)
            .collect(),
        poses,
        encodings: mats.map(enc),
    })
}

/// Exact equality: floats compare by their bits (so NaN equals the same NaN and −0 differs
/// from +0), as a byte-exact round trip needs.
pub(crate) trait SameBits {
    /// True when both hold the same bits.
    fn same_bits(&self, other: &Self) -> bool;
}

impl SameBits for f32 {
    fn same_bits(&self, other: &Self) -> bool {
        self.to_bits() == other.to_bits()
    }
}

impl<T: SameBits> SameBits for [T] {
    fn same_bits(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().zip(other).all(|(a, b)| a.same_bits(b))
    }
}

impl<T: SameBits, const N: usize> SameBits for [T; N] {
    fn same_bits(&self, other: &Self) -> bool {
        self.as_slice().same_bits(other.as_slice())
    }
}

impl<T: SameBits> SameBits for Vec<T> {
    fn same_bits(&self, other: &Self) -> bool {
        self.as_slice().same_bits(other.as_slice())
    }
}

impl<T: SameBits> SameBits for Option<T> {
    fn same_bits(&self, other: &Self) -> bool {
        match (self, other) {
            (Some(a), Some(b)) => a.same_bits(b),
            (None, None) => true,
            _ => false,
        }
    }
}

/// Types without floats: bitwise equality is `==`.
macro_rules! same_bits_by_eq {
    ($($t:ty),*) => {$(
        impl SameBits for $t {
            fn same_bits(&self, other: &Self) -> bool {
                self == other
            }
        }
    )*};
}
same_bits_by_eq!(u8, u16, u32, bool, String, VertexSkin, MatrixEncoding);

impl SameBits for MeshVertex {
    fn same_bits(&self, other: &Self) -> bool {
        self.position.same_bits(&other.position)
            && self.normal.same_bits(&other.normal)
            && self.uv.same_bits(&other.uv)
            && self.tangent_bytes == other.tangent_bytes
            && self.color == other.color
    }
}

impl SameBits for MeshBone {
    fn same_bits(&self, other: &Self) -> bool {
        self.name == other.name
            && self.parent == other.parent
            && self.lod_parent == other.lod_parent
            && self.culling.same_bits(&other.culling)
            && self.rotation.same_bits(&other.rotation)
            && self.position.same_bits(&other.position)
    }
}

impl SameBits for BonePose {
    fn same_bits(&self, other: &Self) -> bool {
        self.position.same_bits(&other.position) && self.rotation.same_bits(&other.rotation)
    }
}

impl SameBits for FacsRig {
    fn same_bits(&self, other: &Self) -> bool {
        self.face_bone_names == other.face_bone_names
            && self.control_names == other.control_names
            && self.two_pose_correctives == other.two_pose_correctives
            && self.three_pose_correctives == other.three_pose_correctives
            && self.poses.same_bits(&other.poses)
            && self.encodings == other.encodings
    }
}

impl MeshVertex {
    /// The 40-byte record of this vertex.
    pub fn to_raw(&self) -> Vertex {
        Vertex {
            position: self.position,
            normal: self.normal,
            uv: self.uv,
            tangent: self.tangent_bytes,
            color: self.color,
        }
    }

    /// The tangent, or `None` for the "no tangent" bytes `7f 7f 7f 00`.
    pub fn tangent(&self) -> Option<Tangent> {
        Tangent::from_bytes(self.tangent_bytes)
    }

    /// Sets the tangent (`None`: no tangent), encoded as [`Tangent::to_bytes`] does.
    pub fn set_tangent(&mut self, tangent: Option<Tangent>) {
        self.tangent_bytes = Tangent::to_bytes(tangent);
    }
}

impl Mesh {
    // ---- The mesh's arrays, as conversion and export read them. ----

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

    pub(crate) fn lod0_faces(&self) -> &[[u32; 3]] {
        self.faces
            .get(self.lods.lod0(self.faces.len()))
            .unwrap_or_default()
    }

    /// Face ranges (start, end) of the LODs, LOD 0 first; an empty first range
    /// (`[0, 0]`) or no offsets mean one LOD of every face.
    pub fn lod_ranges(&self) -> Vec<(usize, usize)> {
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

    /// The vertices as the file's 40-byte records (the same bytes, borrowed).
    pub(crate) fn raw_vertex_slice(&self) -> &[Vertex] {
        bytemuck::cast_slice(&self.vertices)
    }
}
