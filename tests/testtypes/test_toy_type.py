"""The test-type seam: a toy third type (tests/support/toy_type.py), registered
through ``TCAB_TEST_TYPES`` only, goes through ``tcab catalog validate``,
``tcab seed``, ``tcab run`` (reference harness, real Podman), a sweep with
its after-run task (``doit``) and ``tcab report``; nothing in ``tcab/`` names
it. Without the registration, the same case is of an unknown type, and the
commands say exactly that."""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.paths import CATALOG_FIXTURES, REPO
from tests.support.toy_type import ENTRY

TOY_CATALOG = CATALOG_FIXTURES / "toy"
PLAN = """name: toy
runs:
  - cases:
      - case: tally-word
    harnesses:
      - reference
report: no
"""


def _env(root: Path, *, toy: bool) -> dict[str, str]:
    env = {**os.environ, "TCAB_CATALOG": str(TOY_CATALOG), "TCAB_HARNESSES": str(root / "harnesses"),
           "TCAB_BUILD": str(root / "build"), "TCAB_RESULTS": str(root / "results"), "TCAB_TMP": str(root / "tmp"),
           # The subprocesses import the toy type from this repository's tests/.
           "PYTHONPATH": os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH")) if p)}
    env.pop("TCAB_TEST_TYPES", None)
    if toy:
        env["TCAB_TEST_TYPES"] = ENTRY
    return env


def _project(tmp_path: Path) -> Path:
    (tmp_path / "harnesses").mkdir()
    shutil.copyfile(REPO / "harnesses" / "reference.toml", tmp_path / "harnesses" / "reference.toml")
    (tmp_path / "benchmark.yaml").write_text(PLAN)
    return tmp_path


def _tcab(root: Path, *args: str, toy: bool = True, timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tcab", *args], cwd=root, env=_env(root, toy=toy),
                          capture_output=True, text=True, timeout=timeout)


def _doit(root: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "doit", "-f", str(REPO / "dodo.py"), "-d", str(root), *args],
                          cwd=root, env=_env(root, toy=True), capture_output=True, text=True, timeout=600)


def test_nothing_in_tcab_names_the_toy_type() -> None:
    named = [p for p in (REPO / "tcab").rglob("*.py") if re.search(r"\btoy\b|toy_type", p.read_text())]
    assert named == []


def test_an_unknown_type_is_named_with_the_known_ones(tmp_path: Path) -> None:
    root = _project(tmp_path)
    known = 'case tally-word is of type "toy", which tcab does not run (known: end-to-end, adversarial, performance, asset-generation)'
    for command in (["seed", "tally-word", "--out", str(root / "seeded")], ["prompt", "tally-word"]):
        result = _tcab(root, *command, toy=False)
        assert result.returncode == 2, result.stdout + result.stderr
        line = result.stderr.strip()
        assert line.startswith("error: ") and line.endswith(f"toy/easy/tally-word: {known}"), result.stderr
        assert "\n" not in line, result.stderr
        assert "no test case" not in result.stderr
    checked = _tcab(root, "catalog", "validate", toy=False)
    assert checked.returncode == 1
    assert "toy: unknown test type folder; expected one of end-to-end, adversarial, performance, asset-generation" in checked.stderr


@pytest.mark.podman
def test_a_toy_type_goes_through_every_command_and_a_sweep(tmp_path: Path, podman_runtime) -> None:
    root = _project(tmp_path)
    checked = _tcab(root, "catalog", "validate")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "1 case version(s), 1 variant(s) checked" in checked.stdout

    seeded = _tcab(root, "seed", "tally-word", "--out", str(root / "seeded"))
    assert seeded.returncode == 0, seeded.stdout + seeded.stderr
    # What the type adds to the common seeding steps.
    assert (root / "seeded" / "TOY.md").read_text() == "# Toy\n\nWrite the word `tally` into `ANSWER.txt`.\n"

    run = _tcab(root, "run", "tally-word", "--harness", "reference", "--json")
    assert run.returncode == 0, run.stdout + run.stderr
    record = json.loads(run.stdout)
    assert record["subject"]["type"] == "toy" and record["status"] == "completed"
    assert "test-cabinet-base-wasm" in record["image"]["ref"]  # the image the type selects

    swept = _doit(root)
    assert swept.returncode == 0, swept.stdout + swept.stderr
    assert ".  score:tally-word/v1.0.0/base/reference/1" in swept.stdout
    score = json.loads((root / "results/sweep/toy-scores/tally-word/v1.0.0/base/reference/1.json").read_text())
    assert score["score"] == 1.0 and score["detail"] == "ANSWER.txt: 'tally'"
    manifest = json.loads((root / "results/sweep/manifest.json").read_text())
    assert manifest["entries"]["score:tally-word/v1.0.0/base/reference/1"]["run_id"] == score["run_id"]
    again = _doit(root)
    assert again.returncode == 0 and "nothing to do, all 5 tasks up to date" in again.stdout, again.stdout

    report = _tcab(root, "report")
    assert report.returncode == 0, report.stdout + report.stderr
    assert "tally-word v1.0.0" in report.stdout
    # The type's own table, drawn by the generic presenters from its TypeTable.
    assert "Toy scores" in report.stdout and score["run_id"] in report.stdout
    as_csv = _tcab(root, "report", "--csv", "--table", "toy-scores")
    assert as_csv.returncode == 0, as_csv.stderr
    assert as_csv.stdout.splitlines() == ["case_slug,case_version,variant,run_id,harness,score",
                                          f"tally-word,v1.0.0,base,{score['run_id']},reference,1"]
    as_json = json.loads(_tcab(root, "report", "--json").stdout)
    (own,) = as_json["groups"][0]["type_tables"]
    assert own["key"] == "toy-scores" and own["rows"] == [
        {"run_id": score["run_id"], "harness": "reference", "score": 1.0}]
    unknown = _tcab(root, "report", "--csv", "--table", "nope")
    assert unknown.returncode == 2 and "toy-scores" in unknown.stderr
    conn = sqlite3.connect(root / "results" / "results.db")
    try:
        rows = conn.execute("SELECT case_slug, status FROM runs ORDER BY started_at").fetchall()
    finally:
        conn.close()
    assert rows == [("tally-word", "completed"), ("tally-word", "completed")]
