//! The command-line contract (ARCHITECTURE.md): commands, JSON keys, exit statuses
//! (0 success, 1 bad input, 2 usage, 3 a conversion refused as lossy), and damaged
//! files ending in status 1 with a message — never a panic.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub(crate) fn meshcodec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_meshcodec"))
        .args(args)
        .output()
        .expect("run meshcodec")
}

fn fixture(name: &str) -> PathBuf {
    common::fixtures().join(name)
}

pub(crate) fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn info_prints_counts() {
    let out = meshcodec(&["info", s(&fixture("v5.00-facs.mesh"))]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("FileMesh 5.00"), "{text}");
    assert!(text.contains("facs:"), "{text}");
}

#[test]
fn info_json_has_the_contract_keys_for_every_fixture() {
    let mut checked = 0;
    for set in common::FIXTURE_SETS {
        let dir = common::fixture_dir(set);
        let expected: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("expected.json")).unwrap())
                .unwrap();
        for (name, exp) in expected.as_object().unwrap() {
            let out = meshcodec(&["info", "--json", s(&dir.join(name))]);
            assert!(out.status.success(), "{out:?}");
            let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(v["format"], "filemesh");
            assert_eq!(v["version"], exp["version"], "{name}");
            for key in ["vertices", "faces"] {
                if !exp[key].is_null() {
                    assert_eq!(v[key], exp[key], "{name}: {key}");
                }
            }
            checked += 1;
        }
    }
    assert_eq!(checked, common::fixture_files().len());
}

#[test]
fn convert_same_version_is_byte_identical() {
    let dir = tempfile::tempdir().unwrap();
    for path in common::fixture_files() {
        let out_path = dir.path().join("out.mesh");
        let out = meshcodec(&["convert", s(&path), s(&out_path)]);
        assert!(out.status.success(), "{out:?}");
        assert_eq!(
            std::fs::read(&out_path).unwrap(),
            std::fs::read(&path).unwrap()
        );
    }
    // --to naming the same version is accepted, in any spelling.
    let out_path = dir.path().join("same.mesh");
    let src = fixture("v4.01-bones.mesh");
    let out = meshcodec(&["convert", s(&src), s(&out_path), "--to", "4.01"]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        std::fs::read(&out_path).unwrap(),
        std::fs::read(&src).unwrap()
    );
}

#[test]
fn convert_refuses_a_lossy_conversion_unless_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let out_path = dir.path().join("o.mesh");
    let src = fixture("v4.01-bones.mesh");
    let out = meshcodec(&["convert", s(&src), s(&out_path), "--to", "2.00"]);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("would lose") && err.contains("3 bones") && err.contains("skinning"),
        "{err}"
    );
    assert!(!out_path.exists());
    let out = meshcodec(&[
        "convert",
        s(&src),
        s(&out_path),
        "--to",
        "2.00",
        "--allow-lossy",
    ]);
    assert!(out.status.success(), "{out:?}");
    let v: serde_json::Value =
        serde_json::from_slice(&meshcodec(&["info", "--json", s(&out_path)]).stdout).unwrap();
    assert_eq!(v["version"], "2.00");
    // An upgrade that loses nothing needs no flag.
    let up = dir.path().join("up.mesh");
    let out = meshcodec(&[
        "convert",
        s(&fixture("v2.00-40b.mesh")),
        s(&up),
        "--to",
        "6.00",
    ]);
    assert!(out.status.success(), "{out:?}");
}

