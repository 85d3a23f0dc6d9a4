"""meshcodec: read and write game mesh files exactly.

Roblox FileMesh 1.00-7.00, CSGPHS collision data, CSGMDL/CSGK union graphics, UNIGINE
``.mesh``/``.anim`` and STF, from Python: a file opened and written back unmodified is
byte-for-byte the file read, conversions say what they lose, and meshes come out as
NumPy arrays.

>>> import meshcodec
>>> f = meshcodec.open("roundtrip-fixtures/filemesh/v4.01-bones.mesh")  # doctest: +SKIP
>>> f.format, f.version                                                 # doctest: +SKIP
('filemesh', '4.01')

The work is done by the Rust library with the interpreter released, so threads over
many files use every core; a :class:`File` pickles as its bytes.
"""

from __future__ import annotations

import builtins
import importlib.util
import json
import os
from typing import Any, Dict, List, Optional, Union

import numpy as np

from . import _native
from ._errors import FormatError, LossyConversion

__all__ = [
    "File",
    "FormatError",
    "LossyConversion",
    "Mesh",
    "VERTEX_RECORD",
    "from_arrays",
    "import_file",
    "open",
    "register_trimesh",
]

__version__: str = _native.__version__

Source = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview]


#: The 40-byte vertex record of FileMesh 2.00-6.00 (and of the model of every version),
#: as NumPy sees it: a FileMesh's arrays are views of one table of these.
VERTEX_RECORD = np.dtype(
    [
        ("position", "<f4", (3,)),
        ("normal", "<f4", (3,)),
        ("uv", "<f4", (2,)),
        ("tangent", "u1", (4,)),
        ("color", "u1", (4,)),
    ]
)


def _empty(dtype: Any, *shape: int) -> np.ndarray:
    a = np.empty(shape, dtype=dtype)
    a.flags.writeable = False
    return a


#: A FileMesh's skeleton arrays when it has no bones (the native side sends none).
_NO_SKELETON: Dict[str, Any] = {
    "bone_parents": _empty(np.int32, 0),
    "bone_positions": _empty(np.float32, 0, 3),
    "bone_rotations": _empty(np.float32, 0, 9),
}


