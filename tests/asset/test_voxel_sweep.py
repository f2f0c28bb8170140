"""A voxel sweep for real (Podman, the test-cabinet-voxel and
test-cabinet-voxel-animation images): the reference harness runs each
case's reference script (solution/.reference/draw.sh, never seeded) with
the image's ``voxel`` / ``voxel-anim``, as a model would; ``regenerate:<run>``
replays the collected logs with the host's voxel library and finds the
run's own meshes byte for byte; the ``tall`` variant's volume reaches the
container's config; a second sweep does nothing (issue 23, items 4 and 7)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tcab.voxel import VERSION
from tests.support.sweep import plan_sweep

PLAN = """name: voxels
runtime:
  backend: docker
parallelism: 1
runs:
  - cases:
      - case: valve-wheel
      - case: beacon-lamp
        variants: all
    harnesses:
      - reference
    repeats: 1
report: no
"""


def _folder(tmp_path: Path, run_dir: str, run_id: str) -> Path:
    folder = tmp_path / "results" / run_dir if not Path(run_dir).is_absolute() else Path(run_dir)
    return folder if folder.exists() else next((tmp_path / "results").rglob(run_id))


@pytest.mark.podman
@pytest.mark.timeout(900)
def test_a_voxel_sweep_regenerates_the_references_and_then_does_nothing(podman_runtime, tmp_path) -> None:
    (tmp_path / "plan.yaml").write_text(PLAN)
    first = plan_sweep(tmp_path)
    assert first.returncode == 0, first.stdout + first.stderr
    conn = sqlite3.connect(tmp_path / "results" / "results.db")
    try:
        runs = conn.execute("SELECT id, case_slug, variant, status, image, run_dir FROM runs "
                            "ORDER BY case_slug, variant").fetchall()
        regens = {r[0]: r[1:] for r in conn.execute(
            "SELECT run_id, status, draw_version, version_mismatch, flagged FROM asset_regenerations")}
        parts = conn.execute("SELECT run_id, part, status, mesh_match FROM asset_voxel_parts "
                             "ORDER BY run_id, seq").fetchall()
        animations = conn.execute("SELECT run_id, name, present, keyframes, gap FROM asset_voxel_animations"
                                  ).fetchall()
    finally:
        conn.close()
    assert [(c, v, s) for _, c, v, s, _, _ in runs] == [
        ("beacon-lamp", "base", "completed"), ("beacon-lamp", "tall", "completed"),
        ("valve-wheel", "base", "completed")]
    images = {c: i for _, c, _, _, i, _ in runs}
    assert images["valve-wheel"].endswith("test-cabinet-voxel:latest")
    assert images["beacon-lamp"].endswith("test-cabinet-voxel-animation:latest")
    for run_id, *_ in runs:
        assert regens[run_id] == ("regenerated", VERSION, 0, 0)
    assert all(status == "regenerated" and match == 1 for _, _, status, match in parts)
    assert sorted(p for _, p, _, _ in parts) == ["head", "head", "model", "post", "post"]
    assert all((name, present, gap) == ("spin", 1, "") and keys == 2 for _, name, present, keys, gap in animations)

    for run_id, case, variant, _, _, run_dir in runs:
        folder = _folder(tmp_path, run_dir, run_id)
        assert not (folder / "work/.reference").exists()
        if case == "valve-wheel":
            assert (folder / "regenerated/model.glb").read_bytes() == (folder / "work/mesh.glb").read_bytes()
        else:
            assert (folder / "regenerated/head.glb").read_bytes() == (folder / "work/parts/head.glb").read_bytes()
            config = json.loads((folder / "work/.tcab/voxel.json").read_text())
            assert config["height"] == (32 if variant == "tall" else 24)

    second = plan_sweep(tmp_path)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "nothing to do" in second.stdout
