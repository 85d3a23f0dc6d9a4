//! FACS facial-animation data (spec "version 5.00": `FileMeshFacsData`,
//! `QuantizedTransforms`, `QuantizedMatrix`, the corrective poses). Shared by 5.00 and
//! the FACS chunk of 6.00/7.00.

use binrw::{binrw, BinRead, BinResult, Endian};
use serde::Serialize;
use std::io::{Read, Seek};

use super::records::{split_names, ThreePoseCorrective, TwoPoseCorrective};
use crate::io::{
    count_as, exactly, inconsistent, invalid, pod_vec, pod_write, NotThisVariant, Payload, Records,
};

/// `FileMeshFacsData`. The five size fields are derived on write.
#[binrw]
#[brw(little)]
#[derive(Clone, Debug, PartialEq, Serialize)]
#[doc(alias = "FileMeshFacsData")]
pub struct FacsData {
    #[br(temp)]
    #[bw(try_calc = count_as::<u32>(face_bone_names_blob.len(), "faceBoneNamesBlob bytes"))]
    sizeof_face_bone_names_blob: u32,
    #[br(temp)]
    #[bw(try_calc = count_as::<u32>(face_control_names_blob.len(), "faceControlNamesBlob bytes"))]
    sizeof_face_control_names_blob: u32,
    #[br(temp)]
    #[bw(calc = quantized_transforms.byte_size())]
    sizeof_quantized_transforms: u64,
    #[br(temp)]
    #[bw(try_calc = count_as::<u32>(two_pose_correctives.len() * 4, "twoPoseCorrectives bytes"))]
    sizeof_two_pose_correctives: u32,
    #[br(temp)]
    #[bw(try_calc = count_as::<u32>(three_pose_correctives.len() * 6, "threePoseCorrectives bytes"))]
    sizeof_three_pose_correctives: u32,

    /// `faceBoneNamesBlob`: NUL-terminated names of the bones FACS drives
    /// (see [`FacsData::face_bone_names`]). Kept as bytes for an exact round trip.
    #[br(count = u64::from(sizeof_face_bone_names_blob))]
    pub face_bone_names_blob: Records<u8>,

    /// `faceControlNamesBlob`: NUL-terminated FACS control names (`c_JD`, `l_EC` …).
    #[br(count = u64::from(sizeof_face_control_names_blob))]
    pub face_control_names_blob: Records<u8>,

    /// `quantizedTransforms`: its size must equal `sizeof_quantizedTransforms`.
    #[br(parse_with = read_transforms, args(sizeof_quantized_transforms))]
    pub quantized_transforms: QuantizedTransforms,

    /// `twoPoseCorrectives[sizeof / 4]`.
    #[br(parse_with = read_correctives, args(sizeof_two_pose_correctives, "twoPoseCorrectives"))]
    #[bw(write_with = pod_write)]
    pub two_pose_correctives: Vec<TwoPoseCorrective>,

    /// `threePoseCorrectives[sizeof / 6]`.
    #[br(parse_with = read_correctives, args(sizeof_three_pose_correctives, "threePoseCorrectives"))]
    #[bw(write_with = pod_write)]
    pub three_pose_correctives: Vec<ThreePoseCorrective>,
}

impl FacsData {
    /// Size in bytes as written.
    pub fn byte_size(&self) -> u64 {
        24 + self.face_bone_names_blob.len() as u64
            + self.face_control_names_blob.len() as u64
            + self.quantized_transforms.byte_size()
            + self.two_pose_correctives.len() as u64 * 4
            + self.three_pose_correctives.len() as u64 * 6
    }

    /// The face bone names, split at NULs.
    pub fn face_bone_names(&self) -> Vec<String> {
        split_names(&self.face_bone_names_blob)
    }

    /// The FACS control names, split at NULs.
    pub fn face_control_names(&self) -> Vec<String> {
        split_names(&self.face_control_names_blob)
    }
}

fn read_transforms<R: Read + Seek>(
    reader: &mut R,
    endian: Endian,
    (size,): (u64,),
) -> BinResult<QuantizedTransforms> {
    let start = reader.stream_position()?;
    let t = QuantizedTransforms::read_options(reader, endian, ())?;
    if t.byte_size() != size {
        return Err(invalid(
            start,
            format!(
                "sizeof_quantizedTransforms is {size} but the six matrices take {} bytes",
                t.byte_size()
            ),
        ));
    }
    Ok(t)
}

