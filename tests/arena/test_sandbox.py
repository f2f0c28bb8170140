"""The sandbox against the hostile corpus: every failure is a precise forfeit,
the opponent wins, the replay verifies, and the host stays bounded."""

from __future__ import annotations

import os
import resource

import pytest

from tcab.arena.engine import ModuleCache
from tcab.arena.match import Entrant, play_match
from tcab.arena.replay import verify_replay
from tcab.arena.sandbox import FORFEIT_REASONS, Controller, Limits
from tests.support.arena_corpus import controller, hostile

HOSTILE = hostile()


@pytest.fixture(autouse=True)
def short_compile_limit(monkeypatch):
    """The compile bomb that only the worker's clock stops (deeply_nested_loops)
    costs 3 s instead of the default 20; honest modules compile in ~0.1 s."""
    monkeypatch.setenv("TCAB_WASM_COMPILE_SECONDS", "3")


@pytest.mark.parametrize("name", sorted(HOSTILE))
@pytest.mark.parametrize("seat", [0, 1])
def test_hostile_module_forfeits_with_precise_reason(tally, name, seat):
    wasm, reason, detail = HOSTILE[name]
    entrants = [Entrant.from_bytes("good", controller(1)), Entrant.from_bytes(name, wasm)]
    if seat == 0:
        entrants.reverse()
    record = play_match(tally, entrants, seed=3)
    bad = record.result["seats"][seat]
    assert bad["outcome"] == "loss" and bad["reason"] == "forfeit"
    assert bad["forfeit"]["reason"] == reason, bad["forfeit"]
    assert reason in FORFEIT_REASONS
    if detail is not None:
        assert detail in bad["forfeit"]["detail"], bad["forfeit"]
    if reason == "load":
        assert bad["forfeit"]["phase"] == "load" and bad["forfeit"]["tick"] == 0
    assert record.result["winner"] == 1 - seat
    assert record.result["reason"] == "forfeit"
    verdict = verify_replay(record.replay, tally.rules_path, tally.action_schema)
    assert verdict.ok, verdict.problems


def test_host_memory_stays_bounded_over_the_corpus(tally):
    """Run every hostile module several times; the host's peak RSS may not
    grow by more than a small multiple of the sandbox caps."""
    cache = ModuleCache()
    play_match(tally, [Entrant.from_bytes("a", controller(1)), Entrant.from_bytes("b", controller(2))], 1, cache)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    for _ in range(3):
        for wasm, _, _ in HOSTILE.values():
            play_match(tally, [Entrant.from_bytes("good", controller(1)), Entrant.from_bytes("x", wasm)], 1, cache)
    grown_mib = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert grown_mib < 64, f"host peak RSS grew by {grown_mib:.0f} MiB"


def test_fuel_is_set_not_added_each_tick(tally):
    """A controller that burns ~60% of the budget every tick never runs out:
    leftovers do not accumulate, and a fresh budget is there each tick."""
    burn = "(local.set $i (i32.const 0)) (block $b (loop $l (local.set $i (i32.add (local.get $i) (i32.const 1))) " \
           "(br_if $b (i32.ge_u (local.get $i) (i32.const 10000))) (br $l))) (local.set $i (i32.const 0))"
    busy = controller(0, body=burn)
    record = play_match(tally, [Entrant.from_bytes("busy", busy), Entrant.from_bytes("lazy", controller(0))], 1)
    assert record.result["reason"] == "max_ticks" and record.result["ticks"] == tally.max_ticks
    fuel = record.fuel[0]
    assert fuel["ticks"] == tally.max_ticks
    assert tally.fuel_per_tick // 4 < fuel["peak"] <= tally.fuel_per_tick
    assert fuel["total"] > tally.max_ticks * tally.fuel_per_tick // 4
    # Twice the work in one tick is over the budget: the budget is per tick.
    heavy = controller(1, body=burn.replace("10000", "40000"))
    record = play_match(tally, [Entrant.from_bytes("heavy", heavy), Entrant.from_bytes("lazy", controller(1))], 1)
    assert record.result["seats"][0]["forfeit"]["reason"] == "fuel"


