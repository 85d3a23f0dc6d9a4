//! FileMesh through its model: `File.mesh()` gives every vertex as stored (faces of the
//! asked level index them) and `File.with_mesh()` puts edited arrays back into the model,
//! keeping what the edit did not touch.

use meshcodec::filemesh::model::{FacsRig, Influence, MeshVertex, VertexSkin};
use meshcodec::filemesh::{Mesh, Version};
use numpy::ndarray::{s, Array2, ShapeBuilder};
use numpy::{IntoPyArray, PyArray2};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::arrays::{
    geometry, owned, per_vertex, rows_of, set_vertices, value_error, VertexFields,
};

/// The mesh's levels of detail (each a range of faces), `None` for one level of every
/// face, which fewer than two LOD offsets can only mean: then no list is made (a call
/// of `File.mesh()` on a small file made it three times).
fn levels(model: &Mesh) -> Option<Vec<(usize, usize)>> {
    if model.lods.offsets.len() < 2 {
        return None;
    }
    let ranges = model.lod_ranges();
    (ranges[..] != [(0, model.faces.len())]).then_some(ranges)
}

/// Level `lod`'s face range among `levels` (as [`levels`] gives them), or the error
/// naming the levels there are.
fn lod_range(
    model: &Mesh,
    levels: Option<&[(usize, usize)]>,
    lod: usize,
) -> PyResult<std::ops::Range<usize>> {
    let whole = [(0, model.faces.len())];
    let ranges = levels.unwrap_or(&whole);
    match ranges.get(lod) {
        Some(&(a, b)) => Ok(a..b),
        None => Err(value_error(format!(
            "level of detail: no LOD {lod}: the mesh has {} level(s) of detail (LOD 0 to LOD {})",
            ranges.len(),
            ranges.len().saturating_sub(1)
        ))),
    }
}

/// Whether the version stores vertex colours (not 1.x, not 2.00's 36-byte vertices).
fn has_colors(model: &Mesh, version: Version) -> bool {
    !version.is_text() && model.stored.vertex_size != Some(36)
}

/// The model's arrays as `Mesh` wants them: every vertex, the faces of level `lod`; the
/// dict becomes the `Mesh`'s own attributes (`__dict__`), so its keys are their names.
///
/// Nothing big is copied on the way out: the vertex records leave as they lie in the
/// model, as `positions` ((N, 3) float32 with a 40-byte stride, owning every record;
/// `_records` is the same array, kept for Python to view the records whole as (N, 10)
/// and make `normals`, `uvs` and `colours` of them when first read), and `faces` is the
/// level's rows of every level's faces, handed over whole. What every script reads
/// (positions and faces) is made here, one NumPy array each, and the keys are interned:
/// on a small file the calls around the work are most of the time.
pub(crate) fn mesh_dict(
    py: Python<'_>,
    model: Mesh,
    version: Version,
    lod: usize,
) -> PyResult<Bound<'_, PyDict>> {
    let levels = levels(&model);
    let range = lod_range(&model, levels.as_deref(), lod)?;
    let d = PyDict::new(py);
    // One level of every face is what `Mesh` assumes when there is no `lod_ranges`.
    if let Some(levels) = levels {
        d.set_item(intern!(py, "lod_ranges"), levels)?;
    }
    if has_colors(&model, version) {
        d.set_item(intern!(py, "_has_colors"), true)?;
    }
    if let Some(s) = &model.skinning {
        let skins = s.as_slice();
        let j: Vec<[u16; 4]> = skins.iter().map(|k| k.influences.map(|i| i.bone)).collect();
        let w: Vec<[u8; 4]> = skins
            .iter()
            .map(|k| k.influences.map(|i| i.weight))
            .collect();
        d.set_item(intern!(py, "joints"), owned(py, j)?)?;
        d.set_item(intern!(py, "weights"), owned(py, w)?)?;
    }
    // The skeleton as arrays (`Mesh.bones` makes its dicts when asked); none without
    // bones (`Mesh` gives empty arrays).
    if !model.skeleton.is_empty() {
        skeleton_arrays(py, &d, &model)?;
    }
    if let Some(f) = &model.facs {
        facs_arrays(py, &d, f)?;
    }
    let table: Vec<f32> = bytemuck::allocation::try_cast_vec(model.vertices)
        .map_err(|(e, _)| value_error(format!("vertex records: {e:?}")))?;
    let n = table.len() / 10;
    // The first three floats of each record, the array owning them all (the records'
    // stride: no slicing to make it).
    let positions = Array2::from_shape_vec((n, 3).strides((10, 1)), table).map_err(value_error)?;
    let positions = PyArray2::from_owned_array(py, positions);
    d.set_item(intern!(py, "_records"), &positions)?;
    d.set_item(intern!(py, "positions"), positions)?;
    d.set_item(intern!(py, "faces"), rows_in(py, model.faces, range)?)?;
    Ok(d)
}

