//! Read/write throughput of FileMesh 4.01 and 5.00 on million-vertex meshes.
//!
//! Two meshes are built in memory (deterministic, nothing on disk) and serialised with
//! [`FileMesh::write`]:
//!
//! - 4.01: 1,000,000 vertices, 2,000,000 faces, LOD offsets `[0, nfaces]`, 4 bones with
//!   one envelope per vertex, 2 subsets;
//! - 5.00: the same plus a small FACS block (3 face bones, 4 controls, one two-pose and
//!   one three-pose corrective; position matrices raw (version 1), rotation matrices
//!   quantized (version 2)).
//!
//! For each file, one criterion group (throughput = file length in bytes) measures:
//!
//! - `copy`: `bytes.to_vec()`, the baseline (allocate + memcpy of the same bytes);
//! - `meshcodec read`: [`FileMesh::read`];
//! - `rbx_mesh read`: `Mesh4`/`Mesh5::read_le` on a `Cursor` (the per-version reader);
//! - `rbx_mesh read_versioned`: `rbx_mesh::read_mesh_versioned`, its version-detecting
//!   entry point;
//! - `meshcodec write`: [`FileMesh::write`];
//! - `rbx_mesh write`: `Mesh4`/`Mesh5::write_le` into a `Vec` of the file's size.
//!
//! Every reader and writer is checked once against the bytes before it is timed.
//!
//! Run with:
//!
//! ```text
//! cargo bench --bench filemesh
//! ```
//!
//! With glibc's default malloc, every allocation above 32 MiB (the 72 MB copy, the 40 MB
//! vertex array) is a fresh `mmap` whose page faults dominate the timings. To see the
//! codecs' own cost, run the same command with large allocations recycled:
//!
//! ```text
//! GLIBC_TUNABLES=glibc.malloc.mmap_threshold=1073741824:glibc.malloc.trim_threshold=4294967296:glibc.malloc.top_pad=268435456 \
//!     cargo bench --bench filemesh
//! ```

use std::hint::black_box;
use std::io::Cursor;
use std::time::Duration;

use binrw::{BinRead, BinWrite};
use criterion::measurement::WallTime;
use criterion::{criterion_main, BenchmarkGroup, Criterion, SamplingMode, Throughput};
use meshcodec::filemesh::raw::{
    Body, Bone, Envelope, Face, Facs, FacsData, FileMesh, FileMeshV4, MatrixData, QuantizedMatrix,
    QuantizedTransforms, Subset, ThreePoseCorrective, TwoPoseCorrective, Version, Vertex,
};

const NUM_VERTS: u32 = 1_000_000;
const NUM_FACES: u32 = 2_000_000;
const NUM_BONES: u16 = 4;

/// xorshift64: deterministic filler so the arrays are not all alike.
struct Rng(u64);

