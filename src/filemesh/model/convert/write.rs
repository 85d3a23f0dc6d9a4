//! Write: the raw [`FileMesh`] of a target version, its bytes laid out from the parts
//! [`plan`](super::plan) decides (and the COREMESH [`core_mesh`](super::core_mesh)
//! plans), or a text target printed face by face.

use super::core_mesh::{core_plan, Blob, CorePlan, DracoMemo};
use super::plan::WriteOptions;
use crate::error::{Error, ErrorKind, Result};
use crate::filemesh::model::stored::ChunkKind;
use crate::filemesh::model::{Mesh, MeshVertex};
use crate::filemesh::raw::chunks::{Chunk, ChunkData, CoreMeshV1, CoreMeshV2, FileMeshV6};
use crate::filemesh::raw::facs::Facs;
use crate::filemesh::raw::records::{Face, Vertex};
use crate::filemesh::raw::text::{FileMeshV1, TextFormat, VertexV1};
use crate::filemesh::raw::v2::{FileMeshV2, LodOffsetsV3, VertexArray};
use crate::filemesh::raw::v4::FileMeshV4;
use crate::filemesh::raw::{Body, FileMesh, Version};

impl Mesh {
    /// Writes the mesh as `target`, dropping what the version cannot hold (see
    /// [`Mesh::convert`] for the report).
    pub fn to_file(&self, target: Version) -> Result<FileMesh> {
        self.to_file_with(target, &WriteOptions::default())
    }

    /// [`Mesh::to_file`] with options.
    pub fn to_file_with(&self, target: Version, options: &WriteOptions) -> Result<FileMesh> {
        self.to_file_warm(target, options, &DracoMemo::default())
    }

    /// [`Mesh::to_file_with`], looking up the Draco work in `warm` before doing it.
    pub(super) fn to_file_warm(
        &self,
        target: Version,
        options: &WriteOptions,
        warm: &DracoMemo<'_>,
    ) -> Result<FileMesh> {
        self.check_indices()?;
        let body = match target {
            Version::V1_00 | Version::V1_01 => Body::V1(self.to_text(target)),
            Version::V2_00 | Version::V3_00 | Version::V3_01 => Body::V2(self.to_v2(target)),
            Version::V4_00 | Version::V4_01 | Version::V5_00 => Body::V4(self.to_v4(target)?),
            Version::V6_00 | Version::V7_00 => Body::V6(self.to_v6(target, options, warm)?),
        };
        Ok(FileMesh {
            version: target,
            body,
        })
    }

    pub(crate) fn raw_vertices(&self) -> Vec<Vertex> {
        self.vertices.iter().map(MeshVertex::to_raw).collect()
    }

    fn raw_faces(faces: &[[u32; 3]]) -> Vec<Face> {
        faces.iter().map(|&indices| Face { indices }).collect()
    }

    /// The COREMESH payload for a chunked target (see the module docs).
    /// The Draco work in `warm` is looked up, not redone.
    pub(crate) fn core_for(
        &self,
        target: Version,
        options: &WriteOptions,
        warm: &DracoMemo<'_>,
    ) -> Result<ChunkData> {
        let faces: &[Face] = bytemuck::cast_slice(&self.faces);
        let plan = core_plan(
            self.raw_vertex_slice(),
            faces,
            warm.core_stored(self),
            target,
            options,
            &mut DracoMemo::child(warm),
        )?;
        Ok(match plan {
            // The arrays copied only into a COREMESH v1.
            CorePlan::Uncompressed => ChunkData::CoreMeshV1(CoreMeshV1 {
                vertices: self.raw_vertices().into(),
                faces: faces.to_vec().into(),
            }),
            CorePlan::Draco(Blob::Stored(b)) => draco_chunk(b.to_vec()),
            CorePlan::Draco(Blob::Gone(_)) => {
                return Err(Error::new(
                    crate::codec::draco::CONTEXT,
                    ErrorKind::Inconsistent(
                        "a Draco bitstream dropped to save memory was to be written".into(),
                    ),
                ))
            }
            // The memo is gone: a bitstream encoded here moves into the chunk (one `warm`
            // holds is copied).
            CorePlan::Draco(Blob::Encoded(b)) => {
                draco_chunk(std::rc::Rc::try_unwrap(b).unwrap_or_else(|b| b.to_vec()))
            }
        })
    }

    /// The chunks of a 6.00/7.00 target, in the source's order where there is one.
    pub(crate) fn chunks_for(
        &self,
        target: Version,
        options: &WriteOptions,
        warm: &DracoMemo<'_>,
    ) -> Result<Vec<Chunk>> {
        Ok(self
            .planned_chunks(target, options, warm)?
            .into_iter()
            .map(|(_, c)| c)
            .collect())
    }

    /// [`Mesh::chunks_for`], each chunk with the kind the model wrote it for (`None` for
    /// a chunk kept whole).
    pub(crate) fn planned_chunks(
        &self,
        target: Version,
        options: &WriteOptions,
        warm: &DracoMemo<'_>,
    ) -> Result<Vec<(Option<ChunkKind>, Chunk)>> {
        self.plan_chunks_with(&|| self.lod_offsets_for(), &|| self.skin_for(), &mut || {
            self.core_for(target, options, warm)
        })
    }