/// Rows `range` of `rows` as an (R, `K`) array that owns all of them (no copy: the
/// array starts at the range's first row).
fn rows_in<T: numpy::Element, const K: usize>(
    py: Python<'_>,
    rows: Vec<[T; K]>,
    range: std::ops::Range<usize>,
) -> PyResult<Bound<'_, numpy::PyArray2<T>>> {
    let n = rows.len();
    if range.start > range.end || range.end > n {
        return Err(value_error(format!("rows {range:?} of {n}")));
    }
    let flat = rows.into_flattened();
    if range == (0..n) {
        let rows = Array2::from_shape_vec((n, K), flat).map_err(value_error)?;
        return Ok(PyArray2::from_owned_array(py, rows));
    }
    // Rows from the first (the first level): their shape with the rows' stride is enough.
    if range.start == 0 {
        let rows =
            Array2::from_shape_vec((range.end, K).strides((K, 1)), flat).map_err(value_error)?;
        return Ok(PyArray2::from_owned_array(py, rows));
    }
    let all = Array2::from_shape_vec((n, K), flat).map_err(value_error)?;
    Ok(PyArray2::from_owned_array(
        py,
        all.slice_move(s![range, ..]),
    ))
}

/// The FACS rig: `facs_controls`, `facs_face_bones`, `facs_two_pose` (K, 2),
/// `facs_three_pose` (K, 3) and `facs_poses` (columns, face bones, 6).
fn facs_arrays(py: Python<'_>, d: &Bound<'_, PyDict>, f: &FacsRig) -> PyResult<()> {
    d.set_item(intern!(py, "facs_controls"), &f.control_names)?;
    d.set_item(intern!(py, "facs_face_bones"), &f.face_bone_names)?;
    d.set_item(
        intern!(py, "facs_two_pose"),
        owned(py, f.two_pose_correctives.clone())?,
    )?;
    d.set_item(
        intern!(py, "facs_three_pose"),
        owned(py, f.three_pose_correctives.clone())?,
    )?;
    let columns = f.poses.len();
    let bones = f.face_bone_names.len();
    let poses: Vec<[f32; 6]> = f
        .poses
        .iter()
        .flat_map(|column| {
            (0..bones).map(move |b| {
                let p = column.get(b).copied().unwrap_or_default();
                let [x, y, z] = p.position;
                let [rx, ry, rz] = p.rotation;
                [x, y, z, rx, ry, rz]
            })
        })
        .collect();
    let poses = numpy::ndarray::Array3::from_shape_vec((columns, bones, 6), poses.into_flattened())
        .map_err(value_error)?
        .into_pyarray(py);
    d.set_item(intern!(py, "facs_poses"), poses)
}

/// The skeleton's arrays: `bone_names`, `bone_parents` (-1 for a root),
/// `bone_positions` (B, 3) and `bone_rotations` (B, 9).
fn skeleton_arrays(py: Python<'_>, d: &Bound<'_, PyDict>, model: &Mesh) -> PyResult<()> {
    let names: Vec<&str> = model.skeleton.iter().map(|b| b.name.as_str()).collect();
    d.set_item(intern!(py, "bone_names"), names)?;
    let parents: Vec<i32> = model
        .skeleton
        .iter()
        .map(|b| b.parent.map_or(-1, i32::from))
        .collect();
    d.set_item(intern!(py, "bone_parents"), parents.into_pyarray(py))?;
    let positions: Vec<[f32; 3]> = model.skeleton.iter().map(|b| b.position).collect();
    d.set_item(intern!(py, "bone_positions"), owned(py, positions)?)?;
    let rotations: Vec<[f32; 9]> = model.skeleton.iter().map(|b| b.rotation).collect();
    d.set_item(intern!(py, "bone_rotations"), owned(py, rotations)?)?;
    Ok(())
}

