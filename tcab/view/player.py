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
import re
import sys
from pathlib import Path

from tcab.atomic import check_file_target, refuse_inputs, write_bytes
from tcab.errors import ReplayError
from tcab.reading import read_bytes

#: The largest renderer page read (a case's renderer is a few KiB; ``--renderer`` names any file).
MAX_RENDERER_BYTES = 16 * 1024 * 1024

# The replay's fields the renderer reads come from hostile bots and builds;
# this policy lets the page run its own inline code and read the blob it
# made, and nothing else: no request leaves the page.
PLAYER_CSP = ("default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
              "img-src data: blob:; connect-src blob: data:; font-src data:; base-uri 'none'; "
              "form-action 'none'")

_LOADER = """<script data-tcab-replay>
(() => {{
  const bytes = Uint8Array.from(atob("{b64}"), c => c.charCodeAt(0));
  const url = URL.createObjectURL(new Blob([bytes], {{ type: "application/gzip" }}));
  const query = new URLSearchParams(location.search);
  query.set("src", url);
  history.replaceState(null, "", "?" + query.toString() + location.hash);
}})();
</script>
"""

_HEAD = re.compile(rb"<head\b[^>]*>", re.IGNORECASE)


def player_page(renderer_html: bytes, replay_gz: bytes) -> bytes:
    """``renderer_html`` with ``replay_gz`` (the replay file's bytes) loaded before its scripts."""
    loader = _LOADER.format(b64=base64.b64encode(replay_gz).decode("ascii")).encode()
    match = _HEAD.search(renderer_html)
    if match is None:
        return loader + renderer_html
    return renderer_html[:match.end()] + b"\n" + loader + renderer_html[match.end():]


def renderer_path(catalog_dir: Path, case_slug: str, case_version: str) -> Path:
    """The ``[replay].renderer`` file of a case version, resolved physically inside it.

    Raises CatalogError (unknown case or version) or ReplayError (no renderer,
    or one that leaves its version folder).
    """
    from tcab.catalog import resolve_case

    case = resolve_case(catalog_dir, case_slug, case_version, experimental=True)
    if case.replay is None:
        raise ReplayError(f"{case.manifest}: [replay].renderer: this case has no renderer")
    root = case.root.resolve()
    path = case.path(case.replay.renderer).resolve()
    if not path.is_relative_to(root) or not path.is_file():
        raise ReplayError(f"{case.manifest}: [replay].renderer: {case.replay.renderer} is not a file "
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
    page = player_page(html, data)
    if to_stdout:
        sys.stdout.buffer.write(page)
        sys.stdout.buffer.flush()
    else:
        write_bytes(out, page)
    return out
