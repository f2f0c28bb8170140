"""The watcher's page: a loopback-only HTTP server over a watch's board.

``tcab run --watch`` prints its URL. It binds 127.0.0.1 only and answers
only requests whose ``Host`` is that address (or ``localhost``) with its own
port, so a web page the watcher has open elsewhere cannot rebind a name to
it and read the frames. The page runs one script of its own (no inline
script: the CSP allows ``'self'`` only) that polls ``/state`` and shows each
frame's newest image, ``/frames/<seq>.png``, served with ``sandbox`` and
``nosniff``. A voxel run's frame also carries its mesh, ``/meshes/<seq>.glb``:
a second script of its own (``turn.js``, a module) turns it with three.js,
served from tcab's pinned npm copy (``/web3d/three.module.js``,
:mod:`tcab.web3d`), nothing from the network. Standard library only: it
lives as long as one run or sweep.
"""

from __future__ import annotations

import http.server
import json
import re
import threading
from importlib import resources

from tcab.watch.board import Board

PAGE_CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
            "base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
_FRAME = re.compile(r"/frames/(\d{1,12})\.png\Z")
_MESH = re.compile(r"/meshes/(\d{1,12})\.glb\Z")
_HTML = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>tcab watch</title>
<link rel="stylesheet" href="/watch.css"></head>
<body><h1>tcab watch</h1><p id="counts">waiting for the first frame…</p>
<div id="frames"></div><script src="/watch.js"></script><script type="module" src="/turn.js"></script></body></html>
"""


def _static(name: str) -> bytes:
    return resources.files("tcab.watch").joinpath("static", name).read_bytes()


def _three() -> bytes | None:
    """three.js's module build (None when `make node-deps` has not installed it:
    the page then shows the PNGs alone)."""
    from tcab.web3d import LibraryMissing, library_file

    try:
        path = library_file("three.module.js")
        return None if path is None else path.read_bytes()
    except (LibraryMissing, OSError):
        return None


class Page:
    """Serves ``board`` on ``127.0.0.1:port`` (0: a free port) in a thread."""

    def __init__(self, board: Board, port: int = 0) -> None:
        self.board = board
        assets = {"/watch.js": ("text/javascript", _static("watch.js")),
                  "/turn.js": ("text/javascript", _static("turn.js")),
                  "/watch.css": ("text/css", _static("watch.css")),
                  "/": ("text/html; charset=utf-8", _HTML.encode()),
                  "/favicon.ico": ("image/x-icon", b"")}  # the browser asks; an empty one, not a 404
        page = self

        class Handler(http.server.BaseHTTPRequestHandler):
            server_version = "tcab-watch"
            sys_version = ""

            def log_message(self, *args) -> None:  # the run's own output is the console's
                pass

            def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
                host = self.headers.get("Host", "")
                if host not in page.hosts:
                    self._send(421, "text/plain", b"wrong host\n")
                    return
                path = self.path.split("?", 1)[0]
                if path in assets:
                    media, data = assets[path]
                    self._send(200, media, data, PAGE_CSP)
                elif path == "/state":
                    self._send(200, "application/json", json.dumps(page.board.state()).encode())
                elif (m := _FRAME.match(path)) and (png := page.board.image(int(m.group(1)))) is not None:
                    self._send(200, "image/png", png, "sandbox")
                elif (m := _MESH.match(path)) and (glb := page.board.mesh(int(m.group(1)))) is not None:
                    self._send(200, "model/gltf-binary", glb, "sandbox")
                elif path == "/web3d/three.module.js" and (three := _three()) is not None:
                    self._send(200, "text/javascript", three, PAGE_CSP)
                else:
                    self._send(404, "text/plain", b"not found\n")

            def _send(self, status: int, media: str, data: bytes, csp: str = "default-src 'none'") -> None:
                self.send_response(status)
                self.send_header("Content-Type", media)
                self.send_header("Content-Length", str(len(data)))
                self.send_header("Content-Security-Policy", csp)
                self.send_header("X-Content-Type-Options", "nosniff")
                self.send_header("Cache-Control", "no-store")
                self.send_header("Referrer-Policy", "no-referrer")
                self.end_headers()
                self.wfile.write(data)

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self.hosts = (f"127.0.0.1:{self.port}", f"localhost:{self.port}")
        self._thread = threading.Thread(target=self._server.serve_forever, name="tcab-watch-page", daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def start(self) -> Page:
        self._thread.start()
        return self

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> Page:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.close()
