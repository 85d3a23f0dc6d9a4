//! The big FileMesh files of the benchmarks (`benches/filemesh.rs`) and of the peak-memory
//! script (`benches/peak_memory.sh`, through `examples/big_files.rs`): deterministic,
//! built in memory.
//!
//! - 4.01: 1,000,000 vertices, 2,000,000 faces, LOD offsets `[0, nfaces]`, 4 bones with
//!   one envelope per vertex, 2 subsets;
//! - 5.00: the same plus a small FACS block (3 face bones, 4 controls, one two-pose and
//!   one three-pose corrective; position matrices raw (version 1), rotation matrices
//!   quantized (version 2)).

use meshcodec::filemesh::raw::{
    Body, Bone, Envelope, Face, Facs, FacsData, FileMesh, FileMeshV4, MatrixData, QuantizedMatrix,
    QuantizedTransforms, Subset, ThreePoseCorrective, TwoPoseCorrective, Version, Vertex,
};

const NUM_VERTS: u32 = 1_000_000;
const NUM_FACES: u32 = 2_000_000;
const NUM_BONES: u16 = 4;

/// xorshift64: deterministic filler so the arrays are not all alike.
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u32(&mut self) -> u32 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        (x >> 32) as u32
    }

    /// A finite float in [-1, 1).
    pub fn unit(&mut self) -> f32 {
        (self.next_u32() >> 8) as f32 / (1u32 << 23) as f32 - 1.0
    }

    pub fn bytes4(&mut self) -> [u8; 4] {
        self.next_u32().to_le_bytes()
    }
}

/// The body shared by both versions, FACS aside.
fn build_body(rng: &mut Rng) -> FileMeshV4 {
    let vertices: Vec<Vertex> = (0..NUM_VERTS)
        .map(|_| Vertex {
            position: [rng.unit() * 10.0, rng.unit() * 10.0, rng.unit() * 10.0],
            normal: [rng.unit(), rng.unit(), rng.unit()],
            uv: [rng.unit(), rng.unit()],
            tangent: rng.bytes4(),
            color: rng.bytes4(),
        })
        .collect();
    let envelopes: Vec<Envelope> = (0..NUM_VERTS)
        .map(|i| {
            let b = (i % u32::from(NUM_BONES)) as u8;
            Envelope {
                bones: [b, (b + 1) % NUM_BONES as u8, 0, 0],
                weights: [200, 55, 0, 0],
            }
        })
        .collect();
    let faces: Vec<Face> = (0..NUM_FACES)
        .map(|_| Face {
            indices: [
                rng.next_u32() % NUM_VERTS,
                rng.next_u32() % NUM_VERTS,
                rng.next_u32() % NUM_VERTS,
            ],
        })
        .collect();

    let names = ["Root", "Head", "LeftArm", "RightArm"];
    let mut bone_names = Vec::new();
    let mut bones = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let bone_name_index = bone_names.len() as u32;
        bone_names.extend_from_slice(name.as_bytes());
        bone_names.push(0);
        bones.push(Bone {
            bone_name_index,
            parent_index: if i == 0 { 0xFFFF } else { 0 },
            lod_parent_index: if i == 0 { 0xFFFF } else { 0 },
            culling: 5.0,
            rotation: [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
            position: [0.0, i as f32, 0.0],
        });
    }
    assert_eq!(bones.len(), usize::from(NUM_BONES));

    let mut bone_indices = [0xFFFF_u16; 26];
    for (i, slot) in bone_indices.iter_mut().take(bones.len()).enumerate() {
        *slot = i as u16;
    }
    let half_faces = NUM_FACES / 2;
    let half_verts = NUM_VERTS / 2;
    let subsets = vec![
        Subset {
            faces_begin: 0,
            faces_length: half_faces,
            verts_begin: 0,
            verts_length: half_verts,
            num_bone_indices: u32::from(NUM_BONES),
            bone_indices,
        },
        Subset {
            faces_begin: half_faces,
            faces_length: NUM_FACES - half_faces,
            verts_begin: half_verts,
            verts_length: NUM_VERTS - half_verts,
            num_bone_indices: u32::from(NUM_BONES),
            bone_indices,
        },
    ];

    FileMeshV4 {
        lod_type: 3,
        num_high_quality_lods: 1,
        unused_padding: 0,
        facs_data_format: 0,
        header_tail: Vec::new(),
        vertices: vertices.into(),
        envelopes: envelopes.into(),
        faces: faces.into(),
        lod_offsets: vec![0, NUM_FACES].into(),
        bones: bones.into(),
        bone_names: bone_names.into(),
        subsets: subsets.into(),
        facs: Facs::None,
        trailing: Default::default(),
    }
}

fn names_blob(names: &[&str]) -> Vec<u8> {
    let mut blob = Vec::new();
    for n in names {
        blob.extend_from_slice(n.as_bytes());
        blob.push(0);
    }
    blob
}

/// A small FACS block: 3 face bones × (4 controls + 2 correctives).
fn build_facs(rng: &mut Rng) -> FacsData {
    let rows = 3u32;
    let cols = 4 + 1 + 1;
    let n = (rows * cols) as usize;
    let mut raw = || QuantizedMatrix {
        rows,
        cols,
        data: MatrixData::Raw((0..n).map(|_| rng.unit()).collect()),
    };
    let (px, py, pz) = (raw(), raw(), raw());
    let mut quantized = || QuantizedMatrix {
        rows,
        cols,
        data: MatrixData::Quantized {
            min: -30.0,
            max: 30.0,
            values: (0..n).map(|_| rng.next_u32() as u16).collect(),
        },
    };
    let (rx, ry, rz) = (quantized(), quantized(), quantized());
    FacsData {
        face_bone_names_blob: (names_blob(&["Jaw", "LeftEyelid", "RightEyelid"])).into(),
        face_control_names_blob: (names_blob(&["c_JD", "l_EC", "r_EC", "c_LPT"])).into(),
        quantized_transforms: QuantizedTransforms {
            px,
            py,
            pz,
            rx,
            ry,
            rz,
        },
        two_pose_correctives: vec![TwoPoseCorrective {
            control_indices: [0, 1],
        }],
        three_pose_correctives: vec![ThreePoseCorrective {
            control_indices: [0, 1, 2],
        }],
    }
}

pub fn build_v401() -> FileMesh {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    FileMesh {
        version: Version::V4_01,
        body: Body::V4(build_body(&mut rng)),
    }
}

pub fn build_v500() -> FileMesh {
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    let mut body = build_body(&mut rng);
    body.facs_data_format = 1;
    body.facs = Facs::Data(build_facs(&mut rng));
    FileMesh {
        version: Version::V5_00,
        body: Body::V4(body),
    }
}
