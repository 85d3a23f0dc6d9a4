//! `File.mesh()`: a level of detail's arrays, by the names of `meshcodec.Mesh`'s
//! attributes, and the `Mesh` made of them; `File.with_mesh()`'s arrays back.

use meshcodec::filemesh::Mesh;
use meshcodec::scene::{Primitive, Scene};
use meshcodec::{AnyFile, ExportOptions, Limits, MeshFile};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList};

use crate::arrays::{owned, value_error};
use crate::{csg, filemesh, format_error};

/// Level of detail `lod` of `file` (read from `size` bytes) as arrays, by the names of
/// `meshcodec.Mesh`'s attributes: what the format has (a FileMesh's vertex records
/// whole, for `Mesh` to view), nothing for what it has not.
pub(crate) fn level<'py>(
    py: Python<'py>,
    file: &AnyFile,
    limits: &Limits,
    size: usize,
    lod: usize,
) -> PyResult<Bound<'py, PyDict>> {
    if let AnyFile::FileMesh(f) = file {
        let model = crate::work(py, size, || Mesh::from_file_with_limits(f, limits))
            .map_err(|e| format_error(py, &e))?;
        return filemesh::mesh_dict(py, model, f.version, lod);
    }
    if let (AnyFile::Csgmdl(f), 0) = (file, lod) {
        return csg::csgmdl_mesh_dict(py, f);
    }
    let options = ExportOptions {
        lod,
        all_lods: false,
        name: String::new(),
        // The numbers as stored: no turn to glTF's axes.
        keep_axes: true,
    };
    if lod != 0 && !matches!(file, AnyFile::Csgmdl(_)) {
        return Err(value_error(format!(
            "level of detail: no LOD {lod}: only FileMesh and union graphics have \
             levels of detail"
        )));
    }
    // A union's further levels (index ranges) come through the scene, with the
    // vertices that level uses.
    let scene = py
        .detach(|| file.to_scene(&options, limits))
        .map_err(|e| format_error(py, &e))?;
    scene_dict(py, scene)
}

/// A `Mesh` whose attributes are `arrays` (its `__dict__`), made without calling
/// `Mesh.__init__` (a Python call as dear as the rest of `File.mesh()` on a small file).
pub(crate) fn new_mesh<'py>(
    py: Python<'py>,
    arrays: Bound<'py, PyDict>,
) -> PyResult<Bound<'py, PyAny>> {
    static CLASS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    static NEW: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let class = crate::lookup(py, &CLASS, "meshcodec._mesh", "Mesh")?;
    let mesh = crate::lookup(py, &NEW, "builtins", "object.__new__")?.call1((class,))?;
    mesh.setattr(pyo3::intern!(py, "__dict__"), arrays)?;
    Ok(mesh)
}

/// A `ValueError` when `mesh` holds attributes changed from `file`'s that
/// `File.with_mesh()` does not write (the skeleton, FACS, the level ranges): never
/// dropped in silence (`meshcodec._mesh._not_written` finds them).
pub(crate) fn all_written(mesh: &Bound<'_, PyAny>, file: &Bound<'_, PyAny>) -> PyResult<()> {
    static NOT_WRITTEN: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let find = crate::lookup(mesh.py(), &NOT_WRITTEN, "meshcodec._mesh", "_not_written")?;
    let changed: Vec<String> = find.call1((mesh, file))?.extract()?;
    if changed.is_empty() {
        return Ok(());
    }
    Err(value_error(format!(
        "{} changed, which with_mesh does not write (it writes positions, faces, normals, \
         uvs, colors, joints and weights): set them back as read, or build a new file",
        changed.join(", ")
    )))
}

