"""Run a case's validation scripts against a built site: each review item
with a ``validation`` script is decided (pass or fail) or left undecided
with the reason.

For each item tcab serves the built folder (:func:`serve_site`), starts its
own fenced Chromium under a watchdog (:func:`running_chromium`: only the
site's port reachable, killed at the script's bound or over its memory
bound) and runs ``runner.mjs`` with Playwright's own Node, which connects
over the DevTools protocol, loads the build and drives the script. The Node
process is bounded from here too: its own heap cap, its process group
killed at ``script_timeout_s``, its stderr kept as a bounded tail. The
runner writes a small JSON result; tcab reads it size-capped and trusts
only its shape.

The scripts are the case author's (trusted); the build is the model's
(hostile): a build that hangs a call, spins, navigates away, floods its
console or swells cannot hang the script or decide it (docs/validation.md).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tcab.atomic import write_bytes
from tcab.browser.chromium import running_chromium
from tcab.browser.page import BrowserLimits, BrowserUnavailable, _clip
from tcab.browser.site_server import serve_site
from tcab.errors import ValidationError
from tcab.limits import check_limits

RUNNER = Path(__file__).with_name("runner.mjs")
IMAGE, CLIP = "image", "clip"
#: Output kinds a script may declare: ``image`` is a PNG screenshot, ``clip``
#: (the original's ``video``) a WebM film of the game's canvas.
KINDS = {"image": IMAGE, "clip": CLIP, "video": CLIP}
ITEM_ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*(?:\.[a-z0-9]+(?:-[a-z0-9]+)*)?$")
OUTPUT_ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
MAX_RESULT_BYTES = 4 * 1024**2
MAX_OUTPUT_BYTES = 64 * 1024**2
MAX_STDERR_BYTES = 64 * 1024  # the runner's stderr tail kept (its last lines explain a runner that died)


@dataclass(frozen=True, slots=True)
class ScriptOutput:
    id: str
    name: str
    kind: str  # a key of KINDS


@dataclass(frozen=True, slots=True)
class ScriptItem:
    """One review item to decide: its id (``<category>.<item>``), the script
    (an absolute path inside the case's version folder) and the outputs it
    declares."""

    item: str
    script: Path
    outputs: tuple[ScriptOutput, ...] = ()

    def __post_init__(self) -> None:
        if not isinstance(self.script, Path) or not self.script.is_absolute():
            raise ValidationError(f"item {self.item}: script: expected an absolute Path, got {self.script!r:.100}")
        if not isinstance(self.item, str) or not ITEM_ID.fullmatch(self.item):
            raise ValidationError(f"item id: expected kebab-case ids, at most one '.', got {self.item!r:.100}")
        for output in self.outputs:
            # The id names a file: a kebab slug only (the manifest parser says so too).
            if not isinstance(output.id, str) or not OUTPUT_ID.fullmatch(output.id) or not isinstance(output.kind, str):
                raise ValidationError(f"item {self.item}: output id: expected a kebab-case slug, got "
                                      f"{output.id!r:.100}")

    def refusal(self) -> str | None:
        """Why tcab cannot run this item's script as declared, or None."""
        for output in self.outputs:
            if output.kind not in KINDS:
                return (f"output {output.id} is of kind {output.kind!r}, which tcab's script runner does not "
                        f"produce (known: {', '.join(KINDS)})")
        if sum(KINDS[o.kind] == CLIP for o in self.outputs) > 1:
            return "more than one clip output: the record pass films one clip"
        return None


@dataclass(frozen=True, slots=True)
class ScriptLimits:
    """Bounds of the scripts (docs/validation.md); every field positive."""

    call_timeout_s: float = 10.0      # one call into the build's debug API, one screenshot
    script_timeout_s: float = 120.0   # one script: Chromium's start, both passes
    total_timeout_s: float = 1800.0   # every script of a run; the ones not started by then are not run
    handle_timeout_s: float = 10.0    # the build installs window[handle] after load
    clip_ms: int = 8000               # the record pass films this much of act() (an item may set clipMs)
    node_heap_mb: int = 256           # the runner's V8 old space
    max_wait_ms: int = 30000          # one api.wait()
    max_answer_chars: int = 8 * 1024**2  # one answer of the build, as JSON
    max_clip_bytes: int = 32 * 1024**2
    log_lines: int = 40               # the log tail kept
    log_chars: int = 500              # one line of it

    def __post_init__(self) -> None:
        check_limits(self, "script", ValidationError)


@dataclass(frozen=True, slots=True)
class ItemDecision:
    """What a script decided for an item: ``passed`` True/False, or None when
    it decided nothing (``reason`` says why). ``outputs`` maps each output id
    produced to its file name in the item's output folder; ``log`` is the
    page's and the runner's log tail."""

    item: str
    passed: bool | None
    reason: str | None
    assertions: tuple[dict, ...] = ()
    outputs: dict = field(default_factory=dict)
    log: tuple[str, ...] = ()
    duration_s: float = field(default=0.0, compare=False)

    @property
    def decided(self) -> bool:
        return self.passed is not None

    def to_json(self) -> dict:
        return {"item": self.item, "decided": self.decided, "passed": self.passed, "reason": self.reason,
                "assertions": list(self.assertions), "outputs": dict(self.outputs), "log": list(self.log),
                "duration_s": round(self.duration_s, 3)}


def _node() -> tuple[str, str]:
    """Playwright's bundled Node and its package (the runner imports it)."""
    try:
        import playwright
    except ImportError as exc:
        raise BrowserUnavailable(f"playwright is not installed ({exc})") from exc
    driver = Path(playwright.__file__).parent / "driver"
    node, package = driver / "node", driver / "package"
    if not os.access(node, os.X_OK) or not (package / "index.js").is_file():
        raise BrowserUnavailable(f"Playwright's Node driver is missing under {driver}")
    return str(node), str(package)


def _runner_env(tmpdir: Path) -> dict[str, str]:
    """A bare environment for the runner: no credential of tcab's reaches
    the scripts' process (they are trusted, but what they print is kept)."""
    return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmpdir), "TMPDIR": str(tmpdir),
            "LANG": "C.UTF-8"}