def test_one_instance_keeps_state_across_ticks(tally):
    """A global counter survives between ticks: on its fourth call it traps."""
    counting = controller(2, extra="(global $calls (mut i32) (i32.const 0))",
                          body="(global.set $calls (i32.add (global.get $calls) (i32.const 1))) "
                               "(if (i32.eq (global.get $calls) (i32.const 4)) (then unreachable))")
    record = play_match(tally, [Entrant.from_bytes("c", counting), Entrant.from_bytes("g", controller(1))], 1)
    forfeit = record.result["seats"][0]["forfeit"]
    assert forfeit["reason"] == "trap" and forfeit["tick"] == 3 and forfeit["detail"] == "unreachable"


def test_start_function_runs_under_the_fuel_budget():
    limits = Limits(fuel_per_tick=50_000, max_memory_bytes=1 << 20)
    cheap_start = controller(1, extra="(func $s (nop)) (start $s)")
    ctrl = Controller(cheap_start, limits, ModuleCache())
    assert ctrl.forfeit is None and 0 < ctrl.fuel_start < 100
    spinning = controller(1, extra="(func $s (loop $l (br $l))) (start $s)")
    ctrl = Controller(spinning, limits, ModuleCache())
    assert ctrl.forfeit.reason == "fuel" and ctrl.forfeit.phase == "load"
    assert ctrl.fuel_start == limits.fuel_per_tick


def test_compiled_modules_are_cached_on_disk(tmp_path):
    wasm = controller(3)
    first = ModuleCache(tmp_path)
    first.load(wasm)
    assert first.compiled == 1 and len(list(tmp_path.glob("*.cwasm"))) == 1
    second = ModuleCache(tmp_path)  # a new process would start like this
    second.load(wasm)
    assert second.compiled == 0 and second.deserialized == 1
    ctrl = Controller(wasm, Limits(100_000, 1 << 20), second)
    assert ctrl.forfeit is None
    assert ctrl.call(b'{"me":0,"scores":[0,0],"tick":0}', 0) == b'{"moves":[{"agent":0,"dir":3}]}'


def test_a_corrupt_cache_entry_is_recompiled(tmp_path):
    wasm = controller(3)
    ModuleCache(tmp_path).load(wasm)
    entry = next(tmp_path.glob("*.cwasm"))
    entry.write_bytes(b"garbage")
    cache = ModuleCache(tmp_path)
    cache.load(wasm)
    assert cache.compiled == 1 and entry.read_bytes() != b"garbage"


def test_a_compiled_artifact_under_another_modules_name_is_never_deserialized(tmp_path, monkeypatch):
    """A restored build/modules/ is input: deserializing runs its native code, so
    only an artifact this host's tcab wrote for exactly this module is loaded."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    good, other = controller(3), controller(1)
    folder = tmp_path / "modules"
    ModuleCache(folder).load(other)
    [foreign] = folder.glob("*.cwasm")
    ModuleCache(folder).load(good)
    [mine] = [p for p in folder.glob("*.cwasm") if p != foreign]
    mine.write_bytes(foreign.read_bytes())  # other's code under good's name
    cache = ModuleCache(folder)
    ctrl = Controller(good, Limits(100_000, 1 << 20), cache)
    assert cache.deserialized == 0 and cache.compiled == 1
    assert ctrl.call(b'{"me":0,"scores":[0,0],"tick":0}', 0) == b'{"moves":[{"agent":0,"dir":3}]}'
    # A build/ restored from another machine (another key) is recompiled too.
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "elsewhere"))
    cache = ModuleCache(folder)
    cache.load(good)
    assert cache.deserialized == 0 and cache.compiled == 1
    # A FIFO or a link at the artifact's place never blocks and is replaced.
    mine.unlink()
    os.mkfifo(mine)
    cache = ModuleCache(folder)
    cache.load(good)
    assert cache.compiled == 1 and mine.is_file()
    again = ModuleCache(folder)
    again.load(good)
    assert again.deserialized == 1
