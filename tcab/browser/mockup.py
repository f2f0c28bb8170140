"""Render a case's HTML mockups to PNG in headless Chromium.

A mockup is catalog input, but HTML runs code, so it is fenced like a
built site (docs/seeding.md, "Reference mockups"): the case version folder
is served by :mod:`tcab.browser.site_server` (regular files inside the
folder only, never a link), Chromium is started by
:mod:`tcab.browser.chromium` (its proxy fence lets it reach that one
port only, a watchdog kills its whole process group at the deadline or over
its memory bound) and every request Playwright sees that is not for the
served origin is aborted and makes the render fail (fail-closed: a mockup
that silently lost its web font would be a wrong reference).

One :class:`MockupSession` serves one version folder and starts Chromium
on its first render, so a seed of a case with three mockups pays for one
browser. Each render has its own hard bound (``timeout_s``): Playwright's
timeouts end a load or screenshot that takes too long, and the watchdog's
deadline, moved forward for each mockup, kills Chromium when a page holds
even those calls.

A render fails with a ``BrowserError`` naming the mockup file when the page
does not answer 200, throws (``pageerror``), fails to load a resource of the
folder (4xx/5xx or a network failure), asks for anything outside the folder,
or runs out of time or memory. The viewport is 1280x720 unless the mockup
says otherwise with ``<meta name="viewport" content="width=W, height=H">``.
"""

from __future__ import annotations

import math
import tempfile
import time
import urllib.parse
from contextlib import ExitStack
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

from tcab.browser.chromium import BrowserUnavailable, running_chromium
from tcab.browser.driver import PlaywrightDriver
from tcab.browser.site_server import Refused, request_components, serve_site
from tcab.catalog.toml import display_path
from tcab.errors import BrowserError
from tcab.limits import check_limits

DEFAULT_VIEWPORT = (1280, 720)
MAX_ERRORS = 5
MAX_ERROR_CHARS = 200


@dataclass(frozen=True, slots=True)
class MockupLimits:
    """Bounds of rendering one mockup (docs/seeding.md). Every field must be a
    finite positive number (``settle_s`` may be 0); ``BrowserError`` otherwise."""

    timeout_s: float = 20.0              # one mockup: load, fonts, settle, screenshot (hard bound)
    start_timeout_s: float = 60.0        # starting Chromium and connecting to it, once per seed
    settle_s: float = 0.2                # after load, for late errors and first frames
    max_viewport: int = 4096             # largest width or height a mockup may ask for
    max_memory_bytes: int = 2 * 1024**3  # private memory of Chromium's process tree (watchdog)
    js_heap_mb: int = 256                # V8's old space per page
    max_file_bytes: int = 32 * 1024**2   # one file the mockup (or the mockup itself) loads

    def __post_init__(self) -> None:
        check_limits(self, "mockup", BrowserError)


@dataclass(frozen=True, slots=True)
class Rendered:
    """A mockup's screenshot and the files of the folder it loaded
    (relative POSIX paths, the mockup itself included)."""

    png: bytes
    loaded: frozenset[str]
    width: int
    height: int


