"""Scoring an asset run: the asset regenerated from its recorded logs alone,
and how far the model's own preview is from it (docs/asset-generation.md,
"Scoring").

The tool's config is the case's (:meth:`AssetSection.tool_config`), never
the collected ``.tcab/draw.json`` the model could have edited. Every file is
read from the run's collected tree through :func:`tcab.reading.read_bytes`:
no link is followed (neither the file nor a folder on its way), only a
regular file is read, and each is bounded (a log by ``MAX_LOG_BYTES``, a
preview by ``MAX_PNG_BYTES`` and the canvas's pixels). A frame's log that is
missing, unreadable or refused by the library (:class:`LogError`: a NaN, a
string where an integer goes, too much work) is no asset: status
``no_asset`` and the reason, never a traceback. Otherwise each frame is
written to ``regenerated/<frame>.png`` (``sprite.png`` for a sprite) in the
run's folder, with its op count and its divergence: the mean absolute RGB
difference between the model's preview and the regenerated image, over
255 (0 when identical; ``1 - divergence`` is their similarity), flagged
above :data:`MAX_DIVERGENCE`. A preview that is missing or not a PNG of the
canvas's size is flagged with no divergence.
"""

from __future__ import annotations

import operator
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tcab.atomic import write_bytes
from tcab.draw import VERSION, png
from tcab.draw.errors import DrawError
from tcab.draw.limits import MAX_LOG_BYTES, MAX_PNG_BYTES
from tcab.draw.logs import parse_log
from tcab.draw.regenerate import regenerate
from tcab.reading import read_bytes
from tcab.testtypes.asset_seed import LAYERS_LOG, VERSION_PATH

if TYPE_CHECKING:
    from tcab.testtypes.asset_generation import AssetSection

#: A frame whose preview is further than this from its regeneration is flagged.
MAX_DIVERGENCE = 0.05
#: The folder, inside a run folder, of the regenerated frames.
REGENERATED_DIR = "regenerated"
STATUSES = ("regenerated", "no_asset")
MAX_VERSION_BYTES = 64


@dataclass(frozen=True, slots=True)
class FrameScore:
    frame: int | None
    ops: int
    divergence: float | None  # None: no preview to compare
    flagged: bool
    image: str                # the regenerated PNG, run-folder relative
    detail: str = ""

    @property
    def name(self) -> str:
        return "sprite" if self.frame is None else str(self.frame)

    def row(self) -> dict[str, Any]:
        return {"frame": self.name, "ops": self.ops, "divergence": self.divergence, "flagged": int(self.flagged),
                "image": self.image, "detail": self.detail}


@dataclass(frozen=True, slots=True)
class AssetScore:
    status: str                     # regenerated | no_asset
    frames: tuple[FrameScore, ...]
    draw_version: str | None        # what the run's tool wrote to .tcab/version
    detail: str = ""

    @property
    def version_mismatch(self) -> bool:
        return self.draw_version != VERSION

    @property
    def flagged(self) -> bool:
        return any(f.flagged for f in self.frames)


class _Unreadable(Exception):
    """A file of the run's tree that cannot be read: its path and why."""


def _file(tree: Path, rel: str, max_bytes: int, what: str, *, missing_ok: bool = False) -> bytes | None:
    """The bytes of ``tree/rel``, no link followed on the way (every folder is
    lstat'ed); None when absent and ``missing_ok``; _Unreadable otherwise."""
    here = tree
    for part in rel.split("/")[:-1]:
        here = here / part
        try:
            mode = os.lstat(here).st_mode
        except FileNotFoundError:
            if missing_ok:
                return None
            raise _Unreadable(f"{rel}: missing (no {part}/ folder)") from None
        if not stat.S_ISDIR(mode):
            raise _Unreadable(f"{rel}: {part} is not a folder (a link is never followed)")
    try:
        return read_bytes(tree / rel, max_bytes, follow=False, what=what)
    except FileNotFoundError:
        if missing_ok:
            return None
        raise _Unreadable(f"{rel}: missing") from None
    except OSError as exc:
        raise _Unreadable(f"{rel}: {exc.strerror or exc}") from None


def divergence(preview: bytes, regenerated: bytes) -> float:
    """Mean |ΔRGB| / 255 of two RGBA buffers of the same size (alpha ignored)."""
    if len(preview) != len(regenerated) or not preview:
        raise ValueError("the two images differ in size")
    total = 0
    for channel in range(3):
        a, b = preview[channel::4], regenerated[channel::4]
        if a != b:
            total += sum(map(abs, map(operator.sub, a, b)))
    return total / (255 * 3 * (len(preview) // 4))


def _version(tree: Path) -> str | None:
    try:
        data = _file(tree, VERSION_PATH, MAX_VERSION_BYTES, "library version", missing_ok=True)
    except _Unreadable:
        return None
    if data is None:
        return None
    text = data.decode("utf-8", "replace").strip()
    return text if text.isprintable() else None


def _compare(section: AssetSection, tree: Path, rel: str, image: bytes) -> tuple[float | None, str]:
    try:
        data = _file(tree, rel, MAX_PNG_BYTES, "preview")
        pixels = section.width * section.height
        width, height, rgba = png.decode(data, pixels)
    except _Unreadable as exc:
        return None, f"preview {exc}"
    except DrawError as exc:
        return None, f"preview {rel}: {exc}"
    if (width, height) != (section.width, section.height):
        return None, f"preview {rel}: {width}x{height}, not the canvas's {section.width}x{section.height}"
    return divergence(bytes(rgba), png.decode(image, width * height)[2]), ""


def score_tree(section: AssetSection, tree: Path, run_dir: Path) -> AssetScore:
    """Regenerate the asset of the run whose collected tree is ``tree`` into
    ``run_dir/regenerated/``, and compare each frame with its preview."""
    config = section.tool_config()
    version = _version(tree)
    logs: dict[int | None, bytes] = {}
    try:
        layers = _file(tree, LAYERS_LOG, MAX_LOG_BYTES, "layers log", missing_ok=True)
        for frame in config.frame_keys():
            logs[frame] = _file(tree, config.actions_path(frame), MAX_LOG_BYTES, "action log")
        images = regenerate(config, lambda frame: logs[frame], layers)
        counts = {frame: len(parse_log(data, config.actions_path(frame), layered=False))
                  for frame, data in logs.items()}
    except _Unreadable as exc:
        return AssetScore("no_asset", (), version, f"no asset: {exc}")
    except DrawError as exc:  # LogError, PngError: the library refuses the log
        return AssetScore("no_asset", (), version, f"no asset: {exc}")
    out_dir = run_dir / REGENERATED_DIR
    out_dir.mkdir(parents=True, exist_ok=True)
    frames = []
    for frame, image in images.items():
        name = "sprite" if frame is None else str(frame)
        write_bytes(out_dir / f"{name}.png", image)
        value, detail = _compare(section, tree, config.preview_path(frame), image)
        flagged = value is None or value > MAX_DIVERGENCE
        if value is not None and flagged:
            detail = f"the preview differs from the regenerated frame by {value:.3f} (over {MAX_DIVERGENCE})"
        frames.append(FrameScore(frame, counts[frame], value, flagged, f"{REGENERATED_DIR}/{name}.png", detail))
    return AssetScore("regenerated", tuple(frames), version)
