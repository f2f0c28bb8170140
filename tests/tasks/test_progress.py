"""The sweep's progress line: counts, failures by status, estimate, cost; plain lines off a terminal."""

from __future__ import annotations

import dataclasses
import io
import os
import re

import pytest

from tcab.tasks.progress import Progress, duration, failure_status
from tcab.tasks.progressfeed import make_progress
from tcab.tasks.summary import SweepReporter


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_the_line_counts_runs_failures_time_left_and_cost():
    clock = Clock()
    out = io.StringIO()
    p = Progress(10, out, live=False, spent=lambda: "$1.50", clock=clock)
    p.up_to_date()
    p.started()
    p.started()
    clock.now = 60
    p.finished("completed")
    clock.now = 120
    p.finished("harness_error")
    line = p.line()
    assert line.startswith("progress: 3/10 runs (30.0%) (1 up to date) · 0 running")
    assert "completed 1/2 (50.0%)" in line and "failed: harness_error 1" in line
    # 2 runs finished here in 120 s: 7 left at that rate is 420 s
    assert "2m00s elapsed" in line and "~7m00s left" in line and "$1.50 spent" in line


def test_plain_lines_are_throttled_but_steps_and_the_end_are_written():
    clock = Clock()
    out = io.StringIO()
    p = Progress(100, out, live=False, clock=clock)
    for _ in range(100):
        p.started()
        p.finished("completed")
    lines = out.getvalue().splitlines()
    assert all("\r" not in line and line.startswith("progress: ") for line in lines)
    assert len(lines) <= 25, "not one line per event"
    assert lines[-1].startswith("progress: 100/100 runs (100.0%)")


def test_a_terminal_gets_one_redrawn_line():
    out = io.StringIO()
    p = Progress(2, out, live=True, clock=Clock())
    p.started()
    p.finished("completed")
    p.close()
    text = out.getvalue()
    assert text.count("\r\x1b[2K") >= 2 and text.endswith("\n") and text.count("\n") == 1


def test_the_terminal_line_is_rich_styled_erased_before_doit_writes_and_left_standing_at_the_end():
    clock = Clock()
    out = io.StringIO()
    p = Progress(3, out, live=True, clock=clock, spent=lambda: "$0.40", width=200)
    p.started()
    clock.now = 1
    p.finished("completed")
    clock.now = 2
    p.finished("harness_error")
    drawn = out.getvalue()
    assert drawn.startswith("\r\x1b[2K") and "\x1b[31mfailed: harness_error 1" in drawn, "styled by rich"
    assert "\x1b[2m · " in drawn, "each part has its own style, none the whole line's"
    plain = re.sub(r"\x1b\[[0-9;]*m", "", drawn)
    assert plain.rsplit("\r\x1b[2K", 1)[1] == p.line(), "the last drawing is the whole line"
    assert "failed: harness_error 1" in plain and "$0.40 spent" in plain and "\n" not in drawn
    p.clear()  # doit writes a line of its own: the live line goes first
    assert out.getvalue()[len(drawn):] == "\r\x1b[2K"
    p.close()
    tail = re.sub(r"\x1b\[[0-9;]*m", "", out.getvalue()).rsplit("\r\x1b[2K", 1)[1]
    assert tail == p.line() + "\n", "close() leaves the last line standing"
    # Redraws are throttled: many events in one instant draw once.
    before = out.getvalue().count("\r")
    p2_out = io.StringIO()
    p2 = Progress(1000, p2_out, live=True, clock=Clock(), width=200)
    for _ in range(100):
        p2.started()
    assert p2_out.getvalue().count("\r") == 1 and before >= 4


def test_a_long_line_is_cropped_to_the_terminal_never_wrapped():
    out = io.StringIO()
    p = Progress(5, out, live=True, clock=Clock(), width=40, spent=lambda: "$1,234.56")
    p.started()
    shown = re.sub(r"\x1b\[[0-9;]*m", "", out.getvalue()).removeprefix("\r\x1b[2K")
    assert len(shown) == 40 and shown.endswith("…") and "\n" not in shown


def test_the_plain_line_is_unchanged_text_without_escapes():
    out = io.StringIO()
    p = Progress(1, out, live=False, clock=Clock())
    p.started()
    p.finished("completed")
    p.close()
    assert out.getvalue() == (
        "progress: 0/1 runs (0.0%) · 1 running · 0s elapsed\n"
        "progress: 1/1 runs (100.0%) · 0 running · completed 1/1 (100.0%) · 0s elapsed\n")


@pytest.mark.parametrize("message,status", [
    ("run x ended infrastructure (r1): pull failed", "infrastructure"),
    ("run x not started: budget reached: $1.20 spent of $1.00", "budget"),
    ("run x hit a bug in tcab (r1)", "internal_error"),
    ("something else", "failed"),
])
def test_failure_status(message, status):
    assert failure_status(message) == status


def test_duration():
    assert [duration(s) for s in (5, 190, 7500)] == ["5s", "3m10s", "2h05m"]


