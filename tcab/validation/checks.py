"""A case's ``[[check]]``s: drive the built page into a view, screenshot it,
score the screenshot against the reference screenshot with SSIM.

The actions are the original Test Cabinet's (its ``CheckAction`` and
browser driver), one inline table each, in order:

- ``{type = "wait", ms = 500}``: pause ``ms`` milliseconds;
- ``{type = "key", key = "Enter"}``: press and release a key (a Playwright
  key name: ``Enter``, ``ArrowUp``, ``w``, ``Escape``, ``Shift+A``);
- ``{type = "hold", key = "ArrowUp", ms = 300}``: hold a key down ``ms``;
- ``{type = "click", x = 640, y = 360}``: click a point of the viewport
  (CSS pixels from its top left).

As the original does, the page is loaded (``load``), left ``settle_s``, driven
through the actions, left ``settle_s`` again, and its viewport captured.

A check must not be passed by putting a screenshot the run was given on
screen: each seeded screenshot (``CheckSpec.seeded``) is scored against the
check's reference as a capture would be, and a capture that does not beat
the best of them by :data:`SEEDED_MARGIN` keeps its similarity but gets the
error saying so (``ViewCheckResult.seeded_similarity`` holds that baseline). A
check whose reference is itself seeded has the baseline 1.0: it can never
count; its reference must be a view held back from the run.

Each check has a Chromium of its own (:func:`running_chromium`: fenced to the
site's port, killed by its watchdog), so a page that hangs, spins or swells in
one check cannot take the next with it. The watchdog's deadline is the
check's bound, tightened around each action to that action's own bound
(its declared pause plus ``action_timeout_s``): the process tree is killed
from outside whatever Playwright call is stuck, and Playwright's driver too
when the call outlives Chromium (:mod:`tcab.browser.driver`; the next check
starts a fresh one). Dialogs are dismissed by
Playwright, windows blocked by Chromium, requests outside the site aborted.
"""

from __future__ import annotations

import io
import os
import re
import stat
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tcab.atomic import write_bytes
from tcab.browser.chromium import running_chromium
from tcab.browser.driver import PlaywrightDriver
from tcab.browser.page import (
    MAX_VIEWPORT,
    BrowserLimits,
    BrowserUnavailable,
    ErrorLog,
    _clip,
    _no_websocket,
    _only_local,
    png_size,
)
from tcab.browser.site_server import serve_site
from tcab.catalog.actions import (
    ACTION_TYPES,
    Action,
    ActionError,
    Click,
    Hold,
    Key,
    Wait,
    parse_action,
    parse_actions,
)
from tcab.catalog.fields import humanize, show
from tcab.errors import ValidationError
from tcab.limits import check_limits

__all__ = ["Action", "ActionError", "CheckLimits", "ViewCheckResult", "CheckSpec", "Click", "Hold", "Key",
           "Wait", "check_specs", "humanize", "parse_action", "parse_actions", "run_checks", "similarity"]

MAX_REFERENCE_BYTES = 64 * 1024**2
MIN_SIDE = 7                 # SSIM's 7x7 window must fit
#: How much better than the best seeded screenshot a capture must score to count.
SEEDED_MARGIN = 0.02
VIEW = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


def _pause_s(action: Action) -> float:
    return action.ms / 1000 if isinstance(action, Wait | Hold) else 0.0


