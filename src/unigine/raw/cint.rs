//! UNIGINE's compact integers (`readInt2`/`writeInt2`) and length-prefixed strings.
//!
//! A compact int is 1 to 5 bytes. The lead byte holds bit 7 = another byte follows,
//! bit 6 = negative, bits 0–5 = magnitude bits 0–5; each further byte holds bit 7 = another
//! byte follows, bits 0–6 = the next 7 magnitude bits. `84 12` = 1156, `81 01` = 65,
//! `41` = −1. It is neither LEB128 nor zig-zag.
//!
//! UNIGINE's writer is one short of the shortest form at the lead byte only: the lead byte
//! alone holds 0–62 (63 is written `bf 00`, as in real ms14 files); a further byte is
//! followed by another only when more than 7 bits remain (8130 is `82 7f` in a real
//! ms14 file of UNIGINE 2.20, not `82 ff 00`). [`CInt::encode`] writes exactly that; the
//! reader accepts only encodings that this writer produces (so reading and writing back
//! is byte-exact) and reports any other form as an error.

use std::io::{Read, Seek, Write};

use binrw::{binrw, BinRead, BinResult, BinWrite, Endian};
use modular_bitfield::prelude::*;
use serde::Serialize;

use crate::error::Invalid;
use crate::io::{check_count, invalid, Records};

/// The lead byte of a compact int.
#[bitfield(bits = 8)]
#[derive(Clone, Copy)]
struct Lead {
    /// Magnitude bits 0–5.
    magnitude: B6,
    /// The value is negative.
    negative: bool,
    /// Another byte follows.
    more: bool,
}

/// A further byte of a compact int.
#[bitfield(bits = 8)]
#[derive(Clone, Copy)]
struct Next {
    /// The next 7 magnitude bits.
    bits: B7,
    /// Another byte follows.
    more: bool,
}

/// The longest compact int: 6 + 4 × 7 = 34 magnitude bits, enough for any `i32`.
const MAX_BYTES: usize = 5;

/// A signed compact integer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct CInt(pub i32);

impl CInt {
    /// Number of bytes of the encoding.
    pub fn encoded_len(self) -> usize {
        let m = self.0.unsigned_abs();
        if m < 0x3f {
            return 1;
        }
        let mut rest = m >> 6;
        let mut n = 2;
        while rest > 0x7f {
            rest >>= 7;
            n += 1;
        }
        n
    }

    /// The encoding, as UNIGINE writes it.
    pub fn encode(self) -> Vec<u8> {
        let (buf, len) = self.encode_array();
        buf.get(..len).unwrap_or_default().to_vec()
    }

    /// The encoding in a fixed buffer (no allocation): the bytes and how many are used.
    pub(crate) fn encode_array(self) -> ([u8; MAX_BYTES], usize) {
        let mut out = [0u8; MAX_BYTES];
        let mut m = self.0.unsigned_abs();
        let mut more = m >= 0x3f;
        let lead = Lead::new()
            .with_magnitude((m & 0x3f) as u8)
            .with_negative(self.0 < 0)
            .with_more(more);
        let [b] = lead.into_bytes();
        out[0] = b;
        let mut len = 1;
        m >>= 6;
        while more && len < MAX_BYTES {
            more = m > 0x7f;
            let [b] = Next::new()
                .with_bits((m & 0x7f) as u8)
                .with_more(more)
                .into_bytes();
            if let Some(slot) = out.get_mut(len) {
                *slot = b;
            }
            len += 1;
            m >>= 7;
        }
        (out, len)
    }
}

// Hand-written: the length of a compact int is in its bytes' continuation bits, and
// only the encoding UNIGINE's writer produces is accepted (binrw has no such loop).
impl BinRead for CInt {
    type Args<'a> = ();

