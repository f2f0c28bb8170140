"""The asset-generation manifest: sprite and sheet cases parse into a frozen
section; every bad key is a ``file:line: key`` problem (issue 22, item 1)."""

from __future__ import annotations

import dataclasses

import pytest

from tcab.catalog import load_version
from tcab.draw.limits import MAX_SIDE
from tcab.testtypes.asset_generation import AssetSection, ItemTarget
from tests.asset.support import HERO, ICONS, LATTICE, copy, edit, line, problems


def _load(root):
    case, found = load_version(root)
    assert found == [] and case is not None, [str(p) for p in found]
    return case


def test_a_sprite_and_a_sheet_parse_into_frozen_sections() -> None:
    icons, hero = _load(ICONS), _load(HERO)
    assert isinstance(icons.section, AssetSection) and icons.type == "asset-generation"
    assert (icons.section.kind, icons.section.width, icons.section.binary) == ("sprite", 96, "draw")
    assert icons.section.frames == () and icons.section.preview == "canvas.png"
    assert hero.section.frames == (0, 1, 2, 3, 4, 5) and hero.section.sequences[0].fps == 12
    assert [d.id for d in hero.domains] == ["overall"] and hero.review_items == ()
    with pytest.raises(dataclasses.FrozenInstanceError):
        hero.section.width = 1  # type: ignore[misc]


def test_the_kind_picks_the_run_image_and_no_build() -> None:
    assert _load(ICONS).test_type.run_image_for(_load(ICONS)) == "sprite"
    hero = _load(HERO)
    assert hero.test_type.run_image_for(hero) == "sprite-sheet"
    assert hero.build is None and hero.test_type.build_image is None


def test_asset_kind_defaults_to_sprite(tmp_path) -> None:
    root = copy(ICONS, tmp_path)
    edit(root, 'asset_kind = "sprite"\n', "")
    assert _load(root).section.kind == "sprite"


@pytest.mark.parametrize("kind", ["voxel-rig", "mc-model", "blender-prop"])
def test_a_3d_kind_is_refused_as_not_yet_supported(tmp_path, kind) -> None:
    root = copy(ICONS, tmp_path)
    edit(root, 'asset_kind = "sprite"', f'asset_kind = "{kind}"')
    found = problems(root)
    assert any(f"test-case.toml:{line(root, 'asset_kind')}: asset_kind: " in p and kind in p
               and "not yet supported" in p for p in found), found


def test_an_unknown_kind_is_refused(tmp_path) -> None:
    root = copy(ICONS, tmp_path)
    edit(root, 'asset_kind = "sprite"', 'asset_kind = "mural"')
    assert any("asset_kind: expected one of sprite, sprite-sheet" in p for p in problems(root))


@pytest.mark.parametrize("value", ['["sprite"]', "7", "{ kind = \"sprite\" }"])
def test_a_kind_that_is_not_a_string_is_refused(tmp_path, value) -> None:
    root = copy(ICONS, tmp_path)
    edit(root, 'asset_kind = "sprite"', f"asset_kind = {value}")
    found = problems(root)
    assert any(f"test-case.toml:{line(root, 'asset_kind')}: asset_kind: expected one of sprite, sprite-sheet" in p
               for p in found), found


@pytest.mark.parametrize("width, height, limit", [
    (10**6, 10**6, "MAX_SIDE"), (0, 8, "positive"), (MAX_SIDE + 1, 8, "MAX_SIDE"),
])
def test_a_canvas_over_the_limits_is_refused_naming_the_limit(tmp_path, width, height, limit) -> None:
    root = copy(ICONS, tmp_path)
    edit(root, "width = 96\nheight = 96", f"width = {width}\nheight = {height}")
    found = problems(root)
    assert any(f"test-case.toml:{line(root, 'width =')}: [canvas].width: " in p and limit in p
               for p in found), found


