"""What one call of the tool does: record an op, render, init, list layers.

The op is checked against the replayed state before anything is written
(a layer that does not exist, a frame the sheet does not declare): a
refusal records nothing. Then the line is appended and the previews it
changed are re-rendered from the logs (the same replay as regeneration).
"""

from __future__ import annotations

import os
import time

from tcab.draw import cache
from tcab.draw.colors import parse_background
from tcab.draw.errors import LogError, UsageError
from tcab.draw.layers import LayerSet
from tcab.draw.logs import append_line, op_line, parse_log, read_log_file, write_atomic
from tcab.draw.ops import Op, check_op
from tcab.draw.raster import Surface
from tcab.draw.regenerate import finish, replay_canvas, replay_layers

LIVE_BUDGET_S = 0.5  # the whole live send of one call, every frame included


def _frame(ws, text: str | None, *, needed: bool) -> int | None:
    config = ws.config
    if not config.sheet:
        return None
    if text is None:
        if needed:
            raise UsageError("--frame: required (which frame to draw on)")
        return None
    try:
        frame = int(text) if text.isascii() and text.lstrip("-").isdigit() else None
    except ValueError:
        frame = None
    if frame is None or frame not in config.frames:
        raise UsageError(f"--frame: {text!r} is not a frame of this sheet "
                         f"(frames: {', '.join(map(str, config.frames))})")
    return frame


def _layers(ws) -> tuple[LayerSet, bytes]:
    data = ws.read(ws.config.layers)
    return replay_layers(ws.config, data, ws.config.layers), data


def _count(data: bytes) -> int:
    return sum(1 for line in data.split(b"\n") if line.strip())


def _render(ws, frame: int | None, layers: LayerSet) -> bytes:
    config = ws.config
    label = config.actions_path(frame)
    data = ws.read(label)
    cached = cache.load(cache.path_for(ws.path, frame), config, data)
    if cached is not None:
        return finish(cached[0], layers, frame)
    ops = parse_log(data, label, layered=False)
    canvas = replay_canvas(config, ops, label)
    cache.store(cache.path_for(ws.path, frame), config, data, canvas, len(ops))
    return finish(canvas.copy(), layers, frame)


def _write_preview(ws, frame: int | None, data: bytes) -> str:
    path = ws.file(ws.config.preview_path(frame))
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    write_atomic(path, data)
    return ws.config.preview_path(frame)


def _send(ws, sent: list[tuple[int | None, bytes]], op: str, count: int) -> None:
    live = ws.config.live
    if live is None:
        return
    from tcab.draw.live import send_frame
    deadline = time.monotonic() + LIVE_BUDGET_S
    for frame, data in sent:
        left = deadline - time.monotonic()
        if left <= 0 or not send_frame(live, frame, op, count, data, timeout=left):
            return  # the listener is not there: do not spend the budget on every frame


def _describe(op: Op, values: dict) -> str:
    shown = " ".join(f"{f.flag}={values[f.key]}" for f in op.fields if values.get(f.key) is not None)
    return f"{op.name} {shown}".strip()


