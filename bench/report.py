"""Benchmark: `tcab report` on a large results.db, against a bare count(*).

Builds a database (the real migrated schema) holding 100,000 synthetic runs
and 100,000 matches (200,000 seats) plus builds, validations and tournaments, then times,
side by side and on the same file:

  baseline  a Python process that opens the file and runs SELECT count(*)
  report    `tcab report --db FILE` end to end in its own process

and prints the absolute times, the ratio, and whether the report met the
target (under half a second end to end). Each is run REPEATS times after one
warm-up run; the median is reported.

    python bench/report.py [--runs N] [--matches N] [--repeats N] [--keep DIR]
"""

from __future__ import annotations

import argparse
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from tcab.results import RUN_STATUSES, open_db

CASES = [("capture", "v1.0.0"), ("capture", "v1.1.0"), ("snake-duel", "v2.0.0"),
         ("landing-page", "v1.0.0"), ("todo-app", "v0.3.0")]
VARIANTS = ["base", "fog", "large"]
HARNESSES = [("reference", None), ("claude-code", "claude-sonnet-4-5"),
             ("claude-code", "claude-opus-4-1"), ("codex", "gpt-5"), ("codex", "gpt-5-mini"),
             ("aider", "deepseek-v3"), ("opencode", "qwen3-coder")]
TARGET_S = 0.5


