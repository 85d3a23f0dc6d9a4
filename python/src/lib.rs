//! `meshcodec._native`: the Rust side of the Python package `meshcodec`.
//!
//! The Python module `meshcodec` (python/meshcodec/__init__.py) is the API users call;
//! this module gives it the class `File` ([`file::File`]), `open`, and the functions
//! behind `import_file` and `from_arrays`, each a thin call into the library with the
//! interpreter released (`Python::detach`) while the library reads, writes, converts or
//! renders, so a thread pool over files uses every core. `File.mesh()` makes the Python
//! class `meshcodec._mesh.Mesh` ([`mesh`]).
//!
//! Errors become the package's own exceptions, defined in Python
//! (`meshcodec._errors`): `FormatError(message, offset, field)` for bytes that do not
//! parse or decode, `LossyConversion(message, losses)` for a refused conversion. Bad
//! bytes raise; they never panic (the library does not) and never allocate beyond the
//! [`Limits`] given.

mod arrays;
mod csg;
mod file;
mod filemesh;
mod mesh;

use arrays::{per_vertex, rows, value_error};
use file::File;

use meshcodec::loss::{any_lost, Loss};
use meshcodec::scene::Scene;
use meshcodec::{AnyFile, ConvertOptions, Limits};
use pyo3::exceptions::{PyOSError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyMemoryView, PyString};

/// Inputs from this many bytes are read (and their meshes made) with the interpreter
/// released; smaller ones, a few microseconds of work, keep it. Releasing it costs
/// about as much as reading a 200-byte file, and a thread that released it for so short
/// a time mostly waits to get it back: two threads over the corpus's 174-byte text mesh
/// did half the files a second that one thread did (0.48-0.65x) while every call released
/// it, and as many once the small ones kept it (docs/benchmarks.md, "Python").
pub(crate) const RELEASE_FROM: usize = 4096;

/// `work` with the interpreter released when it reads `size` bytes or more (see
/// [`RELEASE_FROM`]).
pub(crate) fn work<T, F>(py: Python<'_>, size: usize, work: F) -> T
where
    F: pyo3::marker::Ungil + FnOnce() -> T,
    T: pyo3::marker::Ungil,
{
    if size < RELEASE_FROM {
        work()
    } else {
        py.detach(work)
    }
}

/// `module.name` (a dotted `name` goes into attributes), looked up once into `cell`.
#[inline]
pub(crate) fn lookup<'py>(
    py: Python<'py>,
    cell: &'static pyo3::sync::PyOnceLock<Py<PyAny>>,
    module: &str,
    name: &str,
) -> PyResult<&'py Bound<'py, PyAny>> {
    cell.get_or_try_init(py, || {
        let mut found = py.import(module)?.into_any();
        for part in name.split('.') {
            found = found.getattr(part)?;
        }
        Ok::<_, PyErr>(found.unbind())
    })
    .map(|f| f.bind(py))
}

/// The limits of a call: the library's defaults where not given.
fn limits(max_input: Option<u64>, max_decoded: Option<u64>) -> Limits {
    let d = Limits::default();
    Limits {
        max_input_bytes: max_input.unwrap_or(d.max_input_bytes),
        max_decoded_bytes: max_decoded.unwrap_or(d.max_decoded_bytes),
    }
}

/// A library error as the package's `FormatError` (offset and field where known).
pub(crate) fn format_error(py: Python<'_>, e: &meshcodec::Error) -> PyErr {
    let field = (!e.context().is_empty()).then(|| e.context().to_string());
    match py
        .import("meshcodec._errors")
        .and_then(|m| m.getattr("FormatError"))
        .and_then(|c| c.call1((e.to_string(), e.offset(), field)))
    {
        Ok(err) => PyErr::from_value(err),
        Err(import) => import,
    }
}

/// A refused conversion as the package's `LossyConversion`.
fn lossy(py: Python<'_>, message: String, losses: &[Loss]) -> PyErr {
    let lines: Vec<String> = losses.iter().map(ToString::to_string).collect();
    match py
        .import("meshcodec._errors")
        .and_then(|m| m.getattr("LossyConversion"))
        .and_then(|c| c.call1((message, lines, report(losses))))
    {
        Ok(err) => PyErr::from_value(err),
        Err(import) => import,
    }
}

