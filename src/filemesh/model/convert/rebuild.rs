//! Parts built anew from the model's values, for a target whose source stored none
//! that still describes the data: the skinning's bones, name table, subsets (per LOD,
//! at most 26 bones each) and envelopes, and the FACS block; and the check that stored
//! subsets still fit the faces. [`plan`](super::plan) decides when these are used.

use crate::error::{Error, ErrorKind, Result};
use crate::filemesh::model::{FacsRig, MatrixEncoding, Mesh};
use crate::filemesh::raw::chunks::SkinningV1;
use crate::filemesh::raw::facs::{FacsData, MatrixData, QuantizedMatrix, QuantizedTransforms};
use crate::filemesh::raw::records::{
    Bone, Envelope, Subset, ThreePoseCorrective, TwoPoseCorrective,
};

impl Mesh {
    /// Bones, name table, subsets (per LOD, at most 26 bones each) and envelopes, built
    /// from the skeleton and skinning.
    pub(super) fn raw_skinning(&self) -> Result<SkinningV1> {
        let mut out = SkinningV1::default();
        for b in &self.skeleton {
            let index = u32::try_from(out.bone_names.len()).map_err(|_| too_big("bone names"))?;
            out.bone_names.extend_from_slice(b.name.as_bytes());
            out.bone_names.push(0);
            out.bones.push(Bone {
                bone_name_index: index,
                parent_index: b.parent.unwrap_or(0xFFFF),
                lod_parent_index: b.lod_parent.unwrap_or(0xFFFF),
                culling: b.culling,
                rotation: b.rotation,
                position: b.position,
            });
        }
        let Some(skin) = &self.skinning else {
            return Ok(out);
        };
        if skin.len() != self.vertices.len() {
            return Err(inconsistent(format!(
                "{} skinning entries for {} vertices",
                skin.len(),
                self.vertices.len()
            )));
        }
        // Per LOD: its faces, the vertex range they use, the bones of those vertices.
        // Each vertex belongs to the first subset whose range holds it.
        let mut owner: Vec<Option<usize>> = vec![None; self.vertices.len()];
        for (a, b) in self.lod_ranges() {
            let faces = self.faces.get(a..b).unwrap_or_default();
            let Some(&lo) = faces.iter().flatten().min() else {
                continue;
            };
            let hi = faces.iter().flatten().max().copied().unwrap_or(lo);
            // Walk the LOD's vertex range, closing a subset before its bone table would
            // pass 26. Vertices already owned by an earlier LOD's subset keep that owner.
            // A subset may only end where no face of the LOD spans the cut (a face lies
            // in one subset): at the last such vertex before the table overflows.
            let (lo, hi) = (lo as usize, hi as usize);
            let mut depth = vec![0i64; hi - lo + 2];
            for f in faces {
                let (a, b) = (f.iter().min(), f.iter().max());
                if let (Some(&a), Some(&b)) = (a, b) {
                    if let Some(d) = depth.get_mut(a as usize + 1 - lo) {
                        *d += 1;
                    }
                    if let Some(d) = depth.get_mut(b as usize + 1 - lo) {
                        *d -= 1;
                    }
                }
            }
            let mut open = 0i64;
            let can_cut: Vec<bool> = depth
                .iter()
                .map(|d| {
                    open += d;
                    open == 0
                })
                .collect();
            let first = out.subsets.len();
            let mut start = lo;
            let mut table: Vec<u16> = Vec::new();
            let mut last_cut = None;
            let mut v = lo;
            while v <= hi {
                let (Some(None), Some(sk)) = (owner.get(v), skin.get(v)) else {
                    v += 1;
                    continue;
                };
                if v > start && can_cut.get(v - lo).copied().unwrap_or(false) {
                    last_cut = Some(v);
                }
                let mut bones: Vec<u16> = Vec::new();
                for i in sk.influences.iter().filter(|i| i.weight > 0) {
                    if !table.contains(&i.bone) && !bones.contains(&i.bone) {
                        bones.push(i.bone);
                    }
                }
                if table.len() + bones.len() > 26 {
                    let here = out.subsets.len();
                    let cut = last_cut.filter(|&c| c > start).ok_or_else(|| {
                        inconsistent(format!(
                            "the faces around vertex {v} use more than 26 bones together, \
                             but a FileMesh subset holds 26 (give each run of faces its own \
                             copy of the vertices it uses)"
                        ))
                    })?;
                    // The vertices from the cut on start the next subset.
                    table.clear();
                    for x in start..v {
                        match owner.get_mut(x) {
                            Some(o) if *o == Some(here) && x >= cut => *o = None,
                            Some(o) if *o == Some(here) => {
                                for i in skin.get(x).iter().flat_map(|s| s.influences) {
                                    if i.weight > 0 && !table.contains(&i.bone) {
                                        table.push(i.bone);
                                    }
                                }
                            }
                            _ => {}
                        }
                    }
                    out.subsets.push(subset(start, cut, &table));
                    start = cut;
                    table.clear();
                    last_cut = None;
                    v = cut;
                    continue;
                }
                table.extend(bones);
                if let Some(o) = owner.get_mut(v) {
                    *o = Some(out.subsets.len());
                }
                v += 1;
            }
            out.subsets.push(subset(start, hi + 1, &table));
            if let Some(lod_subsets) = out.subsets.get_mut(first..) {
                assign_faces(lod_subsets, faces, a);
                // Each subset's faces must use only its vertices (faces grouped by
                // subset, as Roblox lays them out); anything else would bind vertices
                // through the wrong bone table.
                for sub in lod_subsets.iter() {
                    if let Some(f) = stray_face(sub, &self.faces) {
                        let verts = sub.verts_begin..sub.verts_begin + sub.verts_length;
                        return Err(inconsistent(format!(
                            "face {f:?} lies in the face range of a subset over vertices \
                             {verts:?} but uses a vertex outside it: the faces are not \
                             grouped by subset"
                        )));
                    }
                }
            }
        }
        for (v, (s, own)) in skin.iter().zip(&owner).enumerate() {
            let table = own
                .and_then(|k| out.subsets.get(k))
                .map(|s| &s.bone_indices);
            let mut e = Envelope::default();
            for (slot, i) in s
                .influences
                .iter()
                .enumerate()
                .filter(|(_, i)| i.weight > 0)
            {
                let byte = table
                    .and_then(|t| t.iter().position(|&g| g == i.bone))
                    .ok_or_else(|| {
                        inconsistent(format!("vertex {v} is skinned but used by no face"))
                    })?;
                if let (Some(b), Some(w)) = (e.bones.get_mut(slot), e.weights.get_mut(slot)) {
                    *b = byte as u8;
                    *w = i.weight;
                }
            }
            out.envelopes.push(e);
        }
        Ok(out)
    }
}

