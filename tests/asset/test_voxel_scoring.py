"""Scoring a voxel run (issue 23, item 4): the logs replayed with the voxel
library, the regenerated meshes byte-identical to the tool's for honest
logs, missing parts and logs scored empty, no scorable output ``no_asset``
(the run becomes catastrophic), required animations checked with gaps as
notes. The workspaces are written by the real tools, as a harness would."""

from __future__ import annotations

import json
import os

import pytest

from tcab.catalog import load_version
from tcab.seeding import seed_repository
from tcab.testtypes.asset_voxel_score import score_voxel_tree
from tcab.voxel.cli import main_anim, main_voxel
from tests.asset.support import CORE, PIPE_HUB

BOX = ["--x0", "2", "--y0", "0", "--z0", "2", "--x1", "9", "--y1", "4", "--z1", "9"]


def _case(root):
    case, found = load_version(root)
    assert found == [] and case is not None
    return case


def _seed(case, variant, ws, monkeypatch):
    seed_repository(case, variant, ws)
    monkeypatch.chdir(ws)


def _score(case, variant, ws, tmp_path):
    run_dir = tmp_path / "run"
    return score_voxel_tree(case.section, case.section.volume_for(variant), ws, run_dir), run_dir


def test_an_honest_static_model_regenerates_its_own_mesh_byte_for_byte(tmp_path, monkeypatch) -> None:
    hub = _case(PIPE_HUB)
    ws = tmp_path / "ws"
    _seed(hub, hub.variant(), ws, monkeypatch)
    assert main_voxel(["fill-box", *BOX, "--color", "#808890"]) == 0
    assert main_voxel(["fill-sphere", "--cx", "8", "--cy", "8", "--cz", "8", "--radius", str(2 ** 62),
                       "--color", "#3a3836"]) == 0  # clipped to the volume, never looped over
    assert main_voxel(["render"]) == 0
    score, run_dir = _score(hub, hub.variant(), ws, tmp_path)
    assert score.status == "regenerated" and len(score.parts) == 1
    part = score.parts[0]
    assert part.part == "model" and part.mesh_match is True and part.voxels > 0 and part.faces > 0
    assert (run_dir / part.mesh).read_bytes() == (ws / "mesh.glb").read_bytes()
    assert (run_dir / part.image).read_bytes()[:4] == b"\x89PNG"
    assert not score.flagged and score.animations == ()


def test_a_mesh_rendered_before_the_last_ops_is_flagged(tmp_path, monkeypatch) -> None:
    hub = _case(PIPE_HUB)
    ws = tmp_path / "ws"
    _seed(hub, hub.variant(), ws, monkeypatch)
    assert main_voxel(["fill-box", *BOX, "--color", "#808890"]) == 0
    assert main_voxel(["render"]) == 0
    assert main_voxel(["set-voxel", "--x", "15", "--y", "15", "--z", "15", "--color", "#3a3836"]) == 0
    score, _ = _score(hub, hub.variant(), ws, tmp_path)
    assert score.status == "regenerated" and score.parts[0].mesh_match is False and score.flagged


def test_an_unrendered_model_scores_empty_and_is_no_asset(tmp_path, monkeypatch) -> None:
    hub = _case(PIPE_HUB)
    ws = tmp_path / "ws"
    _seed(hub, hub.variant(), ws, monkeypatch)
    assert main_voxel(["fill-box", *BOX, "--color", "#808890"]) == 0
    score, _ = _score(hub, hub.variant(), ws, tmp_path)
    assert score.status == "no_asset" and score.parts[0].status == "empty"
    assert "unrendered" in score.parts[0].detail and score.detail.startswith("no asset")


@pytest.mark.parametrize("attack", ["missing", "link", "garbage", "million-ops"])
def test_a_missing_or_hostile_log_scores_empty(tmp_path, monkeypatch, attack) -> None:
    hub = _case(PIPE_HUB)
    ws = tmp_path / "ws"
    _seed(hub, hub.variant(), ws, monkeypatch)
    log = ws / "actions.json"
    if attack == "missing":
        log.unlink()
    elif attack == "link":
        secret = tmp_path / "secret.json"
        secret.write_text('{"op": "fill-box"}\n')
        log.unlink()
        os.symlink(secret, log)
    elif attack == "garbage":
        log.write_bytes(b'{"op": "fill-box", "x0": NaN}\n')
    else:
        line = b'{"op":"set-voxel","x":1,"y":1,"z":1,"color":"#808890"}\n'
        log.write_bytes(line * 1_000_000)
    score, _ = _score(hub, hub.variant(), ws, tmp_path)
    assert score.status == "no_asset" and score.parts[0].status == "empty" and score.parts[0].detail


