"""Renders are the same bytes on another machine: the voxel run image (Debian's
numpy and zlib, not the host's) renders this checkout's library to the same
pixels, PNGs, .glb files and posed scenes as the host."""

import json
import os
import subprocess
import sys

import pytest

from tests.voxel.support import REPO

IMAGE = "ghcr.io/theclockwyrks/test-cabinet-voxel:latest"
SCRIPT = ("mkdir -p /tmp/x/tcab && cp -r /opt/t/tcab/voxel /opt/t/tcab/gltf /tmp/x/tcab/ "
          "&& touch /tmp/x/tcab/__init__.py && PYTHONPATH=/tmp/x python3 /opt/t/probe.py")


@pytest.mark.podman
@pytest.mark.timeout(600)
def test_the_run_image_renders_the_same_bytes(podman_runtime):
    import docker
    client = docker.DockerClient(base_url=os.environ.get("DOCKER_HOST", "unix:///run/tcab/podman.sock"))
    try:
        client.images.get(IMAGE)
    except docker.errors.ImageNotFound:
        pytest.fail(f"{IMAGE} is missing; run `make images`", pytrace=False)
    mounts = [docker.types.Mount(f"/opt/t/tcab/{name}", str(REPO / "tcab" / name), type="bind", read_only=True)
              for name in ("voxel", "gltf")]
    mounts.append(docker.types.Mount("/opt/t/probe.py", str(REPO / "tests/voxel/probe.py"), type="bind",
                                     read_only=True))
    out = client.containers.run(IMAGE, ["sh", "-c", SCRIPT], mounts=mounts, remove=True, network_disabled=True,
                                environment={"PYTHONDONTWRITEBYTECODE": "1"})
    there = json.loads(out.decode().strip().splitlines()[-1])
    here = json.loads(subprocess.run([sys.executable, str(REPO / "tests/voxel/probe.py")], capture_output=True,
                                     text=True, check=True, timeout=120,
                                     env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}).stdout)
    assert there == here
