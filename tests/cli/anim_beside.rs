//! `convert --to ms13` / `ms14` of a mesh that embeds animations (ms10–ms12): the
//! target embeds none, so each goes beside OUT as an an11 `.anim` file, as `import --to
//! unigine:ms13` writes a scene's, and the report names it as written, not as dropped;
//! batch `convert --out-dir` does the same. The `.anim` files hold the animations the
//! source embeds: their scenes have the same channels, key for key.

use crate::cli::{meshcodec, s};
use crate::common;

use std::path::{Path, PathBuf};

use meshcodec::scene::{ChannelValues, Scene};
use meshcodec::{open, ExportOptions, Format, Limits, MeshFile};

/// The fixture that embeds an animation, and the corpus's skinned arm when it is there.
fn sources() -> Vec<PathBuf> {
    let mut v = vec![common::fixture_dir("unigine").join("ms11-embedded-anim.mesh")];
    if let Some(c) = common::corpus() {
        v.push(c.join("unigine/ms11-arm-skinned.mesh"));
    }
    v
}

/// The scene of a file in its own axes.
fn scene(path: &Path) -> Scene {
    let file = open(&std::fs::read(path).unwrap()).unwrap();
    let options = ExportOptions {
        keep_axes: true,
        ..ExportOptions::default()
    };
    file.to_scene(&options, &Limits::default()).unwrap()
}

/// The animations of two scenes agree channel for channel and key for key.
fn same_animations(a: &Scene, b: &Scene, what: &str) {
    assert_eq!(a.animations.len(), b.animations.len(), "{what}");
    for (x, y) in a.animations.iter().zip(&b.animations) {
        assert_eq!(x.channels.len(), y.channels.len(), "{what}");
        for (c, d) in x.channels.iter().zip(&y.channels) {
            assert_eq!((c.joint, &c.times), (d.joint, &d.times), "{what}");
            let values = |v: &ChannelValues| -> Vec<f32> {
                match v {
                    ChannelValues::Translation(v) | ChannelValues::Scale(v) => {
                        v.iter().flatten().copied().collect()
                    }
                    ChannelValues::Rotation(v) => v.iter().flatten().copied().collect(),
                }
            };
            let (p, q) = (values(&c.values), values(&d.values));
            assert_eq!(p.len(), q.len(), "{what}");
            for (u, v) in p.iter().zip(&q) {
                assert!((u - v).abs() <= 1e-5 * u.abs().max(1.0), "{what}: {u} {v}");
            }
        }
    }
}

#[test]
fn convert_to_ms13_and_ms14_writes_the_embedded_animations_beside_out() {
    let dir = tempfile::tempdir().unwrap();
    for src in sources() {
        let source = scene(&src);
        assert!(!source.animations.is_empty(), "{}", src.display());
        for to in ["ms13", "unigine:ms14"] {
            let out = dir.path().join(format!("m-{}.mesh", to.replace(':', "-")));
            let anim = out.with_extension("anim");
            // No --allow-lossy: nothing is dropped.
            let o = meshcodec(&["convert", s(&src), s(&out), "--to", to]);
            assert!(o.status.success(), "{} {to}: {o:?}", src.display());
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(
                err.contains(&format!("written beside it, in {}", anim.display())),
                "{err}"
            );
            assert!(!err.contains("cannot embed"), "{err}");
            let bytes = std::fs::read(&anim).unwrap();
            let file = open(&bytes).unwrap();
            assert_eq!(file.format(), Format::UnigineAnim);
            assert_eq!(file.version_name(), "an11");
            let written = scene(&anim);
            same_animations(&source, &written, &format!("{} {to}", src.display()));
            let joints = |s: &Scene| s.skeleton.as_ref().map_or(0, |k| k.joints.len());
            assert_eq!(joints(&written), joints(&source));
            // The mesh itself embeds none, and is the source's geometry.
            let mesh = scene(&out);
            assert!(mesh.animations.is_empty());
            let tris = |s: &Scene| -> usize {
                s.meshes
                    .iter()
                    .flat_map(|m| &m.primitives)
                    .map(|p| p.triangles.len())
                    .sum()
            };
            assert_eq!(tris(&mesh), tris(&source));
        }
        // The library's conversion to bytes writes one file: it names them as not written.
        let file = open(&std::fs::read(&src).unwrap()).unwrap();
        let c =
            meshcodec::convert_to(&file, "ms13", &Default::default(), &Limits::default()).unwrap();
        assert!(
            c.losses.iter().any(|l| l.detail.contains("cannot embed")),
            "{:?}",
            c.losses
        );
    }
}

