//! Loss reports a script can act on: two levels (data lost, refused without
//! `--allow-lossy`, exit 3; layouts re-laid, listed, allowed), one line per lost thing,
//! JSON objects `{"kind", "level", "count", "text"}`, the same in batch runs and exports,
//! and usage errors worded and numbered alike however the version is spelled.

use crate::cli::{meshcodec, s};
use crate::common;

use std::path::PathBuf;
use std::process::Output;

fn fixture(name: &str) -> PathBuf {
    common::fixture_dir("filemesh").join(name)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A 7.00 with one level of detail and nothing 2.00 cannot hold: its lodType and the
/// chunk layout are how the file was laid out, not data, so the downgrade needs no flag
/// and says what it re-laid.
#[test]
fn a_downgrade_that_only_re_lays_needs_no_flag() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.mesh");
    let src = corpus.join("roblox/v7.00-86389496539231.mesh");
    let o = meshcodec(&["convert", s(&src), s(&out), "--to", "2.00"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("re-laid: lodType 0 and numHighQualityLODs 1"),
        "{err}"
    );
    assert!(!err.contains("dropped:"), "{err}");
    assert!(out.exists());
}

/// A refused conversion exits 3 (not 1, an error; not 2, a usage error), and in a batch
/// its JSON line has status "lossy" with the report as objects; the run's status is 3.
/// With --allow-lossy the same report is in the line of the file converted.
#[test]
fn a_refusal_is_status_lossy_with_its_losses_as_objects() {
    let dir = tempfile::tempdir().unwrap();
    let src = fixture("v4.01-bones.mesh");
    let o = meshcodec(&[
        "convert",
        s(&src),
        s(&dir.path().join("x.mesh")),
        "--to",
        "2.00",
    ]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    assert!(stderr(&o).contains("dropped: 3 bones (2.00 has no skeleton)"));

    let out_dir = dir.path().join("out");
    let batch = |lossy: bool| {
        let mut args = vec![
            "convert",
            "--out-dir",
            s(&out_dir),
            "--json",
            "--to",
            "2.00",
            s(&src),
        ];
        if lossy {
            args.push("--allow-lossy");
        }
        meshcodec(&args)
    };
    let o = batch(false);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let line: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON line");
    assert_eq!(line["status"], "lossy", "{line}");
    let losses = line["losses"].as_array().expect("losses");
    let bones = losses
        .iter()
        .find(|l| l["kind"] == "skeleton")
        .expect("the bones");
    assert_eq!(bones["level"], "lost");
    assert_eq!(bones["count"], 3);
    assert_eq!(bones["text"], "3 bones (2.00 has no skeleton)");
    for l in losses {
        let keys: Vec<&str> = l.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["kind", "level", "count", "text"], "{l}");
    }
    assert!(!out_dir.join("v4.01-bones.mesh").exists());

    let o = batch(true);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let line: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON line");
    assert_eq!(line["status"], "ok");
    assert_eq!(line["lossless"], false);
    assert_eq!(line["losses"].as_array().map(Vec::len), Some(losses.len()));
}

/// `--to 2` and `--to filemesh:2` are the same mistake: both a usage error (status 2)
/// worded as clap words an invalid value.
#[test]
fn a_bare_and_a_qualified_wrong_version_are_the_same_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let src = fixture("v4.01-bones.mesh");
    let out = dir.path().join("x.mesh");
    for to in ["2", "filemesh:2"] {
        let o = meshcodec(&["convert", s(&src), s(&out), "--to", to]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{to}: {err}");
        assert!(
            err.contains(&format!("invalid value '{to}' for '--to <[FORMAT:]VER>'")),
            "{to}: {err}"
        );
    }
    let o = meshcodec(&["import", s(&src), s(&out), "--to", "2"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

/// An error names the command the user ran and what the file has.
#[test]
fn render_names_itself_and_the_levels_there_are() {
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("x.png");
    let o = meshcodec(&[
        "render",
        s(&fixture("v3.00-lods.mesh")),
        s(&png),
        "--lod",
        "9",
    ]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("render: level of detail: no LOD 9"), "{err}");
    assert!(err.contains("levels of detail, LOD 0 to LOD"), "{err}");
}

/// The FACS head's export names what it leaves out: the other levels (with the hint
/// `--lod all`, which then keeps them), the FACS data and the tangents; an OBJ export
/// also the skeleton, and its summary counts no joints.
#[test]
fn an_export_names_what_it_leaves_out() {
    let Some(corpus) = common::corpus() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let src = corpus.join("roblox/v5.00-13674780763.mesh");
    let glb = dir.path().join("head.glb");
    let o = meshcodec(&["export", s(&src), s(&glb), "--json"]);
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    for expected in [
        "dropped: 1123 faces of LODs 1, 2 and the 1002 vertices only they use",
        "export --lod all keeps every level",
        "dropped: the FACS facial animation data",
        "dropped: the tangents of",
    ] {
        assert!(err.contains(expected), "{expected:?} in {err}");
    }
    assert!(
        !err.contains("no exported triangle uses"),
        "named once: {err}"
    );
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let kinds: Vec<&str> = json["losses"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|l| l["kind"].as_str())
        .collect();
    for kind in ["lods", "facs", "tangents"] {
        assert!(kinds.contains(&kind), "{kind} in {kinds:?}");
    }

    let o = meshcodec(&["export", s(&src), s(&glb), "--lod", "all"]);
    let err = stderr(&o);
    assert!(!err.contains("faces of LOD"), "every level kept: {err}");
    assert!(err.contains("3 mesh(es)"), "{err}");

    let obj = dir.path().join("head.obj");
    let o = meshcodec(&["export", s(&src), s(&obj)]);
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains(
            "the skeleton (38 joints) and the skins of 1 primitives are not carried into OBJ"
        ),
        "{err}"
    );
    assert!(!err.contains("joint(s)"), "OBJ holds no joints: {err}");
}
