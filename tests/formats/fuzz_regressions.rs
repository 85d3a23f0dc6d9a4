//! The fuzz targets' property check (`fuzz/fuzz_targets/check.rs`) on stable, in
//! `cargo test`: every saved fuzz regression input (`tests/fuzz-regressions/`) and every
//! fixture must read without panicking, write back byte for byte when accepted, and
//! convert to every version and format either cleanly or into a file that opens again.

include!("../../fuzz/fuzz_targets/check.rs");

fn files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(files(&p));
            } else if p
                .extension()
                .is_none_or(|x| x != "md" && x != "py" && x != "json")
            {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

#[test]
fn fuzz_regressions_and_fixtures_hold_the_fuzz_properties() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut n = 0;
    for p in files(&root.join("tests/fuzz-regressions"))
        .into_iter()
        .chain(files(&root.join("roundtrip-fixtures")))
    {
        let data = std::fs::read(&p).unwrap();
        if data.len() as u64 > LIMITS.max_input_bytes {
            continue;
        }
        check(&data);
        n += 1;
    }
    assert!(n > 40, "{n} inputs");
}
