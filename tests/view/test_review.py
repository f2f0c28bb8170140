"""The human review in ``tcab view``: a form in real Chromium writes results.db,
review.json and what ``tcab report`` shows; every forged POST is refused and
writes nothing; proofs are shown only when present.

The runs are of glint (tests/fixtures/catalogs/original), whose night variant
has three review items (weights 2, 1, 1) and two domains.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import http.client
import json
import re
import sqlite3
import urllib.request
from urllib.parse import urlencode, urlsplit

import pytest

from tcab.catalog import resolve_case
from tcab.results import open_db, record_run, record_validation
from tcab.validation.proofs import collect_proofs
from tests.support.paths import CATALOG_FIXTURES
from tests.support.run_folders import write_run
from tests.support.settings import run_tcab, tmp_settings
from tests.support.view_server import view_server

ORIGINAL = CATALOG_FIXTURES / "original"
GLINT = ORIGINAL / "end-to-end" / "easy" / "glint" / "v1.0.0"
NIGHT = "20260101-glint-night-1"
BASE = "20260101-glint-base-1"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """(settings, run folders) of a results folder with two glint runs."""
    root = tmp_path_factory.mktemp("review-demo")
    settings = tmp_settings(root, catalog=ORIGINAL)
    case = resolve_case(ORIGINAL, "glint", "v1.0.0")
    png = (GLINT / "reference" / "moon.png").read_bytes()
    outside = root / "outside.png"
    outside.write_bytes(png)
    folders = {}
    db = open_db(settings.results_db)
    try:
        for run_id, variant in ((NIGHT, "night"), (BASE, "base")):
            record = write_run(settings.runs_dir, run_id, case, variant=variant,
                               tree=GLINT / "solutions" / "common")
            work = record.run_dir / "work"
            (work / "proof").mkdir()
            (work / "proof" / "board.png").write_bytes(png)               # present
            (work / "proof" / "lighting.webm").write_bytes(png)           # a PNG posing as a clip
            (work / "proof" / "moon.png").symlink_to(outside)             # a link out of the tree
            proofs = collect_proofs(case.proofs_for(case.variant(variant)), work)
            record_run(db, *record.db_rows())
            record_validation(db, {"run_id": run_id, "case_slug": "glint", "case_version": "v1.0.0",
                                   "variant": variant, "status": "passed",
                                   "proofs": [p.to_json() for p in proofs]})
            folders[run_id] = record.run_dir
    finally:
        db.close()
    return settings, folders


@pytest.fixture(scope="module")
def server(site):
    settings, _ = site
    with view_server(settings) as url:
        yield url


def _reviews(settings) -> list[tuple]:
    conn = sqlite3.connect(settings.results_db)
    try:
        return conn.execute("SELECT run_id, reviewer, current, score, max_score, rating FROM reviews "
                            "ORDER BY id").fetchall()
    finally:
        conn.close()


def _fill_and_submit(page, reviewer: str, verdicts: dict, ratings: dict, note: str) -> None:
    for item, verdict in verdicts.items():
        page.check(f'input[name="verdict:{item}"][value="{verdict}"]')
    for domain, rating in ratings.items():
        page.select_option(f'select[name="rating:{domain}"]', rating)
    page.fill('textarea[name="note"]', note)
    page.fill('input[name="reviewer"]', reviewer)
    with page.expect_navigation():
        page.click('button[type="submit"]')


def _post(base: str, path: str, body: bytes, headers: dict) -> tuple[int, str]:
    parts = urlsplit(base)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    conn.request("POST", path, body=body, headers={"Host": parts.netloc, **headers})
    response = conn.getresponse()
    text = response.read().decode("utf-8", "replace")
    conn.close()
    return response.status, text


def _token(base: str, run_id: str) -> str:
    html = urllib.request.urlopen(f"{base}/runs/{run_id}", timeout=10).read().decode()
    return re.search(r'name="token" value="([0-9a-f]+)"', html).group(1)


@pytest.mark.timeout(240)
def test_a_review_through_the_form_lands_in_db_review_json_and_report(site, server, browser, tmp_path):
    settings, folders = site
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(f"{server}/runs/{NIGHT}")
    items = page.locator("fieldset.item")
    assert items.count() == 3
    assert "A moon is drawn in the corner." in items.nth(2).inner_text()
    # The reference and the proof side by side: a media reference, a mockup frame, the proofs' states.
    assert page.locator('#item-moon-shows img[alt="reference moon"]').evaluate("i => i.naturalWidth") > 0
    assert page.locator("#item-tile-lights iframe.mockup").count() == 1
    assert "refused" in page.locator("#item-moon-shows").inner_text()        # the symlink out
    assert "WebM" in page.locator("#item-tile-lights").inner_text()          # a PNG posing as a clip
    assert page.locator("table").filter(has_text="proof/board.png").count() == 1
    from PIL import Image, ImageStat

    shot = tmp_path / "review.png"
    page.locator("#review-form").screenshot(path=str(shot))
    assert ImageStat.Stat(Image.open(shot).convert("L")).var[0] > 100  # not blank

    _fill_and_submit(page, "ada", {"tile-lights": "pass", "title-shows": "fail", "moon-shows": "pass"},
                     {"play": "great", "mood": "scuffed"}, "Lights work; the title names no variant.")
    assert page.url.endswith(f"/runs/{NIGHT}#review"), page.inner_text("body")[:500]
    assert "Reviewed by ada" in page.locator("#current-review").inner_text()
    assert page.locator("#current-review .score").inner_text() == "3/4"
    assert page.locator("#current-review .rating").inner_text() == "scuffed"
    assert _reviews(settings) == [(NIGHT, "ada", 1, 3.0, 4.0, "scuffed")]
    doc = json.loads((folders[NIGHT] / "review.json").read_text())
    assert (doc["review"]["reviewer"], doc["review"]["score"], doc["review"]["rating"]) == ("ada", 3, "scuffed")

    report = run_tcab(settings, "report", "--html", str(tmp_path / "html"))
    assert report.returncode == 0, report.stderr
    assert "Human reviews" in report.stdout and "ada" in report.stdout and "3/4" in report.stdout
    html = (tmp_path / "html" / "index.html").read_text()
    assert "<h3>Human reviews</h3>" in html and "scuffed" in html

    # A second review replaces the first; the first stays as history.
    _fill_and_submit(page, "grace", {"tile-lights": "pass", "title-shows": "pass", "moon-shows": "fail"},
                     {"play": "flawless", "mood": "broken"}, "The moon is missing.")
    assert page.locator("#current-review .rating").inner_text() == "broken"
    assert "1 earlier review(s)" in page.inner_text("#review ~ details summary")
    assert _reviews(settings) == [(NIGHT, "ada", 0, 3.0, 4.0, "scuffed"), (NIGHT, "grace", 1, 3.0, 4.0, "broken")]
    doc = json.loads((folders[NIGHT] / "review.json").read_text())
    assert doc["review"]["reviewer"] == "grace" and [h["reviewer"] for h in doc["history"]] == ["ada"]
    report = run_tcab(settings, "report", "--json")
    group, = [g for g in json.loads(report.stdout)["groups"] if g["variant"] == "night"]
    assert [(r["reviewer"], r["rating"], r["reviews"]) for r in group["reviews"]] == [("grace", "broken", 2)]
    assert errors == []


def test_forged_posts_are_refused_and_write_nothing(site, server, browser):
    settings, folders = site
    before = _reviews(settings)
    token = _token(server, NIGHT)
    good = {"token": token, "reviewer": "mallory", "note": "x", "verdict:tile-lights": "pass",
            "verdict:title-shows": "pass", "verdict:moon-shows": "pass", "rating:play": "flawless",
            "rating:mood": "flawless"}
    form = "application/x-www-form-urlencoded"
    origin = server
    path = f"/runs/{NIGHT}/review"
    cases = [
        ({}, {"Content-Type": form}, 403),                                            # no Origin
        ({}, {"Content-Type": form, "Origin": "http://evil.example"}, 403),           # another origin
        ({}, {"Content-Type": form, "Origin": "null"}, 403),                          # an opaque one
        ({}, {"Content-Type": form, "Origin": origin, "Sec-Fetch-Site": "cross-site"}, 403),
        ({"token": ""}, {"Content-Type": form, "Origin": origin}, 403),               # no token
        ({"token": "0" * 64}, {"Content-Type": form, "Origin": origin}, 403),         # a wrong one
        ({"token": _token(server, BASE)}, {"Content-Type": form, "Origin": origin}, 403),  # another run's
        ({}, {"Content-Type": "text/plain", "Origin": origin}, 415),
        ({}, {"Content-Type": "multipart/form-data; boundary=x", "Origin": origin}, 415),
        ({"verdict:moon-shows": "meh"}, {"Content-Type": form, "Origin": origin}, 400),
        ({"rating:ghost": "great"}, {"Content-Type": form, "Origin": origin}, 400),
        ({"note": "n" * 5000}, {"Content-Type": form, "Origin": origin}, 400),
        ({"extra": "1"}, {"Content-Type": form, "Origin": origin}, 400),
    ]
    for change, headers, status in cases:
        body = urlencode({**good, **change}).encode()
        assert _post(server, path, body, headers)[0] == status, (change, headers)
    # Twice the same field, a body over the bound, a declared length over it.
    twice = urlencode(good).encode() + b"&reviewer=eve"
    assert _post(server, path, twice, {"Content-Type": form, "Origin": origin})[0] == 400
    huge = urlencode({**good, "note": "n" * 70_000}).encode()
    assert _post(server, path, huge, {"Content-Type": form, "Origin": origin})[0] == 413
    # Another page in the browser posting to the app: its Origin is not the app's.
    page = browser.new_page()
    fields = "".join(f'<input name="{k}" value="{v}">' for k, v in good.items())
    page.set_content(f'<form method=post action="{server}{path}">{fields}</form>')
    with page.expect_navigation():
        page.evaluate("document.forms[0].submit()")
    assert "Refused" in page.content() or "Origin" in page.content()
    assert _reviews(settings) == before
    assert not (folders[BASE] / "review.json").exists()
    if not before:
        assert not (folders[NIGHT] / "review.json").exists()
    # The same body, posted as the page would, is accepted: the refusals were for the forgery.
    assert _post(server, f"/runs/{BASE}/review", urlencode({
        "token": _token(server, BASE), "reviewer": "ada", "note": "ok", "verdict:tile-lights": "pass",
        "verdict:title-shows": "fail", "rating:play": "passable"}).encode(),
        {"Content-Type": form, "Origin": origin})[0] == 303
    assert _reviews(settings)[-1] == (BASE, "ada", 1, 2.0, 3.0, "passable")


def test_only_loopback_clients_may_post(site):
    """The Guard itself, called as ASGI with a client from the network."""
    from tcab.view.app import ViewConfig, create_app

    settings, _ = site
    app = create_app(ViewConfig(settings.results_db, settings.results_dir, settings.catalog_dir))
    sent: list[dict] = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    for client, status in ((("10.0.0.5", 4000), 403), (("127.0.0.1", 4000), 403)):
        sent.clear()
        scope = {"type": "http", "method": "POST", "path": f"/runs/{NIGHT}/review",
                 "raw_path": f"/runs/{NIGHT}/review".encode(), "query_string": b"", "client": client,
                 "headers": [(b"host", b"127.0.0.1:8765"), (b"origin", b"http://127.0.0.1:8765"),
                             (b"content-type", b"application/x-www-form-urlencoded"),
                             (b"content-length", b"0")]}
        # In a thread of its own: Playwright's sync API keeps a loop running in this one.
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            pool.submit(asyncio.run, app(scope, receive, send)).result()
        body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
        assert sent[0]["status"] == status
        # From the network: refused at the door; from loopback: reaches the form (no token).
        assert (b"loopback" in body) == (client[0] == "10.0.0.5")


def test_proofs_are_served_only_when_present(site, server):
    ok = urllib.request.urlopen(f"{server}/runs/{NIGHT}/proof/board", timeout=10)
    assert ok.headers["Content-Type"] == "image/png" and ok.headers["Content-Security-Policy"] == "sandbox"
    assert ok.read().startswith(b"\x89PNG")
    for proof in ("moon", "lighting", "nope", "..%2f..%2fetc"):
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(f"{server}/runs/{NIGHT}/proof/{proof}", timeout=10)
        assert err.value.code in (400, 404)
    mockup = urllib.request.urlopen(f"{server}/cases/glint/v1.0.0/mockup/reference/board.html", timeout=10)
    assert mockup.headers["Content-Security-Policy"].startswith("sandbox;")
    with pytest.raises(urllib.error.HTTPError):  # only HTML mockups, only inside the case
        urllib.request.urlopen(f"{server}/cases/glint/v1.0.0/mockup/test-case.toml", timeout=10)
