//! Draco (COREMESH v2) decode and encode of a million-face mesh, beside the reference
//! C++ decoder.
//!
//! The mesh is a 710 × 710 grid (504,100 points, 1,005,362 faces) with all five
//! attributes varying smoothly, like a real mesh: positions on a wavy surface, unit
//! normals, UVs over the grid, tangent bytes, colours. It is encoded once with
//! [`draco::encode`] (Roblox's settings) to get the bitstream the other benchmarks read.
//!
//! One criterion group (throughput = decoded bytes: 40 a point, 12 a face) measures:
//!
//! - `meshcodec decode`: [`draco::decode`], bitstream → `Vec<Vertex>` + `Vec<Face>`;
//! - `draco-core decode`: `draco_core::MeshDecoder` alone, into a `draco_core::Mesh`
//!   ([`draco::decode`] walks a Roblox-shaped stream itself, with the same checks, and
//!   writes the values straight into the vertices and faces: no mesh, nothing copied
//!   out of one);
//! - `meshcodec encode`: [`draco::encode`];
//! - `draco_decoder (C++, process)`: the reference `draco_decoder` binary run on the
//!   bitstream in a temporary `.drc` file, writing a PLY (`MESHCODEC_DRACO_DECODER`
//!   overrides the path; skipped when it is missing). This includes process start,
//!   reading the file and writing the PLY. Its own report of the decode alone ("N ms to
//!   decode") is printed beside it, as the median of 10 runs.
//!
//! Run with:
//!
//! ```text
//! cargo bench --bench draco
//! ```

use std::hint::black_box;
use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use criterion::{criterion_main, Criterion, SamplingMode, Throughput};
use meshcodec::codec::draco;
use meshcodec::filemesh::raw::{Face, Vertex};
use meshcodec::Limits;

const SIDE: u32 = 710;

fn grid() -> (Vec<Vertex>, Vec<Face>) {
    let mut vertices = Vec::with_capacity((SIDE * SIDE) as usize);
    for r in 0..SIDE {
        for c in 0..SIDE {
            let (x, z) = (c as f32 * 0.01, r as f32 * 0.01);
            let y = (x * 3.0).sin() * (z * 2.0).cos();
            // Normal of y = sin 3x · cos 2z.
            let dx = 3.0 * (x * 3.0).cos() * (z * 2.0).cos();
            let dz = -2.0 * (x * 3.0).sin() * (z * 2.0).sin();
            let len = (dx * dx + 1.0 + dz * dz).sqrt();
            vertices.push(Vertex {
                position: [x, y, z],
                normal: [-dx / len, 1.0 / len, -dz / len],
                uv: [c as f32 / SIDE as f32, r as f32 / SIDE as f32],
                tangent: [
                    (127.0 + 127.0 / len) as u8,
                    (127.0 + 127.0 * dx / len) as u8,
                    127,
                    254,
                ],
                color: [(r % 256) as u8, (c % 256) as u8, 128, 255],
            });
        }
    }
    let mut faces = Vec::with_capacity(((SIDE - 1) * (SIDE - 1) * 2) as usize);
    for r in 0..SIDE - 1 {
        for c in 0..SIDE - 1 {
            let a = r * SIDE + c;
            let (b, d, e) = (a + 1, a + SIDE, a + SIDE + 1);
            faces.push(Face { indices: [a, d, b] });
            faces.push(Face { indices: [b, d, e] });
        }
    }
    (vertices, faces)
}

fn reference_decoder() -> Option<PathBuf> {
    let path = std::env::var_os("MESHCODEC_DRACO_DECODER")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("draco_decoder"));
    Command::new(&path)
        .arg("-h")
        .output()
        .ok()
        .filter(|o| String::from_utf8_lossy(&o.stdout).contains("draco_decoder"))
        .map(|_| path)
}

/// Runs the reference decoder once; returns its own "N ms to decode".
fn run_reference(decoder: &PathBuf, input: &PathBuf, output: &PathBuf) -> u64 {
    let out = Command::new(decoder)
        .arg("-i")
        .arg(input)
        .arg("-o")
        .arg(output)
        .output()
        .expect("run draco_decoder");
    assert!(out.status.success(), "draco_decoder failed");
    let text = String::from_utf8_lossy(&out.stdout);
    text.split('(')
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

fn bench(c: &mut Criterion) {
    let (vertices, faces) = grid();
    let blob = draco::encode(&vertices, &faces).expect("encode");
    let (back, back_faces) = draco::decode(&blob, &Limits::default()).expect("decode");
    assert_eq!(back.len(), vertices.len());
    assert_eq!(back_faces, faces);
    let decoded_bytes = (vertices.len() * 40 + faces.len() * 12) as u64;
    eprintln!(
        "draco bench mesh: {} points, {} faces, {} decoded bytes, {} bitstream bytes",
        vertices.len(),
        faces.len(),
        decoded_bytes,
        blob.len()
    );

    let mut group = c.benchmark_group("draco 1M faces");
    group
        .throughput(Throughput::Bytes(decoded_bytes))
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    group.bench_function("meshcodec decode", |b| {
        b.iter(|| draco::decode(black_box(&blob), &Limits::default()).expect("decode"))
    });
    group.bench_function("draco-core decode", |b| {
        b.iter(|| {
            let mut mesh = draco_core::Mesh::new();
            draco_core::MeshDecoder::new()
                .decode(
                    &mut draco_core::DecoderBuffer::new(black_box(&blob)),
                    &mut mesh,
                )
                .expect("decode");
            mesh
        })
    });
    group.bench_function("meshcodec encode", |b| {
        b.iter(|| draco::encode(black_box(&vertices), black_box(&faces)).expect("encode"))
    });

    match reference_decoder() {
        Some(decoder) => {
            let dir = std::env::temp_dir().join(format!("meshcodec-draco-{}", std::process::id()));
            std::fs::create_dir_all(&dir).expect("temp dir");
            let input = dir.join("grid.drc");
            let output = dir.join("grid.ply");
            std::fs::write(&input, &blob).expect("write .drc");
            let mut own: Vec<u64> = (0..10)
                .map(|_| run_reference(&decoder, &input, &output))
                .collect();
            own.sort_unstable();
            eprintln!(
                "draco_decoder ({}) reports decoding alone in {} ms (median of 10; min {} ms)",
                decoder.display(),
                own[own.len() / 2],
                own[0]
            );
            group.bench_function("draco_decoder (C++, process)", |b| {
                b.iter(|| run_reference(&decoder, &input, &output))
            });
            let _ = std::fs::remove_dir_all(&dir);
        }
        None => eprintln!("SKIPPED draco_decoder: not found (apt-get install -y draco)"),
    }
    group.finish();
}

/// Holds the criterion group, kept private so the generated `pub fn` needs no docs.
mod group {
    criterion::criterion_group!(benches, super::bench);
}

criterion_main!(group::benches);
