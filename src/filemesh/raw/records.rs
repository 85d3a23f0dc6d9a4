//! Fixed-size records shared by FileMesh 2.00–7.00: vertex, face, envelope, bone, subset.
//!
//! Each is a `#[binrw]` type mirroring the spec's struct field for field, and also
//! [`bytemuck::Pod`] so that arrays of them are copied in bulk (see `io::pod_vec`).
//! Sizes are checked at compile time against the spec.

use binrw::binrw;
use bytemuck::{Pod, Zeroable};
use serde::Serialize;

/// `FileMeshVertex` with its RGBA colour: 40 bytes (2.00 with `sizeof_FileMeshVertex` 40,
/// and every later version).
///
/// Tangent bytes are unsigned with a bias of 127 (component = (b − 127) / 127; the sign
/// byte is 0 or 254); they are kept as bytes here.
#[binrw]
#[brw(little)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable, Serialize)]
#[repr(C)]
#[doc(alias = "FileMeshVertex")]
pub struct Vertex {
    /// `px, py, pz`.
    pub position: [f32; 3],
    /// `nx, ny, nz`.
    pub normal: [f32; 3],
    /// `tu, tv`.
    pub uv: [f32; 2],
    /// `tx, ty, tz, ts`.
    pub tangent: [u8; 4],
    /// `r, g, b, a`.
    pub color: [u8; 4],
}

/// `FileMeshVertex` without colour: 36 bytes (2.00/3.0x with `sizeof_FileMeshVertex` 36).
/// Readers should treat its colour as 255, 255, 255, 255.
#[binrw]
#[brw(little)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable, Serialize)]
#[repr(C)]
pub struct Vertex36 {
    /// `px, py, pz`.
    pub position: [f32; 3],
    /// `nx, ny, nz`.
    pub normal: [f32; 3],
    /// `tu, tv`.
    pub uv: [f32; 2],
    /// `tx, ty, tz, ts`.
    pub tangent: [u8; 4],
}

/// `FileMeshFace`: three vertex indices.
#[binrw]
#[brw(little)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable, Serialize)]
#[repr(C)]
#[doc(alias = "FileMeshFace")]
pub struct Face {
    /// `a, b, c`.
    pub indices: [u32; 3],
}

/// How many vertices hold a NaN or an infinity, per attribute (of the core mesh; every
/// LOD). They are kept as read; a target that cannot hold them (text, forced Draco)
/// writes 0 instead and says so.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct NonFiniteCounts {
    /// Vertices with a position component that is not finite.
    pub positions: usize,
    /// Vertices with a normal component that is not finite.
    pub normals: usize,
    /// Vertices with a texture coordinate that is not finite.
    pub uvs: usize,
}

impl NonFiniteCounts {
    /// Adds a vertex's position, normal and UV.
    pub(super) fn add(&mut self, position: &[f32], normal: &[f32], uv: &[f32]) {
        let bad = |xs: &[f32]| usize::from(xs.iter().any(|x| !x.is_finite()));
        self.positions += bad(position);
        self.normals += bad(normal);
        self.uvs += bad(uv);
    }

    pub(super) fn of_iter(vertices: impl Iterator<Item = Vertex>) -> Self {
        let mut n = NonFiniteCounts::default();
        for v in vertices {
            n.add(&v.position, &v.normal, &v.uv);
        }
        n
    }

    /// True when every value is finite.
    pub fn is_empty(&self) -> bool {
        *self == NonFiniteCounts::default()
    }
}

/// `FileMeshSkinning` (an "envelope"): up to four bone influences of one vertex.
/// `bones` index the `bone_indices` table of the subset that holds the vertex.
#[binrw]
#[brw(little)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable, Serialize)]
#[repr(C)]
#[doc(alias = "FileMeshSkinning")]
#[doc(alias = "FileMeshWeight")]
pub struct Envelope {
    /// `bones[4]`: indices into the subset's `bone_indices`.
    pub bones: [u8; 4],
    /// `weights[4]`: 0–255, summing to 255 in real files.
    pub weights: [u8; 4],
}

