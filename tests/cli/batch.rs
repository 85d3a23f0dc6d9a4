//! Batch runs of the command line: folders walked recursively, files that are not meshes
//! skipped and counted, one report per file in order, JSON lines for scripts, one bad
//! file reported while the others go on (status 1), `convert --out-dir` mirroring the
//! input tree.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn meshcodec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_meshcodec"))
        .args(args)
        .output()
        .expect("run meshcodec")
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("roundtrip-fixtures")
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A folder tree: `a/` with two FileMesh files, `a/deep/` with a CSGPHS blob and a
/// UNIGINE mesh, a text file that is no mesh, and (when `damaged`) a cut mesh.
fn tree(damaged: bool) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a");
    std::fs::create_dir_all(a.join("deep")).unwrap();
    let f = fixtures();
    std::fs::copy(f.join("filemesh/v2.00-36b.mesh"), a.join("one.mesh")).unwrap();
    std::fs::copy(f.join("filemesh/v3.00-lods.mesh"), a.join("two.mesh")).unwrap();
    std::fs::copy(f.join("csgphs/csgphs3.bin"), a.join("deep/hull.bin")).unwrap();
    std::fs::copy(
        f.join("unigine/ms14-static-box.mesh"),
        a.join("deep/box.mesh"),
    )
    .unwrap();
    std::fs::write(a.join("notes.txt"), "not a mesh\n").unwrap();
    if damaged {
        let bytes = std::fs::read(f.join("filemesh/v3.00-lods.mesh")).unwrap();
        std::fs::write(a.join("cut.mesh"), &bytes[..bytes.len() - 3]).unwrap();
    }
    dir
}

fn json_lines(out: &Output) -> Vec<serde_json::Value> {
    String::from_utf8(out.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l:?}: {e}")))
        .collect()
}

fn field<'a>(v: &'a serde_json::Value, k: &str) -> &'a str {
    v[k].as_str().unwrap_or_else(|| panic!("{k} in {v}"))
}

#[test]
fn verify_walks_folders_in_order_and_skips_what_is_no_mesh() {
    let dir = tree(false);
    let out = meshcodec(&["verify", "--json", s(dir.path())]);
    assert!(out.status.success(), "{out:?}");
    let lines = json_lines(&out);
    let names: Vec<(String, &str)> = lines
        .iter()
        .map(|l| {
            let p = Path::new(field(l, "path"));
            let rel = p.strip_prefix(dir.path()).unwrap();
            (rel.to_string_lossy().replace('\\', "/"), field(l, "status"))
        })
        .collect();
    assert_eq!(
        names,
        [
            ("a/deep/box.mesh".to_string(), "ok"),
            ("a/deep/hull.bin".to_string(), "ok"),
            ("a/notes.txt".to_string(), "skipped"),
            ("a/one.mesh".to_string(), "ok"),
            ("a/two.mesh".to_string(), "ok"),
        ]
    );
    let one = &lines[3];
    assert_eq!(
        one["bytes"].as_u64(),
        Some(
            std::fs::metadata(dir.path().join("a/one.mesh"))
                .unwrap()
                .len()
        )
    );
    // Totals on standard error with --json; standard output holds only JSON.
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("4 of 4 files byte-identical"), "{err}");
    assert!(err.contains("1 skipped"), "{err}");
    // No progress bar or terminal codes when standard error is not a terminal.
    assert!(!err.contains('\x1b') && !err.contains('\r'), "{err:?}");
}

