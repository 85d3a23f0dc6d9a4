//! UNIGINE `.mesh` version ms14: the raw, byte-exact layer (layout: `docs/unigine-ms14.md`,
//! worked out and checked on real files).
//!
//! ms14 moves the counts into the surface headers and packs each surface into two LZ4
//! blocks: the geometry ([`Ms14Geometry`], the ms13 arrays) and the edges plus spatial
//! tree ([`Ms14Tree`]). In file order: magic, leaf size, [`Bounds`], bones, surface
//! headers, an estimated memory size, magic, bind pose, the geometry blocks, magic, the
//! tree blocks, magic, the file offset of each geometry block, magic.
//!
//! The blocks are kept as read and decoded on demand, bounded by [`Limits`];
//! [`Lz4Block::compress`] re-compresses a payload with UNIGINE's own LZ4 settings. The offset table is derived
//! on write; on read it must point at the geometry blocks.
//!
//! This layer holds the bytes only: the spatial tree built from a surface and the
//! conversions between the ms10–ms13 layout and ms14 are `unigine::convert`'s, above it.

use std::io::{Read, Seek, Write};

use binrw::{binrw, BinRead, BinResult, BinWrite, Endian};
use serde::Serialize;

use super::cint::{records, CInt, Count, UString};
use super::mesh::{read_indices, write_indices, Bone, Bounds, SurfaceData, Transform, Weights};
use crate::error::{Error, ErrorKind, Limits, Result};
use crate::io::{
    count_as, inconsistent, invalid, pod_vec, pod_write, read_all, read_all_from, write_all,
    Records,
};

mod counts;
pub use counts::{GeometryCounts, TreeCounts};

/// The magic, also the section separator.
pub const MAGIC: [u8; 4] = *b"ms14";

/// A morph target in a surface header: name and vertex (position) count.
#[binrw]
#[brw(little)]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Ms14Target {
    /// Name (target 0, the base shape, is usually unnamed).
    pub name: UString,
    /// Number of positions in this target's geometry.
    #[br(map = |c: Count| c.0)]
    #[bw(try_map = |n: &u32| Count::of(*n as usize, "target vertices"))]
    pub vertex_count: u32,
}

/// A surface header of ms14: the ms13 header plus the counts of its geometry.
#[binrw]
#[brw(little)]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Ms14SurfaceHeader {
    /// Name.
    pub name: UString,
    /// UV channel of the lightmap.
    pub lightmap_channel: u8,
    /// Lightmap resolution.
    pub lightmap_resolution: u8,
    /// Number of coordinate indices (three per triangle).
    #[br(map = |c: Count| c.0)]
    #[bw(try_map = |n: &u32| Count::of(*n as usize, "coordinate indices"))]
    pub coordinate_index_count: u32,
    /// Number of triangle indices (three per triangle).
    #[br(map = |c: Count| c.0)]
    #[bw(try_map = |n: &u32| Count::of(*n as usize, "triangle indices"))]
    pub triangle_index_count: u32,
    /// Bounds of the surface.
    pub bounds: Bounds,
    #[br(temp, args("morph targets"))]
    #[bw(try_calc = Count::of(targets.len(), "morph targets"))]
    target_count: Count,
    /// Morph targets.
    #[br(parse_with = records, args(target_count, 2, "morph targets", ()))]
    pub targets: Vec<Ms14Target>,
}

/// An LZ4 block: `u64 size; u64 csize; data`, a raw LZ4 block, or the bytes themselves
/// when `csize == size`.
#[binrw]
#[brw(little)]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Lz4Block {
    /// Size of the decompressed data.
    pub size: u64,
    #[br(temp)]
    #[bw(try_calc = count_as::<u64>(data.len(), "LZ4 block bytes"))]
    csize: u64,
    /// The stored bytes.
    #[br(count = csize)]
    #[serde(serialize_with = "byte_count")]
    pub data: Records<u8>,
}

fn byte_count<S: serde::Serializer>(v: &[u8], s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(&format!("{} bytes", v.len()))
}

/// LZ4 cannot expand data by more than this factor (a 1-byte token can stand for at
/// most 255 + 15 + 4 bytes; 255 per byte is a safe bound for whole blocks).
const LZ4_MAX_RATIO: u64 = 255;

