//! Conversion between versions through the model, with loss reports.

use crate::common;

use meshcodec::filemesh::model::convert::{CoreMesh, WriteOptions};
use meshcodec::filemesh::model::Mesh;
use meshcodec::filemesh::raw::{Body, ChunkData, FileMesh, Version};
use meshcodec::loss::{Level, LossKind};

/// Every real 7.00 file with a Draco core mesh: 7.00 → 5.00 → 7.00 gives the same bytes.
#[test]
fn draco_files_survive_7_to_5_to_7_byte_identical() {
    let mut files: Vec<_> = common::fixture_files();
    if let Some(dir) = common::corpus() {
        files.extend(common::corpus_filemeshes(&dir, &["7.00"]));
    }
    let mut n = 0;
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        let file = FileMesh::read(&bytes).unwrap();
        let Body::V6(b) = &file.body else { continue };
        // Roblox-encoded blobs only: the reference-encoder fixtures use other settings.
        if file.version != Version::V7_00
            || !matches!(
                b.chunks.first().map(|c| &c.data),
                Some(ChunkData::CoreMeshV2(_))
            )
            || path.to_string_lossy().contains("draco-")
        {
            continue;
        }
        let mesh = Mesh::from_file(&file).unwrap();
        let v5 = mesh.to_file(Version::V5_00).unwrap().write().unwrap();
        let back = Mesh::read(&v5).unwrap();
        let v7 = back.to_file(Version::V7_00).unwrap().write().unwrap();
        assert!(
            v7 == bytes,
            "{}: 7.00 → 5.00 → 7.00 differs",
            path.display()
        );
        n += 1;
    }
    if common::corpus().is_some() {
        assert!(n >= 2, "{n}");
    }
}

/// LOD 0 as (position, uv) per face corner: what an independent reader compares.
fn lod0_corners(m: &Mesh) -> Vec<([f32; 3], [f32; 2])> {
    let range = m.lods.lod0(m.faces.len());
    m.faces[range]
        .iter()
        .flatten()
        .map(|&i| (m.vertices[i as usize].position, m.vertices[i as usize].uv))
        .collect()
}

/// Every file to every version (lossy allowed) and back: LOD 0 geometry is kept —
/// exactly, except 1.x text (6 significant digits).
#[test]
fn every_file_converts_to_every_version_keeping_lod0_geometry() {
    let mut n = 0;
    for path in common::fixtures_and_corpus_filemeshes() {
        let mesh = Mesh::read(&std::fs::read(&path).unwrap()).unwrap();
        let want = lod0_corners(&mesh);
        for target in Version::ALL {
            let file = mesh
                .to_file(target)
                .unwrap_or_else(|e| panic!("{} → {target}: {e}", path.display()));
            let bytes = file.write().unwrap();
            let back =
                Mesh::read(&bytes).unwrap_or_else(|e| panic!("{} → {target}: {e}", path.display()));
            let got = lod0_corners(&back);
            assert_eq!(got.len(), want.len(), "{} → {target}", path.display());
            for (g, w) in got.iter().zip(&want) {
                if target.is_text() {
                    let close =
                        |a: f32, b: f32| (a - b).abs() <= 1e-5 * a.abs().max(b.abs()).max(1.0);
                    assert!(
                        (0..3).all(|k| close(g.0[k], w.0[k]))
                            && (0..2).all(|k| close(g.1[k], w.1[k])),
                        "{} → {target}: {g:?} vs {w:?}",
                        path.display()
                    );
                } else {
                    assert_eq!(
                        (g.0.map(f32::to_bits), g.1.map(f32::to_bits)),
                        (w.0.map(f32::to_bits), w.1.map(f32::to_bits)),
                        "{} → {target}",
                        path.display()
                    );
                }
            }
            // What the target can hold comes back equal.
            if target.has_skinning() {
                assert_eq!(
                    back.skeleton,
                    mesh.skeleton,
                    "{} → {target}",
                    path.display()
                );
                assert_eq!(
                    back.skinning,
                    mesh.skinning,
                    "{} → {target}",
                    path.display()
                );
            }
            // FACS where the target has it, decoded poses equal (re-quantized exactly).
            if target.has_facs() {
                assert_eq!(back.facs, mesh.facs, "{} → {target}", path.display());
            } else {
                assert!(back.facs.is_none());
            }
            if target.is_chunked() {
                assert_eq!(back.hsr_always_visible, mesh.hsr_always_visible);
            }
            n += 1;
        }
    }
    eprintln!("{n} conversions checked");
}