/// `FileMeshBone`: 60 bytes.
#[binrw]
#[brw(little)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable, Serialize)]
#[repr(C)]
#[doc(alias = "FileMeshBone")]
pub struct Bone {
    /// `boneNameIndex`: byte offset of the bone's NUL-terminated name in the name table.
    pub bone_name_index: u32,
    /// `parentIndex`; 0xFFFF = no parent.
    pub parent_index: u16,
    /// `lodParentIndex`; 0xFFFF = no parent.
    pub lod_parent_index: u16,
    /// `culling`: distance to the furthest vertex the bone influences.
    pub culling: f32,
    /// `r00 … r22`, row major: the world-space rotation.
    pub rotation: [f32; 9],
    /// `x, y, z`: the world-space position.
    pub position: [f32; 3],
}

/// `FileMeshSubset`: 72 bytes. A range of faces and vertices influenced by at most
/// 26 bones.
#[binrw]
#[brw(little)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable, Serialize)]
#[repr(C)]
#[doc(alias = "FileMeshSubset")]
pub struct Subset {
    /// `facesBegin`.
    pub faces_begin: u32,
    /// `facesLength`.
    pub faces_length: u32,
    /// `vertsBegin`.
    pub verts_begin: u32,
    /// `vertsLength`.
    pub verts_length: u32,
    /// `numBoneIndices`: how many of `bone_indices` are used (data, kept as read).
    pub num_bone_indices: u32,
    /// `boneIndices[26]`: indices into the bone array; unused entries are 0xFFFF.
    pub bone_indices: [u16; 26],
}

/// `TwoPoseCorrective`: a corrective pose for two FACS controls.
#[binrw]
#[brw(little)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable, Serialize)]
#[repr(C)]
pub struct TwoPoseCorrective {
    /// `controlIndex0, controlIndex1`.
    pub control_indices: [u16; 2],
}

/// `ThreePoseCorrective`: a corrective pose for three FACS controls.
#[binrw]
#[brw(little)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Pod, Zeroable, Serialize)]
#[repr(C)]
pub struct ThreePoseCorrective {
    /// `controlIndex0, controlIndex1, controlIndex2`.
    pub control_indices: [u16; 3],
}

// The bulk path copies `size_of` bytes per record: it must be the spec's size.
const _: () = {
    assert!(std::mem::size_of::<Vertex>() == 40);
    assert!(std::mem::size_of::<Vertex36>() == 36);
    assert!(std::mem::size_of::<Face>() == 12);
    assert!(std::mem::size_of::<Envelope>() == 8);
    assert!(std::mem::size_of::<Bone>() == 60);
    assert!(std::mem::size_of::<Subset>() == 72);
    assert!(std::mem::size_of::<TwoPoseCorrective>() == 4);
    assert!(std::mem::size_of::<ThreePoseCorrective>() == 6);
};

impl From<Vertex36> for Vertex {
    /// A 36-byte vertex has no colour: it is white and opaque.
    fn from(v: Vertex36) -> Self {
        // As bytes: the 36 as they are, then the colour (field by field, the compiler
        // stored part of a vertex through the stack and read it back wider, a stalled
        // store forward per vertex: 19 ns a vertex on 2.00 files, now about 2).
        let mut b = [255u8; 40];
        if let Some(head) = b.get_mut(..36) {
            head.copy_from_slice(bytemuck::bytes_of(&v));
        }
        bytemuck::pod_read_unaligned(&b)
    }
}

impl From<Vertex> for Vertex36 {
    /// Drops the colour.
    fn from(v: Vertex) -> Self {
        Vertex36 {
            position: v.position,
            normal: v.normal,
            uv: v.uv,
            tangent: v.tangent,
        }
    }
}

/// Splits a blob of NUL-terminated strings (bone names, FACS names) into its strings,
/// lossily decoded as UTF-8. A final string without its NUL is included.
pub fn split_names(blob: &[u8]) -> Vec<String> {
    let mut parts: Vec<&[u8]> = blob.split(|&b| b == 0).collect();
    if blob.last() == Some(&0) || blob.is_empty() {
        parts.pop();
    }
    parts
        .into_iter()
        .map(|p| String::from_utf8_lossy(p).into_owned())
        .collect()
}

/// The NUL-terminated string starting at `offset` of a name table, if in range.
pub fn name_at(table: &[u8], offset: u32) -> Option<String> {
    let rest = table.get(offset as usize..)?;
    let end = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
    Some(String::from_utf8_lossy(rest.get(..end)?).into_owned())
}
