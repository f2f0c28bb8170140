"""Capture's rules on hand-built states (a 14x9 open arena, see conftest.open_state).

Team 0 owns x < 7, team 1 owns x >= 7. Bases (1,4) and (12,4), spawns (3,4) and (10,4).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.support.capture import R, open_state, orders

STAY = {"orders": []}


def pos(state, agent):
    a = state.agents[agent]
    return (a.x, a.y)


def test_a_defender_tags_an_intruder_on_its_own_half():
    s = open_state([(0, 0, 5, 4), (1, 1, 6, 4)], respawn_ticks=3)
    s = R.step(s, [STAY, orders((1, "W"))], 100)
    intruder = s.agents[1]
    assert (intruder.x, intruder.y, intruder.respawn) == (10, 4, 3)   # back at its spawn
    assert pos(s, 0) == (5, 4) and s.agents[0].respawn == 0
    assert s.tags == (1, 0)


def test_nobody_is_tagged_on_the_intruders_own_half():
    s = open_state([(0, 0, 7, 4), (1, 1, 8, 4)])
    s = R.step(s, [orders((0, "E")), STAY], 100)   # team 0 walks onto a team 1 agent at (8,4)
    assert s.agents[0].respawn > 0 and pos(s, 0) == (3, 4)   # team 0 was the intruder
    assert pos(s, 1) == (8, 4) and s.tags == (0, 1)


def test_swapping_cells_on_the_defenders_half_tags_the_intruder():
    s = open_state([(0, 0, 4, 4), (1, 1, 5, 4)])
    s = R.step(s, [orders((0, "E")), orders((1, "W"))], 100)
    assert s.agents[1].respawn > 0 and pos(s, 1) == (10, 4)
    assert pos(s, 0) == (5, 4) and s.agents[0].respawn == 0


def test_swapping_across_the_centre_line_tags_nobody():
    s = open_state([(0, 0, 6, 4), (1, 1, 7, 4)])
    s = R.step(s, [orders((0, "E")), orders((1, "W"))], 100)
    assert pos(s, 0) == (7, 4) and pos(s, 1) == (6, 4)
    assert s.tags == (0, 0)


def test_agents_that_merely_pass_side_by_side_do_not_meet():
    s = open_state([(0, 0, 4, 4), (1, 1, 5, 5)])
    s = R.step(s, [orders((0, "E")), orders((1, "W"))], 100)   # (5,4) and (4,5): no meeting
    assert pos(s, 0) == (5, 4) and pos(s, 1) == (4, 5) and s.tags == (0, 0)


def test_respawning_agents_neither_act_nor_tag():
    s = open_state([(0, 0, 3, 4, 0, 2), (1, 1, 4, 4)])
    s = R.step(s, [orders((0, "N")), orders((1, "W"))], 100)   # intruder onto the respawning agent
    assert pos(s, 0) == (3, 4) and s.agents[0].respawn == 1
    assert pos(s, 1) == (3, 4) and s.agents[1].respawn == 0 and s.tags == (0, 0)
    s = R.step(s, [orders((0, "N")), orders((1, "E"))], 100)
    assert pos(s, 0) == (3, 4) and s.agents[0].respawn == 0   # the last tick out of play
    s = R.step(s, [orders((0, "N")), STAY], 100)
    assert pos(s, 0) == (3, 3)


def test_walls_and_ones_own_flag_base_block_moves():
    s = open_state([(0, 0, 2, 4), (1, 1, 12, 3)])
    s = R.step(s, [orders((0, "W")), orders((1, "N"))], 100)
    assert pos(s, 0) == (2, 4)    # own base (1,4)
    assert pos(s, 1) == (12, 2)
    s = R.step(s, [STAY, orders((1, "N"))], 100)
    s = R.step(s, [STAY, orders((1, "N"))], 100)
    assert pos(s, 1) == (12, 1)   # (12,0) is the border wall


def test_picking_up_carrying_and_capturing():
    s = open_state([(0, 0, 11, 3), (1, 1, 8, 1)])
    s = R.step(s, [orders((0, "S")), STAY], 100)     # (11,4): not the base yet
    assert not s.agents[0].carrying
    s = R.step(s, [orders((0, "E")), STAY], 100)     # onto team 1's base (12,4)
    assert s.agents[0].carrying and s.flags[1].carrier == 0
    for _ in range(4):
        s = R.step(s, [orders((0, "W")), STAY], 100)
        assert (s.flags[1].x, s.flags[1].y) == pos(s, 0)
    assert pos(s, 0) == (8, 4) and s.scores == (0, 0)
    s = R.step(s, [orders((0, "W")), STAY], 100)     # (7,4) is still team 1's half
    assert s.scores == (0, 0)
    s = R.step(s, [orders((0, "W")), STAY], 100)     # (6,4): home
    assert s.scores == (1, 0) and not s.agents[0].carrying
    assert s.flags[1] == R.Flag(1, 12, 4, -1, 0)


def test_a_tagged_carrier_drops_the_flag_where_it_was_tagged():
    team0_flag_carried = (R.Flag(0, 5, 4, 1, 0), R.Flag(1, 12, 4, -1, 0))
    s = open_state([(0, 0, 4, 4), (1, 1, 5, 4, 1)], flags=team0_flag_carried,
                   flag_return_ticks=3)
    s = R.step(s, [orders((0, "E")), orders((1, "W"))], 100)   # swap: tagged at (4,4)
    assert s.agents[1].respawn > 0 and not s.agents[1].carrying
    assert s.flags[0] == R.Flag(0, 4, 4, -1, 1)
    s = R.step(s, [orders((0, "N")), STAY], 100)
    assert s.flags[0].idle == 2
    s = R.step(s, [STAY, STAY], 100)   # lain 3 ticks: home by itself
    assert s.flags[0] == R.Flag(0, 1, 4, -1, 0)


def test_a_defender_on_the_tag_cell_returns_the_flag_at_once():
    carried = (R.Flag(0, 5, 4, 1, 0), R.Flag(1, 12, 4, -1, 0))
    s = open_state([(0, 0, 4, 4), (1, 1, 5, 4, 1)], flags=carried)
    s = R.step(s, [STAY, orders((1, "W"))], 100)   # carrier runs into the defender
    assert s.agents[1].respawn > 0
    assert s.flags[0] == R.Flag(0, 1, 4, -1, 0)


def test_an_owner_stepping_on_its_dropped_flag_returns_it():
    dropped = (R.Flag(0, 5, 5, -1, 4), R.Flag(1, 12, 4, -1, 0))
    s = open_state([(0, 0, 5, 4), (1, 1, 9, 4)], flags=dropped)
    s = R.step(s, [orders((0, "S")), STAY], 100)
    assert s.flags[0] == R.Flag(0, 1, 4, -1, 0)


def test_an_enemy_picks_up_a_dropped_flag():
    dropped = (R.Flag(0, 5, 5, -1, 4), R.Flag(1, 12, 4, -1, 0))
    s = open_state([(0, 0, 2, 2), (1, 1, 5, 4)], flags=dropped)
    s = R.step(s, [STAY, orders((1, "S"))], 100)
    assert s.flags[0].carrier == 1 and s.agents[1].carrying


def test_outcome_target_score_max_ticks_and_draws():
    s = open_state([(0, 0, 2, 2), (1, 1, 9, 4)], target_score=2)
    assert R.outcome(s, False) is None
    assert R.outcome(s, True) == {"winner": None, "scores": [0, 0], "reason": "max_ticks"}
    assert R.outcome(replace(s, scores=(1, 0)), False) is None
    assert R.outcome(replace(s, scores=(1, 0)), True) == {"winner": 0, "scores": [1, 0], "reason": "max_ticks"}
    assert R.outcome(replace(s, scores=(1, 2)), False) == {"winner": 1, "scores": [1, 2], "reason": "score"}
    assert R.outcome(replace(s, scores=(2, 2)), False) == {"winner": None, "scores": [2, 2], "reason": "score"}


def test_time_and_tick_advance_by_the_given_timestep():
    s = open_state([(0, 0, 2, 2), (1, 1, 9, 4)])
    s = R.step(R.step(s, [STAY, None], 16), [None, None], 16)
    assert (s.tick, s.time_ms) == (2, 32)


def test_a_forfeited_seat_none_action_means_everyone_stays():
    s = open_state([(0, 0, 2, 2), (1, 1, 9, 4)])
    s = R.step(s, [orders((0, "E")), None], 100)
    assert pos(s, 0) == (3, 2) and pos(s, 1) == (9, 4)


@pytest.mark.parametrize("seat, action, why", [
    (0, orders((3, "N")), "agent 3 is not yours"),
    (1, orders((0, "N")), "agent 0 is not yours"),
    (0, orders((1, "N"), (1, "S")), "duplicate order for agent 1"),
    (0, orders((1, "N"), (2, "E"), (1, "N")), "duplicate order for agent 1"),
    (0, orders((0, "up")), "unknown move"),
    (0, orders((99, "N")), "agent 99 is not yours"),
])
def test_check_rejects_foreign_agents_and_duplicates(seat, action, why):
    s = R.init({}, 5, 2)
    assert why in R.check(s, seat, action)


@pytest.mark.parametrize("seat, action", [
    (0, {"orders": []}), (0, orders((0, "N"), (1, "stay"), (2, "W"))), (1, orders((5, "E"), (3, "S"))),
])
def test_check_accepts_legal_orders(seat, action):
    assert R.check(R.init({}, 5, 2), seat, action) is None


def test_observe_with_fog_shows_only_enemies_within_vision():
    s = open_state([(0, 0, 2, 2), (1, 0, 2, 6), (2, 1, 5, 2), (3, 1, 11, 6)], vision=3)
    seen = R.observe(s, 0)
    assert [a[0] for a in seen["agents"]] == [0, 1, 2]     # agent 3 is 9+ away from both
    assert seen["flags"] == [[0, 1, 4, -1], [1, 12, 4, -1]]
    assert [a[0] for a in R.observe(s, 1)["agents"]] == [0, 2, 3]
    full = open_state([(0, 0, 2, 2), (1, 0, 2, 6), (2, 1, 5, 2), (3, 1, 11, 6)])
    assert len(R.observe(full, 0)["agents"]) == 4


def test_observation_fields():
    s = open_state([(0, 0, 2, 2), (1, 1, 9, 4, 1, 3)])
    o = R.observe(s, 1)
    assert o["seat"] == 1 and o["width"] == 14 and o["height"] == 9
    assert o["bases"] == [[1, 4], [12, 4]] and o["spawns"] == [[3, 4], [10, 4]]
    assert o["agents"][1] == [1, 1, 9, 4, 1, 3]
    assert o["map"][4][1] == "." and o["map"][0] == "#" * 14


def test_digest_is_canonical_and_sensitive():
    a, b = R.init({}, 9, 2), R.init({}, 9, 2)
    assert R.digest(a) == R.digest(b) and len(R.digest(a)) == 64
    assert R.digest(R.step(a, [orders((0, "E")), None], 100)) != R.digest(a)
    assert R.digest(R.init({}, 10, 2)) != R.digest(a)


def test_step_ignores_orders_for_the_other_seats_agents():
    s = open_state([(0, 0, 2, 2), (1, 1, 9, 4)])
    s = R.step(s, [orders((1, "N")), orders((0, "S"))], 100)
    assert pos(s, 0) == (2, 2) and pos(s, 1) == (9, 4)
