"""`tcab report --html` writes a playable page per replay: the report takes
the view's exporter from the command (the report sits below the view)."""

from __future__ import annotations

from tests.support.settings import run_tcab


def test_the_html_report_links_each_replay_to_its_exported_page(demo, tmp_path) -> None:
    settings, facts = demo
    out = tmp_path / "html"
    proc = run_tcab(settings, "report", "--html", str(out), timeout=280)
    assert proc.returncode == 0, proc.stderr
    pages = sorted(p.name for p in (out / "replays").glob("*.html"))
    assert pages, "no replay page was exported"
    index = (out / "index.html").read_text()
    assert all(f"replays/{name}" in index for name in pages)
    player = (out / "replays" / pages[0]).read_text()
    assert "<html" in player.lower() and len(player) > 1000
