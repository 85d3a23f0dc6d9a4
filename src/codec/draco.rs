//! Draco, the compressed mesh of a COREMESH version 2 chunk (FileMesh 7.00), through the
//! pure-Rust [`draco_core`] crate.
//!
//! A COREMESH v2 payload is a `u32` length and then a Draco bitstream. Roblox writes a
//! Draco 2.2 triangle mesh, sequential encoding, no metadata, with five attributes that
//! are found here by **unique id** (not by their position in the stream):
//!
//! | unique id | Draco type | layout | [`Vertex`] field |
//! |---|---|---|---|
//! | 0 | POSITION | f32 × 3 | `position` |
//! | 1 | GENERIC | f32 × 3, quantized to 11 bits | `normal` |
//! | 2 | TEX_COORD | f32 × 2 | `uv` |
//! | 3 | GENERIC | u8 × 4 | `tangent` |
//! | 4 | COLOR | u8 × 4 | `color` |
//!
//! Points come out in Draco point order, which for sequential encoding is the order the
//! vertices were written in: SKINNING envelopes and subset ranges index them directly.
//!
//! [`encode()`] uses Roblox's settings ([`ENCODING_METHOD`], [`ENCODING_SPEED`],
//! [`NORMAL_QUANTIZATION_BITS`]); `encode(decode(blob))` gives back `blob` byte for byte
//! for every Roblox blob tried and for every stream [`encode()`] writes ([`decode()`] makes
//! the dequantized normals canonical for this). Positions, texture coordinates, tangents
//! and colours survive `decode(encode(..))` bit for bit, NaNs and −0 included; normals
//! are within the 11-bit quantization step (see [`normal_tolerance`]), and must be
//! finite.
//!
//! Untrusted input: [`decode()`] never panics on a bad or truncated bitstream, and checks
//! the point and face counts of a sequential stream's header against
//! [`Limits::max_decoded_bytes`] before anything is decoded. Other Draco streams (with
//! metadata, or EdgeBreaker-encoded) are bounded by handing the same ceiling to
//! `draco-core`'s own [`DecodeLimits`], and checked again afterwards.
//!
//! The rooms, by stage: [`read_header`] reads the fixed header (`header.rs`); [`decode()`]
//! decodes a stream shaped as Roblox writes them straight into the vertices and faces
//! (the walk of `survey/in_place.rs`), and runs `draco-core`'s decoder on any other and
//! copies the five attributes out (`decode.rs`), with the normals made canonical
//! (`normals.rs`); [`encode()`] builds `draco-core`'s mesh and runs
//! its encoder with Roblox's settings (`encode.rs`); [`survey()`] answers `info` and
//! `verify` without keeping the values (`survey.rs`, and `survey/in_place.rs`, the walk of
//! a Roblox stream where it lies); [`decode_attributes`] decodes any Draco mesh for glTF
//! (`attributes.rs`).
//!
//! [`DecodeLimits`]: draco_core::DecodeLimits

mod attributes;
mod core;
mod decode;
mod encode;
mod header;
mod normals;
mod survey;

pub use attributes::{decode_attributes, DecodedAttributes};
pub use decode::decode;
pub use encode::{distinct_normals_survive, encode, normals_survive};
pub use header::{read_header, Counts, Header};
pub use normals::normal_tolerance;
pub use survey::{survey, survey_in_place, Survey};

use crate::error::{Error, ErrorKind, Limits};
use crate::filemesh::raw::records::{Face, Vertex};

/// The context of every error from this module.
pub const CONTEXT: &str = "COREMESH v2 Draco";

/// Draco encoding method Roblox uses: 0, sequential (keeps the point order).
pub const ENCODING_METHOD: i32 = 0;
/// Draco encoding and decoding speed Roblox uses.
pub const ENCODING_SPEED: i32 = 3;
/// Quantization bits of the normal attribute (unique id 1), the only quantized one.
pub const NORMAL_QUANTIZATION_BITS: u32 = 11;

/// Unique id of the position attribute.
pub const UID_POSITION: u32 = 0;
/// Unique id of the normal attribute (Draco type GENERIC).
pub const UID_NORMAL: u32 = 1;
/// Unique id of the texture-coordinate attribute.
pub const UID_UV: u32 = 2;
/// Unique id of the tangent attribute (Draco type GENERIC, the vertex's four bytes).
pub const UID_TANGENT: u32 = 3;
/// Unique id of the colour attribute.
pub const UID_COLOR: u32 = 4;

/// Bytes that one decoded point costs (a [`Vertex`]).
const VERTEX_BYTES: u64 = std::mem::size_of::<Vertex>() as u64;
/// Bytes that one decoded face costs (a [`Face`]).
const FACE_BYTES: u64 = std::mem::size_of::<Face>() as u64;

fn invalid_at(offset: u64, message: impl Into<String>) -> Error {
    Error::at(offset, CONTEXT, ErrorKind::Invalid(message.into()))
}

fn invalid(message: impl Into<String>) -> Error {
    Error::new(CONTEXT, ErrorKind::Invalid(message.into()))
}

fn limit_exceeded(requested: u64, limits: &Limits) -> Error {
    Error::new(
        CONTEXT,
        ErrorKind::LimitExceeded {
            what: "decoded Draco mesh",
            requested,
            limit: limits.max_decoded_bytes,
        },
    )
}
