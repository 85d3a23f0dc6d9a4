//! `meshcodec`: inspect, verify and rewrite mesh files byte-exactly.
//!
//! Exit status: 0 success, 1 a problem with the input (the message names the file, the
//! byte offset and what was expected), 2 a usage error.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use meshcodec::csg::phs::model::{CsgMesh, CSGPHS_VERSIONS, PHYSICS_TOLERANCE};
use meshcodec::csg::phs::raw::Csgphs;
use meshcodec::filemesh::model::convert::{CoreMesh, WriteOptions};
use meshcodec::filemesh::model::Mesh;
use meshcodec::filemesh::raw::{FileMesh, Version};
use meshcodec::loss::Loss;
use meshcodec::stf::StfContainer;
use meshcodec::unigine::raw::anim::UnigineAnim;
use meshcodec::unigine::{MeshVersion, UnigineMesh};
use meshcodec::{detect, Format, Limits};

#[derive(Parser)]
#[command(
    name = "meshcodec",
    version,
    about = "Read and write game mesh files exactly (Roblox FileMesh 1.00–7.00, CSGPHS, UNIGINE, STF)",
    long_about = "Read and write game mesh files exactly.\n\n\
        Supported now: Roblox FileMesh 1.00 to 7.00, every version (byte-exact).\n\
        Roblox CSGPHS (collision data) 0, 3, 5, 6, 7, 8 (byte-exact; version 8 decoded).\n\
        UNIGINE .mesh ms10 to ms14 and .anim an10, an11 (byte-exact; meshes convert\n\
        between all five, ms14 spatial trees built as UNIGINE builds them).\n\
        STF (stf.mesh): the container byte-exact, meshes decoded.\n\n\
        Exit status: 0 success, 1 a problem with the input, 2 a usage error."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print the format, version and counts of a file.
    Info {
        /// The mesh file.
        file: PathBuf,
        /// Print one JSON object (keys: format, version, vertices, faces, …).
        #[arg(long)]
        json: bool,
    },
    /// Rewrite IN as OUT: byte-identical without --to; with --to, convert through the
    /// version-independent model, refusing (status 1, listing the losses) when the target
    /// cannot hold everything unless --allow-lossy.
    Convert {
        /// Input file.
        input: PathBuf,
        /// Output file.
        output: PathBuf,
        /// Target version. FileMesh: 1.00, 1.01, 2.00, 3.00, 3.01, 4.00, 4.01, 5.00,
        /// 6.00, 7.00. CSGPHS: 0, 3, 5, 6, 7, 8. UNIGINE mesh: ms10, ms11, ms12, ms13, ms14.
        #[arg(long, value_name = "VER", value_parser = parse_target)]
        to: Option<String>,
        /// Accept a conversion that loses data the target cannot hold.
        #[arg(long)]
        allow_lossy: bool,
        /// FileMesh 7.00: how to write the core mesh. `auto` keeps the source's Draco
        /// bitstream or choice where it still applies, else uses Draco when it holds every
        /// value exactly and is smaller, else COREMESH v1 (never lossy); `draco` always
        /// compresses (normals quantized to 11 bits, a reported loss when they change);
        /// `v1` never does.
        #[arg(long, value_name = "HOW", default_value = "auto", value_parser = parse_coremesh)]
        coremesh: CoreMesh,
    },
    /// Read and write back each file; exit 1 if any is not byte-identical.
    Verify {
        /// Files to check.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Export the geometry as glTF 2.0 (.gltf with its buffer embedded, or .glb) or
    /// Wavefront OBJ, picked by OUT's extension. Positions, normals, the first UV set and
    /// colours, as the source stores them (no axis change); in glTF also skins (FileMesh
    /// bones, UNIGINE bones), morph targets (UNIGINE targets, STF blendshapes) and
    /// UNIGINE animations (ms10–ms12 embedded ones; a .anim file exports its skeleton
    /// and clips, to glTF only), one key per frame at 30 frames per second. Only the
    /// vertices the exported faces use are written (in their order); values that are not
    /// finite become 0 (scales 1) and zero normals (0, 0, 1): each such change is printed
    /// as a note on stderr, and the export still succeeds.
    Export {
        /// Input file (FileMesh, CSGPHS, UNIGINE mesh or animation, STF).
        input: PathBuf,
        /// Output file: .gltf, .glb or .obj.
        #[arg(value_parser = interchange_path)]
        output: PathBuf,
        /// FileMesh: the level of detail to export (0, the default, is full detail).
        #[arg(long, value_name = "N", default_value_t = 0)]
        lod: usize,
    },
    /// Import a glTF 2.0 (.gltf, .glb) or OBJ file as a Roblox FileMesh (every triangle
    /// primitive's positions, normals, first UV set and colours, in mesh-local
    /// coordinates) or as CSGPHS collision data (one convex hull per primitive).
    Import {
        /// Input file: .gltf, .glb or .obj.
        #[arg(value_parser = interchange_path)]
        input: PathBuf,
        /// Output file.
        output: PathBuf,
        /// Version to write: FileMesh 1.00, 1.01, 2.00, 3.00, 3.01, 4.00, 4.01, 5.00,
        /// 6.00, 7.00, or CSGPHS 0, 3, 5, 6, 7, 8.
        #[arg(long, value_name = "VER")]
        to: String,
        /// Accept a version that cannot hold everything (1.x: 6 significant digits,
        /// no colours; 7.00 with --coremesh draco: normals quantized).
        #[arg(long)]
        allow_lossy: bool,
        /// FileMesh 7.00: how to write the core mesh (auto, draco, v1; see `convert`).
        #[arg(long, value_name = "HOW", default_value = "auto", value_parser = parse_coremesh)]
        coremesh: CoreMesh,
    },
    /// Print the raw structure of a file as JSON.
    Dump {
        /// The mesh file.
        file: PathBuf,
    },
}

