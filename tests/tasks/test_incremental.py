"""Change each kind of input in turn and assert the EXACT set of tasks that re-run.

The sweep (tests/tasks/fixtures/plan.yaml) is 2 cases x their variants x 2
harnesses plus a tournament of the duel case's two baselines and its
reference run. Runs answer through a function (sweep_fakes), so this tests
the task layer: nothing stale, nothing redundant.
"""

from __future__ import annotations

import shutil

import pytest

MINI = "test-cases/end-to-end/easy/mini/v1.0.0"
DUEL = "test-cases/adversarial/easy/duel/v1.0.0"

ALL_TASKS = {
    "seed:mini/v1.0.0/one", "seed:mini/v1.0.0/two", "seed:duel/v1.0.0/base",
    "prompt:mini/v1.0.0/one", "prompt:mini/v1.0.0/two", "prompt:duel/v1.0.0/base",
    "run:mini/v1.0.0/one/reference/1", "run:mini/v1.0.0/one/scripted/1",
    "run:mini/v1.0.0/two/reference/1", "run:mini/v1.0.0/two/scripted/1",
    "run:duel/v1.0.0/base/reference/1", "run:duel/v1.0.0/base/scripted/1",
    "build:duel/v1.0.0/base/reference/1", "build:duel/v1.0.0/base/scripted/1",
    "build:duel/v1.0.0/baseline/left", "build:duel/v1.0.0/baseline/right",
    "validate:mini/v1.0.0/one/reference/1", "validate:mini/v1.0.0/one/scripted/1",
    "validate:mini/v1.0.0/two/reference/1", "validate:mini/v1.0.0/two/scripted/1",
    "entrants:duel-cup", "tournament:duel-cup", "replay:duel-cup", "manifest", "report",
}
TAIL = {"manifest", "report"}
CUP = {"entrants:duel-cup", "tournament:duel-cup", "replay:duel-cup"}
PLAY = {"tournament:duel-cup", "replay:duel-cup"}
MINI_VALIDATIONS = {t for t in ALL_TASKS if t.startswith("validate:")}


def test_first_sweep_runs_everything_and_second_nothing(project):
    code, ran, _ = project.doit()
    assert code == 0 and ran == ALL_TASKS
    code, ran, out = project.doit()
    assert code == 0 and ran == set()
    assert f"nothing to do, all {len(ALL_TASKS)} tasks up to date" in out
    assert sorted(project.calls()).count("report") == 1


def _rules_edit(p):
    p.edit(f"{DUEL}/game/rules.py", "# harder\n")


