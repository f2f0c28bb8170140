"""The conformance suite runs once per backend in ``tcab.runtime.BACKENDS``."""

from __future__ import annotations

import pytest

from tcab.runtime import BACKENDS, ContainerSpec


@pytest.fixture(params=sorted(BACKENDS))
def runtime(request):
    """Each backend, connected to a real engine (docker: the Podman socket;
    kubernetes: tests/kube_standin/, no real cluster)."""
    if request.param == "docker":
        return request.getfixturevalue("podman_runtime")
    if request.param == "kubernetes":  # the stand-in API server, pods as Podman containers
        return request.getfixturevalue("kube_runtime")
    pytest.fail(f"backend {request.param!r} has no test setup in tests/runtime/conftest.py")


@pytest.fixture
def box(runtime, base_image, request):
    """A started run container of ``runtime``, removed afterwards and checked gone."""
    run_id = f"test-{request.node.name[:40]}"
    cid = runtime.start(ContainerSpec(image=base_image, run_id=run_id))
    yield cid
    runtime.remove(cid)
    assert runtime.list_run_containers(run_id) == []
