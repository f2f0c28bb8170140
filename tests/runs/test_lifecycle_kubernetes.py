"""The run lifecycle on the kubernetes backend (the stand-in API server,
pods as Podman containers): every status, cancel, refusals, secrets, and
the faults a cluster adds. Each run is followed by the check that no pod
is left behind."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading

import pytest

from tcab.runs import RunOptions, execute_run

TOKEN = "sk-test-kube-5e1d9b3a7c"


def _run(settings, case, harness, runtime, standin, **options):
    record = execute_run(settings, case, case.variant(None), harness, RunOptions(runtime=runtime, **options))
    assert runtime.list_run_containers(record.id) == [] and standin.pods() == [], "a pod was left behind"
    assert record.runtime == "kubernetes"
    return record


def _stages(record) -> dict[str, str]:
    return {s.stage: s.status for s in record.stages}


@pytest.mark.timeout(600)
def test_statuses(settings, e2e_case, scripted, kube_runtime, kube_standin) -> None:
    done = _run(settings, e2e_case, scripted("echo building; echo made > made.txt; git add -A; git commit -qm m"),
                kube_runtime, kube_standin)
    assert done.status == "completed", done.status_detail
    assert (done.run_dir / "work" / "made.txt").read_text() == "made\n"
    assert done.image_digest and "sha256:" in done.image_digest
    bad = _run(settings, e2e_case, scripted("echo bad thing >&2; exit 3"), kube_runtime, kube_standin)
    assert bad.status == "harness_error" and "exit 3" in bad.status_detail
    slow = _run(settings, e2e_case, scripted("echo start; sleep 300"), kube_runtime, kube_standin, max_runtime_s=4.0)
    assert slow.status == "timed_out"
    hung = _run(settings, e2e_case, scripted("echo thinking; sleep 300"), kube_runtime, kube_standin,
                idle_timeout_s=2.0)
    assert hung.status == "hung" and _stages(hung)["session"] == "hung"


@pytest.mark.timeout(300)
def test_canceled_and_hostile_tree(settings, e2e_case, scripted, kube_runtime, kube_standin) -> None:
    cancel = threading.Event()

    def on_event(event: dict) -> None:
        if event["kind"] == "message" and event["text"] == "started":
            cancel.set()

    record = _run(settings, e2e_case, scripted("echo started; sleep 300"), kube_runtime, kube_standin,
                  cancel=cancel, on_event=on_event)
    assert record.status == "canceled"
    script = "ln -s /etc/passwd passwd; mkfifo pipe; echo fine > fine.txt; chmod 000 fine.txt; echo ok > ok.txt"
    hostile = _run(settings, e2e_case, scripted(script), kube_runtime, kube_standin)
    reasons = {r.path: r.reason for r in hostile.refused}
    assert "outside" in reasons["passwd"] and reasons["pipe"] == "FIFO refused"
    assert "unreadable in the pod" in reasons["fine.txt"]  # the pod has no root to read it with
    assert (hostile.run_dir / "work" / "ok.txt").exists()


@pytest.mark.timeout(300)
def test_secrets_never_written(settings, e2e_case, scripted, kube_runtime, kube_standin) -> None:
    harness = scripted('echo "token=$KTOKEN"; printf %s "$KTOKEN" > leak.txt; exit 5', secrets=["KTOKEN"])
    record = _run(settings, e2e_case, harness, kube_runtime, kube_standin, env={"KTOKEN": TOKEN})
    assert record.status == "harness_error"
    assert "token=[secret:KTOKEN]" in (record.run_dir / "raw.jsonl").read_text()
    for path in (p for p in settings.root.rglob("*") if p.is_file()):
        assert TOKEN.encode() not in path.read_bytes(), path
    assert not any(TOKEN in url for url in kube_standin.store.exec_urls)


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
    assert _stages(missing)["pull"] == "failed"


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
    mixed = tcab("run", "lights-out", "--harness", "says-hello", "--k8s-namespace", "tcab")
    assert mixed.returncode == 2 and "needs --runtime kubernetes" in mixed.stderr
    leaked = kube_runtime.start(ContainerSpec(image=base_image, run_id="left-behind"))
    clean = tcab("cleanup", "--runtime", "kubernetes", "--json")
    assert clean.returncode == 0, clean.stderr
    assert json.loads(clean.stdout)["removed"] == [leaked] and kube_standin.pods() == []
