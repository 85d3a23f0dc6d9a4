//! Property testing for your own code: [`proptest`](https://docs.rs/proptest) strategies
//! that make valid files of every format and version this crate reads (feature
//! `proptest`, off by default).
//!
//! A crate that exports, imports or edits meshes tests its own code against what real
//! files hold (skinning, FACS, LODs, Draco COREMESH, chunks in other orders, CSGPHS hulls
//! and version 8 frames, CSGMDL, ms14 blocks, UNIGINE animations, STF buffers) without
//! writing a generator: files as bytes ([`any_file`], one function per format), the
//! editable models and scenes behind them (the submodules, [`scene`]), and
//! [`damaged`] copies of any file for a reader that must survive hostile input. The
//! crate's own property tests use these same strategies.
//!
//! Every file these strategies make opens ([`crate::open`]) and is written back byte
//! for byte. Files made from the models also pass [`MeshFile::check`]; the raw ones hold
//! any bit pattern a reader must keep (NaN payloads, header tails, unknown chunks), and
//! `check` may refuse what they carry, as it refuses such real files.
//!
//! ```toml
//! [dev-dependencies]
//! meshcodec = { version = "0.1", features = ["proptest"] }
//! proptest = "1"
//! ```
//!
//! ```
//! use meshcodec::{open, MeshFile};
//! use proptest::prelude::*;
//!
//! proptest! {
//!     #![proptest_config(ProptestConfig::with_cases(64))]
//!     # /*
//!     #[test]
//!     # */
//!     fn every_file_writes_back(bytes in meshcodec::strategy::any_file()) {
//!         let file = open(&bytes).unwrap();
//!         prop_assert_eq!(file.write().unwrap(), bytes);
//!     }
//!
//!     # /*
//!     #[test]
//!     # */
//!     fn my_exporter_takes_any_5_00_mesh(bytes in meshcodec::strategy::filemesh("5.00")) {
//!         let scene = open(&bytes).unwrap().to_scene(&Default::default(), &Default::default());
//!         // … your exporter here; a raw file's contents may not make a scene.
//!         let _ = scene;
//!     }
//! }
//! # every_file_writes_back();
//! # my_exporter_takes_any_5_00_mesh();
//! ```
//!
//! Bigger files: every strategy takes a [`Size`], and the free functions use
//! [`Size::default`]. `Size::new(10).filemesh("7.00")` makes arrays ten times as long.
// Generators index arrays they have just built, with indices they chose in range.
#![allow(clippy::indexing_slicing)]

pub mod csg;
pub mod filemesh;
pub mod stf;
pub mod unigine;

use proptest::prelude::*;

use crate::file::{ExportOptions, Format, MeshFile};
use crate::scene::Scene;
use crate::Limits;

/// How big the generated values get: every array's length bound is its default bound
/// times this scale (at least 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Size {
    scale: usize,
}

impl Default for Size {
    /// Scale 1: a few to a few dozen elements per array, quick to run hundreds of cases.
    fn default() -> Size {
        Size { scale: 1 }
    }
}

impl Size {
    /// Arrays `scale` times as long as [`Size::default`] makes them.
    pub fn new(scale: usize) -> Size {
        Size {
            scale: scale.max(1),
        }
    }

    /// The bound `base` (the default one) at this size.
    pub fn n(self, base: usize) -> usize {
        base.saturating_mul(self.scale)
    }

    /// [`any_file`] at this size.
    pub fn any_file(self) -> BoxedStrategy<Vec<u8>> {
        let strategies: Vec<(u32, BoxedStrategy<Vec<u8>>)> = versions()
            .into_iter()
            .map(|(format, version)| (1, self.file(format, &version)))
            .collect();
        proptest::strategy::Union::new_weighted(strategies).boxed()
    }

