//! Reading past arrays without keeping them: what `meshcodec info` and `verify` need of
//! an ms14 payload is counts, not arrays (`ms14::GeometryCounts`).
//!
//! Each walk checks a count against the bytes that remain exactly as the whole-array
//! readers do ([`crate::io::check_count`], before anything is read), so the two accept
//! and refuse the same input, with the same error.

use std::io::{Read, Seek};

use binrw::{BinResult, Endian};

use crate::io::{check_count, PlainRecord};

/// Bytes read at a time.
const PIECE: usize = 1 << 16;

/// `count` records of `T` (what [`crate::io::Records`] reads), handed to `each` a piece
/// at a time after checking that the input holds them all. `what` names the array in
/// errors.
pub(crate) fn scan_records<T: PlainRecord, R: Read + Seek>(
    reader: &mut R,
    endian: Endian,
    count: u64,
    what: &'static str,
    mut each: impl FnMut(&[T]),
) -> BinResult<()> {
    let size = std::mem::size_of::<T>().max(1);
    check_count(reader, count, size as u64, what)?;
    // Bounded by the check above, and by the piece size.
    let per_piece = (PIECE / size).max(1);
    let mut buf: Vec<T> = bytemuck::zeroed_vec(per_piece.min(count as usize));
    let mut left = count as usize;
    while left > 0 {
        let k = left.min(per_piece);
        let piece = buf.get_mut(..k).unwrap_or_default();
        if cfg!(target_endian = "little") && endian == Endian::Little {
            reader.read_exact(bytemuck::cast_slice_mut(piece))?;
        } else {
            for slot in piece.iter_mut() {
                *slot = T::read_options(reader, endian, ())?;
            }
        }
        each(piece);
        left -= k;
    }
    Ok(())
}

/// Reads past `count` records of `size` bytes after checking that the input holds
/// them.
pub(crate) fn skip<R: Read + Seek>(
    reader: &mut R,
    count: u64,
    size: u64,
    what: &'static str,
) -> BinResult<()> {
    check_count(reader, count, size, what)?;
    // Read, not seeked over: a stream decodes what it passes (and so checks it).
    let bytes = count * size;
    let copied = std::io::copy(&mut reader.by_ref().take(bytes), &mut std::io::sink())?;
    if copied < bytes {
        return Err(std::io::Error::from(std::io::ErrorKind::UnexpectedEof).into());
    }
    Ok(())
}

/// The records of a piece with a value that is not finite (NaN, ±∞).
pub(crate) fn not_finite<const N: usize>(piece: &[[f32; N]]) -> u64 {
    piece
        .iter()
        .filter(|r| r.iter().any(|x| !x.is_finite()))
        .count() as u64
}
