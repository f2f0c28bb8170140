"""``blender_runtime``: the Podman runtime with the Blender image present;
``scout_glb``: tin-scout's reference character.glb, built once per session
by tcab-blend in a real container."""

from __future__ import annotations

import pytest

from tests.blender.support import REFERENCE_BUILD, TIN_SCOUT, load, rebuild


@pytest.fixture(scope="session")
def blender_runtime(podman_runtime):
    from tcab.errors import RuntimeBackendError
    from tcab.runtime import resolve_image

    ref = resolve_image("blender-character")
    try:
        podman_runtime.ensure_image(ref, pull=False)
    except RuntimeBackendError:
        pytest.fail(f"{ref} is missing; run `make images`", pytrace=False)
    return podman_runtime


@pytest.fixture(scope="session")
def scout_glb(blender_runtime, tmp_path_factory) -> bytes:
    case = load(TIN_SCOUT)
    data, why = rebuild(blender_runtime, case.section, REFERENCE_BUILD.read_bytes(), tmp_path_factory.mktemp("b"))
    assert data is not None, why
    return data
