"""Docker-backend specifics against the real Podman: labels, host gateway,
an unreachable socket, a container stopped or removed from outside."""

from __future__ import annotations

import threading

import pytest

from tcab.errors import RuntimeBackendError
from tcab.runtime import RUN_LABEL, ContainerSpec, ExecOptions, get_runtime


def test_unreachable_socket_raises(base_image) -> None:
    with pytest.raises(RuntimeBackendError):
        get_runtime("docker", base_url="unix:///nonexistent/podman.sock").ensure_image(base_image)


def test_labels_and_host_gateway(podman_runtime, base_image) -> None:
    plain = podman_runtime.start(ContainerSpec(image=base_image, run_id="test-label-a"))
    watched = podman_runtime.start(ContainerSpec(image=base_image, run_id="test-label-b", host_gateway=True))
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


def test_a_container_stopped_from_outside_is_a_backend_failure(podman_runtime, base_image) -> None:
    for attack, cause in (("kill", "stopped while the command ran .*exit code 137"), ("remove", "was removed|stopped while the command ran")):
        cid = podman_runtime.start(ContainerSpec(image=base_image, run_id="test-stopped-outside"))
        act = (lambda c=cid: podman_runtime.api.kill(c)) if attack == "kill" else (
            lambda c=cid: podman_runtime.api.remove_container(c, force=True))
        threading.Timer(1.0, act).start()
        try:
            with pytest.raises(RuntimeBackendError, match=cause):
                podman_runtime.exec(cid, ["sh", "-c", "sleep 300"], ExecOptions(timeout_s=60))
        finally:
            podman_runtime.remove(cid)
    assert podman_runtime.list_run_containers("test-stopped-outside") == []
