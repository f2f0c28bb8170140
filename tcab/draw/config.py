"""The tool's config: what seeding writes to ``.tcab/draw.json`` and what
``draw``/``draw-sheet`` and the validator read.

Paths are templates relative to the config file's folder; a sheet's
``actions`` and ``preview`` carry ``{frame}``, a sprite's do not. ``live``
is present only when the run is watched. Reading is strict: an unknown
key, a wrong type, a path that climbs out, a canvas over the limits is a
ConfigError naming the key.
"""

from __future__ import annotations

from tcab.draw.colors import parse_background
from tcab.draw.errors import ConfigError
from tcab.draw.limits import (
    MAX_CONFIG_BYTES,
    MAX_FRAME_INDEX,
    MAX_FRAMES,
    MAX_LIVE_CHARS,
    MAX_PIXELS,
    MAX_SHEET_PIXELS,
    MAX_SIDE,
    MAX_TEMPLATE_CHARS,
)
from tcab.draw.minijson import loads

CONFIG_VERSION = 1
KINDS = ("sprite", "sprite-sheet")
FRAME_TOKEN = "{frame}"
_KEYS = ("version", "kind", "width", "height", "background", "actions", "preview", "layers", "frames", "live")


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_canvas(width: object, height: object, frames: int = 1) -> str | None:
    """Why a canvas of ``width`` x ``height`` (times ``frames``) is refused, or None.
    The manifest validation uses this too, so both name the same limit."""
    for key, value in (("width", width), ("height", height)):
        if not _is_int(value) or not 1 <= value <= MAX_SIDE:
            return f"{key}: expected an integer from 1 to {MAX_SIDE} (MAX_SIDE), got {value!r}"
    if width * height > MAX_PIXELS:
        return f"width x height: {width * height} pixels, over the limit of {MAX_PIXELS} (MAX_PIXELS)"
    if width * height * frames > MAX_SHEET_PIXELS:
        return (f"frames x width x height: {width * height * frames} pixels, over the limit of "
                f"{MAX_SHEET_PIXELS} (MAX_SHEET_PIXELS)")
    return None


def check_template(value: object, *, frame: bool) -> str | None:
    """Why a path template is refused (relative, no ``..``, ``{frame}`` iff a sheet), or None."""
    if not isinstance(value, str) or not value or len(value) > MAX_TEMPLATE_CHARS:
        return f"expected a relative path of 1 to {MAX_TEMPLATE_CHARS} characters, got {value!r}"
    if value.startswith("/") or "\\" in value or "\x00" in value:
        return f"expected a relative path, got {value!r}"
    parts = value.replace(FRAME_TOKEN, "0").split("/")
    if any(p in ("", ".", "..") for p in parts):
        return f"no empty, '.' or '..' part allowed, got {value!r}"
    has = FRAME_TOKEN in value
    if frame and not has:
        return f"a sheet's path must contain {FRAME_TOKEN}, got {value!r}"
    if not frame and has:
        return f"a sprite's path may not contain {FRAME_TOKEN}, got {value!r}"
    if "{" in value.replace(FRAME_TOKEN, "") or "}" in value.replace(FRAME_TOKEN, ""):
        return f"only {FRAME_TOKEN} may be templated, got {value!r}"
    return None


class _Frozen:
    """A small immutable value (equality, hash, repr, ``replace``) without
    dataclasses, whose import would cost a fresh ``draw`` process ~10 ms."""

    __slots__ = ()

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable; use .replace()")

    def _values(self) -> tuple:
        return tuple(getattr(self, k) for k in self.__slots__)

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other._values() == self._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        return f"{type(self).__name__}(" + ", ".join(f"{k}={getattr(self, k)!r}" for k in self.__slots__) + ")"

    def replace(self, **changes: object):
        """A copy with ``changes`` (checked again)."""
        return type(self)(**{**{k: getattr(self, k) for k in self.__slots__}, **changes})


class Live(_Frozen):
    """Where the tool streams its previews while a run is watched."""

    __slots__ = ("url", "token")

    def __init__(self, url: str, token: str) -> None:
        object.__setattr__(self, "url", url)
        object.__setattr__(self, "token", token)