/// A conversion to text is printed into the output in pieces, never built whole: the
/// file written is the library's conversion byte for byte, for every fixture and every
/// text version; a refused one leaves an existing output as it was.
#[test]
fn text_conversions_write_what_the_library_converts() {
    let dir = tempfile::tempdir().unwrap();
    let out_path = dir.path().join("o.mesh");
    let mut checked = 0;
    for sub in ["filemesh", "chunked", "text"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(common::fixture_dir(sub))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "mesh"))
            .collect();
        files.sort();
        for src in files {
            let bytes = std::fs::read(&src).unwrap();
            for to in ["1.00", "1.01"] {
                let file = meshcodec::open(&bytes).unwrap();
                let expected = meshcodec::convert_to(
                    &file,
                    to,
                    &Default::default(),
                    &meshcodec::Limits::default(),
                );
                let out = meshcodec(&[
                    "convert",
                    s(&src),
                    s(&out_path),
                    "--to",
                    to,
                    "--allow-lossy",
                ]);
                match expected {
                    Ok(c) => {
                        assert!(out.status.success(), "{} to {to}: {out:?}", src.display());
                        let written = std::fs::read(&out_path).unwrap();
                        assert!(written == c.bytes, "{} to {to}", src.display());
                        checked += 1;
                    }
                    Err(_) => assert_eq!(out.status.code(), Some(1), "{}", src.display()),
                }
            }
        }
    }
    assert!(checked > 30, "{checked}");
    // Refused: what the output held before is still there.
    std::fs::write(&out_path, b"previous").unwrap();
    let src = fixture("v4.01-bones.mesh");
    let out = meshcodec(&["convert", s(&src), s(&out_path), "--to", "1.00"]);
    assert_eq!(out.status.code(), Some(3), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("would lose"));
    assert_eq!(std::fs::read(&out_path).unwrap(), b"previous");
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(meshcodec(&[]).status.code(), Some(2));
    assert_eq!(meshcodec(&["info"]).status.code(), Some(2));
    assert_eq!(meshcodec(&["frobnicate", "x"]).status.code(), Some(2));
    let out = meshcodec(&["convert", "a", "b", "--to", "9.99"]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown version") && err.contains("ms13") && err.contains("CSGPHS"),
        "{err}"
    );
}

#[test]
fn help_lists_each_command_in_one_line_and_keeps_the_long_text() {
    let out = meshcodec(&["--help"]);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    let commands: Vec<&str> = text
        .lines()
        .skip_while(|l| *l != "Commands:")
        .skip(1)
        .take_while(|l| !l.is_empty())
        .collect();
    let names: Vec<&str> = commands
        .iter()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(
        names,
        ["info", "convert", "verify", "export", "import", "render", "dump", "help"],
        "{text}"
    );
    for line in &commands {
        assert!(
            line.len() <= 100,
            "a command's summary is one short line: {line}"
        );
    }
    // The paragraph is still there for one command's help.
    for (command, long) in [
        ("convert", "mirroring the folders"),
        ("export", "30 frames per second"),
        ("import", "`_NAME.anim` for each of several"),
    ] {
        for args in [vec!["help", command], vec![command, "--help"]] {
            let out = meshcodec(&args);
            assert!(out.status.success(), "{out:?}");
            let text = String::from_utf8(out.stdout).unwrap();
            assert!(text.contains(long), "{args:?}: {text}");
        }
    }
}

#[test]
fn input_errors_exit_1_with_the_file_named() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.mesh");
    let out = meshcodec(&["info", s(&missing)]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("missing.mesh"));

    let junk = dir.path().join("junk.bin");
    std::fs::write(&junk, b"\x89PNG\r\n\x1a\n....").unwrap();
    let out = meshcodec(&["info", s(&junk)]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a known mesh format"));

    // A recognised format in a version that is not supported.
    let unigine = dir.path().join("x.mesh");
    std::fs::write(&unigine, b"ms15\x00\x00\x00\x00").unwrap();
    let out = meshcodec(&["info", s(&unigine)]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("x.mesh") && err.contains("unsupported version ms15"),
        "{err}"
    );
    // A cut UNIGINE file: the offset and the field.
    std::fs::write(&unigine, b"ms14\x04\x00\x00").unwrap();
    let out = meshcodec(&["info", s(&unigine)]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("at byte 5") && err.contains("Bounds"), "{err}");
    // A CSGPHS blob with an unknown version.
    let csg = dir.path().join("x.bin");
    std::fs::write(&csg, b"CSGPHS\x09\x00\x00\x00").unwrap();
    let out = meshcodec(&["info", s(&csg)]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unsupported version CSGPHS 9"));
}

#[test]
fn verify_reports_each_file_and_fails_on_a_bad_one() {
    let good = fixture("v3.00-lods.mesh");
    let out = meshcodec(&["verify", s(&good), s(&fixture("v2.00-36b.mesh"))]);
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("2 of 2 files byte-identical"));

    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("cut.mesh");
    let bytes = std::fs::read(&good).unwrap();
    std::fs::write(&bad, &bytes[..bytes.len() - 3]).unwrap();
    let out = meshcodec(&["verify", s(&good), s(&bad)]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("ERROR") && text.contains("cut.mesh"),
        "{text}"
    );
}

