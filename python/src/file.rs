//! `meshcodec.File`: one opened file of any format, a native class, so that opening a
//! file and asking for its mesh go from Python straight into Rust (a Python class
//! wrapping a native one cost two Python calls per file, as much as reading a small
//! text mesh).

use meshcodec::filemesh::Mesh;
use meshcodec::loss::Loss;
use meshcodec::{AnyFile, ConvertOptions, ExportOptions, ExtraFile, Limits, MeshFile};
use numpy::PyArray2;
use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyDict, PyTuple};

use crate::arrays::value_error;
use crate::{csg, filemesh, format_error, interchange_extension, refuse_lost, report};

/// A mesh file of any format meshcodec reads, opened with :func:`meshcodec.open`.
///
/// Unmodified, :meth:`to_bytes` and :meth:`save` give back the bytes read, exactly.
/// Pickles as its bytes, with its limits, :attr:`losses`, :attr:`name` and
/// :attr:`beside`.
#[pyclass(module = "meshcodec", name = "File", frozen)]
pub(crate) struct File {
    /// Boxed: the pyclass and the results that carry it move a pointer, not the file.
    pub(crate) file: Box<AnyFile>,
    pub(crate) limits: Limits,
    /// What the conversion that made this file lost (empty for an opened file).
    pub(crate) losses: Vec<Loss>,
    /// The bytes it was read from (`usize::MAX` for a file read from disk): small files
    /// are worked on without releasing the interpreter ([`crate::RELEASE_FROM`]).
    pub(crate) size: usize,
    /// The stem of the path it was opened from (kept by the files made from it), which
    /// names the exported scene as `meshcodec export` names it after its input.
    pub(crate) name: Option<String>,
    /// The files a conversion to UNIGINE ms13 or ms14 writes beside this one (its
    /// animations as `.anim` files), as the CLI writes them beside its output.
    pub(crate) beside: Vec<ExtraFile>,
}

/// JSON text as Python objects (`json.loads`).
fn json_loads<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    static LOADS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    crate::lookup(py, &LOADS, "json", "loads")?.call1((text,))
}

impl File {
    /// A file just opened or made from `size` bytes: no losses.
    pub(crate) fn opened(file: AnyFile, limits: Limits, size: usize) -> File {
        File {
            file: Box::new(file),
            limits,
            losses: Vec::new(),
            size,
            name: None,
            beside: Vec::new(),
        }
    }

    /// A file made from this one (edited): its limits, size and name, no losses.
    fn made(&self, file: AnyFile) -> File {
        File {
            name: self.name.clone(),
            ..File::opened(file, self.limits, self.size)
        }
    }

    /// A file made from this one by an edit, from the `bytes` it was written as: what
    /// that lost, refused unless `allow_lossy` (as :meth:`convert` refuses). The bytes
    /// are read again, as `convert` gives its result: the file holds what they say (a
    /// text version's numbers as printed, not the values given).
    fn edited(
        &self,
        py: Python<'_>,
        bytes: Vec<u8>,
        losses: Vec<Loss>,
        allow_lossy: bool,
    ) -> PyResult<File> {
        let what = format!(
            "writing the edited mesh as {} {}",
            self.file.format().name(),
            self.file.version_name()
        );
        refuse_lost(py, &losses, allow_lossy, &what)?;
        let limits = self.limits;
        let file = py
            .detach(|| meshcodec::open_with_limits(&bytes, &limits))
            .map_err(|e| format_error(py, &e))?;
        Ok(File {
            file: Box::new(file),
            limits,
            losses,
            size: bytes.len(),
            name: self.name.clone(),
            beside: Vec::new(),
        })
    }
}

