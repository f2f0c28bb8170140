"""Adapters on transcripts in the harnesses' own formats: events and token usage."""

from __future__ import annotations

from pathlib import Path

from tcab.harnesses import Tokens, make_adapter

TRANSCRIPTS = Path(__file__).parent / "transcripts"


def _run(adapter_name: str, transcript: str, extra: list[tuple[str, str]] = ()):
    adapter = make_adapter(adapter_name)
    events = []
    for line in (TRANSCRIPTS / transcript).read_text().splitlines():
        events.extend(adapter.feed("stdout", line))
    for stream, line in extra:
        events.extend(adapter.feed(stream, line))
    return events, adapter.tokens()


def test_claude_stream_json() -> None:
    events, tokens = _run("claude-stream-json", "claude-stream.jsonl", [("stderr", "a warning")])
    kinds = [(e.kind, e.text) for e in events]
    assert kinds[0][0] == "system" and "claude-sonnet-4-5" in kinds[0][1]
    assert ("message", "I'll start by looking at the specs.") in kinds
    assert ("read", "/work/specs/overview.md") in kinds
    assert ("command", "npm test") in kinds
    assert ("write", "/work/src/game.js") in kinds
    assert any(k == "error" and "Missing script" in t for k, t in kinds)
    assert ("warning", "a warning") in kinds
    assert kinds[-2] == ("system", "result: The game is in place.")
    # The result line's usage is the total.
    assert tokens == Tokens(input=23, output=302, cache_read=63400, cache_write=6700, reported=True)


def test_claude_usage_without_result_counts_each_message_once() -> None:
    adapter = make_adapter("claude-stream-json")
    for line in (TRANSCRIPTS / "claude-stream.jsonl").read_text().splitlines()[:-1]:
        adapter.feed("stdout", line)
    # msg_01A appears twice with the same usage: counted once (last seen).
    assert adapter.tokens() == Tokens(input=4 + 8 + 6 + 5, output=90 + 60 + 140 + 12,
                                      cache_read=11000 + 17200 + 17500 + 17700,
                                      cache_write=6200 + 300 + 120 + 80, reported=True)


def test_codex_exec_json() -> None:
    events, tokens = _run("codex-json", "codex-exec.jsonl")
    kinds = [(e.kind, e.text) for e in events]
    assert kinds[0] == ("system", "thread 0199a213-81c0-7800-8aa1-bbab2a035a53")
    assert ("command", "bash -lc 'cat specs/overview.md'") in kinds
    assert ("warning", "exit 1: bash -lc 'npm test'") in kinds
    assert ("write", "/work/src/game.js") in kinds and ("write", "/work/index.html") in kinds
    assert ("message", "Implemented the board and the toggle rule.") in kinds
    assert ("warning", "stream disconnected before completion; retrying") in kinds
    assert tokens == Tokens(input=25763, output=142, cache_read=24948, reported=True)


def test_codex_legacy_format() -> None:
    events, tokens = _run("codex-json", "codex-legacy.jsonl")
    kinds = [(e.kind, e.text) for e in events]
    assert kinds == [("message", "Looking at the repository."), ("command", "bash -lc ls"),
                     ("write", "/work/src/game.js"), ("error", "rate limited")]
    assert tokens == Tokens(input=5000, output=300, cache_read=4000, reported=True)


def test_plain_and_garbage_lines() -> None:
    adapter = make_adapter("claude-stream-json")
    assert [e.kind for e in adapter.feed("stdout", "not json at all")] == ["message"]
    assert adapter.feed("stdout", "[1, 2]") == []
    assert adapter.tokens() == Tokens()
    plain = make_adapter("plain")
    assert [e.kind for e in plain.feed("stdout", "hello")] == ["message"]
    assert [e.kind for e in plain.feed("stderr", "uh oh")] == ["warning"]
    assert plain.feed("stdout", "   ") == []


def test_aider_text_output() -> None:
    adapter = make_adapter("aider")
    lines = ["Aider v0.86.2", "I will write hello.txt now.", "", "Applied edit to hello.txt",
             "Tokens: 647 sent, 8 received. Cost: $0.0017 message, $0.0017 session.",
             "Tokens: 2.6k sent, 1.0k cache write, 5.3k cache hit, 47 received.",
             "Tokens: 12k sent, 1,2 received."]  # the last one is not aider's format: ignored
    events = [e for ln in lines for e in adapter.feed("stdout", ln)]
    kinds = [(e.kind, e.text) for e in events]
    assert ("message", "I will write hello.txt now.") in kinds
    assert ("write", "hello.txt") in kinds
    assert ("system", "Tokens: 647 sent, 8 received. Cost: $0.0017 message, $0.0017 session.") in kinds
    # Aider prints counts over 1000 rounded ("2.6k"): summed as printed.
    assert adapter.tokens() == Tokens(input=647 + 2600, output=8 + 47, cache_read=5300, cache_write=1000,
                                      reported=True)
    assert adapter.verdict() is None
    assert adapter.is_keepalive("stderr", "Retrying in 0.5 seconds...")


def test_aider_model_failure_is_the_verdict_even_on_exit_0() -> None:
    adapter = make_adapter("aider")
    adapter.feed("stdout", "\x1b[31mlitellm.AuthenticationError: AuthenticationError: OpenAIException - "
                           "Incorrect API key provided: fake.\x1b[0m")
    verdict = adapter.verdict()
    assert verdict is not None and verdict.status == "harness_error"
    assert verdict.detail.startswith("litellm.AuthenticationError") and "\x1b" not in verdict.detail
    assert make_adapter("aider").tokens() == Tokens()


def test_aider_price_list_fetch_failing_is_not_a_model_failure() -> None:
    # Offline, Aider fails to fetch its price list from GitHub at start and goes
    # on to its model: a warning, not the session's verdict.
    adapter = make_adapter("aider")
    line = ("HTTPSConnectionPool(host='raw.githubusercontent.com', port=443): Max retries exceeded with url: "
            "/BerriAI/litellm/main/model_prices_and_context_window.json (Caused by NameResolutionError("
            "\"Failed to resolve 'raw.githubusercontent.com' ([Errno -2] Name or service not known)\"))")
    assert [e.kind for e in adapter.feed("stdout", line)] == ["warning"]
    adapter.feed("stdout", "Tokens: 647 sent, 8 received.")  # its model answered
    assert adapter.verdict() is None
