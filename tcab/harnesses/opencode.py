"""OpenCode's ``opencode run --format json``.

One JSON object per line, each with a ``part``: ``step_start``; ``text``
(``part.text``); ``tool_use`` (``part.tool`` and ``part.state`` with
``status``, ``input``, ``output`` or ``error``); ``step_finish``
(``part.tokens``: ``input``, ``output``, ``reasoning``, ``cache.read``,
``cache.write``, summed over steps); ``error`` (``error.name``,
``error.data.message``).

Verdict: an ``error`` line, or a stderr line saying the model could not be
reached ("Cannot connect to API", which OpenCode prints in colour), is
``harness_error`` with OpenCode's own message, even when it exits 0.

Ceilings: an agent's ``steps`` (unset, i.e. unlimited, in tcab's definition)
does not end the session: at the last step OpenCode withdraws the tools,
asks the model to summarise, and exits 0 with no marker in its JSON. Telling
it apart would mean reading the model's prose, so no OpenCode run ends
``limit_exceeded``.
"""

from __future__ import annotations

import json

from tcab.harnesses.events import (
    MODEL_FAILURE,
    RETRYING,
    Event,
    Tokens,
    Verdict,
    _int,
    clip,
    strip_ansi,
)
from tcab.outcomes import RunStatus

_WRITE_TOOLS = {"write", "edit", "patch", "multiedit"}
_READ_TOOLS = {"read", "glob", "grep", "list", "webfetch"}


def _tool_events(part: dict) -> list[Event]:
    name = str(part.get("tool", "?"))
    state = part.get("state") if isinstance(part.get("state"), dict) else {}
    args = state.get("input") if isinstance(state.get("input"), dict) else {}
    data = {"tool": name}
    if name == "bash":
        event = Event("command", clip(str(args.get("command", ""))), data)
    else:
        target = args.get("filePath") or args.get("path") or args.get("pattern") or args.get("url") or ""
        if name in _WRITE_TOOLS:
            event = Event("write", str(target), data)
        elif name in _READ_TOOLS:
            event = Event("read", str(target), data)
        else:
            event = Event("command", clip(f"{name} {json.dumps(args, sort_keys=True)}"), data)
    if state.get("status") == "error":
        return [event, Event("error", clip(strip_ansi(str(state.get("error") or "tool failed"))), data)]
    return [event]


class OpenCodeJsonAdapter:
    """Adapter for OpenCode JSON event transcripts."""

    def __init__(self) -> None:
        self._tokens = Tokens()
        self._error: str | None = None

    def feed(self, stream: str, line: str) -> list[Event]:
        line = strip_ansi(line)
        if not line.strip():
            return []
        try:
            obj = json.loads(line) if stream == "stdout" else None
        except ValueError:
            obj = None
        if not isinstance(obj, dict):
            if MODEL_FAILURE.search(line):
                self._error = self._error or line.strip()
                return [Event("error", clip(line.strip()))]
            return [Event("message" if stream == "stdout" else "warning", clip(line))]
        kind = obj.get("type")
        part = obj.get("part") if isinstance(obj.get("part"), dict) else {}
        if kind == "text" and str(part.get("text", "")).strip():
            return [Event("message", clip(strip_ansi(str(part["text"]))))]
        if kind == "tool_use":
            return _tool_events(part)
        if kind == "step_finish":
            tokens = part.get("tokens") if isinstance(part.get("tokens"), dict) else {}
            cache = tokens.get("cache") if isinstance(tokens.get("cache"), dict) else {}
            self._tokens = self._tokens + Tokens(
                input=_int(tokens.get("input")), output=_int(tokens.get("output")),
                cache_read=_int(cache.get("read")), cache_write=_int(cache.get("write")), reported=True)
            return []
        if kind == "error":
            error = obj.get("error") if isinstance(obj.get("error"), dict) else {}
            data = error.get("data") if isinstance(error.get("data"), dict) else {}
            text = strip_ansi(str(data.get("message") or error.get("name") or "error"))
            self._error = text
            return [Event("error", clip(text), {"name": str(error.get("name", ""))})]
        return []

    def tokens(self) -> Tokens:
        return self._tokens

    def verdict(self) -> Verdict | None:
        return Verdict(RunStatus.HARNESS_ERROR, clip(self._error, 500)) if self._error else None

    def is_keepalive(self, stream: str, line: str) -> bool:
        return bool(RETRYING.search(strip_ansi(line)))
