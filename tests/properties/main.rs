//! Property-based round trips: arbitrary raw values and models of every version,
//! written, read back and compared.
//!
//! One test binary per group, each file below a module of it: a clone's `cargo test`
//! links five test binaries instead of twenty-nine.

#[path = "../common/mod.rs"]
mod common;

mod proptest_model;
mod proptest_raw;
mod strategy;
