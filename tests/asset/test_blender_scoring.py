"""Scoring a blender-character run (issue 23, item 4): the collected
character.glb decoded bounded, its contract checked (mesh, skin, the
required animations by name, the caller joints), its preview drawn again,
and build.py re-run in a fresh offline container of the Blender image for
provenance. What goes wrong is a status or a flagged note, never a crash."""

from __future__ import annotations

import dataclasses
import json

from tcab.testtypes.asset_blender import container_rebuild, score_blender
from tcab.testtypes.asset_blender_manifest import CallerJoint, ModelAnimation
from tests.blender.support import (
    REFERENCE_BUILD,
    TIN_SCOUT,
    TRIANGLE_BIN,
    large_triangles_glb,
    load,
    make_glb,
    triangle_doc,
)


def _tree(tmp_path, glb: bytes | None, script: bytes | None = None):
    tree = tmp_path / "tree"
    tree.mkdir(parents=True)
    if glb is not None:
        (tree / "character.glb").write_bytes(glb)
    (tree / "build.py").write_bytes(REFERENCE_BUILD.read_bytes() if script is None else script)
    return tree


def test_an_honest_run_scores_clean_and_its_rebuild_matches(blender_runtime, scout_glb, tmp_path) -> None:
    section = load(TIN_SCOUT).section
    run_dir = tmp_path / "run"
    score = score_blender(section, _tree(tmp_path, scout_glb), run_dir,
                          container_rebuild(blender_runtime, "score-test", tmp_path / "tmp"))
    assert score.status == "regenerated" and not score.flagged, score
    character, provenance = (f.row() for f in score.frames)
    assert character["frame"] == "character" and character["ops"] == 4 and character["detail"] == ""
    assert provenance["detail"] == "provenance: the rebuild matches (meshes, skin, animation names)"
    assert (run_dir / "regenerated/model.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    summary = json.loads((run_dir / "regenerated/summary.json").read_text())
    assert summary["run"]["animations"] == summary["rebuilt"]["animations"]


def test_a_build_py_that_no_longer_reproduces_the_glb_is_flagged(blender_runtime, scout_glb, tmp_path) -> None:
    section = load(TIN_SCOUT).section
    starter = (TIN_SCOUT / "specs/build.py").read_bytes()  # raises NotImplementedError
    score = score_blender(section, _tree(tmp_path, scout_glb, starter), tmp_path / "run",
                          container_rebuild(blender_runtime, "score-test", tmp_path / "tmp"))
    assert score.status == "regenerated" and score.flagged
    assert "provenance: the rebuild produced no character.glb" in score.frames[1].detail


def test_gaps_in_the_contract_are_flagged_notes(scout_glb, tmp_path) -> None:
    base = load(TIN_SCOUT).section
    section = dataclasses.replace(base, animations=base.animations + (ModelAnimation("wave", False, False),),
                                  joints=(CallerJoint("aim_pitch", "rotation", "y", -1, 1, 0),
                                          CallerJoint("turret_yaw", "rotation", "y", -1, 1, 0)))
    same = lambda s, script: (scout_glb, "")  # noqa: E731 - a rebuild that reproduces the run
    score = score_blender(section, _tree(tmp_path, scout_glb), tmp_path / "run", same)
    detail = score.frames[0].detail
    assert score.status == "regenerated" and score.frames[0].flagged and not score.frames[1].flagged
    assert "animation 'wave' missing" in detail
    assert "caller joint 'aim_pitch': tagged 'rotation' about 'x', expected 'rotation' about 'y'" in detail
    assert "caller joint 'turret_yaw': no node's extras.tcab_joint names it" in detail


def test_a_glb_without_a_skin_is_a_gap_and_no_glb_is_no_asset(tmp_path) -> None:
    section = load(TIN_SCOUT).section
    static = make_glb(triangle_doc(), TRIANGLE_BIN)
    score = score_blender(section, _tree(tmp_path, static), tmp_path / "run", None)
    assert score.status == "regenerated" and "no skin" in score.frames[0].detail
    assert score.frames[1].detail == "provenance not checked: no container runtime given"
    missing = score_blender(section, _tree(tmp_path / "m", None), tmp_path / "run2", None)
    assert missing.status == "no_asset" and "character.glb missing (tcab-blend was not run)" in missing.detail


def test_a_hostile_or_linked_glb_is_no_asset(tmp_path) -> None:
    section = load(TIN_SCOUT).section
    bomb = make_glb(triangle_doc(count=10**9), TRIANGLE_BIN)
    score = score_blender(section, _tree(tmp_path, bomb), tmp_path / "run", None)
    assert score.status == "no_asset" and "over MAX_ELEMENTS" in score.detail
    tree = _tree(tmp_path / "l", None)
    (tmp_path / "outside.glb").write_bytes(make_glb(triangle_doc(), TRIANGLE_BIN))
    (tree / "character.glb").symlink_to(tmp_path / "outside.glb")
    linked = score_blender(section, tree, tmp_path / "run2", None)
    assert linked.status == "no_asset" and "character.glb" in linked.detail


def test_the_rebuild_uses_the_pinned_blender_image(blender_runtime, scout_glb, tmp_path, monkeypatch) -> None:
    """TCAB_CONTAINER_IMAGE_BLENDER pins the image provenance rebuilds in; an
    engine that cannot find it is a flagged note naming it, not a crash."""
    from tcab.testtypes.asset_blender import _guard

    monkeypatch.setenv("TCAB_CONTAINER_IMAGE_BLENDER", "localhost/tcab/no-such-blender:0")
    section = load(TIN_SCOUT).section
    rebuild = _guard(container_rebuild(blender_runtime, "score-test", tmp_path / "tmp"))
    score = score_blender(section, _tree(tmp_path, scout_glb), tmp_path / "run", rebuild)
    assert score.status == "regenerated" and score.frames[1].flagged
    assert "localhost/tcab/no-such-blender:0" in score.frames[1].detail


def test_a_glb_too_costly_to_preview_is_a_note_not_a_crash(tmp_path) -> None:
    section = load(TIN_SCOUT).section
    score = score_blender(section, _tree(tmp_path, large_triangles_glb(5_000)), tmp_path / "run", None)
    assert score.status == "regenerated" and "preview not drawn" in score.frames[0].detail
    assert "MAX_RASTER_PIXELS" in score.frames[0].detail


def test_a_malformed_glb_is_no_asset_and_a_bad_joint_tag_is_a_gap(tmp_path) -> None:
    """The reader's refusals reach scoring as GlbError, never as a crash."""
    section = load(TIN_SCOUT).section
    doc = triangle_doc()
    doc["materials"] = [{"pbrMetallicRoughness": [1, 0, 0, 1]}]
    score = score_blender(section, _tree(tmp_path, make_glb(doc, TRIANGLE_BIN)), tmp_path / "run", None)
    assert score.status == "no_asset" and "materials[0].pbrMetallicRoughness: expected an object" in score.detail
    doc = {**triangle_doc(), "nodes": [{"extras": {"tcab_joint": {"name": ["aim_pitch"]}}}]}
    tagged = score_blender(section, _tree(tmp_path / "t", make_glb(doc, TRIANGLE_BIN)), tmp_path / "run2", None)
    assert tagged.status == "regenerated" and "caller joint 'aim_pitch': no node's" in tagged.frames[0].detail


def test_the_rebuild_gives_tcab_blend_and_the_container_one_timeout(tmp_path, monkeypatch) -> None:
    """The config's timeout_seconds is the rebuild's bound (at least 1 s),
    the container's is that plus the grace; no engine is needed to see it."""
    import contextlib
    from types import SimpleNamespace

    import tcab.runtime.build
    from tcab.testtypes.asset_blender import GRACE_S

    seen = {}

    @contextlib.contextmanager
    def box(rt, image, work, steps, *, name, limits, offline):
        seen.update(config=json.loads((work / "blender.config.json").read_bytes()), limits=limits)
        yield SimpleNamespace(ok=False, log="stood in")
    monkeypatch.setattr(tcab.runtime.build, "build_in_container", box)
    rt = SimpleNamespace(ensure_image=lambda ref: ref)
    section = load(TIN_SCOUT).section
    for timeout_s, expected in ((0.5, 1), (30.0, 30), (10_000.0, 900)):
        assert container_rebuild(rt, "t", tmp_path, timeout_s=timeout_s)(section, b"") == (None, "stood in")
        assert seen["config"]["timeout_seconds"] == expected
        assert seen["limits"].timeout_s == expected + GRACE_S
