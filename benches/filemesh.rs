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
use meshcodec::filemesh::raw::{FileMesh, Version};

mod big;
use big::{build_v401, build_v500, Rng};

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

/// A 1.00 text mesh of 100,000 faces (2,700,000 numbers written with Roblox's six
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

/// A sequence of files read one after another, as a batch command reads a folder: the
/// 4.01 and 5.00 files in turn, each iteration reading both. `meshcodec read_reusing`
/// fills the arrays of the file before (`Spare`), as `meshcodec verify DIR` does on each
/// thread; `meshcodec read` and `rbx_mesh` allocate anew for every file.
fn sequence(c: &mut Criterion) {
    use meshcodec::filemesh::Mesh;
    use meshcodec::Spare;
    let files: Vec<Vec<u8>> = [build_v401(), build_v500()]
        .iter()
        .map(|m| m.write().expect("write"))
        .collect();
    // Reusing buffers reads the same files.
    let mut spare = Spare::default();
    for _ in 0..2 {
        for f in &files {
            let m = FileMesh::read_reusing(f, &Default::default(), &mut spare).expect("read");
            assert_eq!(m, FileMesh::read(f).expect("read"));
            let view = meshcodec::filemesh::raw::FileMeshView::parse(f).expect("view");
            assert_eq!(view.info().expect("info"), m.info().expect("info"));
            m.recycle(&mut spare);
            let m = Mesh::read_reusing(f, &mut spare).expect("read");
            assert_eq!(m, Mesh::read(f).expect("read"));
            m.recycle(&mut spare);
        }
    }
    let total: usize = files.iter().map(Vec::len).sum();
    let mut group = c.benchmark_group("filemesh sequence");
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
        .throughput(Throughput::Bytes(total as u64));
    group.bench_function("copy", |b| {
        b.iter(|| {
            for f in &files {
                black_box(black_box(&f[..]).to_vec());
            }
        })
    });
    group.bench_function("meshcodec read", |b| {
        b.iter(|| {
            for f in &files {
                black_box(FileMesh::read(black_box(f)).expect("read"));
            }
        })
    });
    group.bench_function("meshcodec read_reusing", |b| {
        let mut spare = Spare::default();
        b.iter(|| {
            for f in &files {
                let m = FileMesh::read_reusing(black_box(f), &Default::default(), &mut spare)
                    .expect("read");
                black_box(&m);
                m.recycle(&mut spare);
            }
        })
    });
    group.bench_function("meshcodec model read", |b| {
        b.iter(|| {
            for f in &files {
                black_box(Mesh::read(black_box(f)).expect("read"));
            }
        })
    });
    group.bench_function("meshcodec model read_reusing", |b| {
        let mut spare = Spare::default();
        b.iter(|| {
            for f in &files {
                let m = Mesh::read_reusing(black_box(f), &mut spare).expect("read");
                black_box(&m);
                m.recycle(&mut spare);
            }
        })
    });
    // `info` without copying the arrays: headers, small arrays and one pass over the
    // vertices (non-finite counts) in the bytes where they lie.
    group.bench_function("meshcodec view info", |b| {
        b.iter(|| {
            for f in &files {
                let view =
                    meshcodec::filemesh::raw::FileMeshView::parse(black_box(f)).expect("view");
                black_box(view.info().expect("info"));
            }
        })
    });
    group.bench_function("meshcodec read + info", |b| {
        b.iter(|| {
            for f in &files {
                black_box(
                    FileMesh::read(black_box(f))
                        .expect("read")
                        .info()
                        .expect("info"),
                );
            }
        })
    });
    group.bench_function("rbx_mesh read_versioned", |b| {
        b.iter(|| {
            for f in &files {
                black_box(
                    rbx_mesh::read_mesh_versioned(Cursor::new(black_box(&f[..]))).expect("read"),
                );
            }
        })
    });
    group.finish();
}

/// Holds the criterion group, kept private so the generated `pub fn` needs no docs.
mod group {
    criterion::criterion_group!(benches, super::filemesh, super::text, super::sequence);
}

criterion_main!(group::benches);
