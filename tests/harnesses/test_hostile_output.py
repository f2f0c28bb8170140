"""Adapters on hostile output: every line a harness prints is the run's, so
no line may raise out of an adapter (a RecursionError used to decide the
run's status), and a session whose model never answered is never
``completed``."""

from __future__ import annotations

import copy
import json
import time
from pathlib import Path

import pytest

from tcab.harnesses import ADAPTERS, Event, Tokens, make_adapter
from tcab.harnesses.events import MAX_JSON_DEPTH, MAX_TOKENS, parse_json_line

TRANSCRIPTS = Path(__file__).parent / "transcripts"
STRUCTURED = [name for name in ADAPTERS if name != "plain"]
# Each transcript, and the adapter that reads it.
SAMPLES = {"claude-stream-json": ["claude-stream.jsonl", "claude-max-turns.jsonl"],
           "codex-json": ["codex-exec.jsonl", "codex-legacy.jsonl"],
           "gemini-stream-json": ["gemini-max-turns.jsonl"],
           "opencode-json": ["opencode-run.jsonl"]}
# What decoded JSON may put anywhere: every type, empty and not.
ODD_VALUES = [None, True, 0, -1, 10 ** 30, 1.5e308, "", "x", [], [1, "a"], {}, {"type": "text"}]


def _feed_all(adapter, lines: list[tuple[str, str]]) -> list[Event]:
    events = []
    for stream, line in lines:
        out = adapter.feed(stream, line)
        assert isinstance(out, list) and all(isinstance(e, Event) and isinstance(e.text, str) for e in out), out
        events.extend(out)
        adapter.is_keepalive(stream, line)
    adapter.tokens()
    adapter.verdict()
    return events


def _hostile_lines() -> list[str]:
    return ["[" * 100_000, "{\"a\":" * 100_000, "[" * 100_000 + "]" * 100_000,
            json.dumps({"type": "assistant", "message": {"content": [[[[0]]]]}}),
            "[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1),
            "{\"type\": \"system\", \"subtype\": \"api_retry\", \"x\": " + "[" * 5000 + "]" * 5000 + "}",
            "{\"type\": \"error\", \"message\": \"Reconnecting " + "[" * 50_000 + "\"}",
            "\"" + "\\\"" * 200_000, "1" * 100_000, "{" + "\"k\":1," * 100_000 + "\"k\":1}"]


@pytest.mark.parametrize("name", list(ADAPTERS))
@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_a_hostile_line_is_plain_text_never_an_exception(name: str, stream: str) -> None:
    adapter = make_adapter(name)
    started = time.perf_counter()
    for line in _hostile_lines():
        events = _feed_all(adapter, [(stream, line)])
        assert all(len(e.text) < 3000 for e in events)
        if line.startswith("[" * 1000) or line.startswith("{\"a\":{"):  # kept as text, clipped
            assert [e.kind for e in events] in (["message"], ["warning"], ["error"]), events
    assert time.perf_counter() - started < 20


