"""A harness stopping at its own configured ceiling is ``limit_exceeded``.

The transcripts ``claude-max-turns.jsonl`` and ``gemini-max-turns.jsonl`` were
recorded from the real CLIs (Claude Code 2.1, ``--max-turns 1``; Gemini CLI
0.61, ``model.maxSessionTurns: 1``) driven by the scripted fake model
(test_e2e_clis.py runs them live). The other lines are the same CLIs' formats
edited to the case at hand. What must never count as a ceiling: a model
*saying* it hit one, and an error that merely names some other limit (a rate
or quota limit is a ``harness_error``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tcab.harnesses import make_adapter
from tcab.outcomes import RunStatus

TRANSCRIPTS = Path(__file__).parent / "transcripts"


def _verdict(adapter_name: str, lines: list[str]):
    adapter = make_adapter(adapter_name)
    for line in lines:
        adapter.feed("stdout", line)
    return adapter.verdict(), adapter.tokens()


def _lines(name: str) -> list[str]:
    return (TRANSCRIPTS / name).read_text().splitlines()


def test_claude_max_turns_recorded() -> None:
    verdict, tokens = _verdict("claude-stream-json", _lines("claude-max-turns.jsonl"))
    assert verdict is not None and verdict.status is RunStatus.LIMIT_EXCEEDED
    assert verdict.detail == "error_max_turns: Reached maximum number of turns (1)"
    assert (tokens.input, tokens.output) == (120, 30)  # the ceiling keeps the usage


def test_claude_max_budget() -> None:
    lines = _lines("claude-max-turns.jsonl")[:-1]
    result = json.loads(_lines("claude-max-turns.jsonl")[-1])
    result.update(subtype="error_max_budget_usd", errors=["Reached maximum budget ($0.001)"],
                  terminal_reason="max_budget_usd")
    verdict, _ = _verdict("claude-stream-json", [*lines, json.dumps(result)])
    assert verdict.status is RunStatus.LIMIT_EXCEEDED
    assert "error_max_budget_usd" in verdict.detail and "$0.001" in verdict.detail


def test_claude_other_error_result_is_harness_error() -> None:
    result = json.loads(_lines("claude-max-turns.jsonl")[-1])
    result.update(subtype="error_during_execution", errors=["rate limit exceeded (429)"])
    verdict, _ = _verdict("claude-stream-json", [json.dumps(result)])
    assert verdict.status is RunStatus.HARNESS_ERROR


def test_gemini_max_session_turns_recorded() -> None:
    verdict, tokens = _verdict("gemini-stream-json", _lines("gemini-max-turns.jsonl"))
    assert verdict is not None and verdict.status is RunStatus.LIMIT_EXCEEDED
    assert verdict.detail.startswith("Reached max session turns for this session.")
    assert (tokens.input, tokens.output) == (120, 30)


def test_gemini_core_turn_counter_then_success_is_still_the_ceiling() -> None:
    """gemini-cli's core stops the stream with its own event and the CLI then
    writes a ``success`` result: the ceiling must survive it."""
    lines = _lines("gemini-max-turns.jsonl")[:-1]
    event = {"type": "error", "timestamp": "2026-12-01T04:17:56.600Z", "severity": "error",
             "message": "Maximum session turns exceeded"}
    result = json.loads(_lines("gemini-max-turns.jsonl")[-1])
    result["status"] = "success"
    del result["error"]
    verdict, _ = _verdict("gemini-stream-json", [*lines, json.dumps(event), json.dumps(result)])
    assert verdict.status is RunStatus.LIMIT_EXCEEDED
    assert verdict.detail == "Maximum session turns exceeded"


@pytest.mark.parametrize("etype", ["RateLimitError", "QuotaLimitExceeded", "TerminalQuotaError",
                                   "FatalTurnLimitedErrorX", "budget"])
def test_gemini_error_types_that_only_look_like_a_ceiling_are_harness_errors(etype) -> None:
    """Attack: a rate or quota limit must not pass for the run's own ceiling
    (it would be kept as a result that says the harness chose to stop)."""
    result = json.loads(_lines("gemini-max-turns.jsonl")[-1])
    result["error"] = {"type": etype, "message": "Resource has been exhausted (e.g. check quota)."}
    verdict, _ = _verdict("gemini-stream-json", [json.dumps(result)])
    assert verdict.status is RunStatus.HARNESS_ERROR


@pytest.mark.parametrize("adapter_name,line", [
    ("claude-stream-json", json.dumps({"type": "assistant", "message": {"id": "m1", "content": [
        {"type": "text", "text": "error_max_turns: Reached maximum number of turns (1)"}]}})),
    ("gemini-stream-json", json.dumps({"type": "message", "role": "assistant",
                                       "content": "Maximum session turns exceeded"})),
    ("gemini-stream-json", json.dumps({"type": "error", "severity": "warning",
                                       "message": "Maximum session turns exceeded"})),
    ("codex-json", json.dumps({"type": "item.completed", "item": {
        "type": "agent_message", "text": "Reached maximum number of turns"}})),
    ("opencode-json", json.dumps({"type": "text", "part": {"text": "CRITICAL - MAXIMUM STEPS REACHED"}})),
    ("aider", "Reached maximum number of turns (1)"),
])
def test_a_model_saying_it_hit_a_ceiling_is_not_one(adapter_name, line) -> None:
    verdict, _ = _verdict(adapter_name, [line])
    # A line that is no model answer leaves the session without one: that verdict, never the ceiling.
    assert verdict is None or (verdict.status is RunStatus.HARNESS_ERROR
                               and "never got an answer from its model" in verdict.detail), verdict


def test_codex_account_usage_limit_is_a_harness_error_not_the_runs_ceiling() -> None:
    """Codex exec has no turn or budget ceiling of its own; running out of the
    account's plan ("usage limit") is the provider refusing: harness_error."""
    line = json.dumps({"type": "turn.failed", "error": {
        "message": "You've hit your usage limit. Visit https://chatgpt.com/settings/usage to purchase more credits"}})
    verdict, _ = _verdict("codex-json", _lines("codex-exec.jsonl") + [line])
    assert verdict.status is RunStatus.HARNESS_ERROR
