"""build_in_container against real Podman: the steps, what can be taken out,
and the container removed on every way out of the ``with`` block."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from tcab.errors import RuntimeBackendError
from tcab.runtime import BuildLimits, CollectLimits, ExecEnd, build_in_container

pytestmark = pytest.mark.podman


@pytest.fixture
def image(podman_runtime, base_image):
    return podman_runtime.ensure_image(base_image, pull=False)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    (src / "sub").mkdir(parents=True)
    (src / "input.txt").write_text("hello\n")
    (src / "sub" / "data.bin").write_bytes(bytes(range(256)) * 64)
    return src


def _gone(rt, name: str) -> bool:
    return rt.list_run_containers(name) == []


def test_steps_run_and_results_come_out_while_open(podman_runtime, image, tree, tmp_path) -> None:
    name = "test-build-ok"
    steps = [("install", "mkdir -p out && cp input.txt out/a.txt"), ("skipped", ""),
             ("build", "cat sub/data.bin > module.bin; echo built")]
    with build_in_container(podman_runtime, image, tree, steps, name=name) as box:
        assert not _gone(podman_runtime, name)  # open for the copy-out
        assert box.ok and box.failure is None and [s.name for s in box.steps] == ["install", "build"]
        assert all(s.result.end is ExecEnd.EXITED for s in box.steps)
        assert box.read_file("module.bin", 1 << 20) == bytes(range(256)) * 64
        assert box.read_file("module.bin", 100) is None  # over the cap: not read
        assert box.read_file("nope.bin", 1 << 20) is None and box.read_file("out", 1 << 20) is None
        assert box.is_dir("out") and not box.is_dir("module.bin") and not box.is_dir("missing")
        report = box.copy_out("out", tmp_path / "copied", CollectLimits())
        box.note("a note of the caller's")
    assert _gone(podman_runtime, name)
    assert report.files == 1 and (tmp_path / "copied" / "a.txt").read_text() == "hello\n"
    assert box.log.splitlines()[:3] == ["$ mkdir -p out && cp input.txt out/a.txt", "",
                                        "$ cat sub/data.bin > module.bin; echo built"]
    assert "built" in box.log and box.log.endswith("a note of the caller's")
    assert box.image == image


def test_a_failing_command_stops_the_build_and_is_data(podman_runtime, image, tree) -> None:
    name = "test-build-fails"
    steps = [("install", "echo installing; exit 3"), ("build", "touch never")]
    with build_in_container(podman_runtime, image, tree, steps, name=name,
                            limits=BuildLimits(log_tail=40)) as box:
        assert not box.ok and box.failure.name == "install" and len(box.steps) == 1
        assert box.failure.why == "exit code 3" and not box.failure.killed
        assert box.read_file("never", 100) is None
    assert _gone(podman_runtime, name)
    assert len(box.log) <= 40 and box.log.endswith("exit code 3")


def test_a_command_over_its_limit_is_killed(podman_runtime, image, tree) -> None:
    name = "test-build-slow"
    with build_in_container(podman_runtime, image, tree, [("build", "sleep 60")], name=name,
                            limits=BuildLimits(timeout_s=2)) as box:
        assert box.failure.killed and box.failure.result.end in (ExecEnd.TIMED_OUT, ExecEnd.IDLE)
        assert box.failure.why.endswith("(limit 2s)")
    assert _gone(podman_runtime, name)


def test_an_exception_inside_the_block_still_removes_the_container(podman_runtime, image, tree) -> None:
    name = "test-build-raises"
    with pytest.raises(KeyError, match="caller's bug"):
        with build_in_container(podman_runtime, image, tree, [("build", "true")], name=name):
            assert not _gone(podman_runtime, name)
            raise KeyError("caller's bug")
    assert _gone(podman_runtime, name)


def test_a_failed_copy_in_still_removes_the_container(podman_runtime, image, tmp_path) -> None:
    name = "test-build-no-tree"
    with pytest.raises((RuntimeBackendError, OSError)):
        with build_in_container(podman_runtime, image, tmp_path / "missing", [("build", "true")], name=name):
            pytest.fail("the block must not run")
    assert _gone(podman_runtime, name)


class _RemoveFails:
    """The real runtime, except that removing fails (the engine went away at the end)."""

    def __init__(self, rt):
        self.rt, self.removed = rt, []

    def __getattr__(self, attr):
        return getattr(self.rt, attr)

    def remove(self, container: str) -> None:
        self.removed.append(container)
        raise RuntimeBackendError(f"docker runtime: remove (container {container[:12]}) failed: gone")


def test_the_blocks_exception_wins_over_a_failed_removal(podman_runtime, image, tree) -> None:
    name = "test-build-rm-fails"
    flaky = _RemoveFails(podman_runtime)
    try:
        with pytest.raises(KeyError) as info:
            with build_in_container(flaky, image, tree, [("build", "true")], name=name):
                raise KeyError("first")
        assert any("removing container" in note and "gone" in note for note in info.value.__notes__)
        with pytest.raises(RuntimeBackendError, match="remove"):  # no exception of its own: the removal's
            with build_in_container(flaky, image, tree, [("build", "true")], name=name):
                pass
        assert len(flaky.removed) == 2
    finally:
        for cid in podman_runtime.list_run_containers(name):
            podman_runtime.remove(cid)
    assert _gone(podman_runtime, name)


@pytest.mark.parametrize("field, value", [
    ("timeout_s", 0), ("timeout_s", -1), ("timeout_s", math.nan), ("timeout_s", math.inf), ("timeout_s", True),
    ("memory_bytes", 0), ("memory_bytes", 1.5), ("pids_limit", -5), ("log_tail", math.inf), ("log_tail", "4000"),
])
def test_limits_must_be_finite_and_positive(field: str, value) -> None:
    with pytest.raises(ValueError, match=rf"BuildLimits.{field}: expected a finite positive"):
        BuildLimits(**{field: value})
    assert BuildLimits().timeout_s == 600 and BuildLimits(timeout_s=0.5).timeout_s == 0.5


def test_a_build_container_reaches_no_host_address(podman_runtime, image, tree) -> None:
    from tests.runtime.host_listener import HostListener, connect_script, host_addresses

    addresses = host_addresses(podman_runtime.api)
    listener = HostListener()
    try:
        steps = [("build", connect_script(addresses, listener.port) + " > probe.txt")]
        with build_in_container(podman_runtime, image, tree, steps, name="test-build-net") as box:
            probe = box.read_file("probe.txt", 1 << 16).decode()
    finally:
        listener.close()
    assert probe.count("closed ") == len(addresses) and "open" not in probe, probe
    assert listener.seen == []
