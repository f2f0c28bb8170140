"""Check a built static site in headless Chromium.

The output folder is served on 127.0.0.1 (a random port, only for the
duration of the check) by :mod:`tcab.browser.site_server` (regular files
inside the folder only, never a link) and opened in a Chromium that tcab
starts itself (:mod:`tcab.browser.chromium`: fenced to that one port,
killed with its whole process tree at the wall-time deadline or over its
memory bound), driven by Playwright over DevTools. Checks:

- ``index``: ``index.html`` is a regular file in the output folder;
- ``load``: the page answers 200 and fires ``load`` within ``load_timeout_s``;
- ``errors``: no uncaught exception (``pageerror``), no console error
  (which includes Chromium's "Failed to load resource" for a 404), no
  request or WebSocket outside the site (blocked), no window opened, no
  navigation away from the site, during the load and ``settle_s`` after it;
- one PNG screenshot per ``[[reference]]`` view, at the reference image's
  size when it is a PNG (else 1024x768); a page too busy to be captured
  fails ``screenshot``;
- ``timeout`` / ``memory``: the watchdog killed Chromium (``wall_time_s``,
  ``max_memory_bytes``).
"""

from __future__ import annotations

import os
import stat
import struct
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tcab.browser.chromium import BrowserUnavailable, running_chromium
from tcab.browser.driver import PlaywrightDriver
from tcab.browser.site_server import serve_site
from tcab.errors import BrowserError
from tcab.limits import check_limits

__all__ = ["BrowserLimits", "BrowserUnavailable", "Check", "PageResult", "View", "check_page", "png_size"]

DEFAULT_VIEWPORT = (1024, 768)
MAX_VIEWPORT = 4096
MAX_ERRORS = 10          # errors kept in the detail; the rest are counted
MAX_ERROR_CHARS = 300    # each kept error is cut to this


@dataclass(frozen=True, slots=True)
class Check:
    """One check: its name, whether it passed, and what was seen (a
    validation records the page's among its own, tcab.validation.record)."""

    name: str
    ok: bool
    detail: str = ""

    def to_json(self) -> dict:
        return {"name": self.name, "ok": self.ok, "detail": self.detail}


@dataclass(frozen=True, slots=True)
class BrowserLimits:
    """Bounds of one browser check (docs/validation.md). Every field must be
    finite and positive (``settle_s`` may be 0); ``BrowserError`` otherwise."""

    load_timeout_s: float = 30.0         # index.html answers and fires load
    settle_s: float = 1.0                # errors watched after load, per view
    screenshot_timeout_s: float = 10.0   # one screenshot
    wall_time_s: float = 120.0           # the whole check, Chromium's start included (watchdog)
    max_memory_bytes: int = 2 * 1024**3  # private memory of Chromium's whole process tree (watchdog)
    js_heap_mb: int = 512                # V8's old space per page (--max-old-space-size)
    max_file_bytes: int = 64 * 1024**2   # one file the site server sends

    def __post_init__(self) -> None:
        check_limits(self, "browser", BrowserError)


@dataclass(frozen=True, slots=True)
class View:
    """A screenshot to take: the view's name and the viewport size."""

    name: str
    width: int
    height: int


@dataclass(frozen=True, slots=True)
class PageResult:
    checks: tuple[Check, ...]
    shots: dict[str, bytes]          # view name -> PNG bytes


