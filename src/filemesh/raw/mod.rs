//! Roblox FileMesh: the raw, byte-exact layer.
//!
//! [`FileMesh::read`] parses the version line once, then reads the body of that version
//! ([`FileMeshV2`] for 2.00/3.0x, [`FileMeshV4`] for 4.0x/5.00). [`FileMesh::write`]
//! gives back the same bytes for an unmodified file.
//!
//! # Example
//!
//! ```
//! use meshcodec::filemesh::raw::{Body, FileMesh, Version};
//!
//! let bytes = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/roundtrip-fixtures/filemesh/v5.00-facs.mesh"));
//! let mut mesh = FileMesh::read(bytes)?;
//! assert_eq!(mesh.version, Version::V5_00);
//! let Body::V4(body) = &mut mesh.body else { unreachable!() };
//! assert_eq!(body.bones.len(), 4);
//! body.vertices[0].color = [255, 0, 0, 255]; // edit a record in place
//! let written = mesh.write()?;
//! assert_eq!(written.len(), bytes.len()); // the same layout, one vertex's colour changed
//! # Ok::<(), meshcodec::Error>(())
//! ```

pub mod chunks;
pub mod facs;
mod info;
pub mod records;
pub mod text;
pub mod v2;
pub mod v4;
mod version;
pub mod view;

use serde::Serialize;

pub use chunks::{
    Chunk, ChunkData, CoreMeshV1, CoreMeshV2, FacsV1, FileMeshV6, HsrAvisV1, LodsV1, SkinningV1,
};
pub use facs::{Facs, FacsData, MatrixData, QuantizedMatrix, QuantizedTransforms};
pub use info::{ChunkInfo, FacsInfo, Info};
pub use records::{
    Bone, Envelope, Face, NonFiniteCounts, Subset, ThreePoseCorrective, TwoPoseCorrective, Vertex,
    Vertex36,
};
pub use text::FileMeshV1;
pub use v2::{FileMeshHeaderV2, FileMeshV2, LodOffsetsV3, VertexArray};
pub use v4::{FileMeshHeaderV4, FileMeshV4};
pub use version::Version;
pub use view::FileMeshView;

use crate::error::{Error, ErrorKind, Limits, Result};
use crate::io::{read_all_from, write_all, Arrays, Owned, Window};

/// Length of the binary version line, `version X.YY\n`.
pub const VERSION_LINE_LEN: usize = 13;

/// A FileMesh file as it is on disk: the version and the body of that version.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FileMesh {
    /// The version from the first line.
    pub version: Version,
    /// The structures after the version line.
    pub body: Body,
}

/// The body of a FileMesh, by layout. [`FileMesh::write`] checks that the layout
/// matches the version. `A` says where the big arrays are held ([`Arrays`]): in memory
/// by default; [`FileMeshView`] reads the same layouts with them left in place.
// One per file: the size of the inline variant does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged, bound = "")]
pub enum Body<A: Arrays = Owned> {
    /// 1.00, 1.01 (text).
    V1(FileMeshV1),
    /// 2.00, 3.00, 3.01.
    V2(FileMeshV2<A>),
    /// 4.00, 4.01, 5.00.
    V4(FileMeshV4<A>),
    /// 6.00, 7.00 (chunks).
    V6(FileMeshV6<A>),
}

impl<A: Arrays> Body<A> {
    /// Reads the body of a binary `version` from `rest`, which holds the bytes after the
    /// version line (error offsets count from the file's start).
    pub(crate) fn read_binary<R: std::io::Read + std::io::Seek>(
        version: Version,
        rest: R,
        limits: &Limits,
    ) -> Result<Body<A>> {
        let shift = |e: Error| shift_error(e, VERSION_LINE_LEN as u64);
        Ok(match version {
            Version::V2_00 | Version::V3_00 | Version::V3_01 => {
                Body::V2(read_all_from(rest, limits, (version,)).map_err(shift)?)
            }
            Version::V4_00 | Version::V4_01 | Version::V5_00 => {
                Body::V4(read_all_from(rest, limits, (version,)).map_err(shift)?)
            }
            Version::V6_00 | Version::V7_00 => {
                Body::V6(read_all_from(rest, limits, ()).map_err(shift)?)
            }
            Version::V1_00 | Version::V1_01 => unreachable_text(version)?,
        })
    }

    /// The LOD offsets (empty before 3.00 and in 6.00/7.00 files without a LODS chunk).
    pub fn lod_offsets(&self) -> &[u32] {
        match self {
            Body::V1(_) => &[],
            Body::V2(b) => b.lods.as_ref().map_or(&[], |l| &l.lod_offsets),
            Body::V4(b) => &b.lod_offsets,
            Body::V6(b) => match b.find(&chunks::LODS).map(|c| &c.data) {
                Some(ChunkData::LodsV1(l)) => &l.lod_offsets,
                _ => &[],
            },
        }
    }
}

