"""The original Test Cabinet's later manifest keys: ``format``, ``engines``,
``[instrumentation]``, a review item's ``sub_items`` and ``validation``,
``max_runtime_seconds``; and its adversarial case ``foray``, copied unchanged.

Fixtures: tests/fixtures/catalogs/original/ (``glint`` carries the keys,
``skirmish`` gives its cap in seconds, ``foray`` is the original's manifest).
"""

from __future__ import annotations

import dataclasses
import json

import pytest

from tcab.catalog.listing import read_entry
from tcab.catalog.model import Instrumentation, ReviewSubItem, ReviewValidation, ValidationOutput
from tcab.errors import ValidationError
from tcab.seeding import check_case
from tcab.seeding.plan import plan_seed
from tcab.validation.validate import DEFAULT_VIEWPORT, _views
from tests.support.original import (
    FORAY,
    GLINT,
    ORIGINAL,
    SKIRMISH,
    copy,
    edit,
    load,
    problems,
    tcab,
)

# --- what loads ---------------------------------------------------------------

def test_glint_carries_format_engines_instrumentation_sub_items_and_validation():
    case = load(GLINT)
    assert (case.format, case.engines) == (1, ("none",))
    assert case.instrumentation == Instrumentation("__glint", 60.0)
    item = case.review_items[1]
    assert item.sub_items == (ReviewSubItem("named", "Names the variant"),
                              ReviewSubItem("centred", "Centred on the stage"))
    assert item.validation == ReviewValidation("validation/title-shows.mjs", (
        ValidationOutput("title", "The title screen", "image"),
        ValidationOutput("intro", "Intro", "video")))  # name humanized from the id
    assert case.review_items[0].sub_items == () and case.review_items[0].validation is None
    with pytest.raises(dataclasses.FrozenInstanceError):
        item.validation.script = "x"  # type: ignore[misc]
    # reviewer material and the instrumentation handle are never seeded
    for variant in case.variants:
        dests = {e.dest for e in plan_seed(case, variant, render_mockup=lambda p: b"\x89PNG")}
        assert not any(d.startswith("validation/") for d in dests)
    assert check_case(case) == []


def test_max_runtime_seconds_is_the_cap_as_max_runtime_hours_is():
    assert load(SKIRMISH).max_runtime_s == 900.0 and load(SKIRMISH).max_runtime_hours == 0.25
    assert load(GLINT).max_runtime_s == 900.0  # max_runtime_hours = 0.25
    assert load(FORAY).max_runtime_s == 7200.0  # max_runtime_hours = 2
    entry, problem = read_entry(SKIRMISH, "adversarial", "easy")
    assert problem is None and entry is not None and entry.max_runtime_hours == 0.25


def test_the_originals_foray_manifest_loads_seeds_and_prompts_unchanged():
    case = load(FORAY)
    assert (case.slug, case.type, case.experimental, case.init) == ("foray", "adversarial", True, "cargo fetch")
    assert case.section.game is None and case.section.sandbox is not None and case.section.sandbox.fuel_per_tick == 50_000_000
    assert case.section.simulation is not None and case.section.simulation.max_ticks == 37_500
    assert [d.id for d in case.domains] == ["play"] and len(case.review_items) == 6
    assert case.review_items[0].weight == 3 and case.review_items[0].text.startswith("The submission won")
    assert check_case(case) == []  # every variant's seed plan and prompt render
    dests = {e.dest for e in plan_seed(case, case.variant())}
    assert {"specs/rules.md", "specs/baselines.md", "controller/Cargo.toml", "schemas/world.json",
            "schemas/action.json"} <= dests
    assert "cannot be played on this host" in (case.unplayable_reason() or "")


@pytest.mark.parametrize("command", [["match", "foray@v1.0.0", "a.wasm", "b.wasm"],
                                     ["tournament", "foray@v1.0.0", "a.wasm", "b.wasm"]])
def test_match_and_tournament_refuse_foray_clearly(tmp_path, command):
    res = tcab(*command, catalog=ORIGINAL, cwd=tmp_path)
    assert res.returncode == 2, res.stderr
    assert "foray@v1.0.0 cannot be played on this host" in res.stderr
    assert "Traceback" not in res.stderr


