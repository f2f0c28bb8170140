"""Benchmark: `tcab report` with statistics and costs against the report before them.

Builds bench/report.py's database (100,000 runs, 100,000 matches, builds,
validations, tournaments) once with the baseline tcab's schema, copies it,
migrates the copy with this tcab and prices every run of it (a price table
with most models: cost is looked up per run), then times, side by side:

  baseline  `tcab report --db OLD` of the baseline tree (default: git rev
            `main`, extracted with `git archive`): today's report
  stats     `tcab report --db NEW` of this tree: success with Wilson
            intervals, pass@k, the bootstrap over cases, costs

and prints the medians, the ratio (target <= 1.5x) and whether the stats
report stays under half a second.

    python bench/report_stats.py [--runs N] [--matches N] [--repeats N] [--baseline-rev REV]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # `python3 bench/report_stats.py` (make bench) finds bench.report
TARGET_RATIO = 1.5
TARGET_S = 0.5
PRICES = """\
currency = "USD"
[models."claude-sonnet-4-5"]
input = 3.0
output = 15.0
[models."claude-opus-4-1"]
input = 15.0
output = 75.0
[models."gpt-5"]
input = 1.25
output = 10.0
[models."gpt-5-mini"]
input = 0.25
output = 2.0
"""


def _python(tree: Path, code: str, *args: str) -> None:
    # Not run from REPO: the working directory leads sys.path and would shadow ``tree``.
    env = {**os.environ, "PYTHONPATH": f"{tree}{os.pathsep}{REPO}"}
    subprocess.run([sys.executable, "-c", code, *args], check=True, env=env, cwd=tree)


def _report(tree: Path, db: Path) -> list[str]:
    return [sys.executable, "-P", "-c", "import sys; sys.path[:0] = sys.argv[1:2]; del sys.argv[1]; "
            "from tcab.cli import main; main()", str(tree), "report", "--db", str(db)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=100_000)
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--baseline-rev", default="main", help="the git revision of today's report")
    args = parser.parse_args()
    from bench.report import time_process

    work = Path(tempfile.mkdtemp(prefix="tcab-bench-stats-"))
    try:
        base = work / "base"
        base.mkdir()
        archive = subprocess.run(["git", "archive", args.baseline_rev, "tcab"], cwd=REPO, check=True,
                                 capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(base)], input=archive, check=True)
        old, new = work / "old.db", work / "new.db"
        start = time.perf_counter()
        # The baseline's own schema: it refuses a database newer than it knows.
        _python(base, "import sys; from bench.report import fill; fill(__import__('pathlib').Path(sys.argv[1]), "
                      "int(sys.argv[2]), int(sys.argv[3]))", str(old), str(args.runs), str(args.matches))
        shutil.copyfile(old, new)
        (work / "prices.toml").write_text(PRICES)
        _python(REPO, "import sys, sqlite3; from tcab.results import open_db; "
                      "from tcab.results.costs import price_runs; from tcab.results.prices import load_prices; "
                      "open_db(sys.argv[1]).close(); c = sqlite3.connect(sys.argv[1]); "
                      "price_runs(c, load_prices(sys.argv[2])); c.execute('PRAGMA wal_checkpoint(TRUNCATE)')",
                str(new), str(work / "prices.toml"))
        print(f"databases: {args.runs:,} runs, {args.matches:,} matches, built and priced in "
              f"{time.perf_counter() - start:.1f} s; baseline tcab at {args.baseline_rev}")
        base_med, base_min = time_process(_report(base, old), args.repeats)
        stats_med, stats_min = time_process(_report(REPO, new), args.repeats)
        print(f"{'':36} {'median':>9} {'best':>9}")
        print(f"{'baseline: tcab report (' + args.baseline_rev + ')':36} {base_med:8.3f}s {base_min:8.3f}s")
        print(f"{'tcab report with statistics, cost':36} {stats_med:8.3f}s {stats_min:8.3f}s")
        ratio = stats_med / base_med
        print(f"ratio stats / baseline: {ratio:.2f}x (median), {stats_med - base_med:+.3f}s")
        print(f"target: <= {TARGET_RATIO}x: {'met' if ratio <= TARGET_RATIO else 'MISSED'}; "
              f"under {TARGET_S} s: {'met' if stats_med < TARGET_S else 'MISSED'} ({stats_med:.3f} s)")
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