def _sculpt_core(ws, monkeypatch, animations=True):
    monkeypatch.chdir(ws)
    assert main_anim(["define-part", "--name", "keep"]) == 0
    assert main_anim(["define-part", "--name", "beacon", "--parent", "keep"]) == 0
    assert main_anim(["fill-box", "--part", "keep", *BOX, "--color", "#c8a24a"]) == 0
    assert main_anim(["fill-box", "--part", "beacon", "--x0", "5", "--y0", "5", "--z0", "5", "--x1", "6",
                      "--y1", "9", "--z1", "6", "--color", "#2f7d72"]) == 0
    if animations:
        assert main_anim(["define-joint", "--name", "spin", "--part", "beacon", "--kind", "rotation",
                          "--axis", "y", "--min", "-7", "--max", "7", "--drive", "auto"]) == 0
        assert main_anim(["define-animation", "--name", "idle", "--period-ms", "2000", "--loop", "true",
                          "--auto-play", "true"]) == 0
        for t, v in (("0", "0"), ("2000", "6.28")):
            assert main_anim(["add-keyframe", "--animation", "idle", "--joint", "spin", "--t-ms", t,
                              "--value", v]) == 0
    assert main_anim(["render"]) == 0


def test_an_animated_model_scores_each_part_and_notes_animation_gaps(tmp_path, monkeypatch) -> None:
    core = _case(CORE)
    half = core.variant("half")
    ws = tmp_path / "ws"
    seed_repository(core, half, ws)
    _sculpt_core(ws, monkeypatch)
    score, run_dir = _score(core, half, ws, tmp_path)
    assert score.status == "regenerated"
    assert [(p.part, p.status, p.mesh_match) for p in score.parts] == \
        [("keep", "regenerated", True), ("beacon", "regenerated", True)]
    assert (run_dir / "regenerated/beacon.glb").read_bytes() == (ws / "parts/beacon.glb").read_bytes()
    idle, upgrade = score.animations
    assert idle.present and idle.keyframes == 2 and idle.gap == ""
    assert upgrade.present and upgrade.keyframes == 0 and "no keyframes" in upgrade.gap
    assert score.notes == [upgrade.gap] and score.flagged


def test_a_missing_part_log_scores_that_part_empty(tmp_path, monkeypatch) -> None:
    core = _case(CORE)
    ws = tmp_path / "ws"
    seed_repository(core, core.variant(), ws)
    _sculpt_core(ws, monkeypatch, animations=False)
    (ws / "parts/beacon.actions.json").unlink()
    score, _ = _score(core, core.variant(), ws, tmp_path)
    assert score.status == "regenerated"
    assert [(p.part, p.status) for p in score.parts] == [("keep", "regenerated"), ("beacon", "empty")]


HOSTILE_RIGS = [
    b"", b"{not json",
    json.dumps({"parts": [{"name": "a", "parent": "b"}, {"name": "b", "parent": "a"}]}).encode(),  # a cycle
    json.dumps({"parts": [{"name": f"p{i}", "parent": None if i == 0 else "p0"} for i in range(10_000)]}).encode(),
    b'{"parts": [{"name": "a", "parent": null}], "joints": [{"name": "j", "part": "a"}], "animations": '
    b'[{"name": "idle", "tracks": [{"joint": "j", "keys": [{"t_ms": NaN, "value": 1}]}]}]}',
    b'{"parts": [{"name": "a", "parent": null}], "joints": [{"name": "j", "part": "a"}], "animations": '
    b'[{"name": "idle", "tracks": [{"joint": "j", "keys": [{"t_ms": 1e18, "value": 1}]}]}]}',
    b"[" * 100_000,
]


@pytest.mark.parametrize("rig", HOSTILE_RIGS, ids=["empty", "garbage", "cycle", "10k-parts", "nan-key", "1e18-key",
                                                   "deep"])
def test_no_scorable_output_is_no_asset(tmp_path, monkeypatch, rig) -> None:
    core = _case(CORE)
    ws = tmp_path / "ws"
    seed_repository(core, core.variant(), ws)
    (ws / "rig.json").write_bytes(rig)
    score, _ = _score(core, core.variant(), ws, tmp_path)
    assert score.status == "no_asset" and score.detail.startswith("no asset")


def test_a_voxel_regeneration_is_recorded_per_part_and_animation(tmp_path, monkeypatch) -> None:
    from tcab.results import open_db, record_asset_regeneration
    from tcab.testtypes.asset_voxel_score import regeneration_row

    core = _case(CORE)
    ws = tmp_path / "ws"
    seed_repository(core, core.variant(), ws)
    _sculpt_core(ws, monkeypatch)
    score, _ = _score(core, core.variant(), ws, tmp_path)
    db = open_db(tmp_path / "results.db")
    try:
        record_asset_regeneration(db, {"run_id": "r1", "case_slug": core.slug, "case_version": core.version,
                                       "case_digest": "d" * 64, "regen_key": "k",
                                       "regenerated_at": "2026-01-01T00:00:00+00:00", **regeneration_row(score)})
        parts = db.execute("SELECT part, status, mesh_match, voxels > 0 FROM asset_voxel_parts ORDER BY seq").fetchall()
        gaps = db.execute("SELECT name, present, keyframes, gap FROM asset_voxel_animations ORDER BY seq").fetchall()
        status = db.execute("SELECT status, flagged FROM asset_regenerations").fetchone()
    finally:
        db.close()
    assert parts == [("keep", "regenerated", 1, 1), ("beacon", "regenerated", 1, 1)]
    assert gaps[0] == ("idle", 1, 2, "") and gaps[1][:3] == ("upgrade", 1, 0) and "no keyframes" in gaps[1][3]
    assert status == ("regenerated", 1)