def record(ws, op: Op, values: dict, parsed, tool: str) -> int:
    config = ws.config
    layer_name = getattr(parsed, "layer", None) if op.canvas else None
    if layer_name is not None:
        try:
            from tcab.draw.ops import check_value
            check_value("name", layer_name)
        except ValueError as exc:
            raise UsageError(f"--layer: {exc}") from None
        if getattr(parsed, "frame", None) is not None:
            raise UsageError("--frame: not with --layer (a layer is shared by every frame)")
    layers, layers_data = _layers(ws)
    if op.canvas and layer_name is None:
        frame = _frame(ws, getattr(parsed, "frame", None), needed=True)
        label = config.actions_path(frame)
        data = ws.read(label)
        if op.name == "mirror-horizontal" and values["axis_x"] is None:
            values["axis_x"] = config.width // 2
        line = op_line(op.name, values)
        new = [check_op({"op": op.name, **values}, "the new operation", layered=False)]
        cache_file = cache.path_for(ws.path, frame)
        cached = cache.load(cache_file, config, data)
        if cached is None:  # replay the whole log (and check it: a hand-edited log is refused here)
            ops = parse_log(data, label, layered=False)
            canvas, count = replay_canvas(config, ops + new, label), len(ops) + 1
        else:
            canvas, count = replay_canvas(config, new, label, surface=cached[0]), cached[1] + 1
        grown = data + (b"" if not data or data.endswith(b"\n") else b"\n") + line
        image = finish(canvas.copy(), layers, frame)
        os.makedirs(os.path.dirname(ws.file(label)), exist_ok=True)  # a frames/ folder the model removed
        append_line(ws.file(label), line)
        cache.store(cache_file, config, grown, canvas, count)
        preview = _write_preview(ws, frame, image)
        where = f" on frame {frame}" if frame is not None else ""
        print(f"{_describe(op, values)}{where}: recorded as op {count} of {label}; preview {preview}")
        _send(ws, [(frame, image)], op.name, count)
        return 0
    # a layer op: checked by applying it to the replayed layers, then every preview is redrawn
    if op.canvas:
        values = {"layer": layer_name, **values}
        target = layers.layers.get(layer_name)
        if target is None:
            raise UsageError(f"--layer: no layer {layer_name!r} is registered ('{tool} list-layers')")
        if op.name == "mirror-horizontal" and values["axis_x"] is None:
            values["axis_x"] = target.width // 2
    line = op_line(op.name, values)
    checked_op, checked = check_op({"op": op.name, **values}, "the new operation", layered=True)
    try:
        layers.apply(checked_op, checked, "the new operation", sheet=config.sheet)
    except LogError as exc:
        raise UsageError(str(exc).replace("the new operation: ", "--")) from None
    if op.name == "animate-layer" and checked["frame"] not in config.frames:
        raise UsageError(f"--frame: {checked['frame']} is not a frame of this sheet "
                         f"(frames: {', '.join(map(str, config.frames))})")
    images = [(frame, _render(ws, frame, layers)) for frame in config.frame_keys()]
    os.makedirs(os.path.dirname(ws.file(config.layers)), exist_ok=True)
    append_line(ws.file(config.layers), line)
    for frame, image in images:
        _write_preview(ws, frame, image)
    count = _count(layers_data) + 1
    shown = "every frame's preview" if config.sheet else f"preview {config.preview_path(None)}"
    print(f"{_describe(op, values)}: recorded as op {count} of {config.layers}; redrew {shown}")
    _send(ws, images, op.name, count)
    return 0


def list_layers(ws) -> int:
    layers, _ = _layers(ws)
    stacked = layers.stacked()
    if not stacked:
        print("no layers")
    for layer in stacked:
        print(layer.describe())
        for prop, keys in layer.keys.items():
            print(f"  {prop}: " + ", ".join(f"frame {k.frame} = {k.value} ({k.interp})" for k in keys))
    return 0


def init(ws) -> int:
    config = ws.config
    from tcab.draw import blank_png
    blank = blank_png(config.width, config.height, config.background)
    layers_path = ws.file(config.layers)
    os.makedirs(os.path.dirname(layers_path) or ".", exist_ok=True)
    write_atomic(layers_path, b"")
    for frame in config.frame_keys():
        log = ws.file(config.actions_path(frame))
        os.makedirs(os.path.dirname(log) or ".", exist_ok=True)
        write_atomic(log, b"")
        _write_preview(ws, frame, blank)
    frames = f"{len(config.frames)} frames" if config.sheet else "the sprite"
    print(f"init: empty logs and blank {config.width}x{config.height} previews for {frames}")
    return 0


def render(ws, parsed, tool: str) -> int:
    from tcab.draw.config import check_canvas
    config = ws.config
    frame = _frame(ws, getattr(parsed, "frame", None), needed=config.sheet and parsed.actions is None)
    if config.sheet and frame is None:
        raise UsageError("--frame: required (its keyframes place the layers)")
    width = int(parsed.width) if parsed.width else config.width
    height = int(parsed.height) if parsed.height else config.height
    problem = check_canvas(width, height)
    if problem:
        raise UsageError(f"--{problem}")
    background = parsed.background or config.background
    fill = parse_background(background)
    if fill is None:
        raise UsageError(f"--background: expected 'transparent' or #rrggbb[aa], got {background!r}")
    log = parsed.actions or ws.file(config.actions_path(frame))
    ops = parse_log(read_log_file(log), log, layered=False)
    layers = LayerSet()
    if not parsed.no_layers:
        path = parsed.layers or ws.file(config.layers)
        data = read_log_file(path) if os.path.lexists(path) else b""
        layers = replay_layers(config, data, path)
    canvas = replay_canvas(config, ops, log, surface=Surface(width, height, fill))
    only = frozenset(parsed.only_layer) if parsed.only_layer else None
    image = finish(canvas, layers, frame, only)
    out = parsed.out or ws.file(config.preview_path(frame))
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    write_atomic(out, image)
    print(f"render: {log} ({len(ops)} ops) -> {out} ({width}x{height}); the log is unchanged")
    return 0

