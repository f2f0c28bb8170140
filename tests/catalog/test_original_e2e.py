"""End to end, as an operator would: the original-format fixtures ``glint``
(end-to-end, common and per-variant mockups, checks, proofs, domains, review
items) and ``skirmish`` (adversarial, no Python game) go through ``tcab seed``,
``tcab prompt``, ``tcab run --harness reference`` (real Podman) and, for glint,
``tcab validate`` (real build container and Chromium).

Mockups: when ``tcab seed`` can render HTML mockups it is used on the fixture
as written. Until that renderer is wired into seeding, the test renders each
mockup itself in headless Chromium (1280x720) and points the reference at the
PNG (``media``), so every other step still runs for real.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ORIGINAL = REPO / "tests/fixtures/catalogs/original"
GLINT_REL = Path("end-to-end/easy/glint/v1.0.0")
SKIRMISH_REL = Path("adversarial/easy/skirmish/v1.0.0")
PNG = b"\x89PNG\r\n\x1a\n"


def _tcab(*args: str, home: Path, timeout: float = 600) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO), "TCAB_CATALOG": str(home / "catalog"),
           "TCAB_HARNESSES": str(REPO / "harnesses"), "TCAB_RESULTS": str(home / "results"),
           "TCAB_BUILD": str(home / "build"), "TCAB_TMP": str(home / "tmp")}
    return subprocess.run([sys.executable, "-m", "tcab", *args], capture_output=True, text=True,
                          env=env, cwd=home, timeout=timeout)


def _render_mockups_here(root: Path) -> None:
    """Stand-in for seeding's mockup renderer: each ``path = "*.html"`` reference
    of the manifest and variant files becomes ``media = "*.png"``, rendered here
    in headless Chromium with every request outside file:// blocked."""
    from playwright.sync_api import sync_playwright

    files = [root / "test-case.toml", *sorted((root / "variants").glob("*.toml"))]
    mockups = sorted({m for f in files for m in re.findall(r'path = "(reference/[^"]+\.html)"', f.read_text())})
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.route(re.compile(r"^(?!file:).*"), lambda route: route.abort())
        for rel in mockups:
            page.goto((root / rel).as_uri(), timeout=15_000)
            (root / rel).with_suffix(".png").write_bytes(page.screenshot())
        browser.close()
    for f in files:
        f.write_text(re.sub(r'path = "(reference/[^"]+)\.html"', r'media = "\1.png"', f.read_text()))


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A fresh catalog with glint and skirmish in the original's format."""
    for rel in (GLINT_REL, SKIRMISH_REL):
        shutil.copytree(ORIGINAL / rel, tmp_path / "catalog" / rel)
    probe = _tcab("seed", "glint", "--out", str(tmp_path / "probe"), home=tmp_path)
    if probe.returncode != 0:
        assert "rendering mockups needs the browser part" in probe.stderr, probe.stderr
        _render_mockups_here(tmp_path / "catalog" / GLINT_REL)
    shutil.rmtree(tmp_path / "probe", ignore_errors=True)
    return tmp_path


def _tree(repo: Path) -> set[str]:
    out = subprocess.run(["git", "-C", str(repo), "ls-files"], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


@pytest.mark.timeout(900)
def test_glint_seeds_prompts_runs_and_validates(podman_runtime, home):
    # seed: the night variant's references as PNG screenshots, never the HTML mockups
    seeded = _tcab("seed", "glint", "--variant", "night", "--out", str(home / "seed"), "--json", home=home)
    assert seeded.returncode == 0, seeded.stderr
    tree = _tree(home / "seed")
    assert {"reference/board.png", "reference/title.png", "reference/moon.png"} <= tree
    assert {"specs/overview.md", "specs/evidence.md", "specs/night.md", "index.html"} <= tree
    assert not {t for t in tree if t.startswith("reference/") and not t.endswith(".png")}
    assert not any(t.endswith(".html") and t != "index.html" for t in tree)
    assert not any(t.startswith(("validation/", "proof/", "variants/")) for t in tree)
    for view in ("board", "title", "moon"):
        assert (home / "seed" / f"reference/{view}.png").read_bytes().startswith(PNG)
    assert "Glint Night (v1.0.0)" in (home / "seed/specs/overview.md").read_text()

    # prompt: the variant's specs, with {{this.name}} the destination's stem
    prompt = _tcab("prompt", "glint", "--variant", "night", home=home)
    assert prompt.returncode == 0, prompt.stderr
    assert "- `/work/specs/night.md` (night)" in prompt.stdout
    assert "- `/work/specs/evidence.md` (evidence)" in prompt.stdout

    # run with the reference harness: the case's solution laid over the workspace
    run = _tcab("run", "glint", "--variant", "night", "--harness", "reference", "--json", home=home)
    assert run.returncode == 0, run.stderr
    record = json.loads(run.stdout)
    assert record["status"] == "completed", record
    run_id = record["id"]
    work = home / "results/runs" / run_id / "work"
    assert "onclick" in (work / "index.html").read_text()  # the solution, not the starter
    assert (work / "reference/moon.png").read_bytes().startswith(PNG)

    # validate: built in a container, loaded in Chromium, one shot per reference view of the variant
    validated = _tcab("validate", run_id, "--json", home=home)
    assert validated.returncode == 0, validated.stdout + validated.stderr
    result = json.loads(validated.stdout)
    assert result["status"] == "passed", result
    shots = sorted(p.name for p in (home / "results/runs" / run_id / "validation").glob("*.png"))
    assert {"board.png", "title.png", "moon.png"} <= set(shots), shots


@pytest.mark.timeout(600)
def test_skirmish_seeds_and_runs_with_the_reference_harness(podman_runtime, home):
    prompt = _tcab("prompt", "skirmish", home=home)
    assert prompt.returncode == 0, prompt.stderr
    run = _tcab("run", "skirmish", "--harness", "reference", "--json", home=home)
    assert run.returncode == 0, run.stderr
    record = json.loads(run.stdout)
    assert record["status"] == "completed", record
    work = home / "results/runs" / record["id"] / "work"
    assert (work / "specs/rules.md").is_file() and (work / "controller/Cargo.toml").is_file()
    match = _tcab("match", "skirmish", "a.wasm", "b.wasm", home=home)
    assert match.returncode == 2 and "cannot be played on this host" in match.stderr
