//! Blender as a real client: every fixture and corpus file is exported to glTF (.glb) and
//! imported by Blender's own glTF importer, headless (`tests/blender/check_exports.py`).
//! Blender must show the vertex, triangle, bone, shape-key and animation counts of the
//! export (bones and animations also as `meshcodec info --json` counts them), and the
//! mesh where the source file puts it, upright: Blender is +Z up, so a UNIGINE file
//! (+Z up) must show its stored numbers and a Roblox or STF file (+Y up) its (x, −z, y).
//! Two things Blender does itself are expected: it drops triangles that use a vertex
//! twice or repeat another's three vertices, and it cannot give a bone a rest scale, so
//! the box of a file whose bind pose scales a joint is not compared (one fixture).
//!
//! Needs `blender` (Debian's 3.4: `apt-get install blender python3-numpy`; `.ci/run`
//! installs it) or `MESHCODEC_BLENDER=/path/to/blender`. Without it the test says it is
//! skipped, except under `CI=true`, where it fails.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use meshcodec::scene::{Scene, UpAxis};
use meshcodec::{detect, open, ExportOptions, Format, Limits, MeshFile};

fn blender() -> Option<PathBuf> {
    let exe = std::env::var_os("MESHCODEC_BLENDER")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("blender"));
    let found = Command::new(&exe)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if found {
        return Some(exe);
    }
    let ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
    assert!(!ci, "CI=true but Blender is missing ({})", exe.display());
    eprintln!("SKIPPED: Blender not found (install it, or set MESHCODEC_BLENDER)");
    None
}

/// The scene's positions, turned from its up axis to Blender's +Z up: min and max.
fn blender_box(scene: &Scene) -> Option<([f64; 3], [f64; 3])> {
    let mut lo = [f64::INFINITY; 3];
    let mut hi = [f64::NEG_INFINITY; 3];
    let mut any = false;
    for p in scene.meshes.iter().flat_map(|m| &m.primitives) {
        for &[x, y, z] in &p.positions {
            let v = match scene.up {
                UpAxis::Z => [x, y, z],
                UpAxis::Y => [x, -z, y],
            };
            for k in 0..3 {
                lo[k] = lo[k].min(f64::from(v[k]));
                hi[k] = hi[k].max(f64::from(v[k]));
            }
            any = true;
        }
    }
    any.then_some((lo, hi))
}

/// The triangles Blender keeps of a primitive: it drops those that use a vertex twice
/// and repeats of a triangle over the same three vertices (its mesh validation).
fn kept_triangles(triangles: &[[u32; 3]]) -> usize {
    let mut seen = std::collections::HashSet::new();
    triangles
        .iter()
        .filter(|t| t[0] != t[1] && t[1] != t[2] && t[0] != t[2])
        .filter(|t| {
            let mut k = **t;
            k.sort_unstable();
            seen.insert(k)
        })
        .count()
}