def test_a_sheet_over_the_sheet_pixels_is_refused(tmp_path) -> None:
    root = copy(HERO, tmp_path)
    edit(root, "width = 48\nheight = 48", "width = 4096\nheight = 4096")
    assert any("MAX_SHEET_PIXELS" in p for p in problems(root))


@pytest.mark.parametrize("value", ['"red"', '"#12345"', "7"])
def test_a_bad_background_is_refused(tmp_path, value) -> None:
    root = copy(ICONS, tmp_path)
    edit(root, 'background = "transparent"', f"background = {value}")
    found = problems(root)
    assert any(f":{line(root, 'background')}: [canvas].background: expected 'transparent'" in p
               for p in found), found


def test_the_background_may_be_a_colour(tmp_path) -> None:
    root = copy(ICONS, tmp_path)
    edit(root, 'background = "transparent"', 'background = "#10203040"')
    assert _load(root).section.background == "#10203040"


def test_the_binary_must_be_the_kinds_tool(tmp_path) -> None:
    root = copy(ICONS, tmp_path)
    edit(root, 'binary = "draw"', 'binary = "draw-sheet"')
    assert any(f":{line(root, 'binary')}: [tool].binary: a sprite is drawn with \"draw\"" in p
               for p in problems(root))
    root = copy(HERO, tmp_path / "sheet")
    edit(root, 'binary = "draw-sheet"', 'binary = "draw"')
    assert any("[tool].binary: a sprite-sheet is drawn with \"draw-sheet\"" in p for p in problems(root))


@pytest.mark.parametrize("src, key, old, new, message", [
    (ICONS, "preview", '"canvas.png"', '"frames/{frame}.png"', "may not contain {frame}"),
    (ICONS, "actions", '"actions.json"', '"../actions.json"', "no empty, '.' or '..' part"),
    (HERO, "preview", '"frames/{frame}.png"', '"frames/all.png"', "must contain {frame}"),
    (HERO, "actions", '"frames/{frame}.actions.json"', '"/tmp/{frame}.json"', "expected a relative path"),
])
def test_path_templates_follow_the_kind(tmp_path, src, key, old, new, message) -> None:
    root = copy(src, tmp_path)
    edit(root, f"{key} = {old}", f"{key} = {new}")
    table = "tool" if key == "preview" else "output"
    found = problems(root)
    assert any(f":{line(root, key + ' =')}: [{table}].{key}: " in p and message in p for p in found), found


def test_a_sheet_needs_its_sheet_and_a_sprite_refuses_one(tmp_path) -> None:
    root = copy(HERO, tmp_path)
    text = (root / "test-case.toml").read_text()
    start, end = text.index("[sheet]"), text.index("# The self-contained")
    (root / "test-case.toml").write_text(text[:start] + text[end:])
    assert any("sheet: missing required key" in p for p in problems(root))
    root = copy(ICONS, tmp_path / "sprite")
    (root / "test-case.toml").write_text((root / "test-case.toml").read_text()
                                         + "\n[sheet]\n[[sheet.frame]]\nindex = 0\n")
    assert any("sheet: only a sprite-sheet case has [sheet]" in p for p in problems(root))


def test_frame_indices_are_unique_and_sequences_name_declared_frames(tmp_path) -> None:
    root = copy(HERO, tmp_path)
    edit(root, "index = 5", "index = 4")
    found = problems(root)
    assert any(f":{line(root, 'index = 4') + 3}: [[sheet.frame]][6].index: the frame 4 is declared twice" in p
               or "[[sheet.frame]][6].index: the frame 4 is declared twice" in p for p in found), found
    root = copy(HERO, tmp_path / "seq")
    edit(root, "frames = [0, 1, 2, 3, 4, 5]", "frames = [0, 1, 9]")
    found = problems(root)
    assert any(f":{line(root, 'frames = [0, 1, 9]')}: [[sheet.sequence]][1].frames: names the frame 9" in p
               for p in found), found


