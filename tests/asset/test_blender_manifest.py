"""A blender-character case's manifest, seed and prompt (issue 23, items 1
and 3): the original's siege-rifleman and tcab's tin-scout load unchanged,
validate, seed blender.config.json beside the build.py starter and render
``{{voxel.*}}``; each bad key is a ``file:line: key`` problem."""

from __future__ import annotations

import dataclasses
import json
import shutil

import pytest

from tcab.seeding import check_case, render_prompt
from tcab.seeding.plan import plan_seed
from tcab.testtypes.asset_blender_manifest import (
    BLENDER_DIRECTIVE,
    MAX_BOUND,
    BlenderSection,
    CallerJoint,
)
from tests.asset.support import problems
from tests.blender.support import SIEGE, TIN_SCOUT, load


def _copy(src, tmp_path):
    dest = tmp_path / "asset-generation/hard/siege-rifleman/v1.0.0"
    shutil.copytree(src, dest)
    return dest


def _edit(root, old: str, new: str) -> None:
    path = root / "test-case.toml"
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1))


def test_the_originals_siege_rifleman_loads_validates_seeds_and_prompts() -> None:
    case = load(SIEGE)
    section = case.section
    assert isinstance(section, BlenderSection) and case.test_type.run_image_for(case) == "blender-character"
    assert (section.width, section.height, section.depth, section.background) == (24, 48, 20, "transparent")
    assert (section.binary, section.preview, section.actions) == ("tcab-blend", "model.png", "build.py")
    assert [a.name for a in section.animations] == ["idle", "run", "fire", "reload", "hit", "death"]
    assert section.animations[0].loop and section.animations[0].auto_play and not section.animations[2].loop
    assert section.joints == (CallerJoint("aim_pitch", "rotation", "x", -40.0, 40.0, 0.0),)
    assert [s.kind for s in case.specs_for(case.variant())] == ["spec", "script"]
    assert check_case(case) == []
    seeded = {e.dest: e.data for e in plan_seed(case, case.variant())}
    assert seeded["build.py"] == (SIEGE / "specs/build.py").read_bytes()
    config = json.loads(seeded["blender.config.json"])
    assert config["bounds"] == {"width": 24, "height": 48, "depth": 20}
    assert config["outputs"] == {"model": "character.glb", "preview": "model.png", "script": "build.py"}
    assert [a["name"] for a in config["animations"]] == ["idle", "run", "fire", "reload", "hit", "death"]
    assert config["joints"][0]["name"] == "aim_pitch" and config["axes"]["up"] == "+z"
    prompt = render_prompt(case, case.variant())
    assert "fits within a\n24x48x20 bounding box" in prompt and "{{" not in prompt
    assert prompt.startswith(BLENDER_DIRECTIVE) and "pixel" not in BLENDER_DIRECTIVE
    with pytest.raises(dataclasses.FrozenInstanceError):
        section.width = 1  # type: ignore[misc]


def test_tcabs_tin_scout_loads_and_lists_its_animations_in_the_prompt() -> None:
    case = load(TIN_SCOUT)
    assert check_case(case) == [] and case.section.background == "#1d2330"
    prompt = render_prompt(case, case.variant())
    assert "24x48x16 bounding box" in prompt and "- `idle` (loops) (plays on its own)" in prompt
    assert "- `death`\n" in prompt


@pytest.mark.parametrize(("old", "new", "key", "message"), [
    ("width = 24", "width = 1000000", "width", f"expected at most {MAX_BOUND} world units (MAX_BOUND)"),
    ("depth = 20", "depth = 0", "depth", "expected a positive integer"),
    ('background = "transparent"', 'background = "teal"', "background", "expected 'transparent'"),
    ('binary = "tcab-blend"', 'binary = "blender"', "binary", "built with \"tcab-blend\""),
    ('preview = "model.png"', 'preview = "{part}.png"', "preview", "no {part} or {frame} token"),
    ('actions = "build.py"', 'actions = "../build.py"', "actions", "workspace-relative path"),
    ('name = "run"', 'name = "idle"', "name", "the animation \"idle\" is declared twice"),
    ("loop = true\nauto_play = false", 'loop = "yes"\nauto_play = false', "loop", "expected true or false"),
    ("rest = 0.0", "rest = 50.0", "rest", "expected min <= rest <= max"),
    ("min = -40.0", "min = nan", "min", "expected a finite number"),
    ('axis = "x"', 'axis = "w"', "axis", "expected one of x, y, z"),
    ('kind = "rotation"', 'kind = "spin"', "kind", "expected one of rotation, translation"),
    ('dest = "build.py"\nkind = "script"', 'dest = "build.py"\nkind = "binary"', "kind",
     "expected one of spec, script"),
    # A regex's `$` also matches before a final newline: each would pass with one.
    ('name = "run"', 'name = "run\\n"', "name", "expected 1 to 64 of"),
    ('actions = "build.py"', 'actions = "build.py\\n"', "actions", "workspace-relative path"),
], ids=["volume-1e6", "zero-depth", "background", "binary", "part-token", "escaping-path", "duplicate-animation",
        "loop-type", "joint-range", "joint-nan", "axis", "joint-kind", "spec-kind", "name-newline", "path-newline"])
