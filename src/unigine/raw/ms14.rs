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

use std::io::{Read, Seek, Write};

use binrw::{binrw, BinRead, BinResult, BinWrite, Endian};
use serde::Serialize;

use super::cint::{records, CInt, Count, UString};
use super::mesh::{
    read_indices, write_indices, Bone, Bounds, ClassicMesh, SurfaceData, SurfaceHeader, TargetData,
    Transform, Weights,
};
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

/// Leaf size of the spatial tree in real files: nodes with fewer triangles are leaves.
pub const TREE_LEAF_TRIANGLES: i32 = 4;

/// Two triangles whose unit normals have a dot product above this are coplanar: the edge
/// between them is not a feature edge. (Real files put the threshold between 0.9976 and
/// 0.9999997; this value reproduces every edge flag of both.)
pub const COPLANAR_COS: f64 = 0.99999;

/// The edges + spatial tree of one surface, built as UNIGINE builds it; for the real
/// ms14 files this gives their stored trees back exactly.
///
/// - **Edge flags**: bit `b` of triangle `t` is set unless the triangle across the edge
///   opposite corner `b` (sharing both positions) is coplanar ([`COPLANAR_COS`]).
/// - **Tree**: a node's box bounds its triangles' corners; a node with fewer than
///   `leaf` triangles (or whose triangles cannot be split) is a leaf. Otherwise the split
///   is the middle of the box on the axis whose partition "centroid < middle" is the most
///   even (ties to the lower axis), the left child holding the triangles below, in their
///   order, and the right the others. Nodes are stored in pre-order, leaves listing their
///   triangles as 3 × the triangle number.
///
/// Built without a `Vec` per node: one array of triangle numbers is partitioned in
/// place (stably, through one scratch buffer), so it ends in leaf order; each
/// triangle's box and centroid are computed once, side by side (the centroid kept as
/// `f32`, and computed again in `f64` where that is too coarse to tell its side:
/// `is_below`; 36 bytes a triangle, not 48, at what is the peak of a conversion to
/// ms14); the pass of a split that moves the triangles also grows each child's box
/// from its triangles' boxes, in triangle order
/// (`grow`: bit for bit the fold over the corners); the three candidate axes are
/// counted in one pass. Edge neighbours come from the list of triangles around each
/// position (a counting sort), not from sorting all sides.
#[allow(clippy::indexing_slicing)] // only fixed-size arrays, indexed by 0..3
pub fn build_tree(positions: &[[f32; 3]], coordinate_indices: &[u32], leaf: usize) -> Ms14Tree {
    // The edge flags first: their scratch arrays are gone before the tree's are made.
    let edge_flags = edge_flags(positions, coordinate_indices);
    // Per triangle, the box of its corners (a missing position reads as the origin) and
    // its centroid, computed once, side by side (one array, read together).
    let mut tris: Vec<Triangle> = Vec::with_capacity(coordinate_indices.len() / 3);
    for t in coordinate_indices.chunks_exact(3) {
        let [a, b, c] = corners(positions, t);
        let mut bb = EMPTY;
        for q in [a, b, c] {
            grow(&mut bb, &[q[0], q[1], q[2], q[0], q[1], q[2]]);
        }
        tris.push(Triangle {
            bb,
            centroid: [0, 1, 2].map(|x| centroid([a[x], b[x], c[x]]) as f32),
        });
    }
    let n = tris.len();
    // A centroid coordinate as a split compares it (`f64`), from the corners.
    let exact = |t: u32, a: usize| {
        let t = t as usize;
        coordinate_indices
            .get(3 * t..3 * t + 3)
            .map_or(0.0, |c| centroid(corners(positions, c).map(|q| q[a])))
    };
    let mut tree = Ms14Tree {
        edge_flags: edge_flags.into(),
        ..Ms14Tree::default()
    };
    let mut order: Vec<u32> = (0..n as u32).collect();
    let mut right: Vec<u32> = vec![0; n];
    let mut root = EMPTY;
    for t in &tris {
        grow(&mut root, &t.bb);
    }
    if n == 0 {
        root = [0.0; 6];
    }
    // Pre-order with an explicit stack (depth is bounded only by the data): a node is
    // `order[start..end]`, its box, and where its parent records it.
    struct Task {
        start: usize,
        end: usize,
        bb: [f32; 6],
        parent: Option<(usize, bool)>,
    }
    let mut stack = vec![Task {
        start: 0,
        end: n,
        bb: root,
        parent: None,
    }];
    while let Some(Task {
        start,
        end,
        bb,
        parent,
    }) = stack.pop()
    {
        let index = tree.nodes.len();
        if let Some((p, is_left)) = parent {
            if let Some(node) = tree.nodes.get_mut(p) {
                if is_left {
                    node.left = CInt(index as i32);
                } else {
                    node.right = CInt(index as i32);
                }
            }
        }
        tree.node_bounds.push(bb);
        let bb = bb.map(f64::from);
        let here = order.get(start..end).unwrap_or_default();
        let mut best: Option<(usize, usize, f64)> = None;
        if here.len() >= leaf {
            let mid = [0, 1, 2].map(|a| (bb[a] + bb[a + 3]) / 2.0);
            let mut below = [0usize; 3];
            let mut unsure = false;
            for &t in here {
                if let Some(x) = tris.get(t as usize) {
                    for a in 0..3 {
                        let (b, u) = side(x.centroid[a], mid[a]);
                        below[a] += usize::from(b);
                        unsure |= u;
                    }
                }
            }
            if unsure {
                // A centroid too near a middle for its f32 value to tell: counted again,
                // those from their corners.
                below = [0; 3];
                for &t in here {
                    if let Some(x) = tris.get(t as usize) {
                        for a in 0..3 {
                            below[a] +=
                                usize::from(is_below(x.centroid[a], mid[a], || exact(t, a)));
                        }
                    }
                }
            }
            for a in 0..3 {
                let left = below[a];
                let score = left.abs_diff(here.len() - left);
                if left > 0 && left < here.len() && best.is_none_or(|(s, _, _)| score < s) {
                    best = Some((score, a, mid[a]));
                }
            }
        }
        match best {
            None => {
                let first = tree.triangle_refs.len() as i32;
                tree.triangle_refs
                    .extend(here.iter().map(|&t| CInt(3 * t as i32)));
                tree.nodes.push(TreeNode {
                    axis: 0,
                    left: CInt(-1),
                    right: CInt(-1),
                    start: CInt(first),
                    end: CInt(tree.triangle_refs.len() as i32),
                });
                tree.splits.push(0.0);
            }
            Some((_, a, mid)) => {
                // Stable partition: the triangles below go to the front in order, the
                // others through `right` to the back in order. Without branches (which
                // side a triangle falls on is often unpredictable): each triangle is
                // written to both places and one cursor moves, and each child's box grows
                // by the triangle's box or by the empty box, which changes nothing.
                let (mut lbb, mut rbb) = (Grow::EMPTY, Grow::EMPTY);
                let (mut w, mut r) = (start, 0);
                for i in start..end {
                    let Some(&t) = order.get(i) else { break };
                    let x = tris.get(t as usize);
                    let below = x.is_some_and(|x| is_below(x.centroid[a], mid, || exact(t, a)));
                    if let Some(slot) = order.get_mut(w) {
                        *slot = t;
                    }
                    if let Some(slot) = right.get_mut(r) {
                        *slot = t;
                    }
                    w += usize::from(below);
                    r += usize::from(!below);
                    let b = x.map_or(&EMPTY, |x| &x.bb);
                    lbb.add(std::hint::select_unpredictable(below, b, &EMPTY));
                    rbb.add(std::hint::select_unpredictable(below, &EMPTY, b));
                }
                if let (Some(back), Some(moved)) = (order.get_mut(w..end), right.get(..r)) {
                    back.copy_from_slice(moved);
                }
                tree.nodes.push(TreeNode {
                    axis: a as u8,
                    ..TreeNode::default()
                });
                tree.splits.push(mid as f32);
                // Pre-order: the left subtree is built (popped) first.
                stack.push(Task {
                    start: w,
                    end,
                    bb: rbb.get(),
                    parent: Some((index, false)),
                });
                stack.push(Task {
                    start,
                    end: w,
                    bb: lbb.get(),
                    parent: Some((index, true)),
                });
            }
        }
    }
    tree
}

