"""``tcab view`` in real Chromium over a real demo results folder."""

from __future__ import annotations

import http.client
import io
import sqlite3
import subprocess
import sys
from urllib.parse import urlsplit

import pytest

from tests.support.settings import cli_env, run_tcab
from tests.view.conftest import OUTSIDE_ID, RUN_ID, TOURNAMENT, wait_for_player


def _page(browser, url: str):
    """A new page at ``url`` and the console errors and uncaught exceptions seen on it (any frame)."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(f"console: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(f"pageerror: {e}"))
    response = page.goto(url)
    assert response is not None and response.status == 200, url
    page.wait_for_load_state("load")
    return page, errors


def _variance(png: bytes) -> float:
    from PIL import Image, ImageStat

    image = Image.open(io.BytesIO(png)).convert("L")
    return ImageStat.Stat(image).var[0]


def _key(demo) -> str:
    return demo[1]["matches"][0]["key"]


def _get(base: str, raw_path: str, host: str | None = None, method: str = "GET") -> tuple[int, str]:
    """A request with ``raw_path`` sent byte for byte (no client-side normalising of ``..``)."""
    parts = urlsplit(base)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    conn.putrequest(method, raw_path, skip_host=True)
    conn.putheader("Host", host or parts.netloc)
    conn.endheaders()
    response = conn.getresponse()
    body = response.read().decode("utf-8", "replace")
    conn.close()
    return response.status, body


def test_pages_of_a_demo_sweep_load_without_console_errors(demo, server, browser):
    key = _key(demo)
    for path, text in [("/", "Tournament"), (f"/runs/{RUN_ID}", "Transcript"),
                       (f"/runs/{RUN_ID}/tree/src/", "index.html"), (f"/runs/{RUN_ID}/tree/src/index.html", "html"),
                       (f"/tournaments/{TOURNAMENT}", "Cross table"), (f"/matches/{key}", "seat"),
                       ("/runs?case=lights-out&version=v1.0.0&variant=classic", RUN_ID)]:
        page, errors = _page(browser, server + path)
        assert text in page.content(), path
        assert errors == [], (path, errors)
        page.close()


def test_home_links_runs_tournaments_and_matches(demo, server, browser):
    page, _ = _page(browser, server + "/")
    page.click(f"text={RUN_ID}")
    assert page.url.endswith(f"/runs/{RUN_ID}")
    page.goto(server + "/")
    page.click(f"a[href='/tournaments/{TOURNAMENT}']")
    assert "Standings" in page.content() and "<svg" in page.content()  # the ratings plot
    page.click("table.cross a >> nth=0")
    assert "/matches/" in page.url and page.locator("iframe#player").count() == 1
    page.close()


def test_run_page_record_transcript_tree_and_validation(demo, server, browser):
    page, errors = _page(browser, server + f"/runs/{RUN_ID}")
    html = page.content()
    assert "sha256:" + "ab" * 32 in html and "session" in html and "classic" in html
    # The hostile event text is shown as text and never runs.
    assert page.title() != "owned" and "&lt;script&gt;document.title" in html
    # Long parts are folded: the long message is inside a closed <details>.
    assert page.locator(".ev details:not([open]) pre", has_text="line 199 of a long").count() >= 1
    assert page.locator(".ev.unreadable").count() == 1
    # The validation screenshot beside the reference, both real images.
    assert page.locator("img[alt='reference board']").evaluate("i => i.naturalWidth") > 0
    assert page.locator("img[alt='screenshot board']").evaluate("i => i.naturalWidth") > 0
    assert "Nothing to review" in html
    # A symlink in the tree is named, not followed.
    assert "passwd-link" in html and "(symlink)" in html
    assert errors == []
    page.close()
    source, _ = _page(browser, server + f"/runs/{RUN_ID}/tree/src/index.html")
    assert source.locator(".src .linenos, .src td.linenos").count() >= 1  # Pygments, line numbers
    source.close()


def test_run_page_shows_each_check_with_its_similarity_and_screenshot(demo, server, browser):
    page, errors = _page(browser, server + f"/runs/{RUN_ID}")
    rows = page.locator("table.check-results tr")
    assert rows.count() == 3  # the header and two results; a garbled entry is skipped
    assert "0.9123" in rows.nth(1).inner_text()
    assert "not reached" in rows.nth(2).inner_text() and "did not finish within 2s" in rows.nth(2).inner_text()
    assert "Won <b>" in rows.nth(2).inner_text()  # shown as text, not markup
    assert page.locator("img[alt='check board']").evaluate("i => i.naturalWidth") > 0
    assert page.locator("img[alt='check won']").count() == 0
    assert errors == []
    page.close()


def test_replay_page_plays_to_the_final_tick_and_shows_the_result(demo, server, browser):
    key = _key(demo)
    with sqlite3.connect(demo[0].results_db) as conn:
        ticks, winner = conn.execute("SELECT ticks, winner_seat FROM matches WHERE key = ?", [key]).fetchone()
    page, errors = _page(browser, server + f"/matches/{key}")
    frame = page.frame_locator("iframe#player")
    frame.locator("#play").wait_for(state="visible")
    player = next(f for f in page.frames if f.url.split("?")[0].endswith("/player"))
    wait_for_player(player)
    player.evaluate("() => { const s = document.getElementById('slider'); s.value = s.max; "
                    "s.dispatchEvent(new Event('input')); }")
    assert frame.locator("#status").inner_text().startswith(f"tick {ticks}/{ticks}")
    result = "draw" if winner is None else f"seat {winner} wins"
    assert f"Result: {result}" in frame.locator("#info").inner_text()
    assert errors == []
    page.close()


def test_replay_json_is_served_through_the_app(demo, server):
    import gzip
    import json
    import urllib.request

    key = _key(demo)
    with urllib.request.urlopen(server + f"/matches/{key}/replay.json") as r:
        body = r.read()
        encoding = r.headers.get("Content-Encoding")
    doc = json.loads(gzip.decompress(body) if encoding == "gzip" else body)
    assert doc["format"] == "tcab-replay/1" and doc["header"]["case"] == "capture"


@pytest.mark.parametrize("path", ["/", f"/runs/{RUN_ID}", "/matches/{key}"])
def test_screenshots_are_not_blank(demo, server, browser, path):
    page, _ = _page(browser, server + path.format(key=_key(demo)))
    if "matches" in path:
        page.frame_locator("iframe#player").locator("#status").wait_for()
        page.wait_for_timeout(300)
    shot = page.screenshot(full_page=False)
    page.close()
    assert _variance(shot) > 100, path


HOSTILE = [
    f"/runs/{RUN_ID}/tree/../../../secret.txt",
    f"/runs/{RUN_ID}/tree/..%2f..%2f..%2fsecret.txt",
    f"/runs/{RUN_ID}/tree/%2e%2e/%2e%2e/%2e%2e/secret.txt",
    f"/runs/{RUN_ID}/tree/..%5c..%5csecret.txt",
    f"/runs/{RUN_ID}/raw/..%2F..%2Fsecret.txt",
    f"/runs/{RUN_ID}/tree/passwd-link",
    f"/runs/{RUN_ID}/raw/work/passwd-link",
    f"/runs/{RUN_ID}/tree/escape-dir/secret.txt",
    f"/runs/{RUN_ID}/raw/work/escape-dir/secret.txt",
    "/cases/capture/v1.0.0/raw/../../../../../etc/passwd",
    "/cases/capture/v1.0.0/raw/%2e%2e%2f%2e%2e%2fREADME.md",
    f"/runs/{OUTSIDE_ID}/tree/",
    f"/runs/{OUTSIDE_ID}/raw/secret.txt",
    f"/runs/{RUN_ID}/tree/src%00/index.html",
]


@pytest.mark.parametrize("raw_path", HOSTILE)
def test_hostile_paths_are_refused(demo, server, raw_path):
    status, body = _get(server, raw_path)
    assert status in (400, 403, 404), (raw_path, status)
    assert "TOP-SECRET" not in body and "root:x:0" not in body


def test_a_symlink_inside_the_tree_to_inside_it_is_served_and_files_are_sandboxed(demo, server):
    status, body = _get(server, f"/runs/{RUN_ID}/raw/work/evil.html")
    assert status == 200 and "<script>" in body
    parts = urlsplit(server)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    conn.request("GET", f"/runs/{RUN_ID}/raw/work/evil.html")
    r = conn.getresponse()
    r.read()
    # Served as text, in a sandbox: it can never run as a page of this origin.
    assert r.getheader("Content-Type").startswith("text/plain")
    assert r.getheader("Content-Security-Policy") == "sandbox"
    assert r.getheader("X-Content-Type-Options") == "nosniff"


def test_the_app_is_read_only_and_answers_only_its_own_host(demo, server):
    assert _get(server, "/", method="POST")[0] == 405
    assert _get(server, "/", method="DELETE")[0] == 405
    assert _get(server, "/", host="evil.example:80")[0] == 421  # DNS rebinding
    assert _get(server, "/runs/nope")[0] == 404
    assert _get(server, f"/runs/{RUN_ID}?page=x")[0] == 400


def test_view_refuses_a_missing_database_and_a_busy_port(demo, tmp_path):
    settings, _ = demo
    env = {**cli_env(settings), "TCAB_RESULTS": str(tmp_path / "none")}
    proc = subprocess.run([sys.executable, "-m", "tcab", "view", "--port", "0"], env=env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "no results database" in proc.stderr and "Traceback" not in proc.stderr
    bad = run_tcab(settings, "view", "--port", "70000")
    assert bad.returncode == 2 and "--port" in bad.stderr


def test_exported_replay_plays_from_file_with_no_network(demo, browser, tmp_path):
    settings, facts = demo
    replay = facts["matches"][0]["replay"]
    out = tmp_path / "page.html"
    proc = run_tcab(settings, "replay", "export", replay, str(out))
    assert proc.returncode == 0, proc.stderr
    page = browser.new_page()
    requests: list[str] = []
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("request", lambda r: requests.append(r.url))
    page.route("**/*", lambda route: route.continue_() if route.request.url.startswith(("file:", "blob:", "data:"))
               else route.abort())
    page.goto(out.as_uri())
    wait_for_player(page)
    page.evaluate("() => { const s = document.getElementById('slider'); s.value = s.max; "
                  "s.dispatchEvent(new Event('input')); }")
    ticks = facts["matches"][0].get("ticks")
    status = page.inner_text("#status")
    assert status.startswith("tick ") and status.split()[1].split("/")[0] == status.split()[1].split("/")[1]
    assert ticks is None or status.startswith(f"tick {ticks}/")
    assert "Result:" in page.inner_text("#info")
    assert errors == [] and all(u.startswith(("file:", "blob:", "data:")) for u in requests), requests
    page.close()


def test_export_refuses_a_broken_replay_and_writes_nothing(demo, tmp_path):
    settings, _ = demo
    junk = tmp_path / "junk.json.gz"
    junk.write_bytes(b"not gzip")
    out = tmp_path / "out.html"
    proc = run_tcab(settings, "replay", "export", str(junk), str(out))
    assert proc.returncode == 2 and "junk.json.gz" in proc.stderr and "Traceback" not in proc.stderr
    assert not out.exists()


def test_static_report_links_each_replay_to_an_exported_page(demo, tmp_path):
    settings, facts = demo
    proc = run_tcab(settings, "report", "--html", str(tmp_path / "report"))
    assert proc.returncode == 0, proc.stderr
    index = (tmp_path / "report" / "index.html").read_text()
    for m in facts["matches"]:
        assert f'href="replays/{m["key"]}.html"' in index
        assert (tmp_path / "report" / "replays" / f"{m['key']}.html").is_file()
    assert ".json.gz" not in index
