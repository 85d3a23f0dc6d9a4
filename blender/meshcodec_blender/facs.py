"""FACS controls as shape keys: made at import (one key per control, its pose as the
package evaluates it), and checked at export, where a FileMesh's FACS data can only be
written back as stored. A key edited, added, removed or renamed in Blender is not in the
file's FACS (its controls pose face bones, not vertices), so an export that finds one
names it instead of writing the stored FACS as if nothing had changed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterator, List, Optional, Sequence, Tuple

from .axes import to_blender
from .geometry import blender_positions, vertex_map
from .tags import PROP_FACS

if TYPE_CHECKING:
    import bpy


def control_moves(f: Any) -> Iterator[Tuple[str, Any]]:
    """(control name, how it moves every file vertex at full weight, (N, 3) in
    Blender's axes) for each FACS control of FileMesh ``f``, in the file's order."""
    m = f.mesh()
    rest = to_blender(m.positions, "filemesh")
    for name in m.facs_controls or []:
        yield name, to_blender(f.facs_positions({name: 1.0}), "filemesh") - rest


def add_facs_shape_keys(objects: Sequence["bpy.types.Object"], f: Any, lods: Sequence[int]) -> int:
    """One shape key per FACS control of FileMesh ``f`` on each object (``objects[i]``
    holding level of detail ``lods[i]``): the control's pose at full weight as the
    package evaluates it (``File.facs_positions``), moved as the import moved the file's
    vertices. Returns the number of controls (0 without FACS data)."""
    m = f.mesh()
    if not m.facs_controls:
        return 0
    rest = to_blender(m.positions, "filemesh")
    maps = []
    for o, lod in zip(objects, lods):
        faces = m.faces if lod == 0 else f.mesh(lod).faces
        maps.append((o, vertex_map(o, rest, faces), blender_positions(o)))
        if o.data.shape_keys is None:
            o.shape_key_add(name="Basis", from_mix=False)
    for name, moved in control_moves(f):
        for o, idx, base in maps:
            key = o.shape_key_add(name=name, from_mix=False)
            key.data.foreach_set("co", (base + moved[idx]).astype("float32").ravel())
    for o, _, _ in maps:
        o[PROP_FACS] = len(m.facs_controls)
    return len(m.facs_controls)


def key_moves(o: "bpy.types.Object") -> List[Tuple[str, Any]]:
    """(name, key minus the key it is relative to, (V, 3)) for each shape key of mesh
    object ``o`` but its reference (basis) key; empty without shape keys. Moving the
    basis in Edit Mode moves the keys relative to it with it, so these stay put."""
    import numpy as np

    keys = o.data.shape_keys
    if keys is None:
        return []
    n = len(o.data.vertices)

    def co(block: Any) -> Any:
        out = np.empty(n * 3, dtype=np.float32)
        block.data.foreach_get("co", out)
        return out.reshape(-1, 3).astype(np.float64)

    reference = keys.reference_key
    return [(b.name, co(b) - co(b.relative_key)) for b in keys.key_blocks if b != reference]


def _names(items: Sequence[str]) -> str:
    """Up to three names, then "..."."""
    return ", ".join(items[:3]) + (", ..." if len(items) > 3 else "")


def facs_keys_changed(o: "bpy.types.Object", f: Any, idx: Any) -> Optional[str]:
    """What changed of the shape keys the import made of FileMesh ``f``'s FACS on mesh
    object ``o`` (whose vertex k is file vertex ``idx[k]``), as a report line of what an
    export that writes the file's FACS as stored does not write; None when each key
    still moves each vertex as its control does (within float noise) and no key was
    added, removed or renamed. An object of a file without FACS may have no shape key
    but its basis."""
    import numpy as np

    have = key_moves(o)
    controls = list(f.mesh().facs_controls or [])
    names = [name for name, _ in have]
    if names != controls:
        added = [x for x in names if x not in controls]
        gone = [x for x in controls if x not in names]
        parts = []
        if added:
            parts.append(f"{len(added)} made or renamed in Blender ({_names(added)}) not written: "
                         "FileMesh holds no shape keys but its FACS controls")
        if gone:
            parts.append(f"{len(gone)} of the file's FACS controls removed or renamed in Blender "
                         f"({_names(gone)}) written as the file stores them")
        return "shape keys: " + "; ".join(parts or ["reordered in Blender, written in the file's order"])
    if not controls:
        return None
    size = max(1.0, float(np.abs(blender_positions(o)).max(initial=0.0)))
    edited = []
    for (name, moves), (_, want) in zip(have, control_moves(f)):
        off = int((np.abs(moves - want[idx]).max(axis=1) > 1e-5 * size).sum())
        if off:
            edited.append(f"{name} ({off} {'vertex' if off == 1 else 'vertices'})")
    if not edited:
        return None
    return (f"FACS: the edit of {len(edited)} shape {'key' if len(edited) == 1 else 'keys'} in Blender "
            f"({_names(edited)}) not written: a FACS control poses face bones, not vertices; "
            "each control is written as the file stores it")
