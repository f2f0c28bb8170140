"""The site server against hostile trees and hostile requests (raw HTTP, no browser)."""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path

import pytest

from tcab.browser.site_server import serve_site


def _get(port: int, target: bytes, method: bytes = b"GET") -> tuple[int, bytes]:
    """Send one raw request line (bytes as given, nothing normalised); (status, whole answer)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(method + b" " + target + b" HTTP/1.0\r\nHost: x\r\n\r\n")
        data = b""
        while chunk := conn.recv(65536):
            data += chunk
    return int(data.split(b" ", 2)[1]), data


def test_only_regular_files_inside_are_served(tmp_path: Path, canary) -> None:
    secret_path, secret = canary
    site = tmp_path / "site"
    (site / "sub").mkdir(parents=True)
    (site / "index.html").write_text("<title>ok</title>")
    (site / "sub" / "a.js").write_text("let a = 1;")
    (site / "nolist").mkdir()
    (site / "nolist" / "x.txt").write_text("x")
    # Links every which way to the host file: direct, relative, through a folder
    # link, a chain whose lexical normal form stays inside.
    os.symlink(secret_path, site / "abs")
    os.symlink("../host/shadow", site / "rel")
    os.symlink(secret_path.parent, site / "hostdir")
    os.symlink("/", site / "root")
    deep = site / "d1" / "d2"
    deep.mkdir(parents=True)
    os.symlink("../../../host", deep / "l")
    os.symlink("d1/d2/l/shadow", site / "esc")
    os.symlink("index.html", site / "inner")          # even a link inside is not followed
    os.link(secret_path, site / "hard")                # a second name of the host file's inode
    os.mkfifo(site / "fifo")                           # would block a reader forever
    (site / "big.bin").write_bytes(b"\0" * 2048)

    with serve_site(site, max_file_bytes=1024) as (url, port):
        assert url == f"http://127.0.0.1:{port}/"
        status, body = _get(port, b"/")
        assert status == 200 and body.endswith(b"<title>ok</title>")
        assert b"Content-Security-Policy: connect-src 'self' data: blob:;" in body
        assert _get(port, b"/index.html")[0] == 200
        assert _get(port, b"/sub/a.js")[0] == 200
        status, head = _get(port, b"/sub/a.js", b"HEAD")
        assert status == 200 and b"Content-Length: 10" in head and not head.endswith(b"let a = 1;")
        started = time.monotonic()
        refused = {
            b"/abs": 404, b"/rel": 404, b"/hostdir/shadow": 404, b"/root/etc/passwd": 404, b"/esc": 404,
            b"/d1/d2/l/shadow": 404, b"/inner": 404, b"/hard": 404, b"/fifo": 404, b"/nolist/": 404,
            b"/nolist": 404, b"/sub": 404, b"/missing": 404, b"/big.bin": 413,
            b"/../host/shadow": 400, b"/sub/../../host/shadow": 400, b"/%2e%2e/host/shadow": 400,
            b"/sub/%2e%2e%2f%2e%2e%2fhost/shadow": 400, b"/hostdir%2fshadow": 400, b"/sub%5ca.js": 400,
            b"/index.html%00.png": 400, b"/%ff": 400, b"/./index.html": 400, b"/sub//a.js": 400,
            b"/" + b"a" * 2000: 414, b"/a" * 100: 400, b"http://127.0.0.1/../host/shadow": 400,
        }
        for target, code in refused.items():
            status, body = _get(port, target)
            assert status == code, (target, status)
            assert secret.encode() not in body, target
        assert time.monotonic() - started < 10  # the FIFO did not block a thread
        for method in (b"POST", b"PUT", b"DELETE", b"OPTIONS"):
            assert _get(port, b"/index.html", method)[0] == 405
    # The server is gone with its context.
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=2)


def test_a_site_folder_that_is_a_link_is_refused(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    os.symlink(tmp_path / "real", tmp_path / "site")
    with pytest.raises(OSError), serve_site(tmp_path / "site", max_file_bytes=1024):
        pass
