//! What `meshcodec info` reports of an ms14 surface, walked from its blocks as streams
//! ([`super::Lz4Block::reader`]) without building the arrays: a big mesh's payload is
//! never held, decoded or parsed, besides the file's own blocks.
//!
//! The walks follow [`Ms14Geometry`] and [`Ms14Tree`] field by field, with the same
//! readers for everything that can be wrong (counts, compact ints, weights, tree
//! nodes) and the same checks of counts against the bytes that remain, so they accept
//! and refuse the same payloads with the same errors: each field's error is named as
//! binrw's derive names it ("field 'uv0' in Ms14Geometry"). Tests compare both on
//! every fixture and corpus file and on damaged blocks.

use std::io::{Read, Seek};

use binrw::error::ContextExt;
use binrw::{BinRead, BinResult, Endian};

use super::{Ms14Geometry, Ms14Tree, TreeNode};
use crate::unigine::raw::cint::{each_record, CInt, Count};
use crate::unigine::raw::mesh::{skip_indices, Weights};
use crate::unigine::raw::scan::{not_finite, scan_records, skip};

/// The counts of an ms14 geometry payload ([`Ms14Geometry`]) and how many of its values
/// are not finite.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GeometryCounts {
    /// Positions of morph target 0.
    pub positions: u32,
    /// Tangents (triangle vertices) of morph target 0.
    pub vertices: u32,
    /// Vertices with skin weights.
    pub weighted_vertices: u32,
    /// Entries of the first UV set.
    pub uv0: u32,
    /// Entries of the second UV set.
    pub uv1: u32,
    /// Vertex colours.
    pub colors: u32,
    /// Positions, over every morph target, with a component that is not finite.
    pub non_finite_positions: u64,
    /// UV entries, over both sets, with a component that is not finite.
    pub non_finite_uvs: u64,
}

impl GeometryCounts {
    /// The counts of a payload already parsed.
    pub fn of(g: &Ms14Geometry) -> GeometryCounts {
        let base = g.targets.first();
        let len = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        GeometryCounts {
            positions: base.map_or(0, |t| len(t.positions.len())),
            vertices: base.map_or(0, |t| len(t.tangents.len())),
            weighted_vertices: len(g.weights.counts.len()),
            uv0: len(g.uv0.len()),
            uv1: len(g.uv1.len()),
            colors: len(g.colors.len()),
            non_finite_positions: g.targets.iter().map(|t| not_finite(&t.positions)).sum(),
            non_finite_uvs: not_finite(&g.uv0) + not_finite(&g.uv1),
        }
    }
}

/// `r` with the backtrace frame binrw's derive adds for field `name` of `ty`, so an
/// error reads the same as the whole-array reader's.
fn field<T>(r: BinResult<T>, name: &'static str, ty: &'static str) -> BinResult<T> {
    r.map_err(|e| e.with_message(format!("While parsing field '{name}' in {ty}")))
}

/// A count (a compact int that may not be negative) of `what`, read as field `name`.
fn count<R: Read + Seek>(
    r: &mut R,
    name: &'static str,
    ty: &'static str,
    what: &'static str,
) -> BinResult<Count> {
    field(Count::read_options(r, Endian::Little, (what,)), name, ty)
}

/// With the args of [`Ms14Geometry`]: per target its vertex count, and the coordinate
/// and triangle index counts (from the surface header).
impl BinRead for GeometryCounts {
    type Args<'a> = (Vec<u32>, u32, u32);

    fn read_options<R: Read + Seek>(
        r: &mut R,
        _: Endian,
        (vertex_counts, ci, ti): Self::Args<'_>,
    ) -> BinResult<Self> {
        const G: &str = "Ms14Geometry";
        const T: &str = "Ms14TargetData";
        let e = Endian::Little;
        let mut c = GeometryCounts::default();
        for (k, &n) in vertex_counts.iter().enumerate() {
            let target = |r: &mut R, c: &mut GeometryCounts| -> BinResult<()> {
                field(
                    scan_records(r, e, u64::from(n), "records", |p: &[[f32; 3]]| {
                        c.non_finite_positions += not_finite(p);
                    }),
                    "positions",
                    T,
                )?;
                let tangents = count(r, "tangent_count", T, "tangents")?;
                field(skip(r, tangents.get(), 8, "records"), "tangents", T)?;
                if k == 0 {
                    (c.positions, c.vertices) = (n, tangents.0);
                }
                Ok(())
            };
            field(target(r, &mut c), "targets", G)?;
        }
        c.weighted_vertices = field(Weights::walk(r, e, |_, _, _| {}), "weights", G)?;
        let mut uvs = |r: &mut R, name, set, what| -> BinResult<u32> {
            let n = count(r, name, G, what)?;
            field(
                scan_records(r, e, n.get(), "records", |p: &[[f32; 2]]| {
                    c.non_finite_uvs += not_finite(p);
                }),
                set,
                G,
            )?;
            Ok(n.0)
        };
        let uv0 = uvs(r, "uv0_count", "uv0", "first UV set")?;
        let uv1 = uvs(r, "uv1_count", "uv1", "second UV set")?;
        (c.uv0, c.uv1) = (uv0, uv1);
        let colors = count(r, "color_count", G, "colours")?;
        field(skip(r, colors.get(), 4, "records"), "colors", G)?;
        c.colors = colors.0;
        field(
            skip_indices(r, e, (Some(ci), c.positions as usize, "coordinate indices")),
            "coordinate_indices",
            G,
        )?;
        field(
            skip_indices(r, e, (Some(ti), c.vertices as usize, "triangle indices")),
            "triangle_indices",
            G,
        )?;
        Ok(c)
    }
}

/// The node count of an ms14 edges + spatial tree payload ([`Ms14Tree`]), every part of
/// it read and checked as [`Ms14Tree`] reads it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TreeCounts {
    /// Nodes of the spatial tree.
    pub nodes: u32,
}

impl TreeCounts {
    /// The counts of a tree already parsed.
    pub fn of(t: &Ms14Tree) -> TreeCounts {
        TreeCounts {
            nodes: u32::try_from(t.nodes.len()).unwrap_or(u32::MAX),
        }
    }
}

impl BinRead for TreeCounts {
    type Args<'a> = ();

    fn read_options<R: Read + Seek>(r: &mut R, _: Endian, _: ()) -> BinResult<Self> {
        const N: &str = "Ms14Tree";
        let e = Endian::Little;
        let flags = count(r, "edge_flag_count", N, "edge flags")?;
        field(skip(r, flags.get(), 1, "records"), "edge_flags", N)?;
        let refs = count(r, "ref_count", N, "triangle references")?;
        field(
            each_record::<CInt, _>(r, e, (refs, 1, "triangle references", ()), |_, _| {}),
            "triangle_refs",
            N,
        )?;
        let nodes = count(r, "node_count", N, "tree nodes")?;
        field(
            each_record::<TreeNode, _>(r, e, (nodes, 5, "tree nodes", ()), |_, _| {}),
            "nodes",
            N,
        )?;
        field(
            skip(r, nodes.get(), 24, "tree node boxes"),
            "node_bounds",
            N,
        )?;
        field(skip(r, nodes.get(), 4, "tree node splits"), "splits", N)?;
        Ok(TreeCounts { nodes: nodes.0 })
    }
}
