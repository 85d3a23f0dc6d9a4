//! The Rust library doing what `meshcodec.open(data).mesh()` does, for the Python
//! benchmark (python/bench/readers.py) to set beside the package: the binding's cost is
//! the difference.
//!
//!     cargo run --release -p meshcodec-python --example same_work -- FILE... [--repeat N] [--together]
//!
//! Per file, the best of `N` runs (5 by default) of:
//! - `open + Mesh::from_file`: what the package does (`meshcodec::open`, then the model
//!   of the opened file, its positions and level-0 faces in hand, joints and weights,
//!   bone names and the FACS poses);
//! - `Mesh::read`: the shortest way a Rust program gets the same arrays (other formats:
//!   `to_scene`, as the package does for them);
//! - `copy`: the input's bytes copied into a new buffer, the floor.
//!
//! With `--together` a run is the work on every file in turn, as `readers.py` times the
//! package on a version's files (what one file leaves in the caches and the allocator
//! then meets the next): one line per kind of work, its `"file"` the number of files.
//!
//! Prints one JSON object per line: `{"file", "work", "seconds"}`.

use std::time::Instant;

use meshcodec::filemesh::Mesh;
use meshcodec::{AnyFile, ExportOptions, Limits, MeshFile};

fn best(repeat: usize, mut work: impl FnMut() -> usize) -> f64 {
    (0..repeat)
        .map(|_| {
            let t = Instant::now();
            std::hint::black_box(work());
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

/// The package's work: open, then the arrays of level 0.
fn package_work(bytes: &[u8]) -> usize {
    let limits = Limits::default();
    let file = meshcodec::open_with_limits(bytes, &limits).expect("open");
    match &file {
        AnyFile::FileMesh(f) => {
            let mesh = Mesh::from_file_with_limits(f, &limits).expect("model");
            let lod0 = mesh.lods.lod0(mesh.faces.len());
            mesh.vertices.len() + mesh.faces.get(lod0).map_or(0, <[_]>::len) + rest(&mesh)
        }
        other => {
            let options = ExportOptions {
                keep_axes: true,
                ..ExportOptions::default()
            };
            let scene = other.to_scene(&options, &limits).expect("scene");
            scene
                .meshes
                .iter()
                .flat_map(|m| &m.primitives)
                .map(|p| p.positions.len())
                .sum()
        }
    }
}

/// What `mesh()` gives beside the arrays: joints and weights (skinning resolved to
/// bones), bone names, the FACS poses as one table.
fn rest(mesh: &Mesh) -> usize {
    let skins = mesh.skinning.as_ref().map_or(&[][..], |s| s.as_slice());
    let joints: Vec<[u16; 4]> = skins.iter().map(|k| k.influences.map(|i| i.bone)).collect();
    let weights: Vec<[u8; 4]> = skins
        .iter()
        .map(|k| k.influences.map(|i| i.weight))
        .collect();
    let names: Vec<String> = mesh.skeleton.iter().map(|b| b.name.clone()).collect();
    let poses: Vec<[f32; 6]> = mesh
        .facs
        .iter()
        .flat_map(|f| &f.poses)
        .flatten()
        .map(|p| {
            let [x, y, z] = p.position;
            let [a, b, c] = p.rotation;
            [x, y, z, a, b, c]
        })
        .collect();
    joints.len() + weights.len() + names.len() + poses.len()
}

/// The shortest way to the same arrays.
fn direct_work(bytes: &[u8]) -> usize {
    match Mesh::read(bytes) {
        Ok(mesh) => {
            let lod0 = mesh.lods.lod0(mesh.faces.len());
            mesh.vertices.len() + mesh.faces.get(lod0).map_or(0, <[_]>::len) + rest(&mesh)
        }
        Err(_) => package_work(bytes),
    }
}

/// The three kinds of work, by name.
const WORKS: [(&str, fn(&[u8]) -> usize); 3] = [
    ("open + Mesh::from_file", package_work),
    ("Mesh::read", direct_work),
    ("copy", |bytes| std::hint::black_box(bytes.to_vec()).len()),
];

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut repeat = 5;
    if let Some(i) = args.iter().position(|a| a == "--repeat") {
        repeat = args
            .get(i + 1)
            .and_then(|n| n.parse().ok())
            .expect("--repeat N");
        args.drain(i..i + 2);
    }
    let together = args.iter().any(|a| a == "--together");
    args.retain(|a| a != "--together");
    let files: Vec<Vec<u8>> = args
        .iter()
        .map(|path| std::fs::read(path).expect("read"))
        .collect();
    for (work, run) in WORKS {
        if together {
            let seconds = best(repeat, || files.iter().map(|b| run(b)).sum());
            let file = files.len();
            println!(
                "{}",
                serde_json::json!({"file": file, "work": work, "seconds": seconds})
            );
            continue;
        }
        for (path, bytes) in args.iter().zip(&files) {
            let seconds = best(repeat, || run(bytes));
            println!(
                "{}",
                serde_json::json!({"file": path, "work": work, "seconds": seconds})
            );
        }
    }
}
