"""tcab/arena/simulation.py: the lockstep state machine on Tally's real rules
module, fed actions directly (no wasm): when a match ends, who wins, what a
forfeit does to the tick, the result rows and the final digest."""

from __future__ import annotations

import pytest

from tcab.arena.rules import Rules
from tcab.arena.sandbox import Forfeit
from tcab.arena.simulation import Simulator
from tests.support.paths import TALLY


@pytest.fixture(scope="module")
def rules() -> Rules:
    return Rules(TALLY / "game" / "rules.py")


def _sim(rules, seats=2, target=6, max_ticks=50) -> Simulator:
    return Simulator(rules, {"target": target}, seed=4, seats=seats, timestep_ms=100, max_ticks=max_ticks)


def add(seat: int, n: int) -> dict:
    return {"moves": [{"agent": seat, "dir": n}]}


def test_the_first_to_the_target_wins_with_rows_for_every_seat(rules):
    sim = _sim(rules)
    assert sim.after_load() is None
    assert sim.advance([add(0, 3), add(1, 1)]) is None
    result = sim.advance([add(0, 3), add(1, 1)])
    assert result == {"winner": 0, "reason": "score", "scores": [6, 2], "ticks": 2, "seats": [
        {"outcome": "win", "reason": "score", "forfeit": None, "seat": 0, "score": 6},
        {"outcome": "loss", "reason": "score", "forfeit": None, "seat": 1, "score": 2}]}
    assert sim.result is result and sim.tick == 2 and len(sim.actions) == 2
    assert sim.final_digest == rules.digest(sim.state) and len(sim.final_digest) == 64


def test_max_ticks_ends_the_match_a_tie_is_a_draw(rules):
    sim = _sim(rules, target=100, max_ticks=3)
    results = [sim.advance([add(0, 1), add(1, 1)]) for _ in range(3)]
    assert results[:2] == [None, None]
    assert (results[2]["winner"], results[2]["reason"], results[2]["ticks"]) == (None, "max_ticks", 3)
    assert [s["outcome"] for s in results[2]["seats"]] == ["draw", "draw"]


def test_a_forfeit_ends_a_two_seat_match_before_the_state_steps(rules):
    sim = _sim(rules)
    sim.advance([add(0, 1), add(1, 2)])
    before = sim.state
    sim.forfeit(1, Forfeit("fuel", "out of fuel", 1))
    sim.forfeit(1, Forfeit("trap", "a later failure", 1))  # the first forfeit stands
    result = sim.advance([add(0, 1), add(1, 2)])
    assert sim.state == before and sim.tick == 1, "the state must not step once one seat is left"
    assert sim.actions[-1] == [add(0, 1), None]  # a forfeited seat's action is never recorded
    assert (result["winner"], result["reason"], result["ticks"], result["scores"]) == (0, "forfeit", 2, [1, 2])
    assert result["seats"][1] == {"outcome": "loss", "reason": "forfeit", "seat": 1, "score": 2,
                                  "forfeit": {"reason": "fuel", "detail": "out of fuel", "tick": 1,
                                              "phase": "tick"}}
    assert result["seats"][0]["outcome"] == "win"


def test_a_seat_that_forfeited_never_wins_on_its_score(rules):
    sim = _sim(rules, seats=3, target=100, max_ticks=2)
    sim.advance([add(0, 3), add(1, 1), add(2, 1)])
    sim.forfeit(0, Forfeit("memory", "over the cap", 1))
    result = sim.advance([add(0, 3), add(1, 1), add(2, 1)])
    # The rules name seat 0 (highest score, 3); it forfeited, so no one wins.
    assert (result["winner"], result["reason"], result["scores"]) == (None, "max_ticks", [3, 2, 2])
    assert [s["outcome"] for s in result["seats"]] == ["loss", "draw", "draw"]
    assert result["seats"][0]["reason"] == "forfeit"


@pytest.mark.parametrize(("failed", "winner"), [((0,), 1), ((1,), 0), ((0, 1), None)])
def test_load_forfeits_end_the_match_at_tick_zero(rules, failed, winner):
    sim = _sim(rules)
    for seat in failed:
        sim.forfeit(seat, Forfeit("load", "not a WebAssembly binary", 0, "load"))
    result = sim.after_load()
    assert (result["winner"], result["reason"], result["ticks"], result["scores"]) == (winner, "forfeit", 0, [0, 0])
    assert [s["forfeit"]["phase"] for s in result["seats"] if s["forfeit"]] == ["load"] * len(failed)


def test_zero_max_ticks_ends_at_load_with_the_final_outcome(rules):
    result = _sim(rules, max_ticks=0).after_load()
    assert (result["winner"], result["reason"], result["ticks"]) == (None, "max_ticks", 0)


def test_a_solo_game_ends_only_on_its_result_or_its_own_forfeit(rules):
    solo = _sim(rules, seats=1, target=4)
    assert solo.after_load() is None
    assert solo.advance([add(0, 3)]) is None
    assert solo.advance([add(0, 3)])["seats"] == [
        {"outcome": "win", "reason": "score", "forfeit": None, "seat": 0, "score": 6}]
    failed = _sim(rules, seats=1)
    failed.forfeit(0, Forfeit("trap", "unreachable", 0))
    result = failed.advance([add(0, 3)])
    assert (result["winner"], result["reason"], result["ticks"]) == (None, "forfeit", 1)


def test_the_same_actions_give_the_same_result_and_digest(rules):
    """What replay verification relies on: the machine is a function of its inputs."""
    script = [[add(0, n % 4), add(1, (n * 3) % 4)] for n in range(20)]
    outs = []
    for _ in range(2):
        sim = _sim(rules, target=25)
        result = next(r for r in (sim.advance(a) for a in script) if r is not None)
        outs.append((result, sim.final_digest, sim.actions))
    assert outs[0] == outs[1]
