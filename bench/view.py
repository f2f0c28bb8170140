"""Benchmark: `tcab view` pages on a large results.db, against a bare count(*).

Builds the database of bench/report.py (the real migrated schema; 100,000
runs and 100,000 matches by default) plus one run whose events.jsonl holds
10,000 events, starts `tcab view --port 0` over it, and times, side by side:

  baseline   SELECT count(*) FROM runs on a fresh connection (in this process)
  home cold  the first GET / (computes the report; later answers reuse it
             until results.db changes)
  home TTFB  GET / until the first byte of the answer
  home full  GET / until the last byte
  home load  the home page in headless Chromium until its load event
  run page   GET /runs/<id> (its first 1,000 events) and ?page=9 (the last ones)

Each is the median of REPEATS after one warm-up. Prints the absolute times,
the ratio of the home page to the baseline, and whether the home page met the
target (under half a second).

    python bench/view.py [--runs N] [--matches N] [--events N] [--repeats N] [--keep DIR]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import report  # noqa: E402 - bench/report.py's database
from report import fill, tcab_command  # noqa: E402

# bench/report.py weighs six statuses; the vocabulary has grown since. Its
# fill() draws from the module's RUN_STATUSES, so give it the six it weighs.
if len(report.RUN_STATUSES) != 6:
    report.RUN_STATUSES = tuple(report.RUN_STATUSES)[:6]

TARGET_S = 0.5
RUN_ID = "bench-events"


def add_run(path: Path, results: Path, events: int) -> None:
    """One run with ``events`` events in its folder, recorded in ``path``."""
    run_dir = results / "runs" / RUN_ID
    (run_dir / "work" / "src").mkdir(parents=True, exist_ok=True)
    (run_dir / "work" / "src" / "main.py").write_text("print('hello')\n" * 200)
    kinds = ["message", "command", "read", "write", "system"]
    with open(run_dir / "events.jsonl", "w") as fh:
        for i in range(events):
            text = f"event {i}: " + ("a long output line\n" * (40 if i % 10 == 0 else 1))
            fh.write(json.dumps({"t": 1000.0 + i, "stage": "session", "kind": kinds[i % 5], "text": text,
                                 "data": {"exit_code": 0} if i % 5 == 1 else {}}) + "\n")
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO runs (id, case_slug, case_version, variant, harness, status, run_dir)"
                 " VALUES (?, 'capture', 'v1.0.0', 'base', 'reference', 'completed', ?)",
                 [RUN_ID, f"runs/{RUN_ID}"])
    conn.commit()
    conn.close()


def get(port: int, path: str) -> tuple[float, float]:
    """(time to first byte, time to last byte) of GET ``path``."""
    start = time.perf_counter()
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("GET", path)
    response = conn.getresponse()
    response.read(1)
    first = time.perf_counter() - start
    response.read()
    last = time.perf_counter() - start
    assert response.status == 200, (path, response.status)
    conn.close()
    return first, last


def median(fn, repeats: int) -> float:
    fn()  # warm-up
    return statistics.median(fn() for _ in range(repeats))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=100_000)
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--keep", type=Path, help="build the results folder here and keep it")
    args = parser.parse_args()

    workdir = args.keep or Path(tempfile.mkdtemp(prefix="tcab-bench-view-"))
    results = workdir / "results"
    shutil.rmtree(results, ignore_errors=True)
    results.mkdir(parents=True)
    path = results / "results.db"
    server = None
    try:
        start = time.perf_counter()
        fill(path, args.runs, args.matches)
        add_run(path, results, args.events)
        print(f"database: {args.runs:,} runs, {args.matches:,} matches ({path.stat().st_size / 2**20:.1f} MiB), "
              f"a run of {args.events:,} events; built in {time.perf_counter() - start:.1f} s")
        env = {**os.environ, "TCAB_RESULTS": str(results)}
        server = subprocess.Popen([*tcab_command(), "view", "--port", "0"], env=env, stdout=subprocess.PIPE,
                                  text=True, start_new_session=True)
        port = int(re.search(r":(\d+)/", server.stdout.readline()).group(1))

        def count() -> float:
            t = time.perf_counter()
            c = sqlite3.connect(path)
            c.execute("SELECT count(*) FROM runs").fetchone()
            c.close()
            return time.perf_counter() - t

        base = median(count, args.repeats)
        cold = get(port, "/")[1]  # the first answer computes the report; later ones reuse it
        ttfb = median(lambda: get(port, "/")[0], args.repeats)
        full = median(lambda: get(port, "/")[1], args.repeats)
        run_first = median(lambda: get(port, f"/runs/{RUN_ID}")[1], args.repeats)
        last_page = (args.events - 1) // 1000
        run_last = median(lambda: get(port, f"/runs/{RUN_ID}?page={last_page}")[1], args.repeats)
        load = browser_load(f"http://127.0.0.1:{port}/", args.repeats)
        print(f"{'':34} {'median':>9}")
        print(f"{'baseline: SELECT count(*)':34} {base:8.4f}s")
        print(f"{'home: first answer (cold report)':34} {cold:8.3f}s")
        print(f"{'home: time to first byte':34} {ttfb:8.3f}s")
        print(f"{'home: full answer':34} {full:8.3f}s")
        print(f"{'home: Chromium load event':34} {load:8.3f}s")
        print(f"{'run page (events 1-1000)':34} {run_first:8.3f}s")
        print(f"{f'run page (page {last_page}, the last events)':34} {run_last:8.3f}s")
        print(f"ratio home (full) / baseline: {full / base:.0f}x")
        verdict = "met" if full < TARGET_S else "MISSED"
        print(f"target: home page under {TARGET_S} s: {verdict} (full {full:.3f} s, load {load:.3f} s)")
        return 0
    finally:
        if server is not None:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=10)
        if args.keep is None:
            shutil.rmtree(workdir, ignore_errors=True)


def browser_load(url: str, repeats: int) -> float:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium")
        page = browser.new_page()

        def once() -> float:
            t = time.perf_counter()
            page.goto(url, wait_until="load")
            return time.perf_counter() - t

        result = median(once, repeats)
        browser.close()
    return result


if __name__ == "__main__":
    sys.exit(main())