def test_a_bad_key_is_named_with_its_line(tmp_path, old, new, key, message) -> None:
    root = _copy(SIEGE, tmp_path)
    _edit(root, old, new)
    found = problems(root)
    needle = next(text for text in new.splitlines() if text not in old.splitlines())
    lines = (root / "test-case.toml").read_text().splitlines()
    at = max(i for i, text in enumerate(lines, 1) if needle in text)  # the edited one: the last
    assert any(f"test-case.toml:{at}: " in p and f"{key}: " in p and message in p for p in found), found


def test_a_blender_case_declares_no_canvas_and_at_least_one_animation(tmp_path) -> None:
    root = _copy(SIEGE, tmp_path)
    _edit(root, "[voxel]\n", "[canvas]\nwidth = 8\nheight = 8\n\n[voxel]\n")
    assert any("canvas: a blender-character case has no [canvas]" in p for p in problems(root))
    root = _copy(SIEGE, tmp_path / "b")
    text = (root / "test-case.toml").read_text()
    head, _, tail = text.partition("[[model.animation]]")
    (root / "test-case.toml").write_text(head + tail[tail.index("[[model.joint]]"):])
    assert any("model.animation: missing required key" in p or "animation: missing required key" in p
               for p in problems(root))


def test_ten_thousand_joints_are_refused_by_count(tmp_path) -> None:
    root = _copy(SIEGE, tmp_path)
    joints = "".join(f'\n[[model.joint]]\nname = "j{i}"\nkind = "rotation"\naxis = "x"\nmin = 0.0\nmax = 1.0\n'
                     f"rest = 0.0\n" for i in range(10_000))
    _edit(root, "# The self-contained brief", joints + "\n# The self-contained brief")
    assert any("at most 32 caller joints (MAX_JOINTS), got 10001" in p for p in problems(root))


@pytest.mark.parametrize("table", ["[voxel]\nwidth = 8\nheight = 8\ndepth = 8\n", "[model]\n"])
def test_a_2d_case_declares_no_3d_table(tmp_path, table) -> None:
    from tests.asset.support import ICONS

    root = tmp_path / "asset-generation/easy/rpg-item-icons/v1.0.0"
    shutil.copytree(ICONS, root)
    _edit(root, "[canvas]", table + "\n[canvas]")
    key = table[1:table.index("]")]
    assert any(f"{key}: a sprite case has no [{key}]" in p for p in problems(root)), problems(root)


def _variant(root, slug: str, body: str) -> None:
    (root / f"variants/{slug}.toml").write_text(f'slug = "{slug}"\nname = "{slug.title()}"\n{body}')
    _edit(root, 'variants = ["variants/base.toml"]', f'variants = ["variants/base.toml", "variants/{slug}.toml"]')


def test_a_variants_own_box_reaches_the_config_the_prompt_and_scoring(tmp_path) -> None:
    from tcab.catalog import load_version

    root = _copy(SIEGE, tmp_path)
    _variant(root, "giant", '\n[voxel]\nwidth = 60\nheight = 120\ndepth = 50\nbackground = "#102030"\n')
    case, found = load_version(root)
    assert found == [] and case is not None, found
    assert check_case(case) == []
    giant, base = case.variant("giant"), case.variant("base")
    section = case.section.for_variant(giant)
    assert (section.width, section.height, section.depth, section.background) == (60, 120, 50, "#102030")
    assert case.section.for_variant(base) is case.section  # the base keeps the case's box
    config = json.loads({e.dest: e.data for e in plan_seed(case, giant)}["blender.config.json"])
    assert config["bounds"] == {"width": 60, "height": 120, "depth": 50} and config["background"] == "#102030"
    base_config = json.loads({e.dest: e.data for e in plan_seed(case, base)}["blender.config.json"])
    assert base_config["bounds"] == {"width": 24, "height": 48, "depth": 20}
    assert "60x120x50 bounding box" in render_prompt(case, giant)
    assert "24x48x20 bounding box" in render_prompt(case, base)
    # what scoring rebuilds with: the variant's config (tcab.tasks.regenerate passes for_variant's section)
    assert json.loads(section.config())["bounds"]["height"] == 120


