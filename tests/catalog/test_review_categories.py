"""The original's categories grammar of the reviewer checklist (``[review]
format = 2``), on the fixture reconstructed from its cascade v2.0.0: it
loads, a variant adds an item to a common category by reusing its id, items
are never seeded, and each broken key is refused as ``file:line: key``.
"""

from __future__ import annotations

import pytest

from tcab.catalog.model import ReviewValidation, ValidationOutput
from tcab.seeding.plan import plan_seed
from tests.support.original import ORIGINAL, copy, edit, load, problems

CASCADE = ORIGINAL / "end-to-end/easy/cascade/v2.0.0"


def test_cascade_loads_its_categories_and_each_variant_adds_its_turn_count():
    case = load(CASCADE)
    assert case.review_format == 2
    assert [c.id for c in case.review_categories] == ["deal", "foundations", "stock", "ui"]
    for slug, n in (("draw-three", "three"), ("draw-one", "one")):
        variant = case.variant(slug)
        cats = case.review_categories_for(variant)
        assert [(c.id, c.title) for c in cats] == [("deal", "Deal"), ("foundations", "Foundations"),
                                                   ("stock", "Stock and waste"), ("ui", "UI")]
        stock = cats[2]
        assert [i.id for i in stock.items] == ["stock.recycle", "stock.turn-count"]
        assert stock.items[1].title.endswith(f"turns {n}")
        assert (stock.items[1].category, stock.items[1].local_id) == ("stock", "turn-count")
        items = case.review_items_for(variant)
        assert [i.id for i in items][:2] == ["deal.columns", "deal.stock-count"]
        assert len(items) == 8 and sum(i.weight for i in items) == 9
        assert variant.reference_implementation == f"reference-impl/{slug}"
    columns = case.review_categories[0].items[0]
    assert (columns.reference, columns.domain, columns.text[:20]) == ("gameplay", "klondike", "A new game deals sev")
    assert columns.validation == ReviewValidation(
        "validation/deal/columns.mjs", (ValidationOutput("layout", "The freshly dealt tableau", "image"),))
    assert case.review_categories[3].items[1].validation is None


@pytest.mark.parametrize("variant", ["draw-three", "draw-one"])
def test_checklist_and_reference_implementation_are_never_seeded(variant):
    case = load(CASCADE)
    dests = {e.dest for e in plan_seed(case, case.variant(variant), check_only=True)}
    assert "specs/deal-mode.md" in dests and "reference/gameplay.png" in dests
    assert not {d for d in dests if d.startswith(("validation/", "reference-impl/", "variants/"))}


