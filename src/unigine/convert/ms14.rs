//! The ms10–ms13 layout ⇄ ms14: an ms14 mesh built from a classic one (headers with
//! counts, each surface's tree built ([`build_tree`]) and its blocks LZ4-compressed, or
//! the file written as it is built), and a classic body decoded from an ms14 one. The
//! bytes of both layouts are the raw layer's ([`crate::unigine::raw`]).

use binrw::{BinResult, BinWrite, Endian};

use super::tree::{build_tree, TREE_LEAF_TRIANGLES};
use crate::error::{Error, ErrorKind, Limits, Result};
use crate::io::{count_as, write_all};
use crate::unigine::raw::cint::CInt;
use crate::unigine::raw::mesh::{ClassicMesh, SurfaceData, SurfaceHeader, TargetData};
use crate::unigine::raw::ms14::{
    append_block, Lz4Block, Ms14Blocks, Ms14Geometry, Ms14Mesh, Ms14SurfaceHeader, Ms14Target,
    Ms14TargetData, MAGIC,
};
use crate::unigine::raw::{MeshBody, UnigineMesh};

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

impl Ms14SurfaceHeader {
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

impl UnigineMesh {
    /// The body in the ms10–ms13 layout: as it is, or an ms14 body with its geometry
    /// decompressed (the spatial trees are left out).
    pub fn to_classic(&self, limits: &Limits) -> Result<ClassicMesh> {
        self.classic_view(limits).map(std::borrow::Cow::into_owned)
    }

    /// [`UnigineMesh::classic_view`] taking the mesh: an ms14 mesh's compressed blocks
    /// are dropped as they are decoded ([`Ms14Mesh::into_geometry`]).
    pub(crate) fn into_classic(self, limits: &Limits) -> Result<ClassicMesh> {
        let m = match self.body {
            MeshBody::Classic(c) => return Ok(c),
            MeshBody::Ms14(m) => m,
        };
        let (m, geometry) = m.into_geometry(limits)?;
        Ok(classic_body(
            &m.surfaces,
            geometry,
            ClassicMesh {
                bounds: m.bounds,
                bones: m.bones,
                bind_pose: m.bind_pose,
                ..ClassicMesh::default()
            },
        ))
    }

    /// The body in the ms10–ms13 layout, borrowed when it already is (reading counts or
    /// losses then copies nothing), decoded from the blocks for ms14.
    pub fn classic_view(&self, limits: &Limits) -> Result<std::borrow::Cow<'_, ClassicMesh>> {
        let m = match &self.body {
            MeshBody::Classic(c) => return Ok(std::borrow::Cow::Borrowed(c)),
            MeshBody::Ms14(m) => m,
        };
        let geometry = (0..m.surfaces.len())
            .map(|i| m.geometry(i, limits))
            .collect::<Result<Vec<_>>>()?;
        Ok(std::borrow::Cow::Owned(classic_body(
            &m.surfaces,
            geometry,
            ClassicMesh {
                bounds: m.bounds,
                bones: m.bones.clone(),
                bind_pose: m.bind_pose.clone(),
                ..ClassicMesh::default()
            },
        )))
    }
}

/// The ms10–ms13 body of an ms14 mesh: `head` (its bounds, bones and bind pose; no
/// animations, which ms14 cannot hold) with the surfaces' headers and decoded geometry.
fn classic_body(
    surfaces: &[Ms14SurfaceHeader],
    geometry: Vec<Ms14Geometry>,
    head: ClassicMesh,
) -> ClassicMesh {
    ClassicMesh {
        surfaces: surfaces.iter().map(Ms14SurfaceHeader::to_classic).collect(),
        data: geometry.into_iter().map(SurfaceData::from).collect(),
        ..head
    }
}
