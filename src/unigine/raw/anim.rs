//! UNIGINE animations: `.anim` files (an10, an11) and the animations embedded in ms10–ms12
//! meshes. The raw, byte-exact layer; layout in `docs/unigine-anim.md` (worked out and
//! checked on real files: the public spec has the flag and frame count swapped, and leaves
//! out the quantization boxes).
//!
//! An animation lists the bones it moves, then `frames × bones` keys, frame after frame.
//! A key is a mask byte ([`KeyMask`]) and the components it flags; a component that is
//! absent keeps its previous value.
//!
//! - embedded (ms10–ms12): f32 translation and scale, rotation as i16 / 32767;
//! - an10: translation and scale as u16 in a per-animation box
//!   (`min + size · q / 65535`), rotation as i16 / 32767;
//! - an11: whole f32 vectors, one mask bit each.

use std::io::{Read, Seek, Write};

use binrw::{binrw, BinRead, BinResult, BinWrite, Endian};
use modular_bitfield::prelude::*;
use serde::{Serialize, Serializer};

use super::cint::{records, Count, UString};
use super::skeleton::{Bone, Bounds, Transform};
use crate::error::{Error, ErrorKind, Invalid, Limits, Result};
use crate::io::{check_count, inconsistent, read_all, write_all, Records};

/// The mask byte of an embedded or an10 key: which components follow.
#[bitfield(bits = 8)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KeyMask {
    /// Translation x follows.
    pub tx: bool,
    /// Translation y follows.
    pub ty: bool,
    /// Translation z follows.
    pub tz: bool,
    /// The rotation (4 × i16) follows.
    pub rotation: bool,
    /// Scale x follows.
    pub sx: bool,
    /// Scale y follows.
    pub sy: bool,
    /// Scale z follows.
    pub sz: bool,
    #[skip]
    unused: B1,
}

impl KeyMask {
    /// Every component present (`0x7f`).
    pub const ALL: u8 = 0x7f;

    /// The translation flags x, y, z.
    pub fn translation(self) -> [bool; 3] {
        [self.tx(), self.ty(), self.tz()]
    }

    /// The scale flags x, y, z.
    pub fn scale(self) -> [bool; 3] {
        [self.sx(), self.sy(), self.sz()]
    }
}

impl Serialize for KeyMask {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_u8(self.into_bytes()[0])
    }
}

/// A mask byte, refused when it has bits whose meaning (and data) is unknown.
fn mask_within(b: u8, allowed: u8) -> std::result::Result<u8, Invalid> {
    if b & !allowed != 0 {
        return Err(Invalid(format!(
            "key mask {b:#04x} has bits outside {allowed:#04x}"
        )));
    }
    Ok(b)
}

/// binrw `parse_with`: the components of a vector whose `present` flags are set (the
/// others are 0 here and absent from the file).
fn masked<T, R>(reader: &mut R, endian: Endian, (present,): ([bool; 3],)) -> BinResult<[T; 3]>
where
    T: for<'a> BinRead<Args<'a> = ()> + Default + Copy,
    R: Read + Seek,
{
    let mut v = [T::default(); 3];
    for (c, on) in v.iter_mut().zip(present) {
        if on {
            *c = T::read_options(reader, endian, ())?;
        }
    }
    Ok(v)
}

/// binrw `write_with` for [`masked`].
fn write_masked<T, W>(
    value: &[T; 3],
    writer: &mut W,
    endian: Endian,
    (present,): ([bool; 3],),
) -> BinResult<()>
where
    T: for<'a> BinWrite<Args<'a> = ()>,
    W: Write + Seek,
{
    for (c, on) in value.iter().zip(present) {
        if on {
            c.write_options(writer, endian, ())?;
        }
    }
    Ok(())
}

