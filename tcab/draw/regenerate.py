"""Regeneration: the asset from its recorded logs alone.

The validator calls ``regenerate`` with a reader of the run's logs; the
tool calls ``render_frame`` for its preview. Both replay through the same
functions, so an honest log regenerates to the tool's own preview byte for
byte. Everything is bounded: log bytes, op count, nesting, layers,
keyframes and the total drawing work (``MAX_WORK``).
"""

from __future__ import annotations

from tcab.draw import png
from tcab.draw.colors import parse_background
from tcab.draw.config import ToolConfig
from tcab.draw.errors import LogError
from tcab.draw.layers import LayerSet, composite
from tcab.draw.limits import MAX_WORK
from tcab.draw.logs import parse_log, read_log_file  # noqa: F401  (read_log_file: for callers)
from tcab.draw.ops import Op, draw
from tcab.draw.raster import Surface

TYPE_CHECKING = False  # not typing's: importing typing costs a fresh draw process more than it draws
if TYPE_CHECKING:
    from collections.abc import Callable


def replay_layers(config: ToolConfig, data: bytes | None, label: str = "layers") -> LayerSet:
    """The layers of the layers log ``data`` (None or empty: no layers)."""
    layers = LayerSet()
    if not data:
        return layers
    for number, (op, values) in enumerate(parse_log(data, label, layered=True), 1):
        layers.apply(op, values, f"{label}: op {number}", sheet=config.sheet)
        if layers.work > MAX_WORK:
            raise LogError(f"{label}: op {number}: the drawing work passes {MAX_WORK} (MAX_WORK)")
    return layers


def replay_canvas(config: ToolConfig, ops: list[tuple[Op, dict]], label: str, work: int = 0,
                  surface: Surface | None = None) -> Surface:
    """The frame's canvas after its (checked) ops, from the background or ``surface``."""
    if surface is None:
        surface = Surface(config.width, config.height, parse_background(config.background))
    surface.work = work
    for number, (op, values) in enumerate(ops, 1):
        draw(surface, op.name, values)
        if surface.work > MAX_WORK:
            raise LogError(f"{label}: op {number}: the drawing work passes {MAX_WORK} (MAX_WORK)")
    return surface


def finish(canvas: Surface, layers: LayerSet, frame: int | None, only: frozenset[str] | None = None) -> bytes:
    """The PNG of ``canvas`` with ``layers`` composited at ``frame`` (``canvas`` is changed)."""
    for layer in layers.stacked(only):
        composite(canvas, layer, frame)
        if canvas.work > MAX_WORK:
            raise LogError(f"layers: compositing {layer.name!r}: the drawing work passes {MAX_WORK} (MAX_WORK)")
    return png.encode(canvas.width, canvas.height, canvas.buf)


def regenerate(config: ToolConfig, read_log: Callable[[int | None], bytes],
               layers_doc: bytes | None = None) -> dict[int | None, bytes]:
    """Frame index (None for a sprite) -> PNG, replayed from ``read_log(frame)``
    (the frame's action log bytes) and the layers log ``layers_doc``.
    Raises LogError naming the log, the op number and the field."""
    layers = replay_layers(config, layers_doc)
    work = layers.work
    out: dict[int | None, bytes] = {}
    for frame in config.frame_keys():
        label = config.actions_path(frame)
        data = read_log(frame)
        if not isinstance(data, bytes | bytearray):
            raise LogError(f"{label}: the log reader returned {type(data).__name__}, not bytes")
        canvas = replay_canvas(config, parse_log(bytes(data), label, layered=False), label, work)
        out[frame] = finish(canvas, layers, frame)
        work = canvas.work
    return out