@dataclass(frozen=True, slots=True)
class CheckSpec:
    """One check to run: the view it records under (a kebab slug: it names
    the screenshot file), its display name (default: the view humanized),
    the reference PNG, the actions, the viewport (default: the reference's
    size), and the PNGs of the screenshots the run was seeded with (a capture
    must beat them to count)."""

    view: str
    reference_png: Path
    actions: tuple[Action, ...] = ()
    name: str = ""
    viewport: tuple[int, int] | None = None
    seeded: tuple[Path, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.view, str) or not VIEW.fullmatch(self.view) or len(self.view) > 100:
            raise ValidationError(f"check view: expected a kebab-case slug, got {show(self.view)}")
        if not isinstance(self.reference_png, Path):
            raise ValidationError(f"check {self.view}: reference_png: expected a Path, got {show(self.reference_png)}")
        if not isinstance(self.actions, tuple) or not all(isinstance(a, ACTION_TYPES) for a in self.actions):
            raise ValidationError(f"check {self.view}: actions: expected a tuple of actions, got {self.actions!r:.100}")
        if not self.name:
            object.__setattr__(self, "name", humanize(self.view))
        if not isinstance(self.name, str) or len(self.name) > 200:
            raise ValidationError(f"check {self.view}: name: expected a string of at most 200 characters")
        if self.viewport is not None and not (
                isinstance(self.viewport, tuple) and len(self.viewport) == 2
                and all(type(v) is int and 0 < v <= MAX_VIEWPORT for v in self.viewport)):
            raise ValidationError(f"check {self.view}: viewport: expected (width, height), "
                                  f"each 1 to {MAX_VIEWPORT}, got {self.viewport!r:.100}")
        if not isinstance(self.seeded, tuple) or not all(isinstance(p, Path) for p in self.seeded):
            raise ValidationError(f"check {self.view}: seeded: expected a tuple of Paths, got {self.seeded!r:.100}")




def check_specs(specs: Sequence[CheckSpec]) -> tuple[CheckSpec, ...]:
    """``specs`` as a tuple; ``ValidationError`` for a non-spec or a view named twice
    (its screenshot would overwrite the other's)."""
    specs = tuple(specs)
    seen: set[str] = set()
    for spec in specs:
        if not isinstance(spec, CheckSpec):
            raise ValidationError(f"checks: expected CheckSpec objects, got {spec!r:.100}")
        if spec.view in seen:
            raise ValidationError(f"checks: view {spec.view!r} is checked twice")
        seen.add(spec.view)
    return specs


@dataclass(frozen=True, slots=True)
class CheckLimits:
    """Bounds of the checks (docs/validation.md); every field finite and
    positive (``settle_s`` may be 0), else ``ValidationError``."""

    action_timeout_s: float = 10.0   # one action, beyond the pause it declares
    check_timeout_s: float = 60.0    # one check: Chromium's start, load, actions, screenshot
    total_timeout_s: float = 300.0   # every check of a run; the ones not started by then are not run
    settle_s: float = 0.4            # after load and after the actions (the original's 400 ms)

    def __post_init__(self) -> None:
        check_limits(self, "check", ValidationError)


@dataclass(frozen=True, slots=True)
class ViewCheckResult:
    """One check's outcome. ``similarity`` is SSIM (1.0: identical), None
    when the check was not reached; ``error`` says why; ``screenshot`` is
    the capture's file name in the output folder, None when none was taken;
    ``seeded_similarity`` what the best screenshot the run was seeded with
    scores against the same reference (None: none was seeded), and a capture
    that does not beat it keeps its similarity with an ``error`` saying so."""

    name: str
    view: str
    similarity: float | None
    screenshot: str | None
    error: str | None
    duration_s: float = field(compare=False)
    seeded_similarity: float | None = None

    @property
    def reached(self) -> bool:
        return self.similarity is not None

    def to_json(self) -> dict:
        return {"name": self.name, "view": self.view, "reached": self.reached,
                "similarity": None if self.similarity is None else round(self.similarity, 4),
                "screenshot": self.screenshot, "error": self.error, "duration_s": round(self.duration_s, 3),
                "seeded_similarity": None if self.seeded_similarity is None else round(self.seeded_similarity, 4)}


class _Refused(Exception):
    """A check that cannot be scored (its message is the check's error)."""


def _load_reference(path: Path):
    """The reference as an RGB Pillow image, read only when it is a regular
    PNG file of at most MAX_VIEWPORT each way (a FIFO would block, a bomb swell)."""
    from PIL import Image
    try:
        info = os.stat(path)
    except OSError as exc:
        raise _Refused(f"reference {path}: {exc.strerror}") from exc
    if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_REFERENCE_BYTES:
        raise _Refused(f"reference {path}: not a regular file of at most {MAX_REFERENCE_BYTES} bytes")
    size = png_size(path)
    if size is None or min(size) < MIN_SIDE:
        raise _Refused(f"reference {path}: not a PNG of {MIN_SIDE}x{MIN_SIDE} to "
                       f"{MAX_VIEWPORT}x{MAX_VIEWPORT} pixels")
    try:
        with Image.open(path) as image:
            return image.convert("RGB")
    except (OSError, ValueError, SyntaxError, Image.DecompressionBombError) as exc:
        raise _Refused(f"reference {path}: cannot be decoded ({_clip(str(exc))})") from exc