/// One key of an embedded (`T` = f32) or an10 (`T` = u16) animation. Components the
/// mask does not flag are 0 here and absent from the file.
#[binrw]
#[brw(little)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Key<T>
where
    T: for<'a> BinRead<Args<'a> = ()> + for<'a> BinWrite<Args<'a> = ()> + Default + Copy,
{
    /// Which components are stored.
    #[br(try_map = |b: u8| mask_within(b, KeyMask::ALL).map(|b| KeyMask::from_bytes([b])))]
    #[bw(map = |m: &KeyMask| m.into_bytes()[0])]
    pub mask: KeyMask,
    /// Translation (an10: quantized in the animation's translation box).
    #[br(parse_with = masked, args(mask.translation()))]
    #[bw(write_with = write_masked, args(self.mask.translation()))]
    pub translation: [T; 3],
    /// Rotation quaternion x, y, z, w, each × 32767.
    #[br(if(mask.rotation()))]
    #[bw(if(self.mask.rotation()))]
    pub rotation: [i16; 4],
    /// Scale (an10: quantized in the animation's scale box).
    #[br(parse_with = masked, args(mask.scale()))]
    #[bw(write_with = write_masked, args(self.mask.scale()))]
    pub scale: [T; 3],
}

/// A key of an an11 animation: bit 0 position, bit 1 rotation, bit 2 scale, whole f32
/// vectors. Absent vectors are zero here.
#[binrw]
#[brw(little)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct An11Key {
    /// Bits 0 (position), 1 (rotation), 2 (scale).
    #[br(try_map = |b: u8| mask_within(b, 0x07))]
    #[bw(assert(*mask & !0x07 == 0, "an11 key mask {:#04x} has bits outside 0x07", mask))]
    pub mask: u8,
    /// Position.
    #[brw(if(mask & An11Key::POSITION != 0))]
    pub position: [f32; 3],
    /// Rotation quaternion x, y, z, w.
    #[brw(if(mask & An11Key::ROTATION != 0))]
    pub rotation: [f32; 4],
    /// Scale.
    #[brw(if(mask & An11Key::SCALE != 0))]
    pub scale: [f32; 3],
}

impl An11Key {
    /// Mask bit: position stored.
    pub const POSITION: u8 = 1;
    /// Mask bit: rotation stored.
    pub const ROTATION: u8 = 2;
    /// Mask bit: scale stored.
    pub const SCALE: u8 = 4;
}

/// binrw `parse_with`: `frames × bones` keys, after checking that the input holds at
/// least one byte for each.
fn read_keys<K, R>(
    reader: &mut R,
    endian: Endian,
    (frames, bones): (u32, usize),
) -> BinResult<Vec<K>>
where
    K: for<'a> BinRead<Args<'a> = ()>,
    R: Read + Seek,
{
    let n = u64::from(frames).saturating_mul(bones as u64);
    check_count(reader, n, 1, "animation keys")?;
    let mut keys = Vec::with_capacity(n as usize);
    for _ in 0..n {
        keys.push(K::read_options(reader, endian, ())?);
    }
    Ok(keys)
}

/// binrw `write_with`: the keys, after checking there are `frames × bones` of them.
#[allow(clippy::ptr_arg)] // binrw hands over the field as declared
fn write_keys<K, W>(
    keys: &Vec<K>,
    w: &mut W,
    endian: Endian,
    (frames, bones): (u32, usize),
) -> BinResult<()>
where
    K: for<'a> BinWrite<Args<'a> = ()>,
    W: Write + Seek,
{
    let want = u64::from(frames).saturating_mul(bones as u64);
    if keys.len() as u64 != want {
        return Err(inconsistent(format!(
            "{} keys, but {frames} frames × {bones} animated bones need {want}",
            keys.len()
        )));
    }
    keys.iter().try_for_each(|k| k.write_options(w, endian, ()))
}

