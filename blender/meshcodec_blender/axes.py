"""Where positions go between a file and Blender: +Y-up formats turned to Blender's +Z
up and back (UNIGINE, +Z up, as stored), and the NumPy shim Debian's Blender 3.4 glTF
add-on needs."""

from __future__ import annotations

from typing import Any

#: Formats whose numbers are +Y up (glTF's convention, turned to Blender's +Z up by its
#: glTF importer); UNIGINE is +Z up and reaches Blender as stored.
Y_UP_FORMATS = ("filemesh", "csgphs", "csgmdl", "stf")


def numpy_bool() -> None:
    """Puts ``numpy.bool`` back (as ``bool``) where NumPy no longer has it."""
    # Debian's Blender 3.4 glTF add-on still uses numpy.bool, gone from NumPy 1.24 on.
    import numpy

    if not hasattr(numpy, "bool"):
        numpy.bool = bool  # type: ignore[attr-defined]


def from_blender(positions: Any) -> Any:
    """Blender positions, (N, 3), back to a +Y-up file's axes: (x, y, z) -> (x, z, -y)."""
    import numpy as np

    p = np.asarray(positions, dtype=np.float64)
    return np.stack([p[:, 0], p[:, 2], -p[:, 1]], axis=1)


def to_blender(positions: Any, fmt: str) -> Any:
    """Positions as a file stores them, (N, 3), where Blender's glTF import puts them:
    +Y-up formats turned to Blender's +Z up, (x, y, z) -> (x, -z, y); UNIGINE, already +Z
    up, as stored. Units are not changed (a stud is 1, as the glTF export writes it)."""
    import numpy as np

    p = np.asarray(positions, dtype=np.float64)
    if fmt not in Y_UP_FORMATS:
        return p.copy()
    return np.stack([p[:, 0], -p[:, 2], p[:, 1]], axis=1)
