"""Every shipped harness, the real CLI from its registry (npm, or PyPI for Aider), through a whole
`tcab` run against the scripted fake model inside the run container.

write-file: `completed`, the file the script asked for is in the collected
tree, the events hold the script's messages and its tool call, the tokens
are the script's. unauthorized: `harness_error` with the CLI's own message.
silent: `hung` after the idle window (minutes would be the default; here
seconds), never the max runtime.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tcab.runs import RunOptions, execute_run

sys.path.insert(0, str(Path(__file__).parent / "fake_model"))
import fake_model  # noqa: E402

# Codex offers its tools only for a model it knows; OpenCode wants provider/model;
# Aider goes through litellm's OpenAI route.
MODELS = {"claude-code": None, "codex": "gpt-5-codex", "gemini-cli": "gemini-2.5-pro",
          "opencode": "anthropic/claude-sonnet-4-5", "aider": "openai/gpt-4o"}
SLUGS = ["claude-code", "codex", "gemini-cli", "opencode", "aider"]
KEYS = {"ANTHROPIC_API_KEY": "sk-fake-anthropic", "CODEX_API_KEY": "sk-fake-codex",
        "GEMINI_API_KEY": "fake-gemini"}


def _run(settings, case, harness, runtime, monkeypatch, image, **options):
    monkeypatch.setenv("TCAB_CONTAINER_IMAGE_BASE_WASM", image)
    opts = RunOptions(runtime=runtime, env=KEYS, model=MODELS[harness.slug], max_runtime_s=600, **options)
    record = execute_run(settings, case, case.variant(None), harness, opts)
    assert runtime.list_run_containers(record.id) == [], "a container was left behind"
    events = [json.loads(ln) for ln in (record.run_dir / "events.jsonl").read_text().splitlines()]
    return record, [e for e in events if e["stage"] == "session"]


@pytest.mark.timeout(900)
@pytest.mark.parametrize("slug", SLUGS)
def test_write_file_script_completes(slug, settings, e2e_case, pointed, podman_runtime, cli_image,
                                     monkeypatch) -> None:
    record, events = _run(settings, e2e_case, pointed(slug, "write-file"), podman_runtime, monkeypatch,
                          cli_image)
    assert record.status == "completed", record.status_detail
    written = record.run_dir / "work" / fake_model.FILE
    assert written.read_text() == fake_model.CONTENT
    texts = [(e["kind"], e["text"]) for e in events]
    assert ("message", fake_model.TEXT_1) in texts, texts
    assert ("message", fake_model.FINAL) in texts, texts
    assert any(k in ("write", "command") and fake_model.FILE in t for k, t in texts), texts
    expected = fake_model.expected_tokens()
    assert (record.tokens.input, record.tokens.output) == (expected["input"], expected["output"])
    assert not any("\x1b" in e["text"] for e in events)


@pytest.mark.timeout(900)
@pytest.mark.parametrize("slug", SLUGS)
def test_unauthorized_is_harness_error(slug, settings, e2e_case, pointed, podman_runtime, cli_image,
                                       monkeypatch) -> None:
    record, events = _run(settings, e2e_case, pointed(slug, "unauthorized"), podman_runtime, monkeypatch,
                          cli_image, idle_timeout_s=120)
    assert record.status == "harness_error", (record.status, record.status_detail)
    detail = record.status_detail.lower()
    assert any(w in detail for w in ("401", "api key", "x-api-key", "authentication", "unauthorized")), detail
    assert "\x1b" not in record.status_detail and not record.status_detail.lstrip().startswith(("{", "\""))
    assert record.duration_s < 300


@pytest.mark.timeout(900)
@pytest.mark.parametrize("slug", SLUGS)
def test_silent_model_is_hung(slug, settings, e2e_case, pointed, podman_runtime, cli_image,
                              monkeypatch) -> None:
    record, _ = _run(settings, e2e_case, pointed(slug, "silent"), podman_runtime, monkeypatch,
                     cli_image, idle_timeout_s=25)
    assert record.status in ("hung", "harness_error"), (record.status, record.status_detail)
    assert record.duration_s < 300


@pytest.mark.timeout(600)
def test_codex_stalled_stream_ends_by_its_own_retry_limits(settings, e2e_case, pointed, podman_runtime,
                                                          cli_image, monkeypatch) -> None:
    """The stream opens and stays silent: Codex's definition bounds it itself
    (stream idle timeout, 2 stream retries), long before tcab's idle window.
    The timeout is cut from the definition's 120 s to 2 s; the retry count is
    the definition's."""
    harness = pointed("codex", "stalled", {"stream_idle_timeout_ms=120000": "stream_idle_timeout_ms=2000"})
    record, events = _run(settings, e2e_case, harness, podman_runtime, monkeypatch, cli_image,
                          idle_timeout_s=240)
    assert record.status == "harness_error", (record.status, record.status_detail)
    retries = [e["text"] for e in events if e["kind"] == "warning" and e["text"].startswith("Reconnecting")]
    assert [r.split()[1] for r in retries] == ["1/2", "2/2"], retries
    assert record.duration_s < 120