impl FileMesh {
    /// Reads a FileMesh from the bytes of a whole file, with the default [`Limits`].
    ///
    /// Every byte must belong to a structure (bytes after the last structure are kept
    /// in the body's `trailing`).
    pub fn read(bytes: &[u8]) -> Result<FileMesh> {
        Self::read_with_limits(bytes, &Limits::default())
    }

    /// Reads a FileMesh with explicit [`Limits`].
    pub fn read_with_limits(bytes: &[u8], limits: &Limits) -> Result<FileMesh> {
        limits.check_input(bytes.len())?;
        let version = read_version_line(bytes)?;
        if version.is_text() {
            let body = Body::V1(FileMeshV1::read(bytes, version)?);
            return Ok(FileMesh { version, body });
        }
        let rest = bytes.get(VERSION_LINE_LEN..).unwrap_or_default();
        let body = Body::read_binary(version, std::io::Cursor::new(rest), limits)?;
        Ok(FileMesh { version, body })
    }

    /// Reads a FileMesh from a reader at its start (a file, say) without holding the
    /// file's bytes: binary versions read their arrays straight into place, so reading a
    /// file takes about its size in memory, not twice. Text versions (1.00, 1.01) are
    /// read in pieces into their faces ([`FileMeshV1::read_from`]). Same checks and
    /// errors as [`FileMesh::read_with_limits`].
    pub fn read_from<R: std::io::Read + std::io::Seek>(
        mut reader: R,
        limits: &Limits,
    ) -> Result<FileMesh> {
        use std::io::{Read, SeekFrom};
        let io = |e: std::io::Error| Error::new("input", ErrorKind::Io(e));
        let len = crate::io::checked_len(&mut reader, limits)?;
        let mut head = Vec::with_capacity(VERSION_LINE_LEN);
        (&mut reader)
            .take(VERSION_LINE_LEN as u64)
            .read_to_end(&mut head)
            .map_err(io)?;
        let version = read_version_line(&head)?;
        if version.is_text() {
            reader.seek(SeekFrom::Start(0)).map_err(io)?;
            let body = Body::V1(FileMeshV1::read_from(reader, version, len)?);
            return Ok(FileMesh { version, body });
        }
        let rest = Window::new(reader, VERSION_LINE_LEN as u64).map_err(io)?;
        let body = Body::read_binary(version, rest, limits)?;
        Ok(FileMesh { version, body })
    }

    /// [`FileMesh::read_with_limits`] filling the arrays of files read before (kept in
    /// `spare`, see [`Spare`](crate::Spare)) instead of allocating new ones.
    pub fn read_reusing(
        bytes: &[u8],
        limits: &Limits,
        spare: &mut crate::Spare,
    ) -> Result<FileMesh> {
        spare.lend(|| Self::read_with_limits(bytes, limits))
    }

    /// Gives the file's arrays to `spare` for a later read to fill.
    pub fn recycle(self, spare: &mut crate::Spare) {
        match self.body {
            Body::V1(_) => {}
            Body::V2(b) => {
                match b.vertices {
                    VertexArray::Size36(v) => spare.put(v.0),
                    VertexArray::Size40(v) => spare.put(v.0),
                }
                spare.put(b.faces.0);
                if let Some(l) = b.lods {
                    spare.put(l.lod_offsets.0);
                }
            }
            Body::V4(b) => {
                spare.put(b.vertices.0);
                spare.put(b.envelopes.0);
                spare.put(b.faces.0);
                spare.put(b.lod_offsets.0);
                spare.put(b.bones.0);
                spare.put(b.bone_names.0);
                spare.put(b.subsets.0);
            }
            Body::V6(b) => {
                for c in b.chunks {
                    match c.data {
                        ChunkData::CoreMeshV1(m) => {
                            spare.put(m.vertices.0);
                            spare.put(m.faces.0);
                        }
                        ChunkData::CoreMeshV2(m) => spare.put(m.draco.0),
                        ChunkData::LodsV1(l) => spare.put(l.lod_offsets.0),
                        ChunkData::SkinningV1(k) => {
                            spare.put(k.envelopes.0);
                            spare.put(k.bones.0);
                            spare.put(k.bone_names.0);
                            spare.put(k.subsets.0);
                        }
                        ChunkData::Unknown(u) => spare.put(u.0),
                        _ => {}
                    }
                }
            }
        }
    }

