"""The steps of one run inside its container, and how each ends.

:class:`RunState` drives the runtime through the stages and decides the
status. Install, probe and init failures (non-zero exit, timeout, missing
binary) are ``infrastructure`` with the captured output in the detail; the
session's ending maps to ``completed``, ``harness_error``, ``timed_out``
(max runtime), ``hung`` (idle window) or ``canceled``. A backend error at
any step is ``infrastructure``. Any other exception is a bug in tcab: the
run stops as ``internal_error`` and the traceback is kept
(:mod:`tcab.runs.faults`), except in event handling (the adapter, the
``on_event`` sink), where the run goes on with its own status and the
failure in its detail. The container is removed in every case.

Once the stages are over (finished, stopped or interrupted), the run's
:class:`~tcab.runs.interrupts.InterruptShield` holds further interrupts back
until :func:`~tcab.runs.lifecycle.execute_run` has written the record and
its row: a second Ctrl-C cannot cut the removal or the record short.
"""

from __future__ import annotations

import datetime
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tcab.catalog import tree_digest
from tcab.errors import RuntimeBackendError
from tcab.harnesses import SOLUTION_DIR, Harness, Tokens
from tcab.harnesses.environment import ENVIRONMENT_PROBE, parse_environment
from tcab.harnesses.watch import SessionWatch
from tcab.outcomes import RunStatus
from tcab.runs.environments import load_environment, store_environment
from tcab.runs.faults import FaultLog, summary
from tcab.runs.interrupts import InterruptShield
from tcab.runs.log import RunLog, readable
from tcab.runs.record import StageRecord
from tcab.runs.scrub import scrub_tree
from tcab.runtime import ContainerSpec, ExecEnd, ExecOptions, ExecResult, Refusal, Runtime

_DETAIL_TAIL = 2000
_ENVIRONMENT_PROBE_S = 30.0


def _utc(t: float) -> str:
    return datetime.datetime.fromtimestamp(t, datetime.UTC).isoformat(timespec="milliseconds")


class _Stop(Exception):
    """Ends the run early with a status (internal control flow)."""

    def __init__(self, status: RunStatus, detail: str):
        super().__init__(detail)
        self.status, self.detail = status, detail


@dataclass(slots=True)
class Outcome:
    """What :meth:`RunState.execute` found (mutable while the run goes on)."""

    status: RunStatus = RunStatus.INFRASTRUCTURE
    detail: str = ""
    started_at: str = ""
    finished_at: str = ""
    duration_s: float = 0.0
    stages: list[StageRecord] = field(default_factory=list)
    harness_version: str | None = None
    image_digest: str | None = None
    image_id: str | None = None
    tokens: Tokens = field(default_factory=Tokens)
    artifact_digest: str | None = None
    files: int = 0
    bytes: int = 0
    refused: list[Refusal] = field(default_factory=list)
    interrupted: bool = False
    environment: dict[str, str | None] | None = None
    #: The summary of the first bug in tcab met during the run (see tcab.runs.faults).
    internal_error: str | None = None


def _tail(result: ExecResult, limit: int = _DETAIL_TAIL) -> str:
    """The end of a command's output for a status detail, without terminal
    escapes (the tails were redacted on the stream, before they were cut)."""
    text = readable(result.output).strip()
    return text[-limit:] if text else "(no output)"


def _why(result: ExecResult) -> str:
    if result.end is ExecEnd.EXITED:
        return f"exit {result.exit_code}"
    return {"timed_out": "timed out (max runtime)", "idle": "no output for the idle window",
            "canceled": "canceled"}[result.end.value]


