//! Careful output: atomic replacement of OUT, a failing writer leaves OUT untouched and
//! no temporary file, a symlink at OUT is replaced (not written through), a directory is
//! refused, `convert X X` is safe, and printing into a closed pipe ends quietly.

use crate::common;

use std::process::{Command, Stdio};

use meshcodec::output::{write_atomically, write_atomically_with};

fn entries(dir: &std::path::Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn a_failing_writer_leaves_the_old_file_and_no_temporary() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.mesh");
    std::fs::write(&out, b"the user's previous file").unwrap();
    // A disk that fills after 1 KiB.
    let e = write_atomically_with(&out, |w| {
        w.write_all(&[7u8; 1024])?;
        Err(std::io::Error::new(
            std::io::ErrorKind::StorageFull,
            "disk full",
        ))
    })
    .unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::StorageFull);
    assert_eq!(std::fs::read(&out).unwrap(), b"the user's previous file");
    assert_eq!(entries(dir.path()), ["out.mesh"]);
    // A successful write replaces it whole.
    write_atomically(&out, b"new").unwrap();
    assert_eq!(std::fs::read(&out).unwrap(), b"new");
    assert_eq!(entries(dir.path()), ["out.mesh"]);
}

#[cfg(unix)]
#[test]
fn a_symlink_is_replaced_not_written_through_and_permissions_carry_over() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("elsewhere.mesh");
    std::fs::write(&target, b"someone else's file").unwrap();
    let link = dir.path().join("out.mesh");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    write_atomically(&link, b"new").unwrap();
    assert_eq!(std::fs::read(&target).unwrap(), b"someone else's file");
    assert!(!std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(std::fs::read(&link).unwrap(), b"new");

    let plain = dir.path().join("plain.mesh");
    std::fs::write(&plain, b"old").unwrap();
    std::fs::set_permissions(&plain, std::fs::Permissions::from_mode(0o600)).unwrap();
    write_atomically(&plain, b"new").unwrap();
    let mode = std::fs::metadata(&plain).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
}

#[test]
fn a_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let e = write_atomically(dir.path(), b"x").unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::IsADirectory);
    assert!(entries(dir.path()).is_empty());
    // The CLI says so, with status 1.
    let bin = env!("CARGO_BIN_EXE_meshcodec");
    let src = common::fixture_dir("filemesh").join("v4.00-bones.mesh");
    let o = Command::new(bin)
        .args(["convert".as_ref(), src.as_os_str(), dir.path().as_os_str()])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    assert!(String::from_utf8_lossy(&o.stderr).contains("is a directory"));
}

#[test]
fn convert_onto_itself_is_safe() {
    let bin = env!("CARGO_BIN_EXE_meshcodec");
    let dir = tempfile::tempdir().unwrap();
    let x = dir.path().join("x.mesh");
    let src = std::fs::read(common::fixture_dir("filemesh").join("v5.00-facs.mesh")).unwrap();
    std::fs::write(&x, &src).unwrap();
    let o = Command::new(bin)
        .args(["convert".as_ref(), x.as_os_str(), x.as_os_str()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    assert_eq!(std::fs::read(&x).unwrap(), src);
    let o = Command::new(bin)
        .args([
            "convert".as_ref(),
            x.as_os_str(),
            x.as_os_str(),
            "--to".as_ref(),
            "6.00".as_ref(),
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{o:?}");
    assert!(std::fs::read(&x).unwrap().starts_with(b"version 6.00\n"));
    assert_eq!(entries(dir.path()), ["x.mesh"]);
}

/// `dump | head -n 1` and `info | head -n 1`: the reader leaves after one line; the
/// command ends with status 0 and says nothing.
#[test]
fn a_closed_pipe_ends_quietly() {
    let bin = env!("CARGO_BIN_EXE_meshcodec");
    let src = common::fixture_dir("filemesh").join("v5.00-facs.mesh");
    for args in [
        vec!["dump"],
        vec!["info"],
        vec!["info", "--json"],
        vec!["verify"],
    ] {
        let mut child = Command::new(bin)
            .args(&args)
            .arg(&src)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Close the read end at once: every write then fails with a broken pipe.
        drop(child.stdout.take());
        let o = child.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(0), "{args:?}: {o:?}");
        assert!(
            o.stderr.is_empty(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}