impl Lz4Block {
    /// The decompressed data, bounded by `limits` and by what LZ4 can expand to.
    pub fn decompress(&self, limits: &Limits) -> Result<Vec<u8>> {
        if self.is_stored() {
            return Ok(self.data.clone().into());
        }
        self.check_size(limits)?;
        let mut out = Vec::new();
        out.try_reserve_exact(self.size as usize).map_err(|_| {
            Error::new(
                "LZ4 block",
                ErrorKind::LimitExceeded {
                    what: "decompressed LZ4 block (allocation failed)",
                    requested: self.size,
                    limit: 0,
                },
            )
        })?;
        out.resize(self.size as usize, 0);
        match lz4_flex::block::decompress_into(&self.data, &mut out) {
            Ok(n) if n as u64 == self.size => Ok(out),
            Ok(n) => Err(Error::new(
                "LZ4 block",
                ErrorKind::Invalid(format!(
                    "decompresses to {n} bytes, the header says {}",
                    self.size
                )),
            )),
            Err(e) => Err(Error::new("LZ4 block", ErrorKind::Invalid(e.to_string()))),
        }
    }

    /// The decompressed data as a stream ([`crate::codec::lz4::Decoder`]; a stored block is
    /// read as it is), after the same checks as [`Lz4Block::decompress`], which it
    /// accepts and refuses alike: a payload can be walked without holding it.
    pub fn reader(&self, limits: &Limits) -> Result<BlockReader<'_>> {
        if self.is_stored() {
            return Ok(BlockReader::Stored(std::io::Cursor::new(&self.data)));
        }
        self.check_size(limits)?;
        Ok(BlockReader::Packed(crate::codec::lz4::Decoder::new(
            &self.data, self.size,
        )))
    }

    /// A block whose stored size equals its decoded size holds the bytes themselves.
    fn is_stored(&self) -> bool {
        self.size == self.data.len() as u64
    }

    /// Checks the size the header claims against `limits` and against what LZ4 can
    /// expand the stored bytes to, then that the block's own sequences add up to it
    /// (walking them in constant memory): memory follows the data, not the claim.
    fn check_size(&self, limits: &Limits) -> Result<()> {
        let stored = self.data.len() as u64;
        let bound = stored.saturating_mul(LZ4_MAX_RATIO).saturating_add(64);
        if self.size > limits.max_decoded_bytes || self.size > bound {
            return Err(Error::new(
                "LZ4 block",
                ErrorKind::LimitExceeded {
                    what: "decompressed LZ4 block",
                    requested: self.size,
                    limit: limits.max_decoded_bytes.min(bound),
                },
            ));
        }
        match crate::codec::lz4::decoded_len(&self.data) {
            Some(n) if n == self.size => Ok(()),
            Some(n) => Err(Error::new(
                "LZ4 block",
                ErrorKind::Invalid(format!(
                    "decompresses to {n} bytes, the header says {}",
                    self.size
                )),
            )),
            None => Err(Error::new(
                "LZ4 block",
                ErrorKind::Invalid(
                    "not a valid LZ4 block (a length, literal run or offset goes past \
                     its data)"
                        .into(),
                ),
            )),
        }
    }

    /// `data` compressed as UNIGINE compresses it ([`crate::codec::lz4::compress`]): for a
    /// payload decoded from a real file, the stored block again. Data that does not
    /// shrink is stored as it is (a block the size of its data reads as stored).
    pub fn compress(data: &[u8]) -> Lz4Block {
        let packed = crate::codec::lz4::compress(data);
        if packed.len() >= data.len() {
            return Lz4Block::stored(data.to_vec());
        }
        Lz4Block {
            size: data.len() as u64,
            data: packed.into(),
        }
    }

    /// A block holding `data` uncompressed (`csize == size`), which UNIGINE's reader
    /// accepts as stored.
    pub fn stored(data: Vec<u8>) -> Lz4Block {
        Lz4Block {
            size: data.len() as u64,
            data: data.into(),
        }
    }
}

/// The decoded bytes of an [`Lz4Block`] as a stream ([`Lz4Block::reader`]).
#[derive(Debug)]
pub enum BlockReader<'a> {
    /// A stored block: its bytes.
    Stored(std::io::Cursor<&'a Records<u8>>),
    /// An LZ4 block, decoded as it is read.
    Packed(crate::codec::lz4::Decoder<'a>),
}

impl Read for BlockReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            BlockReader::Stored(c) => c.read(buf),
            BlockReader::Packed(d) => d.read(buf),
        }
    }
}

