"""What an export checks: bone influences the glTF exporter would drop and FACS shape
keys it cannot carry (each refused unless lossy), and the written file read back with the triangles and bones exported."""

from __future__ import annotations

from typing import Any, Iterable, Sequence, Tuple

from .geometry import deforming_armature

#: Blender's glTF exporter writes the 4 heaviest bone influences of a vertex.
MAX_INFLUENCES = 4


class ReadBackError(RuntimeError):
    """The file written does not read back as what was exported."""


class SkinInfluences(ValueError):
    """Vertices with more bone influences than an export keeps (refused unless lossy)."""


class FacsNotCarried(ValueError):
    """FACS shape keys an export cannot write back as FACS (refused unless lossy)."""


def excess_influences(objects: Iterable[Any]) -> Tuple[int, int]:
    """(vertices with more than 4 bone influences, most influences of a vertex) over
    the skinned mesh objects: the glTF exporter keeps each vertex's 4 heaviest."""
    count = most = 0
    for o in objects:
        arm = deforming_armature(o) if o.type == "MESH" else None
        if arm is None:
            continue
        bones = {b.name for b in arm.data.bones}
        is_bone = [g.name in bones for g in o.vertex_groups]
        for v in o.data.vertices:
            n = sum(1 for g in v.groups if g.weight > 0 and g.group < len(is_bone) and is_bone[g.group])
            if n > MAX_INFLUENCES:
                count += 1
                most = max(most, n)
    return count, most


def expected_counts(objects: Sequence[Any]) -> Tuple[int, int]:
    """(triangles, bones) that an export of ``objects`` hands to the glTF exporter."""
    triangles = 0
    armatures = set()
    for o in objects:
        if o.type != "MESH":
            continue
        o.data.calc_loop_triangles()
        triangles += len(o.data.loop_triangles)
        arm = deforming_armature(o)
        if arm is not None:
            armatures.add(arm)
    return triangles, sum(len(a.data.bones) for a in armatures)


def file_triangles(f: Any) -> int:
    """A written file's triangles: every level of a FileMesh, every hull of CSGPHS, the
    mesh of the others."""
    m = f.mesh()
    if f.format == "filemesh":
        return sum(int(b) - int(a) for a, b in m.lod_ranges)
    return len(m.faces)


def read_back(path: str, triangles: int, bones: int, losses: Sequence[str]) -> None:
    """Opens the written file with meshcodec and checks it holds ``triangles``
    triangles and ``bones`` bones (none when the conversion reported dropping them).
    Raises ReadBackError otherwise."""
    import meshcodec

    g = meshcodec.open(path)
    got = file_triangles(g)
    if got != triangles:
        raise ReadBackError(f"{path}: read back {got} triangles, {triangles} exported")
    got_bones = len(g.mesh().bones)
    dropped = any("bone" in line or "skin" in line or "joint" in line for line in losses)
    if got_bones != bones and not (got_bones == 0 and dropped):
        raise ReadBackError(f"{path}: read back {got_bones} bones, {bones} exported")
