//! `meshcodec export`: a file's geometry as glTF 2.0 (.gltf, .glb) or Wavefront OBJ.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use meshcodec::scene::{self, Scene};
use meshcodec::{ExportOptions, Limits, MeshFile};

use super::failure::{fail, Failure};
use super::input::load;
use super::losses::print_losses;
use super::Context;

/// Export the geometry as glTF 2.0 (.gltf, .glb) or Wavefront OBJ.
///
/// Export the geometry as glTF 2.0 (.gltf with its buffer embedded, or .glb) or
/// Wavefront OBJ, picked by OUT's extension. Positions, normals, the first UV set and
/// colours, turned to glTF's +Y up where the source is +Z up (UNIGINE; --keep-axes
/// writes the stored numbers); in glTF also skins (FileMesh
/// bones, UNIGINE bones), morph targets (UNIGINE targets, STF blendshapes) and
/// UNIGINE animations (ms10–ms12 embedded ones; a .anim file exports its skeleton
/// and clips, to glTF only), one key per frame at 30 frames per second. Only the
/// vertices the exported faces use are written (in their order); values that are not
/// finite become 0 (scales 1) and zero normals (0, 0, 1). What the export leaves out
/// (other levels of detail, FACS, tangents, skins in OBJ …) and what it changed is
/// printed on stderr, a line each (`dropped:` data, `re-laid:` layouts), and in --json;
/// the export still succeeds.
#[derive(clap::Args)]
pub struct Args {
    /// Input file (FileMesh, CSGPHS, UNIGINE mesh or animation, STF).
    input: PathBuf,
    /// Output file: .gltf, .glb or .obj.
    #[arg(value_parser = interchange_path)]
    output: PathBuf,
    /// FileMesh and union graphics (CSGMDL: its index ranges): the level of detail to
    /// export (0, the default, is full detail), or `all` for every level, one glTF mesh
    /// (OBJ object) each.
    #[arg(long, value_name = "N|all", default_value = "0", value_parser = lod_choice)]
    lod: Lod,
    /// Write positions, normals and transforms in the source's own axes (UNIGINE:
    /// +Z up) instead of glTF's +Y up, to compare numbers with the file's.
    #[arg(long)]
    keep_axes: bool,
    /// Print one JSON object on stdout: input, output, summary and the losses
    /// (`{"kind", "level", "count", "text"}` each).
    #[arg(long)]
    json: bool,
}

/// Runs `export`.
pub fn run(args: Args, cx: &Context) -> Result<ExitCode, Failure> {
    export(&args, &cx.limits)
}

/// A path's extension, lower case ("" if none).
pub fn extension(path: &Path) -> String {
    path.extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default()
}

/// `export`'s OUT and `import`'s IN: the extension must name an interchange format.
pub fn interchange_path(p: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(p);
    match extension(&path).as_str() {
        "gltf" | "glb" | "obj" => Ok(path),
        _ => Err(format!("{p}: the extension must be .gltf, .glb or .obj")),
    }
}

/// `export --lod`: one level of detail, or all of them.
#[derive(Clone, Copy, Debug)]
enum Lod {
    Level(usize),
    All,
}

fn lod_choice(s: &str) -> Result<Lod, String> {
    if s == "all" {
        return Ok(Lod::All);
    }
    s.parse()
        .map(Lod::Level)
        .map_err(|_| format!("{s:?}: a level of detail (0, 1, …) or `all`"))
}

fn export(args: &Args, limits: &Limits) -> Result<ExitCode, Failure> {
    let (input, output, lod) = (args.input.as_path(), args.output.as_path(), args.lod);
    let name = input
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let file = load(input, limits)?;
    // The file and its model are dropped as the scene is built; what the scene leaves
    // behind is found from the same model.
    let (scene, mut losses) = file
        .into_scene_and_losses(
            &ExportOptions {
                lod: match lod {
                    Lod::Level(n) => n,
                    Lod::All => 0,
                },
                all_lods: matches!(lod, Lod::All),
                name,
                keep_axes: args.keep_axes,
            },
            limits,
        )
        .map_err(|e| fail(input, format!("export: {e}")))?;
    let obj = !matches!(extension(output).as_str(), "glb" | "gltf");
    losses.extend(if obj {
        scene::obj::losses(&scene)
    } else {
        scene::gltf::losses(&scene)
    });
    match extension(output).as_str() {
        "glb" => {
            // Laid out first, then written as the buffer's arrays are made: the file's
            // bytes are never held whole.
            let glb = scene::gltf::glb(&scene).map_err(|e| fail(input, e))?;
            meshcodec::output::write_atomically_with(output, |w| glb.write_to(w))
                .map_err(|e| fail(output, format!("cannot write: {e}")))?;
        }
        "gltf" => {
            // As the .glb: the buffer's base64 is written as it is made.
            let gltf = scene::gltf::gltf(&scene).map_err(|e| fail(input, e))?;
            meshcodec::output::write_atomically_with(output, |w| gltf.write_to(w))
                .map_err(|e| fail(output, format!("cannot write: {e}")))?;
        }
        _ if scene.meshes.is_empty() => {
            return Err(fail(
                input,
                "the file has no geometry, and OBJ holds neither skeletons nor animations: \
                 export it to .gltf or .glb",
            ))
        }
        _ => {
            // Checked first, then written as its lines are made.
            let obj = scene::obj::obj(&scene).map_err(|e| fail(input, e))?;
            meshcodec::output::write_atomically_with(output, |w| obj.write_to(w))
                .map_err(|e| fail(output, format!("cannot write: {e}")))?;
        }
    }
    let summary = if obj {
        obj_summary(&scene)
    } else {
        meshcodec::scene_summary(&scene)
    };
    eprintln!("meshcodec: {}: {summary}", output.display());
    // What the export left out or changed to fit the format: said, not an error.
    print_losses(input, &losses);
    if args.json {
        let line = serde_json::json!({
            "input": input.to_string_lossy(),
            "output": output.to_string_lossy(),
            "summary": summary,
            "lossless": losses.is_empty(),
            "losses": super::losses::json(&losses),
        });
        say!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}

/// The summary of an OBJ export: what OBJ holds (no joints, no animations).
fn obj_summary(scene: &Scene) -> String {
    let prims = scene.meshes.iter().flat_map(|m| &m.primitives);
    let (p, v, t) = prims.fold((0, 0, 0), |(p, v, t), x| {
        (p + 1, v + x.positions.len(), t + x.triangles.len())
    });
    format!(
        "{} object(s) of {p} primitive(s), {v} vertices, {t} triangles",
        scene.meshes.len()
    )
}
