//! The STF container: `STF0`, u32 major, u32 minor, u32 buffer count (the JSON is buffer
//! 0), u64 length of each buffer, the UTF-8 JSON, then the binary buffers; little-endian,
//! no alignment (FORMAT-NOTES "STF"). The JSON and the buffers are kept as bytes, so a
//! file reads and writes back exactly; [`super::model`] interprets them.

use std::io::{Read, Seek};

use binrw::{binrw, BinResult, Endian};
use serde::Serialize;

use crate::io::{count_as, invalid, pod_vec, pod_write, rest_bytes, Records};

/// An STF file.
#[binrw]
#[brw(little, magic = b"STF0")]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct StfContainer {
    /// Container version, major.
    pub version_major: u32,
    /// Container version, minor.
    pub version_minor: u32,
    #[br(temp, try_map = |n: u32| at_least_one(n))]
    #[bw(try_calc = count_as::<u32>(buffers.len() + 1, "buffers"))]
    buffer_count: u32,
    #[br(temp, parse_with = pod_vec, args(u64::from(buffer_count), "buffer lengths"))]
    #[bw(calc = std::iter::once(json.len() as u64).chain(buffers.iter().map(|b| b.len() as u64)).collect())]
    lengths: Vec<u64>,
    /// The JSON document, as stored.
    #[br(count = lengths.first().copied().unwrap_or(0))]
    #[serde(serialize_with = "json_text")]
    pub json: Records<u8>,
    /// The binary buffers, in order (`"index": k` in the JSON names `buffers[k]`).
    #[br(parse_with = read_buffers, args(lengths.get(1..).unwrap_or_default().to_vec()))]
    #[bw(write_with = write_buffers)]
    #[serde(serialize_with = "buffer_sizes")]
    pub buffers: Vec<Vec<u8>>,
    /// Bytes after the last buffer (none in real files), kept.
    #[br(parse_with = rest_bytes)]
    #[bw(write_with = pod_write)]
    pub trailing: Vec<u8>,
}

fn at_least_one(n: u32) -> std::result::Result<u32, crate::error::Invalid> {
    if n >= 1 {
        Ok(n)
    } else {
        Err(crate::error::Invalid(
            "buffer count 0: the JSON is buffer 0, so at least 1".into(),
        ))
    }
}

fn read_buffers<R: Read + Seek>(
    reader: &mut R,
    endian: Endian,
    (lengths,): (Vec<u64>,),
) -> BinResult<Vec<Vec<u8>>> {
    // Check the total first, so no buffer is allocated for a file that cannot hold them.
    let pos = reader.stream_position()?;
    let total = lengths.iter().try_fold(0u64, |a, &l| a.checked_add(l));
    let Some(total) = total else {
        return Err(invalid(pos, "buffer lengths overflow"));
    };
    crate::io::check_count(reader, total, 1, "buffer bytes")?;
    lengths
        .into_iter()
        .map(|l| pod_vec::<u8, _>(reader, endian, (l, "buffer bytes")))
        .collect()
}

#[allow(clippy::ptr_arg)] // binrw hands over the field as declared
fn write_buffers<W: std::io::Write + Seek>(
    value: &Vec<Vec<u8>>,
    writer: &mut W,
    _: Endian,
    _: (),
) -> BinResult<()> {
    for b in value {
        writer.write_all(b)?;
    }
    Ok(())
}

fn json_text<S: serde::Serializer>(v: &[u8], s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(&String::from_utf8_lossy(v))
}

fn buffer_sizes<S: serde::Serializer>(v: &[Vec<u8>], s: S) -> std::result::Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;
    let mut seq = s.serialize_seq(Some(v.len()))?;
    for b in v {
        seq.serialize_element(&format!("{} bytes", b.len()))?;
    }
    seq.end()
}
