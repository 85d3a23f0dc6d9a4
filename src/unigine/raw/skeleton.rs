//! Bones, bind-pose transforms and bounds: shared by meshes (`mesh`, `ms14`) and
//! animations (`anim`), which import them (a leaf: it imports none of them).

use binrw::binrw;
use bytemuck::{Pod, Zeroable};
use serde::Serialize;

use super::cint::UString;

/// Bounding box and bounding sphere (10 floats), of the mesh or of a surface.
#[binrw]
#[brw(little)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable, Serialize)]
#[repr(C)]
pub struct Bounds {
    /// Box minimum.
    pub min: [f32; 3],
    /// Box maximum.
    pub max: [f32; 3],
    /// Sphere centre.
    pub center: [f32; 3],
    /// Sphere radius.
    pub radius: f32,
}

/// A bone of the skeleton.
#[binrw]
#[brw(little)]
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Bone {
    /// Name.
    pub name: UString,
    /// Index of the parent bone, −1 for a root.
    pub parent: i16,
}

/// A bone transform: position, rotation quaternion (x, y, z, w), scale.
#[binrw]
#[brw(little)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable, Serialize)]
#[repr(C)]
pub struct Transform {
    /// Position.
    pub position: [f32; 3],
    /// Rotation quaternion x, y, z, w.
    pub rotation: [f32; 4],
    /// Scale.
    pub scale: [f32; 3],
}