/// A `Mesh`'s arrays (`Mesh.arrays()`) as `File.with_mesh()` reads them: contiguous, of
/// the dtype each is stored as (float32 but faces uint32, colours uint8, joints uint16,
/// weights uint8), `None` kept.
pub(crate) fn contiguous_arrays<'py>(
    py: Python<'py>,
    mesh: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyDict>> {
    static CONTIGUOUS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let contiguous = crate::lookup(py, &CONTIGUOUS, "numpy", "ascontiguousarray")?;
    let given = mesh
        .call_method0(pyo3::intern!(py, "arrays"))?
        .cast_into::<PyDict>()?;
    let out = PyDict::new(py);
    for (key, a) in given.iter() {
        if a.is_none() {
            out.set_item(key, a)?;
            continue;
        }
        let dtype = match key.extract::<String>()?.as_str() {
            "faces" => "uint32",
            "colors" | "weights" => "uint8",
            "joints" => "uint16",
            _ => "float32",
        };
        out.set_item(key, contiguous.call1((a, dtype))?)?;
    }
    Ok(out)
}

/// The meshes of a scene's one level of detail as one set of arrays: primitives one
/// after another, their faces renumbered; an attribute only where every primitive has
/// it. One primitive's vectors are moved into NumPy; several are joined (one copy).
fn scene_dict(py: Python<'_>, mut scene: Scene) -> PyResult<Bound<'_, PyDict>> {
    let mut prims: Vec<Primitive> = scene.meshes.drain(..).flat_map(|m| m.primitives).collect();
    let n: usize = prims.iter().map(|p| p.positions.len()).sum();
    // One attribute of every primitive, one after another (moved when there is one
    // primitive); `None` unless every primitive has it (and there are vertices).
    fn joined<T, const K: usize>(
        prims: &mut [Primitive],
        n: usize,
        take: impl Fn(&mut Primitive) -> Option<Vec<[T; K]>>,
    ) -> Option<Vec<[T; K]>> {
        let mut parts: Vec<Vec<[T; K]>> = Vec::with_capacity(prims.len());
        for p in prims.iter_mut() {
            parts.push(take(p)?);
        }
        if n == 0 {
            return None;
        }
        if parts.len() == 1 {
            return parts.pop();
        }
        Some(parts.into_iter().flatten().collect())
    }
    let d = PyDict::new(py);
    let mut faces = Vec::new();
    let mut base = 0u32;
    for p in &mut prims {
        let count = u32::try_from(p.positions.len()).unwrap_or(u32::MAX);
        if base == 0 && faces.is_empty() {
            faces = std::mem::take(&mut p.triangles);
        } else {
            faces.extend(p.triangles.iter().map(|t| t.map(|i| i + base)));
        }
        base += count;
    }
    let positions = joined(&mut prims, n, |p| Some(std::mem::take(&mut p.positions)));
    d.set_item("positions", owned(py, positions.unwrap_or_default())?)?;
    d.set_item("faces", owned(py, faces)?)?;
    if let Some(a) = joined(&mut prims, n, |p| p.normals.take()) {
        d.set_item("normals", owned(py, a)?)?;
    }
    if let Some(a) = joined(&mut prims, n, |p| p.uvs.take()) {
        d.set_item("uvs", owned(py, a)?)?;
    }
    if let Some(a) = joined(&mut prims, n, |p| p.colors.take()) {
        // Stored as bytes in every format that has colours: back to them exactly.
        let bytes: Vec<[u8; 4]> = a
            .iter()
            .map(|c| c.map(|x| (x.clamp(0.0, 1.0) * 255.0).round() as u8))
            .collect();
        d.set_item("colors", owned(py, bytes)?)?;
    }
    let joints = joined(&mut prims, n, |p| p.joints.take());
    let weights = joined(&mut prims, n, |p| p.weights.take());
    if let (Some(j), Some(w)) = (joints, weights) {
        d.set_item("joints", owned(py, j)?)?;
        d.set_item("weights", owned(py, w)?)?;
    }
    if let Some(s) = &scene.skeleton {
        let bones = PyList::empty(py);
        for j in &s.joints {
            let b = PyDict::new(py);
            b.set_item("name", &j.name)?;
            b.set_item("parent", j.parent)?;
            b.set_item("translation", j.translation.to_vec())?;
            b.set_item("rotation", j.rotation.to_vec())?;
            b.set_item("scale", j.scale.to_vec())?;
            b.set_item("inverse_bind_matrix", j.inverse_bind_matrix.to_vec())?;
            bones.append(b)?;
        }
        d.set_item("bones", bones)?;
    }
    Ok(d)
}