fn kinds(mesh: &Mesh, target: Version) -> Vec<LossKind> {
    mesh.losses(target)
        .unwrap()
        .into_iter()
        .map(|l| l.kind)
        .collect()
}

#[test]
fn loss_reports_name_exactly_what_the_target_cannot_hold() {
    let read = |name: &str, set: &str| {
        Mesh::read(&std::fs::read(common::fixture_dir(set).join(name)).unwrap()).unwrap()
    };
    // Skeleton, skinning, FACS, LODs and LOD info below their versions.
    let facs = read("v5.00-facs.mesh", "filemesh");
    assert_eq!(kinds(&facs, Version::V5_00), []);
    assert_eq!(kinds(&facs, Version::V6_00), []);
    assert_eq!(kinds(&facs, Version::V4_01), [LossKind::Facs]);
    assert_eq!(
        kinds(&facs, Version::V3_00),
        [
            LossKind::LodInfo,
            LossKind::Skeleton,
            LossKind::Skinning,
            LossKind::Facs,
        ]
    );
    assert_eq!(
        kinds(&facs, Version::V2_00),
        [
            LossKind::Lods,
            LossKind::LodInfo,
            LossKind::Skeleton,
            LossKind::Skinning,
            LossKind::Facs,
        ]
    );
    // 7.00 keeps the normals (COREMESH v1) unless Draco is forced.
    assert_eq!(kinds(&facs, Version::V7_00), []);
    let draco = WriteOptions {
        core_mesh: CoreMesh::Draco,
    };
    let c = facs.convert_with(Version::V7_00, &draco).unwrap();
    assert_eq!(
        c.losses.iter().map(|l| l.kind).collect::<Vec<_>>(),
        [LossKind::NormalPrecision]
    );
    // Colours and tangents in text; HSR flags below 6.00.
    let colored = read("v2.00-40b.mesh", "filemesh");
    let k = kinds(&colored, Version::V1_01);
    assert!(
        k.contains(&LossKind::Colors) && k.contains(&LossKind::Tangents),
        "{k:?}"
    );
    assert_eq!(kinds(&colored, Version::V2_00), []);
    assert_eq!(kinds(&colored, Version::V4_00), []);
    let all = read("v6.00-all-chunks.mesh", "chunked");
    assert!(kinds(&all, Version::V5_00).contains(&LossKind::Hsr));
    assert_eq!(kinds(&all, Version::V6_00), []);
    // Upgrades of a plain mesh lose nothing.
    let plain = read("v2.00-36b.mesh", "filemesh");
    for v in [
        Version::V3_00,
        Version::V3_01,
        Version::V4_00,
        Version::V4_01,
        Version::V5_00,
        Version::V6_00,
    ] {
        assert_eq!(kinds(&plain, v), [], "{v}");
    }
}

/// Dropping LODs keeps LOD 0.
#[test]
fn dropping_lods_keeps_lod0() {
    let mesh =
        Mesh::read(&std::fs::read(common::fixtures().join("v3.00-lods.mesh")).unwrap()).unwrap();
    assert_eq!(mesh.lods.offsets, [0, 6, 9, 10]);
    let v2 = Mesh::read(&mesh.to_file(Version::V2_00).unwrap().write().unwrap()).unwrap();
    assert_eq!(v2.faces, mesh.faces[0..6]);
    let l = mesh.losses(Version::V2_00).unwrap();
    assert_eq!(l.len(), 1);
    assert_eq!(
        l[0].detail,
        "4 faces of LODs other than LOD 0 (2.00 has no LODs)"
    );
}

