"""Claude Code's ``--output-format stream-json`` (with ``--verbose``).

One JSON object per line: ``system`` (init: model, tools), ``assistant``
(a message whose ``content`` holds ``text``, ``thinking`` and ``tool_use``
blocks, plus ``usage``), ``user`` (``tool_result`` blocks) and a final
``result`` (``subtype``, ``is_error``, ``result`` text, total ``usage``).
Claude Code repeats one assistant message's usage on each of its content
lines, so usage is counted once per message id; the ``result`` line's usage,
when present, is the authoritative total.

Failures and ceilings: ``system``/``api_retry`` lines (attempt, status,
error) are keep-alives for the idle watchdog; a ``result`` with
``is_error`` is the verdict ``harness_error`` with its own text, and the
subtypes ``error_max_turns`` / ``error_max_budget_usd`` are
``limit_exceeded``. A session with no ``assistant`` message from the model
(Claude Code's own ``<synthetic>`` error messages are not the model's) is
``harness_error`` (:class:`~tcab.harnesses.events.AnswerWatch`).
"""

from __future__ import annotations

import json
from typing import Any

from tcab.harnesses.events import (
    MODEL_FAILURE,
    AnswerWatch,
    Event,
    Tokens,
    Verdict,
    _dict,
    _int,
    _list,
    _text,
    clip,
    parse_json_line,
    strip_ansi,
)
from tcab.outcomes import RunStatus

_READ_TOOLS = {"Read", "Glob", "Grep", "LS", "NotebookRead", "WebFetch", "WebSearch"}
_WRITE_TOOLS = {"Write", "Edit", "MultiEdit", "NotebookEdit"}
_CEILINGS = {"error_max_turns", "error_max_budget_usd", "error_max_structured_output_retries"}
# The model Claude Code names on the messages it makes up itself ("API Error: ...").
_SYNTHETIC = "<synthetic>"


def _usage(usage: Any) -> Tokens:
    if not isinstance(usage, dict):
        return Tokens()
    return Tokens(
        input=_int(usage.get("input_tokens")),
        output=_int(usage.get("output_tokens")),
        cache_read=_int(usage.get("cache_read_input_tokens")),
        cache_write=_int(usage.get("cache_creation_input_tokens")),
        reported=True,
    )


def _tool_event(block: dict) -> Event:
    name = clip(str(block.get("name", "?")), 200)
    args = _dict(block.get("input"))
    if name == "Bash":
        return Event("command", clip(str(args.get("command", ""))), {"tool": name})
    target = args.get("file_path") or args.get("path") or args.get("pattern") or args.get("url") or ""
    if name in _WRITE_TOOLS:
        return Event("write", clip(str(target)), {"tool": name})
    if name in _READ_TOOLS:
        return Event("read", clip(str(target)), {"tool": name})
    return Event("command", clip(f"{name} {json.dumps(args, sort_keys=True)}"), {"tool": name})


class ClaudeStreamJsonAdapter:
    """Adapter for Claude Code stream-json transcripts."""

    def __init__(self) -> None:
        self._by_message: dict[str, Tokens] = {}
        self._final: Tokens | None = None
        self._verdict: Verdict | None = None
        self._failure: str | None = None  # a stderr line saying the model was unreachable
        self._answers = AnswerWatch()

    def feed(self, stream: str, line: str) -> list[Event]:
        return self._answers.saw(self._feed(stream, line))

    def _feed(self, stream: str, line: str) -> list[Event]:
        line = strip_ansi(line)
        if stream != "stdout":
            if line.strip() and MODEL_FAILURE.search(line):
                self._failure = line.strip()
                return [Event("error", clip(line))]
            return [Event("warning", clip(line))] if line.strip() else []
        obj = parse_json_line(line)
        if obj is None:
            return [Event("message", clip(line))] if line.strip() else []
        if not isinstance(obj, dict):
            return []
        kind = obj.get("type")
        if kind == "system":
            return [self._system(obj)]
        if kind == "assistant":
            return self._assistant(_dict(obj.get("message")))
        if kind == "user":
            events = []
            for block in _list(_dict(obj.get("message")).get("content")):
                if isinstance(block, dict) and block.get("type") == "tool_result" and block.get("is_error"):
                    content = block.get("content")
                    text = content if isinstance(content, str) else json.dumps(content)
                    tool_use_id = block.get("tool_use_id")
                    events.append(Event("error", clip(text), {"tool_use_id": clip(_text(tool_use_id), 200)}))
            return events
        if kind == "result":
            return [self._result(obj)]
        return []

    def _assistant(self, message: dict) -> list[Event]:
        if message.get("model") != _SYNTHETIC:
            self._answers.answered = True
        msg_id = _text(message.get("id")) or f"#{len(self._by_message)}"
        if "usage" in message:
            self._by_message[msg_id] = _usage(message["usage"])
        events = []
        for block in _list(message.get("content")):
            if not isinstance(block, dict):
                continue
            if block.get("type") == "text" and _text(block.get("text")).strip():
                events.append(Event("message", clip(block["text"])))
            elif block.get("type") == "tool_use":
                events.append(_tool_event(block))
        return events

    @staticmethod
    def _system(obj: dict) -> Event:
        subtype = str(obj.get("subtype", ""))
        if subtype == "api_retry":
            data = {k: obj[k] for k in ("attempt", "max_retries", "retry_delay_ms", "error_status", "error")
                    if k in obj}
            return Event("warning", f"API retry {obj.get('attempt', '?')}/{obj.get('max_retries', '?')}: "
                         f"{obj.get('error_status') or ''} {obj.get('error') or ''}".rstrip(), data)
        if subtype == "init":
            model = clip(str(obj.get("model", "")), 200)
            return Event("system", f"session init model={model}", {"model": model} if model else {})
        data = {k: v for k, v in obj.items() if k not in ("type", "session_id", "uuid")
                and isinstance(v, (str, int, float, bool))}
        return Event("system", clip(f"system {subtype}".strip()), data)

    def _result(self, obj: dict) -> Event:
        if isinstance(obj.get("usage"), dict):
            self._final = _usage(obj["usage"])
        subtype = str(obj.get("subtype") or "")
        errors = obj.get("errors") if isinstance(obj.get("errors"), list) else []
        text = strip_ansi(str(obj.get("result") or "; ".join(map(str, errors)) or subtype))
        data = {k: obj[k] for k in ("subtype", "num_turns", "duration_ms", "total_cost_usd",
                                    "api_error_status") if k in obj}
        if subtype in _CEILINGS:
            self._verdict = Verdict(RunStatus.LIMIT_EXCEEDED, clip(f"{subtype}: {text}".rstrip(": "), 500))
        elif obj.get("is_error") or subtype.startswith("error"):
            self._verdict = Verdict(RunStatus.HARNESS_ERROR, clip(text or subtype, 500))
        else:
            self._verdict = None
        return Event("error" if self._verdict else "system", clip(f"result: {text}"), data)

    def verdict(self) -> Verdict | None:
        if self._verdict is not None:
            return self._verdict
        if self._failure is not None:
            return Verdict(RunStatus.HARNESS_ERROR, clip(self._failure, 500))
        return self._answers.verdict()

    def is_keepalive(self, stream: str, line: str) -> bool:
        if stream != "stdout" or '"api_retry"' not in line:
            return False
        obj = parse_json_line(line)
        return isinstance(obj, dict) and obj.get("type") == "system" and obj.get("subtype") == "api_retry"

    def tokens(self) -> Tokens:
        if self._final is not None:
            return self._final
        total = Tokens()
        for usage in self._by_message.values():
            total = total + usage
        return total