/// A count in `info --json`: a number, or the length of a list.
/// Runs `tests/blender/check_exports.py` in headless Blender on `manifest` (written to
/// `dir`): its standard output and standard error.
fn check_exports(blender: &Path, dir: &Path, manifest: &[serde_json::Value]) -> (String, String) {
    let list = dir.join("manifest.json");
    std::fs::write(&list, serde_json::to_vec(manifest).unwrap()).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/blender/check_exports.py");
    let out = Command::new(blender)
        .args(["-b", "--factory-startup", "--python"])
        .arg(&script)
        .arg("--")
        .arg(&list)
        .output()
        .expect("run Blender");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn info_count(info: &serde_json::Value, key: &str) -> Option<usize> {
    match &info[key] {
        serde_json::Value::Number(n) => n.as_u64().map(|n| n as usize),
        serde_json::Value::Array(a) => Some(a.len()),
        _ => None,
    }
}

#[test]
fn blender_imports_every_export_upright_with_the_right_counts() {
    let Some(blender) = blender() else { return };
    let mut paths =
        common::files_below(&Path::new(env!("CARGO_MANIFEST_DIR")).join("roundtrip-fixtures"));
    // The fixtures give 53 exports; the corpus, when it is there, more than 25 more.
    let mut want = 50;
    if let Some(c) = common::corpus() {
        paths.extend(common::files_below(&c));
        want = 80;
    }
    let dir = tempfile::tempdir().unwrap();
    let limits = Limits::default();
    let mut manifest = Vec::new();
    for path in paths {
        let bytes = std::fs::read(&path).unwrap();
        match detect(&bytes) {
            None | Some(Format::Csgk) => continue,
            Some(_) => {}
        }
        let file = open(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let options = |keep_axes| ExportOptions {
            name: "m".into(),
            keep_axes,
            ..ExportOptions::default()
        };
        let scene = file
            .to_scene(&options(false), &limits)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let stored = file.to_scene(&options(true), &limits).unwrap();
        let name = path.display().to_string();
        let joints = scene.skeleton.as_ref().map_or(0, |s| s.joints.len());
        // What the export carries of the file, as `info --json` counts it.
        let info = file.summary(&limits).unwrap().json;
        if let Some(bones) = info_count(&info, "bones") {
            assert_eq!(joints, bones, "{name}: joints");
        }
        if matches!(file.format(), Format::UnigineAnim | Format::UnigineMesh) {
            if let Some(n) = info_count(&info, "animations") {
                assert_eq!(scene.animations.len(), n, "{name}: animations");
            }
        }
        let glb = dir.path().join(format!("{}.glb", manifest.len()));
        std::fs::write(&glb, meshcodec::scene::gltf::to_glb(&scene).unwrap()).unwrap();
        let prims = || scene.meshes.iter().flat_map(|m| &m.primitives);
        let shape_keys: usize = scene
            .meshes
            .iter()
            .map(|m| {
                let mut names: Vec<&str> = m
                    .primitives
                    .iter()
                    .flat_map(|p| p.morph_targets.iter().map(|t| t.name.as_str()))
                    .collect();
                names.sort_unstable();
                names.dedup();
                names.len()
            })
            .sum();
        // Blender's bones have no rest scale: a joint scaled in the bind pose makes its
        // importer bake the skin into the vertices, which then move. (Only a fixture
        // has one; real files' bind poses are rigid.)
        let rigid = scene.skeleton.as_ref().is_none_or(|s| {
            s.joints
                .iter()
                .all(|j| j.scale.iter().all(|&x| (x - 1.0).abs() < 1e-6))
        });
        let bbox = blender_box(&stored).filter(|_| rigid);
        manifest.push(serde_json::json!({
            "name": name,
            "glb": glb,
            "vertices": prims().map(|p| p.positions.len()).sum::<usize>(),
            "triangles": prims().map(|p| kept_triangles(&p.triangles)).sum::<usize>(),
            "bones": joints,
            "shape_keys": shape_keys,
            "actions": scene.animations.len(),
            "bbox_min": bbox.map(|b| b.0),
            "bbox_max": bbox.map(|b| b.1),
        }));
    }
    assert!(manifest.len() >= want, "{} exports", manifest.len());
    let (text, stderr) = check_exports(&blender, dir.path(), &manifest);
    let ok = text.lines().filter(|l| l.starts_with("OK ")).count();
    let failures: Vec<&str> = text.lines().filter(|l| l.starts_with("FAIL ")).collect();
    assert!(
        failures.is_empty(),
        "{} of {} exports differ in Blender:\n{}",
        failures.len(),
        manifest.len(),
        failures.join("\n")
    );
    assert!(
        text.contains(&format!("DONE {}", manifest.len())) && ok == manifest.len(),
        "Blender checked {ok} of {}:\n{text}\n{stderr}",
        manifest.len(),
    );
    eprintln!("Blender imported {ok} exports with the expected counts and boxes");
}

/// glTF files that Blender itself writes (`tests/blender/make_scenes.py`: primitives, a
/// scene of placed objects with a linked duplicate and a parent, a shape-keyed and a
/// rigged mesh with an action, two UV maps, a Draco-compressed mesh, a `.gltf` + `.bin`
/// pair with spaces in their names) are imported into FileMesh 2.00, 4.00, 7.00, union
/// graphics 5, UNIGINE ms13 and STF, and exported back: the triangle
/// counts and the bounding boxes (glTF's axes) are Blender's own numbers.
#[test]
fn files_blender_writes_import_into_every_format_with_blenders_numbers() {
    let Some(blender) = blender() else { return };
    let dir = tempfile::tempdir().unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/blender/make_scenes.py");
    let out = Command::new(&blender)
        .args(["-b", "--factory-startup", "--python"])
        .arg(&script)
        .arg("--")
        .arg(dir.path())
        .output()
        .expect("run Blender");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("MADE"),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let expected: serde_json::Map<String, serde_json::Value> =
        serde_json::from_slice(&std::fs::read(dir.path().join("expected.json")).unwrap()).unwrap();
    assert!(expected.len() >= 8);
    let limits = Limits::default();
    let mut checked = 0;
    for (name, want) in &expected {
        let bytes = std::fs::read(dir.path().join(name)).unwrap();
        let scene = meshcodec::scene::import::read_gltf(&bytes, Some(dir.path()))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let triangles = want["triangles"].as_u64().unwrap() as usize;
        let corner = |k: &str| -> Vec<f64> {
            want[k]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap())
                .collect()
        };
        let (lo, hi) = (corner("bbox_min"), corner("bbox_max"));
        // What the glTF reader makes of Blender's rig, shape keys, UV maps and actions.
        let count = |k: &str| want[k].as_u64().unwrap() as usize;
        let prims: Vec<_> = scene.meshes.iter().flat_map(|m| &m.primitives).collect();
        assert_eq!(
            scene.skeleton.as_ref().map_or(0, |s| s.joints.len()),
            count("bones"),
            "{name}: joints"
        );
        assert_eq!(
            prims
                .iter()
                .map(|p| p.morph_targets.len())
                .max()
                .unwrap_or(0),
            count("shape_keys"),
            "{name}: morph targets"
        );
        assert_eq!(
            prims
                .iter()
                .map(|p| 1 + p.extra_uvs.len())
                .max()
                .unwrap_or(0),
            count("uv_sets"),
            "{name}: UV sets"
        );
        assert_eq!(
            scene.animations.len(),
            count("actions"),
            "{name}: animations"
        );
        assert!(
            scene.notes.iter().all(|n| !n.detail.contains("skin")),
            "{name}: {:?}",
            scene.notes
        );
        for to in [
            "filemesh:2.00",
            "filemesh:4.00",
            "filemesh:7.00",
            "csgmdl:5",
            "unigine:ms13",
            "stf",
        ] {
            let target = meshcodec::Target::qualified(to).unwrap().unwrap();
            let c = meshcodec::import(&scene, &target, &Default::default())
                .unwrap_or_else(|e| panic!("{name} to {to}: {e}"));
            let back = open(&c.bytes)
                .unwrap()
                .to_scene(&ExportOptions::default(), &limits)
                .unwrap();
            let ctx = format!("{name} to {to}");
            // The rig arrives as bones where the version has them.
            let has_bones = matches!(to, "filemesh:4.00" | "filemesh:7.00" | "unigine:ms13");
            assert_eq!(
                back.skeleton.as_ref().map_or(0, |s| s.joints.len()),
                if has_bones { count("bones") } else { 0 },
                "{ctx}: bones"
            );
            let got: usize = back
                .meshes
                .iter()
                .flat_map(|m| &m.primitives)
                .map(|p| p.triangles.len())
                .sum();
            assert_eq!(got, triangles, "{ctx}: triangles");
            let mut blo = [f64::INFINITY; 3];
            let mut bhi = [f64::NEG_INFINITY; 3];
            for p in back.meshes.iter().flat_map(|m| &m.primitives) {
                for v in &p.positions {
                    for k in 0..3 {
                        blo[k] = blo[k].min(f64::from(v[k]));
                        bhi[k] = bhi[k].max(f64::from(v[k]));
                    }
                }
            }
            let scale = lo.iter().chain(&hi).fold(1.0f64, |m, x| m.max(x.abs()));
            for k in 0..3 {
                assert!(
                    (blo[k] - lo[k]).abs() <= 1e-4 * scale
                        && (bhi[k] - hi[k]).abs() <= 1e-4 * scale,
                    "{ctx}: axis {k}: {}..{} against Blender's {}..{}",
                    blo[k],
                    bhi[k],
                    lo[k],
                    hi[k]
                );
            }
            checked += 1;
        }
    }
    eprintln!("{checked} imports of Blender's own files match its numbers");
}

/// A UNIGINE mesh's surfaces survive a round trip through Blender: the export gives each
/// surface a glTF material named after it, Blender's importer keeps them as material
/// slots and its exporter writes one primitive per material, and the import names each
/// surface after its material. Nothing is refused on the way back: Blender's own
/// material (`"pbrMetallicRoughness": {}`) holds only defaults.
#[test]
fn unigine_surfaces_survive_a_blender_round_trip() {
    let Some(blender) = blender() else { return };
    let Some(corpus) = common::corpus() else {
        return;
    };
    let bin = env!("CARGO_BIN_EXE_meshcodec");
    let dir = tempfile::tempdir().unwrap();
    let src = corpus.join("unigine/ms11-arm-skinned.mesh");
    let (glb, back, mesh) = (
        dir.path().join("arm.glb"),
        dir.path().join("arm-back.glb"),
        dir.path().join("arm-back.mesh"),
    );
    let run = |args: &[&std::ffi::OsStr]| Command::new(bin).args(args).output().unwrap();
    let o = run(&["export".as_ref(), src.as_os_str(), glb.as_os_str()]);
    assert!(o.status.success(), "{o:?}");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/blender/round_trip.py");
    let out = Command::new(&blender)
        .args(["-b", "--factory-startup", "--python"])
        .arg(&script)
        .arg("--")
        .args([&glb, &back])
        .output()
        .expect("run Blender");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("MATERIALS skin,cloth,glove") && text.contains("DONE"),
        "{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let o = run(&[
        "import".as_ref(),
        back.as_os_str(),
        mesh.as_os_str(),
        "--to".as_ref(),
        "unigine:ms11".as_ref(),
    ]);
    assert!(o.status.success(), "{o:?}");
    let file = open(&std::fs::read(&mesh).unwrap()).unwrap();
    let scene = file
        .to_scene(&ExportOptions::default(), &Limits::default())
        .unwrap();
    let names: Vec<&str> = scene.meshes[0]
        .primitives
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(names, ["skin", "cloth", "glove"]);
    let source = open(&std::fs::read(&src).unwrap())
        .unwrap()
        .to_scene(&ExportOptions::default(), &Limits::default())
        .unwrap();
    for (a, b) in source.meshes[0]
        .primitives
        .iter()
        .zip(&scene.meshes[0].primitives)
    {
        assert_eq!(a.triangles.len(), b.triangles.len(), "{}", a.name);
    }
}

