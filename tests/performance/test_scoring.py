"""Scoring on the held-out scenarios: both reference engines (real Zig builds)
are correct, the fast one spends at least 5x less fuel on the stress set,
fuel is deterministic, the phases and the ceiling hold, and a score is cached
by (module digest, scenarios digest)."""

from __future__ import annotations

import dataclasses
import json

from tcab.performance.score import cached_score, load_scenarios, score_module


def test_both_references_are_correct_and_the_fast_one_is_5x_cheaper(torus, engines) -> None:
    scenarios = load_scenarios(torus.section, torus.root)
    naive, fast = (score_module(engines[n], scenarios) for n in ("naive", "fast"))
    for score in (naive, fast):
        assert score.correct, [(c.name, c.status, c.detail) for c in score.cases]
        assert [c.status for c in score.cases] == ["correct"] * 6
    assert naive.total_fuel >= 5 * fast.total_fuel, (naive.total_fuel, fast.total_fuel)
    # The score is the stress scenarios' fuel only (smoke is not scored).
    assert fast.total_fuel == sum(c.fuel for c in fast.cases if c.kind == "stress")


def test_fuel_is_identical_on_every_repeat(torus, engines) -> None:
    scenarios = load_scenarios(torus.section, torus.root)
    first, again = score_module(engines["fast"], scenarios), score_module(engines["fast"], scenarios)
    assert [c.fuel for c in first.cases] == [c.fuel for c in again.cases]
    assert first.key == again.key


def test_a_correct_stress_case_over_the_limit_is_over_ceiling(torus, engines) -> None:
    scenarios = load_scenarios(torus.section, torus.root)
    tight = dataclasses.replace(scenarios, fuel_limit=20_000_000)  # fast life needs ~30M, runway 4
    score = score_module(engines["fast"], tight)
    by = {c.name: c for c in score.cases}
    assert by["life"].status == "over_ceiling" and by["life"].fuel > 20_000_000
    assert by["maze"].status == "correct"
    assert not score.correct and score.total_fuel is None


def test_out_of_fuel_past_the_runway(torus, engines) -> None:
    scenarios = load_scenarios(torus.section, torus.root)
    tiny = dataclasses.replace(scenarios, fuel_limit=1_000_000)
    by = {c.name: c for c in score_module(engines["naive"], tiny).cases}
    assert by["small"].status == "out_of_fuel" and by["small"].fuel == 1_000_000
    assert "fuel_limit x fuel_runway" in by["small"].detail


def test_a_failed_smoke_case_skips_the_stress_phase(torus, engines) -> None:
    scenarios = load_scenarios(torus.section, torus.root)
    held = list(scenarios.held)
    wrong = json.loads(json.dumps(held[1].expected))
    wrong["snapshots"][2]["checksum"] = "0" * 16
    held[1] = dataclasses.replace(held[1], expected=wrong, expected_sha256="changed")
    score = score_module(engines["fast"], dataclasses.replace(scenarios, held=tuple(held)))
    small = score.cases[1]
    assert small.status == "mismatch" and small.mismatch_tick == wrong["snapshots"][2]["tick"]
    assert [c.status for c in score.cases if c.kind == "stress"] == ["skipped"] * 3
    assert all(c.fuel is None for c in score.cases if c.kind == "stress")


def test_a_score_is_cached_by_module_and_scenarios_digest(torus, engines, tmp_path) -> None:
    scenarios = load_scenarios(torus.section, torus.root)
    first, hit = cached_score(tmp_path, engines["fast"], scenarios)
    assert not hit
    second, hit = cached_score(tmp_path, engines["fast"], scenarios)
    assert hit and second == first
    # Another scenario set (a changed runway) is another key: scored again.
    held = (dataclasses.replace(scenarios.held[0], scenario=dataclasses.replace(scenarios.held[0].scenario,
                                                                                 fuel_runway=2)),)
    other, hit = cached_score(tmp_path, engines["fast"], dataclasses.replace(scenarios, held=held))
    assert not hit and other.key != first.key
    # A damaged cache file is scored again, never trusted; so is a forged one
    # (a better score written without this host's key).
    path = tmp_path / "scores" / f"{first.key}.json"
    path.write_text('{"key": "forged"')
    again, hit = cached_score(tmp_path, engines["fast"], scenarios)
    assert not hit and again == first
    head, _, body = path.read_bytes().partition(b"\n")
    doc = json.loads(body)
    doc["total_fuel"] = 1
    path.write_bytes(head + b"\n" + json.dumps(doc).encode())
    again, hit = cached_score(tmp_path, engines["fast"], scenarios)
    assert not hit and again.total_fuel == first.total_fuel
