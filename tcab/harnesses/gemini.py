"""Gemini CLI's ``--output-format stream-json``.

One JSON object per line: ``init`` (session id, model), ``message``
(``role`` user or assistant, ``content``, ``delta`` fragments),
``tool_use`` (``tool_name``, ``tool_id``, ``parameters``),
``tool_result`` (``status`` success or error, ``error``), ``error``
(``severity``, ``message``) and a final ``result`` (``status``,
``error`` {``type``, ``message``}, ``stats`` with the session's token
totals). Tokens: the ``result`` line's ``stats``.

Verdict: a ``result`` whose status is not ``success`` is ``harness_error``
with Gemini's own message. Its one configured ceiling is ``maxSessionTurns``
(settings.json ``model.maxSessionTurns``, unlimited by default; Gemini has no
budget ceiling), which it reports in two ways, both ``limit_exceeded``: the
CLI's own loop ends with a ``result`` whose error type is
``FatalTurnLimitedError`` (exit 53), and the core's turn counter emits an
``error`` line "Maximum session turns exceeded" and then a ``success``
result. Only these exact markers count: an error type that merely says
"limit" (a rate or quota limit) is a ``harness_error``. A stderr line saying
the model was unreachable is the verdict when no result line came; a session
with no assistant message, tool call or reported output token is
``harness_error`` (:class:`~tcab.harnesses.events.AnswerWatch`).
"""

from __future__ import annotations

import json
from typing import Any

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

_WRITE_TOOLS = {"write_file", "replace", "edit"}
_READ_TOOLS = {"read_file", "read_many_files", "list_directory", "glob", "grep_search", "search_file_content",
               "web_fetch", "google_web_search"}
_SHELL_TOOLS = {"run_shell_command", "shell"}
# What gemini-cli 0.61 prints at its maxSessionTurns (nonInteractiveCli:
# handleMaxTurnsExceededError; core: GeminiEventType.MaxSessionTurns).
_TURN_LIMIT_TYPE = "FatalTurnLimitedError"
_TURN_LIMIT_EVENT = "Maximum session turns exceeded"


def _tool_event(obj: dict) -> Event:
    name = clip(str(obj.get("tool_name", "?")), 200)
    params = _dict(obj.get("parameters"))
    data = {"tool": name}
    if name in _SHELL_TOOLS:
        return Event("command", clip(str(params.get("command", ""))), data)
    target = (params.get("file_path") or params.get("absolute_path") or params.get("path")
              or params.get("dir_path") or params.get("pattern") or params.get("url") or "")
    if name in _WRITE_TOOLS:
        return Event("write", clip(str(target)), data)
    if name in _READ_TOOLS:
        return Event("read", clip(str(target)), data)
    return Event("command", clip(f"{name} {json.dumps(params, sort_keys=True)}"), data)


class GeminiStreamJsonAdapter:
    """Adapter for Gemini CLI stream-json transcripts."""

    def __init__(self) -> None:
        self._tokens = Tokens()
        self._verdict: Verdict | None = None
        self._failure: str | None = None
        self._ceiling: Verdict | None = None  # the turn ceiling, even before a success result
        self._answers = AnswerWatch()

    def feed(self, stream: str, line: str) -> list[Event]:
        return self._answers.saw(self._feed(stream, line))

    def _feed(self, stream: str, line: str) -> list[Event]:
        line = strip_ansi(line)
        if not line.strip():
            return []
        if stream != "stdout":
            if MODEL_FAILURE.search(line):
                self._failure = self._failure or line.strip()
                return [Event("error", clip(line))]
            return [Event("warning", clip(line))]
        obj = parse_json_line(line)
        if obj is None:
            return [Event("message", clip(line))]
        if not isinstance(obj, dict):
            return []
        kind = obj.get("type")
        if kind == "init":
            model = clip(str(obj.get("model", "")), 200)
            return [Event("system", f"session init model={model}", {"model": model} if model else {})]
        if kind == "message":
            if obj.get("role") != "assistant" or not str(obj.get("content", "")).strip():
                return []
            self._answers.answered = True
            return [Event("message", clip(strip_ansi(str(obj["content"]))))]
        if kind == "tool_use":
            self._answers.answered = True
            return [_tool_event(obj)]
        if kind == "tool_result":
            if obj.get("status") == "success":
                return []
            error = _dict(obj.get("error"))
            return [Event("error", clip(strip_ansi(str(error.get("message") or obj.get("output") or "tool failed"))),
                          {"tool_id": clip(str(obj.get("tool_id")), 200)})]
        if kind == "error":
            message = strip_ansi(str(obj.get("message", "")))
            if obj.get("severity") == "error" and message == _TURN_LIMIT_EVENT:
                self._ceiling = Verdict(RunStatus.LIMIT_EXCEEDED, message)
            return [Event("error" if obj.get("severity") == "error" else "warning", clip(message))]
        if kind == "result":
            return [self._result(obj)]
        return []

    def _result(self, obj: dict) -> Event:
        stats = _dict(obj.get("stats"))
        if stats:
            self._tokens = Tokens(input=_int(stats.get("input_tokens")), output=_int(stats.get("output_tokens")),
                                  cache_read=_int(stats.get("cached")), reported=True)
            if self._tokens.output:
                self._answers.answered = True
        data: dict[str, Any] = {k: stats[k] for k in ("duration_ms", "tool_calls") if k in stats}
        if obj.get("status") == "success":
            return Event("system", "result: success", data)
        error = _dict(obj.get("error"))
        etype = clip(str(error.get("type") or ""), 200)
        text = strip_ansi(str(error.get("message") or obj.get("status") or "error"))
        status = RunStatus.LIMIT_EXCEEDED if etype == _TURN_LIMIT_TYPE else RunStatus.HARNESS_ERROR
        self._verdict = Verdict(status, clip(text, 500))
        return Event("error", clip(f"result: {text}"), {**data, "error_type": etype})

    def tokens(self) -> Tokens:
        return self._tokens

    def verdict(self) -> Verdict | None:
        if self._verdict is not None:
            return self._verdict
        if self._ceiling is not None:
            return self._ceiling
        if self._failure:
            return Verdict(RunStatus.HARNESS_ERROR, clip(self._failure, 500))
        return self._answers.verdict()

    def is_keepalive(self, stream: str, line: str) -> bool:
        return bool(RETRYING.search(strip_ansi(line)))