@pytest.mark.timeout(600)
def test_claude_max_turns_is_limit_exceeded(settings, e2e_case, pointed, podman_runtime, cli_image,
                                            monkeypatch) -> None:
    """Claude Code's own ceiling: one turn allowed, the script's first turn
    calls a tool, so the CLI stops itself (result ``error_max_turns``). The
    run is ``limit_exceeded`` with the CLI's detail, whatever its exit code."""
    harness = pointed("claude-code", "write-file", extra=("--max-turns", "1"))
    record, events = _run(settings, e2e_case, harness, podman_runtime, monkeypatch, cli_image,
                          idle_timeout_s=120)
    assert record.status == "limit_exceeded", (record.status, record.status_detail)
    assert "error_max_turns" in record.status_detail, record.status_detail
    assert ("message", fake_model.FINAL) not in [(e["kind"], e["text"]) for e in events]
    assert record.duration_s < 300


@pytest.mark.timeout(600)
def test_gemini_max_session_turns_is_limit_exceeded(settings, e2e_case, pointed, podman_runtime, cli_image,
                                                    monkeypatch) -> None:
    """Gemini CLI's own ceiling (settings.json ``model.maxSessionTurns``): one
    turn allowed, the script's first turn calls a tool, so the second turn is
    refused by the CLI (``FatalTurnLimitedError``, exit 53)."""
    settings_json = json.dumps({"security": {"auth": {"selectedType": "gemini-api-key"}},
                                "model": {"maxSessionTurns": 1}})
    harness = pointed("gemini-cli", "write-file",
                      setup=f"mkdir -p ~/.gemini && echo '{settings_json}' > ~/.gemini/settings.json && ")
    record, events = _run(settings, e2e_case, harness, podman_runtime, monkeypatch, cli_image,
                          idle_timeout_s=120)
    assert record.status == "limit_exceeded", (record.status, record.status_detail)
    assert "max session turns" in record.status_detail.lower(), record.status_detail
    assert ("message", fake_model.FINAL) not in [(e["kind"], e["text"]) for e in events]
    assert record.duration_s < 300


# A port on the run container's loopback where nothing listens: every
# connection the CLI makes is refused.
REFUSED_URL = "http://127.0.0.1:9"


@pytest.mark.timeout(900)
@pytest.mark.parametrize("failure", ["server-error", "refused"])
@pytest.mark.parametrize("slug", SLUGS)
def test_unreachable_model_is_harness_error(slug, failure, settings, e2e_case, pointed, podman_runtime,
                                            cli_image, monkeypatch) -> None:
    """The model answers 500 to everything, or nothing listens at all: the CLI
    retries, gives up and may exit 0 (Aider does), but a session in which no
    model call succeeded is never ``completed``: ``harness_error``, with the
    CLI's own words or tcab's "no model answer" in the detail. Codex with
    nothing listening never gives up ("Reconnecting... waiting for network"
    once a minute, lines that count as silence): the idle window ends it,
    ``hung``."""
    harness = (pointed(slug, "server-error") if failure == "server-error"
               else pointed(slug, "write-file", base_url=REFUSED_URL))
    record, events = _run(settings, e2e_case, harness, podman_runtime, monkeypatch, cli_image,
                          idle_timeout_s=200)
    expected = "hung" if (slug, failure) == ("codex", "refused") else "harness_error"
    assert record.status == expected, (record.status, record.status_detail)
    assert record.status_detail and "\x1b" not in record.status_detail
    assert not (record.run_dir / "work" / fake_model.FILE).exists()
    assert record.duration_s < 600
