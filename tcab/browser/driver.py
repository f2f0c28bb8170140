"""Playwright's sync API with its driver process known, so that a call
Playwright itself never ends can still be ended from outside.

Killing Chromium ends almost every Playwright call in flight: the DevTools
connection closes and the call fails. Not every one: a new page whose
target is still being set up when the connection drops is never rejected
(Playwright 1.65 over ``connect_over_cdp``: ``new_page`` held a validation
past every bound, in CI and in a loop here about one time in ten with a
sub-second deadline). Playwright's driver is a Node process this process
starts; when it dies, every call in flight fails (``TargetClosedError``).
So the Chromium watchdog kills the driver too when its owner has not come
back a grace period after Chromium was killed (``running_chromium``'s
``on_stuck``), and the owner starts a fresh driver for its next browser.
"""

from __future__ import annotations

import os
import signal
import threading

from tcab.browser.chromium import BrowserUnavailable, parent_of


def _driver_children() -> set[int]:
    """This process's children that are Playwright drivers (``… run-driver``)."""
    me, found = os.getpid(), set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or parent_of(entry) != me:
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                argv = fh.read(64 * 1024).split(b"\0")
        except OSError:
            continue
        if b"run-driver" in argv:
            found.add(int(entry))
    return found


class PlaywrightDriver:
    """One Playwright (sync API) at a time, started on first use and again
    after :meth:`kill`; a context manager that stops it on exit."""

    def __init__(self) -> None:
        self._pw = None
        self._pid: int | None = None
        self._killed = threading.Event()

    def __enter__(self) -> PlaywrightDriver:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def playwright(self):
        """The running Playwright, started (or started again after a kill).

        Raises ``BrowserUnavailable`` when Playwright or its driver cannot start.
        """
        if self._pw is not None and self._killed.is_set():
            self.stop()
        if self._pw is None:
            self._start()
        return self._pw

    def _start(self) -> None:
        try:
            from playwright.sync_api import sync_playwright
        except ImportError as exc:
            raise BrowserUnavailable(f"playwright is not installed ({exc})") from exc
        before = _driver_children()
        try:
            pw = sync_playwright().start()
        except Exception as exc:  # noqa: BLE001 - the driver failing is infrastructure
            raise BrowserUnavailable(f"playwright did not start: {exc}") from exc
        started = _driver_children() - before
        if len(started) != 1:
            pw.stop()
            # Without its pid no call could be ended from outside: refuse rather than run unbounded.
            raise BrowserUnavailable(f"playwright's driver process not found among this process's children "
                                     f"({len(started)} new 'run-driver' processes)")
        self._pw, self._pid = pw, started.pop()
        self._killed.clear()

    def kill(self) -> None:
        """End every Playwright call in flight (safe from any thread); the
        next :meth:`playwright` starts a fresh driver."""
        pid = self._pid
        if pid is None:
            return
        self._killed.set()
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    @property
    def killed(self) -> bool:
        return self._killed.is_set()

    def stop(self) -> None:
        pw, self._pw, self._pid = self._pw, None, None
        if pw is not None:
            pw.stop()
