//! A summary of a FileMesh: what `meshcodec info` prints.

use serde::Serialize;

use super::chunks::{chunk_type_name, ChunkData};
use super::{Body, Facs, FileMesh, Version, VertexArray};
use crate::error::{Limits, Result};
use crate::filemesh::raw::records::{name_at, split_names, Bone, NonFiniteCounts, Vertex};
use crate::io::{Arrays, Counted};

/// Counts and key values of a FileMesh. Serialises to the `meshcodec info --json` object.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Info {
    /// Always `"filemesh"`.
    pub format: &'static str,
    /// `"4.01"` etc.
    pub version: String,
    /// Number of vertices (1.0x: three per face).
    pub vertices: usize,
    /// Number of faces, LOD faces included.
    pub faces: usize,
    /// Bytes per vertex in the file (binary versions).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vertex_size: Option<u8>,
    /// Header size in bytes, as stored (2.00–5.00).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub header_size: Option<usize>,
    /// LOD offsets (face indices).
    pub lod_offsets: Vec<u32>,
    /// `lodType` (4.00+).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lod_type: Option<u16>,
    /// `numHighQualityLODs` (4.00+).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub num_high_quality_lods: Option<u8>,
    /// The header's unused padding byte (4.00–5.00).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub padding: Option<u8>,
    /// Number of bones.
    pub bones: usize,
    /// Bone names, in bone order.
    pub bone_names: Vec<String>,
    /// Number of subsets.
    pub subsets: usize,
    /// Number of envelopes (per-vertex skinning records).
    pub envelopes: usize,
    /// FACS summary (5.00, or a FACS chunk).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub facs: Option<FacsInfo>,
    /// Number of HSR "always visible" flags (an HSRAVIS chunk).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hsr_flags: Option<u32>,
    /// The chunks of a 6.00/7.00 file, in order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chunks: Option<Vec<ChunkInfo>>,
    /// Bytes after the last structure.
    pub trailing_bytes: usize,
    /// Vertices with values that are not finite (kept as read; see
    /// [`NonFiniteCounts`]).
    pub non_finite: NonFiniteCounts,
}

/// One chunk of a 6.00/7.00 file.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ChunkInfo {
    /// Chunk type without its NUL padding (`LODS`).
    pub name: String,
    /// Chunk version.
    pub version: u32,
    /// Payload size in bytes.
    pub size: usize,
    /// How the payload was read (`COREMESH v2`, `unknown` …).
    pub kind: &'static str,
}

/// FACS figures.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FacsInfo {
    /// `facsDataFormat` (1 for a FACS chunk, which has no such field).
    pub format: u32,
    /// `facsDataSize`.
    pub size: u64,
    /// Whether the bytes were parsed as a FACS block (else kept opaque).
    pub parsed: bool,
    /// Face bone names.
    pub face_bone_names: Vec<String>,
    /// Control names.
    pub face_control_names: Vec<String>,
    /// `QuantizedMatrix.version` of px, py, pz, rx, ry, rz.
    pub matrix_versions: Vec<u16>,
    /// Number of two-pose correctives.
    pub two_pose_correctives: usize,
    /// Number of three-pose correctives.
    pub three_pose_correctives: usize,
}

impl FacsInfo {
    fn new(facs: &Facs, format: u32) -> FacsInfo {
        let mut f = FacsInfo {
            format,
            size: facs.byte_size(),
            parsed: matches!(facs, Facs::Data(_)),
            face_bone_names: Vec::new(),
            face_control_names: Vec::new(),
            matrix_versions: Vec::new(),
            two_pose_correctives: 0,
            three_pose_correctives: 0,
        };
        if let Facs::Data(d) = facs {
            f.face_bone_names = split_names(&d.face_bone_names_blob);
            f.face_control_names = split_names(&d.face_control_names_blob);
            f.matrix_versions = d
                .quantized_transforms
                .matrices()
                .iter()
                .map(|m| m.data.version())
                .collect();
            f.two_pose_correctives = d.two_pose_correctives.len();
            f.three_pose_correctives = d.three_pose_correctives.len();
        }
        f
    }
}

fn bone_names(bones: &[Bone], table: &[u8]) -> Vec<String> {
    bones
        .iter()
        .map(|b| name_at(table, b.bone_name_index).unwrap_or_default())
        .collect()
}

impl Info {
    /// An empty summary of a FileMesh of `version`.
    pub(super) fn of_version(version: super::Version) -> Info {
        Info {
            format: "filemesh",
            version: version.to_string(),
            ..Info::default()
        }
    }

    /// The vertex and face figures of a 2.00/3.0x body.
    pub(super) fn set_v2(
        &mut self,
        version: super::Version,
        vertex_size: u8,
        non_finite: NonFiniteCounts,
        faces: usize,
        header_extra: usize,
    ) {
        self.vertex_size = Some(vertex_size);
        self.non_finite = non_finite;
        self.faces = faces;
        self.header_size = Some(
            usize::from(super::FileMeshHeaderV2::known_size(version.has_lods())) + header_extra,
        );
    }

    /// The header, vertex and face figures of a 4.00–5.00 body; `lod` is `lodType`,
    /// `numHighQualityLODs` and the padding byte.
    pub(super) fn set_v4(
        &mut self,
        version: super::Version,
        vertices: usize,
        non_finite: NonFiniteCounts,
        faces: usize,
        header_extra: usize,
        (lod_type, high_quality, padding): (u16, u8, u8),
    ) {
        self.set_core(vertices, faces, non_finite);
        self.header_size = Some(
            usize::from(super::FileMeshHeaderV4::known_size(version.has_facs())) + header_extra,
        );
        self.lod_type = Some(lod_type);
        self.num_high_quality_lods = Some(high_quality);
        self.padding = Some(padding);
    }

