"""The kubernetes backend's cost, through the stand-in API server.

1. Per-run overhead: the same trivial run (lights-out, a harness whose
   session is `true`) through `tcab.runs.execute_run` in this process, on
   the docker backend and on the kubernetes backend, alternating; medians
   and the ratio (target <= 1.5x). The stand-in runs in its own process
   (`python -m tests.kube_standin`), pods are Podman containers, so the
   ratio is what the API round trips, the pod status polling and the exec
   WebSockets add over docker-py (the run's image digest is read from its
   own pod: no probe pod). The stage medians show where: a kubernetes copy
   is an exec (docker's are archive calls), and copy-out is two execs (the
   reap, then the check, measure and archive in one).
2. A sweep of 8 such runs (`doit run` on a plan with `backend: kubernetes`)
   with `-n 1` and with `-n 4`: the speed-up, on a machine of os.cpu_count()
   cores (this one: 2, shared), where 4 pods at once mostly wait on Podman.

No real cluster is involved: on one, pod start-up (scheduling, image pull,
sandbox creation) dominates and these numbers do not transfer.
Run: python bench/kubernetes.py [ROUNDS]   (needs `make images` and Podman)
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
# This file's name would shadow the kubernetes client package: drop bench/ from the path.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != Path(__file__).resolve().parent]
sys.path.insert(0, str(ROOT))
CASE = "lights-out"
NOOP = 'slug = "noop"\nname = "Does nothing"\nbinary = "true"\ninstall = ""\nargs = []\n'
PLAN = """\
name: kube-bench
runtime:
  backend: kubernetes
parallelism: 1
report: false
runs:
  - cases:
      - lights-out
    harnesses:
      - noop
    repeats: 8
"""


def one_run(settings, runtime, stages: dict[str, list[float]] | None = None) -> float:
    from tcab.catalog.resolve import resolve_case
    from tcab.harnesses import load_harness
    from tcab.runs import RunOptions, execute_run

    t0 = time.perf_counter()
    case = resolve_case(settings.catalog_dir, CASE)
    record = execute_run(settings, case, case.variant(None), load_harness(settings.harnesses_dir, "noop"),
                         RunOptions(runtime=runtime))
    assert record.status == "completed", record.status_detail
    for stage in record.stages if stages is not None else ():
        stages.setdefault(stage.stage, []).append(stage.duration_s)
    return time.perf_counter() - t0


def sweep(env: dict, jobs: int, folder: Path) -> float:
    """``doit -n jobs run`` in a fresh folder (its own doit state, results and builds)."""
    folder.mkdir()
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "doit", "-f", str(ROOT / "dodo.py"), "-d", str(folder),
                           "-n", str(jobs), "-P", "process", "run", f"plan={env['TCAB_PLAN']}"],
                          cwd=folder, env={**env, "TCAB_RESULTS": str(folder / "results"),
                                           "TCAB_BUILD": str(folder / "build"), "TCAB_TMP": str(folder / "tmp"),
                                           "TCAB_CATALOG": str(ROOT / "test-cases")}, capture_output=True, text=True)
    took = time.perf_counter() - t0
    if done.returncode != 0:
        sys.exit(f"doit -n {jobs} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return took


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    work = Path(tempfile.mkdtemp(prefix="tcab-kbench-"))
    kubeconfig = work / "kubeconfig"
    server = subprocess.Popen([sys.executable, "-m", "tests.kube_standin", str(kubeconfig)], cwd=ROOT,
                              env={**os.environ, "PYTHONPATH": str(ROOT)}, stdout=subprocess.PIPE, text=True)
    try:
        server.stdout.readline()  # "stand-in API server at ..." once it serves
        (work / "harnesses").mkdir()
        (work / "harnesses" / "noop.toml").write_text(NOOP)
        env = {**os.environ, "TCAB_HARNESSES": str(work / "harnesses"), "TCAB_RESULTS": str(work / "results"),
               "TCAB_TMP": str(work / "tmp"), "KUBECONFIG": str(kubeconfig), "PYTHONPATH": str(ROOT)}
        os.environ.update(env)
        from tcab.runtime import get_runtime
        from tcab.settings import Settings

        settings = Settings.from_env(ROOT, env)
        t0 = time.perf_counter()
        kube = get_runtime("kubernetes")
        connect = time.perf_counter() - t0
        docker = get_runtime("docker")
        one_run(settings, docker), one_run(settings, kube)  # warm, untimed
        d, k = [], []
        ds: dict[str, list[float]] = {}
        ks: dict[str, list[float]] = {}
        for _ in range(rounds):
            d.append(one_run(settings, docker, ds))
            k.append(one_run(settings, kube, ks))
        md, mk = statistics.median(d), statistics.median(k)
        print(f"machine: {os.cpu_count()} cores; rounds {rounds} (alternating); case {CASE}, harness noop")
        print(f"kubernetes client start (import + version + list + dry-run create): {connect:.2f} s, once per process")
        print(f"docker backend:     median {md:.3f} s  (min {min(d):.3f}, max {max(d):.3f})")
        print(f"kubernetes backend: median {mk:.3f} s  (min {min(k):.3f}, max {max(k):.3f})")
        print(f"ratio kubernetes / docker: {mk / md:.2f}x  (target <= 1.5x)")
        print("stage medians, docker / kubernetes (s): " + ", ".join(
            f"{name} {statistics.median(ds.get(name) or [0]):.3f}/{statistics.median(times):.3f}"
            for name, times in ks.items()))
        plan = work / "benchmark.yaml"
        plan.write_text(PLAN)
        env["TCAB_PLAN"] = str(plan)
        s1 = sweep(env, 1, work / "sweep-1")
        s4 = sweep(env, 4, work / "sweep-4")
        print(f"sweep of 8 runs: doit -n 1 {s1:.1f} s, -n 4 {s4:.1f} s, speed-up {s1 / s4:.2f}x "
              f"(ceiling: {os.cpu_count()} shared cores)")
    finally:
        server.terminate()
        server.wait(60)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