/// Every vertex's position with FACS `weights` (control name, weight) applied, (N, 3).
pub(crate) fn facs_positions<'py>(
    py: Python<'py>,
    model: &Mesh,
    weights: Vec<(String, f32)>,
) -> PyResult<Bound<'py, numpy::PyArray2<f32>>> {
    let pairs: Vec<(&str, f32)> = weights.iter().map(|(n, w)| (n.as_str(), *w)).collect();
    let moved = py
        .detach(|| model.facs_positions(&pairs))
        .map_err(value_error)?;
    owned(py, moved)
}

/// Puts `arrays` (a `Mesh`'s, edited) into the model as level `lod`.
pub(crate) fn apply(model: &mut Mesh, arrays: &Bound<'_, PyDict>, lod: usize) -> PyResult<()> {
    let range = lod_range(model, levels(model).as_deref(), lod)?;
    let (positions, faces) = geometry(arrays)?;
    let n = positions.len();
    let joints = rows_of::<u16, 4>(arrays, "joints")?;
    let weights = rows_of::<u8, 4>(arrays, "weights")?;
    let resized = n != model.vertices.len();
    if resized && model.skinning.is_some() && joints.is_none() {
        return Err(value_error(format!(
            "the mesh is skinned: {n} vertices (was {}) need joints and weights (N, 4) too",
            model.vertices.len()
        )));
    }
    // A new vertex is white and has no tangent, as a vertex of a version without them.
    let new = MeshVertex {
        color: [255; 4],
        ..MeshVertex::default()
    };
    let fields = VertexFields::<MeshVertex> {
        position: |v, x| v.position = x,
        normal: |v, x| v.normal = x,
        uv: |v, x| v.uv = x,
        color: |v, x| v.color = x,
    };
    set_vertices(&mut model.vertices, new, &positions, arrays, &fields)?;
    match (joints, weights) {
        (Some(j), Some(w)) => {
            per_vertex(j.len(), n, "joints")?;
            per_vertex(w.len(), n, "weights")?;
            if let Some(bad) = j
                .iter()
                .flatten()
                .find(|&&b| usize::from(b) >= model.skeleton.len())
            {
                return Err(value_error(format!(
                    "joints: bone {bad} of {} bones",
                    model.skeleton.len()
                )));
            }
            let skins: Vec<VertexSkin> = j
                .iter()
                .zip(&w)
                .map(|(j, w)| VertexSkin {
                    influences: std::array::from_fn(|k| Influence {
                        bone: j.get(k).copied().unwrap_or_default(),
                        weight: w.get(k).copied().unwrap_or_default(),
                    }),
                })
                .collect();
            // Unchanged values keep the stored skinning (and its layout) as it was.
            if model.skinning.as_ref().map(|s| s.as_slice()) != Some(&skins[..]) {
                model.skinning = Some(skins.into());
            }
        }
        (None, None) => {}
        _ => return Err(value_error("joints and weights go together")),
    }
    // The level's faces replaced; the levels after it move by the difference.
    let old = range.len();
    let new_faces: Vec<[u32; 3]> = faces;
    if model.faces.get(range.clone()) != Some(&new_faces[..]) {
        let delta = new_faces.len() as i64 - old as i64;
        model.faces.splice(range.clone(), new_faces);
        for o in model.lods.offsets.iter_mut() {
            // Offsets after the level's start move ([0, 0], "every face is LOD 0", stays).
            if (*o as usize) > range.start {
                *o = u32::try_from(i64::from(*o) + delta).map_err(value_error)?;
            }
        }
    }
    Ok(())
}
