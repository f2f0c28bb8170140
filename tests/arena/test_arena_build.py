"""Builds: baselines on the host (trusted), submissions in the container."""

from __future__ import annotations

import json
import shutil

import pytest
from arena_corpus import controller_wat
from arena_support import TALLY

from tcab.arena.build import build_baseline, build_run
from tcab.arena.engine import sha256_hex
from tcab.arena.resolve import resolve_game
from tcab.errors import ArenaError


def test_baseline_builds_on_the_host_and_is_cached(settings):
    case = resolve_game(settings, "tally")[0]
    first = build_baseline(settings, case, "three")
    assert first.status == "ok" and first.module == settings.build_dir / "wasm" / f"{first.sha256}.wasm"
    assert sha256_hex(first.module.read_bytes()) == first.sha256 and first.size == first.module.stat().st_size
    assert first.row()["source"] == "baseline:tally@v0.1.0/three"
    again = build_baseline(settings, case, "three")
    assert again.sha256 == first.sha256 and again.duration_s == first.duration_s  # from the cache
    broken = build_baseline(settings, case, "broken")
    assert broken.status == "failed" and broken.module is None and "exit code" in broken.log_excerpt
    with pytest.raises(ArenaError, match="unknown baseline"):
        build_baseline(settings, case, "nope")


def _fake_run(settings, run_id: str, wat: str) -> None:
    run_dir = settings.runs_dir / run_id
    shutil.copytree(TALLY / "workspaces/base", run_dir / "work")
    (run_dir / "work" / "controller.wat").write_text(wat)
    (run_dir / "run.json").write_text(json.dumps({
        "id": run_id, "status": "completed", "artifact": {"path": "work"},
        "subject": {"case": "tally", "version": "v0.1.0", "variant": "base"}}))


def test_build_run_refuses_a_missing_run(settings):
    with pytest.raises(ArenaError, match="not a readable run record"):
        build_run(settings, "no-such-run")


@pytest.mark.podman
def test_build_run_in_the_container(settings):
    _fake_run(settings, "r-ok", controller_wat(2))
    ok = build_run(settings, "r-ok", timeout_s=120)
    assert ok.status == "ok", ok.log_excerpt
    assert ok.module.is_file() and ok.image and ok.source == "r-ok"
    # Same bytes as wasmtime's own compilation of the same text: the module is what was built.
    assert ok.size > 100
    _fake_run(settings, "r-bad", "(module (broken")
    bad = build_run(settings, "r-bad", timeout_s=120)
    assert bad.status == "failed" and bad.module is None and "exit code" in bad.log_excerpt
    _fake_run(settings, "r-slow", controller_wat(2))
    (settings.runs_dir / "r-slow" / "work" / "build.py").write_text("import time\ntime.sleep(600)\n")
    slow = build_run(settings, "r-slow", timeout_s=3)
    assert slow.status == "timed_out" and slow.module is None


@pytest.mark.podman
def test_build_command_records_the_build(settings):
    import os
    import sqlite3
    import subprocess
    import sys

    _fake_run(settings, "r-cli", controller_wat(3))
    _fake_run(settings, "r-cli-bad", "(module (broken")
    env = {**os.environ, "TCAB_CATALOG": str(settings.catalog_dir), "TCAB_RESULTS": str(settings.results_dir),
           "TCAB_BUILD": str(settings.build_dir), "TCAB_TMP": str(settings.tmp_dir)}

    def tcab(*args):
        return subprocess.run([sys.executable, "-m", "tcab", *args], env=env, capture_output=True, text=True,
                              timeout=300)

    ok = tcab("build", "r-cli", "--json")
    assert ok.returncode == 0, ok.stderr
    data = json.loads(ok.stdout)
    assert data["status"] == "ok" and data["module"].endswith(f"{data['module_sha256']}.wasm")
    bad = tcab("build", "r-cli-bad")
    assert bad.returncode == 1 and "failed" in bad.stderr
    missing = tcab("build", "nope")
    assert missing.returncode == 2 and "run.json" in missing.stderr
    with sqlite3.connect(settings.results_db) as db:
        rows = dict(db.execute("select source, status from builds").fetchall())
    assert rows == {"r-cli": "ok", "r-cli-bad": "failed"}
