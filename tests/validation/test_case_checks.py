"""A case's [[check]]s become runnable specs with references from the catalog."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tcab.catalog.actions import Click, Key, Wait
from tcab.catalog.loader import load_version
from tcab.validation.case_checks import case_check_specs
from tests.support.original import GLINT, PNG


def _glint(tmp_path: Path):
    root = tmp_path / "catalog" / "end-to-end/easy/glint/v1.0.0"
    shutil.copytree(GLINT, root)
    case, problems = load_version(root)
    assert problems == [] and case is not None
    return case


@pytest.mark.timeout(240)
def test_mockup_references_are_rendered_from_the_catalog_not_taken_from_the_run(tmp_path):
    case = _glint(tmp_path)
    validation = tmp_path / "run" / "validation"
    # What a hostile run could leave in its own tree: never read.
    (tmp_path / "run" / "work" / "reference").mkdir(parents=True)
    (tmp_path / "run" / "work" / "reference" / "title.png").write_bytes(b"forged")
    specs = case_check_specs(case, case.variant("night"), tmp_path / "mockup-cache", validation)
    assert [(s.view, s.name, s.actions) for s in specs] == [
        ("board-lit", "Board, one tile lit", (Click(40, 40), Key("Enter"), Wait(200))),
        ("title", "Title", ()),
    ]
    title = specs[1].reference_png
    assert title == validation / "references" / "title.png"
    assert title.read_bytes().startswith(PNG)
    # The night variant's own title mockup, not the common board one.
    assert title.read_bytes() != specs[0].reference_png.read_bytes()


def test_a_case_without_checks_renders_nothing(tmp_path):
    case = _glint(tmp_path)
    manifest = case.manifest.read_text()
    start = manifest.index("[[check]]")
    end = manifest.index("[[proof]]")
    case.manifest.write_text(manifest[:start] + manifest[end:])
    case, problems = load_version(case.root)
    assert problems == [] and case.section.checks == ()
    assert case_check_specs(case, case.variant("base"), tmp_path / "cache", tmp_path / "validation") == ()
    assert not (tmp_path / "validation").exists()


HELD_BACK = """
[[reference]]
view = "after-click"
media = "checks/after-click.png"
seed = false

[[check]]
view = "after-click"
reference = "after-click"
actions = [{ type = "click", x = 240, y = 300 }]
"""


def test_a_held_back_view_is_never_seeded_and_checks_compare_against_the_seeded_ones(tmp_path):
    from tcab.seeding.plan import plan_seed
    from tests.support.paths import LIGHTS_OUT

    root = tmp_path / "catalog" / "end-to-end" / "easy" / "lights-out" / "v1.0.0"
    shutil.copytree(LIGHTS_OUT, root)
    (root / "checks").mkdir()
    shutil.copy(root / "reference" / "board.png", root / "checks" / "after-click.png")
    (root / "test-case.toml").write_text((root / "test-case.toml").read_text() + HELD_BACK)
    case, problems = load_version(root)
    assert problems == [] and case is not None
    variant = case.variant(None)
    assert [r.view for r in case.references_for(variant)] == ["board", "after-click"]
    assert [r.view for r in case.seeded_references_for(variant)] == ["board"]
    dests = [e.dest for e in plan_seed(case, variant)]
    assert "reference/board.png" in dests and not any("after-click" in d for d in dests), dests
    [spec] = case_check_specs(case, variant, tmp_path / "mockup-cache", tmp_path / "validation")
    assert spec.reference_png == root / "checks" / "after-click.png"
    assert spec.seeded == (root / "reference" / "board.png",)


def test_seed_must_be_a_boolean(tmp_path):
    from tests.support.paths import LIGHTS_OUT

    root = tmp_path / "catalog" / "end-to-end" / "easy" / "lights-out" / "v1.0.0"
    shutil.copytree(LIGHTS_OUT, root)
    (root / "test-case.toml").write_text((root / "test-case.toml").read_text().replace(
        'media = "reference/board.png"', 'media = "reference/board.png"\nseed = "no"'))
    case, problems = load_version(root)
    assert any("seed" in str(p) for p in problems), problems


def test_every_shipped_check_compares_against_a_view_held_back_from_the_run():
    """A shipped [[check]] whose baseline was seeded could be passed by
    displaying that screenshot: each must name a held-back view (seed = false)."""
    from tcab.catalog.loader import load_version as load
    from tests.support.paths import REPO

    for manifest in sorted((REPO / "test-cases").glob("*/*/*/*/test-case.toml")):
        case, problems = load(manifest.parent)
        assert case is not None, problems
        for variant in case.variants:
            seeded = {r.view for r in case.seeded_references_for(variant)}
            for check in getattr(case.section, "checks", ()):  # end-to-end cases have [[check]]s
                assert check.reference not in seeded, (manifest, check.view)