#[test]
fn one_damaged_file_fails_the_run_and_the_others_go_on() {
    let dir = tree(true);
    for jobs in ["1", "2"] {
        let out = meshcodec(&["verify", "-j", jobs, s(dir.path())]);
        assert_eq!(out.status.code(), Some(1), "{out:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        let cut = text.lines().find(|l| l.contains("cut.mesh")).unwrap();
        assert!(cut.starts_with("ERROR"), "{text}");
        assert_eq!(
            text.matches("\nok ").count() + text.starts_with("ok ") as usize,
            4
        );
        assert!(
            text.contains("4 of 5 files byte-identical after read and write (1 failed, 1 skipped"),
            "{text}"
        );
    }
    let out = meshcodec(&["info", "--json", s(dir.path())]);
    assert_eq!(out.status.code(), Some(1));
    let lines = json_lines(&out);
    let cut = lines
        .iter()
        .find(|l| field(l, "path").ends_with("cut.mesh"))
        .unwrap();
    assert_eq!(field(cut, "status"), "error");
    assert!(field(cut, "error").contains("byte"), "{cut}");
    let ok: Vec<_> = lines.iter().filter(|l| l["status"] == "ok").collect();
    assert_eq!(ok.len(), 4);
    assert!(ok
        .iter()
        .all(|l| l["format"].is_string() && l["vertices"].is_u64()));
}

#[test]
fn a_named_file_that_is_no_mesh_is_an_error_not_a_skip() {
    let dir = tree(false);
    let notes = dir.path().join("a/notes.txt");
    let one = dir.path().join("a/one.mesh");
    let out = meshcodec(&["verify", s(&one), s(&notes)]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("ERROR") && text.contains("notes.txt"),
        "{text}"
    );
}

#[test]
fn extension_and_pattern_filters_apply_to_folders() {
    let dir = tree(false);
    let out = meshcodec(&["verify", "--json", "--ext", "bin", s(dir.path())]);
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 1);
    assert!(field(&lines[0], "path").ends_with("hull.bin"));

    let out = meshcodec(&["info", "--json", "--glob", "t*.mesh", s(dir.path())]);
    let lines = json_lines(&out);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(field(&lines[0], "path").ends_with("two.mesh"));

    let out = meshcodec(&["info", "--json", "--glob", "a/deep/*", s(dir.path())]);
    assert_eq!(json_lines(&out).len(), 2);
}

#[test]
fn convert_out_dir_mirrors_the_tree_and_reports_each_file() {
    let dir = tree(true);
    let out_dir = dir.path().join("out");
    let out = meshcodec(&[
        "convert",
        "--out-dir",
        s(&out_dir),
        "--to",
        "filemesh:4.00",
        "--allow-lossy",
        "--json",
        "--ext",
        "mesh",
        s(&dir.path().join("a")),
    ]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let lines = json_lines(&out);
    let by_name = |n: &str| {
        lines
            .iter()
            .find(|l| field(l, "path").ends_with(n))
            .unwrap_or_else(|| panic!("{n} in {lines:?}"))
    };
    // The damaged file fails; the others are written below out/, as in a/.
    assert_eq!(field(by_name("cut.mesh"), "status"), "error");
    assert!(!out_dir.join("cut.mesh").exists());
    for (name, from) in [("one.mesh", "2.00"), ("two.mesh", "3.00")] {
        let l = by_name(name);
        assert_eq!(field(l, "status"), "ok", "{l}");
        assert_eq!(field(l, "from"), from);
        assert_eq!(field(l, "to"), "4.00");
        assert_eq!(field(l, "to_format"), "filemesh");
        let written = out_dir.join(name);
        assert_eq!(field(l, "output"), s(&written));
        let bytes = std::fs::read(&written).unwrap();
        assert!(bytes.starts_with(b"version 4.00"), "{name}");
        assert_eq!(l["bytes"].as_u64(), Some(bytes.len() as u64));
        assert_eq!(l["losses"], serde_json::json!([]));
    }
    // A UNIGINE box becomes a FileMesh too (across formats), in the mirrored folder.
    let l = by_name("box.mesh");
    assert_eq!(field(l, "status"), "ok", "{l}");
    assert_eq!(field(l, "from_format"), "unigine-mesh");
    // What it cannot carry is named, per file, even when allowed.
    assert!(!l["losses"].as_array().unwrap().is_empty(), "{l}");
    assert!(std::fs::read(out_dir.join("deep/box.mesh"))
        .unwrap()
        .starts_with(b"version 4.00"));
}

#[test]
fn convert_batch_without_to_copies_exactly_and_refuses_clashing_outputs() {
    let dir = tree(false);
    let out_dir = dir.path().join("copy");
    let out = meshcodec(&[
        "convert",
        "--out-dir",
        s(&out_dir),
        s(&dir.path().join("a")),
    ]);
    assert!(out.status.success(), "{out:?}");
    for rel in ["one.mesh", "two.mesh", "deep/hull.bin", "deep/box.mesh"] {
        assert_eq!(
            std::fs::read(out_dir.join(rel)).unwrap(),
            std::fs::read(dir.path().join("a").join(rel)).unwrap(),
            "{rel}"
        );
    }
    assert!(!out_dir.join("notes.txt").exists());

    // Two named files of one name would land on one output: refused before any write.
    let other = dir.path().join("other");
    std::fs::create_dir(&other).unwrap();
    std::fs::copy(dir.path().join("a/two.mesh"), other.join("one.mesh")).unwrap();
    let clash = dir.path().join("clash");
    let out = meshcodec(&[
        "convert",
        "--out-dir",
        s(&clash),
        s(&dir.path().join("a/one.mesh")),
        s(&other.join("one.mesh")),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("would be written to"));
    assert!(!clash.exists());

    // IN OUT with a folder as IN asks for --out-dir (usage, status 2).
    let out = meshcodec(&["convert", s(&dir.path().join("a")), s(&clash)]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--out-dir"));
}

#[cfg(unix)]
#[test]
fn links_inside_folders_are_not_followed() {
    let dir = tree(false);
    let outside = tempfile::tempdir().unwrap();
    std::fs::copy(
        fixtures().join("filemesh/v2.00-36b.mesh"),
        outside.path().join("secret.mesh"),
    )
    .unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join("a/link")).unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("secret.mesh"),
        dir.path().join("a/file-link.mesh"),
    )
    .unwrap();
    let out = meshcodec(&["verify", "--json", s(dir.path())]);
    let lines = json_lines(&out);
    let skipped: Vec<_> = lines
        .iter()
        .filter(|l| l["status"] == "skipped")
        .map(|l| field(l, "path").rsplit('/').next().unwrap().to_string())
        .collect();
    assert_eq!(skipped, ["file-link.mesh", "link", "notes.txt"]);
    assert!(lines.iter().all(|l| !field(l, "path").contains("secret")));
}

/// Width and height from a PNG's IHDR chunk.
fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    let be = |i: usize| u32::from_be_bytes(bytes[i..i + 4].try_into().unwrap());
    (be(16), be(20))
}

