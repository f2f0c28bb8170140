"""Layers: replayed from the layers log, composited over a frame's canvas.

A layer is a surface of its own extent, painted by drawing ops that name
it (in layer coordinates) and placed by its transform: top-left ``x, y``,
``z`` order (ties: registration order), ``opacity`` 0..255, ``rotation``
(whole degrees clockwise about the layer's centre), ``scale_x``/``scale_y``
(percent). On a sheet, keyframes move any of these per frame.

Compositing is nearest-neighbour and source-over, all in integers: the
destination pixel's centre is mapped back into the layer through a fixed
table of sines (2^16 scale, written out below so no platform's libm is
consulted), then blended with exact integer rounding.
"""

from __future__ import annotations

from tcab.draw import raster
from tcab.draw.errors import LogError
from tcab.draw.keyframes import Keyframe, evaluate
from tcab.draw.limits import MAX_KEYFRAMES, MAX_LAYER_PIXELS, MAX_LAYERS, MAX_WORK
from tcab.draw.ops import Op, draw

_ONE = 1 << 16
_SIN = (0, 1144, 2287, 3430, 4572, 5712, 6850, 7987, 9121, 10252, 11380, 12505, 13626, 14742, 15855, 16962,
        18064, 19161, 20252, 21336, 22415, 23486, 24550, 25607, 26656, 27697, 28729, 29753, 30767, 31772, 32768,
        33754, 34729, 35693, 36647, 37590, 38521, 39441, 40348, 41243, 42126, 42995, 43852, 44695, 45525, 46341,
        47143, 47930, 48703, 49461, 50203, 50931, 51643, 52339, 53020, 53684, 54332, 54963, 55578, 56175, 56756,
        57319, 57865, 58393, 58903, 59396, 59870, 60326, 60764, 61183, 61584, 61966, 62328, 62672, 62997, 63303,
        63589, 63856, 64104, 64332, 64540, 64729, 64898, 65048, 65177, 65287, 65376, 65446, 65496, 65526, 65536)
#: property name -> the Layer attribute it animates
PROPERTY_ATTR = {"x": "x", "y": "y", "opacity": "opacity", "rotation": "rotation",
                 "scale-x": "scale_x", "scale-y": "scale_y"}


def sin_cos(degrees: int) -> tuple[int, int]:
    """sin and cos of whole ``degrees``, times 2^16."""
    d = degrees % 360
    quadrant, r = divmod(d, 90)
    s, c = _SIN[r], _SIN[90 - r]
    return ((s, c), (c, -s), (-s, -c), (-c, s))[quadrant]


class Layer:
    __slots__ = ("name", "x", "y", "width", "height", "z", "opacity", "rotation", "scale_x", "scale_y",
                 "surface", "ops", "order", "keys")

    def __init__(self, v: dict, order: int) -> None:
        self.name = v["name"]
        for attr in ("x", "y", "width", "height", "z", "opacity", "rotation", "scale_x", "scale_y"):
            setattr(self, attr, v[attr])
        self.surface = raster.Surface(self.width, self.height)
        self.ops = 0
        self.order = order
        self.keys: dict[str, list[Keyframe]] = {}

    def at(self, frame: int | None) -> tuple[int, int, int, int, int, int]:
        """``(x, y, opacity, rotation, scale_x, scale_y)`` at ``frame`` (None: at rest)."""
        values = {p: getattr(self, a) for p, a in PROPERTY_ATTR.items()}
        if frame is not None:
            for prop, keys in self.keys.items():
                values[prop] = evaluate(keys, frame)
        return (values["x"], values["y"], min(max(values["opacity"], 0), 255), values["rotation"],
                values["scale-x"], values["scale-y"])

    def describe(self) -> str:
        keys = sum(len(k) for k in self.keys.values())
        return (f"{self.name}: {self.width}x{self.height} at ({self.x},{self.y}) z={self.z} "
                f"opacity={self.opacity} rotation={self.rotation} scale={self.scale_x}%x{self.scale_y}% "
                f"ops={self.ops} keyframes={keys}")


