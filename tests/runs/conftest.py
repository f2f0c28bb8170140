"""The run tests' own fixture: ``runtime``, each backend in turn (the shared
fixtures are in tests/conftest.py)."""

from __future__ import annotations

import pytest


@pytest.fixture(params=["docker", "kubernetes"])
def runtime(request):
    """The run lifecycle's backend, each in turn: docker on the Podman socket,
    kubernetes on the stand-in API server (tests/kube_standin/, pods as
    Podman containers; no real cluster). After a kubernetes test the stand-in
    must hold no pod."""
    if request.param == "docker":
        yield request.getfixturevalue("podman_runtime")
        return
    rt = request.getfixturevalue("kube_runtime")
    yield rt
    assert request.getfixturevalue("kube_standin").pods() == [], "a pod was left behind"
