"""The normalized events and token usage that adapters produce.

Kinds: ``message`` (the agent speaking), ``command`` (a shell command or
other tool call), ``read``, ``write``, ``error``, ``warning``, ``system``.
The run lifecycle adds the time and the stage when it writes them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

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


class Adapter(Protocol):
    """Turns a harness's output lines into events; one instance per run."""

    def feed(self, stream: str, line: str) -> list[Event]:
        """The events one output line produces (often none)."""
        ...

    def tokens(self) -> Tokens:
        """The token usage seen so far."""
        ...


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def clip(text: str, limit: int = 2000) -> str:
    """Events stay readable: long texts are cut with a marker."""
    return text if len(text) <= limit else text[:limit] + f"... [{len(text) - limit} more chars]"


class PlainAdapter:
    """Any harness: stdout lines are messages, stderr lines warnings."""

    def feed(self, stream: str, line: str) -> list[Event]:
        if not line.strip():
            return []
        return [Event("message" if stream == "stdout" else "warning", clip(line))]

    def tokens(self) -> Tokens:
        return Tokens()


__all__ = ["KINDS", "Adapter", "Event", "PlainAdapter", "Tokens", "clip", "_int"]
