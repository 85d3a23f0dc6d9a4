"""meshcodec: read and write game mesh files exactly.

Roblox FileMesh 1.00-7.00, CSGPHS collision data, CSGMDL/CSGK union graphics, UNIGINE
``.mesh``/``.anim`` and STF, from Python: a file opened and written back unmodified is
byte-for-byte the file read, conversions say what they lose, and meshes come out as
NumPy arrays.

>>> import meshcodec
>>> f = meshcodec.open("roundtrip-fixtures/filemesh/v4.01-bones.mesh")  # doctest: +SKIP
>>> f.format, f.version                                                 # doctest: +SKIP
('filemesh', '4.01')

The work is done by the Rust library with the interpreter released (for inputs from
4 KiB: smaller ones take less time than releasing it costs), so threads over many files
use every core; a :class:`File` pickles as its bytes (with its limits and
loss report).
"""

from __future__ import annotations

import builtins
import importlib.util
import os
from typing import Any, Dict, Optional, Union

import numpy as np

from . import _native
from ._errors import FormatError, LossyConversion
from ._mesh import VERTEX_RECORD, Mesh
from ._native import File, open

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

def _from_bytes(data: bytes) -> File:
    # What pickles made before File was a native class call to load (File.__reduce__
    # later named _native.open, and now _native._unpickle, which also restores the
    # limits and the loss report).
    return open(data)


#: What :func:`open` takes.
Source = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview]


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
    return _native.import_file(os.fspath(path), to, allow_lossy, max_input, max_decoded)


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

    return _native.from_arrays(
        rows(positions, np.float32, 3, "positions"),
        rows(faces, np.uint32, 3, "faces"),
        to,
        rows(normals, np.float32, 3, "normals"),
        rows(uvs, np.float32, 2, "uvs"),
        rows(colors, np.uint8, 4, "colors"),
        allow_lossy,
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
