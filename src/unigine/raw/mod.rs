//! The UNIGINE files as they are on disk, byte-exact.
//!
//! The magic is a little-endian u32 of four ASCII bytes that names the version (`ms10` …
//! `ms14`, `an10`, `an11`) and is repeated as a section separator. Counts and string
//! lengths are compact ints ([`cint`]).
//!
//! - [`mesh`]: ms10–ms13, plain arrays;
//! - [`ms14`]: LZ4-packed geometry and a spatial tree per surface ([`lz4`](crate::codec::lz4));
//! - [`anim`]: `.anim` files and the animations embedded in ms10–ms12 meshes;
//! - [`skeleton`]: bones, bind poses and bounds, shared by meshes and animations;
//! - [`quant`]: the fixed-point values and their exact inverses.

pub mod anim;
pub mod cint;
pub mod mesh;
pub mod ms14;
pub mod quant;
mod scan;
pub mod skeleton;
mod version;

pub use version::MeshVersion;

use serde::Serialize;

use crate::error::{Error, ErrorKind, Limits, Result};
use crate::io::{read_all_from, write_all};
use mesh::ClassicMesh;
use ms14::Ms14Mesh;

/// A UNIGINE `.mesh` file.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UnigineMesh {
    /// The version (the magic).
    pub version: MeshVersion,
    /// Everything after the magic.
    pub body: MeshBody,
}

/// The body of a mesh, by layout.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
#[allow(clippy::large_enum_variant)]
pub enum MeshBody {
    /// ms10–ms13.
    Classic(ClassicMesh),
    /// ms14.
    Ms14(Ms14Mesh),
}

impl UnigineMesh {
    /// Reads a mesh with the default [`Limits`].
    pub fn read(bytes: &[u8]) -> Result<UnigineMesh> {
        Self::read_with_limits(bytes, &Limits::default())
    }

    /// Reads a mesh.
    pub fn read_with_limits(bytes: &[u8], limits: &Limits) -> Result<UnigineMesh> {
        Self::read_from(std::io::Cursor::new(bytes), limits)
    }

    /// [`UnigineMesh::read_with_limits`] from a reader at its start (a file, say),
    /// without holding the file's bytes: the arrays are read straight into place, so
    /// reading a file takes about its size in memory, not twice.
    pub fn read_from<R: std::io::Read + std::io::Seek>(
        mut reader: R,
        limits: &Limits,
    ) -> Result<UnigineMesh> {
        use std::io::Read;
        let io = |e: std::io::Error| Error::new("input", ErrorKind::Io(e));
        crate::io::checked_len(&mut reader, limits)?;
        let mut head = Vec::with_capacity(4);
        (&mut reader).take(4).read_to_end(&mut head).map_err(io)?;
        let magic = <[u8; 4]>::try_from(head.as_slice())
            .map_err(|_| Error::at(0, "UNIGINE mesh magic", ErrorKind::UnexpectedEof))?;
        let version = MeshVersion::from_magic(magic).ok_or_else(|| {
            Error::at(
                0,
                "UNIGINE mesh magic",
                ErrorKind::UnsupportedVersion(format!(
                    "{} (supported: ms10, ms11, ms12, ms13, ms14)",
                    String::from_utf8_lossy(&magic)
                )),
            )
        })?;
        let rest = crate::io::Window::new(reader, 4).map_err(io)?;
        let shift = |mut e: Error| {
            e.shift(4);
            e
        };
        let body = match version {
            MeshVersion::Ms14 => MeshBody::Ms14(read_all_from(rest, limits, ()).map_err(shift)?),
            v => MeshBody::Classic(read_all_from(rest, limits, (v,)).map_err(shift)?),
        };
        Ok(UnigineMesh { version, body })
    }

    /// Writes the mesh into `out` as [`UnigineMesh::write`] would give it, without
    /// building the whole file in memory first (the arrays are written as they are).
    pub fn write_to(&self, out: &mut dyn std::io::Write) -> Result<()> {
        let io = |e: std::io::Error| Error::new("output", ErrorKind::Io(e));
        let magic = self.version.magic();
        let mut out = binrw::io::NoSeek::new(out);
        let endian = binrw::Endian::Little;
        let written = match (&self.body, self.version) {
            (MeshBody::Ms14(m), MeshVersion::Ms14) => {
                std::io::Write::write_all(&mut out, &magic).map_err(io)?;
                binrw::BinWrite::write_options(m, &mut out, endian, ())
            }
            (MeshBody::Classic(c), v) if v != MeshVersion::Ms14 => {
                c.check_fits(v)
                    .map_err(|e| crate::error::from_binrw(e, None))?;
                std::io::Write::write_all(&mut out, &magic).map_err(io)?;
                binrw::BinWrite::write_options(c, &mut out, endian, (v,))
            }
            // A body that does not match its version (the error is write's).
            _ => return std::io::Write::write_all(&mut out, &self.write()?).map_err(io),
        };
        written.map_err(|e| crate::error::from_binrw(e, None))
    }

    /// Writes the mesh; for a mesh read from a file, the same bytes.
    pub fn write(&self) -> Result<Vec<u8>> {
        let magic = self.version.magic();
        match (&self.body, self.version) {
            (MeshBody::Ms14(m), MeshVersion::Ms14) => {
                // The blocks are nearly all of the file: one allocation, not a growing one.
                let blocks = m.blocks.geometry.iter().chain(&m.blocks.trees);
                let capacity = blocks.map(|b| b.data.len() + 16).sum::<usize>() + 4096;
                write_all(&magic, m, capacity, ())
            }
            (MeshBody::Classic(c), v) if v != MeshVersion::Ms14 => {
                c.check_fits(v)
                    .map_err(|e| crate::error::from_binrw(e, None))?;
                write_all(&magic, c, 1024, (v,))
            }
            (_, v) => Err(Error::new(
                "UNIGINE mesh",
                ErrorKind::Inconsistent(format!("the body does not have the layout of {v}")),
            )),
        }
    }

    /// The ms10–ms13 body, if that is the layout.
    pub fn classic(&self) -> Option<&ClassicMesh> {
        match &self.body {
            MeshBody::Classic(c) => Some(c),
            MeshBody::Ms14(_) => None,
        }
    }

    /// The ms14 body, if that is the layout.
    pub fn ms14(&self) -> Option<&Ms14Mesh> {
        match &self.body {
            MeshBody::Ms14(m) => Some(m),
            MeshBody::Classic(_) => None,
        }
    }
}