impl Seek for BlockReader<'_> {
    fn seek(&mut self, to: std::io::SeekFrom) -> std::io::Result<u64> {
        match self {
            BlockReader::Stored(c) => c.seek(to),
            BlockReader::Packed(d) => d.seek(to),
        }
    }

    fn stream_position(&mut self) -> std::io::Result<u64> {
        match self {
            BlockReader::Stored(c) => c.stream_position(),
            BlockReader::Packed(d) => d.stream_position(),
        }
    }
}

/// The two LZ4 blocks of each surface, with the separators and the offset table.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Ms14Blocks {
    /// Per surface, the geometry ([`Ms14Geometry`]).
    pub geometry: Vec<Lz4Block>,
    /// Per surface, the edges and spatial tree ([`Ms14Tree`]).
    pub trees: Vec<Lz4Block>,
}

/// Offset of the body within the file (after the 4-byte magic).
const BODY_OFFSET: u64 = 4;

// Hand-written: the offset table after the blocks holds the file offsets at which the
// geometry blocks were read (or written), which the codec must record as it goes.
impl BinRead for Ms14Blocks {
    type Args<'a> = (usize,);

    fn read_options<R: Read + Seek>(
        reader: &mut R,
        endian: Endian,
        (surfaces,): (usize,),
    ) -> BinResult<Self> {
        let n = Count(count_as::<u32>(surfaces, "surfaces")?);
        let mut starts = Vec::new();
        let mut geometry = Vec::new();
        for _ in 0..surfaces {
            starts.push(reader.stream_position()? + BODY_OFFSET);
            geometry.push(Lz4Block::read_options(reader, endian, ())?);
        }
        let sep = |r: &mut R| -> BinResult<()> {
            let pos = r.stream_position()?;
            super::cint::separator(<[u8; 4]>::read_options(r, endian, ())?, MAGIC)
                .map(drop)
                .map_err(|e| invalid(pos, e.0))
        };
        sep(reader)?;
        let trees = records(reader, endian, (n, 16, "tree blocks", ()))?;
        sep(reader)?;
        for (i, start) in starts.iter().enumerate() {
            let pos = reader.stream_position()?;
            let offset = i64::read_options(reader, endian, ())?;
            if u64::try_from(offset).ok() != Some(*start) {
                return Err(invalid(
                    pos,
                    format!(
                        "offset table entry {i} is {offset}, but the geometry block of \
                         surface {i} starts at {start}"
                    ),
                ));
            }
        }
        sep(reader)?;
        Ok(Ms14Blocks { geometry, trees })
    }
}

impl BinWrite for Ms14Blocks {
    type Args<'a> = (usize,);

    fn write_options<W: Write + Seek>(
        &self,
        writer: &mut W,
        endian: Endian,
        (surfaces,): (usize,),
    ) -> BinResult<()> {
        if self.geometry.len() != surfaces || self.trees.len() != surfaces {
            return Err(inconsistent(format!(
                "{surfaces} surfaces, {} geometry blocks, {} tree blocks",
                self.geometry.len(),
                self.trees.len()
            )));
        }
        // The writer holds the whole file (magic included), the reader only the body.
        let mut starts = Vec::with_capacity(surfaces);
        for g in &self.geometry {
            starts.push(writer.stream_position()?);
            g.write_options(writer, endian, ())?;
        }
        MAGIC.write_options(writer, endian, ())?;
        self.trees.write_options(writer, endian, ())?;
        MAGIC.write_options(writer, endian, ())?;
        for s in starts {
            count_as::<i64>(s as usize, "file offset")?.write_options(writer, endian, ())?;
        }
        MAGIC.write_options(writer, endian, ())
    }
}

