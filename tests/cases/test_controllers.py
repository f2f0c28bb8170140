"""Capture's controllers: built like submissions, inspected, and played through the arena."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import wasmtime

from tcab.arena.game import GameSpec
from tcab.arena.match import Entrant, play_match
from tcab.catalog import load_version
from tcab.seeding import seed_repository
from tests.support.capture import CASE, R

SEEDS = (0, 1, 2)


@pytest.fixture(scope="module")
def case():
    version, problems = load_version(CASE)
    assert not problems, problems
    return version


def spec_for(case, variant: str | None = None) -> GameSpec:
    return GameSpec.from_case(case, case.variant(variant))


@pytest.mark.parametrize("name", ["random", "rush", "guard", "reference", "starter"])
def test_built_modules_are_import_free_with_the_abi_exports(modules, name):
    module = wasmtime.Module(wasmtime.Engine(), modules[name].read_bytes())
    assert list(module.imports) == []
    exports = {e.name: e.type for e in module.exports}
    assert isinstance(exports["memory"], wasmtime.MemoryType)
    alloc, tick = exports["alloc"], exports["tick"]
    assert [str(t) for t in alloc.params] == ["i32"] and [str(t) for t in alloc.results] == ["i32"]
    assert [str(t) for t in tick.params] == ["i32", "i32"] and [str(t) for t in tick.results] == ["i64"]


def test_the_baselines_each_have_their_own_source(modules):
    digests = {modules[n].read_bytes() for n in ("random", "rush", "guard", "reference")}
    assert len(digests) == 4


def test_controllers_share_the_workspace_helper_and_the_rules_are_held_once(case, tmp_path):
    # Baselines and the solution are laid over the workspace, so its helper
    # library is theirs. The local runner's rules are the game's module,
    # seeded from game/ by the manifest: the case folder holds one copy.
    for tree in ("baselines/random", "baselines/rush", "baselines/guard", "solution"):
        assert not (CASE / tree / "src/capture.zig").exists(), tree
    rules = (CASE / "game/rules.py").read_bytes()
    copies = [p for p in CASE.rglob("*.py") if p.read_bytes() == rules]
    assert copies == [CASE / "game/rules.py"]
    seeded = seed_repository(case, case.variant(), tmp_path / "repo")
    assert (seeded.path / "tools/rules.py").read_bytes() == rules


def _score(case, modules, a: str, b: str, variant=None, seeds=SEEDS) -> tuple[int, int, int]:
    """(wins of a, wins of b, draws) over seeds, each played from both seats."""
    spec = spec_for(case, variant)
    wins = [0, 0, 0]
    for seed in seeds:
        for seats in ((a, b), (b, a)):
            record = play_match(spec, [Entrant.from_path(modules[n], n) for n in seats], seed)
            assert not record.replay["forfeits"], record.replay["forfeits"]
            winner = record.result["winner"]
            wins[2 if winner is None else (0 if seats[winner] == a else 1)] += 1
    return tuple(wins)


@pytest.mark.parametrize("stronger, weaker, variant", [
    ("rush", "random", None),
    ("guard", "rush", None),
    ("reference", "guard", None),
    ("reference", "guard", "fog"),
])
def test_the_field_is_ordered_by_strength(case, modules, stronger, weaker, variant):
    strong, weak, draws = _score(case, modules, stronger, weaker, variant)
    assert strong > weak + draws, (stronger, strong, weaker, weak, draws)


def test_the_starter_plays_legally_but_never_scores(case, modules):
    spec = spec_for(case)
    record = play_match(spec, [Entrant.from_path(modules["starter"]), Entrant.from_path(modules["guard"])], 4)
    assert not record.replay["forfeits"]
    assert record.result["winner"] == 1 and record.result["scores"][0] == 0


def test_peak_fuel_is_far_below_the_budget(case, modules):
    spec = spec_for(case, "large")
    record = play_match(spec, [Entrant.from_path(modules["reference"]), Entrant.from_path(modules["guard"])], 5)
    assert all(f["peak"] < spec.fuel_per_tick // 4 for f in record.fuel), record.fuel


def test_the_replay_renderer_resimulates_exactly_like_the_rules(case, modules):
    # The renderer re-simulates replays in JavaScript; run its simulation block under
    # node against the Python rules, tick by tick, with a seed beyond 2**53.
    html = (CASE / "replay/index.html").read_text()
    sim = html.split("// BEGIN SIM")[1].split("// END SIM")[0]
    spec = spec_for(case, "fog")
    seed = 2**63 + 12345
    record = play_match(spec, [Entrant.from_path(modules["reference"]), Entrant.from_path(modules["rush"])], seed)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "replay.json.gz"
        path.write_bytes(gzip.compress(json.dumps(record.replay).encode()))
        driver = sim + """
const zlib = require('zlib'), fs = require('fs');
const text = zlib.gunzipSync(fs.readFileSync(process.argv[1])).toString();
const seed = text.match(/"seed"\\s*:\\s*(-?\\d+)/)[1];
const states = simulate(JSON.parse(text), seed);
console.log(JSON.stringify(states.map(s => [s.agents.map(a => [a.x, a.y, a.carrying ? 1 : 0, a.respawn]),
  s.flags.map(f => [f.x, f.y, f.carrier, f.idle]), s.scores, s.tags])));
"""
        run = subprocess.run(["node", "-e", driver, str(path)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    js = json.loads(run.stdout)
    state = R.init(spec.params, seed, 2)
    python = []
    for actions in [None, *record.replay["ticks"]]:
        if actions is not None:
            state = R.step(state, actions, spec.timestep_ms)
        python.append([[[a.x, a.y, int(a.carrying), a.respawn] for a in state.agents],
                       [[f.x, f.y, f.carrier, f.idle] for f in state.flags], list(state.scores), list(state.tags)])
    assert js == python
    assert js[-1][2] == record.result["scores"]


def test_the_local_runner_in_the_seeded_workspace_plays_a_match(case, modules, tmp_path):
    seeded = seed_repository(case, case.variant(), tmp_path / "repo")
    run = subprocess.run([sys.executable, str(seeded.path / "tools/play.py"), str(modules["guard"]),
                          "rush", "--seeds", "1"], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert "you won 2 of 2" in run.stdout, run.stdout

