//! UNIGINE `.mesh` versions ms10–ms13: the raw, byte-exact layer.
//!
//! Spec: `unigine-mesh-anim.txt`; FORMAT-NOTES "UNIGINE .mesh / .anim" (checked on real
//! files). In file order:
//!
//! 1. magic (`ms1x`), [`Bounds`], bones ([`Bone`]), ms10–ms12: animation names,
//!    surface headers ([`SurfaceHeader`]);
//! 2. the magic again, the bind pose (10 floats per bone), ms10–ms12: the embedded
//!    animations ([`EmbeddedAnimation`]);
//! 3. per surface, [`SurfaceData`]: per morph target positions and tangents, then weights,
//!    two UV sets, colours, coordinate indices and triangle indices;
//! 4. the magic a last time.
//!
//! Every count is a compact int derived from the data on write. Index widths are derived
//! too: u8 below 256, u16 below 65536, else u32, by the position count (coordinate
//! indices) and the tangent count (triangle indices) of morph target 0.

use std::io::{Read, Seek, Write};

use binrw::{binrw, BinRead, BinResult, BinWrite, Endian};
use bytemuck::{Pod, Zeroable};
use serde::Serialize;

use super::anim::EmbeddedAnimation;
use super::cint::{records, Count, UString};
pub use super::skeleton::{Bone, Bounds, Transform};
use super::version::MeshVersion;
use crate::io::{check_count, count_as, inconsistent, pod_vec, pod_write, Records};

/// A surface's header (before the geometry).
#[binrw]
#[brw(little, import(v: MeshVersion))]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SurfaceHeader {
    /// Name (usually the material's).
    pub name: UString,
    /// UV channel of the lightmap (ms12 and later; 0 when absent).
    #[brw(if(v >= MeshVersion::Ms12))]
    pub lightmap_channel: u8,
    /// Lightmap resolution (ms12 and later; 0 when absent).
    #[brw(if(v >= MeshVersion::Ms12))]
    pub lightmap_resolution: u8,
    /// Bounds of the surface.
    pub bounds: Bounds,
    #[br(temp, args("morph targets"))]
    #[bw(try_calc = Count::of(targets.len(), "morph targets"))]
    target_count: Count,
    /// Morph target names; target 0 is the base shape.
    #[br(parse_with = records, args(target_count, 1, "morph targets", ()))]
    pub targets: Vec<UString>,
}

/// One morph target's geometry: positions, and one tangent per triangle vertex.
#[binrw]
#[brw(little, import(v: MeshVersion))]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TargetData {
    #[br(temp, args("positions"))]
    #[bw(try_calc = Count::of(positions.len(), "positions"))]
    position_count: Count,
    /// Vertex positions.
    #[br(count = position_count.get())]
    pub positions: Records<[f32; 3]>,
    #[br(temp, args("tangents"))]
    #[bw(try_calc = Count::of(tangents.len(), "tangents"))]
    tangent_count: Count,
    /// Tangent frames, x, y, z, w each scaled by 32767. ms10 stores w in one signed byte.
    #[br(parse_with = read_tangents, args(tangent_count, v))]
    #[bw(write_with = write_tangents, args(v))]
    pub tangents: Vec<[i16; 4]>,
}

fn read_tangents<R: Read + Seek>(
    reader: &mut R,
    endian: Endian,
    (count, v): (Count, MeshVersion),
) -> BinResult<Vec<[i16; 4]>> {
    if v > MeshVersion::Ms10 {
        return pod_vec(reader, endian, (count.get(), "tangents"));
    }
    let raw: Vec<[u8; 7]> = pod_vec(reader, endian, (count.get(), "tangents"))?;
    Ok(raw
        .iter()
        .map(|t| {
            let [x0, x1, y0, y1, z0, z1, w] = *t;
            [
                i16::from_le_bytes([x0, x1]),
                i16::from_le_bytes([y0, y1]),
                i16::from_le_bytes([z0, z1]),
                i16::from(w as i8),
            ]
        })
        .collect())
}

fn write_tangents<W: Write + Seek>(
    value: &Vec<[i16; 4]>,
    writer: &mut W,
    endian: Endian,
    (v,): (MeshVersion,),
) -> BinResult<()> {
    if v > MeshVersion::Ms10 {
        return pod_write(value, writer, endian, ());
    }
    let mut buf = Vec::with_capacity(7 * value.len());
    for t in value {
        let w = i8::try_from(t[3])
            .map_err(|_| inconsistent(format!("ms10 tangent w {} does not fit a byte", t[3])))?;
        for c in &t[..3] {
            buf.extend(c.to_le_bytes());
        }
        buf.push(w as u8);
    }
    writer.write_all(&buf)?;
    Ok(())
}

