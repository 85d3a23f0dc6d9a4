//! Fuzz target: csgphs files through the front door (see check.rs for the properties).
#![no_main]

include!("check.rs");

libfuzzer_sys::fuzz_target!(|data: &[u8]| check(data));