impl Rng {
    fn next_u32(&mut self) -> u32 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        (x >> 32) as u32
    }

    /// A finite float in [-1, 1).
    fn unit(&mut self) -> f32 {
        (self.next_u32() >> 8) as f32 / (1u32 << 23) as f32 - 1.0
    }

    fn bytes4(&mut self) -> [u8; 4] {
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
        trailing: Vec::new(),
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

fn build_v401() -> FileMesh {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    FileMesh {
        version: Version::V4_01,
        body: Body::V4(build_body(&mut rng)),
    }
}

fn build_v500() -> FileMesh {
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    let mut body = build_body(&mut rng);
    body.facs_data_format = 1;
    body.facs = Facs::Data(build_facs(&mut rng));
    FileMesh {
        version: Version::V5_00,
        body: Body::V4(body),
    }
}

/// The rbx_mesh type for one version: its reader and writer.
trait RbxMesh: Sized + for<'a> BinRead<Args<'a> = ()> + for<'a> BinWrite<Args<'a> = ()> {
    fn num_vertices(&self) -> usize;
}

impl RbxMesh for rbx_mesh::mesh::Mesh4 {
    fn num_vertices(&self) -> usize {
        self.vertices.len()
    }
}

impl RbxMesh for rbx_mesh::mesh::Mesh5 {
    fn num_vertices(&self) -> usize {
        self.vertices.len()
    }
}

fn rbx_read<M: RbxMesh>(bytes: &[u8]) -> M {
    M::read_le(&mut Cursor::new(bytes)).expect("rbx_mesh parses the file")
}

fn rbx_write<M: RbxMesh>(mesh: &M, capacity: usize) -> Vec<u8> {
    let mut out = Cursor::new(Vec::with_capacity(capacity));
    mesh.write_le(&mut out).expect("rbx_mesh writes the mesh");
    out.into_inner()
}

fn bench_file<M: RbxMesh>(group: &mut BenchmarkGroup<'_, WallTime>, mesh: &FileMesh) {
    let bytes = mesh.write().expect("meshcodec writes the mesh");
    let len = bytes.len();

    // Check every contender once before timing it.
    assert_eq!(&FileMesh::read(&bytes).expect("meshcodec reads"), mesh);
    let rbx: M = rbx_read(&bytes);
    assert_eq!(rbx.num_vertices(), mesh.info().expect("info").vertices);
    let versioned = rbx_mesh::read_mesh_versioned(Cursor::new(&bytes[..]))
        .expect("rbx_mesh read_versioned parses the file");
    assert!(matches!(
        (&versioned, mesh.version),
        (rbx_mesh::mesh::Mesh::V4(_), Version::V4_01)
            | (rbx_mesh::mesh::Mesh::V5(_), Version::V5_00)
    ));
    drop(versioned);
    assert!(
        rbx_write(&rbx, len) == bytes,
        "rbx_mesh writes the same bytes"
    );

    group.throughput(Throughput::Bytes(len as u64));
    group.bench_function("copy", |b| b.iter(|| black_box(&bytes[..]).to_vec()));
    group.bench_function("meshcodec read", |b| {
        b.iter(|| FileMesh::read(black_box(&bytes)).expect("read"))
    });
    group.bench_function("meshcodec model read", |b| {
        b.iter(|| meshcodec::filemesh::model::Mesh::read(black_box(&bytes)).expect("read"))
    });
    group.bench_function("rbx_mesh read", |b| {
        b.iter(|| rbx_read::<M>(black_box(&bytes)))
    });
    group.bench_function("rbx_mesh read_versioned", |b| {
        b.iter(|| rbx_mesh::read_mesh_versioned(Cursor::new(black_box(&bytes[..]))).expect("read"))
    });
    group.bench_function("meshcodec write", |b| {
        b.iter(|| black_box(mesh).write().expect("write"))
    });
    group.bench_function("rbx_mesh write", |b| {
        b.iter(|| rbx_write(black_box(&rbx), len))
    });
}

/// A 1.00 text mesh of 100,000 faces (900,000 numbers written with Roblox's six
/// significant digits), read by meshcodec (raw and model) and by `rbx_mesh`.
fn text(c: &mut Criterion) {
    use meshcodec::filemesh::raw::text::VertexV1;
    use meshcodec::filemesh::raw::FileMeshV1;
    let mut rng = Rng(0x5eed_7e47);
    let faces: Vec<[VertexV1; 3]> = (0..100_000)
        .map(|_| {
            std::array::from_fn(|_| VertexV1 {
                position: [rng.unit() * 8.0, rng.unit() * 8.0, rng.unit() * 8.0],
                normal: [rng.unit(), rng.unit(), rng.unit()],
                uvw: [rng.unit().abs(), rng.unit().abs(), 0.0],
            })
        })
        .collect();
    let bytes = FileMeshV1::new(faces)
        .write(Version::V1_00)
        .expect("a text mesh");
    assert!(rbx_mesh::read_mesh_versioned(Cursor::new(&bytes[..])).is_ok());
    let mut group = c.benchmark_group("filemesh 1.00 text");
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .throughput(Throughput::Bytes(bytes.len() as u64));
    group.bench_function("meshcodec read", |b| {
        b.iter(|| FileMesh::read(black_box(&bytes)).expect("read"))
    });
    group.bench_function("meshcodec model read", |b| {
        b.iter(|| meshcodec::filemesh::model::Mesh::read(black_box(&bytes)).expect("read"))
    });
    group.bench_function("rbx_mesh read", |b| {
        b.iter(|| rbx_mesh::read_mesh_versioned(Cursor::new(black_box(&bytes[..]))).expect("read"))
    });
    group.finish();
}

fn filemesh(c: &mut Criterion) {
    for (name, mesh) in [("4.01", build_v401()), ("5.00", build_v500())] {
        let mut group = c.benchmark_group(format!("filemesh {name}"));
        // Each iteration moves ~70 MB (10–110 ms): few, flat samples keep the whole
        // run to about three minutes on 2 cores.
        group
            .sample_size(10)
            .sampling_mode(SamplingMode::Flat)
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(3));
        match mesh.version {
            Version::V4_01 => bench_file::<rbx_mesh::mesh::Mesh4>(&mut group, &mesh),
            _ => bench_file::<rbx_mesh::mesh::Mesh5>(&mut group, &mesh),
        }
        group.finish();
    }
}

/// Holds the criterion group, kept private so the generated `pub fn` needs no docs.
mod group {
    criterion::criterion_group!(benches, super::filemesh, super::text);
}

criterion_main!(group::benches);
