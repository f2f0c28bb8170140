"""benchmark.yaml: parsing (strictyaml), errors that name the line and the key, expansion."""

from __future__ import annotations

from pathlib import Path

import pytest

from tcab.catalog import load_catalog
from tcab.errors import PlanError
from tcab.harnesses import load_harnesses
from tcab.plan import expand, load_plan, parse_plan, plan_path

ROOT = Path(__file__).resolve().parents[2]
CATALOG = ROOT / "tests" / "tasks" / "fixtures" / "catalog"

PLAN = """\
name: t
runtime:
  backend: docker
  settings:
    idle_timeout_s: 60
    secrets: A, B
parallelism: 2
runs:
  - cases:
      - case: mini
        variants: all
      - duel
    harnesses:
      - reference
      - harness: scripted
        models:
          - vendor/model-a
          - model-b
    repeats: 2
tournaments:
  - name: cup
    case: duel
    participants:
      baselines: all
      runs:
        - reference
    rounds: 3
    seed: 9
"""


@pytest.fixture(scope="module")
def catalog():
    return load_catalog(CATALOG)


def test_a_plan_parses_into_typed_data():
    plan = parse_plan(PLAN, "b.yaml")
    assert plan.name == "t" and plan.parallelism == 2
    # Typed once, at parsing (tcab.runtime.choice): nothing downstream parses them back.
    assert plan.runtime.idle_timeout_s == 60.0 and plan.runtime.secrets == ("A", "B")
    assert plan.runtime.settings() == {"idle_timeout_s": "60", "secrets": "A,B"}
    m = plan.matrices[0]
    assert [c.slug for c in m.cases] == ["mini", "duel"] and m.cases[0].variants == ("all",)
    assert m.harnesses[1].models == ("vendor/model-a", "model-b") and m.harnesses[0].models == (None,)
    assert plan.tournaments[0].rounds == 3 and plan.tournaments[0].baselines == ("all",)


def test_expansion_is_the_full_matrix_with_readable_names(catalog):
    sweep = expand(parse_plan(PLAN, "b.yaml"), catalog, ["reference", "scripted"])
    # mini: 2 variants, duel: default variant only; (1 + 2 models) agents; 2 repeats
    assert len(sweep.runs) == 3 * 3 * 2
    names = {r.name for r in sweep.runs}
    assert "mini/v1.0.0/two/scripted@vendor~model-a/2" in names
    assert "duel/v1.0.0/base/reference/1" in names
    cup = sweep.tournaments[0]
    assert [p.name for p in cup.participants] == [
        "baseline/left", "baseline/right", "reference/1", "reference/2"]
    assert sweep.seeds() == (("mini", "v1.0.0", "one"), ("mini", "v1.0.0", "two"), ("duel", "v1.0.0", "base"))


def test_entry_digests_change_only_for_the_entry_that_changed(catalog):
    a = expand(parse_plan(PLAN, "b.yaml"), catalog)
    b = expand(parse_plan(PLAN.replace("rounds: 3", "rounds: 4"), "b.yaml"), catalog)
    assert [r.entry_digest for r in a.runs] == [r.entry_digest for r in b.runs]
    assert a.tournaments[0].entry_digest != b.tournaments[0].entry_digest
    c = expand(parse_plan(PLAN.replace("repeats: 2", "repeats: 3"), "b.yaml"), catalog)
    old = {r.name: r.entry_digest for r in a.runs}
    assert all(old[r.name] == r.entry_digest for r in c.runs if r.name in old)