/// An ms14 mesh after its magic.
#[binrw]
#[brw(little)]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Ms14Mesh {
    /// Spatial tree leaf size (4 in real files: leaves hold fewer triangles).
    pub tree_leaf_triangles: CInt,
    /// Bounds of the whole mesh.
    pub bounds: Bounds,
    #[br(temp, args("bones"))]
    #[bw(try_calc = Count::of(bones.len(), "bones"))]
    bone_count: Count,
    /// The skeleton.
    #[br(parse_with = records, args(bone_count, 3, "bones", ()))]
    pub bones: Vec<Bone>,
    #[br(temp, args("surfaces"))]
    #[bw(try_calc = Count::of(surfaces.len(), "surfaces"))]
    surface_count: Count,
    /// Surface headers.
    #[br(parse_with = records, args(surface_count, 46, "surfaces", ()))]
    pub surfaces: Vec<Ms14SurfaceHeader>,
    /// UNIGINE's estimate of the memory the mesh takes, in bytes (formula unknown: kept).
    pub memory_estimate: i64,
    #[br(temp, try_map = |m: [u8; 4]| super::cint::separator(m, MAGIC))]
    #[bw(calc = MAGIC)]
    separator: [u8; 4],
    /// Bind pose: one transform per bone.
    #[br(count = bones.len() as u64)]
    pub bind_pose: Records<Transform>,
    /// The compressed geometry and trees.
    #[br(args(surfaces.len()))]
    #[bw(args(surfaces.len()))]
    pub blocks: Ms14Blocks,
}

/// One morph target's geometry inside an ms14 geometry block.
#[binrw]
#[brw(little, import(vertices: u32))]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Ms14TargetData {
    /// Positions (as many as the header's vertex count).
    #[br(count = u64::from(vertices))]
    pub positions: Records<[f32; 3]>,
    #[br(temp, args("tangents"))]
    #[bw(try_calc = Count::of(tangents.len(), "tangents"))]
    tangent_count: Count,
    /// Tangent frames as unit quaternions x, y, z, w × 32767.
    #[br(count = tangent_count.get())]
    pub tangents: Records<[i16; 4]>,
}

/// The decompressed geometry block of a surface: the ms13 arrays, with the position and
/// index counts in the surface header.
#[binrw]
#[brw(little, import(vertex_counts: Vec<u32>, ci: u32, ti: u32))]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Ms14Geometry {
    /// Per morph target.
    #[br(parse_with = read_targets, args(vertex_counts.clone()))]
    #[bw(write_with = write_targets, args(vertex_counts.clone()))]
    pub targets: Vec<Ms14TargetData>,
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
    #[br(parse_with = read_indices, args(Some(ci), base(&targets, |t| t.positions.len()), "coordinate indices"))]
    #[bw(write_with = write_indices, args(Some(ci), base(targets, |t| t.positions.len()), "coordinate indices"))]
    pub coordinate_indices: Vec<u32>,
    /// Per triangle corner, the index of its triangle vertex (tangent, UVs).
    #[br(parse_with = read_indices, args(Some(ti), base(&targets, |t| t.tangents.len()), "triangle indices"))]
    #[bw(write_with = write_indices, args(Some(ti), base(targets, |t| t.tangents.len()), "triangle indices"))]
    pub triangle_indices: Vec<u32>,
}

fn base(targets: &[Ms14TargetData], f: impl Fn(&Ms14TargetData) -> usize) -> usize {
    targets.first().map_or(0, f)
}

fn read_targets<R: Read + Seek>(
    reader: &mut R,
    endian: Endian,
    (counts,): (Vec<u32>,),
) -> BinResult<Vec<Ms14TargetData>> {
    counts
        .into_iter()
        .map(|n| Ms14TargetData::read_options(reader, endian, (n,)))
        .collect()
}

#[allow(clippy::ptr_arg)] // binrw hands over the field as declared
fn write_targets<W: Write + Seek>(
    value: &Vec<Ms14TargetData>,
    writer: &mut W,
    endian: Endian,
    (counts,): (Vec<u32>,),
) -> BinResult<()> {
    if value.len() != counts.len() {
        return Err(inconsistent(format!(
            "the header names {} morph targets, the geometry has {}",
            counts.len(),
            value.len()
        )));
    }
    for (t, n) in value.iter().zip(counts) {
        if t.positions.len() != n as usize {
            return Err(inconsistent(format!(
                "the header says {n} vertices, the geometry has {}",
                t.positions.len()
            )));
        }
        t.write_options(writer, endian, (n,))?;
    }
    Ok(())
}