# (file, old, new, (file, anchor of the expected line or None, key, message))
REFUSALS = [
    ("test-case.toml", "[review]\nformat = 2", "[review]\nformat = 3",
     ("test-case.toml", "format = 3", "[review].format",
      "expected 2 (the categories grammar; format 1 is [[review_item]]), got 3")),
    ("test-case.toml", "[review]\nformat = 2\n", "[review]\n",
     ("test-case.toml", "[review]\n", "[review].format",
      "missing required key (the categories grammar is format = 2)")),
    ("test-case.toml", 'id = "stock-count"', 'id = "columns"',
     ("test-case.toml", 'id = "columns"', "[[review.categories.items]][2].id",
      'the review item "columns" of category "deal" is already declared in test-case.toml')),
    ("test-case.toml", 'id = "foundations"', 'id = "deal"',
     ("test-case.toml", 'id = "deal"', "[[review.categories]][2].id",
      'two categories of this file are "deal"')),
    ("test-case.toml", 'title = "Builds up by suit"\n', "",
     ("test-case.toml", '[[review.categories.items]]\nid = "build-up"', "[[review.categories.items]][4].title", "missing required key")),
    ("test-case.toml", 'description = "A started', 'text = "A started',
     ("test-case.toml", '[[review.categories.items]]\nid = "build-up"', "[[review.categories.items]][4].description", "missing required key")),
    ("test-case.toml", 'weight = 2', 'weight = 0',
     ("test-case.toml", 'weight = 0', "[[review.categories.items]][7].weight",
      "expected a positive number of points, got 0")),
    ("test-case.toml", 'script = "validation/deal/columns.mjs"', 'script = "validation/deal/nope.mjs"',
     ("test-case.toml", 'validation = { script = "validation/deal/nope', "[[review.categories.items]][1].validation.script",
      '"validation/deal/nope.mjs": no such file or folder')),
    ("test-case.toml", 'script = "validation/deal/columns.mjs"', 'script = "../../../../../etc/passwd"',
     ("test-case.toml", 'validation = { script = "../', "[[review.categories.items]][1].validation.script",
      "expected a path relative to the version folder without '..', got \"../../../../../etc/passwd\"")),
    ("test-case.toml", 'kind = "video"', 'kind = "gif"',
     ("test-case.toml", 'validation = { script = "validation/stock/recycle', "[[review.categories.items]][5].validation.outputs[1].kind",
      'expected one of image, video, replay, got "gif"')),
    ("test-case.toml", 'reference = "victory"\nproof', 'reference = "title"\nproof',
     ("test-case.toml", 'reference = "title"', "[[review.categories.items]][7].reference",
      'names the reference view "title", which variant "draw-three" does not declare '
      '(declared: gameplay, victory)')),
    ("test-case.toml", 'title = "UI"', 'title = "UI"\nnotes = "x"',
     ("test-case.toml", 'notes = "x"', "[[review.categories]][4].notes",
      "unknown key; allowed keys: id, title, items")),
    ("test-case.toml", "[review]\nformat = 2\n", '[review]\nformat = 2\n\n[[review_item]]\nid = "x"\n',
     ("test-case.toml", None, "review_item",
      "give [[review_item]] (format 1) or [review] categories (format 2), not both")),
    ("variants/draw-one.toml", 'id = "turn-count"', 'id = "recycle"',
     ("draw-one.toml", 'id = "recycle"', "[[review.categories.items]][1].id",
      'the review item "recycle" of category "stock" is already declared in test-case.toml')),
    ("variants/draw-one.toml", '[[review.categories]]\nid = "stock"\ntitle = "Stock and waste"\n',
     '[[review.categories]]\nid = "draws"\n',
     ("draw-one.toml", '[[review.categories]]\nid = "draws"', "[[review.categories]][1].title", "missing required key")),
    ("variants/draw-one.toml", '[[review.categories]]\n', '[review]\nformat = 2\n\n[[review.categories]]\n',
     ("draw-one.toml", "format = 2", "[review].format",
      "a variant inherits the manifest's [review] format; leave it out")),
    ("variants/draw-one.toml", 'reference_implementation = "reference-impl/draw-one"',
     'reference_implementation = "reference-impl/nope"',
     ("draw-one.toml", "reference_implementation", "reference_implementation",
      '"reference-impl/nope": no such file or folder')),
]


@pytest.mark.parametrize("change", REFUSALS, ids=[r[3][2] + ":" + r[3][3][:30] for r in REFUSALS])
def test_each_refusal_names_file_line_and_key(tmp_path, change):
    rel, old, new, expected = change
    root = copy(CASCADE, tmp_path)
    edit(root / rel, old, new)
    name, anchor, key, message = expected
    text = (root / rel).read_text()
    line = text[: text.rindex(anchor)].count("\n") + 1 if anchor else None
    assert (name, line, key, message) in problems(root), problems(root)


def test_a_format_1_case_refuses_a_variants_categories(tmp_path):
    root = copy(CASCADE, tmp_path)
    text = (root / "test-case.toml").read_text()
    (root / "test-case.toml").write_text(text[: text.index("\n[review]\n")])
    found = problems(root)
    assert ("draw-one.toml", None, "review",
            "the manifest's checklist is format 1 ([[review_item]]); [review] categories need "
            "[review] format = 2 in test-case.toml") in found


