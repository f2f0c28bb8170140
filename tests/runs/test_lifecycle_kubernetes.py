"""What only the kubernetes backend has in a run (the stand-in API server,
pods as Podman containers): one pod per run, the faults a cluster adds, the
CLI's settings and cleanup. Every status, cancel, refusals and secrets run
on both backends in test_runs_lifecycle.py and test_runs_secrets.py. Each
run is followed by the check that no pod is left behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

import pytest

from tcab.runs import RunOptions, execute_run


def _run(settings, case, harness, runtime, standin, **options):
    record = execute_run(settings, case, case.variant(None), harness, RunOptions(runtime=runtime, **options))
    assert runtime.list_run_containers(record.id) == [] and standin.pods() == [], "a pod was left behind"
    assert record.runtime == "kubernetes"
    return record


def _stages(record) -> dict[str, str]:
    return {s.stage: s.status for s in record.stages}


@pytest.mark.timeout(300)
def test_a_run_is_one_pod_and_records_its_image_id(settings, e2e_case, scripted, kube_runtime, kube_standin,
                                                    podman_runtime, base_image) -> None:
    created = len(kube_standin.store.created)
    record = _run(settings, e2e_case, scripted("echo made > made.txt"), kube_runtime, kube_standin)
    assert record.status == "completed", record.status_detail
    pods = kube_standin.store.created[created:]
    assert len(pods) == 1, "a run creates its own pod and no other (no image probe pod)"
    assert pods[0]["metadata"]["labels"]["org.tcab.run-id"] == record.id
    # The digest recorded is the imageID the run's own pod reported.
    assert record.image_digest == podman_runtime.ensure_image(base_image).digest
    assert json.loads((record.run_dir / "run.json").read_text())["image"]["digest"] == record.image_digest


@pytest.mark.timeout(300)
def test_an_unreadable_file_is_refused_in_the_pod(settings, e2e_case, scripted, kube_runtime, kube_standin) -> None:
    script = "echo fine > fine.txt; chmod 000 fine.txt; echo ok > ok.txt"
    record = _run(settings, e2e_case, scripted(script), kube_runtime, kube_standin)
    reasons = {r.path: r.reason for r in record.refused}
    assert "unreadable in the pod" in reasons["fine.txt"]  # the pod has no root to read it with
    assert (record.run_dir / "work" / "ok.txt").exists()


@pytest.mark.timeout(300)
def test_cluster_faults_are_infrastructure(settings, e2e_case, scripted, kube_runtime, kube_standin,
                                           monkeypatch) -> None:
    def delete_when_started(event: dict) -> None:
        if event["kind"] == "message" and event["text"] == "working":
            for pod in kube_standin.pods():
                threading.Thread(target=kube_standin.delete_pod, args=("tcab", pod["metadata"]["name"])).start()

    gone = _run(settings, e2e_case, scripted("echo working; sleep 120"), kube_runtime, kube_standin,
                on_event=delete_when_started)
    assert gone.status == "infrastructure" and "is gone" in gone.status_detail, gone.status_detail
    kube_standin.faults.stream_idle_timeout_s = 1.5
    dropped = _run(settings, e2e_case, scripted("echo quiet; sleep 20"), kube_runtime, kube_standin)
    assert dropped.status == "infrastructure" and "without a status frame" in dropped.status_detail
    kube_standin.faults.stream_idle_timeout_s = None
    monkeypatch.setenv("TCAB_CONTAINER_IMAGE_BASE_WASM", "localhost/tcab/no-such-image:never")
    missing = _run(settings, e2e_case, scripted("echo never"), kube_runtime, kube_standin)
    assert missing.status == "infrastructure" and "ErrImagePull" in missing.status_detail
    assert _stages(missing)["start"] == "failed"  # the node pulls when the pod starts


@pytest.mark.timeout(300)
def test_cli_run_and_cleanup(settings, scripted, kube_runtime, kube_standin, base_image) -> None:
    from tcab.runtime import ContainerSpec

    scripted("echo hello from the pod", slug="says-hello")
    env = {**os.environ, "TCAB_CATALOG": str(settings.catalog_dir), "TCAB_HARNESSES": str(settings.harnesses_dir),
           "TCAB_RESULTS": str(settings.results_dir), "TCAB_TMP": str(settings.tmp_dir),
           "KUBECONFIG": str(kube_standin.kubeconfig)}

    def tcab(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "tcab", *args], env=env, cwd=settings.root,
                              capture_output=True, text=True, timeout=200)

    ok = tcab("run", "lights-out", "--harness", "says-hello", "--runtime", "kubernetes", "--k8s-cpu", "1", "--json")
    assert ok.returncode == 0, ok.stderr
    doc = json.loads(ok.stdout)
    assert doc["status"] == "completed" and kube_standin.pods() == []
    assert kube_standin.store.created[-1]["spec"]["containers"][0]["resources"]["limits"]["cpu"] == "1"
    wrong = tcab("run", "lights-out", "--harness", "says-hello", "--runtime", "kubernetes", "--k8s-memory", "lots")
    assert wrong.returncode == 2 and "memory: expected a positive Kubernetes quantity" in wrong.stderr
    assert "Traceback" not in wrong.stderr
    runs = sorted(p.name for p in (settings.results_dir / "runs").iterdir())
    lost = tcab("run", "lights-out", "--harness", "says-hello", "--runtime", "kubernetes", "--k8s-namespace", "lost")
    assert lost.returncode == 2 and 'HTTP 404: namespaces "lost" not found' in lost.stderr, lost.stderr
    assert "Traceback" not in lost.stderr
    assert sorted(p.name for p in (settings.results_dir / "runs").iterdir()) == runs  # nothing started
    mixed = tcab("run", "lights-out", "--harness", "says-hello", "--k8s-namespace", "tcab")
    assert mixed.returncode == 2 and "needs --runtime kubernetes" in mixed.stderr
    leaked = kube_runtime.start(ContainerSpec(image=base_image, run_id="left-behind"))
    clean = tcab("cleanup", "--runtime", "kubernetes", "--json")
    assert clean.returncode == 0, clean.stderr
    assert json.loads(clean.stdout)["removed"] == [leaked] and kube_standin.pods() == []


# A watched run through the stand-in (hostAliases, frames reaching the listener):
# tests/watch/test_watched_kubernetes.py.
