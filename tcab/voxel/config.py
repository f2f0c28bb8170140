"""The tool's config: what seeding writes to ``.tcab/voxel.json`` and what
``voxel``/``voxel-anim`` and the validator read.

A JSON object: ``version`` (1), ``kind`` (``voxel-model`` or
``voxel-animation``), ``width``/``height``/``depth`` (the volume),
``background`` (``transparent`` or ``#rrggbb``: the preview's clear colour
only), and paths relative to the workspace (the config's folder, or its
parent when that folder is ``.tcab``): ``actions``, ``preview``, ``mesh``;
for the animated kind these carry ``{part}`` and there are also ``rig``,
``scene`` (with ``{view}``) and ``pose``. ``live`` is present only when the
run is watched (an object the live sender reads). An unknown key, a wrong
type, a path that climbs out or a volume over the limits is a VoxelConfigError
naming the key.
"""

from __future__ import annotations

import json
import os

from tcab.voxel.errors import VoxelConfigError, VoxelLogError
from tcab.voxel.limits import MAX_CONFIG_BYTES, check_bounds

KINDS = ("voxel-model", "voxel-animation")
DEFAULTS = {
    "voxel-model": {"actions": "actions.json", "preview": "model.png", "mesh": "mesh.glb"},
    "voxel-animation": {"actions": "parts/{part}.actions.json", "preview": "parts/{part}.png",
                        "mesh": "parts/{part}.glb", "rig": "rig.json", "scene": "scene/{view}.png",
                        "pose": "scene/pose.png", "scene_mesh": "scene/scene.glb"},
}
_KEYS = ("version", "kind", "width", "height", "depth", "background", "live", "actions", "preview", "mesh",
         "rig", "scene", "pose", "scene_mesh")
_TOKENS = {"actions": "{part}", "preview": "{part}", "mesh": "{part}", "scene": "{view}"}


def check_template(value: object, token: str | None) -> str | None:
    """Why a path template is refused (relative, no ``..``, ``token`` exactly when wanted), or None."""
    if not isinstance(value, str) or not value or len(value) > 256:
        return f"expected a relative path of 1 to 256 characters, got {value!r}"[:160]
    if value.startswith("/") or "\\" in value or "\x00" in value:
        return f"expected a relative path, got {value!r}"
    if any(p in ("", ".", "..") for p in value.replace("{part}", "p").replace("{view}", "v").split("/")):
        return f"no empty, '.' or '..' part allowed, got {value!r}"
    for t in ("{part}", "{view}"):
        if (t in value) != (t == token):
            return f"{'needs' if t == token else 'may not hold'} {t}, got {value!r}"
    return None


class VoxelConfig:
    __slots__ = ("kind", "width", "height", "depth", "background", "live", "paths")

    @property
    def animated(self) -> bool:
        return self.kind == "voxel-animation"

    @property
    def bounds(self) -> tuple[int, int, int]:
        return (self.width, self.height, self.depth)

    @classmethod
    def from_json(cls, data: bytes) -> VoxelConfig:
        try:
            obj = json.loads(data)
        except (ValueError, RecursionError) as exc:
            raise VoxelConfigError(f"not valid JSON: {exc}") from None
        if not isinstance(obj, dict):
            raise VoxelConfigError("expected a JSON object")
        return cls.from_dict(obj)

    @classmethod
    def from_dict(cls, obj: dict) -> VoxelConfig:
        unknown = sorted(k for k in obj if k not in _KEYS)
        if unknown:
            raise VoxelConfigError(f"{unknown[0]}: unknown key (known: {', '.join(_KEYS)})")
        if obj.get("version", 1) != 1:
            raise VoxelConfigError(f"version: expected 1, got {obj.get('version')!r}")
        self = cls()
        self.kind = obj.get("kind")
        if self.kind not in KINDS:
            raise VoxelConfigError(f"kind: expected one of {', '.join(KINDS)}, got {self.kind!r}"[:160])
        problem = check_bounds(obj.get("width"), obj.get("height"), obj.get("depth"))
        if problem:
            raise VoxelConfigError(problem)
        self.width, self.height, self.depth = obj["width"], obj["height"], obj["depth"]
        self.background = obj.get("background", "transparent")
        from tcab.voxel.colors import check_background
        if not check_background(self.background):
            raise VoxelConfigError(f"background: expected 'transparent' or '#rrggbb', got {self.background!r}"[:160])
        self.live = obj.get("live")
        if self.live is not None:
            from tcab.voxel.live import check_live
            problem = check_live(self.live)
            if problem:
                raise VoxelConfigError(f"live: {problem}")
        defaults = DEFAULTS[self.kind]
        self.paths = {}
        for key in _KEYS[7:]:
            if key not in defaults:
                if key in obj:
                    raise VoxelConfigError(f"{key}: only for kind voxel-animation")
                continue
            value = obj.get(key, defaults[key])
            token = _TOKENS.get(key) if self.animated else None
            problem = check_template(value, token)
            if problem:
                raise VoxelConfigError(f"{key}: {problem}")
            self.paths[key] = value
        return self

    def path(self, key: str, part: str | None = None, view: str | None = None) -> str:
        value = self.paths[key]
        if part is not None:
            value = value.replace("{part}", part)
        if view is not None:
            value = value.replace("{view}", view)
        return value


class VoxelWorkspace:
    """The config and the paths it names, resolved physically inside its root."""

    def __init__(self, config_path: str) -> None:
        from tcab.voxel.log import read_file
        self.config_path = config_path
        try:
            data = read_file(config_path, MAX_CONFIG_BYTES, "MAX_CONFIG_BYTES")
        except VoxelLogError as exc:
            raise VoxelConfigError(f"cannot read the tool config: {exc}") from None
        try:
            self.config = VoxelConfig.from_json(data)
        except VoxelConfigError as exc:
            raise VoxelConfigError(f"{config_path}: {exc}") from None
        folder = os.path.dirname(os.path.realpath(config_path))
        self.root = os.path.dirname(folder) if os.path.basename(folder) == ".tcab" else folder

    def file(self, relative: str) -> str:
        """The absolute path of ``relative``; VoxelConfigError when a link in it leads out of the root."""
        path = os.path.join(self.root, relative)
        real = os.path.realpath(os.path.dirname(path))
        if real != self.root and not real.startswith(self.root + os.sep):
            raise VoxelConfigError(f"{relative}: leads out of the workspace through a link")
        return os.path.join(real, os.path.basename(path))
