"""Tally: a tiny test game for the arena host (not a real case).

Every seat owns one agent whose id is its seat number. Each tick a seat
orders its agent to add ``dir`` (0..3) to its score. The first seat whose
score reaches ``target`` wins (the lowest seat on a tie of leaders is *not*
favoured: a tie is a draw); at ``max_ticks`` the single highest score wins,
otherwise a draw. Any number of seats.
"""

import hashlib
import json


def init(params, seed, seats):
    return {"tick": 0, "seed": seed, "scores": [0] * seats, "target": int(params.get("target", 30)),
            "bonus": seed % 2}


def observe(state, seat):
    return {"tick": state["tick"], "me": seat, "scores": list(state["scores"])}


def check(state, seat, action):
    seen = set()
    for move in action["moves"]:
        if move["agent"] != seat:
            return f"agent {move['agent']} is not yours"
        if move["agent"] in seen:
            return f"duplicate order for agent {move['agent']}"
        seen.add(move["agent"])
    return None


def step(state, actions, timestep_ms):
    scores = list(state["scores"])
    for seat, action in enumerate(actions):
        if action is not None:
            scores[seat] += sum(m["dir"] for m in action["moves"])
    return {**state, "tick": state["tick"] + 1, "scores": scores}


def _leader(scores):
    best = max(scores)
    leaders = [i for i, s in enumerate(scores) if s == best]
    return leaders[0] if len(leaders) == 1 else None


def outcome(state, final):
    scores = state["scores"]
    if max(scores) >= state["target"]:
        return {"winner": _leader(scores), "scores": scores, "reason": "score"}
    if final:
        return {"winner": _leader(scores), "scores": scores, "reason": "max_ticks"}
    return None


def digest(state):
    return hashlib.sha256(json.dumps(state, sort_keys=True).encode()).hexdigest()