    /// Writes the file into `out` as [`FileMesh::write`] would give it, without building
    /// the whole file in memory first.
    pub fn write_to(&self, out: &mut dyn std::io::Write) -> Result<()> {
        use std::io::Write;
        let io = |e: std::io::Error| Error::new("output", ErrorKind::Io(e));
        if let (Body::V1(b), Version::V1_00 | Version::V1_01) = (&self.body, self.version) {
            return b.write_to(self.version, out);
        }
        let mut out = binrw::io::NoSeek::new(out);
        let line = self.version.line();
        let (endian, v) = (binrw::Endian::Little, (self.version,));
        let written = match (&self.body, self.version) {
            (Body::V2(b), Version::V2_00 | Version::V3_00 | Version::V3_01) => {
                out.write_all(&line).map_err(io)?;
                binrw::BinWrite::write_options(b, &mut out, endian, v)
            }
            (Body::V4(b), Version::V4_00 | Version::V4_01 | Version::V5_00) => {
                out.write_all(&line).map_err(io)?;
                binrw::BinWrite::write_options(b, &mut out, endian, v)
            }
            (Body::V6(b), Version::V6_00 | Version::V7_00) => {
                out.write_all(&line).map_err(io)?;
                binrw::BinWrite::write_options(b, &mut out, endian, ())
            }
            // A body that does not match its version (the error is write's).
            _ => return out.write_all(&self.write()?).map_err(io),
        };
        written.map_err(|e| crate::error::from_binrw(e, None))
    }

    /// Writes the file. Fails if the body contradicts itself or its version (see
    /// [`ErrorKind::Inconsistent`]).
    pub fn write(&self) -> Result<Vec<u8>> {
        let cap = VERSION_LINE_LEN + self.body_len();
        let line = self.version.line();
        match (&self.body, self.version) {
            (Body::V1(b), Version::V1_00 | Version::V1_01) => b.write(self.version),
            (Body::V2(b), Version::V2_00 | Version::V3_00 | Version::V3_01) => {
                write_all(&line, b, cap, (self.version,))
            }
            (Body::V4(b), Version::V4_00 | Version::V4_01 | Version::V5_00) => {
                write_all(&line, b, cap, (self.version,))
            }
            (Body::V6(b), Version::V6_00 | Version::V7_00) => write_all(&line, b, cap, ()),
            (_, v) => Err(Error::new(
                "FileMesh",
                ErrorKind::Inconsistent(format!("the body's layout does not match version {v}")),
            )),
        }
    }

    fn body_len(&self) -> usize {
        match &self.body {
            Body::V1(_) => 0,
            Body::V2(b) => b.encoded_len(),
            Body::V4(b) => b.encoded_len(self.version),
            Body::V6(b) => b.encoded_len(),
        }
    }

    /// The LOD offsets (empty before 3.00 and in 6.00/7.00 files without a LODS chunk).
    pub fn lod_offsets(&self) -> &[u32] {
        self.body.lod_offsets()
    }

    /// Bytes after the last structure (always empty for text and chunked files).
    pub fn trailing(&self) -> &[u8] {
        match &self.body {
            Body::V1(_) | Body::V6(_) => &[],
            Body::V2(b) => &b.trailing,
            Body::V4(b) => &b.trailing,
        }
    }
}

/// Text versions are read before the binary dispatch; kept total without a panic.
fn unreachable_text<A: Arrays>(version: Version) -> Result<Body<A>> {
    Err(Error::at(
        8,
        "version line",
        ErrorKind::UnsupportedVersion(format!("{version} as binary")),
    ))
}

/// Parses `version X.YY\n`, the first 13 bytes.
fn read_version_line(bytes: &[u8]) -> Result<Version> {
    let line = bytes
        .get(..12)
        .ok_or_else(|| Error::at(bytes.len() as u64, "version line", ErrorKind::UnexpectedEof))?;
    let version = Version::from_line(line).ok_or_else(|| {
        let shown = String::from_utf8_lossy(line);
        let kind = if line.starts_with(b"version ") {
            ErrorKind::UnsupportedVersion(format!("{:?}", shown.trim_start_matches("version ")))
        } else {
            ErrorKind::Invalid(format!("{shown:?}: \"version X.YY\" expected"))
        };
        Error::at(0, "version line", kind)
    })?;
    if version.is_text() {
        // The text reader checks its own line ending (LF or CRLF).
        return Ok(version);
    }
    match bytes.get(12) {
        Some(b'\n') => Ok(version),
        Some(&b) => Err(Error::at(
            12,
            "version line",
            ErrorKind::Invalid(format!("byte 0x{b:02x} where a newline was expected")),
        )),
        None => Err(Error::at(12, "version line", ErrorKind::UnexpectedEof)),
    }
}

/// Errors from a body read start their offsets at the body; make them file offsets.
fn shift_error(mut e: Error, by: u64) -> Error {
    e.shift(by);
    e
}

/// True when `bytes` start like a FileMesh (`version `).
pub fn looks_like_filemesh(bytes: &[u8]) -> bool {
    bytes.starts_with(b"version ")
}
