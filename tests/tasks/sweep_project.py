"""A small sweep project in a temporary folder, and a way to run doit on it in-process
(shared by the task tests; ``conftest.py`` only turns it into a fixture)."""

from __future__ import annotations

import contextlib
import io
import shutil
from pathlib import Path

from doit.cmd_base import ModuleTaskLoader
from doit.doit_cmd import DoitMain

HERE = Path(__file__).parent
FIXTURES = HERE / "fixtures"
HARNESSES = {
    "reference": 'slug = "reference"\nname = "Reference"\nstage_solution = true\n',
    "scripted": 'slug = "scripted"\nname = "Scripted"\nargs = ["-c", "true"]\n',
}

DODO = f'''
import sys
sys.path.insert(0, {str(HERE)!r})
from doit import get_var
from sweep_fakes import make_executors
from tcab.tasks import load_sweep

_sweep = load_sweep(get_var("plan"), root={{root!r}}, executors=make_executors({{root!r}}), env={{{{}}}})
DOIT_CONFIG = _sweep.doit_config
task_seed = _sweep.task_seed
task_prompt = _sweep.task_prompt
task_runs = _sweep.task_runs
task_after_run = _sweep.task_after_run
task_entrants = _sweep.task_entrants
task_tournament = _sweep.task_tournament
task_replay = _sweep.task_replay
task_manifest = _sweep.task_manifest
task_report = _sweep.task_report
'''


class Project:
    """A temporary sweep project: catalog, harnesses, plan, dodo.py."""

    def __init__(self, root: Path):
        self.root = root
        shutil.copytree(FIXTURES / "catalog", root / "test-cases")
        (root / "harnesses").mkdir()
        for slug, text in HARNESSES.items():
            (root / "harnesses" / f"{slug}.toml").write_text(text)
        shutil.copyfile(FIXTURES / "plan.yaml", root / "benchmark.yaml")
        (root / "dodo.py").write_text(DODO.format(root=str(root)))

    def path(self, rel: str) -> Path:
        return self.root / rel

    def edit(self, rel: str, append: str) -> None:
        with open(self.root / rel, "a", encoding="utf-8") as fh:
            fh.write(append)

    def calls(self) -> list[str]:
        log = self.root / "calls.log"
        return log.read_text().splitlines() if log.exists() else []

    def doit(self, *args: str) -> tuple[int, set[str], str]:
        """Run doit in this process; return (exit code, executed task names, output)."""
        from tcab.tasks import load_sweep
        from tests.tasks.sweep_fakes import make_executors

        plan = next((a.split("=", 1)[1] for a in args if a.startswith("plan=")), None)
        sweep = load_sweep(plan, root=self.root, executors=make_executors(self.root), env={})
        out = io.StringIO()
        namespace = {"DOIT_CONFIG": {**sweep.doit_config, "num_process": 0, "outfile": out}}
        for name in dir(sweep):
            if name.startswith("task_"):
                namespace[name] = getattr(sweep, name)
        with contextlib.chdir(self.root):
            code = DoitMain(ModuleTaskLoader(namespace), config_filenames=()).run(list(args))
        text = out.getvalue()
        ran = {line[3:].strip() for line in text.splitlines() if line.startswith(".  ")}
        return code, ran, text