@dataclass(slots=True)
class RunState:
    """The inputs of one run's container part; :meth:`execute` runs it."""

    run_id: str
    run_dir: Path
    runtime: Runtime
    harness: Harness
    options: Any  # RunOptions (import cycle)
    image_ref: str
    seed_dir: Path
    solutions: tuple[Path, ...]  # laid over each other in /tmp/tcab-solution, in order
    prompt: str
    init: str | None
    secrets: dict[str, str]
    max_runtime_s: float
    seed_started: float
    shield: InterruptShield = field(default_factory=InterruptShield)
    #: Bugs in tcab met during the run (the adapter's guard notes into it too).
    faults: FaultLog = field(default_factory=FaultLog)
    # Where the image's probed tool versions are kept by image id (None: probe every run).
    environment_cache: Path | None = None
    #: Called with the container's id once it started (a watched run's listener
    #: learns its one peer from it); a backend error in it is infrastructure.
    on_started: Callable[[str], None] | None = None
    container: str | None = None
    deadline: float = 0.0
    out: Outcome = field(default_factory=Outcome)

    def execute(self, log: RunLog) -> Outcome:
        """Run every stage; always remove the container; return the outcome.

        From the end of the stages on, interrupts are held back by
        ``self.shield`` (the caller releases it once the record is written).
        """
        out = self.out
        started = time.time()
        out.started_at = _utc(self.seed_started)
        out.stages.append(StageRecord("seed", "ok", _utc(self.seed_started), started - self.seed_started))
        self.deadline = time.monotonic() + self.max_runtime_s
        try:
            if self._stages(log) and self.container:
                self._collect(log)
        except KeyboardInterrupt:  # the tree is not collected: the user wants out
            out.status, out.detail, out.interrupted = RunStatus.CANCELED, "interrupted", True
        except Exception as exc:  # noqa: BLE001 - a bug in tcab: recorded as ours, never as the platform's
            self.faults.note(f"running the {log.stage} stage", exc, stopped=True)
            out.status = RunStatus.INTERNAL_ERROR
            out.detail = f"a bug in tcab stopped the run in its {log.stage} stage: {summary(exc)}"
        finally:
            self.shield.hold()
            self._remove(log)
            self._close(log)
        return out

    def _stages(self, log: RunLog) -> bool:
        """Prepare the container and run the session, setting the status;
        whether the session ran (then its tree is collected)."""
        try:
            self._prepare(log)
        except _Stop as stop:
            self.out.status, self.out.detail = stop.status, stop.detail
            return False
        try:
            self._session(log)
        except _Stop as stop:
            self.out.status, self.out.detail = stop.status, stop.detail
        return True

    def _close(self, log: RunLog) -> None:
        """Note dropped log lines, the end time, and the final log line."""
        out = self.out
        lines, size = log.dropped
        if lines:
            note = f"{lines} output lines ({size} bytes) dropped past the log cap of {log.max_bytes} bytes"
            out.detail = f"{out.detail}; {note}".lstrip("; ")
        first = self.faults.first
        if first is not None:
            out.internal_error = f"{first.summary} (while {first.where})"
            if out.status is not RunStatus.INTERNAL_ERROR:
                times = f" ({self.faults.count} times)" if self.faults.count > 1 else ""
                note = (f"a bug in tcab while {first.where}{times}, the status is the session's own: "
                        f"{first.summary}")
                out.detail = f"{out.detail}; {note}".lstrip("; ")
            out.detail += " (traceback in internal-error.txt)"
        finished = time.time()
        out.finished_at = _utc(finished)
        out.duration_s = finished - self.seed_started
        log.stage = "end"
        log.system(f"run {out.status}: {out.detail}".rstrip(": "), status=out.status)

    # -- stages -------------------------------------------------------------

    def _step(self, log: RunLog, name: str, fn):
        """A non-command step; a backend error stops the run as infrastructure."""
        self._check_cancel()
        log.stage = name
        log.system(f"{name} started")
        t0 = time.time()
        try:
            value = fn()
        except RuntimeBackendError as exc:
            self._record(log, name, "failed", t0, detail=str(exc))
            raise _Stop(RunStatus.INFRASTRUCTURE, f"{name} failed: {exc}") from exc
        self._record(log, name, "ok", t0)
        return value

    def _command(self, log: RunLog, name: str, argv: list[str], *, env=None,
                 idle: float | None = None, workdir: str = "/work",
                 watch: SessionWatch | None = None) -> ExecResult:
        """A command stage bounded by what is left of the max runtime."""
        self._check_cancel()
        log.stage = name
        log.system(f"{name} started")
        t0 = time.time()
        cancel = self.options.cancel
        opts = ExecOptions(
            env={**self.harness.env, **(env or {})}, workdir=workdir,
            timeout_s=max(self.deadline - time.monotonic(), 0.001), idle_timeout_s=idle,
            on_output=watch.on_output if watch else log.output,
            cancel=watch.cancel if watch else (cancel.is_set if cancel is not None else None),
            redact=log.redactor.stream if log.redactor else None,
        )
        try:
            result = self.runtime.exec(self.container, argv, opts)
        except RuntimeBackendError as exc:
            self._record(log, name, "failed", t0, detail=str(exc))
            raise _Stop(RunStatus.INFRASTRUCTURE, f"{name} failed: {exc}") from exc
        status = {"exited": "ok" if result.exit_code == 0 else "failed", "timed_out": "timed_out",
                  "idle": "hung", "canceled": "canceled"}[result.end.value]
        hung_by_watch = watch is not None and watch.idle_fired
        if hung_by_watch:  # only keep-alive lines (or nothing) for the idle window
            status = "hung"
        self._record(log, name, status, t0, exit_code=result.exit_code,
                     detail="" if status == "ok" else
                     "no output but retries for the idle window" if hung_by_watch else _why(result))
        if result.end is ExecEnd.CANCELED and not hung_by_watch:
            raise _Stop(RunStatus.CANCELED, f"canceled during {name}")
        return result

    def _prepare(self, log: RunLog) -> None:
        rt, out = self.runtime, self.out
        image = self._step(log, "pull", lambda: rt.ensure_image(self.image_ref))
        spec = ContainerSpec(image=image.ref, run_id=self.run_id, host_gateway=self.options.watch is not None)

        def start() -> None:
            self.container = rt.start(spec)
            if self.on_started is not None:
                self.on_started(self.container)
            # The digest of what the container runs: a kubernetes node
            # resolves the image only when it starts the pod.
            running = rt.image_digest(self.container)
            out.image_digest, out.image_id = running.digest, running.id
        self._step(log, "start", start)
        out.environment = self._environment(out.image_id)
        self._step(log, "copy_in", lambda: rt.copy_in(self.container, self.seed_dir))
        if self.harness.install.strip():
            res = self._command(log, "install", ["sh", "-c", self.harness.install], workdir="/home/tcab")
            if not res.ok:
                raise _Stop(RunStatus.INFRASTRUCTURE, f"install failed ({_why(res)}): {_tail(res)}")
        res = self._command(log, "probe", [self.harness.binary, *self.harness.version_args])
        if not res.ok:
            raise _Stop(RunStatus.INFRASTRUCTURE, f"probe `{self.harness.binary} "
                        f"{' '.join(self.harness.version_args)}` failed ({_why(res)}): {_tail(res)}")
        lines = [ln for ln in (res.stdout or res.stderr).splitlines() if ln.strip()]
        out.harness_version = readable(lines[0]).strip()[:200] if lines else None
        if self.init and self.init.strip():
            res = self._command(log, "init", ["sh", "-c", self.init])
            if not res.ok:
                raise _Stop(RunStatus.INFRASTRUCTURE, f"init failed ({_why(res)}): {_tail(res)}")
        if self.solutions:
            def stage_solution() -> None:
                rt.exec(self.container, ["mkdir", "-p", SOLUTION_DIR])
                for folder in self.solutions:
                    rt.copy_in(self.container, folder, SOLUTION_DIR)
            self._step(log, "stage_solution", stage_solution)

    def _session(self, log: RunLog) -> None:
        out = self.out
        argv = self.harness.session_argv(self.prompt, self.options.model)
        cancel = self.options.cancel
        # The adapter decides what counts as output for the idle window
        # (retry lines do not) and what the session's ending means.
        watch = SessionWatch(log.adapter, self.options.idle_timeout_s, log.output,
                             cancel.is_set if cancel is not None else None)
        try:
            res = self._command(log, "session", argv, env=self.secrets, idle=self.options.idle_timeout_s,
                                watch=watch)
        finally:
            out.tokens = log.adapter.tokens()
        verdict = log.adapter.verdict()
        if res.end is ExecEnd.TIMED_OUT:
            out.status, out.detail = RunStatus.TIMED_OUT, f"max runtime of {self.max_runtime_s:g} s reached"
        elif res.end is ExecEnd.IDLE or watch.idle_fired:
            retries = f" ({watch.keepalives} retry lines only)" if watch.keepalives else ""
            out.status, out.detail = RunStatus.HUNG, f"no output for {self.options.idle_timeout_s:g} s{retries}"
        elif verdict is not None:  # recognised failure or ceiling, whatever the exit code
            code = f"exit {res.exit_code}: " if res.exit_code else ""
            out.status, out.detail = RunStatus(verdict.status), f"{code}{verdict.detail}"
        elif res.exit_code == 0:
            out.status, out.detail = RunStatus.COMPLETED, ""
        else:
            out.status, out.detail = RunStatus.HARNESS_ERROR, f"exit {res.exit_code}: {_tail(res, 500)}"

    def _collect(self, log: RunLog) -> None:
        out = self.out
        work = self.run_dir / "work"
        try:
            report = self._step(log, "collect", lambda: self.runtime.copy_out(
                self.container, "/work", work, self.options.limits))
        except _Stop as stop:
            if out.status is RunStatus.COMPLETED:
                out.status, out.detail = RunStatus.INFRASTRUCTURE, stop.detail
            else:
                out.detail = f"{out.detail}; {stop.detail}".lstrip("; ")
            return
        out.files, out.bytes = report.files, report.bytes
        out.refused = scrub_tree(work, report.refused, found_in=log.redactor.found_in, redact=log.redactor.redact, active=bool(log.redactor), limits=self.options.limits)  # noqa: E501
        out.artifact_digest = tree_digest(work)
        if report.truncated:
            out.detail = f"{out.detail}; collection refused the tree: {report.refused[0].reason}".lstrip("; ")

    def _remove(self, log: RunLog) -> None:
        t0 = time.time()
        try:
            # A Ctrl-C inside start() can leave a created container whose id
            # never reached us: find it by the run label instead.
            ids = [self.container] if self.container else self.runtime.list_run_containers(self.run_id)
            if not ids:
                return
            log.stage = "remove"
            for cid in ids:
                self.runtime.remove(cid)
            self._record(log, "remove", "ok", t0)
        except RuntimeBackendError as exc:
            self._record(log, "remove", "failed", t0, detail=str(exc))
            self.out.detail = f"{self.out.detail}; container not removed: {exc}".lstrip("; ")
        except Exception as exc:  # noqa: BLE001 - a bug in tcab: the record is still written
            self.faults.note("removing the container", exc)
            self._record(log, "remove", "failed", t0, detail=summary(exc))
            self.out.detail = f"{self.out.detail}; container not removed: {summary(exc)}".lstrip("; ")

    # -- helpers -------------------------------------------------------------

    def _environment(self, image_id: str | None) -> dict[str, str | None] | None:
        """The image's tool versions: kept by image id, else probed (and kept)."""
        if self.environment_cache is None:
            return self._probe_environment()
        found = load_environment(self.environment_cache, image_id)
        if found is None:
            found = self._probe_environment()
            if found is not None:
                store_environment(self.environment_cache, image_id, found)
        return found

    def _probe_environment(self) -> dict[str, str | None] | None:
        """The image's tool versions for run.json, read before anything is
        installed; a probe that fails leaves them unknown, never the run."""
        try:
            res = self.runtime.exec(self.container, ENVIRONMENT_PROBE,
                                    ExecOptions(timeout_s=_ENVIRONMENT_PROBE_S, tail_bytes=4096))
        except RuntimeBackendError:
            return None
        return parse_environment(res.stdout) if res.ok else None

    def _check_cancel(self) -> None:
        cancel = self.options.cancel
        if cancel is not None and cancel.is_set():
            raise _Stop(RunStatus.CANCELED, "canceled")

    def _record(self, log: RunLog, name: str, status: str, t0: float, *,
                exit_code: int | None = None, detail: str = "") -> None:
        duration = time.time() - t0
        self.out.stages.append(StageRecord(name, status, _utc(t0), duration, exit_code, detail))
        word = "completed" if status == "ok" else status
        log.system(f"{name} {word}" + (f": {detail}" if detail else ""), duration_s=round(duration, 3))

