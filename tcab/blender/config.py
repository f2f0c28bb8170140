"""``blender.config.json``: what seeding writes at the workspace root for
build.py and ``tcab-blend`` (the original's shape, docs/asset-generation.md).

``bounds`` (the case's ``[voxel]`` box), ``background`` (the preview's),
``axes`` (Blender-native authoring space; the export converts to glTF's
+Y up / +Z forward), ``outputs`` (``model``: character.glb, ``preview``:
model.png, ``script``: build.py), ``animations`` and ``joints`` (the
``[model]`` contract) and ``timeout_seconds`` (how long one Blender build
may run before tcab-blend ends it).
"""

from __future__ import annotations

import json
from typing import Any

CONFIG_NAME = "blender.config.json"
MODEL = "character.glb"
DEFAULT_TIMEOUT = 900
MAX_CONFIG_BYTES = 256 << 10


def make_config(*, width: int, height: int, depth: int, background: str, script: str, preview: str,
                animations: list[dict[str, Any]], joints: list[dict[str, Any]],
                timeout: int = DEFAULT_TIMEOUT) -> bytes:
    config = {
        "kind": "blender-character",
        "bounds": {"width": width, "height": height, "depth": depth},
        "background": background,
        "axes": {"up": "+z", "facing": "-y", "exported": {"up": "+y", "forward": "+z"}},
        "outputs": {"model": MODEL, "preview": preview, "script": script},
        "animations": animations,
        "joints": joints,
        "timeout_seconds": timeout,
    }
    return (json.dumps(config, indent=2, sort_keys=True) + "\n").encode()


class BlendConfigError(ValueError):
    """A blender.config.json tcab-blend cannot use (the message names the key)."""


def _path(value: object, key: str) -> str:
    if not isinstance(value, str) or not value or value.startswith("/") or ".." in value.split("/") \
            or len(value) > 256:
        raise BlendConfigError(f"outputs.{key}: expected a workspace-relative path, got {value!r:.60}")
    return value


def load_config(raw: bytes) -> dict[str, Any]:
    """The parsed config, the keys tcab-blend relies on checked."""
    if len(raw) > MAX_CONFIG_BYTES:
        raise BlendConfigError(f"{len(raw)} bytes, over {MAX_CONFIG_BYTES}")
    try:
        config = json.loads(raw)
    except ValueError as exc:
        raise BlendConfigError(f"not JSON: {exc}") from None
    if not isinstance(config, dict) or not isinstance(config.get("outputs"), dict):
        raise BlendConfigError("outputs: missing")
    for key in ("model", "preview", "script"):
        _path(config["outputs"].get(key), key)
    timeout = config.get("timeout_seconds", DEFAULT_TIMEOUT)
    if not isinstance(timeout, int) or isinstance(timeout, bool) or not 1 <= timeout <= 86_400:
        raise BlendConfigError(f"timeout_seconds: expected 1 to 86400, got {timeout!r:.40}")
    if not isinstance(config.get("background", "transparent"), str):
        raise BlendConfigError("background: expected a string")
    return config
