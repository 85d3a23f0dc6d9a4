//! Wavefront OBJ export ([`to_obj`]).
//!
//! After a header comment, each primitive with triangles becomes an object and group
//! named `<mesh>/<primitive>` (`o` and `g` lines), then its vertices (`v x y z`, or
//! `v x y z r g b` when it has colours — the common extension; alpha is dropped), its
//! UVs (`vt u v`), its normals (`vn x y z`) and its faces (`f`). Indices are 1-based and
//! count over the whole file; a face names the UV and normal of each vertex where the
//! primitive has them (`a`, `a/b`, `a//c` or `a/b/c`).
//!
//! Numbers are written in Rust's shortest round-trip form of the `f32`, so a reader
//! parsing them as `f32` gets the same values back. Primitives without triangles are
//! left out, as in the glTF export. OBJ has no skins and no morph targets: the skeleton,
//! the primitives' joints and weights, and their morph targets are ignored (the base
//! shape is written).
//!
//! # Example
//!
//! ```
//! use meshcodec::{open, scene::obj, Limits, MeshFile};
//!
//! let s = open(include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/roundtrip-fixtures/filemesh/v4.01-bones.mesh")))?.to_scene(&Default::default(), &Limits::default())?;
//! let text = obj::to_obj(&s)?;
//! let faces = text.lines().filter(|l| l.starts_with("f ")).count();
//! assert_eq!(faces, s.meshes[0].primitives.iter().map(|p| p.triangles.len()).sum::<usize>());
//! assert!(!obj::losses(&s).is_empty()); // OBJ has no skin
//! # Ok::<(), meshcodec::Error>(())
//! ```

use std::fmt::Write as _;
use std::io::Write;

use super::carry::{Carries, Rig};
use super::{Primitive, Scene};
use crate::error::{Error, ErrorKind, Result};
use crate::loss::{Loss, LossKind};

/// What an OBJ export of `scene` leaves out, and what the scene's adapter already
/// changed (its notes): OBJ holds each mesh's positions, one UV set, normals and
/// colours without alpha; no skeleton, skins, morph targets or animations.
pub fn losses(scene: &Scene) -> Vec<Loss> {
    let carries = Carries {
        format: "OBJ",
        rig: Rig::None,
        morph_targets: false,
        animations: false,
        lods: true,
        extra_uv_sets: false,
        attributes: true,
        byte_colors: false,
    };
    let mut losses = scene.uncarried(&carries, "OBJ");
    let alpha = scene
        .meshes
        .iter()
        .flat_map(|m| &m.primitives)
        .flat_map(|p| p.colors.iter().flatten())
        .filter(|c| c[3] != 1.0)
        .count();
    if alpha > 0 {
        losses.push(Loss::counted(
            LossKind::Colors,
            alpha,
            format!("the alpha of {alpha} vertex colours (OBJ colours are r g b)"),
        ));
    }
    losses
}

/// The scene as Wavefront OBJ text.
///
/// Fails if a primitive is inconsistent ([`Primitive::check`]) or holds a NaN or
/// infinite value.
pub fn to_obj(scene: &Scene) -> Result<String> {
    let obj = obj(scene)?;
    let mut out = Vec::new();
    obj.write_to(&mut out)
        .map_err(|e| Error::new("OBJ export", ErrorKind::Io(e)))?;
    String::from_utf8(out).map_err(|e| Error::new("OBJ export", ErrorKind::Invalid(e.to_string())))
}

/// An OBJ export checked, not yet written: [`obj`] makes it, [`Obj::write_to`] writes
/// the text of [`to_obj`] as it is made, never holding it whole.
pub struct Obj<'a> {
    scene: &'a Scene,
}

/// Checks the scene as [`to_obj`] does, with the same errors, for [`Obj::write_to`].
pub fn obj(scene: &Scene) -> Result<Obj<'_>> {
    for p in scene.meshes.iter().flat_map(|m| &m.primitives) {
        p.check()?;
        finite(p)?;
    }
    Ok(Obj { scene })
}

/// How much text is gathered before it goes to the writer.
const PIECE: usize = 1 << 16;

