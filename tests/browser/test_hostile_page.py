"""Hostile pages against the real browser check (real Chromium, no container):
each must end in a bounded time with a named check, reach nothing but its
site, and carry no host file content into the checks."""

from __future__ import annotations

import json
import os
import socket
import struct
import tempfile
import threading
import time
from pathlib import Path

import pytest

from tcab.browser.page import View, check_page, png_size
from tcab.errors import BrowserError
from tcab.validation import BrowserLimits

VIEWS = [View("page", 640, 480)]


@pytest.fixture
def own_tmp(tmp_path: Path, monkeypatch) -> Path:
    """Chromium's profile under tmp_path, so the test can find its processes."""
    root = tmp_path / "chromium-tmp"
    root.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(root))
    return root


def _site(tmp_path: Path, index: str, files: dict[str, str] | None = None) -> Path:
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text(index)
    for rel, text in (files or {}).items():
        (site / rel).write_text(text)
    return site


def _check(result, name):
    return next(c for c in result.checks if c.name == name)


def _text(result) -> str:
    return json.dumps([c.to_json() for c in result.checks])


def _live_processes_under(root: Path) -> list[int]:
    """Live processes whose command line names ``root`` (zombies have none)."""
    pids = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if str(root).encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
                pids.append(int(pid))
        except OSError:
            continue
    return pids


class Listener:
    """A TCP and a UDP socket on 127.0.0.1 that record whoever reaches them."""

    def __init__(self) -> None:
        self.tcp = socket.create_server(("127.0.0.1", 0))
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", 0))
        self.tcp_port, self.udp_port = self.tcp.getsockname()[1], self.udp.getsockname()[1]
        self.seen: list[str] = []
        self.tcp.settimeout(0.2)
        self.udp.settimeout(0.2)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        while not self._stop.is_set():
            for sock in (self.tcp, self.udp):
                try:
                    if sock is self.tcp:
                        conn, _ = sock.accept()
                        conn.settimeout(1)
                        try:
                            self.seen.append(f"tcp: {conn.recv(200)!r}")
                        except OSError:
                            self.seen.append("tcp: connected")
                        conn.close()
                    else:
                        self.seen.append(f"udp: {sock.recv(200)!r}")
                except (TimeoutError, OSError):
                    continue

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self.tcp.close()
        self.udp.close()


@pytest.mark.timeout(120)
def test_links_to_host_files_are_not_served_to_the_page(tmp_path, canary) -> None:
    secret_path, secret = canary
    page = """<!doctype html><title>links</title><script>
    for (const p of ['abs', 'esc', 'hostdir/shadow', 'root' + location.pathname.replace(/.*/, '/etc/passwd')])
      fetch(p).then(r => r.text()).then(t => { document.title = t; console.error('got ' + t); });
    </script>"""
    site = _site(tmp_path, page)
    os.symlink(secret_path, site / "abs")
    os.symlink(secret_path.parent, site / "hostdir")
    os.symlink("/", site / "root")
    (site / "d1" / "d2").mkdir(parents=True)
    os.symlink("../../../host", site / "d1" / "d2" / "l")
    os.symlink("d1/d2/l/shadow", site / "esc")
    result = check_page(site, VIEWS, BrowserLimits(settle_s=1.0))
    assert secret not in _text(result)
    errors = _check(result, "errors")
    assert not errors.ok and "404" in errors.detail, errors.detail


@pytest.mark.timeout(180)
def test_nothing_but_the_site_is_reachable(tmp_path, canary) -> None:
    """WebSockets, fetch, EventSource, beacons, iframes, workers, WebRTC, DNS
    prefetch, file:// — to another port of 127.0.0.1 or anywhere else."""
    secret_path, secret = canary
    ear = Listener()
    try:
        tcp, udp = ear.tcp_port, ear.udp_port
        page = f"""<!doctype html><title>reach</title>
        <link rel="dns-prefetch" href="//example.com"><link rel="preconnect" href="http://127.0.0.1:{tcp}">
        <iframe src="http://127.0.0.1:{tcp}/frame"></iframe><iframe src="file://{secret_path}"></iframe>
        <script>
        const hosts = ['127.0.0.1:{tcp}', 'localhost:{tcp}', '[::1]:{tcp}'];
        for (const h of hosts) {{
          try {{ const ws = new WebSocket('ws://' + h + '/x'); ws.onopen = () => ws.send('hello'); }} catch (e) {{}}
          fetch('http://' + h + '/f', {{mode: 'no-cors'}}).catch(() => {{}});
          try {{ new EventSource('http://' + h + '/es'); }} catch (e) {{}}
          try {{ navigator.sendBeacon('http://' + h + '/b', 'x'); }} catch (e) {{}}
        }}
        fetch('file://{secret_path}').then(r => r.text()).then(t => console.error(t)).catch(() => {{}});
        const w = new Worker(URL.createObjectURL(new Blob([
          "new WebSocket('ws://127.0.0.1:{tcp}/w'); fetch('http://127.0.0.1:{tcp}/wf').catch(() => {{}});"])));
        try {{ navigator.serviceWorker.register('sw.js'); }} catch (e) {{}}
        const pc = new RTCPeerConnection({{iceServers: [{{urls: 'stun:127.0.0.1:{udp}'}},
          {{urls: 'turn:127.0.0.1:{tcp}?transport=tcp', username: 'u', credential: 'c'}}]}});
        pc.createDataChannel('d');
        pc.createOffer().then(o => pc.setLocalDescription(o));
        </script>"""
        site = _site(tmp_path, page, {"sw.js": f"fetch('http://127.0.0.1:{tcp}/sw');"})
        result = check_page(site, VIEWS, BrowserLimits(settle_s=3.0))
        time.sleep(0.5)
    finally:
        ear.close()
    assert ear.seen == []
    assert secret not in _text(result)
    errors = _check(result, "errors")
    assert not errors.ok and "blocked" in errors.detail