/// A triangle as [`build_tree`] splits it: the box of its corners and its centroid
/// (as `f32`, see [`is_below`]).
struct Triangle {
    bb: [f32; 6],
    centroid: [f32; 3],
}

/// The corners of the triangle whose coordinate indices are `t` (a missing position
/// reads as the origin).
#[inline(always)]
fn corners(positions: &[[f32; 3]], t: &[u32]) -> [[f32; 3]; 3] {
    [0, 1, 2].map(|k| {
        t.get(k)
            .and_then(|&i| positions.get(i as usize))
            .copied()
            .unwrap_or_default()
    })
}

/// A triangle's centroid on one axis, from its corners' coordinates, in `f64`: what a
/// split compares with its middle.
#[inline(always)]
fn centroid([a, b, c]: [f32; 3]) -> f64 {
    (f64::from(a) + f64::from(b) + f64::from(c)) / 3.0
}

/// Whether a centroid coordinate (in `f64`, as `exact` computes it) is below `mid`,
/// told from its value rounded to `f32`, `c32`. Rounding moves it by at most half an
/// `f32` step (at most |c32| × 2⁻²⁴, or 2⁻¹⁵⁰ below the normal range), so when `c32`
/// is farther than twice that from `mid` it is on the same side; otherwise (a centroid
/// at the middle, or not finite, or a middle that is NaN) it is computed again. The
/// answer is always the `f64` comparison's, and the centroids take half the memory.
#[inline(always)]
fn is_below(c32: f32, mid: f64, exact: impl Fn() -> f64) -> bool {
    match side(c32, mid) {
        (below, false) => below,
        (_, true) => exact() < mid,
    }
}

