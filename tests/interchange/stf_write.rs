//! STF written from the model and from a scene: meshes written back keep everything
//! else in the document; a changed mesh reads back changed; scenes (hand-built and
//! every FileMesh/UNIGINE fixture) survive scene → STF → scene; the written document
//! has what `stf_blender`'s importer reads; the CLI imports and converts into STF.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use meshcodec::scene::{ExportMesh, MorphTarget, Primitive, Scene, UpAxis};
use meshcodec::stf::{self, model, StfContainer, StfMesh};
use meshcodec::{MeshFile, Target};
use serde_json::Value;

fn corpus_stf() -> Vec<PathBuf> {
    let Some(dir) = common::corpus() else {
        return Vec::new();
    };
    let v: Vec<PathBuf> = std::fs::read_dir(dir.join("stf"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(!v.is_empty());
    v
}

/// Every STF file at hand: the corpus, the fixtures, and the hand-built blendshape file.
fn containers() -> Vec<(String, StfContainer)> {
    let mut out = Vec::new();
    let mut fixtures: Vec<PathBuf> = std::fs::read_dir(common::fixture_dir("stf"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "stf"))
        .collect();
    fixtures.sort();
    assert!(fixtures.len() >= 3);
    for p in corpus_stf().into_iter().chain(fixtures) {
        let c = StfContainer::read(&std::fs::read(&p).unwrap()).unwrap();
        out.push((p.display().to_string(), c));
    }
    out.push((
        "stf_blendshapes".into(),
        common::stf_blendshapes::container(),
    ));
    out
}

/// The document without its `stf.mesh` resources and without the `buffers` table.
fn without_meshes(c: &StfContainer) -> Value {
    let mut doc = model::document(c).unwrap();
    let r = doc["resources"].as_object_mut().unwrap();
    r.retain(|_, v| v["type"] != "stf.mesh");
    doc.as_object_mut().unwrap().remove("buffers");
    doc
}

/// A mesh resource without the keys the model rewrites.
fn unknown_keys(c: &StfContainer, id: &str) -> Value {
    let mut r = model::document(c).unwrap()["resources"][id].clone();
    let o = r.as_object_mut().unwrap();
    for k in stf::write::MODEL_KEYS {
        o.remove(*k);
    }
    o.remove("referenced_buffers");
    r
}

/// The bytes every buffer reference of the document's non-mesh resources names, by id.
fn component_buffers(c: &StfContainer) -> Vec<(String, Vec<u8>)> {
    let doc = model::document(c).unwrap();
    let mut out = Vec::new();
    for (id, r) in doc["resources"].as_object().unwrap() {
        if r["type"] == "stf.mesh" {
            continue;
        }
        for b in r["referenced_buffers"].as_array().into_iter().flatten() {
            let e = &doc["buffers"][b.as_str().unwrap()];
            let i = e["index"].as_u64().unwrap() as usize;
            out.push((format!("{id}/{b}"), c.buffers[i].clone()));
        }
    }
    out
}

#[test]
fn unchanged_meshes_write_back_equal_and_keep_the_rest() {
    let mut n = 0;
    for (name, c) in containers() {
        let meshes = model::meshes(&c).unwrap();
        assert!(!meshes.is_empty(), "{name}");
        let out = stf::replace_meshes(&c, &meshes).unwrap();
        let back = StfContainer::read(&out.write().unwrap()).unwrap();
        assert_eq!(model::meshes(&back).unwrap(), meshes, "{name}");
        // Serialised, so the keys' order counts too.
        assert_eq!(
            without_meshes(&back).to_string(),
            without_meshes(&c).to_string(),
            "{name}"
        );
        let keys = |c: &StfContainer, id: &str| -> Vec<String> {
            model::document(c).unwrap()["resources"][id]
                .as_object()
                .unwrap()
                .keys()
                .cloned()
                .collect()
        };
        for m in &meshes {
            assert_eq!(keys(&back, &m.id), keys(&c, &m.id), "{name}");
            assert_eq!(
                unknown_keys(&back, &m.id),
                unknown_keys(&c, &m.id),
                "{name}"
            );
        }
        assert_eq!(component_buffers(&back), component_buffers(&c), "{name}");
        // Nothing changed, so every property keeps its buffer, and the document is the
        // one read (as serde_json writes it: the same keys, values and order).
        assert_eq!(back.buffers, c.buffers, "{name}");
        assert_eq!(
            model::document(&back).unwrap().to_string(),
            model::document(&c).unwrap().to_string(),
            "{name}"
        );
        // Byte for byte: nothing changed.
        assert!(out.write().unwrap() == c.write().unwrap(), "{name}");
        // And writing again gives the same bytes.
        let again = stf::replace_meshes(&back, model::meshes(&back).unwrap()).unwrap();
        assert_eq!(again.write().unwrap(), back.write().unwrap(), "{name}");
        n += 1;
    }
    assert!(n >= 4);
}

/// Moves every vertex, removes the last triangle (and its face when it was the face's
/// only one), and points split 0 at a vertex beyond 255 (so one-byte indices no longer
/// do).
fn change(m: &mut StfMesh) {
    for v in &mut m.vertices {
        v[0] += 1.5;
        v[2] -= 0.25;
    }
    m.tris.pop();
    let last = m.faces.last_mut().unwrap();
    *last -= 1;
    if *last == 0 {
        m.faces.pop();
        if let Some(mi) = &mut m.material_indices {
            mi.pop();
        }
    }
    let first = m.vertices[0];
    m.vertices.resize(300, [0.0; 3]);
    m.vertices.push(first);
    m.splits[0] = 300;
    for b in &mut m.blendshapes {
        if b.indices.is_none() {
            b.position_offsets.resize(m.vertices.len(), [0.0; 3]);
        }
    }
}

#[test]
fn a_changed_mesh_reads_back_changed_and_valid() {
    for (name, c) in containers() {
        let mut meshes = model::meshes(&c).unwrap();
        change(&mut meshes[0]);
        assert!(meshes[0].problems().is_empty(), "{name}");
        let out = stf::replace_meshes(&c, &meshes).unwrap();
        let bytes = out.write().unwrap();
        let file = meshcodec::open(&bytes).unwrap();
        file.check(&Default::default()).unwrap();
        let back = StfContainer::read(&bytes).unwrap();
        let read = model::meshes(&back).unwrap();
        for m in &read {
            assert!(m.problems().is_empty(), "{name}: {:?}", m.problems());
        }
        // The same model, except for the widths the writer had to widen.
        let mut expect = meshes.clone();
        expect[0].indices_width = expect[0].indices_width.max(2);
        assert_eq!(read, expect, "{name}");
        assert_eq!(without_meshes(&back), without_meshes(&c), "{name}");
        assert_eq!(
            unknown_keys(&back, &meshes[0].id),
            unknown_keys(&c, &meshes[0].id),
            "{name}"
        );
        assert_eq!(component_buffers(&back), component_buffers(&c), "{name}");
        // The buffers the old vertices, tris and splits were in are gone: no buffer
        // is left that nothing names.
        let doc = model::document(&back).unwrap();
        let mut indices: Vec<u64> = doc["buffers"]
            .as_object()
            .unwrap()
            .values()
            .map(|e| e["index"].as_u64().unwrap())
            .collect();
        indices.sort_unstable();
        indices.dedup();
        assert_eq!(
            indices,
            (0..back.buffers.len() as u64).collect::<Vec<_>>(),
            "{name}"
        );
        // New-style meshes: referenced_buffers reuses the freed slots.
        let old = &model::document(&c).unwrap()["resources"][&meshes[0].id];
        let new = &doc["resources"][&meshes[0].id];
        if let Some(list) = old["referenced_buffers"].as_array() {
            assert_eq!(
                new["referenced_buffers"].as_array().unwrap().len(),
                list.len(),
                "{name}"
            );
        }
        // Every id in the document is named once in the buffers table.
        let ids: Vec<&String> = doc["buffers"].as_object().unwrap().keys().collect();
        let mut dedup = ids.clone();
        dedup.sort();
        dedup.dedup();
        assert_eq!(ids.len(), dedup.len());
    }
}

#[test]
fn an_inconsistent_or_unknown_mesh_is_refused() {
    let (_, c) = containers().pop().unwrap();
    let mut meshes = model::meshes(&c).unwrap();
    meshes[0].tris[0][0] = 10_000;
    let e = stf::replace_meshes(&c, &meshes).unwrap_err().to_string();
    assert!(e.contains("out of range"), "{e}");
    let mut meshes = model::meshes(&c).unwrap();
    meshes[0].id = "no such mesh".into();
    let e = stf::replace_meshes(&c, &meshes).unwrap_err().to_string();
    assert!(e.contains("no such mesh"), "{e}");
}

/// `convert --to stf` (the container taken, each property decoded as it is encoded
/// again) writes what decoding every mesh and `replace_meshes` write, byte for byte, or
/// fails as they fail: on every STF file at hand (the hand-built blendshape file among
/// them), on the files that changed meshes make of them (moved vertices, other UV sets,
/// widths, material indices, blendshapes; old- and new-style references), and on each
/// of those with a signalling NaN at the start of a buffer (which decoding makes quiet,
/// so the properties that name the buffer change and get new buffers).
#[test]
fn converting_to_stf_writes_what_the_decoded_meshes_give() {
    fn oracle(c: &StfContainer) -> Result<Vec<u8>, String> {
        model::meshes(c)
            .and_then(|m| stf::replace_meshes(c, &m))
            .and_then(|out| out.write())
            .map_err(|e| e.to_string())
    }
    fn converted(c: StfContainer) -> Result<Vec<u8>, String> {
        let out = meshcodec::convert_prepared(
            meshcodec::AnyFile::Stf(c),
            "stf",
            &Default::default(),
            &Default::default(),
        )
        .map_err(|e| e.to_string())?;
        let mut bytes = Vec::new();
        out.write_to(&mut bytes).map_err(|e| e.to_string())?;
        Ok(bytes)
    }
    type Edit = fn(&mut StfMesh);
    let edits: [Edit; 6] = [
        change,
        |m| m.uvs.iter_mut().for_each(|(_, uv)| uv.reverse()),
        |m| m.float_width = 12 - m.float_width,
        |m| m.indices_width = 1,
        |m| m.material_indices = Some((0..m.faces.len() as u64).map(|f| f % 2).collect()),
        |m| {
            for b in &mut m.blendshapes {
                b.position_offsets.iter_mut().for_each(|o| o[1] += 0.5);
            }
        },
    ];
    let (mut same, mut changed, mut failed) = (0, 0, 0);
    for (name, c) in containers() {
        let mut inputs = vec![c.clone()];
        for edit in edits {
            let mut meshes = model::meshes(&c).unwrap();
            meshes.iter_mut().for_each(edit);
            if let Ok(out) = stf::replace_meshes(&c, &meshes) {
                inputs.push(out);
            }
        }
        for input in inputs.clone() {
            for k in 0..input.buffers.len() {
                let mut d = input.clone();
                if let Some(b) = d.buffers[k].get_mut(..4) {
                    b.copy_from_slice(&0x7f80_0001_u32.to_le_bytes());
                }
                inputs.push(d);
            }
        }
        for input in inputs {
            let expect = oracle(&input);
            match &expect {
                Ok(b) if *b == input.write().unwrap() => same += 1,
                Ok(_) => changed += 1,
                Err(_) => failed += 1,
            }
            assert_eq!(converted(input), expect, "{name}");
        }
    }
    assert!(
        same > 100 && changed > 50 && failed > 100,
        "{same} unchanged, {changed} changed, {failed} failed"
    );
}

// ---------------------------------------------------------------- scene → STF → scene

/// Per triangle corner: position, normal, UV sets, colour and morph deltas, as bits
/// (one list per mesh: the primitives of a mesh one after another).
type Corner = Vec<u32>;

/// Per triangle corner, its normal (compared within 1e-6: reading a scene back scales
/// normals to unit length again, which may move the last bit).
fn corner_normals(m: &ExportMesh) -> Vec<[f32; 3]> {
    let mut out = Vec::new();
    for p in &m.primitives {
        for t in &p.triangles {
            for &i in t {
                out.push(p.normals.as_ref().map_or([0.0; 3], |n| n[i as usize]));
            }
        }
    }
    out
}

fn corners(m: &ExportMesh) -> Vec<Corner> {
    // What a mesh's primitives lack that another has reads back as the writer fills it
    // in: zero UVs and deltas, white.
    let sets = m
        .primitives
        .iter()
        .map(|p| usize::from(p.uvs.is_some()) + p.extra_uvs.len())
        .max()
        .unwrap_or(0);
    let targets = m
        .primitives
        .iter()
        .map(|p| p.morph_targets.len())
        .max()
        .unwrap_or(0);
    let colors = m.primitives.iter().any(|p| p.colors.is_some());
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<u32>>();
    let mut out = Vec::new();
    for p in &m.primitives {
        let uv_sets: Vec<&Vec<[f32; 2]>> = p.uvs.iter().chain(&p.extra_uvs).collect();
        for t in &p.triangles {
            for &i in t {
                let i = i as usize;
                let mut c = bits(&p.positions[i]);
                for k in 0..sets {
                    c.extend(bits(&uv_sets.get(k).map_or([0.0; 2], |uv| uv[i])));
                }
                if colors {
                    c.extend(bits(&p.colors.as_ref().map_or([1.0; 4], |col| col[i])));
                }
                for k in 0..targets {
                    let d = p
                        .morph_targets
                        .get(k)
                        .map_or([0.0; 3], |t| t.position_deltas[i]);
                    c.extend(bits(&d));
                }
                out.push(c);
            }
        }
    }
    out
}

fn through_stf(scene: &Scene) -> (StfContainer, Scene) {
    let c = stf::from_scene(scene.clone(), "test").unwrap();
    let bytes = c.write().unwrap();
    let c = StfContainer::read(&bytes).unwrap();
    let file = meshcodec::open(&bytes).unwrap();
    file.check(&Default::default()).unwrap();
    for m in model::meshes(&c).unwrap() {
        assert!(m.problems().is_empty(), "{:?}", m.problems());
    }
    let back = file
        .to_scene(&Default::default(), &Default::default())
        .unwrap();
    (c, back)
}

/// The geometry of `a` (meshes of LOD 0) equals `b`'s, corner by corner; the morph
/// targets' names and default weights too.
fn assert_same_geometry(a: &Scene, b: &Scene, what: &str) {
    let a_meshes: Vec<&ExportMesh> = a.meshes.iter().filter(|m| m.lod == 0).collect();
    assert_eq!(a_meshes.len(), b.meshes.len(), "{what}");
    for (x, y) in a_meshes.iter().zip(&b.meshes) {
        let all_normals = x.primitives.iter().all(|p| p.normals.is_some());
        let (cx, cy) = (corners(x), corners(y));
        assert_eq!(cx.len(), cy.len(), "{what}: {}", x.name);
        if let Some(k) = (0..cx.len()).find(|&k| cx[k] != cy[k]) {
            panic!(
                "{what}: {}: corner {k}: {:?} became {:?}",
                x.name,
                cx[k].iter().map(|&b| f32::from_bits(b)).collect::<Vec<_>>(),
                cy[k].iter().map(|&b| f32::from_bits(b)).collect::<Vec<_>>()
            );
        }
        if all_normals {
            for (a, b) in corner_normals(x).iter().zip(corner_normals(y)) {
                for k in 0..3 {
                    assert!((a[k] - b[k]).abs() < 1e-6, "{what}: normal {a:?} {b:?}");
                }
            }
        }
        let tris: usize = x.primitives.iter().map(|p| p.triangles.len()).sum();
        assert_eq!(y.primitives[0].triangles.len(), tris, "{what}");
        if let Some(p) = x.primitives.first() {
            let names: Vec<(&str, f32)> = p
                .morph_targets
                .iter()
                .map(|t| (t.name.as_str(), t.default_weight))
                .collect();
            let back: Vec<(&str, f32)> = y.primitives[0]
                .morph_targets
                .iter()
                .map(|t| (t.name.as_str(), t.default_weight))
                .collect();
            assert_eq!(names, back, "{what}");
            let sets = x
                .primitives
                .iter()
                .map(|p| usize::from(p.uvs.is_some()) + p.extra_uvs.len())
                .max()
                .unwrap_or(0);
            let back = &y.primitives[0];
            assert_eq!(
                usize::from(back.uvs.is_some()) + back.extra_uvs.len(),
                sets,
                "{what}"
            );
        }
    }
}

fn quad_primitive() -> Primitive {
    // A quad (two triangles sharing an edge) and a third triangle on vertices that share
    // the quad's positions but not its UVs (a UV seam).
    let positions = vec![
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [1.0, 1.0, 0.0],
        [0.0, 1.0, 0.0],
        [1.0, 0.0, 0.0],
        [1.0, 1.0, 0.0],
        [2.0, 0.5, 0.25],
    ];
    let n = positions.len();
    Primitive {
        name: "quad".into(),
        normals: Some(vec![[0.0, 0.0, 1.0]; n]),
        uvs: Some(
            (0..n)
                .map(|i| [i as f32 * 0.125, 1.0 - i as f32 * 0.25])
                .collect(),
        ),
        extra_uvs: vec![
            (0..n).map(|i| [0.5, i as f32 / 7.0]).collect(),
            (0..n).map(|i| [i as f32, -(i as f32)]).collect(),
        ],
        colors: Some((0..n).map(|i| [i as f32 / 8.0, 0.5, 0.25, 1.0]).collect()),
        triangles: vec![[0, 1, 2], [0, 2, 3], [4, 6, 5]],
        morph_targets: vec![
            MorphTarget {
                name: "lift corner".into(),
                position_deltas: (0..n)
                    .map(|i| if i == 2 { [0.0, 0.0, 0.5] } else { [0.0; 3] })
                    .collect(),
                default_weight: 0.25,
            },
            MorphTarget {
                name: "everything".into(),
                position_deltas: positions
                    .iter()
                    .map(|p| [0.125 * p[0], 1.0, -2.0])
                    .collect(),
                default_weight: 0.0,
            },
        ],
        positions,
        ..Primitive::default()
    }
}

#[test]
fn hand_built_scenes_survive_stf() {
    let dir = tempfile::tempdir().unwrap();
    // One primitive with everything.
    let one = Scene {
        meshes: vec![ExportMesh {
            name: "Quad".into(),
            primitives: vec![quad_primitive()],
            lod: 0,
        }],
        ..Scene::default()
    };
    let (c, back) = through_stf(&one);
    assert_same_geometry(&one, &back, "one primitive");
    let m = &model::meshes(&c).unwrap()[0];
    // Vertices shared where positions and deltas agree: 7 scene vertices, but 4 and 5
    // repeat 1 and 2's positions; 2 moves in "lift corner" and 5 does not.
    assert_eq!(m.splits.len(), 7);
    assert_eq!(m.vertices.len(), 6);
    assert_eq!(m.uvs.len(), 3);
    assert_eq!(m.blendshapes.len(), 2);
    // "lift corner" moves one vertex: listed sparsely.
    assert_eq!(m.blendshapes[0].indices.as_ref().map(Vec::len), Some(1));
    assert!(m.blendshapes[1].indices.is_none());

    // Two meshes; the second of two primitives (material slots), one without normals
    // or colours, with a degenerate triangle and a repeated one.
    let mut plain = quad_primitive();
    plain.normals = None;
    plain.colors = None;
    plain.extra_uvs.clear();
    plain.morph_targets.clear();
    plain.triangles = vec![[0, 1, 2], [0, 4, 1], [2, 1, 0], [0, 2, 3], [4, 6, 5]];
    let mut first = quad_primitive();
    first.extra_uvs.truncate(1);
    let two = Scene {
        meshes: vec![
            ExportMesh {
                name: "A".into(),
                primitives: vec![quad_primitive()],
                lod: 0,
            },
            ExportMesh {
                name: "B".into(),
                primitives: vec![first, plain],
                lod: 0,
            },
            ExportMesh {
                name: "B LOD1".into(),
                primitives: vec![quad_primitive()],
                lod: 1,
            },
        ],
        ..Scene::default()
    };
    let (c, back) = through_stf(&two);
    assert_eq!(back.meshes.len(), 2);
    let ms = model::meshes(&c).unwrap();
    assert_eq!(ms[1].material_slots, vec![None, None]);
    assert_eq!(
        ms[1].material_indices.as_ref().unwrap(),
        &[0, 0, 0, 1, 1, 1, 1, 1]
    );
    // The second primitive lacks the first's morph targets and colours: the scene read
    // back has zero deltas and white there; compare the first primitive and the
    // positions, UVs and triangles of all.
    let b = &back.meshes[1].primitives[0];
    let a = &two.meshes[1].primitives;
    let mut k = 0;
    for (pi, p) in a.iter().enumerate() {
        for t in &p.triangles {
            for &i in t {
                let i = i as usize;
                let j = b.triangles[k / 3][k % 3] as usize;
                assert_eq!(b.positions[j], p.positions[i], "corner {k}");
                assert_eq!(
                    b.uvs.as_ref().unwrap()[j],
                    p.uvs.as_ref().unwrap()[i],
                    "corner {k}"
                );
                if pi == 0 {
                    assert_eq!(
                        b.normals.as_ref().unwrap()[j],
                        p.normals.as_ref().unwrap()[i]
                    );
                    assert_eq!(b.colors.as_ref().unwrap()[j], p.colors.as_ref().unwrap()[i]);
                    assert_eq!(b.extra_uvs[0][j], p.extra_uvs[0][i]);
                    for (x, y) in b.morph_targets.iter().zip(&p.morph_targets) {
                        assert_eq!(x.position_deltas[j], y.position_deltas[i]);
                    }
                } else {
                    assert_eq!(b.colors.as_ref().unwrap()[j], [1.0; 4]);
                    assert_eq!(b.extra_uvs[0][j], [0.0; 2]);
                }
                k += 1;
            }
        }
    }
    assert_eq!(k, 3 * 8);
    check_blender_requirements(&c);
    let path = dir.path().join("two-meshes.stf");
    std::fs::write(&path, c.write().unwrap()).unwrap();
    python_check(&path, true);

    // A +Z-up scene is turned to STF's +Y up.
    let mut up = one.clone();
    up.up = UpAxis::Z;
    let (_, back) = through_stf(&up);
    let mut turned = one.clone();
    turned.up = UpAxis::Z;
    turned.to_y_up();
    assert_same_geometry(&turned, &back, "+Z up");
    assert_eq!(back.meshes[0].primitives[0].positions[6], [2.0, 0.25, -0.5]);
}

/// Every FileMesh and UNIGINE mesh fixture: its scene through STF and back.
#[test]
fn fixture_scenes_survive_stf() {
    let mut n = 0;
    for dir in ["filemesh", "text", "unigine", "chunked"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(common::fixture_dir(dir))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "mesh"))
            .collect();
        files.sort();
        for path in files {
            let file = meshcodec::open(&std::fs::read(&path).unwrap()).unwrap();
            let scene = file
                .to_scene(&Default::default(), &Default::default())
                .unwrap();
            let (c, back) = through_stf(&scene);
            assert_same_geometry(&scene, &back, &path.display().to_string());
            check_blender_requirements(&c);
            n += 1;
        }
    }
    assert!(n >= 30, "{n}");
}