/// An error for the user: printed as `meshcodec: FILE: MESSAGE`, exit 1.
struct Failure(String);

fn fail(path: &Path, msg: impl std::fmt::Display) -> Failure {
    Failure(format!("{}: {msg}", path.display()))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Info { file, json } => info(&file, json),
        Command::Convert {
            input,
            output,
            to,
            allow_lossy,
            coremesh,
        } => convert(&input, &output, to.as_deref(), allow_lossy, coremesh),
        Command::Verify { files } => verify(&files),
        Command::Export { input, output, lod } => export(&input, &output, lod),
        Command::Import {
            input,
            output,
            to,
            allow_lossy,
            coremesh,
        } => import(&input, &output, &to, allow_lossy, coremesh),
        Command::Dump { file } => dump(&file),
    };
    match result {
        Ok(code) => code,
        Err(Failure(msg)) => {
            eprintln!("meshcodec: {msg}");
            ExitCode::from(1)
        }
    }
}

fn read_file(path: &Path) -> Result<Vec<u8>, Failure> {
    std::fs::read(path).map_err(|e| fail(path, format!("cannot read: {e}")))
}

/// A parsed file of any supported format (one per command: size doesn't matter).
#[allow(clippy::large_enum_variant)]
enum Loaded {
    FileMesh(FileMesh),
    Csgphs(Csgphs),
    UnigineMesh(UnigineMesh),
    UnigineAnim(UnigineAnim),
    Stf(StfContainer),
}

impl Loaded {
    fn write(&self) -> meshcodec::Result<Vec<u8>> {
        match self {
            Loaded::FileMesh(m) => m.write(),
            Loaded::Csgphs(c) => c.write(),
            Loaded::UnigineMesh(m) => m.write(),
            Loaded::UnigineAnim(a) => a.write(),
            Loaded::Stf(s) => s.write(),
        }
    }
}

fn load_any(path: &Path) -> Result<Loaded, Failure> {
    let bytes = read_file(path)?;
    parse(path, &bytes)
}

