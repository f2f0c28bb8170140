"""Seeds per second: pygit2 (tcab.seeding) versus the git command line, side by side.

For every variant of every case in the project catalog, both ways build the
same tree from the same seed plan: pygit2 writes objects straight into the
object database and checks the commit out; the baseline writes the files and
runs `git init`, `git add -A`, `git commit` with the same fixed author, date
and message. Both must produce the same commit id (checked), so the ratio
compares equal work. Rounds alternate between the two to share any drift.

Usage: python bench/seed.py [--rounds N]
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

from tcab.catalog import scan_catalog
from tcab.seeding import plan_seed, seed_repository
from tcab.seeding.plan import MODE_EXEC, MODE_LINK
from tcab.seeding.repo import AUTHOR_EMAIL, AUTHOR_NAME, COMMIT_TIME, MESSAGE

ROOT = Path(__file__).resolve().parents[1]


def seed_with_git_cli(case, variant, dest: Path) -> str:
    """The baseline: same plan, files written by Python, committed by the git CLI."""
    entries = plan_seed(case, variant)
    dest.mkdir(parents=True)
    for e in entries:
        path = dest / e.dest
        path.parent.mkdir(parents=True, exist_ok=True)
        if e.mode == MODE_LINK:
            os.symlink(e.data.decode(), path)
        else:
            path.write_bytes(e.data)
            if e.mode == MODE_EXEC:
                path.chmod(0o755)
    date = f"{COMMIT_TIME} +0000"
    env = dict(os.environ, GIT_AUTHOR_NAME=AUTHOR_NAME, GIT_AUTHOR_EMAIL=AUTHOR_EMAIL,
               GIT_COMMITTER_NAME=AUTHOR_NAME, GIT_COMMITTER_EMAIL=AUTHOR_EMAIL,
               GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date, GIT_CONFIG_NOSYSTEM="1",
               HOME=str(dest.parent))

    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(dest), *args], env=env, check=True,
                              capture_output=True, text=True).stdout

    git("init", "-q", "-b", "main")
    git("add", "-A")
    git("-c", "commit.gpgsign=false", "commit", "-q", "--no-verify", "-m", MESSAGE.strip())
    return git("rev-parse", "HEAD").strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()
    catalog, problems = scan_catalog(ROOT / "test-cases")
    pairs = [(c, v) for c in catalog.latest(experimental=True) for v in c.variants]
    if not pairs:
        print("no sample case parses; see `tcab catalog validate`", file=sys.stderr)
        return 1
    print(f"{len(pairs)} case variant(s): "
          + ", ".join(f"{c.slug}/{v.slug}" for c, v in pairs))
    timings = {"pygit2": 0.0, "git-cli": 0.0}
    seeds = 0
    with tempfile.TemporaryDirectory(prefix="tcab-bench-seed-") as tmp:
        base = Path(tmp)
        # Warm-up (template compilation is cached) and the equal-tree check.
        for i, (case, variant) in enumerate(pairs):
            a = seed_repository(case, variant, base / f"check-a-{i}").commit
            b = seed_with_git_cli(case, variant, base / f"check-b-{i}")
            if a != b:
                print(f"commit ids differ for {case.slug}/{variant.slug}: {a} vs {b}",
                      file=sys.stderr)
                return 1
        for r in range(args.rounds):
            for i, (case, variant) in enumerate(pairs):
                order = [("pygit2", seed_repository), ("git-cli", seed_with_git_cli)]
                if r % 2:
                    order.reverse()
                for name, fn in order:
                    dest = base / f"{name}-{r}-{i}"
                    start = time.perf_counter()
                    fn(case, variant, dest)
                    timings[name] += time.perf_counter() - start
                    shutil.rmtree(dest)
                seeds += 1
    rate = {name: seeds / seconds for name, seconds in timings.items()}
    print("identical commit ids from both ways: yes")
    print(f"seeds: {seeds} per way ({args.rounds} rounds)")
    print(f"pygit2 : {rate['pygit2']:8.1f} seeds/s ({1000 / rate['pygit2']:.2f} ms/seed)")
    print(f"git cli: {rate['git-cli']:8.1f} seeds/s ({1000 / rate['git-cli']:.2f} ms/seed)")
    ratio = rate["pygit2"] / rate["git-cli"]
    print(f"ratio pygit2 / git cli: {ratio:.2f}x (target >= 2x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
