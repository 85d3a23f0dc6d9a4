//! UNIGINE `.mesh` and `.anim` files.
//!
//! Spec: `unigine-mesh-anim.txt`, corrected by FORMAT-NOTES "UNIGINE .mesh / .anim"
//! (checked on real files).
//!
//! - [`raw`]: every structure of the files, byte-exact ([`UnigineMesh`], [`UnigineAnim`]);
//! - this module: `info` summaries and conversion between mesh versions, with the loss
//!   report;
//! - [`scene`]: meshes and animations to the export scene (and `scene_losses`: what it
//!   leaves behind, item by item);
//! - [`import`]: a scene to a mesh (ms10–ms14) and `.anim` files.
//!
//! # Example
//!
//! Read a mesh, see what it holds, and convert it to ms14 (LZ4 blocks, spatial trees):
//!
//! ```
//! use meshcodec::unigine::{MeshVersion, UnigineMesh};
//! use meshcodec::{convert_to, open, Limits};
//!
//! let bytes = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/roundtrip-fixtures/unigine/ms13-static-quad.mesh"));
//! let mesh = UnigineMesh::read(bytes)?;
//! assert_eq!(mesh.version, MeshVersion::Ms13);
//! let info = mesh.info(&Limits::default())?;
//! assert_eq!(info.surfaces, 1);
//!
//! let ms14 = convert_to(&open(bytes)?, "ms14", &Default::default(), &Limits::default())?;
//! assert_eq!(UnigineMesh::read(&ms14.bytes)?.version, MeshVersion::Ms14);
//! # Ok::<(), meshcodec::Error>(())
//! ```

pub mod convert;
pub mod file;
pub mod import;
pub mod raw;
pub mod scene;
mod scene_losses;

#[cfg(test)]
mod info_tests;

use serde::Serialize;

use crate::error::{Limits, Result};
use crate::loss::{Loss, LossKind};
pub use raw::anim::UnigineAnim;
use raw::mesh::ClassicMesh;
use raw::ms14::{GeometryCounts, Ms14Mesh};
pub use raw::{MeshBody, MeshVersion, UnigineMesh};

/// What `meshcodec info` reports of a UNIGINE mesh.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MeshInfo {
    /// `"unigine-mesh"`.
    pub format: &'static str,
    /// The version, e.g. `"ms13"`.
    pub version: String,
    /// Number of surfaces.
    pub surfaces: usize,
    /// Triangle vertices (one tangent each) of morph target 0, over all surfaces.
    pub vertices: usize,
    /// Positions of morph target 0, over all surfaces (vertices share them).
    pub positions: usize,
    /// Triangles over all surfaces.
    pub faces: usize,
    /// Number of bones.
    pub bones: usize,
    /// Bone names, in order.
    pub bone_names: Vec<String>,
    /// Names of the embedded animations (ms10–ms12).
    pub animations: Vec<String>,
    /// Per surface.
    pub surface_list: Vec<SurfaceInfo>,
    /// Values that are not finite (NaN, ±∞), kept as read.
    pub non_finite: NonFiniteCounts,
}

/// How many entries hold a NaN or an infinity. Reading and writing keep them; export
/// replaces them (and says so).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct NonFiniteCounts {
    /// Positions (of every morph target) with a component that is not finite.
    pub positions: usize,
    /// Entries of both UV sets with a component that is not finite.
    pub uvs: usize,
    /// Bind pose transforms with a value that is not finite.
    pub bind_pose: usize,
}

impl NonFiniteCounts {
    fn of(b: &ClassicMesh) -> NonFiniteCounts {
        let count = |n: usize, x: bool| n + usize::from(x);
        NonFiniteCounts {
            positions: b
                .data
                .iter()
                .flat_map(|d| &d.targets)
                .flat_map(|t| &t.positions)
                .fold(0, |n, p| count(n, bad(p))),
            uvs: b
                .data
                .iter()
                .flat_map(|d| d.uv0.iter().chain(&d.uv1))
                .fold(0, |n, uv| count(n, bad(uv))),
            bind_pose: bind_pose_non_finite(&b.bind_pose),
        }
    }

    /// True when every value is finite.
    pub fn is_empty(&self) -> bool {
        *self == NonFiniteCounts::default()
    }
}

