//! STF files (`STF0`): a JSON document and binary buffers; `stf.mesh` resources decoded.
//!
//! - [`raw`]: the container exactly as stored (header, buffer lengths, JSON and buffers
//!   as bytes);
//! - [`model`]: the `stf.mesh` resources decoded from the JSON and the buffers (or read
//!   where they lie), and a mesh as the writer reads it;
//! - [`scene`]: the meshes to the export scene;
//! - [`write`](mod@write): the one writer: meshes written into a container from any
//!   source (the decoded model, a mesh where it lies in the buffers, a scene mesh),
//!   keeping the rest of the document;
//! - [`import`]: a new file from a scene (its meshes built as sources of the writer);
//! - [`file`](mod@file): STF through the front door.
//!
//! # Example
//!
//! ```
//! use meshcodec::stf::{StfContainer, StfMesh};
//! use meshcodec::Limits;
//!
//! let bytes = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/roundtrip-fixtures/stf/two-meshes.stf"));
//! let file = StfContainer::read(bytes)?;
//! assert_eq!(file.write()?, bytes); // byte-exact
//! let info = file.info()?;
//! assert_eq!(info.meshes, 2);
//! println!("{} buffers, {} vertices", info.buffers, info.vertices);
//! # let _: Option<StfMesh> = None;
//! # let _ = Limits::default();
//! # Ok::<(), meshcodec::Error>(())
//! ```

pub mod file;
pub mod import;
pub mod model;
pub mod raw;
pub mod scene;
pub mod write;

use serde::Serialize;

pub use import::from_scene;
pub use model::{StfBlendshape, StfMesh};
pub use raw::StfContainer;
pub use write::replace_meshes;

use crate::error::{Limits, Result};
use crate::io::{read_all, write_all};

impl StfContainer {
    /// Reads an STF file with the default [`Limits`].
    pub fn read(bytes: &[u8]) -> Result<StfContainer> {
        Self::read_with_limits(bytes, &Limits::default())
    }

    /// Reads an STF file.
    pub fn read_with_limits(bytes: &[u8], limits: &Limits) -> Result<StfContainer> {
        read_all(bytes, limits, ())
    }

    /// [`StfContainer::read_with_limits`] from a reader at its start (a file, say),
    /// without holding the file's bytes: the document and the buffers are read straight
    /// into place, so reading a file takes about its size in memory, not twice.
    pub fn read_from<R: std::io::Read + std::io::Seek>(
        reader: R,
        limits: &Limits,
    ) -> Result<StfContainer> {
        crate::io::read_all_from(reader, limits, ())
    }

    /// Writes the file into `out` as [`StfContainer::write`] would give it, without
    /// building the whole file in memory first.
    pub fn write_to(&self, out: &mut dyn std::io::Write) -> Result<()> {
        let mut out = binrw::io::NoSeek::new(out);
        binrw::BinWrite::write_options(self, &mut out, binrw::Endian::Little, ())
            .map_err(|e| crate::error::from_binrw(e, None))
    }

    /// Writes the file; for one read from a file, the same bytes.
    pub fn write(&self) -> Result<Vec<u8>> {
        let size = 16 + 8 * (self.buffers.len() + 1) + self.json.len();
        write_all(
            &[],
            self,
            size + self.buffers.iter().map(Vec::len).sum::<usize>(),
            (),
        )
    }