/// True when each subset's face range lies within `faces` and its vertex range within
/// `num_vertices`, and every face in the range uses only the subset's vertices.
pub(crate) fn subsets_fit(subsets: &[Subset], faces: &[[u32; 3]], num_vertices: usize) -> bool {
    let (nf, nv) = (faces.len() as u64, num_vertices as u64);
    subsets.iter().all(|sub| {
        let faces_end = u64::from(sub.faces_begin) + u64::from(sub.faces_length);
        let verts_end = u64::from(sub.verts_begin) + u64::from(sub.verts_length);
        faces_end <= nf && verts_end <= nv && stray_face(sub, faces).is_none()
    })
}

/// The first face in `sub`'s face range that uses a vertex outside its vertex range.
fn stray_face<'a>(sub: &Subset, faces: &'a [[u32; 3]]) -> Option<&'a [u32; 3]> {
    let verts =
        u64::from(sub.verts_begin)..u64::from(sub.verts_begin) + u64::from(sub.verts_length);
    let begin = sub.faces_begin as usize;
    faces
        .get(begin..begin.saturating_add(sub.faces_length as usize))
        .unwrap_or_default()
        .iter()
        .find(|f| f.iter().any(|&i| !verts.contains(&u64::from(i))))
}

/// A subset over vertices `start..end` with `table` as its bones (face range set later).
fn subset(start: usize, end: usize, table: &[u16]) -> Subset {
    let mut bone_indices = [0xFFFF; 26];
    for (dst, src) in bone_indices.iter_mut().zip(table) {
        *dst = *src;
    }
    Subset {
        faces_begin: 0,
        faces_length: 0,
        verts_begin: start as u32,
        verts_length: end.saturating_sub(start) as u32,
        num_bone_indices: table.len() as u32,
        bone_indices,
    }
}

/// Face ranges of one LOD's subsets (`faces` start at face `base`): the whole LOD for a
/// single subset, else the span of the faces whose lowest vertex lies in each subset's
/// vertex range (contiguous when the faces are ordered by vertex block, as Roblox lays
/// them out).
fn assign_faces(subsets: &mut [Subset], faces: &[[u32; 3]], base: usize) {
    if let [only] = subsets {
        only.faces_begin = base as u32;
        only.faces_length = faces.len() as u32;
        return;
    }
    for s in subsets.iter_mut() {
        let range = s.verts_begin..s.verts_begin + s.verts_length;
        let mut hits = faces
            .iter()
            .enumerate()
            .filter(|(_, f)| f.iter().min().is_some_and(|v| range.contains(v)))
            .map(|(k, _)| base + k);
        if let Some(first) = hits.next() {
            let last = hits.next_back().unwrap_or(first);
            s.faces_begin = first as u32;
            s.faces_length = (last - first + 1) as u32;
        } else {
            s.faces_begin = base as u32;
        }
    }
}

