"""A watched run through the Kubernetes stand-in: the pod spec gets a
hostAlias for host.docker.internal to the driver's address (``POD_IP``) only
when the run is watched, and the pod's frames reach the listener bound there.
The stand-in's pods are Podman containers on the run network, so the
driver's address here is that network's gateway; an unwatched run's pod has
no hostAliases and no mapping."""

from __future__ import annotations

import pytest

from tcab.runs import RunOptions, execute_run
from tcab.watch import Watch
from tests.watch.sender import script
from tests.watch.test_watched_run import _ours, toy_case  # noqa: F401 - the fixture


def _run(settings, case, harness, runtime, standin, **options):
    record = execute_run(settings, case, case.variant(None), harness, RunOptions(runtime=runtime, **options))
    assert runtime.list_run_containers(record.id) == [] and record.runtime == "kubernetes"
    return record


@pytest.mark.timeout(300)
def test_a_watched_pod_reaches_the_listener_and_an_unwatched_one_has_no_alias(
        settings, toy_case, scripted, kube_standin, podman_runtime, monkeypatch) -> None:  # noqa: F811
    from tcab.runtime import get_runtime

    kube_standin.faults.__init__()
    gateway = podman_runtime.preview_address()
    monkeypatch.setenv("POD_IP", gateway)  # what the downward API gives a driver pod
    rt = get_runtime("kubernetes", kubeconfig=str(kube_standin.kubeconfig))
    assert rt.preview_address() == gateway
    watch = Watch()
    look = "getent hosts host.docker.internal || echo unmapped; "
    watched = _run(settings, toy_case, scripted(look + script([None, None])), rt, kube_standin, watch=watch)
    assert watched.status == "completed", watched.status_detail
    assert kube_standin.store.created[-1]["spec"]["hostAliases"] == [
        {"ip": gateway, "hostnames": ["host.docker.internal"]}]
    state = watch.board.state()
    assert state["accepted"] == 2 and state["dropped"] == {"wrong token": 1}, state
    assert [(f["frame"], f["count"]) for f in state["frames"]] == [(None, 2)]
    assert _ours() == []

    unwatched = _run(settings, toy_case, scripted(look), rt, kube_standin)
    assert unwatched.status == "completed", unwatched.status_detail
    assert "hostAliases" not in kube_standin.store.created[-1]["spec"]
    raw = (unwatched.run_dir / "raw.jsonl").read_text()
    assert "unmapped" in raw and "host.docker.internal" not in raw.replace("getent hosts host.docker.internal", "")


def test_a_watch_without_the_drivers_address_is_refused(settings, toy_case, scripted, kube_standin,  # noqa: F811
                                                        monkeypatch) -> None:
    from tcab.errors import RuntimeSettingsError
    from tcab.runtime import get_runtime

    monkeypatch.delenv("POD_IP", raising=False)
    monkeypatch.delenv("TCAB_K8S_PREVIEW_HOST", raising=False)
    rt = get_runtime("kubernetes", kubeconfig=str(kube_standin.kubeconfig))
    with pytest.raises(RuntimeSettingsError, match="POD_IP"):
        execute_run(settings, toy_case, toy_case.variant(None), scripted("echo never"),
                    RunOptions(runtime=rt, watch=Watch()))
    assert kube_standin.pods() == []


def test_a_drivers_address_that_is_not_this_hosts_is_refused(settings, toy_case, scripted,  # noqa: F811
                                                             kube_standin, monkeypatch) -> None:
    from tcab.errors import RuntimeSettingsError
    from tcab.runtime import get_runtime

    monkeypatch.setenv("POD_IP", "192.0.2.7")  # TEST-NET-1: never an address of this host; nothing is sent
    rt = get_runtime("kubernetes", kubeconfig=str(kube_standin.kubeconfig))
    with pytest.raises(RuntimeSettingsError, match=r"cannot listen on 192\.0\.2\.7: .*POD_IP"):
        execute_run(settings, toy_case, toy_case.variant(None), scripted("echo never"),
                    RunOptions(runtime=rt, watch=Watch()))
    assert kube_standin.pods() == [] and not settings.runs_dir.exists()
