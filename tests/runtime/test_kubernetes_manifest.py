"""The pod manifest the kubernetes backend generates: its fields, the
official schema (strict), ``podman kube play``, and the shipped RBAC."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

import pytest
import yaml

from tcab.errors import RuntimeBackendError, RuntimeSettingsError
from tcab.runtime import RUN_LABEL, ContainerSpec
from tcab.runtime.kubernetes.config import DEADLINE_MARGIN_S, KubeSettings
from tcab.runtime.kubernetes.pods import pod_manifest, run_label
from tests.kube_standin.validation import pod_problems

REPO = Path(__file__).resolve().parents[2]
IMAGE = "ghcr.io/theclockwyrks/test-cabinet-base-wasm:latest"


def _variants() -> dict[str, dict]:
    plain = KubeSettings()
    full = KubeSettings.from_options({"cpu": "1500m", "memory": "2Gi", "node_selector": "pool=runs,disk=ssd",
                                      "image_pull_secret": "regcred", "max_runtime_s": "7200",
                                      "preview_host": "10.1.2.3"}, env={})
    return {
        "plain": pod_manifest(ContainerSpec(image=IMAGE, run_id="20261130-lights-out-classic-x-1a2b3c"), plain, "tcab-plain-1"),
        "full": pod_manifest(ContainerSpec(image=IMAGE, run_id="r" * 90, host_gateway=True, memory_bytes=1 << 30,
                                           labels={"org.tcab.purpose": "build"}, env={"LANG": "C.UTF-8"}), full, "tcab-full-1"),
    }


def test_manifest_fields() -> None:
    pods = _variants()
    spec = pods["plain"]["spec"]
    c = spec["containers"][0]
    assert spec["restartPolicy"] == "Never" and spec["automountServiceAccountToken"] is False
    assert spec["securityContext"]["runAsUser"] == 1000 and spec["securityContext"]["runAsNonRoot"] is True
    assert c["securityContext"]["allowPrivilegeEscalation"] is False and c["imagePullPolicy"] == "IfNotPresent"
    assert "hostAliases" not in spec and "nodeSelector" not in spec and c["resources"] == {}
    assert spec["activeDeadlineSeconds"] == int(24 * 3600 + DEADLINE_MARGIN_S)
    assert pods["plain"]["metadata"]["labels"] == {RUN_LABEL: "20261130-lights-out-classic-x-1a2b3c",
                                                   "org.tcab.network": "run"}
    full = pods["full"]["spec"]
    assert full["activeDeadlineSeconds"] == int(7200 + DEADLINE_MARGIN_S)
    assert full["hostAliases"] == [{"ip": "10.1.2.3", "hostnames": ["host.docker.internal"]}]
    assert full["nodeSelector"] == {"pool": "runs", "disk": "ssd"}
    assert full["imagePullSecrets"] == [{"name": "regcred"}]
    # The plan's memory wins over the caller's; cpu is requested and capped alike.
    assert full["containers"][0]["resources"] == {"requests": {"cpu": "1500m", "memory": "2Gi"},
                                                  "limits": {"cpu": "1500m", "memory": "2Gi"}}
    assert pods["full"]["metadata"]["labels"]["org.tcab.purpose"] == "build"
    with pytest.raises(RuntimeBackendError, match="not a valid Kubernetes label"):
        pod_manifest(ContainerSpec(image=IMAGE, run_id="x", labels={"k": "a b"}), KubeSettings(), "tcab-x")
    label = pods["full"]["metadata"]["labels"][RUN_LABEL]
    assert len(label) <= 63 and label == run_label("r" * 90) and label != run_label("r" * 91)


def test_an_offline_container_is_refused_not_given_the_run_network() -> None:
    # A Blender provenance rebuild runs build.py with no network at all; the run
    # pods' NetworkPolicy allows the internet, so the backend refuses rather
    # than silently give the rebuild a network.
    with pytest.raises(RuntimeBackendError, match="offline"):
        pod_manifest(ContainerSpec(image=IMAGE, run_id="x", offline=True), KubeSettings(), "tcab-x")


def test_preview_without_an_address_is_refused() -> None:
    with pytest.raises(RuntimeSettingsError, match="POD_IP"):
        pod_manifest(ContainerSpec(image=IMAGE, run_id="x", host_gateway=True), KubeSettings(), "tcab-x")


def test_every_manifest_passes_the_official_schema_strictly() -> None:
    for name, pod in _variants().items():
        assert pod_problems(pod, "tcab") == [], name
    bad = _variants()["plain"]
    bad["spec"]["containers"][0]["runAsUser"] = 1000  # belongs in securityContext
    assert "runAsUser" in pod_problems(bad, "tcab")[0]


@pytest.mark.timeout(400)
@pytest.mark.parametrize("variant", ["plain", "full"])
def test_podman_kube_play_runs_the_manifest(variant: str, tmp_path: Path, podman_runtime) -> None:
    pod = _variants()[variant]
    # kube play has no node or registry: drop what only a cluster resolves.
    pod["spec"].pop("nodeSelector", None)
    pod["spec"].pop("imagePullSecrets", None)
    path = tmp_path / "pod.yaml"
    path.write_text(yaml.safe_dump(pod))
    name = pod["metadata"]["name"]
    play = subprocess.run(["podman", "kube", "play", str(path)], capture_output=True, text=True, timeout=300)
    try:
        assert play.returncode == 0, play.stderr
        state = json.loads(subprocess.run(["podman", "pod", "inspect", name], capture_output=True, text=True,
                                          check=True).stdout)
        state = state[0] if isinstance(state, list) else state
        assert state["State"] == "Running"
        who = subprocess.run(["podman", "exec", f"{name}-run", "id", "-u"], capture_output=True, text=True)
        assert who.stdout.strip() == "1000", who.stderr
    finally:
        down = subprocess.run(["podman", "kube", "play", "--down", str(path)], capture_output=True, text=True, timeout=120)
    assert down.returncode == 0, down.stderr
    time.sleep(0.2)
    assert subprocess.run(["podman", "pod", "exists", name]).returncode == 1


def test_rbac_manifest_is_valid_and_grants_exactly_what_the_backend_calls() -> None:
    from kubernetes_validate import validate

    docs = [d for d in yaml.safe_load_all((REPO / "containers/kubernetes/rbac.yaml").read_text()) if d]
    for doc in docs:
        validate(doc, "1.31", strict=True)
    kinds = {d["kind"] for d in docs}
    assert {"ServiceAccount", "Role", "RoleBinding"} <= kinds
    role = next(d for d in docs if d["kind"] == "Role")
    grants = {(r, v) for rule in role["rules"] for r in rule["resources"] for v in rule["verbs"]}
    assert grants == {("pods", "create"), ("pods", "get"), ("pods", "list"), ("pods", "delete"),
                      ("pods/exec", "create"), ("pods/exec", "get")}
    binding = next(d for d in docs if d["kind"] == "RoleBinding")
    assert binding["roleRef"]["name"] == role["metadata"]["name"]


def test_network_policy_is_valid_and_selects_every_run_pod() -> None:
    from kubernetes_validate import validate

    from tcab.runtime.kubernetes.pods import NETWORK_LABEL

    policy = yaml.safe_load((REPO / "containers/kubernetes/networkpolicy.yaml").read_text())
    validate(policy, "1.31", strict=True)
    assert policy["kind"] == "NetworkPolicy" and set(policy["spec"]["policyTypes"]) == {"Ingress", "Egress"}
    assert policy["spec"]["podSelector"]["matchLabels"] == dict([NETWORK_LABEL])
    blocks = [to["ipBlock"] for rule in policy["spec"]["egress"] for to in rule["to"] if "ipBlock" in to]
    v4 = next(b for b in blocks if b["cidr"] == "0.0.0.0/0")
    # The node, pod and service ranges of nearly every cluster, and the metadata endpoint.
    assert {"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "169.254.0.0/16"} <= set(v4["except"])
    for body in _variants().values():
        labels = body["metadata"]["labels"]
        assert labels[NETWORK_LABEL[0]] == NETWORK_LABEL[1]
