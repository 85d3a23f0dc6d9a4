//! A Roblox union to glTF: its graphics (CSGMDL) as a binary glTF, with the collision
//! hulls (CSGPHS) as a second, separate file when given.
//!
//! ```sh
//! cargo run --example union_to_gltf -- UNION.bin OUT.glb [HULLS.bin HULLS.glb]
//! ```
//!
//! Prints what each scene holds; the exit status is 1 when a file is not a union (a
//! CSGK blob is a reference to graphics stored elsewhere: it has no geometry).

use meshcodec::{open, scene, scene_summary, ExportOptions, Format, Limits, MeshFile};

fn to_glb(input: &str, output: &str, want: Format) -> Result<(), String> {
    let bytes = std::fs::read(input).map_err(|e| format!("{input}: {e}"))?;
    let file = open(&bytes).map_err(|e| format!("{input}: {e}"))?;
    if file.format() != want {
        return Err(format!(
            "{input}: {} {}, not {}",
            file.format().name(),
            file.version_name(),
            want.name()
        ));
    }
    let name = std::path::Path::new(input)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let options = ExportOptions {
        name,
        ..ExportOptions::default()
    };
    let s = file
        .into_scene(&options, &Limits::default())
        .map_err(|e| format!("{input}: {e}"))?;
    if s.meshes.iter().all(|m| m.primitives.is_empty()) {
        return Err(format!("{input}: no geometry"));
    }
    let glb = scene::gltf::to_glb(&s).map_err(|e| e.to_string())?;
    meshcodec::output::write_atomically(output.as_ref(), &glb)
        .map_err(|e| format!("{output}: {e}"))?;
    println!("{input} → {output}: {}", scene_summary(&s));
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.as_slice() {
        [union, out] => to_glb(union, out, Format::Csgmdl),
        [union, out, hulls, hulls_out] => to_glb(union, out, Format::Csgmdl)
            .and_then(|()| to_glb(hulls, hulls_out, Format::Csgphs)),
        _ => {
            eprintln!("usage: union_to_gltf UNION.bin OUT.glb [HULLS.bin HULLS.glb]");
            std::process::exit(2);
        }
    };
    if let Err(e) = result {
        eprintln!("{e}");
        std::process::exit(1);
    }
}