/// [`is_below`] without the exact value: whether `c32` is below `mid`, and whether
/// that may not be the exact centroid's side (then the side is to be found again).
/// Without branches.
#[inline(always)]
fn side(c32: f32, mid: f64) -> (bool, bool) {
    /// 2⁻²³: twice the largest rounding to `f32`, relative to the value.
    const STEP: f64 = 1.0 / 8_388_608.0;
    /// Above 2⁻¹⁴⁹ (the smallest `f32` step): twice the rounding below the normal range.
    const TINY: f64 = 1.5e-45;
    let c = f64::from(c32);
    let d = c - mid;
    // NaN anywhere leaves `sure` false.
    let sure = d.abs() > c.abs() * STEP + TINY;
    (d < 0.0, !sure)
}

/// A box that grows to anything: +∞ minima, −∞ maxima.
const EMPTY: [f32; 6] = [
    f32::INFINITY,
    f32::INFINITY,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::NEG_INFINITY,
    f32::NEG_INFINITY,
];

/// Grows box `bb` to hold box `b`. As `f64::min`/`max` compile on x86-64 (and as
/// UNIGINE's files show): NaN is ignored, and on a tie (+0 against −0) the box keeps
/// its value. That is associative, so growing by per-triangle boxes gives the same bits
/// as growing by each corner in turn; and min/max are exact, so folding in `f32` and
/// widening gives what folding the widened corners gives.
#[inline(always)]
#[allow(clippy::indexing_slicing)] // fixed-size arrays, constant indices
fn grow(bb: &mut [f32; 6], b: &[f32; 6]) {
    for a in 0..3 {
        if b[a] < bb[a] {
            bb[a] = b[a];
        }
        if b[a + 3] > bb[a + 3] {
            bb[a + 3] = b[a + 3];
        }
    }
}

