"""A harness's output is hostile: endless, huge, binary, escaped, or built
to slip a secret past the redactor. Each attack runs for real in a Podman
container and ends in a recorded run with the right status, a readable
detail, bounded logs, no part of a secret anywhere under the results
folder (results.db included) and tcab's resident memory growth under a stated bound (PEAK_GROWTH)."""

from __future__ import annotations

import json
import math
import re
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from tcab.runs import RunOptions, execute_run

TOKEN = "sk-test-3f9a1c7e5b2d4a6f8e0c"
# A value with regex, JSON and UTF-8 specialness: quote, backslash, dots,
# brackets, a star and non-ASCII letters.
ODD = 'k\u00e9y"\\.*+?[(\u00fc\u20ac)]$^|{2}'
ODD2 = "p\u00e4ss.*(w\u00f6rd)+\u20ac"  # no quote or backslash: JSON keeps it literal
#: How much tcab's resident memory may grow from the session's start while
#: its output floods (the reader's queue used to grow by ~40 MB/s).
PEAK_GROWTH = 64 * 1024 * 1024


def _vm(key: str) -> int:
    return int(re.search(rf"{key}:\s+(\d+) kB", Path("/proc/self/status").read_text()).group(1)) * 1024


class _SessionPeak:
    """tcab's peak RSS growth from the session's start: the kernel's
    high-water mark (VmHWM) is reset through /proc/self/clear_refs then."""

    def __init__(self) -> None:
        self.base: int | None = None

    def on_event(self, event: dict) -> None:
        if event["kind"] == "system" and event["text"] == "session started":
            Path("/proc/self/clear_refs").write_text("5")
            self.base = _vm("VmRSS")

    def growth(self) -> int:
        assert self.base is not None, "the session never started"
        return _vm("VmHWM") - self.base


def _run(settings, case, harness, runtime, **options):
    record = execute_run(settings, case, case.variant(None), harness, RunOptions(runtime=runtime, **options))
    assert runtime.list_run_containers(record.id) == [], f"a container was left behind: {record.status_detail} {record.stages[-1]}"
    return record


def _assert_no_part_of(settings, value: str, *, part: int = 8) -> None:
    """No ``part``-character piece of ``value`` (nor of its JSON-escaped
    form) in any file under the results folder, nor in a file name: a cut
    secret is still a leak."""
    escaped = json.dumps(value, ensure_ascii=False)[1:-1]
    pieces = {text[i:i + part].encode() for text in {value, escaped}
              for i in range(len(text) - part + 1)}
    files = [p for p in settings.results_dir.rglob("*") if p.is_file()]
    assert any(p.name == "results.db" for p in files) and any(p.name == "raw.jsonl" for p in files)
    for path in files:
        data = path.read_bytes()
        for piece in pieces:
            assert piece not in data, f"{piece!r} in {path}"
            assert piece.decode() not in str(path)


def _db_detail(settings, run_id: str) -> str:
    con = sqlite3.connect(settings.results_db)
    try:
        return con.execute("SELECT status_detail FROM runs WHERE id = ?", [run_id]).fetchone()[0]
    finally:
        con.close()


def test_secret_cut_by_the_detail_tail_is_redacted_whole(settings, e2e_case, scripted, podman_runtime) -> None:
    # The last 500 characters of output become the detail: the cut falls
    # inside the value, so text redaction of the tail missed its end.
    script = 'printf %s "$TCAB_TOKEN"; head -c 490 /dev/zero | tr "\\0" x; echo; exit 3'
    harness = scripted(script, secrets=["TCAB_TOKEN"])
    record = _run(settings, e2e_case, harness, podman_runtime, env={"TCAB_TOKEN": TOKEN})
    assert record.status == "harness_error" and record.status_detail.startswith("exit 3: ")
    assert "xxxxxxxx" in record.status_detail
    _assert_no_part_of(settings, TOKEN)


def test_secret_across_the_line_cut_and_chunks_is_redacted_whole(settings, e2e_case, scripted,
                                                                 podman_runtime) -> None:
    # 1 MiB - 10 bytes, then the value, then (later) the newline: the 1 MiB
    # line cut splits the value over two raw.jsonl lines. Then the value
    # again, one byte per write, so every chunk boundary falls inside it.
    script = ('head -c 1048566 /dev/zero | tr "\\0" y; printf %s "$TCAB_TOKEN"; sleep 0.5; echo; '
              'v="$TCAB_TOKEN"; while [ -n "$v" ]; do r="${v#?}"; printf %s "${v%"$r"}"; v="$r"; sleep 0.01; done; '
              'echo; echo "err:$TCAB_TOKEN" >&2')
    harness = scripted(script, secrets=["TCAB_TOKEN"])
    record = _run(settings, e2e_case, harness, podman_runtime, env={"TCAB_TOKEN": TOKEN})
    assert record.status == "completed", record.status_detail
    lines = [json.loads(x)["line"] for x in (record.run_dir / "raw.jsonl").read_text().splitlines()]
    # Redacted before the cut: the cut may split the marker, never the value.
    assert "".join(lines).count("[secret:TCAB_TOKEN]") == 3
    _assert_no_part_of(settings, TOKEN)


