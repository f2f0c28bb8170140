"""The capture case as the catalog sees it: variants, params, seeded repositories."""

from __future__ import annotations

import json

import fastjsonschema
import pytest

from tcab.arena.game import GameSpec
from tcab.catalog import load_version
from tcab.seeding import render_prompt, seed_repository
from tests.support.capture import CASE, R


@pytest.fixture(scope="module")
def case():
    version, problems = load_version(CASE)
    assert not problems, problems
    return version


def test_the_manifest_declares_every_adversarial_table(case):
    assert case.slug == "capture" and case.difficulty == "hard"
    assert case.build.module == "controller.wasm"
    assert case.section.contract.entry == "tick"
    assert [v.slug for v in case.variants] == ["base", "fog", "large"]
    for attr in ("sandbox", "simulation", "match", "replay", "game"):
        assert getattr(case.section, attr) is not None, attr


@pytest.mark.parametrize("slug, width, agents, vision", [
    ("base", 30, 3, 0), ("fog", 30, 3, 5), ("large", 34, 4, 0)])
def test_each_variant_changes_real_game_parameters(case, slug, width, agents, vision):
    spec = GameSpec.from_case(case, case.variant(slug))
    state = R.init(spec.params, 77, 2)
    assert (state.params.width, state.params.agents, state.params.vision) == (width, agents, vision)
    world = fastjsonschema.compile(json.loads((CASE / "schemas/world.json").read_text()))
    for seat in (0, 1):
        obs = world(R.observe(state, seat))
        assert len(obs["map"][0]) == width
        assert sum(1 for a in obs["agents"] if a[1] == seat) == agents


@pytest.mark.parametrize("slug", ["base", "fog", "large"])
def test_seeded_repository_builds_on_its_own(case, slug, tmp_path):
    result = seed_repository(case, case.variant(slug), tmp_path / "repo")
    files = set(result.files)
    assert {"src/main.zig", "src/capture.zig", "schemas/world.json", "schemas/action.json",
            "specs/rules.md", "specs/contract.md", "specs/sandbox.md", "specs/testing.md",
            "tools/play.py", "tools/rules.py"} <= files
    assert ("specs/fog.md" in files) == (slug == "fog")
    # Nothing of the case's own machinery leaks into the seed.
    assert not any(f.startswith(("game/", "baselines/", "solution/", "replay/")) for f in files)
    rules_md = (tmp_path / "repo/specs/rules.md").read_text()
    variant = case.variant(slug)
    assert f"| `vision` | {variant.params['vision']} |" in rules_md
    assert ("Fog of war" in rules_md) == (slug == "fog")
    prompt = render_prompt(case, variant)
    assert "/work/specs/rules.md" in prompt and variant.name in prompt


def test_the_specs_and_the_local_runner_state_the_manifests_limits():
    from tests.support.capture import MANIFEST

    fuel, memory = MANIFEST["sandbox"]["fuel_per_tick"], MANIFEST["sandbox"]["max_memory_bytes"]
    ticks, step_ms = MANIFEST["simulation"]["max_ticks"], MANIFEST["simulation"]["timestep_ms"]
    sandbox = (CASE / "specs/sandbox.md").read_text()
    assert f"{fuel:,}" in sandbox and f"{memory:,}" in sandbox and f"{step_ms} ms" in sandbox
    assert f"**{ticks} ticks**" in (CASE / "specs/rules.md.hbs").read_text()
    runner = (CASE / "workspaces/base/tools/play.py").read_text()
    assert f"FUEL_PER_TICK = {fuel:_}" in runner and f"MAX_TICKS = {ticks}" in runner
    assert f"MAX_MEMORY = {memory // (1 << 20)} * 1024 * 1024" in runner
    assert MANIFEST["build"]["build"] in (CASE / "specs/contract.md").read_text()
    assert MANIFEST["build"]["build"] in (CASE / "prompt.hbs").read_text()