CHANGES = {
    # A common spec of mini: both of its seeds, then its runs and their
    # validations; prompts do not read specs.
    "spec": (
        lambda p: p.edit(f"{MINI}/specs/overview.md", "More.\n"),
        {"seed:mini/v1.0.0/one", "seed:mini/v1.0.0/two",
         "run:mini/v1.0.0/one/reference/1", "run:mini/v1.0.0/one/scripted/1",
         "run:mini/v1.0.0/two/reference/1", "run:mini/v1.0.0/two/scripted/1"} | MINI_VALIDATIONS | TAIL,
    ),
    # A workspace file of duel: its seed, runs, their builds, the tournament; and
    # the baselines' builds, which lay the default workspace under each baseline
    # (the module's key holds it: tcab.artifacts.baseline_module_key).
    "workspace file": (
        lambda p: p.edit(f"{DUEL}/workspace/bot.zig", "// more\n"),
        {"seed:duel/v1.0.0/base", "run:duel/v1.0.0/base/reference/1", "run:duel/v1.0.0/base/scripted/1",
         "build:duel/v1.0.0/base/reference/1", "build:duel/v1.0.0/base/scripted/1",
         "build:duel/v1.0.0/baseline/left", "build:duel/v1.0.0/baseline/right"} | CUP | TAIL,
    ),
    # The adversarial image: duel's runs, the modules built from them (in that
    # image), the tournament; not the baselines (built on the host).
    "adversarial image digest": (
        lambda p: (p.path("images").mkdir(exist_ok=True),
                   p.path("images/adversarial").write_text("sha256:adversarial-1")),
        {"run:duel/v1.0.0/base/reference/1", "run:duel/v1.0.0/base/scripted/1",
         "build:duel/v1.0.0/base/reference/1", "build:duel/v1.0.0/base/scripted/1"} | CUP | TAIL,
    ),
    # One variant file: that variant's seed and prompt and runs, not the other variant's.
    "variant": (
        lambda p: p.path(f"{MINI}/variants/two.toml").write_text(
            p.path(f"{MINI}/variants/two.toml").read_text().replace("size = 4", "size = 6")),
        {"seed:mini/v1.0.0/two", "prompt:mini/v1.0.0/two",
         "run:mini/v1.0.0/two/reference/1", "run:mini/v1.0.0/two/scripted/1",
         "validate:mini/v1.0.0/two/reference/1", "validate:mini/v1.0.0/two/scripted/1"} | TAIL,
    ),
    # A harness definition: its runs everywhere and what is built from them.
    "harness definition": (
        lambda p: p.edit("harnesses/scripted.toml", 'description = "v2"\n'),
        {"run:mini/v1.0.0/one/scripted/1", "run:mini/v1.0.0/two/scripted/1",
         "run:duel/v1.0.0/base/scripted/1", "build:duel/v1.0.0/base/scripted/1",
         "validate:mini/v1.0.0/one/scripted/1", "validate:mini/v1.0.0/two/scripted/1"} | TAIL,
    ),
    # The end-to-end image: the runs of the end-to-end case and their validations only.
    "image digest": (
        lambda p: (p.path("images").mkdir(exist_ok=True),
                   p.path("images/base-wasm").write_text("sha256:base-wasm-1")),
        {"run:mini/v1.0.0/one/reference/1", "run:mini/v1.0.0/one/scripted/1",
         "run:mini/v1.0.0/two/reference/1", "run:mini/v1.0.0/two/scripted/1"} | MINI_VALIDATIONS | TAIL,
    ),
    # A baseline controller's source: its build and the tournament.
    "controller source": (
        lambda p: p.edit(f"{DUEL}/baselines/left/bot.zig", "// smarter\n"),
        {"build:duel/v1.0.0/baseline/left"} | CUP | TAIL,
    ),
    # The game rules: the tournament only; no seed, run or build.
    "game rules": (_rules_edit, PLAY | TAIL),
    # The plan: more rounds replays the tournament; the field is unchanged.
    "plan: tournament rounds": (
        lambda p: p.path("benchmark.yaml").write_text(
            p.path("benchmark.yaml").read_text().replace("rounds: 2", "rounds: 3")),
        PLAY | TAIL,
    ),
    # The plan: a second repeat adds runs (and builds, and a contestant); repeat 1 is kept.
    "plan: repeats": (
        lambda p: p.path("benchmark.yaml").write_text(
            p.path("benchmark.yaml").read_text().replace("      - scripted\n", "      - scripted\n    repeats: 2\n")),
        {"run:mini/v1.0.0/one/reference/2", "run:mini/v1.0.0/one/scripted/2",
         "run:mini/v1.0.0/two/reference/2", "run:mini/v1.0.0/two/scripted/2",
         "run:duel/v1.0.0/base/reference/2", "run:duel/v1.0.0/base/scripted/2",
         "build:duel/v1.0.0/base/reference/2", "build:duel/v1.0.0/base/scripted/2",
         "validate:mini/v1.0.0/one/reference/2", "validate:mini/v1.0.0/one/scripted/2",
         "validate:mini/v1.0.0/two/reference/2", "validate:mini/v1.0.0/two/scripted/2"} | CUP | TAIL,
    ),
    # The plan: runtime settings are part of every run's plan entry.
    "plan: runtime settings": (
        lambda p: p.path("benchmark.yaml").write_text(
            "runtime:\n  settings:\n    idle_timeout_s: 60\n" + p.path("benchmark.yaml").read_text()),
        {t for t in ALL_TASKS if t.startswith(("run:", "build:duel/v1.0.0/base/", "validate:"))} | CUP | TAIL,
    ),
}


@pytest.mark.parametrize("change", sorted(CHANGES))
def test_a_change_reruns_exactly_what_depends_on_it(project, change):
    mutate, expected = CHANGES[change]
    code, ran, _ = project.doit()
    assert code == 0 and ran == ALL_TASKS
    mutate(project)
    code, ran, out = project.doit()
    assert code == 0, out
    assert ran == expected, f"unexpected: {sorted(ran - expected)}; missing: {sorted(expected - ran)}"
    code, ran, _ = project.doit()
    assert code == 0 and ran == set(), "a second sweep after the change must do nothing"


def test_forgetting_a_run_redoes_that_run_and_its_dependents_only(project):
    project.doit()
    project.path("results/sweep/runs/duel/v1.0.0/base/reference/1.json").unlink()
    code, ran, _ = project.doit()
    assert ran == {"run:duel/v1.0.0/base/reference/1", "build:duel/v1.0.0/base/reference/1"} | CUP | TAIL


def test_an_identical_rewrite_of_an_input_reruns_nothing(project):
    project.doit()
    spec = project.path(f"{MINI}/specs/overview.md")
    spec.write_bytes(spec.read_bytes())  # new mtime, same content: digests, not times
    code, ran, _ = project.doit()
    assert ran == set()


def test_one_task_by_name_does_one_thing(project):
    code, ran, _ = project.doit("seed:mini/v1.0.0/one")
    assert code == 0 and ran == {"seed:mini/v1.0.0/one"}
    code, ran, _ = project.doit("run:mini/v1.0.0/one/scripted/1")
    assert ran == {"prompt:mini/v1.0.0/one", "run:mini/v1.0.0/one/scripted/1"}
    assert project.calls() == ["run mini/v1.0.0/one/scripted/1"]


def test_a_restored_build_cache_is_up_to_date_on_another_machine(project, tmp_path):
    from tests.tasks.sweep_project import Project

    project.doit()
    # Another checkout at another path; build/ restored by a CI cache with new
    # mtimes and without doit's state file: digests, not times or paths.
    other = Project(tmp_path / "elsewhere")
    shutil.copytree(project.path("build"), other.path("build"), copy_function=shutil.copy)
    pure = ["seed", "prompt", "build:duel/v1.0.0/baseline/left", "build:duel/v1.0.0/baseline/right"]
    code, ran, _ = other.doit(*pure)
    assert code == 0 and ran == set()
    assert other.calls() == []
