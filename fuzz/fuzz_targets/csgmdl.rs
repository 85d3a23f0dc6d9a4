//! Fuzz target: union graphics (CSGMDL, CSGK) through the front door (see check.rs).
#![no_main]

include!("check.rs");

libfuzzer_sys::fuzz_target!(|data: &[u8]| check(data));
