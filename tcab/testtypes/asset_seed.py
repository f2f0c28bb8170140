"""What an asset case's seed holds beyond the common steps, and what a
watched run's workspace gets (docs/asset-generation.md, "Seeding").

Seeding writes the drawing tool's config at ``.tcab/draw.json`` (the shape
:class:`tcab.draw.config.ToolConfig` reads, ``live`` null), the library
version beside it, an empty layers log, an empty action log and a blank
preview (rendered by :func:`tcab.draw.blank_png`) per frame: the same files
``draw init`` leaves. Only a watched run's staged workspace gets the ``live``
block (:func:`write_live`), never the seed, so the seed and its digest are
the same watched or not.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from tcab.atomic import write_bytes
from tcab.testtypes import LiveEndpoint

#: Where seeding puts the config, the layers log and the library version (workspace-relative).
CONFIG_PATH = ".tcab/draw.json"
LAYERS_LOG = ".tcab/layers.jsonl"
VERSION_PATH = ".tcab/version"

if TYPE_CHECKING:
    from tcab.seeding.plan import SeedEntry
    from tcab.testtypes.asset_generation import AssetSection


def seed_files(section: AssetSection, live: LiveEndpoint | None = None) -> dict[str, bytes]:
    """Workspace-relative path -> bytes of the tool's files for ``section``."""
    from tcab.draw import VERSION, blank_png
    config = section.tool_config(live)
    blank = blank_png(config.width, config.height, config.background)
    files = {CONFIG_PATH: config.to_json(), VERSION_PATH: (VERSION + "\n").encode(), LAYERS_LOG: b""}
    for frame in config.frame_keys():
        files[config.actions_path(frame)] = b""
        files[config.preview_path(frame)] = blank
    return files


def seed_entries(section: AssetSection) -> list[SeedEntry]:
    from tcab.seeding.plan import MODE_FILE, SeedEntry

    return [SeedEntry(rel, data, MODE_FILE, "drawing tool") for rel, data in seed_files(section).items()]


def write_live(section: AssetSection, workspace: Path, live: LiveEndpoint) -> None:
    """Rewrite the staged workspace's ``.tcab/draw.json`` with the ``live``
    block the draw tool streams its previews to (atomically, never through a link)."""
    path = workspace / CONFIG_PATH
    path.parent.mkdir(parents=True, exist_ok=True)
    write_bytes(path, section.tool_config(live).to_json())
