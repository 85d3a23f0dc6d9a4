//! Read/write throughput of UNIGINE meshes, and of the LZ4 codec behind ms14.
//!
//! The mesh is built in memory (deterministic, nothing on disk): one skinned ms13 surface
//! on a 700 × 700 grid (490,000 positions), one triangle vertex per quad corner (about
//! 1.95 million tangents and UVs, 2.9 million corner indices of 4 bytes each), weights
//! with 1 to 4 influences. No peer crate reads UNIGINE files, so the baseline is a plain
//! copy of the same bytes.
//!
//! - group `unigine ms13` (throughput = file length): `copy` (`to_vec`),
//!   `meshcodec read` ([`UnigineMesh::read`]), `meshcodec write`;
//! - group `unigine ms13 to ms14`: converting the mesh to ms14 (spatial tree, edge
//!   flags, LZ4 with UNIGINE's settings) and writing it;
//! - group `unigine ms14 LZ4` (throughput = payload length): the same surface as an ms14
//!   geometry payload, compressed with UNIGINE's settings (`meshcodec lz4 compress`),
//!   with `lz4_flex` (`lz4_flex compress`, different settings, for scale), and
//!   decompressed (`decompress`), beside a copy.
//!
//! ```text
//! cargo bench --bench unigine
//! ```
//!
//! With `UNIGINE_LZ4_BEST_OF=40` the LZ4 group is preceded by the best of 40 interleaved
//! runs of both compressors (steadier than medians when other work shares the cores),
//! and the median of the 40 pairs' time ratios (`lz4_flex` time / ours; steadier still
//! under load, as both runs of a pair share it).

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_main, Criterion, SamplingMode, Throughput};
use meshcodec::unigine::raw::cint::UString;
use meshcodec::unigine::raw::mesh::{
    Bone, BoneWeight, Bounds, ClassicMesh, SurfaceData, SurfaceHeader, TargetData, Transform,
    Weights,
};
use meshcodec::unigine::raw::ms14::{Lz4Block, Ms14Geometry, Ms14Mesh, Ms14SurfaceHeader};
use meshcodec::unigine::{MeshBody, MeshVersion, UnigineMesh};
use meshcodec::Limits;

const GRID: u32 = 700;

fn surface() -> (SurfaceHeader, SurfaceData) {
    let n = GRID * GRID;
    let positions: Vec<[f32; 3]> = (0..n)
        .map(|i| {
            let (x, y) = ((i % GRID) as f32, (i / GRID) as f32);
            [x * 0.1, (x * 0.05).sin() + (y * 0.07).cos(), y * 0.1]
        })
        .collect();
    let mut coordinate_indices = Vec::new();
    let mut triangle_indices = Vec::new();
    let mut tangents = Vec::new();
    let mut uv0 = Vec::new();
    for y in 0..GRID - 1 {
        for x in 0..GRID - 1 {
            let corners = [
                y * GRID + x,
                y * GRID + x + 1,
                (y + 1) * GRID + x + 1,
                (y + 1) * GRID + x,
            ];
            let base = tangents.len() as u32;
            for (k, &c) in corners.iter().enumerate() {
                tangents.push([0, 0, (k as i16) * 100, 32767]);
                uv0.push([
                    (c % GRID) as f32 / GRID as f32,
                    (c / GRID) as f32 / GRID as f32,
                ]);
            }
            for t in [[0usize, 1, 2], [0, 2, 3]] {
                for k in t {
                    coordinate_indices.push(corners[k]);
                    triangle_indices.push(base + k as u32);
                }
            }
        }
    }
    let counts: Vec<u8> = (0..n).map(|i| 1 + (i % 4) as u8).collect();
    let entries = counts
        .iter()
        .enumerate()
        .flat_map(|(i, &c)| {
            (0..c).map(move |k| BoneWeight {
                bone: ((i + k as usize) % 8) as i16,
                weight: 65535 / u16::from(c),
            })
        })
        .collect();
    (
        SurfaceHeader {
            name: UString::new("terrain"),
            bounds: Bounds::default(),
            targets: vec![UString::new("")],
            ..SurfaceHeader::default()
        },
        SurfaceData {
            targets: vec![TargetData {
                positions: positions.into(),
                tangents,
            }],
            weights: Weights { counts, entries },
            uv0: uv0.into(),
            uv1: Vec::new().into(),
            colors: Vec::new().into(),
            coordinate_indices,
            triangle_indices,
        },
    )
}

