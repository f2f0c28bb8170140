"""The voxel kinds' manifests (issue 23, item 1): ``[voxel]`` with its limits,
the per-variant override flowing into seeding, ``{{voxel.*}}`` and scoring,
``[model]`` animations, ``{part}`` paths, and the 2D/3D tables kept apart.
The original's two voxel cases load unchanged, validate, seed and prompt."""

from __future__ import annotations

import dataclasses
import json

import pytest

from tcab.catalog import load_version
from tcab.seeding import check_case, render_prompt
from tcab.seeding.plan import plan_seed
from tcab.testtypes.asset_voxel import (
    MAX_SIDE,
    MAX_VOXELS,
    VOXEL_QUALITY_DIRECTIVE,
    RequiredAnimation,
    VoxelSection,
    VoxelVolume,
)
from tests.asset.support import CORE, ICONS, PIPE_HUB, copy, edit, edit_file, line, problems


def _load(root):
    case, found = load_version(root)
    assert found == [] and case is not None, [str(p) for p in found]
    return case


def test_the_originals_voxel_cases_load_into_frozen_sections() -> None:
    hub, core = _load(PIPE_HUB), _load(CORE)
    assert isinstance(hub.section, VoxelSection) and hub.section.kind == "voxel-model"
    assert hub.section.volume == VoxelVolume(16, 16, 16, "transparent")
    assert (hub.section.binary, hub.section.preview, hub.section.actions) == ("voxel", "model.png", "actions.json")
    assert hub.section.animations == () and not hub.section.animated
    assert core.section.animated and core.section.preview == "parts/{part}.png"
    assert core.section.animations == (RequiredAnimation("idle", True, True), RequiredAnimation("upgrade", False, False))
    assert [v.slug for v in core.variants] == ["base", "half", "double"]
    assert hub.test_type.run_image_for(hub) == "voxel-model"
    assert core.test_type.run_image_for(core) == "voxel-animation"
    with pytest.raises(dataclasses.FrozenInstanceError):
        core.section.volume.width = 1  # type: ignore[misc]


@pytest.mark.parametrize("root", [PIPE_HUB, CORE], ids=["caldera-pipe-hub", "caldera-core"])
def test_the_originals_voxel_cases_validate_seed_and_prompt(root) -> None:
    case = _load(root)
    assert check_case(case) == []
    for variant in case.variants:
        seeded = {e.dest: e.data for e in plan_seed(case, variant)}
        assert "specs/brief.md" in seeded and ".tcab/voxel.json" in seeded
        prompt = render_prompt(case, variant)
        assert prompt.startswith(VOXEL_QUALITY_DIRECTIVE) and "{{" not in prompt and "/work/specs/brief.md" in prompt


def test_the_variant_volume_flows_into_seed_brief_prompt_and_scoring() -> None:
    core = _load(CORE)
    sizes = {"base": (80, 70, 80), "half": (40, 35, 40), "double": (160, 140, 160)}
    for variant in core.variants:
        w, h, d = sizes[variant.slug]
        assert core.section.volume_for(variant) == VoxelVolume(w, h, d)
        seeded = {e.dest: e.data for e in plan_seed(core, variant)}
        config = json.loads(seeded[".tcab/voxel.json"])
        assert (config["width"], config["height"], config["depth"]) == (w, h, d)
        brief = seeded["specs/brief.md"].decode()
        assert f"**{w} wide (x) × {h} tall (y) × {d} deep (z)**" in brief
        assert f"`0`–`{w - 1}`" in brief and f"`z = {d - 1}`" in brief
        assert f"as a {w}x{h}x{d} opaque-voxel model" in render_prompt(core, variant)


def test_an_animated_seed_declares_the_required_animations_and_no_parts() -> None:
    core = _load(CORE)
    seeded = {e.dest: e.data for e in plan_seed(core, core.variant())}
    rig = json.loads(seeded["rig.json"])
    assert rig["parts"] == [] and rig["joints"] == [] and rig["version"] == 1
    assert [(a["name"], a["loop"], a["auto_play"]) for a in rig["animations"]] == \
        [("idle", True, True), ("upgrade", False, False)]
    config = json.loads(seeded[".tcab/voxel.json"])
    assert config["actions"] == "parts/{part}.actions.json" and "live" not in config
    hub = _load(PIPE_HUB)
    seeded = {e.dest: e.data for e in plan_seed(hub, hub.variant())}
    assert seeded["actions.json"] == b"" and "rig.json" not in seeded


