"""What a voxel case's seed holds, and what a watched voxel run's workspace
gets (docs/asset-generation.md, "Voxel cases").

Seeding writes the tool's config at ``.tcab/voxel.json`` (the volume of the
run's variant, the paths of the manifest, ``live`` null) and the library
version beside it; a static model gets its empty action log, an animated
one a ``rig.json`` that declares the case's required animations by name
(the model authors their motion) and no parts. Previews are not seeded: the
volume starts empty and ``render`` draws them. Only a watched run's staged
workspace gets the ``live`` block (:func:`write_voxel_live`), never the
seed, so the seed and its digest are the same watched or not.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tcab.atomic import write_bytes

if TYPE_CHECKING:
    from tcab.seeding.plan import SeedEntry
    from tcab.testtypes import LiveEndpoint
    from tcab.testtypes.asset_voxel import VoxelSection, VoxelVolume

CONFIG_PATH = ".tcab/voxel.json"
VERSION_PATH = ".tcab/version"


def tool_config(section: VoxelSection, volume: VoxelVolume, live: LiveEndpoint | None = None) -> dict[str, Any]:
    """The tool's config (:class:`tcab.voxel.config.VoxelConfig`) for a run of
    ``section`` in ``volume``: the manifest's paths, the tool's defaults for the rest."""
    from tcab.voxel.config import DEFAULTS

    config: dict[str, Any] = {"version": 1, "kind": section.kind, "width": volume.width, "height": volume.height,
                              "depth": volume.depth, "background": volume.background,
                              **DEFAULTS[section.kind], "actions": section.actions, "preview": section.preview}
    if live is not None:
        config["live"] = {"url": live.url, "token": live.token}
    return config


def config_bytes(config: dict[str, Any]) -> bytes:
    return (json.dumps(config, indent=2, sort_keys=True) + "\n").encode()


def seed_rig(section: VoxelSection) -> bytes:
    """``rig.json`` as seeded: no parts, no joints, the required animations
    declared with the tool's default period and no keyframes yet."""
    from tcab.voxel.rig import check_rig, dump_rig

    animations = [{"name": a.name, "loop": a.loop, "auto_play": a.auto_play, "tracks": []}
                  for a in section.animations]
    return dump_rig(check_rig({"version": 1, "parts": [], "joints": [], "animations": animations}))


def voxel_seed_files(section: VoxelSection, volume: VoxelVolume) -> dict[str, bytes]:
    """Workspace-relative path -> bytes of the tool's files."""
    from tcab.voxel.config import DEFAULTS

    files = {CONFIG_PATH: config_bytes(tool_config(section, volume)), VERSION_PATH: (_version() + "\n").encode()}
    if section.animated:
        files[DEFAULTS[section.kind]["rig"]] = seed_rig(section)
    else:
        files[section.actions] = b""
    return files


def voxel_seed_entries(section: VoxelSection, volume: VoxelVolume) -> list[SeedEntry]:
    from tcab.seeding.plan import MODE_FILE, SeedEntry

    return [SeedEntry(rel, data, MODE_FILE, "voxel tool") for rel, data in voxel_seed_files(section, volume).items()]


def write_voxel_live(section: VoxelSection, volume: VoxelVolume, workspace: Path, live: LiveEndpoint) -> None:
    """Rewrite the staged workspace's config with the ``live`` block the tool
    streams each render to (atomically, never through a link)."""
    path = workspace / CONFIG_PATH
    path.parent.mkdir(parents=True, exist_ok=True)
    write_bytes(path, config_bytes(tool_config(section, volume, live)))


def _version() -> str:
    from tcab.voxel import VERSION

    return VERSION
