"""Seeds per second: pygit2 versus the git CLI; and the cost of HTML mockups.

For every variant of every case in the project catalog, both ways build the
same tree from the same seed plan: pygit2 writes objects straight into the
object database and checks the commit out; the baseline writes the files and
runs `git init`, `git add -A`, `git commit` with the same fixed author, date
and message. Both must produce the same commit id (checked), so the ratio
compares equal work. Rounds alternate between the two to share any drift.

Second part: the fixture case with three HTML mockups
(tests/fixtures/catalogs/mockups/.../mockup-trio) seeded cold (an empty
mockup cache: Chromium starts and renders all three) and warm (every shot
cached: no browser), each as a ratio to seeding the same case with its
three references removed (the seed without mockups). Rounds interleave the
three ways.

Usage: python bench/seed.py [--rounds N] [--mockup-rounds N] [--mockups-only]
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
TRIO = ROOT / "tests/fixtures/catalogs/mockups/end-to-end/easy/mockup-trio/v1.0.0"


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


def _without_references(src: Path, dest: Path) -> Path:
    """A copy of the case with its [[reference]] tables removed from the manifest."""
    shutil.copytree(src, dest)
    manifest = dest / "test-case.toml"
    kept = manifest.read_text().split("[[reference]]")[0]
    manifest.write_text(kept)
    return dest


def bench_mockups(rounds: int) -> int:
    from tcab.browser.mockup_cache import MockupCache
    from tcab.catalog import load_version

    with tempfile.TemporaryDirectory(prefix="tcab-bench-mockups-") as tmp:
        base = Path(tmp)
        trio, problems = load_version(TRIO)
        plain, more = load_version(_without_references(TRIO, base / "end-to-end/easy/mockup-trio/v1.0.0"))
        if problems or more:
            print(f"the mockup fixture does not load: {problems + more}", file=sys.stderr)
            return 1
        warm_cache = base / "warm-cache"
        with MockupCache(trio.root, warm_cache) as render:  # fills the warm cache
            seed_repository(trio, trio.variant(), base / "fill", render_mockup=render)
        timings = {"plain": 0.0, "cold": 0.0, "warm": 0.0}
        renders = {"cold": 0, "warm": 0}

        def plain_seed(dest: Path) -> None:
            seed_repository(plain, plain.variant(), dest)

        def mockup_seed(kind: str, cache: Path, dest: Path) -> None:
            with MockupCache(trio.root, cache) as render:
                seed_repository(trio, trio.variant(), dest, render_mockup=render)
            renders[kind] += render.renders

        for r in range(rounds):
            ways = [("plain", lambda d: plain_seed(d)),
                    ("cold", lambda d, r=r: mockup_seed("cold", base / f"cold-cache-{r}", d)),
                    ("warm", lambda d: mockup_seed("warm", warm_cache, d))]
            for name, fn in ways[r % 3:] + ways[:r % 3]:
                dest = base / f"{name}-{r}"
                start = time.perf_counter()
                fn(dest)
                timings[name] += time.perf_counter() - start
                shutil.rmtree(dest)
    ms = {name: 1000 * t / rounds for name, t in timings.items()}
    print(f"\nmockups: {TRIO.relative_to(ROOT)} (3 HTML mockups), {rounds} round(s) per way")
    print(f"seed without mockups : {ms['plain']:9.1f} ms/seed")
    print(f"cold (renders {renders['cold'] // rounds} each): {ms['cold']:9.1f} ms/seed  "
          f"ratio {ms['cold'] / ms['plain']:.1f}x")
    print(f"warm (renders {renders['warm'] // rounds} each): {ms['warm']:9.1f} ms/seed  "
          f"ratio {ms['warm'] / ms['plain']:.2f}x")
    return 0 if renders["warm"] == 0 else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--mockup-rounds", type=int, default=3)
    parser.add_argument("--mockups-only", action="store_true")
    args = parser.parse_args()
    if args.mockups_only:
        return bench_mockups(args.mockup_rounds)
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
    return bench_mockups(args.mockup_rounds)


if __name__ == "__main__":
    sys.exit(main())
