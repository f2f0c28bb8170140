"""Pages that show run- or replay-derived data reach no network (issue 21, item 4).

A replay's participant label and forfeit detail, a run's harness and model,
a seat's label: all of it comes from hostile bots and builds. Each page tcab
writes or serves (``tcab replay export``, ``tcab report --html`` and its
replay pages, every page of ``tcab view``, its player framed and opened at
top level) is opened in Chromium with markup planted in that data: a script
that fetches, loads images, navigates, opens windows and WebRTC (STUN, and
TURN over TCP) towards a listener on another 127.0.0.1 port. Nothing may
arrive there, no planted script may run, and the planted text is shown as
text.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import shutil
import socket
import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.settings import run_tcab, tmp_settings
from tests.support.view_server import view_server
from tests.view.conftest import RUN_ID, TOURNAMENT, wait_for_player


class Listener:
    """A TCP and a UDP socket on one 127.0.0.1 port, recording whatever arrives."""

    def __init__(self):
        self.tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.tcp.bind(("127.0.0.1", 0))
        self.tcp.listen(64)
        self.port = self.tcp.getsockname()[1]
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", self.port))
        self.seen: list[str] = []
        self.stop = False
        for target in (self._accept, self._receive):
            threading.Thread(target=target, daemon=True).start()

    def _accept(self):
        self.tcp.settimeout(0.2)
        while not self.stop:
            try:
                conn, _ = self.tcp.accept()
            except OSError:
                continue
            conn.settimeout(1)
            try:
                self.seen.append("tcp " + conn.recv(200).decode("latin-1").split("\r\n", 1)[0])
            except OSError:
                self.seen.append("tcp (connected)")
            conn.close()

    def _receive(self):
        self.udp.settimeout(0.2)
        while not self.stop:
            try:
                data, _ = self.udp.recvfrom(2048)
            except OSError:
                continue
            self.seen.append(f"udp {len(data)} bytes")

    def close(self):
        self.stop = True
        time.sleep(0.3)
        self.tcp.close()
        self.udp.close()


def _payload(port: int) -> str:
    base = f"http://127.0.0.1:{port}"
    js = ("document.title='owned';window.top.document.title='owned';"
          f"fetch('{base}/fetch').catch(()=>0);new Image().src='{base}/img';"
          "try{const pc=new RTCPeerConnection({iceServers:[{urls:'stun:127.0.0.1:%d'},"
          "{urls:'turn:127.0.0.1:%d?transport=tcp',username:'u',credential:'c'}]});"
          "pc.createDataChannel('x');pc.createOffer().then(o=>pc.setLocalDescription(o));window.pc=pc}catch(e){}"
          f"try{{window.open('{base}/open')}}catch(e){{}}"
          f"setTimeout(()=>{{location='{base}/location'}},300)") % (port, port)
    return (f'<img src=x onerror="{js}"><script>{js}</script>'
            f'<iframe src="{base}/frame"></iframe><link rel=stylesheet href="{base}/css">'
            f'<meta http-equiv="refresh" content="0;url={base}/refresh"><b>BOLD</b>')


def _hostile_replay(source: Path, out: Path, payload: str) -> Path:
    doc = json.loads(gzip.decompress(source.read_bytes()))
    for seat in doc["header"]["seats"]:
        seat["name"] = payload
    doc["forfeits"] = [{"seat": 0, "tick": len(doc["ticks"]), "reason": payload, "detail": payload}]
    out.write_bytes(gzip.compress(json.dumps(doc).encode()))
    return out


@pytest.fixture
def listener() -> Iterator[Listener]:
    lst = Listener()
    yield lst
    lst.close()


@pytest.fixture
def hostile_results(demo, tmp_path, listener):
    """Settings over a copy of the demo results where every label, name and reason is the payload."""
    settings, facts = demo
    (tmp_path / "hostile").mkdir()
    copy = tmp_settings(tmp_path / "hostile")
    shutil.copytree(settings.results_dir, copy.results_dir, symlinks=True)
    payload = _payload(listener.port)
    key = facts["matches"][0]["key"]
    with sqlite3.connect(copy.results_db) as conn:
        replay_path = conn.execute("SELECT replay_path FROM matches WHERE key = ?", [key]).fetchone()[0]
        source = Path(replay_path) if Path(replay_path).is_absolute() else copy.results_dir / replay_path
        source = Path(str(source).replace(str(settings.results_dir), str(copy.results_dir)))
        replay = _hostile_replay(source, copy.results_dir / "hostile.json.gz", payload)
        conn.execute("UPDATE matches SET replay_path = ?, reason = ? WHERE key = ?", [str(replay), payload, key])
        conn.execute("UPDATE match_seats SET label = ?, forfeit_reason = ?", [payload, payload])
        conn.execute("UPDATE ratings SET label = ? || rowid", [payload])
        conn.execute("UPDATE runs SET harness = ?, model = ?, status_detail = ?", [payload, payload, payload])
        conn.execute("UPDATE stages SET detail = ?", [payload])
    return copy, key, replay, payload


def _visit(browser, url: str, listener: Listener, wait_ms: int = 2500):
    """Open ``url``, wait for the planted script's chances, and return the page (still open)."""
    context = browser.new_context()
    page = context.new_page()
    page.goto(url)
    page.wait_for_load_state("load")
    page.wait_for_timeout(wait_ms)
    return context, page