#[test]
fn batch_convert_to_ms13_writes_the_anim_files_too() {
    let dir = tempfile::tempdir().unwrap();
    let src = common::fixture_dir("unigine").join("ms11-embedded-anim.mesh");
    let static_quad = common::fixture_dir("unigine").join("ms11-static-quad.mesh");
    let out = dir.path().join("out");
    let o = meshcodec(&[
        "convert",
        "--out-dir",
        s(&out),
        "--to",
        "ms13",
        "--json",
        s(&src),
        s(&static_quad),
    ]);
    assert!(o.status.success(), "{o:?}");
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let of = |name: &str| {
        lines
            .iter()
            .find(|j| j["path"].as_str().is_some_and(|p| p.ends_with(name)))
            .unwrap_or_else(|| panic!("{name}: {lines:?}"))
    };
    let animated = of("ms11-embedded-anim.mesh");
    assert_eq!(animated["lossless"], true, "{animated}");
    let anim = out.join("ms11-embedded-anim.anim");
    assert_eq!(animated["beside"][0]["path"], s(&anim), "{animated}");
    assert_eq!(animated["beside"][0]["what"], "animation \"idle\"");
    same_animations(&scene(&src), &scene(&anim), "batch");
    assert_eq!(of("ms11-static-quad.mesh")["beside"], serde_json::json!([]));
    assert!(!out.join("ms11-static-quad.anim").exists());
    // The text report names the file too.
    let o = meshcodec(&["convert", "--out-dir", s(&out), "--to", "ms13", s(&src)]);
    assert!(o.status.success(), "{o:?}");
    let text = String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr);
    assert!(
        text.contains(&format!("written beside it, in {}", anim.display())),
        "{text}"
    );
}

#[test]
fn an_out_named_like_its_animation_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let src = common::fixture_dir("unigine").join("ms11-embedded-anim.mesh");
    let out = dir.path().join("m.anim");
    let o = meshcodec(&["convert", s(&src), s(&out), "--to", "ms13"]);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("the mesh's own name"));
    assert!(!out.exists());
}

/// `convert --out-dir OUT --to ms13 INPUTS…` that fails one input: its report (stdout
/// and stderr).
fn batch_to_ms13_failing(out: &Path, inputs: [&Path; 2]) -> String {
    let mut args = vec!["convert", "--out-dir", s(out), "--to", "ms13"];
    args.extend(inputs.map(s));
    let o = meshcodec(&args);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    String::from_utf8_lossy(&o.stdout).to_string() + &String::from_utf8_lossy(&o.stderr)
}

/// Batch conversion: a file written beside one output is never another input's output or
/// a file beside another's; the input that would write it fails, naming both, and the
/// file that is written is the other's.
#[test]
fn batch_files_beside_never_overwrite_each_other_or_an_output() {
    let dir = tempfile::tempdir().unwrap();
    let unigine = common::fixture_dir("unigine");
    let src = dir.path().join("src");
    std::fs::create_dir(&src).unwrap();
    // Two meshes of one stem, each with an animation to write beside it as `a.anim`.
    std::fs::copy(unigine.join("ms11-embedded-anim.mesh"), src.join("a.mesh")).unwrap();
    std::fs::copy(unigine.join("ms11-embedded-anim.mesh"), src.join("a.msh")).unwrap();
    let out = dir.path().join("out");
    let report = batch_to_ms13_failing(&out, [&src.join("a.mesh"), &src.join("a.msh")]);
    assert!(
        report.contains("its animation would be written to"),
        "{report}"
    );
    assert!(report.contains("1 converted, 1 failed"), "{report}");
    // Exactly one of the two was written, with its animation.
    let written: Vec<bool> = ["a.mesh", "a.msh"]
        .iter()
        .map(|n| out.join(n).exists())
        .collect();
    assert_eq!(written.iter().filter(|&&w| w).count(), 1, "{written:?}");
    same_animations(
        &scene(&src.join("a.mesh")),
        &scene(&out.join("a.anim")),
        "a.anim",
    );

    // A mesh whose animation would land on another input's output (a mesh named
    // `b.anim`): refused, and that output is the other input's conversion.
    std::fs::copy(unigine.join("ms11-embedded-anim.mesh"), src.join("b.mesh")).unwrap();
    std::fs::copy(unigine.join("ms11-static-quad.mesh"), src.join("b.anim")).unwrap();
    let out = dir.path().join("out2");
    let report = batch_to_ms13_failing(&out, [&src.join("b.mesh"), &src.join("b.anim")]);
    assert!(report.contains("the output of"), "{report}");
    assert!(!out.join("b.mesh").exists());
    let quad = scene(&out.join("b.anim"));
    assert!(quad.animations.is_empty() && !quad.meshes.is_empty());
}
