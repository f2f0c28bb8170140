"""The session's idle watchdog, as the adapter sees the output.

The runtime's own idle clock is reset by any output byte, so a harness that
prints "Reconnecting..." every minute forever would never be ``hung``.
:class:`SessionWatch` resets its clock only on lines the adapter does not
call keep-alives; the run passes its ``on_output`` and ``cancel`` to the
session's exec, and the exec is stopped when the window passes.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from tcab.harnesses.events import Adapter

Sink = Callable[[str, str, float], None]


class SessionWatch:
    """Wraps the run's output sink and cancel predicate for one session."""

    def __init__(self, adapter: Adapter, idle_s: float | None, sink: Sink,
                 cancel: Callable[[], bool] | None = None, clock: Callable[[], float] = time.monotonic):
        self._adapter, self._idle_s, self._sink, self._cancel = adapter, idle_s, sink, cancel
        self._clock = clock
        self._last = clock()
        self.keepalives = 0
        self.idle_fired = False

    def on_output(self, stream: str, line: str, t: float) -> None:
        is_keepalive = getattr(self._adapter, "is_keepalive", None)
        if is_keepalive is not None and is_keepalive(stream, line):
            self.keepalives += 1
        else:
            self._last = self._clock()
        self._sink(stream, line, t)

    def cancel(self) -> bool:
        """True to stop the session: the user canceled, or only keep-alives
        (or nothing) came for the idle window."""
        if self._cancel is not None and self._cancel():
            return True
        if self._idle_s is not None and self._clock() - self._last >= self._idle_s:
            self.idle_fired = True
            return True
        return False

    def user_canceled(self) -> bool:
        return not self.idle_fired