fn parse(path: &Path, bytes: &[u8]) -> Result<Loaded, Failure> {
    match detect(bytes) {
        Some(Format::FileMesh) => FileMesh::read(bytes)
            .map(Loaded::FileMesh)
            .map_err(|e| fail(path, e)),
        Some(Format::Csgphs) => Csgphs::read(bytes)
            .map(Loaded::Csgphs)
            .map_err(|e| fail(path, e)),
        Some(Format::UnigineMesh) => UnigineMesh::read(bytes)
            .map(Loaded::UnigineMesh)
            .map_err(|e| fail(path, e)),
        Some(Format::Stf) => StfContainer::read(bytes)
            .map(Loaded::Stf)
            .map_err(|e| fail(path, e)),
        Some(Format::UnigineAnim) => UnigineAnim::read(bytes)
            .map(Loaded::UnigineAnim)
            .map_err(|e| fail(path, e)),
        Some(other) => Err(fail(
            path,
            format!("{} files are not supported yet", other.name()),
        )),
        None => {
            let head: String = bytes
                .iter()
                .take(8)
                .map(|b| format!("{b:02x}"))
                .collect::<Vec<_>>()
                .join(" ");
            Err(fail(
                path,
                format!("not a known mesh format (first bytes: {head})"),
            ))
        }
    }
}

