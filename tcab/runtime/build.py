"""Build an untrusted tree in a fresh container: the one way tcab does it.

The arena's builds of a run's controller (:mod:`tcab.arena.build`) and the
validation of an end-to-end run (:mod:`tcab.validation.container`) both copy
a tree nobody vetted into a container, run a case's ``[build]`` commands
there under the same limits, take *something* out while the container still
exists (one module file, one output folder), and remove the container.
:func:`build_in_container` does the first and last parts; what to take out
is the caller's, through the :class:`ContainerBuild` it yields::

    image = rt.ensure_image(resolve_image("adversarial"))
    with build_in_container(rt, image, tree, [("install", cmd1), ("build", cmd2)],
                            name=f"build-{run_id}", limits=BuildLimits(timeout_s=300)) as b:
        if b.ok:
            data = b.read_file("controller.wasm", max_bytes=64 << 20)
    b.log  # "$ cmd" lines, each command's output tail, why it stopped; last log_tail chars

A command that exits non-zero or is killed at its limit stops the sequence
and is data (:attr:`ContainerBuild.failure`); the engine failing raises
``RuntimeBackendError``. The container is removed on every way out of the
``with`` block, an exception inside it included.
"""

from __future__ import annotations

import math
import shlex
import tarfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tcab.errors import RuntimeBackendError
from tcab.runtime.base import (
    WORKDIR,
    CollectLimits,
    CollectReport,
    ContainerSpec,
    ExecEnd,
    ExecOptions,
    ExecResult,
    ImageInfo,
    Runtime,
)

#: Seconds each build command may run (wall clock, and without output).
BUILD_TIMEOUT_S = 600.0
#: Memory and process caps of a build container.
BUILD_MEMORY_BYTES = 4 * 1024**3
BUILD_PIDS_LIMIT = 1024
#: Characters of the build log kept (its end: where the error is).
BUILD_LOG_TAIL = 4000
#: Seconds a probe (``test -d``) of the built tree may take.
PROBE_TIMEOUT_S = 30.0


@dataclass(frozen=True, slots=True)
class BuildLimits:
    """Bounds of one container build; every field finite and positive.

    Raises ``ValueError`` naming the field otherwise.
    """

    timeout_s: float = BUILD_TIMEOUT_S
    memory_bytes: int = BUILD_MEMORY_BYTES
    pids_limit: int = BUILD_PIDS_LIMIT
    log_tail: int = BUILD_LOG_TAIL

    def __post_init__(self) -> None:
        for name in ("timeout_s", "memory_bytes", "pids_limit", "log_tail"):
            value = getattr(self, name)
            if (isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value)
                    or value <= 0 or (name != "timeout_s" and not isinstance(value, int))):
                kind = "number" if name == "timeout_s" else "integer"
                raise ValueError(f"BuildLimits.{name}: expected a finite positive {kind}, got {value!r}")

    def lifetime_s(self, extra_s: float = 0.0) -> float:
        """The longest a build container may live: its install and build
        steps (``timeout_s`` each), the probe, and ``extra_s`` of the
        caller's own steps. A kubernetes pod's leak guard
        (activeDeadlineSeconds) comes from here, not from a run's default."""
        return 2 * self.timeout_s + PROBE_TIMEOUT_S + extra_s


@dataclass(frozen=True, slots=True)
class BuildStep:
    """One command of the build and what it did."""

    name: str       # "install", "build": the [build] key it came from
    command: str
    result: ExecResult
    timeout_s: float

    @property
    def ok(self) -> bool:
        return self.result.end is ExecEnd.EXITED and self.result.exit_code == 0

    @property
    def killed(self) -> bool:
        """Stopped by a limit (or canceled), not by its own exit."""
        return self.result.end is not ExecEnd.EXITED

    @property
    def why(self) -> str:
        """Why it failed, e.g. ``exit code 3`` or ``timed_out after 3s (limit 3s)``."""
        if self.killed:
            return f"{self.result.end.value} after {self.result.duration_s:.0f}s (limit {self.timeout_s:.0f}s)"
        return f"exit code {self.result.exit_code}"


