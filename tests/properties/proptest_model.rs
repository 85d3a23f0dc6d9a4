//! Property tests of the model: arbitrary meshes → every version → back are equal in
//! everything the version can hold.

use crate::common;

use meshcodec::codec::draco;
use meshcodec::filemesh::model::convert::{CoreMesh, WriteOptions};
use meshcodec::filemesh::model::{FacsRig, MatrixEncoding, Mesh, MeshBone, MeshVertex};
use meshcodec::filemesh::raw::Face;
use meshcodec::filemesh::raw::Version;
use meshcodec::strategy::{filemesh as strategy, Size};
use meshcodec::Limits;
use proptest::prelude::*;

fn mesh() -> impl Strategy<Value = Mesh> {
    strategy::mesh(Size::default())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn every_version_keeps_what_it_can_hold(mesh in mesh()) {
        for target in Version::ALL {
            let bytes = mesh.to_file(target).unwrap().write().unwrap();
            let back = Mesh::read(&bytes).unwrap();
            let lod0 = mesh.lods.lod0(mesh.faces.len());
            if target.is_text() {
                // One vertex per corner of the LOD 0 faces, 6 significant digits.
                prop_assert_eq!(back.faces.len(), lod0.len());
                continue;
            }
            // Binary: vertices kept exactly (7.00 writes COREMESH v1 where Draco would
            // move a normal).
            prop_assert_eq!(back.vertices.len(), mesh.vertices.len());
            for (b, m) in back.vertices.iter().zip(&mesh.vertices) {
                prop_assert_eq!(b.position.map(f32::to_bits), m.position.map(f32::to_bits));
                prop_assert_eq!(b.uv.map(f32::to_bits), m.uv.map(f32::to_bits));
                prop_assert_eq!(b.tangent(), m.tangent());
                prop_assert_eq!(b.color, m.color);
                prop_assert_eq!(b.normal.map(f32::to_bits), m.normal.map(f32::to_bits));
            }
            if target.has_lods() {
                prop_assert_eq!(&back.faces, &mesh.faces);
                let want = if mesh.lods.offsets.is_empty() { vec![0, mesh.faces.len() as u32] } else { mesh.lods.offsets.clone() };
                prop_assert_eq!(&back.lods.offsets, &want);
            } else {
                prop_assert_eq!(&back.faces[..], &mesh.faces[lod0.clone()]);
            }
            if target.has_skinning() {
                prop_assert_eq!(back.lods.lod_type, mesh.lods.lod_type);
                prop_assert_eq!(back.lods.num_high_quality_lods, mesh.lods.num_high_quality_lods);
                prop_assert_eq!(&back.skeleton, &mesh.skeleton);
                prop_assert_eq!(&back.skinning, &mesh.skinning);
            } else {
                prop_assert!(back.skeleton.is_empty() && back.skinning.is_none());
            }
            if target.has_facs() {
                prop_assert_eq!(&back.facs, &mesh.facs);
            }
            if target.is_chunked() {
                prop_assert_eq!(&back.hsr_always_visible, &mesh.hsr_always_visible);
            }
        }
    }

    /// The loss report is complete and honest: converting, reading back and comparing
    /// (here, independently of the library's own comparison) finds a difference exactly
    /// when the report is non-empty. Draco is forced for 7.00 too, so its quantization is
    /// covered.
    #[test]
    fn report_is_empty_exactly_when_nothing_changes(
        mesh in mesh(),
        draco in any::<bool>(),
        snap in any::<bool>(),
    ) {
        let mut mesh = mesh;
        if snap {
            // Normals on Draco's 11-bit grid (as read from a 7.00 file): Draco keeps them.
            for v in &mut mesh.vertices {
                v.normal = v.normal.map(|x| if x.is_finite() { x } else { 0.0 });
            }
            let raw: Vec<_> = mesh.vertices.iter().map(MeshVertex::to_raw).collect();
            let faces: Vec<_> = mesh.faces.iter().map(|&indices| Face { indices }).collect();
            let blob = draco::encode(&raw, &faces).unwrap();
            let (decoded, _) = draco::decode(&blob, &Limits::default()).unwrap();
            for (v, d) in mesh.vertices.iter_mut().zip(&decoded) {
                v.normal = d.normal;
            }
        }
        let options = WriteOptions {
            core_mesh: if draco { CoreMesh::Draco } else { CoreMesh::Auto },
        };
        for target in Version::ALL {
            let c = mesh.convert_with(target, &options).unwrap();
            let back = Mesh::read(&c.file.write().unwrap()).unwrap();
            let diff = differences(&mesh, &back, target);
            prop_assert_eq!(c.losses.is_empty(), diff.is_empty(), "{} → report {:?}, differences {:?}", target, c.losses, diff);
        }
    }
    /// Quantized FACS matrices: values come back within one quantization step.
    #[test]
    fn quantized_facs_within_one_step(rig in strategy::facs()) {
        let mut rig = rig;
        rig.encodings = [MatrixEncoding::Quantized; 6];
        let mesh = Mesh {
            vertices: vec![MeshVertex::default(); 3],
            faces: vec![[0, 1, 2]],
            facs: Some(rig.clone()),
            ..Mesh::default()
        };
        let back = Mesh::read(&mesh.to_file(Version::V5_00).unwrap().write().unwrap()).unwrap().facs.unwrap();
        for k in 0..6 {
            let get = |r: &FacsRig, c: usize, b: usize| {
                let p = r.poses[c][b];
                if k < 3 { p.position[k] } else { p.rotation[k - 3] }
            };
            let vals: Vec<f32> = (0..rig.poses.len()).flat_map(|c| (0..rig.face_bone_names.len()).map(move |b| (c, b))).map(|(c, b)| get(&rig, c, b)).collect();
            let (min, max) = vals.iter().fold((f32::MAX, f32::MIN), |(a, b), &v| (a.min(v), b.max(v)));
            let step = (max - min) / 65535.0;
            for c in 0..rig.poses.len() {
                for b in 0..rig.face_bone_names.len() {
                    let (x, y) = (get(&rig, c, b), get(&back, c, b));
                    prop_assert!((x - y).abs() <= step * 0.51 + max.abs().max(min.abs()) * 1e-6, "{x} vs {y}");
                }
            }
        }
    }
}