def test_secret_decoded_from_json_escapes_is_redacted(settings, e2e_case, scripted, podman_runtime) -> None:
    # The raw line holds only the JSON-escaped form; the adapter decodes it
    # into event text and data. Redacting the data's JSON text missed it.
    escaped = json.dumps(ODD)[1:-1]
    escaped2 = json.dumps(ODD2)[1:-1]
    line = json.dumps({"type": "result", "subtype": "S1 S2", "result": "S1", "is_error": False})
    line = line.replace("S1", escaped).replace("S2", escaped2)
    answer = json.dumps({"type": "assistant", "message": {"id": "m1", "content": [{"type": "text", "text": "ok"}]}})
    harness = scripted(f"printf '%s\\n' '{answer}' '{line}'", secrets=["TCAB_ODD", "TCAB_ODD2"],
                       adapter="claude-stream-json")
    record = _run(settings, e2e_case, harness, podman_runtime, env={"TCAB_ODD": ODD, "TCAB_ODD2": ODD2})
    assert record.status == "completed", record.status_detail
    events = (record.run_dir / "events.jsonl").read_text()
    assert "[secret:TCAB_ODD]" in events
    _assert_no_part_of(settings, ODD, part=len(ODD))
    _assert_no_part_of(settings, ODD2, part=len(ODD2))


def test_yes_flood_keeps_memory_flat_and_the_log_capped(settings, e2e_case, scripted, podman_runtime) -> None:
    cap = 256 * 1024  # small, so a loaded machine still passes it within the run
    peak = _SessionPeak()
    record = _run(settings, e2e_case, scripted("yes"), podman_runtime, max_runtime_s=12.0,
                  max_log_bytes=cap, on_event=peak.on_event)
    session = {s.stage: s for s in record.stages}["session"]
    assert record.status == "timed_out" and session.duration_s < 12 + 5 + 10  # + the drain window
    assert peak.growth() < PEAK_GROWTH, f"tcab's RSS grew by {peak.growth() / 2**20:.1f} MiB"
    raw = (record.run_dir / "raw.jsonl").read_bytes()
    assert len(raw) < cap + 4096
    marker = json.loads(raw.splitlines()[-1])
    assert marker["stream"] == "tcab" and marker["dropped_lines"] > 0
    assert f"{marker['dropped_lines']} output lines" in marker["line"]
    assert (record.run_dir / "events.jsonl").stat().st_size < cap + 8192
    assert "dropped past the log cap" in record.status_detail
    assert _db_detail(settings, record.id) == record.status_detail


def test_nul_flood_huge_line_and_bad_utf8(settings, e2e_case, scripted, podman_runtime) -> None:
    # 20 MB of NUL bytes, a 100 MB line without a newline, invalid UTF-8, a
    # lone surrogate in JSON: completed, logs capped, every log line valid JSON.
    script = ("head -c 20000000 /dev/zero; head -c 100000000 /dev/zero | tr '\\0' a; echo; "
              "printf 'bad \\377\\376 bytes\\n'; "
              "printf '%s\\n' '{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"\\ud800 lone\"}]}}'")
    cap = 4 * 1024 * 1024
    peak = _SessionPeak()
    record = _run(settings, e2e_case, scripted(script, adapter="claude-stream-json"), podman_runtime,
                  max_log_bytes=cap, on_event=peak.on_event)
    assert record.status == "completed", record.status_detail
    assert peak.growth() < PEAK_GROWTH, f"tcab's RSS grew by {peak.growth() / 2**20:.1f} MiB"
    for name in ("raw.jsonl", "events.jsonl"):
        text = (record.run_dir / name).read_text(encoding="utf-8")
        assert len(text.encode()) < cap + 4096
        for line in text.splitlines():
            json.loads(line)
    assert "dropped past the log cap" in record.status_detail


def test_bad_utf8_and_surrogates_are_logged(settings, e2e_case, scripted, podman_runtime) -> None:
    script = ("printf 'bad \\377\\376 bytes\\n'; "
              "printf '%s\\n' '{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"\\ud800 lone\"}]}}'")
    record = _run(settings, e2e_case, scripted(script, adapter="claude-stream-json"), podman_runtime)
    assert record.status == "completed", record.status_detail
    raw = [json.loads(x) for x in (record.run_dir / "raw.jsonl").read_text().splitlines()]
    assert any(r["line"] == "bad \ufffd\ufffd bytes" for r in raw)
    events = [json.loads(x) for x in (record.run_dir / "events.jsonl").read_text().splitlines()]
    assert any(e["kind"] == "message" and e["text"].endswith(" lone") for e in events)