/// Refuses a conversion that loses data unless `allow_lossy`: `what` names it
/// (`converting filemesh 4.01 to 2.00`).
pub(crate) fn refuse_lost(
    py: Python<'_>,
    losses: &[Loss],
    allow_lossy: bool,
    what: &str,
) -> PyResult<()> {
    if !any_lost(losses) || allow_lossy {
        return Ok(());
    }
    let lines: Vec<String> = losses.iter().map(|l| format!("  - {l}")).collect();
    let message = format!(
        "{what} would lose:\n{}\n(pass allow_lossy=True to go ahead anyway)",
        lines.join("\n")
    );
    Err(lossy(py, message, losses))
}

/// The extension of a glTF (`gltf`, `glb`) or OBJ (`obj`) path, lower case; a
/// `ValueError` for any other.
pub(crate) fn interchange_extension(path: &std::path::Path) -> PyResult<String> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    match ext.as_str() {
        "gltf" | "glb" | "obj" => Ok(ext),
        _ => Err(value_error(format!(
            "{}: the extension must be .gltf, .glb or .obj",
            path.display()
        ))),
    }
}

/// A loss report as JSON text (`[{"kind", "level", "count", "text"}, …]`), for Python to
/// load.
pub(crate) fn report(losses: &[Loss]) -> String {
    serde_json::to_string(losses).unwrap_or_else(|_| "[]".into())
}

/// Opens a file of any format meshcodec reads; the format comes from the bytes.
///
/// ``src`` is a path (``str`` or path-like) or the file's bytes (bytes-like).
/// ``max_input`` refuses larger inputs before reading them, ``max_decoded`` caps any
/// decompressed or decoded payload (both 512 MiB by default, as the CLI). Raises
/// :class:`FormatError` for bytes that are not such a file, ``OSError`` for a path that
/// cannot be read, ``TypeError`` for a ``src`` that is neither.
#[pyfunction]
#[pyo3(signature = (src, *, max_input=None, max_decoded=None))]
fn open(
    py: Python<'_>,
    src: &Bound<'_, PyAny>,
    max_input: Option<u64>,
    max_decoded: Option<u64>,
) -> PyResult<File> {
    let limits = limits(max_input, max_decoded);
    // Bytes first: the common case, and the cheapest test.
    if let Ok(bytes) = src.cast::<PyBytes>() {
        return open_bytes(py, bytes.as_bytes(), limits);
    }
    if src.is_instance_of::<PyString>() || src.hasattr(pyo3::intern!(py, "__fspath__"))? {
        return open_path(py, src.extract()?, limits);
    }
    // Any other bytes-like object (bytearray, memoryview, a NumPy uint8 array, ...): its
    // bytes, copied (it may change under us), once its size is within the limit (an
    // input too large is refused before it is copied). Through a memoryview, so an int
    // is a TypeError, not the zero bytes `bytes(5)` would make.
    let view = PyMemoryView::from(src).map_err(|_| {
        PyTypeError::new_err(format!(
            "open: a path or the file's bytes expected, not {}",
            src.get_type()
                .name()
                .map(|n| n.to_string())
                .unwrap_or_default()
        ))
    })?;
    let size: u64 = view.getattr(pyo3::intern!(py, "nbytes"))?.extract()?;
    limits
        .check_input(usize::try_from(size).unwrap_or(usize::MAX))
        .map_err(|e| format_error(py, &e))?;
    if let Ok(a) = src.cast::<PyByteArray>() {
        return open_bytes(py, &a.to_vec(), limits);
    }
    let bytes = py
        .get_type::<PyBytes>()
        .call1((view,))?
        .cast_into::<PyBytes>()?;
    open_bytes(py, bytes.as_bytes(), limits)
}

/// Opens the bytes of a file of any format.
fn open_bytes(py: Python<'_>, bytes: &[u8], limits: Limits) -> PyResult<File> {
    let file = work(py, bytes.len(), || {
        meshcodec::open_with_limits(bytes, &limits)
    })
    .map_err(|e| format_error(py, &e))?;
    Ok(File::opened(file, limits, bytes.len()))
}

