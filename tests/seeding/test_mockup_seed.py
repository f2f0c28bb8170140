"""Seeding a case with HTML mockups: rendered once, cached, never seeded as HTML."""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from tcab.browser import chromium, renderer
from tcab.browser.mockup_cache import MockupCache, mockup_cache_dir, mockup_inputs
from tcab.catalog import load_version
from tcab.seeding import seed_repository
from tcab.seeding.cache import cache_entry, seed_from_cache

REPO = Path(__file__).resolve().parents[2]
TRIO = REPO / "tests/fixtures/catalogs/mockups/end-to-end/easy/mockup-trio/v1.0.0"
SIZES = {"reference/title.png": (1280, 720), "reference/play.png": (1280, 720), "reference/over.png": (800, 600)}


def _catalog(tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the fixture catalog (tests edit it) and its version folder."""
    catalog = tmp_path / "catalog"
    root = catalog / "end-to-end/easy/mockup-trio/v1.0.0"
    shutil.copytree(TRIO, root)
    return catalog, root


def _sha(path: Path) -> str | None:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None


def _size(png: bytes) -> tuple[int, int]:
    image = Image.open(io.BytesIO(png))
    image.load()
    return image.size


@pytest.mark.timeout(240)
def test_cold_then_warm_seed_and_a_changed_stylesheet(tmp_path):
    _, root = _catalog(tmp_path)
    case, problems = load_version(root)
    assert problems == []
    cache = tmp_path / "build" / "mockup-cache"
    before = mockup_inputs(cache, case, case.variants[0], _sha)

    with MockupCache(case.root, cache) as cold:
        first = seed_repository(case, case.variant(), tmp_path / "cold", render_mockup=cold)
    assert (cold.renders, cold.browser_starts) == (3, 1)
    assert sorted(first.files) == ["README.md", *sorted(SIZES), "specs/screens.md"]
    for rel, size in SIZES.items():
        assert _size((first.path / rel).read_bytes()) == size
    # The mockups and what they load are never seeded.
    assert not list(first.path.rglob("*.html")) and not list(first.path.rglob("*.css"))
    recorded = mockup_inputs(cache, case, case.variants[0], _sha)
    assert recorded != before  # the stored shots now name theme.css and the logo

    with MockupCache(case.root, cache) as warm:
        second = seed_repository(case, case.variant(), tmp_path / "warm", render_mockup=warm)
    assert (warm.renders, warm.hits, warm.browser_starts) == (0, 3, 0)  # no browser at all
    assert second.commit == first.commit
    assert mockup_inputs(cache, case, case.variants[0], _sha) == recorded

    # An unrelated file of the version folder changes nothing.
    (root / "specs/screens.md").write_text("# Screens, reworded\n")
    assert mockup_inputs(cache, case, case.variants[0], _sha) == recorded

    # A stylesheet the mockups load changes: the sweep's input and every shot.
    css = root / "reference/theme.css"
    css.write_text(css.read_text().replace("#102030", "#803020"))
    assert mockup_inputs(cache, case, case.variants[0], _sha) != recorded
    with MockupCache(case.root, cache) as changed:
        third = seed_repository(case, case.variant(), tmp_path / "changed", render_mockup=changed)
    assert (changed.renders, changed.browser_starts) == (3, 1)
    for rel in SIZES:
        assert (third.path / rel).read_bytes() != (first.path / rel).read_bytes()


@pytest.mark.timeout(240)
def test_a_new_font_or_an_upgraded_browser_renders_again(tmp_path, monkeypatch):
    _, root = _catalog(tmp_path)
    case, _ = load_version(root)
    cache = tmp_path / "mockup-cache"
    fonts = tmp_path / "fonts"
    fonts.mkdir()
    browser = tmp_path / "bin/chromium"
    browser.parent.mkdir()
    real = chromium.CHROMIUM

    def install_browser(version: str) -> None:
        # As a package upgrade does: a new file renamed into place.
        new = browser.with_name(".chromium.new")
        new.write_text(f'#!/bin/sh\n# {version}\nexec {real} "$@"\n')
        new.chmod(0o755)
        new.replace(browser)

    def inputs() -> str:
        renderer.renderer_fingerprint.cache_clear()  # it is read once per process
        return mockup_inputs(cache, case, case.variants[0], _sha)

    def seed(name: str) -> MockupCache:
        renderer.renderer_fingerprint.cache_clear()
        with MockupCache(case.root, cache) as mockups:
            seed_repository(case, case.variant(), tmp_path / name, render_mockup=mockups)
        return mockups

    install_browser("1")
    monkeypatch.setattr(chromium, "CHROMIUM", str(browser))
    monkeypatch.setattr(renderer, "FONT_DIRS", (str(fonts),))
    assert (seed("cold").renders, seed("warm").renders) == (3, 0)
    recorded = inputs()
    assert inputs() == recorded
    entry = cache_entry(tmp_path / "seed-cache", case, case.variant())

    (fonts / "new-face.ttf").write_bytes(b"a font file")
    assert inputs() != recorded  # a sweep re-seeds
    assert cache_entry(tmp_path / "seed-cache", case, case.variant()) != entry  # so does tcab seed
    assert (seed("new-font").renders, seed("new-font-warm").renders) == (3, 0)

    install_browser("2")
    assert seed("new-browser").renders == 3


@pytest.mark.timeout(240)
def test_a_damaged_cache_entry_is_rendered_again(tmp_path):
    _, root = _catalog(tmp_path)
    case, _ = load_version(root)
    cache = tmp_path / "mockup-cache"
    with MockupCache(case.root, cache) as cold:
        first = seed_repository(case, case.variant(), tmp_path / "a", render_mockup=cold)
    for shot in cache.rglob("shot.png"):
        shot.write_bytes(b"\x89PNG\r\n\x1a\n not a screenshot")
    with MockupCache(case.root, cache) as again:
        second = seed_repository(case, case.variant(), tmp_path / "b", render_mockup=again)
    assert again.renders == 3 and second.commit == first.commit


@pytest.mark.timeout(240)
def test_a_run_seed_renders_mockups_into_its_cache(tmp_path):
    _, root = _catalog(tmp_path)
    case, _ = load_version(root)
    build = tmp_path / "build"
    seed = seed_from_cache(build / "seed-cache", case, case.variant(), tmp_path / "run-seed")
    for rel, size in SIZES.items():
        assert _size((seed.path / rel).read_bytes()) == size
    assert len(list(mockup_cache_dir(build).rglob("shot.png"))) == 3


def _tcab_seed(catalog: Path, tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, TCAB_CATALOG=str(catalog), TCAB_BUILD=str(tmp_path / "fresh-build"),
               TCAB_TMP=str(tmp_path / "tmp"), PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "-m", "tcab", "seed", "mockup-trio", *args], env=env,
                          cwd=tmp_path, capture_output=True, text=True, timeout=200)


@pytest.mark.timeout(240)
@pytest.mark.parametrize("kind,html,args,expected", [
    ("throws", "<script>throw new Error('bad mockup 17')</script>", (), "the mockup threw bad mockup 17"),
    ("missing image", '<img src="img/gone.png">', (), "reference/img/gone.png answered 404"),
    ("endless loop", "<script>while (true) {}</script>", ("--mockup-timeout", "3"), "did not render within 3s"),
])
def test_tcab_seed_of_a_broken_mockup_names_it_and_seeds_nothing(tmp_path, kind, html, args, expected):
    catalog, root = _catalog(tmp_path)
    # The first view rendered: a short --mockup-timeout then bounds only the broken one.
    (root / "reference/title.html").write_text(f"<!doctype html>{html}")
    out = tmp_path / "out"
    done = _tcab_seed(catalog, tmp_path, "--out", str(out), *args)
    assert done.returncode == 2, done.stderr
    assert "reference/title.html: " in done.stderr and expected in done.stderr
    assert "Traceback" not in done.stderr
    assert not out.exists()
    assert not list((tmp_path / "fresh-build").rglob("shot.png"))  # a failed render stores nothing


@pytest.mark.timeout(240)
def test_tcab_seed_of_a_case_with_mockups_on_a_fresh_clone(tmp_path):
    catalog, _ = _catalog(tmp_path)
    done = _tcab_seed(catalog, tmp_path, "--out", str(tmp_path / "seeded"))
    assert done.returncode == 0, done.stderr
    for rel, size in SIZES.items():
        assert _size((tmp_path / "seeded" / rel).read_bytes()) == size
    bad = _tcab_seed(catalog, tmp_path, "--mockup-timeout", "-1")
    assert bad.returncode == 2 and "--mockup-timeout" in bad.stderr
