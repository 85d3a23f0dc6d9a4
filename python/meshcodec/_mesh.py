"""``meshcodec.Mesh``: one level of detail of a file as NumPy arrays, made by
:meth:`meshcodec.File.mesh` (in Rust: the arrays it sends are the instance's attributes)
and given back to :meth:`meshcodec.File.with_mesh`."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

import numpy as np
from numpy.lib.stride_tricks import as_strided

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
    to :meth:`File.with_mesh`, which writes the arrays of :meth:`arrays`; the skeleton,
    FACS data and ``lod_ranges`` are for reading there (changed, it raises ``ValueError``
    rather than drop the change).
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


#: The attributes :meth:`File.with_mesh` does not write (it writes the arrays of
#: :meth:`Mesh.arrays`; ``lod`` picks the level), by their names in the instance.
_NOT_WRITTEN = (
    "bone_names",
    "bone_parents",
    "bone_positions",
    "bone_rotations",
    "_bones",
    "lod_ranges",
    "facs_controls",
    "facs_face_bones",
    "facs_two_pose",
    "facs_three_pose",
    "facs_poses",
)


def _same(a: Any, b: Any) -> bool:
    # Bit for bit for arrays (NaN equal to itself), in the file's dtype; by value else.
    if a is None or b is None:
        return a is b
    if isinstance(b, np.ndarray):
        try:
            a = np.asarray(a, dtype=b.dtype)
        except (TypeError, ValueError):
            return False
        return a.shape == b.shape and a.tobytes() == b.tobytes()
    if isinstance(b, (list, tuple)):
        return isinstance(a, (list, tuple)) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(b, dict):
        return isinstance(a, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in b)
    if isinstance(b, float) and isinstance(a, float):
        return a == b or (a != a and b != b)
    return bool(a == b)


def _not_written(mesh: Mesh, file: Any) -> List[str]:
    """The attributes of ``mesh`` that :meth:`File.with_mesh` would not write and that
    differ from ``file``'s (the same level read again): only those the instance holds
    (read or set), since one never touched is the file's by construction."""
    own = mesh.__dict__
    touched = [k for k in _NOT_WRITTEN if k in own and (k != "_bones" or own[k] is not None)]
    if not touched:
        return []
    fresh = file.mesh(mesh.lod)
    changed = []
    for k in touched:
        name = k.lstrip("_")
        if not _same(own[k], getattr(fresh, name)):
            changed.append(name)
    return changed


def _table(arrays: Dict[str, Any]) -> Any:
    # A FileMesh's 40-byte vertex records as (N, 10) float32, a view made (once) of
    # `_records`, the first positions array: it owns every record and starts at the first
    # (the native side sends no second array, as most scripts read positions only).
    # Other formats: None.
    table = arrays.get("_table")
    if table is None:
        records = arrays.get("_records")
        if records is None:
            return None
        table = arrays["_table"] = as_strided(records, (len(records), 10), (40, 4))
    return table


def _column(first: int, last: int) -> Any:
    # A FileMesh: columns of its records, views with a 40-byte stride, no copy (the fields
    # of VERTEX_RECORD; slicing is cheaper than its dtype view). Other formats send the
    # arrays they have.
    def make(arrays: Dict[str, Any]) -> Any:
        table = _table(arrays)
        return None if table is None else table[:, first:last]

    return make


def _colors(arrays: Dict[str, Any]) -> Any:
    # The last 4 bytes of each 40-byte record; a version without colours has none.
    if not arrays.get("_has_colors"):
        return None
    table = _table(arrays)
    return None if table is None else table.view(np.uint8)[:, 36:40]


def _skeleton(key: str) -> Any:
    # A FileMesh without bones: the skeleton's arrays, empty (shared; nothing to write in).
    def make(arrays: Dict[str, Any]) -> Any:
        return _NO_SKELETON[key] if "_records" in arrays else None

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
