"""The `tcab catalog`, `seed` and `prompt` commands, run as a user runs them."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.cli_help import check_help

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests/fixtures/catalogs"
SAMPLE = REPO / "test-cases/end-to-end/easy/lights-out/v1.0.0"


def tcab(*args: str, catalog: Path | None = None, tmp: Path | None = None,
         cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    if catalog is not None:
        env["TCAB_CATALOG"] = str(catalog)
    if tmp is not None:
        env["TCAB_TMP"] = str(tmp)
        env["TCAB_BUILD"] = str(tmp / "build")
    return subprocess.run([sys.executable, "-m", "tcab", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def test_catalog_lists_json_and_hides_experimental():
    out = tcab("catalog", "--json", catalog=FIXTURES / "good")
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)
    assert [(r["slug"], r["version"]) for r in rows] == [("mini-duel", "v1.9.0")]
    assert rows[0]["variants"] == ["base", "big"] and len(rows[0]["digest"]) == 64
    every = json.loads(tcab("catalog", "--json", "--experimental", catalog=FIXTURES / "good").stdout)
    assert {(r["slug"], r["version"]) for r in every} == {("mini-duel", "v1.10.0"), ("hidden-lab", "v1.0.0")}


def test_catalog_table():
    out = tcab("catalog", catalog=FIXTURES / "good")
    assert out.returncode == 0 and "mini-duel" in out.stdout and "hidden-lab" not in out.stdout


def test_validate_broken_catalog_reports_all_without_traceback():
    out = tcab("catalog", "validate", str(FIXTURES / "broken"))
    assert out.returncode == 1
    assert "Traceback" not in out.stderr + out.stdout
    assert '[sandbox].fuel_per_tick: expected a positive integer, got "lots"' in out.stderr
    assert "unknown variable 'workspce'" in out.stderr
    assert "sources collide" in out.stderr
    assert len([line for line in out.stderr.splitlines() if "test-case.toml" in line]) >= 20


def test_validate_json_and_a_single_version_folder():
    ok = tcab("catalog", "validate", str(SAMPLE))
    assert ok.returncode == 0 and ok.stdout.startswith("ok: 1 case version(s), 2 variant(s)")
    bad = tcab("catalog", "validate", "--json",
               str(FIXTURES / "broken/adversarial/hard/adv-bad-fuel/v1.0.0"))
    assert bad.returncode == 1
    [problem] = json.loads(bad.stdout)
    assert problem["key"] == "[sandbox].fuel_per_tick" and problem["line"] == 21


def test_seed_default_location_then_reseed(tmp_path):
    first = tcab("seed", "lights-out", "--variant", "torus", "--json", catalog=REPO / "test-cases",
                 tmp=tmp_path)
    assert first.returncode == 0, first.stderr
    result = json.loads(first.stdout)
    assert result["path"] == str(tmp_path / "seeds/lights-out-v1.0.0-torus")
    assert "specs/torus.md" in result["files"]
    again = tcab("seed", "lights-out", "--variant", "torus", "--json", catalog=REPO / "test-cases",
                 tmp=tmp_path)
    assert json.loads(again.stdout)["commit"] == result["commit"]


def test_a_second_seed_is_a_copy_of_the_cached_one_until_the_case_changes(tmp_path):
    catalog = tmp_path / "catalog"
    shutil.copytree(SAMPLE, catalog / "end-to-end/easy/lights-out/v1.0.0")
    first = tcab("seed", "lights-out", "--json", catalog=catalog, tmp=tmp_path)
    assert first.returncode == 0, first.stderr
    [entry] = (tmp_path / "build/seed-cache").glob("*/*/classic")
    assert sorted(json.loads((entry / "files.json").read_text())) == json.loads(first.stdout)["files"]
    # Mark the stored copy: a second seed of the unchanged case must be a copy of it.
    (entry / "repo/MARK").write_text("from the cache")
    again = json.loads(tcab("seed", "lights-out", "--json", catalog=catalog, tmp=tmp_path).stdout)
    assert (Path(again["path"]) / "MARK").read_text() == "from the cache"
    assert again["commit"] == json.loads(first.stdout)["commit"]
    # Any change to the case's files is a new entry, seeded afresh.
    spec = catalog / "end-to-end/easy/lights-out/v1.0.0/specs/overview.md"
    spec.write_text(spec.read_text() + "\nOne more rule.\n")
    changed = json.loads(tcab("seed", "lights-out", "--json", catalog=catalog, tmp=tmp_path).stdout)
    assert not (Path(changed["path"]) / "MARK").exists() and changed["commit"] != again["commit"]
    assert len(list((tmp_path / "build/seed-cache").glob("*/*/classic"))) == 2


def test_a_seed_that_fails_stores_nothing_and_leaves_nothing(tmp_path):
    catalog = tmp_path / "catalog"
    root = catalog / "end-to-end/easy/lights-out/v1.0.0"
    shutil.copytree(SAMPLE, root)
    (root / "specs/rules.md.hbs").write_text("Rules for {{no_such_value}}.\n")
    out = tmp_path / "out"
    res = tcab("seed", "lights-out", "--out", str(out), catalog=catalog, tmp=tmp_path)
    assert res.returncode == 2 and "Traceback" not in res.stderr, res.stderr
    assert "rules.md.hbs" in res.stderr and "no_such_value" in res.stderr
    assert not out.exists()
    assert not [p for p in (tmp_path / "build").rglob("*") if p.is_file()]


def test_seed_explicit_out_and_errors(tmp_path):
    out = tmp_path / "here"
    ok = tcab("seed", "lights-out@v1.0.0", "--out", str(out), catalog=REPO / "test-cases", tmp=tmp_path)
    assert ok.returncode == 0 and (out / ".git").is_dir()
    shutil.rmtree(tmp_path / "build")
    exists = tcab("seed", "lights-out", "--out", str(out), catalog=REPO / "test-cases", tmp=tmp_path)
    assert exists.returncode == 2 and "already exists" in exists.stderr
    assert not (tmp_path / "build").exists()  # refused before anything was seeded
    for args, fragment in [
        (("seed", "nope"), 'no test case "nope"'),
        (("seed", "lights-out", "--variant", "huge"), "unknown variant 'huge'; known: classic, torus"),
        (("seed", "lights-out", "--version", "v9.0.0"), "known: v1.0.0"),
        (("prompt", "nope"), 'no test case "nope"'),
    ]:
        res = tcab(*args, catalog=REPO / "test-cases", tmp=tmp_path)
        assert res.returncode == 2, (args, res.stderr)
        assert fragment in res.stderr and "Traceback" not in res.stderr


@pytest.mark.parametrize("args", [("seed", "lights-out"), ("prompt", "lights-out"), ("catalog",),
                                  ("catalog", "--json"), ("catalog", "validate"), ("catalog", "validate", "--json")])
def test_a_missing_catalog_folder_is_named(tmp_path, args):
    """Every command exits 2 for a TCAB_CATALOG that is missing or not a folder."""
    (tmp_path / "a-file").write_text("x")
    for name in ("no-such-catalog", "a-file"):
        res = tcab(*args, catalog=tmp_path / name, tmp=tmp_path)
        assert res.returncode == 2 and "Traceback" not in res.stderr, (args, res.stdout, res.stderr)
        assert f"{name}: catalog folder not found" in res.stderr, res.stderr


def test_seed_with_a_broken_template_exits_2_and_leaves_nothing(tmp_path):
    catalog = FIXTURES / "broken"
    res = tcab("seed", "spec-template-unknown-var", "--out", str(tmp_path / "s"), catalog=catalog)
    assert res.returncode == 2 and "unknown variable 'variant.params.size'" in res.stderr
    assert "Traceback" not in res.stderr
    assert list(tmp_path.iterdir()) == []


def test_prompt_prints_the_rendered_prompt():
    res = tcab("prompt", "lights-out", "--variant", "torus", catalog=REPO / "test-cases")
    assert res.returncode == 0
    # A spec's name is its destination's file stem, as the original's docs define it.
    assert "- `/work/specs/torus.md` (torus)" in res.stdout


PICK = {"--version V", "--variant X", "--experimental"}
HELP = {
    "catalog": ("[OPTIONS] COMMAND [ARGS]...", {"--json", "--experimental"}),
    "catalog validate": ("[OPTIONS] [PATH]", {"--json", "--no-cache", "-j, --jobs INTEGER RANGE"}),
    "seed": ("[OPTIONS] CASE", PICK | {"--out DIR", "--json", "--mockup-timeout S"}),
    "prompt": ("[OPTIONS] CASE", PICK),
}


@pytest.mark.parametrize("command", sorted(HELP))
def test_help_shows_usage_every_option_and_a_working_example(command):
    res = tcab(*command.split(), "--help")
    assert res.returncode == 0 and res.stderr == ""
    check_help(res.stdout, command, *HELP[command])