fn read_correctives<T: crate::io::PlainRecord, R: Read + Seek>(
    reader: &mut R,
    endian: Endian,
    (size, what): (u32, &'static str),
) -> BinResult<Vec<T>> {
    let elem = std::mem::size_of::<T>() as u32;
    if size % elem != 0 {
        let pos = reader.stream_position()?;
        return Err(invalid(
            pos,
            format!("sizeof_{what} is {size}, not a multiple of {elem}"),
        ));
    }
    pod_vec(reader, endian, (u64::from(size / elem), what))
}

/// `QuantizedTransforms`: per-pose position (`px`, `py`, `pz`) and rotation in degrees
/// (`rx`, `ry`, `rz`) of each face bone; rows are face bones, columns controls then
/// correctives.
#[binrw]
#[brw(little)]
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct QuantizedTransforms {
    /// Position X.
    pub px: QuantizedMatrix,
    /// Position Y.
    pub py: QuantizedMatrix,
    /// Position Z.
    pub pz: QuantizedMatrix,
    /// Rotation X (degrees).
    pub rx: QuantizedMatrix,
    /// Rotation Y (degrees).
    pub ry: QuantizedMatrix,
    /// Rotation Z (degrees).
    pub rz: QuantizedMatrix,
}

impl QuantizedTransforms {
    /// The six matrices in file order.
    pub fn matrices(&self) -> [&QuantizedMatrix; 6] {
        [&self.px, &self.py, &self.pz, &self.rx, &self.ry, &self.rz]
    }

    /// Size in bytes as written.
    pub fn byte_size(&self) -> u64 {
        self.matrices().iter().map(|m| m.byte_size()).sum()
    }
}

/// `QuantizedMatrix`: `rows × cols` values, raw (version 1) or quantized to u16
/// between `min` and `max` (version 2). `version` is a u16 (see FORMAT-NOTES).
#[binrw]
#[brw(little)]
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct QuantizedMatrix {
    #[br(temp, assert(matches!(version, 1 | 2),
        "QuantizedMatrix.version is {}; 1 (raw) or 2 (quantized) expected", version))]
    #[bw(calc = data.version())]
    version: u16,
    /// `rows`: one per face bone.
    pub rows: u32,
    /// `cols`: one per control and corrective.
    pub cols: u32,
    /// The values, row major; their count must be `rows × cols`.
    #[br(args(version, u64::from(rows) * u64::from(cols)))]
    #[bw(assert(data.len() as u64 == u64::from(*rows) * u64::from(*cols),
        "QuantizedMatrix holds {} values but rows × cols = {} × {}", data.len(), rows, cols))]
    pub data: MatrixData,
}

impl QuantizedMatrix {
    /// Size in bytes as written.
    pub fn byte_size(&self) -> u64 {
        10 + match &self.data {
            MatrixData::Raw(v) => v.len() as u64 * 4,
            MatrixData::Quantized { values, .. } => 8 + values.len() as u64 * 2,
        }
    }

    /// The value at (`row`, `col`) as f32 (dequantized for version 2:
    /// `min + q × (max − min) / 65535`).
    pub fn get(&self, row: u32, col: u32) -> Option<f32> {
        if row >= self.rows || col >= self.cols {
            return None;
        }
        let i = row as usize * self.cols as usize + col as usize;
        self.data.value(i)
    }
}