// ---------------------------------------------------------------- stf_blender's importer

/// What `stf_blender`'s importer reads of a document, checked on the JSON and the
/// buffers directly: the header keys it requires, the root prefab, nodes with `trs`,
/// mesh instances, and per mesh the buffers' sizes and the face-corner layout its
/// loops rely on (face `f`'s corners are the next ones in order, every corner used by
/// one face, no face naming a vertex twice or the vertices of another face).
fn check_blender_requirements(c: &StfContainer) {
    let doc = model::document(c).unwrap();
    let stf = &doc["stf"];
    for k in [
        "root",
        "generator",
        "generator_version",
        "timestamp",
        "metric_multiplier",
    ] {
        assert!(!stf[k].is_null(), "stf.{k}");
    }
    assert!(stf["version"].as_array().is_some_and(|v| v.len() == 2));
    let buffers = doc["buffers"].as_object().unwrap();
    for e in buffers.values() {
        assert_eq!(e["type"], "stf.buffer.included");
        assert!((e["index"].as_u64().unwrap() as usize) < c.buffers.len());
    }
    let res = doc["resources"].as_object().unwrap();
    let get = |parent: &Value, key: &str| -> (String, Value) {
        let i = parent[key].as_u64().unwrap() as usize;
        let id = parent["referenced_resources"][i]
            .as_str()
            .unwrap()
            .to_string();
        let r = res[&id].clone();
        (id, r)
    };
    let root = &res[stf["root"].as_str().unwrap()];
    assert_eq!(root["type"], "stf.prefab");
    let nodes = root["root_nodes"].as_array().unwrap();
    assert!(!nodes.is_empty());
    for (k, _) in nodes.iter().enumerate() {
        let id = root["referenced_resources"][nodes[k].as_u64().unwrap() as usize]
            .as_str()
            .unwrap();
        let node = &res[id];
        assert_eq!(node["type"], "stf.node");
        let trs = node["trs"].as_array().unwrap();
        let lens: Vec<usize> = trs.iter().map(|a| a.as_array().unwrap().len()).collect();
        assert_eq!(lens, [3, 4, 3]);
        assert!(node["children"].as_array().unwrap().is_empty());
        let (_, inst) = get(node, "instance");
        if inst["type"] == "stf.instance.armature" {
            // A skeleton's node comes first, so that meshes can name it.
            assert_eq!(k, 0, "the armature's node is the prefab's first");
            let (_, armature) = get(&inst, "armature");
            assert_eq!(armature["type"], "stf.armature");
            continue;
        }
        assert_eq!(inst["type"], "stf.instance.mesh");
        let (_, mesh) = get(&inst, "mesh");
        assert_eq!(mesh["type"], "stf.mesh");
        if mesh.get("armature").is_some() {
            let (_, node) = get(&inst, "armature_instance");
            let (_, armature_instance) = get(&node, "instance");
            assert_eq!(armature_instance["type"], "stf.instance.armature");
            let (_, armature) = get(&mesh, "armature");
            assert_eq!(armature["type"], "stf.armature");
        }
        check_mesh_for_blender(c, &doc, &mesh);
    }
}