/// Whether any of the values is not finite.
fn bad<'a>(xs: impl IntoIterator<Item = &'a f32>) -> bool {
    xs.into_iter().any(|x| !x.is_finite())
}

/// Bind pose transforms with a value that is not finite.
fn bind_pose_non_finite(pose: &[raw::skeleton::Transform]) -> usize {
    pose.iter()
        .filter(|t| bad(t.position.iter().chain(&t.rotation).chain(&t.scale)))
        .count()
}

/// Counts of one surface.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SurfaceInfo {
    /// Name.
    pub name: String,
    /// Morph target names (target 0 is the base shape).
    pub targets: Vec<String>,
    /// Triangle vertices of target 0.
    pub vertices: usize,
    /// Positions of target 0.
    pub positions: usize,
    /// Triangles.
    pub faces: usize,
    /// Vertices with skin weights.
    pub weighted_vertices: usize,
    /// Entries of the first UV set.
    pub uv0: usize,
    /// Entries of the second UV set.
    pub uv1: usize,
    /// Vertex colours.
    pub colors: usize,
    /// ms14: nodes of the surface's spatial tree.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tree_nodes: Option<usize>,
}

impl UnigineMesh {
    /// Counts for `meshcodec info`; also what `verify` checks (every payload decodes).
    ///
    /// An ms14 mesh's blocks are walked as streams ([`Ms14Mesh::geometry_counts`],
    /// [`Ms14Mesh::tree_counts`]): every block is decoded and its payload read and
    /// checked as [`Ms14Mesh::geometry`] and [`Ms14Mesh::tree`] read them, with the same
    /// errors, but neither the payload nor its arrays are held, so this takes little
    /// memory besides the mesh. All geometry blocks are walked before the trees, in the
    /// order decoding the whole mesh takes them, so a file with several damaged blocks
    /// fails on the same one.
    pub fn info(&self, limits: &Limits) -> Result<MeshInfo> {
        let MeshBody::Ms14(m) = &self.body else {
            return self.whole_info(limits);
        };
        let geometry = (0..m.surfaces.len())
            .map(|i| m.geometry_counts(i, limits))
            .collect::<Result<Vec<_>>>()?;
        let trees = (0..m.surfaces.len())
            .map(|i| m.tree_counts(i, limits))
            .collect::<Result<Vec<_>>>()?;
        let surface_list = m
            .surfaces
            .iter()
            .zip(&geometry)
            .zip(&trees)
            .map(|((h, g), t)| SurfaceInfo {
                name: h.name.text(),
                targets: h.targets.iter().map(|t| t.name.text()).collect(),
                vertices: g.vertices as usize,
                positions: g.positions as usize,
                faces: h.triangle_index_count as usize / 3,
                weighted_vertices: g.weighted_vertices as usize,
                uv0: g.uv0 as usize,
                uv1: g.uv1 as usize,
                colors: g.colors as usize,
                tree_nodes: Some(t.nodes as usize),
            })
            .collect();
        let sum = |f: fn(&GeometryCounts) -> u64| geometry.iter().map(f).sum::<u64>() as usize;
        let non_finite = NonFiniteCounts {
            positions: sum(|g| g.non_finite_positions),
            uvs: sum(|g| g.non_finite_uvs),
            bind_pose: bind_pose_non_finite(&m.bind_pose),
        };
        Ok(self.mesh_info(surface_list, &m.bones, &[], non_finite))
    }

    /// [`UnigineMesh::info`] from the arrays: an ms14 mesh's geometry decoded whole
    /// ([`UnigineMesh::classic_view`]) and its trees parsed. How `info` reads ms10–ms13
    /// (whose arrays are the mesh itself); for ms14, the tests' oracle for the streamed
    /// walk.
    pub(crate) fn whole_info(&self, limits: &Limits) -> Result<MeshInfo> {
        let b = self.classic_view(limits)?;
        let trees = match &self.body {
            MeshBody::Ms14(m) => (0..m.surfaces.len())
                .map(|i| m.tree(i, limits).map(|t| Some(t.nodes.len())))
                .collect::<Result<Vec<_>>>()?,
            MeshBody::Classic(_) => vec![None; b.surfaces.len()],
        };
        let surface_list: Vec<SurfaceInfo> = b
            .surfaces
            .iter()
            .zip(&b.data)
            .zip(trees)
            .map(|((h, d), tree_nodes)| {
                let base = d.targets.first();
                SurfaceInfo {
                    name: h.name.text(),
                    targets: h.targets.iter().map(raw::cint::UString::text).collect(),
                    vertices: base.map_or(0, |t| t.tangents.len()),
                    positions: base.map_or(0, |t| t.positions.len()),
                    faces: d.triangle_indices.len() / 3,
                    weighted_vertices: d.weights.counts.len(),
                    uv0: d.uv0.len(),
                    uv1: d.uv1.len(),
                    colors: d.colors.len(),
                    tree_nodes,
                }
            })
            .collect();
        Ok(self.mesh_info(
            surface_list,
            &b.bones,
            &b.animation_names,
            NonFiniteCounts::of(&b),
        ))
    }

