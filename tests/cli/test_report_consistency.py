"""Recorded matches and tournament standings count from one source (issue 14, item 4).

Two entrants sharing one module play identical matches that are stored once;
counting seats by label gave one of them 2 matches and the other 8 while the
standings gave 8 each.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

CATALOG = Path(__file__).resolve().parents[1] / "arena" / "catalog"


def _tcab(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TCAB_CATALOG": str(CATALOG), "TCAB_RESULTS": str(tmp_path / "results"),
           "TCAB_BUILD": str(tmp_path / "build"), "TCAB_TMP": str(tmp_path / "tmp")}
    return subprocess.run([sys.executable, "-m", "tcab", *args], env=env, capture_output=True,
                          text=True, cwd=tmp_path, timeout=240)


def _players(report: dict) -> dict[str, dict]:
    [group] = [g for g in report["groups"] if g["players"]]
    return {p["label"]: p for p in group["players"]}


@pytest.mark.timeout(600)
def test_two_entrants_sharing_a_module_count_the_same_in_both_tables(tmp_path):
    played = _tcab(tmp_path, "tournament", "tally", "baseline:one", "baseline:one", "baseline:three",
                   "--rounds", "4", "-j", "2", "--json", "--id", "shared")
    assert played.returncode == 0, played.stderr
    standings = {s["label"]: s for s in json.loads(played.stdout)["standings"]}
    assert standings["baseline/one"]["played"] == standings["baseline/one#2"]["played"] == 8

    report = _tcab(tmp_path, "report", "--json")
    assert report.returncode == 0, report.stderr
    doc = json.loads(report.stdout)
    players = _players(doc)
    [group] = [g for g in doc["groups"] if g["tournaments"]]
    [tournament] = group["tournaments"]
    for s in tournament["standings"]:
        p = players[s["label"]]
        assert p["matches"] == standings[s["label"]]["played"], (s["label"], p, s)
        assert (p["wins"], p["draws"], p["losses"] + p["forfeits"]) == (s["wins"], s["draws"], s["losses"])

    # A match outside any tournament adds to the seats' labels, once each.
    single = _tcab(tmp_path, "match", "tally", "baseline:three", "baseline:one", "--seed", "12345")
    assert single.returncode == 0, single.stderr
    after = _players(json.loads(_tcab(tmp_path, "report", "--json").stdout))
    assert after["baseline/three"]["matches"] == players["baseline/three"]["matches"] + 1
    assert after["baseline/one"]["matches"] == players["baseline/one"]["matches"] + 1
    assert after["baseline/one#2"]["matches"] == players["baseline/one#2"]["matches"]