/// Opens a file by path, its size checked against the limits before it is read.
fn open_path(py: Python<'_>, path: std::path::PathBuf, limits: Limits) -> PyResult<File> {
    let file = py.detach(
        || -> Result<AnyFile, Result<meshcodec::Error, std::io::Error>> {
            let f = std::fs::File::open(&path).map_err(Err)?;
            if f.metadata().is_ok_and(|m| m.is_dir()) {
                return Err(Err(std::io::Error::other("a directory, not a file")));
            }
            meshcodec::open_reader(std::io::BufReader::new(f), &limits).map_err(Ok)
        },
    );
    match file {
        // Read from disk, with the interpreter released: its size counts as large.
        Ok(f) => Ok(File {
            name: path.file_stem().map(|s| s.to_string_lossy().into_owned()),
            ..File::opened(f, limits, usize::MAX)
        }),
        Err(Ok(e)) => Err(format_error(py, &e)),
        Err(Err(e)) => Err(PyOSError::new_err(format!("{}: {e}", path.display()))),
    }
}

/// A scene written as `to` (as `import --to` spells it), refused when it loses data
/// unless `allow_lossy`; the new file with its report.
fn from_scene(
    py: Python<'_>,
    scene: Scene,
    to: &str,
    allow_lossy: bool,
    from: &str,
    limits: Limits,
) -> PyResult<File> {
    let target = meshcodec::Target::for_import(to).map_err(value_error)?;
    let (file, losses, size, beside) = py
        .detach(|| {
            // The `.anim` files of a UNIGINE ms13/ms14 target stay with the result
            // (`File.beside`, written by `save`), as `meshcodec import` writes them.
            let (prepared, beside) =
                meshcodec::import_scene(scene, &target, &ConvertOptions::default())?;
            let c = prepared.into_converted()?;
            let file = meshcodec::open_with_limits(&c.bytes, &limits)?;
            Ok::<_, meshcodec::Error>((file, c.losses, c.bytes.len(), beside))
        })
        .map_err(|e| format_error(py, &e))?;
    refuse_lost(
        py,
        &losses,
        allow_lossy,
        &format!("writing {from} as {target}"),
    )?;
    Ok(File {
        file: Box::new(file),
        limits,
        losses,
        size,
        name: None,
        beside,
    })
}

/// A glTF (.gltf, .glb) or OBJ file written as `to`, as `meshcodec import` does.
#[pyfunction]
#[pyo3(signature = (path, to, allow_lossy=false, max_input=None, max_decoded=None))]
fn import_file(
    py: Python<'_>,
    path: std::path::PathBuf,
    to: &str,
    allow_lossy: bool,
    max_input: Option<u64>,
    max_decoded: Option<u64>,
) -> PyResult<File> {
    let limits = limits(max_input, max_decoded);
    let ext = interchange_extension(&path)?;
    let read = py.detach(|| -> Result<Scene, Result<meshcodec::Error, String>> {
        let len = std::fs::metadata(&path)
            .map_err(|e| Err(format!("{}: {e}", path.display())))?
            .len();
        if len > limits.max_input_bytes {
            return Err(Ok(meshcodec::Error::new(
                "input",
                meshcodec::ErrorKind::Invalid(format!(
                    "{len} bytes: over the limit of {} (max_input)",
                    limits.max_input_bytes
                )),
            )));
        }
        let bytes = std::fs::read(&path).map_err(|e| Err(format!("{}: {e}", path.display())))?;
        match ext.as_str() {
            "obj" => {
                let text = std::str::from_utf8(&bytes).map_err(|e| {
                    Ok(meshcodec::Error::new(
                        "OBJ",
                        meshcodec::ErrorKind::Invalid(format!("not UTF-8: {e}")),
                    ))
                })?;
                meshcodec::scene::import::read_obj(text).map_err(Ok)
            }
            _ => {
                let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
                let options = meshcodec::scene::import::ImportOptions::default();
                meshcodec::scene::import::read_gltf_with(
                    &bytes,
                    Some(dir.unwrap_or(std::path::Path::new("."))),
                    &options,
                )
                .map_err(Ok)
            }
        }
    });
    let scene = match read {
        Ok(s) => s,
        Err(Ok(e)) => return Err(format_error(py, &e)),
        Err(Err(e)) => return Err(PyOSError::new_err(e)),
    };
    let from = if ext == "obj" {
        "the OBJ import"
    } else {
        "the glTF import"
    };
    from_scene(py, scene, to, allow_lossy, from, limits)
}

