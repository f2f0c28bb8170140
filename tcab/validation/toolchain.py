"""A case's ``[toolchain]`` commands over the built tree, in the build container.

After ``[build]`` install and build (:mod:`tcab.validation.container`), each
declared command (``typecheck``, ``lint``, ``format``, ``test``, in that order)
runs with ``sh -c`` in ``/work`` as the run user, in the same container, each
bounded by :class:`ToolchainLimits` (killed in the container at its deadline,
the output before the kill kept). What each did is a :class:`ToolResult`:

- ``passed``: exited 0;
- ``failed``: exited non-zero;
- ``timed_out``: killed at ``timeout_s`` (wall clock or silence);
- ``not_run``: never started, because ``[build].install`` failed (the
  dependencies it needs are missing), with the reason.

Only ``typecheck`` gates: one that *ran* and exited non-zero rates the run
``broken`` (:func:`gate_of`; the original's "code that does not compile is
not reviewable"). A typecheck that never finished (``timed_out``,
``not_run``) says nothing about the code and leaves the run ungated; the
other commands are recorded only. Output tails pass the secret redactor on
the stream, lose their terminal escapes (colours, OSC titles and links,
control characters: :func:`tcab.runs.log.readable`) and pass the redactor
again as text, as a run's output does.

Each command runs under a small shell wrapper that bounds it with its own
deadline and, when it ends, kills every process the run user still has in
the container (``kill -9``, a shell builtin, over ``/proc``, so it works even
when the command left the pid limit full); it does the same before the command, for
what ``[build]`` left. A command's detached children (``setsid``, double
forks, 3,000 ``sleep`` processes) never outlive it to starve the next command. The
engine's own limit, :data:`KILL_GRACE_S` later, is the backstop.

The commands are the tree's own code (``npx tsc`` resolves through the
tree's ``node_modules``), so they run where the build ran: never on the host.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from tcab.catalog.model import Toolchain
from tcab.errors import HarnessError, ValidationError
from tcab.limits import check_limits
from tcab.runs.log import readable
from tcab.runs.secrets import Redactor
from tcab.runtime import ContainerBuild, ExecEnd, ExecOptions

#: How one toolchain command ended (the ``toolchain_results.status`` vocabulary).
TOOL_STATUSES = ("passed", "failed", "timed_out", "not_run")
#: The command whose failure gates the run, and the rating it gives.
GATING_COMMAND = "typecheck"
GATE_RATING = "broken"
#: How long after a command's own deadline the engine kills the wrapper.
KILL_GRACE_S = 10.0
# $1: the deadline in seconds, $2: the command. `timeout` runs the command in
# its own process group and kills that group at the deadline; `sweep` then
# reaches whatever escaped it: every process the run user may signal but
# PID 1, this shell and its parent (the exec's `setsid -w`, whose exit is the
# exec's), pass after pass until none is left (bounded: a fork bomb racing it
# loses a generation per pass). Only builtins: no fork, even at the pid limit.
# Exit 124/137 at or after the deadline is a timeout.
_WRAPPER = (
    'sweep() { n=0; while [ $n -lt 20 ]; do hit=; for d in /proc/[0-9]*; do p=${d#/proc/}; '
    'case $p in 1|$$|$PPID) continue;; esac; kill -9 "$p" 2>/dev/null && hit=1; done; '
    '[ -z "$hit" ] && return 0; n=$((n+1)); done; }; '
    'sweep; timeout -s KILL "$1" sh -c "$2"; code=$?; sweep; exit $code'
)
_TIMEOUT_CODES = (124, 137)


@dataclass(frozen=True, slots=True)
class ToolchainLimits:
    """Bounds of each toolchain command; every field finite and positive,
    else ``ValidationError`` naming it.

    ``timeout_s``: wall clock, and the longest silence, of one command.
    ``tail_bytes``: the end of its output kept (per stream while it runs,
    then of both together), so a command printing gigabytes leaves a few KB.
    """

    timeout_s: float = 300.0
    tail_bytes: int = 4096

    def __post_init__(self) -> None:
        check_limits(self, "toolchain", ValidationError)


@dataclass(frozen=True, slots=True)
class ToolResult:
    """One ``[toolchain]`` command and what it did (a ``toolchain_results`` row)."""

    name: str               # typecheck | lint | format | test
    command: str
    status: str             # TOOL_STATUSES
    exit_code: int | None
    duration_s: float
    output: str             # the redacted tail of stdout and stderr
    detail: str             # "exited 0", "exited 2", "timed_out after 5s (limit 5s)", "not run: ..."

    @property
    def gates(self) -> bool:
        """Whether this result rates the run ``broken``: a typecheck that ran and failed."""
        return self.name == GATING_COMMAND and self.status == "failed"

    def row(self) -> dict:
        return {"name": self.name, "command": self.command, "status": self.status, "exit_code": self.exit_code,
                "duration_s": round(self.duration_s, 3), "output": self.output, "detail": self.detail,
                "gates": self.gates}


def gate_of(results: tuple[ToolResult, ...] | list[ToolResult]) -> str | None:
    """``"broken"`` when a typecheck ran and failed, else None (ungated)."""
    return GATE_RATING if any(r.gates for r in results) else None


def not_run(toolchain: Toolchain, reason: str) -> tuple[ToolResult, ...]:
    """Every declared command recorded as never started, with ``reason``."""
    return tuple(ToolResult(name, cmd, "not_run", None, 0.0, "", f"not run: {reason}")
                 for name, cmd in toolchain.commands())


def run_toolchain(box: ContainerBuild, toolchain: Toolchain, limits: ToolchainLimits,
                  redactor: Redactor | None = None) -> tuple[ToolResult, ...]:
    """Run the declared commands in ``box`` (after its install and build).

    When ``[build].install`` did not succeed every command is ``not_run``; a
    failed ``build`` does not stop them (a typecheck explains a build that
    broke). One command failing or hanging never stops the next. Raises
    ``RuntimeBackendError`` when the engine itself fails.
    """
    install = next((s for s in box.steps if s.name == "install"), None)
    if install is not None and not install.ok:
        return not_run(toolchain, f"[build].install failed ({install.why})")
    backstop = limits.timeout_s + KILL_GRACE_S
    options = ExecOptions(timeout_s=backstop, idle_timeout_s=backstop,
                          tail_bytes=limits.tail_bytes, redact=redactor.stream if redactor else None)
    results = []
    for name, command in toolchain.commands():
        box.note(f"$ {command}  # [toolchain].{name}")
        res = box.rt.exec(box.container, ["sh", "-c", _WRAPPER, "toolchain", f"{limits.timeout_s:g}", command],
                          options)
        # Escapes first: one inside a value would hide it from the redactor.
        output = readable(res.output)
        if redactor:
            output = redactor.redact(output)  # a value split between the two tails, or by an escape
        output = output[-limits.tail_bytes:]
        code = res.exit_code
        own_deadline = code in _TIMEOUT_CODES and res.duration_s >= limits.timeout_s
        if res.end is ExecEnd.EXITED and not own_deadline:
            status = "passed" if code == 0 else "failed"
            detail = f"exited {code}"
        elif res.end is ExecEnd.EXITED:
            code, status = None, "timed_out"
            detail = f"timed_out after {res.duration_s:.0f}s (limit {limits.timeout_s:g}s)"
        else:
            code = None  # what the killed process group reported is the kill's, not the command's
            status = "timed_out"
            detail = f"{res.end.value} after {res.duration_s:.0f}s (limit {limits.timeout_s:g}s)"
        box.note(f"[toolchain].{name}: {status} ({detail})")
        results.append(ToolResult(name, command, status, code, res.duration_s, output, detail))
    return tuple(results)


def harness_secrets(harnesses_dir: Path, env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The values of every secret any harness definition in ``harnesses_dir``
    declares that is set in ``env`` (the process environment by default):
    what a run may have handed a container, so what no tail may show. A
    definition that cannot be read is passed over (it ran no run)."""
    from tcab.harnesses import load_harness_file

    env = os.environ if env is None else env
    found: dict[str, str] = {}
    try:
        paths = sorted(Path(harnesses_dir).glob("*.toml"))
    except OSError:
        return found
    for path in paths:
        try:
            harness = load_harness_file(path)
        except HarnessError:
            continue
        found.update({name: env[name] for name in harness.secrets if env.get(name)})
    return found


def run_secrets(harnesses_dir: Path, given: tuple[str, ...], where: str,
                env: Mapping[str, str] | None = None) -> dict[str, str]:
    """What validation redacts for one run: :func:`harness_secrets`, plus
    every secret the run was ``given`` (its record's ``secrets``: declared or
    passed with ``--secret``), read from ``env``. A given one that is not set
    there is a ``ValidationError`` naming it (``where``: the record): its
    value could not be kept out of what validation records."""
    env = os.environ if env is None else env
    found = harness_secrets(harnesses_dir, env)
    for name in given:
        if not env.get(name):
            raise ValidationError(f"{where}: secrets: the run was given secret {name}, which is not set in "
                                  f"this environment; set it so that validation can keep its value out of "
                                  f"what it records")
        found[name] = env[name]
    return found
