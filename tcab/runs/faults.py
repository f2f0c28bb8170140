"""Bugs in tcab met during a run: kept and recorded, never let loose.

Two kinds, both bugs of tcab (an exception that is neither bad input nor
the platform failing, see :mod:`tcab.errors`):

- **In event handling**: the harness adapter reading a line, counting
  tokens, giving its verdict or telling a keep-alive, and the caller's
  ``on_event`` sink. The output is hostile (a line of 100,000 ``[`` made
  adapters raise ``RecursionError``), so one line must not decide the run's
  fate: :class:`GuardedAdapter` and :func:`guarded_sink` note the failure
  and go on, and the run keeps the status its session earned, with the
  failure in its detail.
- **Anywhere else in the run's stages**: the run stops with status
  ``internal_error`` (:meth:`tcab.runs.session.RunState.execute`).

Either way the first failure's traceback is written, redacted, to the run
folder's ``internal-error.txt`` (capped at :data:`MAX_TRACEBACK_CHARS`), and
its one-line summary goes into ``run.json`` and the ``runs`` row
(``internal_error``). Later failures are counted, not kept.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from tcab.harnesses import Event, Tokens
from tcab.harnesses.events import Adapter, Verdict

#: internal-error.txt holds at most this many characters (its head and its
#: tail): a RecursionError's traceback can be long, and the exception's own
#: message may quote hostile output.
MAX_TRACEBACK_CHARS = 64 * 1024
_SUMMARY_CHARS = 500


def summary(exc: BaseException) -> str:
    """``Type: message`` on one line, bounded."""
    text = " ".join(f"{type(exc).__name__}: {exc}".split())
    return text if len(text) <= _SUMMARY_CHARS else text[:_SUMMARY_CHARS] + "..."


@dataclass(frozen=True, slots=True)
class Fault:
    """One bug: where tcab was, what it raised, and the traceback."""

    where: str
    summary: str
    traceback: str


class FaultLog:
    """The faults of one run: the first kept whole (or the one that stopped
    the run, when a fault in event handling came before it), all counted."""

    def __init__(self) -> None:
        self.first: Fault | None = None
        self.count = 0
        self._stopped = False

    def note(self, where: str, exc: BaseException, *, stopped: bool = False) -> None:
        """Count ``exc``; keep it when it is the first, or the one that
        ``stopped`` the run (that traceback matters most)."""
        self.count += 1
        if self.first is None or (stopped and not self._stopped):
            self._stopped = stopped
            text = "".join(traceback.format_exception(exc))
            if len(text) > MAX_TRACEBACK_CHARS:
                half = MAX_TRACEBACK_CHARS // 2
                text = f"{text[:half]}\n[... {len(text) - 2 * half} characters cut ...]\n{text[-half:]}"
            self.first = Fault(where, summary(exc), text)

    def __bool__(self) -> bool:
        return self.first is not None

    def report(self) -> str:
        """The text of internal-error.txt (not redacted: the caller redacts)."""
        first = self.first
        if first is None:
            return ""
        more = f" ({self.count - 1} other failures counted, not kept)" if self.count > 1 else ""
        return (f"A bug in tcab, met while {first.where}{more}.\n"
                f"Please report it with this file (secrets the run was given are redacted).\n\n"
                f"{first.traceback}")


class GuardedAdapter:
    """A harness adapter whose exceptions are noted in ``faults``, not raised:
    a line it cannot read yields no event (it stays in raw.jsonl), its tokens
    are the last it could count, its verdict is none."""

    def __init__(self, adapter: Adapter, faults: FaultLog):
        self._adapter, self._faults = adapter, faults
        self._tokens = Tokens()

    def feed(self, stream: str, line: str) -> list[Event]:
        try:
            return list(self._adapter.feed(stream, line))
        except Exception as exc:  # noqa: BLE001 - see the module docstring
            self._faults.note("the harness adapter read a line of output", exc)
            return []

    def tokens(self) -> Tokens:
        try:
            self._tokens = self._adapter.tokens()
        except Exception as exc:  # noqa: BLE001
            self._faults.note("the harness adapter counted tokens", exc)
        return self._tokens

    def verdict(self) -> Verdict | None:
        try:
            return self._adapter.verdict()
        except Exception as exc:  # noqa: BLE001
            self._faults.note("the harness adapter gave its verdict", exc)
            return None

    def is_keepalive(self, stream: str, line: str) -> bool:
        check = getattr(self._adapter, "is_keepalive", None)
        if check is None:
            return False
        try:
            return bool(check(stream, line))
        except Exception as exc:  # noqa: BLE001
            self._faults.note("the harness adapter looked for a keep-alive line", exc)
            return False


def guarded_sink(sink: Callable[[dict[str, Any]], None] | None,
                 faults: FaultLog) -> Callable[[dict[str, Any]], None] | None:
    """``sink`` (the caller's ``on_event``), its first exception noted and
    the sink then left alone (a broken display must not stop the run)."""
    if sink is None:
        return None
    broken = False

    def call(record: dict[str, Any]) -> None:
        nonlocal broken
        if broken:
            return
        try:
            sink(record)
        except Exception as exc:  # noqa: BLE001
            broken = True
            faults.note("the caller's on_event sink took an event", exc)

    return call
