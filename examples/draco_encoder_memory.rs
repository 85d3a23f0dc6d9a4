//! How much memory draco-core's encoder needs on its own, for `benches/peak_memory.sh`:
//! the vertices and faces of a 4.00–5.00 FileMesh are encoded as a COREMESH v2 would
//! encode them, and the peak resident size (Linux `VmHWM`) before and after is printed.
//!
//! ```text
//! cargo run --release --example draco_encoder_memory -- [--owned] FILE.mesh
//! ```
//!
//! With `--owned` the arrays are given to the encoder
//! ([`encode`](meshcodec::codec::draco::encode) of `Vec`s), which drops them
//! once its own copy of the mesh is built: the peak is then the encoder's alone, the
//! least a Draco conversion of the mesh can take, whatever else it drops first.

use meshcodec::filemesh::raw::{Body, FileMesh};

/// A `/proc/self/status` field in bytes (`VmHWM`: peak resident size; `VmRSS`: now).
fn status(field: &str) -> Result<u64, Box<dyn std::error::Error>> {
    let s = std::fs::read_to_string("/proc/self/status")?;
    let kb = s
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
        .ok_or("no such field in /proc/self/status (Linux only)")?;
    Ok(kb * 1024)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<_> = std::env::args_os().skip(1).collect();
    // --owned: the arrays are given to the encoder, which drops them once its own copy
    // of the mesh is built.
    let owned = args.first().is_some_and(|a| a == "--owned");
    if owned {
        args.remove(0);
    }
    let path = args
        .into_iter()
        .next()
        .ok_or("usage: draco_encoder_memory [--owned] FILE.mesh")?;
    let file = FileMesh::read(&std::fs::read(path)?)?;
    let Body::V4(b) = file.body else {
        return Err("give a 4.00-5.00 FileMesh".into());
    };
    // The arrays move out of the file; the rest of it is dropped.
    let (vertices, faces) = (b.vertices.into_vec(), b.faces.into_vec());
    let mb = |b: u64| b as f64 / 1e6;
    let arrays = (std::mem::size_of_val(&vertices[..]) + std::mem::size_of_val(&faces[..])) as u64;
    // Reading the file peaked higher than what is held now; the encoder's own peak is
    // what it adds above the resident size at its start.
    let before = status("VmRSS")?;
    // The peak so far is reading's: reset it to what is resident now (Linux 4.0 and
    // later; elsewhere the peak stays reading's when that was higher).
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let (nv, nf) = (vertices.len(), faces.len());
    let bitstream = if owned {
        meshcodec::codec::draco::encode(vertices, faces)?
    } else {
        meshcodec::codec::draco::encode(&vertices, &faces)?
    };
    let peak = status("VmHWM")?;
    println!(
        "arrays {:.1} MB ({} vertices, {} faces), resident before encoding {:.1} MB",
        mb(arrays),
        nv,
        nf,
        mb(before)
    );
    println!(
        "bitstream {:.1} MB; peak while encoding {:.1} MB: the encoder took {:.1} MB \
         ({:.2}x the arrays) above what was held",
        mb(bitstream.len() as u64),
        mb(peak),
        mb(peak.saturating_sub(before)),
        peak.saturating_sub(before) as f64 / arrays as f64
    );
    Ok(())
}