def _kill(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _drain(stream, tail: bytearray) -> None:
    """Read ``stream`` to its end, keeping only its last ``MAX_STDERR_BYTES`` in ``tail``."""
    try:
        while chunk := stream.read1(64 * 1024):
            tail += chunk
            del tail[:-MAX_STDERR_BYTES]
    except (OSError, ValueError):
        pass  # the pipe closed under us: what was read is kept


def _read_result(path: Path) -> dict | None:
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_RESULT_BYTES + 1)
    except OSError:
        return None
    if len(data) > MAX_RESULT_BYTES:
        return None
    try:
        result = json.loads(data)
    except ValueError:
        return None
    return result if isinstance(result, dict) else None


def _assertions(raw) -> tuple[dict, ...]:
    out = []
    for a in raw if isinstance(raw, list) else []:
        if isinstance(a, dict):
            entry = {"label": str(a.get("label", ""))[:500], "pass": a.get("pass") is True}
            for key in ("expected", "actual"):
                if isinstance(a.get(key), str):
                    entry[key] = a[key][:500]
            out.append(entry)
    return tuple(out)


def _keep_outputs(item: ScriptItem, scratch: Path, out_dir: Path, produced) -> tuple[dict, str | None]:
    """Move each declared output the runner produced into ``out_dir``; (files, why one was refused)."""
    files = {}
    names = {o.id: (f"{o.id}.png" if KINDS[o.kind] == IMAGE else f"{o.id}.webm") for o in item.outputs}
    for oid in produced if isinstance(produced, list) else []:
        name = names.get(oid)
        if name is None:
            return files, f"the script produced an output it did not declare: {_clip(str(oid), 100)}"
        source = scratch / name
        try:
            info = source.lstat()
        except OSError:
            return files, f"output {oid}: no file was written"
        if not source.is_file() or source.is_symlink() or info.st_size > MAX_OUTPUT_BYTES:
            return files, f"output {oid}: not a regular file of at most {MAX_OUTPUT_BYTES} bytes"
        write_bytes(out_dir / name, source.read_bytes())
        files[oid] = name
    return files, None