def test_catalog_json_carries_sub_items_and_validation(tmp_path):
    res = tcab("catalog", "--json", "--experimental", catalog=ORIGINAL, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    rows = {r["slug"]: r for r in json.loads(res.stdout)}
    item = rows["glint"]["review_items"][1]
    assert item["sub_items"] == [{"id": "named", "title": "Names the variant"},
                                 {"id": "centred", "title": "Centred on the stage"}]
    assert item["validation"] == {"script": "validation/title-shows.mjs", "outputs": [
        {"id": "title", "name": "The title screen", "kind": "image"},
        {"id": "intro", "name": "Intro", "kind": "video"}]}
    assert rows["skirmish"]["max_runtime_hours"] == 0.25 and rows["foray"]["max_runtime_hours"] == 2


# --- the run's variant's reference views are validated ------------------------

def test_validation_views_are_the_variants_own_references():
    case = load(GLINT)
    assert [v.name for v in _views(case, "base")] == ["board", "title"]
    night = _views(case, "night")
    assert [v.name for v in night] == ["board", "title", "moon"]
    # moon.png is 8x8, an icon: its view is captured at the default viewport, since
    # Chromium never finishes a screenshot of a viewport under ~100 px high
    assert (night[2].width, night[2].height) == DEFAULT_VIEWPORT
    with pytest.raises(ValidationError, match="'dusk' is not a variant of glint@v1.0.0"):
        _views(case, "dusk")


# --- refusals: file, line, key, message ----------------------------------------

VALIDATION = ('validation = { script = "validation/title-shows.mjs", outputs = [\n'
              '  { id = "title", name = "The title screen", kind = "image" },\n'
              '  { id = "intro", kind = "video" },\n] }\n')
GLINT_REFUSALS = [
    ("test-case.toml", "format = 1", "format = 3",
     ("test-case.toml", "format = 3", "format", "expected 1 or 2 (the manifest formats tcab reads), got 3")),
    ("test-case.toml", "format = 1", 'format = "2"',
     ("test-case.toml", 'format = "2"', "format", 'expected 1 or 2 (the manifest formats tcab reads), got "2"')),
    ("test-case.toml", 'engines = ["none"]', 'engines = ["none", "none"]',
     ("test-case.toml", "engines = [", "engines", 'the engine "none" is listed twice')),
    ("test-case.toml", 'engines = ["none"]', 'engines = ["Simple 2D"]',
     ("test-case.toml", "engines = [", "engines", 'expected kebab-case engine slugs, got "Simple 2D"')),
    ("test-case.toml", 'handle = "__glint"', 'handle = "x; fetch(1)"',
     ("test-case.toml", 'handle = "x', "[instrumentation].handle",
      'expected a JavaScript identifier such as "__game", got "x; fetch(1)"')),
    ("test-case.toml", "tick_hz = 60", "tick_hz = 0",
     ("test-case.toml", "tick_hz = 0", "[instrumentation].tick_hz", "expected a positive number, got 0")),
    ("test-case.toml", "tick_hz = 60", "tick_hz = inf",
     ("test-case.toml", "tick_hz = inf", "[instrumentation].tick_hz", "expected a finite positive number, got inf")),
    ("test-case.toml", "tick_hz = 60", "tick_hz = 60\nsecret = 1",
     ("test-case.toml", "secret = 1", "[instrumentation].secret", "unknown key; allowed keys: handle, tick_hz")),
    ("test-case.toml", '[instrumentation]\nhandle = "__glint"\ntick_hz = 60\n', "",
     ("test-case.toml", None, "instrumentation",
      "missing: review items with a validation script need [instrumentation].handle (scripted: title-shows)")),
    ("test-case.toml", "max_runtime_hours = 0.25", "max_runtime_hours = 0.25\nmax_runtime_seconds = 60",
     ("test-case.toml", "max_runtime_seconds = 60", "max_runtime_seconds",
      "give max_runtime_hours or max_runtime_seconds, not both")),
    ("test-case.toml", "max_runtime_hours = 0.25", "max_runtime_seconds = -5",
     ("test-case.toml", "max_runtime_seconds = -5", "max_runtime_seconds", "expected a positive number, got -5")),
    ("test-case.toml", "max_runtime_hours = 0.25", "max_runtime_hours = 1e308",
     ("test-case.toml", "max_runtime_hours = 1e308", "max_runtime_hours",
      "expected a finite positive number, got 1e+308")),
    ("test-case.toml", '{ id = "centred", title', '{ id = "named", title',
     ("test-case.toml", "sub_items = [", "[[review_item]][2].sub_items[2].id",
      'two sub items of this review item are "named"')),
    ("test-case.toml", '{ id = "centred", title = "Centred on the stage" }', '{ id = "centred" }',
     ("test-case.toml", "sub_items = [", "[[review_item]][2].sub_items[2].title", "missing required key")),
    ("test-case.toml", '{ id = "centred", title = "Centred on the stage" }',
     '{ id = "centred", title = "C", weight = 9 }',
     ("test-case.toml", "sub_items = [", "[[review_item]][2].sub_items[2].weight",
      "unknown key; allowed keys: id, title")),
    ("test-case.toml", 'script = "validation/title-shows.mjs"', 'script = "../../../../../../etc/passwd"',
     ("test-case.toml", "validation = {", "[[review_item]][2].validation.script",
      "expected a path relative to the version folder without '..', got \"../../../../../../etc/passwd\"")),
    ("test-case.toml", 'script = "validation/title-shows.mjs"', 'script = "validation/nope.mjs"',
     ("test-case.toml", "validation = {", "[[review_item]][2].validation.script",
      '"validation/nope.mjs": no such file or folder')),
    ("test-case.toml", 'kind = "video"', 'kind = "gif"',
     ("test-case.toml", "validation = {", "[[review_item]][2].validation.outputs[2].kind",
      'expected one of image, video, replay, got "gif"')),
    ("test-case.toml", '{ id = "intro", kind = "video" }', '{ id = "title", kind = "video" }',
     ("test-case.toml", "validation = {", "[[review_item]][2].validation.outputs[2].id",
      'two outputs of this validation are "title"')),
    ("test-case.toml", 'validation = { script', 'validation = { run = "x", script',
     ("test-case.toml", "validation = {", "[[review_item]][2].validation.run",
      "unknown key; allowed keys: script, outputs")),
    ("test-case.toml", VALIDATION, 'validation = "validation/title-shows.mjs"\n',
     ("test-case.toml", 'validation = "', "[[review_item]][2].validation",
      'expected an inline table {script, outputs}, got "validation/title-shows.mjs"')),
]


@pytest.mark.parametrize("change", GLINT_REFUSALS, ids=[r[3][2] + ":" + r[3][3][:30] for r in GLINT_REFUSALS])
def test_each_refusal_names_file_line_and_key(tmp_path, change):
    rel, old, new, expected = change
    root = copy(GLINT, tmp_path)
    edit(root / rel, old, new)
    name, anchor, key, message = expected
    text = (root / rel).read_text()
    line = text[: text.rindex(anchor)].count("\n") + 1 if anchor else None
    assert problems(root)[0] == (name, line, key, message)


def test_a_variants_validation_script_needs_the_handle_too(tmp_path):
    root = copy(GLINT, tmp_path)
    edit(root / "test-case.toml", '[instrumentation]\nhandle = "__glint"\ntick_hz = 60\n', "")
    edit(root / "test-case.toml", VALIDATION, "")
    edit(root / "variants/night.toml", 'domain = "mood"\n',
          'domain = "mood"\nvalidation = { script = "validation/title-shows.mjs" }\n')
    assert problems(root) == [("test-case.toml", None, "instrumentation",
                                "missing: review items with a validation script need [instrumentation].handle "
                                "(scripted: moon-shows (variant night))")]
    edit(root / "test-case.toml", "\n[build]\n", '\n[instrumentation]\nhandle = "$g"\n\n[build]\n')
    case = load(root)
    assert case.review_items_for(case.variant("night"))[-1].validation == ReviewValidation(
        "validation/title-shows.mjs")


def test_a_variant_file_leading_out_keeps_its_script_unread(tmp_path):
    """A variant's validation script is a path like any other: inside the version."""
    root = copy(GLINT, tmp_path)
    (tmp_path / "outside.mjs").write_text("x")
    edit(root / "variants/night.toml", 'domain = "mood"\n',
          'domain = "mood"\nvalidation = { script = "../../../../../outside.mjs" }\n')
    [(name, _, key, message)] = problems(root)
    assert (name, key) == ("night.toml", "[[review_item]][1].validation.script")
    assert "without '..'" in message