/// A node of the spatial tree (pre-order; a leaf has `left = right = −1` and covers
/// `triangle_refs[start..end]`).
#[binrw]
#[brw(little)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct TreeNode {
    /// Split axis (0, 1, 2; 0 in leaves).
    pub axis: u8,
    /// Index of the left child, −1 in a leaf.
    pub left: CInt,
    /// Index of the right child, −1 in a leaf.
    pub right: CInt,
    /// First triangle reference of a leaf.
    pub start: CInt,
    /// End of a leaf's triangle references.
    pub end: CInt,
}

/// The decompressed edges + spatial tree block of a surface.
#[binrw]
#[brw(little)]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Ms14Tree {
    #[br(temp, args("edge flags"))]
    #[bw(try_calc = Count::of(edge_flags.len(), "edge flags"))]
    edge_flag_count: Count,
    /// Per triangle, bit `b` set when the edge opposite corner `b` is a feature edge
    /// (its neighbour is not coplanar).
    #[br(count = edge_flag_count.get())]
    pub edge_flags: Records<u8>,
    #[br(temp, args("triangle references"))]
    #[bw(try_calc = Count::of(triangle_refs.len(), "triangle references"))]
    ref_count: Count,
    /// Triangles in tree-leaf order, each as 3 × its number (its first index).
    #[br(parse_with = records, args(ref_count, 1, "triangle references", ()))]
    pub triangle_refs: Vec<CInt>,
    #[br(temp, args("tree nodes"))]
    #[bw(try_calc = Count::of(nodes.len(), "tree nodes"))]
    node_count: Count,
    /// The nodes, root first.
    #[br(parse_with = records, args(node_count, 5, "tree nodes", ()))]
    pub nodes: Vec<TreeNode>,
    /// Per node, its bounding box: min x, y, z, max x, y, z.
    #[br(parse_with = pod_vec, args(nodes.len() as u64, "tree node boxes"))]
    #[bw(write_with = write_per_node, args(nodes.len(), "tree node boxes"))]
    pub node_bounds: Vec<[f32; 6]>,
    /// Per node, the split position on its axis (0 in leaves).
    #[br(parse_with = pod_vec, args(nodes.len() as u64, "tree node splits"))]
    #[bw(write_with = write_per_node, args(nodes.len(), "tree node splits"))]
    pub splits: Vec<f32>,
}

