"""Claude Code's ``--output-format stream-json`` (with ``--verbose``).

One JSON object per line: ``system`` (init: model, tools), ``assistant``
(a message whose ``content`` holds ``text``, ``thinking`` and ``tool_use``
blocks, plus ``usage``), ``user`` (``tool_result`` blocks) and a final
``result`` (``subtype``, ``is_error``, ``result`` text, total ``usage``).
Claude Code repeats one assistant message's usage on each of its content
lines, so usage is counted once per message id; the ``result`` line's usage,
when present, is the authoritative total.
"""

from __future__ import annotations

import json
from typing import Any

from tcab.harnesses.events import Event, Tokens, _int, clip

_READ_TOOLS = {"Read", "Glob", "Grep", "LS", "NotebookRead", "WebFetch", "WebSearch"}
_WRITE_TOOLS = {"Write", "Edit", "MultiEdit", "NotebookEdit"}


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
    name = str(block.get("name", "?"))
    args = block.get("input") if isinstance(block.get("input"), dict) else {}
    if name == "Bash":
        return Event("command", clip(str(args.get("command", ""))), {"tool": name})
    target = args.get("file_path") or args.get("path") or args.get("pattern") or args.get("url") or ""
    if name in _WRITE_TOOLS:
        return Event("write", str(target), {"tool": name})
    if name in _READ_TOOLS:
        return Event("read", str(target), {"tool": name})
    return Event("command", clip(f"{name} {json.dumps(args, sort_keys=True)}"), {"tool": name})


class ClaudeStreamJsonAdapter:
    """Adapter for Claude Code stream-json transcripts."""

    def __init__(self) -> None:
        self._by_message: dict[str, Tokens] = {}
        self._final: Tokens | None = None

    def feed(self, stream: str, line: str) -> list[Event]:
        if stream != "stdout":
            return [Event("warning", clip(line))] if line.strip() else []
        try:
            obj = json.loads(line)
        except ValueError:
            return [Event("message", clip(line))] if line.strip() else []
        if not isinstance(obj, dict):
            return []
        kind = obj.get("type")
        if kind == "system":
            model = obj.get("model", "")
            return [Event("system", f"session {obj.get('subtype', '')} model={model}".strip(),
                          {"model": model} if model else {})]
        if kind == "assistant":
            message = obj.get("message") or {}
            msg_id = message.get("id") or f"#{len(self._by_message)}"
            if "usage" in message:
                self._by_message[msg_id] = _usage(message["usage"])
            events = []
            for block in message.get("content") or []:
                if not isinstance(block, dict):
                    continue
                if block.get("type") == "text" and block.get("text", "").strip():
                    events.append(Event("message", clip(block["text"])))
                elif block.get("type") == "tool_use":
                    events.append(_tool_event(block))
            return events
        if kind == "user":
            events = []
            for block in (obj.get("message") or {}).get("content") or []:
                if isinstance(block, dict) and block.get("type") == "tool_result" and block.get("is_error"):
                    content = block.get("content")
                    text = content if isinstance(content, str) else json.dumps(content)
                    events.append(Event("error", clip(text), {"tool_use_id": block.get("tool_use_id")}))
            return events
        if kind == "result":
            if isinstance(obj.get("usage"), dict):
                self._final = _usage(obj["usage"])
            text = str(obj.get("result") or obj.get("subtype") or "")
            data = {k: obj[k] for k in ("subtype", "num_turns", "duration_ms", "total_cost_usd") if k in obj}
            return [Event("error" if obj.get("is_error") else "system", clip(f"result: {text}"), data)]
        return []

    def tokens(self) -> Tokens:
        if self._final is not None:
            return self._final
        total = Tokens()
        for usage in self._by_message.values():
            total = total + usage
        return total
