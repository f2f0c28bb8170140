"""The arena's commands, run as a user would (subprocess, real files)."""

from __future__ import annotations

import gzip
import json
import os
import sqlite3
import subprocess
import sys

import pytest

from tests.support.arena_corpus import hostile
from tests.support.cli_help import check_help
from tests.support.paths import ARENA_CATALOG as CATALOG


@pytest.fixture
def tcab(tmp_path):
    env = {**os.environ, "TCAB_CATALOG": str(CATALOG), "TCAB_RESULTS": str(tmp_path / "results"),
           "TCAB_BUILD": str(tmp_path / "build"), "TCAB_TMP": str(tmp_path / "tmp")}

    def run(*args):
        return subprocess.run([sys.executable, "-m", "tcab", *args], env=env, capture_output=True,
                              text=True, cwd=tmp_path, timeout=120)
    return run


def test_match_with_baselines_records_replay_and_row(tcab, tmp_path):
    out = tmp_path / "m.json.gz"
    proc = tcab("match", "tally", "baseline:one", "baseline:three", "--seed", "4", "--replay", str(out), "--json")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["result"]["winner"] == 1 and summary["labels"] == ["baseline/one", "baseline/three"]
    assert json.loads(gzip.decompress(out.read_bytes()))["header"]["seed"] == 4
    assert len(list((tmp_path / "build" / "wasm").glob("*.wasm"))) == 2
    with sqlite3.connect(tmp_path / "results" / "results.db") as db:
        assert db.execute("select winner_seat, reason, ticks from matches").fetchall() == [(1, "score", 10)]
        seats = db.execute("select seat, label, outcome, fuel_total > 0 from match_seats order by seat").fetchall()
        assert seats == [(0, "baseline/one", "loss", 1), (1, "baseline/three", "win", 1)]
        builds = db.execute("select source, status, module_size > 0 from builds order by source").fetchall()
        assert builds == [("baseline:tally@v0.1.0/one", "ok", 1), ("baseline:tally@v0.1.0/three", "ok", 1)]
    again = tcab("match", "tally", "baseline:one", "baseline:three", "--seed", "4", "--json")
    assert json.loads(again.stdout)["cached"] is True

    ok = tcab("replay", "verify", str(out))
    assert ok.returncode == 0 and ok.stdout.startswith("ok:"), ok.stderr
    doc = json.loads(gzip.decompress(out.read_bytes()))
    doc["result"]["scores"] = [99, 99]
    bad = tmp_path / "bad.json.gz"
    bad.write_bytes(gzip.compress(json.dumps(doc).encode()))
    refused = tcab("replay", "verify", str(bad), "--json")
    assert refused.returncode == 1 and not json.loads(refused.stdout)["ok"]
    junk = tmp_path / "junk.json.gz"
    junk.write_bytes(b"not gzip")
    assert tcab("replay", "verify", str(junk)).returncode == 2


def test_match_with_a_hostile_file_and_bad_input(tcab, tmp_path):
    bomb = tmp_path / "bomb.wasm"
    bomb.write_bytes(hostile()["memory_bomb"][0])
    proc = tcab("match", "tally", "baseline:three", str(bomb))
    assert proc.returncode == 0 and "memory" in proc.stdout and "win" in proc.stdout
    missing = tcab("match", "tally", "baseline:three", "nope.wasm")
    assert missing.returncode == 2 and "nope.wasm: no such module file" in missing.stderr
    assert "Traceback" not in missing.stderr
    unknown = tcab("match", "tally", "baseline:three", "baseline:zero")
    assert unknown.returncode == 2 and "unknown baseline" in unknown.stderr and "one, three" in unknown.stderr
    broken = tcab("match", "tally", "baseline:three", "baseline:broken")
    assert broken.returncode == 2 and "did not build (failed)" in broken.stderr
    seats = tcab("match", "tally", "baseline:three")
    assert seats.returncode == 2 and "2-seat game" in seats.stderr
    variant = tcab("match", "tally", "baseline:one", "baseline:three", "--variant", "nope")
    assert variant.returncode == 2 and "unknown variant" in variant.stderr


def test_tournament_json_and_rows(tcab, tmp_path):
    proc = tcab("tournament", "tally", "baseline:one", "baseline:three", "baseline:one",
                "--variant", "long", "--rounds", "2", "-j", "2", "--json", "--id", "t1")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert [s["label"] for s in data["standings"]][0] == "baseline/three"
    assert {s["label"] for s in data["standings"]} == {"baseline/three", "baseline/one", "baseline/one#2"}
    assert data["played"] == 6 and len(data["matches"]) == 6
    with sqlite3.connect(tmp_path / "results" / "results.db") as db:
        assert db.execute("select structure, rounds from tournaments where id='t1'").fetchall() == [("round-robin", 2)]
        assert db.execute("select count(*) from tournament_matches").fetchone() == (6,)
        assert db.execute("select label from ratings where rank=1").fetchone() == ("baseline/three",)
    table = tcab("tournament", "tally", "baseline:one", "baseline:three", "--structure", "bracket")
    assert table.returncode == 0 and "(champion)" in table.stdout and "baseline/three" in table.stdout


HELP = {
    "match": ("[OPTIONS] CASE MODULES...",
              {"--variant TEXT", "--seed INTEGER RANGE", "--replay FILE", "--json"}),
    "tournament": ("[OPTIONS] CASE MODULES...",
                   {"--variant TEXT", "--rounds INTEGER RANGE", "--structure [round-robin|bracket]",
                    "--seed INTEGER RANGE", "-j, --jobs INTEGER RANGE", "--id ID", "--json"}),
    "replay verify": ("[OPTIONS] FILE", {"--rules FILE", "--json", "--max-bytes INTEGER RANGE"}),
    "build": ("[OPTIONS] RUN_ID", {"--runtime TEXT", "--timeout INTEGER RANGE", "--json"}),
}


@pytest.mark.parametrize("command", sorted(HELP))
def test_help_shows_usage_every_option_and_a_working_example(tcab, command):
    proc = tcab(*command.split(), "--help")
    assert proc.returncode == 0 and proc.stderr == ""
    check_help(proc.stdout, command, *HELP[command])
