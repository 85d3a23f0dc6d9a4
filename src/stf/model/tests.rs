//! The lean reading (`info`, `check`), decoding with the container taken, and writing
//! back where the arrays lie, each against decoding every mesh, on every STF fixture and
//! corpus file, changed and damaged.
#![allow(clippy::indexing_slicing)] // JSON built and edited by the tests: `Value`'s index

use serde_json::{json, Value};

use super::{meshes, StfBlendshape, StfMesh};
use crate::error::Limits;
use crate::file::contract::MeshFile;
use crate::stf::raw::StfContainer;
use crate::stf::write::ARRAY_KEYS as ARRAYS;

/// Every STF fixture and corpus file, as bytes.
fn stf_files() -> Vec<Vec<u8>> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let corpus = crate::test_corpus_roblox().parent().map(|p| p.join("stf"));
    let mut files = Vec::new();
    for dir in [Some(root.join("roundtrip-fixtures/stf")), corpus]
        .into_iter()
        .flatten()
    {
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            if e.path().extension().is_some_and(|x| x == "stf") {
                files.push(std::fs::read(e.path()).expect("reads"));
            }
        }
    }
    assert!(files.len() >= 3, "{} STF files", files.len());
    files
}

/// The file, and the file with bytes changed all along it (JSON and buffers), those
/// that still read as a container.
fn changed_bytes(bytes: &[u8]) -> Vec<StfContainer> {
    let mut variants = vec![bytes.to_vec()];
    for i in (0..bytes.len()).step_by(bytes.len() / 200 + 1) {
        for b in [b'0', b'"', 0xff] {
            let mut d = bytes.to_vec();
            if let Some(x) = d.get_mut(i) {
                *x = b;
            }
            variants.push(d);
        }
    }
    variants
        .iter()
        .filter_map(|v| StfContainer::read(v).ok())
        .collect()
}

/// `c` with its JSON document replaced by `doc`.
fn with_doc(c: &StfContainer, doc: &Value) -> StfContainer {
    StfContainer {
        json: serde_json::to_vec(doc).expect("serializes").into(),
        ..c.clone()
    }
}

/// A change to a buffer.
type Edit = Box<dyn Fn(&mut Vec<u8>)>;

