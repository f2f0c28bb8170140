"""A run id on the command line is resolved once, at the edge (open_run):
a bad id, an unknown run, a garbled run.json or a case gone from the
catalog is exit 2 with the reason, before any container starts."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tcab.catalog import resolve_case
from tcab.cli.runref import open_run
from tcab.errors import CatalogError, RunError
from tcab.settings import Settings
from tests.support.run_folders import write_run


def test_open_run_gives_the_record_and_its_case(settings: Settings) -> None:
    lights_out = resolve_case(settings.catalog_dir, "lights-out@v1.0.0")
    written = write_run(settings.runs_dir, "r1", lights_out, variant="classic")
    case, run = open_run(settings, "r1")
    assert run == written and case.ref == "lights-out@v1.0.0" and case.root == lights_out.root


def test_a_case_gone_from_the_catalog_names_the_run(settings: Settings) -> None:
    write_run(settings.runs_dir, "r2", resolve_case(settings.catalog_dir, "lights-out"))
    path = settings.runs_dir / "r2" / "run.json"
    doc = json.loads(path.read_text())
    doc["subject"]["version"] = "v9.9.9"
    path.write_text(json.dumps(doc))
    with pytest.raises(CatalogError, match=r"r2/run.json: the run's case lights-out@v9.9.9 is not in the catalog"):
        open_run(settings, "r2")


def _tcab(settings: Settings, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "TCAB_CATALOG": str(settings.catalog_dir), "TCAB_RESULTS": str(settings.results_dir),
           "TCAB_BUILD": str(settings.build_dir), "TCAB_TMP": str(settings.tmp_dir)}
    return subprocess.run([sys.executable, "-m", "tcab", *args], env=env, capture_output=True, text=True,
                          timeout=120)


@pytest.mark.parametrize("command", ["build", "validate"])
def test_bad_ids_and_garbled_records_exit_2(settings: Settings, command: str) -> None:
    write_run(settings.runs_dir, "garbled", resolve_case(settings.catalog_dir, "lights-out"))
    (settings.runs_dir / "garbled" / "run.json").write_text('{"id": "garbled", "status": ')
    cases = {"../escape": "not a run id", ".hidden": "not a run id", "a/b": "not a run id",
             "x" * 300: "not a run id", "missing": "no such run 'missing'",
             "garbled": "garbled/run.json: not a readable run record"}
    for run_id, message in cases.items():
        out = _tcab(settings, command, run_id)
        assert out.returncode == 2, (run_id, out.stderr)
        assert message in out.stderr and "Traceback" not in out.stderr, out.stderr
    with pytest.raises(RunError):
        open_run(settings, "garbled")
