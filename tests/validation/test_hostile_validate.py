"""Hostile output through the whole of validation (real Podman, real Chromium):
nothing of the host reaches validation.json or results.db, a spinning page
ends `tcab validate` at its wall time, bad limits are refused."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tcab.catalog import resolve_case
from tcab.results import open_db, record_validation
from tcab.validation import BrowserLimits, validate_run


def _tcab(settings, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "TCAB_CATALOG": str(settings.catalog_dir), "TCAB_HARNESSES": str(settings.harnesses_dir),
           "TCAB_RESULTS": str(settings.results_dir), "TCAB_TMP": str(settings.tmp_dir),
           "TCAB_BUILD": str(settings.build_dir)}
    return subprocess.run([sys.executable, "-m", "tcab", "validate", *args], env=env, cwd=settings.root,
                          capture_output=True, text=True, timeout=200)


class PlantingRuntime:
    """The real runtime, except that the collected output also holds links to
    the host: what a collection fooled by a link chain would leave (issue 8,
    item 1). Validation must not serve them whatever collection lets through."""

    def __init__(self, runtime, plant):
        self._runtime = runtime
        self._plant = plant

    def __getattr__(self, name):
        return getattr(self._runtime, name)

    def copy_out(self, container, src, dest, limits=None):
        report = self._runtime.copy_out(container, src, dest, limits)
        self._plant(dest)
        return report


@pytest.mark.timeout(240)
def test_host_files_linked_from_the_output_never_reach_the_record(settings, make_run, podman_runtime,
                                                                  tmp_path: Path) -> None:
    secret = f"CANARY-{uuid.uuid4().hex}"
    shadow = tmp_path / "host" / "shadow"
    shadow.parent.mkdir()
    shadow.write_text(secret + "\n")
    page = """<!doctype html><title>leak</title><script>
    for (const p of ['secret', 'hostdir/shadow', 'root/etc/hostname'])
      fetch(p).then(r => r.text()).then(t => { document.title = t; console.error(t); throw new Error(t); });
    </script>"""
    run = make_run("leak", {"src/index.html": page})

    def plant(dest: Path) -> None:
        os.symlink(shadow, dest / "secret")
        os.symlink(shadow.parent, dest / "hostdir")
        os.symlink("/", dest / "root")

    case = resolve_case(settings.catalog_dir, run.case_slug, run.case_version)
    record = validate_run(settings, case, run, runtime=PlantingRuntime(podman_runtime, plant),
                          browser=BrowserLimits(settle_s=1.0, wall_time_s=60))
    assert record.status == "failed" and record.detail.startswith("errors: "), record.detail
    assert "404" in record.detail
    db = open_db(settings.results_db)
    record_validation(db, record.row())
    db.close()
    written = [settings.runs_dir / "leak" / "validation" / "validation.json", settings.results_db]
    for path in written:
        assert secret.encode() not in path.read_bytes(), path
    assert podman_runtime.list_run_containers("validate-leak") == []


@pytest.mark.timeout(240)
def test_a_spinning_page_ends_tcab_validate_at_its_browser_timeout(settings, make_run, podman_runtime) -> None:
    spin = "<!doctype html><title>spin</title><script>addEventListener('load', () => { for (;;) {} });</script>"
    make_run("spin", {"src/index.html": spin})
    started = time.monotonic()
    out = _tcab(settings, "spin", "--json", "--settle", "0.2", "--browser-timeout", "10")
    took = time.monotonic() - started
    assert out.returncode == 1, out.stderr
    doc = json.loads(out.stdout)
    # It spins inside its own load handler: load never completes, so there never was a page.
    assert doc["status"] == "catastrophic"
    assert doc["detail"].startswith("timeout: the browser check did not finish within 10s")
    assert took < 150, took
    with sqlite3.connect(settings.results_db) as conn:
        assert conn.execute("SELECT status FROM validations WHERE run_id = 'spin'").fetchone() == ("catastrophic",)


def test_limits_that_are_not_finite_and_positive_are_refused(settings, make_run) -> None:
    make_run("any")
    for option, value in (("--browser-timeout", "nan"), ("--load-timeout", "inf"), ("--settle", "nan"),
                          ("--browser-timeout", "0"), ("--settle", "-1")):
        out = _tcab(settings, "any", option, value)
        assert out.returncode == 2, (option, value, out.stderr)
        # Refused at the CLI's edge, naming the option (tcab/cli/params.py).
        assert f"Invalid value for '{option}': expected a finite number" in out.stderr, out.stderr
        assert "Traceback" not in out.stderr, out.stderr
    # Refused before anything ran: no container, no record, no row.
    assert not settings.results_db.exists()
    assert not (settings.runs_dir / "any" / "validation").exists()
