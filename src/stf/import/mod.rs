//! A new STF file from a format-neutral [`Scene`] (`meshcodec import … --to stf`, and
//! conversions into STF); `docs/stf-write.md` says what is written and why.
//!
//! The document is what `stf_blender`'s importer reads: an `stf` header (`version`,
//! `root`, `asset_info`, `generator`, `generator_version`, `timestamp`,
//! `metric_multiplier`), a root `stf.prefab` whose `root_nodes` are one `stf.node` per
//! mesh (identity `trs`, no children), each with an `stf.instance.mesh` naming its
//! `stf.mesh`. Resource and buffer references are written in the new style (indices
//! into `referenced_resources` / `referenced_buffers`). A scene with a skeleton also gets
//! an armature (on a node of its own, the prefab's first), skin weights on its skinned
//! meshes and its animations (`rig.rs`).
//!
//! Each scene mesh of level of detail 0 becomes one `stf.mesh`:
//!
//! - every triangle is a face of one triangle, with three face corners of its own, in
//!   order (the importer makes a face's corners its sorted corner indices and takes
//!   per-corner data by corner index, so corners are numbered face by face);
//! - every scene vertex is a split (normal, UV sets, colour); splits share a vertex
//!   (position) when their positions and all their morph target deltas are the same
//!   bits, so the mesh is connected where the source was;
//! - a triangle that would name a vertex twice, or the same vertices as an earlier
//!   triangle, gets vertices (and splits) of its own: Blender's mesh validation would
//!   otherwise remove it and the per-corner data would no longer line up;
//! - several primitives become material slots (`material_slots` all `null`, as the
//!   scene has no materials) with `material_indices`;
//! - a primitive without normals is faceted (glTF shades it flat): each triangle's
//!   corners get splits of their own with the face normal, and its faces are listed in
//!   `sharp_face_indices`;
//! - a primitive without a UV set or colours that another primitive of the mesh has
//!   gets zero UVs and white;
//! - a split's skin (joints and weights) is part of what makes splits share a vertex;
//! - morph targets become blendshapes (by position in the primitives' lists; name and
//!   default weight from the first primitive that has it), with only the vertices that
//!   move listed (`indices`) when that is smaller.
//!
//! The numbers are written in STF's +Y-up axes (a +Z-up scene is turned first,
//! [`Scene::to_y_up`]); UVs as stored (STF's UV origin is the image's top left, as the
//! scene's: `stf_blender` turns V into `1 − V`).

mod mesh;
mod rig;

use std::borrow::Cow;

use serde_json::{json, Map, Value};

use super::model::StfMesh;
use super::raw::StfContainer;
use super::write::{fnv, IdSource};
use crate::error::{Error, ErrorKind, Result};
use crate::scene::{ExportMesh, Scene, UpAxis};
use mesh::Narrow;

/// The STF document version written (`stf.version`).
pub const DOCUMENT_VERSION: [u32; 2] = [0, 1];

/// A new STF file holding the scene's meshes of level of detail 0 (see the
/// [module docs](self)). `name` is the asset name (`asset_info.asset_name`, and the
/// prefab's); empty: the first mesh's name. The scene is taken: each mesh's arrays are
/// moved into the file's buffers, not copied (a caller that keeps its scene gives a
/// clone).
///
/// Meshes of other levels of detail and bind-pose scales are not written
/// ([`crate::import`] reports them as losses). Errors: a scene that does not pass
/// [`Scene::check`], or one without a mesh of level 0.
pub fn from_scene(scene: Scene, name: &str) -> Result<StfContainer> {
    from_scene_counted(Cow::Owned(scene), name).map(|(c, _)| c)
}

/// What a new file holds, as [`super::StfContainer::info`] counts it: meshes, vertices
/// and triangles.
pub(crate) type Counts = [usize; 3];