    /// A file of `format` and `version` (as [`versions`] names them).
    ///
    /// # Panics
    ///
    /// For a version [`versions`] does not list.
    pub fn file(self, format: Format, version: &str) -> BoxedStrategy<Vec<u8>> {
        let number = |prefix: &str| -> u32 {
            version
                .strip_prefix(prefix)
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or_else(|| panic!("strategy: {version:?} is not a {prefix} version"))
        };
        match format {
            Format::FileMesh => self.filemesh(version),
            Format::Csgphs => self.csgphs(number("CSGPHS")),
            Format::Csgmdl => self.csgmdl(number("CSGMDL")),
            Format::Csgk => csg::csgk_file(),
            Format::UnigineMesh => self.unigine_mesh(version),
            Format::UnigineAnim => self.unigine_anim(version),
            Format::Stf => self.stf(),
        }
    }

    /// [`filemesh()`] at this size.
    pub fn filemesh(self, version: &str) -> BoxedStrategy<Vec<u8>> {
        let v = version
            .parse()
            .unwrap_or_else(|_| panic!("strategy::filemesh({version:?}): 1.00 to 7.00"));
        filemesh::file(v, self)
    }

    /// [`csgphs`] at this size.
    pub fn csgphs(self, version: u32) -> BoxedStrategy<Vec<u8>> {
        assert!(
            crate::csg::phs::model::CSGPHS_VERSIONS.contains(&version),
            "strategy::csgphs({version}): 0, 3, 5, 6, 7, 8"
        );
        csg::csgphs_file(version, self)
    }

    /// [`csgmdl`] at this size.
    pub fn csgmdl(self, version: u32) -> BoxedStrategy<Vec<u8>> {
        assert!(
            crate::csg::mdl::raw::CSGMDL_VERSIONS.contains(&version),
            "strategy::csgmdl({version}): 2, 4, 5"
        );
        csg::csgmdl_file(version, self)
    }

    /// [`unigine_mesh`] at this size.
    pub fn unigine_mesh(self, version: &str) -> BoxedStrategy<Vec<u8>> {
        unigine::mesh_file(version, self)
    }

    /// [`unigine_anim`] at this size.
    pub fn unigine_anim(self, version: &str) -> BoxedStrategy<Vec<u8>> {
        unigine::anim_file(version, self)
    }

    /// [`stf()`] at this size.
    pub fn stf(self) -> BoxedStrategy<Vec<u8>> {
        stf::file(self)
    }

    /// [`scene()`] at this size.
    pub fn scene(self) -> BoxedStrategy<Scene> {
        let from = |bytes: Vec<u8>| -> Option<Scene> {
            let options = ExportOptions {
                name: "mesh".into(),
                ..ExportOptions::default()
            };
            let scene = crate::open(&bytes)
                .ok()?
                .into_scene(&options, &Limits::default())
                .ok()?;
            scene.check().ok()?;
            Some(scene)
        };
        let filemesh = filemesh::mesh(self).prop_filter_map("a scene", move |m| {
            let scene = crate::filemesh::scene::to_scene(m, "mesh", 0).ok()?;
            scene.check().ok()?;
            Some(scene)
        });
        let unigine = unigine::classic_mesh(crate::unigine::MeshVersion::Ms13, self)
            .prop_filter_map("a scene", move |m| from(m.write().ok()?));
        let union = csg::union_mesh(self)
            .prop_filter_map("a scene", move |m| from(m.to_blob(5).ok()?.write().ok()?));
        prop_oneof![2 => filemesh, 1 => unigine, 1 => union].boxed()
    }
}

