"""Replays: canonical bytes, verification without wasm, tampering caught."""

from __future__ import annotations

import copy
import os
import subprocess
import sys
from pathlib import Path

from arena_corpus import controller

from tcab.arena.match import Entrant, play_match
from tcab.arena.replay import encode_replay, read_replay, verify_replay, write_replay

HERE = Path(__file__).parent

SCRIPT = """
import sys
sys.path.insert(0, {here!r})
from arena_support import CATALOG
from arena_corpus import controller
from tcab.arena.match import Entrant, play_match
from tcab.arena.replay import encode_replay
from tcab.arena.resolve import resolve_game
from tcab.settings import Settings
spec = resolve_game(Settings.from_env(env={{"TCAB_CATALOG": str(CATALOG)}}), "tally", "long")[2]
rec = play_match(spec, [Entrant.from_bytes("a", controller(2)), Entrant.from_bytes("b", controller(3, moves=2))], 11)
sys.stdout.buffer.write(encode_replay(rec.replay))
"""


def _play_in_subprocess(hashseed: str) -> bytes:
    env = {**os.environ, "PYTHONHASHSEED": hashseed}
    proc = subprocess.run([sys.executable, "-c", SCRIPT.format(here=str(HERE))], env=env,
                          capture_output=True, check=True, cwd=HERE)
    return proc.stdout


def test_replays_are_byte_identical_across_processes_and_hash_seeds():
    a, b = _play_in_subprocess("1"), _play_in_subprocess("4242")
    assert len(a) > 100 and a == b


def test_replay_round_trip_and_verify(tally, tmp_path):
    record = play_match(tally, [Entrant.from_bytes("a", controller(2)), Entrant.from_bytes("b", controller(1))], 3)
    path = tmp_path / "m.json.gz"
    write_replay(path, record.replay)
    doc = read_replay(path)
    assert doc == record.replay
    assert path.read_bytes() == encode_replay(doc)
    header = doc["header"]
    assert header["case"] == "tally" and header["seed"] == 3 and header["params"] == {"target": 30}
    assert [s["sha256"] for s in header["seats"]] == [Entrant.from_bytes("x", controller(n)).sha256 for n in (2, 1)]
    verdict = verify_replay(doc, tally.rules_path, tally.action_schema)
    assert verdict.ok and verdict.result == record.result and verdict.final_digest == record.final_digest


def test_tampered_replays_do_not_verify(tally):
    record = play_match(tally, [Entrant.from_bytes("a", controller(2)), Entrant.from_bytes("b", controller(1))], 3)

    def check(mutate):
        doc = copy.deepcopy(record.replay)
        mutate(doc)
        return verify_replay(doc, tally.rules_path, tally.action_schema)

    v = check(lambda d: d["ticks"][0][1]["moves"][0].update(dir=3))
    assert not v.ok and any("result differs" in p for p in v.problems)
    v = check(lambda d: d.update(final_digest="0" * 64))
    assert not v.ok and any("final digest differs" in p for p in v.problems)
    v = check(lambda d: d["ticks"][0][0]["moves"][0].update(agent=1))
    assert not v.ok and any("illegal action" in p for p in v.problems)
    v = check(lambda d: d["ticks"][0][0].update(moves="x"))
    assert not v.ok and any("schema" in p for p in v.problems)
    v = check(lambda d: d["ticks"].pop())
    assert not v.ok and any("without a result" in p for p in v.problems)
    v = check(lambda d: d["header"].update(seed=4))
    assert not v.ok and any("final digest differs" in p for p in v.problems)
