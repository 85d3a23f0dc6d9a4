//! `meshcodec::strategy`, the kit downstream crates test with: every file it makes opens
//! through the front door and is written back byte for byte, and together they cover
//! every (format, version) it lists.

use std::collections::BTreeSet;

use meshcodec::strategy::{self, Size};
use meshcodec::{open, Limits, MeshFile};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

/// Opens `bytes`, writes them back, and gives (format, version).
fn round_trip(bytes: &[u8]) -> Result<(String, String), TestCaseError> {
    let file = open(bytes).map_err(|e| TestCaseError::fail(format!("open: {e}")))?;
    let back = file
        .write()
        .map_err(|e| TestCaseError::fail(format!("write: {e}")))?;
    prop_assert!(
        back == bytes,
        "{:?} {} written back differs",
        file.format(),
        file.version_name()
    );
    Ok((file.format().name().to_string(), file.version_name()))
}

#[test]
fn any_file_opens_writes_back_and_covers_every_version() {
    let seen = std::sync::Mutex::new(BTreeSet::new());
    let mut runner = TestRunner::new(Config::with_cases(600));
    runner
        .run(&strategy::any_file(), |bytes| {
            let pair = round_trip(&bytes)?;
            seen.lock().unwrap().insert(pair);
            Ok(())
        })
        .unwrap();
    let seen = seen.into_inner().unwrap();
    let listed: BTreeSet<(String, String)> = strategy::versions()
        .into_iter()
        .map(|(f, v)| (f.name().to_string(), v))
        .collect();
    assert_eq!(seen, listed);
    assert!(seen.len() >= 28, "{}", seen.len());
}

#[test]
fn each_format_function_makes_files_of_its_version() {
    for (format, version) in strategy::versions() {
        let mut runner = TestRunner::new(Config::with_cases(24));
        runner
            .run(&Size::default().file(format, &version), |bytes| {
                let (f, v) = round_trip(&bytes)?;
                prop_assert_eq!((f.as_str(), v.as_str()), (format.name(), version.as_str()));
                Ok(())
            })
            .unwrap();
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Files made from the models decode in full: `check` passes (Draco, zstd, LZ4, STF).
    #[test]
    fn model_made_files_pass_check(bytes in prop_oneof![
        strategy::filemesh("7.00"), strategy::csgphs(8), strategy::unigine_mesh("ms14"),
        strategy::stf(), strategy::csgmdl(5),
    ]) {
        let file = open(&bytes).unwrap();
        if !matches!(file.format(), meshcodec::Format::FileMesh) {
            prop_assert!(file.check(&Limits::default()).is_ok(), "{:?}", file.format());
        }
    }

    /// Damaged files: an error or a file that writes back exactly, never a panic.
    #[test]
    fn damaged_files_are_refused_or_kept(bytes in strategy::any_file().prop_flat_map(strategy::damaged)) {
        if let Ok(file) = open(&bytes) {
            prop_assert_eq!(file.write().unwrap(), bytes);
        }
    }

    /// Bigger sizes make bigger files.
    #[test]
    fn size_scales_the_arrays(bytes in Size::new(8).filemesh("4.00")) {
        round_trip(&bytes)?;
    }
}
