"""A watched run, for real: the toy type's watch_setup writes the live
endpoint into the staged workspace, the session (python3 in the run image)
sends frames to host.docker.internal, and they reach the listener on the run
network's gateway through the firewall's preview hook, which is open only
while the run lives. An unwatched run has no host mapping; a type that
cannot be watched is refused before anything starts."""

from __future__ import annotations

import subprocess
import uuid

import pytest

from tcab.catalog import load_version
from tcab.errors import InputError
from tcab.runs import RunOptions, execute_run
from tcab.watch import Watch
from tcab.watch.firewall import CHAIN, rules
from tests.support.paths import CATALOG_FIXTURES
from tests.support.toy_type import ENTRY
from tests.watch.sender import script

TOY = CATALOG_FIXTURES / "toy" / "toy" / "easy" / "tally-word" / "v1.0.0"


@pytest.fixture
def toy_case(monkeypatch):
    monkeypatch.setenv("TCAB_TEST_TYPES", ENTRY)
    case, problems = load_version(TOY)
    assert case is not None, problems
    return case


def _ours() -> list[str]:
    return [r for r in rules() if "tcab-preview" in r]


@pytest.mark.timeout(300)
def test_a_watched_runs_frames_reach_the_listener(settings, toy_case, scripted, podman_runtime) -> None:
    watch = Watch()
    seen: dict[str, list[str]] = {"rules": [], "hosts": []}

    def on_event(event: dict) -> None:
        if event["kind"] == "message" and event["text"].startswith("frame 0"):
            seen["rules"] = _ours()  # while the run lives

    harness = scripted("getent hosts host.docker.internal; " + script([0, 1, 0]))
    record = execute_run(settings, toy_case, toy_case.variant(None), harness,
                         RunOptions(runtime=podman_runtime, watch=watch, on_event=on_event))
    assert record.status == "completed", record.status_detail
    raw = (record.run_dir / "raw.jsonl").read_text()
    gateway = podman_runtime.preview_address()
    assert f"{gateway}" in raw and "host.docker.internal" in raw
    assert raw.count(" sent") >= 4, raw  # three frames and the forged one were all delivered
    state = watch.board.state()
    assert state["accepted"] == 3 and state["dropped"] == {"wrong token": 1}, state
    assert [(f["frame"], f["count"], f["op"], f["width"]) for f in state["frames"]] == [
        (0, 3, "fill-rect", 4), (1, 2, "fill-rect", 4)]
    assert state["runs"] == [record.id]
    # One ACCEPT for the listener's address and port while the run lived; none after.
    [rule] = seen["rules"]
    assert f"-d {gateway}/32" in rule and "--dport" in rule and rule.endswith("-j ACCEPT")
    assert _ours() == []
    # The live block went into the run's staged copy, not into the seed store.
    assert (record.run_dir / "work" / ".tcab" / "live.json").exists()


@pytest.mark.timeout(300)
def test_an_unwatched_run_has_no_host_mapping(settings, toy_case, scripted, podman_runtime) -> None:
    record = execute_run(settings, toy_case, toy_case.variant(None), scripted("cat /etc/hosts; ls -a .tcab || true"),
                         RunOptions(runtime=podman_runtime))
    assert record.status == "completed", record.status_detail
    raw = (record.run_dir / "raw.jsonl").read_text()
    assert "host.docker.internal" not in raw and "localhost" in raw  # /etc/hosts was printed
    assert not (record.run_dir / "work" / ".tcab").exists()


def test_a_type_that_cannot_be_watched_is_refused_before_anything(settings, e2e_case, scripted,
                                                                  podman_runtime) -> None:
    run_id = f"refused-watch-{uuid.uuid4().hex[:8]}"
    with pytest.raises(InputError, match=r"^a end-to-end run cannot be watched \(lights-out@v1.0.0\)"):
        execute_run(settings, e2e_case, e2e_case.variant(None), scripted("echo never"),
                    RunOptions(runtime=podman_runtime, watch=Watch(), run_id=run_id))
    assert not (settings.runs_dir / run_id).exists()
    assert podman_runtime.list_run_containers(run_id) == []
    assert not (settings.tmp_dir / "run-seeds" / run_id).exists()
    assert _ours() == []


def test_the_listener_binds_the_gateway_only(podman_runtime) -> None:
    import socket

    watch = Watch()
    gateway = podman_runtime.preview_address()
    run = watch.listener(gateway, "bind-check")
    with run.serving():
        host, port = run.address
        assert host == gateway
        listening = subprocess.run(["ss", "-Hltn", f"sport = :{port}"], capture_output=True, text=True).stdout
        assert [line.split()[3] for line in listening.splitlines()] == [f"{gateway}:{port}"]  # no other address
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", port), timeout=2)
        assert len(_ours()) == 1
    assert _ours() == []