@pytest.mark.parametrize(("body", "key", "message"), [
    ("width = 1000000\nheight = 8\ndepth = 8\n", "width", f"expected at most {MAX_BOUND} world units"),
    ("width = 8\nheight = 0\ndepth = 8\n", "height", "expected a positive integer"),
    ("width = 8\nheight = 8\n", "depth", "missing required key"),
    ('width = 8\nheight = 8\ndepth = 8\nbackground = "teal"\n', "background", "expected 'transparent'"),
    ("width = 8\nheight = 8\ndepth = 8\nspin = 1\n", "spin", ""),
], ids=["volume-1e6", "zero-height", "missing-depth", "background", "unknown-key"])
def test_a_bad_variant_box_is_named_with_its_file_and_line(tmp_path, body, key, message) -> None:
    root = _copy(SIEGE, tmp_path)
    _variant(root, "giant", "\n[voxel]\n" + body)
    found = problems(root)
    lines = (root / "variants/giant.toml").read_text().splitlines()
    at = [f":{i}" for i, text in enumerate(lines, 1) if text.startswith(f"{key} =")]
    where = f"giant.toml{at[0] if at else ''}: "  # a missing key has no line of its own
    assert any(where in p and f"[voxel].{key}: " in p and message in p for p in found), found


def test_scoring_a_variant_run_uses_its_box(tmp_path, blender_runtime, scout_glb) -> None:
    """What the regenerate task calls: the variant's background in the redrawn
    preview, its box in summary.json and in the config the provenance
    rebuild runs with (tin-scout's build.py scales to the box's height), in
    a real container of the Blender image."""
    from PIL import Image

    from tcab.catalog import load_version
    from tcab.testtypes.asset_blender import score_blender, score_run
    from tcab.testtypes.asset_blender_view import panel
    from tests.blender.support import REFERENCE_BUILD
    from tests.support.settings import tmp_settings

    root = tmp_path / "cat/asset-generation/medium/tin-scout/v1.0.0"
    shutil.copytree(TIN_SCOUT, root)
    _variant(root, "giant", '\n[voxel]\nwidth = 48\nheight = 96\ndepth = 32\nbackground = "#102030"\n')
    case, found = load_version(root)
    assert found == [] and case is not None, found
    runs = {}
    for slug in ("giant", "base"):
        run_dir = tmp_path / slug
        (run_dir / "work").mkdir(parents=True)
        (run_dir / "work/character.glb").write_bytes(scout_glb)
        (run_dir / "work/build.py").write_bytes(REFERENCE_BUILD.read_bytes())
        runs[slug] = run_dir
    settings = tmp_settings(tmp_path)
    score = score_run(settings, blender_runtime, case, "giant", "giant-1", runs["giant"])
    assert score.status == "regenerated"
    summary = json.loads((runs["giant"] / "regenerated/summary.json").read_text())
    assert summary["box"] == {"width": 48, "height": 96, "depth": 32}
    assert summary["provenance"] == "provenance: the rebuild matches (meshes, skin, animation names)"
    base = score_blender(case.section.for_variant(case.variant("base")), runs["base"] / "work", runs["base"],
                         lambda section, script: (scout_glb, ""))
    assert base.status == "regenerated"
    assert json.loads((runs["base"] / "regenerated/summary.json").read_text())["box"]["height"] == 48
    corner = {slug: Image.open(d / "regenerated/model.png").convert("RGB").getpixel((0, 0)) for slug, d in runs.items()}
    assert corner == {"giant": (0x10, 0x20, 0x30), "base": (0x1D, 0x23, 0x30)}
    assert panel(case, {"variant": "giant"}, runs["giant"], "giant-1")["blender"]["box"] == "48×96×32"