/// A box being grown in a loop: minima and maxima as four lanes each (the last lane
/// repeats the third), so each side is one vector minimum or maximum. On x86-64,
/// `if x < m { x } else { m }` is exactly what `minps x, m` computes, NaN and ±0 ties
/// included, which is [`grow`]'s rule.
#[derive(Clone, Copy)]
struct Grow {
    lo: [f32; 4],
    hi: [f32; 4],
}

impl Grow {
    const EMPTY: Grow = Grow {
        lo: [f32::INFINITY; 4],
        hi: [f32::NEG_INFINITY; 4],
    };

    #[inline(always)]
    #[allow(clippy::indexing_slicing)] // fixed-size arrays, constant indices
    fn add(&mut self, b: &[f32; 6]) {
        let lo = [b[0], b[1], b[2], b[2]];
        let hi = [b[3], b[4], b[5], b[5]];
        for k in 0..4 {
            self.lo[k] = if lo[k] < self.lo[k] {
                lo[k]
            } else {
                self.lo[k]
            };
            self.hi[k] = if hi[k] > self.hi[k] {
                hi[k]
            } else {
                self.hi[k]
            };
        }
    }

    #[inline(always)]
    #[allow(clippy::indexing_slicing)] // fixed-size arrays, constant indices
    fn get(self) -> [f32; 6] {
        [
            self.lo[0], self.lo[1], self.lo[2], self.hi[0], self.hi[1], self.hi[2],
        ]
    }
}

/// The edge flags of [`build_tree`].
#[allow(clippy::indexing_slicing)] // only fixed-size [f64; 3], indexed by 0..3
fn edge_flags(positions: &[[f32; 3]], ci: &[u32]) -> Vec<u8> {
    let n = ci.len() / 3;
    let idx = |t: usize, k: usize| ci.get(3 * t + k).copied().unwrap_or(0);
    let normal = |t: usize| -> [f64; 3] {
        let p = |k| {
            positions
                .get(idx(t, k) as usize)
                .copied()
                .unwrap_or_default()
                .map(f64::from)
        };
        let (a, b, c) = (p(0), p(1), p(2));
        let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
        let v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
        let nn = [
            u[1] * v[2] - u[2] * v[1],
            u[2] * v[0] - u[0] * v[2],
            u[0] * v[1] - u[1] * v[0],
        ];
        let len = (nn[0] * nn[0] + nn[1] * nn[1] + nn[2] * nn[2]).sqrt();
        if len > 0.0 {
            nn.map(|x| x / len)
        } else {
            nn
        }
    };
    let normals: Vec<[f64; 3]> = (0..n).map(normal).collect();
    let mut flags = vec![0u8; n];
    // Side `b` of triangle `t` (opposite corner `b`) is a feature edge unless `o`, the
    // first other triangle with the same side, is coplanar.
    let mut mark = |t: usize, b: usize, o: Option<usize>| {
        let coplanar = o.is_some_and(|o| {
            let (x, y) = (normals.get(t), normals.get(o));
            x.zip(y)
                .is_some_and(|(x, y)| x[0] * y[0] + x[1] * y[1] + x[2] * y[2] > COPLANAR_COS)
        });
        if !coplanar {
            if let Some(f) = flags.get_mut(t) {
                *f |= 1 << b;
            }
        }
    };
    let key = |p: u32, q: u32| (u64::from(p.min(q)) << 32) | u64::from(p.max(q));
    let side_key = |t: usize, b: usize| key(idx(t, (b + 1) % 3), idx(t, (b + 2) % 3));
    let top = ci
        .get(..3 * n)
        .and_then(|c| c.iter().max())
        .map_or(0, |&m| m as usize);
    if n <= u32::MAX as usize && top <= ci.len() + positions.len() {
        // The triangles around each index (counting sort, so each list ascends): a
        // side's first other triangle is the first one around either end of it, the
        // end with fewer, that has the same side. No sort, no hashing.
        let mut first = vec![0usize; top + 2];
        for &i in ci.get(..3 * n).unwrap_or_default() {
            if let Some(c) = first.get_mut(i as usize + 2) {
                *c += 1;
            }
        }
        let mut sum = 0;
        for c in first.iter_mut().skip(2) {
            sum += *c;
            *c = sum;
        }
        // `first[i + 1]` counts up as index i's triangles are filled in; after, `first[i]`
        // to `first[i + 1]` is index i's list.
        let mut around = vec![0u32; 3 * n];
        for (k, &i) in ci.get(..3 * n).unwrap_or_default().iter().enumerate() {
            if let Some(c) = first.get_mut(i as usize + 1) {
                if let Some(slot) = around.get_mut(*c) {
                    *slot = (k / 3) as u32;
                }
                *c += 1;
            }
        }
        let list = |i: u32| {
            let i = i as usize;
            around
                .get(first.get(i).copied().unwrap_or(0)..first.get(i + 1).copied().unwrap_or(0))
                .unwrap_or_default()
        };
        for t in 0..n {
            for b in 0..3 {
                let (p, q) = (idx(t, (b + 1) % 3), idx(t, (b + 2) % 3));
                let want = key(p, q);
                let (lp, lq) = (list(p), list(q));
                let near = if lq.len() < lp.len() { lq } else { lp };
                let other = near
                    .iter()
                    .map(|&o| o as usize)
                    .find(|&o| o != t && (0..3).any(|c| side_key(o, c) == want));
                mark(t, b, other);
            }
        }
        return flags;
    }
    // Indices far beyond the positions: every (edge, triangle, corner), sorted by
    // edge; the triangles sharing an edge are neighbours, in triangle order.
    let mut sides: Vec<(u64, u32, u8)> = Vec::with_capacity(3 * n);
    for t in 0..n {
        for b in 0..3u8 {
            sides.push((side_key(t, usize::from(b)), t as u32, b));
        }
    }
    sides.sort_unstable();
    let mut start = 0;
    while start < sides.len() {
        let edge = sides[start].0;
        let end = start + sides[start..].iter().take_while(|s| s.0 == edge).count();
        let group = &sides[start..end];
        for &(_, t, b) in group {
            let other = group.iter().find(|s| s.1 != t).map(|s| s.1 as usize);
            mark(t as usize, usize::from(b), other);
        }
        start = end;
    }
    flags
}

