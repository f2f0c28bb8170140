"""The seed cache: a repeated run copies the stored seed instead of seeding again."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pygit2

from tcab.catalog import case_digest, load_version
from tcab.seeding import render_prompt, seed_repository
from tcab.seeding.cache import cache_entry, seed_from_cache

CASE = Path(__file__).resolve().parents[2] / "test-cases/end-to-end/easy/lights-out/v1.0.0"


def _case(folder: Path):
    case, problems = load_version(folder)
    assert not problems
    return case


def test_second_seed_is_a_copy_of_the_first_with_the_same_commit_and_prompt(tmp_path):
    case = _case(CASE)
    variant = case.variant("torus")
    first = seed_from_cache(tmp_path / "cache", case, variant, tmp_path / "a")
    fresh = seed_repository(case, variant, tmp_path / "fresh")
    assert first.commit == fresh.commit
    assert first.prompt == render_prompt(case, variant)

    # Break the entry's stored prompt: a second call must read the cache, not re-seed.
    entry = cache_entry(tmp_path / "cache", case, variant)
    (entry / "prompt.txt").write_text("from the cache")
    second = seed_from_cache(tmp_path / "cache", case, variant, tmp_path / "b")
    assert second.prompt == "from the cache" and second.commit == first.commit
    assert str(pygit2.Repository(str(tmp_path / "b")).head.target) == first.commit


def test_a_damaged_entry_is_seeded_again_and_the_digest_is_the_one_keyed_on(tmp_path):
    case = _case(CASE)
    variant = case.variant(None)
    first = seed_from_cache(tmp_path / "cache", case, variant, tmp_path / "a")
    entry = cache_entry(tmp_path / "cache", case, variant)
    assert first.case_digest == case_digest(case) == entry.parent.name
    (entry / "files.json").unlink()  # complete entries always have it
    second = seed_from_cache(tmp_path / "cache", case, variant, tmp_path / "b")
    assert second.commit == first.commit and second.files == first.files
    assert (entry / "files.json").is_file()


def test_a_changed_case_gets_its_own_entry(tmp_path):
    copy = tmp_path / "end-to-end/easy/lights-out/v1.0.0"
    shutil.copytree(CASE, copy)
    case = _case(copy)
    variant = case.variant(None)
    before = seed_from_cache(tmp_path / "cache", case, variant, tmp_path / "a")
    spec = copy / "specs" / "overview.md"
    spec.write_text(spec.read_text() + "\nOne more rule.\n")
    changed = _case(copy)
    after = seed_from_cache(tmp_path / "cache", changed, changed.variant(None), tmp_path / "b")
    assert after.commit != before.commit
    assert len(list((tmp_path / "cache").glob("*/*/classic"))) == 2


def test_the_run_and_seed_commands_import_neither_the_template_engine_nor_pygit2():
    slow = ("tcab.templates", "tcab.seeding.plan", "pygit2")
    code = ("import sys, tcab.cli.run, tcab.runs.lifecycle, tcab.cli.seed, tcab.seeding.cache; "
            f"sys.exit(1 if any(m in sys.modules for m in {slow!r}) else 0)")
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0
