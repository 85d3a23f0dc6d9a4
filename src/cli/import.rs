//! `meshcodec import`: a glTF 2.0 or OBJ file written as a FileMesh, CSGPHS, CSGMDL,
//! UNIGINE or STF file (and, for UNIGINE ms13/ms14, its animations beside it).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use meshcodec::scene::{self, Scene};
use meshcodec::{ConvertOptions, CoreMesh, Limits, Target};

use super::convert::parse_coremesh;
use super::export::{extension, interchange_path};
use super::failure::{fail, Failure};
use super::input::read_file;
use super::losses::check_losses;
use super::output::{beside, write_beside, write_output};
use super::Context;

/// Import a glTF 2.0 or OBJ file as a FileMesh, CSGPHS, CSGMDL, UNIGINE or STF file.
///
/// Import a glTF 2.0 (.gltf, .glb) or OBJ file as a Roblox FileMesh (every triangle
/// primitive's positions, normals, first UV set and colours, placed where the
/// scene's nodes put them, a copy per node), as CSGPHS collision data (one convex
/// hull per primitive), as a UNIGINE mesh (`--to unigine:ms13`: a surface per
/// primitive, with skin, morph targets and two UV sets; turned to UNIGINE's +Z up) or
/// as a new STF file (`--to stf`: one stf.mesh per mesh: normals, UV sets, colours,
/// morph targets as blendshapes; what stf_blender imports). Skins, morph targets,
/// animations, further UV sets and levels of detail are read from glTF and carried
/// where the target holds them (FileMesh 4.00+: bones and skin; 3.00+: LODs).
/// UNIGINE ms10–ms12 embed the animations; ms13 and ms14 write each beside OUT as an
/// an11 file, OUT's path with `.anim` for its extension for a scene's only animation
/// (`y.mesh` → `y.anim`), with `_NAME.anim` for each of several (`y_Walk.anim`).
#[derive(clap::Args)]
pub struct Args {
    /// Input file: .gltf, .glb or .obj.
    #[arg(value_parser = interchange_path)]
    input: PathBuf,
    /// Output file.
    output: PathBuf,
    /// Version to write: FileMesh 1.00, 1.01, 2.00, 3.00, 3.01, 4.00, 4.01, 5.00,
    /// 6.00, 7.00, or CSGPHS 0, 3, 5, 6, 7, 8 (also qualified: filemesh:4.01,
    /// csgphs:7); union graphics csgmdl:2, csgmdl:4, csgmdl:5; UNIGINE unigine:ms10 …
    /// unigine:ms14; stf.
    #[arg(long, value_name = "VER", value_parser = import_target)]
    to: String,
    /// Accept a version that cannot hold everything (1.x: 6 significant digits,
    /// no colours; 7.00 with --coremesh draco: normals quantized).
    #[arg(long)]
    allow_lossy: bool,
    /// FileMesh 7.00: how to write the core mesh (auto, draco, v1; see `convert`).
    #[arg(long, value_name = "HOW", default_value = "auto", value_parser = parse_coremesh)]
    coremesh: CoreMesh,
    /// glTF: the folder external buffers may be read from (default: the glTF file's
    /// own folder). Buffers outside it, absolute paths, `..`, URI schemes other than
    /// data: and files that are not regular files are refused.
    #[arg(long, value_name = "DIR")]
    resource_root: Option<PathBuf>,
}

/// Runs `import`.
pub fn run(args: Args, cx: &Context) -> Result<ExitCode, Failure> {
    import(
        &args.input,
        &args.output,
        &args.to,
        args.allow_lossy,
        args.coremesh,
        args.resource_root,
        &cx.limits,
    )
}

/// `import --to`: a target import writes (a usage error, status 2, otherwise).
fn import_target(s: &str) -> Result<String, String> {
    Target::for_import(s)
        .map(|_| s.to_string())
        .map_err(|e| e.to_string())
}

fn import(
    input: &Path,
    output: &Path,
    to: &str,
    allow_lossy: bool,
    core_mesh: CoreMesh,
    resource_root: Option<PathBuf>,
    limits: &Limits,
) -> Result<ExitCode, Failure> {
    let target = Target::for_import(to).map_err(|e| fail(input, e))?;
    let bytes = read_file(input, limits)?;
    let obj = extension(input) == "obj";
    let scene: Scene = if obj {
        let text =
            std::str::from_utf8(&bytes).map_err(|e| fail(input, format!("not UTF-8: {e}")))?;
        scene::import::read_obj(text)
    } else {
        let dir = match input.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let options = scene::import::ImportOptions { resource_root };
        scene::import::read_gltf_with(&bytes, Some(dir), &options)
    }
    .map_err(|e| fail(input, e))?;
    let from = if obj {
        "the OBJ import"
    } else {
        "the glTF import"
    };
    // The scene is given away as the target is built.
    let (c, extra) = meshcodec::import_scene(scene, &target, &ConvertOptions { core_mesh })
        .and_then(|(prepared, extra)| Ok((prepared.into_converted()?, extra)))
        .map_err(|e| fail(input, e))?;
    check_losses(input, from, &target.to_string(), &c.losses, allow_lossy)?;
    // Files beside OUT (UNIGINE .anim): OUT's path without its extension, then the suffix.
    let extra = beside(output, extra)?;
    write_output(output, &c.bytes)?;
    write_beside(&extra)?;
    let also: String = extra
        .iter()
        .map(|(path, e)| format!("; {} in {}", e.what, path.display()))
        .collect();
    eprintln!("meshcodec: {}: {}{also}", output.display(), c.summary);
    Ok(ExitCode::SUCCESS)
}
