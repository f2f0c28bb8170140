"""Overhead of `tcab run` over a bare `podman run` of the same work.

Side by side, alternating, in one process:
- baseline: podman CLI starts the run image, copies the seeded tree in
  (`podman cp`), runs a command that does nothing, copies /work out and
  removes the container;
- tcab: `tcab run lights-out --harness noop` (a harness whose install is
  empty and whose session is `true`), which adds seeding, probing, the
  records, collection checks and the results.db row.
Prints the median wall times and the ratio. Target: at most 1.5x. A third
line times the same run through `tcab.runs.execute_run` inside this process
(imports already paid), which separates the lifecycle's own cost from the
interpreter start-up and imports of a fresh `tcab` process.
Needs `make images` (and the Podman socket for tcab).
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
IMAGE = "ghcr.io/theclockwyrks/test-cabinet-base-wasm:latest"
CASE = "lights-out"
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "5"))

NOOP = """slug = "noop"
name = "Does nothing"
binary = "true"
install = ""
args = []
"""


def sh(*argv: str, env: dict | None = None) -> str:
    done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ROOT)
    if done.returncode != 0:
        sys.exit(f"{' '.join(argv[:4])}... failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return done.stdout.strip()


def bare_podman(seed: Path, out: Path) -> float:
    t0 = time.perf_counter()
    cid = sh("podman", "run", "-d", "--init", "--user", "tcab", IMAGE, "sleep", "infinity")
    sh("podman", "cp", f"{seed}/.", f"{cid}:/work")
    sh("podman", "exec", "-u", "tcab", "-w", "/work", cid, "true")
    sh("podman", "cp", f"{cid}:/work", str(out))
    sh("podman", "rm", "-f", "-t", "0", cid)
    return time.perf_counter() - t0


def tcab_run(env: dict) -> float:
    t0 = time.perf_counter()
    sh(sys.executable, "-m", "tcab", "run", CASE, "--harness", "noop", "--json", env=env)
    return time.perf_counter() - t0


def in_process(env: dict) -> float:
    from tcab.catalog import resolve_case
    from tcab.harnesses import load_harness
    from tcab.runs import RunOptions, execute_run
    from tcab.settings import Settings

    settings = Settings.from_env(ROOT, env)
    t0 = time.perf_counter()
    case = resolve_case(settings.catalog_dir, CASE)
    record = execute_run(settings, case, case.variant(None), load_harness(settings.harnesses_dir, "noop"),
                         RunOptions())
    assert record.status == "completed", record.status_detail
    return time.perf_counter() - t0


def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="tcab-bench-"))
    try:
        (work / "harnesses").mkdir()
        (work / "harnesses" / "noop.toml").write_text(NOOP)
        env = {**os.environ, "TCAB_HARNESSES": str(work / "harnesses"),
               "TCAB_RESULTS": str(work / "results"), "TCAB_TMP": str(work / "tmp")}
        seed = work / "seed"
        sh(sys.executable, "-m", "tcab", "seed", CASE, "--out", str(seed), env=env)
        bare, ours, inproc = [], [], []
        tcab_run(env)  # warm the page cache and the socket once, untimed
        in_process(env)
        for i in range(ROUNDS):
            bare.append(bare_podman(seed, work / f"out-{i}"))
            ours.append(tcab_run(env))
            inproc.append(in_process(env))
        b, t = statistics.median(bare), statistics.median(ours)
        print(f"rounds: {ROUNDS} (alternating), case {CASE}, image {IMAGE}")
        print(f"bare podman run + cp in/out: median {b:.3f} s  (min {min(bare):.3f}, max {max(bare):.3f})")
        print(f"tcab run --harness noop:     median {t:.3f} s  (min {min(ours):.3f}, max {max(ours):.3f})")
        p = statistics.median(inproc)
        print(f"execute_run in-process:      median {p:.3f} s  (min {min(inproc):.3f}, max {max(inproc):.3f})")
        print(f"ratio tcab / bare: {t / b:.2f}x  (target <= 1.5x); in-process / bare: {p / b:.2f}x")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
