"""Output adapters by name; a harness definition names one (``adapter = ...``)."""

from __future__ import annotations

import importlib

from tcab.harnesses.events import Adapter

#: adapter name -> "module:Class", imported when a run needs it.
ADAPTERS: dict[str, str] = {
    "plain": "tcab.harnesses.events:PlainAdapter",
    "aider": "tcab.harnesses.aider:AiderAdapter",
    "claude-stream-json": "tcab.harnesses.claude:ClaudeStreamJsonAdapter",
    "codex-json": "tcab.harnesses.codex:CodexJsonAdapter",
    "gemini-stream-json": "tcab.harnesses.gemini:GeminiStreamJsonAdapter",
    "opencode-json": "tcab.harnesses.opencode:OpenCodeJsonAdapter",
}


def make_adapter(name: str) -> Adapter:
    """A fresh adapter instance. Raises KeyError for an unknown name
    (definitions are validated against ADAPTERS when loaded)."""
    module, attr = ADAPTERS[name].split(":")
    return getattr(importlib.import_module(module), attr)()
