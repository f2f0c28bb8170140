"""``tcab view`` against hostile run folders and URLs (issue 21, items 7 and 19).

A collected file that stalls the highlighter, a symlink loop, a URL
component longer than any file name, a damaged ``events.jsonl`` or
``validation.json``: each must give a 404 or a page that says what is
damaged, never a traceback, and one slow page must never block the others.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tcab.results import open_db, record_run
from tests.support.results_rows import run_row
from tests.support.run_folders import lights_out_run
from tests.support.settings import cli_env, run_tcab, tmp_settings

HOSTILE = "20250101-lights-out-hostile-1"
DEEP = "20250101-lights-out-deep-json-1"
TYPES = "20250101-lights-out-bad-types-1"
# One repeated character: Pygments' Makefile lexer took minutes on 512 KiB of it.
STALL = "a" * (512 * 1024)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory):
    """Settings of a results folder holding three hostile end-to-end runs."""
    root = tmp_path_factory.mktemp("view-hostile")
    settings = tmp_settings(root)
    runs = {}
    for run_id in (HOSTILE, DEEP, TYPES):
        runs[run_id] = lights_out_run(settings, root / "trees", run_id).run_dir
    work = runs[HOSTILE] / "work"
    (work / "Makefile").write_text(STALL)
    (work / "loop").symlink_to("loop")
    (work / "loop-a").symlink_to("loop-b")
    (work / "loop-b").symlink_to("loop-a")
    with open(runs[HOSTILE] / "events.jsonl", "w") as fh:
        fh.write(json.dumps({"t": 1.0, "stage": "session", "kind": "message", "text": "before"}) + "\n")
        fh.write("[" * 100_000 + "\n")
        fh.write(json.dumps({"t": 2.0, "stage": "session", "kind": "message", "text": "after",
                             "data": {"x": [[[[[[1]]]]]]}}) + "\n")
        fh.write(json.dumps({"t": "soon", "stage": ["x"], "kind": {"k": 1}, "text": None}) + "\n")
    (runs[DEEP] / "validation").mkdir()
    (runs[DEEP] / "validation" / "validation.json").write_text('{"check_results": ' + "[" * 100_000)
    (runs[TYPES] / "validation").mkdir()
    (runs[TYPES] / "validation" / "validation.json").write_text(json.dumps({"check_results": [
        {"name": ["x"], "view": "board", "similarity": "high", "screenshot": 7, "error": 5,
         "duration_s": "long"},
        {"name": "ok", "view": "board", "similarity": 0.5, "screenshot": "validation/none.png",
         "error": {"e": 1}, "duration_s": 1e308},
    ]}))
    db = open_db(settings.results_db)
    try:
        for run_id, run_dir in runs.items():
            record_run(db, run_row(run_id, case_slug="lights-out", case_version="v1.0.0",
                                   case_type="end-to-end", variant="classic", run_dir=str(run_dir)), [])
    finally:
        db.close()
    return settings


@contextlib.contextmanager
def _server(settings, stderr: Path):
    """``tcab view --port 0`` with its stderr in a file (read after it stopped)."""
    with open(stderr, "w") as err:
        proc = subprocess.Popen([sys.executable, "-m", "tcab", "view", "--port", "0"], env=cli_env(settings),
                                cwd=settings.root, stdout=subprocess.PIPE, stderr=err, text=True,
                                start_new_session=True)
    try:
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", proc.stdout.readline())
        assert found, stderr.read_text()
        url = found.group(0).rstrip("/")
        deadline = time.monotonic() + 30
        while True:
            try:
                _get(url, "/favicon.ico", timeout=5)
                break
            except OSError:
                assert time.monotonic() < deadline and proc.poll() is None, stderr.read_text()
                time.sleep(0.2)
        yield url
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=20)


def _get(base: str, raw_path: str, timeout: float = 30, host: str | None = None) -> tuple[int, str]:
    parts = urlsplit(base)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    try:
        conn.putrequest("GET", raw_path, skip_host=True)
        conn.putheader("Host", parts.netloc if host is None else host)
        conn.endheaders()
        response = conn.getresponse()
        return response.status, response.read().decode("utf-8", "replace")
    finally:
        conn.close()


@pytest.fixture(scope="module")
def server(hostile, tmp_path_factory):
    log = tmp_path_factory.mktemp("view-hostile-log") / "stderr.txt"
    with _server(hostile, log) as url:
        yield url, log
    assert "Traceback" not in log.read_text(), log.read_text()[-3000:]


LONG = "x" * 300


@pytest.mark.parametrize("raw_path", [
    f"/runs/{HOSTILE}/tree/loop", f"/runs/{HOSTILE}/tree/loop/x", f"/runs/{HOSTILE}/tree/loop-a",
    f"/runs/{HOSTILE}/raw/work/loop", f"/runs/{HOSTILE}/raw/work/loop-b/x",
    f"/runs/{HOSTILE}/tree/{LONG}", f"/runs/{HOSTILE}/tree/src/{LONG}", f"/runs/{HOSTILE}/raw/work/{LONG}",
    f"/runs/{LONG}", f"/runs/{LONG}/tree/", f"/cases/{LONG}/v1.0.0/raw/x", f"/cases/lights-out/{LONG}/raw/x",
    f"/cases/lights-out/v1.0.0/raw/{LONG}", f"/cases/lights-out/v1.0.0/mockup/{LONG}.html",
    f"/matches/{LONG}", f"/tournaments/{LONG}", f"/runs/{HOSTILE}/proof/{LONG}",
])
def test_loops_and_overlong_names_are_not_found(server, raw_path):
    status, body = _get(server[0], raw_path)
    assert status == 404, (raw_path, status, body[:300])
    assert "Traceback" not in body


def test_a_damaged_transcript_is_shown_with_its_unreadable_lines(server):
    status, body = _get(server[0], f"/runs/{HOSTILE}")
    assert status == 200, body[:2000]
    assert "before" in body and "after" in body and "unreadable" in body


def test_a_damaged_validation_json_is_named_on_the_run_page(server):
    for run_id in (DEEP, TYPES):
        status, body = _get(server[0], f"/runs/{run_id}")
        assert status == 200, (run_id, body[:2000])
    status, body = _get(server[0], f"/runs/{DEEP}")
    assert "validation.json" in body and "damaged" in body


def test_a_file_that_stalls_the_highlighter_is_shown_and_blocks_no_other_page(server):
    url, _ = server
    results: list[tuple[int, str] | Exception] = []

    def slow():
        try:
            results.append(_get(url, f"/runs/{HOSTILE}/tree/Makefile", timeout=120))
        except Exception as exc:  # noqa: BLE001 - recorded, asserted below
            results.append(exc)

    threads = [threading.Thread(target=slow) for _ in range(12)]
    for t in threads:
        t.start()
    time.sleep(1.0)
    # While a dozen stalling pages are asked for, the others still answer.
    for path in ("/", f"/runs/{HOSTILE}", f"/runs/{HOSTILE}/tree/"):
        start = time.monotonic()
        status, _ = _get(url, path, timeout=20)
        assert status == 200 and time.monotonic() - start < 10, path
    # A file highlighted meanwhile (in a child process of its own, bounded in time).
    start = time.monotonic()
    status, body = _get(url, f"/runs/{HOSTILE}/tree/src/index.html", timeout=40)
    assert status == 200 and "&lt;" in body and time.monotonic() - start < 30
    for t in threads:
        t.join(timeout=150)
    assert len(results) == 12 and all(isinstance(r, tuple) and r[0] == 200 for r in results), results[:2]
    # Shown as text (cut), each character there: the page holds the file's first bytes.
    assert all("aaaa" in r[1] for r in results)


def test_view_refuses_an_empty_host(hostile, server):
    proc = run_tcab(hostile, "view", "--host", "", "--port", "0", timeout=20)
    assert proc.returncode == 2 and "--host" in proc.stderr and "Traceback" not in proc.stderr
    proc = run_tcab(hostile, "view", "--host", "  ", "--port", "0", timeout=20)
    assert proc.returncode == 2 and "--host" in proc.stderr
    # And the app answers no request without a Host of its own.
    assert _get(server[0], "/", host="")[0] == 421


def test_highlighting_stops_at_its_time_bound_and_shows_the_rest_plain():
    from tcab.view import files

    text = "a" * 60_000  # minutes for the Makefile lexer unbounded
    start = time.monotonic()
    html, reason = files.highlight("Makefile", text, seconds=1.0)
    elapsed = time.monotonic() - start
    assert reason.startswith("plain text") and "1 s" in reason, reason
    assert elapsed < 1.0 + files.HIGHLIGHT_GRACE + 5, elapsed
    assert html.count("a") >= len(text)  # every character is on the page
    html, reason = files.highlight("Makefile", "a" * (files.MAX_HIGHLIGHT + 1))
    assert "larger than" in reason and "<script" not in html
