"""The watcher's page: loopback only, its own Host only, a strict CSP, and
each frame's newest image with its op and count (polled by its script).
The page itself is looked at in headless Chromium (tests/browser's
chromium) by test_the_page_shows_frames_as_they_arrive."""

from __future__ import annotations

import http.client
import json
import socket

import pytest

from tcab.watch import Watch
from tests.watch.wire import header, png, send, wait_for


def _get(port: int, path: str, host: str | None = None) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    conn.request("GET", path, headers={"Host": host or f"127.0.0.1:{port}"})
    return conn.getresponse()


@pytest.fixture
def watched():
    watch = Watch()
    url = watch.start_page()
    run = watch.listener("127.0.0.1", "run-a")
    run._listener.start()
    yield watch, url, run
    run.close()
    watch.close()


def test_the_page_serves_frames_with_a_strict_policy(watched) -> None:
    watch, url, run = watched
    port = watch.page.port
    assert url == f"http://127.0.0.1:{port}/"
    body = png(4, 4)
    send(run.address, header(run.live.token, body, frame=3, op="flood-fill", count=12) + body)
    wait_for(lambda: watch.board.accepted == 1)
    page = _get(port, "/")
    csp = page.getheader("Content-Security-Policy")
    assert page.status == 200 and "script-src 'self'" in csp and "default-src 'none'" in csp
    assert "unsafe-inline" not in csp and b"<script src=\"/watch.js\">" in page.read()
    state = json.loads(_get(port, "/state").read())
    [shown] = state["frames"]
    assert (shown["frame"], shown["op"], shown["count"], shown["run"]) == (3, "flood-fill", 12, "run-a")
    image = _get(port, f"/frames/{shown['seq']}.png")
    assert image.read() == body and image.getheader("Content-Security-Policy") == "sandbox"
    assert image.getheader("X-Content-Type-Options") == "nosniff"
    assert _get(port, "/frames/999.png").status == 404
    assert _get(port, "/watch.js").getheader("Content-Type") == "text/javascript"
    assert run.live.token not in json.dumps(state)  # the page never shows the token


def test_the_page_answers_its_own_host_only_and_listens_on_loopback(watched) -> None:
    watch, _, _ = watched
    port = watch.page.port
    assert _get(port, "/state", host="evil.example:80").status == 421  # a rebound name
    assert _get(port, "/state", host=f"localhost:{port}").status == 200
    assert watch.page._server.server_address[0] == "127.0.0.1"
    other = [a for a in {i[4][0] for i in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)}
             if not a.startswith("127.")]
    for address in other[:1]:  # the host's own non-loopback address, if it has one
        with pytest.raises(OSError):
            socket.create_connection((address, port), timeout=2)


@pytest.mark.timeout(120)
def test_the_page_shows_frames_as_they_arrive(watched, tmp_path) -> None:
    """Headless Chromium on the page: a frame sent after the page loaded shows
    up with its op and count, and a newer one of the same frame replaces it;
    the page's script runs under its CSP without a violation."""
    from playwright.sync_api import sync_playwright

    watch, url, run = watched
    first, second = png(6, 4, b"\x00\xff\x00\xff"), png(6, 4, b"\x00\x00\xff\xff")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium")
        try:
            page = browser.new_page()
            problems: list[str] = []
            page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
            page.goto(url)
            send(run.address, header(run.live.token, first, frame=0, op="set-pixel", count=1) + first)
            page.wait_for_selector("figcaption", timeout=10_000)
            assert page.inner_text("figcaption") == "frame 0 · set-pixel · op 1 · 6×4"
            send(run.address, header(run.live.token, second, frame=0, op="line", count=2) + second)
            # A locator, not wait_for_function: the page's CSP forbids evaluating strings.
            page.locator("figcaption", has_text="op 2").wait_for(timeout=10_000)
            assert page.locator("figure").count() == 1
            assert page.eval_on_selector("img", "i => i.complete && i.naturalWidth") == 6
            page.screenshot(path=str(tmp_path / "watch.png"))
            assert "2 frames received" in page.inner_text("#counts")
            assert problems == [], problems
        finally:
            browser.close()