def _decide(item: ScriptItem, url: str, port: int, out_dir: Path, handle: str, tick_hz: float | None,
            viewport: tuple[int, int], limits: ScriptLimits, browser: BrowserLimits, budget_s: float) -> ItemDecision:
    started = time.monotonic()
    node, package = _node()
    with tempfile.TemporaryDirectory(prefix="tcab-script-") as tmp:
        tmpdir = Path(tmp)
        scratch, profile = tmpdir / "out", tmpdir / "profile"
        scratch.mkdir()
        profile.mkdir()
        cfg = {
            "playwright": package, "url": url, "script": str(item.script), "itemId": item.item,
            "handle": handle, "tickHz": tick_hz, "viewport": list(viewport),
            "outputs": [{"id": o.id, "kind": KINDS[o.kind]} for o in item.outputs],
            "outDir": str(scratch), "result": str(tmpdir / "result.json"),
            "callTimeoutMs": limits.call_timeout_s * 1000, "loadTimeoutMs": browser.load_timeout_s * 1000,
            "handleTimeoutMs": limits.handle_timeout_s * 1000, "clipMs": limits.clip_ms,
            "maxWaitMs": limits.max_wait_ms, "maxAnswerChars": limits.max_answer_chars,
            "maxClipBytes": limits.max_clip_bytes, "maxAssertions": 1000,
            "logLines": limits.log_lines, "logChars": limits.log_chars,
        }
        (tmpdir / "config.json").write_text(json.dumps(cfg))
        with running_chromium(profile, port, wall_time_s=budget_s, max_memory_bytes=browser.max_memory_bytes,
                              js_heap_mb=browser.js_heap_mb) as (endpoint, watchdog):
            cfg["endpoint"] = endpoint
            (tmpdir / "config.json").write_text(json.dumps(cfg))
            timed_out = False
            try:
                proc = subprocess.Popen(
                    [node, f"--max-old-space-size={limits.node_heap_mb}", str(RUNNER), str(tmpdir / "config.json")],
                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                    start_new_session=True, cwd=tmpdir, env=_runner_env(tmpdir))
            except OSError as exc:
                raise BrowserUnavailable(f"{node} did not start: {exc}") from exc
            # Read in a thread, not communicate(): a runner that floods stderr must not swell tcab.
            stderr = bytearray()
            reader = threading.Thread(target=_drain, args=(proc.stderr, stderr), daemon=True)
            reader.start()
            try:
                proc.wait(timeout=max(1.0, budget_s - (time.monotonic() - started)))
            except subprocess.TimeoutExpired:
                timed_out = True
                _kill(proc.pid)
                proc.wait()
            finally:
                _kill(proc.pid)
            # The group is dead; a process that left it may still hold the pipe: it is not waited for.
            reader.join(timeout=5)
            reason_fired = watchdog.reason, watchdog.detail
        result = _read_result(tmpdir / "result.json") if endpoint else None
        elapsed = time.monotonic() - started

        def undecided(reason: str, log=()) -> ItemDecision:
            return ItemDecision(item.item, None, reason, log=tuple(log), duration_s=elapsed)

        if reason_fired[0] == "memory":
            return undecided(f"the build's browser was killed: {reason_fired[1]}")
        if timed_out or reason_fired[0] == "timeout":
            return undecided(f"the script did not finish within {round(budget_s, 2):g}s; it was killed")
        if result is None:
            tail = bytes(stderr).decode("utf-8", "replace").strip().splitlines()[-3:]
            return undecided(f"the script runner ended without a result (exit {proc.returncode}): "
                             f"{' | '.join(_clip(line, 100) for line in tail)}")
        # Only a list of strings is a log: an object, a number or one string in its place is none.
        lines = result.get("log") if isinstance(result.get("log"), list) else []
        log = tuple(line[:limits.log_chars + 3] for line in lines[:limits.log_lines] if isinstance(line, str))
        if type(result.get("logDropped")) is int and result["logDropped"] > 0:
            log = (f"... {result['logDropped']} earlier lines dropped",) + log
        files, refused = _keep_outputs(item, scratch, out_dir, result.get("produced"))
        if refused:
            return undecided(refused, log)
        if result.get("decided") is not True or not isinstance(result.get("pass"), bool):
            reason = result.get("reason") if isinstance(result.get("reason"), str) else "no reason given"
            return ItemDecision(item.item, None, _clip(reason, 500), outputs=files, log=log, duration_s=elapsed)
        # The result file is the runner's process's to write: its reason is bounded here, as an undecided one is.
        reason = _clip(result["reason"], 500) if isinstance(result.get("reason"), str) else None
        return ItemDecision(item.item, result["pass"], reason, _assertions(result.get("assertions")), files, log,
                            elapsed)


def run_scripts(folder: Path, items: Sequence[ScriptItem], out_dir: Path, *, handle: str,
                tick_hz: float | None = None, viewport: tuple[int, int] = (1280, 720),
                limits: ScriptLimits | None = None, browser: BrowserLimits | None = None) -> tuple[ItemDecision, ...]:
    """Serve ``folder`` and decide each item in order; outputs land in
    ``out_dir/<item>/<output>.png|.webm`` (atomically). An item whose script
    decides nothing is a decision with ``passed`` None and the reason.

    Raises ``ValidationError`` for a bad handle or items named twice,
    ``BrowserUnavailable`` when Playwright's Node or Chromium cannot start.
    """
    limits, browser = limits or ScriptLimits(), browser or BrowserLimits()
    if not isinstance(handle, str) or not handle.isidentifier():
        raise ValidationError(f"instrumentation handle: expected a JavaScript identifier, got {handle!r:.100}")
    seen: set[str] = set()
    for item in items:
        if item.item in seen:
            raise ValidationError(f"validation scripts: item {item.item!r} is listed twice")
        seen.add(item.item)
    if not items:
        return ()
    _node()
    decisions = []
    with serve_site(folder, browser.max_file_bytes) as (url, port):
        deadline = time.monotonic() + limits.total_timeout_s
        for item in items:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                decisions.append(ItemDecision(item.item, None, "not run: the scripts used up total_timeout_s "
                                                               f"({limits.total_timeout_s:g}s)"))
                continue
            refusal = item.refusal()
            if refusal is not None:
                decisions.append(ItemDecision(item.item, None, refusal))
                continue
            decisions.append(_decide(item, url, port, out_dir / item.item, handle, tick_hz, viewport, limits,
                                     browser, min(limits.script_timeout_s, remaining)))
    return tuple(decisions)
