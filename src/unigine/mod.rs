//! UNIGINE `.mesh` and `.anim` files.
//!
//! Spec: `unigine-mesh-anim.txt`, corrected by FORMAT-NOTES "UNIGINE .mesh / .anim"
//! (checked on real files). The magic is a little-endian u32 of four ASCII bytes that
//! names the version (`ms10` … `ms14`, `an10`, `an11`) and is repeated as a section
//! separator. Counts and string lengths are compact ints ([`cint`]).
//!
//! - [`mesh`]: ms10–ms13, plain arrays;
//! - [`ms14`]: LZ4-packed geometry and a spatial tree per surface;
//! - [`anim`]: `.anim` files and the animations embedded in ms10–ms12 meshes.

pub mod anim;
pub mod cint;
pub mod lz4;
pub mod mesh;
pub mod ms14;
pub mod quant;

use std::fmt;

use serde::Serialize;

use crate::error::{Error, ErrorKind, Limits, Result};
use crate::io::{read_all, write_all};
use crate::roblox::convert::{Loss, LossKind};
use mesh::ClassicMesh;
use ms14::{Ms14Mesh, Ms14SurfaceHeader};

/// A version of the UNIGINE mesh format, named by its magic.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum MeshVersion {
    /// `ms10`: 7-byte tangents (w in one byte).
    Ms10,
    /// `ms11`.
    Ms11,
    /// `ms12`: surfaces gain lightmap settings.
    Ms12,
    /// `ms13`: no embedded animations.
    #[default]
    Ms13,
    /// `ms14`: counts in the surface headers, geometry and a spatial tree per surface in
    /// LZ4 blocks.
    Ms14,
}

impl MeshVersion {
    /// Every version this crate reads and writes.
    pub const ALL: [MeshVersion; 5] = [
        MeshVersion::Ms10,
        MeshVersion::Ms11,
        MeshVersion::Ms12,
        MeshVersion::Ms13,
        MeshVersion::Ms14,
    ];

    /// The versions in the ms10–ms13 layout.
    pub const CLASSIC: [MeshVersion; 4] = [
        MeshVersion::Ms10,
        MeshVersion::Ms11,
        MeshVersion::Ms12,
        MeshVersion::Ms13,
    ];

    /// The four magic bytes.
    pub fn magic(self) -> [u8; 4] {
        *match self {
            MeshVersion::Ms10 => b"ms10",
            MeshVersion::Ms11 => b"ms11",
            MeshVersion::Ms12 => b"ms12",
            MeshVersion::Ms13 => b"ms13",
            MeshVersion::Ms14 => b"ms14",
        }
    }

    /// The version a magic names, if this crate supports it.
    pub fn from_magic(magic: [u8; 4]) -> Option<MeshVersion> {
        MeshVersion::ALL.into_iter().find(|v| v.magic() == magic)
    }

    /// Whether the header names animations and the body embeds them (ms10–ms12).
    pub fn embeds_animations(self) -> bool {
        self <= MeshVersion::Ms12
    }
}

impl fmt::Display for MeshVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&String::from_utf8_lossy(&self.magic()))
    }
}

impl std::str::FromStr for MeshVersion {
    type Err = String;

    fn from_str(s: &str) -> std::result::Result<Self, String> {
        let b = s.trim().as_bytes();
        <[u8; 4]>::try_from(b)
            .ok()
            .and_then(MeshVersion::from_magic)
            .ok_or_else(|| {
                format!("unknown UNIGINE mesh version {s:?} (ms10, ms11, ms12, ms13, ms14)")
            })
    }
}

/// A UNIGINE `.mesh` file.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct UnigineMesh {
    /// The version (the magic).
    pub version: MeshVersion,
    /// Everything after the magic.
    pub body: MeshBody,
}

/// The body of a mesh, by layout.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
#[allow(clippy::large_enum_variant)]
pub enum MeshBody {
    /// ms10–ms13.
    Classic(ClassicMesh),
    /// ms14.
    Ms14(Ms14Mesh),
}

impl UnigineMesh {
    /// Reads a mesh with the default [`Limits`].
    pub fn read(bytes: &[u8]) -> Result<UnigineMesh> {
        Self::read_with_limits(bytes, &Limits::default())
    }

    /// Reads a mesh.
    pub fn read_with_limits(bytes: &[u8], limits: &Limits) -> Result<UnigineMesh> {
        limits.check_input(bytes.len())?;
        let magic = bytes
            .get(..4)
            .and_then(|b| <[u8; 4]>::try_from(b).ok())
            .ok_or_else(|| Error::at(0, "UNIGINE mesh magic", ErrorKind::UnexpectedEof))?;
        let version = MeshVersion::from_magic(magic).ok_or_else(|| {
            Error::at(
                0,
                "UNIGINE mesh magic",
                ErrorKind::UnsupportedVersion(format!(
                    "{} (supported: ms10, ms11, ms12, ms13, ms14)",
                    String::from_utf8_lossy(&magic)
                )),
            )
        })?;
        let rest = bytes.get(4..).unwrap_or_default();
        let shift = |mut e: Error| {
            e.shift(4);
            e
        };
        let body = match version {
            MeshVersion::Ms14 => MeshBody::Ms14(read_all(rest, limits, ()).map_err(shift)?),
            v => MeshBody::Classic(read_all(rest, limits, (v,)).map_err(shift)?),
        };
        Ok(UnigineMesh { version, body })
    }