#[test]
fn dump_is_json_of_the_raw_structure() {
    let out = meshcodec(&["dump", s(&fixture("v5.00-facs.mesh"))]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["version"], "5.00");
    assert!(v["body"]["bones"].as_array().unwrap().len() == 4);
    assert!(v["body"]["facs"]["Data"]["quantized_transforms"]["px"].is_object());
}

/// Damaged files through the binary: status 1 and a message naming the file and the
/// byte offset, never a crash (status from a signal or 101 from a panic).
#[test]
fn damaged_files_end_with_status_1_and_a_message() {
    let dir = tempfile::tempdir().unwrap();
    let mut n = 0;
    for path in common::fixture_files() {
        let bytes = std::fs::read(&path).unwrap();
        let trailing = meshcodec::filemesh::raw::FileMesh::read(&bytes)
            .unwrap()
            .trailing()
            .len();
        for k in 1..=6 {
            let cut = (bytes.len() - trailing) * k / 7;
            let p = dir.path().join(format!("{n}.mesh"));
            std::fs::write(&p, &bytes[..cut]).unwrap();
            let out = meshcodec(&["info", s(&p)]);
            assert_eq!(
                out.status.code(),
                Some(1),
                "{}: cut at {cut}: {out:?}",
                path.display()
            );
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                err.starts_with(&format!("meshcodec: {}: ", p.display())),
                "{err}"
            );
            assert!(err.contains("at byte"), "{err}");
            n += 1;
        }
    }
    assert!(n >= 80);
}

#[test]
fn export_writes_gltf_glb_and_obj_for_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("roundtrip-fixtures");
    for input in [
        "filemesh/v5.00-facs.mesh",
        "chunked/v7.00-draco-grid-272.mesh",
        "csgphs/csgphs8-boxes.bin",
        "unigine/ms14-skinned.mesh",
        "unigine/ms11-skinned.mesh",
        "stf/two-meshes.stf",
    ] {
        for ext in ["gltf", "glb", "obj"] {
            let out = dir.path().join(format!("out.{ext}"));
            let o = meshcodec(&["export", s(&root.join(input)), s(&out)]);
            assert!(o.status.success(), "{input} → {ext}: {o:?}");
            let bytes = std::fs::read(&out).unwrap();
            match ext {
                "glb" => assert_eq!(&bytes[..4], b"glTF", "{input}"),
                "gltf" => assert!(bytes.starts_with(b"{"), "{input}"),
                _ => assert!(
                    String::from_utf8(bytes).unwrap().contains("\nf "),
                    "{input}"
                ),
            }
        }
    }
    let out = dir.path().join("out.glb");
    // LOD 1 of a mesh with LODs; a LOD it does not have is an input error.
    let lods = root.join("filemesh/v3.00-lods.mesh");
    assert!(meshcodec(&["export", "--lod", "1", s(&lods), s(&out)])
        .status
        .success());
    let o = meshcodec(&["export", "--lod", "9", s(&lods), s(&out)]);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("no LOD 9"));
    // An unknown extension is a usage error.
    let o = meshcodec(&["export", s(&lods), s(&dir.path().join("x.fbx"))]);
    assert_eq!(o.status.code(), Some(2), "{o:?}");
    // An animation exports its skeleton and clips to glTF; OBJ holds neither.
    for anim in ["unigine/an11-clip.anim", "unigine/an10-two-clips.anim"] {
        let anim = root.join(anim);
        for ext in ["glb", "gltf"] {
            let out = dir.path().join(format!("anim.{ext}"));
            let o = meshcodec(&["export", s(&anim), s(&out)]);
            assert!(o.status.success(), "{o:?}");
            let bytes = std::fs::read(&out).unwrap();
            let json: serde_json::Value = if ext == "glb" {
                assert_eq!(&bytes[..4], b"glTF");
                let len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
                serde_json::from_slice(&bytes[20..20 + len]).unwrap()
            } else {
                serde_json::from_slice(&bytes).unwrap()
            };
            assert!(json["animations"].as_array().is_some_and(|a| !a.is_empty()));
            assert!(json.get("meshes").is_none());
        }
        let obj = dir.path().join("anim.obj");
        let o = meshcodec(&["export", s(&anim), s(&obj)]);
        assert_eq!(o.status.code(), Some(1), "{o:?}");
        assert!(String::from_utf8_lossy(&o.stderr).contains("OBJ"), "{o:?}");
        assert!(!obj.exists());
    }
}

