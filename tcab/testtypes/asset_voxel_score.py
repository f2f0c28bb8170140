"""Scoring a voxel run: the model regenerated from its recorded logs alone,
compared with the meshes the run's own ``render`` wrote, and the rig's
required animations checked (docs/asset-generation.md, "Scoring a voxel run").

The tool's config is the case's for the run's variant (never the collected
``.tcab/voxel.json``). Every file is read from the collected tree without
following a link and bounded (a log by ``MAX_LOG_BYTES``, ``rig.json`` by
``MAX_RIG_BYTES``, a mesh by :data:`MAX_MESH_BYTES`); the library's replay
bounds the work, a rig's parts together as the tool's ``render`` does
(``MAX_RIG_WORK``, ``MAX_SCENE_FACES``: a part past them scores empty).
Per part (a static model has one, ``model``):

- ``regenerated``: its log replays; the volume is meshed and written as
  ``regenerated/<part>.glb`` (and an iso ``.png``) in the run's folder, and
  ``mesh_match`` says whether the run's own mesh has the same bytes (an
  honest log rendered after its last op always does);
- ``empty``: its log or its mesh is missing (an unrendered part scores
  empty), unreadable, refused by the library, or places no voxel; nothing
  is written for it.

A score first removes ``regenerated/`` and ``exports/turntable.png``: a
re-score never shows an earlier one's files.

A rig that is missing or refused leaves no part to score. No part
regenerated is ``no_asset`` (the run becomes ``catastrophic``). A required
animation that is missing, has no keyframes or never changes a value is a
gap: a note recorded with the run, not a failure.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tcab.atomic import write_bytes
from tcab.testtypes.asset_score import REGENERATED_DIR, _file, _Unreadable, _version

if TYPE_CHECKING:
    from tcab.testtypes.asset_voxel import VoxelSection, VoxelVolume

#: The largest mesh of a run read for the comparison (a face is ~136 bytes).
MAX_MESH_BYTES = 160 << 20
MODEL = "model"  # the one part of a static model


@dataclass(frozen=True, slots=True)
class VoxelPartScore:
    part: str
    status: str              # regenerated | empty
    ops: int = 0
    voxels: int = 0
    faces: int = 0
    mesh_match: bool | None = None  # None: no mesh to compare
    mesh: str = ""           # the regenerated .glb, run-folder relative
    image: str = ""          # its iso render
    detail: str = ""

    def row(self) -> dict[str, Any]:
        return {"part": self.part, "status": self.status, "ops": self.ops, "voxels": self.voxels,
                "faces": self.faces, "mesh_match": None if self.mesh_match is None else int(self.mesh_match),
                "mesh": self.mesh, "image": self.image, "detail": self.detail}


@dataclass(frozen=True, slots=True)
class AnimationScore:
    name: str
    present: bool
    keyframes: int
    gap: str = ""            # why the required animation falls short, "" when it does not

    def row(self) -> dict[str, Any]:
        return {"name": self.name, "present": int(self.present), "keyframes": self.keyframes, "gap": self.gap}


@dataclass(frozen=True, slots=True)
class VoxelScore:
    status: str                           # regenerated | no_asset
    parts: tuple[VoxelPartScore, ...]
    animations: tuple[AnimationScore, ...]
    tool_version: str | None
    detail: str = ""

    @property
    def version_mismatch(self) -> bool:
        from tcab.voxel import VERSION

        return self.tool_version != VERSION

    @property
    def flagged(self) -> bool:
        """A part whose mesh differs from the regeneration, or an animation gap."""
        return any(p.mesh_match is False for p in self.parts) or any(a.gap for a in self.animations)

    @property
    def notes(self) -> list[str]:
        return [a.gap for a in self.animations if a.gap]


def _config(section: VoxelSection, volume: VoxelVolume):
    from tcab.testtypes.asset_voxel_seed import tool_config
    from tcab.voxel.config import VoxelConfig

    return VoxelConfig.from_dict(tool_config(section, volume))


def _rig(tree: Path, rel: str) -> dict:
    from tcab.voxel.errors import VoxelError
    from tcab.voxel.limits import MAX_RIG_BYTES
    from tcab.voxel.rig import load_rig

    data = _file(tree, rel, MAX_RIG_BYTES, "rig")
    try:
        return load_rig(data, rel)
    except VoxelError as exc:
        raise _Unreadable(str(exc)) from None


def _part(config, tree: Path, run_dir: Path, part: str | None, tool: str, meshes: dict,
          budget) -> VoxelPartScore:
    from tcab.voxel.errors import VoxelError
    from tcab.voxel.limits import MAX_LOG_BYTES
    from tcab.voxel.log import parse_log
    from tcab.voxel.regenerate import glb_for, mesh_ops
    from tcab.voxel.render import render_png

    name = part or MODEL
    log_rel = config.path("actions", part=part)
    try:
        data = _file(tree, log_rel, MAX_LOG_BYTES, "action log")
        ops = parse_log(data, log_rel)
        volume, mesh = mesh_ops(ops, config.bounds, log_rel, budget)
    except _Unreadable as exc:
        return VoxelPartScore(name, "empty", detail=f"log {exc}")
    except VoxelError as exc:  # a refused log, too much work, too many faces (the part's or the rig's)
        return VoxelPartScore(name, "empty", detail=str(exc))
    if volume.count() == 0:
        return VoxelPartScore(name, "empty", len(ops), detail=f"{log_rel}: places no voxel")
    glb = glb_for(mesh, name, tool == "voxel-anim")  # the tool's own bytes for this mesh
    mesh_rel = config.path("mesh", part=part)
    try:
        own = _file(tree, mesh_rel, MAX_MESH_BYTES, "mesh")
    except _Unreadable as exc:  # the prompt's contract: an unrendered part scores empty (and shows nothing)
        return VoxelPartScore(name, "empty", len(ops), volume.count(), mesh.faces, None, detail=f"unrendered: mesh {exc}")
    meshes[name] = mesh
    out = run_dir / REGENERATED_DIR
    out.mkdir(parents=True, exist_ok=True)
    write_bytes(out / f"{name}.glb", glb)
    write_bytes(out / f"{name}.png", render_png(mesh, "iso", config.bounds, config.background))
    detail = "" if own == glb else f"{mesh_rel} differs from the mesh its log regenerates (rendered before the last ops?)"
    return VoxelPartScore(name, "regenerated", len(ops), volume.count(), mesh.faces, own == glb,
                          f"{REGENERATED_DIR}/{name}.glb", f"{REGENERATED_DIR}/{name}.png", detail)


def _clear(run_dir: Path) -> None:
    """Remove what an earlier score wrote, so a re-score never shows it as its own
    (run_dir is tcab's; still, a link found there is removed, never followed)."""
    import shutil

    from tcab.testtypes.asset_voxel_export import EXPORTS_DIR, TURNTABLE

    for path in (run_dir / REGENERATED_DIR, run_dir / EXPORTS_DIR / TURNTABLE):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif path.is_symlink() or path.exists():
            path.unlink()


def check_animations(section: VoxelSection, rig: dict | None) -> tuple[AnimationScore, ...]:
    """Each required animation: present, its keyframe count, and its gap."""
    out = []
    produced = {a["name"]: a for a in (rig or {}).get("animations", [])}
    for required in section.animations:
        found = produced.get(required.name)
        if found is None:
            out.append(AnimationScore(required.name, False, 0, f"the required animation {required.name!r} is missing"))
            continue
        keys = [k for t in found["tracks"] for k in t["keys"]]
        moving = any(len({k["value"] for k in t["keys"]}) > 1 for t in found["tracks"])
        gap = ""
        if not keys:
            gap = f"the required animation {required.name!r} has no keyframes"
        elif not moving:
            gap = f"the required animation {required.name!r} never changes a joint's value"
        elif (found["loop"], found["auto_play"]) != (required.loop, required.auto_play):
            gap = (f"the required animation {required.name!r} has loop={found['loop']}, "
                   f"auto_play={found['auto_play']}; the case asks loop={required.loop}, "
                   f"auto_play={required.auto_play}")
        out.append(AnimationScore(required.name, True, len(keys), gap))
    return tuple(out)


def score_voxel_tree(section: VoxelSection, volume: VoxelVolume, tree: Path, run_dir: Path) -> VoxelScore:
    """Regenerate the model of the run whose collected tree is ``tree`` (in
    ``volume``, its variant's) into ``run_dir/regenerated/`` and score it."""
    config = _config(section, volume)
    _clear(run_dir)
    version = _version(tree)
    rig = None
    if section.animated:
        try:
            rig = _rig(tree, config.path("rig"))
        except _Unreadable as exc:
            animations = check_animations(section, None)
            return VoxelScore("no_asset", (), animations, version, f"no asset: rig {exc}")
        names: list[str | None] = [p["name"] for p in rig["parts"]]
    else:
        names = [None]
    from tcab.voxel.regenerate import RigBudget

    meshes: dict = {}
    budget = RigBudget.full() if section.animated else None  # the tool's render: one budget over the parts
    parts = tuple(_part(config, tree, run_dir, name, section.binary, meshes, budget) for name in names)
    animations = check_animations(section, rig)
    if not any(p.status == "regenerated" for p in parts):
        why = "; ".join(f"{p.part}: {p.detail}" for p in parts[:5]) or "the rig defines no part"
        return VoxelScore("no_asset", parts, animations, version, f"no asset: {why}")
    from tcab.testtypes.asset_voxel_export import EXPORTS_DIR, TURNTABLE, turntable_apng
    from tcab.voxel.scene import combine

    write_bytes(run_dir / EXPORTS_DIR / TURNTABLE,
                turntable_apng(combine([meshes[p.part] for p in parts if p.status == "regenerated"]),
                               config.bounds, config.background))
    return VoxelScore("regenerated", parts, animations, version, "; ".join(a.gap for a in animations if a.gap))


def regeneration_row(score: VoxelScore) -> dict[str, Any]:
    """What results.db records of ``score`` beside the run's identity."""
    return {"status": score.status, "draw_version": score.tool_version,
            "version_mismatch": int(score.version_mismatch), "flagged": int(score.flagged),
            "detail": score.detail, "parts": [p.row() for p in score.parts],
            "animations": [a.row() for a in score.animations]}
