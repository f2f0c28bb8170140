"""The run's two logs, written live: ``raw.jsonl`` (every output line with
its stage, stream and time) and ``events.jsonl`` (normalized events).

Every line passes the redactor before it is written or shown. Session lines
also go through the harness's adapter; other stages' lines stay raw, and
each stage's start, completion or failure is a ``system`` event.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tcab.harnesses import Event
from tcab.harnesses.events import Adapter
from tcab.runs.secrets import Redactor

EventSink = Callable[[dict[str, Any]], None]


class RunLog:
    """Appends to raw.jsonl and events.jsonl in ``run_dir``; use as a context manager."""

    def __init__(self, run_dir: Path, redactor: Redactor, adapter: Adapter,
                 on_event: EventSink | None = None):
        self._raw = open(run_dir / "raw.jsonl", "a", encoding="utf-8")
        self._events = open(run_dir / "events.jsonl", "a", encoding="utf-8")
        self.redactor = redactor
        self.adapter = adapter
        self._on_event = on_event
        self.stage = "setup"
        self.last_lines: list[str] = []

    def __enter__(self) -> RunLog:
        return self

    def __exit__(self, *exc: object) -> None:
        self._raw.close()
        self._events.close()

    def output(self, stream: str, line: str, t: float) -> None:
        """ExecOptions.on_output: one line of the current stage's command."""
        line = self.redactor.redact(line)
        self._write(self._raw, {"t": round(t, 3), "stage": self.stage, "stream": stream, "line": line})
        if self.stage == "session":
            for event in self.adapter.feed(stream, line):
                self.event(event, t)

    def event(self, event: Event, t: float | None = None) -> None:
        record = {"t": round(t or time.time(), 3), "stage": self.stage, "kind": event.kind,
                  "text": self.redactor.redact(event.text)}
        if event.data:
            record["data"] = json.loads(self.redactor.redact(json.dumps(dict(event.data), default=str)))
        self._write(self._events, record)
        if self._on_event is not None:
            self._on_event(record)

    def system(self, text: str, **data: Any) -> None:
        self.event(Event("system", text, data))

    @staticmethod
    def _write(fh, record: dict[str, Any]) -> None:
        fh.write(json.dumps(record, ensure_ascii=False) + "\n")
        fh.flush()