def similarity(reference, png: bytes) -> float:
    """SSIM of the screenshot ``png`` against ``reference`` (an RGB Pillow
    image), over the three color channels; a screenshot of another size is
    resized to the reference's first (bilinear)."""
    import numpy as np
    from PIL import Image
    from skimage.metrics import structural_similarity

    with Image.open(io.BytesIO(png)) as shot:
        shot = shot.convert("RGB")
    if shot.size != reference.size:
        shot = shot.resize(reference.size, Image.Resampling.BILINEAR)
    return float(structural_similarity(np.asarray(reference), np.asarray(shot), channel_axis=2, data_range=255))


def _seeded_baseline(reference, spec: CheckSpec) -> tuple[float, str] | None:
    """The best score a seeded screenshot gets against ``reference``, and
    its file name; None when none was seeded (or none can be read)."""
    best = None
    for path in spec.seeded:
        try:
            image = _load_reference(path)
        except _Refused:
            continue  # not readable as a reference: not a screenshot a page could show as-is
        buf = io.BytesIO()
        image.save(buf, "PNG")
        score = similarity(reference, buf.getvalue())
        if best is None or score > best[0]:
            best = (score, path.name)
    return best


def _perform(page, action: Action) -> None:
    if isinstance(action, Wait):
        page.wait_for_timeout(action.ms)
    elif isinstance(action, Key):
        page.keyboard.press(action.key)
    elif isinstance(action, Hold):
        page.keyboard.down(action.key)
        page.wait_for_timeout(action.ms)
        page.keyboard.up(action.key)
    else:
        page.mouse.click(action.x, action.y)


def _capture(driver: PlaywrightDriver, spec: CheckSpec, url: str, port: int, viewport: tuple[int, int],
             limits: CheckLimits, browser: BrowserLimits, budget_s: float) -> tuple[bytes | None, str | None]:
    """Load, drive and screenshot the page in a Chromium of its own:
    (PNG, None), (PNG, why it does not count) or (None, why it failed)."""
    from playwright.sync_api import Error as PlaywrightError

    step, bound_s = "browser", budget_s
    pw = driver.playwright()
    with (tempfile.TemporaryDirectory(prefix="tcab-chromium-") as profile,
          running_chromium(Path(profile), port, wall_time_s=budget_s, max_memory_bytes=browser.max_memory_bytes,
                           js_heap_mb=browser.js_heap_mb, on_stuck=driver.kill) as (endpoint, watchdog)):
        check_deadline = watchdog.deadline
        try:
            if not endpoint:
                raise PlaywrightError("Chromium was killed before it listened")
            context = pw.chromium.connect_over_cdp(endpoint, timeout=budget_s * 1000).new_context(
                viewport={"width": viewport[0], "height": viewport[1]}, device_scale_factor=1,
                service_workers="block", accept_downloads=False)
            errors = ErrorLog()
            context.route("**/*", lambda route: _only_local(route, url, errors))
            context.route_web_socket("**/*", lambda ws: _no_websocket(ws, errors))
            page = context.new_page()  # dialogs (alert spam) are dismissed by Playwright
            # As Playwright's own headless launch (the original's references and captures): no scrollbars.
            context.new_cdp_session(page).send("Emulation.setScrollbarsHidden", {"hidden": True})
            step = "load"
            response = page.goto(url + "index.html", wait_until="load", timeout=browser.load_timeout_s * 1000)
            if response is None or response.status != 200:
                return None, f"load: index.html answered {getattr(response, 'status', None)}"
            page.wait_for_timeout(limits.settle_s * 1000)
            for index, action in enumerate(spec.actions, start=1):
                step, bound_s = f"actions[{index}] ({action.describe()})", _pause_s(action) + limits.action_timeout_s
                # The watchdog re-reads its deadline every poll: this action gets its own bound.
                watchdog.deadline = min(check_deadline, time.monotonic() + bound_s)
                _perform(page, action)
                watchdog.deadline, bound_s = check_deadline, budget_s
            page.wait_for_timeout(limits.settle_s * 1000)
            step = "screenshot"
            png = page.screenshot(full_page=False, type="png", timeout=browser.screenshot_timeout_s * 1000)
            if not page.url.startswith(url):
                return png, f"the page navigated away from the site: {_clip(page.url)}"
            return png, None
        except PlaywrightError as exc:
            if step == "browser" and not watchdog.reason:
                raise BrowserUnavailable(f"the browser failed: {_clip(str(exc).splitlines()[0])}") from exc
            if watchdog.reason == "timeout":
                return None, f"{step}: did not finish within {round(bound_s, 2):g}s; Chromium was killed"
            if watchdog.reason:
                return None, f"{step}: {watchdog.detail}"
            return None, f"{step}: {_clip(str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__)}"