/// One bone's influence on a vertex: bone index and weight × 65535.
#[binrw]
#[brw(little)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable, Serialize)]
#[repr(C)]
pub struct BoneWeight {
    /// Bone index.
    pub bone: i16,
    /// Weight, 65535 = 1.
    pub weight: u16,
}

/// Skin weights of a surface's vertices, flattened: vertex `i` has `counts[i]` entries,
/// which follow those of the vertices before it in `entries`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Weights {
    /// Number of influences of each vertex (at most 4 in UNIGINE's writer).
    pub counts: Vec<u8>,
    /// The influences, vertex after vertex.
    pub entries: Vec<BoneWeight>,
}

impl Weights {
    /// The influences of vertex `i`, if it exists.
    pub fn of(&self, i: usize) -> Option<&[BoneWeight]> {
        let start: usize = self.counts.get(..i)?.iter().map(|&c| usize::from(c)).sum();
        let n = usize::from(*self.counts.get(i)?);
        self.entries.get(start..start + n)
    }
}

// Hand-written: the per-vertex (count, entries) runs are flattened into two arrays, so a
// surface of a million vertices takes two allocations, not one per vertex.
impl BinRead for Weights {
    type Args<'a> = ();

    fn read_options<R: Read + Seek>(reader: &mut R, endian: Endian, _: ()) -> BinResult<Self> {
        let (mut counts, mut entries) = (Vec::new(), Vec::new());
        Weights::walk(reader, endian, |n, c, bytes| {
            if counts.is_empty() {
                counts.reserve_exact(n as usize);
                entries.reserve_exact(n as usize);
            }
            counts.push(c);
            entries.extend(bytes.chunks_exact(4).map(|e| {
                let [b0, b1, w0, w1] = <[u8; 4]>::try_from(e).unwrap_or_default();
                BoneWeight {
                    bone: i16::from_le_bytes([b0, b1]),
                    weight: u16::from_le_bytes([w0, w1]),
                }
            }));
        })?;
        Ok(Weights { counts, entries })
    }
}

impl Weights {
    /// Walks the weights as stored: the number of weighted vertices, checked against the
    /// bytes that remain, then per vertex its influence count and those influences'
    /// bytes (4 each: bone i16, weight u16), handed to `each` with the number of
    /// vertices (for the first to reserve room).
    /// The one reading of the layout, for [`Weights`] and for counting them
    /// (`meshcodec info`). Returns the number of vertices.
    pub(crate) fn walk<R: Read + Seek>(
        reader: &mut R,
        endian: Endian,
        mut each: impl FnMut(u32, u8, &[u8]),
    ) -> BinResult<u32> {
        let n = Count::read_options(reader, endian, ("weighted vertices",))?;
        check_count(reader, n.get(), 1, "weighted vertices")?;
        // One read per vertex into a reused buffer: the count byte and up to 255 entries.
        let mut buf = [0u8; 4 * 255];
        for _ in 0..n.0 {
            let c = u8::read_options(reader, endian, ())?;
            let bytes = buf.get_mut(..4 * usize::from(c)).unwrap_or_default();
            reader.read_exact(bytes)?;
            each(n.0, c, bytes);
        }
        Ok(n.0)
    }
}

impl BinWrite for Weights {
    type Args<'a> = ();

    fn write_options<W: Write + Seek>(&self, writer: &mut W, e: Endian, _: ()) -> BinResult<()> {
        let total: usize = self.counts.iter().map(|&c| usize::from(c)).sum();
        if total != self.entries.len() {
            return Err(inconsistent(format!(
                "weight counts add up to {total}, but there are {} bone weights",
                self.entries.len()
            )));
        }
        Count::of(self.counts.len(), "weighted vertices")?.write_options(writer, e, ())?;
        let mut rest = self.entries.as_slice();
        let mut buf = Vec::with_capacity(self.counts.len() + 4 * self.entries.len());
        for &c in &self.counts {
            let (these, after) = rest.split_at(usize::from(c));
            buf.push(c);
            for w in these {
                buf.extend(w.bone.to_le_bytes());
                buf.extend(w.weight.to_le_bytes());
            }
            rest = after;
        }
        writer.write_all(&buf)?;
        Ok(())
    }
}

/// Width of an index array: by the number of things indexed.
fn index_width(indexed: usize) -> u64 {
    match indexed {
        0..=255 => 1,
        256..=65535 => 2,
        _ => 4,
    }
}