@pytest.mark.parametrize("key", ["width", "height", "depth"])
def test_a_million_voxels_per_side_is_refused_naming_the_limit(tmp_path, key) -> None:
    root = copy(PIPE_HUB, tmp_path)
    edit(root, f"{key} = 16", f"{key} = 1000000")
    found = problems(root)
    assert any(f"test-case.toml:{line(root, key + ' = 1000000')}: [voxel].{key}: " in p and "MAX_SIDE" in p
               and str(MAX_SIDE) in p for p in found), found


def test_a_volume_over_the_voxel_budget_is_refused_naming_the_limit(tmp_path) -> None:
    root = copy(PIPE_HUB, tmp_path)
    edit(root, "width = 16\nheight = 16\ndepth = 16", f"width = {MAX_SIDE}\nheight = {MAX_SIDE}\ndepth = {MAX_SIDE}")
    found = problems(root)
    assert any("[voxel].width: " in p and "MAX_VOXELS" in p and str(MAX_VOXELS) in p for p in found), found


@pytest.mark.parametrize("value", ["0", "-3", "1.5", '"16"', "true"])
def test_a_side_must_be_a_positive_integer(tmp_path, value) -> None:
    root = copy(PIPE_HUB, tmp_path)
    edit(root, "depth = 16", f"depth = {value}")
    assert any("[voxel].depth: expected a positive integer" in p for p in problems(root))


def test_a_bad_background_and_an_unknown_voxel_key_are_refused(tmp_path) -> None:
    root = copy(PIPE_HUB, tmp_path)
    edit(root, 'background = "transparent"', 'background = "mauve"\nalpha = 1')
    found = problems(root)
    assert any("[voxel].background: expected 'transparent' or '#rrggbb'" in p for p in found), found
    assert any("[voxel].alpha: unknown key" in p for p in found), found


def test_a_variants_bad_volume_is_refused_naming_the_variant_file(tmp_path) -> None:
    root = copy(CORE, tmp_path)
    edit_file(root, "variants/double.toml", "width = 160", "width = 1000000")
    found = problems(root)
    assert any("variants/double.toml:8: [voxel].width: " in p and "MAX_SIDE" in p for p in found), found


def test_a_2d_case_never_declares_voxel_nor_its_variants(tmp_path) -> None:
    root = copy(ICONS, tmp_path)
    edit(root, "[canvas]", "[voxel]\nwidth = 4\nheight = 4\ndepth = 4\n\n[canvas]")
    assert any("voxel: a sprite case has no [voxel]: only the 3D kinds" in p for p in problems(root))
    root = copy(ICONS, tmp_path / "v")
    (root / "variants/base.toml").write_text((root / "variants/base.toml").read_text()
                                             + "\n[voxel]\nwidth = 4\nheight = 4\ndepth = 4\n")
    assert any("variants/base.toml" in p and "voxel: only a voxel case's variants declare [voxel]" in p
               for p in problems(root))


def test_a_voxel_case_never_declares_canvas_and_needs_its_voxel(tmp_path) -> None:
    root = copy(PIPE_HUB, tmp_path)
    edit(root, "\n[voxel]\n", "\n[canvas]\nwidth = 4\nheight = 4\n\n[voxel]\n")
    assert any("canvas: a voxel case declares [voxel], never [canvas]" in p for p in problems(root))
    root = copy(PIPE_HUB, tmp_path / "b")
    edit(root, "\n[voxel]\nwidth = 16\nheight = 16\ndepth = 16\nbackground = \"transparent\"\n", "\n")
    assert any("voxel: missing required key" in p for p in problems(root))


def test_the_binary_must_be_the_kinds_tool(tmp_path) -> None:
    root = copy(PIPE_HUB, tmp_path)
    edit(root, 'binary = "voxel"', 'binary = "voxel-anim"')
    assert any('[tool].binary: a voxel-model is sculpted with "voxel"' in p for p in problems(root))


@pytest.mark.parametrize(("src", "old", "new", "message"), [
    ("hub", 'preview = "model.png"', 'preview = "{part}.png"', "may not contain {part}"),
    ("hub", 'actions = "actions.json"', 'actions = "../actions.json"', "no empty, '.' or '..' part"),
    ("core", 'actions = "parts/{part}.actions.json"', 'actions = "parts/all.json"', "must contain {part}"),
    ("core", 'preview = "parts/{part}.png"', 'preview = "/{part}.png"', "expected a relative path"),
    ("core", 'preview = "parts/{part}.png"', 'preview = "parts/{frame}/{part}.png"', "only {part} may be"),
    ("hub", 'background = "transparent"', 'background = "#ff000080"', "expected 'transparent' or '#rrggbb'"),
])
def test_part_paths_follow_the_kind(tmp_path, src, old, new, message) -> None:
    root = copy(PIPE_HUB if src == "hub" else CORE, tmp_path)
    edit(root, old, new)
    found = problems(root)
    assert any(message in p for p in found), found


