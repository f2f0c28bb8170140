"""`tcab run` and `tcab cleanup` as a user runs them: exit codes, JSON, signals."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tcab.runtime import ContainerSpec

REPO = Path(__file__).resolve().parents[2]


def _env(settings) -> dict[str, str]:
    return {**os.environ, "TCAB_CATALOG": str(settings.catalog_dir),
            "TCAB_HARNESSES": str(settings.harnesses_dir), "TCAB_RESULTS": str(settings.results_dir),
            "TCAB_TMP": str(settings.tmp_dir)}


def _tcab(settings, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tcab", *args], env=_env(settings), cwd=settings.root,
                          capture_output=True, text=True, timeout=120)


def test_run_json_and_exit_codes(settings, scripted, podman_runtime) -> None:
    scripted("echo hello from the agent", slug="says-hello")
    scripted("exit 9", slug="fails")
    ok = _tcab(settings, "run", "lights-out", "--harness", "says-hello", "--json")
    assert ok.returncode == 0, ok.stderr
    doc = json.loads(ok.stdout)
    assert doc["status"] == "completed" and doc["subject"]["harness"] == "says-hello"
    assert podman_runtime.list_run_containers(doc["id"]) == []

    bad = _tcab(settings, "run", "lights-out", "--harness", "fails")
    assert bad.returncode == 1 and "harness_error" in bad.stdout

    unknown = _tcab(settings, "run", "lights-out", "--harness", "nope")
    assert unknown.returncode == 2 and "unknown harness 'nope'" in unknown.stderr
    assert "Traceback" not in unknown.stderr


def test_sigterm_cancels_and_records(settings, scripted, podman_runtime) -> None:
    scripted("echo agent-started; sleep 300", slug="sleeper")
    proc = subprocess.Popen([sys.executable, "-m", "tcab", "run", "lights-out", "--harness", "sleeper"],
                            env={**_env(settings), "COLUMNS": "200"}, cwd=settings.root,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 60
    for line in proc.stdout:
        if "agent-started" in line or time.monotonic() > deadline:
            break
    proc.send_signal(signal.SIGTERM)
    rest, _ = proc.communicate(timeout=60)
    assert proc.returncode == 130, rest
    (run_json,) = (settings.results_dir / "runs").glob("*/run.json")
    doc = json.loads(run_json.read_text())
    assert doc["status"] == "canceled"
    assert podman_runtime.list_run_containers(doc["id"]) == []


def test_cleanup_removes_leftovers(settings, podman_runtime, base_image) -> None:
    left = podman_runtime.start(ContainerSpec(image=base_image, run_id="test-leftover-run"))
    result = _tcab(settings, "cleanup", "--run-id", "test-leftover-run", "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {"removed": [left]}
    assert podman_runtime.list_run_containers("test-leftover-run") == []
