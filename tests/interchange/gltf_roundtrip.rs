//! glTF export read back: every fixture and corpus file of every format, exported as a
//! scene (every LOD, axes turned to glTF's), written as GLB and read again with the
//! crate's glTF reader, gives back the scene it wrote: the same meshes and levels of
//! detail, every vertex attribute bit for bit (further UV sets too), skins (joints and
//! weights), morph targets, the skeleton (names, parents, bind pose, inverse bind
//! matrices) and the animations (times and values).
//!
//! The reader is checked here against the crate's own writer; `tests/interchange/import.rs` and
//! `tests/interchange/blender.rs` check it on files other tools wrote.

use crate::common;

use std::path::PathBuf;

use meshcodec::scene::{gltf, import, ChannelValues, Scene};
use meshcodec::{ExportOptions, Limits, MeshFile};

fn every_file() -> Vec<PathBuf> {
    let mut files = common::files_below(&common::fixture_dir(""));
    if let Some(dir) = common::corpus() {
        files.extend(common::files_below(&dir));
    }
    files
}

fn bits<const N: usize>(v: &[[f32; N]]) -> Vec<u32> {
    v.iter().flatten().map(|x| x.to_bits()).collect()
}

fn same_scene(a: &Scene, b: &Scene, ctx: &str) {
    // A mesh with no primitive is not written (glTF requires at least one).
    let written: Vec<_> = a
        .meshes
        .iter()
        .filter(|m| !m.primitives.is_empty())
        .collect();
    assert_eq!(written.len(), b.meshes.len(), "{ctx}: meshes");
    for (ma, mb) in written.into_iter().zip(&b.meshes) {
        let ctx = format!("{ctx}: mesh {:?}", ma.name);
        assert_eq!(ma.name, mb.name, "{ctx}");
        assert_eq!(ma.lod, mb.lod, "{ctx}: LOD");
        assert_eq!(ma.primitives.len(), mb.primitives.len(), "{ctx}");
        for (pa, pb) in ma.primitives.iter().zip(&mb.primitives) {
            let ctx = format!("{ctx} primitive {:?}", pa.name);
            assert_eq!(bits(&pa.positions), bits(&pb.positions), "{ctx}: positions");
            assert_eq!(pa.triangles, pb.triangles, "{ctx}: triangles");
            let opt = |v: &Option<Vec<[f32; 3]>>| v.as_deref().map(bits);
            assert_eq!(opt(&pa.normals), opt(&pb.normals), "{ctx}: normals");
            let uv = |v: &Option<Vec<[f32; 2]>>| v.as_deref().map(bits);
            assert_eq!(uv(&pa.uvs), uv(&pb.uvs), "{ctx}: UVs");
            let extra = |p: &meshcodec::scene::Primitive| -> Vec<Vec<u32>> {
                p.extra_uvs.iter().map(|u| bits(u)).collect()
            };
            assert_eq!(extra(pa), extra(pb), "{ctx}: further UV sets");
            let col = |v: &Option<Vec<[f32; 4]>>| v.as_deref().map(bits);
            assert_eq!(col(&pa.colors), col(&pb.colors), "{ctx}: colours");
            if a.skeleton.is_some() {
                assert_eq!(pa.joints, pb.joints, "{ctx}: joints");
                assert_eq!(col(&pa.weights), col(&pb.weights), "{ctx}: weights");
            }
            // glTF gives every primitive of a mesh the same targets: the writer pads a
            // primitive with zero offsets for the targets of its siblings.
            let mut own = pa.morph_targets.iter();
            for tb in &pb.morph_targets {
                match own.clone().next().filter(|ta| ta.name == tb.name) {
                    Some(ta) => {
                        own.next();
                        assert_eq!(
                            ta.default_weight.to_bits(),
                            tb.default_weight.to_bits(),
                            "{ctx}: {:?} default weight",
                            ta.name
                        );
                        assert_eq!(
                            bits(&ta.position_deltas),
                            bits(&tb.position_deltas),
                            "{ctx}: {:?} deltas",
                            ta.name
                        );
                    }
                    None => assert!(
                        tb.position_deltas.iter().flatten().all(|&x| x == 0.0),
                        "{ctx}: padding target {:?} is not zero",
                        tb.name
                    ),
                }
            }
            assert!(own.next().is_none(), "{ctx}: a morph target was not read");
        }
    }
    match (&a.skeleton, &b.skeleton) {
        (None, None) => {}
        (Some(sa), Some(sb)) => {
            assert_eq!(sa.joints.len(), sb.joints.len(), "{ctx}: joints");
            for (ja, jb) in sa.joints.iter().zip(&sb.joints) {
                let ctx = format!("{ctx}: joint {:?}", ja.name);
                assert_eq!(ja.name, jb.name, "{ctx}");
                assert_eq!(ja.parent, jb.parent, "{ctx}: parent");
                assert_eq!(ja.translation, jb.translation, "{ctx}: translation");
                assert_eq!(ja.rotation, jb.rotation, "{ctx}: rotation");
                assert_eq!(ja.scale, jb.scale, "{ctx}: scale");
                assert_eq!(
                    ja.inverse_bind_matrix, jb.inverse_bind_matrix,
                    "{ctx}: inverse bind matrix"
                );
            }
        }
        (sa, sb) => panic!(
            "{ctx}: skeleton {} written, {} read",
            sa.is_some(),
            sb.is_some()
        ),
    }
    // A skeleton without a skinned mesh (an .anim alone) has no skin to carry it.
    if b.skeleton.is_some() {
        assert_eq!(a.animations.len(), b.animations.len(), "{ctx}: animations");
        for (aa, ab) in a.animations.iter().zip(&b.animations) {
            let ctx = format!("{ctx}: animation {:?}", aa.name);
            assert_eq!(aa.name, ab.name, "{ctx}");
            assert_eq!(aa.channels.len(), ab.channels.len(), "{ctx}: channels");
            for (ca, cb) in aa.channels.iter().zip(&ab.channels) {
                assert_eq!(ca.joint, cb.joint, "{ctx}");
                assert_eq!(ca.times, cb.times, "{ctx}: times");
                match (&ca.values, &cb.values) {
                    (ChannelValues::Rotation(x), ChannelValues::Rotation(y)) => {
                        assert_eq!(bits(x), bits(y), "{ctx}: rotations")
                    }
                    (ChannelValues::Translation(x), ChannelValues::Translation(y))
                    | (ChannelValues::Scale(x), ChannelValues::Scale(y)) => {
                        assert_eq!(bits(x), bits(y), "{ctx}: {}", ca.values.path())
                    }
                    (x, y) => panic!("{ctx}: {} written, {} read", x.path(), y.path()),
                }
            }
        }
    }
}