/// More than 26 bones in a LOD: the writer cuts the LOD's vertex range into subsets of at
/// most 26 bones; skinning comes back equal, and the subsets tile vertices and faces.
#[test]
fn many_bones_are_split_into_subsets_of_at_most_26() {
    use meshcodec::filemesh::model::{Influence, Lods, MeshBone, MeshVertex, VertexSkin};
    // 40 blocks of 3 vertices, block k skinned to bone k (and bone (k+1) % 40 lightly);
    // LOD 0 = blocks 0..30, LOD 1 = blocks 30..40.
    let n = 120;
    let vertices: Vec<MeshVertex> = (0..n)
        .map(|i| MeshVertex {
            position: [i as f32, 0.0, 1.0],
            ..MeshVertex::default()
        })
        .collect();
    let faces: Vec<[u32; 3]> = (0..40u32).map(|k| [3 * k, 3 * k + 1, 3 * k + 2]).collect();
    let skinning: Vec<VertexSkin> = (0..n)
        .map(|i| {
            let k = (i / 3) as u16;
            let mut s = VertexSkin::default();
            s.influences[0] = Influence {
                bone: k,
                weight: 200,
            };
            s.influences[1] = Influence {
                bone: (k + 1) % 40,
                weight: 55,
            };
            s
        })
        .collect();
    let mesh = Mesh {
        vertices,
        faces,
        lods: Lods {
            lod_type: 3,
            num_high_quality_lods: 1,
            offsets: vec![0, 30, 40],
        },
        skeleton: (0..40)
            .map(|i| MeshBone {
                name: format!("B{i}"),
                ..MeshBone::default()
            })
            .collect(),
        skinning: Some(skinning.into()),
        ..Mesh::default()
    };
    for target in [Version::V4_01, Version::V5_00, Version::V6_00] {
        let file = mesh.to_file(target).unwrap();
        let back = Mesh::read(&file.write().unwrap()).unwrap();
        assert_eq!(back.skinning, mesh.skinning, "{target}");
        let subsets = match &file.body {
            Body::V4(b) => b.subsets.clone(),
            Body::V6(b) => b
                .chunks
                .iter()
                .find_map(|c| match &c.data {
                    ChunkData::SkinningV1(s) => Some(s.subsets.clone()),
                    _ => None,
                })
                .unwrap(),
            _ => unreachable!(),
        };
        assert!(subsets.len() >= 3, "{target}: {} subsets", subsets.len());
        assert!(subsets.iter().all(|s| s.num_bone_indices <= 26));
        // Vertex ranges tile 0..120 in order; face ranges tile 0..40 in order.
        let mut v = 0;
        let mut f = 0;
        for s in &subsets {
            assert_eq!(s.verts_begin, v, "{target}: {subsets:?}");
            assert_eq!(s.faces_begin, f, "{target}: {subsets:?}");
            v += s.verts_length;
            f += s.faces_length;
        }
        assert_eq!((v, f), (120, 40), "{target}");
    }
}

/// Every binary fixture and corpus file, to every version whose conversion reports no
/// loss, and back: the original bytes. (A conversion with losses is refused by the CLI
/// without --allow-lossy.)
#[test]
fn up_and_back_is_byte_identical_wherever_nothing_is_reported() {
    let (mut same, mut lossy) = (0, 0);
    for path in common::fixtures_and_corpus_filemeshes() {
        let bytes = std::fs::read(&path).unwrap();
        let file = FileMesh::read(&bytes).unwrap();
        if file.version.is_text() {
            continue;
        }
        let mesh = Mesh::from_file(&file).unwrap();
        for target in Version::ALL {
            if target == file.version {
                continue;
            }
            let c = mesh
                .convert(target)
                .unwrap_or_else(|e| panic!("{} → {target}: {e}", path.display()));
            if !c.losses.is_empty() {
                lossy += 1;
                continue;
            }
            let there = Mesh::read(&c.file.write().unwrap()).unwrap();
            let back = there
                .convert(file.version)
                .unwrap_or_else(|e| panic!("{} → {target} → back: {e}", path.display()));
            let again = back.file.write().unwrap();
            assert!(
                again == bytes,
                "{} → {target} → {}: differs at byte {:?}",
                path.display(),
                file.version,
                again.iter().zip(&bytes).position(|(a, b)| a != b)
            );
            same += 1;
        }
    }
    eprintln!("{same} round trips byte-identical, {lossy} conversions reported losses");
    assert!(same >= 60, "{same}");
}