class _ViewportMeta(HTMLParser):
    """The ``content`` of the first ``<meta name="viewport">``."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.content: str | None = None

    def handle_starttag(self, tag: str, attrs) -> None:
        if tag == "meta" and self.content is None:
            named = {k.lower(): (v or "") for k, v in attrs}
            if named.get("name", "").strip().lower() == "viewport":
                self.content = named.get("content", "")


def viewport_of(html: str, where: str, max_viewport: int) -> tuple[int, int]:
    """The mockup's viewport: ``width``/``height`` of its viewport meta when they
    are whole numbers of CSS pixels, else 1280x720 for the missing one.
    A number outside 1..``max_viewport`` is a ``BrowserError`` naming ``where``."""
    parser = _ViewportMeta()
    parser.feed(html)
    parser.close()
    width, height = DEFAULT_VIEWPORT
    for item in (parser.content or "").replace(";", ",").split(","):
        key, _, value = item.partition("=")
        key, value = key.strip().lower(), value.strip()
        if key not in ("width", "height") or not value.isdigit():
            continue  # device-width, scales and the like keep the default
        number = int(value)
        if not 1 <= number <= max_viewport:
            raise BrowserError(f"{where}: <meta name=\"viewport\"> {key}={value}: "
                            f"expected 1 to {max_viewport} pixels")
        if key == "width":
            width = number
        else:
            height = number
    return width, height


def _clip(text: str, n: int = MAX_ERROR_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[:n] + "..."


class MockupSession:
    """Renders mockups of one version folder ``root``; a context manager that
    ends the browser, the server and the driver on exit."""

    def __init__(self, root: Path, limits: MockupLimits | None = None):
        self.root = Path(root)
        self.limits = limits or MockupLimits()
        self.browser_starts = 0
        self._stack: ExitStack | None = None
        self._context = None
        self._watchdog = None
        self._base = ""

    def __enter__(self) -> MockupSession:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        stack, self._stack, self._context = self._stack, None, None
        if stack is not None:
            stack.close()

    def _start(self) -> None:
        """Serve the folder, start Playwright and Chromium (once per session)."""
        stack = ExitStack()
        try:
            self._base, port = stack.enter_context(serve_site(self.root, self.limits.max_file_bytes))
            profile = stack.enter_context(tempfile.TemporaryDirectory(prefix="tcab-mockup-"))
            driver = stack.enter_context(PlaywrightDriver())
            pw = driver.playwright()
            from playwright.sync_api import Error as PlaywrightError
            endpoint, self._watchdog = stack.enter_context(running_chromium(
                Path(profile), port, wall_time_s=self.limits.start_timeout_s,
                max_memory_bytes=self.limits.max_memory_bytes, js_heap_mb=self.limits.js_heap_mb,
                on_stuck=driver.kill))
            self.browser_starts += 1
            try:
                if not endpoint:
                    raise PlaywrightError("Chromium was killed before it listened")
                browser = pw.chromium.connect_over_cdp(endpoint, timeout=self.limits.start_timeout_s * 1000)
                self._context = browser.new_context(service_workers="block", accept_downloads=False)
            except PlaywrightError as exc:
                raise BrowserUnavailable(f"the browser failed to start: {_clip(str(exc))}") from exc
        except BaseException:
            stack.close()
            raise
        self._stack = stack

    def render(self, path: Path) -> Rendered:
        """Render the mockup at ``path`` (inside ``root``) to PNG.

        Raises ``BrowserError`` naming the file for anything the mockup did wrong,
        ``BrowserUnavailable`` when Chromium or Playwright cannot start.
        """
        where = display_path(path)
        try:
            rel = Path(path).relative_to(self.root).as_posix()
        except ValueError:
            raise BrowserError(f"{where}: a mockup must lie inside its case version folder") from None
        try:
            raw = Path(path).read_bytes()
        except OSError as exc:
            raise BrowserError(f"{where}: cannot read the mockup: {exc.strerror or exc}") from exc
        if len(raw) > self.limits.max_file_bytes:
            raise BrowserError(f"{where}: the mockup is {len(raw)} bytes "
                            f"(limit {self.limits.max_file_bytes})")
        width, height = viewport_of(raw.decode("utf-8", errors="replace"), where, self.limits.max_viewport)
        if self._context is None:
            self._start()
        # A fresh deadline per mockup; none between them (the seed goes on
        # without the browser, which is killed when the session closes).
        self._watchdog.deadline = time.monotonic() + self.limits.timeout_s
        self._watchdog.wall_time_s = self.limits.timeout_s
        try:
            return self._render(rel, where, width, height)
        finally:
            self._watchdog.deadline = math.inf

    def _render(self, rel: str, where: str, width: int, height: int) -> Rendered:
        from playwright.sync_api import Error as PlaywrightError
        from playwright.sync_api import TimeoutError as PlaywrightTimeout

        end = time.monotonic() + self.limits.timeout_s * 0.9  # Playwright's bound, before the watchdog's
        errors: list[str] = []
        loaded: set[str] = set()
        url = self._base + urllib.parse.quote(rel)

        def left_ms() -> float:
            return max(end - time.monotonic(), 0.05) * 1000

        def local_path(target: str) -> str | None:
            if not target.startswith(self._base):
                return None
            try:
                return "/".join(request_components("/" + target[len(self._base):]))
            except Refused:
                return "?"

        def route(r) -> None:
            target = r.request.url
            if target.startswith(self._base) or target.startswith(("data:", "blob:")):
                r.continue_()
            else:
                errors.append(f"requested {_clip(target)} outside the case folder (blocked)")
                r.abort("blockedbyclient")

        def response(resp) -> None:
            name = local_path(resp.url)
            if name is None:
                return
            if resp.status >= 400:
                # Chromium asks for the favicon on its own; the mockup did not.
                if name != "favicon.ico":
                    errors.append(f"{name} answered {resp.status}" + (
                        " (missing, a link, or not a regular file)" if resp.status == 404 else ""))
            elif resp.status == 200:
                loaded.add(name)

        def console(msg) -> None:
            # Chromium refuses file:// (and other local schemes) from an http page
            # itself, before any route sees it: it only says so on the console.
            if msg.type == "error" and msg.text.startswith("Not allowed to load local resource"):
                target = msg.text.partition(":")[2].strip()
                errors.append(f"requested {_clip(target)} outside the case folder (blocked)")

        def failed(request) -> None:
            name = local_path(request.url)
            if name is not None and name != "favicon.ico":
                errors.append(f"{name} failed to load: {_clip(request.failure or 'unknown error')}")

        page = None
        try:
            page = self._context.new_page()
            page.set_viewport_size({"width": width, "height": height})
            page.route("**/*", route)
            page.route_web_socket("**/*", lambda ws: (errors.append(f"opened a WebSocket {_clip(ws.url)} (blocked)"),
                                                      ws.close(code=1008, reason="blocked by tcab")))
            page.on("pageerror", lambda exc: errors.append(f"threw {_clip(str(exc))}"))
            page.on("response", response)
            page.on("requestfailed", failed)
            page.on("console", console)
            page.on("crash", lambda _: errors.append("the page crashed"))
            page.on("popup", lambda p: errors.append(f"opened a window {_clip(p.url)}"))
            answer = page.goto(url, wait_until="load", timeout=left_ms())
            if answer is None or answer.status != 200:
                raise BrowserError(f"{where}: the mockup answered {getattr(answer, 'status', None)}")
            page.wait_for_function("() => document.fonts.status === 'loaded'", timeout=left_ms())
            if self.limits.settle_s:
                page.wait_for_timeout(min(self.limits.settle_s * 1000, left_ms()))
            if not page.url.startswith(url):
                errors.append(f"navigated away to {_clip(page.url)}")
            png = page.screenshot(full_page=False, animations="disabled", caret="hide", timeout=left_ms())
        except PlaywrightError as exc:
            if self._watchdog.reason == "memory":
                raise BrowserError(f"{where}: the mockup's browser used more than "
                                f"{self.limits.max_memory_bytes} bytes of memory; Chromium was killed") from None
            if self._watchdog.reason or isinstance(exc, PlaywrightTimeout):
                raise BrowserError(f"{where}: the mockup did not render within {self.limits.timeout_s:g}s "
                                "(load, fonts, screenshot)" + self._summary(errors, "; also: ")) from None
            raise BrowserError(f"{where}: the mockup failed to render: {_clip(str(exc).splitlines()[0])}"
                            + self._summary(errors, "; also: ")) from None
        finally:
            if page is not None and not self._watchdog.reason:
                try:
                    page.close()
                except PlaywrightError:
                    pass
        if errors:
            raise BrowserError(f"{where}: the mockup" + self._summary(errors, " "))
        loaded.add(rel)
        return Rendered(png, frozenset(loaded), width, height)

    @staticmethod
    def _summary(errors: list[str], lead: str) -> str:
        if not errors:
            return ""
        more = f" (+{len(errors) - MAX_ERRORS} more)" if len(errors) > MAX_ERRORS else ""
        return lead + "; ".join(errors[:MAX_ERRORS]) + more
