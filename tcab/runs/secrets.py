"""Keeping secret values out of everything a run writes.

Secrets reach the container as environment of the session command only.
Whatever the harness prints is redacted before it is written to
``raw.jsonl``, ``events.jsonl``, ``run.json``, the database or the
terminal, and a collected file that contains a secret value (or whose
name does) is refused instead of landing on the host.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from typing import Any, TypeVar

T = TypeVar("T")

#: Values shorter than this are not redacted: they would mangle every log
#: line (a one-letter "secret" matches everywhere) and are not credentials.
MIN_SECRET_LEN = 4


class Redactor:
    """Replaces each secret value with ``[secret:NAME]``.

    :meth:`redact` works on finished text; :meth:`stream` returns a filter
    for a byte stream (``ExecOptions.redact``), applied before the stream is
    cut into lines or tails, so a value split across chunks, a line cut or a
    tail cut is still replaced whole.
    """

    def __init__(self, secrets: Mapping[str, str]):
        pairs = [(name, value) for name, value in secrets.items() if len(value) >= MIN_SECRET_LEN]
        # Longest first, so a value containing another is replaced whole.
        self._pairs = sorted(pairs, key=lambda p: -len(p[1]))
        # surrogateescape: a value read from a non-UTF-8 environment is
        # matched as the bytes the harness will print.
        self._bytes = [(name, value.encode("utf-8", "surrogateescape")) for name, value in self._pairs]

    def __bool__(self) -> bool:
        return bool(self._pairs)

    def redact(self, text: str) -> str:
        for name, value in self._pairs:
            if value in text:
                text = text.replace(value, f"[secret:{name}]")
        return text

    def redact_data(self, value: Any) -> Any:
        """``value`` (decoded JSON: dicts, lists, strings) with every string,
        keys included, redacted. Redacting its JSON text instead would miss a
        value whose quote, backslash or non-ASCII character JSON escapes."""
        if isinstance(value, str):
            return self.redact(value)
        if isinstance(value, Mapping):
            return {self.redact(str(k)): self.redact_data(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [self.redact_data(v) for v in value]
        return value

    def redact_fields(self, value: T) -> T:
        """``value`` with every string in it redacted: a (frozen) dataclass
        field by field, tuples, lists and dicts item by item, keys included.
        For a finished record (a validation) whose every text came from the
        run's own code."""
        if not self._pairs:
            return value
        if isinstance(value, str):
            return self.redact(value)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            return dataclasses.replace(value, **{f.name: self.redact_fields(getattr(value, f.name))
                                                 for f in dataclasses.fields(value) if f.init})
        if isinstance(value, Mapping):
            return {self.redact_fields(k): self.redact_fields(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(self.redact_fields(v) for v in value)
        return value

    def stream(self) -> StreamRedactor:
        """A new filter for one output stream (keep one per stream)."""
        return StreamRedactor(self._bytes)

    def found_in(self, data: bytes) -> str | None:
        """The name of a secret whose value occurs in ``data``, else None."""
        for name, value in self._bytes:
            if value in data:
                return name
        return None

class StreamRedactor:
    """Redacts a byte stream fed in arbitrary chunks.

    Each :meth:`feed` returns the bytes that are safe to pass on: every
    complete value is replaced by its marker, and only the end of the input
    that could still be the beginning of a value (at most the longest value
    minus one byte) is held back for the next chunk. :meth:`flush` returns
    what is held at the end of the stream. Values are matched as bytes,
    literally (``re.escape``), so regex characters, quotes or invalid UTF-8
    in a value mean nothing special.
    """

    def __init__(self, values: list[tuple[str, bytes]]):
        self._markers = {value: f"[secret:{name}]".encode() for name, value in values}
        self._values = [value for _name, value in values]  # longest first
        self._pattern = re.compile(b"|".join(re.escape(v) for v in self._values)) if values else None
        self._held = bytearray()

    def feed(self, data: bytes) -> bytes:
        if self._pattern is None:
            return data
        buf = self._held + data
        # The end that could still grow into a value waits for more bytes,
        # and so does a match starting there: a value may be the beginning
        # of a longer one ("abc" and "abcdef"), and replacing the short one
        # early would let the rest of the long one through.
        limit = len(buf) - self._prefix_at_end(buf)
        out = bytearray()
        pos = 0
        for match in self._pattern.finditer(buf):
            if match.start() >= limit:
                break
            out += buf[pos:match.start()]
            out += self._markers[match.group()]
            pos = match.end()
        cut = max(pos, limit)
        out += buf[pos:cut]
        self._held = bytearray(buf[cut:])
        return bytes(out)

    def flush(self) -> bytes:
        held, self._held = bytes(self._held), bytearray()
        if self._pattern is None:
            return held
        return self._pattern.sub(lambda m: self._markers[m.group()], held)

    def _prefix_at_end(self, buf: bytearray) -> int:
        """Length of the longest end of ``buf`` that is a proper beginning of a value."""
        best = 0
        size = len(buf)
        for value in self._values:
            first = value[0]
            for k in range(min(len(value) - 1, size), best, -1):
                if buf[-k] == first and buf.endswith(value[:k]):
                    best = k
                    break
        return best