    fn read_options<R: Read + Seek>(reader: &mut R, _: Endian, _: ()) -> BinResult<Self> {
        let pos = reader.stream_position()?;
        let mut byte = [0u8; 1];
        reader.read_exact(&mut byte)?;
        let lead = Lead::from_bytes(byte);
        let mut magnitude = u64::from(lead.magnitude());
        let mut more = lead.more();
        let mut shift = 6;
        let mut len = 1;
        while more {
            if len == MAX_BYTES {
                return Err(invalid(pos, "compact int longer than 5 bytes"));
            }
            reader.read_exact(&mut byte)?;
            let next = Next::from_bytes(byte);
            magnitude |= u64::from(next.bits()) << shift;
            more = next.more();
            shift += 7;
            len += 1;
        }
        let value = if lead.negative() {
            if magnitude == 0 {
                return Err(invalid(pos, "compact int −0"));
            }
            0i64 - magnitude as i64
        } else {
            magnitude as i64
        };
        let v = i32::try_from(value)
            .map(CInt)
            .map_err(|_| invalid(pos, format!("compact int {value} does not fit 32 bits")))?;
        if v.encoded_len() != len {
            return Err(invalid(
                pos,
                format!(
                    "compact int {value} in {len} bytes; UNIGINE writes it in {}",
                    v.encoded_len()
                ),
            ));
        }
        Ok(v)
    }
}

impl BinWrite for CInt {
    type Args<'a> = ();

    fn write_options<W: Write + Seek>(&self, writer: &mut W, _: Endian, _: ()) -> BinResult<()> {
        let (buf, len) = self.encode_array();
        writer.write_all(buf.get(..len).unwrap_or_default())?;
        Ok(())
    }
}

/// A compact int that counts something, so it may not be negative.
#[binrw]
#[brw(little)]
#[br(import(what: &'static str))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Count(
    /// The count.
    #[br(try_map = |c: CInt| u32::try_from(c.0)
        .map_err(|_| Invalid(format!("negative count {} of {what}", c.0))))]
    #[bw(map = |n: &u32| CInt(*n as i32))]
    pub u32,
);

impl Count {
    /// The count of `n` things, or an error if it does not fit.
    pub(crate) fn of(n: usize, what: &str) -> BinResult<Count> {
        i32::try_from(n)
            .map(|n| Count(n as u32))
            .map_err(|_| crate::io::inconsistent(format!("{n} {what} do not fit a compact int")))
    }

    /// The count as a `u64` for bounds checks.
    pub(crate) fn get(self) -> u64 {
        u64::from(self.0)
    }
}

/// A string: a compact-int length that counts the terminating NUL, then the bytes.
///
/// The bytes are kept exactly as stored, terminator included; [`UString::text`] gives
/// the text before the first NUL.
#[binrw]
#[brw(little)]
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UString {
    #[br(temp, args("string bytes"))]
    #[bw(try_calc = Count::of(bytes.len(), "string bytes"))]
    len: Count,
    /// The stored bytes (normally the text and one NUL).
    #[br(count = len.get())]
    pub bytes: Records<u8>,
}

impl UString {
    /// A string from text, NUL-terminated as UNIGINE writes it.
    pub fn new(text: &str) -> UString {
        let mut bytes = text.as_bytes().to_vec();
        bytes.push(0);
        UString {
            bytes: bytes.into(),
        }
    }

    /// The text before the first NUL (lossy UTF-8).
    pub fn text(&self) -> String {
        let end = self
            .bytes
            .iter()
            .position(|&b| b == 0)
            .unwrap_or(self.bytes.len());
        String::from_utf8_lossy(self.bytes.get(..end).unwrap_or_default()).into_owned()
    }
}

impl Serialize for UString {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text())
    }
}

/// binrw `parse_with`: `count` variable-size records of at least `min_size` bytes each,
/// after checking that the input can hold that many (so a huge count cannot allocate).
pub(crate) fn records<T, R>(
    reader: &mut R,
    endian: Endian,
    (count, min_size, what, args): (Count, u64, &'static str, T::Args<'_>),
) -> BinResult<Vec<T>>
where
    T: BinRead,
    for<'a> T::Args<'a>: Clone,
    R: Read + Seek,
{
    let mut v = Vec::new();
    each_record(reader, endian, (count, min_size, what, args), |n, x| {
        if v.is_empty() {
            v.reserve_exact(n as usize);
        }
        v.push(x);
    })?;
    Ok(v)
}

