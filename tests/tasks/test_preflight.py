"""Before a sweep runs: everything the plan needs and lacks, in one message, exit 2,
nothing written; once running, one failed run does not stop the others."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tcab.tasks import load_sweep_or_exit
from tcab.tasks.preflight import wants_preflight
from tests.tasks.sweep_fakes import make_executors

ROOT = Path(__file__).resolve().parents[2]

KEYED = 'slug = "keyed"\nname = "Keyed"\nargs = ["-c", "true"]\nsecrets = ["TCAB_TEST_KEY_A", "TCAB_TEST_KEY_B"]\n'
PLAN = """\
name: keys
runs:
  - cases:
      - case: mini
        variants: all
      - duel
    harnesses:
      - keyed
      - scripted
    repeats: 2
report: no
"""


@pytest.mark.parametrize(("argv", "wanted"), [
    ([], True),
    (["run"], True),
    (["-n", "16", "plan=plans/agents.yaml"], True),
    (["run", "--process=4", "-v", "2", "--continue"], True),
    (["-n4", "run"], True),
    (["list"], False),
    (["info", "run:mini/v1.0.0/one/keyed/1"], False),
    (["clean"], False),
    (["forget"], False),
    (["run:mini/v1.0.0/one/keyed/1"], False),
    (["run", "-n", "2", "report"], False),
])
def test_only_a_whole_sweep_is_checked(argv, wanted):
    assert wants_preflight(argv) is wanted


def _keyed_project(project) -> None:
    project.path("harnesses/keyed.toml").write_text(KEYED)
    project.path("benchmark.yaml").write_text(PLAN)


def _files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def test_everything_missing_is_one_message_and_nothing_is_written(project, capsys):
    _keyed_project(project)
    (project.root / "images").mkdir()
    (project.root / "images" / "base-wasm").write_text("missing\n")
    (project.root / "images" / "adversarial").write_text("missing\n")  # duel's run and build image
    before = _files(project.root)
    env = {"TCAB_TEST_KEY_B": "   "}  # set but blank is missing too
    with pytest.raises(SystemExit) as exc:
        load_sweep_or_exit(None, argv=["-n", "2"], root=project.root, executors=make_executors(project.root), env=env)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: sweep keys ")
    assert "4 missing" in err
    assert "secret TCAB_TEST_KEY_A is not set (needed by keyed (6 runs))" in err
    assert "secret TCAB_TEST_KEY_B is not set" in err
    assert "image base-wasm: image base-wasm: not found on the runtime" in err
    assert "image adversarial: image adversarial: not found on the runtime" in err
    assert "Traceback" not in err
    assert _files(project.root) == before, "the preflight wrote something"
    assert project.calls() == []


def test_a_complete_machine_passes_and_list_needs_no_keys(project):
    _keyed_project(project)
    env = {"TCAB_TEST_KEY_A": "a", "TCAB_TEST_KEY_B": "b"}
    assert load_sweep_or_exit(None, argv=[], root=project.root, executors=make_executors(project.root), env=env)
    assert load_sweep_or_exit(None, argv=["list"], root=project.root, executors=make_executors(project.root), env={})


def test_runs_already_done_need_no_keys(project, monkeypatch, capsys):
    _keyed_project(project)
    monkeypatch.setenv("TCAB_TEST_KEY_A", "a")
    monkeypatch.setenv("TCAB_TEST_KEY_B", "b")
    code, _, _ = project.doit()
    assert code == 0
    # The keys are gone, but every run is recorded: a no-op sweep starts.
    assert load_sweep_or_exit(None, argv=[], root=project.root, executors=make_executors(project.root), env={})


def test_a_no_op_sweep_with_the_runtime_gone_is_one_message(project, capsys):
    """Recorded runs need no keys, but their images' digests are their inputs:
    with the engine gone the preflight names the images once (exit 2), rather
    than every run task failing on its own."""
    _keyed_project(project)
    env = {"TCAB_TEST_KEY_A": "a", "TCAB_TEST_KEY_B": "b"}
    assert project.doit()[0] == 0
    (project.root / "images").mkdir()
    for kind in ("base-wasm", "adversarial"):  # what the fake's lookup says when the engine is gone
        (project.root / "images" / kind).write_text("missing\n")
    with pytest.raises(SystemExit) as stop:
        load_sweep_or_exit(None, argv=[], root=project.root, executors=make_executors(project.root), env=env)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert "image base-wasm" in err and "image adversarial" in err and "secret" not in err


def test_a_failed_run_does_not_stop_the_sweep_and_the_end_says_why(project, monkeypatch):
    monkeypatch.setenv("TCAB_FAKE_STATUS", "scripted:infrastructure")
    code, ran, out = project.doit()  # no --continue: it is the sweep's default
    assert code != 0
    records = project.path("results/sweep/runs")
    assert len(list(records.rglob("reference/1.json"))) == 3, "the other runs went on"
    tail = out[out.index("sweep small:"):]
    assert "failed (3):" in tail
    assert "  run:duel/v1.0.0/base/scripted/1: run duel/v1.0.0/base/scripted/1 ended infrastructure" in tail
    assert "skipped (" in tail
    assert "  build:duel/v1.0.0/base/scripted/1: depends on failed run:duel/v1.0.0/base/scripted/1" in tail
    assert "validate:mini/v1.0.0/one/scripted/1: depends on failed run:mini/v1.0.0/one/scripted/1" in tail


def test_dodo_runs_the_preflight_for_doit_but_not_for_doit_list(tmp_path):
    """The real dodo.py, as an operator starts it: a harness whose key is not set."""
    (tmp_path / "plan.yaml").write_text(
        "name: nokey\nruns:\n  - cases:\n      - lights-out\n    harnesses:\n      - claude-code\nreport: no\n")
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    env.update(TCAB_CATALOG=str(ROOT / "test-cases"), TCAB_HARNESSES=str(ROOT / "harnesses"),
               PYTHONPATH=str(ROOT))
    base = [sys.executable, "-m", "doit", "-f", str(ROOT / "dodo.py"), "-d", str(tmp_path)]
    plan = f"plan={tmp_path / 'plan.yaml'}"
    done = subprocess.run([*base, plan], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stderr
    assert "secret ANTHROPIC_API_KEY is not set (needed by claude-code (1 runs))" in done.stderr
    assert "Traceback" not in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plan.yaml"], "nothing written"
    listed = subprocess.run([*base[:3], "list", "-f", str(ROOT / "dodo.py"), "-d", str(tmp_path), plan],
                            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert listed.returncode == 0, listed.stderr