/// Damaged versions of a container, each what the decoder must judge: buffers cut
/// short, grown, or filled with indices beyond every array; widths changed; each
/// array property pointed at every buffer the mesh names (other sizes, other
/// component types), at none, or at a missing or bad one; the buffer table's entries
/// broken; blendshapes added, well and badly formed; and the meshes repeated until
/// what they decode to passes the file's budget.
fn damaged(c: &StfContainer) -> Vec<StfContainer> {
    let mut out = Vec::new();
    for k in 0..c.buffers.len() {
        let len = c.buffers.get(k).map_or(0, Vec::len);
        let mut edits: Vec<Edit> = vec![
            Box::new(|b| b.truncate(b.len().saturating_sub(1))),
            Box::new(|b| b.truncate(b.len() / 2)),
            Box::new(|b| b.clear()),
            Box::new(|b| b.push(0)),
            Box::new(|b| b.fill(0xff)),
            Box::new(|b| b.fill(0)),
        ];
        if len >= 2 {
            // The last index raised past every array, the rest kept.
            edits.push(Box::new(|b| {
                if let Some(x) = b.last_mut() {
                    *x = 0x7f;
                }
            }));
        }
        for edit in edits {
            let mut d = c.clone();
            if let Some(b) = d.buffers.get_mut(k) {
                edit(b);
            }
            out.push(d);
        }
    }
    let Ok(doc) = super::document(c) else {
        return out;
    };
    let mesh_ids: Vec<String> = doc["resources"]
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(_, r)| r["type"] == "stf.mesh")
        .map(|(id, _)| id.clone())
        .collect();
    for id in &mesh_ids {
        let r = &doc["resources"][id];
        let refs: Vec<Value> = ARRAYS
            .iter()
            .map(|k| r[k].clone())
            .chain(
                r["uvs"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|u| u["uv"].clone()),
            )
            .filter(|v| !v.is_null())
            .collect();
        let first = refs.first().cloned().unwrap_or(json!(0));
        let mut edit = |f: &dyn Fn(&mut Value)| {
            let mut d = doc.clone();
            f(&mut d["resources"][id]);
            out.push(with_doc(c, &d));
        };
        for key in ["float_width", "indices_width", "material_indices_width"] {
            for v in [
                json!(1),
                json!(2),
                json!(3),
                json!(4),
                json!(8),
                json!(0),
                json!(-1),
                json!("4"),
                json!(1.5),
                Value::Null,
            ] {
                edit(&|r| r[key] = v.clone());
            }
        }
        let bad_refs = [
            json!(99),
            json!(-1),
            json!(1.5),
            json!("no such buffer"),
            json!({}),
            json!([0]),
            Value::Null,
        ];
        for key in ARRAYS {
            for v in refs.iter().chain(&bad_refs) {
                edit(&|r| r[key] = v.clone());
            }
            edit(&|r| {
                if let Some(o) = r.as_object_mut() {
                    o.remove(key);
                }
            });
        }
        for v in refs.iter().chain(&bad_refs) {
            edit(&|r| r["uvs"] = json!([{"name": "Extra", "uv": v}]));
        }
        edit(&|r| r["uvs"] = json!("not a list"));
        edit(&|r| r["uvs"] = json!([{"name": 7}]));
        edit(&|r| r["referenced_buffers"] = json!([]));
        edit(&|r| r["material_slots"] = json!(["a", null, 3]));
        edit(&|r| r["name"] = json!(12));
        // Blendshapes from the mesh's own buffers, in every role.
        for offsets in &refs {
            for indices in refs.iter().map(Some).chain([None]) {
                let mut b = json!({"name": "B", "position_offsets": offsets});
                if let Some(i) = indices {
                    b["indices"] = i.clone();
                    b["split_indices"] = i.clone();
                    b["split_normals"] = offsets.clone();
                }
                edit(&|r| r["blendshapes"] = json!([b, {"position_offsets": first}]));
            }
        }
        for b in [
            json!("not a list"),
            json!([7]),
            json!([{"name": "No offsets"}]),
            json!([{"position_offsets": first, "default_value": "x"}]),
            json!([{"position_offsets": first, "limit_upper": []}]),
            json!([{"position_offsets": first, "limit_lower": 0.5, "indices": 99}]),
            json!([{"position_offsets": first, "split_normals": "no such buffer"}]),
            json!([{"position_offsets": first, "split_indices": {}}]),
            Value::Null,
        ] {
            edit(&|r| r["blendshapes"] = b.clone());
        }
    }
    let buffer_ids: Vec<String> = doc["buffers"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(id, _)| id.clone())
        .collect();
    for id in &buffer_ids {
        for (key, v) in [
            ("index", json!(99)),
            ("index", json!(0)),
            ("index", json!(-1)),
            ("index", Value::Null),
            ("type", json!("stf.buffer.external")),
            ("type", Value::Null),
        ] {
            let mut d = doc.clone();
            d["buffers"][id][key] = v;
            out.push(with_doc(c, &d));
        }
    }
    for resources in [json!([]), Value::Null, json!({})] {
        let mut d = doc.clone();
        d["resources"] = resources;
        out.push(with_doc(c, &d));
    }
    // A mesh again and again, every array on its vertices' buffer, indices one byte
    // each (a byte decodes to eight): past the decode budget.
    if let Some(id) = mesh_ids.first() {
        let mut d = doc.clone();
        let mut r = d["resources"][id].clone();
        for key in ARRAYS {
            if let Some(o) = r.as_object_mut() {
                o.remove(key);
            }
        }
        for key in ["vertices", "face_corners", "splits", "tris", "faces"] {
            r[key] = doc["resources"][id]["vertices"].clone();
        }
        r["float_width"] = json!(4);
        r["indices_width"] = json!(1);
        r["uvs"] = Value::Null;
        for n in 0..2000 {
            d["resources"][format!("{id}-{n}")] = r.clone();
        }
        out.push(with_doc(c, &d));
    }
    out
}

