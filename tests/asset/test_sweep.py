"""An asset sweep for real (Podman, the sprite image): the reference harness
runs ember-gem's reference implementation (solution/.reference/draw.sh,
never seeded) with the image's ``draw``; ``regenerate:<run>`` replays the
collected log into ``regenerated/sprite.png``, equal to the model's own
preview; results.db and ``tcab report`` carry it; a second sweep does
nothing (issue 22, item 5)."""

from __future__ import annotations

import csv
import io
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tcab.draw import VERSION
from tests.support.paths import REPO
from tests.support.sweep import plan_sweep, sweep_env

PLAN = """name: gems
runtime:
  backend: docker
parallelism: 1
runs:
  - cases:
      - case: ember-gem
    harnesses:
      - reference
    repeats: 1
report: no
"""


@pytest.mark.podman
@pytest.mark.timeout(900)
def test_an_asset_sweep_regenerates_the_reference_and_then_does_nothing(podman_runtime, tmp_path) -> None:
    (tmp_path / "plan.yaml").write_text(PLAN)
    first = plan_sweep(tmp_path)
    assert first.returncode == 0, first.stdout + first.stderr
    conn = sqlite3.connect(tmp_path / "results" / "results.db")
    try:
        (run_id, status, image, run_dir) = conn.execute("SELECT id, status, image, run_dir FROM runs").fetchone()
        regen = conn.execute("SELECT status, draw_version, version_mismatch, flagged FROM asset_regenerations "
                             "WHERE run_id = ?", (run_id,)).fetchone()
        frames = conn.execute("SELECT frame, ops, divergence, flagged FROM asset_frames WHERE run_id = ?",
                              (run_id,)).fetchall()
    finally:
        conn.close()
    assert status == "completed" and image.endswith("test-cabinet-sprite:latest")
    assert regen == ("regenerated", VERSION, 0, 0)
    assert frames == [("sprite", 16, 0.0, 0)]
    folder = tmp_path / "results" / run_dir if not Path(run_dir).is_absolute() else Path(run_dir)
    folder = folder if folder.exists() else next((tmp_path / "results").rglob(run_id))
    assert (folder / "regenerated/sprite.png").read_bytes() == (folder / "work/canvas.png").read_bytes()
    assert not (folder / "work/.reference").exists()  # the reference implementation is not handed in

    report = subprocess.run([sys.executable, "-m", "tcab", "report", "--csv", "--table", "asset-regenerations"],
                            cwd=REPO, env=sweep_env(tmp_path), capture_output=True, text=True, timeout=120)
    assert report.returncode == 0, report.stderr
    (row,) = csv.DictReader(io.StringIO(report.stdout))
    assert (row["status"], row["ops"], float(row["divergence"])) == ("regenerated", "16", 0.0)

    second = plan_sweep(tmp_path)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "nothing to do" in second.stdout, second.stdout


SHEET_PLAN = PLAN.replace("name: gems", "name: candles").replace("case: ember-gem", "case: candle-flicker")


@pytest.mark.podman
@pytest.mark.timeout(900)
def test_a_sheet_sweep_regenerates_every_frame_of_the_reference_and_exports_it(podman_runtime, tmp_path) -> None:
    """candle-flicker's reference (draw-sheet: shared layers, keyframes,
    per-frame marks) in the sheet image: every frame regenerates equal to its
    preview, and the sweep writes its exports for tcab view (item 8)."""
    from PIL import Image

    (tmp_path / "plan.yaml").write_text(SHEET_PLAN)
    first = plan_sweep(tmp_path)
    assert first.returncode == 0, first.stdout + first.stderr
    conn = sqlite3.connect(tmp_path / "results" / "results.db")
    try:
        (run_id, status, image) = conn.execute("SELECT id, status, image FROM runs").fetchone()
        regen = conn.execute("SELECT status, flagged FROM asset_regenerations WHERE run_id = ?", (run_id,)).fetchone()
        frames = conn.execute("SELECT frame, divergence, flagged FROM asset_frames WHERE run_id = ? ORDER BY frame",
                              (run_id,)).fetchall()
    finally:
        conn.close()
    assert status == "completed" and image.endswith("test-cabinet-sprite-sheet:latest")
    assert regen == ("regenerated", 0)
    assert frames == [(str(i), 0.0, 0) for i in range(4)]
    folder = next((tmp_path / "results").rglob(run_id))
    for i in range(4):
        assert (folder / f"regenerated/{i}.png").read_bytes() == (folder / f"work/frames/{i}.png").read_bytes()
    assert (folder / "work/.tcab/layers.jsonl").stat().st_size > 0  # drawn on shared layers
    assert not (folder / "work/.reference").exists()
    flicker = Image.open(folder / "exports/sequences/flicker.png")
    assert flicker.n_frames == 4 and flicker.info["duration"] == 125

    # The author's command renders the same reference on the host: the same frames, the same exports.
    rendered = subprocess.run([sys.executable, "-m", "tcab", "asset", "render-reference", "candle-flicker",
                               "--out", str(tmp_path / "rendered")], cwd=REPO, env=sweep_env(tmp_path),
                              capture_output=True, text=True, timeout=300)
    assert rendered.returncode == 0, rendered.stderr
    for i in range(4):
        assert (tmp_path / f"rendered/frames/{i}.png").read_bytes() == (folder / f"regenerated/{i}.png").read_bytes()
    for rel in ("atlas.png", "atlas.json", "sequences/flicker.png"):
        assert (tmp_path / "rendered" / rel).read_bytes() == (folder / "exports" / rel).read_bytes(), rel