/// The values of a [`QuantizedMatrix`], as its `version` says.
#[binrw]
#[brw(little)]
#[br(import(version: u16, count: u64))]
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum MatrixData {
    /// Version 1: `float v1_matrix[rows][cols]`.
    #[br(pre_assert(version == 1, NotThisVariant))]
    Raw(#[br(count = count)] Records<f32>),
    /// Version 2: `float v2_min, v2_max; ushort v2_matrix[rows][cols]`.
    #[br(pre_assert(version == 2, NotThisVariant))]
    Quantized {
        /// `v2_min`.
        min: f32,
        /// `v2_max`.
        max: f32,
        /// `v2_matrix`, row major.
        #[br(count = count)]
        values: Records<u16>,
    },
}

impl MatrixData {
    /// The `QuantizedMatrix.version` this data is written with.
    pub fn version(&self) -> u16 {
        match self {
            MatrixData::Raw(_) => 1,
            MatrixData::Quantized { .. } => 2,
        }
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        match self {
            MatrixData::Raw(v) => v.len(),
            MatrixData::Quantized { values, .. } => values.len(),
        }
    }

    /// True when there are no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Value `i` (row major) as f32.
    pub fn value(&self, i: usize) -> Option<f32> {
        match self {
            MatrixData::Raw(v) => v.get(i).copied(),
            MatrixData::Quantized { min, max, values } => {
                values.get(i).map(|&q| dequantize_value(*min, *max, q))
            }
        }
    }
}

/// A version-2 matrix value: `min + q × precision`, `precision = (max − min) / 65535`,
/// in f32 as the spec gives it.
pub fn dequantize_value(min: f32, max: f32, q: u16) -> f32 {
    let precision = (max - min) / 65535.0;
    min + f32::from(q) * precision
}

/// The inverse of [`dequantize_value`]: the step whose value is `value`, bit for bit,
/// whenever one is (so `quantize_value(min, max, dequantize_value(min, max, q)) == q`
/// for every `q` whose value no other step shares); else the nearest step.
pub fn quantize_value(min: f32, max: f32, value: f32) -> u16 {
    let precision = (max - min) / 65535.0;
    if precision.is_nan() || precision <= 0.0 || precision.is_infinite() {
        // Every step has the value `min`: step 0 is as good as any.
        return 0;
    }
    let guess = ((value - min) / precision).round();
    let guess = if guess.is_nan() {
        0.0
    } else {
        guess.clamp(0.0, 65535.0)
    } as i32;
    // The f32 arithmetic of the division can land one or two steps off: look around
    // for the step that decodes to exactly this value.
    [0, -1, 1, -2, 2]
        .into_iter()
        .filter_map(|d| u16::try_from(guess + d).ok())
        .find(|&q| dequantize_value(min, max, q).to_bits() == value.to_bits())
        .unwrap_or(guess.clamp(0, 65535) as u16)
}

/// The FACS section of a 5.00 mesh (`facsDataSize` bytes after the subsets).
// One per file: the size of the inline variant does not matter.
#[allow(clippy::large_enum_variant)]
#[binrw]
#[brw(little)]
#[br(import(format: u32, size: u32))]
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Facs {
    /// `facsDataSize` is 0.
    #[br(pre_assert(size == 0, NotThisVariant))]
    None,
    /// `facsDataFormat` is not 0 and the `facsDataSize` bytes are exactly one
    /// `FileMeshFacsData` block.
    #[br(pre_assert(format != 0 && size != 0, NotThisVariant))]
    Data(#[br(parse_with = exactly, args(u64::from(size), "FACS bytes", ()))] FacsData),
    /// The `facsDataSize` bytes kept as they are: `facsDataFormat` is 0 ("no valid FACS
    /// data"), or the bytes are not exactly one FACS block (the variant above failed).
    #[br(pre_assert(size != 0, NotThisVariant))]
    Opaque(#[br(count = u64::from(size))] Records<u8>),
}

impl Payload for FacsData {
    fn kind(&self) -> &'static str {
        "FACS"
    }
}

impl Facs {
    /// Size in bytes as written (`facsDataSize`).
    pub fn byte_size(&self) -> u64 {
        match self {
            Facs::None => 0,
            Facs::Data(d) => d.byte_size(),
            Facs::Opaque(b) => b.len() as u64,
        }
    }

    /// Checks that this section reads back as itself when written with
    /// `facsDataFormat` = `format`.
    pub(crate) fn check_format(&self, format: u32) -> BinResult<()> {
        match (self, format) {
            (Facs::Data(_), 0) => Err(inconsistent(
                "FACS data with facsDataFormat 0 would read back as opaque bytes",
            )),
            (Facs::Opaque(b), _) if b.is_empty() => Err(inconsistent(
                "empty opaque FACS bytes would read back as no FACS section",
            )),
            (Facs::Opaque(b), f) if f != 0 && parse_block(b).is_some() => Err(inconsistent(
                "opaque FACS bytes that form a valid FACS block would read back as Facs::Data",
            )),
            _ => Ok(()),
        }
    }
}

/// The bytes as exactly one FACS block, if they are one.
fn parse_block(bytes: &[u8]) -> Option<FacsData> {
    let mut c = std::io::Cursor::new(bytes);
    let d = FacsData::read_options(&mut c, Endian::Little, ()).ok()?;
    (c.position() == bytes.len() as u64).then_some(d)
}