fn check_mesh_for_blender(c: &StfContainer, doc: &Value, mesh: &Value) {
    let buffer = |r: &Value| -> Vec<u8> {
        let i = r.as_u64().unwrap() as usize;
        let id = mesh["referenced_buffers"][i].as_str().unwrap();
        c.buffers[doc["buffers"][id]["index"].as_u64().unwrap() as usize].clone()
    };
    let fw = mesh["float_width"].as_u64().unwrap_or(4) as usize;
    let iw = mesh["indices_width"].as_u64().unwrap_or(4) as usize;
    let uints = |b: Vec<u8>| -> Vec<u64> {
        b.chunks(iw)
            .map(|c| {
                let mut v = [0u8; 8];
                v[..iw].copy_from_slice(c);
                u64::from_le_bytes(v)
            })
            .collect()
    };
    let vertices = buffer(&mesh["vertices"]).len() / (3 * fw);
    let splits = uints(buffer(&mesh["splits"]));
    let corners = uints(buffer(&mesh["face_corners"]));
    let tris = uints(buffer(&mesh["tris"]));
    let faces = uints(buffer(&mesh["faces"]));
    assert!(splits.iter().all(|&v| (v as usize) < vertices));
    assert!(corners.iter().all(|&s| (s as usize) < splits.len()));
    // Per-split arrays.
    if !mesh["split_normals"].is_null() {
        assert_eq!(buffer(&mesh["split_normals"]).len(), splits.len() * 3 * fw);
    }
    if !mesh["split_colors"].is_null() {
        assert_eq!(buffer(&mesh["split_colors"]).len(), splits.len() * 4 * fw);
    }
    for uv in mesh["uvs"].as_array().into_iter().flatten() {
        assert!(uv["name"].is_string());
        assert_eq!(buffer(&uv["uv"]).len(), splits.len() * 2 * fw);
    }
    // The importer builds loops face by face from each face's sorted corner indices,
    // then sets per-loop data by corner index: corners must run 0, 1, 2 … face by face.
    let mut next = 0u64;
    let mut t = 0usize;
    let mut seen = std::collections::HashSet::new();
    for &f in &faces {
        let mut face_corners: std::collections::BTreeSet<u64> = std::collections::BTreeSet::new();
        for _ in 0..f {
            face_corners.extend(&tris[3 * t..3 * t + 3]);
            t += 1;
        }
        for &c in &face_corners {
            assert_eq!(c, next, "corners out of face order");
            next += 1;
        }
        let mut verts: Vec<u64> = face_corners
            .iter()
            .map(|&c| splits[corners[c as usize] as usize])
            .collect();
        verts.sort_unstable();
        let n = verts.len();
        verts.dedup();
        assert_eq!(verts.len(), n, "a face names a vertex twice");
        assert!(seen.insert(verts), "two faces on the same vertices");
    }
    assert_eq!(t * 3, tris.len());
    assert_eq!(next as usize, corners.len(), "corners no face uses");
    if let Some(mi) = mesh["material_indices"].as_u64() {
        let _ = mi;
        let slots = mesh["material_slots"].as_array().unwrap().len();
        assert!(slots > 1);
    }
    for b in mesh["blendshapes"].as_array().into_iter().flatten() {
        assert!(b["name"].is_string());
        let offsets = buffer(&b["position_offsets"]).len() / (3 * fw);
        match b.get("indices") {
            Some(i) => assert_eq!(uints(buffer(i)).len(), offsets),
            None => assert_eq!(offsets, vertices),
        }
    }
}

