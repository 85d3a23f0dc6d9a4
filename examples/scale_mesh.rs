//! Edit and write back: scale a FileMesh (vertex and bone positions) and write it as the
//! version it was, keeping everything else: faces, LODs, skinning, the FACS rig (its
//! poses as stored: scaling quantized poses would quantize them anew), the header's own
//! bytes.
//!
//! ```sh
//! cargo run --example scale_mesh -- IN OUT FACTOR
//! ```
//!
//! A text mesh (1.00, 1.01) prints six significant digits: when scaled values need
//! more, the report says so and nothing is written. The example reads OUT back and checks that only the scaled values changed; the exit
//! status is 1 when anything else did, or the conversion reports a loss.

use meshcodec::filemesh::{Mesh, Version};

fn scale(mesh: &mut Mesh, k: f32) {
    for v in &mut mesh.vertices {
        v.position = v.position.map(|x| x * k);
    }
    for b in &mut mesh.skeleton {
        b.position = b.position.map(|x| x * k);
    }
}

fn run(input: &str, output: &str, k: f32) -> Result<(), String> {
    let bytes = std::fs::read(input).map_err(|e| format!("{input}: {e}"))?;
    let mut mesh = Mesh::read(&bytes).map_err(|e| format!("{input}: {e}"))?;
    let version: Version = mesh
        .stored
        .version
        .ok_or_else(|| format!("{input}: no version"))?;
    let before = mesh.clone();
    scale(&mut mesh, k);
    // The same version: the model keeps what the file stored (layouts, tails, chunk
    // order), so the report lists nothing unless a value cannot be written.
    let out = mesh.convert(version).map_err(|e| e.to_string())?;
    if !out.losses.is_empty() {
        let lines: Vec<String> = out.losses.iter().map(|l| l.to_string()).collect();
        return Err(format!(
            "writing {version} would lose: {}",
            lines.join("; ")
        ));
    }
    let written = out.file.write().map_err(|e| e.to_string())?;
    meshcodec::output::write_atomically(output.as_ref(), &written)
        .map_err(|e| format!("{output}: {e}"))?;

    // Read it back: scaled values, and everything else as it was.
    let back = Mesh::read(&written).map_err(|e| e.to_string())?;
    let mut unscaled = back.clone();
    scale(&mut unscaled, 1.0 / k);
    let close = |a: &[f32; 3], b: &[f32; 3]| {
        a.iter()
            .zip(b)
            .all(|(x, y)| (x - y).abs() <= 1e-4 * x.abs().max(1.0) || x.is_nan() && y.is_nan())
    };
    let positions = unscaled
        .vertices
        .iter()
        .zip(&before.vertices)
        .all(|(a, b)| close(&a.position, &b.position));
    let same = back.faces == before.faces
        && back.lods == before.lods
        && back.skinning == before.skinning
        && back.vertices.len() == before.vertices.len()
        && back.vertices.iter().zip(&before.vertices).all(|(a, b)| {
            a.uv.map(f32::to_bits) == b.uv.map(f32::to_bits)
                && a.color == b.color
                && a.tangent_bytes == b.tangent_bytes
        })
        && back.facs == before.facs;
    if !positions || !same {
        return Err(format!(
            "{output}: read back, positions scaled: {positions}, the rest kept: {same}"
        ));
    }
    println!(
        "{input} → {output}: {version}, {} vertices scaled by {k}, {} faces, {} bones, FACS {}",
        back.vertices.len(),
        back.faces.len(),
        back.skeleton.len(),
        if back.facs.is_some() { "kept" } else { "none" }
    );
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [input, output, k] = args.as_slice() else {
        eprintln!("usage: scale_mesh IN OUT FACTOR");
        std::process::exit(2);
    };
    let k: f32 = match k.parse() {
        Ok(k) if k != 0.0 && f32::is_finite(k) => k,
        _ => {
            eprintln!("FACTOR: a finite number other than 0");
            std::process::exit(2);
        }
    };
    if let Err(e) = run(input, output, k) {
        eprintln!("{e}");
        std::process::exit(1);
    }
}
