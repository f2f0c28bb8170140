"""The stand-in's one node: pods as real Podman containers through docker-py.

A pod goes Pending → (scheduled) → image present or pulled → container
created and started → Running, as a kubelet would report it; each step
that fails leaves the status a real cluster shows (``Unschedulable``,
``ErrImagePull`` then ``ImagePullBackOff``, ``ErrImageNeverPull``,
``DeadlineExceeded``). All docker-py calls are blocking: the server runs
them in its thread pool.
"""

from __future__ import annotations

import datetime
import os
import re
import threading
import time
import uuid
from pathlib import Path

import docker
import docker.errors
import yaml

SOCKET = os.environ.get("DOCKER_HOST") or "unix:///run/tcab/podman.sock"
NODE = "tcab-standin"
NODE_LABELS = {"kubernetes.io/hostname": NODE, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64"}
#: The label the stand-in puts on its containers (so its own cleanup finds them).
STANDIN_LABEL = "org.tcab.kube-standin"
#: Its value: this process's stand-in, so stopping one never removes the pods of
#: another running on the same Podman (a benchmark, a second test session).
INSTANCE = uuid.uuid4().hex
#: The NetworkPolicy a cluster applies to run pods; the stand-in enforces it
#: by starting the pods it selects on the firewalled run network.
POLICY = Path(__file__).resolve().parents[2] / "containers" / "kubernetes" / "networkpolicy.yaml"
RUN_NETWORK = os.environ.get("TCAB_RUN_NETWORK") or "tcab-run"
_SUFFIX = {"m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}
_local = threading.local()


def api() -> docker.APIClient:
    """A docker-py client per thread (the pool's threads share none)."""
    client = getattr(_local, "api", None)
    if client is None:
        client = _local.api = docker.APIClient(base_url=SOCKET, version="auto", timeout=120)
    return client


def now() -> str:
    return datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def quantity(text: str) -> float:
    match = re.fullmatch(r"([0-9.]+)([A-Za-z]*)", str(text))
    if not match:
        raise ValueError(text)
    return float(match.group(1)) * _SUFFIX.get(match.group(2), 1)


def capacity() -> dict[str, float]:
    with open("/proc/meminfo") as fh:
        mem_kib = int(next(line for line in fh if line.startswith("MemTotal")).split()[1])
    return {"cpu": float(os.cpu_count() or 1), "memory": mem_kib * 1024.0}


def unschedulable_reason(pod: dict) -> str | None:
    """Why no node fits ``pod`` (the scheduler's message), or None."""
    spec = pod["spec"]
    for key, value in (spec.get("nodeSelector") or {}).items():
        if NODE_LABELS.get(key) != value:
            return "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector."
    cap = capacity()
    for container in spec["containers"]:
        for resource, amount in ((container.get("resources") or {}).get("requests") or {}).items():
            if resource in cap and quantity(amount) > cap[resource]:
                return f"0/1 nodes are available: 1 Insufficient {resource}."
    return None


def find_image(ref: str) -> dict | None:
    try:
        return api().inspect_image(ref)
    except docker.errors.ImageNotFound:
        return None


def pull(ref: str) -> str | None:
    """Pull ``ref``; None when it worked, else the error as a kubelet says it."""
    try:
        api().pull(ref)
        api().inspect_image(ref)
        return None
    except docker.errors.APIError as exc:
        return f'failed to pull and unpack image "{ref}": {exc.explanation or exc}'
    except Exception as exc:  # noqa: BLE001 - any failure is the pull's
        return f'failed to pull image "{ref}": {exc}'


def image_id(info: dict, ref: str) -> str:
    """What a kubelet reports as ``imageID``: ``repo@sha256:...`` when known."""
    digests = info.get("RepoDigests") or []
    return digests[0] if digests else f"{ref.split(':')[0]}@{info['Id'] if info['Id'].startswith('sha256:') else 'sha256:' + info['Id']}"


def network_for(pod: dict) -> str | None:
    """The Podman network of ``pod``: the run network when the shipped
    NetworkPolicy selects it (its ``podSelector.matchLabels``), else the default."""
    policy = yaml.safe_load(POLICY.read_text(encoding="utf-8"))
    wanted = policy["spec"]["podSelector"].get("matchLabels") or {}
    labels = pod["metadata"].get("labels") or {}
    if all(labels.get(k) == v for k, v in wanted.items()):
        return RUN_NETWORK
    return None


def run_container(pod: dict) -> tuple[str, str]:
    """Create and start the pod's container; return (container id, pod IP)."""
    spec = pod["spec"]
    c = spec["containers"][0]
    sec = {**(spec.get("securityContext") or {}), **(c.get("securityContext") or {})}
    user = None
    if sec.get("runAsUser") is not None:
        user = f"{sec['runAsUser']}:{sec.get('runAsGroup', sec['runAsUser'])}"
    limits = (c.get("resources") or {}).get("limits") or {}
    extra_hosts = {h: a["ip"] for a in spec.get("hostAliases") or [] for h in a.get("hostnames") or []}
    caps = (c.get("securityContext") or {}).get("capabilities") or {}
    host_config = api().create_host_config(
        init=bool(spec.get("shareProcessNamespace")),
        mem_limit=int(quantity(limits["memory"])) if "memory" in limits else None,
        nano_cpus=int(quantity(limits["cpu"]) * 1e9) if "cpu" in limits else None,
        extra_hosts=extra_hosts or None,
        security_opt=["no-new-privileges"] if sec.get("allowPrivilegeEscalation") is False else None,
        cap_drop=caps.get("drop") or None,
        network_mode=network_for(pod),
    )
    meta = pod["metadata"]
    created = api().create_container(
        c["image"], command=[*(c.get("command") or []), *(c.get("args") or [])] or None,
        user=user, environment={e["name"]: e.get("value", "") for e in c.get("env") or []},
        working_dir=c.get("workingDir"), host_config=host_config, detach=True,
        name=f"k8s_{meta['namespace']}_{meta['name']}_{uuid.uuid4().hex[:6]}",
        labels={STANDIN_LABEL: INSTANCE, "io.kubernetes.pod.name": meta["name"],
                "io.kubernetes.pod.namespace": meta["namespace"]},
    )
    cid = created["Id"]
    try:
        api().start(cid)
        info = api().inspect_container(cid)
    except Exception:
        remove_container(cid)
        raise
    nets = (info.get("NetworkSettings") or {}).get("Networks") or {}
    ip = next((n.get("IPAddress") for n in nets.values() if n.get("IPAddress")), "10.88.0.2")
    return cid, ip


def wait_container(cid: str) -> int | None:
    """Block until the container exits; its exit code (None if it vanished)."""
    try:
        return int(api().wait(cid, timeout=None)["StatusCode"])
    except Exception:  # noqa: BLE001 - removed under us
        return None


def remove_container(cid: str, attempts: int = 3) -> None:
    """Remove a pod's container. Podman answers 500 when a killed exec
    session's process has not died within its own timeout (seen on a loaded
    machine): retried, as a kubelet retries a deletion."""
    for attempt in range(attempts):
        try:
            api().remove_container(cid, force=True, v=True)
            return
        except docker.errors.NotFound:
            return
        except docker.errors.APIError:
            if attempt == attempts - 1:
                raise
            time.sleep(2)


def leftover_containers() -> list[str]:
    return [c["Id"] for c in api().containers(all=True, filters={"label": f"{STANDIN_LABEL}={INSTANCE}"})]
