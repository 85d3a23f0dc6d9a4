//! `meshcodec._native`: the Rust side of the Python package `meshcodec`.
//!
//! The Python module `meshcodec` (python/meshcodec/__init__.py) is the API users call;
//! this module gives it one class, [`NativeFile`], and a few functions, each a thin call
//! into the library with the interpreter released (`Python::detach`) while the library
//! reads, writes, converts or renders, so a thread pool over files uses every core.
//!
//! Errors become the package's own exceptions, defined in Python
//! (`meshcodec._errors`): `FormatError(message, offset, field)` for bytes that do not
//! parse or decode, `LossyConversion(message, losses)` for a refused conversion. Bad
//! bytes raise; they never panic (the library does not) and never allocate beyond the
//! [`Limits`] given.

mod arrays;
mod csg;
mod filemesh;

use arrays::{owned, per_vertex, rows, value_error};

use meshcodec::filemesh::Mesh;
use meshcodec::loss::{any_lost, Loss};
use meshcodec::scene::{Primitive, Scene};
use meshcodec::{AnyFile, ConvertOptions, ExportOptions, Limits, MeshFile};
use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};

/// One opened file of any format: the value behind `meshcodec.File`.
#[pyclass(module = "meshcodec._native", frozen)]
struct NativeFile {
    file: AnyFile,
    limits: Limits,
    /// What the conversion that made this file lost (empty for an opened file).
    losses: Vec<Loss>,
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
fn refuse_lost(py: Python<'_>, losses: &[Loss], allow_lossy: bool, what: &str) -> PyResult<()> {
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
fn interchange_extension(path: &std::path::Path) -> PyResult<String> {
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
fn report(losses: &[Loss]) -> String {
    serde_json::to_string(losses).unwrap_or_else(|_| "[]".into())
}

/// Opens the bytes of a file of any format.
#[pyfunction]
#[pyo3(signature = (data, max_input=None, max_decoded=None))]
fn open_bytes(
    py: Python<'_>,
    data: &Bound<'_, PyBytes>,
    max_input: Option<u64>,
    max_decoded: Option<u64>,
) -> PyResult<NativeFile> {
    let limits = limits(max_input, max_decoded);
    let bytes = data.as_bytes();
    let file = py
        .detach(|| meshcodec::open_with_limits(bytes, &limits))
        .map_err(|e| format_error(py, &e))?;
    Ok(NativeFile {
        file,
        limits,
        losses: Vec::new(),
    })
}

/// Opens a file by path, its size checked against `max_input` before it is read.
#[pyfunction]
#[pyo3(signature = (path, max_input=None, max_decoded=None))]
fn open_path(
    py: Python<'_>,
    path: std::path::PathBuf,
    max_input: Option<u64>,
    max_decoded: Option<u64>,
) -> PyResult<NativeFile> {
    let limits = limits(max_input, max_decoded);
    let file = py.detach(
        || -> Result<AnyFile, Result<meshcodec::Error, std::io::Error>> {
            let f = std::fs::File::open(&path).map_err(Err)?;
            meshcodec::open_reader(std::io::BufReader::new(f), &limits).map_err(Ok)
        },
    );
    let file = match file {
        Ok(f) => f,
        Err(Ok(e)) => return Err(format_error(py, &e)),
        Err(Err(e)) => return Err(PyOSError::new_err(format!("{}: {e}", path.display()))),
    };
    Ok(NativeFile {
        file,
        limits,
        losses: Vec::new(),
    })
}

#[pymethods]
impl NativeFile {
    /// The format's name, as the CLI names it (`filemesh`, `csgphs`, `unigine-mesh` …).
    fn format(&self) -> &'static str {
        self.file.format().name()
    }

    /// The version, as `info --json` gives it (`4.01`, `7`, `ms14`; CSGK, which has
    /// none, `CSGK`).
    fn version(&self) -> String {
        self.file
            .version()
            .unwrap_or_else(|| self.file.version_name())
    }

    /// `meshcodec info --json` as JSON text.
    fn info_json(&self, py: Python<'_>) -> PyResult<String> {
        let summary = py
            .detach(|| self.file.summary(&self.limits))
            .map_err(|e| format_error(py, &e))?;
        Ok(summary.json.to_string())
    }

    /// The file's bytes: identical to the bytes read when unmodified.
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let bytes = py
            .detach(|| self.file.write())
            .map_err(|e| format_error(py, &e))?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// Writes the file to `path` atomically (a temporary file beside it, renamed over it).
    fn save(&self, py: Python<'_>, path: std::path::PathBuf) -> PyResult<()> {
        py.detach(|| {
            let bytes = self.file.write().map_err(Ok)?;
            meshcodec::output::write_atomically(&path, &bytes).map_err(Err)
        })
        .map_err(|e| match e {
            Ok(e) => format_error(py, &e),
            Err(e) => PyOSError::new_err(format!("{}: cannot write: {e}", path.display())),
        })
    }

    /// Converts to `to` (as the CLI's `--to`); refuses with `LossyConversion` when the
    /// target loses data (re-laid layouts need no permission) unless `allow_lossy`.
    #[pyo3(signature = (to, allow_lossy=false))]
    fn convert(&self, py: Python<'_>, to: &str, allow_lossy: bool) -> PyResult<NativeFile> {
        // A version that is none is the caller's mistake, not the file's.
        match meshcodec::Target::qualified(to) {
            Some(target) => target.map(drop),
            None => self.file.target(to).map(drop),
        }
        .map_err(value_error)?;
        let limits = self.limits;
        let (file, losses) = py
            .detach(|| {
                meshcodec::convert_to(&self.file, to, &ConvertOptions::default(), &limits).and_then(
                    |c| {
                        let file = meshcodec::open_with_limits(&c.bytes, &limits)?;
                        Ok((file, c.losses))
                    },
                )
            })
            .map_err(|e| format_error(py, &e))?;
        let what = format!(
            "converting {} {} to {to}",
            self.file.format().name(),
            self.file.version_name()
        );
        refuse_lost(py, &losses, allow_lossy, &what)?;
        Ok(NativeFile {
            file,
            limits,
            losses,
        })
    }

    /// The lines of the report of the conversion that made this file.
    fn losses(&self) -> Vec<String> {
        self.losses.iter().map(ToString::to_string).collect()
    }

    /// The same report as JSON text: `[{"kind", "level", "count", "text"}, …]`.
    fn loss_report(&self) -> String {
        report(&self.losses)
    }

    /// Level of detail `lod` as arrays: a dict that becomes a `meshcodec.Mesh`'s
    /// attributes (`lod` only when not 0).
    #[pyo3(signature = (lod=0))]
    fn mesh<'py>(&self, py: Python<'py>, lod: usize) -> PyResult<Bound<'py, PyDict>> {
        let d = self.level(py, lod)?;
        if lod != 0 {
            d.set_item(pyo3::intern!(py, "lod"), lod)?;
        }
        Ok(d)
    }

