"""No-op doit on a 10,000-task sweep: tcab's generators vs bare doit, side by side.

A synthetic plan (the task tests' ``mini`` case, 2 variants x 4 harnesses x
1,249 repeats) expands to 9,998 run tasks plus seeds, prompts, manifest
and report. After one sweep has made every target, the no-op ``doit`` (a
fresh process each time, as a user types it) is timed against bare doit
with the same number of trivial up-to-date tasks (one target and one file
dependency each, doit's own md5 state), in the same run. Prints both, the
ratio (target: at most 1.5x) and the time to build the task list itself.

Runs answer through a function that records a result without a container:
this measures the task layer, not the runs.

    python bench/doit_noop.py [--repeats 1249] [--trials 3]
"""

from __future__ import annotations

import argparse
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "tasks" / "fixtures" / "catalog"

SWEEP_DODO = '''
import sys
sys.path.insert(0, {bench!r})
from doit_noop import null_executors
from tcab.tasks import load_sweep

_sweep = load_sweep(None, root={root!r}, executors=null_executors(), env={{}})
import gc; gc.freeze()  # as dodo.py does
DOIT_CONFIG = {{**_sweep.doit_config, "num_process": 0}}
task_seed = _sweep.task_seed
task_prompt = _sweep.task_prompt
task_runs = _sweep.task_runs
task_after_run = _sweep.task_after_run
task_entrants = _sweep.task_entrants
task_tournament = _sweep.task_tournament
task_replay = _sweep.task_replay
task_manifest = _sweep.task_manifest
task_report = _sweep.task_report
'''

BARE_DODO = '''
from pathlib import Path
from doit.tools import create_folder

DOIT_CONFIG = {{"default_tasks": ["all"], "verbosity": 0, "reporter": "executed-only"}}
N = {n}

def touch(path):
    Path(path).write_text("x")

def task_item():
    for i in range(N):
        yield {{"name": str(i), "actions": [(touch, ("out/%d" % i,))],
               "file_dep": ["input.txt"], "targets": ["out/%d" % i]}}

def task_all():
    return {{"actions": None, "task_dep": ["item"]}}
'''


def null_executors():
    """Executors that record results without doing work (import-cheap, no containers)."""
    from tcab.tasks.executors import (
        BuildOutcome,
        Executors,
        HarnessInfo,
        RunOutcome,
        ValidationOutcome,
    )

    def run(req):
        # A run target requires its folder's run.json (and a validation its
        # validation.json): one shared folder stands for all of them.
        folder = req.settings.runs_dir / "null"
        (folder / "validation").mkdir(parents=True, exist_ok=True)
        for name in ("run.json", "validation/validation.json"):
            if not (folder / name).exists():
                (folder / name).write_text("{}")
        return RunOutcome(f"{req.spec.case}-{req.spec.agent}-{req.spec.repeat}", "completed", folder, "0" * 64)

    return Executors(
        image_digest=lambda kind, rt: f"sha256:{kind}",
        harness=lambda slug, s: HarnessInfo(slug),
        run=run,
        build_run=lambda *a: BuildOutcome(False, detail="null"),
        build_baseline=lambda *a: BuildOutcome(False, detail="null"),
        tournament=lambda req: {"standings": []},
        report=lambda s, out: (out.mkdir(parents=True, exist_ok=True), (out / "index.html").write_text("-")),
        verify_replays=lambda case, variant, paths: [],
        validate=lambda case, outcome, s, runtime: ValidationOutcome("passed"),
    )


def make_sweep(base: Path, repeats: int, harnesses: int) -> Path:
    root = base / "sweep"
    shutil.copytree(FIXTURE, root / "test-cases")
    (root / "harnesses").mkdir()
    names = [f"h{i}" for i in range(harnesses)]
    for n in names:
        (root / "harnesses" / f"{n}.toml").write_text(f'slug = "{n}"\n')
    hs = "".join(f"      - {n}\n" for n in names)
    (root / "benchmark.yaml").write_text(
        f"name: noop\nruns:\n  - cases:\n      - case: mini\n        variants: all\n"
        f"    harnesses:\n{hs}    repeats: {repeats}\n"
    )
    (root / "dodo.py").write_text(SWEEP_DODO.format(bench=str(ROOT / "bench"), root=str(root)))
    return root


def make_bare(base: Path, n: int) -> Path:
    root = base / "bare"
    (root / "out").mkdir(parents=True)
    (root / "input.txt").write_text("input")
    (root / "dodo.py").write_text(BARE_DODO.format(n=n))
    return root


def doit(root: Path, *args: str) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds of the doit process, its output)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "doit", "-f", "dodo.py", *args], cwd=root,
                          capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        raise SystemExit(f"doit failed in {root}:\n{proc.stdout}\n{proc.stderr}")
    return elapsed, cpu, proc.stdout


def count_tasks(root: Path) -> tuple[int, float]:
    """(number of tasks, seconds to load the plan and catalog and generate every task dict)."""
    sys.path.insert(0, str(ROOT / "bench"))
    from tcab.tasks import load_sweep

    started = time.perf_counter()
    sweep = load_sweep(None, root=root, executors=null_executors(), env={})
    n = 0
    for name in dir(sweep):
        if name.startswith("task_"):
            n += sum(1 for t in getattr(sweep, name)() if t.get("name") is not None or "actions" in t)
    return n, time.perf_counter() - started


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=1249)
    ap.add_argument("--harnesses", type=int, default=4)
    ap.add_argument("--trials", type=int, default=3)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="tcab-bench-noop-") as tmp:
        base = Path(tmp)
        sweep = make_sweep(base, args.repeats, args.harnesses)
        n, gen_s = count_tasks(sweep)
        bare = make_bare(base, n)
        first_sweep, _, _ = doit(sweep)
        first_bare, _, _ = doit(bare)
        runs = {"tcab": [], "bare": []}
        for _ in range(args.trials):  # interleaved, so machine noise hits both alike
            for label, root in (("tcab", sweep), ("bare", bare)):
                wall, cpu, out = doit(root)
                if (label == "tcab" and "nothing to do" not in out) or (label == "bare" and out.strip()):
                    raise SystemExit(f"{label} was not a no-op:\n{out[-2000:]}")
                runs[label].append((wall, cpu))
    wall = {k: statistics.median(w for w, _ in v) for k, v in runs.items()}
    cpu = {k: statistics.median(c for _, c in v) for k, v in runs.items()}
    print(f"tasks: {n} (tcab sweep) vs {n} (bare doit)")
    print(f"first sweep (all tasks run, null runs): tcab {first_sweep:.2f}s, bare {first_bare:.2f}s")
    print(f"task list built in-process (catalog + plan + expand + every task dict): {gen_s:.3f}s")
    print(f"no-op doit, median of {args.trials}, fresh process each (wall / CPU):")
    for k in ("tcab", "bare"):
        trials = ", ".join(f"{w:.2f}/{c:.2f}" for w, c in runs[k])
        print(f"  {k:<5} {wall[k]:.2f}s / {cpu[k]:.2f}s   ({trials})")
    print(f"ratio tcab/bare: {wall['tcab'] / wall['bare']:.2f}x wall, "
          f"{cpu['tcab'] / cpu['bare']:.2f}x CPU (target <= 1.5x)")


if __name__ == "__main__":
    main()
