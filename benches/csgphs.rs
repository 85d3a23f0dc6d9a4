//! Read/write throughput of CSGPHS versions 7 and 8 on a large collision model.
//!
//! The model is built in memory (deterministic, nothing on disk): 20,000 hulls, each a
//! closed latitude/longitude sphere of 2 to 6 rings and 4 to 9 segments, scaled and moved
//! (about 430,000 vertices and 790,000 triangles). It is written with
//! [`CsgMesh::to_csgphs`] as version 7 (plain hull records, physics info) and version 8
//! (Edgebreaker-coded hulls in a level-19 zstd frame).
//!
//! For each blob, one criterion group (throughput = blob length in bytes) measures:
//!
//! - `copy`: `bytes.to_vec()`, the baseline (allocate + memcpy of the same bytes);
//! - `meshcodec raw read`: [`Csgphs::read`], the byte-exact layer (version 8 keeps the
//!   zstd frame as it is, so this is about a copy);
//! - `meshcodec model read`: [`CsgMesh::read`]: hulls as positions and triangles (version
//!   8: decompress, parse the payload, decode the Edgebreaker bits);
//! - `rbx_mesh read`: `rbx_mesh::read_union_physics_versioned` (version 8 through its
//!   ruzstd decoder, as this crate's dev-dependency is configured);
//! - `meshcodec raw write`: [`Csgphs::write`];
//! - `meshcodec model write`: [`CsgMesh::to_csgphs`] + write (version 8: Edgebreaker
//!   encoding and zstd level 19, which dominates).
//!
//! Every reader is checked once against the model before it is timed.
//!
//! ```text
//! cargo bench --bench csgphs
//! ```

use std::hint::black_box;
use std::io::Cursor;
use std::time::Duration;

use criterion::{criterion_main, Criterion, SamplingMode, Throughput};
use meshcodec::csg::phs::model::{CsgHull, CsgMesh};
use meshcodec::csg::phs::raw::Csgphs;

const HULLS: usize = 20_000;

/// A closed sphere of `rings` latitude rings and `segments` longitude segments, triangles
/// counter-clockwise seen from outside.
fn sphere(rings: u32, segments: u32, centre: [f32; 3], radius: f32) -> CsgHull {
    let mut positions = vec![[centre[0], centre[1] + radius, centre[2]]];
    for r in 1..=rings {
        let phi = std::f32::consts::PI * r as f32 / (rings + 1) as f32;
        for s in 0..segments {
            let theta = std::f32::consts::TAU * s as f32 / segments as f32;
            positions.push([
                centre[0] + radius * phi.sin() * theta.cos(),
                centre[1] + radius * phi.cos(),
                centre[2] + radius * phi.sin() * theta.sin(),
            ]);
        }
    }
    positions.push([centre[0], centre[1] - radius, centre[2]]);
    let bottom = 1 + rings * segments;
    let at = |r: u32, s: u32| 1 + (r - 1) * segments + s % segments;
    let mut triangles = Vec::new();
    for s in 0..segments {
        triangles.push([0, at(1, s + 1), at(1, s)]);
        for r in 1..rings {
            triangles.push([at(r, s), at(r, s + 1), at(r + 1, s + 1)]);
            triangles.push([at(r, s), at(r + 1, s + 1), at(r + 1, s)]);
        }
        triangles.push([bottom, at(rings, s), at(rings, s + 1)]);
    }
    CsgHull::new(positions, triangles)
}

fn model() -> CsgMesh {
    let hulls = (0..HULLS)
        .map(|i| {
            let i32 = i as u32;
            let c = [
                (i % 100) as f32,
                (i / 100 % 100) as f32,
                (i / 10_000) as f32,
            ];
            sphere(2 + i32 % 5, 4 + i32 * 7 % 6, c, 0.3 + (i % 3) as f32 * 0.1)
        })
        .collect();
    CsgMesh {
        geometry_type: Some(3),
        hulls,
        ..CsgMesh::default()
    }
}

fn bench(c: &mut Criterion) {
    let model = model();
    for version in [7u32, 8] {
        let raw = model.to_csgphs(version).unwrap();
        let bytes = raw.write().unwrap();
        // Check every reader once.
        assert_eq!(Csgphs::read(&bytes).unwrap(), raw);
        let ours = CsgMesh::read(&bytes).unwrap();
        assert_eq!(ours.hulls.len(), HULLS);
        let theirs = rbx_mesh::read_union_physics_versioned(Cursor::new(&bytes)).unwrap();
        let n = match &theirs {
            rbx_mesh::union_physics::UnionPhysics::V7(v) => v.meshes.len(),
            rbx_mesh::union_physics::UnionPhysics::V8(v) => v.mesh.hulls.iter_hulls().count(),
            _ => 0,
        };
        assert_eq!(n, HULLS);

        let mut g = c.benchmark_group(format!("csgphs{version} ({} bytes)", bytes.len()));
        g.throughput(Throughput::Bytes(bytes.len() as u64))
            .sampling_mode(SamplingMode::Flat)
            .sample_size(10)
            .measurement_time(Duration::from_secs(if version == 8 { 20 } else { 5 }));
        g.bench_function("copy", |b| b.iter(|| black_box(bytes.to_vec())));
        g.bench_function("meshcodec raw read", |b| {
            b.iter(|| Csgphs::read(black_box(&bytes)).unwrap())
        });
        g.bench_function("meshcodec model read", |b| {
            b.iter(|| CsgMesh::read(black_box(&bytes)).unwrap())
        });
        g.bench_function("rbx_mesh read", |b| {
            b.iter(|| {
                rbx_mesh::read_union_physics_versioned(Cursor::new(black_box(&bytes))).unwrap()
            })
        });
        g.bench_function("meshcodec raw write", |b| {
            b.iter(|| black_box(&raw).write().unwrap())
        });
        g.bench_function("meshcodec model write", |b| {
            b.iter(|| {
                black_box(&model)
                    .to_csgphs(version)
                    .unwrap()
                    .write()
                    .unwrap()
            })
        });
        g.finish();
    }
}

fn benches() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
}

criterion_main!(benches);
