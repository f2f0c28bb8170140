"""Tournaments: pairing, seat rotation, derived seeds, cache, parallelism,
standings and ratings."""

from __future__ import annotations

import itertools

import pytest

from tcab.arena.engine import sha256_hex
from tcab.arena.rating import fit_bradley_terry, pairwise, standings
from tcab.arena.tournament import Contestant, derive_seed, run_tournament
from tcab.errors import ArenaError
from tests.support.arena_corpus import hostile


def _contestants(wasm_dir, dirs, tmp_path=None):
    out = []
    for n in dirs:
        path = wasm_dir / f"dir{n}.wasm"
        out.append(Contestant(f"dir{n}", path, sha256_hex(path.read_bytes())))
    return out


def _run(spec, cs, settings, **kw):
    args = dict(seed=7, rounds=2, structure="round-robin", jobs=1,
                results_dir=settings.results_dir, modules_dir=settings.build_dir / "modules")
    args.update(kw)
    return run_tournament(spec, cs, **args)


def test_round_robin_plays_every_pairing_with_rotated_seats(tally, settings, wasm_dir):
    cs = _contestants(wasm_dir, [1, 2, 3])
    result = _run(tally, cs, settings, rounds=3)
    assert len(result.matches) == 3 * 3 and result.played == 9
    for pair in itertools.combinations(range(3), 2):
        mine = [m for m in result.matches if set(m["players"]) == set(pair)]
        assert [m["players"] for m in mine] == [list(pair), list(pair[::-1]), list(pair)]
        assert [m["seed"] for m in mine] == [derive_seed(7, "round", r) for r in range(3)]
    order = [cs[s.player].label for s in result.standings]
    assert order == ["dir3", "dir2", "dir1"]
    top = result.standings[0]
    assert (top.wins, top.draws, top.losses, top.forfeits) == (6, 0, 0, 0)
    assert top.ci_low <= top.rating + 1 and top.rating > 0 > result.standings[-1].rating


def test_three_seat_round_robin_plays_every_combination(tally3, settings, wasm_dir):
    cs = _contestants(wasm_dir, [0, 1, 2, 3])
    result = _run(tally3, cs, settings, rounds=3)
    groups = {tuple(sorted(m["players"])) for m in result.matches}
    assert groups == set(itertools.combinations(range(4), 3)) and len(result.matches) == 12
    first = [m["players"] for m in result.matches if tuple(sorted(m["players"])) == (0, 1, 2)]
    assert first == [[0, 1, 2], [1, 2, 0], [2, 0, 1]]
    assert cs[result.standings[0].player].label == "dir3"


def test_cached_matches_are_not_played_again(tally, settings, wasm_dir):
    cs = _contestants(wasm_dir, [1, 3])
    first = _run(tally, cs, settings)
    again = _run(tally, cs, settings)
    assert first.played == 2 and again.played == 0
    assert [m["key"] for m in first.matches] == [m["key"] for m in again.matches]
    assert all(m["cached"] for m in again.matches)
    other_seed = _run(tally, cs, settings, seed=8)
    assert other_seed.played == 2


def test_parallel_run_gives_the_same_matches(tally, settings, wasm_dir, tmp_path):
    cs = _contestants(wasm_dir, [0, 1, 2, 3])
    serial = _run(tally, cs, settings, results_dir=tmp_path / "a")
    parallel = _run(tally, cs, settings, results_dir=tmp_path / "b", jobs=2)
    strip = [(m["key"], m["result"], m["final_digest"], m["replay_sha256"]) for m in serial.matches]
    assert strip == [(m["key"], m["result"], m["final_digest"], m["replay_sha256"]) for m in parallel.matches]
    assert [s.player for s in serial.standings] == [s.player for s in parallel.standings]


def test_bracket_with_byes_and_ranking_by_progress(tally, settings, wasm_dir):
    cs = _contestants(wasm_dir, [1, 3, 2])  # seeds: dir1 (top), dir3, dir2
    result = _run(tally, cs, settings, structure="bracket", rounds=2)
    # Four slots: top seed dir1 gets the bye; dir3 beats dir2; the final is dir1 v dir3.
    assert [m["round"] for m in result.matches] == [1, 1, 2, 2]
    assert {tuple(sorted(m["players"])) for m in result.matches} == {(1, 2), (0, 1)}
    assert result.champion == 1
    assert [cs[s.player].label for s in result.standings] == ["dir3", "dir1", "dir2"]


def test_bracket_tie_break_goes_to_the_higher_seed(tally, settings, wasm_dir):
    cs = _contestants(wasm_dir, [2, 2])  # identical controllers: every match is a draw
    cs = [cs[0], type(cs[1])("twin", cs[1].path, cs[1].sha256)]
    result = _run(tally, cs, settings, structure="bracket", rounds=2)
    assert all(m["result"]["winner"] is None for m in result.matches)
    assert result.champion == 0


def test_forfeits_count_in_standings(tally, settings, wasm_dir, tmp_path):
    bad = tmp_path / "bomb.wasm"
    bad.write_bytes(hostile()["memory_bomb"][0])
    cs = _contestants(wasm_dir, [1]) + [Contestant("bomb", bad, sha256_hex(bad.read_bytes()))]
    result = _run(tally, cs, settings, jobs=2)  # hostile modules in worker processes too
    bomb = next(s for s in result.standings if s.player == 1)
    assert (bomb.wins, bomb.losses, bomb.forfeits) == (0, 2, 2)


def test_bad_tournament_inputs(tally, tally3, settings, wasm_dir):
    cs = _contestants(wasm_dir, [1, 2, 3])
    with pytest.raises(ArenaError, match="structure"):
        _run(tally, cs, settings, structure="swiss")
    with pytest.raises(ArenaError, match="needs 2 controllers"):
        _run(tally, cs[:1], settings)
    with pytest.raises(ArenaError, match="bracket needs a two-seat game"):
        _run(tally3, cs, settings, structure="bracket")


def test_bradley_terry_orders_and_bootstrap_brackets():
    # 0 beats 1 three times in four, 1 beats 2 three times in four.
    matches = [[(0, "win"), (1, "loss")]] * 3 + [[(0, "loss"), (1, "win")]] + \
              [[(1, "win"), (2, "loss")]] * 3 + [[(1, "loss"), (2, "win")]]
    r = fit_bradley_terry(3, matches)
    assert r[0] > r[1] > r[2] and abs(sum(r)) < 1e-6
    table = standings(3, matches, seed=1)
    # Standings rank by points first (1 has four wins, 0 three), then rating.
    assert [s.player for s in table] == [1, 0, 2]
    assert all(s.ci_low <= s.ci_high for s in table)
    assert standings(3, matches, seed=1) == table  # reproducible bootstrap
    assert pairwise([(0, "draw"), (1, "draw"), (2, "forfeit")]) == [(0, 1, 0.5), (0, 2, 1.0), (1, 2, 1.0)]
    assert pairwise([(0, "loss"), (1, "loss"), (2, "win")]) == [(0, 2, 0.0), (1, 2, 0.0)]
