"""Aider's plain-text output (it has no structured output).

Aider prints the model's answer, ``Applied edit to <path>`` for each file
it changed, and after each model answer one usage line::

    Tokens: 2.6k sent, 1.0k cache write, 5.3k cache hit, 47 received. Cost: ...

Counts of 1000 and more are printed rounded (``2.6k``, ``12k``) and are
summed as printed. Its failure to fetch its price list (offline) is a
warning, not a model failure. Everything else is read as the ``plain`` adapter reads
it, including the model failures Aider exits 0 after. A session with no usage
line and no applied edit never got a model answer: ``harness_error``
(:class:`~tcab.harnesses.events.AnswerWatch`); that is what an unreachable
provider looks like once litellm's error line is wrapped or reworded, and
Aider gives up after its retries and exits 0.

Ceilings: Aider has no turn or budget limit (one ``--message`` is one
exchange; ``--max-chat-history-tokens`` only starts summarising), so no Aider
run ends ``limit_exceeded``.
"""

from __future__ import annotations

import re

from tcab.harnesses.events import (
    AnswerWatch,
    Event,
    PlainAdapter,
    Tokens,
    Verdict,
    clip,
    strip_ansi,
)

_COUNT = r"(\d+(?:\.\d)?k|\d+)"
_USAGE = re.compile(rf"^Tokens: {_COUNT} sent(?:, {_COUNT} cache write)?(?:, {_COUNT} cache hit)?, "
                    rf"{_COUNT} received\.")
_APPLIED = re.compile(r"^Applied edit to (.+)$")
# Aider fetches litellm's price list from GitHub at start and prints the error
# when it cannot (offline); it then goes on to its model, so it is no verdict.
_PRICE_LIST = "model_prices_and_context_window"


def _count(text: str | None) -> int:
    if not text:
        return 0
    return round(float(text[:-1]) * 1000) if text.endswith("k") else int(text)


class AiderAdapter(PlainAdapter):
    """Plain lines, plus Aider's edits as ``write`` and its usage lines as tokens."""

    def __init__(self) -> None:
        super().__init__()
        self._tokens = Tokens()
        self._answers = AnswerWatch(("error", "warning", "message"))

    def feed(self, stream: str, line: str) -> list[Event]:
        return self._answers.saw(self._feed(stream, line))

    def _feed(self, stream: str, line: str) -> list[Event]:
        text = strip_ansi(line).strip()
        if stream == "stdout":
            usage = _USAGE.match(text)
            if usage:
                sent, write, hit, received = (_count(g) for g in usage.groups())
                self._tokens = self._tokens + Tokens(sent, received, hit, write, reported=True)
                self._answers.answered = True
                return [Event("system", clip(text))]
            applied = _APPLIED.fullmatch(text)
            if applied:
                self._answers.answered = True
                return [Event("write", clip(applied.group(1)))]
        if _PRICE_LIST in text:
            return [Event("warning", clip(text))]
        return super().feed(stream, line)

    def tokens(self) -> Tokens:
        return self._tokens

    def verdict(self) -> Verdict | None:
        return super().verdict() or self._answers.verdict()