impl Obj<'_> {
    /// Writes the text of [`to_obj`] to `out`, in pieces of about 64 KiB.
    pub fn write_to(&self, out: &mut dyn Write) -> std::io::Result<()> {
        let mut text = String::with_capacity(PIECE + 256);
        // Writes what is gathered once it fills a piece.
        let flush = |text: &mut String, out: &mut dyn Write| -> std::io::Result<()> {
            if text.len() >= PIECE {
                out.write_all(text.as_bytes())?;
                text.clear();
            }
            Ok(())
        };
        let _ = writeln!(text, "# Wavefront OBJ written by meshcodec");
        let (mut nv, mut nvt, mut nvn) = (0usize, 0usize, 0usize);
        for (mi, mesh) in self.scene.meshes.iter().enumerate() {
            for (pi, p) in mesh.primitives.iter().enumerate() {
                if p.triangles.is_empty() {
                    continue;
                }
                let name = format!(
                    "{}/{}",
                    clean(&mesh.name, || format!("mesh{mi}")),
                    clean(&p.name, || format!("primitive{pi}"))
                );
                let _ = writeln!(text, "o {name}");
                let _ = writeln!(text, "g {name}");
                match &p.colors {
                    Some(colors) => {
                        for ([x, y, z], [r, g, b, _]) in p.positions.iter().zip(colors) {
                            let _ = writeln!(text, "v {x} {y} {z} {r} {g} {b}");
                            flush(&mut text, out)?;
                        }
                    }
                    None => {
                        for [x, y, z] in &p.positions {
                            let _ = writeln!(text, "v {x} {y} {z}");
                            flush(&mut text, out)?;
                        }
                    }
                }
                for [u, v] in p.uvs.iter().flatten() {
                    // OBJ's V runs up from the image's bottom, glTF's down from its top.
                    let _ = writeln!(text, "vt {u} {}", flip_v(*v));
                    flush(&mut text, out)?;
                }
                for [x, y, z] in p.normals.iter().flatten() {
                    let _ = writeln!(text, "vn {x} {y} {z}");
                    flush(&mut text, out)?;
                }
                let (base_v, base_vt, base_vn) = (nv + 1, nvt + 1, nvn + 1);
                let has_uv = p.uvs.is_some();
                let has_n = p.normals.is_some();
                for t in &p.triangles {
                    text.push('f');
                    for &i in t {
                        let i = i as usize;
                        let _ = match (has_uv, has_n) {
                            (false, false) => write!(text, " {}", base_v + i),
                            (true, false) => write!(text, " {}/{}", base_v + i, base_vt + i),
                            (false, true) => write!(text, " {}//{}", base_v + i, base_vn + i),
                            (true, true) => {
                                write!(text, " {}/{}/{}", base_v + i, base_vt + i, base_vn + i)
                            }
                        };
                    }
                    text.push('\n');
                    flush(&mut text, out)?;
                }
                nv += p.positions.len();
                nvt += p.uvs.as_ref().map_or(0, Vec::len);
                nvn += p.normals.as_ref().map_or(0, Vec::len);
            }
        }
        out.write_all(text.as_bytes())
    }
}

/// A name that fits on one `o`/`g` line: control characters and `#` (a comment to many
/// readers) become `_`; an empty name is replaced by `fallback()`.
fn clean(name: &str, fallback: impl FnOnce() -> String) -> String {
    let s: String = name
        .trim()
        .chars()
        .map(|c| if c.is_control() || c == '#' { '_' } else { c })
        .collect();
    if s.is_empty() {
        fallback()
    } else {
        s
    }
}

/// Fails on the first NaN or infinite value of any array.
fn finite(p: &Primitive) -> Result<()> {
    let arrays: [(&str, Box<dyn Iterator<Item = &f32>>); 4] = [
        ("position", Box::new(p.positions.iter().flatten())),
        ("normal", Box::new(p.normals.iter().flatten().flatten())),
        ("UV", Box::new(p.uvs.iter().flatten().flatten())),
        ("colour", Box::new(p.colors.iter().flatten().flatten())),
    ];
    for (what, mut values) in arrays {
        if let Some(x) = values.find(|x| !x.is_finite()) {
            return Err(Error::new(
                "OBJ export",
                ErrorKind::Invalid(format!(
                    "primitive {:?}: {what} component {x} cannot be written to OBJ",
                    p.name
                )),
            ));
        }
    }
    Ok(())
}

/// A V coordinate between glTF's convention (origin at the image's top left, V down)
/// and OBJ's (bottom left, V up): `1 − v`, in `f64`. The difference is exact in `f64`
/// for every `f32` V of magnitude at least 2⁻²⁹ (and for 0), and written with as many
/// digits as it takes to read back, so [`crate::scene::import::read_obj`] turns it back
/// into the same `f32` (−0 as +0); smaller magnitudes come back within 2⁻⁵³.
pub(crate) fn flip_v(v: f32) -> f64 {
    1.0 - f64::from(v)
}

