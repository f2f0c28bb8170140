"""The ``project`` fixture: a small sweep project in a temporary folder (sweep_project.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tasks.sweep_project import Project


@pytest.fixture
def project(tmp_path: Path) -> Project:
    return Project(tmp_path / "proj")
