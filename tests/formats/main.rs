//! Each format read and written back: fixtures and corpus files byte for byte, the raw
//! and model layers, the codecs (Draco, the UNIGINE quantizers), streaming reads and
//! writes, and the fuzzers' regressions.
//!
//! One test binary per group, each file below a module of it: a clone's `cargo test`
//! links five test binaries instead of twenty-nine.

#[path = "../common/mod.rs"]
mod common;

mod csg_model;
mod csgmdl;
mod csgphs;
mod draco;
mod facs_eval;
mod fuzz_regressions;
mod model;
mod quantizers;
mod roundtrip;
mod stf;
mod streaming;
mod text;
mod unigine;
mod view;