class Mesh:
    """One level of detail of a file, as NumPy arrays (see :meth:`File.mesh`).

    ``positions`` (N, 3) float32 and ``faces`` (M, 3) uint32 always; ``normals`` (N, 3)
    float32, ``uvs`` (N, 2) float32, ``colors`` (N, 4) uint8, ``joints`` (N, 4) uint16 and
    ``weights`` (N, 4) where the format has them (else ``None``). Numbers are as stored
    (no axis turned).

    A FileMesh gives every vertex of the file (the level's faces index them), its
    ``weights`` as stored (uint8, summing to 255), the skeleton as arrays (``bone_names``,
    ``bone_parents`` int32 with -1 for a root, ``bone_positions`` (B, 3) and
    ``bone_rotations`` (B, 9): each bone's CFrame, row-major) and as ``bones``, dicts of
    ``name``, ``parent``, ``position`` and ``rotation`` made when first asked,
    ``lod_ranges`` (the face range of each level) and, with FACS data, ``facs_controls``
    (control names), ``facs_face_bones`` (the bones they drive), ``facs_two_pose`` (K, 2)
    and ``facs_three_pose`` (K, 3) (each corrective's controls; ``facs_correctives`` as
    one list) and ``facs_poses``
    ((columns, face bones, 6) float32: each control's then each corrective's offset of each
    face bone at full weight, position xyz then rotation xyz in degrees; see
    :meth:`File.facs_positions` for the vertices). Other formats give the level's
    vertices, float32 ``weights`` and ``bones`` as glTF joints (``name``, ``parent``,
    ``translation``, ``rotation``, ``scale``, ``inverse_bind_matrix``).

    No array is copied on the way out of Rust: a FileMesh's ``positions``, ``normals``,
    ``uvs`` and ``colors`` are views of one table of 40-byte vertex records
    (:data:`VERTEX_RECORD`, strided: ``np.ascontiguousarray`` gives a packed copy) and
    ``faces`` a view of every level's faces. They are writable and the mesh owns them:
    ``m.positions *= 2`` edits this mesh only, never the file. Arrays can also be
    replaced (``m.positions = m.positions * 2``, new counts too) and the mesh given back
    to :meth:`File.with_mesh`.
    """

    positions: np.ndarray
    faces: np.ndarray
    normals: Optional[np.ndarray]
    uvs: Optional[np.ndarray]
    colors: Optional[np.ndarray]
    joints: Optional[np.ndarray]
    weights: Optional[np.ndarray]
    facs_controls: Optional[List[str]]
    facs_face_bones: Optional[List[str]]
    facs_poses: Optional[np.ndarray]
    facs_two_pose: Optional[np.ndarray]
    facs_three_pose: Optional[np.ndarray]
    bone_names: List[str]
    bone_parents: Optional[np.ndarray]
    bone_positions: Optional[np.ndarray]
    bone_rotations: Optional[np.ndarray]
    lod_ranges: List[Any]
    lod: int
    _bones: Optional[List[Dict[str, Any]]]

    def __init__(self, arrays: Dict[str, Any]):
        # The native side's arrays, by the attributes' names, are the instance's own
        # (`File.mesh` sets them without calling this): `positions` and `faces` come
        # made; the others are made from them when first read (`_Made`), then kept, so a
        # script that reads positions and faces pays for those two only.
        self.__dict__ = arrays

    @property
    def bones(self) -> List[Dict[str, Any]]:
        """The skeleton, a dict per bone (made when first asked; a FileMesh's are also the
        arrays ``bone_names``, ``bone_parents`` (-1 for a root), ``bone_positions`` (B, 3)
        and ``bone_rotations`` (B, 9))."""
        if self._bones is None:
            parents = self.bone_parents if self.bone_parents is not None else []
            self._bones = [
                {
                    "name": name,
                    "parent": None if parent < 0 else int(parent),
                    "position": [float(x) for x in position],
                    "rotation": [float(x) for x in rotation],
                }
                for name, parent, position, rotation in zip(
                    self.bone_names,
                    parents,
                    self.bone_positions if self.bone_positions is not None else [],
                    self.bone_rotations if self.bone_rotations is not None else [],
                )
            ]
        return self._bones

    @bones.setter
    def bones(self, value: List[Dict[str, Any]]) -> None:
        self._bones = value

    @property
    def facs_correctives(self) -> Optional[List[List[int]]]:
        """Each FACS corrective's control indices, two-pose then three-pose (the arrays
        ``facs_two_pose`` (K, 2) and ``facs_three_pose`` (K, 3) uint16); ``None`` without
        FACS."""
        if self.facs_two_pose is None or self.facs_three_pose is None:
            return None
        return self.facs_two_pose.tolist() + self.facs_three_pose.tolist()

    def arrays(self) -> Dict[str, Any]:
        """The arrays, by name (``None`` for those the mesh has not)."""
        return {
            "positions": self.positions,
            "faces": self.faces,
            "normals": self.normals,
            "uvs": self.uvs,
            "colors": self.colors,
            "joints": self.joints,
            "weights": self.weights,
        }

    def __repr__(self) -> str:
        return f"<meshcodec.Mesh {len(self.positions)} vertices, {len(self.faces)} faces>"


def _column(first: int, last: int) -> Any:
    # A FileMesh: (N, 10) float32 records -> column slices, views with a 40-byte stride,
    # no copy (the fields of VERTEX_RECORD; slicing is cheaper than its dtype view).
    # Other formats send the arrays they have.
    def make(arrays: Dict[str, Any]) -> Any:
        table = arrays.get("_table")
        return None if table is None else table[:, first:last]

    return make


def _colors(arrays: Dict[str, Any]) -> Any:
    # The last 4 bytes of each 40-byte record; a version without colours has none.
    table = arrays.get("_table")
    if table is None or not arrays.get("_has_colors"):
        return None
    return table.view(np.uint8)[:, 36:40]


def _skeleton(key: str) -> Any:
    # A FileMesh without bones: the skeleton's arrays, empty (shared; nothing to write in).
    def make(arrays: Dict[str, Any]) -> Any:
        return _NO_SKELETON[key] if "_table" in arrays else None

    return make