fn info(path: &Path, json: bool) -> Result<ExitCode, Failure> {
    let mesh = match load_any(path)? {
        Loaded::FileMesh(m) => m,
        Loaded::Csgphs(c) => return info_csgphs(path, &c, json),
        Loaded::UnigineMesh(m) => return info_unigine(path, &m, json),
        Loaded::UnigineAnim(a) => return info_anim(path, &a, json),
        Loaded::Stf(s) => return info_stf(path, &s, json),
    };
    let info = mesh.info().map_err(|e| fail(path, e))?;
    if json {
        return print_json(path, &info);
    }
    println!("format:     FileMesh {}", info.version);
    if let Some(h) = info.header_size {
        let vs = match info.vertex_size {
            Some(v) if !mesh.version.has_skinning() => format!(", {v}-byte vertices"),
            _ => String::new(),
        };
        println!("header:     {h} bytes{vs}");
    }
    if let Some(chunks) = &info.chunks {
        let list: Vec<String> = chunks
            .iter()
            .map(|c| {
                format!(
                    "{} v{} ({} bytes{})",
                    c.name,
                    c.version,
                    c.size,
                    if c.kind == "unknown" {
                        ", kept as bytes"
                    } else {
                        ""
                    }
                )
            })
            .collect();
        println!("chunks:     {}", list.join(", "));
    }
    println!("vertices:   {}", info.vertices);
    println!("faces:      {} (all LODs)", info.faces);
    if mesh.version.has_lods() {
        println!("lods:       {:?}", info.lod_offsets);
    }
    if let (Some(t), Some(hq)) = (info.lod_type, info.num_high_quality_lods) {
        let pad = info
            .padding
            .map(|p| format!(", padding byte: {p}"))
            .unwrap_or_default();
        println!("lod type:   {t}, high-quality LODs: {hq}{pad}");
    }
    if mesh.version.has_skinning() {
        println!(
            "bones:      {}{}",
            info.bones,
            if info.bone_names.is_empty() {
                String::new()
            } else {
                format!(" ({})", info.bone_names.join(", "))
            }
        );
        println!("subsets:    {}", info.subsets);
        println!("envelopes:  {}", info.envelopes);
    }
    if let Some(f) = &info.facs {
        println!(
            "facs:       format {}, {} bytes{}, {} face bones, {} controls, {} + {} correctives, matrix versions {:?}",
            f.format,
            f.size,
            if f.parsed || f.size == 0 { "" } else { " (kept as opaque bytes)" },
            f.face_bone_names.len(),
            f.face_control_names.len(),
            f.two_pose_correctives,
            f.three_pose_correctives,
            f.matrix_versions
        );
    }
    if let Some(n) = info.hsr_flags {
        println!("hsr flags:  {n}");
    }
    if info.trailing_bytes > 0 {
        println!(
            "trailing:   {} bytes after the last structure",
            info.trailing_bytes
        );
    }
    let n = info.non_finite;
    if !n.is_empty() {
        println!(
            "not finite: {} positions, {} normals, {} UVs hold NaN or infinity (kept as read)",
            n.positions, n.normals, n.uvs
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn info_unigine(path: &Path, m: &UnigineMesh, json: bool) -> Result<ExitCode, Failure> {
    let info = m.info(&Limits::default()).map_err(|e| fail(path, e))?;
    if json {
        return print_json(path, &info);
    }
    println!("format:     UNIGINE mesh {}", info.version);
    println!(
        "surfaces:   {} ({} vertices on {} positions, {} triangles)",
        info.surfaces, info.vertices, info.positions, info.faces
    );
    for s in &info.surface_list {
        let targets = if s.targets.len() > 1 {
            format!(", morph targets: {}", s.targets.join(", "))
        } else {
            String::new()
        };
        println!(
            "  {:?}: {} vertices, {} positions, {} triangles, {} weighted, uv0 {}, uv1 {}, colours {}{targets}",
            s.name, s.vertices, s.positions, s.faces, s.weighted_vertices, s.uv0, s.uv1, s.colors
        );
        if let Some(n) = s.tree_nodes {
            println!("    spatial tree: {n} nodes");
        }
    }
    if info.bones > 0 {
        println!(
            "bones:      {} ({})",
            info.bones,
            info.bone_names.join(", ")
        );
    }
    if !info.animations.is_empty() {
        println!("animations: {}", info.animations.join(", "));
    }
    let n = info.non_finite;
    if n.positions + n.uvs + n.bind_pose > 0 {
        println!(
            "not finite: {} positions, {} UVs, {} bind pose transforms hold NaN or infinity (kept as read)",
            n.positions, n.uvs, n.bind_pose
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn info_stf(path: &Path, s: &StfContainer, json: bool) -> Result<ExitCode, Failure> {
    let info = s.info().map_err(|e| fail(path, e))?;
    if json {
        return print_json(path, &info);
    }
    println!(
        "format:     STF {} ({} buffers, {} bytes of JSON)",
        info.version, info.buffers, info.json_bytes
    );
    println!(
        "meshes:     {} ({} vertices, {} triangles)",
        info.meshes, info.vertices, info.faces
    );
    for m in &info.mesh_list {
        println!(
            "  {:?}: {} vertices, {} splits, {} face corners, {} triangles in {} faces, UV sets [{}]{}{}",
            m.name,
            m.vertices,
            m.splits,
            m.face_corners,
            m.faces,
            m.polygons,
            m.uv_sets.join(", "),
            if m.normals { ", normals" } else { "" },
            if m.colors { ", colours" } else { "" }
        );
        for p in &m.problems {
            println!("    problem: {p}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn info_anim(path: &Path, a: &UnigineAnim, json: bool) -> Result<ExitCode, Failure> {
    let info = a.info();
    if json {
        return print_json(path, &info);
    }
    println!("format:     UNIGINE animation {}", info.version);
    println!(
        "bones:      {} ({})",
        info.bones,
        info.bone_names.join(", ")
    );
    for c in &info.animations {
        let name = if c.name.is_empty() {
            String::from("(unnamed)")
        } else {
            format!("{:?}", c.name)
        };
        println!(
            "animation:  {name}: {} frames of {} bones, {} keys store values",
            c.frames, c.animated_bones, c.stored_keys
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn info_csgphs(path: &Path, c: &Csgphs, json: bool) -> Result<ExitCode, Failure> {
    let info = c.info(&Limits::default()).map_err(|e| fail(path, e))?;
    if let Some(p) = &info.problem {
        eprintln!(
            "meshcodec: {}: the hulls do not decode, so the counts are the stored ones: {p}",
            path.display()
        );
    }
    if json {
        return print_json(path, &info);
    }
    println!("format:     CSGPHS {}", info.version);
    if let Some(p) = &info.problem {
        eprintln!(
            "meshcodec: {}: the hulls do not decode: {p}",
            path.display()
        );
    }
    if let Some(t) = info.geometry_type {
        println!("geometry:   type {t}");
    }
    println!(
        "hulls:      {} ({} vertices, {} triangles)",
        info.hulls, info.vertices, info.faces
    );
    if let Some(p) = &info.physics {
        println!(
            "physics:    volume {}, centre of gravity {:?}, inertia {:?}",
            p.volume, p.center_of_gravity, p.inertia
        );
    }
    if let Some(p) = &info.computed_physics {
        println!(
            "from hulls: volume {}, centre of gravity {:?}, inertia {:?}",
            p.volume, p.center_of_gravity, p.inertia
        );
    }
    if let Some(d) = info.physics_max_relative_difference {
        let verdict = if d <= PHYSICS_TOLERANCE {
            "agrees with"
        } else {
            "DIFFERS from"
        };
        println!("physics:    stored {verdict} the geometry (largest relative difference {d:.1e})");
    }
    if let Some(z) = &info.compressed {
        println!(
            "zstd:       {} bytes → {} bytes; {} Edgebreaker-coded hulls ({} bits), {} raw",
            z.frame_bytes, z.decompressed_bytes, z.coded_hulls, z.connectivity_bits, z.raw_hulls
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn convert(
    input: &Path,
    output: &Path,
    to: Option<&str>,
    allow_lossy: bool,
    core_mesh: CoreMesh,
) -> Result<ExitCode, Failure> {
    let options = WriteOptions { core_mesh };
    let bytes = match load_any(input)? {
        Loaded::FileMesh(file) => {
            let target = to
                .map(|t| {
                    t.parse::<Version>().map_err(|_| {
                        fail(
                            input,
                            format!("--to {t}: this is a FileMesh; its versions are 1.00 to 7.00"),
                        )
                    })
                })
                .transpose()?;
            match target {
                // Same version: the raw layer writes the file back byte for byte.
                None => file.write(),
                Some(target) if target == file.version => file.write(),
                Some(target) => {
                    let mesh = Mesh::from_file(&file).map_err(|e| fail(input, e))?;
                    let from = file.version.to_string();
                    let c = mesh
                        .convert_with(target, &options)
                        .map_err(|e| fail(input, e))?;
                    check_losses(input, &from, &target.to_string(), &c.losses, allow_lossy)?;
                    c.file.write()
                }
            }
        }
        Loaded::Csgphs(c) => {
            let target = to.map(|t| parse_csgphs_version(input, t)).transpose()?;
            match target {
                None => c.write(),
                Some(target) if target == c.version => c.write(),
                Some(target) => {
                    let model =
                        CsgMesh::from_csgphs(&c, &Limits::default()).map_err(|e| fail(input, e))?;
                    let (from, to) = (format!("CSGPHS {}", c.version), format!("CSGPHS {target}"));
                    check_losses(input, &from, &to, &model.losses(target), allow_lossy)?;
                    model.to_csgphs(target).and_then(|c| c.write())
                }
            }
        }
        Loaded::Stf(s) => match to {
            None => s.write(),
            Some(t) => {
                return Err(fail(
                    input,
                    format!("--to {t}: STF has one version; without --to the file is rewritten"),
                ))
            }
        },
        Loaded::UnigineAnim(a) => match to {
            None => a.write(),
            Some(t) if t == a.version() => a.write(),
            Some(t) => {
                return Err(fail(
                    input,
                    format!(
                        "--to {t}: converting between UNIGINE animation versions is not \
                         supported; without --to the file is rewritten as {}",
                        a.version()
                    ),
                ))
            }
        },
        Loaded::UnigineMesh(m) => match to {
            None => m.write(),
            Some(t) => {
                let target = t
                    .parse()
                    .map_err(|e: String| fail(input, format!("--to {t}: {e}")))?;
                let (from, to) = (m.version.to_string(), t.to_string());
                let losses = m.losses(target).map_err(|e| fail(input, e))?;
                check_losses(input, &from, &to, &losses, allow_lossy)?;
                m.to_version(target).and_then(|m| m.write())
            }
        },
    }
    .map_err(|e| fail(input, e))?;
    std::fs::write(output, bytes).map_err(|e| fail(output, format!("cannot write: {e}")))?;
    Ok(ExitCode::SUCCESS)
}

/// `--coremesh`: how a 7.00 core mesh is written.
fn parse_coremesh(s: &str) -> Result<CoreMesh, String> {
    match s {
        "auto" => Ok(CoreMesh::Auto),
        "draco" | "v2" => Ok(CoreMesh::Draco),
        "v1" | "uncompressed" => Ok(CoreMesh::Uncompressed),
        _ => Err(format!("{s:?}: auto, draco or v1 expected")),
    }
}

/// `--to`: a FileMesh or a CSGPHS version (which one must fit the input is checked later).
fn parse_target(t: &str) -> Result<String, String> {
    let csg = t.parse::<u32>().is_ok_and(|v| CSGPHS_VERSIONS.contains(&v));
    if csg || t.parse::<Version>().is_ok() || t.parse::<MeshVersion>().is_ok() {
        Ok(t.to_string())
    } else {
        Err(format!(
            "unknown version {t:?} (FileMesh: 1.00, 1.01, 2.00, 3.00, 3.01, 4.00, 4.01, 5.00, \
             6.00, 7.00; CSGPHS: 0, 3, 5, 6, 7, 8; UNIGINE mesh: ms10, ms11, ms12, ms13, ms14)"
        ))
    }
}

fn parse_csgphs_version(input: &Path, t: &str) -> Result<u32, Failure> {
    t.trim()
        .parse::<u32>()
        .ok()
        .filter(|v| CSGPHS_VERSIONS.contains(v))
        .ok_or_else(|| {
            fail(
                input,
                format!("--to {t}: this is CSGPHS data; its versions are 0, 3, 5, 6, 7, 8"),
            )
        })
}

/// Refuses a lossy conversion unless allowed; prints what is dropped when it is.
fn check_losses(
    input: &Path,
    from: &str,
    to: &str,
    losses: &[Loss],
    allow_lossy: bool,
) -> Result<(), Failure> {
    if !losses.is_empty() && !allow_lossy {
        let list: Vec<String> = losses.iter().map(|l| format!("  - {l}")).collect();
        return Err(fail(
            input,
            format!(
                "converting {from} to {to} would lose:\n{}\n(pass --allow-lossy to convert anyway)",
                list.join("\n")
            ),
        ));
    }
    for l in losses {
        eprintln!("meshcodec: {}: dropped: {l}", input.display());
    }
    Ok(())
}

fn verify(files: &[PathBuf]) -> Result<ExitCode, Failure> {
    let mut bad = 0usize;
    for path in files {
        let outcome = read_file(path).and_then(|bytes| {
            let mesh = parse(path, &bytes)?;
            let again = mesh.write().map_err(|e| fail(path, e))?;
            Ok((bytes, again))
        });
        match outcome {
            Ok((a, b)) if a == b => println!("ok        {} ({} bytes)", path.display(), a.len()),
            Ok((a, b)) => {
                bad += 1;
                let at = a
                    .iter()
                    .zip(&b)
                    .position(|(x, y)| x != y)
                    .unwrap_or(a.len().min(b.len()));
                println!(
                    "DIFFERS   {}: first difference at byte {at} ({} bytes read, {} written)",
                    path.display(),
                    a.len(),
                    b.len()
                );
            }
            Err(Failure(msg)) => {
                bad += 1;
                println!("ERROR     {msg}");
            }
        }
    }
    println!(
        "{} of {} files byte-identical after read and write",
        files.len() - bad,
        files.len()
    );
    Ok(if bad == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// A path's extension, lower case ("" if none).
fn extension(path: &Path) -> String {
    path.extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default()
}

/// `export`'s OUT and `import`'s IN: the extension must name an interchange format.
fn interchange_path(p: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(p);
    match extension(&path).as_str() {
        "gltf" | "glb" | "obj" => Ok(path),
        _ => Err(format!("{p}: the extension must be .gltf, .glb or .obj")),
    }
}

fn export(input: &Path, output: &Path, lod: usize) -> Result<ExitCode, Failure> {
    use meshcodec::scene;
    let name = input
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let limits = Limits::default();
    let loaded = load_any(input)?;
    if lod != 0 && !matches!(loaded, Loaded::FileMesh(_)) {
        return Err(fail(input, "--lod applies to FileMesh only"));
    }
    let ext = extension(output);
    let scene = match loaded {
        Loaded::FileMesh(f) => Mesh::from_file_with_limits(&f, &limits)
            .and_then(|m| meshcodec::filemesh::scene::to_scene(&m, &name, lod)),
        Loaded::Csgphs(c) => CsgMesh::from_csgphs(&c, &limits)
            .map(|m| meshcodec::csg::phs::scene::to_scene(&m, &name)),
        Loaded::UnigineMesh(m) => meshcodec::unigine::scene::mesh_to_scene(&m, &name, &limits),
        Loaded::Stf(s) => meshcodec::stf::scene::to_scene(&s),
        Loaded::UnigineAnim(a) => {
            if ext == "obj" {
                return Err(fail(
                    input,
                    "an animation has no geometry, and OBJ holds neither skeletons nor \
                     animations: export it to .gltf or .glb",
                ));
            }
            meshcodec::unigine::scene::anim_to_scene(&a, &name)
        }
    }
    .map_err(|e| fail(input, e))?;
    let bytes = match ext.as_str() {
        "glb" => scene::gltf::to_glb(&scene),
        "gltf" => scene::gltf::to_gltf(&scene).map(String::into_bytes),
        _ => scene::obj::to_obj(&scene).map(String::into_bytes),
    }
    .map_err(|e| fail(input, e))?;
    std::fs::write(output, bytes).map_err(|e| fail(output, format!("cannot write: {e}")))?;
    let prims = scene.meshes.iter().flat_map(|m| &m.primitives);
    let (p, v, t) = prims.fold((0, 0, 0), |(p, v, t), x| {
        (p + 1, v + x.positions.len(), t + x.triangles.len())
    });
    let joints = scene.skeleton.as_ref().map_or(0, |s| s.joints.len());
    eprintln!(
        "meshcodec: {}: {} mesh(es), {p} primitive(s), {v} vertices, {t} triangles, \
         {joints} joint(s), {} animation(s)",
        output.display(),
        scene.meshes.len(),
        scene.animations.len()
    );
    // What the export changed to fit the format (unused vertices left out, values that
    // are not finite replaced): said, not an error.
    for note in &scene.notes {
        eprintln!("meshcodec: {}: note: {note}", input.display());
    }
    Ok(ExitCode::SUCCESS)
}

fn import(
    input: &Path,
    output: &Path,
    to: &str,
    allow_lossy: bool,
    core_mesh: CoreMesh,
) -> Result<ExitCode, Failure> {
    use meshcodec::scene::import;
    let options = WriteOptions { core_mesh };
    // A FileMesh version (`4.01`) or a CSGPHS version (`7`).
    let filemesh = to.parse::<Version>().ok();
    let csg = to
        .trim()
        .parse::<u32>()
        .ok()
        .filter(|v| CSGPHS_VERSIONS.contains(v));
    if filemesh.is_none() && csg.is_none() {
        return Err(fail(
            input,
            format!(
                "--to {to}: import writes a FileMesh (1.00 to 7.00) or CSGPHS collision \
                 data (0, 3, 5, 6, 7, 8)"
            ),
        ));
    }
    let bytes = read_file(input)?;
    let ext = extension(input);
    let scene = if ext == "obj" {
        let text =
            std::str::from_utf8(&bytes).map_err(|e| fail(input, format!("not UTF-8: {e}")))?;
        import::read_obj(text)
    } else {
        import::read_gltf(&bytes, input.parent())
    }
    .map_err(|e| fail(input, e))?;
    let from = if ext == "obj" {
        "the OBJ import"
    } else {
        "the glTF import"
    };
    let (out, summary) = if let Some(target) = filemesh {
        let mesh = meshcodec::filemesh::scene::from_scene(&scene).map_err(|e| fail(input, e))?;
        let c = mesh
            .convert_with(target, &options)
            .map_err(|e| fail(input, e))?;
        check_losses(input, from, &target.to_string(), &c.losses, allow_lossy)?;
        let out = c.file.write().map_err(|e| fail(input, e))?;
        let summary = format!(
            "FileMesh {target}, {} vertices, {} faces",
            mesh.vertices.len(),
            mesh.faces.len()
        );
        (out, summary)
    } else {
        let target = csg.unwrap_or(7);
        let model = meshcodec::csg::phs::scene::from_scene(&scene).map_err(|e| fail(input, e))?;
        let to = format!("CSGPHS {target}");
        check_losses(input, from, &to, &model.losses(target), allow_lossy)?;
        let out = model
            .to_csgphs(target)
            .and_then(|c| c.write())
            .map_err(|e| fail(input, e))?;
        (out, format!("{to}, {} hulls", model.hulls.len()))
    };
    std::fs::write(output, out).map_err(|e| fail(output, format!("cannot write: {e}")))?;
    eprintln!("meshcodec: {}: {summary}", output.display());
    Ok(ExitCode::SUCCESS)
}

fn dump(path: &Path) -> Result<ExitCode, Failure> {
    match load_any(path)? {
        Loaded::FileMesh(m) => print_json(path, &m),
        Loaded::UnigineMesh(m) => print_json(path, &m),
        Loaded::UnigineAnim(a) => print_json(path, &a),
        Loaded::Stf(s) => {
            // The JSON document parsed, and the meshes decoded, beside the container.
            #[derive(serde::Serialize)]
            struct Dump<'a> {
                container: &'a StfContainer,
                document: serde_json::Value,
                meshes: Vec<meshcodec::stf::StfMesh>,
            }
            let document = meshcodec::stf::model::document(&s).map_err(|e| fail(path, e))?;
            let meshes = meshcodec::stf::model::meshes(&s).map_err(|e| fail(path, e))?;
            print_json(
                path,
                &Dump {
                    container: &s,
                    document,
                    meshes,
                },
            )
        }
        Loaded::Csgphs(c) => {
            // Version 8: the zstd frame's content too, parsed.
            let payload = c.payload(&Limits::default()).map_err(|e| fail(path, e))?;
            #[derive(serde::Serialize)]
            struct Dump<'a> {
                #[serde(flatten)]
                raw: &'a Csgphs,
                #[serde(skip_serializing_if = "Option::is_none")]
                payload: Option<meshcodec::csg::phs::raw::V8Payload>,
            }
            print_json(path, &Dump { raw: &c, payload })
        }
    }
}

/// Prints a value as pretty JSON on standard output.
fn print_json(path: &Path, value: &impl serde::Serialize) -> Result<ExitCode, Failure> {
    let text = serde_json::to_string_pretty(value).map_err(|e| fail(path, e))?;
    println!("{text}");
    Ok(ExitCode::SUCCESS)
}
