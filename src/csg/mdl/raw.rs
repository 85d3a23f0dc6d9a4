//! Roblox union graphics (CSGMDL 2, 4, 5 and CSGK): the raw, byte-exact layer. Layout:
//! FORMAT-NOTES "Roblox union graphics" and `docs/csgmdl.md`.
//!
//! The obfuscation is part of the declaration: [`Xor`] wraps the stream (binrw
//! `map_stream`) for the parts that are obfuscated — the whole of versions 2 and 4, the
//! 10-byte header of version 5 — and XORs every byte with the key byte of its absolute
//! file offset, on reading and on writing alike.

use std::io::{self, Read, Seek, SeekFrom, Write};

use binrw::binrw;
use bytemuck::{Pod, Zeroable};
use serde::Serialize;

use crate::error::{Limits, Result};
use crate::io::{count_as, read_all, rest_bytes, write_all, NotThisVariant, Records};

/// The CSGMDL versions there are (and that meshcodec reads and writes).
pub const CSGMDL_VERSIONS: [u32; 3] = [2, 4, 5];

/// The obfuscation key: the byte at file offset `o` is XORed with `KEY[o % 31]`.
pub const KEY: [u8; 31] = [
    86, 46, 110, 88, 49, 32, 48, 4, 52, 105, 12, 119, 12, 1, 94, 0, 26, 96, 55, 105, 29, 82, 43, 7,
    79, 36, 89, 101, 83, 4, 122,
];

/// `CSGMDL` as it appears in a file (obfuscated at offsets 0–5).
pub const OBFUSCATED_MAGIC: [u8; 6] = [0x15, 0x7d, 0x29, 0x15, 0x75, 0x6c];

/// A stream whose bytes are XORed with [`KEY`] by absolute offset.
pub struct Xor<S> {
    inner: S,
}

impl<S> Xor<S> {
    /// Wraps a stream.
    pub fn new(inner: S) -> Xor<S> {
        Xor { inner }
    }
}

/// XORs `buf`, which sits at file offset `pos`, with the key: in runs of 32 key
/// periods (992 bytes), so the loop is a plain fixed-length XOR the compiler vectorises.
fn xor_at(buf: &mut [u8], pos: u64) {
    const RUN: usize = 31 * 32;
    let start = (pos % KEY.len() as u64) as usize;
    let mut key = [0u8; RUN];
    for (i, k) in key.iter_mut().enumerate() {
        *k = KEY.get((start + i) % KEY.len()).copied().unwrap_or(0);
    }
    for chunk in buf.chunks_mut(RUN) {
        for (b, k) in chunk.iter_mut().zip(&key) {
            *b ^= k;
        }
    }
}

impl<R: Read + Seek> Read for Xor<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let pos = self.inner.stream_position()?;
        let n = self.inner.read(buf)?;
        if let Some(read) = buf.get_mut(..n) {
            xor_at(read, pos);
        }
        Ok(n)
    }
}

impl<S: Seek> Seek for Xor<S> {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.inner.seek(pos)
    }
}

impl<W: Write + Seek> Write for Xor<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let pos = self.inner.stream_position()?;
        let mut masked = buf.to_vec();
        xor_at(&mut masked, pos);
        self.inner.write_all(&masked)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// A union graphics blob: the obfuscated header, then the version's body.
#[binrw]
#[brw(little)]
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CsgMdl {
    /// `CSGMDL` and the version, obfuscated.
    #[brw(map_stream = Xor::new)]
    pub header: MdlHeader,
    /// The body.
    #[br(args(header.version))]
    pub body: MdlBody,
}

/// The 10-byte header: `CSGMDL` and a u32 version (2, 4 or 5).
#[binrw]
#[brw(little, magic = b"CSGMDL")]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct MdlHeader {
    /// 2, 4 or 5.
    #[br(assert(CSGMDL_VERSIONS.contains(&version), "CSGMDL version {}: 2, 4 or 5 expected", version))]
    pub version: u32,
}

/// The body of a blob, as its version says.
#[binrw]
#[brw(little)]
#[br(import(version: u32))]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[allow(clippy::large_enum_variant)]
pub enum MdlBody {
    /// Versions 2 and 4: obfuscated whole.
    #[br(pre_assert(matches!(version, 2 | 4), NotThisVariant))]
    Plain(
        #[brw(map_stream = Xor::new)]
        #[br(args(version))]
        MeshV2,
    ),
    /// Version 5: plain little-endian after the header.
    #[br(pre_assert(version == 5, NotThisVariant))]
    Packed(MeshV5),
}

