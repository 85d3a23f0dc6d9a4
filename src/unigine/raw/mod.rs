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

use std::fmt;

use serde::Serialize;

use crate::error::{Error, ErrorKind, Limits, Result};
use crate::io::{read_all_from, write_all};
use mesh::ClassicMesh;
use ms14::{Ms14Mesh, Ms14SurfaceHeader};

/// A version of the UNIGINE mesh format, named by its magic.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum MeshVersion {
    /// `ms10`: 7-byte tangents (w in one byte).
    Ms10,
    /// `ms11`.
    Ms11,
    /// `ms12`: surfaces gain lightmap settings.
    Ms12,
    /// `ms13`: no embedded animations.
    #[default]
    Ms13,
    /// `ms14`: counts in the surface headers, geometry and a spatial tree per surface in
    /// LZ4 blocks.
    Ms14,
}

impl MeshVersion {
    /// Every version this crate reads and writes.
    pub const ALL: [MeshVersion; 5] = [
        MeshVersion::Ms10,
        MeshVersion::Ms11,
        MeshVersion::Ms12,
        MeshVersion::Ms13,
        MeshVersion::Ms14,
    ];

    /// The versions in the ms10–ms13 layout.
    pub const CLASSIC: [MeshVersion; 4] = [
        MeshVersion::Ms10,
        MeshVersion::Ms11,
        MeshVersion::Ms12,
        MeshVersion::Ms13,
    ];

    /// The four magic bytes.
    pub fn magic(self) -> [u8; 4] {
        *match self {
            MeshVersion::Ms10 => b"ms10",
            MeshVersion::Ms11 => b"ms11",
            MeshVersion::Ms12 => b"ms12",
            MeshVersion::Ms13 => b"ms13",
            MeshVersion::Ms14 => b"ms14",
        }
    }

    /// The version a magic names, if this crate supports it.
    pub fn from_magic(magic: [u8; 4]) -> Option<MeshVersion> {
        MeshVersion::ALL.into_iter().find(|v| v.magic() == magic)
    }

    /// Whether the header names animations and the body embeds them (ms10–ms12).
    pub fn embeds_animations(self) -> bool {
        self <= MeshVersion::Ms12
    }
}

impl fmt::Display for MeshVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&String::from_utf8_lossy(&self.magic()))
    }
}

impl std::str::FromStr for MeshVersion {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<Self, String> {
        let b = s.trim().as_bytes();
        <[u8; 4]>::try_from(b)
            .ok()
            .and_then(MeshVersion::from_magic)
            .ok_or_else(|| {
                format!("unknown UNIGINE mesh version {s:?} (ms10, ms11, ms12, ms13, ms14)")
            })
    }
}

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

    /// The body in the ms10–ms13 layout: as it is, or an ms14 body with its geometry
    /// decompressed (the spatial trees are left out).
    pub fn to_classic(&self, limits: &Limits) -> Result<ClassicMesh> {
        self.classic_view(limits).map(std::borrow::Cow::into_owned)
    }

    /// [`UnigineMesh::classic_view`] taking the mesh: an ms14 mesh's compressed blocks
    /// are dropped as they are decoded ([`Ms14Mesh::into_geometry`]).
    pub(crate) fn into_classic(self, limits: &Limits) -> Result<ClassicMesh> {
        let m = match self.body {
            MeshBody::Classic(c) => return Ok(c),
            MeshBody::Ms14(m) => m,
        };
        let (m, geometry) = m.into_geometry(limits)?;
        Ok(classic_body(
            &m.surfaces,
            geometry,
            ClassicMesh {
                bounds: m.bounds,
                bones: m.bones,
                bind_pose: m.bind_pose,
                ..ClassicMesh::default()
            },
        ))
    }

    /// The body in the ms10–ms13 layout, borrowed when it already is (reading counts or
    /// losses then copies nothing), decoded from the blocks for ms14.
    pub fn classic_view(&self, limits: &Limits) -> Result<std::borrow::Cow<'_, ClassicMesh>> {
        let m = match &self.body {
            MeshBody::Classic(c) => return Ok(std::borrow::Cow::Borrowed(c)),
            MeshBody::Ms14(m) => m,
        };
        let geometry = (0..m.surfaces.len())
            .map(|i| m.geometry(i, limits))
            .collect::<Result<Vec<_>>>()?;
        Ok(std::borrow::Cow::Owned(classic_body(
            &m.surfaces,
            geometry,
            ClassicMesh {
                bounds: m.bounds,
                bones: m.bones.clone(),
                bind_pose: m.bind_pose.clone(),
                ..ClassicMesh::default()
            },
        )))
    }
}

/// The ms10–ms13 body of an ms14 mesh: `head` (its bounds, bones and bind pose; no
/// animations, which ms14 cannot hold) with the surfaces' headers and decoded geometry.
fn classic_body(
    surfaces: &[Ms14SurfaceHeader],
    geometry: Vec<ms14::Ms14Geometry>,
    head: ClassicMesh,
) -> ClassicMesh {
    ClassicMesh {
        surfaces: surfaces.iter().map(Ms14SurfaceHeader::to_classic).collect(),
        data: geometry.into_iter().map(mesh::SurfaceData::from).collect(),
        ..head
    }
}
