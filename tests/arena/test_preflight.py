"""Loading an untrusted module is bounded from outside it: the preflight
refuses what declares too much, the compile worker stops what costs too much,
and the host's own memory does not move."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import time

import pytest
import wasmtime

from tcab.arena import compiler
from tcab.arena.engine import ModuleCache
from tcab.arena.match import Entrant, play_match
from tcab.arena.preflight import LoadLimits, ModuleRejected, check_module
from tcab.arena.sandbox import Controller, Limits
from tcab.errors import ArenaError
from tests.support.arena_corpus import big_br_table, controller, many_functions
from tests.support.paths import REPO

RELAXED = dict(max_functions=2_000_000, max_code_bytes=64 << 20)


def test_the_issues_compile_bomb_is_refused_in_milliseconds():
    bomb = many_functions(999_000)
    start = time.perf_counter()
    ctrl = Controller(bomb, Limits(100_000, 1 << 20, load=LoadLimits()), ModuleCache())
    elapsed = time.perf_counter() - start
    assert ctrl.forfeit.reason == "load" and ctrl.forfeit.phase == "load"
    assert ctrl.forfeit.detail == "number of function entries is 999002, over the limit max_functions=10000"
    assert elapsed < 0.5, f"rejection took {elapsed:.3f} s"


@pytest.mark.timeout(60)
def test_a_bomb_past_the_preflight_is_stopped_by_the_compile_clock():
    limits = LoadLimits(**RELAXED, compile_seconds=2)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    with pytest.raises(ModuleRejected, match=r"compiling took over 2 s, over the limit compile_seconds=2"):
        compiler.compile_serialized(many_functions(999_000), limits)
    assert time.perf_counter() - start < 10
    # The gigabytes are the worker's, not ours.
    assert (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024 < 64
    # Refused again at once: the verdict is remembered for these limits.
    start = time.perf_counter()
    with pytest.raises(ModuleRejected, match="compile_seconds=2"):
        compiler.compile_serialized(many_functions(999_000), limits)
    assert time.perf_counter() - start < 1


@pytest.mark.timeout(120)
def test_a_bomb_past_the_preflight_is_stopped_by_the_compile_memory_limit():
    limits = LoadLimits(**RELAXED, compile_seconds=90, compile_memory_bytes=128 << 20)
    with pytest.raises(ModuleRejected, match=r"the compiler died \(SIGABRT\), most likely over the limit "
                                             r"compile_memory_bytes=134217728"):
        compiler.compile_serialized(many_functions(300_000), limits)
    # The next module gets a fresh worker and compiles.
    assert compiler.compile_serialized(controller(2), limits)


def test_the_host_never_compiles_a_module_itself(monkeypatch, tmp_path):
    def refuse(*args, **kwargs):
        raise AssertionError("compiled in the host process")

    monkeypatch.setattr(wasmtime.Module, "__init__", refuse)
    cache = ModuleCache(tmp_path)
    wasm = controller(3)
    ctrl = Controller(wasm, Limits(100_000, 1 << 20), cache)
    assert ctrl.forfeit is None and cache.compiled == 1
    assert ctrl.call(b'{"me":0,"scores":[0,0],"tick":0}', 0) == b'{"moves":[{"agent":0,"dir":3}]}'
    assert len(list(tmp_path.glob("*.cwasm"))) == 1


def test_an_invalid_module_inside_the_limits_is_refused_by_the_worker():
    # 120,000 targets fit in a body of 128 KiB but exceed wasmparser's br_table limit.
    with pytest.raises(ModuleRejected, match="failed to compile"):
        compiler.compile_serialized(big_br_table(120_000), LoadLimits())


def test_a_killed_worker_is_replaced_and_the_module_compiled():
    limits = LoadLimits(compile_memory_bytes=(1 << 30) + 4096)  # a worker of its own
    compiler.compile_serialized(controller(0), limits)
    worker = compiler._workers[limits.compile_memory_bytes]
    os.kill(worker.proc.pid, signal.SIGKILL)
    worker.proc.wait()
    assert compiler.compile_serialized(controller(1), limits)
    assert compiler._workers[limits.compile_memory_bytes] is not worker


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "0", "-3", "1.5", "lots", ""])
def test_a_load_limit_must_be_finite_and_positive(value):
    with pytest.raises(ArenaError, match="TCAB_WASM_MAX_FUNCTIONS: expected a finite positive integer"):
        LoadLimits.from_env({"TCAB_WASM_MAX_FUNCTIONS": value})


@pytest.mark.parametrize("value", ["nan", "inf", "0", "-1", "soon"])
def test_the_compile_time_limit_must_be_finite_and_positive(value):
    with pytest.raises(ArenaError, match="TCAB_WASM_COMPILE_SECONDS: expected a finite positive number"):
        LoadLimits.from_env({"TCAB_WASM_COMPILE_SECONDS": value})


@pytest.mark.parametrize("field,value", [("max_functions", 0), ("max_locals", -1), ("max_types", 1.5),
                                         ("compile_seconds", float("nan")), ("max_code_bytes", True)])
def test_load_limits_built_in_code_are_checked_too(field, value):
    with pytest.raises(ArenaError, match=f"LoadLimits.{field}: expected a finite positive"):
        LoadLimits(**{field: value})


def test_an_environment_override_reaches_the_match(tally, monkeypatch):
    """The honest controller defines two functions: a limit of 1 refuses it."""
    monkeypatch.setenv("TCAB_WASM_MAX_FUNCTIONS", "1")
    record = play_match(tally, [Entrant.from_bytes("a", controller(1)), Entrant.from_bytes("b", controller(2))], 1)
    forfeits = [s["forfeit"] for s in record.result["seats"]]
    assert all(f["detail"] == "number of function entries is 2, over the limit max_functions=1" for f in forfeits)
    monkeypatch.setenv("TCAB_WASM_MAX_FUNCTIONS", "2")
    record = play_match(tally, [Entrant.from_bytes("a", controller(1)), Entrant.from_bytes("b", controller(2))], 1)
    assert record.result["reason"] != "forfeit"


def test_check_module_admits_every_honest_controller():
    for n in range(4):
        check_module(controller(n), LoadLimits())
    check_module(controller(1, extra="(func $s (nop)) (start $s)"), LoadLimits())


def test_memory_exported_with_the_largest_maximum_plays(tally):
    """A declared maximum of 65536 pages (4 GiB) is only a maximum: the
    limiter and the cap bound what is really used."""
    wide = controller(2, memory="2 65536")
    record = play_match(tally, [Entrant.from_bytes("wide", wide), Entrant.from_bytes("b", controller(1))], 1)
    assert record.result["reason"] != "forfeit" and record.result["winner"] == 0
    greedy = controller(2, memory="2 65536", body="(drop (memory.grow (i32.const 40)))")
    record = play_match(tally, [Entrant.from_bytes("greedy", greedy), Entrant.from_bytes("b", controller(1))], 1)
    assert record.result["seats"][0]["forfeit"]["reason"] == "memory"


HOST_BOUND_MIB = 128
LOAD_CORPUS = """
import json, resource, sys
sys.path.insert(0, sys.argv[1])
from tests.support.arena_corpus import hostile
from tcab.arena import compiler
from tcab.arena.engine import ModuleCache
from tcab.arena.sandbox import Controller, Limits
cache = ModuleCache()
reasons = {}
for name, (wasm, reason, detail) in sorted(hostile().items()):
    ctrl = Controller(wasm, Limits(100_000, 1 << 20), cache)
    reasons[name] = ctrl.forfeit.reason if ctrl.forfeit else None
compiler.close_workers()
# VmHWM, not ru_maxrss: a fresh child's ru_maxrss starts at its parent's
# peak (Linux records the parent's high-water mark at exec), so it measured pytest.
hwm = int(open("/proc/self/status").read().split("VmHWM:")[1].split()[0])
print(json.dumps({"self": hwm,
                  "children": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
                  "reasons": reasons}))
"""


@pytest.mark.timeout(180)
def test_a_host_process_loading_the_whole_corpus_stays_bounded():
    """A fresh process loads every hostile module, the bombs included: its
    own peak RSS stays under HOST_BOUND_MIB, its compile worker's under the
    compile memory limit."""
    env = {**os.environ, "PYTHONPATH": str(REPO), "TCAB_WASM_COMPILE_SECONDS": "3"}
    done = subprocess.run([sys.executable, "-c", LOAD_CORPUS, str(REPO)], capture_output=True, text=True,
                          env=env, timeout=170)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["self"] / 1024 < HOST_BOUND_MIB, report
    assert report["children"] / 1024 < 1024 + 100, report
    for name in ("many_functions", "deeply_nested_loops", "huge_locals_count", "custom_section_flood"):
        assert report["reasons"][name] == "load", report["reasons"]
