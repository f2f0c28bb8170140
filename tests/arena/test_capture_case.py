"""The arena over the real sample case, capture v1.0.0: its baselines (zig,
built on the host) and the capture-specific hostile controllers."""

from __future__ import annotations

import pytest

from tcab.arena.build import build_baseline
from tcab.arena.match import Entrant, play_match
from tcab.arena.replay import encode_replay, verify_replay
from tcab.arena.resolve import resolve_game
from tcab.settings import Settings
from tests.support.arena_corpus import controller, hostile
from tests.support.paths import CATALOG


@pytest.fixture(scope="module")
def capture(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("capture")
    settings = Settings.from_env(tmp, env={"TCAB_CATALOG": str(CATALOG)})
    case, variant, spec = resolve_game(settings, "capture@v1.0.0")
    modules = {}
    for name in ("rush", "random"):
        record = build_baseline(settings, case, name)
        assert record.status == "ok", record.log_excerpt
        modules[name] = Entrant.from_path(record.module, f"baseline/{name}")
    return spec, modules


def _fixed(output: bytes) -> Entrant:
    return Entrant.from_bytes("fixed", controller(0, output=output, agent="none"))


@pytest.mark.parametrize("output,detail", [
    (b'{"orders":[{"agent":0,"move":"N"}]}', "not yours"),
    (b'{"orders":[{"agent":3,"move":"N"},{"agent":3,"move":"S"}]}', "duplicate order"),
])
def test_capture_illegal_orders_forfeit(capture, output, detail):
    spec, modules = capture
    record = play_match(spec, [modules["rush"], _fixed(output)], seed=2)
    seat = record.result["seats"][1]
    assert seat["forfeit"]["reason"] == "illegal" and detail in seat["forfeit"]["detail"]
    assert record.result["winner"] == 0 and record.result["reason"] == "forfeit"
    assert verify_replay(record.replay, spec.rules_path, spec.action_schema).ok


@pytest.mark.parametrize("name", ["infinite_loop", "memory_bomb", "stack_overflow", "invalid_json", "imports"])
def test_capture_generic_hostiles_forfeit(capture, name):
    spec, modules = capture
    wasm, reason, _ = hostile()[name]
    record = play_match(spec, [Entrant.from_bytes(name, wasm), modules["rush"]], seed=2)
    assert record.result["seats"][0]["forfeit"]["reason"] == reason
    assert record.result["winner"] == 1
    assert verify_replay(record.replay, spec.rules_path, spec.action_schema).ok


def test_capture_baseline_match_is_deterministic_and_verifies(capture):
    spec, modules = capture
    a = play_match(spec, [modules["rush"], modules["random"]], seed=5)
    b = play_match(spec, [modules["rush"], modules["random"]], seed=5)
    assert encode_replay(a.replay) == encode_replay(b.replay)
    assert a.result["reason"] in ("score", "max_ticks") and a.result["ticks"] > 0
    assert all(f["peak"] <= spec.fuel_per_tick for f in a.fuel)
    verdict = verify_replay(a.replay, spec.rules_path, spec.action_schema)
    assert verdict.ok and verdict.final_digest == a.final_digest
    # An empty order list is legal: the "stay everywhere" controller never forfeits.
    idle = play_match(spec, [_fixed(b'{"orders":[]}'), modules["random"]], seed=5)
    assert idle.result["seats"][0]["forfeit"] is None