/// Every (format, version) [`any_file`] makes, each version named as
/// [`MeshFile::version_name`] names it (and as the per-format functions take it).
pub fn versions() -> Vec<(Format, String)> {
    use crate::filemesh::raw::Version;
    let mut v: Vec<(Format, String)> = Version::ALL
        .iter()
        .map(|v| (Format::FileMesh, v.to_string()))
        .collect();
    v.extend(
        crate::csg::phs::model::CSGPHS_VERSIONS
            .iter()
            .map(|n| (Format::Csgphs, format!("CSGPHS {n}"))),
    );
    v.extend(
        crate::csg::mdl::raw::CSGMDL_VERSIONS
            .iter()
            .map(|n| (Format::Csgmdl, format!("CSGMDL {n}"))),
    );
    v.push((Format::Csgk, "CSGK".into()));
    for m in ["ms10", "ms11", "ms12", "ms13", "ms14"] {
        v.push((Format::UnigineMesh, m.into()));
    }
    for a in ["an10", "an11"] {
        v.push((Format::UnigineAnim, a.into()));
    }
    // The container version new documents carry.
    v.push((Format::Stf, "0.0".into()));
    v
}

/// Valid files of every format and version ([`versions`]), equally likely, as bytes.
pub fn any_file() -> BoxedStrategy<Vec<u8>> {
    Size::default().any_file()
}

/// Roblox FileMesh files of `version` (`"1.00"` … `"7.00"`): raw values of any bits
/// and meshes the model writes, with skinning, FACS, LODs, HSR visibility, Draco or
/// COREMESH v1, chunks in any order and chunks unknown ([`mod@filemesh`]).
///
/// # Panics
///
/// For a version that is not 1.00 to 7.00.
pub fn filemesh(version: &str) -> BoxedStrategy<Vec<u8>> {
    Size::default().filemesh(version)
}

/// CSGPHS blobs of `version` (0, 3, 5, 6, 7, 8): raw hull records of any bits, and hulls
/// written from the model (version 8: zstd frames holding Edgebreaker-coded hulls).
///
/// # Panics
///
/// For a version CSGPHS does not have.
pub fn csgphs(version: u32) -> BoxedStrategy<Vec<u8>> {
    Size::default().csgphs(version)
}

/// CSGMDL union graphics of `version` (2, 4, 5).
///
/// # Panics
///
/// For another version.
pub fn csgmdl(version: u32) -> BoxedStrategy<Vec<u8>> {
    Size::default().csgmdl(version)
}

/// UNIGINE `.mesh` files of `version` (`"ms10"` … `"ms14"`): surfaces with morph
/// targets, skin weights, embedded animations; ms14 with LZ4 blocks that decode.
///
/// # Panics
///
/// For a version the crate does not write.
pub fn unigine_mesh(version: &str) -> BoxedStrategy<Vec<u8>> {
    Size::default().unigine_mesh(version)
}

/// UNIGINE `.anim` files of `version` (`"an10"`, `"an11"`).
///
/// # Panics
///
/// For another version.
pub fn unigine_anim(version: &str) -> BoxedStrategy<Vec<u8>> {
    Size::default().unigine_anim(version)
}

/// STF documents: `stf.mesh` resources with their buffers ([`stf::document`]).
pub fn stf() -> BoxedStrategy<Vec<u8>> {
    Size::default().stf()
}

/// Format-neutral scenes that pass [`Scene::check`]: skinned FileMesh models, UNIGINE
/// meshes with morph targets and animations, union graphics.
pub fn scene() -> BoxedStrategy<Scene> {
    Size::default().scene()
}

/// Damaged copies of `bytes`: bytes changed, counts set huge, spans cut out, repeated or
/// swapped, the file cut short, junk appended. A reader must give an error or a value
/// for each, never panic, hang or allocate without bound; whatever it accepts it should
/// write back as given.
///
/// ```
/// use meshcodec::{open, MeshFile};
/// use proptest::prelude::*;
/// use proptest::test_runner::TestRunner;
/// use meshcodec::strategy::{any_file, damaged};
///
/// TestRunner::new(ProptestConfig::with_cases(64))
///     .run(&any_file().prop_flat_map(damaged), |bytes| {
///         if let Ok(file) = open(&bytes) {
///             prop_assert_eq!(file.write().unwrap(), bytes);
///         }
///         Ok(())
///     })
///     .unwrap();
/// ```
pub fn damaged(bytes: Vec<u8>) -> BoxedStrategy<Vec<u8>> {
    let edits = proptest::collection::vec(damage(), 1..4);
    (Just(bytes), edits)
        .prop_map(|(mut bytes, edits)| {
            for e in edits {
                e.apply(&mut bytes);
            }
            bytes
        })
        .boxed()
}

