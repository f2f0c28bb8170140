"""A Blender character sweep for real (Podman, the Blender image): the
reference harness lays tin-scout's solution build.py over the starter and
runs its .reference/draw.sh (`tcab-blend`) in the run container;
``regenerate:<run>`` checks the collected character.glb and re-builds
build.py in a fresh offline container for provenance; results.db carries
both rows; a second sweep does nothing (issue 23, items 3, 4 and 7)."""

from __future__ import annotations

import json
import sqlite3

import pytest

from tcab.runtime import resolve_image
from tests.support.sweep import plan_sweep

PLAN = """name: scouts
runtime:
  backend: docker
parallelism: 1
runs:
  - cases:
      - case: tin-scout
    harnesses:
      - reference
    repeats: 1
report: no
"""


@pytest.mark.podman
@pytest.mark.timeout(900)
def test_a_blender_sweep_builds_checks_and_rebuilds_the_reference(blender_runtime, tmp_path) -> None:
    (tmp_path / "plan.yaml").write_text(PLAN)
    first = plan_sweep(tmp_path)
    assert first.returncode == 0, first.stdout + first.stderr
    conn = sqlite3.connect(tmp_path / "results" / "results.db")
    try:
        (run_id, status, image) = conn.execute("SELECT id, status, image FROM runs").fetchone()
        regen = conn.execute("SELECT status, draw_version, flagged FROM asset_regenerations WHERE run_id = ?",
                             (run_id,)).fetchone()
        frames = conn.execute("SELECT frame, ops, flagged, image, detail FROM asset_frames WHERE run_id = ? "
                              "ORDER BY seq", (run_id,)).fetchall()
    finally:
        conn.close()
    assert status == "completed" and image.startswith(resolve_image("blender-character").rsplit(":", 1)[0])
    assert regen == ("regenerated", "tcab-blend/1", 0)
    assert frames == [("character", 4, 0, "regenerated/model.png", ""),
                      ("provenance", 0, 0, "", "provenance: the rebuild matches (meshes, skin, animation names)")]
    tree = next((tmp_path / "results" / "runs").iterdir()) / "work"
    assert not (tree / ".reference").exists() and (tree / "character.glb").is_file()
    assert (tree / "model.png").read_bytes() == (tree.parent / "regenerated/model.png").read_bytes()
    summary = json.loads((tree.parent / "regenerated/summary.json").read_text())
    assert summary["run"]["animations"] and summary["gaps"] == []
    second = plan_sweep(tmp_path)
    assert second.returncode == 0 and "nothing to do" in second.stdout, second.stdout + second.stderr
