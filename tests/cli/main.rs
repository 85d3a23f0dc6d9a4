//! The command-line tool as a user runs it: commands, exit statuses, messages, batch
//! runs over folders with JSON lines.
//!
//! One test binary per group, each file below a module of it: a clone's `cargo test`
//! links five test binaries instead of twenty-nine.

#[path = "../common/mod.rs"]
mod common;

mod anim_beside;
mod batch;
mod cli;
mod loss_reports;
