"""Image resolution: registry, tag, per-image overrides, no engine consulted."""

from __future__ import annotations

import pytest

from tcab.errors import RuntimeBackendError
from tcab.runtime import RUN_IMAGES, resolve_image


def test_defaults_name_the_canonical_images() -> None:
    assert resolve_image("base-wasm", {}) == "ghcr.io/theclockwyrks/test-cabinet-base-wasm:latest"
    assert resolve_image("adversarial", {}) == "ghcr.io/theclockwyrks/test-cabinet-adversarial:latest"


def test_registry_and_tag_apply_to_every_image() -> None:
    env = {"TCAB_CONTAINER_REGISTRY": "registry.example/team/", "TCAB_CONTAINER_TAG": "v7"}
    assert resolve_image("sprite-sheet", env) == "registry.example/team/test-cabinet-sprite-sheet:v7"
    assert resolve_image("base-wasm", env) == "registry.example/team/test-cabinet-base-wasm:v7"


def test_an_override_pins_one_image_only() -> None:
    env = {"TCAB_CONTAINER_IMAGE_BASE_WASM": "localhost/mine@sha256:abc", "TCAB_CONTAINER_TAG": "v7"}
    assert resolve_image("base-wasm", env) == "localhost/mine@sha256:abc"
    assert resolve_image("adversarial", env) == "ghcr.io/theclockwyrks/test-cabinet-adversarial:v7"


def test_every_image_of_the_source_document_has_its_override() -> None:
    overrides = {image.override for image in RUN_IMAGES}
    for suffix in ("BASE_WASM", "SPRITE", "SPRITE_SHEET", "VOXEL", "VOXEL_ANIMATION", "BLENDER",
                   "ADVERSARIAL", "PERFORMANCE"):
        assert f"TCAB_CONTAINER_IMAGE_{suffix}" in overrides
    for image in RUN_IMAGES:
        assert resolve_image(image.kind, {image.override: "x/y:z"}) == "x/y:z"


def test_unknown_kind_lists_the_known_ones() -> None:
    with pytest.raises(RuntimeBackendError, match="known kinds: base-wasm, adversarial"):
        resolve_image("quantum", {})
