"""Hostile engines (issue 24, "Bad input"), each in WAT: every failure is a
per-scenario status with its reason, never a crash of the scorer."""

from __future__ import annotations

import dataclasses

import pytest

from tcab.performance.score import load_scenarios, score_module
from tests.performance.conftest import wat

OUT = b'{"snapshots":[]}'


def engine(body: str, *, memory: int = 1, extra: str = "", data: bytes = OUT, alloc: str = "(i32.const 1024)") -> bytes:
    """An engine whose entry runs ``body`` and returns its i64 (default: the canned OUT at 0)."""
    text = "".join(f"\\{b:02x}" for b in data)
    return wat(f"""(module {extra}
      (memory (export "memory") {memory})
      (data (i32.const 0) "{text}")
      (func (export "alloc") (param i32) (result i32) {alloc})
      (func (export "simulate") (param $p i32) (param $n i32) (result i64) (local $i i32)
        {body}))""")


def packed(ptr: int, length: int) -> str:
    return f"(i64.const {(ptr << 32) | length})"


@pytest.fixture(scope="module")
def smoke(torus):
    """The held-out set cut to its first smoke scenario (the failures are per scenario)."""
    scenarios = load_scenarios(torus.section, torus.root)
    return dataclasses.replace(scenarios, held=scenarios.held[:1])


def _one(wasm: bytes, scenarios):
    score = score_module(wasm, scenarios)
    assert not score.correct and score.total_fuel is None
    return score.cases[0]


def test_an_infinite_loop_is_stopped_by_fuel_at_the_runway(smoke) -> None:
    smoke = dataclasses.replace(smoke, fuel_limit=50_000_000)  # the case's 2e9 would take seconds to burn
    case = _one(engine("(loop $l (br $l)) " + packed(0, len(OUT))), smoke)
    budget = smoke.fuel_limit * smoke.held[0].scenario.fuel_runway
    assert case.status == "out_of_fuel" and case.fuel == budget


def test_memory_growth_past_the_cap(smoke) -> None:
    grow = "(drop (memory.grow (i32.const 300))) " + packed(0, len(OUT))  # +18.75 MiB, over 16 MiB
    case = _one(engine(grow), smoke)
    assert case.status == "memory" and "over the cap of 16777216" in case.detail


def test_a_1_gb_output_is_refused_before_it_is_copied(smoke) -> None:
    case = _one(engine(packed(0, 1 << 30)), smoke)
    assert case.status == "bad_output"


def test_an_output_over_1_mib_inside_memory_is_refused_by_its_size(smoke) -> None:
    case = _one(engine(packed(0, 3 << 19), memory=32), smoke)  # 1.5 MiB of a 2 MiB memory
    assert case.status == "bad_output" and "exceeds 1048576 bytes" in case.detail


def test_malformed_json(smoke) -> None:
    bad = b'{"snapshots": [ nope'
    case = _one(engine(packed(0, len(bad)), data=bad), smoke)
    assert case.status == "bad_output" and "not UTF-8 JSON" in case.detail


def test_output_off_the_schema(smoke) -> None:
    bad = b'{"snapshots": [{"tick": 0, "checksum": "XYZ"}]}'
    case = _one(engine(packed(0, len(bad)), data=bad), smoke)
    assert case.status == "bad_output" and "output schema" in case.detail


def test_a_pointer_outside_memory(smoke) -> None:
    case = _one(engine(packed(70_000, 16)), smoke)  # one page is 65536 bytes
    assert case.status == "bad_output" and "outside memory" in case.detail


def test_a_module_importing_host_functions_is_refused_at_load(smoke) -> None:
    case = _one(engine(packed(0, len(OUT)), extra='(import "env" "now" (func $now (result i64)))'), smoke)
    assert case.status == "load" and "import" in case.detail


def test_a_compile_bomb_is_refused_by_the_preflight(smoke) -> None:
    # 10,001 functions: over the preflight's max_functions before anything compiles.
    funcs = "(func)" * 10_001
    case = _one(engine(packed(0, len(OUT)), extra=funcs), smoke)
    assert case.status == "load" and "max_functions" in case.detail


def test_reading_the_scenario_past_its_length_traps(smoke) -> None:
    # Reads far beyond ptr + len, past the end of memory: a trap, recorded.
    body = "(drop (i32.load (i32.add (local.get $p) (i32.add (local.get $n) (i32.const 1000000))))) " \
        + packed(0, len(OUT))
    case = _one(engine(body), smoke)
    assert case.status == "trap" and "memory" in case.detail


def test_reading_just_past_the_length_sees_nothing_of_the_host(smoke) -> None:
    # Within memory, the bytes after the scenario are the module's own (zeros
    # here): what the engine sees there is the same on every run.
    body = "(if (i32.load8_u (i32.add (local.get $p) (local.get $n))) (then unreachable)) " + packed(0, len(OUT))
    case = _one(engine(body), smoke)
    assert case.status == "mismatch"