#: How each :class:`Mesh` attribute is made from the native side's arrays.
_MESH_FIELDS: Dict[str, Any] = {
    # Only read when the native side did not send the attribute (`positions`, `faces`
    # and what the file has come sent).
    "positions": _column(0, 3),
    "normals": _column(3, 6),
    "uvs": _column(6, 8),
    "colors": _colors,
    "joints": lambda arrays: None,
    "weights": lambda arrays: None,
    "_bones": lambda arrays: arrays.get("bones"),
    "bone_names": lambda arrays: [],
    "bone_parents": _skeleton("bone_parents"),
    "bone_positions": _skeleton("bone_positions"),
    "bone_rotations": _skeleton("bone_rotations"),
    "lod_ranges": lambda arrays: [(0, len(arrays["faces"]))],
    "facs_controls": lambda arrays: None,
    "facs_face_bones": lambda arrays: None,
    "facs_two_pose": lambda arrays: None,
    "facs_three_pose": lambda arrays: None,
    "facs_poses": lambda arrays: None,
    "lod": lambda arrays: 0,
}


#: Makes an instance without calling ``__init__`` (``File.mesh``: one call less).
_new = object.__new__


class _Made:
    """A :class:`Mesh` attribute made from the native arrays when first read and then
    kept in the instance, which from then on answers for it (a non-data descriptor, as
    ``functools.cached_property`` without its lock); assigning replaces it."""

    __slots__ = ("name", "make")

    def __init__(self, name: str, make: Any):
        self.name = name
        self.make = make

    def __get__(self, mesh: Optional[Mesh], owner: Any = None) -> Any:
        if mesh is None:
            return self
        arrays = mesh.__dict__
        value = arrays[self.name] = self.make(arrays)
        return value


for _name, _make in _MESH_FIELDS.items():
    setattr(Mesh, _name, _Made(_name, _make))