    /// The info of this mesh from its surfaces' and the rest of its counts.
    fn mesh_info(
        &self,
        surface_list: Vec<SurfaceInfo>,
        bones: &[raw::skeleton::Bone],
        animations: &[raw::cint::UString],
        non_finite: NonFiniteCounts,
    ) -> MeshInfo {
        MeshInfo {
            format: "unigine-mesh",
            version: self.version.to_string(),
            surfaces: surface_list.len(),
            vertices: surface_list.iter().map(|s| s.vertices).sum(),
            positions: surface_list.iter().map(|s| s.positions).sum(),
            faces: surface_list.iter().map(|s| s.faces).sum(),
            bones: bones.len(),
            bone_names: bones.iter().map(|x| x.name.text()).collect(),
            animations: animations.iter().map(raw::cint::UString::text).collect(),
            surface_list,
            non_finite,
        }
    }
}

impl UnigineMesh {
    /// What writing this mesh as `target` would lose (empty: nothing). Errors when an
    /// ms14 geometry block does not decode, or when `target` is ms14 and the mesh is not.
    pub fn losses(&self, target: MeshVersion) -> Result<Vec<Loss>> {
        if target == self.version {
            return Ok(Vec::new());
        }
        let b = self.classic_view(&Limits::default())?;
        let mut out = Vec::new();
        if let (MeshBody::Ms14(m), false) = (&self.body, target == MeshVersion::Ms14) {
            out.extend(ms14_losses(m, &b, target)?);
        }
        if !target.embeds_animations() && !b.animation_names.is_empty() {
            out.push(Loss::new(
                LossKind::UnigineAnimations,
                format!(
                    "{} embedded animation(s) ({}): {target} cannot embed animations",
                    b.animation_names.len(),
                    b.animation_names
                        .iter()
                        .map(raw::cint::UString::text)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
        let lightmaps = b
            .surfaces
            .iter()
            .filter(|s| s.lightmap_channel != 0 || s.lightmap_resolution != 0)
            .count();
        if target < MeshVersion::Ms12 && lightmaps > 0 {
            out.push(Loss::new(
                LossKind::UnigineLightmap,
                format!("lightmap channel/resolution of {lightmaps} surface(s): {target} has none"),
            ));
        }
        if (target == MeshVersion::Ms10) != (self.version == MeshVersion::Ms10) {
            let n: usize = b
                .data
                .iter()
                .flat_map(|d| &d.targets)
                .map(|t| t.tangents.len())
                .sum();
            if n > 0 {
                out.push(Loss::new(
                    LossKind::UnigineTangents,
                    format!(
                        "{n} tangent(s): ms10 stores i16 x, y, z and a signed-byte w, later \
                         versions a unit quaternion (i16 x, y, z, w); they are carried over \
                         component by component (w rescaled) and should be recomputed"
                    ),
                ));
            }
        }
        Ok(out)
    }

    /// This mesh as `target`, dropping what [`UnigineMesh::losses`] lists. To ms14, the
    /// spatial trees are built and the blocks compressed as UNIGINE does
    /// ([`Ms14Mesh::from_classic`]).
    pub fn to_version(&self, target: MeshVersion) -> Result<UnigineMesh> {
        if target == self.version {
            return Ok(self.clone());
        }
        if target == MeshVersion::Ms14 && self.version != MeshVersion::Ms10 {
            // Nothing in the body changes (ms14 drops embedded animations itself): the
            // blocks are built from it as it is, without copying it first.
            let body = self.classic_view(&Limits::default())?;
            return Ok(UnigineMesh {
                version: target,
                body: MeshBody::Ms14(Ms14Mesh::from_classic_ref(&body, None)?),
            });
        }
        let mut body = self.to_classic(&Limits::default())?;
        if !target.embeds_animations() {
            body.animation_names.clear();
            body.animations.clear();
        }
        if target < MeshVersion::Ms12 {
            for s in &mut body.surfaces {
                s.lightmap_channel = 0;
                s.lightmap_resolution = 0;
            }
        }
        // ms10 stores the tangent w in a signed byte (q / 127), later versions in an i16
        // (q / 32767) like x, y, z: w is carried to the nearest step of the other scale.
        let rescale: Option<fn(i16) -> i16> = match (
            self.version == MeshVersion::Ms10,
            target == MeshVersion::Ms10,
        ) {
            (true, false) => Some(|w| {
                let byte = w.clamp(i16::from(i8::MIN), i16::from(i8::MAX)) as i8;
                raw::quant::tangent_w_to_short(byte)
            }),
            (false, true) => Some(|w| i16::from(raw::quant::tangent_w_to_byte(w))),
            _ => None,
        };
        if let Some(rescale) = rescale {
            for t in body.data.iter_mut().flat_map(|d| &mut d.targets) {
                for tan in &mut t.tangents {
                    tan[3] = rescale(tan[3]);
                }
            }
        }
        let body = if target == MeshVersion::Ms14 {
            MeshBody::Ms14(Ms14Mesh::from_classic(body, None)?)
        } else {
            MeshBody::Classic(body)
        };
        Ok(UnigineMesh {
            version: target,
            body,
        })
    }
}

/// What an ms14 mesh loses in the ms10–ms13 layout (`body`: its geometry in that
/// layout): the parts that converting back to ms14 would not give again. The trees,
/// edge flags and LZ4 blocks are rebuilt as UNIGINE builds them
/// ([`Ms14Mesh::from_classic`]) and compared with the file's; the leaf size with 4; the
/// memory estimate with the one written without a source (its formula is unknown).
fn ms14_losses(m: &Ms14Mesh, body: &ClassicMesh, target: MeshVersion) -> Result<Vec<Loss>> {
    let limits = Limits::default();
    let rebuilt = Ms14Mesh::from_classic_ref(body, None)?;
    let mut parts = Vec::new();
    // Per surface: whether its tree differs, and how many of its blocks hold the same
    // payload as the rebuilt one but compressed otherwise (a stored block, another LZ4
    // encoder). The geometry is the same by construction: it is rebuilt from itself.
    let (mut trees, mut blocks) = (0, 0);
    for i in 0..m.surfaces.len() {
        let same_tree = matches!(
            (m.tree(i, &limits), rebuilt.tree(i, &limits)),
            (Ok(a), Ok(b)) if a == b
        );
        if !same_tree {
            trees += 1;
        } else if m.blocks.trees.get(i) != rebuilt.blocks.trees.get(i) {
            blocks += 1;
        }
        if m.blocks.geometry.get(i) != rebuilt.blocks.geometry.get(i) {
            blocks += 1;
        }
    }
    if trees > 0 {
        parts.push(format!(
            "the spatial trees and edge flags of {trees} surface(s), which differ from those \
             UNIGINE's rule builds"
        ));
    }
    if m.tree_leaf_triangles != rebuilt.tree_leaf_triangles {
        parts.push(format!(
            "the tree leaf size {} (rebuilt: {})",
            m.tree_leaf_triangles.0, rebuilt.tree_leaf_triangles.0
        ));
    }
    if m.memory_estimate != rebuilt.memory_estimate {
        parts.push(format!(
            "the memory estimate {} (rebuilt: {}; UNIGINE's formula is unknown)",
            m.memory_estimate, rebuilt.memory_estimate
        ));
    }
    let mut out = Vec::new();
    if !parts.is_empty() {
        out.push(Loss::new(
            LossKind::UnigineSpatialTree,
            format!(
                "{}: {target} does not store these, and converting back to ms14 would not \
                 give them again",
                parts.join(", ")
            ),
        ));
    }
    if blocks > 0 {
        out.push(Loss::new(
            LossKind::Layout,
            format!(
                "how {blocks} LZ4 block(s) of the ms14 file are compressed (the data is kept; \
                 converting back to ms14 compresses with UNIGINE's settings, which give other \
                 bytes)"
            ),
        ));
    }
    Ok(out)
}