impl Ms14Mesh {
    /// An ms14 mesh from the ms10–ms13 layout: counts in the headers, each surface's
    /// geometry and spatial tree built ([`build_tree`]) and LZ4-compressed with UNIGINE's
    /// settings. `memory_estimate` is UNIGINE's estimate of the memory the mesh takes; its
    /// formula is unknown, so without one the sum of the decompressed payload sizes is
    /// written. Embedded animations (which ms14 cannot hold) are left out.
    pub fn from_classic(c: ClassicMesh, memory_estimate: Option<i64>) -> Result<Ms14Mesh> {
        Ms14Mesh::from_classic_ref(&c, memory_estimate)
    }

    /// [`Ms14Mesh::from_classic`] from a borrowed mesh: the geometry is written straight
    /// from `c` ([`Ms14Mesh::surface_geometry_bytes`]), nothing but the skeleton copied.
    pub fn from_classic_ref(c: &ClassicMesh, memory_estimate: Option<i64>) -> Result<Ms14Mesh> {
        let mut m = Ms14Mesh {
            tree_leaf_triangles: CInt(TREE_LEAF_TRIANGLES),
            bounds: c.bounds,
            bones: c.bones.clone(),
            bind_pose: c.bind_pose.clone(),
            surfaces: c
                .surfaces
                .iter()
                .zip(&c.data)
                .map(|(h, d)| Ms14SurfaceHeader::for_surface(h, d))
                .collect::<Result<_>>()?,
            ..Ms14Mesh::default()
        };
        let mut total = 0u64;
        for (i, d) in c.data.iter().enumerate() {
            let tree = tree_payload(d)?;
            let geometry = m.surface_geometry_bytes(i, d)?;
            total += (geometry.len() + tree.len()) as u64;
            m.blocks.geometry.push(Lz4Block::compress(&geometry));
            drop(geometry);
            m.blocks.trees.push(Lz4Block::compress(&tree));
        }
        m.memory_estimate = memory_estimate.unwrap_or(total as i64);
        Ok(m)
    }