def test_a_regenerated_model_gets_a_deterministic_turntable(tmp_path, monkeypatch) -> None:
    from PIL import Image

    core = _case(CORE)
    ws = tmp_path / "ws"
    seed_repository(core, core.variant("half"), ws)
    _sculpt_core(ws, monkeypatch)
    score, run_dir = _score(core, core.variant("half"), ws, tmp_path)
    turntable = run_dir / "exports/turntable.png"
    image = Image.open(turntable)
    assert image.n_frames == 24 and image.size == (256, 256) and image.info["duration"] == 125
    frames = []
    for i in range(0, 24, 6):
        image.seek(i)
        frames.append(image.convert("RGBA").tobytes())
    assert len(set(frames)) == 4  # it turns
    first = turntable.read_bytes()
    score_voxel_tree(core.section, core.section.volume_for(core.variant("half")), ws, tmp_path / "again")
    assert (tmp_path / "again/exports/turntable.png").read_bytes() == first


@pytest.mark.parametrize(("limit", "value", "named"), [("MAX_RIG_WORK", 330, "MAX_RIG_WORK"),
                                                       ("MAX_SCENE_FACES", 300, "MAX_SCENE_FACES")])
def test_a_rigs_parts_share_the_tools_budgets_when_scored(tmp_path, monkeypatch, limit, value, named) -> None:
    """keep (320 work, 288 faces) and beacon (20 work, 48 faces) each fit the
    lowered budget; together they pass it, as the tool's full render says.
    Each part's mesh came from ``render --component``, which no rig budget bounds."""
    from tcab.voxel import limits

    core = _case(CORE)
    ws = tmp_path / "ws"
    seed_repository(core, core.variant(), ws)
    _sculpt_core(ws, monkeypatch, animations=False)
    monkeypatch.setattr(limits, limit, value)
    for part in ("keep", "beacon"):
        assert main_anim(["render", "--component", part]) == 0
    assert main_anim(["render"]) == 1  # the tool refuses the rig whole
    score, run_dir = _score(core, core.variant(), ws, tmp_path)
    keep, beacon = score.parts
    assert (keep.part, keep.status, keep.mesh_match) == ("keep", "regenerated", True)
    assert (beacon.part, beacon.status) == ("beacon", "empty") and named in beacon.detail
    assert "parts/beacon.actions.json" in beacon.detail


def test_an_unrendered_part_scores_empty_and_writes_nothing(tmp_path, monkeypatch) -> None:
    core = _case(CORE)
    ws = tmp_path / "ws"
    seed_repository(core, core.variant(), ws)
    _sculpt_core(ws, monkeypatch, animations=False)
    (ws / "parts/beacon.glb").unlink()  # its log replays, but the run never rendered it
    score, run_dir = _score(core, core.variant(), ws, tmp_path)
    beacon = score.parts[1]
    assert (beacon.status, beacon.mesh, beacon.image) == ("empty", "", "") and "unrendered" in beacon.detail
    assert sorted(p.name for p in (run_dir / "regenerated").iterdir()) == ["keep.glb", "keep.png"]


def test_a_rescore_leaves_no_stale_output(tmp_path, monkeypatch) -> None:
    core = _case(CORE)
    ws = tmp_path / "ws"
    seed_repository(core, core.variant(), ws)
    _sculpt_core(ws, monkeypatch, animations=False)
    score, run_dir = _score(core, core.variant(), ws, tmp_path)
    assert score.status == "regenerated" and (run_dir / "regenerated/beacon.png").is_file()
    (ws / "parts/beacon.actions.json").unlink()
    score, _ = _score(core, core.variant(), ws, tmp_path)
    assert [p.status for p in score.parts] == ["regenerated", "empty"]
    assert sorted(p.name for p in (run_dir / "regenerated").iterdir()) == ["keep.glb", "keep.png"]
    assert (run_dir / "exports/turntable.png").is_file()
    (ws / "parts/keep.actions.json").unlink()
    score, _ = _score(core, core.variant(), ws, tmp_path)
    assert score.status == "no_asset"
    assert not (run_dir / "exports/turntable.png").exists()
    assert not (run_dir / "regenerated").exists() or not any((run_dir / "regenerated").iterdir())