/// [`from_scene`], and what the file holds, counted from the meshes before they are
/// written. A borrowed scene's meshes are copied one at a time as each is built; an
/// owned one's arrays are moved. Either way each mesh is written straight from its
/// scene arrays (the source [`mesh`] builds), each array dropped once its buffer is made.
pub(crate) fn from_scene_counted(
    scene: Cow<'_, Scene>,
    name: &str,
) -> Result<(StfContainer, Counts)> {
    new_file(scene, name, timestamp())
}

/// [`from_scene_counted`] with the time stamp given.
fn new_file(scene: Cow<'_, Scene>, name: &str, stamp: String) -> Result<(StfContainer, Counts)> {
    let (skeleton, meshes) = skeleton(scene, name, stamp)?;
    let counts = [
        meshes.len(),
        meshes.iter().map(|m| m.counts().0).sum(),
        meshes.iter().map(|m| m.counts().1).sum(),
    ];
    let out = super::write::replace(&skeleton, meshes)?.unwrap_or(skeleton);
    Ok((out, counts))
}

/// The new file's document, every mesh's `stf.mesh` holding its type and name only, no
/// buffers; and each mesh, built ([`mesh::narrow`]) with its resource's id and name.
fn skeleton(
    mut scene: Cow<'_, Scene>,
    name: &str,
    stamp: String,
) -> Result<(StfContainer, Vec<Narrow>)> {
    scene.check()?;
    if scene.up != UpAxis::Y {
        scene.to_mut().to_y_up();
    }
    let (meshes, rigging): (Vec<Cow<'_, ExportMesh>>, _) = match scene {
        Cow::Borrowed(s) => (
            s.meshes
                .iter()
                .filter(|m| m.lod == 0)
                .map(Cow::Borrowed)
                .collect(),
            s.skeleton
                .as_ref()
                .map(|k| (Cow::Borrowed(k), Cow::Borrowed(s.animations.as_slice()))),
        ),
        Cow::Owned(s) => {
            let animations = Cow::Owned(s.animations);
            (
                s.meshes
                    .into_iter()
                    .filter(|m| m.lod == 0)
                    .map(Cow::Owned)
                    .collect(),
                s.skeleton.map(|k| (Cow::Owned(k), animations)),
            )
        }
    };
    if meshes.is_empty() {
        return Err(Error::new(
            "STF",
            ErrorKind::Invalid("the scene has no mesh (of level of detail 0) to write".into()),
        ));
    }
    let mut hash = Vec::new();
    for m in &meshes {
        hash.extend_from_slice(m.name.as_bytes());
        for p in &m.primitives {
            for v in p.positions.iter().flatten() {
                hash.extend_from_slice(&v.to_le_bytes());
            }
        }
    }
    let mut ids = IdSource::seeded(fnv(&hash));
    drop(hash);
    let asset = if name.is_empty() {
        meshes.first().map(|m| m.name.clone()).unwrap_or_default()
    } else {
        name.to_string()
    };
    let mut resources = Map::new();
    let prefab_id = ids.next();
    let mut node_ids = Vec::new();
    let mut built = Vec::new();
    // The armature (its node the prefab's first, so that it is imported before the
    // meshes that name it) and the animations.
    let (rig, animation_ids) = match &rigging {
        Some((skeleton, animations)) => {
            let rig = rig::armature(skeleton, "Armature", &mut ids, &mut resources);
            node_ids.push(rig.node.clone());
            let animation_ids = rig::animations(animations, &rig, &mut ids, &mut resources);
            (Some(rig), animation_ids)
        }
        None => (None, Vec::new()),
    };
    drop(rigging);
    let mut skin_buffers = Vec::new();
    for (k, m) in meshes.into_iter().enumerate() {
        let mesh_name = if m.name.is_empty() {
            format!("Mesh {k}")
        } else {
            m.name.clone()
        };
        let (node, instance, mesh) = (ids.next(), ids.next(), ids.next());
        resources.insert(
            node.clone(),
            json!({
                "type": "stf.node",
                "name": mesh_name,
                "children": [],
                "trs": [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0]],
                "instance": 0,
                "referenced_resources": [instance],
            }),
        );
        let mut narrow = build(m, mesh.clone(), mesh_name.clone())?;
        let mut resource = Map::new();
        resource.insert("type".into(), json!("stf.mesh"));
        resource.insert("name".into(), json!(mesh_name));
        let mut instance_json = json!({
            "type": "stf.instance.mesh",
            "name": "",
            "mesh": 0,
            "referenced_resources": [mesh],
        });
        // Buffers written before the mesh's own properties: its skin and sharp faces.
        let mut slots = Vec::new();
        if let (Some(rig), Some(skin)) = (&rig, narrow.take_skin()) {
            let keys = rig::skin(rig, &skin, &mut ids, &mut skin_buffers, &mut slots);
            resource.extend(keys);
            if let Some(o) = instance_json.as_object_mut() {
                o.insert("armature_instance".into(), json!(1));
                o.insert("referenced_resources".into(), json!([mesh, rig.node]));
            }
        }
        if let Some(bytes) = narrow.take_sharp_faces() {
            let id = ids.next();
            resource.insert("sharp_face_indices".into(), json!(slots.len()));
            slots.push(id.clone());
            skin_buffers.push((id, bytes));
        }
        if !slots.is_empty() {
            resource.insert("referenced_buffers".into(), json!(slots));
        }
        resources.insert(instance, instance_json);
        resources.insert(mesh, Value::Object(resource));
        node_ids.push(node);
        built.push(narrow);
    }
    let nodes = node_ids.len();
    let animations = (nodes..nodes + animation_ids.len()).collect::<Vec<_>>();
    node_ids.extend(animation_ids);
    resources.insert(
        prefab_id.clone(),
        json!({
            "type": "stf.prefab",
            "name": asset,
            "root_nodes": (0..nodes).collect::<Vec<_>>(),
            "animations": animations,
            "referenced_resources": node_ids,
        }),
    );
    let mut table = Map::new();
    let mut buffers = Vec::with_capacity(skin_buffers.len());
    for (k, (id, bytes)) in skin_buffers.into_iter().enumerate() {
        table.insert(id, json!({"type": "stf.buffer.included", "index": k}));
        buffers.push(bytes);
    }
    let doc = json!({
        "stf": {
            "version": DOCUMENT_VERSION,
            "root": prefab_id,
            "asset_info": {"asset_name": asset},
            "generator": "meshcodec",
            "generator_version": env!("CARGO_PKG_VERSION"),
            "timestamp": stamp,
            "metric_multiplier": 1,
        },
        "resources": resources,
        "buffers": table,
    });
    let json = serde_json::to_vec(&doc)
        .map_err(|e| Error::new("STF", ErrorKind::Inconsistent(e.to_string())))?;
    let skeleton = StfContainer {
        json: json.into(),
        buffers,
        ..StfContainer::default()
    };
    Ok((skeleton, built))
}

