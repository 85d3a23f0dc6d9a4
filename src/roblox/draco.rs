//! Draco (COREMESH v2) through `draco-core` (stub; being implemented).

use super::records::{Face, Vertex};
use crate::error::{Error, ErrorKind, Limits, Result};

/// Decodes a COREMESH v2 Draco bitstream into vertices (original order) and faces.
pub fn decode(_bitstream: &[u8], _limits: &Limits) -> Result<(Vec<Vertex>, Vec<Face>)> {
    Err(Error::new(
        "Draco",
        ErrorKind::UnsupportedVersion("Draco decoding not implemented yet".into()),
    ))
}

/// Encodes vertices and faces with Roblox's settings (sequential encoding, speed 3,
/// 11-bit quantization of the normal attribute only).
pub fn encode(_vertices: &[Vertex], _faces: &[Face]) -> Result<Vec<u8>> {
    Err(Error::new(
        "Draco",
        ErrorKind::UnsupportedVersion("Draco encoding not implemented yet".into()),
    ))
}
