"""`tcab validate` as a user runs it: exit codes, JSON, the results.db row."""

from __future__ import annotations

import json
import sqlite3
import subprocess

from tests.support.settings import run_tcab


def _tcab(settings, *args: str) -> subprocess.CompletedProcess:
    return run_tcab(settings, "validate", *args, timeout=180)


def test_exit_codes_json_and_row(settings, make_run, podman_runtime) -> None:
    make_run("good")
    make_run("broken", {"build.js": "process.exit(4);\n"})
    make_run("arena-1", case="capture")

    ok = _tcab(settings, "good", "--json", "--settle", "0.3")
    assert ok.returncode == 0, ok.stderr
    doc = json.loads(ok.stdout)
    assert doc["status"] == "passed" and doc["screenshots"] == ["validation/board.png"]

    bad = _tcab(settings, "broken")
    assert bad.returncode == 1
    assert "catastrophic: broken" in bad.stdout and "`node build.js` exited 4" in bad.stdout

    for run_id, message in (("missing", "no such run 'missing'"), ("arena-1", "`tcab build arena-1`")):
        out = _tcab(settings, run_id)
        assert out.returncode == 2 and message in out.stderr and "Traceback" not in out.stderr, out.stderr

    with sqlite3.connect(settings.results_db) as conn:
        rows = dict(conn.execute("SELECT run_id, status FROM validations").fetchall())
    assert rows == {"good": "passed", "broken": "catastrophic"}
    # The run itself: its page never loaded.
    assert json.loads((settings.runs_dir / "broken" / "run.json").read_text())["status"] == "catastrophic"
    assert podman_runtime.list_run_containers("validate-good") == []
    assert podman_runtime.list_run_containers("validate-broken") == []