def test_catalog_json_carries_categories_and_a_variants_additions(tmp_path):
    import json

    from tests.support.original import tcab
    res = tcab("catalog", "--json", catalog=ORIGINAL, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    cascade = {r["slug"]: r for r in json.loads(res.stdout)}["cascade"]
    assert [c["id"] for c in cascade["review_categories"]] == ["deal", "foundations", "stock", "ui"]
    assert cascade["review_categories"][2]["items"] == ["stock.recycle"]
    own = cascade["variant_review"]["draw-one"]
    assert own["review_categories"] == [{"id": "stock", "title": "Stock and waste", "items": ["stock.turn-count"]}]
    assert own["review_items"][0]["category"] == "stock"
    assert own["review_items"][0]["validation"]["outputs"] == [
        {"id": "turn", "name": "The stock turning onto the waste", "kind": "video"}]


@pytest.mark.parametrize("variant,name", [("draw-three", "Draw Three"), ("draw-one", "Draw One")])
def test_the_prompt_gets_time_limit_hours(variant, name):
    from tcab.seeding.prompt import render_prompt
    case = load(CASCADE)
    assert render_prompt(case, case.variant(variant)).startswith(f"Build Cascade ({name}) in `/work` within 2 hours.")


# --- assets as the original's list --------------------------------------------

def _with_assets(tmp_path, value: str):
    root = copy(CASCADE, tmp_path)
    (root / "art" / "cards").mkdir(parents=True)
    (root / "art" / "cards" / "back.png").write_bytes(b"\x89PNG\r\n\x1a\nback")
    (root / "art" / "felt.txt").write_text("green")
    (root / "fonts").mkdir()
    (root / "fonts" / "title.woff2").write_bytes(b"wOF2")
    edit(root / "test-case.toml", 'init = "true"\n', f'init = "true"\nassets = {value}\n')
    return root


def test_assets_as_a_list_seed_each_file_or_folder_at_its_path(tmp_path):
    root = _with_assets(tmp_path, '["art/cards", "fonts/title.woff2"]')
    case = load(root)
    assert case.assets == ("art/cards", "fonts/title.woff2")
    entries = {e.dest: e for e in plan_seed(case, case.variant("draw-one"), check_only=True)}
    assert entries["art/cards/back.png"].data.endswith(b"back")
    assert entries["fonts/title.woff2"].data == b"wOF2"
    assert "art/felt.txt" not in entries


@pytest.mark.parametrize("value,key,message", [
    ('["art/cards", "../../../../etc"]', "assets[1]",
     "expected a path relative to the version folder without '..', got \"../../../../etc\""),
    ('["art/nope"]', "assets[0]", '"art/nope": no such file or folder'),
    ('["art", "art/cards"]', "assets[1]", '"art/cards" overlaps the asset "art" (each path is seeded once)'),
    ('[3]', "assets", "expected an array of non-empty strings, got an array"),
])
def test_a_bad_asset_entry_is_refused_at_its_line(tmp_path, value, key, message):
    root = _with_assets(tmp_path, value)
    line = (root / "test-case.toml").read_text().splitlines().index(f"assets = {value}") + 1
    assert ("test-case.toml", line, key, message) in problems(root)


def test_the_reference_harness_stages_a_variants_reference_implementation():
    from tcab.harnesses.definition import load_harness
    from tcab.runs.lifecycle import _solution_dirs
    from tests.support.paths import REPO
    case = load(CASCADE)
    harness = load_harness(REPO / "harnesses", "reference")
    for slug in ("draw-three", "draw-one"):
        variant = case.variant(slug)
        assert case.solutions_for(variant) == (f"reference-impl/{slug}",)
        assert _solution_dirs(case, variant, harness) == (CASCADE / "reference-impl" / slug,)
    assert _solution_dirs(case, case.variant("draw-one"), load_harness(REPO / "harnesses", "claude-code")) == ()


# --- packages: shared by name, from <catalog>/packages/<name>/ -----------------

def _with_packages(tmp_path, value: str):
    root = copy(CASCADE, tmp_path)
    kit = tmp_path / "packages" / "card-kit"
    (kit / "src").mkdir(parents=True)
    (kit / "package.json").write_text('{"name": "card-kit", "main": "src/index.js"}')
    (kit / "src" / "index.js").write_text("export const SUITS = 4;\n")
    edit(root / "test-case.toml", 'init = "true"\n', f'init = "true"\npackages = {value}\n')
    return root, kit


def test_a_package_is_seeded_under_packages_and_its_content_is_in_the_digest(tmp_path):
    from tcab.catalog import case_digest
    from tcab.catalog.digest import tree_digest
    root, kit = _with_packages(tmp_path, '["card-kit"]')
    case = load(root)
    assert case.packages == ("card-kit",) and case.package_path("card-kit") == kit
    entries = {e.dest: e for e in plan_seed(case, case.variant("draw-three"), check_only=True)}
    assert entries["packages/card-kit/src/index.js"].data == b"export const SUITS = 4;\n"
    assert entries["packages/card-kit/package.json"].origin == "package"
    before = case_digest(case)
    assert before != tree_digest(root)
    (kit / "src" / "index.js").write_text("export const SUITS = 5;\n")
    assert case_digest(case) != before
    assert case_digest(load(CASCADE)) == tree_digest(CASCADE)  # no packages: the folder's digest, unchanged


@pytest.mark.parametrize("value,key,message", [
    ('["dice"]', "packages[0]", '"dice": no package folder packages/dice/ in the catalog (no such file or folder)'),
    ('["card-kit", "card-kit"]', "packages[1]", 'the package "card-kit" is listed twice'),
    ('["Card_Kit"]', "packages[0]", 'expected a package name (kebab-case), got "Card_Kit"'),
    ('["leak"]', "packages[0]", '"leak": no package folder packages/leak/ in the catalog (leads outside'),
])
def test_a_bad_package_is_refused_at_its_line(tmp_path, value, key, message):
    root, kit = _with_packages(tmp_path, value)
    (tmp_path / "outside").mkdir()
    (kit.parent / "leak").symlink_to(tmp_path / "outside")
    line = (root / "test-case.toml").read_text().splitlines().index(f"packages = {value}") + 1
    found = [p for p in problems(root) if p[2] == key]
    assert found and found[0][:2] == ("test-case.toml", line) and found[0][3].startswith(message), found


def test_scripted_items_need_the_instrumentation_handle(tmp_path):
    root = copy(CASCADE, tmp_path)
    edit(root / "test-case.toml", '[instrumentation]\nhandle = "__cascade"\ntick_hz = 120\n', "")
    found = [p for p in problems(root) if p[2] == "instrumentation"]
    assert found and found[0][3].startswith("missing: review items with a validation script need "
                                            "[instrumentation].handle (scripted: deal.columns, ")
    assert "stock.turn-count (variant draw-one)" in found[0][3]


def test_catalog_validate_prints_every_categories_problem_with_file_line_key(tmp_path):
    from tests.support.original import tcab
    root = copy(CASCADE, tmp_path)
    edit(root / "test-case.toml", 'tableau", kind = "image"', 'tableau", kind = "gif"')
    edit(root / "variants/draw-one.toml", 'id = "turn-count"', 'id = "recycle"')
    line = (root / "test-case.toml").read_text().splitlines().index(
        'validation = { script = "validation/deal/columns.mjs", outputs = [') + 1
    res = tcab("catalog", "validate", "--no-cache", catalog=tmp_path, cwd=tmp_path)
    assert res.returncode != 0
    out = res.stdout + res.stderr
    assert f"test-case.toml:{line}: [[review.categories.items]][1].validation.outputs[1].kind: " \
           'expected one of image, video, replay, got "gif"' in out, out
    assert "draw-one.toml:15: [[review.categories.items]][1].id: the review item \"recycle\" of category " \
           "\"stock\" is already declared in test-case.toml" in out, out
    assert "Traceback" not in out


def test_a_catalog_with_packages_validates_and_a_package_edit_drops_the_cache(tmp_path):
    from tcab.seeding.verify import verify_catalog
    root, kit = _with_packages(tmp_path, '["card-kit"]')
    cache = tmp_path.with_name(tmp_path.name + "-build") / "catalog-validate.json"  # outside the catalog
    first = verify_catalog(tmp_path, cache=cache)
    assert (first.problems, first.total, first.checked) == ([], 1, 1)  # packages/ is no test type
    assert verify_catalog(tmp_path, cache=cache).checked == 0
    (kit / "src" / "index.js").write_text("export const SUITS = 5;\n")
    assert verify_catalog(tmp_path, cache=cache).checked == 1
    import shutil
    shutil.rmtree(kit)
    gone = verify_catalog(tmp_path, cache=cache)
    assert [p.key for p in gone.problems] == ["packages[0]"], [str(p) for p in gone.problems]
