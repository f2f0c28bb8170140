"""One real sweep on each runtime backend: the same tiny plan (two runs of
the reference harness on the sample end-to-end case, validated in Chromium)
through ``doit -n 2``, with ``runtime: backend: docker`` and ``kubernetes``
(the stand-in API server, pods as Podman containers; no real cluster). Both
must record the same; a second sweep must have nothing to do."""

from __future__ import annotations

import math
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PLAN = """\
name: tiny-{backend}
runtime:
  backend: {backend}
parallelism: 2
runs:
  - cases:
      - case: lights-out
    harnesses:
      - reference
    repeats: 2
report: no
"""


def conn_ids(tmp: Path) -> set[str]:
    conn = sqlite3.connect(tmp / "results" / "results.db")
    try:
        return {r for (r,) in conn.execute("SELECT id FROM runs")}
    finally:
        conn.close()


def _doit(tmp: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, **env, "TCAB_BUILD": str(tmp / "build"), "TCAB_RESULTS": str(tmp / "results"),
           "TCAB_TMP": str(tmp / "tmp"), "TCAB_PLAN": str(tmp / "plan.yaml")}
    return subprocess.run([sys.executable, "-m", "doit", "-f", str(ROOT / "dodo.py"), *args],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)


@pytest.mark.podman
@pytest.mark.timeout(900)
@pytest.mark.parametrize("backend", ["docker", "kubernetes"])
def test_a_sweep_runs_the_same_on_each_backend(backend, podman_runtime, request, tmp_path) -> None:
    env: dict[str, str] = {}
    standin = None
    if backend == "kubernetes":
        standin = request.getfixturevalue("kube_standin")
        standin.faults.__init__()
        env["KUBECONFIG"] = str(standin.kubeconfig)
        created = len(standin.store.created)
    (tmp_path / "plan.yaml").write_text(PLAN.format(backend=backend))

    first = _doit(tmp_path, env, "-n", "2")
    assert first.returncode == 0, first.stdout + first.stderr
    assert f"sweep tiny-{backend}: " in first.stdout and " 0 failed" in first.stdout, first.stdout

    conn = sqlite3.connect(tmp_path / "results" / "results.db")
    try:
        runs = conn.execute("SELECT case_slug, status, runtime, image_digest FROM runs").fetchall()
        validations = conn.execute("SELECT case_slug, status FROM validations").fetchall()
    finally:
        conn.close()
    assert [(c, s, r) for c, s, r, _ in runs] == [("lights-out", "completed", backend)] * 2
    assert all(d and "sha256:" in d for *_, d in runs) and len({d for *_, d in runs}) == 1
    assert validations == [("lights-out", "passed")] * 2
    # Nothing of this sweep is left on the socket (other tests may share it).
    ids = {r for r in conn_ids(tmp_path)}
    assert [c for c in podman_runtime.list_run_containers()
            if podman_runtime.api.inspect_container(c)["Config"]["Labels"].get("org.tcab.run-id", "")
            .removeprefix("validate-") in ids] == []
    if standin is not None:
        assert standin.pods() == [], "a pod was left behind"
        labels = [p["metadata"]["labels"]["org.tcab.run-id"] for p in standin.store.created[created:]]
        # Two run pods and their two validation pods (the plan's runtime is the
        # runtime of every step); the sweep's task keys cost at most one
        # image-digest pod per doit process (the main one and two workers), never one per run.
        assert len([x for x in labels if not x.startswith(("image-digest-", "validate-"))]) == 2, labels
        assert len([x for x in labels if x.startswith("validate-")]) == 2, labels
        assert 1 <= len([x for x in labels if x.startswith("image-digest-")]) <= 3, labels

    second = _doit(tmp_path, env)
    assert second.returncode == 0, second.stdout + second.stderr
    assert f"sweep tiny-{backend}: nothing to do" in second.stdout, second.stdout


BUILD_PLAN = """\
name: builds-on-kubernetes
runtime:
  backend: kubernetes
parallelism: 1
runs:
  - cases:
      - case: lights-out
      - case: capture
    harnesses:
      - reference
report: no
"""