/// One vertex of versions 2 and 4: 84 bytes.
#[binrw]
#[brw(little)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable, Serialize)]
#[repr(C)]
pub struct MdlVertex {
    /// Position.
    pub position: [f32; 3],
    /// Normal.
    pub normal: [f32; 3],
    /// RGBA colour.
    pub color: [u8; 4],
    /// The face of the part the vertex came from (Roblox NormalId, 1–6 in real files).
    pub normal_id: u32,
    /// Texture coordinates.
    pub uv: [f32; 2],
    /// 16 bytes, zero in real files (kept as read).
    pub reserved1: [u8; 16],
    /// Tangent.
    pub tangent: [f32; 3],
    /// 16 bytes, zero in real files (kept as read).
    pub reserved2: [u8; 16],
}

const _: () = assert!(std::mem::size_of::<MdlVertex>() == 84);

/// Versions 2 and 4 (inside the obfuscation).
#[binrw]
#[brw(little)]
#[br(import(version: u32))]
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MeshV2 {
    /// 32 bytes of hash (16 + 16 of unknown meaning), kept as read.
    pub hash: [u8; 32],
    #[br(temp)]
    #[bw(try_calc = count_as::<u32>(vertices.len(), "vertices"))]
    vertex_count: u32,
    /// The vertex size: 84 in every known file.
    #[br(assert(vertex_size == 84, "CSGMDL vertex size {}: 84 expected", vertex_size))]
    pub vertex_size: u32,
    /// The vertices.
    #[br(count = u64::from(vertex_count))]
    pub vertices: Records<MdlVertex>,
    #[br(temp)]
    #[bw(try_calc = count_as::<u32>(indices.len(), "indices"))]
    index_count: u32,
    /// Triangle corners, three per triangle.
    #[br(count = u64::from(index_count))]
    pub indices: Records<u32>,
    /// Version 4: a counted list of u32 after the mesh (meaning unknown; kept).
    #[br(if(version == 4))]
    #[bw(if(extra.is_some()))]
    pub extra: Option<CountedU32>,
}

/// A u32 count and that many u32.
#[binrw]
#[brw(little)]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CountedU32 {
    #[br(temp)]
    #[bw(try_calc = count_as::<u32>(values.len(), "values"))]
    count: u32,
    /// The values.
    #[br(count = u64::from(count))]
    pub values: Records<u32>,
}

/// A u16 count and that many records.
#[binrw]
#[brw(little)]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Attribute<T: crate::io::PlainRecord + Serialize + 'static> {
    #[br(temp)]
    #[bw(try_calc = count_as::<u16>(values.len(), "attribute values"))]
    count: u16,
    /// The values.
    #[br(count = u64::from(count))]
    pub values: Records<T>,
}

/// A u16 element count, a u32 byte length and the bytes: the quantized normals and
/// tangents of version 5 (three i16 each, biased by 0x7fff over 32767). Both numbers
/// are kept as read.
#[binrw]
#[brw(little)]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Quantized {
    /// Element count.
    pub count: u16,
    #[br(temp)]
    #[bw(try_calc = count_as::<u32>(bytes.len(), "quantized bytes"))]
    byte_len: u32,
    /// The bytes (normally `6 × count`).
    #[br(count = u64::from(byte_len))]
    #[serde(skip)]
    pub bytes: Records<u8>,
}

/// Version 5 after the header (plain little-endian).
#[binrw]
#[brw(little)]
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MeshV5 {
    /// Positions.
    pub positions: Attribute<[f32; 3]>,
    /// Normals, quantized.
    pub normals: Quantized,
    /// RGBA colours.
    pub colors: Attribute<[u8; 4]>,
    /// NormalIds.
    pub normal_ids: Attribute<u8>,
    /// Texture coordinates.
    pub uvs: Attribute<[f32; 2]>,
    /// Tangents, quantized.
    pub tangents: Quantized,
    /// Corners in the delta-coded stream: every range's, together.
    pub index_count: u32,
    #[br(temp)]
    #[bw(try_calc = count_as::<u32>(faces.len(), "face bytes"))]
    face_len: u32,
    /// The delta-coded corner stream (not decoded here).
    #[br(count = u64::from(face_len))]
    #[serde(skip)]
    pub faces: Records<u8>,
    #[br(temp)]
    #[bw(try_calc = count_as::<u8>(ranges.len(), "range markers"))]
    range_count: u8,
    /// Positions in the corner stream where its ranges start and end: the mesh's own
    /// triangles are `ranges[0]..ranges[1]`; further ranges are more index lists
    /// (coarser levels of detail; `docs/csgmdl.md`).
    #[br(count = u64::from(range_count))]
    pub ranges: Records<u32>,
    /// Bytes after the ranges (none in the real file), kept.
    #[br(parse_with = rest_bytes)]
    #[bw(write_with = crate::io::pod_write)]
    #[serde(skip)]
    pub tail: Vec<u8>,
}

