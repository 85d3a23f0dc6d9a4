//! The 13-byte version line that starts every FileMesh (`version 4.01\n`).

use std::fmt;
use std::str::FromStr;

use serde::Serialize;

/// A FileMesh version, from the first line of the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Version {
    /// 1.00: text, positions at twice the size of later versions.
    #[serde(rename = "1.00")]
    V1_00,
    /// 1.01: text.
    #[serde(rename = "1.01")]
    V1_01,
    /// 2.00: binary vertices and faces.
    #[serde(rename = "2.00")]
    V2_00,
    /// 3.00: adds LOD offsets.
    #[serde(rename = "3.00")]
    V3_00,
    /// 3.01: same layout as 3.00.
    #[serde(rename = "3.01")]
    V3_01,
    /// 4.00: adds bones, skinning and subsets.
    #[serde(rename = "4.00")]
    V4_00,
    /// 4.01: same layout as 4.00.
    #[serde(rename = "4.01")]
    V4_01,
    /// 5.00: adds FACS facial animation data.
    #[serde(rename = "5.00")]
    V5_00,
    /// 6.00: chunked layout.
    #[serde(rename = "6.00")]
    V6_00,
    /// 7.00: chunked layout with a Draco-compressed core mesh.
    #[serde(rename = "7.00")]
    V7_00,
}

impl Version {
    /// Every version, oldest first.
    pub const ALL: [Version; 10] = [
        Version::V1_00,
        Version::V1_01,
        Version::V2_00,
        Version::V3_00,
        Version::V3_01,
        Version::V4_00,
        Version::V4_01,
        Version::V5_00,
        Version::V6_00,
        Version::V7_00,
    ];

    /// The number as written in the file, e.g. `"4.01"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Version::V1_00 => "1.00",
            Version::V1_01 => "1.01",
            Version::V2_00 => "2.00",
            Version::V3_00 => "3.00",
            Version::V3_01 => "3.01",
            Version::V4_00 => "4.00",
            Version::V4_01 => "4.01",
            Version::V5_00 => "5.00",
            Version::V6_00 => "6.00",
            Version::V7_00 => "7.00",
        }
    }

    /// The version line as written in a binary file, newline included.
    pub fn line(self) -> [u8; 13] {
        let mut line = *b"version 0.00\n";
        line[8..12].copy_from_slice(self.as_str().as_bytes());
        line
    }

    /// Parses the first 12 bytes of a file (`version X.YY`), if they name a known version.
    pub fn from_line(bytes: &[u8]) -> Option<Version> {
        let rest = bytes.strip_prefix(b"version ")?;
        let num = rest.get(..4)?;
        Version::ALL
            .into_iter()
            .find(|v| v.as_str().as_bytes() == num)
    }

    /// 3.00 and later store LOD offsets.
    pub fn has_lods(self) -> bool {
        self >= Version::V3_00
    }

    /// 4.00 and later store bones, skinning and subsets.
    pub fn has_skinning(self) -> bool {
        self >= Version::V4_00
    }

    /// 5.00 and later store FACS data.
    pub fn has_facs(self) -> bool {
        self >= Version::V5_00
    }

    /// 1.00 and 1.01 are text.
    pub fn is_text(self) -> bool {
        self <= Version::V1_01
    }

    /// 6.00 and later are chunked.
    pub fn is_chunked(self) -> bool {
        self >= Version::V6_00
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Version {
    type Err = String;

    /// Accepts `4.01`, `4.1`, `v4.01` and `version 4.01`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        let t = t.strip_prefix("version ").unwrap_or(t);
        let t = t.strip_prefix('v').unwrap_or(t);
        Version::ALL
            .into_iter()
            .find(|v| {
                v.as_str() == t || {
                    let (maj, min) = v.as_str().split_at(2);
                    t.strip_prefix(maj)
                        .and_then(|m| m.parse::<u32>().ok())
                        .is_some_and(|m| format!("{m:02}") == min && !t.ends_with('.'))
                }
            })
            .ok_or_else(|| {
                format!(
                    "unknown FileMesh version {s:?} (known: {})",
                    Version::ALL.map(|v| v.as_str()).join(", ")
                )
            })
    }
}