/// Every text fixture and corpus file, to every binary version whose report loses
/// nothing, and back: the same values always, and the same bytes exactly when the report
/// is empty; otherwise its one line is the re-laid printing (CRLF, three-digit exponents,
/// another precision, numbers printed otherwise than `%g`).
#[test]
fn text_up_and_back_keeps_the_values_and_names_the_printing() {
    let (mut same, mut reprinted) = (0, 0);
    for path in common::fixtures_and_corpus_filemeshes() {
        let bytes = std::fs::read(&path).unwrap();
        let file = FileMesh::read(&bytes).unwrap();
        if !file.version.is_text() {
            continue;
        }
        let mesh = Mesh::from_file(&file).unwrap();
        for target in Version::ALL.into_iter().filter(|v| !v.is_text()) {
            let c = mesh.convert(target).unwrap();
            if c.losses.iter().any(|l| l.level == Level::Lost) {
                continue;
            }
            let there = Mesh::read(&c.file.write().unwrap()).unwrap();
            let back = there.convert(file.version).unwrap();
            let again = Mesh::read(&back.file.write().unwrap()).unwrap();
            let values = |m: &Mesh| -> Vec<u32> {
                m.vertices
                    .iter()
                    .flat_map(|v| v.position.iter().chain(&v.normal).chain(&v.uv))
                    .map(|x| x.to_bits())
                    .collect()
            };
            let what = format!("{} → {target} → {}", path.display(), file.version);
            if back.losses.is_empty() {
                assert_eq!(values(&again), values(&mesh), "{what}");
            }
            let identical = back.file.write().unwrap() == bytes;
            if c.losses.is_empty() {
                assert!(identical, "{what}: differs with an empty report");
                same += 1;
            } else {
                assert!(!identical, "{what}: {:?} but the same bytes", c.losses);
                assert!(
                    matches!(&c.losses[..], [l] if l.kind == LossKind::Layout
                        && l.level == Level::Relaid
                        && l.detail.starts_with("how the ")),
                    "{what}: {:?}",
                    c.losses
                );
                reprinted += 1;
            }
        }
    }
    eprintln!("{same} text round trips byte-identical, {reprinted} named their printing");
    assert!(same + reprinted >= 8, "{same} {reprinted}");
}

/// An edit of a text file's positions leaves its texture coordinates as the text
/// printed them: the V the model holds flipped (`1 − v` in `f32`) is written as the
/// text's own while unchanged (flipped back, `0.01` would print `0.00999999`).
#[test]
fn a_text_edit_keeps_the_texture_coordinates_as_printed() {
    let mut checked = 0;
    for path in common::fixtures_and_corpus_filemeshes() {
        let bytes = std::fs::read(&path).unwrap();
        let file = FileMesh::read(&bytes).unwrap();
        let Body::V1(text) = &file.body else {
            continue;
        };
        let mut mesh = Mesh::from_file(&file).unwrap();
        for v in &mut mesh.vertices {
            v.position = v.position.map(|x| x * 2.0);
        }
        let c = mesh.convert(file.version).unwrap();
        let back = FileMesh::read(&c.file.write().unwrap()).unwrap();
        let Body::V1(again) = &back.body else {
            panic!("{}: not text", path.display());
        };
        let uvs = |t: &meshcodec::filemesh::raw::FileMeshV1| -> Vec<[u32; 3]> {
            t.faces
                .iter()
                .flatten()
                .map(|p| p.uvw.map(f32::to_bits))
                .collect()
        };
        assert!(uvs(text) == uvs(again), "{}", path.display());
        checked += 1;
    }
    assert!(checked >= 3, "{checked}");
}

/// Every `w` +0 is kept as none (it reads as +0); a −0 `w` is not +0 and is kept.
#[test]
fn a_text_w_of_minus_zero_is_kept() {
    use meshcodec::filemesh::raw::text::VertexV1;
    for w in [0.0f32, -0.0] {
        let point = |x: f32| VertexV1 {
            position: [x, 1.0, 2.0],
            normal: [0.0, 1.0, 0.0],
            uvw: [0.25, 0.01, w],
        };
        let file = FileMesh {
            version: Version::V1_01,
            body: Body::V1(meshcodec::filemesh::raw::FileMeshV1::new(vec![[
                point(0.0),
                point(1.0),
                point(2.0),
            ]])),
        };
        let bytes = file.write().unwrap();
        let mut mesh = Mesh::read(&bytes).unwrap();
        mesh.vertices[0].position[0] = 5.0;
        let c = mesh.convert(Version::V1_01).unwrap();
        let Body::V1(back) = FileMesh::read(&c.file.write().unwrap()).unwrap().body else {
            panic!("not text");
        };
        for p in back.faces.iter().flatten() {
            assert_eq!(p.uvw[2].to_bits(), w.to_bits(), "{w}");
            assert_eq!(p.uvw[1].to_bits(), 0.01f32.to_bits());
        }
    }
}