/// Union graphics levels of detail reach Blender apart: the CSGMDL 4 blob in the corpus
/// lists `[0, 1050, 1152]` after its mesh, 350 triangles then 34 coarser ones over the
/// same box. `export` writes LOD 0 alone, so Blender imports its triangles without the
/// coarse copy drawn through them (all 384 in one mesh gave Blender more triangles than
/// LOD 0 has); `export --lod all` gives Blender two objects, `NAME LOD 0` and `LOD 1`.
#[test]
fn union_levels_of_detail_reach_blender_apart() {
    let Some(blender) = blender() else { return };
    let Some(corpus) = common::corpus() else {
        return;
    };
    let src = corpus.join("csgmdl/csgmdl4-4500696697.bin");
    let bytes = std::fs::read(&src).unwrap();
    let file = open(&bytes).unwrap();
    let limits = Limits::default();
    let lod0 = file.to_scene(&ExportOptions::default(), &limits).unwrap();
    let all = file
        .to_scene(
            &ExportOptions {
                all_lods: true,
                ..ExportOptions::default()
            },
            &limits,
        )
        .unwrap();
    let tris = |s: &Scene| -> Vec<usize> {
        s.meshes
            .iter()
            .flat_map(|m| &m.primitives)
            .map(|p| p.triangles.len())
            .collect()
    };
    assert_eq!(tris(&lod0), [350]);
    assert_eq!(tris(&all), [350, 34]);
    // What Blender kept of the whole index list as one mesh, against LOD 0 alone.
    let blob = meshcodec::csg::mdl::CsgMdl::read(&bytes).unwrap();
    let meshcodec::csg::mdl::raw::MdlBody::Plain(m) = &blob.body else {
        panic!("version 4 is plain")
    };
    let corners: Vec<[u32; 3]> = m
        .indices
        .chunks_exact(3)
        .map(|t| [t[0], t[1], t[2]])
        .collect();
    let kept_lod0 = kept_triangles(&corners[..350]);
    assert!(kept_triangles(&corners) > kept_lod0);
    let bin = env!("CARGO_BIN_EXE_meshcodec");
    let dir = tempfile::tempdir().unwrap();
    let mut manifest = Vec::new();
    for (args, scene, objects) in [(&[][..], &lod0, 1), (&["--lod", "all"][..], &all, 2)] {
        let glb = dir.path().join(format!("union-{objects}.glb"));
        let o = Command::new(bin)
            .arg("export")
            .args(args)
            .arg(&src)
            .arg(&glb)
            .output()
            .unwrap();
        assert!(o.status.success(), "{o:?}");
        let prims = || scene.meshes.iter().flat_map(|m| &m.primitives);
        let bbox = blender_box(scene);
        manifest.push(serde_json::json!({
            "name": format!("csgmdl4 {args:?}"),
            "glb": glb,
            "objects": objects,
            "vertices": prims().map(|p| p.positions.len()).sum::<usize>(),
            "triangles": prims().map(|p| kept_triangles(&p.triangles)).sum::<usize>(),
            "bones": 0,
            "shape_keys": 0,
            "actions": 0,
            "bbox_min": bbox.map(|b| b.0),
            "bbox_max": bbox.map(|b| b.1),
        }));
    }
    assert_eq!(manifest[0]["triangles"], kept_lod0);
    let (text, stderr) = check_exports(&blender, dir.path(), &manifest);
    assert!(
        text.lines().filter(|l| l.starts_with("OK ")).count() == 2 && text.contains("DONE 2"),
        "{text}\n{stderr}"
    );
    eprintln!("Blender imported LOD 0 of the union ({kept_lod0} triangles) without LOD 1");
}