def png_size(path: Path | None) -> tuple[int, int] | None:
    """Width and height from a PNG's IHDR chunk, or None when not a PNG
    or larger than ``MAX_VIEWPORT`` either way."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(24)
    except (OSError, TypeError):
        return None
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    width, height = struct.unpack(">II", head[16:24])
    return (width, height) if 0 < width <= MAX_VIEWPORT and 0 < height <= MAX_VIEWPORT else None


class ErrorLog:
    """The page's errors: the first ``MAX_ERRORS``, each cut, and a count
    (a page may log a gigabyte; tcab keeps a few hundred bytes of it)."""

    def __init__(self) -> None:
        self.kept: list[str] = []
        self.count = 0

    def add(self, text: str) -> None:
        self.count += 1
        if len(self.kept) < MAX_ERRORS:
            self.kept.append(text if len(text) <= MAX_ERROR_CHARS else text[:MAX_ERROR_CHARS] + "...")

    def summary(self) -> str:
        more = f" (+{self.count - len(self.kept)} more)" if self.count > len(self.kept) else ""
        return "; ".join(self.kept) + more


def _clip(text: str, n: int = 200) -> str:
    return text if len(text) <= n else text[:n] + "..."


def _console(msg, errors: ErrorLog) -> None:
    if msg.type != "error":
        return
    where = (msg.location or {}).get("url", "")
    # The browser asks for /favicon.ico on its own; the page did not.
    if where.endswith("/favicon.ico"):
        return
    errors.add(f"console.error: {_clip(msg.text, MAX_ERROR_CHARS)}" + (f" ({_clip(where)})" if where else ""))


def _only_local(route, base: str, errors: ErrorLog) -> None:
    target = route.request.url
    if target.startswith(base) or target.startswith(("data:", "blob:")):
        route.continue_()
    else:
        errors.add(f"blocked a request outside the site: {_clip(target)}")
        route.abort()


def _no_websocket(ws, errors: ErrorLog) -> None:
    # The site server speaks no WebSocket: every one is outside the site.
    errors.add(f"blocked a WebSocket: {_clip(ws.url)}")
    ws.close(code=1008, reason="blocked by tcab")


def _drive(context, url: str, views: list[View], shots: dict[str, bytes], errors: ErrorLog,
           limits: BrowserLimits, error_type) -> list[Check]:
    """Load the page once per view (the viewport is set before loading: a
    page whose script hangs its renderer cannot be resized), let it settle,
    take the screenshot; the checks of it. A call that never returns is
    ended by the watchdog killing Chromium (an ``error_type`` here)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    checks: list[Check] = []
    for i, view in enumerate(views):
        page = context.new_page()
        page.set_viewport_size({"width": view.width, "height": view.height})
        page.on("pageerror", lambda exc: errors.add(f"uncaught {_clip(str(exc), MAX_ERROR_CHARS)}"))
        page.on("console", lambda msg: _console(msg, errors))
        page.on("crash", lambda _: errors.add("the page crashed"))
        page.on("popup", lambda popup: errors.add(f"the page opened a window: {_clip(popup.url)}"))
        try:
            response = page.goto(url + "index.html", wait_until="load", timeout=limits.load_timeout_s * 1000)
        except error_type as exc:
            return checks + [Check("load", False, f"index.html did not load: {_clip(str(exc).splitlines()[0])}")]
        if response is None or response.status != 200:
            return checks + [Check("load", False, f"index.html answered {getattr(response, 'status', None)}")]
        try:
            if i == 0:
                # page.title() has no timeout: ask only a renderer that answers.
                page.wait_for_function("() => true", timeout=limits.screenshot_timeout_s * 1000)
                checks.append(Check("load", True, f"loaded: title {_clip(page.title())!r}"))
            page.wait_for_timeout(limits.settle_s * 1000)
            if not page.url.startswith(url):
                errors.add(f"the page navigated away from the site: {_clip(page.url)}")
        except error_type as exc:
            if isinstance(exc, PlaywrightTimeout):  # a busy renderer: the screenshot below says so
                checks.append(Check("load", True, "loaded: the page stopped answering after load"))
            else:  # the renderer crashed (out of memory) or closed itself: the page's doing
                detail = f"the page crashed or closed: {_clip(str(exc).splitlines()[0])}"
                return checks + [Check("page", False, detail)]
        try:
            shots[view.name] = page.screenshot(full_page=False, timeout=limits.screenshot_timeout_s * 1000)
        except error_type as exc:
            # A page that keeps its renderer busy (an endless loop) cannot be captured: its fault.
            return checks + [Check("screenshot", False,
                                   f"the page stopped responding: {_clip(str(exc).splitlines()[0])}")]
    return checks


def _index_is_regular(folder: Path) -> bool:
    try:
        return stat.S_ISREG(os.lstat(folder / "index.html").st_mode)
    except OSError:
        return False


def check_page(folder: Path, views: list[View], limits: BrowserLimits | None = None) -> PageResult:
    """Open ``folder/index.html`` over HTTP and run the checks above.

    Raises ``BrowserUnavailable`` when Playwright or Chromium cannot start.
    """
    limits = limits or BrowserLimits()
    if not _index_is_regular(folder):
        return PageResult((Check("index", False, "index.html is missing from the output folder"),), {})
    checks = [Check("index", True, "index.html present")]
    errors = ErrorLog()
    shots: dict[str, bytes] = {}
    with (serve_site(folder, limits.max_file_bytes) as (url, port),
          tempfile.TemporaryDirectory(prefix="tcab-chromium-") as profile,
          PlaywrightDriver() as driver):
        pw = driver.playwright()
        from playwright.sync_api import Error as PlaywrightError
        with running_chromium(Path(profile), port, wall_time_s=limits.wall_time_s,
                              max_memory_bytes=limits.max_memory_bytes,
                              js_heap_mb=limits.js_heap_mb, on_stuck=driver.kill) as (endpoint, watchdog):
            try:
                if not endpoint:
                    raise PlaywrightError("Chromium was killed before it listened")
                browser = pw.chromium.connect_over_cdp(endpoint, timeout=limits.wall_time_s * 1000)
                context = browser.new_context(service_workers="block", accept_downloads=False)
                # Untrusted code in a browser on the host: it may reach only the site
                # (Chromium's proxy fence enforces it; these name what was tried).
                context.route("**/*", lambda route: _only_local(route, url, errors))
                context.route_web_socket("**/*", lambda ws: _no_websocket(ws, errors))
                checks += _drive(context, url, views, shots, errors, limits, PlaywrightError)
            except PlaywrightError as exc:
                if not watchdog.reason:
                    raise BrowserUnavailable(f"the browser failed: {_clip(str(exc).splitlines()[0])}") from exc
            if watchdog.reason:
                # Whatever failed last failed because Chromium was killed: say why.
                checks = [c for c in checks if c.ok] + [Check(watchdog.reason, False, watchdog.detail)]
                shots.clear()
    if len(checks) < 2 or not checks[-1].ok:
        return PageResult(tuple(checks), shots)
    if errors.count:
        checks.append(Check("errors", False, errors.summary()))
    else:
        checks.append(Check("errors", True, f"no uncaught or console error in load + {limits.settle_s:g}s"))
    return PageResult(tuple(checks), shots)