/// A real file with something the model does not interpret: carried where the target
/// has a place for it, else named in the report — never dropped with an empty report.
#[test]
fn nothing_the_model_does_not_read_is_dropped_in_silence() {
    let corpus = common::corpus();
    let pick = |corpus_name: &str, fixture: &str| -> Vec<u8> {
        match &corpus {
            Some(dir) => std::fs::read(dir.join("roblox").join(corpus_name)).unwrap(),
            None => std::fs::read(common::fixture_dir("filemesh").join(fixture))
                .or_else(|_| std::fs::read(common::fixture_dir("chunked").join(fixture)))
                .unwrap(),
        }
    };
    // Carried where the target has a place, reported where it does not.
    let check = |what: &str, bytes: &[u8], carried: &[Version], lost: &[(Version, LossKind)]| {
        let mesh = Mesh::read(bytes).unwrap_or_else(|e| panic!("{what}: {e}"));
        for &t in carried {
            let c = mesh.convert(t).unwrap();
            assert!(c.losses.is_empty(), "{what} → {t}: {:?}", c.losses);
            let back = Mesh::read(&c.file.write().unwrap()).unwrap();
            let again = back.convert(mesh.stored.version.unwrap()).unwrap();
            assert!(
                again.losses.is_empty(),
                "{what} → {t} → back: {:?}",
                again.losses
            );
            assert!(again.file.write().unwrap() == bytes, "{what} → {t} → back");
        }
        for &(t, kind) in lost {
            let c = mesh.convert(t).unwrap();
            assert!(
                c.losses.iter().any(|l| l.kind == kind),
                "{what} → {t}: {kind:?} expected in {:?}",
                c.losses
            );
        }
    };
    // An unknown chunk in a 7.00 file (after its LODS) and in a 6.00 file.
    let v7 = pick("v7.00-127279296594138.mesh", "v7.00-coremesh-v1.mesh");
    let mut with_chunk = v7.clone();
    with_chunk.extend_from_slice(b"EXTRA\0\0\0");
    with_chunk.extend_from_slice(&3u32.to_le_bytes());
    with_chunk.extend_from_slice(&5u32.to_le_bytes());
    with_chunk.extend_from_slice(b"hello");
    check(
        "7.00 + unknown chunk",
        &with_chunk,
        &[Version::V6_00],
        &[
            (Version::V5_00, LossKind::Chunks),
            (Version::V4_01, LossKind::Chunks),
        ],
    );
    let v6 = Mesh::read(&with_chunk)
        .unwrap()
        .to_file(Version::V6_00)
        .unwrap()
        .write()
        .unwrap();
    check(
        "6.00 + unknown chunk",
        &v6,
        &[Version::V7_00],
        &[(Version::V5_00, LossKind::Chunks)],
    );
    // Trailing bytes after a 5.00 file and a longer header in a 4.01 file (real ones
    // when the corpus is there).
    let v5 = pick("v5.00-15256456161.mesh", "v5.00-facs.mesh");
    let mut trailing = v5.clone();
    trailing.extend_from_slice(b"\x01\x02\x03");
    check(
        "5.00 + trailing bytes",
        &trailing,
        &[],
        &[
            (Version::V6_00, LossKind::TrailingBytes),
            (Version::V7_00, LossKind::TrailingBytes),
            (Version::V4_01, LossKind::Facs),
        ],
    );
    let v4 = pick("v4.01-sphere.mesh", "v4.01-nobones.mesh");
    let mut longer = v4.clone();
    let size = u16::from_le_bytes([v4[13], v4[14]]);
    longer[13..15].copy_from_slice(&(size + 4).to_le_bytes());
    for (i, b) in [0xAB, 0xCD, 0xEF, 0x01].into_iter().enumerate() {
        longer.insert(13 + usize::from(size) + i, b);
    }
    check(
        "4.01 + 4 header bytes",
        &longer,
        &[Version::V4_00],
        &[
            (Version::V5_00, LossKind::HeaderBytes),
            (Version::V6_00, LossKind::HeaderBytes),
        ],
    );
    let mut trailing4 = v4.clone();
    trailing4.push(7);
    check(
        "4.01 + trailing byte",
        &trailing4,
        &[Version::V4_00, Version::V5_00],
        &[(Version::V7_00, LossKind::TrailingBytes)],
    );
}

