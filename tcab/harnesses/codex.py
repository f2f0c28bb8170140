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
is the account's plan refusing: ``harness_error``.
"""

from __future__ import annotations

import json
from typing import Any

from tcab.harnesses.events import Event, Tokens, Verdict, _int, clip, strip_ansi
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

    def feed(self, stream: str, line: str) -> list[Event]:
        line = strip_ansi(line)
        if stream != "stdout":
            return [Event("warning", clip(line))] if line.strip() else []
        try:
            obj = json.loads(line)
        except ValueError:
            return [Event("message", clip(line))] if line.strip() else []
        if not isinstance(obj, dict):
            return []
        if isinstance(obj.get("msg"), dict):
            return self._legacy_event(obj["msg"])
        kind = obj.get("type", "")
        if kind == "thread.started":
            return [Event("system", f"thread {obj.get('thread_id', '')}".strip())]
        if kind == "turn.completed":
            usage = obj.get("usage") or {}
            self._turns = self._turns + Tokens(
                input=_int(usage.get("input_tokens")), output=_int(usage.get("output_tokens")),
                cache_read=_int(usage.get("cached_input_tokens")), reported=True)
            self._error = None
            return []
        if kind == "turn.failed":
            error = obj.get("error") if isinstance(obj.get("error"), dict) else {}
            self._error = strip_ansi(str(error.get("message") or "turn failed"))
            return [Event("error", clip(self._error))]
        if kind == "error":
            message = strip_ansi(str(obj.get("message", "")))
            if _reconnecting(message):
                return [Event("warning", clip(message), {"retry": True})]
            self._error = message or "error"
            return [Event("error", clip(message))]
        if kind == "item.completed" or (kind == "item.started" and (obj.get("item") or {}).get("type") == "command_execution"):
            return self._item(kind, obj.get("item") or {})
        return []

    def _item(self, kind: str, item: dict) -> list[Event]:
        itype = item.get("type")
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
            return [Event("read" if c.get("kind") == "read" else "write", str(c.get("path", "")),
                          {"change": c.get("kind")})
                    for c in item.get("changes") or [] if isinstance(c, dict)]
        if itype in ("mcp_tool_call", "web_search"):
            return [Event("command", clip(f"{itype} {item.get('tool') or item.get('query') or ''}".strip()))]
        if itype == "error":  # non-fatal: Codex carries on after these
            return [Event("warning", clip(str(item.get("message", ""))))]
        return []

    def _legacy_event(self, msg: dict) -> list[Event]:
        mtype = msg.get("type")
        if mtype == "agent_message":
            return [Event("message", clip(str(msg.get("message", ""))))]
        if mtype == "exec_command_begin":
            return [Event("command", clip(_command_text(msg.get("command"))))]
        if mtype == "patch_apply_begin":
            return [Event("write", str(path)) for path in (msg.get("changes") or {})]
        if mtype == "error":
            return [Event("error", clip(str(msg.get("message", ""))))]
        if mtype == "token_count":
            info = msg.get("info", msg)
            usage = info.get("total_token_usage", info) if isinstance(info, dict) else {}
            self._legacy = Tokens(
                input=_int(usage.get("input_tokens")), output=_int(usage.get("output_tokens")),
                cache_read=_int(usage.get("cached_input_tokens")), reported=True)
        return []

    def verdict(self) -> Verdict | None:
        return Verdict(RunStatus.HARNESS_ERROR, clip(self._error, 500)) if self._error else None

    def is_keepalive(self, stream: str, line: str) -> bool:
        if stream != "stdout" or "econnecting" not in line:
            return False
        try:
            obj = json.loads(line)
        except ValueError:
            return False
        return (isinstance(obj, dict) and obj.get("type") == "error"
                and _reconnecting(str(obj.get("message", ""))))

    def tokens(self) -> Tokens:
        if self._turns.reported:
            return self._turns
        return self._legacy or Tokens()