/// An animation embedded in an ms10–ms12 mesh.
#[binrw]
#[brw(little)]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct EmbeddedAnimation {
    #[br(temp, args("animated bones"))]
    #[bw(try_calc = Count::of(bones.len(), "animated bones"))]
    bone_count: Count,
    /// Skeleton index of each animated bone.
    #[br(count = bone_count.get())]
    pub bones: Records<i16>,
    /// A flag byte (`0x7f` seen: the components the animation stores, it seems).
    pub flag: u8,
    #[br(temp, args("frames"))]
    #[bw(try_calc = Count::of(*frame_count as usize, "frames"))]
    frames: Count,
    /// Number of frames (kept: with no animated bones it cannot be derived).
    #[br(calc = frames.0)]
    #[bw(ignore)]
    pub frame_count: u32,
    /// `frame_count × bones.len()` keys, frame after frame.
    #[br(parse_with = read_keys, args(frame_count, bones.len()))]
    #[bw(write_with = write_keys, args(*frame_count, bones.len()))]
    pub keys: Vec<Key<f32>>,
}

/// A quantization box of an an10 animation: `value = min + size · q / 65535`.
#[binrw]
#[brw(little)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct QuantBox {
    /// Minimum.
    pub min: [f32; 3],
    /// Size (UNIGINE's writer uses max − min + 1).
    pub size: [f32; 3],
}

impl QuantBox {
    /// `min` and `size` of an axis (0 for an axis past 2).
    fn axis(&self, axis: usize) -> (f32, f32) {
        (
            self.min.get(axis).copied().unwrap_or_default(),
            self.size.get(axis).copied().unwrap_or_default(),
        )
    }

    /// The value a quantized component stands for: `min + size · q / 65535`, in `f32`.
    pub fn decode(&self, axis: usize, q: u16) -> f32 {
        let (min, size) = self.axis(axis);
        min + size * f32::from(q) / 65535.0
    }

    /// The quantized component that stands for `v`: the inverse of
    /// [`decode`](Self::decode). For every `q`, `decode(encode(decode(q))) ==
    /// decode(q)`, and `encode(decode(q)) == q` wherever no smaller integer decodes to the
    /// same value (two integers decode alike only when `size / 65535` is below the
    /// spacing of `f32`s near the box). A value between two steps gives the nearer; one
    /// outside the box the nearest end; NaN gives 0. With a `min` or `size` that is not
    /// finite, the nearest integer to `(v − min) / size · 65535` (clamped; 0 for NaN).
    ///
    /// UNIGINE's writer computes `(int)((v − min) / size · 65535)` from the original
    /// values; truncating is not the inverse of `decode`, so this does not.
    pub fn encode(&self, axis: usize, v: f32) -> u16 {
        let (min, size) = self.axis(axis);
        if min.is_finite() && size.is_finite() {
            return super::quant::invert_monotonic(|q| self.decode(axis, q), v).unwrap_or(0);
        }
        let t = (f64::from(v) - f64::from(min)) / f64::from(size) * 65535.0;
        // `as` saturates and maps NaN to 0.
        t.round() as u16
    }
}

/// An animation of an an10 file.
#[binrw]
#[brw(little)]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct An10Animation {
    #[br(temp, args("animated bones"))]
    #[bw(try_calc = Count::of(bones.len(), "animated bones"))]
    bone_count: Count,
    /// Skeleton index of each animated bone.
    #[br(count = bone_count.get())]
    pub bones: Records<i16>,
    /// Box of the quantized translations.
    pub translation_box: QuantBox,
    /// Box of the quantized scales.
    pub scale_box: QuantBox,
    /// A flag byte (`0x7f` seen).
    pub flag: u8,
    #[br(temp, args("frames"))]
    #[bw(try_calc = Count::of(*frame_count as usize, "frames"))]
    frames: Count,
    /// Number of frames.
    #[br(calc = frames.0)]
    #[bw(ignore)]
    pub frame_count: u32,
    /// `frame_count × bones.len()` keys, frame after frame.
    #[br(parse_with = read_keys, args(frame_count, bones.len()))]
    #[bw(write_with = write_keys, args(*frame_count, bones.len()))]
    pub keys: Vec<Key<u16>>,
}

