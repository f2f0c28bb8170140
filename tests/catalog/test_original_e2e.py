"""End to end, as an operator would: the original-format fixtures ``glint``
(end-to-end, common and per-variant mockups, checks, proofs, domains, review
items) and ``skirmish`` (adversarial, no Python game) go through ``tcab seed``,
``tcab prompt``, ``tcab run --harness reference`` (real Podman) and, for glint,
``tcab validate`` (real build container and Chromium).

The fixture is used as written: seeding renders its HTML mockups in
headless Chromium, and validation scores its ``[[check]]``s against them.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.original import ORIGINAL, PNG
from tests.support.paths import REPO

GLINT_REL = Path("end-to-end/easy/glint/v1.0.0")
SKIRMISH_REL = Path("adversarial/easy/skirmish/v1.0.0")


def _tcab(*args: str, home: Path, timeout: float = 600) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO), "TCAB_CATALOG": str(home / "catalog"),
           "TCAB_HARNESSES": str(REPO / "harnesses"), "TCAB_RESULTS": str(home / "results"),
           "TCAB_BUILD": str(home / "build"), "TCAB_TMP": str(home / "tmp")}
    return subprocess.run([sys.executable, "-m", "tcab", *args], capture_output=True, text=True,
                          env=env, cwd=home, timeout=timeout)


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A fresh catalog with glint and skirmish in the original's format."""
    for rel in (GLINT_REL, SKIRMISH_REL):
        shutil.copytree(ORIGINAL / rel, tmp_path / "catalog" / rel)
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
    # the case's [[check]]s: driven, captured and scored against the rendered mockups
    checks = {c["view"]: c for c in result["check_results"]}
    assert set(checks) == {"board-lit", "title"}, checks
    for check in checks.values():
        # Both checks compare against views the run was seeded with, so neither can count: a page
        # that only showed the seeded screenshot would match as well (docs/validation.md, seed = false).
        assert 0 < check["similarity"] <= 1 and check["seeded_similarity"] is not None, check
        assert "the run was given" in check["error"], check
        assert (home / "results/runs" / run_id / check["screenshot"]).read_bytes().startswith(PNG)


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
