"""`tcab run` and `tcab cleanup` as a user runs them: exit codes, JSON, signals."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from tcab.runtime import ContainerSpec
from tests.support.settings import cli_env, run_tcab


def _tcab(settings, *args: str) -> subprocess.CompletedProcess:
    return run_tcab(settings, *args)


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
                            env={**cli_env(settings), "COLUMNS": "200"}, cwd=settings.root,
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


@pytest.mark.timeout(400)
@pytest.mark.parametrize("gap_s", [0.3, 0.6, 0.9])
def test_a_second_ctrl_c_during_cleanup_keeps_the_record(settings, scripted, podman_runtime, gap_s) -> None:
    """Two Ctrl-C ``gap_s`` apart: the second lands while the container is
    removed or the record is written, and must not cut either."""
    scripted("echo agent-started; sleep 300", slug="sleeper")
    proc = subprocess.Popen([sys.executable, "-m", "tcab", "run", "lights-out", "--harness", "sleeper"],
                            env={**cli_env(settings), "COLUMNS": "200"}, cwd=settings.root,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            # A background process would otherwise start with SIGINT ignored.
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 60
    for line in proc.stdout:
        if "agent-started" in line or time.monotonic() > deadline:
            break
    proc.send_signal(signal.SIGINT)
    time.sleep(gap_s)
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
    rest, _ = proc.communicate(timeout=120)
    assert proc.returncode == 130, rest
    assert "Traceback" not in rest, rest
    (run_json,) = (settings.results_dir / "runs").glob("*/run.json")
    doc = json.loads(run_json.read_text())
    assert doc["status"] == "canceled"
    with sqlite3.connect(settings.results_db) as db:
        rows = db.execute("SELECT status FROM runs WHERE id = ?", [doc["id"]]).fetchall()
    assert rows == [("canceled",)], rest
    assert podman_runtime.list_run_containers(doc["id"]) == []


def test_cleanup_removes_leftovers(settings, podman_runtime, base_image) -> None:
    left = podman_runtime.start(ContainerSpec(image=base_image, run_id="test-leftover-run"))
    result = _tcab(settings, "cleanup", "--run-id", "test-leftover-run", "--json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    # Stale preview firewall rules (a killed watch's) go too: tests/watch/test_watched_run.py.
    assert doc["removed"] == [left] and isinstance(doc["preview_rules_removed"], int), doc
    assert podman_runtime.list_run_containers("test-leftover-run") == []


def test_limits_that_would_switch_a_watchdog_off_are_refused(settings, scripted) -> None:
    scripted("echo never", slug="never")
    for option, value in [("--max-runtime", "nan"), ("--max-runtime", "inf"), ("--max-runtime", "-1"),
                          ("--max-runtime", "0"), ("--max-runtime", "1e308"), ("--idle-timeout", "nan"),
                          ("--idle-timeout", "-inf"), ("--idle-timeout", "0"), ("--idle-timeout", "lots")]:
        result = _tcab(settings, "run", "lights-out", "--harness", "never", option, value)
        assert result.returncode == 2, (option, value, result.stdout, result.stderr)
        assert f"'{option}'" in result.stderr and "Traceback" not in result.stderr, result.stderr
        assert "finite" in result.stderr
    assert not (settings.results_dir / "runs").exists()


def test_hostile_output_cannot_break_or_restyle_the_terminal(settings, scripted, podman_runtime) -> None:
    # Rich markup and terminal escapes in what a harness prints (and so in
    # its status detail and version) are shown as plain text.
    scripted("echo '[/dim] [bold red]fake[/] [link=http://x]'; printf '\\033]0;title\\007\\033[2Jcleared\\n'; "
             "echo '[/]' >&2; exit 4", slug="markup", version_args=["-c", "echo '[/red] v1'"])
    result = _tcab(settings, "run", "lights-out", "--harness", "markup")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stdout + result.stderr
    assert "[/dim] [bold red]fake[/] [link=http://x]" in result.stdout
    assert "[/red] v1" in result.stdout and "cleared" in result.stdout
    assert "\x1b]0;" not in result.stdout and "\x1b[2J" not in result.stdout


def test_a_daemon_that_is_gone_exits_with_the_infrastructure_code(settings, scripted, tmp_path) -> None:
    """Not 2 ("bad input"): the input is fine, the engine is not there (issue 20, defect 3)."""
    from tcab.cli import EXIT_INFRASTRUCTURE, EXIT_INPUT

    scripted("echo hello", slug="says-hello")
    dead = tmp_path / "dead.sock"  # a socket path nothing listens on
    env = {**cli_env(settings), "DOCKER_HOST": f"unix://{dead}"}
    for args in (["run", "lights-out", "--harness", "says-hello"], ["cleanup"]):
        proc = subprocess.run([sys.executable, "-m", "tcab", *args], env=env, cwd=settings.root,
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == EXIT_INFRASTRUCTURE, (args, proc.returncode, proc.stderr)
        assert str(dead) in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    # A wrong runtime name is still bad input.
    proc = subprocess.run([sys.executable, "-m", "tcab", "cleanup", "--runtime", "nope"], env=env,
                          cwd=settings.root, capture_output=True, text=True, timeout=120)
    assert proc.returncode == EXIT_INPUT, proc.stderr
