"""Fixtures for validation tests: settings in a temporary folder and
``make_run``, which lays a run folder the way a run leaves it (through
``run_folders.write_run``: the real ``run.json`` writer): the case's starter
workspace with a solution laid over it, then whatever edits the test makes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from run_folders import write_run

from tcab.catalog import resolve_case
from tcab.runs import RunRecord
from tcab.settings import Settings

REPO = Path(__file__).resolve().parents[2]
LIGHTS_OUT = REPO / "test-cases" / "end-to-end" / "easy" / "lights-out" / "v1.0.0"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    (tmp_path / "harnesses").mkdir()
    return Settings(root=tmp_path, catalog_dir=REPO / "test-cases",
                    harnesses_dir=tmp_path / "harnesses", build_dir=tmp_path / "build",
                    results_dir=tmp_path / "results", tmp_dir=tmp_path / "tmp")


@pytest.fixture
def make_run(settings: Settings, tmp_path: Path):
    """make_run(run_id, files={rel: text}, case=..., version=...) -> the RunRecord."""

    def make(run_id: str, files: dict[str, str] | None = None, case: str = "lights-out",
             version: str = "v1.0.0", solution: bool = True) -> RunRecord:
        case_v = resolve_case(settings.catalog_dir, case, version)
        tree = None
        if case == "lights-out":
            tree = tmp_path / "trees" / run_id
            shutil.copytree(LIGHTS_OUT / "workspaces" / "base", tree)
            if solution:
                for layer in ("common", "classic"):
                    shutil.copytree(LIGHTS_OUT / "solutions" / layer, tree, dirs_exist_ok=True)
        variant = "classic" if case == "lights-out" else None
        return write_run(settings.runs_dir, run_id, case_v, variant=variant, tree=tree, files=files)

    return make
