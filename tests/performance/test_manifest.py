"""The performance manifest: the torus-life case parses into typed, frozen
sections, and every bad input of issue 24 is a ``file:line: key`` problem."""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
from pathlib import Path

import pytest

from tcab.catalog import load_version
from tcab.testtypes.performance import MAX_CASE_BYTES, PerformanceSection
from tests.performance.conftest import TORUS


def test_the_torus_case_parses_into_a_frozen_section(torus) -> None:
    sec = torus.section
    assert isinstance(sec, PerformanceSection)
    assert sec.contract.entry == "simulate" and sec.sandbox.fuel_limit == 2_000_000_000
    assert [c.kind for c in sec.cases] == ["smoke"] * 3 + ["stress"] * 3
    assert {c.fuel_runway for c in sec.of_kind("stress")} == {4}
    with pytest.raises(dataclasses.FrozenInstanceError):
        sec.sandbox.fuel_limit = 1  # type: ignore[misc]
    assert torus.test_type.build_image == "performance" and torus.build.module == "engine.wasm"


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "performance" / "medium" / "torus-life" / "v1.0.0"
    shutil.copytree(TORUS, root, symlinks=True)
    return root


def _problems(root: Path) -> list[str]:
    case, problems = load_version(root)
    assert case is None, "a broken manifest must not parse"
    return [str(p) for p in problems]


def _edit(root: Path, old: str, new: str) -> None:
    path = root / "test-case.toml"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def _line(root: Path, needle: str) -> int:
    return next(i for i, line in enumerate((root / "test-case.toml").read_text().splitlines(), 1) if needle in line)


@pytest.mark.parametrize("value, message", [
    ("0", "expected a positive integer, got 0"),
    ("-5", "expected a positive integer, got -5"),
    ("1.5", "expected a positive integer, got 1.5"),
    ("1e30", "expected a positive integer, got 1e+30"),
    ("1_000_000_000_000_000_000_000_000_000_000", "expected an integer of at most 1,000,000,000,000,000"),
])
def test_a_bad_fuel_limit_is_refused_with_its_line(tmp_path, value, message) -> None:
    root = _copy(tmp_path)
    _edit(root, "fuel_limit = 2_000_000_000", f"fuel_limit = {value}")
    found = _problems(root)
    line = _line(root, "fuel_limit =")
    assert any(re.search(rf"test-case\.toml:{line}: \[sandbox\]\.fuel_limit: {re.escape(message)}", p) for p in found), found


def test_a_missing_case_file_is_refused(tmp_path) -> None:
    root = _copy(tmp_path)
    (root / "cases/stress/maze.expected.json").unlink()
    found = _problems(root)
    line = _line(root, 'expected = "cases/stress/maze.expected.json"')
    assert any(f"test-case.toml:{line}: [[case]][6].expected:" in p and "no such file" in p for p in found), found


def test_a_case_file_linking_out_of_the_folder_is_refused(tmp_path) -> None:
    root = _copy(tmp_path)
    outside = tmp_path / "secret.json"
    outside.write_text((root / "cases/stress/life.input.json").read_text())
    target = root / "cases/stress/life.input.json"
    target.unlink()
    target.symlink_to(outside)
    found = _problems(root)
    line = _line(root, 'input = "cases/stress/life.input.json"')
    assert any(f"test-case.toml:{line}: [[case]][4].input:" in p and "leads outside the version folder" in p
               for p in found), found


def test_a_1_gb_case_file_is_refused_before_it_is_read(tmp_path) -> None:
    root = _copy(tmp_path)
    big = root / "cases/stress/daynight.input.json"
    with open(big, "r+b") as fh:
        fh.truncate(1 << 30)  # sparse: no disk used
    found = _problems(root)
    line = _line(root, 'input = "cases/stress/daynight.input.json"')
    assert any(f"test-case.toml:{line}: [[case]][5].input:" in p and f"over the limit of {MAX_CASE_BYTES:,}" in p
               for p in found), found


def test_a_held_out_file_under_the_workspace_is_refused(tmp_path) -> None:
    root = _copy(tmp_path)
    _edit(root, 'input = "cases/smoke/blinker.input.json"', 'input = "workspaces/base/training/small.input.json"')
    found = _problems(root)
    assert any('is under "workspaces/base", which is seeded into every run' in p for p in found), found


