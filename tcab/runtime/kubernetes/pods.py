"""Pods: the manifest of a run pod, waiting for it to run, and why it did not.

A run pod is one container idling until removed, like the docker backend's
container; commands reach it by exec. Its PID 1 is :data:`INIT`, because
in a pod the run user is the only user and owns PID 1: the kernel drops
every signal sent to a PID namespace's init from inside it unless the init
handles it, so an init that handles none survives ``kill -9 1``; it is
made non-dumpable, so the run user cannot ``ptrace`` it (or write its
memory) either; and it reaps what a killed command orphans. The manifest is
a plain dict (what the API server validates, and what ``podman kube play``
is fed in the tests), built by :func:`pod_manifest` alone.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import time

from tcab.errors import ImageNotFound, RuntimeBackendError, RuntimeSettingsError
from tcab.runtime.base import RUN_LABEL, WORKDIR, ContainerSpec
from tcab.runtime.kubernetes.config import KubeSettings, check_label_key, check_label_value

CONTAINER = "run"
#: The label every run pod carries: what containers/kubernetes/networkpolicy.yaml
#: selects (egress to the internet and the cluster DNS, never the node or
#: the cluster's own addresses; see docs/kubernetes.md).
NETWORK_LABEL = ("org.tcab.network", "run")
#: The run container's PID 1 (``python3 -I -S -c``; the run images have
#: python3). No signal handler of its own: SIG_IGN for what can be
#: ignored, the kernel's init protection for SIGKILL and SIGSTOP.
#: PR_SET_DUMPABLE 0 puts it out of the same user's ``ptrace`` and
#: ``/proc/1/mem``. Then it waits for children (orphans reparented to it)
#: for ever. A failure to ignore or to drop dumpability is not fatal.
#:
#: :data:`REAP_SIGNAL` is the one signal it acts on: it SIGKILLs every other
#: process of the pod (``kill(-1)`` from PID 1 reaches them all and cannot
#: be answered in kind) and reaps them, until none but zombies (which it
#: cannot reap: an exec's processes belong to the runtime) is left, or 5 s passed.
#: Copy-out asks for it first, so the tar that streams ``/work`` out is the
#: only process of the pod besides PID 1: nothing of the run is left to
#: signal, trace, or write to it, or to change the tree under it. The run
#: user can send it too; it only kills the run's own processes.
REAP_SIGNAL = "RTMIN+7"
INIT = (
    "import ctypes, os, signal, time\n"
    "def alive(p):\n"
    "    try: return open(f'/proc/{p}/stat').read().rsplit(')', 1)[1].split()[0] != 'Z'\n"
    "    except (OSError, IndexError): return False\n"
    "def reap(*_):\n"
    "    end = time.monotonic() + 5\n"
    "    while time.monotonic() < end:\n"
    "        try: os.kill(-1, signal.SIGKILL)\n"
    "        except OSError: pass\n"
    "        while True:\n"
    "            try: pid, _s = os.waitpid(-1, os.WNOHANG)\n"
    "            except ChildProcessError: break\n"
    "            if pid == 0: break\n"
    "        if not [p for p in os.listdir('/proc') if p.isdigit() and p != '1' and alive(p)]: return\n"
    "        time.sleep(0.01)\n"
    "for s in signal.valid_signals():\n"
    "    if s != signal.SIGCHLD:\n"
    "        try: signal.signal(s, reap if s == signal.SIGRTMIN + 7 else signal.SIG_IGN)\n"
    "        except (OSError, ValueError): pass\n"
    "try: ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)\n"
    "except Exception: pass\n"
    "while True:\n"
    "    try: os.wait()\n"
    "    except OSError: time.sleep(1)\n"
)
#: Polling a starting pod: the first look soon, each wait a quarter longer
#: (so a pod is seen running at most ~25 % after it is; 20 reads in its first 5 s).
_POLL_S = 0.02
_POLL_GROWTH = 1.25
_POLL_MAX_S = 1.0
#: Waiting reasons that mean the image cannot be had.
PULL_FAILURES = {"ErrImagePull", "ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull",
                 "RegistryUnavailable"}
#: Waiting reasons that mean the container will not start as configured.
START_FAILURES = {"CreateContainerConfigError", "CreateContainerError", "RunContainerError",
                  "CrashLoopBackOff"}


def run_label(run_id: str) -> str:
    """The ``RUN_LABEL`` value for ``run_id``: itself when it is a valid label
    value, else a readable prefix plus a hash (label values stop at 63)."""
    if check_label_value(run_id):
        return run_id
    clean = re.sub(r"[^A-Za-z0-9_.-]", "-", run_id)[:44].strip("-_.") or "run"
    return f"{clean}-{hashlib.sha256(run_id.encode()).hexdigest()[:16]}"


def pod_name(run_id: str) -> str:
    """A fresh DNS-1123 pod name that shows the run id."""
    clean = re.sub(r"[^a-z0-9-]+", "-", run_id.lower()).strip("-")[:48].strip("-") or "run"
    return f"tcab-{clean}-{secrets.token_hex(4)}"


def preview_host(settings: KubeSettings) -> str:
    """The address a watched run's pod reaches as host.docker.internal (and
    the driver's preview listener binds). Raises RuntimeSettingsError when
    it is not known."""
    if not settings.preview_host:
        raise RuntimeSettingsError(
            "kubernetes runtime: a preview needs the driver's pod IP for host.docker.internal: "
            "set POD_IP from the downward API or the preview_host setting (TCAB_K8S_PREVIEW_HOST)")
    return settings.preview_host


def pod_manifest(spec: ContainerSpec, settings: KubeSettings, name: str, *, pull_policy: str = "IfNotPresent") -> dict:
    """The Pod for ``spec``: see docs/kubernetes.md for what each field is for.
    ``pull_policy`` is ``Never`` only for ``ensure_image(pull=False)``."""
    if spec.offline:
        # Every run pod is under the egress policy that allows the internet
        # (containers/kubernetes/networkpolicy.yaml); a pod with no network at
        # all needs a policy tcab does not ship, so it is refused, never run online.
        raise RuntimeBackendError("kubernetes runtime: an offline container (a Blender character's "
                                  "provenance rebuild) is not supported; regenerate with the docker runtime")
    resources: dict[str, dict[str, str]] = {}
    memory = settings.memory
    if spec.memory_bytes is not None:
        memory = str(spec.memory_bytes) if memory is None else memory
    if settings.cpu:
        resources.setdefault("requests", {})["cpu"] = settings.cpu
        resources.setdefault("limits", {})["cpu"] = settings.cpu
    if memory:
        resources.setdefault("requests", {})["memory"] = memory
        resources.setdefault("limits", {})["memory"] = memory
    uid = settings.run_uid
    pod_spec: dict = {
        "restartPolicy": "Never",
        "automountServiceAccountToken": False,
        # No service environment variables: a run sees only its own env.
        "enableServiceLinks": False,
        # The run container's own PID namespace, with INIT as PID 1: a
        # shared one would make the pause container PID 1, which the run
        # user (the pod's only user) can stop with SIGTERM, and the pod with it.
        "shareProcessNamespace": False,
        "terminationGracePeriodSeconds": 0,
        "activeDeadlineSeconds": settings.active_deadline_s,
        "securityContext": {"runAsUser": uid, "runAsGroup": uid, "runAsNonRoot": True,
                            "seccompProfile": {"type": "RuntimeDefault"}},
        "containers": [{
            "name": CONTAINER,
            "image": spec.image,
            "imagePullPolicy": pull_policy,
            "command": ["python3", "-I", "-S", "-c", INIT],
            "workingDir": WORKDIR,
            "env": [{"name": k, "value": str(v)} for k, v in sorted(spec.env.items())],
            "resources": resources,
            "securityContext": {"allowPrivilegeEscalation": False, "capabilities": {"drop": ["ALL"]}},
        }],
    }
    if settings.node_selector:
        pod_spec["nodeSelector"] = dict(settings.node_selector)
    if settings.image_pull_secret:
        pod_spec["imagePullSecrets"] = [{"name": settings.image_pull_secret}]
    if spec.host_gateway:
        pod_spec["hostAliases"] = [{"ip": preview_host(settings), "hostnames": ["host.docker.internal"]}]
    labels = {}
    for key, value in spec.labels.items():
        if not (check_label_key(key) and check_label_value(str(value))):
            raise RuntimeBackendError(f"kubernetes runtime: label {key}={value!r} is not a valid Kubernetes label")
        labels[key] = str(value)
    # No annotations: podman kube play refuses values over 63 characters,
    # so the full run id lives only in the label (hashed when too long).
    labels[RUN_LABEL] = run_label(spec.run_id)
    labels[NETWORK_LABEL[0]] = NETWORK_LABEL[1]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": settings.namespace, "labels": labels},
        "spec": pod_spec,
    }


def _get(obj: dict | None, key: str):
    """A field of a pod document (JSON, camelCase), None when absent."""
    return obj.get(key) if isinstance(obj, dict) else None


def pod_problem(pod) -> Exception | None:
    """Why ``pod`` will never run, as the exception to raise; None while it may."""
    status = _get(pod, "status")
    name = _get(_get(pod, "metadata"), "name")
    phase = _get(status, "phase")
    for cond in _get(status, "conditions") or []:
        if _get(cond, "type") == "PodScheduled" and _get(cond, "status") == "False" \
                and _get(cond, "reason") == "Unschedulable":
            return RuntimeBackendError(f"kubernetes runtime: pod {name} is unschedulable: {_get(cond, 'message')}")
    for cs in _get(status, "containerStatuses") or []:
        state = _get(cs, "state")
        waiting = _get(state, "waiting")
        terminated = _get(state, "terminated")
        if waiting is not None and _get(waiting, "reason") in PULL_FAILURES:
            return ImageNotFound(f"kubernetes runtime: pod {name} cannot pull image {_get(cs, 'image')}: "
                                 f"{_get(waiting, 'reason')}: {_get(waiting, 'message')} "
                                 "(push it to a registry the cluster reaches; locally: `make images`)")
        if waiting is not None and _get(waiting, "reason") in START_FAILURES:
            return RuntimeBackendError(f"kubernetes runtime: pod {name} cannot start: "
                                       f"{_get(waiting, 'reason')}: {_get(waiting, 'message')}")
        if terminated is not None:
            return RuntimeBackendError(f"kubernetes runtime: pod {name} died: {_get(terminated, 'reason')} "
                                       f"(exit {_get(terminated, 'exitCode')}) {_get(terminated, 'message') or ''}".rstrip())
    if phase in ("Failed", "Succeeded"):
        return RuntimeBackendError(f"kubernetes runtime: pod {name} is {phase}: "
                                   f"{_get(status, 'reason')}: {_get(status, 'message')}")
    return None


def is_running(pod) -> bool:
    status = _get(pod, "status")
    if _get(status, "phase") != "Running" or _get(_get(pod, "metadata"), "deletionTimestamp"):
        return False
    return any(_get(_get(cs, "state"), "running") is not None for cs in _get(status, "containerStatuses") or [])


def wait_running(read, name: str, timeout_s: float):
    """Poll ``read()`` (the pod) until it runs; raise at once when it cannot,
    and after ``timeout_s`` with its last phase."""
    deadline = time.monotonic() + timeout_s
    delay = _POLL_S
    while True:
        pod = read()
        if is_running(pod):
            return pod
        problem = pod_problem(pod)
        if problem is not None:
            raise problem
        if time.monotonic() >= deadline:
            phase = _get(_get(pod, "status"), "phase")
            raise RuntimeBackendError(f"kubernetes runtime: pod {name} did not run within {timeout_s:g} s "
                                      f"(phase {phase}); see `kubectl describe pod {name}`")
        time.sleep(delay)
        delay = min(delay * _POLL_GROWTH, _POLL_MAX_S)


def image_digest(pod) -> tuple[str, str]:
    """(id, digest) from the running container's ``imageID``: the digest is
    ``repo@sha256:...`` as the node reports it, the id its ``sha256:...``."""
    for cs in _get(_get(pod, "status"), "containerStatuses") or []:
        image_id = _get(cs, "imageID") or ""
        if image_id:
            ref = image_id.split("://", 1)[-1]
            match = re.search(r"sha256:[0-9a-f]{64}", ref)
            return (match.group(0) if match else ref), ref
    raise RuntimeBackendError("kubernetes runtime: the pod reports no imageID")