#[allow(clippy::ptr_arg)] // binrw hands over the field as declared
fn write_per_node<T: crate::PlainRecord, W: Write + Seek>(
    value: &Vec<T>,
    writer: &mut W,
    endian: Endian,
    (nodes, what): (usize, &'static str),
) -> BinResult<()> {
    if value.len() != nodes {
        return Err(inconsistent(format!(
            "{} {what} for {nodes} tree nodes",
            value.len()
        )));
    }
    pod_write(value, writer, endian, ())
}

impl Ms14Mesh {
    /// The geometry of surface `i`, decompressed and parsed.
    pub fn geometry(&self, i: usize, limits: &Limits) -> Result<Ms14Geometry> {
        let (h, block) = self.surface(i, &self.blocks.geometry)?;
        h.parse_geometry(block, i, limits)
    }

    /// [`Ms14Mesh::geometry`] of every surface, taking the mesh: each compressed block is
    /// dropped once it is decompressed, and its bytes once they are parsed, so a big
    /// mesh's blocks, their bytes and the arrays are never all held at once. The
    /// spatial trees are dropped unread. Also the header fields besides.
    pub(crate) fn into_geometry(
        mut self,
        limits: &Limits,
    ) -> Result<(Ms14Mesh, Vec<Ms14Geometry>)> {
        let blocks = std::mem::take(&mut self.blocks.geometry);
        drop(std::mem::take(&mut self.blocks.trees));
        let mut blocks = blocks.into_iter();
        let mut out = Vec::with_capacity(self.surfaces.len());
        for (i, h) in self.surfaces.iter().enumerate() {
            let block = blocks.next().ok_or_else(|| self.no_surface(i))?;
            out.push(h.parse_geometry(block, i, limits)?);
        }
        Ok((self, out))
    }

    /// The edges and spatial tree of surface `i`, decompressed and parsed.
    pub fn tree(&self, i: usize, limits: &Limits) -> Result<Ms14Tree> {
        let (_, block) = self.surface(i, &self.blocks.trees)?;
        let bytes = block.decompress(limits)?;
        read_all(&bytes, limits, ())
            .map_err(|e| e.within(&format!("surface {i} tree (decompressed)")))
    }

    /// [`GeometryCounts`] of surface `i`: its geometry block walked as a stream, with
    /// the checks and errors of [`Ms14Mesh::geometry`], holding neither the payload nor
    /// its arrays.
    pub fn geometry_counts(&self, i: usize, limits: &Limits) -> Result<GeometryCounts> {
        let (h, block) = self.surface(i, &self.blocks.geometry)?;
        read_all_from(block.reader(limits)?, limits, h.payload_args())
            .map_err(|e| e.within(&format!("surface {i} geometry (decompressed)")))
    }

    /// [`TreeCounts`] of surface `i`: its tree block walked as a stream, with the checks
    /// and errors of [`Ms14Mesh::tree`].
    pub fn tree_counts(&self, i: usize, limits: &Limits) -> Result<TreeCounts> {
        let (_, block) = self.surface(i, &self.blocks.trees)?;
        read_all_from(block.reader(limits)?, limits, ())
            .map_err(|e| e.within(&format!("surface {i} tree (decompressed)")))
    }

    fn surface<'a>(
        &'a self,
        i: usize,
        blocks: &'a [Lz4Block],
    ) -> Result<(&'a Ms14SurfaceHeader, &'a Lz4Block)> {
        self.surfaces
            .get(i)
            .zip(blocks.get(i))
            .ok_or_else(|| self.no_surface(i))
    }

    fn no_surface(&self, i: usize) -> Error {
        Error::new(
            "ms14",
            ErrorKind::Invalid(format!("no surface {i} (of {})", self.surfaces.len())),
        )
    }

    /// The arguments a geometry payload of surface `i` is written with: its targets'
    /// vertex counts and its index counts, from the surface header.
    fn payload_args(&self, i: usize) -> Result<(Vec<u32>, u32, u32)> {
        let h = self.surfaces.get(i).ok_or_else(|| self.no_surface(i))?;
        Ok(h.payload_args())
    }

    /// Serialises a geometry payload for surface `i` (uncompressed bytes, ready to be
    /// stored in an [`Lz4Block`]), checking it against the surface header's counts.
    pub fn geometry_bytes(&self, i: usize, g: &Ms14Geometry) -> Result<Vec<u8>> {
        write_all(&[], g, g.size_bound(), self.payload_args(i)?)
    }
}

impl Ms14Geometry {
    /// At least the size of the serialised payload: the buffer it is written into is
    /// allocated once, not grown.
    fn size_bound(&self) -> usize {
        size_bound(
            self.targets
                .iter()
                .map(|t| (t.positions.len(), t.tangents.len())),
            &self.weights,
            self.uv0.len() + self.uv1.len(),
            self.colors.len(),
            self.coordinate_indices.len() + self.triangle_indices.len(),
        )
    }
}

impl Ms14Tree {
    /// The serialised payload, as its `BinWrite` writes it, encoded straight into one
    /// buffer (a tree block holds millions of compact ints; going through the writer
    /// one at a time took longer than building the tree).
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let count = |n: usize, what: &str| {
            Count::of(n, what)
                .map(|c| CInt(c.0 as i32))
                .map_err(|e| crate::error::from_binrw(e, None))
        };
        let nodes = self.nodes.len();
        for (len, what) in [
            (self.node_bounds.len(), "tree node boxes"),
            (self.splits.len(), "tree node splits"),
        ] {
            if len != nodes {
                return Err(crate::error::from_binrw(
                    inconsistent(format!("{len} {what} for {nodes} tree nodes")),
                    None,
                ));
            }
        }
        let mut out = Vec::with_capacity(
            self.edge_flags.len() + 5 * self.triangle_refs.len() + 45 * nodes + 15,
        );
        let int = |out: &mut Vec<u8>, c: CInt| {
            let (buf, len) = c.encode_array();
            out.extend_from_slice(buf.get(..len).unwrap_or_default());
        };
        int(&mut out, count(self.edge_flags.len(), "edge flags")?);
        out.extend_from_slice(&self.edge_flags);
        int(
            &mut out,
            count(self.triangle_refs.len(), "triangle references")?,
        );
        for &r in &self.triangle_refs {
            int(&mut out, r);
        }
        int(&mut out, count(nodes, "tree nodes")?);
        for n in &self.nodes {
            out.push(n.axis);
            for c in [n.left, n.right, n.start, n.end] {
                int(&mut out, c);
            }
        }
        for b in &self.node_bounds {
            for x in b {
                out.extend_from_slice(&x.to_le_bytes());
            }
        }
        for x in &self.splits {
            out.extend_from_slice(&x.to_le_bytes());
        }
        Ok(out)
    }
}

