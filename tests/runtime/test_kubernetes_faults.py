"""The kubernetes backend against what a cluster does wrong, through the
stand-in API server (tests/kube_standin/): every fault raises with its
cause named, and no pod is left behind."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from tcab.errors import ImageNotFound, RuntimeBackendError, RuntimeSettingsError
from tcab.runs import cleanup_containers
from tcab.runtime import ContainerSpec, ExecEnd, ExecOptions, get_runtime


def _spec(base_image: str, run_id: str, **kw) -> ContainerSpec:
    return ContainerSpec(image=base_image, run_id=run_id, **kw)


def _no_pods(kube_standin) -> None:
    assert kube_standin.pods() == [], "a pod was left behind"


def test_pull_failure_is_raised_at_once_with_the_reason(kube_runtime, kube_standin, base_image) -> None:
    t0 = time.monotonic()
    with pytest.raises(ImageNotFound, match="ErrImagePull|ImagePullBackOff"):
        kube_runtime.start(_spec("localhost/tcab/no-such-image:never", "pull-missing"))
    kube_standin.faults.pull_fail.add(base_image)
    with pytest.raises(ImageNotFound, match="registry refused"):
        kube_runtime.start(_spec(base_image, "pull-refused"))
    assert time.monotonic() - t0 < 60
    _no_pods(kube_standin)


def test_ensure_image_starts_no_pod(kube_runtime, kube_standin, base_image) -> None:
    # The node pulls at pod start: asking for an image costs no pod, and a
    # missing one is raised by start (above), not here.
    before = len(kube_standin.store.created)
    fresh = kube_runtime.ensure_image("localhost/tcab/no-such-image:never")
    assert (fresh.id, fresh.digest) == ("", "")
    assert len(kube_standin.store.created) == before


def test_pull_disabled_never_pulls(kube_runtime, kube_standin) -> None:
    kube_runtime.ensure_image("localhost/tcab/no-such-image:never", pull=False)
    with pytest.raises(ImageNotFound, match="ErrImageNeverPull"):
        kube_runtime.start(_spec("localhost/tcab/no-such-image:never", "never-pull"))
    assert kube_standin.store.created[-1]["spec"]["containers"][0]["imagePullPolicy"] == "Never"
    _no_pods(kube_standin)


def test_unschedulable_is_raised_with_the_scheduler_message(kube_standin, base_image) -> None:
    kube_standin.faults.__init__()
    kc = str(kube_standin.kubeconfig)
    with pytest.raises(RuntimeBackendError, match="unschedulable.*didn't match Pod's node affinity/selector"):
        get_runtime("kubernetes", kubeconfig=kc, node_selector="pool=gpu").start(_spec(base_image, "sched-1"))
    with pytest.raises(RuntimeBackendError, match="unschedulable.*Insufficient cpu"):
        get_runtime("kubernetes", kubeconfig=kc, cpu="512").start(_spec(base_image, "sched-2"))
    kube_standin.faults.unschedulable = True
    with pytest.raises(RuntimeBackendError, match="unschedulable"):
        get_runtime("kubernetes", kubeconfig=kc).start(_spec(base_image, "sched-3"))
    kube_standin.faults.unschedulable = False
    _no_pods(kube_standin)


def test_waiting_for_running_is_bounded(kube_standin, base_image) -> None:
    kube_standin.faults.__init__()
    kube_standin.faults.unschedulable = True  # but reported only after the bound: no reason shown yet
    rt = get_runtime("kubernetes", kubeconfig=str(kube_standin.kubeconfig), start_timeout_s="0.05")
    with pytest.raises(RuntimeBackendError, match="unschedulable|did not run within 0.05 s"):
        rt.start(_spec(base_image, "bounded"))
    kube_standin.faults.unschedulable = False
    _no_pods(kube_standin)


@pytest.mark.timeout(120)
def test_stream_dropped_without_status_is_a_backend_failure(kube_runtime, kube_standin, base_image) -> None:
    pod = kube_runtime.start(_spec(base_image, "dropped"))
    try:
        kube_standin.faults.stream_idle_timeout_s = 1.0
        with pytest.raises(RuntimeBackendError, match="without a status frame"):
            kube_runtime.exec(pod, ["sh", "-c", "echo first; sleep 5; echo never"])
        # The idle watchdog below the kubelet's timeout ends it first, as data.
        res = kube_runtime.exec(pod, ["sh", "-c", "echo first; sleep 30"], ExecOptions(idle_timeout_s=0.5))
        assert res.end is ExecEnd.IDLE and "first" in res.stdout
    finally:
        kube_runtime.remove(pod)
    _no_pods(kube_standin)


@pytest.mark.timeout(120)
def test_an_exec_upgrade_that_never_comes_is_bounded(kube_runtime, kube_standin, base_image, monkeypatch) -> None:
    from tcab.runtime.kubernetes import exec as kube_exec

    monkeypatch.setattr(kube_exec, "CONNECT_S", 1.0)
    pod = kube_runtime.start(_spec(base_image, "stalled-upgrade"))
    try:
        kube_standin.faults.exec_stall_s = 60.0
        t0 = time.monotonic()
        with pytest.raises(RuntimeBackendError, match=f"open an exec stream.*{pod}|{pod}.*open an exec stream"):
            kube_runtime.exec(pod, ["true"])
        assert time.monotonic() - t0 < 15
        kube_standin.faults.exec_stall_s = None
        assert kube_runtime.exec(pod, ["sh", "-c", "echo after"]).stdout.strip() == "after"
    finally:
        kube_standin.faults.exec_stall_s = None
        kube_runtime.remove(pod)
    _no_pods(kube_standin)


@pytest.mark.timeout(120)
def test_pod_deleted_mid_run_is_a_backend_failure(kube_runtime, kube_standin, base_image) -> None:
    pod = kube_runtime.start(_spec(base_image, "deleted"))
    threading.Timer(1.5, kube_standin.delete_pod, args=("tcab", pod)).start()
    with pytest.raises(RuntimeBackendError, match=f"pod {pod} is gone"):
        kube_runtime.exec(pod, ["sh", "-c", "echo working; sleep 60"])
    kube_runtime.remove(pod)  # already gone: fine
    _no_pods(kube_standin)


@pytest.mark.timeout(120)
def test_v4_protocol_streams_and_copies(kube_runtime, kube_standin, base_image, tmp_path: Path) -> None:
    kube_standin.faults.protocols = ("v4.channel.k8s.io",)
    pod = kube_runtime.start(_spec(base_image, "v4"))
    try:
        seen: list[tuple[str, str]] = []
        res = kube_runtime.exec(pod, ["sh", "-c", "echo a; echo b >&2; exit 3"],
                                ExecOptions(env={"K": "v"}, on_output=lambda s, line, t: seen.append((s, line))))
        assert res.exit_code == 3 and ("stdout", "a") in seen and ("stderr", "b") in seen
        (tmp_path / "src").mkdir()
        (tmp_path / "src" / "f.txt").write_text("payload\n" * 50_000)
        kube_runtime.copy_in(pod, tmp_path / "src")
        report = kube_runtime.copy_out(pod, "/work", tmp_path / "out")
        assert report.files == 1 and (tmp_path / "out" / "f.txt").read_text() == "payload\n" * 50_000
    finally:
        kube_runtime.remove(pod)


@pytest.mark.timeout(120)
def test_secrets_never_reach_a_url_or_a_command_line(kube_runtime, kube_standin, base_image) -> None:
    secret = "sk-test-" + "q7" * 12
    pod = kube_runtime.start(_spec(base_image, "secrets"))
    try:
        res = kube_runtime.exec(pod, ["sh", "-c", 'echo "${#API_KEY}"; ps -eo args'],
                                ExecOptions(env={"API_KEY": secret, "ODD": "a'b\"c $(x) `y`\nz"}))
        assert res.stdout.splitlines()[0] == str(len(secret)) and secret not in res.stdout
        odd = kube_runtime.exec(pod, ["sh", "-c", 'printf %s "$ODD"'], ExecOptions(env={"ODD": "a'b\"c $(x) `y`\nz"}))
        assert odd.stdout == "a'b\"c $(x) `y`\nz"
        assert not any(secret in url for url in kube_standin.store.exec_urls)
        with pytest.raises(RuntimeBackendError, match="not a valid environment variable name"):
            kube_runtime.exec(pod, ["true"], ExecOptions(env={"A;rm -rf /": "x"}))
    finally:
        kube_runtime.remove(pod)


def test_missing_rbac_is_a_clear_error_before_a_run(kube_standin, base_image) -> None:
    kc = str(kube_standin.kubeconfig)
    kube_standin.faults.__init__()
    kube_standin.faults.forbidden = {"list"}
    with pytest.raises(RuntimeSettingsError, match="HTTP 403.*missing RBAC: apply containers/kubernetes/rbac.yaml"):
        get_runtime("kubernetes", kubeconfig=kc)
    kube_standin.faults.forbidden = {"create"}
    created = len(kube_standin.store.created)
    with pytest.raises(RuntimeSettingsError, match="create pods in namespace tcab \\(a dry run, before any run\\)"
                                                  ".*403.*cannot create.*rbac.yaml"):
        get_runtime("kubernetes", kubeconfig=kc)
    kube_standin.faults.forbidden = set()
    assert len(kube_standin.store.created) == created  # refused before any pod existed
    _no_pods(kube_standin)


def test_constructing_the_backend_creates_nothing(kube_standin) -> None:
    kube_standin.faults.__init__()
    created, dry = len(kube_standin.store.created), len(kube_standin.store.dry_runs)
    get_runtime("kubernetes", kubeconfig=str(kube_standin.kubeconfig), cpu="1", node_selector="pool=a")
    assert len(kube_standin.store.created) == created and len(kube_standin.store.dry_runs) == dry + 1
    body = kube_standin.store.dry_runs[-1]  # the run pod's manifest, settings included
    assert body["spec"]["containers"][0]["resources"]["limits"]["cpu"] == "1"
    assert body["spec"]["nodeSelector"] == {"pool": "a"}
    _no_pods(kube_standin)


def test_unreachable_server_wrong_context_and_namespace(kube_standin, base_image, tmp_path: Path) -> None:
    kube_standin.faults.__init__()
    dead = tmp_path / "dead"
    dead.write_text(kube_standin.kubeconfig.read_text().replace(kube_standin.url, "http://127.0.0.1:9"))
    t0 = time.monotonic()
    with pytest.raises(RuntimeBackendError, match="unreachable"):
        get_runtime("kubernetes", kubeconfig=str(dead))
    assert time.monotonic() - t0 < 30
    with pytest.raises(RuntimeSettingsError, match="context nope.*Expected object with name nope"):
        get_runtime("kubernetes", kubeconfig=str(kube_standin.kubeconfig), context="nope")
    # A list in a missing namespace answers an empty list; the dry-run create is refused.
    with pytest.raises(RuntimeSettingsError, match='namespace missing .*HTTP 404: namespaces "missing" not found'):
        get_runtime("kubernetes", kubeconfig=str(kube_standin.kubeconfig), namespace="missing")
    with pytest.raises(RuntimeSettingsError, match="namespace: 'Bad_NS' is not a valid namespace"):
        get_runtime("kubernetes", kubeconfig=str(kube_standin.kubeconfig), namespace="Bad_NS")
    with pytest.raises(RuntimeSettingsError, match="memory: expected a positive Kubernetes quantity"):
        get_runtime("kubernetes", kubeconfig=str(kube_standin.kubeconfig), memory="lots")
    with pytest.raises(RuntimeSettingsError, match="unknown setting 'base_url'"):
        get_runtime("kubernetes", kubeconfig=str(kube_standin.kubeconfig), base_url="unix:///x")


def test_strict_field_validation_refuses_unknown_fields(kube_standin) -> None:
    # Raw HTTP: the client's own models would refuse this body before sending.
    import json
    import urllib.error
    import urllib.request

    body = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "tcab-strict"},
            "spec": {"containers": [{"name": "run", "image": "x", "runAsUser": 1000}]}}
    req = urllib.request.Request(f"{kube_standin.url}/api/v1/namespaces/tcab/pods?fieldValidation=Strict",
                                 data=json.dumps(body).encode(), method="POST",
                                 headers={"Authorization": f"Bearer {kube_standin.token}",
                                          "Content-Type": "application/json"})
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(req, timeout=30)
    status = json.loads(info.value.read())
    assert info.value.code == 422 and status["reason"] == "Invalid"
    assert "'runAsUser' was unexpected" in status["message"]
    assert kube_standin.pods() == []


def test_cleanup_by_label_removes_every_run_pod(kube_runtime, kube_standin, base_image) -> None:
    long_id = "20261130-000000-" + "very-long-case-name-" * 4 + "abc123"
    pods = [kube_runtime.start(_spec(base_image, "leak-1")), kube_runtime.start(_spec(base_image, long_id))]
    assert kube_runtime.list_run_containers(long_id) == [pods[1]]
    assert sorted(cleanup_containers(kube_runtime)) == sorted(pods)
    _no_pods(kube_standin)


@pytest.mark.timeout(120)
def test_image_digest_comes_from_the_pods_image_id(kube_runtime, kube_standin, base_image, podman_runtime) -> None:
    local = podman_runtime.ensure_image(base_image)
    pod = kube_runtime.start(_spec(base_image, "digest"))
    try:
        info = kube_runtime.image_digest(pod)
    finally:
        kube_runtime.remove(pod)
    assert info.digest == local.digest  # the node's RepoDigest, as the kubelet reports it
    assert info.id in info.digest
    assert info.ref == base_image and kube_runtime.ensure_image(base_image) == info
    _no_pods(kube_standin)


@pytest.mark.timeout(120)
def test_copy_out_is_the_reap_and_one_exec_and_leaves_nothing_running(kube_runtime, kube_standin, base_image,
                                                                       tmp_path: Path) -> None:
    # The process check, the measure and the archive share one exec after
    # the reap (they were three: each a pod exec round trip), and the
    # exec told "no" (a tree over the cap) does not stay waiting in the pod.
    from tcab.runtime import CollectLimits

    pod = kube_runtime.start(_spec(base_image, "two-execs"))
    try:
        assert kube_runtime.exec(pod, ["sh", "-c", "echo a > a.txt && mkdir d && head -c 5000 /dev/zero > d/b"]).ok
        before = len(kube_standin.store.exec_urls)
        report = kube_runtime.copy_out(pod, "/work", tmp_path / "out")
        urls = kube_standin.store.exec_urls[before:]
        assert report.files == 2 and report.refused == () and not report.truncated
        assert (tmp_path / "out" / "d" / "b").stat().st_size == 5000
        assert len(urls) == 2 and "RTMIN" in urls[0] and "tar" in urls[1], urls
        over = kube_runtime.copy_out(pod, "/work", tmp_path / "over", CollectLimits(max_bytes=100))
        assert over.truncated and "size cap" in over.refused[0].reason
        time.sleep(0.5)  # the refused exec's shell has had its answer
        ps = kube_runtime.exec(pod, ["ps", "-eo", "args"]).stdout
        assert "head -c 1" not in ps and "timeout" not in ps and "tar -c" not in ps, ps
    finally:
        kube_runtime.remove(pod)
    _no_pods(kube_standin)


def test_the_collect_report_is_one_exact_line() -> None:
    from tcab.runtime.kubernetes.copy import parse_report

    assert parse_report(b'{"others": 0, "measure": "3 120"}') == (0, (3, 120))
    assert parse_report(b'{"others": 2, "measure": ""}') == (2, None)  # measure unknown, not zero
    for bad in (b'{"others": true, "measure": "1 1"}', b'{"others": -1, "measure": "1 1"}',
                b'{"others": 0, "measure": "1 1", "x": 1}', b'{"others": 0}', b"[0]", b"0 1 2",
                b'{"others": 0, "measure": 5}', b"\xff"):
        assert parse_report(bad) is None, bad