fn inconsistent(msg: String) -> Error {
    Error::new("Mesh", ErrorKind::Inconsistent(msg))
}

fn too_big(what: &str) -> Error {
    inconsistent(format!("{what} too large"))
}

/// The FACS block of a rig: matrices raw where the rig says raw, else quantized to u16;
/// a matrix of `stored` keeps its range when every value lies on its grid.
pub(super) fn facs_data(rig: &FacsRig, stored: Option<&FacsData>) -> Result<FacsData> {
    let blob = |names: &[String]| {
        names
            .iter()
            .flat_map(|n| n.bytes().chain(std::iter::once(0)))
            .collect::<Vec<u8>>()
    };
    let rows = rig.face_bone_names.len();
    let cols = rig.poses.len();
    if rig.poses.iter().any(|c| c.len() != rows) {
        return Err(inconsistent(
            "FACS poses do not match the face bones".into(),
        ));
    }
    let stored_matrices = stored.map(|d| d.quantized_transforms.matrices());
    let matrix = |k: usize| -> Result<QuantizedMatrix> {
        let value = |r: usize, c: usize| {
            let p = rig
                .poses
                .get(c)
                .and_then(|col| col.get(r))
                .copied()
                .unwrap_or_default();
            let xyz = if k < 3 { p.position } else { p.rotation };
            xyz.get(k % 3).copied().unwrap_or_default()
        };
        let values: Vec<f32> = (0..rows)
            .flat_map(|r| (0..cols).map(move |c| (r, c)))
            .map(|(r, c)| value(r, c))
            .collect();
        let range = stored_matrices
            .and_then(|m| m.get(k).copied())
            .and_then(|m| match m.data {
                MatrixData::Quantized { min, max, .. } => Some((min, max)),
                MatrixData::Raw(_) => None,
            });
        let data = match rig.encodings.get(k).copied().unwrap_or_default() {
            MatrixEncoding::Raw => MatrixData::Raw(values.into()),
            MatrixEncoding::Quantized => quantize(&values, range),
        };
        Ok(QuantizedMatrix {
            rows: u32::try_from(rows).map_err(|_| too_big("FACS rows"))?,
            cols: u32::try_from(cols).map_err(|_| too_big("FACS columns"))?,
            data,
        })
    };
    Ok(FacsData {
        face_bone_names_blob: (blob(&rig.face_bone_names)).into(),
        face_control_names_blob: (blob(&rig.control_names)).into(),
        quantized_transforms: QuantizedTransforms {
            px: matrix(0)?,
            py: matrix(1)?,
            pz: matrix(2)?,
            rx: matrix(3)?,
            ry: matrix(4)?,
            rz: matrix(5)?,
        },
        two_pose_correctives: rig
            .two_pose_correctives
            .iter()
            .map(|&control_indices| TwoPoseCorrective { control_indices })
            .collect(),
        three_pose_correctives: rig
            .three_pose_correctives
            .iter()
            .map(|&control_indices| ThreePoseCorrective { control_indices })
            .collect(),
    })
}

/// Version-2 quantization: u16 steps over `range` when every value lies exactly on its
/// grid (a stored range the values came from), else over the values' min and max.
fn quantize(values: &[f32], range: Option<(f32, f32)>) -> MatrixData {
    if let Some((min, max)) = range {
        let q: Option<Vec<u16>> = values
            .iter()
            .map(|&v| {
                let q = crate::filemesh::raw::facs::quantize_value(min, max, v);
                (crate::filemesh::raw::facs::dequantize_value(min, max, q).to_bits() == v.to_bits())
                    .then_some(q)
            })
            .collect();
        if let Some(values) = q {
            return MatrixData::Quantized {
                min,
                max,
                values: values.into(),
            };
        }
    }
    let min = values.iter().copied().fold(f32::INFINITY, f32::min);
    let max = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let (min, max) = if min.is_finite() && max.is_finite() {
        (min, max)
    } else {
        (0.0, 0.0)
    };
    let values: Vec<u16> = values
        .iter()
        .map(|&v| crate::filemesh::raw::facs::quantize_value(min, max, v))
        .collect();
    MatrixData::Quantized {
        min,
        max,
        values: values.into(),
    }
}