def test_escapes_are_stripped_from_the_detail(settings, e2e_case, scripted, podman_runtime) -> None:
    script = "printf '\\033[31mred\\033[0m \\033]0;pwned-title\\007 \\033[2J boom\\001\\n'; exit 2"
    record = _run(settings, e2e_case, scripted(script), podman_runtime)
    assert record.status == "harness_error"
    assert record.status_detail == "exit 2: red   boom"
    assert _db_detail(settings, record.id) == record.status_detail


def test_closed_stdout_but_running_is_hung(settings, e2e_case, scripted, podman_runtime) -> None:
    record = _run(settings, e2e_case, scripted("echo hi; exec >&- 2>&-; sleep 300"), podman_runtime,
                  idle_timeout_s=2.0)
    assert record.status == "hung" and record.duration_s < 30


def test_output_after_the_kill_is_dropped(settings, e2e_case, scripted, podman_runtime) -> None:
    # A writer that left the session (setsid) survives the kill and keeps
    # the stream open: tcab stops waiting after the drain window, the reader
    # thread stops, the run ends and removing the container ends the writer.
    script = "setsid sh -c 'while :; do echo escaped; done' & sleep 300"
    threads = threading.active_count()
    peak = _SessionPeak()
    record = _run(settings, e2e_case, scripted(script), podman_runtime, max_runtime_s=3.0,
                  max_log_bytes=1024 * 1024, on_event=peak.on_event)
    assert record.status == "timed_out" and record.duration_s < 60
    assert peak.growth() < PEAK_GROWTH, f"tcab's RSS grew by {peak.growth() / 2**20:.1f} MiB"
    deadline = time.monotonic() + 10
    while threading.active_count() > threads and time.monotonic() < deadline:
        time.sleep(0.2)
    assert threading.active_count() <= threads, "the reader thread outlived its run"


@pytest.mark.parametrize("how", ["kill", "remove"])
def test_container_killed_from_outside_is_infrastructure(settings, e2e_case, scripted, podman_runtime,
                                                         how: str) -> None:
    run_id = f"test-killed-outside-{how}"

    def on_event(event: dict) -> None:
        if event["kind"] == "message" and event["text"] == "started":
            def attack() -> None:
                (cid,) = podman_runtime.list_run_containers(run_id)
                if how == "kill":
                    podman_runtime.api.kill(cid)
                else:
                    podman_runtime.api.remove_container(cid, force=True)
            threading.Thread(target=attack).start()

    record = _run(settings, e2e_case, scripted("echo started; sleep 300"), podman_runtime,
                  run_id=run_id, on_event=on_event)
    assert record.status == "infrastructure", record.status_detail
    assert record.status_detail.startswith("session failed: ")
    # rm -f stops the container first: either is what tcab may see.
    assert "stopped while the command ran" in record.status_detail or (
        how == "remove" and "was removed" in record.status_detail)
    assert {s.stage: s.status for s in record.stages}["session"] == "failed"


def test_a_harness_cannot_stop_its_own_container(settings, e2e_case, scripted, podman_runtime) -> None:
    # Stopping the container would pass the harness's failure off as the
    # engine's: the init and its sleep belong to root, out of its reach.
    script = "kill -TERM 1; kill -KILL $(pgrep -x sleep) 2>/dev/null; kill -KILL -1; sleep 5"
    record = _run(settings, e2e_case, scripted(script), podman_runtime)
    assert record.status == "harness_error", record.status_detail
    assert record.status_detail.startswith("exit 137")


@pytest.mark.parametrize("field", ["max_runtime_s", "idle_timeout_s", "max_log_bytes"])
@pytest.mark.parametrize("value", [math.nan, math.inf, -1.0, 0])
def test_run_limits_must_be_finite_and_positive(field: str, value: float) -> None:
    with pytest.raises(ValueError, match=f"RunOptions.{field}: expected a finite positive number"):
        RunOptions(**{field: value})


@pytest.mark.parametrize("field", ["timeout_s", "idle_timeout_s"])
@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, -2.0, 0.0])
def test_exec_limits_must_be_finite_and_positive(field: str, value: float) -> None:
    from tcab.runtime import ExecOptions

    with pytest.raises(ValueError, match=f"ExecOptions.{field}: expected a finite positive number"):
        ExecOptions(**{field: value})


@pytest.mark.parametrize("line", ["idle_timeout_s: .nan", "idle_timeout_s: -5", "max_runtime_s: 0",
                                  "max_runtime_s: 1" + "0" * 400])
def test_plan_run_limits_must_be_finite_and_positive(line: str) -> None:
    from tcab.errors import PlanError
    from tcab.plan.schema import parse_plan

    text = f"runtime:\n  settings:\n    {line}\nruns:\n  - cases:\n      - lights-out\n    harnesses:\n      - reference\n"
    key = line.split(":")[0]
    with pytest.raises(PlanError, match=f"b.yaml:3: {key}: "):
        parse_plan(text, "b.yaml")