#[cfg(test)]
// Test code: a failed index is a failed test (and `Value` indexing cannot panic).
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::super::ExportMesh;
    use super::*;

    fn prim(name: &str, uvs: bool, normals: bool, colors: bool) -> Primitive {
        Primitive {
            extra_uvs: Vec::new(),
            material: None,
            name: name.into(),
            positions: vec![[0.1, -0.0, 1e-7], [1.0, 2.0, 3.0], [-4.5, 1e20, 0.0]],
            normals: normals.then(|| vec![[0.0, 0.0, 1.0]; 3]),
            uvs: uvs.then(|| vec![[0.0, 0.5], [1.0, 0.0], [0.25, 1.0]]),
            colors: colors.then(|| vec![[1.0, 0.5, 0.0, 0.75]; 3]),
            triangles: vec![[0, 1, 2], [2, 1, 0]],
            joints: None,
            weights: None,
            morph_targets: Vec::new(),
        }
    }

    #[test]
    fn face_forms_and_global_indices() {
        let scene = Scene {
            meshes: vec![
                ExportMesh {
                    lod: 0,
                    name: "a".into(),
                    primitives: vec![
                        prim("p", false, false, false),
                        prim("q", true, false, false),
                    ],
                },
                ExportMesh {
                    lod: 0,
                    name: "b\nc".into(),
                    primitives: vec![
                        prim("", false, true, true),
                        Primitive::default(),
                        prim("s", true, true, false),
                    ],
                },
            ],
            skeleton: None,
            notes: Vec::new(),
            animations: Vec::new(),
            up: Default::default(),
        };
        let text = to_obj(&scene).expect("obj");
        let faces: Vec<&str> = text.lines().filter(|l| l.starts_with("f ")).collect();
        assert_eq!(
            faces,
            [
                "f 1 2 3",
                "f 3 2 1",
                "f 4/1 5/2 6/3",
                "f 6/3 5/2 4/1",
                "f 7//1 8//2 9//3",
                "f 9//3 8//2 7//1",
                "f 10/4/4 11/5/5 12/6/6",
                "f 12/6/6 11/5/5 10/4/4",
            ]
        );
        let objects: Vec<&str> = text.lines().filter(|l| l.starts_with("o ")).collect();
        assert_eq!(objects, ["o a/p", "o a/q", "o b_c/primitive0", "o b_c/s"]);
        assert!(text.starts_with('#'));
        assert!(text.contains("\nv 0.1 -0 0.0000001 1 0.5 0\n"));
    }

    #[test]
    fn numbers_read_back_exactly() {
        let p = prim("p", true, true, false);
        let text = to_obj(&Scene {
            meshes: vec![ExportMesh {
                lod: 0,
                name: "m".into(),
                primitives: vec![p.clone()],
            }],
            skeleton: None,
            notes: Vec::new(),
            animations: Vec::new(),
            up: Default::default(),
        })
        .expect("obj");
        let read: Vec<[f32; 3]> = text
            .lines()
            .filter_map(|l| l.strip_prefix("v "))
            .map(|l| {
                let v: Vec<f32> = l.split(' ').map(|x| x.parse().expect("f32")).collect();
                [v.first(), v.get(1), v.get(2)].map(|x| *x.expect("3 numbers"))
            })
            .collect();
        let bits = |v: &[[f32; 3]]| v.iter().flatten().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&read), bits(&p.positions));
    }

    #[test]
    fn bad_input_is_an_error() {
        let mut p = prim("p", true, false, false);
        p.triangles.push([0, 0, 3]);
        let scene = |p| Scene {
            meshes: vec![ExportMesh {
                lod: 0,
                name: "m".into(),
                primitives: vec![p],
            }],
            skeleton: None,
            notes: Vec::new(),
            animations: Vec::new(),
            up: Default::default(),
        };
        assert!(to_obj(&scene(p)).is_err());
        let mut p = prim("p", true, false, false);
        if let Some(uv) = p.uvs.as_mut().and_then(|u| u.first_mut()) {
            uv[0] = f32::INFINITY;
        }
        assert!(to_obj(&scene(p)).is_err());
    }

    /// The text as the export made it before it was streamed: built whole in a `String`.
    fn reference(scene: &Scene) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "# Wavefront OBJ written by meshcodec");
        let (mut nv, mut nvt, mut nvn) = (0usize, 0usize, 0usize);
        for (mi, mesh) in scene.meshes.iter().enumerate() {
            for (pi, p) in mesh.primitives.iter().enumerate() {
                if p.triangles.is_empty() {
                    continue;
                }
                let name = format!(
                    "{}/{}",
                    clean(&mesh.name, || format!("mesh{mi}")),
                    clean(&p.name, || format!("primitive{pi}"))
                );
                let _ = writeln!(out, "o {name}\ng {name}");
                for (i, [x, y, z]) in p.positions.iter().enumerate() {
                    let _ = match p.colors.as_ref().map(|c| c[i]) {
                        Some([r, g, b, _]) => writeln!(out, "v {x} {y} {z} {r} {g} {b}"),
                        None => writeln!(out, "v {x} {y} {z}"),
                    };
                }
                for [u, v] in p.uvs.iter().flatten() {
                    let _ = writeln!(out, "vt {u} {}", flip_v(*v));
                }
                for [x, y, z] in p.normals.iter().flatten() {
                    let _ = writeln!(out, "vn {x} {y} {z}");
                }
                for t in &p.triangles {
                    out.push('f');
                    for &i in t {
                        let i = i as usize;
                        let v = nv + 1 + i;
                        let _ = match (&p.uvs, &p.normals) {
                            (None, None) => write!(out, " {v}"),
                            (Some(_), None) => write!(out, " {v}/{}", nvt + 1 + i),
                            (None, Some(_)) => write!(out, " {v}//{}", nvn + 1 + i),
                            (Some(_), Some(_)) => {
                                write!(out, " {v}/{}/{}", nvt + 1 + i, nvn + 1 + i)
                            }
                        };
                    }
                    out.push('\n');
                }
                nv += p.positions.len();
                nvt += p.uvs.as_ref().map_or(0, Vec::len);
                nvn += p.normals.as_ref().map_or(0, Vec::len);
            }
        }
        out
    }

    #[test]
    fn streamed_text_is_the_whole_text() {
        let mut big = prim("big", true, true, true);
        let n = 30_000;
        big.positions = (0..n).map(|i| [i as f32 * 0.1, -(i as f32), 0.5]).collect();
        big.normals = Some(vec![[0.0, 1.0, 0.0]; n]);
        big.uvs = Some((0..n).map(|i| [0.25, i as f32 / n as f32]).collect());
        big.colors = Some(vec![[1.0, 0.0, 0.5, 1.0]; n]);
        big.triangles = (0..n as u32 - 2).map(|i| [i, i + 1, i + 2]).collect();
        let scene = |primitives| Scene {
            meshes: vec![ExportMesh {
                lod: 0,
                name: "m".into(),
                primitives,
            }],
            skeleton: None,
            notes: Vec::new(),
            animations: Vec::new(),
            up: Default::default(),
        };
        let scenes = [
            Scene::default(),
            scene(vec![prim("p", false, false, false)]),
            scene(vec![
                prim("a", true, false, true),
                big,
                prim("b", false, true, false),
            ]),
        ];
        for s in &scenes {
            let expected = reference(s);
            assert!(to_obj(s).expect("obj") == expected);
            // Through a writer that takes a few bytes at a time.
            struct Trickle(Vec<u8>);
            impl Write for Trickle {
                fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
                    let n = data.len().min(7);
                    self.0.extend_from_slice(&data[..n]);
                    Ok(n)
                }
                fn flush(&mut self) -> std::io::Result<()> {
                    Ok(())
                }
            }
            let mut out = Trickle(Vec::new());
            obj(s).expect("check").write_to(&mut out).expect("write");
            assert!(out.0 == expected.as_bytes(), "{} bytes", expected.len());
        }
        assert!(reference(&scenes[2]).len() > 4 * PIECE);

        // A writer that fails: an error, after the pieces it took.
        struct FullAfter(usize);
        impl Write for FullAfter {
            fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
                if self.0 < data.len() {
                    return Err(std::io::Error::other("full"));
                }
                self.0 -= data.len();
                Ok(data.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        for room in [0, 10, PIECE * 2] {
            let err = obj(&scenes[2])
                .expect("check")
                .write_to(&mut FullAfter(room))
                .expect_err("full");
            assert_eq!(err.to_string(), "full");
        }
        // What fails the check fails before anything is written, as to_obj fails.
        let mut bad = prim("p", true, false, false);
        bad.positions[1][2] = f32::NAN;
        let bad = scene(vec![prim("q", false, false, false), bad]);
        assert_eq!(
            obj(&bad).err().map(|e| e.to_string()),
            to_obj(&bad).err().map(|e| e.to_string())
        );
        assert!(obj(&bad).is_err());
    }

    #[test]
    fn skins_and_morph_targets_are_ignored() {
        let plain = prim("p", true, true, true);
        let mut skinned = plain.clone();
        skinned.joints = Some(vec![[0, 0, 0, 0], [1, 0, 0, 0], [1, 0, 0, 0]]);
        skinned.weights = Some(vec![[1.0, 0.0, 0.0, 0.0]; 3]);
        skinned.morph_targets = vec![super::super::MorphTarget {
            name: "shape".into(),
            position_deltas: vec![[1.0, 2.0, 3.0]; 3],
            default_weight: 1.0,
        }];
        let scene = |p: Primitive, skeleton| Scene {
            meshes: vec![ExportMesh {
                lod: 0,
                name: "m".into(),
                primitives: vec![p],
            }],
            skeleton,
            notes: Vec::new(),
            animations: Vec::new(),
            up: Default::default(),
        };
        let skeleton = super::super::Skeleton {
            joints: vec![super::super::Joint::default(); 2],
        };
        assert_eq!(
            to_obj(&scene(skinned, Some(skeleton))).expect("obj"),
            to_obj(&scene(plain, None)).expect("obj")
        );
    }
}