@pytest.mark.timeout(120)
def test_navigating_to_a_host_file_shows_nothing_of_it(tmp_path, canary) -> None:
    secret_path, secret = canary
    page = f"""<!doctype html><title>nav</title><script>
    window.open('file://{secret_path}');
    setTimeout(() => {{ location.href = 'file://{secret_path}'; }}, 50);
    </script>"""
    result = check_page(_site(tmp_path, page), VIEWS, BrowserLimits(settle_s=1.0))
    assert secret not in _text(result)
    assert not _check(result, "errors").ok


SPINNERS = {
    # The loop starts the moment load fires: Playwright's own calls into the
    # page (title, screenshot) would wait forever without the watchdog.
    "at load": "addEventListener('load', () => { for (;;) {} });",
    # The issue's page: the loop starts 50 ms in, inside the settle wait.
    "after 50 ms": "setTimeout(() => { for (;;) {} }, 50);",
}


@pytest.mark.timeout(120)
@pytest.mark.parametrize("when", sorted(SPINNERS))
def test_a_spinning_page_is_killed_at_the_wall_time(tmp_path, own_tmp, when) -> None:
    page = f"<!doctype html><title>spin</title><script>{SPINNERS[when]}</script>"
    limits = BrowserLimits(settle_s=0.2, screenshot_timeout_s=60, wall_time_s=8)
    started = time.monotonic()
    result = check_page(_site(tmp_path, page), VIEWS, limits)
    took = time.monotonic() - started
    assert took < 8 + 10, took
    timeout = result.checks[-1]
    assert timeout.name == "timeout" and not timeout.ok
    assert "did not finish within 8s" in timeout.detail and "killed" in timeout.detail
    assert result.shots == {}
    assert _live_processes_under(own_tmp) == []


@pytest.mark.timeout(120)
def test_a_page_that_allocates_without_bound_is_killed(tmp_path, own_tmp) -> None:
    # ArrayBuffers live outside V8's heap: only the watchdog bounds them.
    page = """<!doctype html><title>hog</title><script>
    const keep = []; setInterval(() => { const b = new Uint8Array(64 << 20); b.fill(7); keep.push(b); }, 20);
    </script>"""
    limits = BrowserLimits(settle_s=30, max_memory_bytes=1024**3, wall_time_s=60)
    started = time.monotonic()
    result = check_page(_site(tmp_path, page), VIEWS, limits)
    assert time.monotonic() - started < 45
    memory = result.checks[-1]
    assert memory.name == "memory" and not memory.ok and "limit 1073741824" in memory.detail
    assert _live_processes_under(own_tmp) == []


@pytest.mark.timeout(120)
def test_a_thousand_popups_open_nothing(tmp_path, own_tmp) -> None:
    page = """<!doctype html><title>pop</title><script>
    let opened = 0;
    for (let i = 0; i < 1000; i++) if (window.open('index.html?' + i, '_blank')) opened++;
    console.error('opened ' + opened);
    </script>"""
    started = time.monotonic()
    result = check_page(_site(tmp_path, page), VIEWS, BrowserLimits(settle_s=1.0, wall_time_s=60))
    assert time.monotonic() - started < 60
    errors = _check(result, "errors")
    assert not errors.ok and "opened 0" in errors.detail, errors.detail
    assert "page" in result.shots


@pytest.mark.timeout(240)
def test_a_gigabyte_of_console_errors_keeps_a_few(tmp_path) -> None:
    page = """<!doctype html><title>spam</title><script>
    const line = 'E'.repeat(1 << 20);
    for (let i = 0; i < 1024; i++) console.error(i + line);
    </script>"""
    started = time.monotonic()
    result = check_page(_site(tmp_path, page), VIEWS, BrowserLimits(settle_s=0.5, wall_time_s=150))
    assert time.monotonic() - started < 180
    text = _text(result)
    assert len(text) < 8000
    last = result.checks[-1]
    # The page got through its gigabyte and the errors are summarised, or its
    # load (the script runs before load fires) or the wall time ran out: bounded, named.
    assert not last.ok and last.name in ("errors", "load", "timeout"), last
    if last.name == "errors":
        assert "more)" in last.detail


def test_limits_must_be_finite_and_positive() -> None:
    for field in ("load_timeout_s", "screenshot_timeout_s", "wall_time_s"):
        for bad in (float("nan"), float("inf"), 0, -1, "5", True):
            with pytest.raises(BrowserError, match=f"browser limit {field}: expected a finite positive"):
                BrowserLimits(**{field: bad})
    for field in ("max_memory_bytes", "js_heap_mb", "max_file_bytes"):
        for bad in (1.5, 0, -3, float("nan")):
            with pytest.raises(BrowserError, match=f"browser limit {field}: expected a positive integer"):
                BrowserLimits(**{field: bad})
    with pytest.raises(BrowserError, match="settle_s: expected a finite number >= 0, got nan"):
        BrowserLimits(settle_s=float("nan"))
    assert BrowserLimits(settle_s=0).settle_s == 0


def test_a_giant_reference_size_falls_back_to_the_default_viewport(tmp_path) -> None:
    huge = tmp_path / "huge.png"
    huge.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0\0\0\rIHDR" + struct.pack(">II", 100000, 100000) + b"\0" * 100)
    assert png_size(huge) is None
    ok = tmp_path / "ok.png"
    ok.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0\0\0\rIHDR" + struct.pack(">II", 4096, 300))
    assert png_size(ok) == (4096, 300)