/// Edits invalidate exactly what they touch: a moved vertex gives a fresh Draco bitstream,
/// a changed weight fresh subsets, a changed FACS value a re-quantized block; the rest
/// is carried.
#[test]
fn edits_recompute_only_what_they_invalidate() {
    use meshcodec::filemesh::model::stored::StoredCore;
    let v7 = common::fixture_dir("chunked").join("v7.00-draco-grid-272.mesh");
    let bytes = std::fs::read(v7).unwrap();
    let mesh = Mesh::read(&bytes).unwrap();
    let Some(StoredCore::Draco(blob)) = &mesh.stored.core else {
        panic!("a Draco core mesh expected")
    };
    // Unchanged: the stored bitstream (from another encoder) is reused as it is.
    assert_eq!(
        mesh.to_file(Version::V7_00).unwrap().write().unwrap(),
        bytes
    );
    // A moved vertex: the stored bitstream no longer decodes to the data.
    let mut moved = mesh.clone();
    moved.vertices[5].position[1] += 0.25;
    let out = moved.to_file(Version::V7_00).unwrap();
    let back = Mesh::read(&out.write().unwrap()).unwrap();
    assert_eq!(back.vertices[5].position, moved.vertices[5].position);
    assert_eq!(back.vertices, moved.vertices);
    if let Some(StoredCore::Draco(b)) = &back.stored.core {
        assert_ne!(b, blob);
    }

    // Skinning: the stored subsets and envelope bytes are reused until a weight changes.
    let v5 = common::fixture_dir("filemesh").join("v5.00-facs.mesh");
    let bytes = std::fs::read(v5).unwrap();
    let mesh = Mesh::read(&bytes).unwrap();
    assert_eq!(
        mesh.to_file(Version::V5_00).unwrap().write().unwrap(),
        bytes
    );
    let stored = mesh.stored.skin.clone().unwrap();
    let mut edited = mesh.clone();
    let skin = edited.skinning.as_mut().unwrap();
    let v = skin
        .iter()
        .position(|s| s.influences[1].weight > 0)
        .unwrap();
    skin[v].influences[0].weight += skin[v].influences[1].weight;
    skin[v].influences[1] = Default::default();
    let back = Mesh::read(&edited.to_file(Version::V5_00).unwrap().write().unwrap()).unwrap();
    assert_eq!(back.skinning, edited.skinning);
    assert_ne!(
        back.stored.skin.as_ref().unwrap().envelopes,
        stored.envelopes
    );
    // A FACS value on the stored grid keeps the stored ranges; one off it re-quantizes.
    let mut f = mesh.clone();
    let rig = f.facs.as_mut().unwrap();
    let (a, b) = (rig.poses[0][0].position[0], rig.poses[1][0].position[0]);
    rig.poses[0][0].position[0] = b;
    rig.poses[1][0].position[0] = a;
    let c = f.convert(Version::V5_00).unwrap();
    assert!(c.losses.is_empty(), "{:?}", c.losses);
    rig_changed(&mut f);
    let c = f.convert(Version::V5_00).unwrap();
    assert_eq!(
        c.losses.iter().map(|l| l.kind).collect::<Vec<_>>(),
        [LossKind::Facs],
        "{:?}",
        c.losses
    );
}

/// Puts a value off every quantization grid into the rig.
fn rig_changed(m: &mut Mesh) {
    let rig = m.facs.as_mut().unwrap();
    rig.poses[0][0].rotation[2] = 1.0e9 + 0.123;
    rig.encodings = [meshcodec::filemesh::model::MatrixEncoding::Quantized; 6];
}