/// The lean `info` and `check` against `info_decoded` and [`meshes`] (the decoding
/// they replace): the same counts and problems, or the same error. Returns whether
/// the file decodes, and its problems.
fn lean_is_decoded(c: &StfContainer) -> Option<usize> {
    let lean = c.info().map_err(|e| e.to_string());
    let decoded = c.info_decoded().map_err(|e| e.to_string());
    assert_eq!(lean, decoded);
    let check = MeshFile::check(c, &Limits::default()).map_err(|e| e.to_string());
    let oracle = meshes(c).map(drop).map_err(|e| e.to_string());
    assert_eq!(check, oracle);
    assert_eq!(check.is_ok(), lean.is_ok());
    let info = decoded.ok()?;
    Some(info.mesh_list.iter().map(|m| m.problems.len()).sum())
}

/// `info` and `check`, which look at the arrays where they lie, agree with decoding
/// every mesh on every STF fixture and corpus file, whole, with bytes changed, and
/// damaged in each way the decoder checks: the same counts and problems, or the same
/// error.
#[test]
fn lean_info_and_check_are_what_decoding_gives() {
    let (mut ok, mut problems, mut failed, mut over_budget) = (0, 0, 0, 0);
    for bytes in stf_files() {
        let whole = StfContainer::read(&bytes).expect("reads");
        assert_eq!(lean_is_decoded(&whole), Some(0));
        for c in changed_bytes(&bytes).iter().chain(&damaged(&whole)) {
            match lean_is_decoded(c) {
                Some(0) => ok += 1,
                Some(_) => problems += 1,
                None => failed += 1,
            }
            let e = c.info().err().map(|e| e.to_string()).unwrap_or_default();
            if e.contains("decoded STF mesh data") {
                over_budget += 1;
            }
        }
    }
    assert!(
        ok > 100 && problems > 100 && failed > 500 && over_budget > 0,
        "{ok} decoded, {problems} with problems, {failed} failed ({over_budget} over \
         the budget)"
    );
}

/// [`meshes`] of a container given away (buffers dropped as decoded) gives what it gives
/// of a borrowed one, or the
/// same error, on every STF fixture and corpus file, whole, with bytes changed and
/// damaged.
#[test]
fn taking_the_container_decodes_the_same_meshes() {
    let (mut same, mut failed) = (0, 0);
    for bytes in stf_files() {
        let whole = StfContainer::read(&bytes).expect("reads");
        for c in changed_bytes(&bytes).into_iter().chain(damaged(&whole)) {
            let borrowed = meshes(&c).map_err(|e| e.to_string());
            let taken = meshes(c).map_err(|e| e.to_string());
            // Compared as printed: a NaN is not equal to itself.
            assert_eq!(format!("{borrowed:?}"), format!("{taken:?}"));
            if borrowed.is_ok() {
                same += 1;
            } else {
                failed += 1;
            }
        }
    }
    assert!(same > 20 && failed > 20, "{same} decoded, {failed} failed");
}

/// The file as `convert --to stf` once wrote it, and its error: every mesh decoded
/// and written back by [`crate::stf::replace_meshes`].
fn written_back_oracle(c: &StfContainer) -> Result<Vec<u8>, String> {
    meshes(c)
        .and_then(|m| crate::stf::replace_meshes(c, &m))
        .and_then(|out| out.write())
        .map_err(|e| e.to_string())
}