class File:
    """A mesh file of any format meshcodec reads, opened with :func:`open`.

    Unmodified, :meth:`to_bytes` and :meth:`save` give back the bytes read, exactly.
    """

    __slots__ = ("_native",)

    def __init__(self, native: "_native.NativeFile"):
        self._native = native

    @property
    def format(self) -> str:
        """The format, as the CLI names it: ``filemesh``, ``csgphs``, ``csgmdl``, ``csgk``,
        ``unigine-mesh``, ``unigine-anim`` or ``stf``."""
        return self._native.format()

    @property
    def version(self) -> str:
        """The version, as ``meshcodec info --json`` gives it (``"4.01"``, ``"7"``, ``"ms14"``)."""
        return self._native.version()

    @property
    def losses(self) -> List[str]:
        """What the conversion that made this file lost, a line each as the CLI prints
        them (empty for a file opened, or converted without loss)."""
        return self._native.losses()

    @property
    def loss_report(self) -> List[Dict[str, Any]]:
        """:attr:`losses` as dicts: ``kind``, ``level`` (``"lost"`` or ``"re-laid"``),
        ``count`` (or ``None``) and ``text``."""
        return json.loads(self._native.loss_report())

    def info(self) -> Dict[str, Any]:
        """What ``meshcodec info --json`` prints for this file, as a dict."""
        return json.loads(self._native.info_json())

    def to_bytes(self) -> bytes:
        """The file's bytes (the bytes read, when the file is unmodified)."""
        return self._native.to_bytes()

    def save(self, path: Union[str, "os.PathLike[str]"]) -> None:
        """Writes the file to ``path`` atomically, as the CLI does: a failure leaves an
        existing file as it was."""
        self._native.save(os.fspath(path))

    def convert(self, to: str, *, allow_lossy: bool = False) -> "File":
        """The file converted to ``to``, spelled as the CLI's ``--to`` (``"2.00"``,
        ``"filemesh:4.01"``, ``"csgphs:7"``, ``"unigine:ms13"``, ``"stf"``).

        Raises :class:`LossyConversion` (listing the losses) when the target cannot hold
        everything, unless ``allow_lossy``; the result's :attr:`losses` says what went.
        Layouts the target only re-lays (chunk order, LOD offsets ...) need no permission
        and are listed too. A ``to`` that names no version raises ``ValueError``.
        """
        return File(self._native.convert(to, allow_lossy))

    def mesh(self, lod: int = 0) -> Mesh:
        """Level of detail ``lod`` (0: full detail) as a :class:`Mesh` of NumPy arrays.

        Raises ``ValueError`` for a level the file does not have."""
        m = _new(Mesh)
        m.__dict__ = self._native.mesh(lod)
        return m

    def facs_positions(self, weights: Dict[str, float]) -> np.ndarray:
        """Every vertex's position, (N, 3) float32, with the FACS controls posed:
        ``weights`` maps control names (``"c_JD"``, or FaceControls names such as
        ``"JawDrop"``) to weights from 0 to 1; correctives follow from them. The face bones
        take the transforms the library evaluates (``meshcodec info`` names the rig) and
        the vertices follow them by their skinning weights; vertices on other bones stay.
        A shape key per control is ``f.facs_positions({name: 1.0})``.

        FileMesh with FACS data only (5.00 and later); ``ValueError`` otherwise, or for a
        name that is no control."""
        return self._native.facs_positions([(str(k), float(v)) for k, v in weights.items()])

    def with_mesh(self, mesh: Mesh) -> "File":
        """This file with ``mesh``'s arrays, edited, in place of its level of detail: what
        the edit did not touch (skinning, FACS, other levels, how the file laid out its
        bytes) is kept, as the Rust model keeps it, and the version stays.

        ``mesh`` comes from :meth:`mesh`; replace its arrays (same or new counts: a skinned
        mesh with new vertices needs ``joints`` and ``weights`` for them). FileMesh,
        CSGPHS (the rows are hull after hull: each hull keeps its vertex count unless
        there is one, and a face stays within its hull) and union graphics (CSGMDL);
        ``ValueError`` for other formats (build one with :func:`from_arrays`, or convert).
        Unedited, the bytes are the file's.
        """

        def contiguous(key: str, a: Any) -> Any:
            dtypes = {"faces": np.uint32, "colors": np.uint8, "joints": np.uint16, "weights": np.uint8}
            return None if a is None else np.ascontiguousarray(a, dtype=dtypes.get(key, np.float32))

        arrays = {k: contiguous(k, v) for k, v in mesh.arrays().items()}
        return File(self._native.with_mesh(arrays, mesh.lod))

    def export(self, path: Union[str, "os.PathLike[str]"], *, lod: int = 0, all_lods: bool = False) -> List[str]:
        """Writes the geometry as glTF 2.0 (``.gltf``, ``.glb``) or OBJ (``.obj``), as
        ``meshcodec export`` does; returns the lines of what the export leaves out."""
        return self._native.export(os.fspath(path), lod, all_lods)

    def render(self, path: Union[str, "os.PathLike[str]", None] = None, *, size: int = 256, lod: int = 0) -> bytes:
        """The PNG thumbnail ``meshcodec render`` draws, ``size`` pixels square; also
        written to ``path`` when given."""
        png = self._native.render(size, lod)
        if path is not None:
            with builtins.open(os.fspath(path), "wb") as out:
                out.write(png)
        return png

    def __reduce__(self) -> Any:
        # Pickled as its bytes: process pools and distributed engines ship the file.
        return (_from_bytes, (self.to_bytes(),))

    def __repr__(self) -> str:
        return f"<meshcodec.File {self.format} {self.version}>"


def _from_bytes(data: bytes) -> File:
    return File(_native.open_bytes(data))


def open(  # noqa: A001 - the package's front door, as the CLI's commands take any file
    src: Source,
    *,
    max_input: Optional[int] = None,
    max_decoded: Optional[int] = None,
) -> File:
    """Opens a file of any format meshcodec reads; the format comes from the bytes.

    ``src`` is a path (``str`` or path-like) or the file's bytes (bytes-like).
    ``max_input`` refuses larger inputs before reading them, ``max_decoded`` caps any
    decompressed or decoded payload (both 512 MiB by default, as the CLI). Raises
    :class:`FormatError` for bytes that are not such a file, ``OSError`` for a path that
    cannot be read.
    """
    # Bytes first: testing for `os.PathLike` (an abstract class) costs more than the
    # rest of the call does on a small file.
    if type(src) is bytes:
        return File(_native.open_bytes(src, max_input, max_decoded))
    if isinstance(src, (str, os.PathLike)):
        return File(_native.open_path(os.fspath(src), max_input, max_decoded))
    if not isinstance(src, bytes):
        src = bytes(src)
    return File(_native.open_bytes(src, max_input, max_decoded))