/// Values that are not finite: kept by every binary version without a word (7.00 writes
/// COREMESH v1), replaced by 0 and reported where the target cannot hold them (text,
/// forced Draco).
#[test]
fn non_finite_values_are_kept_or_replaced_and_reported() {
    let mut bytes = std::fs::read(common::fixture_dir("filemesh").join("v3.01-lods.mesh")).unwrap();
    // Vertex 0's normal x and vertex 1's position y (40-byte vertices after a 16-byte
    // header).
    let vertex = |i: usize| 13 + 16 + 40 * i;
    bytes[vertex(0) + 12..vertex(0) + 16].copy_from_slice(&f32::NAN.to_le_bytes());
    bytes[vertex(1) + 4..vertex(1) + 8].copy_from_slice(&f32::INFINITY.to_le_bytes());
    let file = FileMesh::read(&bytes).unwrap();
    assert_eq!(file.write().unwrap(), bytes);
    let info = file.info().unwrap();
    assert_eq!(
        (
            info.non_finite.positions,
            info.non_finite.normals,
            info.non_finite.uvs
        ),
        (1, 1, 0)
    );
    let mesh = Mesh::from_file(&file).unwrap();
    for t in [
        Version::V4_01,
        Version::V5_00,
        Version::V6_00,
        Version::V7_00,
    ] {
        let c = mesh.convert(t).unwrap();
        assert!(c.losses.is_empty(), "{t}: {:?}", c.losses);
        let back = Mesh::read(&c.file.write().unwrap()).unwrap();
        assert!(back.vertices[0].normal[0].is_nan());
        assert_eq!(back.vertices[1].position[1], f32::INFINITY);
    }
    let draco = WriteOptions {
        core_mesh: CoreMesh::Draco,
    };
    let c = mesh.convert_with(Version::V7_00, &draco).unwrap();
    assert!(
        c.losses.iter().any(|l| l.kind == LossKind::NonFinite),
        "{:?}",
        c.losses
    );
    let back = Mesh::read(&c.file.write().unwrap()).unwrap();
    // 0, then quantized to the 11-bit grid.
    assert!(
        back.vertices[0].normal[0].abs() < 1e-3,
        "{:?}",
        back.vertices[0].normal
    );
    // Positions are not quantized by Draco: the infinity survives.
    assert_eq!(back.vertices[1].position[1], f32::INFINITY);
    let c = mesh.convert(Version::V1_01).unwrap();
    assert!(
        c.losses.iter().any(|l| l.kind == LossKind::NonFinite),
        "{:?}",
        c.losses
    );
}

