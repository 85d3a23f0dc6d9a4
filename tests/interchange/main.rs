//! Conversions between versions and formats, and the interchange formats: glTF/OBJ
//! export and import, skins, STF written from scenes, UNIGINE imports, thumbnails, atomic
//! output, Blender as a real client of the exports and stf_blender of the STF output.
//!
//! One test binary per group, each file below a module of it: a clone's `cargo test`
//! links five test binaries instead of twenty-nine.

#[path = "../common/mod.rs"]
mod common;

mod blender;
mod convert;
mod export;
mod gltf_roundtrip;
mod import;
mod import_skin;
mod output;
mod render;
mod stf_blender;
mod stf_write;
mod unigine_import;
