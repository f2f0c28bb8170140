"""Fixtures for run tests: settings in a temporary folder, the sample
end-to-end case, and scripted harness definitions written on the fly."""

from __future__ import annotations

from pathlib import Path

import pytest

from tcab.catalog import load_version
from tcab.harnesses import load_harness_file
from tcab.settings import Settings

REPO = Path(__file__).resolve().parents[2]
SAMPLE_E2E = REPO / "test-cases" / "end-to-end" / "easy" / "lights-out" / "v1.0.0"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    (tmp_path / "harnesses").mkdir()
    return Settings(root=tmp_path, catalog_dir=REPO / "test-cases",
                    harnesses_dir=tmp_path / "harnesses", build_dir=tmp_path / "build",
                    results_dir=tmp_path / "results", tmp_dir=tmp_path / "tmp")


@pytest.fixture
def e2e_case():
    case, problems = load_version(SAMPLE_E2E)
    assert case is not None, problems
    return case


@pytest.fixture
def scripted(settings: Settings):
    """scripted(script, **keys) -> a Harness running ``sh -c script`` as its session."""

    def make(script: str, slug: str = "scripted", **keys):
        lines = {"slug": slug, "name": "Scripted", "binary": "sh",
                 "version_args": ["-c", "echo scripted 1.0"], "args": ["-c", script], **keys}
        text = "".join(f"{k} = {_toml(v)}\n" for k, v in lines.items())
        path = settings.harnesses_dir / f"{slug}.toml"
        path.write_text(text)
        return load_harness_file(path)

    return make


def _toml(value) -> str:
    import json

    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return json.dumps(value)  # a JSON string is a valid TOML basic string


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