/// `--to FORMAT:VERSION`: the same format goes through the format's own model (the
/// qualified spelling is the bare one), another through the scene, with a report that
/// names what the source holds beyond the scene and what the target cannot store.
#[test]
fn any_format_to_any_format() {
    use meshcodec::{convert_to, open, ConvertOptions, Limits, MeshFile};
    let limits = Limits::default();
    let options = ConvertOptions::default();
    let read = |p: std::path::PathBuf| std::fs::read(p).expect("read");
    let triangles = |bytes: &[u8]| -> usize {
        let f = open(bytes).expect("open");
        f.to_scene(&Default::default(), &limits)
            .expect("scene")
            .meshes
            .iter()
            .flat_map(|m| &m.primitives)
            .map(|p| p.triangles.len())
            .sum()
    };

    // FileMesh: qualified and bare spellings agree.
    let mesh = read(common::fixture_dir("filemesh").join("v4.00-bones.mesh"));
    let file = open(&mesh).expect("open");
    let bare = file
        .convert(&file.target("4.01").unwrap(), &options, &limits)
        .unwrap();
    let qualified = convert_to(&file, "filemesh:4.01", &options, &limits).unwrap();
    assert_eq!(bare, qualified);

    // FileMesh → CSGPHS: a mesh that is not convex is refused, naming the vertex
    // outside a face; CSGPHS holds convex hulls only.
    let e = convert_to(&file, "csgphs:7", &options, &limits).unwrap_err();
    assert!(e.to_string().contains("is not convex"), "{e}");

    // A convex one (a tetrahedron with a 3-joint skin, normals, UVs and colours) becomes
    // a hull: the skin, normals, UVs and colours are named; every triangle arrives.
    use meshcodec::scene::{ExportMesh, Joint, Primitive, Scene, Skeleton};
    let tetra = Scene {
        meshes: vec![ExportMesh {
            name: "tetra".into(),
            lod: 0,
            primitives: vec![Primitive {
                positions: vec![
                    [0.0, 0.0, 0.0],
                    [1.0, 0.0, 0.0],
                    [0.0, 1.0, 0.0],
                    [0.0, 0.0, 1.0],
                ],
                normals: Some(vec![[0.0, 0.0, 1.0]; 4]),
                uvs: Some(vec![[0.5, 0.5]; 4]),
                colors: Some(vec![[1.0, 0.0, 0.0, 1.0]; 4]),
                joints: Some(vec![[0, 1, 2, 0]; 4]),
                weights: Some(vec![[0.5, 0.25, 0.25, 0.0]; 4]),
                triangles: vec![[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]],
                ..Primitive::default()
            }],
        }],
        skeleton: Some(Skeleton {
            joints: vec![Joint::default(); 3],
        }),
        ..Scene::default()
    };
    let target = meshcodec::Target::qualified("csgphs:7").unwrap().unwrap();
    let c = meshcodec::import(&tetra, &target, &options).unwrap();
    let text: Vec<String> = c.losses.iter().map(|l| l.to_string()).collect();
    for expected in [
        "skeleton (3 joints)",
        "the normals of",
        "the UVs of",
        "the colours of",
    ] {
        assert!(
            text.iter().any(|t| t.contains(expected)),
            "{expected}: {text:?}"
        );
    }
    assert!(c.bytes.starts_with(b"CSGPHS\x07\0\0\0"));
    assert_eq!(triangles(&c.bytes), 4);

    // CSGPHS → FileMesh: the physics, geometry type and hull split are named; every
    // hull triangle arrives, at the same positions.
    let csg = read(common::fixture_dir("csgphs").join("csgphs7.bin"));
    let file = open(&csg).expect("open");
    let c = convert_to(&file, "filemesh:4.00", &options, &limits).unwrap();
    let kinds: Vec<_> = c.losses.iter().map(|l| l.kind).collect();
    use meshcodec::loss::LossKind;
    for k in [
        LossKind::CsgPhysics,
        LossKind::CsgGeometryType,
        LossKind::CsgHulls,
    ] {
        assert!(kinds.contains(&k), "{k:?}: {kinds:?}");
    }
    assert_eq!(triangles(&c.bytes), triangles(&csg));
    let m = meshcodec::filemesh::model::Mesh::read(&c.bytes).unwrap();
    let scene = file.to_scene(&Default::default(), &limits).unwrap();
    let hull_positions: Vec<[f32; 3]> = scene
        .meshes
        .iter()
        .flat_map(|m| &m.primitives)
        .flat_map(|p| p.positions.iter().copied())
        .collect();
    let mesh_positions: Vec<[f32; 3]> = m.vertices.iter().map(|v| v.position).collect();
    assert_eq!(mesh_positions, hull_positions);

    // UNIGINE → FileMesh: what goes is named item by item, no blanket line; only what
    // is really lost is Lost (the tangent frames), the bounds are re-laid.
    let unigine = read(common::fixture_dir("unigine").join("ms12-morph.mesh"));
    let file = open(&unigine).expect("open");
    let c = convert_to(&file, "filemesh:5.00", &options, &limits).unwrap();
    assert!(
        c.losses.iter().all(|l| !l.detail.contains("data beyond")),
        "{:?}",
        c.losses
    );
    use meshcodec::loss::Level;
    let level = |what: &str| {
        c.losses
            .iter()
            .find(|l| l.detail.contains(what))
            .unwrap_or_else(|| panic!("{what}: {:?}", c.losses))
            .level
    };
    assert_eq!(level("tangent frames"), Level::Lost);
    assert_eq!(level("bounding boxes"), Level::Relaid);
    assert_eq!(level("morph targets are not carried"), Level::Lost);
    assert_eq!(triangles(&c.bytes), triangles(&unigine));

    // Spellings that name no format or no version of it.
    assert!(convert_to(&file, "obj:1", &options, &limits).is_err());
    assert!(convert_to(&file, "csgphs:4", &options, &limits).is_err());
}
