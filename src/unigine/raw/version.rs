//! The UNIGINE mesh versions (ms10–ms14), named by their magic: a leaf every mesh
//! layout imports.

use std::fmt;

use serde::Serialize;

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
