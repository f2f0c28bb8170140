"""The doit reporter of a sweep: quiet about up-to-date tasks, then one summary.

A second ``make demo`` must do nothing and say so: instead of one ``--``
line per up-to-date task, the sweep ends with one line (``nothing to do:
all 14 tasks up to date`` or ``3 ran, 11 up to date, 0 failed``), the
standings of each tournament, and where the report and replays are.
"""

from __future__ import annotations

from doit.reporter import ConsoleReporter

from tcab.tasks.context import SweepContext
from tcab.tasks.failures import failure_lines


def summary_lines(ctx: SweepContext, ran: int, uptodate: int, failed: int, skipped: int = 0) -> list[str]:
    """The end-of-sweep summary: counts, standings, where things are."""
    name = ctx.sweep.plan.name
    if ran == 0 and failed == 0 and skipped == 0:
        lines = [f"sweep {name}: nothing to do, all {uptodate} tasks up to date"]
    else:
        lines = [f"sweep {name}: {ran} ran, {uptodate} up to date, {failed} failed"
                 + (f", {skipped} skipped" if skipped else "")]
    for t in ctx.sweep.tournaments:
        doc = ctx.cache.target(ctx.layout.standings_record(t))
        if not isinstance(doc, dict):
            continue
        lines.append(f"standings of {t.name} ({t.case_path}, {t.rounds} rounds, seed {t.seed}):")
        lines.append(f"  {'#':>2}  {'participant':<28} {'W':>3} {'D':>3} {'L':>3} {'F':>3}  rating (95% CI)")
        for i, s in enumerate(doc.get("standings", []), 1):
            lines.append(
                # "label" since one maker wrote both standings; "name" in older files
                f"  {i:>2}  {s.get('label', s.get('name', '?')):<28} {s['wins']:>3} {s['draws']:>3} {s['losses']:>3} {s['forfeits']:>3}"
                f"  {s['rating']:7.1f} [{s['ci_low']:.1f}, {s['ci_high']:.1f}]"
            )
        replays = doc.get("match_replays") or []
        verified = ctx.cache.target(ctx.layout.replays_record(t))
        checked = f", {verified['verified']} verified" if isinstance(verified, dict) else ""
        where = ctx.layout.rel(ctx.settings.results_dir / "replays")
        lines.append(f"  {len(replays)} replays in {where}/{checked}  (tcab replay verify FILE)")
    report = ctx.layout.report_dir / "index.html"
    if ctx.sweep.plan.report and report.exists():
        lines.append(f"report: {ctx.layout.rel(report)}  (tables: tcab report)")
    lines.append(f"results: {ctx.layout.rel(ctx.settings.results_db)}, runs in {ctx.layout.rel(ctx.settings.runs_dir)}/")
    return lines


class SweepReporter(ConsoleReporter):
    """Console reporter that counts instead of listing up-to-date tasks."""

    desc = "tcab sweep: executed tasks, then a one-line summary"
    ctx: SweepContext | None = None

    @classmethod
    def for_context(cls, ctx: SweepContext) -> type[SweepReporter]:
        """A reporter class bound to ``ctx`` (doit instantiates the class itself)."""
        return type("BoundSweepReporter", (cls,), {"ctx": ctx})

    def __init__(self, outstream, options):
        super().__init__(outstream, options)
        self.ran = 0
        self.uptodate = 0
        self.failed = 0           # failed after they started (their own failure)
        self.skipped = 0          # never started: a task they depend on failed (doit's UnmetDependency)
        self.started: set[str] = set()  # tasks executing now: a failure of another one is a skip
        self.failures_seen: list = []  # (task name, BaseFail), for the end (tasks/failures.py)
        from tcab.tasks.progressfeed import make_progress

        self.progress = make_progress(self.ctx, self.outstream)

    def write(self, text):
        if self.progress is not None:
            self.progress.clear()
        super().write(text)

    def execute_task(self, task):
        self.started.add(task.name)
        if _has_actions(task):
            self.ran += 1
        super().execute_task(task)
        if self.progress is not None and task.name.startswith("run:"):
            self.progress.started()

    def skip_uptodate(self, task):
        if _has_actions(task):
            self.uptodate += 1
        if self.progress is not None and task.name.startswith("run:"):
            self.progress.up_to_date()

    def add_success(self, task):
        self.started.discard(task.name)
        super().add_success(task)
        if self.progress is not None and task.name.startswith("run:"):
            # The status do_run returned, sent back by doit's worker with the
            # task: this process does not read the run's record (a file read and
            # parse per run, on cores the workers need).
            self.progress.finished(task.result if isinstance(task.result, str) and task.result else "completed")

    def add_failure(self, task, fail):
        # doit reports a task skipped for a failed dependency (or whose check
        # failed) here too, without execute_task: it neither ran nor is running.
        started = task.name in self.started
        self.started.discard(task.name)
        super().add_failure(task, fail)
        if not _has_actions(task):
            return  # a group (``run``, ``build``): its tasks are counted and listed themselves
        if started:
            self.failed += 1
        else:
            self.skipped += 1
        self.failures_seen.append((task.name, fail))
        if self.progress is not None and task.name.startswith("run:"):
            from tcab.tasks.progress import failure_status

            if started:
                self.progress.finished(failure_status(str(fail.get_msg() if hasattr(fail, "get_msg") else fail)))
            else:
                self.progress.skipped()

    def complete_run(self):
        if self.progress is not None:
            self.progress.close()
        super().complete_run()
        if self.ctx is not None:
            lines = summary_lines(self.ctx, self.ran - self.failed, self.uptodate, self.failed, self.skipped)
            self.write("\n".join(lines + failure_lines(self.failures_seen)) + "\n")


def _has_actions(task) -> bool:
    """Whether ``task`` does work (not a group). Read from the task's list as
    given: doit's ``task.actions`` builds an action object per action, which
    for 20,000 up-to-date tasks was 6% of a no-op sweep."""
    return bool(task._actions)