    /// The figures of a core mesh of 40-byte vertices.
    pub(super) fn set_core(&mut self, vertices: usize, faces: usize, non_finite: NonFiniteCounts) {
        self.vertex_size = Some(40);
        self.vertices = vertices;
        self.faces = faces;
        self.non_finite = non_finite;
    }

    /// The skinning figures.
    pub(super) fn set_skin(
        &mut self,
        bones: &[Bone],
        names: &[u8],
        subsets: usize,
        envelopes: usize,
    ) {
        self.bones = bones.len();
        self.bone_names = bone_names(bones, names);
        self.subsets = subsets;
        self.envelopes = envelopes;
    }

    /// The FACS figures.
    pub(super) fn set_facs(&mut self, facs: &Facs, format: u32) {
        self.facs = Some(FacsInfo::new(facs, format));
    }

    /// The figures of a LODS, FACS or HSRAVIS chunk, if it is the first of its kind (as
    /// the engine reads them). Core mesh and skinning chunks are the caller's.
    pub(super) fn set_chunk<A: Arrays>(&mut self, data: &ChunkData<A>) {
        match data {
            ChunkData::LodsV1(l) if self.lod_type.is_none() => {
                self.lod_type = Some(l.lod_type);
                self.num_high_quality_lods = Some(l.num_high_quality_lods);
            }
            ChunkData::FacsV1(f) if self.facs.is_none() => self.set_facs(&f.facs, 1),
            ChunkData::HsrAvisV1(h) if self.hsr_flags.is_none() => {
                self.hsr_flags = Some(h.num_bits);
            }
            _ => {}
        }
    }
}

impl FileMesh {
    /// The summary printed by `meshcodec info`, with the default [`Limits`].
    /// For a Draco core mesh (7.00) the counts come from decoding it.
    pub fn info(&self) -> Result<Info> {
        self.info_with_limits(&Limits::default())
    }

    /// [`FileMesh::info`] with explicit limits for the Draco decoder.
    pub fn info_with_limits(&self, limits: &Limits) -> Result<Info> {
        self.body.info(self.version, &[], limits)
    }
}

impl<A: Arrays> Body<A> {
    /// The summary of this body of `version`, read from `input` (the bytes after the
    /// version line, where arrays left in place lie; see [`Arrays::records`]): one
    /// description for the owned file and the borrowed view.
    pub(crate) fn info(&self, version: Version, input: &[u8], limits: &Limits) -> Result<Info> {
        let mut info = Info::of_version(version);
        info.lod_offsets = self.lod_offsets().to_vec();
        match self {
            Body::V1(b) => {
                info.faces = b.num_faces();
                info.vertices = b.num_faces() * 3;
                for v in b.faces.iter().flatten() {
                    info.non_finite.add(&v.position, &v.normal, &v.uvw[..2]);
                }
            }
            Body::V2(b) => {
                info.vertices = b.vertices.len();
                let non_finite = match &b.vertices {
                    VertexArray::Size36(v) => {
                        NonFiniteCounts::of_iter(A::records(v, input).map(Vertex::from))
                    }
                    VertexArray::Size40(v) => NonFiniteCounts::of_iter(A::records(v, input)),
                };
                info.set_v2(
                    version,
                    b.vertices.vertex_size(),
                    non_finite,
                    b.faces.len(),
                    b.header_tail.len(),
                );
                info.trailing_bytes = b.trailing.len();
            }
            Body::V4(b) => {
                info.set_v4(
                    version,
                    b.vertices.len(),
                    NonFiniteCounts::of_iter(A::records(&b.vertices, input)),
                    b.faces.len(),
                    b.header_tail.len(),
                    (b.lod_type, b.num_high_quality_lods, b.unused_padding),
                );
                info.set_skin(&b.bones, &b.bone_names, b.subsets.len(), b.envelopes.len());
                if version.has_facs() {
                    info.set_facs(&b.facs, b.facs_data_format);
                }
                info.trailing_bytes = b.trailing.len();
            }
            Body::V6(b) => {
                let mut chunks = Vec::new();
                // File offset of each chunk's payload, to place Draco errors in the file.
                let mut payload_at = super::VERSION_LINE_LEN as u64 + 16;
                for c in &b.chunks {
                    chunks.push(ChunkInfo {
                        name: chunk_type_name(&c.chunk_type),
                        version: c.chunk_version,
                        size: c.data.byte_size(),
                        kind: c.data.kind(),
                    });
                    // The first chunk of each kind counts, as the engine reads it.
                    match &c.data {
                        ChunkData::CoreMeshV1(m) if info.vertex_size.is_none() => {
                            info.set_core(
                                m.vertices.len(),
                                m.faces.len(),
                                NonFiniteCounts::of_iter(A::records(&m.vertices, input)),
                            );
                        }
                        ChunkData::CoreMeshV2(m) if info.vertex_size.is_none() => {
                            // The bitstream follows the payload's u32 length.
                            let core =
                                crate::codec::draco::survey(A::bytes(&m.draco, input), limits)
                                    .map_err(|mut e| {
                                        e.shift(payload_at + 4);
                                        e
                                    })?;
                            info.set_core(core.points, core.faces, core.non_finite);
                        }
                        ChunkData::SkinningV1(s) if info.bone_names.is_empty() => {
                            info.set_skin(
                                &s.bones,
                                &s.bone_names,
                                s.subsets.len(),
                                s.envelopes.len(),
                            );
                        }
                        other => info.set_chunk(other),
                    }
                    payload_at += 16 + c.data.byte_size() as u64;
                }
                info.chunks = Some(chunks);
            }
        }
        Ok(info)
    }
}
