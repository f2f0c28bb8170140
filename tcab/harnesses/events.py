"""The normalized events and token usage that adapters produce.

Kinds: ``message`` (the agent speaking), ``command`` (a shell command or
other tool call), ``read``, ``write``, ``error``, ``warning``, ``system``.
The run lifecycle adds the time and the stage when it writes them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from tcab.outcomes import RunStatus

KINDS = ("message", "command", "read", "write", "error", "warning", "system")


@dataclass(frozen=True, slots=True)
class Event:
    """One normalized event: its kind, a one-line-ish text, and details."""

    kind: str
    text: str
    data: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Tokens:
    """Token usage a harness reported; all zero and ``reported=False`` when none."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    reported: bool = False

    def __add__(self, other: Tokens) -> Tokens:
        return Tokens(self.input + other.input, self.output + other.output,
                      self.cache_read + other.cache_read, self.cache_write + other.cache_write,
                      self.reported or other.reported)

    def to_json(self) -> dict[str, int] | None:
        if not self.reported:
            return None
        return {"input": self.input, "output": self.output,
                "cache_read": self.cache_read, "cache_write": self.cache_write}


@dataclass(frozen=True, slots=True)
class Verdict:
    """What an adapter recognised about how the session ended.

    ``status`` is ``RunStatus.HARNESS_ERROR`` (the harness failed, e.g.
    could not reach its model, even if it exited 0) or
    ``RunStatus.LIMIT_EXCEEDED`` (it stopped at its own turn or budget
    ceiling); ``detail`` is the harness's own error text.
    """

    status: RunStatus
    detail: str


class Adapter(Protocol):
    """Turns a harness's output lines into events; one instance per run.

    Every adapter defines all four methods (the run calls each of them);
    :class:`PlainAdapter` is the simplest complete one."""

    def feed(self, stream: str, line: str) -> list[Event]:
        """The events one output line produces (often none)."""
        ...

    def tokens(self) -> Tokens:
        """The token usage seen so far."""
        ...

    def verdict(self) -> Verdict | None:
        """The failure or ceiling the output showed, or None (the exit code decides)."""
        ...

    def is_keepalive(self, stream: str, line: str) -> bool:
        """True for a line that only says the harness is still retrying its model
        (such lines count as silence for the idle watchdog)."""
        ...


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


# CSI sequences (colours, cursor moves), OSC sequences (titles, links) and
# the lone escapes a TUI leaves behind; events and details hold plain text.
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]|[\x00-\x08\x0b-\x1f\x7f]")


def strip_ansi(text: str) -> str:
    """``text`` without terminal escape sequences and control characters (tabs kept)."""
    return _ANSI.sub("", text)


# Lines with which harnesses say they could not reach or use their model.
MODEL_FAILURE = re.compile(
    r"cannot connect to api|could not connect|connection refused|connection error|"
    r"apiconnectionerror|authenticationerror|invalid api key|invalid x-api-key|incorrect api key|"
    r"\b401\b.*unauthori[sz]ed|unauthori[sz]ed.*\b401\b|api key not valid|"
    r"failed to lookup address|name or service not known|temporary failure in name resolution",
    re.IGNORECASE)
# Lines that only say "still retrying".
RETRYING = re.compile(r"^\W*(retrying in \d|reconnecting\b|retrying\b.*attempt)", re.IGNORECASE)


def clip(text: str, limit: int = 2000) -> str:
    """Events stay readable: long texts are cut with a marker."""
    return text if len(text) <= limit else text[:limit] + f"... [{len(text) - limit} more chars]"


class PlainAdapter:
    """Any harness: stdout lines are messages, stderr lines warnings. A line
    saying the model could not be reached or the key was refused becomes an
    error and the verdict (the CLI may still exit 0); "retrying" lines are
    keep-alives."""

    def __init__(self) -> None:
        self._failure: str | None = None

    def feed(self, stream: str, line: str) -> list[Event]:
        line = strip_ansi(line).rstrip()
        if not line.strip():
            return []
        if MODEL_FAILURE.search(line):
            self._failure = line.strip()
            return [Event("error", clip(line))]
        return [Event("message" if stream == "stdout" else "warning", clip(line))]

    def tokens(self) -> Tokens:
        return Tokens()

    def verdict(self) -> Verdict | None:
        return Verdict(RunStatus.HARNESS_ERROR, clip(self._failure, 500)) if self._failure else None

    def is_keepalive(self, stream: str, line: str) -> bool:
        return bool(RETRYING.search(strip_ansi(line)))


__all__ = ["KINDS", "MODEL_FAILURE", "RETRYING", "Adapter", "Event", "PlainAdapter", "Tokens",
           "Verdict", "clip", "strip_ansi", "_int"]
