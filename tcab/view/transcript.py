"""A run's ``events.jsonl`` as a readable transcript, one page at a time.

The file is hostile and may be 64 MiB: it is read line by line, only the
asked-for page is parsed, an unparsable line becomes a visible ``unreadable``
entry (never an error page), and each text is cut at ``max_text`` characters.
Long texts are folded (the template shows their first line).
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

# Events shown per page; the run page links the next and previous pages.
EVENTS_PER_PAGE = 1000
# Characters of one event's text (and of its data as JSON) kept for the page.
MAX_TEXT = 20_000
# A text longer than this many characters or lines is folded.
FOLD_CHARS = 400
# A line longer than this is shown unparsed (a run cuts its own lines at 1 MiB).
MAX_LINE = 2 * 1024 * 1024
FOLD_LINES = 6


@dataclass(frozen=True, slots=True)
class TranscriptEvent:
    """One event as the page shows it."""

    number: int
    t: float | None
    stage: str
    kind: str
    text: str
    data: str = ""          # the event's data as indented JSON, or ""
    folded: bool = False    # the text is long: shown folded under its first line
    cut: bool = False       # the text or data was cut at MAX_TEXT

    @property
    def first_line(self) -> str:
        return self.text.split("\n", 1)[0][:160]


@dataclass(frozen=True, slots=True)
class TranscriptPage:
    entries: tuple[TranscriptEvent, ...] = ()
    page: int = 0
    more: bool = False        # a next page exists
    missing: bool = True      # no events.jsonl
    kinds: dict[str, int] = field(default_factory=dict)


def read_page(path: Path, page: int = 0, per_page: int = EVENTS_PER_PAGE,
              max_text: int = MAX_TEXT) -> TranscriptPage:
    """Events ``page * per_page`` up to the next ``per_page`` of ``path``."""
    try:
        # Not followed if a link, and never waiting on a FIFO.
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return TranscriptPage(page=page)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return TranscriptPage(page=page)
    start, entries, more = page * per_page, [], False
    with open(fd, encoding="utf-8", errors="replace") as fh:
        for number, line in enumerate(fh):
            if number < start:
                continue
            if len(entries) == per_page:
                more = True
                break
            entries.append(_entry(number, line, max_text))
    kinds: dict[str, int] = {}
    for e in entries:
        kinds[e.kind] = kinds.get(e.kind, 0) + 1
    return TranscriptPage(tuple(entries), page, more, False, kinds)


def _entry(number: int, line: str, max_text: int) -> TranscriptEvent:
    try:
        if len(line) > MAX_LINE:
            raise ValueError("longer than a run writes")
        record = json.loads(line)
        if not isinstance(record, dict):
            raise ValueError("not an object")
    except (ValueError, RecursionError):  # RecursionError: nested deeper than the parser goes
        return TranscriptEvent(number, None, "", "unreadable", line[:max_text], cut=len(line) > max_text)
    text = _dumps(record.get("text"), None)
    data = record.get("data")
    data_text = _dumps(data, 1) if data else ""
    cut = len(text) > max_text or len(data_text) > max_text
    text, data_text = text[:max_text], data_text[:max_text]
    t = record.get("t")
    return TranscriptEvent(number, t if isinstance(t, (int, float)) else None, str(record.get("stage", ""))[:40],
                 str(record.get("kind", "?"))[:40], text, data_text,
                 folded=len(text) > FOLD_CHARS or text.count("\n") >= FOLD_LINES, cut=cut)


def _dumps(value, indent: int | None) -> str:
    """``value`` as JSON text (a string as itself); one too deeply nested to
    write back says so."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, indent=indent, ensure_ascii=False, default=str)
    except (ValueError, RecursionError):
        return "(nested too deeply to show)"