def _run_one(driver: PlaywrightDriver, spec: CheckSpec, url: str, port: int, out_dir: Path, limits: CheckLimits,
             browser: BrowserLimits, deadline: float) -> ViewCheckResult:
    started = time.monotonic()

    baseline: tuple[float, str] | None = None

    def result(error: str | None, similarity_: float | None = None, shot: str | None = None) -> ViewCheckResult:
        return ViewCheckResult(spec.name, spec.view, similarity_, shot, error, time.monotonic() - started,
                               None if baseline is None else baseline[0])

    remaining = deadline - started
    if remaining <= 0:
        return result(f"not run: the checks used up total_timeout_s ({limits.total_timeout_s:g}s)")
    try:
        reference = _load_reference(spec.reference_png)
    except _Refused as exc:
        return result(str(exc))
    budget_s = min(limits.check_timeout_s, remaining)
    pauses = sum(_pause_s(a) for a in spec.actions) + 2 * limits.settle_s
    if pauses >= budget_s:
        return result(f"actions: they pause {round(pauses, 2):g}s in all (settle_s twice included), "
                      f"not less than the {round(budget_s, 2):g}s this check may take (check_timeout_s)")
    png, error = _capture(driver, spec, url, port, spec.viewport or reference.size, limits, browser, budget_s)
    if png is None:
        return result(error)
    shot = f"{spec.view}.png"
    write_bytes(out_dir / shot, png)
    if error is not None:
        return result(error, shot=shot)
    try:
        score = similarity(reference, png)
    except (OSError, ValueError) as exc:  # a screenshot Pillow cannot read: Chromium's fault, said plainly
        return result(f"screenshot: cannot be decoded ({_clip(str(exc))})", shot=shot)
    baseline = _seeded_baseline(reference, spec)
    if baseline is not None and score < baseline[0] + SEEDED_MARGIN:
        return result(f"no better than the screenshot {baseline[1]} the run was given scores "
                      f"({baseline[0]:.4f}): a page that only shows it would match as well", score, shot)
    return result(None, score, shot)


def run_checks(folder: Path, specs: Sequence[CheckSpec], out_dir: Path, *, limits: CheckLimits | None = None,
               browser: BrowserLimits | None = None) -> tuple[ViewCheckResult, ...]:
    """Serve ``folder`` and run each check in order; screenshots land in
    ``out_dir/<view>.png`` (atomically). A check that fails is a result with
    an ``error``; the others still run. ``browser`` supplies the load and
    screenshot timeouts and the memory bounds (``BrowserLimits``).

    Raises ``ValidationError`` for bad specs, ``BrowserUnavailable`` when
    Playwright or Chromium cannot start.
    """
    specs = check_specs(specs)
    limits, browser = limits or CheckLimits(), browser or BrowserLimits()
    if not specs:
        return ()
    with serve_site(folder, browser.max_file_bytes) as (url, port), PlaywrightDriver() as driver:
        driver.playwright()  # started before the clock: a driver that cannot start is BrowserUnavailable
        deadline = time.monotonic() + limits.total_timeout_s  # the checks' time, from here
        return tuple(_run_one(driver, spec, url, port, out_dir, limits, browser, deadline) for spec in specs)
