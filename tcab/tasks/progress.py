"""How far a sweep is: one progress line, redrawn on a terminal, plain lines in a log.

    progress: 12/250 runs (4.8%) · 2 running · completed 8/12 (66.7%) · failed: harness_error 3,
              infrastructure 1 · 3m10s elapsed · ~58m left · $4.20 spent

Counted over the plan's runs (the ``run:`` tasks): a run already up to date
counts as done, so a resumed sweep starts where it stopped; statuses and the
success so far are those of the runs finished in this invocation. The time left is the remaining runs at the rate runs
finished in this invocation. ``TCAB_PROGRESS=0`` turns it off. The
reporter (:mod:`tcab.tasks.summary`) feeds it; doit calls the reporter in
its main process for every worker, so the counts are the sweep's.

On a terminal the line is drawn by rich: a :class:`rich.console.Console`
bound to the reporter's stream prints a styled :class:`rich.text.Text`
(counts bold, completed green, failures red, the estimate dim; ``NO_COLOR``
respected), cropped to the terminal's width so it never wraps, after a
carriage return and erase-line (``\r\x1b[2K``, a rich ``Control``), at
most every 0.1 s. Not ``rich.live.Live``: Live owns the terminal from a
thread of its own and redirects stdout, and doit writes its own lines
(task titles, failures) to the same stream from the reporter; the line is
instead taken away (:meth:`Progress.clear`) before each of those and drawn
again at the next event. Off a terminal (CI logs) a plain ``progress:``
line, no rich, is written when at least 10 s passed since the last one, at
each 10% step, and at the end.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable
from typing import TextIO

RUN_TASK = "run:"
PLAIN_EVERY_S = 10.0
LIVE_EVERY_S = 0.1   # a terminal redraw at most this often: 2,000 null runs make 4,000 events
_ENDED = re.compile(r"\bended (\w+)")


def duration(seconds: float) -> str:
    """``45s``, ``3m10s``, ``2h05m``."""
    seconds = max(0, int(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds // 60 % 60:02d}m"


def failure_status(message: str) -> str:
    """The status a failed run task names (``ended infrastructure``), else why it failed in one word."""
    if m := _ENDED.search(message):
        return m.group(1)
    if "budget reached" in message:
        return "budget"
    if "bug in tcab" in message:
        return "internal_error"
    return "failed"


class Progress:
    """Counts of the sweep's runs and the line that shows them."""

    def __init__(self, total: int, stream: TextIO, *, live: bool, spent: Callable[[], str | None] = lambda: None,
                 clock: Callable[[], float] = time.monotonic, width: int | None = None):
        self.total = total
        self.stream = stream
        self.live = live
        self.spent = spent        # the cost so far as shown ("$4.20"), None without prices
        self.clock = clock
        self.start = clock()
        self.running = 0
        self.done = 0             # runs finished or up to date
        self.finished_here = 0    # runs finished in this invocation (the rate of the estimate)
        self.recorded = 0         # runs up to date: recorded by an earlier invocation
        self.not_started = 0      # runs skipped: a task they depend on failed
        self.statuses: Counter[str] = Counter()
        self.last_plain = -PLAIN_EVERY_S
        self.last_step = -1
        self.drawn = False
        self.last_live = -LIVE_EVERY_S
        self.console, self.erase = _console(stream, width) if live else (None, None)

    # Events from the reporter.
    def started(self) -> None:
        self.running += 1
        self._show()

    def up_to_date(self) -> None:
        # Not read from its record: a no-op sweep of 20,000 runs must stay cheap.
        self.done += 1
        self.recorded += 1

    def finished(self, status: str) -> None:
        self.running = max(0, self.running - 1)
        self.done += 1
        self.finished_here += 1
        self.statuses[status] += 1
        self._show()

    def skipped(self) -> None:
        # Never started (its prompt failed, say): done for this invocation, not running.
        self.done += 1
        self.not_started += 1
        self._show()

    def parts(self) -> list[tuple[str, str]]:
        """The line's parts, each with the rich style it is drawn in on a terminal."""
        total = max(self.total, 1)
        done = f"{self.done}/{self.total} runs ({100 * self.done / total:.1f}%)"
        if self.recorded:
            done += f" ({self.recorded} up to date)"
        parts = [(done, "bold"), (f"{self.running} running", "cyan")]
        if self.finished_here:
            ok = self.statuses.get("completed", 0)
            parts.append((f"completed {ok}/{self.finished_here} ({100 * ok / self.finished_here:.1f}%)", "green"))
        failed = sorted((s, n) for s, n in self.statuses.items() if s != "completed")
        if failed:
            parts.append(("failed: " + ", ".join(f"{s} {n}" for s, n in failed), "red"))
        if self.not_started:
            parts.append((f"{self.not_started} skipped", "red"))
        elapsed = self.clock() - self.start
        parts.append((f"{duration(elapsed)} elapsed", ""))
        left = self.total - self.done
        if self.finished_here and left > 0:
            parts.append((f"~{duration(elapsed / self.finished_here * left)} left", "dim"))
        cost = self.spent()
        if cost is not None:
            parts.append((f"{cost} spent", "yellow"))
        return parts

    def line(self) -> str:
        """The progress line as text."""
        return "progress: " + " · ".join(text for text, _ in self.parts())

    def _show(self) -> None:
        now = self.clock()
        if self.live:
            if now - self.last_live >= LIVE_EVERY_S or self.done == self.total:
                self.last_live = now
                self._draw(end="")
                self.drawn = True
            return
        step = 10 * self.done // max(self.total, 1)
        if now - self.last_plain >= PLAIN_EVERY_S or step > self.last_step or self.done == self.total:
            self.last_plain, self.last_step = now, step
            self.stream.write(self.line() + "\n")

    def _draw(self, end: str) -> None:
        """Erase the terminal's line and print the styled line on it (rich crops it to the width)."""
        from rich.text import Text

        text = Text()  # Text("...", style=) would make the style the whole line's
        text.append("progress: ", style="bold")
        for i, (part, style) in enumerate(self.parts()):
            if i:
                text.append(" · ", style="dim")
            text.append(part, style=style)
        self.console.control(self.erase)
        self.console.print(text, end=end, no_wrap=True, overflow="ellipsis", crop=True)

    def clear(self) -> None:
        """Before another line is written on a terminal: take the live line away."""
        if self.live and self.drawn:
            self.console.control(self.erase)
            self.drawn = False

    def close(self) -> None:
        """End of the sweep: leave the last line standing."""
        if self.live and (self.drawn or self.finished_here):
            self._draw(end="\n")
            self.drawn = False


def _console(stream: TextIO, width: int | None):
    """A rich console on the reporter's stream (already known to be a terminal), and erase-line."""
    from rich.console import Console
    from rich.control import Control
    from rich.segment import ControlType

    erase = Control((ControlType.CARRIAGE_RETURN,), (ControlType.ERASE_IN_LINE, 2))
    # highlight/markup/emoji off: the line is data (status names, a currency), never rich markup.
    return Console(file=stream, force_terminal=True, width=width, highlight=False, markup=False, emoji=False), erase


__all__ = ["Progress", "duration", "failure_status"]