    /// The ms14 file, magic first, of [`Ms14Mesh::from_classic`]`(c, memory_estimate)`:
    /// the bytes its mesh writes ([`UnigineMesh::write`](super::super::UnigineMesh::write)),
    /// built in stages so that the mesh, the payloads, their blocks and the file are not
    /// all held at once. The trees are built and compressed first (they need the
    /// positions and indices); then each surface's geometry payload is written and its
    /// data dropped, and the payload is compressed and dropped as its block goes into the
    /// file, which is the one buffer that grows. At most the surfaces not yet written,
    /// one payload and its block, the tree blocks and the file so far are held.
    pub fn write_classic(mut c: ClassicMesh, memory_estimate: Option<i64>) -> Result<Vec<u8>> {
        // Triangle indices that are the coordinate indices (an import's) are held once.
        let shared: Vec<bool> = c
            .data
            .iter_mut()
            .map(|d| {
                let same = d.triangle_indices == d.coordinate_indices;
                if same {
                    d.triangle_indices = Vec::new();
                }
                same
            })
            .collect();
        Ms14Mesh::write_classic_shared(c, &shared, memory_estimate)
    }

    /// [`Ms14Mesh::write_classic`] of a mesh whose surfaces marked in `shared` have no
    /// triangle indices of their own: they stand for their coordinate indices (the
    /// mesh written is the one with those copied in).
    pub(crate) fn write_classic_shared(
        c: ClassicMesh,
        shared: &[bool],
        memory_estimate: Option<i64>,
    ) -> Result<Vec<u8>> {
        let ClassicMesh {
            bounds,
            bones,
            surfaces,
            bind_pose,
            data,
            ..
        } = c;
        let is_shared = |i: usize| shared.get(i).copied().unwrap_or(false);
        let surfaces = surfaces
            .iter()
            .zip(&data)
            .enumerate()
            .map(|(i, (h, d))| {
                let mut m = Ms14SurfaceHeader::for_surface(h, d)?;
                if is_shared(i) {
                    m.triangle_index_count = m.coordinate_index_count;
                }
                Ok(m)
            })
            .collect::<Result<Vec<_>>>()?;
        let mut total = 0u64;
        let mut trees = Vec::with_capacity(data.len());
        for d in &data {
            let tree = tree_payload(d)?;
            total += tree.len() as u64;
            trees.push(Lz4Block::compress(&tree));
        }
        // The head (magic to bind pose) is what the mesh's own writer writes before the
        // geometry blocks: the mesh is written with empty blocks (16 bytes each; then a
        // separator, the tree blocks, a separator, the offsets and a separator) and those
        // cut off. It is written again over itself once the memory estimate is known.
        let n = surfaces.len();
        let mut mesh = Ms14Mesh {
            tree_leaf_triangles: CInt(TREE_LEAF_TRIANGLES),
            bounds,
            bones,
            surfaces,
            memory_estimate: 0,
            bind_pose,
            blocks: Ms14Blocks {
                geometry: vec![Lz4Block::default(); n],
                trees: vec![Lz4Block::default(); n],
            },
        };
        let head = |m: &Ms14Mesh| -> Result<Vec<u8>> {
            let mut b = write_all(&MAGIC, m, 4096, ())?;
            b.truncate(b.len().saturating_sub(40 * n + 12));
            Ok(b)
        };
        let mut out = head(&mesh)?;
        let tail = trees.iter().map(|t| t.data.len() + 16).sum::<usize>() + 8 * n + 12;
        let mut starts = Vec::with_capacity(n);
        for (i, (h, d)) in mesh.surfaces.iter().zip(data).enumerate() {
            let ti = if is_shared(i) {
                &d.coordinate_indices
            } else {
                &d.triangle_indices
            };
            let (payload, front) = h.geometry_payload_with(&d, ti, true)?;
            drop(d);
            total += (payload.len() - front) as u64;
            starts.push(out.len());
            append_block(&mut out, payload, front, tail)?;
        }
        mesh.memory_estimate = memory_estimate.unwrap_or(total as i64);
        let head = head(&mesh)?;
        if let Some(h) = out.get_mut(..head.len()) {
            h.copy_from_slice(&head);
        }
        let mut w = std::io::Cursor::new(out);
        w.set_position(w.get_ref().len() as u64);
        let finish = |w: &mut std::io::Cursor<Vec<u8>>| -> BinResult<()> {
            MAGIC.write_options(w, Endian::Little, ())?;
            trees.write_options(w, Endian::Little, ())?;
            MAGIC.write_options(w, Endian::Little, ())?;
            for s in starts {
                count_as::<i64>(s, "file offset")?.write_options(w, Endian::Little, ())?;
            }
            MAGIC.write_options(w, Endian::Little, ())
        };
        finish(&mut w).map_err(|e| crate::error::from_binrw(e, None))?;
        Ok(w.into_inner())
    }