@pytest.mark.parametrize(
    ("edit", "where"),
    [
        (("repeats: 2", "repeats: 0"), "b.yaml:19: repeats: expected an integer from 1 to 10000, got 0"),
        (("seed: 9", "seed: nine"), "b.yaml:28: seed: found arbitrary text"),
        (("rounds: 3", "roundz: 3"), "b.yaml:27: roundz: unexpected key not in schema 'roundz'"),
        (("idle_timeout_s: 60", "idle_timeout: 60"), "b.yaml:5: idle_timeout: unexpected key"),
        (("parallelism: 2", "parallelism: [2]"), "b.yaml:7: parallelism:"),
        (("    harnesses:\n", "    harnesss:\n"), "b.yaml:13: harnesss: unexpected key"),
        (("name: cup", "name: Cup!"), "b.yaml:21: name:"),
    ],
)
def test_errors_name_the_file_line_and_key(edit, where):
    with pytest.raises(PlanError) as err:
        parse_plan(PLAN.replace(*edit), "b.yaml")
    assert str(err.value).startswith(where), str(err.value)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (("      - duel\n", "      - nope\n"), "b.yaml:12: case:"),
        (("        variants: all", "        variants: three"), "b.yaml:10: variants: mini@v1.0.0 has no variant 'three'"),
        (("      baselines: all", "      baselines: left, middle"), "b.yaml:21: baselines: duel@v1.0.0 has no baseline 'middle'"),
        (("        - reference\n    rounds", "        - nobody\n    rounds"), "b.yaml:26: runs: no run of 'nobody'"),
        (("      - reference\n      - harness", "      - referee\n      - harness"), "b.yaml:14: harness: unknown harness 'referee'"),
    ],
)
def test_names_the_catalog_does_not_know_name_the_plan_line(catalog, edit, message):
    with pytest.raises(PlanError) as err:
        expand(parse_plan(PLAN.replace(*edit), "b.yaml"), catalog, ["reference", "scripted"])
    assert str(err.value).startswith(message), str(err.value)


def test_a_tournament_on_an_end_to_end_case_is_refused(catalog):
    text = PLAN.replace("    case: duel\n", "    case: mini\n")
    with pytest.raises(PlanError, match="b.yaml:21: case: mini@v1.0.0 is a end-to-end case; matches need an adversarial one"):
        expand(parse_plan(text, "b.yaml"), catalog)


def test_which_plan(tmp_path):
    assert plan_path(tmp_path, None, {}) == tmp_path / "benchmark.yaml"
    assert plan_path(tmp_path, None, {"TCAB_PLAN": "plans/x.yaml"}) == tmp_path / "plans/x.yaml"
    assert plan_path(tmp_path, "/abs/y.yaml", {"TCAB_PLAN": "plans/x.yaml"}) == Path("/abs/y.yaml")


def test_a_missing_or_empty_plan_file_is_a_plan_error(tmp_path):
    with pytest.raises(PlanError, match="cannot read the plan"):
        load_plan(tmp_path / "none.yaml")
    (tmp_path / "empty.yaml").write_text("")
    with pytest.raises(PlanError, match="empty.yaml:1"):
        load_plan(tmp_path / "empty.yaml")


def test_the_shipped_plans_expand_against_the_shipped_catalog_and_harnesses():
    """Every shipped plan names only cases, variants, baselines and harnesses
    that ship, so `doit` (and `make demo`) can start from a clean clone."""
    catalog = load_catalog(ROOT / "test-cases")
    harnesses = [h.slug for h in load_harnesses(ROOT / "harnesses")]
    plans = [ROOT / "benchmark.yaml", *sorted((ROOT / "plans").glob("*.yaml"))]
    assert len(plans) >= 2
    for path in plans:
        sweep = expand(load_plan(path), catalog, harnesses)
        assert sweep.runs, path
        assert all(len(t.participants) >= 2 for t in sweep.tournaments), path
    demo = expand(load_plan(ROOT / "benchmark.yaml"), catalog, harnesses)
    assert [r.name for r in demo.runs] == ["lights-out/v1.0.0/classic/reference/1",
                                           "capture/v1.0.0/base/reference/1",
                                           "torus-life/v1.0.0/base/reference/1",
                                           "torus-life/v1.0.0/base/starter/1",
                                           "ember-gem/v1.0.0/base/reference/1",
                                           "candle-flicker/v1.0.0/base/reference/1",
                                           "valve-wheel/v1.0.0/base/reference/1",
                                           "beacon-lamp/v1.0.0/base/reference/1",
                                           "tin-scout/v1.0.0/base/reference/1"]
    (cup,) = demo.tournaments
    assert (cup.name, cup.case) == ("capture-demo", "capture")
    assert [p.name for p in cup.participants] == [
        "baseline/guard", "baseline/random", "baseline/rush", "reference/1"]
