"""The ``regenerate:`` after-run task in a sweep whose runs answer through a
function (tests/tasks/sweep_fakes.py): a run's frames regenerated and
recorded, and a second sweep does nothing (issue 22, item 4)."""

from __future__ import annotations

import json
import shutil

from tcab.results import open_db
from tests.asset.support import ICONS
from tests.tasks.sweep_project import Project

PLAN = """name: assets
runs:
  - cases:
      - case: rpg-item-icons
        variants: all
    harnesses:
      - scripted
"""


def test_a_sweep_regenerates_each_run_once(tmp_path) -> None:
    project = Project(tmp_path / "proj")
    shutil.copytree(ICONS, project.path("test-cases/asset-generation/easy/rpg-item-icons/v1.0.0"))
    project.path("assets.yaml").write_text(PLAN)
    code, ran, out = project.doit("plan=assets.yaml")
    assert code == 0, out
    task = "regenerate:rpg-item-icons/v1.0.0/base/scripted/1"
    assert task in ran and "run:rpg-item-icons/v1.0.0/base/scripted/1" in ran
    record = json.loads(project.path(f"results/sweep/regenerations/{task.split(':', 1)[1]}.json").read_text())
    assert json.dumps(record).count('"regenerated"') >= 1
    db = open_db(project.path("results/results.db"))
    try:
        ((status, mismatch),) = db.execute("SELECT status, version_mismatch FROM asset_regenerations").fetchall()
        assert (status, mismatch) == ("regenerated", 0)
        assert db.execute("SELECT frame, ops, divergence FROM asset_frames").fetchall() == [("sprite", 0, 0.0)]
    finally:
        db.close()
    assert len(list(project.path("results").rglob("regenerated/sprite.png"))) == 1
    code, ran, out = project.doit("plan=assets.yaml")
    assert code == 0 and ran == set(), out