/// The one animation of an an11 file.
#[binrw]
#[brw(little)]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct An11Animation {
    #[br(temp, args("animated bones"))]
    #[bw(try_calc = Count::of(bones.len(), "animated bones"))]
    bone_count: Count,
    /// Skeleton index of each animated bone.
    #[br(count = bone_count.get())]
    pub bones: Records<i16>,
    #[br(temp, args("frames"))]
    #[bw(try_calc = Count::of(*frame_count as usize, "frames"))]
    frames: Count,
    /// Number of frames.
    #[br(calc = frames.0)]
    #[bw(ignore)]
    pub frame_count: u32,
    /// `frame_count × bones.len()` keys, frame after frame.
    #[br(parse_with = read_keys, args(frame_count, bones.len()))]
    #[bw(write_with = write_keys, args(*frame_count, bones.len()))]
    pub keys: Vec<An11Key>,
}

/// An an10 file after its magic.
#[binrw]
#[brw(little)]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct An10File {
    /// Bounds (the "empty" ±1e9 box in the real file).
    pub bounds: Bounds,
    #[br(temp, args("bones"))]
    #[bw(try_calc = Count::of(bones.len(), "bones"))]
    bone_count: Count,
    /// The skeleton.
    #[br(parse_with = records, args(bone_count, 3, "bones", ()))]
    pub bones: Vec<Bone>,
    #[br(temp, args("animations"))]
    #[bw(try_calc = Count::of(names.len(), "animations"))]
    animation_count: Count,
    /// Animation names.
    #[br(parse_with = records, args(animation_count, 1, "animations", ()))]
    pub names: Vec<UString>,
    #[br(temp, try_map = |m: [u8; 4]| super::cint::separator(m, *b"an10"))]
    #[bw(calc = *b"an10")]
    separator: [u8; 4],
    /// Bind pose: one transform per bone.
    #[br(count = bones.len() as u64)]
    pub bind_pose: Records<Transform>,
    /// One animation per name.
    #[br(parse_with = records, args(Count(names.len() as u32), 1, "animations", ()))]
    pub animations: Vec<An10Animation>,
    #[br(temp, try_map = |m: [u8; 4]| super::cint::separator(m, *b"an10"))]
    #[bw(calc = *b"an10")]
    end: [u8; 4],
}

/// An an11 file after its magic.
#[binrw]
#[brw(little)]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct An11File {
    #[br(temp, args("bones"))]
    #[bw(try_calc = Count::of(bones.len(), "bones"))]
    bone_count: Count,
    /// The skeleton.
    #[br(parse_with = records, args(bone_count, 3, "bones", ()))]
    pub bones: Vec<Bone>,
    #[br(temp, try_map = |m: [u8; 4]| super::cint::separator(m, *b"an11"))]
    #[bw(calc = *b"an11")]
    separator: [u8; 4],
    /// Bind pose: one transform per bone.
    #[br(count = bones.len() as u64)]
    pub bind_pose: Records<Transform>,
    /// The animation.
    pub animation: An11Animation,
    #[br(temp, try_map = |m: [u8; 4]| super::cint::separator(m, *b"an11"))]
    #[bw(calc = *b"an11")]
    end: [u8; 4],
}

/// A UNIGINE `.anim` file.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "version", content = "body")]
pub enum UnigineAnim {
    /// `an10`: named animations with quantized translation and scale.
    #[serde(rename = "an10")]
    An10(An10File),
    /// `an11`: one clip of f32 keys.
    #[serde(rename = "an11")]
    An11(An11File),
}

impl UnigineAnim {
    /// Reads an animation file with the default [`Limits`].
    pub fn read(bytes: &[u8]) -> Result<UnigineAnim> {
        Self::read_with_limits(bytes, &Limits::default())
    }

