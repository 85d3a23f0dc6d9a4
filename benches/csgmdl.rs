//! Union graphics: reading a 200,000-vertex CSGMDL 4 and 5 blob with meshcodec (raw
//! layer, and into the model) and with `rbx_mesh`'s union-graphics reader, beside a
//! plain copy of the same bytes.
//!
//! ```sh
//! cargo bench --bench csgmdl
//! ```

use std::hint::black_box;
use std::io::Cursor;
use std::time::Duration;

use criterion::{criterion_main, Criterion, SamplingMode, Throughput};
use meshcodec::csg::mdl::model::UnionVertex;
use meshcodec::csg::mdl::{CsgMdl, UnionMesh};

/// A grid of `n × n` vertices, two triangles per cell.
fn grid(n: u32) -> UnionMesh {
    let vertices = (0..n * n)
        .map(|i| {
            let (x, y) = ((i % n) as f32, (i / n) as f32);
            UnionVertex {
                position: [x, y, (x * 0.1).sin()],
                normal: [0.0, 0.0, 1.0],
                color: [200, 100, 50, 255],
                normal_id: 2,
                uv: [x / n as f32, y / n as f32],
                tangent: [1.0, 0.0, 0.0],
            }
        })
        .collect();
    let triangles = (0..n - 1)
        .flat_map(|y| (0..n - 1).map(move |x| (x, y)))
        .flat_map(|(x, y)| {
            let a = y * n + x;
            [[a, a + 1, a + n], [a + 1, a + n + 1, a + n]]
        })
        .collect();
    UnionMesh {
        vertices,
        triangles,
        ..UnionMesh::default()
    }
}

fn csgmdl(c: &mut Criterion) {
    // Version 5 holds at most 65,535 vertices: a 255 × 255 grid.
    let mesh = grid(255);
    for version in [4u32, 5] {
        let bytes = mesh.to_blob(version).unwrap().write().unwrap();
        assert!(rbx_mesh::read_union_graphics_versioned(Cursor::new(&bytes[..])).is_ok());
        let mut group = c.benchmark_group(format!("csgmdl {version}"));
        group
            .sample_size(20)
            .sampling_mode(SamplingMode::Flat)
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(3))
            .throughput(Throughput::Bytes(bytes.len() as u64));
        group.bench_function("copy", |b| b.iter(|| black_box(&bytes[..]).to_vec()));
        group.bench_function("meshcodec read", |b| {
            b.iter(|| CsgMdl::read(black_box(&bytes)).unwrap())
        });
        group.bench_function("meshcodec model read", |b| {
            b.iter(|| UnionMesh::read(black_box(&bytes)).unwrap())
        });
        group.bench_function("rbx_mesh read", |b| {
            b.iter(|| {
                rbx_mesh::read_union_graphics_versioned(Cursor::new(black_box(&bytes[..]))).unwrap()
            })
        });
        group.finish();
    }
}

/// Holds the criterion group, kept private so the generated `pub fn` needs no docs.
mod group {
    criterion::criterion_group!(benches, super::csgmdl);
}

criterion_main!(group::benches);