    /// Every vertex's position with the FACS controls `weights` (name to weight, 0 to 1)
    /// applied to the face bones, as (N, 3) float32; a FileMesh with FACS data only.
    fn facs_positions<'py>(
        &self,
        py: Python<'py>,
        weights: Vec<(String, f32)>,
    ) -> PyResult<Bound<'py, numpy::PyArray2<f32>>> {
        let AnyFile::FileMesh(f) = &self.file else {
            return Err(value_error(format!(
                "FACS: {} files have none (FileMesh 5.00 and later do)",
                self.file.format().name()
            )));
        };
        let model = py
            .detach(|| Mesh::from_file_with_limits(f, &self.limits))
            .map_err(|e| format_error(py, &e))?;
        filemesh::facs_positions(py, &model, weights)
    }

    /// This file with the arrays of an edited `Mesh` (level of detail `lod`): what the
    /// edit did not touch (skinning, FACS, other levels, hull preambles, physics, stored
    /// layout) is kept, and the version stays. FileMesh, CSGPHS and union graphics.
    #[pyo3(signature = (arrays, lod=0))]
    fn with_mesh(
        &self,
        py: Python<'_>,
        arrays: &Bound<'_, PyDict>,
        lod: usize,
    ) -> PyResult<NativeFile> {
        let edited = |file: Option<AnyFile>| NativeFile {
            file: file.unwrap_or_else(|| self.file.clone()),
            limits: self.limits,
            losses: Vec::new(),
        };
        if lod != 0 && !matches!(self.file, AnyFile::FileMesh(_)) {
            return Err(value_error(format!(
                "level of detail: with_mesh edits LOD 0 of {} files (LOD {lod} given)",
                self.file.format().name()
            )));
        }
        let f = match &self.file {
            AnyFile::FileMesh(f) => f,
            AnyFile::Csgphs(f) => {
                let file = csg::csgphs_with(f, arrays, &self.limits)?;
                return Ok(edited(file.map(AnyFile::Csgphs)));
            }
            AnyFile::Csgmdl(f) => {
                let file = csg::csgmdl_with(f, arrays)?;
                return Ok(edited(file.map(AnyFile::Csgmdl)));
            }
            other => {
                return Err(value_error(format!(
                    "with_mesh edits FileMesh, CSGPHS and union graphics files; this is {}: \
                     build a new file with meshcodec.from_arrays, or convert it",
                    other.format().name()
                )))
            }
        };
        let mut model = py
            .detach(|| Mesh::from_file_with_limits(f, &self.limits))
            .map_err(|e| format_error(py, &e))?;
        let before = model.clone();
        filemesh::apply(&mut model, arrays, lod)?;
        if model == before {
            // Nothing edited: the file as it is (a text file's numbers as printed).
            return Ok(NativeFile {
                file: self.file.clone(),
                limits: self.limits,
                losses: Vec::new(),
            });
        }
        let version = f.version;
        let file = py
            .detach(|| model.to_file(version))
            .map_err(|e| format_error(py, &e))?;
        Ok(NativeFile {
            file: AnyFile::FileMesh(file),
            limits: self.limits,
            losses: Vec::new(),
        })
    }

    /// Writes the geometry as glTF (.gltf, .glb) or OBJ, as `meshcodec export` does; the
    /// lines of what the export leaves out.
    #[pyo3(signature = (path, lod=0, all_lods=false))]
    fn export(
        &self,
        py: Python<'_>,
        path: std::path::PathBuf,
        lod: usize,
        all_lods: bool,
    ) -> PyResult<Vec<String>> {
        let options = ExportOptions {
            lod,
            all_lods,
            name: path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
            keep_axes: false,
        };
        let ext = interchange_extension(&path)?;
        let done = py.detach(
            || -> Result<Vec<Loss>, Result<meshcodec::Error, std::io::Error>> {
                let (scene, mut losses) = self
                    .file
                    .clone()
                    .into_scene_and_losses(&options, &self.limits)
                    .map_err(Ok)?;
                let bytes = match ext.as_str() {
                    "glb" => {
                        losses.extend(meshcodec::scene::gltf::losses(&scene));
                        meshcodec::scene::gltf::to_glb(&scene).map_err(Ok)?
                    }
                    "gltf" => {
                        losses.extend(meshcodec::scene::gltf::losses(&scene));
                        meshcodec::scene::gltf::to_gltf(&scene)
                            .map_err(Ok)?
                            .into_bytes()
                    }
                    _ => {
                        losses.extend(meshcodec::scene::obj::losses(&scene));
                        meshcodec::scene::obj::to_obj(&scene)
                            .map_err(Ok)?
                            .into_bytes()
                    }
                };
                meshcodec::output::write_atomically(&path, &bytes).map_err(Err)?;
                Ok(losses)
            },
        );
        match done {
            Ok(losses) => Ok(losses.iter().map(ToString::to_string).collect()),
            Err(Ok(e)) => Err(format_error(py, &e)),
            Err(Err(e)) => Err(PyOSError::new_err(format!(
                "{}: cannot write: {e}",
                path.display()
            ))),
        }
    }

    /// The PNG thumbnail `meshcodec render` draws, `size` pixels square, as bytes.
    #[pyo3(signature = (size=256, lod=0))]
    fn render<'py>(&self, py: Python<'py>, size: u32, lod: usize) -> PyResult<Bound<'py, PyBytes>> {
        let options = ExportOptions {
            lod,
            ..ExportOptions::default()
        };
        let png = py
            .detach(|| {
                let scene = self.file.to_scene(&options, &self.limits)?;
                let render = meshcodec::render::RenderOptions {
                    size,
                    ..Default::default()
                };
                meshcodec::render::render_png(&scene, &render)
            })
            .map_err(|e| format_error(py, &e))?;
        Ok(PyBytes::new(py, &png))
    }
}