/// binrw `parse_with`: an index array, its count either given (ms14: in the surface
/// header) or read first as a compact int (ms10–ms13).
pub(crate) fn read_indices<R: Read + Seek>(
    reader: &mut R,
    endian: Endian,
    (count, indexed, what): (Option<u32>, usize, &'static str),
) -> BinResult<Vec<u32>> {
    let n = index_count(reader, endian, count, what)?;
    Ok(match index_width(indexed) {
        1 => pod_vec::<u8, _>(reader, endian, (n.get(), what))?
            .into_iter()
            .map(u32::from)
            .collect(),
        2 => pod_vec::<u16, _>(reader, endian, (n.get(), what))?
            .into_iter()
            .map(u32::from)
            .collect(),
        _ => pod_vec(reader, endian, (n.get(), what))?,
    })
}

/// [`read_indices`] without keeping them: checks that they are there and reads past
/// them; their number.
pub(crate) fn skip_indices<R: Read + Seek>(
    reader: &mut R,
    endian: Endian,
    (count, indexed, what): (Option<u32>, usize, &'static str),
) -> BinResult<u32> {
    let n = index_count(reader, endian, count, what)?;
    super::scan::skip(reader, n.get(), index_width(indexed), what)?;
    Ok(n.0)
}

/// The number of indices: given (ms14: in the surface header) or read (ms10–ms13).
fn index_count<R: Read + Seek>(
    reader: &mut R,
    endian: Endian,
    count: Option<u32>,
    what: &'static str,
) -> BinResult<Count> {
    match count {
        Some(n) => Ok(Count(n)),
        None => Count::read_options(reader, endian, (what,)),
    }
}

/// binrw `write_with` for [`read_indices`]: with a given count, the array must have it.
#[allow(clippy::ptr_arg)] // binrw hands over the field as declared
pub(crate) fn write_indices<W: Write + Seek>(
    value: &Vec<u32>,
    writer: &mut W,
    endian: Endian,
    (count, indexed, what): (Option<u32>, usize, &'static str),
) -> BinResult<()> {
    match count {
        Some(n) if n as usize != value.len() => {
            return Err(inconsistent(format!(
                "{} {what}, but the surface header says {n}",
                value.len()
            )))
        }
        Some(_) => {}
        None => Count::of(value.len(), what)?.write_options(writer, endian, ())?,
    }
    let width = index_width(indexed);
    let too_big = |i: &u32| {
        inconsistent(format!(
            "{what}: index {i} does not fit the {width}-byte width that {indexed} indexed \
             elements imply"
        ))
    };
    match width {
        1 => {
            let v: Vec<u8> = value
                .iter()
                .map(|i| u8::try_from(*i).map_err(|_| too_big(i)))
                .collect::<BinResult<_>>()?;
            writer.write_all(&v)?;
        }
        2 => {
            let v: Vec<u16> = value
                .iter()
                .map(|i| u16::try_from(*i).map_err(|_| too_big(i)))
                .collect::<BinResult<_>>()?;
            pod_write(&v, writer, endian, ())?;
        }
        _ => pod_write(value, writer, endian, ())?,
    }
    Ok(())
}

/// A surface's geometry.
#[binrw]
#[brw(little, import(v: MeshVersion, targets: u32))]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SurfaceData {
    /// Geometry of each morph target (as many as the header names).
    #[br(parse_with = records, args(Count(targets), 2, "morph targets", (v,)))]
    #[bw(args(v))]
    pub targets: Vec<TargetData>,
    /// Skin weights (none in a static mesh).
    pub weights: Weights,
    #[br(temp, args("first UV set"))]
    #[bw(try_calc = Count::of(uv0.len(), "first UV set"))]
    uv0_count: Count,
    /// First UV set.
    #[br(count = uv0_count.get())]
    pub uv0: Records<[f32; 2]>,
    #[br(temp, args("second UV set"))]
    #[bw(try_calc = Count::of(uv1.len(), "second UV set"))]
    uv1_count: Count,
    /// Second UV set.
    #[br(count = uv1_count.get())]
    pub uv1: Records<[f32; 2]>,
    #[br(temp, args("colours"))]
    #[bw(try_calc = Count::of(colors.len(), "colours"))]
    color_count: Count,
    /// Vertex colours, RGBA.
    #[br(count = color_count.get())]
    pub colors: Records<[u8; 4]>,
    /// Per triangle corner, the index of its position.
    #[br(parse_with = read_indices, args(None, base_len(&targets, |t| t.positions.len()), "coordinate indices"))]
    #[bw(write_with = write_indices, args(None, base_len(targets, |t| t.positions.len()), "coordinate indices"))]
    pub coordinate_indices: Vec<u32>,
    /// Per triangle corner, the index of its triangle vertex (tangent, UVs).
    #[br(parse_with = read_indices, args(None, base_len(&targets, |t| t.tangents.len()), "triangle indices"))]
    #[bw(write_with = write_indices, args(None, base_len(targets, |t| t.tangents.len()), "triangle indices"))]
    pub triangle_indices: Vec<u32>,
}

/// A count of morph target 0 (0 without targets).
fn base_len(targets: &[TargetData], f: impl Fn(&TargetData) -> usize) -> usize {
    targets.first().map_or(0, f)
}

/// An ms10–ms13 mesh after its magic.
#[binrw]
#[brw(little, import(v: MeshVersion))]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ClassicMesh {
    /// Bounds of the whole mesh.
    pub bounds: Bounds,
    #[br(temp, args("bones"))]
    #[bw(try_calc = Count::of(bones.len(), "bones"))]
    bone_count: Count,
    /// The skeleton.
    #[br(parse_with = records, args(bone_count, 3, "bones", ()))]
    pub bones: Vec<Bone>,
    #[br(temp, if(v.embeds_animations()), args("animations"))]
    #[bw(if(v.embeds_animations()), try_calc = Count::of(animation_names.len(), "animations"))]
    animation_count: Count,
    /// Names of the embedded animations (ms10–ms12; empty in later versions).
    #[br(if(v.embeds_animations()), parse_with = records, args(animation_count, 1, "animations", ()))]
    #[bw(if(v.embeds_animations()))]
    pub animation_names: Vec<UString>,
    #[br(temp, args("surfaces"))]
    #[bw(try_calc = Count::of(surfaces.len(), "surfaces"))]
    surface_count: Count,
    /// Surface headers.
    #[br(parse_with = records, args(surface_count, 42, "surfaces", (v,)))]
    #[bw(args(v))]
    pub surfaces: Vec<SurfaceHeader>,
    #[br(temp, try_map = |m: [u8; 4]| super::cint::separator(m, v.magic()))]
    #[bw(calc = v.magic())]
    separator: [u8; 4],
    /// Bind pose: one transform per bone.
    #[br(count = bones.len() as u64)]
    pub bind_pose: Records<Transform>,
    /// Embedded animations (ms10–ms12), one per name in the header.
    #[br(if(v.embeds_animations()), parse_with = records, args(Count(animation_names.len() as u32), 1, "animations", ()))]
    #[bw(if(v.embeds_animations()))]
    pub animations: Vec<EmbeddedAnimation>,
    /// Geometry of each surface.
    #[br(parse_with = read_surface_data, args(v, &surfaces))]
    #[bw(write_with = write_surface_data, args(v, surfaces))]
    pub data: Vec<SurfaceData>,
    #[br(temp, try_map = |m: [u8; 4]| super::cint::separator(m, v.magic()))]
    #[bw(calc = v.magic())]
    end: [u8; 4],
}

fn read_surface_data<R: Read + Seek>(
    reader: &mut R,
    endian: Endian,
    (v, headers): (MeshVersion, &Vec<SurfaceHeader>),
) -> BinResult<Vec<SurfaceData>> {
    headers
        .iter()
        .map(|h| SurfaceData::read_options(reader, endian, (v, h.targets.len() as u32)))
        .collect()
}

fn write_surface_data<W: Write + Seek>(
    value: &Vec<SurfaceData>,
    writer: &mut W,
    endian: Endian,
    (v, headers): (MeshVersion, &Vec<SurfaceHeader>),
) -> BinResult<()> {
    if value.len() != headers.len() {
        return Err(inconsistent(format!(
            "{} surface headers but geometry for {} surfaces",
            headers.len(),
            value.len()
        )));
    }
    for (i, (h, d)) in headers.iter().zip(value).enumerate() {
        if h.targets.len() != d.targets.len() {
            return Err(inconsistent(format!(
                "surface {i}: the header names {} morph targets, the geometry has {}",
                h.targets.len(),
                d.targets.len()
            )));
        }
        d.write_options(
            writer,
            endian,
            (v, count_as::<u32>(h.targets.len(), "morph targets")?),
        )?;
    }
    Ok(())
}

impl ClassicMesh {
    /// Checks what the raw types cannot: that `version` can hold every part.
    pub(crate) fn check_fits(&self, v: MeshVersion) -> BinResult<()> {
        if !(v.embeds_animations() || self.animation_names.is_empty() && self.animations.is_empty())
        {
            return Err(inconsistent(format!("{v} cannot embed animations")));
        }
        if self.animation_names.len() != self.animations.len() {
            return Err(inconsistent(format!(
                "{} animation names but {} animations",
                self.animation_names.len(),
                self.animations.len()
            )));
        }
        if self.bind_pose.len() != self.bones.len() {
            return Err(inconsistent(format!(
                "{} bones but {} bind pose transforms",
                self.bones.len(),
                self.bind_pose.len()
            )));
        }
        if v < MeshVersion::Ms12
            && self
                .surfaces
                .iter()
                .any(|s| s.lightmap_channel != 0 || s.lightmap_resolution != 0)
        {
            return Err(inconsistent(format!("{v} has no lightmap settings")));
        }
        Ok(())
    }
}
