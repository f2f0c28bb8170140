"""OpenCode's ``opencode run --format json``.

One JSON object per line, each with a ``part``: ``step_start``; ``text``
(``part.text``); ``tool_use`` (``part.tool`` and ``part.state`` with
``status``, ``input``, ``output`` or ``error``); ``step_finish``
(``part.tokens``: ``input``, ``output``, ``reasoning``, ``cache.read``,
``cache.write``, summed over steps); ``error`` (``error.name``,
``error.data.message``).

Verdict: an ``error`` line, or a stderr line saying the model could not be
reached ("Cannot connect to API", which OpenCode prints in colour), is
``harness_error`` with OpenCode's own message, even when it exits 0; so is
a session with no text, tool call or finished step from the model
(:class:`~tcab.harnesses.events.AnswerWatch`).

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
    AnswerWatch,
    Event,
    Tokens,
    Verdict,
    _dict,
    _int,
    clip,
    parse_json_line,
    strip_ansi,
)
from tcab.outcomes import RunStatus

_WRITE_TOOLS = {"write", "edit", "patch", "multiedit"}
_READ_TOOLS = {"read", "glob", "grep", "list", "webfetch"}


def _tool_events(part: dict) -> list[Event]:
    name = clip(str(part.get("tool", "?")), 200)
    state = _dict(part.get("state"))
    args = _dict(state.get("input"))
    data = {"tool": name}
    if name == "bash":
        event = Event("command", clip(str(args.get("command", ""))), data)
    else:
        target = args.get("filePath") or args.get("path") or args.get("pattern") or args.get("url") or ""
        if name in _WRITE_TOOLS:
            event = Event("write", clip(str(target)), data)
        elif name in _READ_TOOLS:
            event = Event("read", clip(str(target)), data)
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
        self._answers = AnswerWatch()

    def feed(self, stream: str, line: str) -> list[Event]:
        return self._answers.saw(self._feed(stream, line))

    def _feed(self, stream: str, line: str) -> list[Event]:
        line = strip_ansi(line)
        if not line.strip():
            return []
        obj = parse_json_line(line) if stream == "stdout" else None
        if not isinstance(obj, dict):
            if MODEL_FAILURE.search(line):
                self._error = self._error or line.strip()
                return [Event("error", clip(line.strip()))]
            return [Event("message" if stream == "stdout" else "warning", clip(line))]
        kind = obj.get("type")
        part = _dict(obj.get("part"))
        if kind in ("text", "tool_use", "step_finish"):
            self._answers.answered = True  # what the model said, asked for, or finished
        if kind == "text" and str(part.get("text", "")).strip():
            return [Event("message", clip(strip_ansi(str(part["text"]))))]
        if kind == "tool_use":
            return _tool_events(part)
        if kind == "step_finish":
            tokens = _dict(part.get("tokens"))
            cache = _dict(tokens.get("cache"))
            self._tokens = self._tokens + Tokens(
                input=_int(tokens.get("input")), output=_int(tokens.get("output")),
                cache_read=_int(cache.get("read")), cache_write=_int(cache.get("write")), reported=True)
            return []
        if kind == "error":
            error = _dict(obj.get("error"))
            data = _dict(error.get("data"))
            text = strip_ansi(str(data.get("message") or error.get("name") or "error"))
            self._error = text
            return [Event("error", clip(text), {"name": clip(str(error.get("name", "")), 200)})]
        return []

    def tokens(self) -> Tokens:
        return self._tokens

    def verdict(self) -> Verdict | None:
        if self._error:
            return Verdict(RunStatus.HARNESS_ERROR, clip(self._error, 500))
        return self._answers.verdict()

    def is_keepalive(self, stream: str, line: str) -> bool:
        return bool(RETRYING.search(strip_ansi(line)))