@pytest.mark.parametrize("fps", ["0", "-2", '"fast"', "nan", "inf"])
def test_a_sequence_fps_must_be_positive_and_finite(tmp_path, fps) -> None:
    root = copy(HERO, tmp_path)
    edit(root, "fps = 12", f"fps = {fps}")
    assert any("[[sheet.sequence]][1].fps: expected" in p for p in problems(root))


@pytest.mark.parametrize("table", ["[build]\ninstall = \"true\"\nbuild = \"true\"\n",
                                   "[[check]]\nreference = \"x\"\n", "[[reference]]\nview = \"x\"\n"])
def test_build_check_and_reference_are_refused(tmp_path, table) -> None:
    root = copy(ICONS, tmp_path)
    path = root / "test-case.toml"
    path.write_text(path.read_text() + "\n" + table)
    key = table.strip("[]\n").split("]")[0].strip("[]")
    found = problems(root)
    assert any(f"{key}: an asset-generation case has no" in p for p in found), found


def test_a_variants_reference_view_is_refused(tmp_path) -> None:
    root = copy(ICONS, tmp_path)
    (root / "mock.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (root / "variants/base.toml").write_text('slug = "base"\n[[reference]]\nview = "front"\nmedia = "mock.png"\n')
    found = problems(root)
    assert any("an asset case has none" in p for p in found), found


def test_the_newer_form_has_one_domain(tmp_path) -> None:
    root = copy(ICONS, tmp_path)
    path = root / "test-case.toml"
    path.write_text(path.read_text() + '\n[[domain]]\nid = "craft"\n')
    assert any("domain: 2 domains and no [[review_item]]" in p for p in problems(root))


OLDER = """
[[domain]]
id = "fidelity"
name = "Fidelity"

[[review_item]]
id = "loops"
title = "The run loops"
text = "Frame 5 flows into frame 0."
weight = 3
domain = "fidelity"
sequences = ["run"]
frames = [5, 0]

[[review_item]]
id = "reads"
title = "Reads at size"
text = "The hero reads at 48x48."
domain = "fidelity"
"""


def test_the_older_form_with_weighted_items_naming_sequences_and_frames(tmp_path) -> None:
    root = copy(HERO, tmp_path)
    text = (root / "test-case.toml").read_text()
    (root / "test-case.toml").write_text(text[:text.index("[[domain]]")] + OLDER)
    case = _load(root)
    assert [d.id for d in case.domains] == ["fidelity"]
    assert [(i.id, i.weight) for i in case.review_items] == [("loops", 3), ("reads", 1)]
    assert case.section.targets == (ItemTarget("loops", ("run",), (5, 0)),)


@pytest.mark.parametrize("old, new, message", [
    ('sequences = ["run"]', 'sequences = ["walk"]', "sequences: names the sequence \"walk\""),
    ("frames = [5, 0]", "frames = [5, 7]", "frames: names the frame 7"),
    ('domain = "fidelity"\nsequences', 'domain = "fidelity"\nreference = "x"\nsequences', "reference: an asset case"),
])
def test_an_older_items_names_must_resolve(tmp_path, old, new, message) -> None:
    root = copy(HERO, tmp_path)
    text = (root / "test-case.toml").read_text()
    (root / "test-case.toml").write_text(text[:text.index("[[domain]]")] + OLDER.replace(old, new, 1))
    found = problems(root)
    assert any("[[review_item]][1]." + message in p for p in found), found


def test_a_sprites_items_name_no_frames(tmp_path) -> None:
    root = copy(ICONS, tmp_path)
    text = (root / "test-case.toml").read_text()
    older = OLDER.replace('sequences = ["run"]\n', "")
    (root / "test-case.toml").write_text(text[:text.index("[[domain]]")] + older)
    assert any("[[review_item]][1].frames: only a sprite-sheet" in p for p in problems(root))


def test_the_lattice_sink_loads() -> None:
    case = _load(LATTICE)
    assert case.experimental and case.section.sequences[0].name == "Sink — consuming"