class LayerSet:
    """The layers after replaying a layers log, in registration order."""

    def __init__(self) -> None:
        self.layers: dict[str, Layer] = {}
        self.registered = 0
        self.keyframes = 0
        self.pixels = 0
        self.work = 0

    def apply(self, op: Op, v: dict, where: str, *, sheet: bool) -> None:
        """Replay one checked op of the layers log; LogError when it does not fit the state."""
        if op.sheet_only and not sheet:
            raise LogError(f"{where}: op: {op.name} is for sprite sheets only")
        if op.name == "register-layer":
            if v["name"] in self.layers:
                raise LogError(f"{where}: name: layer {v['name']!r} is already registered")
            if len(self.layers) >= MAX_LAYERS:
                raise LogError(f"{where}: name: more than {MAX_LAYERS} layers (MAX_LAYERS)")
            if self.pixels + v["width"] * v["height"] > MAX_LAYER_PIXELS:
                raise LogError(f"{where}: width: the layers' area passes {MAX_LAYER_PIXELS} pixels (MAX_LAYER_PIXELS)")
            self.layers[v["name"]] = Layer(v, self.registered)
            self.registered += 1
            self.pixels += v["width"] * v["height"]
            return
        key = "name" if op.name in ("clear-layer", "remove-layer") else "layer"
        layer = self.layers.get(v[key])
        if layer is None:
            raise LogError(f"{where}: {key}: no layer {v[key]!r} is registered")
        if op.canvas:
            before = layer.surface.work
            draw(layer.surface, op.name, v)
            self.work += layer.surface.work - before
            layer.ops += 1
        elif op.name == "clear-layer":
            layer.surface = raster.Surface(layer.width, layer.height)
            layer.ops = 0
        elif op.name == "remove-layer":
            self.keyframes -= sum(len(k) for k in layer.keys.values())
            self.pixels -= layer.width * layer.height
            del self.layers[layer.name]
        elif op.name == "animate-layer":
            keys = layer.keys.setdefault(v["property"], [])
            kept = [k for k in keys if k.frame != v["frame"]]
            if len(kept) == len(keys):
                if self.keyframes >= MAX_KEYFRAMES:
                    raise LogError(f"{where}: frame: more than {MAX_KEYFRAMES} keyframes (MAX_KEYFRAMES)")
                self.keyframes += 1
            kept.append(Keyframe(v["frame"], v["value"], v["interp"], v["handle_in"], v["handle_out"]))
            kept.sort(key=lambda k: k.frame)
            layer.keys[v["property"]] = kept
        elif op.name == "clear-keyframes":
            props = [v["property"]] if v["property"] else list(layer.keys)
            for prop in props:
                self.keyframes -= len(layer.keys.pop(prop, []))
        else:
            raise AssertionError(op.name)

    def stacked(self, only: frozenset[str] | None = None) -> list[Layer]:
        """The layers in composite order: z, then registration."""
        return sorted((la for la in self.layers.values() if only is None or la.name in only),
                      key=lambda la: (la.z, la.order))


def _spend(canvas: raster.Surface, units: int, layer: Layer) -> None:
    canvas.work += units
    if canvas.work > MAX_WORK:
        raise LogError(f"layers: compositing {layer.name!r}: the drawing work passes {MAX_WORK} (MAX_WORK)")


def composite(canvas: raster.Surface, layer: Layer, frame: int | None) -> None:
    """Draw ``layer`` over ``canvas`` with its transform at ``frame``, source-over."""
    x, y, opacity, rotation, sx, sy = layer.at(frame)
    if opacity == 0 or sx == 0 or sy == 0:
        return
    w, h, W, H = layer.width, layer.height, canvas.width, canvas.height
    sn, cs = sin_cos(rotation)
    # half extents of the scaled layer, then of its rotated bounding box, in doubled pixels (+2 margin)
    hw2, hh2 = (w * abs(sx) + 99) // 100, (h * abs(sy) + 99) // 100
    ex2 = (hw2 * abs(cs) + hh2 * abs(sn)) // _ONE + 2
    ey2 = (hw2 * abs(sn) + hh2 * abs(cs)) // _ONE + 2
    cx2, cy2 = 2 * x + w, 2 * y + h  # the layer's centre, doubled
    x0, x1 = max(0, (cx2 - ex2) // 2), min(W, (cx2 + ex2) // 2 + 1)
    y0, y1 = max(0, (cy2 - ey2) // 2), min(H, (cy2 + ey2) // 2 + 1)
    if x0 >= x1 or y0 >= y1:
        return
    src, dst = layer.surface.buf, canvas.buf
    plain = rotation % 360 == 0 and sx == 100 and sy == 100
    dx_den, dy_den = 2 * _ONE * sx, 2 * _ONE * sy
    for py in range(y0, y1):
        py2 = 2 * py + 1 - cy2
        row = py * W
        if plain:
            v = py - y
            if not 0 <= v < h:
                continue
            u0, u1 = max(x0 - x, 0), min(x1 - x, w)
            if u0 >= u1:
                continue
            s0, d0 = (v * w + u0) * 4, (row + x + u0) * 4
            segment = src[s0:s0 + (u1 - u0) * 4]
            if opacity == 255 and segment[3::4].count(255) == u1 - u0:  # all opaque: a copy
                dst[d0:d0 + len(segment)] = segment
                canvas.work += 1 + ((u1 - u0) >> 8)
                continue
            _spend(canvas, u1 - u0, layer)
            pairs = ((s0 + i * 4, d0 + i * 4) for i in range(u1 - u0))
        else:
            _spend(canvas, 2 * (x1 - x0), layer)  # before the row's Python steps, so a huge layer stops in time
            pairs = []
            for px in range(x0, x1):
                px2 = 2 * px + 1 - cx2
                # inverse rotation (screen coordinates, clockwise), then inverse scale
                ux = px2 * cs + py2 * sn
                uy = -px2 * sn + py2 * cs
                u = (ux * 100 + w * _ONE * sx) // dx_den
                v = (uy * 100 + h * _ONE * sy) // dy_den
                if 0 <= u < w and 0 <= v < h:
                    pairs.append(((v * w + u) * 4, (row + px) * 4))
        for si, di in pairs:
            a = src[si + 3]
            if a == 0:
                continue
            a = (a * opacity + 127) // 255 if opacity != 255 else a
            if a == 255:
                dst[di:di + 4] = src[si:si + 4]
                continue
            if a == 0:
                continue
            da = dst[di + 3]
            t = da * (255 - a)
            total = a * 255 + t
            half = total // 2
            dst[di] = (src[si] * a * 255 + dst[di] * t + half) // total
            dst[di + 1] = (src[si + 1] * a * 255 + dst[di + 1] * t + half) // total
            dst[di + 2] = (src[si + 2] * a * 255 + dst[di + 2] * t + half) // total
            dst[di + 3] = (total + 127) // 255
