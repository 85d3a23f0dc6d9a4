//! The fixed header of a Draco bitstream ([`read_header`]): magic, version, geometry
//! type, encoding method, flags, and the face and point counts a sequential mesh states
//! up front (what [`decode`] checks against the limits before decoding).
//!
//! [`decode`]: super::decode()

use super::{invalid_at, CONTEXT, FACE_BYTES, VERTEX_BYTES};
use crate::error::{Error, ErrorKind, Result};

/// `DRACO`, the first five bytes of every Draco bitstream.
const MAGIC: &[u8; 5] = b"DRACO";
/// Header flag: the stream carries metadata before the connectivity.
const METADATA_FLAG: u16 = 0x8000;
/// Length of the fixed header: magic, major, minor, geometry type, method, flags.
const HEADER_LEN: usize = 11;

/// The fixed header of a Draco bitstream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// Bitstream major version (2 for Roblox).
    pub major: u8,
    /// Bitstream minor version (2 for Roblox).
    pub minor: u8,
    /// 0 point cloud, 1 triangle mesh.
    pub geometry_type: u8,
    /// 0 sequential, 1 EdgeBreaker.
    pub method: u8,
    /// Header flags (0x8000: metadata present).
    pub flags: u16,
    /// Face and point counts, when the header says them before anything else: a
    /// sequential triangle mesh without metadata. `None` otherwise.
    pub counts: Option<Counts>,
}

/// Face and point counts of a sequential Draco mesh, as its header states them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counts {
    /// Number of faces.
    pub faces: u64,
    /// Number of points (vertices).
    pub points: u64,
}

impl Counts {
    /// Bytes the decoded vertices and faces take (40 per point, 12 per face).
    pub fn decoded_bytes(&self) -> u64 {
        self.points
            .saturating_mul(VERTEX_BYTES)
            .saturating_add(self.faces.saturating_mul(FACE_BYTES))
    }
}

/// A little reader over the header bytes; every read is checked.
struct Cursor<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Cursor<'_> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N]> {
        let out = self
            .bytes
            .get(self.pos..)
            .and_then(|rest| rest.first_chunk::<N>())
            .copied()
            .ok_or_else(|| Error::at(self.pos as u64, CONTEXT, ErrorKind::UnexpectedEof))?;
        self.pos += N;
        Ok(out)
    }

    fn u8(&mut self) -> Result<u8> {
        Ok(self.take::<1>()?[0])
    }

    /// Draco's unsigned LEB128 varint (at most 64 bits).
    fn varint(&mut self) -> Result<u64> {
        let start = self.pos;
        let mut value = 0u64;
        let mut shift = 0u32;
        loop {
            let byte = self.u8()?;
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
            shift += 7;
            if shift >= 64 {
                return Err(invalid_at(start as u64, "Draco varint longer than 64 bits"));
            }
        }
    }
}

/// Reads the fixed header of a Draco bitstream, and the face and point counts when a
/// sequential mesh states them up front. Cheap: it reads at most 21 bytes.
///
/// Errors if the bitstream is not Draco, is a point cloud, or ends inside the header.
/// Offsets in errors are relative to the start of `bitstream`.
pub fn read_header(bitstream: &[u8]) -> Result<Header> {
    let mut c = Cursor {
        bytes: bitstream,
        pos: 0,
    };
    if bitstream.len() < HEADER_LEN {
        return Err(Error::at(
            bitstream.len() as u64,
            CONTEXT,
            ErrorKind::UnexpectedEof,
        ));
    }
    let magic = c.take::<5>()?;
    if &magic != MAGIC {
        return Err(invalid_at(
            0,
            format!("not a Draco bitstream: starts with {magic:02x?}, not \"DRACO\""),
        ));
    }
    let major = c.u8()?;
    let minor = c.u8()?;
    let geometry_type = c.u8()?;
    let method = c.u8()?;
    let flags = u16::from_le_bytes(c.take::<2>()?);
    match geometry_type {
        1 => {}
        0 => {
            return Err(invalid_at(
                7,
                "the Draco bitstream is a point cloud, not a triangle mesh",
            ))
        }
        t => return Err(invalid_at(7, format!("unknown Draco geometry type {t}"))),
    }
    let counts = if method == 0 && flags & METADATA_FLAG == 0 {
        // Draco 2.2 writes the counts as varints, earlier versions as u32.
        let (faces, points) = if (major, minor) >= (2, 2) {
            (c.varint()?, c.varint()?)
        } else {
            (
                u64::from(u32::from_le_bytes(c.take::<4>()?)),
                u64::from(u32::from_le_bytes(c.take::<4>()?)),
            )
        };
        Some(Counts { faces, points })
    } else {
        None
    };
    Ok(Header {
        major,
        minor,
        geometry_type,
        method,
        flags,
        counts,
    })
}