/// Decodes version 5's corner stream: `count` corners, each the previous one (starting
/// at 0) plus a step. A byte below 64 is the step; 64–127 is the step − 128; a byte with
/// bit 7 set starts a three-byte step of 23 bits (bits 16–22 from its low 7 bits, then
/// bits 8–15, then 0–7), so a corner is the running sum modulo 2²³. The stream must hold
/// exactly `count` corners. Errors name the byte within the stream.
pub fn decode_corners(stream: &[u8], count: u32) -> std::result::Result<Vec<u32>, String> {
    // At most one corner per byte: a count beyond the stream cannot be met.
    if u64::from(count) > stream.len() as u64 {
        return Err(format!(
            "{count} corners cannot fit a {}-byte stream",
            stream.len()
        ));
    }
    let mut out = Vec::with_capacity(count as usize);
    let mut at = 0usize;
    let mut sum: u32 = 0;
    let byte = |i: usize| {
        stream
            .get(i)
            .copied()
            .ok_or_else(|| format!("the corner stream ends at byte {i}, inside corner"))
    };
    for k in 0..count {
        let b0 = byte(at).map_err(|e| format!("{e} {k}"))?;
        let step = match b0 {
            0..=63 => u32::from(b0),
            64..=127 => u32::from(b0).wrapping_sub(128),
            _ => {
                let b1 = byte(at + 1).map_err(|e| format!("{e} {k}"))?;
                let b2 = byte(at + 2).map_err(|e| format!("{e} {k}"))?;
                at += 2;
                (u32::from(b0 & 0x7f) << 16) | (u32::from(b1) << 8) | u32::from(b2)
            }
        };
        at += 1;
        sum = sum.wrapping_add(step);
        out.push(sum & 0x7f_ffff);
    }
    if at != stream.len() {
        return Err(format!(
            "{} bytes of the corner stream are left after its {count} corners",
            stream.len() - at
        ));
    }
    Ok(out)
}

/// Encodes corners as [`decode_corners`] reads them, with the shortest step for each
/// (one byte for steps of −64 to 63, else three bytes of the step modulo 2²³): the
/// encoding of the real version 5 blob, reproduced byte for byte (`tests/formats/csgmdl.rs`).
/// Corners must be below 2²³.
pub fn encode_corners(corners: &[u32]) -> std::result::Result<Vec<u8>, String> {
    let mut out = Vec::with_capacity(corners.len());
    let mut prev: u32 = 0;
    for (k, &c) in corners.iter().enumerate() {
        if c > 0x7f_ffff {
            return Err(format!(
                "corner {k} is {c}, beyond the 23 bits the stream holds"
            ));
        }
        let step = c.wrapping_sub(prev) & 0x7f_ffff;
        let signed = if step >= 0x40_0000 {
            step as i64 - 0x80_0000
        } else {
            i64::from(step)
        };
        match signed {
            0..=63 => out.push(signed as u8),
            -64..=-1 => out.push((signed + 128) as u8),
            _ => out.extend([0x80 | (step >> 16) as u8, (step >> 8) as u8, step as u8]),
        }
        prev = c;
    }
    Ok(out)
}

/// A quantized normal or tangent of version 5: each component `(q − 0x7fff) / 32767`.
pub fn dequantize(q: [u16; 3]) -> [f32; 3] {
    q.map(|c| f32::from(c.wrapping_sub(0x7fff) as i16) / 32767.0)
}

impl Quantized {
    /// The vectors, dequantized; `None` when the bytes are not `6 × count`.
    pub fn vectors(&self) -> Option<Vec<[f32; 3]>> {
        if self.bytes.len() != 6 * usize::from(self.count) {
            return None;
        }
        Some(
            self.bytes
                .chunks_exact(6)
                .map(|c| {
                    let w = |i: usize| {
                        u16::from_le_bytes([
                            c.get(i).copied().unwrap_or(0),
                            c.get(i + 1).copied().unwrap_or(0),
                        ])
                    };
                    dequantize([w(0), w(2), w(4)])
                })
                .collect(),
        )
    }
}

impl MeshV5 {
    /// Every corner of the stream, decoded.
    pub fn corners(&self) -> std::result::Result<Vec<u32>, String> {
        decode_corners(&self.faces, self.index_count)
    }

