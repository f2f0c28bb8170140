"""The run images of the source document, resolved the way it says.

Which image a test type's runs (and builds) use is the type's decision
(``TestType.run_image``, ``build_image`` in :mod:`tcab.testtypes`); this
module only knows the images by kind. ``TCAB_CONTAINER_REGISTRY`` (default
``ghcr.io/theclockwyrks``) and ``TCAB_CONTAINER_TAG`` (default ``latest``)
name the image of a kind (``<registry>/test-cabinet-<name>:<tag>``); one ``TCAB_CONTAINER_IMAGE_*``
per image pins a verbatim reference for that image alone. There is no
override spanning every image. No backend is consulted: the same
environment resolves the same reference against any backend or none.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from tcab.errors import RuntimeBackendError

DEFAULT_REGISTRY = "ghcr.io/theclockwyrks"
DEFAULT_TAG = "latest"


@dataclass(frozen=True, slots=True)
class RunImage:
    """One run image of the source document."""

    kind: str  # how a test type names it (TestType.run_image)
    name: str  # test-cabinet-<...>
    override: str  # the TCAB_CONTAINER_IMAGE_* variable that pins it
    built_here: bool  # containers/ defines it (make images)


#: Every run image of the source document, including those of test types
#: tcab does not run yet, so that their overrides are already honoured.
#: (The end-to-end type runs in ``base-wasm``, the adversarial one in ``adversarial``,
#: the performance one in ``performance``, asset generation in ``sprite``/``sprite-sheet``
#: and, for a Blender character, ``blender-character``.)
RUN_IMAGES: tuple[RunImage, ...] = (
    RunImage("base-wasm", "test-cabinet-base-wasm", "TCAB_CONTAINER_IMAGE_BASE_WASM", True),
    RunImage("adversarial", "test-cabinet-adversarial", "TCAB_CONTAINER_IMAGE_ADVERSARIAL", True),
    RunImage("sprite", "test-cabinet-sprite", "TCAB_CONTAINER_IMAGE_SPRITE", True),
    RunImage("sprite-sheet", "test-cabinet-sprite-sheet", "TCAB_CONTAINER_IMAGE_SPRITE_SHEET", True),
    RunImage("voxel-model", "test-cabinet-voxel", "TCAB_CONTAINER_IMAGE_VOXEL", True),
    RunImage("voxel-animation", "test-cabinet-voxel-animation", "TCAB_CONTAINER_IMAGE_VOXEL_ANIMATION", True),
    RunImage("blender-character", "test-cabinet-blender", "TCAB_CONTAINER_IMAGE_BLENDER", True),
    RunImage("performance", "test-cabinet-performance", "TCAB_CONTAINER_IMAGE_PERFORMANCE", True),
)

_BY_KIND = {image.kind: image for image in RUN_IMAGES}


def run_image(kind: str) -> RunImage:
    """The run image of ``kind`` (as a test type names it).
    Raises RuntimeBackendError naming the known kinds."""
    try:
        return _BY_KIND[kind]
    except KeyError:
        known = ", ".join(_BY_KIND)
        raise RuntimeBackendError(f"no run image for {kind!r}; known kinds: {known}") from None


def resolve_image(kind: str, env: Mapping[str, str] | None = None) -> str:
    """The image reference a run of ``kind`` uses under ``env`` (default: the
    process environment). Raises RuntimeBackendError for an unknown kind."""
    env = os.environ if env is None else env
    image = run_image(kind)
    pinned = env.get(image.override, "").strip()
    if pinned:
        return pinned
    registry = (env.get("TCAB_CONTAINER_REGISTRY") or DEFAULT_REGISTRY).rstrip("/")
    tag = env.get("TCAB_CONTAINER_TAG") or DEFAULT_TAG
    return f"{registry}/{image.name}:{tag}"