def test_a_case_input_off_the_input_schema_is_refused(tmp_path) -> None:
    root = _copy(tmp_path)
    (root / "cases/smoke/small.input.json").write_text('{"width": 2}')
    found = _problems(root)
    assert any("does not match the [contract] input schema" in p for p in found), found


def test_bad_kind_and_runway(tmp_path) -> None:
    root = _copy(tmp_path)
    _edit(root, 'expected = "cases/smoke/wide.expected.json"\nkind = "smoke"',
          'expected = "cases/smoke/wide.expected.json"\nkind = "warmup"\nfuel_runway = 0')
    found = _problems(root)
    assert any(re.search(r"kind: expected one of smoke, stress, got .warmup.", p) for p in found), found
    assert any("fuel_runway: expected a positive integer, got 0" in p for p in found), found


@pytest.mark.parametrize("table", ["simulation", "match", "replay", "canvas", "tool", "output"])
def test_the_tables_of_other_types_are_refused(tmp_path, table) -> None:
    root = _copy(tmp_path)
    with open(root / "test-case.toml", "a") as fh:
        fh.write(f"\n[{table}]\nx = 1\n")
    found = _problems(root)
    # (A top-level table carries no line: the catalog's line finder looks for `key =`.)
    assert any(re.search(rf"test-case\.toml: {table}: unknown key", p) for p in found), found


def test_check_domain_and_review_items_are_refused(tmp_path) -> None:
    root = _copy(tmp_path)
    with open(root / "test-case.toml", "a") as fh:
        fh.write('\n[[check]]\nname = "x"\n\n[[domain]]\nid = "speed"\nname = "Speed"\n')
    found = _problems(root)
    assert any(re.search(r"test-case\.toml: check: unknown key", p) for p in found), found
    assert any(re.search(r"toml: domain: a performance case has no \[\[domain\]\]", p) for p in found), found


def test_workspace_init_build_and_cases_are_required(tmp_path) -> None:
    root = _copy(tmp_path)
    text = (root / "test-case.toml").read_text()
    text = text.replace('init = "python3 -m ziglang version"\n', "")
    text = text.split("# The held-out scenarios")[0]
    (root / "test-case.toml").write_text(text)
    found = _problems(root)
    assert any("init: missing required key" in p for p in found), found
    assert any("case: missing required key" in p for p in found), found


def test_a_schema_that_is_not_json_is_refused(tmp_path) -> None:
    root = _copy(tmp_path)
    (root / "schemas/output.json").write_text("{nope")
    found = _problems(root)
    line = _line(root, 'output = "schemas/output.json"')
    assert any(f"test-case.toml:{line}: [contract].output:" in p and "is not valid JSON" in p for p in found), found


def test_an_expected_file_of_the_wrong_shape_is_refused(tmp_path) -> None:
    root = _copy(tmp_path)
    (root / "cases/stress/maze.expected.json").write_text('{"snapshots": [{"tick": "1"}]}')
    found = _problems(root)
    assert any('snapshots[0]: expected {"tick": integer, "checksum": string}' in p for p in found), found
    assert os.path.exists(root / "test-case.toml")


def test_entry_defaults_to_simulate_and_runway_to_1(tmp_path) -> None:
    root = _copy(tmp_path)
    _edit(root, 'entry = "simulate"\n', "")
    _edit(root, 'expected = "cases/stress/maze.expected.json"\nfuel_runway = 4',
          'expected = "cases/stress/maze.expected.json"')
    case, problems = load_version(root)
    assert problems == [] and case.section.contract.entry == "simulate"
    assert case.section.cases[-1].fuel_runway == 1 and case.section.cases[-1].kind == "stress"


def test_a_held_out_file_under_an_asset_of_the_list_is_refused(tmp_path) -> None:
    """``assets`` as the original's list: a held-out answer under any entry of
    it would be seeded into every run, so it is refused."""
    root = _copy(tmp_path)
    _edit(root, 'init = "python3 -m ziglang version"', 'init = "python3 -m ziglang version"\n'
                'assets = ["schemas", "cases/stress"]')
    found = _problems(root)
    assert any('is under "cases/stress", which is seeded into every run' in p for p in found), found
