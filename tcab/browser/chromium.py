"""Start Debian's Chromium ourselves, fenced in, under a watchdog.

tcab starts ``/usr/bin/chromium`` (``TCAB_CHROMIUM`` overrides) in a new
session, so its pid is its process group and every process it forks
(renderers, GPU, zygote) is in that group; Playwright then connects over
the DevTools protocol. A :class:`Watchdog` thread outside the browser
SIGKILLs the whole group at the wall-time deadline or when the group's
private memory passes its bound: a page that spins, allocates or hangs
Playwright's own calls cannot hold ``tcab validate`` past the deadline.

The network fence is Chromium's own: every connection goes through a
proxy address that refuses (a port bound by tcab and never listened on),
except the one ``127.0.0.1:<site port>`` the site is served on
(``<-loopback>`` removes Chromium's implicit loopback bypass, so other
local ports, the DevTools port included, go to the refusing proxy too).
That covers every scheme the proxy carries (HTTP, WebSockets, EventSource,
beacons, workers); WebRTC may use no unproxied UDP; no name is resolved.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

CHROMIUM = os.environ.get("TCAB_CHROMIUM", "/usr/bin/chromium")
POLL_S = 0.1
STUCK_GRACE_S = 5.0  # after Chromium is killed, how long its owner has to come back before on_stuck
RESCAN_S = 1.0  # scanning all of /proc costs ~50 ms on a loaded host: members are re-listed this often


class BrowserUnavailable(Exception):
    """Chromium or Playwright could not be started (an infrastructure error)."""


def chromium_args(profile: Path, site_port: int, refusing_port: int, js_heap_mb: int) -> list[str]:
    return [
        CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--disable-extensions", "--disable-default-apps", "--mute-audio", "--disable-breakpad",
        "--deny-permission-prompts", "--block-new-web-contents",
        f"--user-data-dir={profile}", "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
        f"--proxy-server=http://127.0.0.1:{refusing_port}",
        f"--proxy-bypass-list=<-loopback>;127.0.0.1:{site_port}",
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
        "--dns-prefetch-disable",
        "--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
        "--webrtc-ip-handling-policy=disable_non_proxied_udp",
        f"--js-flags=--max-old-space-size={js_heap_mb}",
        "about:blank",
    ]


def _stat_field(pid: str, index: int) -> int | None:
    """Field ``index`` after the command name of ``/proc/<pid>/stat`` (0 state, 1 ppid, 2 pgrp)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            # "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
            return int(fh.read().rsplit(b")", 1)[1].split()[index])
    except (OSError, IndexError, ValueError):
        return None


def _group_of(pid: str) -> int | None:
    return _stat_field(pid, 2)


def parent_of(pid: str) -> int | None:
    return _stat_field(pid, 1)


def group_members(pgid: int) -> set[int]:
    """The pids in process group ``pgid`` (a scan of all of /proc)."""
    return {int(pid) for pid in os.listdir("/proc") if pid.isdigit() and _group_of(pid) == pgid}


def private_memory(pids: set[int]) -> int:
    """Bytes of private memory (anonymous + shared-memory RSS) of ``pids``."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/status", "rb") as fh:
                for line in fh:
                    if line.startswith((b"RssAnon:", b"RssShmem:")):
                        total += int(line.split()[1]) * 1024
        except (OSError, ValueError, IndexError):
            continue
    return total


def kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class Watchdog(threading.Thread):
    """Kills process group ``pgid`` at ``deadline`` (monotonic) or over
    ``max_memory_bytes``; ``reason`` ("timeout" / "memory") and ``detail``
    say why, None while it has not fired. When it is not stopped within
    ``STUCK_GRACE_S`` of firing, it calls ``on_stuck`` (the Playwright
    driver's kill: a call Playwright never ends, tcab.browser.driver)."""

    def __init__(self, pgid: int, wall_time_s: float, max_memory_bytes: int,
                 on_stuck: Callable[[], None] | None = None):
        super().__init__(name="tcab-chromium-watchdog", daemon=True)
        self.pgid = pgid
        self.on_stuck = on_stuck
        self.wall_time_s = wall_time_s
        self.deadline = time.monotonic() + wall_time_s
        self.max_memory_bytes = max_memory_bytes
        self.reason: str | None = None
        self.detail = ""
        self.peak_memory = 0
        self._done = threading.Event()

    def run(self) -> None:
        members: set[int] = set()
        scanned = 0.0
        while not self._done.wait(POLL_S):
            if time.monotonic() >= self.deadline:
                self._fire("timeout", f"the browser check did not finish within {self.wall_time_s:g}s "
                                      "(load, settle and screenshots of every view); Chromium was killed")
                break
            if time.monotonic() - scanned >= RESCAN_S:
                members, scanned = group_members(self.pgid), time.monotonic()
            used = private_memory(members)
            self.peak_memory = max(self.peak_memory, used)
            if used > self.max_memory_bytes:
                self._fire("memory", f"the page's browser used {used} bytes of memory "
                                     f"(limit {self.max_memory_bytes}); Chromium was killed")
                break
        if self.reason and self.on_stuck is not None and not self._done.wait(STUCK_GRACE_S):
            self.on_stuck()

    def _fire(self, reason: str, detail: str) -> None:
        self.reason, self.detail = reason, detail
        kill_group(self.pgid)

    def stop(self) -> None:
        self._done.set()
        if self.is_alive():
            self.join()


def _devtools_endpoint(profile: Path, proc: subprocess.Popen, watchdog: Watchdog) -> str:
    """The browser's DevTools WebSocket URL, from the ``DevToolsActivePort``
    file Chromium writes once it listens."""
    port_file = profile / "DevToolsActivePort"
    while True:
        try:
            lines = port_file.read_text().splitlines()
        except OSError:
            lines = []
        if len(lines) >= 2 and lines[0].isdigit():
            return f"ws://127.0.0.1:{lines[0]}{lines[1]}"
        if proc.poll() is not None:
            if watchdog.reason:
                return ""
            raise BrowserUnavailable(f"{CHROMIUM} exited with {proc.returncode} before listening")
        time.sleep(POLL_S / 2)


@contextmanager
def running_chromium(profile: Path, site_port: int, *, wall_time_s: float, max_memory_bytes: int,
                     js_heap_mb: int, on_stuck: Callable[[], None] | None = None) -> Iterator[tuple[str, Watchdog]]:
    """Start Chromium with ``profile`` allowed to reach only ``127.0.0.1:site_port``;
    yield (DevTools endpoint, its watchdog); kill its whole group on exit.
    ``on_stuck`` is the watchdog's (the Playwright driver's kill).

    The endpoint is "" when the watchdog fired before Chromium listened.
    Raises ``BrowserUnavailable`` when Chromium cannot start.
    """
    refusing = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    refusing.bind(("127.0.0.1", 0))  # bound, never listening: the kernel refuses every connection
    try:
        try:
            proc = subprocess.Popen(
                chromium_args(profile, site_port, refusing.getsockname()[1], js_heap_mb),
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                start_new_session=True)
        except OSError as exc:
            raise BrowserUnavailable(f"{CHROMIUM} did not start: {exc}") from exc
        watchdog = Watchdog(proc.pid, wall_time_s, max_memory_bytes, on_stuck)
        watchdog.start()
        try:
            yield _devtools_endpoint(profile, proc, watchdog), watchdog
        finally:
            watchdog.stop()
            kill_group(proc.pid)
            proc.wait()
    finally:
        refusing.close()
