"""The runtime protocol: what the run lifecycle (and the arena's builds) need
from a container engine, and the frozen types that cross it.

A backend starts a container from an image, copies a tree in, runs commands
in it as the run user with a time bound and streamed output, copies a tree
out, and removes it. Two kinds of failure are kept apart on purpose:

- what the *command* did (non-zero exit, killed at its deadline, silent for
  the idle window) is data in an :class:`ExecResult`: those are outcomes a run
  records;
- the *backend itself* failing (socket gone, image missing, container
  vanished mid-copy) raises :class:`~tcab.errors.RuntimeBackendError`, so it
  can never come back dressed as a command result and be blamed on a model;
- any other exception (a bug in tcab, in a sink passed in ExecOptions
  included) passes through a backend unchanged: only the exceptions of the
  libraries a backend drives are translated, so a bug is never recorded as
  the platform's failure.

Every method's "Raises" section below is the contract each backend honours;
``tests/runtime/test_conformance.py`` is what "a backend works" means.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Protocol, runtime_checkable

#: The label every tcab container carries; its value is the run id.
RUN_LABEL = "org.tcab.run-id"
#: The unprivileged user the images define; commands run as it by default.
RUN_USER = "tcab"
#: Where the seeded repository lives inside a container.
WORKDIR = "/work"

#: Called for every complete output line: (stream, line without newline, unix time).
OutputSink = Callable[[str, str, float], None]


@dataclass(frozen=True, slots=True)
class ImageInfo:
    """An image present locally: the reference asked for, its local id and
    the registry digest (``name@sha256:...``) when it has one, else the id."""

    ref: str
    id: str
    digest: str
    pulled: bool = False


@dataclass(frozen=True, slots=True)
class ContainerSpec:
    """How to start a run container.

    ``labels`` always gains ``RUN_LABEL=run_id``. ``host_gateway`` routes
    ``host.docker.internal`` to the host (only when a preview sink watches
    the run); otherwise no host mapping is added. ``env`` is the container's
    own environment: never put secrets here (they would show in the
    engine's inspect output); pass them per command in ``ExecOptions.env``.
    """

    image: str
    run_id: str
    labels: Mapping[str, str] = field(default_factory=dict)
    env: Mapping[str, str] = field(default_factory=dict)
    host_gateway: bool = False
    memory_bytes: int | None = None
    pids_limit: int | None = 4096
    offline: bool = False  # no network at all (a provenance rebuild); docker honours it, kubernetes refuses it


class StreamFilter(Protocol):
    """Rewrites one output stream's bytes before anything keeps them
    (``ExecOptions.redact``); it may hold bytes back until :meth:`flush`."""

    def feed(self, data: bytes) -> bytes: ...

    def flush(self) -> bytes: ...


def check_limit(owner: str, name: str, value: float | None, *, optional: bool = True) -> None:
    """Raise ValueError unless ``value`` is a finite positive number (or None
    when ``optional``): NaN or infinity would switch a watchdog off silently."""
    if value is None and optional:
        return
    if (isinstance(value, bool) or not isinstance(value, (int, float))
            or not math.isfinite(value) or value <= 0):
        raise ValueError(f"{owner}.{name}: expected a finite positive number, got {value!r}")


@dataclass(frozen=True, slots=True)
class ExecOptions:
    """How to run one command.

    ``timeout_s`` bounds the wall time, ``idle_timeout_s`` the time without
    any output byte (keep-alive frames do not count). When either fires the
    command's whole process group is killed with SIGKILL inside the
    container and the output produced before the kill is kept.
    ``cancel`` is polled about every 0.2 s; when it returns True the command
    is killed the same way and the result says ``canceled``.
    ``redact`` makes one :class:`StreamFilter` per stream; every byte passes
    it before it is cut into lines (``on_output``) or kept in a tail, so a
    secret cut by a line or tail boundary is still caught whole.
    Time limits must be finite and positive (ValueError otherwise).
    """

    user: str = RUN_USER
    workdir: str = WORKDIR
    env: Mapping[str, str] = field(default_factory=dict)
    timeout_s: float | None = None
    idle_timeout_s: float | None = None
    on_output: OutputSink | None = None
    cancel: Callable[[], bool] | None = None
    tail_bytes: int = 65536
    redact: Callable[[], StreamFilter] | None = None

    def __post_init__(self) -> None:
        check_limit("ExecOptions", "timeout_s", self.timeout_s)
        check_limit("ExecOptions", "idle_timeout_s", self.idle_timeout_s)
        if isinstance(self.tail_bytes, bool) or not isinstance(self.tail_bytes, int) or self.tail_bytes < 0:
            raise ValueError(f"ExecOptions.tail_bytes: expected a non-negative integer, got {self.tail_bytes!r}")


class ExecEnd(enum.StrEnum):
    """Why a command stopped."""

    EXITED = "exited"
    TIMED_OUT = "timed_out"
    IDLE = "idle"
    CANCELED = "canceled"


@dataclass(frozen=True, slots=True)
class ExecResult:
    """What a command did. ``exit_code`` is None when it was killed before
    its exit status could be read. ``stdout``/``stderr`` hold the last
    ``tail_bytes`` of each stream (decoded, replacement on bad UTF-8)."""

    end: ExecEnd
    exit_code: int | None
    duration_s: float
    stdout: str = ""
    stderr: str = ""

    @property
    def ok(self) -> bool:
        return self.end is ExecEnd.EXITED and self.exit_code == 0

    @property
    def output(self) -> str:
        """Both tails, for diagnostics."""
        return (self.stdout + ("\n" if self.stdout and self.stderr else "") + self.stderr).strip()


@dataclass(frozen=True, slots=True)
class Refusal:
    """One entry of a collected tree that was not written to the host."""

    path: str
    reason: str


@dataclass(frozen=True, slots=True)
class CollectLimits:
    """Bounds on a tree copied out of a container (written by untrusted code).

    - ``max_bytes``: the *apparent* size of the tree's regular files (and of
      the copies its hardlinks become), counted at each entry's header,
      before its data is read: a sparse file counts its whole length (its
      holes cost nothing to write, but reading them costs the engine seconds
      per GiB). Over it, the whole tree is refused, the rest unread.
    - ``max_file_bytes``: apparent size of one file; a larger file is
      refused alone (listed), the rest is kept.
    - ``max_entries``: entries in the archive plus refusals that are not
      entries of it (files the collector could not read, paths pruned in the
      container); over it, the whole tree is refused.
    - ``max_seconds``: wall time of the whole copy-out (reading the archive,
      pruning, the checks); over it, the whole tree is refused.
    - ``max_depth``/``max_path_bytes``: components and UTF-8 bytes of one
      path relative to the tree (also bounds a symlink's target); a deeper or
      longer entry is refused alone, so no path nears the host's PATH_MAX.
    - ``max_git_bytes``/``max_git_objects``/``max_git_scan_s``: how much of
      the collected git objects the secret scan decompresses (bytes, objects,
      seconds); git object files past a bound are removed and listed.

    Every value must be a positive integer (seconds: positive and finite).
    """

    max_bytes: int = 2 * 1024**3
    max_file_bytes: int = 1024**3
    max_entries: int = 500_000
    max_depth: int = 64
    max_path_bytes: int = 1024
    max_git_bytes: int = 256 * 1024**2
    max_git_objects: int = 200_000
    max_git_scan_s: float = 120.0
    max_seconds: float = 600.0

    def __post_init__(self) -> None:
        for name in self.__slots__:
            value = getattr(self, name)
            number = isinstance(value, int | float) and not isinstance(value, bool)
            if name not in ("max_git_scan_s", "max_seconds") and not isinstance(value, int):
                number = False
            if not number or not math.isfinite(value) or value <= 0:
                raise ValueError(f"CollectLimits.{name}: expected a positive finite number, got {value!r}")


@dataclass(frozen=True, slots=True)
class CollectReport:
    """What landed on the host: counts, total file bytes, and what was refused.
    ``truncated`` is True when the whole tree was refused for a limit.
    ``refused`` is bounded (the collector lists at most
    :data:`~tcab.runtime.collect.MAX_REFUSALS_LISTED`, then one entry saying
    how many more); ``refused_count`` is how many there were in all (None
    given: ``len(refused)``)."""

    files: int
    bytes: int
    refused: tuple[Refusal, ...] = ()
    truncated: bool = False
    refused_count: int | None = None

    def __post_init__(self) -> None:
        if self.refused_count is None:
            object.__setattr__(self, "refused_count", len(self.refused))


@runtime_checkable
class Runtime(Protocol):
    """A container engine as the run lifecycle sees it.

    Every method raises :class:`~tcab.errors.RuntimeBackendError` (or its
    subclass :class:`~tcab.errors.ImageNotFound`) when the engine itself
    fails, with the container and operation named in the message; none of
    them raises for what a command did.
    """

    name: str

    def ensure_image(self, ref: str, *, pull: bool = True) -> ImageInfo:
        """Return the local image ``ref``, pulling it only when missing.
        Raises ImageNotFound when it is neither local nor pullable. A backend
        whose nodes pull at start (kubernetes) returns an empty ``id`` and
        ``digest`` until one of its containers ran ``ref``, and ``start``
        raises ImageNotFound instead."""
        ...

    def start(self, spec: ContainerSpec) -> str:
        """Create and start a container idling until removed; return its id."""
        ...

    def image_digest(self, container: str) -> ImageInfo:
        """The image the running ``container`` was started from, with the
        digest the engine reports for it (what a run records: on kubernetes
        ``ensure_image`` cannot know it before a pod runs the image)."""
        ...

    def copy_in(self, container: str, src: Path, dest: str = WORKDIR) -> None:
        """Copy the *contents* of host folder ``src`` into ``dest`` (which
        exists), owned by the run user. Symlinks are copied as links."""
        ...

    def exec(self, container: str, argv: list[str], options: ExecOptions | None = None) -> ExecResult:
        """Run ``argv`` (no shell unless you pass one), streaming output lines
        to ``options.on_output``; enforce the time bounds inside the container."""
        ...

    def copy_out(self, container: str, src: str, dest: Path, limits: CollectLimits | None = None) -> CollectReport:
        """Copy the contents of folder ``src`` to the new host folder ``dest``
        (written atomically), refusing what would escape or harm the host.
        When ``src`` is a file it lands as ``dest/<its name>``."""
        ...

    def open_archive(self, container: str, src: str) -> BinaryIO:
        """A readable tar stream of ``src`` (entries prefixed by its basename)."""
        ...

    def remove(self, container: str) -> None:
        """Kill and remove the container; removing a missing one is fine."""
        ...

    def list_run_containers(self, run_id: str | None = None) -> list[str]:
        """Ids of containers carrying ``RUN_LABEL`` (with that value if given)."""
        ...

    def preview_address(self) -> str:
        """The host address a container started with ``host_gateway`` reaches
        as ``host.docker.internal``: a watched run's preview listener binds it,
        and only it. Raises RuntimeSettingsError when the backend cannot say
        (kubernetes without the driver's pod IP)."""
        ...

    def container_address(self, container: str) -> str | None:
        """The source address of what ``container`` sends to
        :meth:`preview_address` (a watched run's listener takes frames from it
        alone), or None when the backend cannot promise one."""
        ...
