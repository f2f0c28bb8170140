"""The original Test Cabinet's manifest keys: every key parsed into the typed
model, every refusal named by file, line and key.

Fixtures in tests/fixtures/catalogs/original/: ``coil`` (the original's own
test-case.toml and variants/base.toml, copied unchanged), ``glint`` (tcab's
end-to-end case with every key) and ``skirmish`` (an adversarial case whose
game is not a Python rules module).
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from tcab.catalog.actions import Click, Key, Wait
from tcab.catalog.model import (
    Build,
    Domain,
    Proof,
    Reference,
    ReviewItem,
    ViewCheck,
    site_output_candidates,
)
from tcab.seeding import check_case
from tcab.seeding.plan import plan_seed
from tcab.tasks.inputs import seed_inputs
from tcab.tasks.keys import FileDigests
from tests.support.original import COIL, GLINT, ORIGINAL, SKIRMISH, copy, edit, load, problems, tcab
from tests.support.paths import CATALOG_FIXTURES

# --- the cases that must load -------------------------------------------------

def test_the_originals_coil_manifest_loads_unchanged():
    case = load(COIL)
    assert (case.slug, case.experimental, case.init) == ("coil", True, "npm install && npx playwright install chromium")
    assert case.summary.startswith("A neon grid serpent")
    assert case.build == Build("npm ci", "npm run build")
    assert [s.dest for s in case.specs][:2] == ["specs/overview.md", "specs/playfield.md"]
    assert case.section.references == (Reference("gameplay", mockup="reference/gameplay.html"),
                                Reference("game-over", mockup="reference/game-over.html"))
    assert [p.kind for p in case.proofs] == ["image", "image", "image", "video"]
    assert [d.id for d in case.domains] == ["gameplay"] and len(case.review_items) == 12
    wrap = case.variant("wrap")
    assert [r.view for r in case.references_for(wrap)] == ["gameplay", "game-over", "title"]
    assert [d.id for d in case.domains_for(wrap)] == ["gameplay", "wrap-mode"]
    assert case.review_items_for(wrap)[-1].domain == "wrap-mode"
    assert check_case(case) == []


def test_every_key_of_the_end_to_end_fixture():
    case = load(GLINT)
    assert case.type == "end-to-end" and case.summary and case.init == "true"
    assert case.build is not None and case.build.output is None
    assert site_output_candidates(case.build) == ("dist", "build", "out")
    assert site_output_candidates(Build("i", "b", output="public")) == ("public",)
    # [[spec]] dest defaults to source without .hbs; an explicit dest wins
    assert [(s.source, s.dest) for s in case.specs] == [
        ("specs/overview.md.hbs", "specs/overview.md"), ("specs/proof.md", "specs/evidence.md")]
    assert case.section.checks == (
        ViewCheck("board-lit", "Board, one tile lit", "board", (
            Click(40, 40), Key("Enter"), Wait(200))),
        ViewCheck("title", "Title", "title", ()),  # name humanized from the view
    )
    assert case.proofs == (Proof("board", "The board", "proof/board.png"),
                           Proof("lighting", "Lighting", "proof/lighting.webm"))
    assert case.domains == (Domain("play", "Play", "Clicking tiles lights them."),)
    assert case.review_items[0] == ReviewItem("tile-lights", "A tile lights", "Clicking a tile lights it.", 2,
                                              reference="board", proof="lighting", domain="play")
    assert case.review_items[1].weight == 1  # default
    night = case.variant("night")
    assert case.references_for(night) == (
        Reference("board", mockup="reference/board.html"),
        Reference("title", mockup="reference/title-night.html"),
        Reference("moon", media="reference/moon.png"))
    assert [p.id for p in case.proofs_for(night)] == ["board", "lighting", "moon"]
    assert [r.id for r in case.review_items_for(night)] == ["tile-lights", "title-shows", "moon-shows"]
    assert [r.view for r in case.references_for(case.variant("base"))] == ["board", "title"]
    with pytest.raises(dataclasses.FrozenInstanceError):
        case.section.checks[0].actions[0].x = 1  # type: ignore[misc]


def test_seeding_uses_the_variants_references_and_never_the_mockup(tmp_path):
    case = load(GLINT)
    rendered: list[Path] = []

    def render(path: Path) -> bytes:
        rendered.append(path)
        return b"\x89PNG fake " + path.name.encode()

    for slug, views in (("base", {"board", "title"}), ("night", {"board", "title", "moon"})):
        rendered.clear()
        entries = plan_seed(case, case.variant(slug), render_mockup=render)
        dests = {e.dest for e in entries}
        assert {d for d in dests if d.startswith("reference/")} == {f"reference/{v}.png" for v in views}
        assert not any(d.endswith(".html") for d in dests if d != "index.html")  # the workspace's page
        assert not any(d.startswith("proof/") for d in dests)  # proofs are the build's to write
        assert case.path(f"reference/title-{slug}.html") in rendered
    night = {e.dest: e.data for e in plan_seed(case, case.variant("night"), render_mockup=render)}
    assert night["reference/title.png"].endswith(b"title-night.html")
    assert night["reference/moon.png"] == case.path("reference/moon.png").read_bytes()


def test_a_variants_mockup_is_an_input_of_its_seed_only(tmp_path):
    root = copy(GLINT, tmp_path)
    case = load(root)
    before = {v.slug: seed_inputs(case, v, FileDigests()) for v in case.variants}
    (root / "reference/title-night.html").write_text("<p>changed</p>")
    case = load(root)
    after = {v.slug: seed_inputs(case, v, FileDigests()) for v in case.variants}
    assert before["base"] == after["base"] and before["night"] != after["night"]


def test_adversarial_case_without_a_python_game_validates_and_seeds():
    case = load(SKIRMISH)
    assert case.type == "adversarial" and case.section.game is None
    assert case.review_items[0].domain == "play"
    assert check_case(case) == []
    dests = {e.dest for e in plan_seed(case, case.variant())}
    assert {"specs/rules.md", "controller/Cargo.toml", "schemas/world.json"} <= dests
    assert "cannot be played on this host" in (case.unplayable_reason() or "")
    assert load(GLINT).unplayable_reason() is not None
    good = CATALOG_FIXTURES / "good/adversarial/hard/mini-duel/v1.9.0"
    assert load(good).unplayable_reason() is None




@pytest.mark.parametrize("command", [["match", "skirmish", "a.wasm", "b.wasm"],
                                     ["tournament", "skirmish", "a.wasm", "b.wasm"]])
def test_match_and_tournament_say_this_host_cannot_play_it(tmp_path, command):
    res = tcab(*command, catalog=ORIGINAL, cwd=tmp_path)
    assert res.returncode == 2, res.stderr
    assert "skirmish@v1.0.0 cannot be played on this host" in res.stderr
    assert "not a Python rules module" in res.stderr and "Traceback" not in res.stderr


def test_catalog_json_carries_reviewer_material(tmp_path):
    res = tcab("catalog", "--json", "--experimental", catalog=ORIGINAL, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    rows = {r["slug"]: r for r in json.loads(res.stdout)}
    glint = rows["glint"]
    assert glint["variants"] == ["base", "night"] and "digest" in glint  # existing keys kept
    assert glint["domains"] == [{"id": "play", "name": "Play", "description": "Clicking tiles lights them."}]
    assert glint["review_items"][0] == {"id": "tile-lights", "title": "A tile lights",
                                        "text": "Clicking a tile lights it.", "weight": 2,
                                        "reference": "board", "proof": "lighting", "domain": "play",
                                        "sub_items": [], "validation": None}
    assert glint["variant_review"]["night"]["domains"][0]["id"] == "mood"
    assert glint["variant_review"]["base"] == {"domains": [], "review_items": []}
    assert [d["id"] for d in rows["coil"]["variant_review"]["maze"]["domains"]] == ["maze-mode"]


def test_catalog_json_never_reads_a_variant_file_outside_the_version(tmp_path):
    root = copy(GLINT, tmp_path)
    (tmp_path / "secret.toml").write_text('slug = "x"\n[[domain]]\nid = "leaked"\n')
    edit(root / "test-case.toml", 'variants = ["variants/base.toml", "variants/night.toml"]',
          'variants = ["variants/base.toml", "../../../../secret.toml"]')
    res = tcab("catalog", "--json", catalog=tmp_path, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert "leaked" not in res.stdout


# --- refusals -----------------------------------------------------------------

REFUSALS = [
    # (file edited, old text, new text, (file, text of the line, key, message)): the first
    # problem; a refused declaration may make names that use it fail too.
    ("test-case.toml", 'type = "end-to-end"', 'type = "adversarial"',
     ("test-case.toml", 'type = "adversarial"', "type", 'is "adversarial" but the case lives under end-to-end/')),
    ("test-case.toml", 'type = "end-to-end"', 'type = "puzzle"',
     ("test-case.toml", 'type = "puzzle"', "type", 'expected one of end-to-end, adversarial, performance, asset-generation, got "puzzle"')),
    ("variants/night.toml", '{ view = "moon", media = "reference/moon.png" }',
     '{ view = "board", path = "reference/board.html" }',
     ("night.toml", 'reference = [', "[[reference]][2].view", 'the view "board" is already declared in test-case.toml')),
    ("variants/night.toml", '{ view = "moon", media = "reference/moon.png" }',
     '{ view = "title", media = "reference/moon.png" }',
     ("night.toml", 'reference = [', "[[reference]][2].view", 'the view "title" is already declared in variants/night.toml')),
    ("test-case.toml", 'path = "reference/board.html"', 'path = "reference/board.html"\nmedia = "reference/moon.png"',
     ("test-case.toml", '[[reference]]\nview = "board"', "[[reference]][1]", "expected exactly one of media (an image), path or mockup (an HTML page)")),
    ("test-case.toml", 'path = "reference/board.html"', 'path = "specs/proof.md"',
     ("test-case.toml", 'path = "specs/proof.md"', "[[reference]][1].path", 'expected an HTML mockup (.html, .htm), got "specs/proof.md"')),
    ("test-case.toml", 'path = "reference/board.html"', 'path = "../../../../../../etc/passwd"',
     ("test-case.toml", 'path = "../../', "[[reference]][1].path",
      "expected a path relative to the version folder without '..', got \"../../../../../../etc/passwd\"")),
    ("variants/base.toml", 'reference = [{ view = "title", path = "reference/title-base.html" }]', "",
     ("test-case.toml", 'reference = "title"\n\n[[proof]]', "[[check]][2].reference",
      'names the reference view "title", which variant "base" does not declare (declared: board)')),
    ("test-case.toml", 'reference = "board"\nactions', 'reference = "moon"\nactions',
     ("test-case.toml", 'reference = "moon"', "[[check]][1].reference",
      'names the reference view "moon", which variant "base" does not declare (declared: board, title)')),
    ("test-case.toml", '{ type = "wait", ms = 200 }', '{ type = "hover", selector = "#x" }',
     ("test-case.toml", 'actions = [', "[[check]][1].actions[3].type", 'expected one of click, hold, key, wait, got "hover"')),
    ("test-case.toml", '{ type = "wait", ms = 200 }', '{ type = "wait", ms = 600000 }',
     ("test-case.toml", 'actions = [', "[[check]][1].actions[3].ms",
      "expected an integer number of milliseconds, 0 to 60000, got 600000")),
    ("test-case.toml", '{ type = "key", key = "Enter" }', '{ type = "key", key = "Enter", selector = "#a" }',
     ("test-case.toml", 'actions = [', "[[check]][1].actions[2].selector",
      "unknown key for a key action; allowed keys: type, key")),
    ("test-case.toml", '{ type = "click", x = 40, y = 40 }', '{ type = "click", x = -1, y = 3 }',
     ("test-case.toml", 'actions = [', "[[check]][1].actions[1].x",
      "expected a number of CSS pixels, 0 to 4096, got -1")),
    ("test-case.toml", 'view = "title"\nreference = "title"', 'view = "board-lit"\nreference = "title"',
     ("test-case.toml", 'view = "board-lit"\nreference = "title"', "[[check]][2].view", 'two checks record under the view "board-lit"')),
    ("test-case.toml", 'dest = "proof/lighting.webm"', 'dest = "proof/lighting.gif"',
     ("test-case.toml", 'dest = "proof/lighting.gif"', "[[proof]][2].dest", 'expected a .png (image) or .webm (video) file, got "proof/lighting.gif"')),
    ("test-case.toml", 'dest = "proof/lighting.webm"', 'dest = ".git/hooks/x.png"',
     ("test-case.toml", 'dest = ".git', "[[proof]][2].dest",
      "expected a relative path without '..' outside .git/, got \".git/hooks/x.png\"")),
    ("variants/night.toml", 'id = "moon"\nname = "The moon"', 'id = "board"\nname = "The moon"',
     ("night.toml", 'id = "board"', "[[proof]][1].id", 'the proof "board" is already declared in test-case.toml')),
    ("test-case.toml", 'domain = "play"', 'domain = "mood"',
     ("test-case.toml", 'domain = "mood"', "[[review_item]][1].domain",
      'names the domain "mood", which variant "base" does not declare (declared: play)')),
    ("variants/night.toml", 'domain = "mood"', 'domain = "nope"',
     ("night.toml", 'domain = "nope"', "[[review_item]][1].domain",
      'names the domain "nope", which variant "night" does not declare (declared: mood, play)')),
    ("test-case.toml", 'proof = "lighting"', 'proof = "moon"',
     ("test-case.toml", 'proof = "moon"', "[[review_item]][1].proof",
      'names the proof "moon", which variant "base" does not declare (declared: board, lighting)')),
    ("test-case.toml", "weight = 2", "weight = 0",
     ("test-case.toml", 'weight = 0', "[[review_item]][1].weight", "expected a positive number of points, got 0")),
    ("variants/night.toml", 'id = "mood"', 'id = "play"',
     ("night.toml", 'id = "play"', "[[domain]][1].id", 'the domain "play" is already declared in test-case.toml')),
    ("variants/night.toml", 'id = "moon-shows"', 'id = "tile-lights"',
     ("night.toml", 'id = "tile-lights"', "[[review_item]][1].id", 'the review item "tile-lights" is already declared in test-case.toml')),
    ("test-case.toml", 'text = "Clicking a tile lights it."\n', "",
     ("test-case.toml", None, "[[review_item]][1].text", "missing required key")),
    ("test-case.toml", 'weight = 2', 'weight = 2\nsub_items = []',
     ("test-case.toml", 'sub_items = []', "[[review_item]][1].sub_items",
      "expected at least one entry (leave sub_items out for none)")),
]


@pytest.mark.parametrize("change", REFUSALS, ids=[r[3][2] + ":" + r[3][3][:30] for r in REFUSALS])
def test_each_refusal_names_file_line_and_key(tmp_path, change):
    rel, old, new, expected = change
    root = copy(GLINT, tmp_path)
    edit(root / rel, old, new)
    name, anchor, key, message = expected
    text = (root / rel if name == Path(rel).name else root / "test-case.toml").read_text()
    # the last occurrence: an anchor repeated (reference = ...) is the edited one, lower down
    line = text[: text.rindex(anchor)].count("\n") + 1 if anchor else None
    assert problems(root)[0] == (name, line, key, message)


def test_check_and_reference_are_end_to_end_only(tmp_path):
    root = copy(SKIRMISH, tmp_path)
    edit(root / "test-case.toml", "[[spec]]", '[[check]]\nview = "x"\nreference = "x"\n\n[[spec]]')
    [(name, _, key, message)] = problems(root)
    assert (name, key) == ("test-case.toml", "check") and message.startswith("unknown key")


def test_end_to_end_output_still_checked_when_given(tmp_path):
    root = copy(GLINT, tmp_path)
    edit(root / "test-case.toml", 'install = "true"', 'install = "true"\noutput = "/abs"')
    line = (root / "test-case.toml").read_text().split("\n").index('output = "/abs"') + 1
    assert problems(root) == [("test-case.toml", line, "[build].output",
                                "expected a relative path without '..' outside .git/, got \"/abs\"")]


def test_adversarial_type_key_must_match_its_folder(tmp_path):
    root = copy(SKIRMISH, tmp_path)
    edit(root / "test-case.toml", 'type = "adversarial"', 'type = "end-to-end"')
    assert problems(root) == [("test-case.toml", 13, "type", 'is "end-to-end" but the case lives under adversarial/')]


def test_check_reference_from_every_variant_resolves(tmp_path):
    """A view every variant declares (and none commonly) is a valid check baseline."""
    case = load(GLINT)
    assert all("title" in {r.view for r in case.references_for(v)} for v in case.variants)
    assert "title" not in {r.view for r in case.section.references}
    assert case.section.checks[1].reference == "title"


def test_the_whole_original_fixture_catalog_validates(tmp_path):
    res = tcab("catalog", "validate", "--no-cache", catalog=ORIGINAL, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert re.search(r"ok: 8 case version\(s\), 12 variant\(s\)", res.stdout + res.stderr)


# --- the site a [build] without output produces (real Podman) -----------------

@pytest.mark.timeout(600)
def test_site_is_the_first_of_dist_build_out_and_never_a_link(podman_runtime, tmp_path):
    from tcab.runtime import BuildLimits, CollectLimits
    from tcab.validation.container import build_site

    def site(name: str, command: str):
        tree = tmp_path / name / "tree"
        tree.mkdir(parents=True)
        build = Build("true", command)  # no output: dist/, build/, out/ in that order
        return build_site(podman_runtime, tree, build, tmp_path / name / "site", container_name=f"orig-{name}",
                          limits=BuildLimits(timeout_s=120), collect=CollectLimits())

    built = site("build-only", "mkdir -p build out && echo b > build/index.html && echo o > out/index.html")
    assert built.output is not None and (built.output / "index.html").read_text() == "b\n"
    # dist/ as a link (to the container's /etc) is passed over, never followed
    linked = site("dist-link", "ln -s /etc dist && mkdir out && echo o > out/index.html")
    assert linked.output is not None and (linked.output / "index.html").read_text() == "o\n"
    assert not (linked.output / "passwd").exists()
    none = site("none", "mkdir -p public")
    assert none.output is None
    assert none.checks[-1].detail == "the build produced none of dist/, build/, out/ (as a folder, not a link)"
    assert podman_runtime.list_run_containers("orig-") == []