/// What differs between a mesh and the mesh read back from `target`, compared field by
/// field with the bits of every float (written apart from the library's comparison).
fn differences(mesh: &Mesh, back: &Mesh, target: Version) -> Vec<&'static str> {
    let mut d = Vec::new();
    let bits = |v: &MeshVertex| {
        (
            v.position.map(f32::to_bits),
            v.normal.map(f32::to_bits),
            v.uv.map(f32::to_bits),
            v.tangent_bytes,
            v.color,
        )
    };
    let lod0 = &mesh.faces[mesh.lods.lod0(mesh.faces.len())];
    if target.is_text() {
        // One vertex per LOD 0 corner, in order.
        let corners: Vec<u32> = lod0.iter().flatten().copied().collect();
        if mesh.vertices.len() != corners.len()
            || corners.iter().enumerate().any(|(k, &i)| k as u32 != i)
        {
            d.push("vertex sharing");
        }
        if corners.iter().enumerate().any(|(k, &i)| {
            back.vertices.get(k).map(bits) != mesh.vertices.get(i as usize).map(bits)
        }) {
            d.push("corner values");
        }
    } else if back.vertices.len() != mesh.vertices.len()
        || back
            .vertices
            .iter()
            .zip(&mesh.vertices)
            .any(|(a, b)| bits(a) != bits(b))
    {
        d.push("vertices");
    }
    if back.faces.len()
        != if target.has_lods() {
            mesh.faces.len()
        } else {
            lod0.len()
        }
    {
        d.push("faces");
    }
    if (back.lods.lod_type, back.lods.num_high_quality_lods)
        != (mesh.lods.lod_type, mesh.lods.num_high_quality_lods)
    {
        d.push("lod info");
    }
    let bone_bits = |b: &MeshBone| {
        (
            b.name.clone(),
            b.parent,
            b.lod_parent,
            b.culling.to_bits(),
            b.rotation.map(f32::to_bits),
            b.position.map(f32::to_bits),
        )
    };
    if back
        .skeleton
        .iter()
        .map(bone_bits)
        .ne(mesh.skeleton.iter().map(bone_bits))
    {
        d.push("skeleton");
    }
    if back.skinning != mesh.skinning {
        d.push("skinning");
    }
    let facs_bits = |f: &Option<FacsRig>| {
        f.as_ref().map(|r| {
            (
                r.face_bone_names.clone(),
                r.control_names.clone(),
                r.poses
                    .iter()
                    .flatten()
                    .map(|p| (p.position.map(f32::to_bits), p.rotation.map(f32::to_bits)))
                    .collect::<Vec<_>>(),
            )
        })
    };
    if facs_bits(&back.facs) != facs_bits(&mesh.facs) {
        d.push("facs");
    }
    if back.hsr_always_visible != mesh.hsr_always_visible {
        d.push("hsr");
    }
    d
}