#[test]
fn render_draws_one_file_or_a_picture_per_file_of_a_tree() {
    let dir = tree(true);
    let one = dir.path().join("one.png");
    let out = meshcodec(&[
        "render",
        "--size",
        "96",
        "--background",
        "ffffff",
        s(&dir.path().join("a/two.mesh")),
        s(&one),
    ]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(png_size(&std::fs::read(&one).unwrap()), (96, 96));

    let pics = dir.path().join("pics");
    let out = meshcodec(&[
        "render",
        "--json",
        "--out-dir",
        s(&pics),
        s(&dir.path().join("a")),
    ]);
    assert_eq!(out.status.code(), Some(1), "the cut mesh fails: {out:?}");
    let lines = json_lines(&out);
    let status = |n: &str| {
        let l = lines
            .iter()
            .find(|l| field(l, "path").ends_with(n))
            .unwrap();
        field(l, "status").to_string()
    };
    assert_eq!(status("cut.mesh"), "error");
    assert_eq!(status("notes.txt"), "skipped");
    for rel in ["one.mesh", "two.mesh", "deep/hull.bin", "deep/box.mesh"] {
        assert_eq!(status(rel), "ok", "{rel}");
        let png = std::fs::read(pics.join(format!("{rel}.png"))).unwrap();
        assert_eq!(png_size(&png), (256, 256), "{rel}");
    }

    // Bad options are usage errors (status 2), named.
    for args in [
        vec!["render", "--background", "red", "x.mesh", "y.png"],
        vec!["render", s(&dir.path().join("a"))],
    ] {
        let out = meshcodec(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
    let out = meshcodec(&[
        "render",
        "--size",
        "8",
        s(&dir.path().join("a/one.mesh")),
        s(&one),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("16 to 4096"));
}
