"""The ``docker`` backend: docker-py against the Docker Engine or Podman's
Docker-compatible socket.

The socket is ``base_url`` when given, else ``DOCKER_HOST``, else
``unix:///run/tcab/podman.sock`` (where ``make podman`` starts Podman).
Every docker-py or transport exception is translated into
:class:`~tcab.errors.RuntimeBackendError` in :func:`_backend_error`, with
the operation and container named, ``from`` the original.
"""

from __future__ import annotations

import io
import os
import tarfile
from pathlib import Path
from typing import BinaryIO

from tcab.errors import ImageNotFound, RuntimeBackendError
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
from tcab.runtime.collect import (
    REAP_COMMAND,
    Tally,
    extract_tree,
    measure_command,
    over_cap,
    parse_measure,
    prune_deep,
    refuse_tree,
)
from tcab.runtime.exec import run_exec
from tcab.runtime.pack import pack_tree

DEFAULT_SOCKET = "unix:///run/tcab/podman.sock"
#: The network every run and build container joins (``TCAB_RUN_NETWORK``
#: overrides it): ``containers/run-network.sh`` creates it and rejects what
#: its containers send to the host's own addresses (docs/security.md).
RUN_NETWORK = "tcab-run"


def _backend_error(exc: BaseException, op: str, container: str | None = None) -> RuntimeBackendError:
    """The one place where docker-py's and requests' exceptions become ours."""
    import docker.errors  # docker-py is optional and slow to import: loaded with the backend

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
            raise RuntimeBackendError("the docker runtime needs docker-py: pip install 'docker>=7.1'") from exc
        self.base_url = base_url or os.environ.get("DOCKER_HOST") or DEFAULT_SOCKET
        self._run_uid = run_uid
        self.network = os.environ.get("TCAB_RUN_NETWORK") or RUN_NETWORK
        self._network_checked = False
        try:
            self.api = docker.APIClient(base_url=self.base_url, timeout=timeout, version="auto")
        except Exception as exc:
            err = _backend_error(exc, f"connect to {self.base_url}")
            raise RuntimeBackendError(f"{err} (is the engine up? `make podman` starts Podman's socket)") from exc

    # -- images -------------------------------------------------------------

    def ensure_image(self, ref: str, *, pull: bool = True) -> ImageInfo:
        import docker.errors  # optional dependency (see _backend_error)

        pulled = False
        try:
            try:
                info = self.api.inspect_image(ref)
            except docker.errors.ImageNotFound:
                if not pull:
                    raise ImageNotFound(f"image {ref} is not present locally (pulling disabled)") from None
                hint = f"image {ref} is not present locally and could not be pulled"
                try:
                    # Podman reports a failed pull inside the stream, not as an HTTP error.
                    said = self.api.pull(ref)
                    info = self.api.inspect_image(ref)
                except docker.errors.APIError as exc:
                    raise ImageNotFound(f"{hint}: {exc.explanation or exc}; build it with `make images`") from exc
                except Exception as exc:
                    raise _backend_error(exc, f"pull {ref}") from exc
                del said
                pulled = True
        except RuntimeBackendError:
            raise
        except Exception as exc:
            raise _backend_error(exc, f"inspect image {ref}") from exc
        repo_digests = info.get("RepoDigests") or []
        digest = repo_digests[0] if repo_digests else info["Id"]
        return ImageInfo(ref=ref, id=info["Id"], digest=digest, pulled=pulled)

    def image_digest(self, container: str) -> ImageInfo:
        try:
            image_id = self.api.inspect_container(container)["Image"]
            info = self.api.inspect_image(image_id)
        except Exception as exc:
            raise _backend_error(exc, "inspect the image of", container) from exc
        repo_digests = info.get("RepoDigests") or []
        ref = (info.get("RepoTags") or [image_id])[0]
        return ImageInfo(ref=ref, id=info["Id"], digest=repo_digests[0] if repo_digests else info["Id"])

    # -- containers -----------------------------------------------------------

    def _check_network(self) -> None:
        """Refuse to start anything off the guarded network (once per runtime)."""
        import docker.errors  # optional dependency (see _backend_error)

        if self._network_checked:
            return
        try:
            self.api.inspect_network(self.network)
        except docker.errors.NotFound:
            raise RuntimeBackendError(
                f"docker runtime: the run network {self.network!r} is missing: `make podman` creates it "
                "with its firewall (containers/run-network.sh)") from None
        except Exception as exc:
            raise _backend_error(exc, f"inspect network {self.network}") from exc
        self._network_checked = True

    def start(self, spec: ContainerSpec) -> str:
        labels = {**spec.labels, RUN_LABEL: spec.run_id}
        self._check_network()
        try:
            host_config = self.api.create_host_config(
                network_mode=self.network,
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
        except Exception as exc:
            raise _backend_error(exc, f"create a container from {spec.image}") from exc
        cid = created["Id"]
        try:
            self.api.start(cid)
        except Exception as exc:
            self.remove(cid)
            raise _backend_error(exc, "start", cid) from exc
        return cid

    def _host_gateway(self) -> str:
        """What ``host.docker.internal`` maps to. Docker Engine understands
        the magic ``host-gateway``; Podman 4.3 writes it verbatim into
        /etc/hosts, so there we use the run network's gateway address. (The
        firewall rejects it too, until the preview listener's hook opens
        its port: containers/run-network.sh.)"""
        try:
            version = self.api.version()
            if not any("podman" in c.get("Name", "").lower() for c in version.get("Components") or []):
                return "host-gateway"
            net = self.api.inspect_network(self.network)
            for config in (net.get("IPAM") or {}).get("Config") or []:
                if config.get("Gateway"):
                    return config["Gateway"]
        except Exception as exc:
            raise _backend_error(exc, "find the host gateway address") from exc
        raise RuntimeBackendError(f"docker runtime: the {self.network} network has no gateway address")

    def remove(self, container: str) -> None:
        import docker.errors  # optional dependency (see _backend_error)

        try:
            self.api.remove_container(container, force=True, v=True)
        except docker.errors.NotFound:
            return
        except Exception as exc:
            raise _backend_error(exc, "remove", container) from exc

    def list_run_containers(self, run_id: str | None = None) -> list[str]:
        selector = RUN_LABEL if run_id is None else f"{RUN_LABEL}={run_id}"
        try:
            found = self.api.containers(all=True, filters={"label": selector})
        except Exception as exc:
            raise _backend_error(exc, "list containers") from exc
        return [c["Id"] for c in found]

    # -- commands -----------------------------------------------------------

    def exec(self, container: str, argv: list[str], options: ExecOptions | None = None) -> ExecResult:
        op = f"exec {argv[:1]}"
        try:
            result = run_exec(self.api, container, argv, options or ExecOptions())
        except Exception as exc:
            gone = self._not_running(container)
            if gone:
                raise RuntimeBackendError(f"docker runtime: {op}: container {container[:12]} {gone}") from exc
            if isinstance(exc, RuntimeBackendError):
                raise
            raise _backend_error(exc, op, container) from exc
        # A container killed or removed from outside takes the command with
        # it (exit 137): that is the engine's failure, not the command's.
        gone = self._not_running(container)
        if gone:
            raise RuntimeBackendError(f"docker runtime: {op}: container {container[:12]} {gone}")
        return result

    def _not_running(self, container: str) -> str | None:
        """None while ``container`` runs, else what happened to it."""
        import docker.errors  # optional dependency (see _backend_error)

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
        except Exception as exc:
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
            try:
                ok = self.api.put_archive(container, dest, buf)
            except Exception as exc:
                raise _backend_error(exc, f"copy {src} in to {dest}", container) from exc
        if not ok:
            raise RuntimeBackendError(f"docker runtime: copy {src} in to {dest} (container {container[:12]}) was refused")

    def open_archive(self, container: str, src: str) -> BinaryIO:
        try:
            chunks, _stat = self.api.get_archive(container, src, chunk_size=1 << 20)
        except Exception as exc:
            raise _backend_error(exc, f"copy {src} out", container) from exc
        return io.BufferedReader(_ChunkReader(chunks), buffer_size=1 << 20)

    def copy_out(self, container: str, src: str, dest: Path, limits: CollectLimits | None = None) -> CollectReport:
        strip = src.rstrip("/").rsplit("/", 1)[-1]
        limits = limits or CollectLimits()
        tally = Tally(limits)
        # As root (which the run user cannot signal): no process of the run
        # is left to change the tree while the engine archives it.
        self.exec(container, [*REAP_COMMAND, RUN_USER], ExecOptions(user="root", workdir="/", timeout_s=30))
        prune_deep(self, container, src, limits, tally)  # paths the engine could not archive
        measured = self.exec(container, measure_command(src), ExecOptions(
            user="root", workdir="/", timeout_s=max(1.0, min(120.0, tally.remaining())), tail_bytes=256))
        reason = over_cap(parse_measure(measured.stdout), limits) if measured.ok else None
        if reason:
            return refuse_tree(Path(dest), reason)
        stream = self.open_archive(container, src)
        try:
            return extract_tree(stream, Path(dest), strip=strip, limits=limits, tally=tally)
        except (tarfile.TarError, OSError) as exc:
            raise _backend_error(exc, f"copy {src} out to {dest}", container) from exc
        except RuntimeBackendError:
            raise
        except Exception as exc:
            raise _backend_error(exc, f"copy {src} out to {dest}", container) from exc
        finally:
            stream.close()
