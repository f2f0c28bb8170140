"""Exporting a sprite sheet's frames (docs/asset-generation.md, "Exports"):
one atlas PNG with a JSON of its frame rectangles and sequences in
Aseprite's JSON array format, and each sequence as an animated PNG.

The atlas is laid out **one row per sequence**, in the manifest's order, the
sequence's frames left to right in its own order (a frame named twice, or by
two sequences, is drawn in each cell that names it), then one row of the
declared frames no sequence names. So each sequence is a contiguous range of
the JSON's ``frames`` array, which is what a ``frameTags`` entry can say,
whatever order and repetitions its ``frames`` list has. A cell is the
canvas's size; the atlas's unused cells are transparent.

A frame's ``duration`` is its sequence's, ``round(1000 / fps)`` ms (the
precision both Aseprite's JSON and the APNG's delay keep); a frame in no
sequence gets :data:`UNSEQUENCED_MS`. Every byte is a function of the frames
and the manifest: the atlas is encoded by :func:`tcab.draw.png.encode`, the
JSON with sorted keys, the animations by Pillow with fixed settings.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from tcab import __version__
from tcab.atomic import write_bytes
from tcab.draw import png
from tcab.draw.errors import DrawError
from tcab.draw.limits import MAX_PNG_BYTES, MAX_SHEET_PIXELS
from tcab.errors import InputError
from tcab.reading import read_bytes

if TYPE_CHECKING:
    from tcab.testtypes.asset_generation import AssetSection

ATLAS_PNG = "atlas.png"
ATLAS_JSON = "atlas.json"
SEQUENCES_DIR = "sequences"
#: The folder, inside a run folder, of the exports the sweep writes (``tcab view`` shows them).
EXPORTS_DIR = "exports"
#: The duration (ms) of a frame no sequence names (Aseprite's default).
UNSEQUENCED_MS = 100
#: The largest atlas exported (cells x canvas pixels): a sequence may repeat frames.
MAX_ATLAS_PIXELS = MAX_SHEET_PIXELS
#: The APNG's zlib level (fixed: the same frames give the same bytes).
APNG_COMPRESS_LEVEL = 9


class ExportError(InputError):
    """The frames cannot be exported: not regenerated, unreadable, or the
    atlas would be too large (exit 2 from the CLI)."""


@dataclass(frozen=True, slots=True)
class Cell:
    """One entry of the atlas: which frame, where, for how long, in which sequence."""

    frame: int
    x: int
    y: int
    duration: int
    sequence: str | None
    position: int  # its place in the sequence (or in the unsequenced row)

    @property
    def filename(self) -> str:
        if self.sequence is None:
            return f"frame {self.frame}"
        return f"{self.sequence} {self.position} (frame {self.frame})"


def duration_ms(fps: float) -> int:
    """A frame's duration at ``fps``, whole milliseconds (at least 1)."""
    return max(1, round(1000 / fps))


def layout(section: AssetSection) -> tuple[list[Cell], int, int]:
    """The atlas's cells in ``frames`` order, its width and height in pixels."""
    w, h = section.width, section.height
    rows: list[list[tuple[int, int, str | None]]] = []
    for seq in section.sequences:
        rows.append([(frame, duration_ms(seq.fps), seq.slug) for frame in seq.frames])
    named = {frame for seq in section.sequences for frame in seq.frames}
    rest = [(frame, UNSEQUENCED_MS, None) for frame in section.frames if frame not in named]
    if rest:
        rows.append(rest)
    columns = max((len(r) for r in rows), default=0)
    if columns * len(rows) * w * h > MAX_ATLAS_PIXELS:
        raise ExportError(f"the atlas would be {columns * w}x{len(rows) * h} pixels, over "
                          f"MAX_ATLAS_PIXELS ({MAX_ATLAS_PIXELS}); the sequences name too many frames")
    cells = [Cell(frame, col * w, row * h, ms, slug, col)
             for row, entries in enumerate(rows) for col, (frame, ms, slug) in enumerate(entries)]
    return cells, columns * w, len(rows) * h


def atlas_png(section: AssetSection, cells: list[Cell], width: int, height: int,
              pixels: dict[int, bytes]) -> bytes:
    """The atlas: each cell's frame (RGBA ``pixels[frame]``) copied to its place."""
    w, h = section.width, section.height
    canvas = bytearray(width * height * 4)
    for cell in cells:
        src = pixels[cell.frame]
        for row in range(h):
            start = ((cell.y + row) * width + cell.x) * 4
            canvas[start:start + w * 4] = src[row * w * 4:(row + 1) * w * 4]
    return png.encode(width, height, canvas)