/// The Python check (`tests/stf_blender_check.py`): the file read as `stf_blender`'s
/// importer reads it, written independently of this crate.
fn python_check(path: &Path, layout: bool) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/stf_blender_check.py");
    let mut cmd = Command::new("python3");
    cmd.arg(&script).arg(path);
    if !layout {
        cmd.arg("--theirs");
    }
    match cmd.output() {
        Ok(out) => assert!(
            out.status.success(),
            "{}: {}{}",
            path.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(e) => {
            let ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
            assert!(!ci, "CI=true but python3 cannot run: {e}");
            eprintln!("SKIPPED: python3 cannot run: {e}");
        }
    }
}

// ---------------------------------------------------------------- CLI

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_meshcodec"))
}

#[test]
fn cli_imports_and_converts_into_stf() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = common::fixture_dir("filemesh").join("v5.00-nofacs.mesh");
    // A glTF made by the exporter, imported as STF.
    let gltf = dir.path().join("nofacs.gltf");
    let out = bin()
        .arg("export")
        .arg(&fixture)
        .arg(&gltf)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stf_out = dir.path().join("nofacs.stf");
    let out = bin()
        .args(["import"])
        .arg(&gltf)
        .arg(&stf_out)
        .args(["--to", "stf"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let c = StfContainer::read(&std::fs::read(&stf_out).unwrap()).unwrap();
    check_blender_requirements(&c);
    python_check(&stf_out, true);
    let source = meshcodec::open(&std::fs::read(&fixture).unwrap()).unwrap();
    let tris: usize = source
        .to_scene(&Default::default(), &Default::default())
        .unwrap()
        .meshes
        .iter()
        .flat_map(|m| &m.primitives)
        .map(|p| p.triangles.len())
        .sum();
    assert_eq!(c.info().unwrap().faces, tris);

    // A FileMesh converted (its tangents and LOD data are named losses).
    let mesh = common::fixture_dir("filemesh").join("v4.01-nobones.mesh");
    let conv = dir.path().join("filemesh.stf");
    let out = bin()
        .arg("convert")
        .arg(&mesh)
        .arg(&conv)
        .args(["--to", "stf", "--allow-lossy"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let c = StfContainer::read(&std::fs::read(&conv).unwrap()).unwrap();
    check_blender_requirements(&c);
    python_check(&conv, true);
    let qualified = dir.path().join("filemesh-q.stf");
    let out = bin()
        .arg("convert")
        .arg(&mesh)
        .arg(&qualified)
        .args(["--to", "stf:0", "--allow-lossy"])
        .output()
        .unwrap();
    assert!(out.status.success());

    // A skinned mesh: the skeleton is carried (no loss names it); what the scene does not
    // hold of the file is, refused without --allow-lossy.
    let skinned = common::fixture_dir("filemesh").join("v4.01-bones.mesh");
    let refused = dir.path().join("refused.stf");
    let out = bin()
        .arg("convert")
        .arg(&skinned)
        .arg(&refused)
        .args(["--to", "stf"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("LOD 1") && !err.contains("skeleton"), "{err}");
    assert!(!refused.exists());

    // STF to STF: meshes written back from the model.
    for path in corpus_stf() {
        let again = dir.path().join("again.stf");
        let out = bin()
            .arg("convert")
            .arg(&path)
            .arg(&again)
            .args(["--to", "stf"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let a = StfContainer::read(&std::fs::read(&path).unwrap()).unwrap();
        let b = StfContainer::read(&std::fs::read(&again).unwrap()).unwrap();
        assert_eq!(model::meshes(&a).unwrap(), model::meshes(&b).unwrap());
    }
    // The API agrees on the spelling.
    assert_eq!(Target::for_import("stf").unwrap(), Target::Stf);
    assert_eq!(Target::qualified("STF:0").unwrap().unwrap(), Target::Stf);
    assert!(Target::qualified("stf:3").unwrap().is_err());
    assert_eq!(Target::Stf.to_string(), "STF");
}

#[test]
fn python_reads_written_files_as_stf_blender_does() {
    let dir = tempfile::tempdir().unwrap();
    let scene = Scene {
        meshes: vec![ExportMesh {
            name: "Quad".into(),
            primitives: vec![quad_primitive(), quad_primitive()],
            lod: 0,
        }],
        ..Scene::default()
    };
    let path = dir.path().join("python.stf");
    std::fs::write(&path, stf::from_scene(scene, "").unwrap().write().unwrap()).unwrap();
    python_check(&path, true);
    // The changed corpus and fixture files too (their meshes rewritten).
    for (name, c) in containers() {
        let mut meshes = model::meshes(&c).unwrap();
        change(&mut meshes[0]);
        let p = dir.path().join("changed.stf");
        std::fs::write(
            &p,
            stf::replace_meshes(&c, &meshes).unwrap().write().unwrap(),
        )
        .unwrap();
        // Their own layout is their makers' (hand-built fixtures number corners freely).
        let _ = name;
        python_check(&p, false);
    }
}

/// A source without normals (CSGPHS hulls; glTF shades them flat) reaches STF faceted:
/// every triangle's three corners carry its face normal, every face is listed sharp, and
/// the hulls stay connected (fewer vertices than corners).
#[test]
fn hulls_without_normals_are_written_flat() {
    let limits = meshcodec::Limits::default();
    let path = common::fixture_dir("csgphs").join("csgphs8-boxes.bin");
    let file = meshcodec::open(&std::fs::read(&path).unwrap()).unwrap();
    let scene = file.to_scene(&Default::default(), &limits).unwrap();
    assert!(scene.meshes[0]
        .primitives
        .iter()
        .all(|p| p.normals.is_none()));
    let c = meshcodec::convert_to(&file, "stf", &Default::default(), &limits).unwrap();
    let stf = stf::StfContainer::read(&c.bytes).unwrap();
    let doc = model::document(&stf).unwrap();
    let mut checked = 0;
    for m in model::meshes(&stf).unwrap() {
        let r = &doc["resources"][&m.id];
        let slot = r["sharp_face_indices"].as_u64().unwrap() as usize;
        let id = r["referenced_buffers"][slot].as_str().unwrap();
        let sharp = &stf.buffers[doc["buffers"][id]["index"].as_u64().unwrap() as usize];
        let iw = r["indices_width"].as_u64().unwrap_or(4) as usize;
        assert_eq!(sharp.len(), iw * m.faces.len(), "every face sharp");
        let normals = m.split_normals.as_ref().expect("split normals");
        assert!(m.vertices.len() < m.face_corners.len());
        for t in &m.tris {
            let corner = |k: usize| m.face_corners[t[k] as usize] as usize;
            let pos = |k: usize| m.vertices[m.splits[corner(k)] as usize];
            let n = normals[corner(0)];
            assert_eq!(normals[corner(1)], n);
            assert_eq!(normals[corner(2)], n);
            let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
            assert!((len - 1.0).abs() < 1e-5, "{n:?}");
            for (a, b) in [(0, 1), (1, 2), (2, 0)] {
                let e = [0, 1, 2].map(|i| pos(b)[i] - pos(a)[i]);
                let dot = e[0] * n[0] + e[1] * n[1] + e[2] * n[2];
                let elen = (e[0] * e[0] + e[1] * e[1] + e[2] * e[2]).sqrt();
                assert!(dot.abs() <= 1e-4 * elen.max(1.0), "edge {e:?} normal {n:?}");
            }
            checked += 1;
        }
    }
    assert!(checked >= 12, "{checked}");
}

#[test]
fn conversion_reports_say_what_stf_keeps_and_leaves() {
    let limits = meshcodec::Limits::default();
    // Into STF: morph targets are kept (no loss names them); the skeleton is named.
    let morph = common::fixture_dir("unigine").join("ms12-morph.mesh");
    let file = meshcodec::open(&std::fs::read(&morph).unwrap()).unwrap();
    let c = meshcodec::convert_to(&file, "stf", &Default::default(), &limits).unwrap();
    assert!(
        !c.losses
            .iter()
            .any(|l| l.detail.contains("morph targets are not carried")),
        "{:?}",
        c.losses
    );
    let back = meshcodec::open(&c.bytes).unwrap();
    let scene = back.to_scene(&Default::default(), &limits).unwrap();
    let targets = &scene.meshes[0].primitives[0].morph_targets;
    assert!(!targets.is_empty());
    // The skeleton, skins and animations are carried: an armature of every joint, weights
    // on the mesh, the animation; no loss names them, and the file reads back as written.
    for (fixture, animations) in [("ms14-skinned.mesh", 0), ("ms11-embedded-anim.mesh", 1)] {
        let skinned = common::fixture_dir("unigine").join(fixture);
        let file = meshcodec::open(&std::fs::read(&skinned).unwrap()).unwrap();
        let scene = file.to_scene(&Default::default(), &limits).unwrap();
        let joints = scene.skeleton.as_ref().unwrap().joints.len();
        let c = meshcodec::convert_to(&file, "stf:0", &Default::default(), &limits).unwrap();
        assert!(
            !c.losses.iter().any(|l| l.detail.contains("skins of")
                || l.detail.contains("animations are not carried")),
            "{fixture}: {:?}",
            c.losses
        );
        let stf = stf::StfContainer::read(&c.bytes).unwrap();
        let doc = model::document(&stf).unwrap();
        let of = |t: &str| -> Vec<&serde_json::Value> {
            doc["resources"]
                .as_object()
                .unwrap()
                .values()
                .filter(|r| r["type"] == t)
                .collect()
        };
        assert_eq!(of("stf.armature").len(), 1, "{fixture}");
        assert_eq!(of("stf.bone").len(), joints, "{fixture}");
        assert_eq!(of("stf.animation").len(), animations, "{fixture}");
        let mesh = of("stf.mesh")[0];
        assert_eq!(mesh["bones"].as_array().unwrap().len(), joints, "{fixture}");
        for key in ["armature", "weight_lens", "bone_indices", "weights"] {
            assert!(mesh.get(key).is_some(), "{fixture}: {key}");
        }
        let prefab = of("stf.prefab")[0];
        assert_eq!(prefab["animations"].as_array().unwrap().len(), animations);
        // Every vertex is weighted: as many weights as the lengths add up to.
        let buf = |k: &str| {
            let slot = mesh[k].as_u64().unwrap() as usize;
            let id = mesh["referenced_buffers"][slot].as_str().unwrap();
            let index = doc["buffers"][id]["index"].as_u64().unwrap() as usize;
            stf.buffers[index].clone()
        };
        let lens = buf("weight_lens");
        assert!(lens.iter().all(|&n| (1..=4).contains(&n)), "{fixture}");
        let total: usize = lens.iter().map(|&n| usize::from(n)).sum();
        assert_eq!(buf("weights").len(), 4 * total, "{fixture}");
        assert_eq!(buf("bone_indices").len(), total, "{fixture}");
        assert_eq!(
            stf.write().unwrap(),
            c.bytes,
            "{fixture}: read and written back"
        );
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("skinned.stf");
        std::fs::write(&p, &c.bytes).unwrap();
        python_check(&p, true);
    }
    // A scene with a second level of detail: named.
    let mut scene = Scene {
        meshes: vec![ExportMesh {
            name: "A".into(),
            primitives: vec![quad_primitive()],
            lod: 0,
        }],
        ..Scene::default()
    };
    let c = meshcodec::import(&scene, &Target::Stf, &Default::default()).unwrap();
    assert!(c.losses.is_empty(), "{:?}", c.losses);
    // The summary, counted as the meshes are written, is what the file holds.
    let info = stf::StfContainer::read(&c.bytes).unwrap().info().unwrap();
    assert_eq!(
        c.summary,
        format!(
            "STF, {} meshes, {} vertices, {} triangles",
            info.meshes, info.vertices, info.faces
        )
    );
    scene.meshes.push(ExportMesh {
        lod: 1,
        ..scene.meshes[0].clone()
    });
    let c = meshcodec::import(&scene, &Target::Stf, &Default::default()).unwrap();
    assert!(c
        .losses
        .iter()
        .any(|l| l.detail.contains("levels of detail")));
    // Out of STF: what the scene does not carry is listed, not one blanket entry.
    for path in corpus_stf() {
        let file = meshcodec::open(&std::fs::read(&path).unwrap()).unwrap();
        let c =
            meshcodec::convert_to(&file, "filemesh:4.01", &Default::default(), &limits).unwrap();
        let all: Vec<&str> = c.losses.iter().map(|l| l.detail.as_str()).collect();
        assert!(all.iter().any(|l| l.contains("material slots")), "{all:?}");
        assert!(all.iter().any(|l| l.contains("stf.node")), "{all:?}");
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// Random triangles over few, often coinciding positions (so vertices are shared,
    /// and faces degenerate or repeated): the geometry survives and the layout is one
    /// `stf_blender` reads.
    #[test]
    fn random_scenes_survive_stf(
        pos in proptest::collection::vec((0u8..3, 0u8..3, 0u8..2), 3..12),
        tris in proptest::collection::vec((0usize..64, 0usize..64, 0usize..64), 1..20),
        moves in proptest::collection::vec(0u8..3, 12),
        split in 0usize..20,
    ) {
        let n = pos.len();
        let positions: Vec<[f32; 3]> =
            pos.iter().map(|&(x, y, z)| [f32::from(x), f32::from(y), f32::from(z)]).collect();
        let triangles: Vec<[u32; 3]> =
            tris.iter().map(|&(a, b, c)| [(a % n) as u32, (b % n) as u32, (c % n) as u32]).collect();
        let prim = |triangles: Vec<[u32; 3]>| Primitive {
            name: String::new(),
            normals: Some(vec![[0.0, 1.0, 0.0]; n]),
            uvs: Some((0..n).map(|i| [i as f32 / 8.0, 0.5]).collect()),
            morph_targets: vec![MorphTarget {
                name: "m".into(),
                position_deltas: (0..n).map(|i| [f32::from(moves[i % 12]), 0.0, 0.0]).collect(),
                default_weight: 0.5,
            }],
            positions: positions.clone(),
            triangles,
            ..Primitive::default()
        };
        let cut = split.min(triangles.len());
        let mut primitives = vec![prim(triangles[..cut].to_vec())];
        if cut < triangles.len() {
            primitives.push(prim(triangles[cut..].to_vec()));
        }
        primitives.retain(|p| !p.triangles.is_empty());
        let mut scene = Scene {
            meshes: vec![ExportMesh { name: "R".into(), primitives, lod: 0 }],
            ..Scene::default()
        };
        scene.prepare();
        let (c, back) = through_stf(&scene);
        assert_same_geometry(&scene, &back, "random");
        check_blender_requirements(&c);
    }
}

/// Odd documents around a mesh (references that resolve to nothing, tables of the wrong
/// type, out-of-range indices): writing a valid mesh into them never panics, and when
/// it succeeds the mesh reads back as written.
#[test]
fn odd_documents_never_panic() {
    let path = common::fixture_dir("stf").join("quad-new-style.stf");
    let c = StfContainer::read(&std::fs::read(path).unwrap()).unwrap();
    let meshes = model::meshes(&c).unwrap();
    let id = meshes[0].id.clone();
    type Edit<'a> = Box<dyn Fn(&mut Value) + 'a>;
    let edits: Vec<Edit<'_>> = vec![
        Box::new(|d| d["resources"][&id]["referenced_buffers"] = Value::from("x")),
        Box::new(|d| d["resources"][&id]["referenced_buffers"] = Value::Array(vec![])),
        Box::new(|d| d["resources"][&id]["vertices"] = Value::from(99)),
        Box::new(|d| d["resources"][&id]["uvs"] = Value::from(3)),
        Box::new(|d| d["resources"][&id]["blendshapes"] = serde_json::json!([1, "a"])),
        Box::new(|d| d["resources"][&id]["lines"] = serde_json::json!({"fresh": 0})),
        Box::new(|d| {
            for e in d["buffers"].as_object_mut().unwrap().values_mut() {
                e["index"] = Value::from(1_000_000);
            }
        }),
        Box::new(|d| d["buffers"] = Value::from(1)),
        Box::new(|d| d["resources"] = Value::Null),
    ];
    for (k, edit) in edits.iter().enumerate() {
        let mut doc = model::document(&c).unwrap();
        edit(&mut doc);
        let odd = StfContainer {
            json: serde_json::to_vec(&doc).unwrap().into(),
            ..c.clone()
        };
        if let Ok(out) = stf::replace_meshes(&odd, &meshes) {
            let back = StfContainer::read(&out.write().unwrap()).unwrap();
            if let Ok(read) = model::meshes(&back) {
                let m = read.iter().find(|m| m.id == id).unwrap();
                assert_eq!(m.vertices, meshes[0].vertices, "edit {k}");
                assert_eq!(m.tris, meshes[0].tris, "edit {k}");
            }
        }
    }
}

/// With `SOURCE_DATE_EPOCH` set, the same input gives the same bytes (the document's
/// timestamp is the one thing that would differ), and the timestamp is that time; at
/// another time, the timestamp is all that changes.
#[test]
fn source_date_epoch_makes_the_output_reproducible() {
    let fixture = common::fixture_dir("filemesh").join("v2.00-36b.mesh");
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str, time: &str| {
        let out = dir.path().join(name);
        let o = bin()
            .arg("convert")
            .arg(&fixture)
            .arg(&out)
            .args(["--to", "stf", "--allow-lossy"])
            .env("SOURCE_DATE_EPOCH", time)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        std::fs::read(&out).unwrap()
    };
    let (a, b) = (run("repro-a.stf", "86400"), run("repro-b.stf", "86400"));
    assert_eq!(a, b);
    let c = StfContainer::read(&a).unwrap();
    let doc: Value = serde_json::from_slice(&c.json).unwrap();
    assert_eq!(doc["stf"]["timestamp"], "1970-01-02T00:00:00+00:00");

    // Written a second later, only the timestamp differs: the new resources' ids come
    // from the content, not from the time of writing.
    let later = run("repro-c.stf", "86401");
    let timeless = |bytes: &[u8]| {
        let c = StfContainer::read(bytes).unwrap();
        let mut doc: Value = serde_json::from_slice(&c.json).unwrap();
        let stamp = doc["stf"].as_object_mut().unwrap().remove("timestamp");
        (doc, c.buffers, stamp)
    };
    let (doc_a, buffers_a, stamp_a) = timeless(&a);
    let (doc_c, buffers_c, stamp_c) = timeless(&later);
    assert_ne!(stamp_a, stamp_c);
    assert_eq!(doc_a, doc_c);
    assert!(buffers_a == buffers_c);
}
