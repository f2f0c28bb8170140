"""Serve a built site on 127.0.0.1 without ever leaving its folder.

The output folder is what a run built: hostile. ``http.server``'s
``SimpleHTTPRequestHandler`` follows symlinks (a link to ``/etc/shadow``
would be served), lists folders and reads any file whole. This server
answers only ``GET``/``HEAD`` for a *regular file physically inside* the
folder: every path component is opened relative to its parent's descriptor
with ``O_NOFOLLOW`` (a symlink anywhere on the way is ``404``), the file must
be regular with a single hard link, at most ``max_file_bytes`` (``413``).
A request with ``..``, ``.``, an empty component, an encoded slash or
backslash, a NUL, bytes that are not UTF-8 or over ``MAX_PATH_CHARS``
characters is refused (``400``); folders are never listed (``/`` and
``dir/`` mean their ``index.html``). Every answer carries a Content Security
Policy that lets the page talk to this origin only (``connect-src 'self'``),
one of several fences around the page (docs/validation.md).
"""

from __future__ import annotations

import http.server
import mimetypes
import os
import stat
import threading
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

MAX_PATH_CHARS = 1024
MAX_COMPONENTS = 64
CHUNK = 64 * 1024
REQUEST_TIMEOUT_S = 10  # a page that opens a socket and says nothing holds a thread only this long
# Scripts may connect only to this origin; other loads (images, frames) are
# left to the browser's fences, which name what they blocked.
CSP = "connect-src 'self' data: blob:; object-src 'none'; base-uri 'self'"


class Refused(Exception):
    """The request is not for a servable file; ``code`` is the HTTP status."""

    def __init__(self, code: int, reason: str):
        super().__init__(reason)
        self.code = code


def request_components(raw: str) -> list[str]:
    """The path components of a request target, or ``Refused(400)``.

    The target is split before percent-decoding, so ``%2f`` can never make
    a separator, and each decoded component is checked on its own.
    """
    if len(raw) > MAX_PATH_CHARS:
        raise Refused(414, "path too long")
    path = raw.split("?", 1)[0].split("#", 1)[0]
    if not path.startswith("/"):
        raise Refused(400, "not an absolute path")
    parts = path[1:].split("/")
    if len(parts) > MAX_COMPONENTS:
        raise Refused(400, "too many components")
    if parts[-1] == "":
        parts[-1] = "index.html"
    names = []
    for part in parts:
        try:
            name = urllib.parse.unquote_to_bytes(part).decode("utf-8", errors="strict")
        except UnicodeDecodeError:
            raise Refused(400, "not UTF-8") from None
        if name in ("", ".", "..") or any(c in name for c in "/\\\0"):
            raise Refused(400, "a component that is empty, a dot, or holds a slash or NUL")
        names.append(name)
    return names


def open_inside(root_fd: int, names: list[str]) -> int:
    """A read descriptor for the regular file ``names`` below ``root_fd``,
    never following a link; ``Refused(404)`` otherwise."""
    fd = os.dup(root_fd)
    try:
        for i, name in enumerate(names):
            last = i == len(names) - 1
            flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | (os.O_NONBLOCK if last else os.O_DIRECTORY)
            try:
                child = os.open(name, flags, dir_fd=fd)
            except OSError:  # ELOOP for a link, ENOTDIR, ENOENT, EACCES: all "not here"
                raise Refused(404, "not found") from None
            os.close(fd)
            fd = child
        info = os.fstat(fd)
        # A FIFO or device would block or read forever; a second hard link
        # could be a host file's inode (collection refuses them; belt and braces).
        if not stat.S_ISREG(info.st_mode) or info.st_nlink != 1:
            raise Refused(404, "not a regular file")
        return fd
    except BaseException:
        os.close(fd)
        raise


class SiteHandler(http.server.BaseHTTPRequestHandler):
    """Answers from ``server.root_fd``; see the module docstring."""

    server_version = "tcab-site"
    sys_version = ""
    timeout = REQUEST_TIMEOUT_S

    def log_message(self, *args) -> None:  # the terminal is the caller's
        pass

    def do_GET(self) -> None:
        self._answer(body=True)

    def do_HEAD(self) -> None:
        self._answer(body=False)

    def _refuse(self, code: int) -> None:
        self.send_response(code)
        self.send_header("Content-Length", "0")
        self.send_header("Content-Security-Policy", CSP)
        self.end_headers()

    def _answer(self, body: bool) -> None:
        try:
            names = request_components(self.path)
            fd = open_inside(self.server.root_fd, names)
        except Refused as exc:
            self._refuse(exc.code)
            return
        with os.fdopen(fd, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size > self.server.max_file_bytes:
                self._refuse(413)
                return
            kind = mimetypes.guess_type(names[-1])[0] or "application/octet-stream"
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(size))
            self.send_header("Content-Security-Policy", CSP)
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            left = size if body else 0
            while left > 0:  # never more than the size announced, even if the file grew
                chunk = fh.read(min(CHUNK, left))
                if not chunk:
                    break
                self.wfile.write(chunk)
                left -= len(chunk)

    def _not_allowed(self) -> None:
        self._refuse(405)

    do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_CONNECT = do_TRACE = _not_allowed


class SiteServer(http.server.ThreadingHTTPServer):
    # Request threads are joined on close, before the root descriptor is:
    # a late thread must never use a closed (or reused) descriptor number.
    daemon_threads = False
    block_on_close = True

    def __init__(self, root_fd: int, max_file_bytes: int):
        self.root_fd = root_fd
        self.max_file_bytes = max_file_bytes
        super().__init__(("127.0.0.1", 0), SiteHandler)


@contextmanager
def serve_site(folder: Path, max_file_bytes: int) -> Iterator[tuple[str, int]]:
    """Serve ``folder`` on 127.0.0.1 (a free port); yield (base URL, port).

    ``folder`` itself must be a real folder, not a link to one.
    """
    root_fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        server = SiteServer(root_fd, max_file_bytes)
        thread = threading.Thread(target=server.serve_forever, name="tcab-site", daemon=True)
        thread.start()
        try:
            port = server.server_address[1]
            yield f"http://127.0.0.1:{port}/", port
        finally:
            server.shutdown()
            server.server_close()
    finally:
        os.close(root_fd)
