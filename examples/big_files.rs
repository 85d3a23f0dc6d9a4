//! Writes the benchmarks' big FileMesh files (1,000,000 vertices, 2,000,000 faces; 4.01
//! and 5.00 with FACS) into a folder, for `benches/peak_memory.sh`.
//!
//! ```text
//! cargo run --release --example big_files -- DIR
//! ```

#[path = "../benches/big/mod.rs"]
mod big;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args_os().nth(1).ok_or("usage: big_files DIR")?;
    let dir = std::path::PathBuf::from(dir);
    std::fs::create_dir_all(&dir)?;
    for (name, mesh) in [
        ("big-4.01.mesh", big::build_v401()),
        ("big-5.00.mesh", big::build_v500()),
    ] {
        let bytes = mesh.write()?;
        std::fs::write(dir.join(name), &bytes)?;
        println!("{name}: {} bytes", bytes.len());
    }
    Ok(())
}
