"""The normalized events and token usage that adapters produce.

Kinds: ``message`` (the agent speaking), ``command`` (a shell command or
other tool call), ``read``, ``write``, ``error``, ``warning``, ``system``.
The run lifecycle adds the time and the stage when it writes them.

Every output line is hostile: adapters decode JSON only through
:func:`parse_json_line`, bounded in size (:data:`MAX_JSON_CHARS`) and
nesting depth (:data:`MAX_JSON_DEPTH`); a line past a bound is kept as plain
text, never an exception.

A structured adapter (claude, codex, gemini, opencode, aider) also knows
whether its harness ever got an answer from its model; a session that shows
none is the verdict ``harness_error`` (:func:`no_answer`), whatever the exit
code: a CLI that retried an unreachable provider and gave up with exit 0 did
no work. Only the ``plain`` adapter cannot tell, and leaves it to the exit
code.
"""

from __future__ import annotations

import json
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


#: Largest token count kept per field: a hostile usage line cannot overflow
#: the database's 64-bit integers (one field, or a sum over many lines).
MAX_TOKENS = 10 ** 15


@dataclass(frozen=True, slots=True)
class Tokens:
    """Token usage a harness reported; all zero and ``reported=False`` when none."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    reported: bool = False

    def __add__(self, other: Tokens) -> Tokens:
        return Tokens(min(self.input + other.input, MAX_TOKENS), min(self.output + other.output, MAX_TOKENS),
                      min(self.cache_read + other.cache_read, MAX_TOKENS),
                      min(self.cache_write + other.cache_write, MAX_TOKENS), self.reported or other.reported)

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
    """A count from decoded JSON: a non-negative integer up to MAX_TOKENS, else 0."""
    ok = isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_TOKENS
    return value if ok else 0


def _dict(value: Any) -> dict:
    """``value`` when decoded JSON put an object there, else an empty one."""
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list:
    """``value`` when decoded JSON put an array there, else an empty one."""
    return value if isinstance(value, list) else []


def _text(value: Any) -> str:
    """``value`` when decoded JSON put a string there, else ""."""
    return value if isinstance(value, str) else ""


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


#: Longest line decoded as JSON (the exec layer already cuts lines at 1 MiB).
MAX_JSON_CHARS = 1 << 20
#: Deepest nesting decoded; deeper lines are plain text (json.loads would
#: recurse once per level, and a line of "[" x 100,000 raised RecursionError).
MAX_JSON_DEPTH = 64



_JSON_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_INNERMOST = re.compile(r"\[\]|\{\}")


def _nests_deeper(text: str, max_depth: int) -> bool:
    """Whether valid JSON ``text`` nests containers deeper than ``max_depth``.

    Its strings go (one left-to-right pass: in valid JSON each starts at a
    real quote), then each pass removes the innermost bracket pairs, one
    level at a time: all in the regex engine, no recursion."""
    brackets = _NOT_BRACKET.sub("", _JSON_STRING.sub("", text))
    for _ in range(max_depth):
        if not brackets:
            return False
        brackets = _INNERMOST.sub("", brackets)
    return bool(brackets)


def parse_json_line(line: str, *, max_chars: int = MAX_JSON_CHARS, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """``line`` decoded as JSON when it is a JSON object or array of at most
    ``max_chars`` characters nested at most ``max_depth`` deep, else None.

    The decoder's own recursion stops at the interpreter's recursion limit
    (RecursionError, caught: the line is not ours to decode); what decodes
    is then held to ``max_depth``, so nothing downstream (event details,
    redaction) recurses deeper than that."""
    text = line.strip()
    if not text or text[0] not in "[{" or len(text) > max_chars:
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return None
    # Fewer opening brackets than the bound cannot nest past it.
    if text.count("[") + text.count("{") > max_depth and _nests_deeper(text, max_depth):
        return None
    return value


def clip(text: str, limit: int = 2000) -> str:
    """Events stay readable: long texts are cut with a marker."""
    return text if len(text) <= limit else text[:limit] + f"... [{len(text) - limit} more chars]"


class AnswerWatch:
    """What a structured adapter keeps to tell a session that never got a
    model answer: whether one came (``answered``, set by the adapter) and the
    last error or warning it saw, which says why not (``kinds``: the event
    kinds that may say it; a plain-text harness prints its errors as text)."""

    def __init__(self, kinds: tuple[str, ...] = ("error", "warning")) -> None:
        self.answered = False
        self._kinds = kinds
        self._last_problem: str | None = None

    def saw(self, events: list[Event]) -> list[Event]:
        """``events``, noting the last of ``kinds`` among them (retry lines aside)."""
        for event in events:
            if event.kind in self._kinds and not RETRYING.search(event.text):
                self._last_problem = event.text
        return events

    def verdict(self) -> Verdict | None:
        """``harness_error`` when no model answer came (see :func:`no_answer`), else None."""
        return None if self.answered else no_answer(self._last_problem)


def no_answer(last_problem: str | None) -> Verdict:
    """The verdict of a session that never got an answer from its model."""
    why = f"; it last said: {clip(last_problem.strip(), 300)}" if last_problem and last_problem.strip() else ""
    return Verdict(RunStatus.HARNESS_ERROR, f"the harness never got an answer from its model{why}")


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


__all__ = ["KINDS", "MAX_JSON_CHARS", "MAX_JSON_DEPTH", "MAX_TOKENS", "MODEL_FAILURE", "RETRYING", "Adapter",
           "AnswerWatch", "Event", "PlainAdapter", "Tokens", "Verdict", "clip", "no_answer", "parse_json_line",
           "strip_ansi", "_dict", "_int", "_list", "_text"]