#[pymethods]
impl File {
    /// The format, as the CLI names it: ``filemesh``, ``csgphs``, ``csgmdl``, ``csgk``,
    /// ``unigine-mesh``, ``unigine-anim`` or ``stf``.
    #[getter]
    fn format(&self) -> &'static str {
        self.file.format().name()
    }

    /// The version, as ``meshcodec info --json`` gives it (``"4.01"``, ``"7"``,
    /// ``"ms14"``; CSGK, which has none, ``"CSGK"``).
    #[getter]
    fn version(&self) -> String {
        self.file
            .version()
            .unwrap_or_else(|| self.file.version_name())
    }

    /// What the conversion that made this file lost, a line each as the CLI prints them
    /// (empty for a file opened, or converted without loss).
    #[getter]
    fn losses(&self) -> Vec<String> {
        self.losses.iter().map(ToString::to_string).collect()
    }

    /// The stem of the path the file was opened from (``"head"`` for ``"x/head.mesh"``),
    /// kept by the files converted or edited from it; ``None`` for one opened from bytes
    /// or made by :func:`from_arrays` or :func:`import_file`. :meth:`export` names the
    /// glTF scene, node and mesh (the OBJ object) after it, as ``meshcodec export``
    /// names them after its input.
    #[getter]
    fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// :attr:`losses` as dicts: ``kind``, ``level`` (``"lost"`` or ``"re-laid"``),
    /// ``count`` (or ``None``) and ``text``.
    #[getter]
    fn loss_report<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        json_loads(py, &report(&self.losses))
    }

    /// What ``meshcodec info --json`` prints for this file, as a dict.
    fn info<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let summary = py
            .detach(|| self.file.summary(&self.limits))
            .map_err(|e| format_error(py, &e))?;
        json_loads(py, &summary.json.to_string())
    }

    /// The file's bytes (the bytes read, when the file is unmodified).
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let bytes =
            crate::work(py, self.size, || self.file.write()).map_err(|e| format_error(py, &e))?;
        Ok(PyBytes::new(py, &bytes))
    }

    /// Writes the file to ``path`` (str or path-like) atomically, as the CLI does: a
    /// failure leaves an existing file as it was. The files of :attr:`beside` go beside
    /// it, as ``meshcodec convert`` writes them: ``path`` without its extension, then
    /// each one's suffix (``y.mesh``: ``y.anim``). Returns their paths (most files have
    /// none: ``[]``). A ``path`` that would be one of them (``y.anim`` for a mesh whose
    /// animation goes to ``y.anim``) raises ``ValueError`` before anything is written.
    fn save(&self, py: Python<'_>, path: std::path::PathBuf) -> PyResult<Vec<std::path::PathBuf>> {
        let placed: Vec<(std::path::PathBuf, &[u8])> = self
            .beside
            .iter()
            .map(|e| {
                (
                    meshcodec::output::beside_path(&path, &e.suffix),
                    &e.bytes[..],
                )
            })
            .collect();
        if placed.iter().any(|(p, _)| *p == path) {
            return Err(value_error(format!(
                "{}: the animation file beside it would have the mesh's own name: give the \
                 path another extension (.mesh)",
                path.display()
            )));
        }
        py.detach(|| {
            let bytes = self.file.write().map_err(|e| Ok((path.clone(), e)))?;
            let write = |p: &std::path::Path, b: &[u8]| {
                meshcodec::output::write_atomically(p, b).map_err(|e| Err((p.to_path_buf(), e)))
            };
            write(&path, &bytes)?;
            placed.iter().try_for_each(|(p, b)| write(p, b))
        })
        .map_err(|e| match e {
            Ok((_, e)) => format_error(py, &e),
            Err((p, e)) => PyOSError::new_err(format!("{}: cannot write: {e}", p.display())),
        })?;
        Ok(placed.into_iter().map(|(p, _)| p).collect())
    }

    /// The files to write beside this one, by the suffix that follows its path without
    /// the extension (``".anim"``, or ``"_Walk.anim"`` for each of several): a
    /// conversion to UNIGINE ms13 or ms14 keeps animations in ``.anim`` files (an11)
    /// beside the mesh, as ``meshcodec convert`` and ``meshcodec import`` write them, so
    /// they are no loss. :meth:`save` writes them; :meth:`to_bytes` is the mesh's bytes
    /// alone. Empty for other files. Files converted or edited from this one start from
    /// its bytes, as the CLI reads only its input: they do not carry these.
    #[getter]
    fn beside<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for e in &self.beside {
            let file = meshcodec::open_with_limits(&e.bytes, &self.limits)
                .map_err(|err| format_error(py, &err))?;
            d.set_item(&e.suffix, File::opened(file, self.limits, e.bytes.len()))?;
        }
        Ok(d)
    }

    /// The file converted to ``to``, spelled as the CLI's ``--to`` (``"2.00"``,
    /// ``"filemesh:4.01"``, ``"csgphs:7"``, ``"unigine:ms13"``, ``"stf"``).
    ///
    /// Raises :class:`LossyConversion` (listing the losses) when the target cannot hold
    /// everything, unless ``allow_lossy``; the result's :attr:`losses` says what went.
    /// Layouts the target only re-lays (chunk order, LOD offsets ...) need no permission
    /// and are listed too. A ``to`` that names no version raises ``ValueError``.
    #[pyo3(signature = (to, *, allow_lossy=false))]
    fn convert(&self, py: Python<'_>, to: &str, allow_lossy: bool) -> PyResult<File> {
        // A version that is none is the caller's mistake, not the file's.
        match meshcodec::Target::qualified(to) {
            Some(target) => target.map(drop),
            None => self.file.target(to).map(drop),
        }
        .map_err(value_error)?;
        let limits = self.limits;
        let (file, losses, size, beside) = py
            .detach(|| {
                let source = self.file.as_ref().clone();
                let mut prepared =
                    meshcodec::convert_prepared(source, to, &ConvertOptions::default(), &limits)?;
                // Kept with the result (and written by `save`), as the CLI writes them
                // beside its output: no loss.
                let beside = prepared.take_beside();
                let c = prepared.into_converted()?;
                let file = meshcodec::open_with_limits(&c.bytes, &limits)?;
                Ok::<_, meshcodec::Error>((file, c.losses, c.bytes.len(), beside))
            })
            .map_err(|e| format_error(py, &e))?;
        let what = format!(
            "converting {} {} to {to}",
            self.file.format().name(),
            self.file.version_name()
        );
        refuse_lost(py, &losses, allow_lossy, &what)?;
        Ok(File {
            file: Box::new(file),
            limits,
            losses,
            size,
            name: self.name.clone(),
            beside,
        })
    }

    /// Level of detail ``lod`` (0: full detail) as a :class:`Mesh` of NumPy arrays.
    ///
    /// Raises ``ValueError`` for a level the file does not have.
    #[pyo3(signature = (lod=0))]
    fn mesh<'py>(&self, py: Python<'py>, lod: usize) -> PyResult<Bound<'py, PyAny>> {
        crate::mesh::new_mesh(py, self.level(py, lod)?)
    }

    /// Every vertex's position, (N, 3) float32, with the FACS controls posed:
    /// ``weights`` maps control names (``"c_JD"``, or FaceControls names such as
    /// ``"JawDrop"``) to weights from 0 to 1; correctives follow from them. The face
    /// bones take the transforms the library evaluates (``meshcodec info`` names the rig)
    /// and the vertices follow them by their skinning weights; vertices on other bones
    /// stay. A shape key per control is ``f.facs_positions({name: 1.0})``.
    ///
    /// FileMesh with FACS data only (5.00 and later); ``ValueError`` otherwise, or for a
    /// name that is no control.
    fn facs_positions<'py>(
        &self,
        py: Python<'py>,
        weights: std::collections::HashMap<String, f32>,
    ) -> PyResult<Bound<'py, PyArray2<f32>>> {
        let AnyFile::FileMesh(f) = &*self.file else {
            return Err(value_error(format!(
                "FACS: {} files have none (FileMesh 5.00 and later do)",
                self.file.format().name()
            )));
        };
        let model = py
            .detach(|| Mesh::from_file_with_limits(f, &self.limits))
            .map_err(|e| format_error(py, &e))?;
        filemesh::facs_positions(py, &model, weights.into_iter().collect())
    }

    /// This file with ``mesh``'s arrays, edited, in place of its level of detail: what
    /// the edit did not touch (skinning, FACS, other levels, how the file laid out its
    /// bytes) is kept, as the Rust model keeps it, and the version stays.
    ///
    /// ``mesh`` comes from :meth:`mesh`; replace its arrays (same or new counts: a skinned
    /// mesh with new vertices needs ``joints`` and ``weights`` for them). FileMesh,
    /// CSGPHS (the rows are hull after hull: each hull keeps its vertex count unless
    /// there is one, and a face stays within its hull) and union graphics (CSGMDL);
    /// ``ValueError`` for other formats (build one with :func:`from_arrays`, or convert),
    /// for attributes the format has no place for (CSGPHS: anything but positions and
    /// faces; union graphics: joints and weights), and for attributes changed that it
    /// does not write (the skeleton, FACS, ``lod_ranges``: only the arrays of
    /// :meth:`Mesh.arrays` go back). Unedited, the bytes are the file's.
    ///
    /// The edited file is written and read back: what it cannot hold as given (a text
    /// version's numbers rounded to its significant digits, shared vertices laid out per
    /// face corner, colours in a version without them, a union's normals quantized …)
    /// raises :class:`LossyConversion`, unless ``allow_lossy``; the result's
    /// :attr:`losses` says what went.
    #[pyo3(signature = (mesh, *, allow_lossy=false))]
    fn with_mesh(
        slf: &Bound<'_, Self>,
        py: Python<'_>,
        mesh: &Bound<'_, PyAny>,
        allow_lossy: bool,
    ) -> PyResult<File> {
        let this = slf.get();
        let lod: usize = mesh.getattr(pyo3::intern!(py, "lod"))?.extract()?;
        crate::mesh::all_written(mesh, slf.as_any())?;
        let arrays = crate::mesh::contiguous_arrays(py, mesh)?;
        if lod != 0 && !matches!(*this.file, AnyFile::FileMesh(_)) {
            return Err(value_error(format!(
                "level of detail: with_mesh edits LOD 0 of {} files (LOD {lod} given)",
                this.file.format().name()
            )));
        }
        let f = match &*this.file {
            AnyFile::FileMesh(f) => f,
            AnyFile::Csgphs(f) => {
                return match csg::csgphs_with(f, &arrays, &this.limits)? {
                    Some((bytes, losses)) => this.edited(py, bytes, losses, allow_lossy),
                    None => Ok(this.made((*this.file).clone())),
                };
            }
            AnyFile::Csgmdl(f) => {
                return match csg::csgmdl_with(f, &arrays)? {
                    Some((bytes, losses)) => this.edited(py, bytes, losses, allow_lossy),
                    None => Ok(this.made((*this.file).clone())),
                };
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
            .detach(|| Mesh::from_file_with_limits(f, &this.limits))
            .map_err(|e| format_error(py, &e))?;
        let before = model.clone();
        filemesh::apply(&mut model, &arrays, lod)?;
        if model == before {
            // Nothing edited: the file as it is (a text file's numbers as printed).
            return Ok(this.made((*this.file).clone()));
        }
        let version = f.version;
        let (bytes, losses) = py
            .detach(|| {
                let written = model.convert(version)?;
                Ok::<_, meshcodec::Error>((written.file.write()?, written.losses))
            })
            .map_err(|e| format_error(py, &e))?;
        this.edited(py, bytes, losses, allow_lossy)
    }

    /// Writes the geometry as glTF 2.0 (``.gltf``, ``.glb``) or OBJ (``.obj``), as
    /// ``meshcodec export`` does; returns the lines of what the export leaves out.
    ///
    /// ``name`` names the scene, node and mesh (OBJ: the object): by default
    /// :attr:`name`, as the CLI names them after its input, so a file opened from a path
    /// exports the CLI's bytes; else the stem of ``path``.
    #[pyo3(signature = (path, *, lod=0, all_lods=false, name=None))]
    fn export(
        &self,
        py: Python<'_>,
        path: std::path::PathBuf,
        lod: usize,
        all_lods: bool,
        name: Option<String>,
    ) -> PyResult<Vec<String>> {
        let name = name.or_else(|| self.name.clone()).unwrap_or_else(|| {
            path.file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default()
        });
        let options = ExportOptions {
            lod,
            all_lods,
            name,
            keep_axes: false,
        };
        let ext = interchange_extension(&path)?;
        let done = py.detach(
            || -> Result<Vec<Loss>, Result<meshcodec::Error, std::io::Error>> {
                let (scene, mut losses) = self
                    .file
                    .as_ref()
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

    /// The PNG thumbnail ``meshcodec render`` draws, ``size`` pixels square; also
    /// written to ``path`` (atomically) when given.
    #[pyo3(signature = (path=None, *, size=256, lod=0))]
    fn render<'py>(
        &self,
        py: Python<'py>,
        path: Option<std::path::PathBuf>,
        size: u32,
        lod: usize,
    ) -> PyResult<Bound<'py, PyBytes>> {
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
        if let Some(path) = path {
            py.detach(|| meshcodec::output::write_atomically(&path, &png))
                .map_err(|e| {
                    PyOSError::new_err(format!("{}: cannot write: {e}", path.display()))
                })?;
        }
        Ok(PyBytes::new(py, &png))
    }

    /// Pickled as its bytes, opened again on the other side with its limits and its
    /// loss report (what the conversion or edit that made it lost): process pools and
    /// distributed engines ship the file and what was done to it.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        static UNPICKLE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
        let unpickle = crate::lookup(py, &UNPICKLE, "meshcodec._native", "_unpickle")?;
        let args = (
            self.to_bytes(py)?,
            self.limits.max_input_bytes,
            self.limits.max_decoded_bytes,
            report(&self.losses),
            self.name.as_deref(),
            self.beside
                .iter()
                .map(|e| {
                    (
                        e.suffix.as_str(),
                        e.what.as_str(),
                        PyBytes::new(py, &e.bytes),
                    )
                })
                .collect::<Vec<_>>(),
        )
            .into_pyobject(py)?;
        PyTuple::new(py, [unpickle.clone(), args.into_any()])
    }

    fn __repr__(&self) -> String {
        format!("<meshcodec.File {} {}>", self.format(), self.version())
    }
}

impl File {
    /// Level of detail `lod` as arrays, by the names of `meshcodec.Mesh`'s attributes
    /// (`lod` only when not 0).
    fn level<'py>(&self, py: Python<'py>, lod: usize) -> PyResult<Bound<'py, PyDict>> {
        let d = crate::mesh::level(py, &self.file, &self.limits, self.size, lod)?;
        if lod != 0 {
            d.set_item(pyo3::intern!(py, "lod"), lod)?;
        }
        Ok(d)
    }
}