class ContainerBuild:
    """An open build container: the steps it ran, its log, and the ways to
    take results out of it (only inside the ``with`` block)."""

    def __init__(self, rt: Runtime, container: str, image: ImageInfo, limits: BuildLimits):
        self.rt, self.container, self.image, self.limits = rt, container, image, limits
        self.steps: list[BuildStep] = []
        self._log: list[str] = []

    @property
    def failure(self) -> BuildStep | None:
        """The step that stopped the build, None when every step exited 0."""
        return next((s for s in self.steps if not s.ok), None)

    @property
    def ok(self) -> bool:
        return self.failure is None

    @property
    def log(self) -> str:
        """The build log's last ``limits.log_tail`` characters."""
        return "\n".join(self._log)[-self.limits.log_tail:]

    def note(self, line: str) -> None:
        """Add a line of the caller's to the log (what it found missing, say)."""
        self._log.append(line)

    def run(self, steps: Sequence[tuple[str, str]]) -> None:
        """Run ``(name, command)`` pairs with ``sh -c`` in ``/work``; stop at the first failure.
        An empty command is skipped."""
        timeout = self.limits.timeout_s
        for name, command in steps:
            if not command:
                continue
            self._log.append(f"$ {command}")
            res = self.rt.exec(self.container, ["sh", "-c", command],
                               ExecOptions(timeout_s=timeout, idle_timeout_s=timeout))
            step = BuildStep(name, command, res, timeout)
            self.steps.append(step)
            self._log.append(res.output)
            if not step.ok:
                self._log.append(step.why)
                return

    def is_dir(self, rel: str) -> bool:
        """Whether ``/work/<rel>`` is a folder in the container."""
        probe = self.rt.exec(self.container, ["sh", "-c", f"test -d {shlex.quote(f'{WORKDIR}/{rel}')}"],
                             ExecOptions(timeout_s=PROBE_TIMEOUT_S))
        return probe.end is ExecEnd.EXITED and probe.exit_code == 0

    def copy_out(self, rel: str, dest: Path, limits: CollectLimits) -> CollectReport:
        """Copy folder ``/work/<rel>`` to the new host folder ``dest`` through the
        runtime's safe collection (symlinks out, devices, oversized trees refused)."""
        return self.rt.copy_out(self.container, f"{WORKDIR}/{rel}", dest, limits)

    def read_file(self, rel: str, max_bytes: int) -> bytes | None:
        """The bytes of ``/work/<rel>`` when it is one regular file of at most
        ``max_bytes``; None when it is missing, a link, a folder or too big.
        Nothing of it is written to the host."""
        try:
            stream = self.rt.open_archive(self.container, f"{WORKDIR}/{rel}")
        except RuntimeBackendError:
            return None  # no such path: the build did not produce it
        with stream, tarfile.open(fileobj=stream, mode="r|") as tar:
            member = tar.next()
            if member is None or not member.isfile() or member.size > max_bytes:
                return None
            fh = tar.extractfile(member)
            return fh.read() if fh is not None else None


@contextmanager
def build_in_container(rt: Runtime, image: ImageInfo, tree: Path, steps: Sequence[tuple[str, str]], *,
                       name: str, limits: BuildLimits | None = None,
                       offline: bool = False) -> Iterator[ContainerBuild]:
    """Start a container of ``image`` labelled ``name``, copy the contents of
    ``tree`` into ``/work``, run ``steps`` (see :meth:`ContainerBuild.run`),
    and yield the open build (``offline``: the container has no network).
    The container is removed when the block ends,
    however it ends.

    Raises ``RuntimeBackendError`` when the engine fails (start, copy,
    exec, remove). When the block raises and removing fails too, the block's
    exception is the one raised, with the removal failure added as a note.
    """
    limits = limits or BuildLimits()
    cid = rt.start(ContainerSpec(image=image.ref, run_id=name, memory_bytes=limits.memory_bytes,
                                 pids_limit=limits.pids_limit, offline=offline))
    try:
        rt.copy_in(cid, tree)
        build = ContainerBuild(rt, cid, image, limits)
        build.run(steps)
        yield build
    except BaseException as exc:
        try:
            rt.remove(cid)
        except RuntimeBackendError as rm_exc:
            exc.add_note(f"and removing container {cid[:12]} failed: {rm_exc}")
        raise
    rt.remove(cid)
