"""The stand-in's pod store: the objects the API returns and their lifecycle."""

from __future__ import annotations

import asyncio
import copy
import uuid
from dataclasses import dataclass, field

from tests.kube_standin import node


@dataclass
class Faults:
    """Faults a test turns on (the stand-in reads them at each request)."""

    #: Pods stay Pending as Unschedulable (as with no node with room).
    unschedulable: bool = False
    #: Image references whose pull fails even when present (a registry refusing).
    pull_fail: set[str] = field(default_factory=set)
    #: Close an exec stream with no status frame after this long without any
    #: frame in either direction: the kubelet's streamingConnectionIdleTimeout.
    stream_idle_timeout_s: float | None = None
    #: Verbs ("create", "get", "list", "delete", "exec") answered 403 Forbidden.
    forbidden: set[str] = field(default_factory=set)
    #: Seconds an exec request waits before its WebSocket upgrade is answered
    #: (a kubelet that accepted the connection and hangs).
    exec_stall_s: float | None = None
    #: The exec subprotocols the server speaks, in preference order.
    protocols: tuple[str, ...] = ("v5.channel.k8s.io", "v4.channel.k8s.io")


@dataclass
class Pod:
    obj: dict
    container: str | None = None
    task: asyncio.Task | None = None

    @property
    def name(self) -> str:
        return self.obj["metadata"]["name"]

    @property
    def running(self) -> bool:
        return self.obj["status"].get("phase") == "Running" and self.container is not None


