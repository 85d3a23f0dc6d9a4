//! NumPy arrays in and out: the checks and conversions every entry point shares.

use numpy::ndarray::Array2;
use numpy::{Element, IntoPyArray, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// A caller's mistake (a shape, a version that is none) as `ValueError`.
pub(crate) fn value_error(e: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// The rows of an (N, `C`) array; `what` names it in the error for another shape.
pub(crate) fn rows<T: Element + Copy + Default, const C: usize>(
    a: &PyReadonlyArray2<'_, T>,
    what: &str,
) -> PyResult<Vec<[T; C]>> {
    let v = a.as_array();
    if v.ncols() != C {
        return Err(value_error(format!(
            "{what}: {C} columns expected, {} given",
            v.ncols()
        )));
    }
    Ok(v.rows()
        .into_iter()
        .map(|r| std::array::from_fn(|k| r.get(k).copied().unwrap_or_default()))
        .collect())
}

/// Refuses a per-vertex array of `len` rows for `n` positions.
pub(crate) fn per_vertex(len: usize, n: usize, what: &str) -> PyResult<()> {
    if len == n {
        Ok(())
    } else {
        Err(value_error(format!("{what}: {len} rows for {n} positions")))
    }
}

/// Rows of `K` values as an (N, K) array, in one allocation.
pub(crate) fn table<T: Copy, const K: usize>(
    rows: impl ExactSizeIterator<Item = [T; K]>,
) -> PyResult<Array2<T>> {
    let n = rows.len();
    let mut data = Vec::with_capacity(n * K);
    for r in rows {
        data.extend_from_slice(&r);
    }
    Array2::from_shape_vec((n, K), data).map_err(value_error)
}

/// The rows of `arrays[key]`, an (N, `C`) array, if given.
pub(crate) fn rows_of<'py, T: numpy::Element + Copy + Default, const C: usize>(
    arrays: &Bound<'py, PyDict>,
    key: &str,
) -> PyResult<Option<Vec<[T; C]>>> {
    let Some(a) = arrays.get_item(key)? else {
        return Ok(None);
    };
    if a.is_none() {
        return Ok(None);
    }
    let a: PyReadonlyArray2<'py, T> = a.extract().map_err(|_| {
        value_error(format!(
            "{key}: a 2-D array of {} expected",
            std::any::type_name::<T>()
        ))
    })?;
    rows(&a, key).map(Some)
}

/// Rows of `K` values as an (N, K) NumPy array, without a copy.
pub(crate) fn owned<T: numpy::Element, const K: usize>(
    py: Python<'_>,
    rows: Vec<[T; K]>,
) -> PyResult<Bound<'_, numpy::PyArray2<T>>> {
    flat_table(py, rows.into_flattened(), K)
}

/// `flat` as an (N, `columns`) array, handed over without a copy and made in one NumPy
/// call (not a 1-D array then a reshaped view of it).
pub(crate) fn flat_table<T: numpy::Element>(
    py: Python<'_>,
    flat: Vec<T>,
    columns: usize,
) -> PyResult<Bound<'_, numpy::PyArray2<T>>> {
    let rows = flat.len().checked_div(columns).unwrap_or(0);
    let array = Array2::from_shape_vec((rows, columns), flat)
        .map_err(|e| value_error(format!("a table of {columns} columns: {e}")))?;
    Ok(array.into_pyarray(py))
}

/// Where a format's vertex record keeps what a `Mesh` has per vertex.
pub(crate) struct VertexFields<V> {
    pub(crate) position: fn(&mut V, [f32; 3]),
    pub(crate) normal: fn(&mut V, [f32; 3]),
    pub(crate) uv: fn(&mut V, [f32; 2]),
    pub(crate) color: fn(&mut V, [u8; 4]),
}

/// The vertices with a `Mesh`'s edited arrays: `positions` (their count is the new
/// vertex count; vertices added are `new`), then `normals`, `uvs` and `colors` where
/// `arrays` has them, one row per position.
pub(crate) fn set_vertices<V: Clone>(
    vertices: &mut Vec<V>,
    new: V,
    positions: &[[f32; 3]],
    arrays: &Bound<'_, PyDict>,
    fields: &VertexFields<V>,
) -> PyResult<()> {
    let n = positions.len();
    vertices.resize(n, new);
    for (v, &p) in vertices.iter_mut().zip(positions) {
        (fields.position)(v, p);
    }
    fn each<V, T: Element + Copy + Default, const C: usize>(
        vertices: &mut [V],
        arrays: &Bound<'_, PyDict>,
        key: &str,
        set: fn(&mut V, [T; C]),
    ) -> PyResult<()> {
        if let Some(rows) = rows_of::<T, C>(arrays, key)? {
            per_vertex(rows.len(), vertices.len(), key)?;
            for (v, x) in vertices.iter_mut().zip(rows) {
                set(v, x);
            }
        }
        Ok(())
    }
    each(vertices, arrays, "normals", fields.normal)?;
    each(vertices, arrays, "uvs", fields.uv)?;
    each(vertices, arrays, "colors", fields.color)
}

/// Vertex positions and triangles.
pub(crate) type Geometry = (Vec<[f32; 3]>, Vec<[u32; 3]>);

/// The positions and faces of an edited `Mesh` (faces checked against the positions).
pub(crate) fn geometry(arrays: &Bound<'_, PyDict>) -> PyResult<Geometry> {
    let positions =
        rows_of::<f32, 3>(arrays, "positions")?.ok_or_else(|| value_error("positions: missing"))?;
    let faces = rows_of::<u32, 3>(arrays, "faces")?.ok_or_else(|| value_error("faces: missing"))?;
    let n = positions.len();
    if let Some(bad) = faces.iter().flatten().find(|&&i| i as usize >= n) {
        return Err(value_error(format!("faces: index {bad} for {n} vertices")));
    }
    Ok((positions, faces))
}