def test_a_rule_left_by_a_killed_tcab_is_removed(podman_runtime) -> None:
    """A rule whose owner process is gone (tcab was SIGKILLed) goes at the next
    watch or `tcab cleanup`; a rule of a live owner stays."""
    from tcab.watch import remove_stale_rules

    gateway = podman_runtime.preview_address()
    dead = subprocess.Popen(["true"])
    dead.wait()
    spec = ["-d", gateway, "-p", "tcp", "--dport", "1", "-m", "comment", "--comment",
            f"tcab-preview pid={dead.pid} start=1", "-j", "ACCEPT"]
    subprocess.run(["iptables", "-w", "-A", CHAIN, *spec], check=True)
    try:
        assert len(_ours()) == 1
        assert remove_stale_rules() == 1 and _ours() == []
        assert remove_stale_rules() == 0  # idempotent
    finally:
        subprocess.run(["iptables", "-w", "-D", CHAIN, *spec], capture_output=True)


@pytest.mark.timeout(300)
def test_a_sweeps_seed_is_staged_not_written_to(settings, toy_case, scripted, podman_runtime, tmp_path) -> None:
    """A sweep hands the run its seed task's repository (a doit target): the
    live block goes into a staged copy, which is removed after the run."""
    from tcab.runs import SeededRepo
    from tcab.seeding.cache import seed_from_cache, store_dir

    made = seed_from_cache(store_dir(settings.build_dir), toy_case, toy_case.variant(None), tmp_path / "seed")
    before = sorted(p.relative_to(made.path) for p in made.path.rglob("*"))
    given = SeededRepo(made.path, made.commit, "the prompt", "d" * 64)
    record = execute_run(settings, toy_case, toy_case.variant(None), scripted("cat .tcab/live.json"),
                         RunOptions(runtime=podman_runtime, watch=Watch(), seed=given))
    assert record.status == "completed", record.status_detail
    assert "host.docker.internal:" in (record.run_dir / "raw.jsonl").read_text()
    assert sorted(p.relative_to(made.path) for p in made.path.rglob("*")) == before
    assert not (settings.tmp_dir / "run-seeds" / f"{record.id}-watched").exists()


@pytest.mark.timeout(300)
def test_only_the_runs_own_container_is_heard(podman_runtime, base_image) -> None:
    """Another container of the run network that reaches the gateway (and even
    knows the token) is reset at accept: the listener takes its run's peer only."""
    from tcab.runtime import ContainerSpec, ExecOptions

    watch = Watch()
    run = watch.listener(podman_runtime.preview_address(), "peer-check")
    run.expect_peer()
    ours = podman_runtime.start(ContainerSpec(image=base_image, run_id="watch-peer-ours", host_gateway=True))
    other = podman_runtime.start(ContainerSpec(image=base_image, run_id="watch-peer-other", host_gateway=True))
    try:
        with run.serving():
            run.allow_peer(podman_runtime.container_address(ours))
            live = f'{{"url": "{run.live.url}", "token": "{run.live.token}"}}'
            for cid in (ours, other):
                sent = podman_runtime.exec(cid, ["sh", "-c", f"mkdir -p .tcab && echo '{live}' > .tcab/live.json && "
                                                 + script([7]).split("; ", 1)[1]], ExecOptions(timeout_s=60))
                assert sent.ok, sent.output
        state = watch.board.state()
        assert state["accepted"] == 1 and [f["frame"] for f in state["frames"]] == [7]
        assert state["dropped"] == {"wrong token": 1, "wrong peer": 2}, state  # ours' forged one; other's two
    finally:
        for cid in (ours, other):
            podman_runtime.remove(cid)


@pytest.mark.timeout(300)
def test_a_canceled_watched_run_closes_its_hole(settings, toy_case, scripted, podman_runtime) -> None:
    import threading

    cancel = threading.Event()
    seen: list[list[str]] = []

    def on_event(event: dict) -> None:
        if event["kind"] == "message" and event["text"] == "drawing":
            seen.append(_ours())
            cancel.set()

    record = execute_run(settings, toy_case, toy_case.variant(None), scripted("echo drawing; sleep 120"),
                         RunOptions(runtime=podman_runtime, watch=Watch(), on_event=on_event, cancel=cancel))
    assert record.status == "canceled", record.status_detail
    assert len(seen) == 1 and len(seen[0]) == 1  # open while it ran
    assert _ours() == []  # and closed with it
