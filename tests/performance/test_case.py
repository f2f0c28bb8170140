"""The Torus Life case itself: the checksum as the spec defines it, the oracle
against the rule as worded, the expected files against the oracle, and the
held-out scenarios never seeded (the training ones are)."""

from __future__ import annotations

import importlib.util
import json
import random

import pytest

from tcab.seeding.plan import plan_seed
from tests.performance.conftest import TORUS


@pytest.fixture(scope="module")
def oracle():
    spec = importlib.util.spec_from_file_location("torus_oracle", TORUS / "oracle" / "torus_life.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_checksum_is_fnv1a_64_over_the_row_encoding(oracle) -> None:
    # FNV-1a 64 of no bytes is the offset basis; of one 0x61 byte the published vector.
    assert oracle.checksum([]) == "cbf29ce484222325"
    assert oracle.checksum([0x61]) == _fnv(b"a" + bytes(7))
    assert _fnv(b"a") == "af63dc4c8601ec8c"
    # The spec's worked example (specs/rules.md, "Checksum").
    rows = oracle.parse_rows([".....", ".....", ".###.", ".....", "....."])
    assert oracle.checksum(rows) == "28c495736171da8b"
    life = ({3}, {2, 3})
    assert oracle.checksum(oracle.step(rows, 5, 5, *life)) == "8a1a20410e70a2c1"
    assert "28c495736171da8b" in (TORUS / "specs/rules.md").read_text()
    assert "8a1a20410e70a2c1" in (TORUS / "specs/rules.md").read_text()


def _fnv(data: bytes) -> str:
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) % (1 << 64)
    return f"{h:016x}"


def test_the_bit_parallel_oracle_is_the_rule_as_worded(oracle) -> None:
    rng = random.Random(24)
    for _ in range(30):
        w, h = rng.randint(3, 20), rng.randint(3, 12)
        birth = set(rng.sample(range(9), rng.randint(0, 4)))
        survive = set(rng.sample(range(9), rng.randint(0, 5)))
        rows = [rng.getrandbits(w) for _ in range(h)]
        assert oracle.step(rows, w, h, birth, survive) == oracle.step_cells(rows, w, h, birth, survive)


def test_every_expected_file_is_the_oracles_output(oracle, torus) -> None:
    for sc in torus.section.cases:
        scenario = json.loads(torus.path(sc.input).read_text())
        if sc.kind == "smoke" or scenario["width"] * scenario["height"] * scenario["snapshots"][-1] < 2_000_000:
            assert oracle.run(scenario) == json.loads(torus.path(sc.expected).read_text()), sc.name
    training = sorted((TORUS / "workspaces/base/training").glob("*.input.json"))
    assert len(training) == 3
    held = {torus.path(sc.input).read_bytes() for sc in torus.section.cases}
    for path in training:
        assert path.read_bytes() not in held  # the training set is disjoint from the held-out one
        expected = json.loads(path.with_name(path.name.replace(".input.", ".expected.")).read_text())
        assert oracle.run(json.loads(path.read_text())) == expected


def test_held_out_scenarios_are_never_seeded(torus) -> None:
    entries = plan_seed(torus, torus.variant())
    dests = {e.dest for e in entries}
    held = {torus.path(rel).read_bytes() for sc in torus.section.cases for rel in (sc.input, sc.expected)}
    assert not any(e.data in held for e in entries)
    assert not any(d.startswith("cases/") or d.startswith("oracle/") for d in dests)
    assert {"schemas/input.json", "schemas/output.json", "training/small.input.json", "src/main.zig",
            "specs/rules.md"} <= dests
