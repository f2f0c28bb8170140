"""A replay inside its case's renderer: one page that needs nothing else.

A renderer (``[replay].renderer``) loads the replay named by ``?src=URL``.
The page built here carries the replay's gzip bytes (base64) in a script
placed before the renderer's own; that script turns them into a ``blob:``
URL and writes it into ``?src=`` with ``history.replaceState`` (no
navigation, allowed on ``file://`` since only the query changes). So the
renderer runs unchanged, from ``file://`` and with no network, and the app
serves the same page to a sandboxed frame.
"""

from __future__ import annotations

import base64
import hashlib
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from tcab.atomic import check_file_target, refuse_inputs, write_bytes
from tcab.errors import ReplayError
from tcab.reading import read_bytes

#: The largest renderer page read (a case's renderer is a few KiB; ``--renderer`` names any file).
MAX_RENDERER_BYTES = 16 * 1024 * 1024

# The replay's fields the renderer reads come from hostile bots and builds.
# The page's policy runs only the scripts it was built with (the loader and
# the renderer's own inline scripts, each allowed by its SHA-256): markup
# planted in a label or a forfeit detail can never run (no 'unsafe-inline',
# so no event handler attribute either), and nothing leaves the page: no
# fetch (the loader answers the renderer's one fetch of the replay itself),
# image, frame, form or font from anywhere. WebRTC is not covered by any
# policy Chromium knows: it stays closed because no planted script runs.
_POLICY = ("default-src 'none'; script-src {hashes}; style-src 'unsafe-inline'; img-src data: blob:; "
           "connect-src 'none'; font-src data:; media-src 'none'; frame-src 'none'; worker-src 'none'; "
           "object-src 'none'; base-uri 'none'; form-action 'none'")
# Served by ``tcab view`` (as a header, which a <meta> cannot carry): a
# sandbox of its own, so the player opened at top level still has an opaque
# origin, and only the app's own pages may frame it.
_SERVED = "sandbox allow-scripts; frame-ancestors 'self'; "

_LOADER = """
(() => {{
  const bytes = Uint8Array.from(atob("{b64}"), c => c.charCodeAt(0));
  const url = URL.createObjectURL(new Blob([bytes], {{ type: "application/gzip" }}));
  const fetchNetwork = window.fetch.bind(window);
  window.fetch = (input, init) => String(input && input.url || input) === url
    ? Promise.resolve(new Response(bytes, {{ headers: {{ "Content-Type": "application/gzip" }} }}))
    : fetchNetwork(input, init);
  const query = new URLSearchParams(location.search);
  query.set("src", url);
  history.replaceState(null, "", "?" + query.toString() + location.hash);
}})();
"""

_HEAD = re.compile(rb"<head\b[^>]*>", re.IGNORECASE)
# An inline script of the renderer: its text is what the browser hashes
# (an external script, with src=, is not allowed at all).
_SCRIPT = re.compile(rb"<script\b([^>]*)>(.*?)</script\s*>", re.IGNORECASE | re.DOTALL)
_SRC = re.compile(rb"\bsrc\s*=", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class PlayerPage:
    html: bytes
    policy: str   # the Content-Security-Policy header tcab view serves it with


def _hash(script: bytes) -> str:
    # The HTML parser turns CR LF and lone CR into LF before a script is hashed.
    text = script.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return "'sha256-" + base64.b64encode(hashlib.sha256(text).digest()).decode("ascii") + "'"


def player_page(renderer_html: bytes, replay_gz: bytes) -> PlayerPage:
    """``renderer_html`` with ``replay_gz`` (the replay file's bytes) loaded before its
    scripts, under a policy that runs only those scripts and reaches no network."""
    loader = _LOADER.format(b64=base64.b64encode(replay_gz).decode("ascii")).encode()
    hashes = [_hash(loader)] + [_hash(m.group(2)) for m in _SCRIPT.finditer(renderer_html)
                                if not _SRC.search(m.group(1))]
    policy = _POLICY.format(hashes=" ".join(dict.fromkeys(hashes)))
    head = (b'<meta http-equiv="Content-Security-Policy" content="' + policy.encode() + b'">\n'
            b"<script data-tcab-replay>" + loader + b"</script>\n")
    match = _HEAD.search(renderer_html)
    if match is None:
        html = head + renderer_html
    else:
        html = renderer_html[:match.end()] + b"\n" + head + renderer_html[match.end():]
    return PlayerPage(html, _SERVED + policy)


def renderer_path(catalog_dir: Path, case_slug: str, case_version: str) -> Path:
    """The ``[replay].renderer`` file of a case version, resolved physically inside it.

    Raises CatalogError (unknown case or version) or ReplayError (no renderer,
    or one that leaves its version folder).
    """
    from tcab.catalog import resolve_case

    case = resolve_case(catalog_dir, case_slug, case_version, experimental=True)
    if case.section.replay is None:
        raise ReplayError(f"{case.manifest}: [replay].renderer: this case has no renderer")
    root = case.root.resolve()
    path = case.path(case.section.replay.renderer).resolve()
    if not path.is_relative_to(root) or not path.is_file():
        raise ReplayError(f"{case.manifest}: [replay].renderer: {case.section.replay.renderer} is not a file "
                          "inside the version folder")
    return path


def export_replay(replay_file: Path, out: Path, catalog_dir: Path, *,
                  renderer: Path | None = None, max_bytes: int | None = None) -> Path:
    """Write ``out``: the case's renderer playing ``replay_file``, self-contained.

    The replay is read and checked first (``read_replay``: gzip bomb, shape),
    so a broken file never becomes a page. ``renderer`` overrides the case's.
    Raises ReplayError or CatalogError naming the file; ``out`` is written
    atomically (nothing half-written), or to stdout when it is ``-``.
    DestinationRefused (an OSError) when ``out`` exists and is not a regular
    file, or is the replay or the renderer itself (same inode).
    """
    from tcab.arena.replay import read_replay, stored_bytes_limit

    to_stdout = str(out) == "-"
    if not to_stdout:  # before any reading: a device or an input as OUT is refused, never replaced
        refuse_inputs(out, [replay_file, *([renderer] if renderer is not None else [])])
        check_file_target(out)
    doc = read_replay(replay_file, max_bytes=max_bytes)
    header = doc["header"]
    if renderer is None:
        renderer = renderer_path(catalog_dir, header["case"], header["version"])
        if not to_stdout:
            refuse_inputs(out, [renderer])
    try:
        html = read_bytes(renderer, MAX_RENDERER_BYTES, what="renderer page")
        data = read_bytes(replay_file, stored_bytes_limit(max_bytes), what="replay file")
    except OSError as exc:
        raise ReplayError(f"{exc.filename}: cannot read: {exc.strerror or exc}") from exc
    page = player_page(html, data).html
    if to_stdout:
        sys.stdout.buffer.write(page)
        sys.stdout.buffer.flush()
    else:
        write_bytes(out, page)
    return out