def test_a_sweep_writes_progress_lines_and_a_noop_sweep_keeps_its_summary(project):
    code, ran, out = project.doit()
    assert code == 0, out
    progress = [line for line in out.splitlines() if line.startswith("progress: ")]
    assert progress and progress[-1].startswith("progress: 6/6 runs (100.0%) · 0 running · completed 6/6")
    code, ran, out = project.doit()
    assert code == 0 and "progress:" not in out
    assert "nothing to do, all" in out


def test_progress_off(project):
    from tcab.tasks import load_sweep
    from tests.tasks.sweep_fakes import make_executors

    sweep = load_sweep(None, root=project.root, executors=make_executors(project.root),
                       env={"TCAB_PROGRESS": "0"})
    assert make_progress(sweep.ctx, io.StringIO()) is None
    on = dataclasses.replace(sweep.ctx, progress=True)
    assert make_progress(on, io.StringIO()).total == len(sweep.ctx.sweep.runs)


def test_a_finished_runs_status_comes_with_its_task_not_from_its_record(project):
    """doit's worker sends the task back with what do_run returned: the main
    process counts that status and reads no record (none exists here)."""
    from doit.task import Task

    from tcab.tasks import load_sweep
    from tests.tasks.sweep_fakes import make_executors

    ctx = load_sweep(None, root=project.root, executors=make_executors(project.root), env={}).ctx
    reporter = SweepReporter.for_context(ctx)(io.StringIO(), {"show_out": False, "show_err": False, "verbosity": 1,
                                                              "failure_verbosity": 0})
    spec = ctx.sweep.runs[0]
    task = Task(f"run:{spec.name}", [lambda: True])
    assert not os.path.exists(ctx.layout.run_record(spec))
    reporter.execute_task(task)
    task.result = "harness_error"
    reporter.add_success(task)
    assert reporter.progress.statuses == {"harness_error": 1}


def test_statuses_reach_the_line_from_doits_worker_processes(project, monkeypatch):
    """A real sweep at ``-n 2``: each kept status is counted as its run recorded it."""
    monkeypatch.setenv("TCAB_FAKE_STATUS", "scripted:harness_error")
    code, ran, out = project.doit("-n", "2")
    assert code == 0, out
    assert re.search(r"progress: 6/6 runs \(100.0%\) · 0 running · completed 3/6 .*failed: harness_error 3", out), out


def test_a_run_already_recorded_is_counted_with_its_recorded_status(project, monkeypatch):
    """``doit -a`` executes every task again: each run finds its current
    record, is not run again, and its recorded status reaches the line."""
    monkeypatch.setenv("TCAB_FAKE_STATUS", "scripted:harness_error")
    assert project.doit()[0] == 0
    monkeypatch.setenv("TCAB_FAKE_STATUS", "scripted:infrastructure")  # would fail if it were run again
    code, ran, out = project.doit("-a")
    assert code == 0, out
    assert re.search(r"progress: 6/6 runs \(100.0%\) · 0 running · completed 3/6 .*failed: harness_error 3", out), out


def test_a_skipped_run_is_not_counted_as_running_or_as_ran(project):
    """A run task doit skips (a task it depends on failed) never started: the
    progress line and the summary count it as skipped."""
    from doit.exceptions import UnmetDependency
    from doit.task import Task

    from tcab.tasks import load_sweep
    from tests.tasks.sweep_fakes import make_executors

    ctx = load_sweep(None, root=project.root, executors=make_executors(project.root), env={}).ctx
    out = io.StringIO()
    reporter = SweepReporter.for_context(ctx)(out, {"show_out": False, "show_err": False, "verbosity": 1,
                                                    "failure_verbosity": 0})
    going = Task("run:mini/v1.0.0/one/reference/1", [lambda: True])
    skipped = Task("run:mini/v1.0.0/one/scripted/1", [lambda: True])
    reporter.execute_task(going)
    reporter.add_failure(skipped, UnmetDependency("prompt:mini/v1.0.0/one"))
    assert reporter.progress.running == 1, "the skipped run never started"
    assert "1 running" in reporter.progress.line() and "1 skipped" in reporter.progress.line()
    reporter.add_success(going)
    reporter.complete_run()
    assert "sweep small: 1 ran, 0 up to date, 0 failed, 1 skipped" in out.getvalue()


def test_the_summary_counts_failed_and_skipped_tasks_apart(project, monkeypatch):
    monkeypatch.setenv("TCAB_FAKE_STATUS", "scripted:infrastructure")
    code, ran, out = project.doit()
    assert code != 0
    # 25 tasks: 3 runs failed; 2 validations, 1 build, the manifest and the report skipped.
    assert "sweep small: 17 ran, 0 up to date, 3 failed, 5 skipped" in out
    assert "\nfailed (3):\n" in out and "\nskipped (5), because" in out, "the lists count the same tasks"
    assert re.search(r"progress: 6/6 runs .* · 0 running .*failed: infrastructure 3", out)
