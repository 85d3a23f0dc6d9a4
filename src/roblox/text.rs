//! FileMesh 1.00 and 1.01: the text format (stub; being implemented).

use serde::Serialize;

use super::Version;
use crate::error::{Error, ErrorKind, Result};

/// A 1.00/1.01 text mesh.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FileMeshV1 {}

impl FileMeshV1 {
    /// Reads a whole text file (version line included).
    pub fn read(_bytes: &[u8], version: Version) -> Result<FileMeshV1> {
        Err(Error::at(
            8,
            "version line",
            ErrorKind::UnsupportedVersion(format!("{version} (text; not implemented yet)")),
        ))
    }

    /// Writes the whole file (version line included).
    pub fn write(&self, _version: Version) -> Result<Vec<u8>> {
        Err(Error::new(
            "FileMeshV1",
            ErrorKind::Inconsistent("not implemented".into()),
        ))
    }

    /// Number of faces.
    pub fn num_faces(&self) -> usize {
        0
    }
}