def test_model_is_required_for_and_only_for_the_animated_kind(tmp_path) -> None:
    root = copy(CORE, tmp_path)
    text = (root / "test-case.toml").read_text()
    start, end = text.index("[model]\n"), text.index("# The self-contained brief")
    (root / "test-case.toml").write_text(text[:start] + text[end:])
    assert any("model: missing required key" in p for p in problems(root))
    root = copy(PIPE_HUB, tmp_path / "hub")
    edit(root, "[[spec]]", '[model]\n[[model.animation]]\nname = "idle"\n\n[[spec]]')
    assert any("model: only an animated kind declares [model]" in p for p in problems(root))


@pytest.mark.parametrize(("old", "new", "message"), [
    ('name = "upgrade"', 'name = "idle"', 'the animation "idle" is declared twice'),
    ('loop = false\nauto', 'loop = "no"\nauto', "[[model.animation]][2].loop: expected true or false"),
    ('auto_play = true', 'auto_play = 1', "[[model.animation]][1].auto_play: expected true or false"),
    ('name = "upgrade"', 'name = "up grade"', "expected 1 to 64 letters"),
    # A regex's `$` also matches before a final newline: the name would pass with one.
    ('name = "upgrade"', 'name = "upgrade\\n"', "expected 1 to 64 letters"),
    ('name = "upgrade"', 'name = "-upgrade"', "expected 1 to 64 letters"),
    ('name = "upgrade"', 'name = "upgrade"\nspeed = 2', "[[model.animation]][2].speed: unknown key"),
])
def test_required_animations_are_checked(tmp_path, old, new, message) -> None:
    root = copy(CORE, tmp_path)
    edit(root, old, new)
    found = problems(root)
    assert any(message in p for p in found), found


def test_loop_defaults_true_and_auto_play_false(tmp_path) -> None:
    root = copy(CORE, tmp_path)
    edit(root, "loop = false\nauto_play = false\n", "")
    assert _load(root).section.animations[1] == RequiredAnimation("upgrade", True, False)


def test_voxel_context_is_not_seen_by_a_2d_case(tmp_path) -> None:
    root = copy(ICONS, tmp_path)
    (root / "prompt.hbs").write_text((root / "prompt.hbs").read_text() + "\n{{voxel.width}}\n")
    case = _load(root)
    from tcab.errors import TemplateError
    with pytest.raises(TemplateError, match="voxel"):
        render_prompt(case, case.variant())


def test_the_seeded_workspaces_are_sculptable_by_the_tools(tmp_path, monkeypatch) -> None:
    from tcab.seeding import seed_repository
    from tcab.voxel.cli import main_anim, main_voxel

    hub, core = _load(PIPE_HUB), _load(CORE)
    ws = tmp_path / "hub"
    seed_repository(hub, hub.variant(), ws)
    monkeypatch.chdir(ws)
    assert main_voxel(["fill-box", "--x0", "0", "--y0", "0", "--z0", "0", "--x1", "15", "--y1", "2", "--z1", "15",
                       "--color", "#808890"]) == 0
    assert main_voxel(["render"]) == 0
    assert (ws / "mesh.glb").stat().st_size > 0 and (ws / "model.png").read_bytes()[:4] == b"\x89PNG"
    ws = tmp_path / "core"
    seed_repository(core, core.variant("half"), ws)
    monkeypatch.chdir(ws)
    assert main_anim(["define-part", "--name", "keep"]) == 0
    # the half volume is 40 wide: a box to x=60 is clipped to it, not refused
    assert main_anim(["fill-box", "--part", "keep", "--x0", "0", "--y0", "0", "--z0", "0", "--x1", "60", "--y1", "3",
                      "--z1", "39", "--color", "#c8a24a"]) == 0
    assert main_anim(["render"]) == 0
    assert {p.name for p in (ws / "scene").iterdir()} >= {"iso.png", "front.png", "side.png", "top.png"}
    rig = json.loads((ws / "rig.json").read_text())
    assert [a["name"] for a in rig["animations"]] == ["idle", "upgrade"] and rig["parts"][0]["name"] == "keep"
