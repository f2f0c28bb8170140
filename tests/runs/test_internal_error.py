"""A bug in tcab during a run is recorded as ours, never as the platform's
(issue 20, defect 3), and a bug in event handling never loses the record or
changes the status (issue 21, item 5).

On both real backends (the ``runtime`` fixture: Podman, and the kubernetes
stand-in), plus a runtime that answers through a function and wraps nothing
(STYLE.md allows it above the runtime), so no backend's own translation can
hide what the lifecycle does with a raw exception.
"""

from __future__ import annotations

import json
import sqlite3

import pytest

from tcab.harnesses import adapters as adapter_table
from tcab.harnesses.events import PlainAdapter
from tcab.runs import RunOptions, execute_run
from tests.support.function_runtime import FunctionRuntime

SECRET = "tcab-test-secret-4f1d9c"
DEEP = "[" * 100_000  # what made four adapters raise RecursionError


class ParsingAdapter(PlainAdapter):
    """Parses every line that looks like JSON with the standard parser, as
    the JSON adapters did: 100,000 ``[`` raise a real RecursionError."""

    def feed(self, stream, line):
        if line.startswith("["):
            json.loads(line)
        return super().feed(stream, line)


class BrokenTokens(PlainAdapter):
    def tokens(self):
        raise ZeroDivisionError("division by zero in the token count")

    def verdict(self):
        raise KeyError("verdict")


@pytest.fixture
def adapter_named(monkeypatch):
    def register(name: str, cls: type) -> str:
        monkeypatch.setitem(adapter_table.ADAPTERS, name, f"{__name__}:{cls.__name__}")
        return name
    return register


class BugInside:
    """The real runtime, whose session exec is handed an output sink with a
    bug in it: the TypeError is raised inside the backend's own call."""

    def __init__(self, runtime):
        self._rt = runtime
        self.name = runtime.name

    def __getattr__(self, name):
        return getattr(self._rt, name)

    def exec(self, container, argv, options=None):
        if options is not None and options.on_output is not None and "session-marker" in " ".join(argv):
            import dataclasses

            sink = options.on_output

            def buggy(stream, line, t):
                if line == "trigger":
                    len(line, SECRET)  # a TypeError naming nothing of the engine
                sink(stream, line, t)
            options = dataclasses.replace(options, on_output=buggy)
        return self._rt.exec(container, argv, options)


class BugAbove(BugInside):
    """The real runtime with a bug in the code above it (copy_in)."""

    def copy_in(self, container, src, dest="/work"):
        raise TypeError(f"copy_in() got an unexpected keyword argument {SECRET!r}")


def _run(settings, case, harness, runtime, **options):
    opts = RunOptions(runtime=runtime, secrets=("TCAB_TEST_SECRET",), env={"TCAB_TEST_SECRET": SECRET},
                      **options)
    return execute_run(settings, case, case.variant(None), harness, opts)


def _row(settings, run_id: str) -> dict:
    con = sqlite3.connect(settings.results_db)
    con.row_factory = sqlite3.Row
    row = con.execute("SELECT * FROM runs WHERE id = ?", [run_id]).fetchone()
    con.close()
    assert row is not None, "no results.db row"
    return dict(row)


def _check_recorded(settings, record, status: str, summary: str) -> str:
    """run.json, the row and internal-error.txt all say so; the traceback is redacted."""
    doc = json.loads((record.run_dir / "run.json").read_text())
    assert doc["status"] == status, doc["status_detail"]
    assert summary in doc["internal_error"], doc["internal_error"]
    assert "internal-error.txt" in doc["status_detail"]
    row = _row(settings, record.id)
    assert row["status"] == status and "internal-error.txt" in row["status_detail"]
    text = (record.run_dir / "internal-error.txt").read_text()
    assert "Traceback (most recent call last)" in text and summary.split(":")[0] in text
    assert SECRET not in text and SECRET not in json.dumps(doc) and SECRET not in str(row)
    return text


@pytest.mark.parametrize("where", [BugInside, BugAbove])
def test_a_bug_in_tcab_is_an_internal_error_not_infrastructure(settings, e2e_case, scripted, runtime, where):
    harness = scripted("echo session-marker; sleep 0.5; echo trigger; echo after")
    record = _run(settings, e2e_case, harness, where(runtime))
    assert record.status == "internal_error", (record.status_detail, (record.run_dir / "raw.jsonl").read_text())
    assert "a bug in tcab stopped the run" in record.status_detail
    text = _check_recorded(settings, record, "internal_error", "TypeError")
    assert ("session" if where is BugInside else "copy_in") in record.status_detail
    assert "test_internal_error.py" in text  # the frame that raised
    assert runtime.list_run_containers(record.id) == [], "a container was left behind"