/// The current time as RFC 3339 UTC (`2026-01-02T03:04:05+00:00`), or the time
/// `SOURCE_DATE_EPOCH` gives (seconds since 1970), as reproducible builds ask, so the
/// same input can give the same bytes.
fn timestamp() -> String {
    let fixed = std::env::var("SOURCE_DATE_EPOCH")
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok());
    timestamp_at(fixed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs())
    }))
}

/// Seconds since 1970-01-01 UTC as RFC 3339.
fn timestamp_at(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}+00:00",
        rem / 3600,
        (rem / 60) % 60,
        rem % 60
    )
}

/// One scene mesh as an [`StfMesh`] (id and name left to the caller).
///
/// # Errors
///
/// [`ErrorKind::Inconsistent`] for a mesh whose splits and triangle corners do not
/// number in 32 bits (over four billion).
pub fn mesh_model(m: &ExportMesh) -> Result<StfMesh> {
    let name = m.name.clone();
    Ok(build(Cow::Borrowed(m), String::new(), name)?.into_model())
}

/// One scene mesh built ([`mesh::narrow`]) as the resource `id` named `name`: an owned
/// mesh's arrays are moved in, a borrowed one's copied. One place decides the vertices,
/// splits and triangles, for the writer and for [`mesh_model`].
fn build(m: Cow<'_, ExportMesh>, id: String, name: String) -> Result<Narrow> {
    if !mesh::fits(&m) {
        return Err(Error::new(
            "STF",
            ErrorKind::Inconsistent(format!(
                "mesh {:?}: more splits and triangle corners than 32-bit indices number",
                m.name
            )),
        ));
    }
    Ok(mesh::narrow(m.into_owned(), id, name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_civil_dates() {
        assert_eq!(timestamp_at(0), "1970-01-01T00:00:00+00:00");
        // 2000-02-29 (a leap day of a century leap year), 12:34:56.
        assert_eq!(
            timestamp_at(951_782_400 + 12 * 3600 + 34 * 60 + 56),
            "2000-02-29T12:34:56+00:00"
        );
        assert_eq!(timestamp_at(1_764_028_800), "2025-11-25T00:00:00+00:00");
        assert_eq!(timestamp_at(4_102_444_799), "2099-12-31T23:59:59+00:00");
    }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod direct_tests {
    use super::*;
    use crate::file::{open, ExportOptions, MeshFile};
    use crate::scene::{MorphTarget, Primitive};
    use crate::Limits;

    /// The bytes through the model (each mesh's [`Narrow::into_model`] written by
    /// [`crate::stf::replace_meshes`]) and the writer's straight from the scene's arrays
    /// (the [`Narrow`] source), for one scene (name `name`).
    fn both(scene: &Scene, name: &str) -> (Result<Vec<u8>>, Result<Vec<u8>>) {
        let stamp = "2026-01-02T03:04:05+00:00".to_string();
        let model =
            skeleton(Cow::Borrowed(scene), name, stamp.clone()).and_then(|(skeleton, meshes)| {
                let models: Vec<StfMesh> = meshes.into_iter().map(Narrow::into_model).collect();
                crate::stf::replace_meshes(&skeleton, models)?.into_bytes()
            });
        let direct =
            new_file(Cow::Owned(scene.clone()), name, stamp).and_then(|(c, _)| c.into_bytes());
        (model, direct)
    }

    fn assert_same(scene: &Scene, what: &str) {
        for name in ["", "asset"] {
            match both(scene, name) {
                (Ok(a), Ok(b)) => assert!(a == b, "{what}: the direct bytes differ"),
                (a, b) => assert_eq!(
                    a.map_err(|e| e.to_string()),
                    b.map_err(|e| e.to_string()),
                    "{what}"
                ),
            }
        }
    }

    /// Every fixture and corpus file that gives a scene is written the same by the direct
    /// writer as through the model (both +Z-up and +Y-up scenes).
    #[test]
    fn direct_writer_gives_the_model_bytes_on_fixtures_and_corpus() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let corpus = crate::test_corpus_roblox();
        let mut dirs: Vec<std::path::PathBuf> = std::fs::read_dir(root.join("roundtrip-fixtures"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .collect();
        if let Some(c) = corpus.parent() {
            dirs.extend(
                std::fs::read_dir(c)
                    .into_iter()
                    .flatten()
                    .flatten()
                    .map(|e| e.path()),
            );
        }
        let mut checked = 0;
        for dir in dirs {
            for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let Ok(bytes) = std::fs::read(e.path()) else {
                    continue;
                };
                let Ok(file) = open(&bytes) else {
                    continue;
                };
                let Ok(scene) = file.to_scene(&ExportOptions::default(), &Limits::default()) else {
                    continue;
                };
                let what = e.path().display().to_string();
                assert_same(&scene, &what);
                let mut y_up = scene;
                y_up.to_y_up();
                assert_same(&y_up, &what);
                checked += 1;
            }
        }
        assert!(checked >= 40, "{checked} files");
    }

    fn prim(n: usize, seed: u32) -> Primitive {
        let f = |i: usize, k: u32| ((i as u32 * 7 + k * 3 + seed) % 5) as f32 * 0.5;
        Primitive {
            name: format!("p{seed}"),
            positions: (0..n).map(|i| [f(i, 0), f(i, 1), f(i / 2, 2)]).collect(),
            triangles: (0..n.saturating_sub(2))
                .map(|i| [i as u32, (i + 1) as u32, ((i * 5 + 2) % n) as u32])
                .chain([[0, 0, 1], [1, 2, 3], [3, 2, 1]])
                .collect(),
            ..Primitive::default()
        }
    }

    /// Scenes with what the model handles specially: several primitives with and without
    /// normals, colours, UV sets and morph targets, shared and repeated positions,
    /// degenerate and repeated triangles, blendshapes that move few or many vertices,
    /// and NaNs (signalling too).
    #[test]
    fn direct_writer_gives_the_model_bytes_on_odd_scenes() {
        let mut a = prim(12, 1);
        a.normals = Some((0..12).map(|i| [0.0, 1.0, i as f32]).collect());
        a.colors = Some((0..12).map(|i| [0.5, 0.25, 1.0, i as f32 / 12.0]).collect());
        a.uvs = Some((0..12).map(|i| [i as f32, f32::NAN]).collect());
        a.morph_targets = vec![
            MorphTarget {
                name: "few".into(),
                position_deltas: (0..12)
                    .map(|i| if i == 3 { [1.0, 0.0, 0.0] } else { [0.0; 3] })
                    .collect(),
                default_weight: 0.25,
            },
            MorphTarget {
                name: "all".into(),
                position_deltas: (0..12).map(|i| [i as f32, -0.0, 0.5]).collect(),
                default_weight: 2.0,
            },
        ];
        a.positions[5] = [f32::from_bits(0x7f80_0001), 0.0, 0.0]; // signalling NaN
        a.positions[6] = [f32::from_bits(0x7fc0_0001), 0.0, 0.0];
        a.positions[7] = [-0.0, 0.0, 0.0];
        let mut b = prim(7, 2);
        b.extra_uvs = vec![(0..7).map(|i| [0.0, i as f32]).collect()];
        b.morph_targets = vec![MorphTarget {
            name: String::new(),
            position_deltas: vec![[0.0; 3]; 7],
            default_weight: -1.0,
        }];
        let c = prim(300, 3);
        let mut d = prim(5, 4);
        d.uvs = Some(vec![[0.1, 0.2]; 5]);
        d.extra_uvs = vec![vec![[0.3, 0.4]; 5], vec![[0.5, 0.6]; 5]];
        let scenes = [
            vec![a.clone()],
            vec![a.clone(), b.clone()],
            vec![b.clone(), c.clone(), d.clone()],
            vec![c.clone()],
            vec![d.clone(), a.clone()],
        ];
        for (k, prims) in scenes.into_iter().enumerate() {
            let scene = Scene {
                meshes: vec![
                    ExportMesh {
                        name: format!("mesh {k}"),
                        primitives: prims,
                        lod: 0,
                    },
                    ExportMesh {
                        name: String::new(),
                        primitives: vec![d.clone()],
                        lod: 0,
                    },
                    ExportMesh {
                        name: "coarse".into(),
                        primitives: vec![c.clone()],
                        lod: 1,
                    },
                ],
                up: UpAxis::Y,
                ..Scene::default()
            };
            assert_same(&scene, &format!("scene {k}"));
        }
    }
}
