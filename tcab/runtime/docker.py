"""The ``docker`` backend: docker-py against the Docker Engine or Podman's
Docker-compatible socket.

The socket is ``base_url`` when given, else ``DOCKER_HOST``, else
``unix:///run/tcab/podman.sock`` (where ``make podman`` starts Podman).
The exceptions docker-py and its transport raise (docker-py's own,
requests', urllib3's, http.client's, a socket's) are translated into
:class:`~tcab.errors.RuntimeBackendError` in one place, the context manager
:func:`_engine`, with the operation and container named, ``from`` the
original. Any other exception is a bug in tcab and passes through
untouched: it must never come back as the engine's failure (a run's
``infrastructure``, which a sweep retries).
"""

from __future__ import annotations

import contextlib
import http.client
import io
import os
import tarfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from tcab.errors import ImageNotFound, RuntimeBackendError, RuntimeSettingsError
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
from tcab.runtime.collect import Tally, extract_tree, over_cap, refuse_tree, settle
from tcab.runtime.exec import run_exec
from tcab.runtime.pack import pack_tree

DEFAULT_SOCKET = "unix:///run/tcab/podman.sock"
#: The network every run and build container joins (``TCAB_RUN_NETWORK``
#: overrides it): ``containers/run-network.sh`` creates it and rejects what
#: its containers send to the host's own addresses (docs/security.md).
RUN_NETWORK = "tcab-run"
#: The Engine API version spoken. Fixed rather than "auto": negotiating asks
#: the engine's /version, which Podman answers by probing its whole stack
#: (0.4-0.9 s, more than the rest of a run's API calls together). 1.41 is
#: what Podman 4 implements and what Docker Engine 20.10+ accepts; the
#: standard DOCKER_API_VERSION variable overrides it.
API_VERSION = "1.41"


def library_errors() -> tuple[type[BaseException], ...]:
    """What docker-py and its transport raise when the engine fails."""
    import docker.errors  # docker-py is optional and slow to import: loaded with the backend
    import requests.exceptions
    import urllib3.exceptions

    return (docker.errors.DockerException, docker.errors.StreamParseError,
            requests.exceptions.RequestException, urllib3.exceptions.HTTPError,
            http.client.HTTPException, ConnectionError, TimeoutError)


@contextlib.contextmanager
def _engine(op: str, container: str | None = None,
            also: tuple[type[BaseException], ...] = ()) -> Iterator[None]:
    """The one place where docker-py's and its transport's exceptions (and
    ``also``) become RuntimeBackendError naming ``op`` and ``container``."""
    known = (*library_errors(), *also)
    try:
        yield
    except RuntimeBackendError:
        raise
    except known as exc:
        raise _backend_error(exc, op, container) from exc


def _backend_error(exc: BaseException, op: str, container: str | None = None) -> RuntimeBackendError:
    import docker.errors  # optional dependency (see library_errors)

    where = f" (container {container[:12]})" if container else ""
    if isinstance(exc, docker.errors.APIError):
        detail = exc.explanation or str(exc)
    else:
        detail = f"{type(exc).__name__}: {exc}"
    err = RuntimeBackendError(f"docker runtime: {op}{where} failed: {detail}")
    err.__cause__ = exc
    return err


class _ChunkReader(io.RawIOBase):
    """A read-only file over an iterator of byte chunks (docker-py's archive stream)."""

    def __init__(self, chunks):
        self._chunks = iter(chunks)
        self._buf = b""

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        while not self._buf:
            try:
                self._buf = next(self._chunks)
            except StopIteration:
                return 0
        n = min(len(b), len(self._buf))
        b[:n] = self._buf[:n]
        self._buf = self._buf[n:]
        return n


