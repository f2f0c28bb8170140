"""Keeping secret values out of everything a run writes.

Secrets reach the container as environment of the session command only.
Whatever the harness prints is redacted before it is written to
``raw.jsonl``, ``events.jsonl``, ``run.json``, the database or the
terminal, and a collected file that contains a secret value (or whose
name does) is refused instead of landing on the host.
"""

from __future__ import annotations

from collections.abc import Mapping

#: Values shorter than this are not redacted: they would mangle every log
#: line (a one-letter "secret" matches everywhere) and are not credentials.
MIN_SECRET_LEN = 4


class Redactor:
    """Replaces each secret value with ``[secret:NAME]``."""

    def __init__(self, secrets: Mapping[str, str]):
        pairs = [(name, value) for name, value in secrets.items() if len(value) >= MIN_SECRET_LEN]
        # Longest first, so a value containing another is replaced whole.
        self._pairs = sorted(pairs, key=lambda p: -len(p[1]))
        self._bytes = [(name, value.encode("utf-8")) for name, value in self._pairs]

    def __bool__(self) -> bool:
        return bool(self._pairs)

    def redact(self, text: str) -> str:
        for name, value in self._pairs:
            if value in text:
                text = text.replace(value, f"[secret:{name}]")
        return text

    def found_in(self, data: bytes) -> str | None:
        """The name of a secret whose value occurs in ``data``, else None."""
        for name, value in self._bytes:
            if value in data:
                return name
        return None
