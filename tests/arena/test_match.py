"""Lockstep matches over the rules-module contract, any number of seats."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tcab.arena.match import Entrant, play_match
from tcab.arena.replay import verify_replay
from tcab.arena.rules import load_rules
from tcab.errors import ArenaError
from tests.support.arena_corpus import controller, hostile


def _e(name, n, **kw):
    return Entrant.from_bytes(name, controller(n, **kw))


def test_stronger_controller_wins_on_score(tally):
    record = play_match(tally, [_e("weak", 1), _e("strong", 3)], seed=5)
    r = record.result
    assert r["winner"] == 1 and r["reason"] == "score" and r["scores"] == [10, 30] and r["ticks"] == 10
    assert [s["outcome"] for s in r["seats"]] == ["loss", "win"]
    assert len(record.replay["ticks"]) == 10
    assert record.replay["ticks"][0] == [{"moves": [{"agent": 0, "dir": 1}]}, {"moves": [{"agent": 1, "dir": 3}]}]
    assert all(f["ticks"] == 10 and f["peak"] > 0 for f in record.fuel)


def test_max_ticks_ends_in_a_draw_for_equal_controllers(tally):
    spec = replace(tally, max_ticks=7)
    r = play_match(spec, [_e("a", 2), _e("b", 2)], seed=5).result
    assert r["winner"] is None and r["reason"] == "max_ticks" and r["ticks"] == 7
    assert [s["outcome"] for s in r["seats"]] == ["draw", "draw"]


def test_three_seats_play_and_a_forfeit_does_not_end_the_match(tally3):
    unreachable = hostile()["unreachable"][0]
    entrants = [_e("one", 1), Entrant.from_bytes("crash", unreachable), _e("two", 2)]
    record = play_match(tally3, entrants, seed=9)
    r = record.result
    # Two seats are still standing after the crash, so the game goes on.
    assert r["reason"] == "score" and r["winner"] == 2 and r["ticks"] == 15
    assert [s["outcome"] for s in r["seats"]] == ["loss", "loss", "win"]
    assert r["seats"][1]["forfeit"]["reason"] == "trap"
    assert all(t[1] is None for t in record.replay["ticks"])
    assert verify_replay(record.replay, tally3.rules_path, tally3.action_schema).ok


def test_last_seat_standing_wins_by_forfeit_in_three_seats(tally3):
    crash = hostile()["unreachable"][0]
    entrants = [Entrant.from_bytes("x", crash), _e("ok", 1), Entrant.from_bytes("y", b"nope")]
    r = play_match(tally3, entrants, seed=9).result
    assert r["winner"] == 1 and r["reason"] == "forfeit" and r["ticks"] == 1
    assert [s["forfeit"]["reason"] if s["forfeit"] else None for s in r["seats"]] == ["trap", None, "load"]


def test_all_seats_failing_to_load_is_a_result_without_ticks(tally):
    r = play_match(tally, [Entrant.from_bytes("a", b"x"), Entrant.from_bytes("b", b"y")], seed=1).result
    assert r["winner"] is None and r["reason"] == "forfeit" and r["ticks"] == 0
    assert [s["outcome"] for s in r["seats"]] == ["loss", "loss"]


def test_time_is_faked_with_timestep_ms(tally, tmp_path):
    """The rules get [simulation].timestep_ms whatever the host took."""
    rules = tmp_path / "rules.py"
    source = tally.rules_path.read_text().replace(
        'return {**state, "tick": state["tick"] + 1, "scores": scores}',
        'return {**state, "tick": state["tick"] + 1, "scores": scores, "ms": state.get("ms", 0) + timestep_ms}')
    source += '\n\ndef outcome(state, final):\n    return {"winner": None, "scores": state["scores"], ' \
              '"reason": "ms=%d" % state.get("ms", 0)} if final else None\n'
    rules.write_text(source)
    spec = replace(tally, rules_path=rules, timestep_ms=250, max_ticks=4)
    assert play_match(spec, [_e("a", 1), _e("b", 1)], 1).result["reason"] == "ms=1000"


def test_same_inputs_same_result_and_seed_reaches_the_rules(tally):
    a = play_match(tally, [_e("a", 1), _e("b", 3)], seed=4)
    b = play_match(tally, [_e("a", 1), _e("b", 3)], seed=4)
    c = play_match(tally, [_e("a", 1), _e("b", 3)], seed=5)
    assert a.replay == b.replay
    assert a.final_digest != c.final_digest  # the seed is part of the state


def test_wrong_number_of_controllers_is_refused(tally):
    with pytest.raises(ArenaError, match="participants is 2, got 3"):
        play_match(tally, [_e("a", 1), _e("b", 1), _e("c", 1)], seed=1)


def test_a_failing_rules_module_raises_arena_error(tally, tmp_path):
    rules = tmp_path / "rules.py"
    rules.write_text(tally.rules_path.read_text().replace("def step(state, actions, timestep_ms):",
                                                          "def step(state, actions, timestep_ms):\n    1 / 0"))
    with pytest.raises(ArenaError, match="rules.step raised ZeroDivisionError"):
        play_match(replace(tally, rules_path=rules), [_e("a", 1), _e("b", 1)], seed=1)


def test_an_observation_breaking_the_world_schema_is_our_bug(tally, tmp_path):
    rules = tmp_path / "rules.py"
    rules.write_text(tally.rules_path.read_text().replace('"me": seat,', '"me": str(seat),'))
    with pytest.raises(ArenaError, match="breaks the world schema"):
        play_match(replace(tally, rules_path=rules), [_e("a", 1), _e("b", 1)], seed=1)


def test_rules_module_is_loaded_without_polluting_sys_modules(tally, tmp_path):
    import sys

    before = set(sys.modules)
    module = load_rules(tally.rules_path)
    assert callable(module.step)
    assert not [m for m in set(sys.modules) - before if "rules" in m]
    broken = tmp_path / "broken.py"
    broken.write_text("def init(params, seed, seats):\n    return {}\n")
    with pytest.raises(ArenaError, match="lacks observe, check, step, outcome, digest"):
        load_rules(broken)


def test_a_module_file_over_the_cap_is_refused_unread(tally, tmp_path, monkeypatch):
    import tcab.arena.match as match_module

    path = tmp_path / "big.wasm"
    path.write_bytes(controller(1) + b"\0" * 4096)
    monkeypatch.setattr(match_module, "MAX_MODULE_BYTES", 1024)
    entrant = Entrant.from_path(path)
    assert entrant.wasm is None and "over the 1024-byte cap" in entrant.error
    r = play_match(tally, [entrant, _e("ok", 1)], seed=1).result
    assert r["seats"][0]["forfeit"]["reason"] == "load" and r["winner"] == 1
    missing = Entrant.from_path(tmp_path / "missing.wasm")
    assert missing.wasm is None and "No such file" in missing.error
