"""Check a built static site in headless Chromium.

The output folder is served on 127.0.0.1 (a random port, only for the
duration of the check) and opened in Debian's ``/usr/bin/chromium``, driven
by Playwright (never a downloaded browser) with a fresh profile. Checks:

- ``index``: ``index.html`` exists in the output folder;
- ``load``: the page answers 200 and fires ``load`` within ``load_timeout_s``;
- ``errors``: no uncaught exception (``pageerror``) and no console error
  (which includes Chromium's "Failed to load resource" for a 404) during the
  load and ``settle_s`` after it;
- one PNG screenshot per ``[[reference]]`` view, at the reference image's
  size when it is a PNG (else 1024x768); a page too busy to be captured
  fails ``screenshot``.

Requests outside the served site are blocked and count as errors: the
page is untrusted code running in a browser on the host.
"""

from __future__ import annotations

import functools
import http.server
import os
import struct
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tcab.validation.record import Check

CHROMIUM = os.environ.get("TCAB_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync")
DEFAULT_VIEWPORT = (1024, 768)
MAX_ERRORS = 10
SCREENSHOT_TIMEOUT_S = 10


class BrowserUnavailable(Exception):
    """Chromium or Playwright could not be started (an infrastructure error)."""


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
    """Width and height from a PNG's IHDR chunk, or None when not a PNG."""
    try:
        head = path.read_bytes()[:24] if path is not None else b""
    except OSError:
        return None
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    width, height = struct.unpack(">II", head[16:24])
    return (width, height) if 0 < width <= 4096 and 0 < height <= 4096 else None


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:  # the terminal is the caller's
        pass


@contextmanager
def serve(folder: Path) -> Iterator[str]:
    """Serve ``folder`` on 127.0.0.1 (a free port); yield the base URL."""
    handler = functools.partial(_Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def _console(msg, errors: list[str]) -> None:
    if msg.type != "error":
        return
    where = (msg.location or {}).get("url", "")
    # The browser asks for /favicon.ico on its own; the page did not.
    if where.endswith("/favicon.ico"):
        return
    errors.append(f"console.error: {msg.text}" + (f" ({where})" if where else ""))


def _only_local(route, base: str, errors: list[str]) -> None:
    target = route.request.url
    if target.startswith(base) or target.startswith(("data:", "blob:")):
        route.continue_()
    else:
        errors.append(f"blocked a request outside the site: {target[:200]}")
        route.abort()


def _drive(context, url: str, views: list[View], shots: dict[str, bytes], errors: list[str],
           load_timeout_s: float, settle_s: float, error_type) -> list[Check]:
    """Load the page once per view (the viewport is set before loading: a
    page whose script hangs its renderer cannot be resized), let it settle,
    take the screenshot; the checks of it."""
    checks: list[Check] = []
    for i, view in enumerate(views):
        page = context.pages[0] if i == 0 and context.pages else context.new_page()
        page.set_viewport_size({"width": view.width, "height": view.height})
        page.on("pageerror", lambda exc: errors.append(f"uncaught {exc}"))
        page.on("console", lambda msg: _console(msg, errors))
        try:
            response = page.goto(url + "index.html", wait_until="load", timeout=load_timeout_s * 1000)
        except error_type as exc:
            return [Check("load", False, f"index.html did not load: {str(exc).splitlines()[0]}")]
        if response is None or response.status != 200:
            return [Check("load", False, f"index.html answered {getattr(response, 'status', None)}")]
        if i == 0:
            checks.append(Check("load", True, f"loaded: title {page.title()!r}"))
        page.wait_for_timeout(settle_s * 1000)
        try:
            shots[view.name] = page.screenshot(full_page=False, timeout=SCREENSHOT_TIMEOUT_S * 1000)
        except error_type as exc:
            # A page that keeps its renderer busy (an endless loop) cannot be captured: its fault.
            return checks + [Check("screenshot", False,
                                   f"the page stopped responding: {str(exc).splitlines()[0]}")]
    return checks


def check_page(folder: Path, views: list[View], *, load_timeout_s: float = 30.0,
               settle_s: float = 1.0) -> PageResult:
    """Open ``folder/index.html`` over HTTP and run the checks above.

    Raises ``BrowserUnavailable`` when Playwright or Chromium cannot start.
    """
    if not (folder / "index.html").is_file():
        return PageResult((Check("index", False, "index.html is missing from the output folder"),), {})
    checks = [Check("index", True, "index.html present")]
    try:
        from playwright.sync_api import Error as PlaywrightError
        from playwright.sync_api import sync_playwright
    except ImportError as exc:
        raise BrowserUnavailable(f"playwright is not installed ({exc})") from exc
    errors: list[str] = []
    shots: dict[str, bytes] = {}
    with serve(folder) as url, tempfile.TemporaryDirectory(prefix="tcab-chromium-") as profile:
        try:
            pw = sync_playwright().start()
        except Exception as exc:  # noqa: BLE001 - the driver failing is infrastructure
            raise BrowserUnavailable(f"playwright did not start: {exc}") from exc
        try:
            try:
                context = pw.chromium.launch_persistent_context(
                    profile, executable_path=CHROMIUM, headless=True, args=list(CHROMIUM_ARGS),
                    viewport={"width": DEFAULT_VIEWPORT[0], "height": DEFAULT_VIEWPORT[1]})
            except PlaywrightError as exc:
                raise BrowserUnavailable(f"{CHROMIUM} did not start: {exc}") from exc
            try:
                # Untrusted code in a browser on the host: it may reach only the site.
                context.route("**/*", lambda route: _only_local(route, url, errors))
                checks += _drive(context, url, views, shots, errors, load_timeout_s, settle_s, PlaywrightError)
            finally:
                context.close()
        finally:
            pw.stop()
    if len(checks) < 2 or not checks[-1].ok:
        return PageResult(tuple(checks), shots)
    if errors:
        more = f" (+{len(errors) - MAX_ERRORS} more)" if len(errors) > MAX_ERRORS else ""
        checks.append(Check("errors", False, "; ".join(errors[:MAX_ERRORS]) + more))
    else:
        checks.append(Check("errors", True, f"no uncaught or console error in load + {settle_s:g}s"))
    return PageResult(tuple(checks), shots)