/// A place in a file, as a fraction of its length (in 65,536ths): one edit applies to
/// files of any length.
#[derive(Clone, Copy, Debug)]
struct Spot(u16);

impl Spot {
    /// The byte position in `len` bytes (below `len` when `len` > 0).
    fn index(self, len: usize) -> usize {
        (usize::from(self.0) * len) >> 16
    }
}

/// One change [`damaged`] makes.
#[derive(Clone, Debug)]
enum Damage {
    Byte(Spot, u8),
    Count(Spot, u32),
    Cut(Spot, usize),
    Repeat(Spot, usize),
    Swap(Spot, Spot),
    Truncate(Spot),
    Append(Vec<u8>),
}

fn damage() -> impl Strategy<Value = Damage> {
    prop_oneof![
        4 => (any::<u16>().prop_map(Spot), any::<u8>()).prop_map(|(i, b)| Damage::Byte(i, b)),
        2 => (any::<u16>().prop_map(Spot), prop_oneof![Just(u32::MAX), Just(0x8000_0000), Just(0x10_0000), any::<u32>()])
            .prop_map(|(i, c)| Damage::Count(i, c)),
        1 => (any::<u16>().prop_map(Spot), 1usize..16).prop_map(|(i, n)| Damage::Cut(i, n)),
        1 => (any::<u16>().prop_map(Spot), 1usize..16).prop_map(|(i, n)| Damage::Repeat(i, n)),
        1 => (any::<u16>().prop_map(Spot), any::<u16>().prop_map(Spot)).prop_map(|(a, b)| Damage::Swap(a, b)),
        2 => any::<u16>().prop_map(Spot).prop_map(Damage::Truncate),
        1 => proptest::collection::vec(any::<u8>(), 1..16).prop_map(Damage::Append),
    ]
}

impl Damage {
    fn apply(self, bytes: &mut Vec<u8>) {
        let len = bytes.len();
        if len == 0 {
            if let Damage::Append(tail) = self {
                bytes.extend(tail);
            }
            return;
        }
        match self {
            Damage::Byte(i, b) => bytes[i.index(len)] = b,
            Damage::Count(i, c) => {
                let at = i.index(len);
                for (k, b) in c.to_le_bytes().into_iter().enumerate() {
                    if let Some(slot) = bytes.get_mut(at + k) {
                        *slot = b;
                    }
                }
            }
            Damage::Cut(i, n) => {
                let at = i.index(len);
                bytes.drain(at..(at + n).min(len));
            }
            Damage::Repeat(i, n) => {
                let at = i.index(len);
                let span = bytes[at..(at + n).min(len)].to_vec();
                bytes.splice(at..at, span);
            }
            Damage::Swap(a, b) => bytes.swap(a.index(len), b.index(len)),
            Damage::Truncate(i) => bytes.truncate(i.index(len)),
            Damage::Append(tail) => bytes.extend(tail),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn damage_changes_or_keeps_the_length_as_said() {
        let mut b = vec![1, 2, 3, 4, 5, 6];
        Damage::Cut(Spot(0x8000), 2).apply(&mut b);
        assert_eq!(b, [1, 2, 3, 6]);
        Damage::Repeat(Spot(0), 2).apply(&mut b);
        assert_eq!(b, [1, 2, 1, 2, 3, 6]);
        Damage::Truncate(Spot(0x8000)).apply(&mut b);
        assert_eq!(b, [1, 2, 1]);
    }
}
