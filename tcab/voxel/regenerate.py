"""The validator's side of ``render``: the exact .glb and preview bytes the tool
writes for a log, so a run's own files can be compared byte for byte.

``part_files(log_path, bounds, name, animated, background)`` replays the log
(``tcab.voxel.log.replay``: bounded, no link followed) and returns the
Volume, the .glb bytes and the iso preview's PNG bytes; a VoxelLogError names the
file, op and field. ``name`` is the part's name (``model`` for a static model).
"""

from __future__ import annotations

from tcab.voxel import VERSION


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