/// A new file of any format from arrays: one mesh of `positions` (N, 3) and `faces`
/// (M, 3), with normals, UVs and colours where given.
#[pyfunction]
#[pyo3(signature = (positions, faces, to, normals=None, uvs=None, colors=None, allow_lossy=false))]
#[allow(clippy::too_many_arguments)]
fn from_arrays(
    py: Python<'_>,
    positions: numpy::PyReadonlyArray2<'_, f32>,
    faces: numpy::PyReadonlyArray2<'_, u32>,
    to: &str,
    normals: Option<numpy::PyReadonlyArray2<'_, f32>>,
    uvs: Option<numpy::PyReadonlyArray2<'_, f32>>,
    colors: Option<numpy::PyReadonlyArray2<'_, u8>>,
    allow_lossy: bool,
) -> PyResult<File> {
    let positions: Vec<[f32; 3]> = rows(&positions, "positions")?;
    let n = positions.len();
    let normals = normals.map(|a| rows::<f32, 3>(&a, "normals")).transpose()?;
    let uvs = uvs.map(|a| rows::<f32, 2>(&a, "uvs")).transpose()?;
    let colors = colors.map(|a| rows::<u8, 4>(&a, "colors")).transpose()?;
    for (len, what) in [
        (normals.as_ref().map(Vec::len), "normals"),
        (uvs.as_ref().map(Vec::len), "uvs"),
        (colors.as_ref().map(Vec::len), "colors"),
    ] {
        if let Some(len) = len {
            per_vertex(len, n, what)?;
        }
    }
    let primitive = meshcodec::scene::Primitive {
        name: "mesh".into(),
        positions,
        normals,
        uvs,
        colors: colors.map(|c| c.iter().map(|x| x.map(|b| f32::from(b) / 255.0)).collect()),
        triangles: rows(&faces, "faces")?,
        ..Default::default()
    };
    primitive.check().map_err(value_error)?;
    let scene = Scene {
        meshes: vec![meshcodec::scene::ExportMesh {
            lod: 0,
            name: "mesh".into(),
            primitives: vec![primitive],
        }],
        ..Scene::default()
    };
    from_scene(py, scene, to, allow_lossy, "the arrays", Limits::default())
}

/// A pickled :class:`File` (see ``File.__reduce__``): its bytes opened with its limits,
/// its loss report (JSON), name and files beside (suffix, what, bytes) restored
/// (pickles made before files had them have none).
#[pyfunction]
#[pyo3(signature = (data, max_input, max_decoded, report, name=None, beside=Vec::new()))]
fn _unpickle(
    py: Python<'_>,
    data: &Bound<'_, PyBytes>,
    max_input: u64,
    max_decoded: u64,
    report: &str,
    name: Option<String>,
    beside: Vec<(String, String, Vec<u8>)>,
) -> PyResult<File> {
    let losses: Vec<meshcodec::loss::Loss> = serde_json::from_str(report)
        .map_err(|e| value_error(format!("a pickled File's loss report: {e}")))?;
    let file = open_bytes(
        py,
        data.as_bytes(),
        limits(Some(max_input), Some(max_decoded)),
    )?;
    Ok(File {
        losses,
        name,
        beside: beside
            .into_iter()
            .map(|(suffix, what, bytes)| meshcodec::ExtraFile {
                suffix,
                what,
                bytes,
            })
            .collect(),
        ..file
    })
}

/// The native half of the package `meshcodec`.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<File>()?;
    m.add_function(wrap_pyfunction!(open, m)?)?;
    m.add_function(wrap_pyfunction!(_unpickle, m)?)?;
    m.add_function(wrap_pyfunction!(import_file, m)?)?;
    m.add_function(wrap_pyfunction!(from_arrays, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