def fill(path: Path, runs: int, matches: int, seed: int = 1) -> None:
    """Create ``path`` with the real schema and bulk-load synthetic rows."""
    open_db(path).close()
    rnd = random.Random(seed)
    conn = sqlite3.connect(path)
    statuses = list(RUN_STATUSES)
    # Named, so a status added to the vocabulary gets a small share, not an error.
    share = {"completed": 70, "timed_out": 8, "hung": 4, "harness_error": 10, "infrastructure": 6, "canceled": 2}
    weights = [share.get(s, 1) for s in statuses]
    run_rows, stage_rows, build_rows, validation_rows = [], [], [], []
    for i in range(runs):
        slug, version = rnd.choice(CASES)
        harness, model = rnd.choice(HARNESSES)
        status = rnd.choices(statuses, weights)[0]
        run_id = f"r{i:06d}"
        run_rows.append((run_id, slug, version, "adversarial", "c" * 64, rnd.choice(VARIANTS),
                         harness, model, status, f"2026-11-{1 + i % 28:02d}T10:00:00Z",
                         rnd.uniform(30, 3600), rnd.randint(0, 200_000), rnd.randint(0, 20_000),
                         f"runs/{run_id}"))
        stage_rows.append((run_id, "session", 0, "ok"))
        if status == "completed" and i % 5 == 0:
            build_rows.append((run_id, slug, version, rnd.choice(["ok", "ok", "ok", "failed"]),
                               f"m{i:060d}"))
        if status == "completed" and i % 5 == 1:
            validation_rows.append((run_id, slug, version, "base", rnd.choice(["passed", "passed", "failed"])))
    conn.executemany(
        "INSERT INTO runs (id, case_slug, case_version, case_type, case_digest, variant, harness,"
        " model, status, started_at, duration_s, tokens_input, tokens_output, run_dir)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)", run_rows)
    conn.executemany("INSERT INTO stages (run_id, stage, seq, status) VALUES (?,?,?,?)", stage_rows)
    conn.executemany("INSERT INTO builds (source, case_slug, case_version, status, module_sha256)"
                     " VALUES (?,?,?,?,?)", build_rows)
    conn.executemany("INSERT INTO validations (run_id, case_slug, case_version, variant, status)"
                     " VALUES (?,?,?,?,?)", validation_rows)
    players = [f"p{j}" for j in range(12)]
    match_rows, seat_rows, entries = [], [], []
    for n in range(matches):
        slug, version = rnd.choice(CASES[:3])
        a, b = rnd.sample(players, 2)
        winner = rnd.choice([0, 1, None])
        key = f"{n:064x}"
        match_rows.append((key, slug, version, "c" * 64, rnd.choice(VARIANTS), n, 500, winner,
                           "score", f"matches/{key}.jsonl"))
        for seat, label in enumerate((a, b)):
            outcome = "draw" if winner is None else ("win" if winner == seat else "loss")
            seat_rows.append((key, seat, f"mod-{label}", label, outcome))
        if n < 10_000:
            entries.append((f"t{n % 10}", key, 1 + n // 1000, f"{a} vs {b}"))
    conn.executemany(
        "INSERT INTO matches (key, case_slug, case_version, case_digest, variant, seed, ticks,"
        " winner_seat, reason, replay_path) VALUES (?,?,?,?,?,?,?,?,?,?)", match_rows)
    conn.executemany("INSERT INTO match_seats (match_key, seat, module_sha256, label, outcome)"
                     " VALUES (?,?,?,?,?)", seat_rows)
    for t in range(10):
        slug, version = CASES[t % 3]
        conn.execute("INSERT INTO tournaments (id, case_slug, case_version, variant, structure,"
                     " rounds, seed) VALUES (?,?,?,?,?,?,?)",
                     (f"t{t}", slug, version, VARIANTS[t % 3], "round-robin", 10, t))
        for rank, label in enumerate(players, start=1):
            rating = 2.0 - rank * 0.3
            conn.execute("INSERT INTO ratings (tournament_id, module_sha256, label, rank, rating,"
                         " ci_low, ci_high, wins, draws, losses, forfeits)"
                         " VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                         (f"t{t}", f"mod-{label}", label, rank, rating, rating - 0.4,
                          rating + 0.4, 10, 2, 5, 0))
    conn.executemany("INSERT INTO tournament_matches (tournament_id, match_key, round, pairing)"
                     " VALUES (?,?,?,?)", entries)
    conn.commit()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def tcab_command() -> list[str]:
    script = Path(sys.executable).with_name("tcab")
    return [str(script)] if script.exists() else [sys.executable, "-m", "tcab"]


def time_process(argv: list[str], repeats: int) -> tuple[float, float]:
    """Median and best wall time of running ``argv`` to completion; fails on non-zero exit."""
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)  # warm-up: page cache, .pyc
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return statistics.median(times), min(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=100_000)
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--keep", type=Path, help="build the database here and keep it")
    args = parser.parse_args()

    workdir = args.keep or Path(tempfile.mkdtemp(prefix="tcab-bench-report-"))
    path = workdir / "results.db"
    if path.exists():
        path.unlink()
    try:
        start = time.perf_counter()
        fill(path, args.runs, args.matches)
        print(f"database: {args.runs:,} runs, {args.matches:,} matches "
              f"({path.stat().st_size / 2**20:.1f} MiB) built in {time.perf_counter() - start:.1f} s")
        baseline = [sys.executable, "-c",
                    "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
                    "print(c.execute('SELECT count(*) FROM runs').fetchone()[0])", str(path)]
        report = [*tcab_command(), "report", "--db", str(path)]
        base_med, base_min = time_process(baseline, args.repeats)
        rep_med, rep_min = time_process(report, args.repeats)
        print(f"{'':30} {'median':>9} {'best':>9}")
        print(f"{'baseline: SELECT count(*)':30} {base_med:8.3f}s {base_min:8.3f}s")
        print(f"{'tcab report (end to end)':30} {rep_med:8.3f}s {rep_min:8.3f}s")
        print(f"ratio report / baseline: {rep_med / base_med:.2f}x (median), "
              f"report over baseline: {rep_med - base_med:+.3f}s")
        verdict = "met" if rep_med < TARGET_S else "MISSED"
        print(f"target: tcab report under {TARGET_S} s end to end: {verdict} ({rep_med:.3f} s)")
        return 0
    finally:
        if args.keep is None:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
