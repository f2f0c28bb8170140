"""An asset run's page in ``tcab view``: each frame regenerated from the
logs beside the model's preview, and the sheet's sequences."""

from __future__ import annotations

import http.client
import re
import shutil
import urllib.request
from urllib.parse import urlencode, urlsplit

from tcab.catalog import load_version
from tcab.draw.cli import main_sheet
from tcab.results import open_db, record_run
from tcab.seeding import seed_repository
from tcab.testtypes.asset_export import write_run_exports
from tcab.testtypes.asset_score import score_tree
from tcab.testtypes.asset_view import panel
from tests.asset.support import HERO
from tests.support.original import ORIGINAL
from tests.support.paths import REPO
from tests.support.results_rows import run_row
from tests.support.settings import tmp_settings
from tests.support.view_server import view_server

RUN_ID = "20261204-platformer-hero-run-reference-1"


def _run(tmp_path):
    case, _ = load_version(HERO)
    settings = tmp_settings(tmp_path, catalog=ORIGINAL)
    run_dir = settings.results_dir / "runs" / RUN_ID
    tree = run_dir / "work"
    seed_repository(case, case.variant(), tree)
    assert main_sheet(["--config", str(tree / ".tcab/draw.json"), "fill-rect", "--frame", "1", "--x", "2", "--y", "2",
                       "--width", "9", "--height", "9", "--color", "#3366ff"]) == 0
    assert score_tree(case.section, tree, run_dir).status == "regenerated"
    assert write_run_exports(case.section, run_dir)  # what the sweep's regenerate task does for a sheet
    return case, settings, run_dir


def test_the_panel_names_each_frames_images(tmp_path) -> None:
    case, _, run_dir = _run(tmp_path)
    values = panel(case, {"variant": "base"}, run_dir, RUN_ID)
    assert values["asset_sequences"][0]["animation"] == f"/runs/{RUN_ID}/raw/exports/sequences/run.png"
    assert values["asset_exports"] == {"atlas.png": f"/runs/{RUN_ID}/raw/exports/atlas.png",
                                       "atlas.json": f"/runs/{RUN_ID}/raw/exports/atlas.json"}
    shutil.rmtree(run_dir / "exports")
    (run_dir / "work/frames/5.png").unlink()
    (run_dir / "work/frames/5.png").symlink_to("/etc/passwd")
    values = panel(case, {"variant": "base"}, run_dir, RUN_ID)
    frames = {f["frame"]: f for f in values["asset_frames"]}
    assert list(frames) == ["0", "1", "2", "3", "4", "5"]
    assert frames["1"]["regenerated"] == f"/runs/{RUN_ID}/raw/regenerated/1.png"
    assert frames["1"]["preview"] == f"/runs/{RUN_ID}/raw/work/frames/1.png"
    assert frames["5"]["preview"] is None  # a link is never named
    assert values["asset_sequences"] == [{"slug": "run", "name": "Run", "fps": 12.0,
                                          "frames": ["0", "1", "2", "3", "4", "5"], "animation": None}]
    assert values["asset_exports"] == {}
    assert panel(case, {"variant": "base"}, None, RUN_ID)["asset_frames"][0]["regenerated"] is None


def test_the_run_page_shows_the_frames(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("PYTHONPATH", str(REPO))  # the view process runs this checkout's tcab
    _, settings, run_dir = _run(tmp_path)
    db = open_db(settings.results_db)
    try:
        record_run(db, run_row(RUN_ID, case_slug="platformer-hero-run", case_type="asset-generation"), [])
    finally:
        db.close()
    with view_server(settings) as url:
        page = urllib.request.urlopen(f"{url}/runs/{RUN_ID}", timeout=10).read().decode()
        assert "<h2>Asset</h2>" in page and "1: regenerated" in page and "frames 0, 1, 2, 3, 4, 5 at 12.0 fps" in page
        # Each sequence plays as its animated PNG (no script), the atlas is linked.
        assert f'src="/runs/{RUN_ID}/raw/exports/sequences/run.png"' in page and "played at 12.0 fps" in page
        assert f'href="/runs/{RUN_ID}/raw/exports/atlas.json"' in page
        animation = urllib.request.urlopen(f"{url}/runs/{RUN_ID}/raw/exports/sequences/run.png", timeout=10)
        assert animation.headers["Content-Type"] == "image/png" and b"acTL" in animation.read()
        image = urllib.request.urlopen(f"{url}/runs/{RUN_ID}/raw/regenerated/1.png", timeout=10).read()
        assert image == (run_dir / "work/frames/1.png").read_bytes()
        # Rated as a whole: one domain, no items; the one rating is the review.
        assert 'name="rating:overall"' in page and 'name="verdict:' not in page
        token = re.search(r'name="token" value="([0-9a-f]+)"', page).group(1)
        parts = urlsplit(url)
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
        body = urlencode({"token": token, "reviewer": "ada", "note": "reads well", "rating:overall": "great"})
        conn.request("POST", f"/runs/{RUN_ID}/review", body=body.encode(),
                     headers={"Host": parts.netloc, "Origin": url,
                              "Content-Type": "application/x-www-form-urlencoded"})
        response = conn.getresponse()
        assert response.status == 303, response.read().decode()[-600:]
        conn.close()
        page = urllib.request.urlopen(f"{url}/runs/{RUN_ID}", timeout=10).read().decode()
        assert "Reviewed by ada" in page and "checklist" not in page.split("Reviewed by ada")[1][:200]
    db = open_db(settings.results_db)
    try:
        assert db.execute("SELECT reviewer, rating, max_score FROM reviews").fetchall() == [("ada", "great", 0.0)]
    finally:
        db.close()
