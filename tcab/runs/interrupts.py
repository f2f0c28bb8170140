"""Holding Ctrl-C and SIGTERM back while a run's record is written.

A run that has started always ends with its ``run.json`` and its results.db
row. The first interrupt cancels the run; a second one that lands while the
container is removed or the record is written used to cut that short (no
record at all, or a record without its row). :class:`InterruptShield` defers
SIGINT and SIGTERM from :meth:`~InterruptShield.hold` to
:meth:`~InterruptShield.release` and then delivers them once each to the
handler they would have reached.

Why swapping the Python handler and not ``signal.pthread_sigmask``: a mask
covers only the thread that sets it, and a run has other threads (the exec
output pump); a signal the kernel hands to one of those still trips the
Python-level handler in the main thread. Handlers can only be set from the
main thread; elsewhere (a run in a worker thread) signals never reach the
run's own thread, so there is nothing to hold.
"""

from __future__ import annotations

import signal
import threading

#: The signals a shield holds back: Ctrl-C, and the polite kill that
#: ``tcab run`` treats the same way.
SHIELDED = (signal.SIGINT, signal.SIGTERM)


class InterruptShield:
    """Defers :data:`SHIELDED` signals between :meth:`hold` and :meth:`release`."""

    def __init__(self) -> None:
        self._previous: dict[signal.Signals, object] = {}
        self._arrived: list[int] = []

    @property
    def holding(self) -> bool:
        return bool(self._previous)

    def hold(self) -> None:
        """Start deferring (idempotent; a no-op outside the main thread)."""
        if self._previous or threading.current_thread() is not threading.main_thread():
            return
        for sig in SHIELDED:
            # None: a handler installed outside Python, which we could not put back.
            if signal.getsignal(sig) is not None:
                self._previous[sig] = signal.signal(sig, self._defer)

    def _defer(self, signum: int, _frame) -> None:
        self._arrived.append(signum)

    def release(self) -> None:
        """Put the handlers back, then deliver each deferred signal once (which
        may raise ``KeyboardInterrupt`` here, as the signal would have)."""
        previous, self._previous = self._previous, {}
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        arrived, self._arrived = dict.fromkeys(self._arrived), []
        for sig in arrived:
            signal.raise_signal(sig)
