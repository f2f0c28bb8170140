"""Parsing valid catalogs: both types, defaults, resolution, experimental cases."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from tcab.catalog import (
    CaseVersion,
    Game,
    Match,
    Sandbox,
    Simulation,
    SpecFile,
    load_catalog,
    load_version,
    version_key,
)
from tcab.errors import CatalogError
from tcab.testtypes.end_to_end import EndToEndSection

REPO = Path(__file__).resolve().parents[2]
GOOD = REPO / "tests/fixtures/catalogs/good"
SAMPLE = REPO / "test-cases/end-to-end/easy/lights-out/v1.0.0"


def test_sample_end_to_end_case_parses_every_key():
    case, problems = load_version(SAMPLE)
    assert problems == []
    assert isinstance(case, CaseVersion)
    assert (case.type, case.difficulty, case.slug, case.version) == (
        "end-to-end", "easy", "lights-out", "v1.0.0")
    assert case.tags == ("browser", "puzzle", "vanilla-js")
    assert case.max_runtime_hours == 0.5
    assert case.workspace == "workspaces/base" and case.assets == ("assets",)
    assert case.build is not None and case.build.output == "dist" and case.build.module is None
    assert case.specs == (SpecFile("specs/overview.md", "specs/overview.md"),
                          SpecFile("specs/rules.md.hbs", "specs/rules.md"))
    assert case.specs[1].is_template
    assert [r.dest for r in case.section.references] == ["reference/board.png"]
    assert [v.slug for v in case.variants] == ["classic", "torus"]
    torus = case.variant("torus")
    assert torus.params == {"size": 6, "wrap": True}
    assert case.solutions_for(torus) == ("solutions/common", "solutions/torus")
    assert case.solutions_for(case.variant()) == ("solutions/common", "solutions/classic")
    assert [s.dest for s in case.specs_for(torus)] == [
        "specs/overview.md", "specs/rules.md", "specs/torus.md"]
    assert isinstance(case.section, EndToEndSection)  # no [contract] or [game] of its own


def test_objects_are_frozen():
    case, _ = load_version(SAMPLE)
    with pytest.raises(dataclasses.FrozenInstanceError):
        case.slug = "other"  # type: ignore[misc]


def test_adversarial_tables_and_defaults():
    catalog = load_catalog(GOOD)
    case = catalog.resolve("mini-duel", "v1.9.0")
    assert case.type == "adversarial"
    assert case.section.sandbox == Sandbox(50_000_000, 67_108_864)
    assert case.section.simulation == Simulation(16, 100)
    assert case.section.match == Match(2, "round-robin", 1)
    assert case.section.contract is not None and case.section.contract.world == "schemas/world.json"
    assert case.section.replay is not None and case.section.replay.renderer == "replay/index.html"
    assert case.section.game == Game("game/rules.py", params={"size": 8}, baselines="baselines")
    assert case.build is not None and case.build.module == "out/controller.wasm"
    big = case.variant("big")
    assert big.name == "Big"  # humanized default
    assert big.spec == (SpecFile("specs/big.md", "specs/big.md"),)
    assert case.template_params(big) == {"size": 16}
    assert case.template_params(case.variant()) == {"size": 8}
    assert case.experimental is False and case.description is None
    assert case.max_runtime_hours == 1.0


def test_resolve_picks_newest_by_semver_and_hides_experimental():
    catalog = load_catalog(GOOD)
    # v1.10.0 is experimental: the default pick skips it; asking includes it.
    assert catalog.resolve("mini-duel").version == "v1.9.0"
    assert catalog.resolve("mini-duel", experimental=True).version == "v1.10.0"
    assert catalog.resolve("mini-duel", "1.2.0").version == "v1.2.0"
    assert catalog.resolve("mini-duel", "v1.10.0").experimental
    assert [c.slug for c in catalog.latest()] == ["mini-duel"]
    assert {c.slug for c in catalog.latest(experimental=True)} == {"mini-duel", "hidden-lab"}
    with pytest.raises(CatalogError, match="only experimental"):
        catalog.resolve("hidden-lab")
    assert catalog.resolve("hidden-lab", experimental=True).slug == "hidden-lab"


def test_resolve_errors_name_the_known_choices():
    catalog = load_catalog(GOOD)
    with pytest.raises(CatalogError, match="known: hidden-lab, mini-duel"):
        catalog.resolve("nope")
    with pytest.raises(CatalogError, match="known: v1.2.0, v1.9.0, v1.10.0"):
        catalog.resolve("mini-duel", "v9.9.9")
    with pytest.raises(CatalogError, match="known: base, big"):
        catalog.resolve("mini-duel").variant("huge")


def test_version_key_orders_numerically():
    assert version_key("v1.10.0") > version_key("v1.9.0")
    with pytest.raises(ValueError):
        version_key("v1.0")


def test_missing_catalog_folder_is_an_error(tmp_path):
    with pytest.raises(CatalogError, match="catalog folder not found"):
        load_catalog(tmp_path / "nowhere")


def test_cases_are_hashable_so_they_can_key_caches():
    catalog = load_catalog(GOOD)
    assert len({*catalog.versions, *catalog.versions}) == len(catalog.versions)