/// An edit a user might make to a mesh read from a file.
#[derive(Clone, Debug)]
enum Edit {
    None,
    Position(usize, f32),
    Normal(usize, f32),
    Color(usize, u8),
    Weight(usize),
    FacsValue(usize, f32),
    DropHsr,
    Lods(u16),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        3 => Just(Edit::None),
        1 => (any::<usize>(), strategy::finite()).prop_map(|(i, x)| Edit::Position(i, x)),
        1 => (any::<usize>(), strategy::unit()).prop_map(|(i, x)| Edit::Normal(i, x)),
        1 => (any::<usize>(), any::<u8>()).prop_map(|(i, x)| Edit::Color(i, x)),
        1 => any::<usize>().prop_map(Edit::Weight),
        1 => (any::<usize>(), strategy::finite()).prop_map(|(i, x)| Edit::FacsValue(i, x)),
        1 => Just(Edit::DropHsr),
        1 => any::<u16>().prop_map(Edit::Lods),
    ]
}

fn apply(mesh: &mut Mesh, e: &Edit) {
    let n = mesh.vertices.len().max(1);
    match *e {
        Edit::None => {}
        Edit::Position(i, x) => {
            if let Some(v) = mesh.vertices.get_mut(i % n) {
                v.position[i % 3] = x;
            }
        }
        Edit::Normal(i, x) => {
            if let Some(v) = mesh.vertices.get_mut(i % n) {
                v.normal[i % 3] = x;
            }
        }
        Edit::Color(i, x) => {
            if let Some(v) = mesh.vertices.get_mut(i % n) {
                v.color[i % 4] = x;
            }
        }
        Edit::Weight(i) => {
            if let Some(s) = mesh.skinning.as_mut().and_then(|s| s.get_mut(i % n)) {
                // Move one unit of weight between the first two influences.
                let [a, b, ..] = &mut s.influences;
                if a.weight > 1 && b.weight > 0 {
                    a.weight -= 1;
                    b.weight += 1;
                }
            }
        }
        Edit::FacsValue(i, x) => {
            if let Some(rig) = mesh.facs.as_mut() {
                let cols = rig.poses.len().max(1);
                if let Some(p) = rig.poses.get_mut(i % cols).and_then(|c| c.first_mut()) {
                    p.rotation[i % 3] = x;
                }
            }
        }
        Edit::DropHsr => mesh.hsr_always_visible = None,
        Edit::Lods(t) => mesh.lods.lod_type = t,
    }
}

fn files() -> Vec<std::path::PathBuf> {
    common::fixtures_and_corpus_filemeshes()
        .into_iter()
        .filter(|p| {
            let b = std::fs::read(p).unwrap();
            !Version::from_line(&b[..12]).unwrap().is_text()
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// Real files, edited or not, converted to every version: the report is empty exactly
    /// when reading the target back gives the same values AND writing the source version
    /// from it gives the same bytes as writing the source version from the edited mesh.
    #[test]
    fn report_on_real_files_is_empty_exactly_when_the_round_trip_is_exact(
        pick in any::<prop::sample::Index>(),
        e in edit(),
    ) {
        let files = files();
        let path = &files[pick.index(files.len())];
        let mut mesh = Mesh::read(&std::fs::read(path).unwrap()).unwrap();
        let source = mesh.stored.version.unwrap();
        apply(&mut mesh, &e);
        let direct = mesh.to_file(source).unwrap().write().unwrap();
        for target in Version::ALL {
            let c = mesh.convert(target).unwrap();
            let back = Mesh::read(&c.file.write().unwrap()).unwrap();
            let values = differences(&mesh, &back, target);
            let again = back.to_file(source).unwrap().write().unwrap();
            let exact = values.is_empty() && again == direct;
            prop_assert_eq!(
                c.losses.is_empty(),
                exact,
                "{} ({:?}) → {}: report {:?}, differences {:?}, bytes back {}",
                path.display(), e, target, c.losses, values,
                if again == direct { "equal" } else { "differ" }
            );
        }
    }
}