/// Edits to a decoded mesh, each changing what its properties encode to.
fn mesh_edits() -> [fn(&mut StfMesh); 6] {
    [
        |m| {
            if let Some(v) = m.vertices.first_mut() {
                v[1] += 0.5;
            }
        },
        |m| {
            let n = m.splits.len();
            m.uvs.push(("Extra".into(), vec![[0.25, 0.5]; n]));
            m.split_colors = None;
        },
        |m| m.float_width = 12 - m.float_width,
        |m| m.indices_width = 8,
        |m| {
            let n = m.faces.len() as u64;
            m.material_indices = Some((0..n).map(|i| i * 100).collect());
            m.material_slots = vec![None, Some("m".into())];
        },
        |m| {
            let n = m.vertices.len();
            m.blendshapes.push(StfBlendshape {
                name: "All".into(),
                position_offsets: vec![[0.0, 1.0, 0.0]; n],
                ..Default::default()
            });
            let last_split = m.splits.len().saturating_sub(1) as u64;
            m.blendshapes.push(StfBlendshape {
                name: "Some".into(),
                default_value: 0.5,
                indices: Some(vec![0]),
                position_offsets: vec![[1.0, 0.0, 0.0]],
                split_indices: Some(vec![last_split]),
                split_normals: Some(vec![[0.0, 0.0, 1.0]]),
                ..Default::default()
            });
        },
    ]
}

/// Files that the edits of [`mesh_edits`] make of `c` (each to every mesh): other
/// widths, more buffers, blendshapes, in the resources' own reference style.
fn edited(c: &StfContainer) -> Vec<StfContainer> {
    let Ok(decoded) = meshes(c) else {
        return Vec::new();
    };
    mesh_edits()
        .iter()
        .filter_map(|edit| {
            let mut m = decoded.clone();
            m.iter_mut().for_each(edit);
            crate::stf::replace_meshes(c, &m).ok()
        })
        .collect()
}

/// `c` with a signalling NaN at the start of buffer `k`: a float array there
/// (any buffer a float property names, alone or shared) encodes to other bytes,
/// since decoding makes the NaN quiet.
fn with_nan(c: &StfContainer, k: usize) -> StfContainer {
    let mut d = c.clone();
    if let Some(b) = d.buffers.get_mut(k).and_then(|b| b.get_mut(..4)) {
        b.copy_from_slice(&0x7f80_0001_u32.to_le_bytes());
    }
    d
}

/// Writing every mesh back from where it lies ([`crate::stf::write::written_back`])
/// gives the bytes, or the error, that
/// decoding the meshes and [`crate::stf::replace_meshes`] give: on every STF fixture
/// and corpus file, whole, with bytes changed, damaged, edited (widths, UV sets,
/// material indices, blendshapes), and with a NaN in each buffer so that properties
/// change (buffers alone, shared between properties and meshes, old- and new-style
/// references).
#[test]
fn writing_back_in_place_is_what_the_decoded_meshes_give() {
    use crate::stf::write::written_back;
    let (mut unchanged, mut changed, mut new_buffers, mut failed) = (0, 0, 0, 0);
    for bytes in stf_files() {
        let whole = StfContainer::read(&bytes).expect("reads");
        let mut inputs = changed_bytes(&bytes);
        inputs.extend(damaged(&whole));
        inputs.extend(edited(&whole));
        let with_nans: Vec<StfContainer> = inputs
            .iter()
            .flat_map(|c| (0..c.buffers.len()).map(|k| with_nan(c, k)))
            .collect();
        inputs.extend(with_nans);
        for c in inputs {
            let oracle = written_back_oracle(&c);
            let input = c.write().expect("writes");
            let buffers = c.buffers.len();
            let owned = written_back(c);
            match &owned {
                Ok(out) if out.write().ok() == Some(input) => unchanged += 1,
                Ok(out) => {
                    changed += 1;
                    if out.buffers.len() > buffers {
                        new_buffers += 1;
                    }
                }
                Err(_) => failed += 1,
            }
            let owned = owned.and_then(|out| out.write()).map_err(|e| e.to_string());
            assert_eq!(owned, oracle);
        }
    }
    assert!(
        unchanged > 1000 && changed > 1000 && new_buffers > 40 && failed > 10000,
        "{unchanged} unchanged, {changed} changed ({new_buffers} with new buffers), \
         {failed} failed"
    );
}
