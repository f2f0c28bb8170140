"""The ``kubernetes`` backend: one pod per run through the Kubernetes API.

Built on the official ``kubernetes`` Python client. A run's "container" is
a pod named ``tcab-<run id>-<random>`` in the configured namespace, labelled
``org.tcab.run-id``; commands, copies and kills go through the pod exec
WebSocket (``v5.channel.k8s.io``, falling back to ``v4``). See
docs/kubernetes.md for the settings, the RBAC and what an operator watches.

Differences from the docker backend, all from what Kubernetes allows:
commands run as the pod's one unprivileged user (``ExecOptions.user`` other
than the run user is refused: the pod has no privilege escalation); the
node pulls the image when the run pod starts, so ``ensure_image`` starts no
pod and a pull failure is raised by ``start``; the image digest is the
``imageID`` the run pod reports (``image_digest``); ``pids_limit`` is the
node's (kubelet ``podPidsLimit``), not per pod; PID 1 is the run's own
init (:data:`~tcab.runtime.kubernetes.pods.INIT`), since the run user owns
it: one it cannot signal or trace. The constructor checks,
before any run starts, that the API server answers, that pods can be
listed and (a server-side dry run, nothing persisted) created in the
namespace: a wrong namespace, missing RBAC or a refused setting is an
error there, not a run's ``infrastructure``.

**No real cluster has been exercised here**: the backend is tested against
the stand-in API server in ``tests/kube_standin/`` (real HTTP and WebSocket,
official schema validation, pods as real Podman containers) and its pod
manifests through ``podman kube play``.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import BinaryIO

from tcab.errors import RuntimeBackendError
from tcab.runtime.base import (
    RUN_LABEL,
    RUN_USER,
    WORKDIR,
    CollectLimits,
    CollectReport,
    ContainerSpec,
    ExecOptions,
    ExecResult,
    ImageInfo,
)
from tcab.runtime.kubernetes import copy as _copy
from tcab.runtime.kubernetes.config import KubeSettings, load_client_config
from tcab.runtime.kubernetes.errors import kube_calls, kube_error, refused_settings
from tcab.runtime.kubernetes.exec import ExecStream, bound_exec_handshake, run_exec
from tcab.runtime.kubernetes.pods import (
    CONTAINER,
    image_digest,
    is_running,
    pod_manifest,
    pod_name,
    pod_problem,
    preview_host,
    run_label,
    wait_running,
)

_TIMEOUT = (10, 60)  # (connect, read) seconds for every plain API call
#: The image of the constructor's dry-run pod: never pulled (dry run, pull policy Never).
PREFLIGHT_IMAGE = "tcab.invalid/preflight:dry-run"


class KubernetesRuntime:
    """Runtime over the Kubernetes API (see module docstring). ``options``
    are the settings of :class:`~tcab.runtime.kubernetes.config.KubeSettings`."""

    name = "kubernetes"

    def __init__(self, **options):
        self.settings = KubeSettings.from_options(options)
        configuration = load_client_config(self.settings)
        from kubernetes import client

        self.core = client.CoreV1Api(client.ApiClient(configuration))
        # stream() swaps its ApiClient's transport while connecting: a client
        # of its own, behind a lock, keeps plain calls off the WebSocket path.
        self._stream_core = client.CoreV1Api(client.ApiClient(configuration))
        self._stream_lock = threading.Lock()
        self._digests: dict[str, ImageInfo] = {}
        self._pod_images: dict[str, ImageInfo] = {}  # by pod name, from the pod's own status
        self._never_pull: set[str] = set()
        self.namespace = self.settings.namespace
        try:
            with kube_calls(f"reach the API server at {configuration.host}"):
                self.server_version = client.VersionApi(self.core.api_client).get_code(
                    _request_timeout=_TIMEOUT).git_version
            self.list_run_containers()  # a missing "list" grant shows here, before any run starts
            self._preflight()
        except RuntimeBackendError as exc:
            raise refused_settings(exc) from exc.__cause__

    def _preflight(self) -> None:
        """Create a run pod as a server-side dry run (``dryRun=All``: authorized,
        admitted and validated like a real create, never persisted). A list in
        a missing namespace answers an empty list, so only a create shows it:
        the NamespaceLifecycle admission plugin answers 404 for it; a missing
        "create" grant answers 403; a setting the schema refuses, 422."""
        spec = ContainerSpec(image=PREFLIGHT_IMAGE, run_id="preflight")
        name = pod_name(spec.run_id)
        body = pod_manifest(spec, self.settings, name, pull_policy="Never")
        with kube_calls(f"create pods in namespace {self.namespace} (a dry run, before any run)"):
            self.core.create_namespaced_pod(self.namespace, body, dry_run="All", field_validation="Strict",
                                            _request_timeout=_TIMEOUT)

    # -- images -------------------------------------------------------------

    def ensure_image(self, ref: str, *, pull: bool = True) -> ImageInfo:
        """Start no pod: the node pulls ``ref`` when the run pod starts (a pull
        failure is raised by :meth:`start`, as ImageNotFound). Returns what a
        pod of this backend reported for ``ref``, else an ImageInfo with an
        empty id and digest (:meth:`image_digest` gives them once a pod runs
        it). ``pull=False`` makes later pods of ``ref`` use ``imagePullPolicy:
        Never``."""
        if not pull:
            self._never_pull.add(ref)
        return self._digests.get(ref) or ImageInfo(ref=ref, id="", digest="")

    def image_digest(self, container: str) -> ImageInfo:
        """The image pod ``container`` runs, from its ``imageID`` (read once: a
        pod's container never restarts, so its image cannot change)."""
        if container in self._pod_images:
            return self._pod_images[container]
        pod = self._read(container)
        image_id, digest = image_digest(pod)
        ref = ((pod.get("spec") or {}).get("containers") or [{}])[0].get("image") or ""
        info = self._digests[ref] = self._pod_images[container] = ImageInfo(ref=ref, id=image_id, digest=digest)
        return info

    # -- pods ---------------------------------------------------------------

    def _create(self, spec: ContainerSpec, pull_policy: str = "IfNotPresent") -> str:
        name = pod_name(spec.run_id)
        body = pod_manifest(spec, self.settings, name, pull_policy=pull_policy)
        with kube_calls(f"create pod in namespace {self.namespace}", name):
            self.core.create_namespaced_pod(self.namespace, body, field_validation="Strict", _request_timeout=_TIMEOUT)
        return name

    def _read(self, name: str) -> dict:
        """The pod as its JSON document (camelCase keys, as the docs show it)."""
        with kube_calls("read pod", name):
            pod = self.core.read_namespaced_pod(name, self.namespace, _request_timeout=_TIMEOUT)
        return self.core.api_client.sanitize_for_serialization(pod)

    def _wait(self, name: str):
        try:
            return wait_running(lambda: self._read(name), name, self.settings.start_timeout_s)
        except BaseException:
            self.remove(name)  # a pod that will not run is never left behind
            raise

    def start(self, spec: ContainerSpec) -> str:
        name = self._create(spec, pull_policy="Never" if spec.image in self._never_pull else "IfNotPresent")
        pod = self._wait(name)
        image_id, digest = image_digest(pod)
        self._digests[spec.image] = self._pod_images[name] = ImageInfo(ref=spec.image, id=image_id, digest=digest)
        return name

    def preview_address(self) -> str:
        """The driver's own pod IP (``POD_IP`` or ``preview_host``): what a
        watched run's pod maps host.docker.internal to."""
        return preview_host(self.settings)

    def container_address(self, container: str) -> str | None:
        """None: a pod's traffic to the driver may be NATed by the cluster's
        network plugin, so its pod IP is no promise (the token still is)."""
        return None

    def remove(self, container: str) -> None:
        from kubernetes.client.exceptions import ApiException

        with kube_calls("delete pod", container):
            try:
                self.core.delete_namespaced_pod(container, self.namespace, grace_period_seconds=0,
                                                _request_timeout=_TIMEOUT)
            except ApiException as exc:
                if exc.status != 404:
                    raise
        self._pod_images.pop(container, None)

    def list_run_containers(self, run_id: str | None = None) -> list[str]:
        selector = RUN_LABEL if run_id is None else f"{RUN_LABEL}={run_label(run_id)}"
        with kube_calls(f"list pods in namespace {self.namespace}"):
            found = self.core.list_namespaced_pod(self.namespace, label_selector=selector, _request_timeout=_TIMEOUT)
        return [p.metadata.name for p in found.items]

    def check_pod(self, name: str) -> None:
        """Raise RuntimeBackendError naming why pod ``name`` no longer runs."""
        from kubernetes.client.exceptions import ApiException

        try:
            pod = self._read(name)
        except RuntimeBackendError as exc:
            cause = exc.__cause__
            if isinstance(cause, ApiException) and cause.status == 404:
                raise RuntimeBackendError(f"kubernetes runtime: pod {name} is gone "
                                          "(deleted from outside the run, or evicted)") from cause
            raise
        if (pod.get("metadata") or {}).get("deletionTimestamp"):
            raise RuntimeBackendError(f"kubernetes runtime: pod {name} is being deleted (from outside the run)")
        if not is_running(pod):
            status = pod.get("status") or {}
            raise pod_problem(pod) or RuntimeBackendError(
                f"kubernetes runtime: pod {name} is {status.get('phase')}: {status.get('reason')}: {status.get('message')}")

    # -- commands -----------------------------------------------------------

    def _open(self, container: str):
        from kubernetes.stream import stream

        from tcab.runtime.kubernetes.errors import library_errors

        def open_stream(command: list[str], stdin: bool) -> ExecStream:
            try:
                with self._stream_lock:
                    bound_exec_handshake()
                    ws = stream(self._stream_core.connect_get_namespaced_pod_exec, container, self.namespace,
                                command=command, container=CONTAINER, stdin=stdin, stdout=True, stderr=True,
                                tty=False, _preload_content=False, binary=True)
            except library_errors() as exc:
                self.check_pod(container)
                raise kube_error(exc, "open an exec stream", container) from exc
            return ExecStream(ws)

        return open_stream

    def exec(self, container: str, argv: list[str], options: ExecOptions | None = None) -> ExecResult:
        options = options or ExecOptions()
        if options.user not in (RUN_USER, str(self.settings.run_uid)):
            raise RuntimeBackendError(f"kubernetes runtime: exec as {options.user!r} is refused: pods run "
                                      f"as {RUN_USER} without privilege escalation")
        with kube_calls(f"exec {argv[:1]}", container):
            return run_exec(self._open(container), lambda: self.check_pod(container), argv, options)

    # -- copies -------------------------------------------------------------

    def copy_in(self, container: str, src: Path, dest: str = WORKDIR) -> None:
        with kube_calls(f"copy {src} in", container):
            _copy.copy_in(self._open(container), Path(src), dest, self.settings.run_uid)

    def open_archive(self, container: str, src: str) -> BinaryIO:
        import io

        return io.BufferedReader(_copy.open_archive(self._open(container), src), 1 << 20)

    def copy_out(self, container: str, src: str, dest: Path, limits: CollectLimits | None = None) -> CollectReport:
        with kube_calls(f"copy {src} out", container):
            return _copy.copy_out(self._open(container), src, Path(dest), limits)