impl NativeFile {
    /// Level of detail `lod` as arrays, by the names of `meshcodec.Mesh`'s attributes.
    fn level<'py>(&self, py: Python<'py>, lod: usize) -> PyResult<Bound<'py, PyDict>> {
        if let AnyFile::FileMesh(f) = &self.file {
            let model = py
                .detach(|| Mesh::from_file_with_limits(f, &self.limits))
                .map_err(|e| format_error(py, &e))?;
            return filemesh::mesh_dict(py, model, f.version, lod);
        }
        if let (AnyFile::Csgmdl(f), 0) = (&self.file, lod) {
            return csg::csgmdl_mesh_dict(py, f);
        }
        let options = ExportOptions {
            lod,
            all_lods: false,
            name: String::new(),
            // The numbers as stored: no turn to glTF's axes.
            keep_axes: true,
        };
        if lod != 0 && !matches!(self.file, AnyFile::Csgmdl(_)) {
            return Err(value_error(format!(
                "level of detail: no LOD {lod}: only FileMesh and union graphics have \
                 levels of detail"
            )));
        }
        // A union's further levels (index ranges) come through the scene, with the
        // vertices that level uses.
        let scene = py
            .detach(|| self.file.to_scene(&options, &self.limits))
            .map_err(|e| format_error(py, &e))?;
        mesh_dict(py, scene)
    }
}