impl Ms14Mesh {
    /// The geometry payload of surface `i` from its data in the ms10–ms13 layout, written
    /// straight from `d`: the bytes [`Ms14Mesh::geometry_bytes`] gives for
    /// `Ms14Geometry::from(d.clone())`, without the copy.
    pub fn surface_geometry_bytes(&self, i: usize, d: &SurfaceData) -> Result<Vec<u8>> {
        let h = self.surfaces.get(i).ok_or_else(|| self.no_surface(i))?;
        h.geometry_payload(d)
    }
}

/// Appends the payload `buf[front..]` to the file `out` as an LZ4 block
/// ([`Lz4Block::compress`]: the same size fields and bytes). The payload is compressed
/// in its own buffer ([`lz4::compress_in_place`](crate::codec::lz4::compress_in_place)), so it
/// and its block are never held at once; when the block is not smaller (the payload is
/// then stored as it is), the payload is decompressed back from it. When the block is
/// larger than the file so far (a mesh with one large surface), the file so far is put
/// in front of the block, in the block's buffer, rather than the block copied after it:
/// the block is then never held twice. `tail` is what the caller appends after this
/// block, reserved with it.
pub(crate) fn append_block(
    out: &mut Vec<u8>,
    buf: Vec<u8>,
    front: usize,
    tail: usize,
) -> Result<()> {
    let n = buf.len() - front;
    let size = n as u64;
    let packed = crate::codec::lz4::compress_in_place(buf, front);
    let data = if packed.len() >= n {
        // Not smaller: stored uncompressed, as Lz4Block::compress does; the block was
        // just made from the payload, so it decodes to it.
        lz4_flex::block::decompress(&packed, n).map_err(|e| {
            Error::new(
                "ms14",
                ErrorKind::Inconsistent(format!("an LZ4 block just written: {e}")),
            )
        })?
    } else {
        packed
    };
    let mut sizes = [0u8; 16];
    let (a, b) = sizes.split_at_mut(8);
    a.copy_from_slice(&size.to_le_bytes());
    b.copy_from_slice(&(data.len() as u64).to_le_bytes());
    if out.len() < data.len() {
        let mut data = data;
        data.reserve_exact(out.len() + sizes.len() + tail);
        data.splice(0..0, out.iter().copied().chain(sizes));
        *out = data;
    } else {
        out.reserve(sizes.len() + data.len() + tail);
        out.extend_from_slice(&sizes);
        out.extend_from_slice(&data);
    }
    Ok(())
}

/// At least the size of a geometry payload whose targets have these numbers of
/// positions and tangents (each count as 5 bytes, each index as 4), so the buffer it is
/// written into is allocated once.
fn size_bound(
    targets: impl Iterator<Item = (usize, usize)>,
    weights: &Weights,
    uvs: usize,
    colors: usize,
    indices: usize,
) -> usize {
    targets
        .map(|(positions, tangents)| 12 * positions + 8 * tangents + 5)
        .sum::<usize>()
        + weights.counts.len()
        + std::mem::size_of::<super::mesh::BoneWeight>() * weights.entries.len()
        + 8 * uvs
        + 4 * colors
        + 4 * indices
        + 64
}

/// A surface in the ms10–ms13 layout written as an ms14 geometry payload: field for
/// field what [`Ms14Geometry`]'s `BinWrite` writes for the same arrays (same checks,
/// same writers), from borrowed data.
struct GeometryOf<'a> {
    data: &'a SurfaceData,
    /// The triangle indices: `data`'s own, or its coordinate indices when they are
    /// the same ([`Ms14Mesh::write_classic`] holds them once).
    triangle_indices: &'a Vec<u32>,
}