    /// The mesh's own triangles: the corners of the first range (`ranges[0]..ranges[1]`,
    /// or every corner without markers).
    pub fn triangles(&self) -> std::result::Result<Vec<[u32; 3]>, String> {
        let corners = self.corners()?;
        let (a, b) = match (self.ranges.first(), self.ranges.get(1)) {
            (Some(&a), Some(&b)) => (a as usize, b as usize),
            _ => (0, corners.len()),
        };
        let range = corners
            .get(a..b)
            .ok_or_else(|| format!("range {a}..{b} is outside the {} corners", corners.len()))?;
        Ok(range
            .chunks_exact(3)
            .map(|t| [t.first(), t.get(1), t.get(2)].map(|i| i.copied().unwrap_or(0)))
            .collect())
    }
}

/// CSGK: `CSGK` and 32 hexadecimal characters, a reference to a mesh stored elsewhere;
/// no geometry. Not obfuscated.
#[binrw]
#[brw(little, magic = b"CSGK")]
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CsgK {
    /// The 32 characters, as read.
    #[serde(serialize_with = "hex_text")]
    pub key: [u8; 32],
}

fn hex_text<S: serde::Serializer>(k: &[u8; 32], s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(&String::from_utf8_lossy(k))
}

/// True when `bytes` start like an (obfuscated) CSGMDL blob.
pub fn looks_like_csgmdl(bytes: &[u8]) -> bool {
    bytes.starts_with(&OBFUSCATED_MAGIC)
}

impl CsgMdl {
    /// Reads a blob.
    pub fn read(bytes: &[u8]) -> Result<CsgMdl> {
        CsgMdl::read_with_limits(bytes, &Limits::default())
    }

    /// Reads a blob within `limits`.
    pub fn read_with_limits(bytes: &[u8], limits: &Limits) -> Result<CsgMdl> {
        read_all(bytes, limits, ())
    }

    /// Writes the blob (byte-identical to what was read when unchanged).
    pub fn write(&self) -> Result<Vec<u8>> {
        write_all(&[], self, 4096, ())
    }

    /// Vertex and triangle counts: the triangles of the first index range (LOD 0,
    /// [`CsgMdl::index_ranges`]).
    pub fn counts(&self) -> (usize, usize) {
        let vertices = match &self.body {
            MdlBody::Plain(m) => m.vertices.len(),
            MdlBody::Packed(m) => m.positions.values.len(),
        };
        (vertices, self.range_faces().first().copied().unwrap_or(0))
    }

    /// The index ranges of the blob, as positions in its index list (versions 2, 4) or
    /// corner stream (version 5), the mesh's own first (LOD 0), then the coarser levels
    /// of detail. Version 5: between consecutive range markers (every corner without
    /// two). Version 4: between the values of the list after the mesh when they are
    /// range markers (0 first, rising, multiples of 3, the index count last: the real
    /// blob's `[0, 1050, 1152]`); any other list, and version 2, give one range of every
    /// index. `docs/csgmdl.md` has the evidence.
    pub fn index_ranges(&self) -> Vec<std::ops::Range<usize>> {
        match &self.body {
            MdlBody::Plain(m) => {
                let n = m.indices.len();
                m.extra
                    .as_ref()
                    .and_then(|e| marker_ranges(&e.values, n))
                    .unwrap_or_else(|| std::iter::once(0..n).collect())
            }
            MdlBody::Packed(m) if m.ranges.len() >= 2 => m
                .ranges
                .windows(2)
                .map(|w| match w {
                    [a, b] => *a as usize..*b as usize,
                    _ => 0..0,
                })
                .collect(),
            MdlBody::Packed(m) => std::iter::once(0..m.index_count as usize).collect(),
        }
    }

    /// The triangles of each index range ([`CsgMdl::index_ranges`]), LOD 0 first.
    pub fn range_faces(&self) -> Vec<usize> {
        self.index_ranges()
            .iter()
            .map(|r| r.end.saturating_sub(r.start) / 3)
            .collect()
    }
}

/// The ranges between `markers` when they are range markers over `total` indices: at
/// least two, 0 first, `total` last, rising, each a multiple of 3.
fn marker_ranges(markers: &[u32], total: usize) -> Option<Vec<std::ops::Range<usize>>> {
    let m: Vec<usize> = markers.iter().map(|&x| x as usize).collect();
    let ok = m.len() >= 2
        && m.first() == Some(&0)
        && m.last() == Some(&total)
        && m.iter().all(|x| x % 3 == 0)
        && m.windows(2).all(|w| matches!(w, [a, b] if a < b));
    ok.then(|| {
        m.windows(2)
            .map(|w| match w {
                [a, b] => *a..*b,
                _ => 0..0,
            })
            .collect()
    })
}

impl CsgK {
    /// Reads a CSGK reference.
    pub fn read(bytes: &[u8]) -> Result<CsgK> {
        read_all(bytes, &Limits::default(), ())
    }

    /// Writes it back.
    pub fn write(&self) -> Result<Vec<u8>> {
        write_all(&[], self, 36, ())
    }
}
