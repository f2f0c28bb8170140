"""The docker backend against the real Podman: what "a backend works" means.

Every test runs in a real container and the ``container`` fixture checks
that none is left afterwards.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from tcab.errors import ImageNotFound, RuntimeBackendError
from tcab.runtime import RUN_LABEL, CollectLimits, ContainerSpec, ExecEnd, ExecOptions, get_runtime
from tests.conftest import BASE_IMAGE


def _ps(rt, cid) -> str:
    return rt.exec(cid, ["ps", "-eo", "user,stat,args"], ExecOptions(user="root")).stdout


def test_unknown_backend_lists_the_known_ones() -> None:
    with pytest.raises(RuntimeBackendError, match="known: docker"):
        get_runtime("nope")


def test_exec_streams_lines_and_reports_exit_code(podman_runtime, container) -> None:
    seen: list[tuple[str, str]] = []
    res = podman_runtime.exec(container, ["sh", "-c", "id -un; pwd; echo oops >&2; printf 'no-newline'; exit 7"],
                              ExecOptions(on_output=lambda s, line, t: seen.append((s, line))))
    assert res.end is ExecEnd.EXITED and res.exit_code == 7 and not res.ok
    assert ("stdout", "tcab") in seen and ("stdout", "/work") in seen
    assert ("stderr", "oops") in seen and ("stdout", "no-newline") in seen
    assert "oops" in res.stderr
    root = podman_runtime.exec(container, ["id", "-u"], ExecOptions(user="root", env={"X": "1"}))
    assert root.ok and root.stdout.strip() == "0"


def test_run_user_environment(podman_runtime, container) -> None:
    res = podman_runtime.exec(container, ["sh", "-c", "echo $PATH; npm config get prefix; stat -c %U /work"])
    path, prefix, owner = res.stdout.split()
    assert path.startswith("/home/tcab/.npm-global/bin:/home/tcab/.local/bin:")
    assert prefix == "/home/tcab/.npm-global" and owner == "tcab"


def test_timeout_kills_the_whole_process_tree_and_keeps_output(podman_runtime, container) -> None:
    script = "echo before; (sleep 300; echo never) & sleep 301"
    t0 = time.monotonic()
    res = podman_runtime.exec(container, ["sh", "-c", script], ExecOptions(timeout_s=1.0))
    assert time.monotonic() - t0 < 10
    assert res.end is ExecEnd.TIMED_OUT and "before" in res.stdout
    assert "sleep 30" not in _ps(podman_runtime, container)


def test_idle_window_counts_only_output(podman_runtime, container) -> None:
    script = "for i in 1 2 3 4; do echo tick $i; sleep 0.4; done; sleep 300"
    res = podman_runtime.exec(container, ["sh", "-c", script], ExecOptions(idle_timeout_s=1.2))
    # Ticks every 0.4 s kept it alive; the silence afterwards ended it.
    assert res.end is ExecEnd.IDLE and "tick 4" in res.stdout
    assert res.duration_s >= 1.6 + 1.2 - 0.3
    assert "sleep 300" not in _ps(podman_runtime, container)


def test_cancel_kills_the_command(podman_runtime, container) -> None:
    flag = threading.Event()
    threading.Timer(0.5, flag.set).start()
    res = podman_runtime.exec(container, ["sh", "-c", "echo go; sleep 300"], ExecOptions(cancel=flag.is_set))
    assert res.end is ExecEnd.CANCELED and "go" in res.stdout
    assert "sleep 300" not in _ps(podman_runtime, container)


def test_copy_in_and_out_round_trip(podman_runtime, container, tmp_path: Path) -> None:
    src = tmp_path / "src"
    (src / "dir").mkdir(parents=True)
    (src / "dir" / "a.txt").write_text("alpha\n")
    (src / "run.sh").write_text("#!/bin/sh\necho hi\n")
    (src / "run.sh").chmod(0o755)
    os.symlink("dir/a.txt", src / "link")
    podman_runtime.copy_in(container, src)
    res = podman_runtime.exec(container, ["sh", "-c", "stat -c '%U %n' dir/a.txt; ./run.sh; cat link; "
                                          "echo new > dir/b.txt; ln dir/b.txt dir/b-hard"])
    assert res.ok, res.output
    assert "tcab dir/a.txt" in res.stdout and "hi" in res.stdout and "alpha" in res.stdout
    report = podman_runtime.copy_out(container, "/work", tmp_path / "out")
    out = tmp_path / "out"
    assert report.refused == ()
    assert (out / "dir/b.txt").read_text() == "new\n" and (out / "dir/b-hard").read_text() == "new\n"
    assert os.readlink(out / "link") == "dir/a.txt"
    assert os.access(out / "run.sh", os.X_OK)
    single = podman_runtime.copy_out(container, "/work/dir/b.txt", tmp_path / "one")
    assert single.files == 1 and (tmp_path / "one" / "b.txt").read_text() == "new\n"


def test_hostile_tree_from_a_real_container(podman_runtime, container, tmp_path: Path) -> None:
    # No device file here: containers lack CAP_MKNOD, even as root (the
    # crafted-tar tests in test_runtime_collect.py cover devices).
    setup = "ln -s /etc/passwd passwd && ln -s ../../../etc/shadow up && mkfifo pipe && echo fine > fine.txt"
    assert podman_runtime.exec(container, ["sh", "-c", setup]).ok
    report = podman_runtime.copy_out(container, "/work", tmp_path / "out")
    reasons = {r.path: r.reason for r in report.refused}
    assert set(reasons) == {"passwd", "up", "pipe"}
    assert "outside" in reasons["passwd"] and reasons["pipe"] == "FIFO refused"
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["fine.txt"]


def test_size_cap_from_a_real_container(podman_runtime, container, tmp_path: Path) -> None:
    assert podman_runtime.exec(container, ["sh", "-c", "head -c 300000 /dev/zero > big.bin"]).ok
    report = podman_runtime.copy_out(container, "/work", tmp_path / "out", CollectLimits(max_bytes=100_000))
    assert report.truncated and not any((tmp_path / "out").iterdir())


def test_backend_failures_raise_instead_of_returning_results(podman_runtime, tmp_path: Path) -> None:
    with pytest.raises(ImageNotFound, match="make images"):
        podman_runtime.ensure_image("localhost/tcab/does-not-exist:never")
    cid = podman_runtime.start(ContainerSpec(image=BASE_IMAGE, run_id="test-gone"))
    podman_runtime.remove(cid)
    podman_runtime.remove(cid)  # removing twice is fine
    with pytest.raises(RuntimeBackendError):
        podman_runtime.exec(cid, ["true"])
    with pytest.raises(RuntimeBackendError):
        podman_runtime.copy_out(cid, "/work", tmp_path / "out")
    with pytest.raises(RuntimeBackendError, match="connect|ping|Connection|No such file"):
        dead = get_runtime("docker", base_url="unix:///nonexistent/podman.sock")
        dead.ensure_image(BASE_IMAGE)


def test_labels_and_host_gateway(podman_runtime) -> None:
    plain = podman_runtime.start(ContainerSpec(image=BASE_IMAGE, run_id="test-label-a"))
    watched = podman_runtime.start(ContainerSpec(image=BASE_IMAGE, run_id="test-label-b", host_gateway=True))
    try:
        assert podman_runtime.list_run_containers("test-label-a") == [plain]
        assert {plain, watched} <= set(podman_runtime.list_run_containers())
        labels = podman_runtime.api.inspect_container(plain)["Config"]["Labels"]
        assert labels[RUN_LABEL] == "test-label-a"
        hosts = podman_runtime.exec(watched, ["cat", "/etc/hosts"]).stdout
        assert "host.docker.internal" in hosts and "host-gateway" not in hosts
        assert "host.docker.internal" not in podman_runtime.exec(plain, ["cat", "/etc/hosts"]).stdout
    finally:
        podman_runtime.remove(plain)
        podman_runtime.remove(watched)
    assert podman_runtime.list_run_containers("test-label-a") == []


def test_ensure_image_records_a_digest(podman_runtime) -> None:
    info = podman_runtime.ensure_image(BASE_IMAGE)
    assert info.id.startswith("sha256:") and "sha256:" in info.digest and not info.pulled