#[test]
fn gltf_export_reads_back_as_the_same_scene() {
    let (mut n, mut skinned, mut animated, mut morphed, mut lods, mut extra_uvs) =
        (0, 0, 0, 0, 0, 0);
    for path in every_file() {
        let bytes = std::fs::read(&path).unwrap();
        let Ok(file) = meshcodec::open(&bytes) else {
            continue;
        };
        let options = ExportOptions {
            all_lods: true,
            name: "x".into(),
            ..ExportOptions::default()
        };
        // Files with nothing to export (no triangles) are refused by export itself.
        let Ok(scene) = file.to_scene(&options, &Limits::default()) else {
            continue;
        };
        let ctx = path.display().to_string();
        let glb = gltf::to_glb(&scene).unwrap_or_else(|e| panic!("{ctx}: {e}"));
        let back = import::read_gltf(&glb, None).unwrap_or_else(|e| panic!("{ctx}: {e}"));
        same_scene(&scene, &back, &ctx);
        n += 1;
        skinned += usize::from(
            scene
                .meshes
                .iter()
                .any(|m| m.primitives.iter().any(|p| p.joints.is_some())),
        );
        animated += usize::from(back.skeleton.is_some() && !scene.animations.is_empty());
        morphed += usize::from(
            scene
                .meshes
                .iter()
                .any(|m| m.primitives.iter().any(|p| !p.morph_targets.is_empty())),
        );
        lods += usize::from(scene.meshes.iter().any(|m| m.lod > 0));
        extra_uvs += usize::from(
            scene
                .meshes
                .iter()
                .any(|m| m.primitives.iter().any(|p| !p.extra_uvs.is_empty())),
        );
    }
    eprintln!(
        "{n} files: {skinned} skinned, {animated} animated, {morphed} with morph targets, \
         {lods} with LODs, {extra_uvs} with further UV sets"
    );
    assert!(n >= 30, "{n}");
    for (what, count) in [
        ("skinned", skinned),
        ("animated", animated),
        ("morphed", morphed),
        ("with LODs", lods),
        ("with further UV sets", extra_uvs),
    ] {
        assert!(count >= 1, "no file {what}");
    }
}