fn bench(c: &mut Criterion) {
    let (header, data) = surface();
    let mesh = UnigineMesh {
        version: MeshVersion::Ms13,
        body: MeshBody::Classic(ClassicMesh {
            bones: (0..8)
                .map(|i| Bone {
                    name: UString::new(&format!("bone{i}")),
                    parent: i - 1,
                })
                .collect(),
            bind_pose: vec![Transform::default(); 8].into(),
            surfaces: vec![header.clone()],
            data: vec![data.clone()],
            ..ClassicMesh::default()
        }),
    };
    let bytes = mesh.write().unwrap();
    assert_eq!(UnigineMesh::read(&bytes).unwrap(), mesh);

    let mut g = c.benchmark_group("unigine ms13");
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(20)
        .measurement_time(Duration::from_secs(8))
        .throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function("copy", |b| b.iter(|| black_box(bytes.to_vec())));
    g.bench_function("meshcodec read", |b| {
        b.iter(|| UnigineMesh::read(black_box(&bytes)).unwrap())
    });
    g.bench_function("meshcodec write", |b| {
        b.iter(|| black_box(&mesh).write().unwrap())
    });
    g.finish();

    // ms13 → ms14: spatial tree, edge flags and UNIGINE-style LZ4 for the whole surface.
    let mut g = c.benchmark_group("unigine ms13 to ms14");
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .measurement_time(Duration::from_secs(20))
        .throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_function("meshcodec to_version(ms14) + write", |b| {
        b.iter(|| mesh.to_version(MeshVersion::Ms14).unwrap().write().unwrap())
    });
    g.finish();

    // The same surface as an ms14 geometry payload.
    let ms14 = Ms14Mesh {
        surfaces: vec![Ms14SurfaceHeader::for_surface(&header, &data).unwrap()],
        ..Ms14Mesh::default()
    };
    let geometry = Ms14Geometry::from(data);
    let payload = ms14.geometry_bytes(0, &geometry).unwrap();
    let block = Lz4Block::compress(&payload);
    assert_eq!(block.decompress(&Limits::default()).unwrap(), payload);
    eprintln!(
        "ms13 file {} bytes; ms14 payload {} bytes, UNIGINE LZ4 {} bytes, lz4_flex {} bytes",
        bytes.len(),
        payload.len(),
        block.data.len(),
        lz4_flex::block::compress(&payload).len()
    );

    // Best of N interleaved runs of both compressors: steadier than medians on a
    // shared machine.
    if let Some(n) = std::env::var("UNIGINE_LZ4_BEST_OF")
        .ok()
        .and_then(|v| v.parse::<u32>().ok())
    {
        let (mut ours, mut flex) = (Duration::MAX, Duration::MAX);
        let mut ratios = Vec::new();
        for _ in 0..n {
            let t = std::time::Instant::now();
            black_box(Lz4Block::compress(black_box(&payload)));
            let a = t.elapsed();
            let t = std::time::Instant::now();
            black_box(lz4_flex::block::compress(black_box(&payload)));
            let b = t.elapsed();
            (ours, flex) = (ours.min(a), flex.min(b));
            ratios.push(b.as_secs_f64() / a.as_secs_f64());
        }
        // Under load the minima may come from different conditions; neighbouring runs
        // share theirs, so the median of the pairs' ratios is steadier.
        ratios.sort_by(f64::total_cmp);
        eprintln!(
            "best of {n}: meshcodec lz4 compress {ours:?}, lz4_flex compress {flex:?} ({:.3}x); \
             median of the {n} pairs' ratios {:.3}x",
            flex.as_secs_f64() / ours.as_secs_f64(),
            ratios.get(ratios.len() / 2).copied().unwrap_or(f64::NAN)
        );
    }

    let mut g = c.benchmark_group("unigine ms14 LZ4");
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .measurement_time(Duration::from_secs(10))
        .throughput(Throughput::Bytes(payload.len() as u64));
    g.bench_function("copy", |b| b.iter(|| black_box(payload.to_vec())));
    g.bench_function("meshcodec lz4 compress", |b| {
        b.iter(|| Lz4Block::compress(black_box(&payload)))
    });
    g.bench_function("lz4_flex compress", |b| {
        b.iter(|| lz4_flex::block::compress(black_box(&payload)))
    });
    g.bench_function("decompress", |b| {
        b.iter(|| black_box(&block).decompress(&Limits::default()).unwrap())
    });
    g.finish();
}

fn benches() {
    let mut c = Criterion::default().configure_from_args();
    bench(&mut c);
}

criterion_main!(benches);