/// `verify` and `info` decode payloads, not just the container: a 7.00 whose Draco
/// bitstream is damaged, and a CSGPHS 8 whose zstd frame is, both fail with status 1
/// (each container alone still reads and writes back byte for byte).
#[test]
fn verify_and_info_fail_on_damaged_payloads() {
    let bin = env!("CARGO_BIN_EXE_meshcodec");
    let dir = tempfile::tempdir().unwrap();
    let mut draco =
        std::fs::read(common::fixture_dir("chunked").join("v7.00-draco-grid-272.mesh")).unwrap();
    let at = draco
        .windows(5)
        .position(|w| w == b"DRACO")
        .expect("a Draco stream");
    draco[at..at + 5].copy_from_slice(b"XXXXX");
    let mut zstd = std::fs::read(common::fixture_dir("csgphs").join("csgphs8-boxes.bin")).unwrap();
    zstd[12..16].copy_from_slice(&[0, 0, 0, 0]);
    for (name, bytes) in [("draco.mesh", draco), ("zstd.bin", zstd)] {
        let path = dir.path().join(name);
        std::fs::write(&path, &bytes).unwrap();
        let file = meshcodec::open(&bytes).expect("the container reads");
        use meshcodec::MeshFile;
        assert_eq!(file.write().unwrap(), bytes, "{name}");
        for cmd in ["verify", "info"] {
            let o = std::process::Command::new(bin)
                .arg(cmd)
                .arg(&path)
                .output()
                .unwrap();
            assert_eq!(o.status.code(), Some(1), "{cmd} {name}: {o:?}");
        }
    }
}

#[test]
fn render_over_its_work_budget_is_refused_with_the_way_to_raise_it() {
    let out_dir = std::env::temp_dir().join(format!("meshcodec-cli-{}", std::process::id()));
    std::fs::create_dir_all(&out_dir).unwrap();
    let png = out_dir.join("budget.png");
    let input = fixture("v4.01-bones.mesh");
    let out = meshcodec(&["render", s(&input), s(&png), "--max-work", "1"]);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--max-work"), "{err}");
    assert!(
        err.contains(input.file_name().unwrap().to_str().unwrap()),
        "{err}"
    );
    assert!(!png.exists(), "nothing written when refused");
    // The default budget draws it.
    let out = meshcodec(&["render", s(&input), s(&png)]);
    assert!(out.status.success(), "{out:?}");
    assert!(std::fs::read(&png).unwrap().starts_with(b"\x89PNG"));
    std::fs::remove_dir_all(&out_dir).ok();
}