def atlas_json(section: AssetSection, cells: list[Cell], width: int, height: int) -> dict:
    """Aseprite's JSON array format for the atlas (``--format json-array``)."""
    w, h = section.width, section.height
    frames = [{"filename": c.filename, "frame": {"x": c.x, "y": c.y, "w": w, "h": h}, "rotated": False,
               "trimmed": False, "spriteSourceSize": {"x": 0, "y": 0, "w": w, "h": h},
               "sourceSize": {"w": w, "h": h}, "duration": c.duration} for c in cells]
    tags = []
    start = 0
    for seq in section.sequences:
        tags.append({"name": seq.slug, "from": start, "to": start + len(seq.frames) - 1, "direction": "forward"})
        start += len(seq.frames)
    meta = {"app": "tcab", "version": __version__, "image": ATLAS_PNG, "format": "RGBA8888",
            "size": {"w": width, "h": height}, "scale": "1", "frameTags": tags}
    return {"frames": frames, "meta": meta}


def sequence_apng(section: AssetSection, frames: tuple[int, ...], fps: float, pixels: dict[int, bytes]) -> bytes:
    """The sequence as an animated PNG, looping forever, each frame ``duration_ms(fps)``.
    Pillow merges consecutive identical frames into one of their summed
    duration; a sequence left with one frame is written as a still PNG."""
    from PIL import Image

    size = (section.width, section.height)
    images = [Image.frombytes("RGBA", size, bytes(pixels[f])) for f in frames]
    ms = duration_ms(fps)
    out = io.BytesIO()
    images[0].save(out, format="PNG", save_all=True, append_images=images[1:], duration=[ms] * len(images),
                   loop=0, compress_level=APNG_COMPRESS_LEVEL, optimize=False, default_image=False)
    return out.getvalue()


def frame_name(frame: int | None) -> str:
    return "sprite" if frame is None else str(frame)


def read_frames(section: AssetSection, folder: Path, what: str) -> dict[int | None, bytes]:
    """Every declared frame's RGBA, read from ``folder/<frame>.png`` (no link
    followed, bounded, the canvas's size). ``what`` names the folder in errors."""
    out: dict[int | None, bytes] = {}
    for frame in section.tool_config().frame_keys():
        path = folder / f"{frame_name(frame)}.png"
        try:
            data = read_bytes(path, MAX_PNG_BYTES, follow=False, what="regenerated frame")
            width, height, rgba = png.decode(data, section.width * section.height)
        except FileNotFoundError:
            raise ExportError(f"{what} has no regenerated frames ({path} is missing; the sweep's "
                              "regenerate task writes them)") from None
        except (OSError, DrawError) as exc:
            raise ExportError(f"{what}: {path}: {exc}") from None
        if (width, height) != (section.width, section.height):
            raise ExportError(f"{what}: {path} is {width}x{height}, not the canvas's "
                              f"{section.width}x{section.height}")
        out[frame] = rgba
    return out


def export_sheet(section: AssetSection, pixels: dict[int, bytes], out_dir: Path) -> list[Path]:
    """Write the atlas, its JSON and each sequence's APNG into ``out_dir``
    (each file atomically); ``pixels`` is every declared frame's RGBA.
    Returns the paths written."""
    cells, width, height = layout(section)
    written = []
    image = atlas_png(section, cells, width, height, pixels)
    doc = json.dumps(atlas_json(section, cells, width, height), indent=1, sort_keys=True) + "\n"
    for rel, data in ((ATLAS_PNG, image), (ATLAS_JSON, doc.encode())):
        write_bytes(out_dir / rel, data)
        written.append(out_dir / rel)
    for seq in section.sequences:
        path = out_dir / SEQUENCES_DIR / f"{seq.slug}.png"
        write_bytes(path, sequence_apng(section, seq.frames, seq.fps, pixels))
        written.append(path)
    return written


def write_run_exports(section: AssetSection, run_dir: Path) -> bool:
    """The sweep's exports of a regenerated sheet run, into ``run_dir/exports/``;
    False (nothing written) when its frames cannot be exported."""
    try:
        export_sheet(section, read_frames(section, run_dir / "regenerated", "run"), run_dir / EXPORTS_DIR)
    except ExportError:
        return False
    return True
