"""A large catalog: one-case commands read one case, listing reads manifests,
full validation is parallel, shows progress and caches by content (issue 14, item 5)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.probe import probe

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests/fixtures/catalogs"


def tcab(tmp: Path, catalog: Path, *args: str, **env_extra: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TCAB_CATALOG": str(catalog), "TCAB_BUILD": str(tmp / "build"),
           "TCAB_TMP": str(tmp / "tmp"), "TCAB_RESULTS": str(tmp / "results"), **env_extra}
    return subprocess.run([sys.executable, "-m", "tcab", *args], cwd=tmp, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def catalog(tmp_path: Path) -> Path:
    root = tmp_path / "catalog"
    shutil.copytree(FIXTURES / "good", root, symlinks=True)
    shutil.copytree(REPO / "test-cases/end-to-end/easy/lights-out",
                    root / "end-to-end/easy/lights-out", symlinks=True)
    return root


def test_one_case_commands_never_open_a_neighbour(tmp_path, catalog):
    # A neighbour's manifest that is a FIFO blocks whoever reads it: the old
    # full scan hung here; resolving lights-out must not touch it.
    hostile = catalog / "end-to-end/easy/zz-fifo/v1.0.0"
    hostile.mkdir(parents=True)
    os.mkfifo(hostile / "test-case.toml")
    start = time.monotonic()
    out = tcab(tmp_path, catalog, "prompt", "lights-out")
    assert out.returncode == 0, out.stderr
    assert "Lights Out" in out.stdout and time.monotonic() - start < 60
    listed = tcab(tmp_path, catalog, "catalog", "--json")
    assert listed.returncode == 0, listed.stderr
    assert {r["slug"] for r in json.loads(listed.stdout)} == {"mini-duel", "lights-out"}
    assert "1 manifest(s) cannot be listed" in listed.stderr
    checked = tcab(tmp_path, catalog, "catalog", "validate", "--no-cache")
    assert checked.returncode == 1 and "test-case.toml: cannot read: not a regular file" in checked.stderr


def test_validation_cache_reuses_unchanged_versions_and_sees_edits(tmp_path, catalog):
    first = tcab(tmp_path, catalog, "catalog", "validate")
    assert first.returncode == 0, first.stderr
    assert first.stdout.strip() == "ok: 5 case version(s), 9 variant(s) checked (0 from the cache)"
    cache = tmp_path / "build/catalog-validate.json"
    assert len(json.loads(cache.read_text())["versions"]) == 5
    second = tcab(tmp_path, catalog, "catalog", "validate", "-j", "2")
    assert second.stdout.strip().endswith("(5 from the cache)"), second.stdout

    # Touched but unchanged: the stat fingerprint differs, the content digest does not.
    prompt = catalog / "end-to-end/easy/lights-out/v1.0.0/prompt.hbs"
    os.utime(prompt, (1, 1))
    assert tcab(tmp_path, catalog, "catalog", "validate").stdout.strip().endswith("(5 from the cache)")
    # Changed: this version is checked again and its new problem is reported.
    prompt.write_text(prompt.read_text() + "\n{{no_such_variable}}\n")
    edited = tcab(tmp_path, catalog, "catalog", "validate")
    assert edited.returncode == 1 and "no_such_variable" in edited.stderr
    assert edited.stdout.strip().endswith("(4 from the cache)"), edited.stdout

    # A damaged cache is ignored and rewritten.
    cache.write_bytes(b"\x00garbage")
    again = tcab(tmp_path, catalog, "catalog", "validate")
    assert again.returncode == 1 and again.stdout.strip().endswith("(0 from the cache)")
    json.loads(cache.read_text())


def test_parallel_validation_reports_the_same_problems(tmp_path):
    serial = tcab(tmp_path, FIXTURES / "broken", "catalog", "validate", "--json", "--no-cache")
    parallel = tcab(tmp_path, FIXTURES / "broken", "catalog", "validate", "--json", "--no-cache", "-j", "3")
    assert serial.returncode == parallel.returncode == 1
    assert sorted(map(str, json.loads(serial.stdout))) == sorted(map(str, json.loads(parallel.stdout)))
    assert len(json.loads(serial.stdout)) >= 30
    assert not (tmp_path / "build").exists()  # --no-cache writes nothing


def test_progress_is_shown_on_a_terminal(tmp_path, catalog):
    out = tcab(tmp_path, catalog, "catalog", "validate", "--no-cache", FORCE_COLOR="1")
    assert out.returncode == 0, out.stderr
    assert "validating" in out.stderr and "5/5" in out.stderr
    assert "validating" not in tcab(tmp_path, catalog, "catalog", "validate", "--no-cache").stderr


# What a command imports is most of its time on one case: git (pygit2 loads
# the system's CA bundle at import), JSON Schema compilation, the container,
# browser and wasm stacks. Each command must leave out what it does not use.
HEAVY = ("pygit2", "fastjsonschema", "docker", "wasmtime", "playwright", "rich", "sqlite3",
         "tcab.arena", "tcab.runs", "tcab.runtime", "tcab.results", "tcab.validation")


@pytest.mark.parametrize(("args", "uses"), [
    (("prompt", "lights-out"), set()),
    (("seed", "lights-out"), {"pygit2"}),
    (("catalog", "--json"), set()),
])
def test_one_case_and_listing_commands_import_only_what_they_use(tmp_path, catalog, args, uses):
    env = {**os.environ, "TCAB_CATALOG": str(catalog), "TCAB_BUILD": str(tmp_path / "build"),
           "TCAB_TMP": str(tmp_path / "tmp"), "TCAB_RESULTS": str(tmp_path / "results")}
    code, modules, out = probe(args, env, tmp_path / "probe.json", tmp_path)
    assert code == 0, out.stderr
    assert {m for m in HEAVY if m in modules} == uses
