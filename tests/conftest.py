"""Shared fixtures (thin wrappers over tests/support/; a part's conftest
may override one, as tests/arena does ``settings``).

``settings``: Settings in a temporary folder over the shipped catalog.
``e2e_case``: the sample end-to-end case, lights-out v1.0.0.
``scripted``: scripted(script, slug=..., **keys) -> a harness running ``sh -c script``.
``make_run``: make_run(run_id, files=..., case=..., version=..., solution=...) ->
the RunRecord of a run folder written by tests/support/run_folders.py.
``podman_runtime``: the docker runtime on Podman's socket (``make podman``
starts it), checked once per session. The container tests need it and the
run images (``make images``); when either is missing they fail with the
command that fixes it, rather than skipping.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tcab.catalog import load_version
from tcab.settings import Settings
from tests.support.harness_files import scripted_harness
from tests.support.paths import LIGHTS_OUT
from tests.support.run_folders import lights_out_run
from tests.support.settings import tmp_settings


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return tmp_settings(tmp_path)


@pytest.fixture
def e2e_case():
    case, problems = load_version(LIGHTS_OUT)
    assert case is not None, problems
    return case


@pytest.fixture
def scripted(settings: Settings):
    return lambda script, slug="scripted", **keys: scripted_harness(settings, script, slug, **keys)


@pytest.fixture
def make_run(settings: Settings, tmp_path: Path):
    return lambda run_id, files=None, **kw: lights_out_run(settings, tmp_path / "trees", run_id, files, **kw)


@pytest.fixture(scope="session")
def base_image() -> str:
    """The end-to-end run image, resolved as runs resolve it."""
    from tcab.runtime import resolve_image

    return resolve_image("base-wasm")


@pytest.fixture(scope="session")
def podman_runtime(base_image):
    from tcab.errors import RuntimeBackendError
    from tcab.runtime import get_runtime

    try:
        runtime = get_runtime("docker")
        runtime.api.ping()
    except (RuntimeBackendError, Exception) as exc:  # noqa: BLE001 - any failure means "not up"
        pytest.fail(f"Podman's socket does not answer ({exc}); run `make podman`", pytrace=False)
    try:
        runtime.ensure_image(base_image, pull=False)
    except RuntimeBackendError:
        pytest.fail(f"{base_image} is missing; run `make images`", pytrace=False)
    return runtime


@pytest.fixture(scope="session")
def kube_standin(podman_runtime, tmp_path_factory):
    """The stand-in Kubernetes API server (tests/kube_standin/), one per
    session; at the end, no pod may be left in it."""
    from tests.kube_standin import StandIn

    server = StandIn().start()
    server.kubeconfig = server.write_kubeconfig(tmp_path_factory.mktemp("kube") / "config")
    yield server
    leaked = server.stop()
    assert leaked == [], f"pods left behind in the stand-in: {leaked}"


@pytest.fixture
def kube_runtime(kube_standin):
    """The kubernetes backend on the stand-in, with no fault turned on."""
    from tcab.runtime import get_runtime
    from tests.kube_standin import Faults

    kube_standin.faults.__init__()  # every test starts from no faults
    del Faults
    return get_runtime("kubernetes", kubeconfig=str(kube_standin.kubeconfig))
