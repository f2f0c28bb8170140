"""Codex's ``codex exec --json`` event stream.

Current format: ``thread.started``, ``turn.started``, ``item.started`` /
``item.updated`` / ``item.completed`` whose ``item.type`` is
``agent_message``, ``reasoning``, ``command_execution``, ``file_change``,
``mcp_tool_call``, ``web_search``, ``todo_list`` or ``error``;
``turn.completed`` with ``usage`` (``input_tokens``, ``cached_input_tokens``,
``output_tokens``), ``turn.failed`` and ``error``. Usage is summed over
turns. The older ``{"id", "msg": {"type": ...}}`` format (``agent_message``,
``exec_command_begin``, ``patch_apply_begin``, ``token_count``, ``error``)
is read too.

Failures: ``error`` lines "Reconnecting... n/m (...)" are keep-alives (a
retry loop counts as silence for the idle watchdog); ``turn.failed`` or a
final ``error`` is the verdict ``harness_error`` with Codex's own message,
even when it exits 0. ``error`` *items* are warnings Codex keeps going
after (e.g. "Model metadata ... not found").

Ceilings: ``codex exec`` has no turn or budget limit of its own (its token
budgets belong to the experimental "goals" feature, which exec does not
set), so no Codex run ends ``limit_exceeded``. "You've hit your usage limit"
is the account's plan refusing: ``harness_error``. A session with no
completed turn and no item from the model is ``harness_error``
(:class:`~tcab.harnesses.events.AnswerWatch`).
"""

from __future__ import annotations

from typing import Any

from tcab.harnesses.events import (
    AnswerWatch,
    Event,
    Tokens,
    Verdict,
    _dict,
    _int,
    _list,
    clip,
    parse_json_line,
    strip_ansi,
)
from tcab.outcomes import RunStatus


def _reconnecting(message: str) -> bool:
    return message.lstrip().lower().startswith(("reconnecting", "retrying"))


def _command_text(command: Any) -> str:
    return " ".join(map(str, command)) if isinstance(command, list) else str(command or "")


class CodexJsonAdapter:
    """Adapter for Codex JSON transcripts."""

    def __init__(self) -> None:
        self._turns = Tokens()
        self._legacy: Tokens | None = None
        self._error: str | None = None  # the last fatal error; cleared by a completed turn
        self._answers = AnswerWatch()

    def feed(self, stream: str, line: str) -> list[Event]:
        return self._answers.saw(self._feed(stream, line))

    def _feed(self, stream: str, line: str) -> list[Event]:
        line = strip_ansi(line)
        if stream != "stdout":
            return [Event("warning", clip(line))] if line.strip() else []
        obj = parse_json_line(line)
        if obj is None:
            return [Event("message", clip(line))] if line.strip() else []
        if not isinstance(obj, dict):
            return []
        if isinstance(obj.get("msg"), dict):
            return self._legacy_event(obj["msg"])
        kind = obj.get("type", "")
        if kind == "thread.started":
            return [Event("system", clip(f"thread {obj.get('thread_id', '')}".strip(), 200))]
        if kind == "turn.completed":
            usage = _dict(obj.get("usage"))
            self._turns = self._turns + Tokens(
                input=_int(usage.get("input_tokens")), output=_int(usage.get("output_tokens")),
                cache_read=_int(usage.get("cached_input_tokens")), reported=True)
            self._error = None
            self._answers.answered = True
            return []
        if kind == "turn.failed":
            error = _dict(obj.get("error"))
            self._error = strip_ansi(str(error.get("message") or "turn failed"))
            return [Event("error", clip(self._error))]
        if kind == "error":
            message = strip_ansi(str(obj.get("message", "")))
            if _reconnecting(message):
                return [Event("warning", clip(message), {"retry": True})]
            self._error = message or "error"
            return [Event("error", clip(message))]
        item = _dict(obj.get("item"))
        if kind == "item.completed" or (kind == "item.started" and item.get("type") == "command_execution"):
            return self._item(kind, item)
        return []

    def _item(self, kind: str, item: dict) -> list[Event]:
        itype = item.get("type")
        if itype in ("agent_message", "reasoning", "command_execution", "file_change", "mcp_tool_call",
                     "web_search", "todo_list"):
            self._answers.answered = True  # what the model said or asked for
        if itype == "agent_message":
            return [Event("message", clip(str(item.get("text", ""))))]
        if itype == "command_execution":
            if kind == "item.started":
                return [Event("command", clip(_command_text(item.get("command"))))]
            code = item.get("exit_code")
            if isinstance(code, int) and code != 0:
                return [Event("warning", clip(f"exit {code}: {_command_text(item.get('command'))}"),
                              {"exit_code": code})]
            return []
        if itype == "file_change":
            return [Event("read" if c.get("kind") == "read" else "write", clip(str(c.get("path", ""))),
                          {"change": clip(str(c.get("kind")), 200)})
                    for c in _list(item.get("changes")) if isinstance(c, dict)]
        if itype in ("mcp_tool_call", "web_search"):
            return [Event("command", clip(f"{itype} {item.get('tool') or item.get('query') or ''}".strip()))]
        if itype == "error":  # non-fatal: Codex carries on after these
            return [Event("warning", clip(str(item.get("message", ""))))]
        return []

    def _legacy_event(self, msg: dict) -> list[Event]:
        mtype = msg.get("type")
        if mtype in ("agent_message", "exec_command_begin", "patch_apply_begin", "token_count"):
            self._answers.answered = True
        if mtype == "agent_message":
            return [Event("message", clip(str(msg.get("message", ""))))]
        if mtype == "exec_command_begin":
            return [Event("command", clip(_command_text(msg.get("command"))))]
        if mtype == "patch_apply_begin":
            return [Event("write", clip(str(path))) for path in _dict(msg.get("changes"))]
        if mtype == "error":
            return [Event("error", clip(str(msg.get("message", ""))))]
        if mtype == "token_count":
            info = msg.get("info", msg)
            usage = _dict(info.get("total_token_usage", info)) if isinstance(info, dict) else {}
            self._legacy = Tokens(
                input=_int(usage.get("input_tokens")), output=_int(usage.get("output_tokens")),
                cache_read=_int(usage.get("cached_input_tokens")), reported=True)
        return []

    def verdict(self) -> Verdict | None:
        if self._error:
            return Verdict(RunStatus.HARNESS_ERROR, clip(self._error, 500))
        return self._answers.verdict()

    def is_keepalive(self, stream: str, line: str) -> bool:
        if stream != "stdout" or "econnecting" not in line:
            return False
        obj = parse_json_line(line)
        return (isinstance(obj, dict) and obj.get("type") == "error"
                and _reconnecting(str(obj.get("message", ""))))

    def tokens(self) -> Tokens:
        if self._turns.reported:
            return self._turns
        return self._legacy or Tokens()