class PodStore:
    """Pods by (namespace, name); every change happens on the server's loop."""

    def __init__(self, namespaces: set[str], faults: Faults):
        self.namespaces = namespaces
        self.faults = faults
        self.pods: dict[tuple[str, str], Pod] = {}
        self.created: list[dict] = []  # every accepted body, for the tests
        self.dry_runs: list[dict] = []  # every accepted dryRun=All body
        self.exec_urls: list[str] = []  # every exec request's path and query (what audit logs keep)
        self._version = 1

    def _bump(self, pod: Pod) -> None:
        self._version += 1
        pod.obj["metadata"]["resourceVersion"] = str(self._version)

    def add(self, namespace: str, body: dict) -> Pod:
        obj = copy.deepcopy(body)
        meta = obj["metadata"]
        meta.update(namespace=namespace, uid=str(uuid.uuid4()), creationTimestamp=node.now())
        meta.setdefault("labels", {})
        obj["status"] = {"phase": "Pending", "conditions": [], "qosClass": "Burstable"}
        pod = Pod(obj)
        self.pods[(namespace, meta["name"])] = pod
        self.created.append(copy.deepcopy(body))
        self._bump(pod)
        pod.task = asyncio.get_running_loop().create_task(self._lifecycle(namespace, pod))
        return pod

    def _status(self, pod: Pod, **fields) -> None:
        pod.obj["status"].update(fields)
        self._bump(pod)

    def _waiting(self, pod: Pod, reason: str, message: str) -> None:
        c = pod.obj["spec"]["containers"][0]
        self._status(pod, containerStatuses=[{
            "name": c["name"], "image": c["image"], "imageID": "", "ready": False, "restartCount": 0,
            "state": {"waiting": {"reason": reason, "message": message}}}])

    async def _lifecycle(self, namespace: str, pod: Pod) -> None:
        loop = asyncio.get_running_loop()
        spec = pod.obj["spec"]
        c = spec["containers"][0]
        await asyncio.sleep(0)
        why = "0/1 nodes are available: 1 Insufficient cpu." if self.faults.unschedulable else node.unschedulable_reason(pod.obj)
        if why:
            self._status(pod, conditions=[{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                                           "message": why, "lastTransitionTime": node.now()}])
            return
        self._status(pod, conditions=[{"type": "PodScheduled", "status": "True", "lastTransitionTime": node.now()}],
                     hostIP="127.0.0.1", startTime=node.now())
        ref, policy = c["image"], c.get("imagePullPolicy") or "IfNotPresent"
        info = await loop.run_in_executor(None, node.find_image, ref)
        failure = f'failed to pull image "{ref}": registry refused (injected)' if ref in self.faults.pull_fail else None
        if failure is None and info is None:
            if policy == "Never":
                self._waiting(pod, "ErrImageNeverPull",
                              f'Container image "{ref}" is not present with pull policy of Never')
                return
            failure = await loop.run_in_executor(None, node.pull, ref)
            if failure is None:
                info = await loop.run_in_executor(None, node.find_image, ref)
        if failure is not None:
            self._waiting(pod, "ErrImagePull", failure)
            await asyncio.sleep(1.0)
            if self.pods.get((namespace, pod.name)) is pod:
                self._waiting(pod, "ImagePullBackOff", f'Back-off pulling image "{ref}"')
            return
        try:
            cid, ip = await loop.run_in_executor(None, node.run_container, pod.obj)
        except Exception as exc:  # noqa: BLE001 - reported as the kubelet would
            self._waiting(pod, "CreateContainerError", str(exc)[:500])
            return
        if self.pods.get((namespace, pod.name)) is not pod:  # deleted while starting
            await loop.run_in_executor(None, node.remove_container, cid)
            return
        pod.container = cid
        self._status(pod, phase="Running", podIP=ip, podIPs=[{"ip": ip}], containerStatuses=[{
            "name": c["name"], "image": ref, "imageID": node.image_id(info, ref), "ready": True,
            "started": True, "restartCount": 0, "containerID": f"podman://{cid}",
            "state": {"running": {"startedAt": node.now()}}}])
        deadline = spec.get("activeDeadlineSeconds")
        waiter = loop.run_in_executor(None, node.wait_container, cid)
        try:
            code = await asyncio.wait_for(asyncio.shield(waiter), deadline) if deadline else await waiter
        except TimeoutError:
            await loop.run_in_executor(None, node.remove_container, cid)
            pod.container = None
            self._status(pod, phase="Failed", reason="DeadlineExceeded",
                         message="Pod was active on the node longer than the specified deadline")
            return
        if self.pods.get((namespace, pod.name)) is pod and code is not None:
            pod.container = None
            self._status(pod, phase="Succeeded" if code == 0 else "Failed", containerStatuses=[{
                "name": c["name"], "image": ref, "imageID": node.image_id(info, ref), "ready": False,
                "restartCount": 0, "state": {"terminated": {"exitCode": code, "reason": "Completed" if code == 0 else "Error"}}}])

    async def delete(self, namespace: str, name: str) -> Pod | None:
        """Delete at once (grace 0): the container is removed before this returns."""
        pod = self.pods.pop((namespace, name), None)
        if pod is None:
            return None
        pod.obj["metadata"]["deletionTimestamp"] = node.now()
        pod.obj["metadata"]["deletionGracePeriodSeconds"] = 0
        cid, pod.container = pod.container, None
        if cid:
            await asyncio.get_running_loop().run_in_executor(None, node.remove_container, cid)
        return pod

    def select(self, namespace: str, selector: str) -> list[Pod]:
        return [p for (ns, _), p in self.pods.items() if ns == namespace and matches(p.obj, selector)]


def matches(obj: dict, selector: str) -> bool:
    """A label selector of the equality kind: ``k``, ``!k``, ``k=v``, ``k==v``, ``k!=v``."""
    labels = obj["metadata"].get("labels") or {}
    for term in filter(None, (t.strip() for t in (selector or "").split(","))):
        if "!=" in term:
            k, v = term.split("!=", 1)
            if labels.get(k.strip()) == v.strip():
                return False
        elif "=" in term:
            k, v = term.replace("==", "=").split("=", 1)
            if labels.get(k.strip()) != v.strip():
                return False
        elif term.startswith("!"):
            if term[1:] in labels:
                return False
        elif term not in labels:
            return False
    return True