    /// Writes the mesh; for a mesh read from a file, the same bytes.
    pub fn write(&self) -> Result<Vec<u8>> {
        let magic = self.version.magic();
        match (&self.body, self.version) {
            (MeshBody::Ms14(m), MeshVersion::Ms14) => write_all(&magic, m, 1024, ()),
            (MeshBody::Classic(c), v) if v != MeshVersion::Ms14 => {
                c.check_fits(v)
                    .map_err(|e| crate::error::from_binrw(e, None))?;
                write_all(&magic, c, 1024, (v,))
            }
            (_, v) => Err(Error::new(
                "UNIGINE mesh",
                ErrorKind::Inconsistent(format!("the body does not have the layout of {v}")),
            )),
        }
    }

    /// The ms10–ms13 body, if that is the layout.
    pub fn classic(&self) -> Option<&ClassicMesh> {
        match &self.body {
            MeshBody::Classic(c) => Some(c),
            MeshBody::Ms14(_) => None,
        }
    }

    /// The ms14 body, if that is the layout.
    pub fn ms14(&self) -> Option<&Ms14Mesh> {
        match &self.body {
            MeshBody::Ms14(m) => Some(m),
            MeshBody::Classic(_) => None,
        }
    }

    /// The body in the ms10–ms13 layout: as it is, or an ms14 body with its geometry
    /// decompressed (the spatial trees are left out).
    pub fn to_classic(&self, limits: &Limits) -> Result<ClassicMesh> {
        self.classic_view(limits).map(std::borrow::Cow::into_owned)
    }

    /// The body in the ms10–ms13 layout, borrowed when it already is (reading counts or
    /// losses then copies nothing), decoded from the blocks for ms14.
    pub fn classic_view(&self, limits: &Limits) -> Result<std::borrow::Cow<'_, ClassicMesh>> {
        let m = match &self.body {
            MeshBody::Classic(c) => return Ok(std::borrow::Cow::Borrowed(c)),
            MeshBody::Ms14(m) => m,
        };
        let surfaces = m
            .surfaces
            .iter()
            .map(Ms14SurfaceHeader::to_classic)
            .collect();
        let data = (0..m.surfaces.len())
            .map(|i| m.geometry(i, limits).map(mesh::SurfaceData::from))
            .collect::<Result<_>>()?;
        Ok(std::borrow::Cow::Owned(ClassicMesh {
            bounds: m.bounds,
            bones: m.bones.clone(),
            animation_names: Vec::new(),
            surfaces,
            bind_pose: m.bind_pose.clone(),
            animations: Vec::new(),
            data,
        }))
    }
}

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
        fn bad<'a>(xs: impl IntoIterator<Item = &'a f32>) -> bool {
            xs.into_iter().any(|x| !x.is_finite())
        }
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
            bind_pose: b.bind_pose.iter().fold(0, |n, t| {
                count(n, bad(t.position.iter().chain(&t.rotation).chain(&t.scale)))
            }),
        }
    }

    /// True when every value is finite.
    pub fn is_empty(&self) -> bool {
        *self == NonFiniteCounts::default()
    }
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
    /// Counts for `meshcodec info` (decompresses ms14 geometry and trees).
    pub fn info(&self, limits: &Limits) -> Result<MeshInfo> {
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
                    targets: h.targets.iter().map(cint::UString::text).collect(),
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
        Ok(MeshInfo {
            format: "unigine-mesh",
            version: self.version.to_string(),
            surfaces: surface_list.len(),
            vertices: surface_list.iter().map(|s| s.vertices).sum(),
            positions: surface_list.iter().map(|s| s.positions).sum(),
            faces: surface_list.iter().map(|s| s.faces).sum(),
            bones: b.bones.len(),
            bone_names: b.bones.iter().map(|x| x.name.text()).collect(),
            animations: b.animation_names.iter().map(cint::UString::text).collect(),
            surface_list,
            non_finite: NonFiniteCounts::of(&b),
        })
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
            out.push(Loss {
                kind: LossKind::UnigineAnimations,
                detail: format!(
                    "{} embedded animation(s) ({}): {target} cannot embed animations",
                    b.animation_names.len(),
                    b.animation_names
                        .iter()
                        .map(cint::UString::text)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            });
        }
        let lightmaps = b
            .surfaces
            .iter()
            .filter(|s| s.lightmap_channel != 0 || s.lightmap_resolution != 0)
            .count();
        if target < MeshVersion::Ms12 && lightmaps > 0 {
            out.push(Loss {
                kind: LossKind::UnigineLightmap,
                detail: format!(
                    "lightmap channel/resolution of {lightmaps} surface(s): {target} has none"
                ),
            });
        }
        if (target == MeshVersion::Ms10) != (self.version == MeshVersion::Ms10) {
            let n: usize = b
                .data
                .iter()
                .flat_map(|d| &d.targets)
                .map(|t| t.tangents.len())
                .sum();
            if n > 0 {
                out.push(Loss {
                    kind: LossKind::UnigineTangents,
                    detail: format!(
                        "{n} tangent(s): ms10 stores i16 x, y, z and a signed-byte w, later \
                         versions a unit quaternion (i16 x, y, z, w); they are carried over \
                         component by component (w rescaled) and should be recomputed"
                    ),
                });
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
                quant::tangent_w_to_short(byte)
            }),
            (false, true) => Some(|w| i16::from(quant::tangent_w_to_byte(w))),
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
    let rebuilt = Ms14Mesh::from_classic(body.clone(), None)?;
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
        out.push(Loss {
            kind: LossKind::UnigineSpatialTree,
            detail: format!(
                "{}: {target} does not store these, and converting back to ms14 would not \
                 give them again",
                parts.join(", ")
            ),
        });
    }
    if blocks > 0 {
        out.push(Loss {
            kind: LossKind::Layout,
            detail: format!(
                "how {blocks} LZ4 block(s) of the ms14 file are compressed (the data is kept; \
                 converting back to ms14 compresses with UNIGINE's settings, which give other \
                 bytes)"
            ),
        });
    }
    Ok(out)
}