    /// The bytes of [`StfContainer::write`], each buffer dropped once it is copied: the
    /// container and its bytes are not held whole together.
    pub fn into_bytes(self) -> Result<Vec<u8>> {
        let StfContainer {
            version_major,
            version_minor,
            json,
            buffers,
            trailing,
        } = self;
        let count = u32::try_from(buffers.len() + 1).map_err(|_| {
            crate::error::Error::new(
                "STF",
                crate::error::ErrorKind::Inconsistent(format!(
                    "{} buffers do not fit the count field",
                    buffers.len() + 1
                )),
            )
        })?;
        let size = 16
            + 8 * (buffers.len() + 1)
            + json.len()
            + buffers.iter().map(Vec::len).sum::<usize>()
            + trailing.len();
        let mut out = Vec::with_capacity(size);
        out.extend_from_slice(b"STF0");
        for n in [version_major, version_minor, count] {
            out.extend_from_slice(&n.to_le_bytes());
        }
        let lengths = std::iter::once(json.len()).chain(buffers.iter().map(Vec::len));
        for n in lengths {
            out.extend_from_slice(&(n as u64).to_le_bytes());
        }
        out.extend_from_slice(&json);
        drop(json);
        for b in buffers {
            out.extend_from_slice(&b);
        }
        out.extend_from_slice(&trailing);
        Ok(out)
    }

    /// Counts for `meshcodec info`: the JSON parsed, and every mesh's arrays checked as
    /// decoding them would check them (the same errors), then counted and looked through
    /// where they lie in the buffers, not decoded.
    pub fn info(&self) -> Result<StfInfo> {
        self.info_of(model::mesh_infos(self)?)
    }

    /// [`StfContainer::info`] as it was once made, from every mesh decoded: what the
    /// lean one is tested against.
    #[cfg(test)]
    pub(crate) fn info_decoded(&self) -> Result<StfInfo> {
        let meshes = model::meshes(self)?;
        let list: Vec<StfMeshInfo> = meshes
            .iter()
            .map(|m| StfMeshInfo {
                id: m.id.clone(),
                name: m.name.clone(),
                vertices: m.vertices.len(),
                splits: m.splits.len(),
                face_corners: m.face_corners.len(),
                faces: m.tris.len(),
                polygons: m.faces.len(),
                uv_sets: m.uvs.iter().map(|(n, _)| n.clone()).collect(),
                normals: m.split_normals.is_some(),
                colors: m.split_colors.is_some(),
                blendshapes: m.blendshapes.iter().map(|b| b.name.clone()).collect(),
                problems: m.problems(),
            })
            .collect();
        self.info_of(list)
    }

    /// The file's info with these meshes'.
    fn info_of(&self, list: Vec<StfMeshInfo>) -> Result<StfInfo> {
        Ok(StfInfo {
            format: "stf",
            version: format!("{}.{}", self.version_major, self.version_minor),
            buffers: self.buffers.len(),
            json_bytes: self.json.len(),
            meshes: list.len(),
            vertices: list.iter().map(|m| m.vertices).sum(),
            faces: list.iter().map(|m| m.faces).sum(),
            mesh_list: list,
        })
    }
}

/// What `meshcodec info` reports of an STF file.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StfInfo {
    /// `"stf"`.
    pub format: &'static str,
    /// Container version `major.minor`.
    pub version: String,
    /// Number of binary buffers.
    pub buffers: usize,
    /// Size of the JSON document.
    pub json_bytes: usize,
    /// Number of `stf.mesh` resources.
    pub meshes: usize,
    /// Vertex positions over all meshes.
    pub vertices: usize,
    /// Triangles over all meshes.
    pub faces: usize,
    /// Per mesh.
    pub mesh_list: Vec<StfMeshInfo>,
}

/// Counts of one `stf.mesh`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StfMeshInfo {
    /// Resource id.
    pub id: String,
    /// Name.
    pub name: String,
    /// Vertex positions.
    pub vertices: usize,
    /// Splits (unique vertex/normal/UV/colour combinations).
    pub splits: usize,
    /// Face corners.
    pub face_corners: usize,
    /// Triangles.
    pub faces: usize,
    /// Faces (polygons made of one or more triangles).
    pub polygons: usize,
    /// UV set names.
    pub uv_sets: Vec<String>,
    /// Whether splits have normals.
    pub normals: bool,
    /// Whether splits have colours.
    pub colors: bool,
    /// Blendshape names.
    pub blendshapes: Vec<String>,
    /// Inconsistencies ([`StfMesh::problems`]).
    pub problems: Vec<String>,
}
