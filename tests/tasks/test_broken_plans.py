"""Broken plans through a real ``python -m doit``: one message, exit 2, nothing written.

Each row is a plan (or an environment) an operator could write by mistake or
on purpose. ``doit`` must print one ``error: FILE:LINE: KEY: ...`` message
(no traceback), exit 2, and leave the project as it was: no ``build/``, no
``results/``, no ``.doit.db``. A plan that asks for too much (a huge
``repeats``, a 3,000-deep nesting, a 5,000-digit integer) is refused before
any work, within the subprocess timeout.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).parent / "fixtures"
BASE = (FIXTURES / "plan.yaml").read_text()
HARNESSES = {
    "reference": 'slug = "reference"\nname = "Reference"\nstage_solution = true\n',
    "scripted": 'slug = "scripted"\nname = "Scripted"\nargs = ["-c", "true"]\n',
}


def _sub(old: str, new: str) -> str:
    assert old in BASE, old
    return BASE.replace(old, new, 1)


def _deep(n: int) -> str:
    return "name: deep\nruns:\n" + "".join(" " * (i + 2) + f"k{i}:\n" for i in range(n))


# (id, plan text or bytes or None for "no file", extra env, doit args, message regex)
BROKEN = [
    ("repeats-string", _sub("      - scripted\n", "      - scripted\n    repeats: many\n"), {}, (),
     r"benchmark\.yaml:12: repeats: found arbitrary text \(when expecting an integer\)"),
    ("repeats-zero", _sub("      - scripted\n", "      - scripted\n    repeats: 0\n"), {}, (),
     r"benchmark\.yaml:12: repeats: expected an integer from 1 to 10000, got 0"),
    ("repeats-negative", _sub("      - scripted\n", "      - scripted\n    repeats: -3\n"), {}, (),
     r"benchmark\.yaml:12: repeats: expected an integer from 1 to 10000, got -3"),
    ("repeats-20-digits", _sub("      - scripted\n", "      - scripted\n    repeats: 99999999999999999999\n"), {}, (),
     r"benchmark\.yaml:12: repeats: expected an integer from 1 to 10000, got 99999999999999999999"),
    ("repeats-5000-digits", _sub("      - scripted\n", "      - scripted\n    repeats: " + "9" * 5000 + "\n"), {}, (),
     r"benchmark\.yaml:12: repeats: found an integer of 5000 digits \(when expecting an integer of at most 20 digits\)"),
    ("repeats-float", _sub("      - scripted\n", "      - scripted\n    repeats: 1e3\n"), {}, (),
     r"benchmark\.yaml:12: repeats: found an arbitrary number \(when expecting an integer\)"),
    ("duplicate-key", _sub("name: small\n", "name: small\nname: other\n"), {}, (),
     r"benchmark\.yaml:3: name: Duplicate key 'name' found"),
    ("flow-style", _sub("    harnesses:\n      - reference\n      - scripted\n", "    harnesses: [reference, scripted]\n"),
     {}, (), r"benchmark\.yaml:9: harnesses: Found ugly disallowed JSONesque flow"),
    ("tab", _sub("    rounds: 2", "\trounds: 2"), {}, (),
     r"benchmark\.yaml:19: rounds: found character '\\t' that cannot start any token"),
    ("unknown-top-key", BASE + "colour: red\n", {}, (),
     r"benchmark\.yaml:21: colour: unexpected key not in schema 'colour'"),
    ("unknown-matrix-key", _sub("      - scripted\n", "      - scripted\n    repeat: 2\n"), {}, (),
     r"benchmark\.yaml:12: repeat: unexpected key not in schema 'repeat'"),
    ("anchor", _sub("name: small", "name: &x small"), {}, (),
     r"benchmark\.yaml:2: name: Found confusing disallowed anchor token"),
    ("tournament-bad-name", _sub("name: duel-cup", "name: Duel Cup"), {}, (),
     r"benchmark\.yaml:13: name: found non-matching string"),
    ("tournament-one-seat", _sub("      baselines: all\n      runs:\n        - reference\n", "      baselines: left\n"),
     {}, (), r"benchmark\.yaml:13: participants: a tournament needs at least two"),
    ("tournament-unknown-baseline", _sub("      baselines: all\n", "      baselines: nobody\n"), {}, (),
     r"benchmark\.yaml:13: baselines: duel@v1\.0\.0 has no baseline 'nobody'"),
    ("tournament-twice", BASE + BASE[BASE.index("  - name: duel-cup"):].replace("tournaments:\n", ""), {}, (),
     r"benchmark\.yaml:\d+: name: tournament 'duel-cup' is defined twice"),
    ("tournament-rounds-huge", _sub("rounds: 2", "rounds: 10000001"), {}, (),
     r"benchmark\.yaml:19: rounds: expected an integer from 1 to 10000, got 10000001"),
    ("tournament-seed-over-64-bits", _sub("seed: 7", "seed: 9223372036854775808"), {}, (),
     r"benchmark\.yaml:20: seed: expected an integer from 0 to 9223372036854775807, got 9223372036854775808"),
    ("tournament-of-a-missing-run", _sub("        - reference\n", "        - ghost\n"), {}, (),
     r"benchmark\.yaml:18: runs: no run of 'ghost' on duel/v1\.0\.0/base"),
    ("unknown-case", _sub("      - case: duel\n", "      - case: nope\n"), {}, (),
     r"benchmark\.yaml:7: case: .*nope"),
    ("unknown-variant", _sub("        variants: base\n", "        variants: three\n"), {}, (),
     r"benchmark\.yaml:7: variants: duel@v1\.0\.0 has no variant 'three'"),
    ("unknown-harness", _sub("      - scripted\n", "      - robot\n"), {}, (),
     r"benchmark\.yaml:11: harness: unknown harness 'robot'; known: reference, scripted"),
    ("parallelism-zero", "parallelism: 0\n" + BASE, {}, (),
     r"benchmark\.yaml:1: parallelism: expected an integer from 1 to 256, got 0"),
    ("parallelism-huge", "parallelism: 100000\n" + BASE, {}, (),
     r"benchmark\.yaml:1: parallelism: expected an integer from 1 to 256, got 100000"),
    ("runtime-limit-zero", "runtime:\n  settings:\n    idle_timeout_s: 0\n" + BASE, {}, (),
     r"benchmark\.yaml:3: idle_timeout_s: expected a positive integer, got 0"),
    ("runtime-unknown-backend", "runtime:\n  backend: nomad\n" + BASE, {}, (),
     r"benchmark\.yaml:2: backend: expected one of docker, kubernetes, got 'nomad'"),
    ("nested-3000-deep", "name: x\nruns:\n  " + "- " * 3000 + "x\n", {}, (),
     r"benchmark\.yaml:3: nested more than 20 levels deep \(TCAB_PLAN_MAX_DEPTH\)"),
    ("nested-100-mappings", _deep(100), {}, (),
     r"benchmark\.yaml:22: nested more than 20 levels deep \(TCAB_PLAN_MAX_DEPTH\)"),
    ("flow-3000-deep", "name: x\nruns: " + "[" * 3000 + "]" * 3000 + "\n", {}, (),
     r"benchmark\.yaml:2: nested more than 20 levels deep \(TCAB_PLAN_MAX_DEPTH\)"),
    ("too-large", BASE + "#" * 300_000 + "\n", {}, (),
     r"benchmark\.yaml: larger than 262144 bytes \(TCAB_PLAN_MAX_BYTES\)"),
    ("too-many-runs", _sub("      - scripted\n", "      - scripted\n    repeats: 3\n"), {"TCAB_PLAN_MAX_RUNS": "10"}, (),
     r"benchmark\.yaml:4: runs: the plan expands to more than 10 runs \(TCAB_PLAN_MAX_RUNS\)"),
    ("bad-limit-variable", BASE, {"TCAB_PLAN_MAX_RUNS": "lots"}, (),
     r"TCAB_PLAN_MAX_RUNS: expected an integer from 1 to 10000000, got 'lots'"),
    ("not-a-mapping", "- a\n- b\n", {}, (), r"benchmark\.yaml:2: found a sequence \(when expecting a mapping\)"),
    ("empty", "", {}, (), r"benchmark\.yaml:1: found a blank string \(when expecting a mapping\)"),
    ("not-utf8", b"name: \xff\xfe\n", {}, (), r"benchmark\.yaml: cannot read the plan: 'utf-8' codec"),
    ("missing-file", None, {}, ("plan=nowhere.yaml",), r"nowhere\.yaml: cannot read the plan: .*No such file"),
    ("plan-is-a-folder", None, {}, ("plan=test-cases",), r"test-cases: cannot read the plan: .*Is a directory"),
]


def _project(tmp_path: Path, plan: str | bytes | None) -> Path:
    root = tmp_path / "proj"
    shutil.copytree(FIXTURES / "catalog", root / "test-cases")
    (root / "harnesses").mkdir()
    for slug, text in HARNESSES.items():
        (root / "harnesses" / f"{slug}.toml").write_text(text)
    shutil.copyfile(ROOT / "dodo.py", root / "dodo.py")
    if isinstance(plan, bytes):
        (root / "benchmark.yaml").write_bytes(plan)
    elif plan is not None:
        (root / "benchmark.yaml").write_text(plan)
    return root


def _doit(root: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if not k.startswith("TCAB_")}
    base["PYTHONPATH"] = str(ROOT)
    return subprocess.run([sys.executable, "-m", "doit", *args], cwd=root, env={**base, **(env or {})},
                          capture_output=True, text=True, timeout=60)


def _written(root: Path) -> list[str]:
    """What a refused sweep must not have made."""
    return sorted(p.name for p in root.iterdir() if p.name in ("build", "results", "tmp")
                  or p.name.startswith(".doit"))


@pytest.mark.timeout(120)
@pytest.mark.parametrize(("plan", "env", "args", "message"), [row[1:] for row in BROKEN],
                         ids=[row[0] for row in BROKEN])
def test_a_broken_plan_is_one_message_and_exit_2(tmp_path, plan, env, args, message):
    root = _project(tmp_path, plan)
    proc = _doit(root, "list", *args, env=env)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 2, out[-3000:]
    assert "Traceback" not in out and "RecursionError" not in out, out[-3000:]
    assert re.search(r"^error: \S*" + message, proc.stderr, re.MULTILINE), proc.stderr[-3000:]
    # One message: the plan error, nothing of doit's own (a traceback is ~50 lines).
    assert len(proc.stderr.splitlines()) <= 2, proc.stderr
    assert _written(root) == []


@pytest.mark.timeout(180)
@pytest.mark.parametrize("command", [(), ("run",), ("info", "manifest"), ("clean",), ("forget",), ("list", "--all")])
def test_every_doit_command_refuses_a_broken_plan(tmp_path, command):
    root = _project(tmp_path, _sub("      - scripted\n", "      - scripted\n    repeats: many\n"))
    proc = _doit(root, *command)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.startswith("error: ") and "benchmark.yaml:12: repeats: " in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    assert _written(root) == []


@pytest.mark.timeout(120)
def test_tcab_debug_shows_the_traceback(tmp_path):
    root = _project(tmp_path, _sub("      - scripted\n", "      - scripted\n    repeats: many\n"))
    proc = _doit(root, "list", env={"TCAB_DEBUG": "1"})
    assert proc.returncode != 0
    assert "Traceback" in proc.stderr and "PlanError" in proc.stderr


@pytest.mark.timeout(120)
def test_the_fixture_plan_itself_lists(tmp_path):
    """The control: the plan every row breaks is fine as it is."""
    root = _project(tmp_path, BASE)
    proc = _doit(root, "list")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "run" in proc.stdout.split() and "tournament" in proc.stdout.split()