class DockerRuntime:
    """Runtime over a Docker-compatible API (see module docstring)."""

    name = "docker"

    def __init__(self, base_url: str | None = None, *, timeout: int = 120, run_uid: int = 1000):
        try:
            import docker
        except ImportError as exc:  # an optional dependency in other installs
            raise RuntimeSettingsError("the docker runtime needs docker-py: pip install 'docker>=7.1'") from exc
        self.base_url = base_url or os.environ.get("DOCKER_HOST") or DEFAULT_SOCKET
        self._run_uid = run_uid
        self.network = os.environ.get("TCAB_RUN_NETWORK") or RUN_NETWORK
        self._network_checked = False
        try:
            with _engine(f"connect to {self.base_url}"):
                self.api = docker.APIClient(base_url=self.base_url, timeout=timeout,
                                            version=os.environ.get("DOCKER_API_VERSION") or API_VERSION)
                self.api.ping()  # a gone engine fails here, before a run begins (ms, unlike /version)
        except RuntimeBackendError as err:
            raise RuntimeBackendError(f"{err} (is the engine up? `make podman` starts Podman's socket)") from err.__cause__

    # -- images -------------------------------------------------------------

    def ensure_image(self, ref: str, *, pull: bool = True) -> ImageInfo:
        import docker.errors  # optional dependency (see library_errors)

        pulled = False
        with _engine(f"inspect image {ref}"):
            try:
                info = self.api.inspect_image(ref)
            except docker.errors.ImageNotFound:
                if not pull:
                    raise ImageNotFound(f"image {ref} is not present locally (pulling disabled)") from None
                hint = f"image {ref} is not present locally and could not be pulled"
                with _engine(f"pull {ref}"):
                    try:
                        # Podman reports a failed pull inside the stream, not as an HTTP error.
                        self.api.pull(ref)
                        info = self.api.inspect_image(ref)
                    except docker.errors.APIError as exc:
                        raise ImageNotFound(f"{hint}: {exc.explanation or exc}; build it with `make images`") from exc
                pulled = True
        repo_digests = info.get("RepoDigests") or []
        digest = repo_digests[0] if repo_digests else info["Id"]
        return ImageInfo(ref=ref, id=info["Id"], digest=digest, pulled=pulled)

    def image_digest(self, container: str) -> ImageInfo:
        with _engine("inspect the image of", container):
            image_id = self.api.inspect_container(container)["Image"]
            info = self.api.inspect_image(image_id)
        repo_digests = info.get("RepoDigests") or []
        ref = (info.get("RepoTags") or [image_id])[0]
        return ImageInfo(ref=ref, id=info["Id"], digest=repo_digests[0] if repo_digests else info["Id"])

    # -- containers -----------------------------------------------------------

    def _check_network(self) -> None:
        """Refuse to start anything off the guarded network (once per runtime)."""
        import docker.errors  # optional dependency (see library_errors)

        if self._network_checked:
            return
        with _engine(f"inspect network {self.network}"):
            try:
                self.api.inspect_network(self.network)
            except docker.errors.NotFound:
                raise RuntimeBackendError(
                    f"docker runtime: the run network {self.network!r} is missing: `make podman` creates it "
                    "with its firewall (containers/run-network.sh)") from None
        self._network_checked = True

    def start(self, spec: ContainerSpec) -> str:
        labels = {**spec.labels, RUN_LABEL: spec.run_id}
        self._check_network()
        with _engine(f"create a container from {spec.image}"):
            host_config = self.api.create_host_config(
                network_mode="none" if spec.offline else self.network,
                extra_hosts={"host.docker.internal": self._host_gateway()} if spec.host_gateway else None,
                mem_limit=spec.memory_bytes,
                pids_limit=spec.pids_limit,
                # An init as PID 1 reaps the processes a killed command orphans.
                init=True,
            )
            created = self.api.create_container(
                spec.image,
                command=["sleep", "infinity"],
                # The init and its sleep belong to root, so a command running
                # as the run user cannot stop its own container (and pass its
                # failure off as the engine's).
                user="root",
                labels=labels,
                environment=dict(spec.env),
                working_dir=WORKDIR,
                host_config=host_config,
                detach=True,
            )
        cid = created["Id"]
        try:
            with _engine("start", cid):
                self.api.start(cid)
        except BaseException:
            self.remove(cid)  # a container that did not start is never left behind
            raise
        return cid

    def _host_gateway(self) -> str:
        """What ``host.docker.internal`` maps to: the run network's gateway
        address, on Docker Engine and Podman alike (Docker's magic
        ``host-gateway`` would be docker0's address, which a watch's listener
        does not bind; Podman 4.3 writes the magic word verbatim into
        /etc/hosts). The firewall rejects it too, except for a watched run's
        listener port (containers/run-network.sh, tcab.watch.firewall)."""
        with _engine("find the host gateway address"):
            net = self.api.inspect_network(self.network)
            for config in (net.get("IPAM") or {}).get("Config") or []:
                if config.get("Gateway"):
                    return config["Gateway"]
        raise RuntimeBackendError(f"docker runtime: the {self.network} network has no gateway address")

    def preview_address(self) -> str:
        """The run network's gateway: what a watched run's container reaches as
        host.docker.internal, and so the one address its listener binds."""
        self._check_network()
        return self._host_gateway()

    def container_address(self, container: str) -> str | None:
        """The container's address on the run network (its traffic to the
        gateway is not NATed: same bridge)."""
        with _engine("inspect the address of", container):
            networks = (self.api.inspect_container(container).get("NetworkSettings") or {}).get("Networks") or {}
        address = (networks.get(self.network) or {}).get("IPAddress")
        if not address:
            raise RuntimeBackendError(f"docker runtime: container {container[:12]} has no address on {self.network}")
        return address

    def remove(self, container: str) -> None:
        import docker.errors  # optional dependency (see library_errors)

        with _engine("remove", container):
            try:
                self.api.remove_container(container, force=True, v=True)
            except docker.errors.NotFound:
                return

    def list_run_containers(self, run_id: str | None = None) -> list[str]:
        selector = RUN_LABEL if run_id is None else f"{RUN_LABEL}={run_id}"
        with _engine("list containers"):
            found = self.api.containers(all=True, filters={"label": selector})
        return [c["Id"] for c in found]

    # -- commands -----------------------------------------------------------

    def exec(self, container: str, argv: list[str], options: ExecOptions | None = None) -> ExecResult:
        op = f"exec {argv[:1]}"
        try:
            with _engine(op, container):
                result = run_exec(self.api, container, argv, options or ExecOptions())
        except RuntimeBackendError as exc:
            gone = self._not_running(container)
            if gone:
                raise RuntimeBackendError(f"docker runtime: {op}: container {container[:12]} {gone}") from exc
            raise
        # A container killed or removed from outside takes the command with
        # it (exit 137): that is the engine's failure, not the command's.
        gone = self._not_running(container)
        if gone:
            raise RuntimeBackendError(f"docker runtime: {op}: container {container[:12]} {gone}")
        return result

    def _not_running(self, container: str) -> str | None:
        """None while ``container`` runs, else what happened to it."""
        import docker.errors  # optional dependency (see library_errors)

        try:
            state = self.api.inspect_container(container).get("State") or {}
        except docker.errors.NotFound:
            return "was removed while the command ran (outside tcab)"
        except docker.errors.APIError as exc:
            # Podman answers a removed container with 500 "no such container"
            # while it is being torn down, not always with 404.
            if "no such container" in str(exc.explanation or exc).lower():
                return "was removed while the command ran (outside tcab)"
            return f"could not be inspected after the command: {exc}"
        except library_errors() as exc:
            return f"could not be inspected after the command: {exc}"
        if state.get("Running") and not state.get("Paused"):
            return None
        how = "paused" if state.get("Paused") else str(state.get("Status") or "not running")
        code = state.get("ExitCode")
        oom = ", out of memory" if state.get("OOMKilled") else ""
        return (f"stopped while the command ran (state {how}, exit code {code}{oom}): "
                "killed or stopped outside tcab")

    # -- copies -------------------------------------------------------------

    def copy_in(self, container: str, src: Path, dest: str = WORKDIR) -> None:
        src = Path(src)
        if not src.is_dir():
            raise RuntimeBackendError(f"copy in: {src} is not a folder")
        with pack_tree(src, self._run_uid) as buf:
            with _engine(f"copy {src} in to {dest}", container):
                ok = self.api.put_archive(container, dest, buf)
        if not ok:
            raise RuntimeBackendError(f"docker runtime: copy {src} in to {dest} (container {container[:12]}) was refused")

    def open_archive(self, container: str, src: str) -> BinaryIO:
        with _engine(f"copy {src} out", container):
            chunks, _stat = self.api.get_archive(container, src, chunk_size=1 << 20)
        return io.BufferedReader(_ChunkReader(chunks), buffer_size=1 << 20)

    def copy_out(self, container: str, src: str, dest: Path, limits: CollectLimits | None = None) -> CollectReport:
        strip = src.rstrip("/").rsplit("/", 1)[-1]
        limits = limits or CollectLimits()
        tally = Tally(limits)
        # One root exec (which the run user cannot signal): no process of the
        # run is left to change the tree while the engine archives it, paths
        # the engine could not archive are pruned, and the tree is measured.
        reason = over_cap(settle(self, container, src, limits, tally, RUN_USER), limits)
        if reason:
            return refuse_tree(Path(dest), reason)
        stream = self.open_archive(container, src)
        try:
            # A broken archive stream, or the host refusing a write (a full
            # disk), is the platform failing; the run's own files are refused
            # by extract_tree, not raised.
            with _engine(f"copy {src} out to {dest}", container, also=(tarfile.TarError, OSError)):
                return extract_tree(stream, Path(dest), strip=strip, limits=limits, tally=tally)
        finally:
            stream.close()