def test_parse_json_line_bounds_depth_and_size() -> None:
    assert parse_json_line("[" * 100_000) is None
    assert parse_json_line("[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH) is not None
    assert parse_json_line("[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1)) is None
    # Brackets inside strings are text, not nesting.
    assert parse_json_line(json.dumps({"a": "[" * 10_000})) == {"a": "[" * 10_000}
    assert parse_json_line(json.dumps(["\\\"[[[" * 1000, [[1]]])) == ["\\\"[[[" * 1000, [[1]]]
    assert parse_json_line(json.dumps({"a": "x" * 100}), max_chars=50) is None
    assert parse_json_line("\"just a string\"") is None and parse_json_line("not json") is None
    wide = "[" + "[]," * 200_000 + "0]"  # wide, not deep: decoded
    assert parse_json_line(wide) is not None


def _paths(value, path=()):
    yield path
    if isinstance(value, dict):
        for key, child in value.items():
            yield from _paths(child, (*path, key))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from _paths(child, (*path, i))


def _replace(value, path, new):
    if not path:
        return new
    value = copy.deepcopy(value)
    holder = value
    for key in path[:-1]:
        holder = holder[key]
    holder[path[-1]] = new
    return value


@pytest.mark.parametrize("name", list(SAMPLES))
def test_every_field_of_every_line_may_hold_any_type(name: str) -> None:
    """Each transcript line, with each of its values (at every depth) replaced
    by each JSON type in turn: no adapter raises; tokens stay in range."""
    lines = [ln for sample in SAMPLES[name] for ln in (TRANSCRIPTS / sample).read_text().splitlines() if ln.strip()]
    fed = 0
    for line in lines:
        obj = json.loads(line)
        for path in list(_paths(obj)):
            for odd in ODD_VALUES:
                adapter = make_adapter(name)
                _feed_all(adapter, [("stdout", json.dumps(_replace(obj, path, odd)))])
                tokens = adapter.tokens()
                assert all(0 <= n <= MAX_TOKENS for n in (tokens.input, tokens.output, tokens.cache_read,
                                                          tokens.cache_write))
                fed += 1
    assert fed > 500


def test_token_counts_are_bounded_however_many_lines_report() -> None:
    adapter = make_adapter("codex-json")
    line = json.dumps({"type": "turn.completed", "usage": {"input_tokens": MAX_TOKENS, "output_tokens": 10 ** 30}})
    for _ in range(20_000):
        adapter.feed("stdout", line)
    assert adapter.tokens() == Tokens(input=MAX_TOKENS, output=0, reported=True)


# -- a session that never got a model answer -----------------------------------------

# What each CLI prints when every model request fails and it gives up (the
# CLI's start and its error lines; no answer from the model).
NO_ANSWER = {
    "claude-stream-json": [
        ("stdout", json.dumps({"type": "system", "subtype": "init", "model": "claude-sonnet-4-5"})),
        ("stdout", json.dumps({"type": "assistant", "message": {
            "id": "x", "model": "<synthetic>", "role": "assistant",
            "content": [{"type": "text", "text": "API Error: 500 Internal server error"}]}}))],
    "codex-json": [("stdout", json.dumps({"type": "thread.started", "thread_id": "t"})),
                   ("stdout", json.dumps({"type": "turn.started"}))],
    "gemini-stream-json": [("stdout", json.dumps({"type": "init", "model": "gemini-2.5-pro"})),
                           ("stdout", json.dumps({"type": "message", "role": "user", "content": "do it"})),
                           ("stdout", json.dumps({"type": "result", "status": "success",
                                                  "stats": {"input_tokens": 0, "output_tokens": 0}}))],
    "opencode-json": [("stderr", "INFO  service=default version=1.0 args=[\"run\"] opencode")],
    "aider": [("stdout", "Aider v0.86.2"), ("stdout", "Model: openai/gpt-4o with whole edit format"),
              ("stdout", "litellm.InternalServerError: InternalServerError: OpenAIException - Connection"),
              ("stdout", "error."),
              ("stdout", "The API provider's servers are down or overloaded."),
              ("stdout", "Retrying in 32.0 seconds...")],
}


@pytest.mark.parametrize("name", STRUCTURED)
def test_a_session_without_a_model_answer_is_harness_error(name: str) -> None:
    adapter = make_adapter(name)
    _feed_all(adapter, NO_ANSWER[name])
    verdict = adapter.verdict()
    assert verdict is not None and verdict.status == "harness_error", verdict
    assert "never got an answer from its model" in verdict.detail or name == "claude-stream-json", verdict
    assert "Retrying in" not in verdict.detail


def test_aider_no_answer_names_what_it_last_said() -> None:
    adapter = make_adapter("aider")
    _feed_all(adapter, NO_ANSWER["aider"])
    assert "servers are down or overloaded" in adapter.verdict().detail


@pytest.mark.parametrize("name", list(SAMPLES))
def test_a_session_the_model_answered_has_no_such_verdict(name: str) -> None:
    for sample in SAMPLES[name]:
        if "max-turns" in sample:
            continue  # a ceiling: its own verdict
        adapter = make_adapter(name)
        _feed_all(adapter, [("stdout", ln) for ln in (TRANSCRIPTS / sample).read_text().splitlines()])
        assert adapter.verdict() is None or "never got an answer" not in adapter.verdict().detail, sample


def test_plain_adapter_cannot_tell_and_leaves_it_to_the_exit_code() -> None:
    adapter = make_adapter("plain")
    _feed_all(adapter, [("stdout", "cp -R /solution/. /work/"), ("stdout", "abc123 Reference solution")])
    assert adapter.verdict() is None


# What the real CLIs printed against the scripted model answering 500 to
# everything, or with nothing listening (tests/harnesses/test_e2e_clis.py,
# session lines of raw.jsonl as {"stream", "line"}): every one exits having
# had no answer, some with exit 0.
ADAPTER_OF = {"aider": "aider", "claude": "claude-stream-json", "codex": "codex-json",
              "gemini": "gemini-stream-json", "opencode": "opencode-json"}
UNREACHABLE = sorted(p.name for p in TRANSCRIPTS.glob("*-server-error.jsonl")) + sorted(
    p.name for p in TRANSCRIPTS.glob("*-refused.jsonl"))


@pytest.mark.parametrize("transcript", UNREACHABLE)
def test_real_cli_output_without_a_model_answer_is_harness_error(transcript: str) -> None:
    adapter = make_adapter(ADAPTER_OF[transcript.split("-")[0]])
    lines = [json.loads(ln) for ln in (TRANSCRIPTS / transcript).read_text().splitlines() if ln.strip()]
    _feed_all(adapter, [(d["stream"], d["line"]) for d in lines])
    verdict = adapter.verdict()
    assert verdict is not None and verdict.status == "harness_error", (transcript, verdict)
    assert "\x1b" not in verdict.detail and "Retrying in" not in verdict.detail
