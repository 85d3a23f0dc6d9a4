//! Union collision data (CSGPHS) and union graphics (CSGMDL) through their models:
//! `File.with_mesh()` puts a `Mesh`'s edited arrays back and writes the same version,
//! keeping what the edit did not touch (hull preambles, physics info while it still
//! holds, v8 encoding, the union's hash, reserved runs, tangents, NormalIds …), as the
//! Rust models do.
//!
//! `File.mesh()` gives these formats' vertices in model order (hull after hull; the
//! union's vertices), so the arrays map back one to one.

use meshcodec::csg::mdl::model::UnionVertex;
use meshcodec::csg::mdl::{CsgMdl, UnionMesh};
use meshcodec::csg::phs::{CsgMesh, Csgphs};
use meshcodec::loss::Loss;
use meshcodec::Limits;
use numpy::IntoPyArray;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::arrays::{geometry, set_vertices, table, value_error, VertexFields};

/// A `ValueError` for each of `names` that `arrays` holds (not `None`): attributes
/// `format` has no place for (its `Mesh` never has them), which an edit would drop.
fn none_of(arrays: &Bound<'_, PyDict>, names: &[&str], format: &str) -> PyResult<()> {
    for name in names {
        if arrays.get_item(name)?.is_some_and(|a| !a.is_none()) {
            return Err(value_error(format!(
                "{name}: {format} has no place for them (set it to None)"
            )));
        }
    }
    Ok(())
}

/// This CSGPHS with the edited hulls, written, and what writing it loses, or `None` when
/// nothing changed.
///
/// Each hull keeps its vertex count (the arrays hold hull after hull), unless there is
/// one hull; every face stays within one hull's vertices. Positions and faces only: a
/// `ValueError` for any other attribute given.
pub(crate) fn csgphs_with(
    file: &Csgphs,
    arrays: &Bound<'_, PyDict>,
    limits: &Limits,
) -> PyResult<Option<(Vec<u8>, Vec<Loss>)>> {
    none_of(
        arrays,
        &["normals", "uvs", "colors", "joints", "weights"],
        "CSGPHS (positions and faces)",
    )?;
    let mut model = CsgMesh::from_csgphs(file, limits).map_err(value_error)?;
    let (positions, faces) = geometry(arrays)?;
    let counts: Vec<usize> = model.hulls.iter().map(|h| h.positions.len()).collect();
    let total: usize = counts.iter().sum();
    let counts = match counts.len() {
        1 => vec![positions.len()],
        _ if positions.len() == total => counts,
        hulls => {
            return Err(value_error(format!(
                "positions: {} rows for {total} vertices: a CSGPHS of {hulls} hulls keeps \
                 each hull's vertex count (the rows are hull after hull)",
                positions.len()
            )))
        }
    };
    // Each hull's first vertex in the arrays.
    let starts: Vec<usize> = counts
        .iter()
        .scan(0, |at, &c| {
            let start = *at;
            *at += c;
            Some(start)
        })
        .collect();
    let mut triangles: Vec<Vec<[u32; 3]>> = vec![Vec::new(); counts.len()];
    for (k, face) in faces.iter().enumerate() {
        let first = face[0] as usize;
        let hull = starts.partition_point(|&s| s <= first).saturating_sub(1);
        let start = starts.get(hull).copied().unwrap_or(0);
        let end = start + counts.get(hull).copied().unwrap_or(0);
        if face
            .iter()
            .any(|&i| (i as usize) < start || i as usize >= end)
        {
            return Err(value_error(format!(
                "faces: face {k} {face:?} spans two hulls (hull {hull} holds vertices \
                 {start} to {})",
                end.saturating_sub(1)
            )));
        }
        if let Some(t) = triangles.get_mut(hull) {
            t.push(face.map(|i| i - start as u32));
        }
    }
    let before = model.clone();
    let mut rest = positions.as_slice();
    for ((hull, count), tris) in model.hulls.iter_mut().zip(&counts).zip(triangles) {
        let (mine, after) = rest.split_at((*count).min(rest.len()));
        rest = after;
        if hull.positions != mine {
            hull.positions = mine.to_vec();
        }
        if hull.triangles != tris {
            hull.triangles = tris;
        }
    }
    if model == before {
        return Ok(None);
    }
    let losses = model.losses(file.version);
    let bytes = model
        .to_csgphs(file.version)
        .and_then(|f| f.write())
        .map_err(value_error)?;
    Ok(Some((bytes, losses)))
}

/// This union with the edited vertices and first-level faces, written, and what that
/// loses (normals quantized, …: read back and compared), or `None` when nothing
/// changed. New vertices take the attributes of none (zero normal, white, NormalId 0);
/// a `ValueError` for joints or weights.
pub(crate) fn csgmdl_with(
    file: &CsgMdl,
    arrays: &Bound<'_, PyDict>,
) -> PyResult<Option<(Vec<u8>, Vec<Loss>)>> {
    none_of(
        arrays,
        &["joints", "weights"],
        "union graphics (no skinning)",
    )?;
    let mut model = UnionMesh::from_blob(file).map_err(value_error)?;
    let (positions, faces) = geometry(arrays)?;
    let before = model.clone();
    let fields = VertexFields::<UnionVertex> {
        position: |v, x| v.position = x,
        normal: |v, x| v.normal = x,
        uv: |v, x| v.uv = x,
        color: |v, x| v.color = x,
    };
    let new = UnionVertex {
        color: [255; 4],
        ..UnionVertex::default()
    };
    set_vertices(&mut model.vertices, new, &positions, arrays, &fields)?;
    if model.triangles != faces {
        model.triangles = faces;
    }
    if model == before {
        return Ok(None);
    }
    model
        .convert(file.header.version)
        .map(Some)
        .map_err(value_error)
}

/// A union's arrays as `Mesh` wants them, from its model: the vertices as stored and the
/// faces of its first level, so that `with_mesh` maps them back one to one.
pub(crate) fn csgmdl_mesh_dict<'py>(
    py: Python<'py>,
    file: &CsgMdl,
) -> PyResult<Bound<'py, PyDict>> {
    let model = py
        .detach(|| UnionMesh::from_blob(file))
        .map_err(|e| crate::format_error(py, &e))?;
    let v = &model.vertices;
    let d = PyDict::new(py);
    d.set_item(
        "positions",
        table(v.iter().map(|x| x.position))?.into_pyarray(py),
    )?;
    d.set_item(
        "normals",
        table(v.iter().map(|x| x.normal))?.into_pyarray(py),
    )?;
    d.set_item("uvs", table(v.iter().map(|x| x.uv))?.into_pyarray(py))?;
    d.set_item("colors", table(v.iter().map(|x| x.color))?.into_pyarray(py))?;
    d.set_item(
        "faces",
        table(model.triangles.into_iter())?.into_pyarray(py),
    )?;
    Ok(d)
}
