"""The end of a sweep that went on past failures: which tasks failed and why.

Sweeps run with doit's ``continue`` (one failed run does not stop the
others); a task that depends on a failed one is not run and doit reports it
as an unmet dependency, which is listed here as *skipped* with that reason.
One line per task, the reason cut to one line: the full messages are above
in doit's own output.
"""

from __future__ import annotations

from doit.exceptions import BaseFail, UnmetDependency

#: Listed one by one up to this many; the rest are counted.
MAX_LISTED = 50
MAX_REASON = 300


def reason_of(fail: BaseFail) -> str:
    """A failure's reason on one line: our message, or an exception's last line."""
    # An exception's traceback ends with its "Type: message" line; doit keeps
    # the formatted lines only (exceptions need not pickle across workers).
    tb = [line for line in "".join(getattr(fail, "traceback", "") or "").splitlines() if line.strip()]
    text = tb[-1] if tb else (fail.message or type(fail).__name__)
    line = " ".join(str(text).split())
    return line if len(line) <= MAX_REASON else line[: MAX_REASON - 1] + "…"


def failure_lines(failures: list[tuple[str, BaseFail]]) -> list[str]:
    """The summary's failure section (empty when nothing failed)."""
    if not failures:
        return []
    failed = [(name, f) for name, f in failures if not isinstance(f, UnmetDependency)]
    skipped = [(name, f) for name, f in failures if isinstance(f, UnmetDependency)]
    lines = []
    if failed:
        lines.append(f"failed ({len(failed)}):")
        lines += [f"  {name}: {reason_of(f)}" for name, f in failed[:MAX_LISTED]]
        if len(failed) > MAX_LISTED:
            lines.append(f"  ... and {len(failed) - MAX_LISTED} more")
    if skipped:
        lines.append(f"skipped ({len(skipped)}), because a task they depend on failed:")
        lines += [f"  {name}: depends on failed {f.message}" for name, f in skipped[:MAX_LISTED]]
        if len(skipped) > MAX_LISTED:
            lines.append(f"  ... and {len(skipped) - MAX_LISTED} more")
    return lines
