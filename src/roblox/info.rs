//! A summary of a FileMesh: what `meshcodec info` prints.

use serde::Serialize;

use super::{Body, Facs, FileMesh};
use crate::roblox::records::{name_at, split_names};

/// Counts and key values of a FileMesh. Serialises to the `meshcodec info --json` object.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Info {
    /// Always `"filemesh"`.
    pub format: &'static str,
    /// `"4.01"` etc.
    pub version: String,
    /// Number of vertices.
    pub vertices: usize,
    /// Number of faces, LOD faces included.
    pub faces: usize,
    /// Bytes per vertex in the file.
    pub vertex_size: u8,
    /// Header size in bytes, as stored.
    pub header_size: usize,
    /// LOD offsets (face indices).
    pub lod_offsets: Vec<u32>,
    /// `lodType` (4.00+).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lod_type: Option<u16>,
    /// `numHighQualityLODs` (4.00+).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub num_high_quality_lods: Option<u8>,
    /// The header's unused padding byte (4.00+).
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
    /// FACS summary (5.00).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub facs: Option<FacsInfo>,
    /// Bytes after the last structure.
    pub trailing_bytes: usize,
}

/// FACS figures of a 5.00 mesh.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FacsInfo {
    /// `facsDataFormat`.
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

impl FileMesh {
    /// The summary printed by `meshcodec info`.
    pub fn info(&self) -> Info {
        let mut info = Info {
            format: "filemesh",
            version: self.version.to_string(),
            vertices: self.num_vertices(),
            faces: self.num_faces(),
            vertex_size: 40,
            header_size: 0,
            lod_offsets: self.lod_offsets().to_vec(),
            lod_type: None,
            num_high_quality_lods: None,
            padding: None,
            bones: 0,
            bone_names: Vec::new(),
            subsets: 0,
            envelopes: 0,
            facs: None,
            trailing_bytes: self.trailing().len(),
        };
        match &self.body {
            Body::V2(b) => {
                info.vertex_size = b.vertices.vertex_size();
                info.header_size =
                    usize::from(super::FileMeshHeaderV2::known_size(self.version.has_lods()))
                        + b.header_tail.len();
            }
            Body::V4(b) => {
                info.header_size =
                    usize::from(super::FileMeshHeaderV4::known_size(self.version.has_facs()))
                        + b.header_tail.len();
                info.lod_type = Some(b.lod_type);
                info.num_high_quality_lods = Some(b.num_high_quality_lods);
                info.padding = Some(b.unused_padding);
                info.bones = b.bones.len();
                info.bone_names = b
                    .bones
                    .iter()
                    .map(|bone| name_at(&b.bone_names, bone.bone_name_index).unwrap_or_default())
                    .collect();
                info.subsets = b.subsets.len();
                info.envelopes = b.envelopes.len();
                if self.version.has_facs() {
                    let mut f = FacsInfo {
                        format: b.facs_data_format,
                        size: b.facs.byte_size(),
                        parsed: matches!(b.facs, Facs::Data(_)),
                        face_bone_names: Vec::new(),
                        face_control_names: Vec::new(),
                        matrix_versions: Vec::new(),
                        two_pose_correctives: 0,
                        three_pose_correctives: 0,
                    };
                    if let Facs::Data(d) = &b.facs {
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
                    info.facs = Some(f);
                }
            }
        }
        info
    }
}