/// The meshes of a scene's one level of detail as one set of arrays: primitives one
/// after another, their faces renumbered; an attribute only where every primitive has
/// it. One primitive's vectors are moved into NumPy; several are joined (one copy).
fn mesh_dict(py: Python<'_>, mut scene: Scene) -> PyResult<Bound<'_, PyDict>> {
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

/// A scene written as `to` (as `import --to` spells it), refused when it loses data
/// unless `allow_lossy`; the new file with its report.
fn from_scene(
    py: Python<'_>,
    scene: Scene,
    to: &str,
    allow_lossy: bool,
    from: &str,
    limits: Limits,
) -> PyResult<NativeFile> {
    let target = meshcodec::Target::for_import(to).map_err(value_error)?;
    let (file, losses) = py
        .detach(|| {
            meshcodec::import(&scene, &target, &ConvertOptions::default()).and_then(|c| {
                let file = meshcodec::open_with_limits(&c.bytes, &limits)?;
                Ok((file, c.losses))
            })
        })
        .map_err(|e| format_error(py, &e))?;
    refuse_lost(
        py,
        &losses,
        allow_lossy,
        &format!("writing {from} as {target}"),
    )?;
    Ok(NativeFile {
        file,
        limits,
        losses,
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
) -> PyResult<NativeFile> {
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
) -> PyResult<NativeFile> {
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

/// The native half of the package `meshcodec`.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<NativeFile>()?;
    m.add_function(wrap_pyfunction!(open_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(open_path, m)?)?;
    m.add_function(wrap_pyfunction!(import_file, m)?)?;
    m.add_function(wrap_pyfunction!(from_arrays, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