    /// The text body: LOD 0's faces, one vertex per corner.
    pub(crate) fn to_text(&self, target: Version) -> FileMeshV1 {
        let (format, faces) = self.text_faces(target);
        FileMeshV1::with_format(faces.collect(), format)
    }

    /// Writes the text file `target` (1.00 or 1.01) of this mesh into `out`, as
    /// [`Mesh::to_file`] gives it, without building it: one face at a time, in pieces of
    /// about 64 KiB.
    pub fn write_text_to(&self, target: Version, out: &mut dyn std::io::Write) -> Result<()> {
        self.check_indices()?;
        let (format, faces) = self.text_faces(target);
        let n = self.lod0_faces().len();
        crate::filemesh::raw::text::write_faces(target, &format, &[], n, faces, out)
    }

    /// The text's format (the source's, or canonical), and its faces: LOD 0's, one
    /// vertex per corner.
    fn text_faces(
        &self,
        target: Version,
    ) -> (TextFormat, impl Iterator<Item = [VertexV1; 3]> + '_) {
        let (format, w, text_v) = self.text_format_w_and_v();
        let faces = self.lod0_faces().iter().map(move |f| {
            f.map(|i| {
                let w = w.get(i as usize).copied().unwrap_or(0.0);
                let text_v = text_v.get(i as usize).copied();
                self.vertices
                    .get(i as usize)
                    .map(|v| text_vertex(v, w, text_v, target))
                    .unwrap_or_default()
            })
        });
        (format, faces)
    }

    fn to_v2(&self, target: Version) -> FileMeshV2 {
        let raw = self.raw_vertices();
        let vertices = if self.vertex_size_for(target) == 36 {
            VertexArray::Size36(raw.iter().map(|&v| v.into()).collect())
        } else {
            VertexArray::Size40(raw.into())
        };
        let (faces, lods) = if target.has_lods() {
            (
                Self::raw_faces(&self.faces),
                Some(LodOffsetsV3 {
                    sizeof_lod_offset: self.sizeof_lod_offset_for(),
                    lod_offsets: self.lod_offsets_for().into(),
                }),
            )
        } else {
            (Self::raw_faces(self.lod0_faces()), None)
        };
        FileMeshV2 {
            header_tail: self.header_tail_for(target).to_vec(),
            vertices,
            faces: faces.into(),
            lods,
            trailing: self.trailing_for(target).to_vec().into(),
        }
    }

    fn to_v4(&self, target: Version) -> Result<FileMeshV4> {
        let skin = self.skin_for()?.into_owned();
        let (facs_data_format, facs) = match self.facs_section_for()? {
            Some(s) if target.has_facs() => {
                let format = match (&s.facs, s.format) {
                    (_, Some(f)) => f,
                    (Facs::None, None) => 0,
                    (_, None) => 1,
                };
                (format, s.facs)
            }
            _ => (0, Facs::None),
        };
        Ok(FileMeshV4 {
            lod_type: self.lods.lod_type,
            num_high_quality_lods: self.lods.num_high_quality_lods,
            unused_padding: self.padding_for(),
            facs_data_format,
            header_tail: self.header_tail_for(target).to_vec(),
            vertices: self.raw_vertices().into(),
            envelopes: skin.envelopes,
            faces: (Self::raw_faces(&self.faces)).into(),
            lod_offsets: self.lod_offsets_for().into(),
            bones: skin.bones,
            bone_names: skin.bone_names,
            subsets: skin.subsets,
            facs,
            trailing: self.trailing_for(target).to_vec().into(),
        })
    }

    fn to_v6(
        &self,
        target: Version,
        options: &WriteOptions,
        warm: &DracoMemo<'_>,
    ) -> Result<FileMeshV6> {
        Ok(FileMeshV6 {
            chunks: self.chunks_for(target, options, warm)?,
        })
    }
}

fn draco_chunk(draco: Vec<u8>) -> ChunkData {
    ChunkData::CoreMeshV2(CoreMeshV2 {
        draco: draco.into(),
    })
}

/// A model vertex as a text vertex point: 1.00 positions doubled, V flipped, numbers that
/// are not finite written as 0 (text cannot hold them). `text_v` is the V of the text
/// the vertex was read from, if it was: written as it was while the model's V is still
/// its flip (`1 − (1 − v)` in `f32` is not always `v`: `0.01` would come back
/// `0.00999999`).
pub(crate) fn text_vertex(
    v: &MeshVertex,
    w: f32,
    text_v: Option<f32>,
    target: Version,
) -> VertexV1 {
    let scale = if target == Version::V1_00 { 2.0 } else { 1.0 };
    let finite = |x: f32| if x.is_finite() { x } else { 0.0 };
    let flipped = match text_v {
        Some(t) if (1.0 - t).to_bits() == v.uv[1].to_bits() => t,
        _ => 1.0 - v.uv[1],
    };
    VertexV1 {
        position: v.position.map(|x| finite(x * scale)),
        normal: v.normal.map(finite),
        uvw: [finite(v.uv[0]), finite(flipped), finite(w)],
    }
}
