"""The run's two logs, written live: ``raw.jsonl`` (every output line with
its stage, stream and time) and ``events.jsonl`` (normalized events).

Every line passes the redactor before it is written or shown (the bytes were
already redacted on the stream, in exec; this second pass covers what an
adapter decodes, such as JSON escapes). Session lines also go through the
harness's adapter; other stages' lines stay raw, and each stage's start,
completion or failure is a ``system`` event.

Output is hostile and may be endless, so each log is capped at
``max_bytes``: past the cap, output lines and the events they produce are
counted and dropped (``system`` events are still written: there are few),
and closing the log appends one marker line saying how much was dropped.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tcab.harnesses import Event
from tcab.harnesses.events import Adapter
from tcab.runs.secrets import Redactor

EventSink = Callable[[dict[str, Any]], None]

#: Default cap of raw.jsonl and of events.jsonl, each (RunOptions.max_log_bytes).
DEFAULT_MAX_LOG_BYTES = 64 * 1024 * 1024

# ANSI escape sequences (CSI, OSC, and two-byte ESC forms), then any other
# control character but newline and tab.
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]?|\x9b[0-?]*[ -/]*[@-~]")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def readable(text: str) -> str:
    """``text`` without terminal escapes or control characters, for a
    status detail or a terminal line (hostile output cannot recolour,
    retitle or rewrite the operator's terminal)."""
    return _CONTROL.sub("", _ANSI.sub("", text))


class _Capped:
    """One JSON-lines file that stops growing at ``max_bytes``."""

    def __init__(self, path: Path, max_bytes: int):
        # errors="replace": a lone surrogate decoded from a harness's JSON
        # escape must not crash the writer.
        self.fh = open(path, "a", encoding="utf-8", errors="replace")
        self.max_bytes = max_bytes
        self.written = 0
        self.dropped_lines = 0
        self.dropped_bytes = 0

    def write(self, record: dict[str, Any], payload: str = "", *, always: bool = False) -> bool:
        """Append ``record``; False when it was dropped for the cap, counting
        the UTF-8 bytes of its ``payload`` (the output line or event text)."""
        if not always and self.dropped_lines:  # dropping: skip the encoding too
            self._drop(payload)
            return False
        text = json.dumps(record, ensure_ascii=False, default=str) + "\n"
        size = len(text.encode("utf-8", "replace"))
        if not always and self.written + size > self.max_bytes:
            self._drop(payload)
            return False
        self.fh.write(text)
        self.fh.flush()
        self.written += size
        return True

    def _drop(self, payload: str) -> None:
        self.dropped_lines += 1
        self.dropped_bytes += len(payload.encode("utf-8", "replace"))

    def close(self, marker: Callable[[int, int], dict[str, Any]]) -> None:
        if self.dropped_lines:
            self.write(marker(self.dropped_lines, self.dropped_bytes), always=True)
        self.fh.close()


class RunLog:
    """Appends to raw.jsonl and events.jsonl in ``run_dir``; use as a context manager."""

    def __init__(self, run_dir: Path, redactor: Redactor, adapter: Adapter,
                 on_event: EventSink | None = None, max_bytes: int = DEFAULT_MAX_LOG_BYTES):
        self._raw = _Capped(run_dir / "raw.jsonl", max_bytes)
        self._events = _Capped(run_dir / "events.jsonl", max_bytes)
        self.max_bytes = max_bytes
        self.redactor = redactor
        self.adapter = adapter
        self._on_event = on_event
        self.stage = "setup"

    def __enter__(self) -> RunLog:
        return self

    def __exit__(self, *exc: object) -> None:
        what = f"after the log reached its cap of {self.max_bytes} bytes"
        self._raw.close(lambda n, b: {
            "t": round(time.time(), 3), "stage": self.stage, "stream": "tcab",
            "line": f"[tcab: {n} output lines ({b} bytes of output) dropped {what}]",
            "dropped_lines": n, "dropped_bytes": b})
        self._events.close(lambda n, b: {
            "t": round(time.time(), 3), "stage": self.stage, "kind": "system",
            "text": f"{n} events ({b} bytes of text) dropped {what}",
            "data": {"dropped_events": n, "dropped_bytes": b}})

    @property
    def dropped(self) -> tuple[int, int]:
        """(lines, bytes) of output dropped from raw.jsonl so far."""
        return self._raw.dropped_lines, self._raw.dropped_bytes

    def output(self, stream: str, line: str, t: float) -> None:
        """ExecOptions.on_output: one line of the current stage's command."""
        line = self.redactor.redact(line)
        self._raw.write({"t": round(t, 3), "stage": self.stage, "stream": stream, "line": line}, line)
        if self.stage == "session":
            # Fed even past the cap: the adapter still counts tokens.
            for event in self.adapter.feed(stream, line):
                self.event(event, t)

    def event(self, event: Event, t: float | None = None) -> None:
        record = {"t": round(t or time.time(), 3), "stage": self.stage, "kind": event.kind,
                  "text": self.redactor.redact(event.text)}
        if event.data:
            record["data"] = self.redactor.redact_data(dict(event.data))
        # tcab's own system events (no time given) pass the cap; a harness's do not.
        if (self._events.write(record, record["text"], always=event.kind == "system" and t is None)
                and self._on_event is not None):
            self._on_event(record)

    def system(self, text: str, **data: Any) -> None:
        self.event(Event("system", text, data))