def _created_on_the_socket(podman_runtime, since: int, until: int) -> list[dict[str, str]]:
    """The labels of every container created on the Podman socket between the
    two times that is not a pod of the stand-in (those are its node's)."""
    from tests.kube_standin.node import STANDIN_LABEL

    events = podman_runtime.api.events(since=since, until=until, decode=True,
                                       filters={"type": "container", "event": "create"})
    attributes = [e.get("Actor", {}).get("Attributes", {}) for e in events]
    return [a for a in attributes if STANDIN_LABEL not in a]


@pytest.mark.podman
@pytest.mark.timeout(900)
def test_a_kubernetes_sweep_builds_and_validates_on_kubernetes(podman_runtime, kube_standin, tmp_path) -> None:
    """The plan's runtime is the runtime of every step: the run pods, the
    controller build of the adversarial run and the validation of the
    end-to-end run are pods of the stand-in, and the sweep creates no
    container of its own on the docker socket (issue 20, defect 1)."""
    import time

    kube_standin.faults.__init__()
    created = len(kube_standin.store.created)
    (tmp_path / "plan.yaml").write_text(BUILD_PLAN)
    since = int(time.time()) - 1
    first = _doit(tmp_path, {"KUBECONFIG": str(kube_standin.kubeconfig)}, "-n", "1")
    until = int(time.time()) + 1
    assert first.returncode == 0, first.stdout + first.stderr
    assert " 0 failed" in first.stdout, first.stdout

    conn = sqlite3.connect(tmp_path / "results" / "results.db")
    try:
        rows = conn.execute("SELECT case_slug, id, status, status_detail FROM runs").fetchall()
        builds = conn.execute("SELECT source, status, log_excerpt FROM builds").fetchall()
        validations = conn.execute("SELECT run_id, status, detail FROM validations").fetchall()
    finally:
        conn.close()
    runs = {c: i for c, i, status, _ in rows if status == "completed"}
    assert set(runs) == {"lights-out", "capture"}, (rows, validations)
    builds = [(s, st) for s, st, _ in builds]
    validations = [(r, st) for r, st, _ in validations]
    assert builds == [(runs["capture"], "ok")] and validations == [(runs["lights-out"], "passed")]

    labels = [p["metadata"]["labels"]["org.tcab.run-id"] for p in kube_standin.store.created[created:]]
    assert {runs["capture"], runs["lights-out"], f"build-{runs['capture']}",
            f"validate-{runs['lights-out']}"} <= set(labels), labels
    # A build's or validation's pod is bounded by that container's own
    # lifetime (BuildLimits.lifetime_s), not by a run's 24 h default.
    from tcab.runtime.build import PROBE_TIMEOUT_S, BuildLimits
    from tcab.runtime.kubernetes.config import DEADLINE_MARGIN_S, DEFAULT_MAX_RUNTIME_S

    deadlines = {p["metadata"]["labels"]["org.tcab.run-id"]: p["spec"]["activeDeadlineSeconds"]
                 for p in kube_standin.store.created[created:]}
    build_life = BuildLimits().lifetime_s()
    assert build_life == 2 * BuildLimits().timeout_s + PROBE_TIMEOUT_S
    assert deadlines[f"build-{runs['capture']}"] == math.ceil(build_life + DEADLINE_MARGIN_S)
    assert build_life + DEADLINE_MARGIN_S <= deadlines[f"validate-{runs['lights-out']}"] < DEFAULT_MAX_RUNTIME_S
    ours = {runs["capture"], runs["lights-out"], f"build-{runs['capture']}", f"validate-{runs['lights-out']}"}
    on_socket = [a for a in _created_on_the_socket(podman_runtime, since, until)
                 if a.get("org.tcab.run-id") in ours or str(a.get("org.tcab.run-id", "")).startswith("image-digest-")]
    assert on_socket == [], f"containers created on the docker socket: {on_socket}"
    assert kube_standin.pods() == [], "a pod was left behind"
