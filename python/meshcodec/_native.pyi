"""Type stubs of meshcodec._native, the package's Rust half (python/src/lib.rs):
``File`` and ``open`` are the package's own (``meshcodec.File``, ``meshcodec.open``)."""

import os
import pathlib
from typing import Any, Dict, List, Optional, Union

import numpy as np

from ._mesh import Mesh

__version__: str

class File:
    """A mesh file of any format meshcodec reads, opened with :func:`meshcodec.open`.

    Unmodified, :meth:`to_bytes` and :meth:`save` give back the bytes read, exactly.
    Pickles as its bytes, with its limits, :attr:`losses`, :attr:`name` and
    :attr:`beside`.
    """

    @property
    def format(self) -> str:
        """The format, as the CLI names it: ``filemesh``, ``csgphs``, ``csgmdl``, ``csgk``,
        ``unigine-mesh``, ``unigine-anim`` or ``stf``."""
    @property
    def version(self) -> str:
        """The version, as ``meshcodec info --json`` gives it (``"4.01"``, ``"7"``, ``"ms14"``)."""
    @property
    def losses(self) -> List[str]:
        """What the conversion that made this file lost, a line each as the CLI prints
        them (empty for a file opened, or converted without loss)."""
    @property
    def name(self) -> Optional[str]:
        """The stem of the path the file was opened from (``"head"`` for
        ``"x/head.mesh"``), kept by the files converted or edited from it; ``None`` for
        one opened from bytes or made by :func:`from_arrays` or :func:`import_file`.
        :meth:`export` names the glTF scene, node and mesh (the OBJ object) after it, as
        ``meshcodec export`` names them after its input."""
    @property
    def loss_report(self) -> List[Dict[str, Any]]:
        """:attr:`losses` as dicts: ``kind``, ``level`` (``"lost"`` or ``"re-laid"``),
        ``count`` (or ``None``) and ``text``."""
    def info(self) -> Dict[str, Any]:
        """What ``meshcodec info --json`` prints for this file, as a dict."""
    def to_bytes(self) -> bytes:
        """The file's bytes (the bytes read, when the file is unmodified)."""
    def save(self, path: Union[str, "os.PathLike[str]"]) -> List[pathlib.Path]:
        """Writes the file to ``path`` atomically, as the CLI does: a failure leaves an
        existing file as it was. The files of :attr:`beside` go beside it, as
        ``meshcodec convert`` writes them: ``path`` without its extension, then each
        one's suffix (``y.mesh``: ``y.anim``). Returns their paths (most files have none:
        ``[]``). A ``path`` that would be one of them raises ``ValueError`` before
        anything is written."""
    @property
    def beside(self) -> Dict[str, "File"]:
        """The files to write beside this one, by the suffix that follows its path
        without the extension (``".anim"``, or ``"_Walk.anim"`` for each of several): a
        conversion to UNIGINE ms13 or ms14 keeps animations in ``.anim`` files (an11)
        beside the mesh, as ``meshcodec convert`` and ``meshcodec import`` write them, so
        they are no loss. :meth:`save` writes them; :meth:`to_bytes` is the mesh's bytes
        alone. Empty for other files. Files converted or edited from this one start from
        its bytes, as the CLI reads only its input: they do not carry these."""
    def convert(self, to: str, *, allow_lossy: bool = False) -> "File":
        """The file converted to ``to``, spelled as the CLI's ``--to`` (``"2.00"``,
        ``"filemesh:4.01"``, ``"csgphs:7"``, ``"unigine:ms13"``, ``"stf"``).

        Raises :class:`LossyConversion` (listing the losses) when the target cannot hold
        everything, unless ``allow_lossy``; the result's :attr:`losses` says what went.
        Layouts the target only re-lays need no permission and are listed too. A ``to``
        that names no version raises ``ValueError``."""
    def mesh(self, lod: int = 0) -> Mesh:
        """Level of detail ``lod`` (0: full detail) as a :class:`Mesh` of NumPy arrays.

        Raises ``ValueError`` for a level the file does not have."""
    def facs_positions(self, weights: Dict[str, float]) -> np.ndarray:
        """Every vertex's position, (N, 3) float32, with the FACS controls ``weights``
        (control name to weight, 0 to 1) posed; FileMesh with FACS data only
        (``ValueError`` otherwise, or for a name that is no control)."""
    def with_mesh(self, mesh: Mesh, *, allow_lossy: bool = False) -> "File":
        """This file with ``mesh``'s arrays, edited, in place of its level of detail: what
        the edit did not touch is kept, and the version stays. FileMesh, CSGPHS and union
        graphics; ``ValueError`` for other formats, for attributes the format has no
        place for, and for attributes changed that it does not write (the skeleton, FACS
        data, ``lod_ranges``: only the arrays of :meth:`Mesh.arrays` go back).

        Raises :class:`LossyConversion` when the version cannot hold the edit as given (a
        text version's numbers rounded to its digits, shared vertices laid out per face
        corner, a union's normals quantized …), unless ``allow_lossy``; the result's
        :attr:`losses` says what went."""
    def export(
        self,
        path: Union[str, "os.PathLike[str]"],
        *,
        lod: int = 0,
        all_lods: bool = False,
        name: Optional[str] = None,
    ) -> List[str]:
        """Writes the geometry as glTF 2.0 (``.gltf``, ``.glb``) or OBJ (``.obj``), as
        ``meshcodec export`` does; returns the lines of what the export leaves out.

        ``name`` names the scene, node and mesh (OBJ: the object): by default
        :attr:`name`, as the CLI names them after its input, so a file opened from a path
        exports the CLI's bytes; else the stem of ``path``."""
    def render(
        self, path: Union[str, "os.PathLike[str]", None] = None, *, size: int = 256, lod: int = 0
    ) -> bytes:
        """The PNG thumbnail ``meshcodec render`` draws, ``size`` pixels square; also
        written to ``path`` (atomically) when given."""

def open(
    src: Union[str, "os.PathLike[str]", bytes, bytearray, memoryview],
    *,
    max_input: Optional[int] = None,
    max_decoded: Optional[int] = None,
) -> File:
    """Opens a file of any format meshcodec reads; the format comes from the bytes.

    ``src`` is a path (``str`` or path-like) or the file's bytes (bytes-like).
    ``max_input`` refuses larger inputs before reading them, ``max_decoded`` caps any
    decompressed or decoded payload (both 512 MiB by default, as the CLI). Raises
    :class:`FormatError` for bytes that are not such a file, ``OSError`` for a path that
    cannot be read, ``TypeError`` for a ``src`` that is neither."""

def import_file(
    path: str,
    to: str,
    allow_lossy: bool = False,
    max_input: Optional[int] = None,
    max_decoded: Optional[int] = None,
) -> File: ...
def from_arrays(
    positions: Any,
    faces: Any,
    to: str,
    normals: Any = None,
    uvs: Any = None,
    colors: Any = None,
    allow_lossy: bool = False,
) -> File: ...