    /// The geometry payload of surface `i` from its data in the ms10–ms13 layout, written
    /// straight from `d`: the bytes [`Ms14Mesh::geometry_bytes`] gives for
    /// `Ms14Geometry::from(d.clone())`, without the copy.
    pub fn surface_geometry_bytes(&self, i: usize, d: &SurfaceData) -> Result<Vec<u8>> {
        let h = self.surfaces.get(i).ok_or_else(|| self.no_surface(i))?;
        h.geometry_payload(d)
    }
}

/// The serialised edges and spatial tree of a surface ([`build_tree`] on its base
/// positions and coordinate indices).
fn tree_payload(d: &SurfaceData) -> Result<Vec<u8>> {
    build_tree(
        d.targets
            .first()
            .map(|t| t.positions.as_slice())
            .unwrap_or_default(),
        &d.coordinate_indices,
        TREE_LEAF_TRIANGLES as usize,
    )
    .to_bytes()
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
fn append_block(out: &mut Vec<u8>, buf: Vec<u8>, front: usize, tail: usize) -> Result<()> {
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
    fn geometry_payload_with(
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

    /// The ms14 header of a surface in the ms10–ms13 layout: its header, with the index
    /// and per-target position counts of its geometry.
    pub fn for_surface(h: &SurfaceHeader, d: &SurfaceData) -> Result<Ms14SurfaceHeader> {
        let count = |n: usize, what: &str| {
            u32::try_from(n).map_err(|_| {
                Error::new(
                    "ms14",
                    ErrorKind::Inconsistent(format!("too many {what} for ms14")),
                )
            })
        };
        Ok(Ms14SurfaceHeader {
            name: h.name.clone(),
            lightmap_channel: h.lightmap_channel,
            lightmap_resolution: h.lightmap_resolution,
            coordinate_index_count: count(d.coordinate_indices.len(), "coordinate indices")?,
            triangle_index_count: count(d.triangle_indices.len(), "triangle indices")?,
            bounds: h.bounds,
            targets: h
                .targets
                .iter()
                .zip(&d.targets)
                .map(|(name, t)| {
                    Ok(Ms14Target {
                        name: name.clone(),
                        vertex_count: count(t.positions.len(), "positions")?,
                    })
                })
                .collect::<Result<_>>()?,
        })
    }

    /// The header in the ms10–ms13 layout (the counts move into the geometry).
    pub fn to_classic(&self) -> SurfaceHeader {
        SurfaceHeader {
            name: self.name.clone(),
            lightmap_channel: self.lightmap_channel,
            lightmap_resolution: self.lightmap_resolution,
            bounds: self.bounds,
            targets: self.targets.iter().map(|t| t.name.clone()).collect(),
        }
    }
}

/// The same arrays: an ms14 geometry payload from a surface of the ms10–ms13 layout.
impl From<SurfaceData> for Ms14Geometry {
    fn from(d: SurfaceData) -> Ms14Geometry {
        Ms14Geometry {
            targets: d
                .targets
                .into_iter()
                .map(|t| Ms14TargetData {
                    positions: t.positions,
                    tangents: t.tangents.into(),
                })
                .collect(),
            weights: d.weights,
            uv0: d.uv0,
            uv1: d.uv1,
            colors: d.colors,
            coordinate_indices: d.coordinate_indices,
            triangle_indices: d.triangle_indices,
        }
    }
}

/// The same arrays: a surface of the ms10–ms13 layout from an ms14 geometry payload.
impl From<Ms14Geometry> for SurfaceData {
    fn from(g: Ms14Geometry) -> SurfaceData {
        SurfaceData {
            targets: g
                .targets
                .into_iter()
                .map(|t| TargetData {
                    positions: t.positions,
                    tangents: t.tangents.into(),
                })
                .collect(),
            weights: g.weights,
            uv0: g.uv0,
            uv1: g.uv1,
            colors: g.colors,
            coordinate_indices: g.coordinate_indices,
            triangle_indices: g.triangle_indices,
        }
    }
}

#[cfg(test)]
mod reference;

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn bytes(t: &Ms14Tree) -> Vec<u8> {
        write_all(&[], t, 1024, ()).unwrap()
    }

    /// A coordinate: few distinct values, so triangles share positions, tie on splits
    /// and sit on both sides of a middle; signed zeros, infinities and NaN included.
    fn coordinate() -> impl Strategy<Value = f32> {
        prop_oneof![
            6 => (-4i8..=4).prop_map(|v| f32::from(v) * 0.5),
            2 => any::<f32>(),
            1 => prop_oneof![
                Just(0.0f32),
                Just(-0.0),
                Just(f32::NAN),
                Just(f32::INFINITY),
                Just(f32::NEG_INFINITY),
                Just(1e-30)
            ],
        ]
    }

    fn mesh() -> impl Strategy<Value = (Vec<[f32; 3]>, Vec<u32>, usize)> {
        (proptest::collection::vec([coordinate(), coordinate(), coordinate()], 0..40))
            .prop_flat_map(|p| {
                // Indices mostly in range, a few past the end (read as the origin);
                // repeated indices give degenerate triangles and repeated edges.
                let top = p.len() as u32 + 2;
                (
                    Just(p),
                    proptest::collection::vec(0..top, 0..300),
                    1usize..7,
                )
            })
    }

    /// A grid of quads: many shared edges, coplanar and not.
    fn grid() -> impl Strategy<Value = (Vec<[f32; 3]>, Vec<u32>, usize)> {
        (
            2u32..25,
            2u32..25,
            proptest::collection::vec(-2i8..=2, 1..8),
            1usize..7,
        )
            .prop_map(|(w, h, bumps, leaf)| {
                let positions = (0..w * h)
                    .map(|i| {
                        let (x, y) = (i % w, i / w);
                        let z = bumps.get(i as usize % bumps.len()).copied().unwrap_or(0);
                        [x as f32, f32::from(z) * 0.25, y as f32]
                    })
                    .collect();
                let mut ci = Vec::new();
                for y in 0..h - 1 {
                    for x in 0..w - 1 {
                        let c = [
                            y * w + x,
                            y * w + x + 1,
                            (y + 1) * w + x + 1,
                            (y + 1) * w + x,
                        ];
                        ci.extend([c[0], c[1], c[2], c[0], c[2], c[3]]);
                    }
                }
                (positions, ci, leaf)
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        /// The fast tree and edge flags are the first implementation's, byte for byte.
        #[test]
        fn build_tree_equals_reference((p, ci, leaf) in prop_oneof![mesh(), grid()]) {
            let fast = build_tree(&p, &ci, leaf);
            let slow = reference::build_tree(&p, &ci, leaf);
            prop_assert_eq!(bytes(&fast), bytes(&slow));
            prop_assert_eq!(fast.to_bytes().unwrap(), bytes(&fast));
        }
    }
}