@pytest.mark.parametrize("exit_code,status", [(0, "completed"), (3, "harness_error")])
def test_an_adapter_that_raises_keeps_the_runs_own_status(settings, e2e_case, scripted, runtime,
                                                         adapter_named, exit_code, status):
    name = adapter_named("parsing-test", ParsingAdapter)
    deep = f"head -c {len(DEEP)} /dev/zero | tr '\\0' '['; echo"
    harness = scripted(f"echo session-marker; {deep}; {deep}; echo after; exit {exit_code}", adapter=name)
    record = _run(settings, e2e_case, harness, runtime)
    assert record.status == status, record.status_detail
    assert "the status is the session's own" in record.status_detail and "(2 times)" in record.status_detail
    _check_recorded(settings, record, status, "RecursionError")
    assert (record.run_dir / "work").is_dir() and record.artifact_digest  # collected as any run
    raw = (record.run_dir / "raw.jsonl").read_text()
    assert '"line": "after"' in raw  # the lines after the failure were still handled
    events = [json.loads(x) for x in (record.run_dir / "events.jsonl").read_text().splitlines()]
    assert any(e["text"] == "after" for e in events)
    assert runtime.list_run_containers(record.id) == [], "a container was left behind"


@pytest.mark.parametrize("adapter_cls,summary", [(ParsingAdapter, "RecursionError"),
                                                 (BrokenTokens, "ZeroDivisionError")])
@pytest.mark.parametrize("exit_code,status", [(0, "completed"), (3, "harness_error")])
def test_event_handling_through_a_runtime_that_wraps_nothing(settings, e2e_case, scripted, adapter_named,
                                                             adapter_cls, summary, exit_code, status):
    harness = scripted("unused: the function runtime answers", adapter=adapter_named("t", adapter_cls),
                       args=["-c", "session-marker"])
    rt = FunctionRuntime(["hello", DEEP, "after"], session_exit=exit_code)
    record = _run(settings, e2e_case, harness, rt)
    assert record.status == status, record.status_detail
    _check_recorded(settings, record, status, summary)
    assert rt.removed == ["fn-1"]


def test_a_broken_on_event_sink_neither_stops_nor_changes_the_run(settings, e2e_case, scripted):
    seen: list[dict] = []

    def display(record):
        seen.append(record)
        if record.get("text") == "hello":
            raise ValueError(f"the display broke on {SECRET}")

    harness = scripted("unused", args=["-c", "session-marker"])
    record = _run(settings, e2e_case, harness, FunctionRuntime(["hello", "after"]), on_event=display)
    assert record.status == "completed", record.status_detail
    _check_recorded(settings, record, "completed", "ValueError")
    events = [json.loads(x) for x in (record.run_dir / "events.jsonl").read_text().splitlines()]
    assert any(e["text"] == "after" for e in events)  # logged, though no longer shown


def test_a_bug_elsewhere_through_a_runtime_that_wraps_nothing(settings, e2e_case, scripted):
    class BrokenStart(FunctionRuntime):
        def start(self, spec):
            raise AttributeError(f"'ContainerSpec' object has no attribute {SECRET!r}")

    record = _run(settings, e2e_case, scripted("unused", args=["-c", "session-marker"]), BrokenStart([]))
    assert record.status == "internal_error"
    assert "start stage" in record.status_detail
    _check_recorded(settings, record, "internal_error", "AttributeError")


@pytest.mark.parametrize("adapter", ["claude-stream-json", "codex-json", "gemini-stream-json", "opencode-json",
                                     "aider", "plain"])
def test_a_deep_line_never_decides_the_runs_fate_with_any_shipped_adapter(settings, e2e_case, scripted,
                                                                           adapter):
    """Issue 21, item 5: the line that made four adapters raise RecursionError.
    Whether an adapter reads it as text or fails on it, the run is recorded
    with the status its twin without that line gets."""
    harness = scripted("unused", adapter=adapter, args=["-c", "session-marker"])
    twin = _run(settings, e2e_case, harness, FunctionRuntime(["hello", "after"]))
    record = _run(settings, e2e_case, harness, FunctionRuntime(["hello", DEEP, "after"]))
    assert record.status == twin.status, (record.status_detail, twin.status_detail)
    assert (record.run_dir / "run.json").is_file() and _row(settings, record.id)["status"] == twin.status


def test_the_bug_that_stopped_the_run_is_the_traceback_kept(settings, e2e_case, scripted, adapter_named):
    class BrokenCollect(FunctionRuntime):
        def copy_out(self, container, src, dest, limits=None):
            raise AttributeError("'CollectLimits' object has no attribute 'max_bites'")

    harness = scripted("unused", adapter=adapter_named("t", ParsingAdapter), args=["-c", "session-marker"])
    record = _run(settings, e2e_case, harness, BrokenCollect(["hello", DEEP, "after"]))
    assert record.status == "internal_error" and "collect stage" in record.status_detail
    text = _check_recorded(settings, record, "internal_error", "AttributeError")
    assert "max_bites" in text and "1 other failures counted" in text