    /// Reads an animation file.
    pub fn read_with_limits(bytes: &[u8], limits: &Limits) -> Result<UnigineAnim> {
        limits.check_input(bytes.len())?;
        let rest = bytes.get(4..).unwrap_or_default();
        let shift = |mut e: Error| {
            e.shift(4);
            e
        };
        match bytes.get(..4) {
            Some(b"an10") => Ok(UnigineAnim::An10(
                read_all(rest, limits, ()).map_err(shift)?,
            )),
            Some(b"an11") => Ok(UnigineAnim::An11(
                read_all(rest, limits, ()).map_err(shift)?,
            )),
            Some(m) => Err(Error::at(
                0,
                "UNIGINE animation magic",
                ErrorKind::UnsupportedVersion(format!(
                    "{} (supported: an10, an11)",
                    String::from_utf8_lossy(m)
                )),
            )),
            None => Err(Error::at(
                0,
                "UNIGINE animation magic",
                ErrorKind::UnexpectedEof,
            )),
        }
    }

    /// Writes the file; for one read from a file, the same bytes.
    pub fn write(&self) -> Result<Vec<u8>> {
        match self {
            UnigineAnim::An10(f) => {
                if f.bind_pose.len() != f.bones.len() || f.animations.len() != f.names.len() {
                    return Err(Error::new(
                        "an10",
                        ErrorKind::Inconsistent(format!(
                            "{} bones with {} bind pose transforms, {} names with {} animations",
                            f.bones.len(),
                            f.bind_pose.len(),
                            f.names.len(),
                            f.animations.len()
                        )),
                    ));
                }
                write_all(b"an10", f, 1024, ())
            }
            UnigineAnim::An11(f) => {
                if f.bind_pose.len() != f.bones.len() {
                    return Err(Error::new(
                        "an11",
                        ErrorKind::Inconsistent(format!(
                            "{} bones with {} bind pose transforms",
                            f.bones.len(),
                            f.bind_pose.len()
                        )),
                    ));
                }
                write_all(b"an11", f, 1024, ())
            }
        }
    }

    /// The version name (`"an10"`, `"an11"`).
    pub fn version(&self) -> &'static str {
        match self {
            UnigineAnim::An10(_) => "an10",
            UnigineAnim::An11(_) => "an11",
        }
    }

    /// Counts for `meshcodec info`.
    pub fn info(&self) -> AnimInfo {
        let (bones, clips): (&[Bone], Vec<ClipInfo>) = match self {
            UnigineAnim::An10(f) => (
                &f.bones,
                f.names
                    .iter()
                    .zip(&f.animations)
                    .map(|(n, a)| ClipInfo {
                        name: n.text(),
                        animated_bones: a.bones.len(),
                        frames: a.frame_count,
                        stored_keys: a
                            .keys
                            .iter()
                            .filter(|k| k.mask.into_bytes()[0] != 0)
                            .count(),
                    })
                    .collect(),
            ),
            UnigineAnim::An11(f) => (
                &f.bones,
                vec![ClipInfo {
                    name: String::new(),
                    animated_bones: f.animation.bones.len(),
                    frames: f.animation.frame_count,
                    stored_keys: f.animation.keys.iter().filter(|k| k.mask != 0).count(),
                }],
            ),
        };
        AnimInfo {
            format: "unigine-anim",
            version: self.version(),
            bones: bones.len(),
            bone_names: bones.iter().map(|b| b.name.text()).collect(),
            animations: clips,
        }
    }
}

/// What `meshcodec info` reports of a `.anim` file.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct AnimInfo {
    /// `"unigine-anim"`.
    pub format: &'static str,
    /// `"an10"` or `"an11"`.
    pub version: &'static str,
    /// Number of bones of the skeleton.
    pub bones: usize,
    /// Their names.
    pub bone_names: Vec<String>,
    /// Per animation.
    pub animations: Vec<ClipInfo>,
}

/// Counts of one animation.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClipInfo {
    /// Name (an11 clips have none).
    pub name: String,
    /// Number of animated bones.
    pub animated_bones: usize,
    /// Number of frames.
    pub frames: u32,
    /// Keys that store at least one component.
    pub stored_keys: usize,
}
