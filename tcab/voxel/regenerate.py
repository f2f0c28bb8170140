"""The validator's side of ``render``: the exact .glb and preview bytes the tool
writes for a log, so a run's own files can be compared byte for byte.

``mesh_ops(ops, bounds, label, budget)`` is the one replay-and-mesh both the
tool's ``render`` and the scorer run; a rig's parts share one ``RigBudget``
(MAX_RIG_WORK, MAX_SCENE_FACES), so the scorer is bounded as the tool is.

``part_files(log_path, bounds, name, animated, background)`` replays the log
(``tcab.voxel.log.replay``: bounded, no link followed) and returns the
Volume, the .glb bytes and the iso preview's PNG bytes; a VoxelLogError names the
file, op and field. ``name`` is the part's name (``model`` for a static model).
"""

from __future__ import annotations

from dataclasses import dataclass

from tcab.voxel import VERSION


@dataclass(slots=True)
class RigBudget:
    """What the parts of one rig may still spend together: replay work and
    mesh faces (each part spends its share; a refused part what it used)."""

    work: int
    faces: int

    @classmethod
    def full(cls) -> RigBudget:
        from tcab.voxel.limits import MAX_RIG_WORK, MAX_SCENE_FACES
        return cls(MAX_RIG_WORK, MAX_SCENE_FACES)


def mesh_ops(ops, bounds: tuple[int, int, int], label: str, budget: RigBudget | None = None):
    """(volume, mesh) of parsed ``ops`` replayed in ``bounds``; a part of a rig
    spends ``budget``. VoxelError naming ``label`` when a bound is passed."""
    from tcab.voxel.errors import VoxelError, VoxelLogError
    from tcab.voxel.limits import MAX_FACES, MAX_WORK
    from tcab.voxel.log import replay_ops
    from tcab.voxel.mesh import mesh_volume
    from tcab.voxel.volume import Volume
    if budget is None:
        volume = replay_ops(ops, bounds, label)
        return volume, mesh_volume(volume)
    if budget.work < 0:  # an earlier part passed it (the tool stops there; a scorer goes on)
        raise VoxelLogError(f"{label}: not replayed: the rig's earlier parts used up MAX_RIG_WORK")
    volume = Volume(*bounds)
    try:
        replay_ops(ops, bounds, label, volume, max_work=min(MAX_WORK, budget.work))
    finally:
        budget.work -= volume.work  # spent even when refused, so refused parts cannot each spend it again
    try:
        mesh = mesh_volume(volume, max_faces=min(MAX_FACES, budget.faces))
    except VoxelError as exc:
        raise VoxelError(f"{label}: {exc}" + ("" if budget.faces >= MAX_FACES else
                                              " (what MAX_SCENE_FACES left for this part)")) from None
    budget.faces -= mesh.faces
    return volume, mesh


def glb_for(mesh, name: str | None, animated: bool) -> bytes:
    """The .glb the tool writes for a part's (or the model's) mesh."""
    from tcab.gltf.writer import mesh_glb
    tool = "voxel-anim" if animated else "voxel"
    return mesh_glb(mesh, name or "model", generator=f"tcab {tool} {VERSION}")


def part_files(log_path: str, bounds: tuple[int, int, int], name: str | None = None, animated: bool = False,
               background: str = "transparent", view: str = "iso"):
    """(volume, glb bytes, png bytes) regenerated from the log at ``log_path``."""
    from tcab.voxel.log import replay
    from tcab.voxel.mesh import mesh_volume
    from tcab.voxel.render import render_png
    volume = replay(log_path, bounds)
    mesh = mesh_volume(volume)
    return volume, glb_for(mesh, name, animated), render_png(mesh, view, bounds, background)