/// [`records`], handing each record to `each` with their number (for the first to
/// reserve room) instead of keeping it.
pub(crate) fn each_record<T, R>(
    reader: &mut R,
    endian: Endian,
    (count, min_size, what, args): (Count, u64, &'static str, T::Args<'_>),
    mut each: impl FnMut(u32, T),
) -> BinResult<()>
where
    T: BinRead,
    for<'a> T::Args<'a>: Clone,
    R: Read + Seek,
{
    check_count(reader, count.get(), min_size.max(1), what)?;
    for _ in 0..count.0 {
        each(count.0, T::read_options(reader, endian, args.clone())?);
    }
    Ok(())
}

/// binrw `try_map` check: a section separator must repeat the file's magic.
pub(crate) fn separator(
    m: [u8; 4],
    want: [u8; 4],
) -> std::result::Result<[u8; 4], crate::error::Invalid> {
    if m == want {
        Ok(m)
    } else {
        Err(crate::error::Invalid(format!(
            "separator {:?} expected, found {}",
            String::from_utf8_lossy(&want),
            m.iter()
                .map(|b| format!("{b:02x}"))
                .collect::<Vec<_>>()
                .join(" ")
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn read(bytes: &[u8]) -> BinResult<CInt> {
        CInt::read_options(&mut Cursor::new(bytes), Endian::Little, ())
    }

    #[test]
    fn documented_examples() {
        assert_eq!(read(&[0x84, 0x12]).unwrap(), CInt(1156));
        assert_eq!(read(&[0x81, 0x01]).unwrap(), CInt(65));
        assert_eq!(read(&[0x41]).unwrap(), CInt(-1));
        assert_eq!(read(&[0x00]).unwrap(), CInt(0));
        assert_eq!(CInt(1156).encode(), [0x84, 0x12]);
        assert_eq!(CInt(-1).encode(), [0x41]);
        assert_eq!(CInt(62).encode(), [0x3e]);
        // One short of the shortest form, as UNIGINE writes it (seen in ms14 files).
        assert_eq!(CInt(63).encode(), [0xbf, 0x00]);
        assert_eq!(read(&[0xbf, 0x00]).unwrap(), CInt(63));
        assert_eq!(CInt(64).encode(), [0x80, 0x01]);
        assert_eq!(CInt(-63).encode(), [0xff, 0x00]);
        assert_eq!(CInt(63 + 126 * 64).encode(), [0xbf, 0x7e]);
        // The further bytes are the shortest form (a real ms14 file of UNIGINE 2.20 has
        // 8130 in two bytes).
        assert_eq!(CInt(8130).encode(), [0x82, 0x7f]);
        assert_eq!(read(&[0x82, 0x7f]).unwrap(), CInt(8130));
        assert_eq!(CInt(63 + 127 * 64).encode(), [0xbf, 0x7f]);
        assert_eq!(CInt(8192).encode(), [0x80, 0x80, 0x01]);
        assert_eq!(CInt(64 * 128 * 128 - 1).encode(), [0xbf, 0xff, 0x7f]);
        assert_eq!(CInt(64 * 128 * 128).encode(), [0x80, 0x80, 0x80, 0x01]);
    }

    #[test]
    fn extremes_round_trip() {
        for v in [
            i32::MIN,
            i32::MIN + 1,
            -65,
            -64,
            -63,
            0,
            8191,
            8192,
            i32::MAX,
        ] {
            let bytes = CInt(v).encode();
            assert_eq!(bytes.len(), CInt(v).encoded_len());
            assert_eq!(read(&bytes).unwrap(), CInt(v), "{v}");
        }
    }

    #[test]
    fn other_forms_and_oversized_are_errors() {
        assert!(read(&[0x80, 0x00]).is_err());
        assert!(read(&[0x3f]).is_err()); // 63 in the shortest form: not what UNIGINE writes
        assert!(read(&[0x40]).is_err());
        assert!(read(&[0xff, 0xff, 0xff, 0xff, 0xff, 0x01]).is_err());
        assert!(read(&[0xbf, 0xff, 0xff, 0xff, 0x7f]).is_err()); // 2^34 − 1
        assert!(read(&[0x80]).is_err());
        // 8191 with a third byte: not the shortest form after the lead byte.
        assert!(read(&[0xbf, 0xff, 0x00]).is_err());
    }
}
