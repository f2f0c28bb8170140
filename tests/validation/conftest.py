"""Fixtures for validation tests: settings in a temporary folder and
``make_run``, which lays a run folder (``run.json`` + ``work/``) the way a
run leaves it: the case's starter workspace with a solution laid over it,
then whatever edits the test makes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

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
def make_run(settings: Settings):
    """make_run(run_id, files={rel: text}, case=..., version=...) -> the run folder."""

    def make(run_id: str, files: dict[str, str] | None = None, case: str = "lights-out",
             version: str = "v1.0.0", solution: bool = True) -> Path:
        run_dir = settings.runs_dir / run_id
        work = run_dir / "work"
        if case == "lights-out":
            shutil.copytree(LIGHTS_OUT / "workspaces" / "base", work)
            if solution:
                for layer in ("common", "classic"):
                    shutil.copytree(LIGHTS_OUT / "solutions" / layer, work, dirs_exist_ok=True)
        else:
            work.mkdir(parents=True)
        for rel, text in (files or {}).items():
            (work / rel).parent.mkdir(parents=True, exist_ok=True)
            (work / rel).write_text(text)
        subject = {"case": case, "version": version, "variant": "classic" if case == "lights-out" else "base",
                   "harness": "reference"}
        (run_dir / "run.json").write_text(json.dumps(
            {"id": run_id, "subject": subject, "status": "completed", "artifact": {"path": "work"}}))
        return run_dir

    return make