def _assert_quiet(context, page, listener: Listener, what: str):
    titles = []
    for p in context.pages:
        for frame in p.frames:
            with contextlib.suppress(Exception):
                titles.append(frame.evaluate("document.title"))
    context.close()
    assert listener.seen == [], (what, listener.seen)
    assert "owned" not in titles, (what, titles)


def test_an_exported_replay_shows_hostile_text_as_text_and_reaches_nothing(hostile_results, browser,
                                                                           listener, tmp_path):
    settings, _, replay, _ = hostile_results
    out = tmp_path / "page.html"
    proc = run_tcab(settings, "replay", "export", str(replay), str(out))
    assert proc.returncode == 0, proc.stderr
    context, page = _visit(browser, out.as_uri(), listener)
    wait_for_player(page)
    info = page.inner_text("#info")
    assert "<b>BOLD</b>" in info and "onerror" in info  # the markup, shown as text
    _assert_quiet(context, page, listener, "replay export")


def test_the_static_report_and_its_replay_pages_reach_nothing(hostile_results, browser, listener, tmp_path):
    settings, key, _, _ = hostile_results
    proc = run_tcab(settings, "report", "--html", str(tmp_path / "report"))
    assert proc.returncode == 0, proc.stderr
    index = tmp_path / "report" / "index.html"
    assert f"replays/{key}.html" in index.read_text()
    for page_file in (index, tmp_path / "report" / "replays" / f"{key}.html"):
        context, page = _visit(browser, page_file.as_uri(), listener)
        assert "<b>BOLD</b>" in page.inner_text("body"), page_file
        _assert_quiet(context, page, listener, page_file.name)


def test_every_page_of_tcab_view_reaches_nothing(hostile_results, browser, listener):
    settings, key, _, _ = hostile_results
    with view_server(settings) as url:
        for path in ("/", f"/runs/{RUN_ID}", "/runs?case=lights-out&version=v1.0.0&variant=classic",
                     f"/tournaments/{TOURNAMENT}", f"/matches/{key}"):
            context, page = _visit(browser, url + path, listener)
            assert "<b>BOLD</b>" in page.inner_text("body"), path
            _assert_quiet(context, page, listener, path)


def test_the_player_framed_and_at_top_level_runs_no_planted_script(hostile_results, browser, listener):
    settings, key, _, _ = hostile_results
    with view_server(settings) as url:
        context, page = _visit(browser, url + f"/matches/{key}", listener)
        player = next(f for f in page.frames if f.url.split("?")[0].endswith("/player"))
        wait_for_player(player)
        assert "<b>BOLD</b>" in player.inner_text("#info")
        _assert_quiet(context, page, listener, "framed player")

        # Opened on its own, the player is still sandboxed: an opaque origin, not the app's.
        context, page = _visit(browser, url + f"/matches/{key}/player", listener)
        wait_for_player(page)
        assert page.evaluate("origin") == "null"
        assert "<b>BOLD</b>" in page.inner_text("#info")
        _assert_quiet(context, page, listener, "player at top level")