class ToolConfig(_Frozen):
    """The tool's config (``.tcab/draw.json``); immutable, checked when made
    (ConfigError naming the key). ``replace(**changes)`` makes a changed copy."""

    __slots__ = ("kind", "width", "height", "background", "actions", "preview", "layers", "frames", "live",
                 "version")

    def __init__(self, kind: str, width: int, height: int, background: str, actions: str, preview: str,
                 layers: str, frames: tuple[int, ...] = (), live: Live | None = None,
                 version: int = CONFIG_VERSION) -> None:
        for key, value in (("kind", kind), ("width", width), ("height", height), ("background", background),
                           ("actions", actions), ("preview", preview), ("layers", layers),
                           ("frames", tuple(frames) if isinstance(frames, list) else frames), ("live", live),
                           ("version", version)):
            object.__setattr__(self, key, value)
        problem = self._problem()
        if problem:
            raise ConfigError(problem)

    def _problem(self) -> str | None:
        if self.version != CONFIG_VERSION:
            return f"version: expected {CONFIG_VERSION}, got {self.version!r}"
        if self.kind not in KINDS:
            return f"kind: expected one of {', '.join(KINDS)}, got {self.kind!r}"
        sheet = self.kind == "sprite-sheet"
        if not isinstance(self.frames, tuple) or not all(_is_int(f) for f in self.frames):
            return f"frames: expected a list of integers, got {self.frames!r}"
        if sheet:
            if not 1 <= len(self.frames) <= MAX_FRAMES:
                return f"frames: a sheet declares 1 to {MAX_FRAMES} frames (MAX_FRAMES), got {len(self.frames)}"
            if len(set(self.frames)) != len(self.frames):
                return "frames: an index is declared twice"
            bad = [f for f in self.frames if not 0 <= f <= MAX_FRAME_INDEX]
            if bad:
                return f"frames: index {bad[0]} is not from 0 to {MAX_FRAME_INDEX}"
        elif self.frames:
            return "frames: a sprite has no frames"
        problem = check_canvas(self.width, self.height, max(1, len(self.frames)))
        if problem:
            return problem
        if parse_background(self.background) is None:
            return f"background: expected 'transparent' or '#rrggbb[aa]', got {self.background!r}"
        for key in ("actions", "preview"):
            problem = check_template(getattr(self, key), frame=sheet)
            if problem:
                return f"{key}: {problem}"
        problem = check_template(self.layers, frame=False)
        if problem:
            return f"layers: {problem}"
        if self.live is not None:
            if not isinstance(self.live, Live):
                return "live: expected {url, token}"
            if not isinstance(self.live.url, str) or not self.live.url.startswith("http://") \
                    or len(self.live.url) > MAX_LIVE_CHARS:
                return f"live.url: expected http://host:port/..., got {self.live.url!r}"
            if not isinstance(self.live.token, str) or not 1 <= len(self.live.token) <= MAX_LIVE_CHARS:
                return "live.token: expected a non-empty string"
        return None

    @property
    def sheet(self) -> bool:
        return self.kind == "sprite-sheet"

    def frame_keys(self) -> tuple[int | None, ...]:
        """The frames a regeneration produces: the sheet's indices, or (None,) for a sprite."""
        return self.frames if self.sheet else (None,)

    def actions_path(self, frame: int | None) -> str:
        return self.actions.replace(FRAME_TOKEN, str(frame)) if self.sheet else self.actions

    def preview_path(self, frame: int | None) -> str:
        return self.preview.replace(FRAME_TOKEN, str(frame)) if self.sheet else self.preview

    def to_json(self) -> bytes:
        doc: dict[str, object] = {
            "version": self.version, "kind": self.kind, "width": self.width, "height": self.height,
            "background": self.background, "actions": self.actions, "preview": self.preview,
            "layers": self.layers, "frames": list(self.frames),
            "live": None if self.live is None else {"url": self.live.url, "token": self.live.token},
        }
        import json
        return (json.dumps(doc, indent=2) + "\n").encode()

    @classmethod
    def from_json(cls, data: bytes) -> ToolConfig:
        """The config in ``data``; ConfigError naming the key that is wrong."""
        if len(data) > MAX_CONFIG_BYTES:
            raise ConfigError(f"{len(data)} bytes: over the {MAX_CONFIG_BYTES}-byte limit")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ConfigError(f"not valid JSON: {exc}") from None
        doc = loads(text)  # the subset seeding writes, without importing json
        if doc is None:
            import json
            try:
                doc = json.loads(text, parse_constant=_no_constant)
            except (ValueError, RecursionError) as exc:
                raise ConfigError(f"not valid JSON: {exc}") from None
        if not isinstance(doc, dict):
            raise ConfigError("expected a JSON object")
        unknown = sorted(set(doc) - set(_KEYS))
        if unknown:
            raise ConfigError(f"{unknown[0]}: unknown key (known: {', '.join(_KEYS)})")
        missing = [k for k in _KEYS if k not in doc and k not in ("frames", "live")]
        if missing:
            raise ConfigError(f"{missing[0]}: missing")
        frames = doc.get("frames", [])
        if not isinstance(frames, list):
            raise ConfigError(f"frames: expected a list of integers, got {frames!r}")
        live = doc.get("live")
        if live is not None:
            if not isinstance(live, dict) or set(live) != {"url", "token"}:
                raise ConfigError("live: expected null or an object with exactly url and token")
            live = Live(live["url"], live["token"])
        for key in ("kind", "background", "actions", "preview", "layers"):
            if not isinstance(doc[key], str):
                raise ConfigError(f"{key}: expected a string, got {doc[key]!r}")
        return cls(kind=doc["kind"], width=doc["width"], height=doc["height"], background=doc["background"],
                   actions=doc["actions"], preview=doc["preview"], layers=doc["layers"],
                   frames=tuple(frames), live=live, version=doc["version"])


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not allowed")