def import_file(
    path: Union[str, "os.PathLike[str]"],
    to: str,
    *,
    allow_lossy: bool = False,
    max_input: Optional[int] = None,
    max_decoded: Optional[int] = None,
) -> File:
    """A glTF (``.gltf``, ``.glb``) or OBJ file written as ``to``, as ``meshcodec import``
    does: a FileMesh version (``"5.00"``), CSGPHS (``"7"``), union graphics
    (``"csgmdl:5"``), UNIGINE (``"unigine:ms13"``) or STF (``"stf"``).

    Raises :class:`LossyConversion` when the target cannot hold what the scene has,
    unless ``allow_lossy``; the result's :attr:`File.losses` says what went.
    """
    return File(_native.import_file(os.fspath(path), to, allow_lossy, max_input, max_decoded))


def from_arrays(
    positions: Any,
    faces: Any,
    *,
    normals: Any = None,
    uvs: Any = None,
    colors: Any = None,
    to: str = "4.00",
    allow_lossy: bool = False,
) -> File:
    """A new file from arrays: ``positions`` (N, 3), ``faces`` (M, 3) indices into them,
    and where given ``normals`` (N, 3), ``uvs`` (N, 2) and ``colors`` (N, 4, bytes), written
    as ``to`` (any version :func:`import_file` takes; FileMesh 4.00 by default).

    Raises ``ValueError`` for arrays of the wrong shape or an index out of range, and
    :class:`LossyConversion` as :func:`import_file` does.
    """

    def rows(a: Any, dtype: Any, cols: int, what: str) -> Any:
        if a is None:
            return None
        a = np.ascontiguousarray(a, dtype=dtype)
        if a.ndim != 2 or a.shape[1] != cols:
            raise ValueError(f"{what}: an (N, {cols}) array expected, {a.shape} given")
        return a

    return File(
        _native.from_arrays(
            rows(positions, np.float32, 3, "positions"),
            rows(faces, np.uint32, 3, "faces"),
            to,
            rows(normals, np.float32, 3, "normals"),
            rows(uvs, np.float32, 2, "uvs"),
            rows(colors, np.uint8, 4, "colors"),
            allow_lossy,
        )
    )


#: The extensions :func:`register_trimesh` claims: FileMesh and UNIGINE ``.mesh``, CSGPHS
#: and union graphics ``.bin``, STF ``.stf``.
TRIMESH_EXTENSIONS = ("mesh", "bin", "stf")


def register_trimesh(extensions: "tuple[str, ...]" = TRIMESH_EXTENSIONS) -> None:
    """Lets ``trimesh.load("x.mesh")`` read every format meshcodec reads (needs trimesh).

    The format comes from the bytes, whatever the extension. The mesh is level of detail
    0 with its vertices as stored (``process=False``: trimesh merges none), normals, UVs
    and colours where the file has them. Raises ``ImportError`` without trimesh.
    """
    import trimesh  # noqa: PLC0415 - optional: only when asked
    from trimesh.exchange import load as trimesh_load  # noqa: PLC0415

    def load(file_obj: Any, file_type: Optional[str] = None, **kwargs: Any) -> Dict[str, Any]:
        data = file_obj.read() if hasattr(file_obj, "read") else builtins.open(file_obj, "rb").read()
        m = open(data).mesh()
        out: Dict[str, Any] = {"vertices": m.positions, "faces": m.faces, "process": False}
        if m.normals is not None:
            out["vertex_normals"] = m.normals
        if m.colors is not None:
            out["vertex_colors"] = m.colors
        if m.uvs is not None:
            # trimesh's texture visuals need Pillow; without it the UVs stay in metadata.
            if importlib.util.find_spec("PIL") is not None:
                out["visual"] = trimesh.visual.TextureVisuals(uv=m.uvs)
            else:
                out["metadata"] = {"uv": m.uvs}
        return out

    for ext in extensions:
        trimesh_load.mesh_loaders[ext] = load
