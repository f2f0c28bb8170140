"""Shared fixtures.

``podman_runtime``: the docker runtime on Podman's socket (``make podman``
starts it), checked once per session. The container tests need it and the
run images (``make images``); when either is missing they fail with the
command that fixes it, rather than skipping.
"""

from __future__ import annotations

import pytest

BASE_IMAGE = "ghcr.io/theclockwyrks/test-cabinet-base-wasm:latest"


@pytest.fixture(scope="session")
def podman_runtime():
    from tcab.errors import RuntimeBackendError
    from tcab.runtime import get_runtime

    try:
        runtime = get_runtime("docker")
        runtime.api.ping()
    except (RuntimeBackendError, Exception) as exc:  # noqa: BLE001 - any failure means "not up"
        pytest.fail(f"Podman's socket does not answer ({exc}); run `make podman`", pytrace=False)
    try:
        runtime.ensure_image(BASE_IMAGE, pull=False)
    except RuntimeBackendError:
        pytest.fail(f"{BASE_IMAGE} is missing; run `make images`", pytrace=False)
    return runtime


@pytest.fixture
def container(podman_runtime, request):
    """A started base-wasm container, removed after the test (and checked gone)."""
    from tcab.runtime import ContainerSpec

    run_id = f"test-{request.node.name[:40]}"
    cid = podman_runtime.start(ContainerSpec(image=BASE_IMAGE, run_id=run_id))
    yield cid
    podman_runtime.remove(cid)
    assert podman_runtime.list_run_containers(run_id) == []