impl BinWrite for GeometryOf<'_> {
    type Args<'a> = (Vec<u32>, u32, u32);

    fn write_options<W: Write + Seek>(
        &self,
        writer: &mut W,
        endian: Endian,
        (counts, ci, ti): (Vec<u32>, u32, u32),
    ) -> BinResult<()> {
        let d = self.data;
        if d.targets.len() != counts.len() {
            return Err(inconsistent(format!(
                "the header names {} morph targets, the geometry has {}",
                counts.len(),
                d.targets.len()
            )));
        }
        for (t, n) in d.targets.iter().zip(counts) {
            if t.positions.len() != n as usize {
                return Err(inconsistent(format!(
                    "the header says {n} vertices, the geometry has {}",
                    t.positions.len()
                )));
            }
            pod_write(t.positions.as_slice(), writer, endian, ())?;
            Count::of(t.tangents.len(), "tangents")?.write_options(writer, endian, ())?;
            pod_write(t.tangents.as_slice(), writer, endian, ())?;
        }
        d.weights.write_options(writer, endian, ())?;
        for (uvs, what) in [(&d.uv0, "first UV set"), (&d.uv1, "second UV set")] {
            Count::of(uvs.len(), what)?.write_options(writer, endian, ())?;
            pod_write(uvs.as_slice(), writer, endian, ())?;
        }
        Count::of(d.colors.len(), "colours")?.write_options(writer, endian, ())?;
        pod_write(d.colors.as_slice(), writer, endian, ())?;
        let first = d.targets.first();
        write_indices(
            &d.coordinate_indices,
            writer,
            endian,
            (
                Some(ci),
                first.map_or(0, |t| t.positions.len()),
                "coordinate indices",
            ),
        )?;
        write_indices(
            self.triangle_indices,
            writer,
            endian,
            (
                Some(ti),
                first.map_or(0, |t| t.tangents.len()),
                "triangle indices",
            ),
        )
    }
}

impl Ms14SurfaceHeader {
    /// The geometry payload of this surface (number `i`), decompressed from `block` and
    /// parsed with this header's counts; the decompressed bytes are dropped once parsed.
    fn parse_geometry(
        &self,
        block: impl std::borrow::Borrow<Lz4Block>,
        i: usize,
        limits: &Limits,
    ) -> Result<Ms14Geometry> {
        let bytes = block.borrow().decompress(limits)?;
        drop(block);
        let counts = self.targets.iter().map(|t| t.vertex_count).collect();
        read_all(
            &bytes,
            limits,
            (
                counts,
                self.coordinate_index_count,
                self.triangle_index_count,
            ),
        )
        .map_err(|e| e.within(&format!("surface {i} geometry (decompressed)")))
    }

    /// The arguments a geometry payload of this surface is written with: its targets'
    /// vertex counts and its index counts.
    fn payload_args(&self) -> (Vec<u32>, u32, u32) {
        let counts = self.targets.iter().map(|t| t.vertex_count).collect();
        (
            counts,
            self.coordinate_index_count,
            self.triangle_index_count,
        )
    }

    /// The geometry payload of this surface from its data in the ms10–ms13 layout,
    /// written straight from `d` (see [`Ms14Mesh::surface_geometry_bytes`]).
    fn geometry_payload(&self, d: &SurfaceData) -> Result<Vec<u8>> {
        Ok(self.geometry_payload_with(d, &d.triangle_indices, false)?.0)
    }

    /// [`Ms14SurfaceHeader::geometry_payload`] with these triangle indices in place of
    /// `d`'s.
    #[allow(clippy::ptr_arg)] // written by `write_indices`, which binrw hands a `&Vec`
    ///
    /// With `room`, the payload is written after room for compressing it in place
    /// ([`lz4::in_place_margin`](crate::codec::lz4::in_place_margin) of its largest size), and
    /// the returned offset is where it starts (0 without).
    pub(crate) fn geometry_payload_with(
        &self,
        d: &SurfaceData,
        triangle_indices: &Vec<u32>,
        room: bool,
    ) -> Result<(Vec<u8>, usize)> {
        let bound = size_bound(
            d.targets
                .iter()
                .map(|t| (t.positions.len(), t.tangents.len())),
            &d.weights,
            d.uv0.len() + d.uv1.len(),
            d.colors.len(),
            d.coordinate_indices.len() + triangle_indices.len(),
        );
        let g = GeometryOf {
            data: d,
            triangle_indices,
        };
        let front = if room {
            crate::codec::lz4::in_place_margin(bound)
        } else {
            0
        };
        let buf = write_all(&vec![0; front], &g, front + bound, self.payload_args())?;
        Ok((buf, front))
    }
}
