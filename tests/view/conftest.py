"""A real demo results folder and a running ``tcab view`` over it.

The folder holds what a sweep leaves: a tournament of the capture case's
baselines played for real (wasm controllers, a replay on disk), and an
end-to-end lights-out run folder (its solution tree, an events.jsonl, a
validation with a screenshot) recorded in results.db. Hostile bits are
planted in it: a symlink out of the tree, an HTML file with a script, a
run whose recorded folder lies outside results/.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tcab.results import open_db, record_run, record_validation
from tests.support.paths import LIGHTS_OUT
from tests.support.results_rows import run_row
from tests.support.run_folders import lights_out_run
from tests.support.settings import run_tcab, tmp_settings
from tests.support.view_server import view_server

RUN_ID = "20250101-lights-out-reference-1"
OUTSIDE_ID = "20250101-lights-out-reference-2"
TOURNAMENT = "demo"


def _events(run_dir: Path) -> None:
    long_output = "\n".join(f"line {i} of a long command output" for i in range(200))
    events = [
        {"t": 1.0, "stage": "session", "kind": "message", "text": "I will build the board."},
        {"t": 2.0, "stage": "session", "kind": "command", "text": "npm run build",
         "data": {"output": long_output}},
        {"t": 3.0, "stage": "session", "kind": "message", "text": long_output},
        {"t": 4.0, "stage": "session", "kind": "message",
         "text": "<script>document.title='owned'</script><img src=x onerror=alert(1)>"},
    ]
    with open(run_dir / "events.jsonl", "w") as fh:
        for e in events:
            fh.write(json.dumps(e) + "\n")
        fh.write("{not json\n")


@pytest.fixture(scope="session")
def demo(tmp_path_factory):
    """(settings, facts) of the demo results folder."""
    root = tmp_path_factory.mktemp("view-demo")
    settings = tmp_settings(root)
    proc = run_tcab(settings, "tournament", "capture", "baseline:rush", "baseline:guard", "--rounds", "2",
                    "--id", TOURNAMENT, "--json", timeout=280)
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    record = lights_out_run(settings, root / "trees", RUN_ID)
    run_dir = record.run_dir
    _events(run_dir)
    (run_dir / "work" / "passwd-link").symlink_to("/etc/passwd")
    (run_dir / "work" / "escape-dir").symlink_to(root)
    (run_dir / "work" / "evil.html").write_text("<script>document.title='owned'</script>")
    shutil.copyfile(LIGHTS_OUT / "reference" / "board.png", run_dir / "validation.png")
    (run_dir / "validation").mkdir()
    shutil.move(run_dir / "validation.png", run_dir / "validation" / "board.png")
    # The case's [[check]] results as validation writes them (validation.json only).
    (run_dir / "validation" / "checks").mkdir()
    shutil.copyfile(LIGHTS_OUT / "reference" / "board.png", run_dir / "validation" / "checks" / "board.png")
    (run_dir / "validation" / "validation.json").write_text(json.dumps({"check_results": [
        {"name": "Board", "view": "board", "similarity": 0.91234, "screenshot": "validation/checks/board.png",
         "error": None, "duration_s": 1.5},
        {"name": "Won <b>", "view": "won", "similarity": None, "screenshot": None, "duration_s": 2.0,
         "error": "actions[1] (click 1,1): did not finish within 2s; Chromium was killed"},
        "not a result",
    ]}))
    (root / "secret.txt").write_text("TOP-SECRET-OUTSIDE-RESULTS")
    db = open_db(settings.results_db)
    try:
        record_run(db, run_row(RUN_ID, case_slug="lights-out", case_type="end-to-end", variant="classic",
                               run_dir=str(run_dir), image_digest="sha256:" + "ab" * 32),
                   [{"stage": "session", "status": "ok", "duration_s": 58.0, "exit_code": 0}])
        record_run(db, run_row(OUTSIDE_ID, case_slug="lights-out", case_type="end-to-end", variant="classic",
                               run_dir=str(root)), [])
        record_validation(db, {"run_id": RUN_ID, "case_slug": "lights-out", "case_version": "v1.0.0",
                               "variant": "classic", "status": "passed",
                               "checks": [{"name": "build", "ok": True, "detail": "exit 0"}],
                               "screenshots": ["validation/board.png"], "detail": "all checks passed"})
    finally:
        db.close()
    return settings, {"root": root, "run_dir": run_dir, "matches": summary["matches"]}


@pytest.fixture(scope="session")
def server(demo):
    """The base URL of ``tcab view --port 0`` over the demo folder."""
    settings, _ = demo
    with view_server(settings) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    """Chromium for one test module. Not the session: while a sync Playwright
    is open its asyncio loop counts as running in this thread, so any later
    module that starts one (tests/watch/test_page.py, tcab's own checks)
    would fail with "Sync API inside the asyncio loop"."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path="/usr/bin/chromium")
        yield b
        b.close()


def wait_for_player(frame) -> None:
    """Until the player has loaded its replay (its slider has a range), polled
    with evaluate: a string wait_for_function is eval inside the page, which
    the player's policy refuses once its first check fails."""
    from tests.watch.wire import wait_for

    wait_for(lambda: frame.evaluate("() => Number((document.getElementById('slider') || {}).max) > 0"),
             timeout=15)
