"""Rendering HTML mockups in the real, fenced Chromium: sizes, fences, failures."""

from __future__ import annotations

import io
import os
import socket
import threading
from pathlib import Path

import pytest
from PIL import Image

from tcab.browser import chromium
from tcab.browser.mockup import MockupLimits, MockupSession, viewport_of
from tcab.browser.mockup_cache import MockupCache
from tcab.catalog import load_version
from tcab.errors import BrowserError, SeedError
from tcab.seeding.plan import plan_seed
from tests.support.paths import CATALOG_FIXTURES

STYLE = "body { margin: 0; background: rgb(10, 200, 30); }"


def _size(png: bytes) -> tuple[int, int]:
    image = Image.open(io.BytesIO(png))
    image.load()  # decodes the whole image: a truncated PNG fails here
    assert image.format == "PNG"
    return image.size


def _folder(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "v1.0.0"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


class Listener:
    """A real TCP listener on 127.0.0.1 that records every connection it accepts."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.accepted += 1
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self.sock.close()


@pytest.fixture
def listener():
    found = Listener()
    yield found
    found.close()


@pytest.mark.timeout(120)
def test_default_and_meta_sizes_and_what_was_loaded(tmp_path):
    root = _folder(tmp_path, {
        "reference/theme.css": STYLE,
        "reference/plain.html": '<!doctype html><link rel="stylesheet" href="theme.css"><p>plain</p>',
        "reference/sized.html": '<!doctype html><meta name="viewport" content="width=640, height=480">'
                                '<link rel="stylesheet" href="theme.css?v=2"><p>sized</p>',
        "reference/device.html": '<meta name="viewport" content="width=device-width, height=300">',
    })
    with MockupSession(root) as session:
        plain = session.render(root / "reference/plain.html")
        sized = session.render(root / "reference/sized.html")
        device = session.render(root / "reference/device.html")
        assert session.browser_starts == 1  # one browser for the whole session
    assert _size(plain.png) == (1280, 720)
    assert _size(sized.png) == (640, 480)
    assert _size(device.png) == (1280, 300)
    # The stylesheet applied: the page is the style's green.
    assert Image.open(io.BytesIO(plain.png)).convert("RGB").getpixel((1200, 700)) == (10, 200, 30)
    assert plain.loaded == {"reference/plain.html", "reference/theme.css"}
    assert sized.loaded == {"reference/sized.html", "reference/theme.css"}


def test_viewport_meta_out_of_bounds_names_the_file():
    with pytest.raises(BrowserError, match=r"ref/big\.html: <meta name=\"viewport\"> width=5000: expected 1 to 4096"):
        viewport_of('<meta name="viewport" content="width=5000,height=10">', "ref/big.html", 4096)
    with pytest.raises(BrowserError, match="height=0"):
        viewport_of('<meta name="VIEWPORT" content="height=0">', "x.html", 4096)
    assert viewport_of("<p>no meta</p>", "x.html", 4096) == (1280, 720)


@pytest.mark.parametrize("field,value", [("timeout_s", 0), ("timeout_s", float("inf")),
                                         ("max_viewport", 1.5), ("settle_s", -1), ("timeout_s", True)])
def test_bad_limits_are_refused_naming_the_field(field, value):
    with pytest.raises(BrowserError, match=f"mockup limit {field}: expected"):
        MockupLimits(**{field: value})


@pytest.mark.timeout(120)
def test_requests_outside_the_folder_are_blocked_and_fail_the_render(tmp_path, listener, canary):
    secret_path, secret = canary
    root = _folder(tmp_path, {
        "ref/port.html": f'<!doctype html><img src="http://127.0.0.1:{listener.port}/x.png">'
                         f'<script>fetch("http://127.0.0.1:{listener.port}/api").catch(() => 0);'
                         f'new WebSocket("ws://127.0.0.1:{listener.port}/ws");</script>',
        "ref/file.html": f'<!doctype html><iframe src="file://{secret_path}"></iframe>',
        "ref/link.html": '<!doctype html><script>fetch("secret.txt").then(r => r.text())'
                         '.then(t => document.title = t)</script>',
        "ref/dns.html": '<!doctype html><link rel="stylesheet" href="https://fonts.example.com/x.css">',
        "ref/up.html": '<!doctype html><link rel="stylesheet" href="../../host/shadow">',
    })
    os.symlink(secret_path, root / "ref/secret.txt")  # a link out of the folder: never served
    with MockupSession(root, MockupLimits()) as session:
        with pytest.raises(BrowserError) as port:
            session.render(root / "ref/port.html")
        with pytest.raises(BrowserError) as file:
            session.render(root / "ref/file.html")
        with pytest.raises(BrowserError) as link:
            session.render(root / "ref/link.html")
        with pytest.raises(BrowserError) as dns:
            session.render(root / "ref/dns.html")
        with pytest.raises(BrowserError) as up:
            session.render(root / "ref/up.html")
    assert listener.accepted == 0
    assert str(port.value).startswith(str(root / "ref/port.html") + ": the mockup ")
    assert f"requested http://127.0.0.1:{listener.port}/x.png outside the case folder (blocked)" in str(port.value)
    assert "file.html" in str(file.value) and "outside the case folder" in str(file.value)
    assert "ref/link.html" in str(link.value) and "ref/secret.txt answered 404" in str(link.value)
    assert "https://fonts.example.com/x.css outside the case folder" in str(dns.value)
    # ../ cannot climb out of the served folder: the URL is normalised to a missing file.
    assert "host/shadow answered 404" in str(up.value)
    for info in (port, file, link, dns, up):
        assert secret not in str(info.value)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("name,html,expected", [
    ("throws.html", "<!doctype html><script>throw new Error('mockup-bug-42')</script>", "threw mockup-bug-42"),
    ("late.html", "<!doctype html><script>setTimeout(() => { throw new Error('late-7') }, 10)</script>",
     "threw late-7"),
    ("missing.html", '<!doctype html><img src="img/nope.png">', "img/nope.png answered 404"),
    ("loop.html", "<!doctype html><script>for (;;) {}</script>", "did not render within 4s"),
])
def test_a_broken_mockup_is_an_error_naming_it(tmp_path, name, html, expected):
    root = _folder(tmp_path, {f"mockups/{name}": html})
    # A short bound only where the page never finishes: a loaded machine needs more.
    timeout = 4 if name == "loop.html" else 20
    with MockupSession(root, MockupLimits(timeout_s=timeout)) as session:
        with pytest.raises(BrowserError) as info:
            session.render(root / "mockups" / name)
    message = str(info.value)
    assert message.startswith(f"{root / 'mockups' / name}: ")
    assert expected in message
    assert "Traceback" not in message


@pytest.mark.timeout(60)
def test_a_mockup_outside_the_folder_or_too_big_is_refused_before_a_browser_starts(tmp_path):
    root = _folder(tmp_path, {"a.html": "x" * 2000})
    (tmp_path / "out.html").write_text("<p>out</p>")
    with MockupSession(root, MockupLimits(max_file_bytes=1000)) as session:
        with pytest.raises(BrowserError, match="must lie inside its case version folder"):
            session.render(tmp_path / "out.html")
        with pytest.raises(BrowserError, match=r"a\.html: the mockup is 2000 bytes \(limit 1000\)"):
            session.render(root / "a.html")
        assert session.browser_starts == 0


def test_without_a_browser_the_cache_raises_the_toolkits_error_and_seeding_names_it_its_own(tmp_path, monkeypatch):
    monkeypatch.setattr(chromium, "CHROMIUM", str(tmp_path / "no-such-chromium"))
    root = _folder(tmp_path, {"ref/a.html": f"<style>{STYLE}</style>"})
    with MockupCache(root, tmp_path / "cache") as render, pytest.raises(BrowserError) as raised:
        render(root / "ref/a.html")
    assert not isinstance(raised.value, SeedError)
    assert "ref/a.html: cannot render the mockup:" in str(raised.value)

    case, problems = load_version(next((CATALOG_FIXTURES / "mockups").rglob("test-case.toml")).parent)
    assert not problems, problems
    with (MockupCache(case.root, tmp_path / "cache2") as render,
          pytest.raises(SeedError, match="cannot render the mockup")):
        plan_seed(case, case.variant(), render_mockup=render)


@pytest.mark.timeout(20)
def test_a_forged_cache_entry_is_a_miss_not_a_hang(tmp_path):
    # A restored build/ is input (issue 21 item 8): a shot or record that is a FIFO or a link is not read.
    import json
    import os

    from tcab.browser.mockup_cache import MockupCache

    root = tmp_path / "case"
    root.mkdir()
    (root / "m.html").write_text("<p>x</p>")
    cache = MockupCache(root, tmp_path / "cache")
    sha = cache.reader.sha256("m.html")
    key_dir = tmp_path / "cache" / "k"
    (key_dir / "a").mkdir(parents=True)
    (key_dir / "a" / "loaded.json").write_text(json.dumps({"files": {"m.html": sha}, "png_sha256": "0" * 64}))
    os.mkfifo(key_dir / "a" / "shot.png")
    (key_dir / "b").mkdir()
    os.mkfifo(key_dir / "b" / "loaded.json")
    (key_dir / "c").mkdir()
    (key_dir / "c" / "loaded.json").symlink_to(key_dir / "a" / "loaded.json")
    (key_dir / "c" / "shot.png").symlink_to("/dev/zero")
    assert cache._lookup(key_dir) is None
