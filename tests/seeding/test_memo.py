"""A repeated ``tcab seed`` / ``tcab prompt`` is answered from the seed cache
without parsing the case, and exactly as a full resolution would answer it."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.support.probe import probe

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "test-cases/end-to-end/easy/lights-out"
# What answering in full imports, and a repeated command must not.
PARSING = ("tcab.catalog.model", "tcab.catalog.manifest", "tcab.templates", "pygit2")


@pytest.fixture
def catalog(tmp_path: Path) -> Path:
    root = tmp_path / "catalog"
    shutil.copytree(SAMPLE, root / "end-to-end/easy/lights-out", symlinks=True)
    return root


def run(tmp_path: Path, catalog: Path, *args: str) -> tuple[int, set[str], str, str]:
    """(exit code, modules imported, stdout, stderr) of ``tcab *args``."""
    env = {**os.environ, "TCAB_CATALOG": str(catalog), "TCAB_BUILD": str(tmp_path / "build"),
           "TCAB_TMP": str(tmp_path / "tmp"), "TCAB_RESULTS": str(tmp_path / "results")}
    code, modules, done = probe(args, env, tmp_path / "probe.json", tmp_path)
    return code, modules, done.stdout, done.stderr


def parsed(modules: set[str]) -> set[str]:
    return {m for m in PARSING if m in modules}


def answers(tmp_path: Path) -> list[Path]:
    return sorted((tmp_path / "build/seed-cache").glob("*/answers/*.json"))


def add_version(catalog: Path, name: str, prompt_line: str, *, experimental: bool = False) -> Path:
    case = catalog / "end-to-end/easy/lights-out"
    new = case / name
    shutil.copytree(case / "v1.0.0", new, symlinks=True)
    (new / "prompt.hbs").write_text(prompt_line + "\n" + (new / "prompt.hbs").read_text())
    if experimental:
        manifest = new / "test-case.toml"
        manifest.write_text("experimental = true\n" + manifest.read_text())
    return new


def test_a_repeated_prompt_is_the_same_text_without_parsing_the_case(tmp_path, catalog):
    code, first_modules, first, err = run(tmp_path, catalog, "prompt", "lights-out", "--variant", "torus")
    assert code == 0, err
    assert parsed(first_modules) == {"tcab.catalog.model", "tcab.catalog.manifest", "tcab.templates"}
    assert len(answers(tmp_path)) == 1
    code, modules, again, err = run(tmp_path, catalog, "prompt", "lights-out", "--variant", "torus")
    assert code == 0, err
    assert again == first and "torus" in again
    assert parsed(modules) == set()
    # Other arguments are another question: answered in full, and kept apart.
    code, modules, classic, _ = run(tmp_path, catalog, "prompt", "lights-out")
    assert code == 0 and classic != first and "tcab.catalog.model" in modules
    assert len(answers(tmp_path)) == 2


def test_a_change_to_any_version_of_the_case_is_seen_by_the_next_command(tmp_path, catalog):
    run(tmp_path, catalog, "prompt", "lights-out")
    newer = add_version(catalog, "v1.1.0", "NEWER VERSION")
    code, modules, out, _ = run(tmp_path, catalog, "prompt", "lights-out")
    assert code == 0 and out.startswith("NEWER VERSION") and "tcab.catalog.model" in modules
    # The newest version becoming experimental sends the reference back to v1.0.0.
    manifest = newer / "test-case.toml"
    manifest.write_text("experimental = true\n" + manifest.read_text())
    code, _, out, _ = run(tmp_path, catalog, "prompt", "lights-out")
    assert code == 0 and not out.startswith("NEWER VERSION")
    code, _, out, _ = run(tmp_path, catalog, "prompt", "lights-out", "--experimental")
    assert code == 0 and out.startswith("NEWER VERSION")


def test_a_second_case_folder_with_the_slug_is_reported_not_answered_from_before(tmp_path, catalog):
    assert run(tmp_path, catalog, "prompt", "lights-out")[0] == 0
    shutil.copytree(catalog / "end-to-end/easy/lights-out", catalog / "end-to-end/hard/lights-out",
                    symlinks=True)
    code, _, out, err = run(tmp_path, catalog, "prompt", "lights-out")
    assert code == 2 and out == "" and "slug of more than one case folder" in err


def test_a_repeated_seed_copies_the_entry_without_parsing_the_case(tmp_path, catalog):
    code, modules, out, err = run(tmp_path, catalog, "seed", "lights-out", "--json")
    assert code == 0 and "pygit2" in modules, err
    first = json.loads(out)
    [entry] = (tmp_path / "build/seed-cache").glob("*/*/classic")
    (entry / "repo/MARK").write_text("from the cache")
    code, modules, out, err = run(tmp_path, catalog, "seed", "lights-out", "--json")
    assert code == 0, err
    again = json.loads(out)
    assert parsed(modules) == set()
    assert again == first  # same case, version, variant, commit, path, files
    assert (Path(again["path"]) / "MARK").read_text() == "from the cache"
    # An --out that exists is refused on this path too, and nothing is written.
    taken = tmp_path / "taken"
    taken.mkdir()
    code, _, _, err = run(tmp_path, catalog, "seed", "lights-out", "--out", str(taken))
    assert code == 2 and f"{taken}: already exists" in err and list(taken.iterdir()) == []


def test_a_seed_whose_entry_is_gone_is_seeded_again(tmp_path, catalog):
    run(tmp_path, catalog, "seed", "lights-out")
    [entry] = (tmp_path / "build/seed-cache").glob("*/*/classic")
    shutil.rmtree(entry)
    code, modules, out, err = run(tmp_path, catalog, "seed", "lights-out")
    assert code == 0 and "pygit2" in modules, err
    assert (entry / "files.json").is_file()


@pytest.mark.parametrize("damage", [
    "not json",
    json.dumps({"slug": "lights-out"}),
    # Names that would lead the copy out of the seed cache.
    json.dumps({"slug": "lights-out", "version": "v1.0.0", "variant": "../../../etc",
                "digest": "0" * 64, "has_mockups": False, "prompt": "forged"}),
    json.dumps({"slug": "lights-out", "version": "v1.0.0", "variant": "classic",
                "digest": "../" * 5, "has_mockups": False, "prompt": "forged"}),
    json.dumps({"slug": "lights-out", "version": "v1.0.0/../../../x", "variant": "classic",
                "digest": "0" * 64, "has_mockups": False, "prompt": "forged"}),
    json.dumps({"slug": "lights-out", "version": "v1.0.0", "variant": "classic",
                "digest": "0" * 64, "has_mockups": "no", "prompt": "forged"}),
])
def test_a_malformed_answer_is_answered_in_full_and_replaced(tmp_path, catalog, damage):
    _, _, expected, _ = run(tmp_path, catalog, "prompt", "lights-out")
    [answer] = answers(tmp_path)
    answer.write_text(damage)
    code, modules, out, err = run(tmp_path, catalog, "prompt", "lights-out")
    assert code == 0 and out == expected and "tcab.catalog.model" in modules, err
    assert json.loads(answer.read_text())["prompt"] == expected
    code, _, out, err = run(tmp_path, catalog, "seed", "lights-out", "--json")
    assert code == 0 and json.loads(out)["path"] == str(tmp_path / "tmp/seeds/lights-out-v1.0.0-classic"), err


def test_a_fifo_in_the_case_folder_does_not_hang_the_command(tmp_path, catalog):
    # Digesting the case folder opens every file in it; a FIFO would block that
    # open forever. It is not a file a case can hold: no answer is kept, and
    # the command answers in full (which never opens it).
    old = catalog / "end-to-end/easy/lights-out/v0.9.0"
    old.mkdir()
    os.mkfifo(old / "notes.md")
    code, _, out, err = run(tmp_path, catalog, "prompt", "lights-out")
    assert code == 0 and "Lights Out" in out, err
    assert answers(tmp_path) == []


def test_a_build_folder_that_cannot_be_written_keeps_no_answer_and_the_prompt_is_still_printed(tmp_path, catalog):
    (tmp_path / "build").write_text("a file where the build folder should be")
    code, _, out, err = run(tmp_path, catalog, "prompt", "lights-out")
    assert code == 0 and "Lights Out" in out, err
    assert (tmp_path / "build").is_file()
