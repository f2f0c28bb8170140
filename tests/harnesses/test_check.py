"""`tcab harnesses check`: flags of a definition against the CLI's --help."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tcab.cli import cli as main
from tcab.harnesses import load_harness
from tcab.harnesses.check import definition_flags, help_argv, missing_flags

REPO = Path(__file__).resolve().parents[2]


def test_definition_flags_and_help_argv() -> None:
    codex = load_harness(REPO / "harnesses", "codex")
    # -c (its provider and retry limits) is checked once, like every flag.
    assert definition_flags(codex) == ("--json", "--skip-git-repo-check",
                                       "--dangerously-bypass-approvals-and-sandbox", "-c", "--model")
    assert help_argv(codex) == ["codex", "exec", "--help"]
    assert help_argv(load_harness(REPO / "harnesses", "claude-code")) == ["claude", "--help"]


def test_missing_flags_match_whole_words_only() -> None:
    help_text = "  --json  emit JSON\n  \x1b[1m--model\x1b[0m <m>\n  --skip-trust-all\n"
    assert missing_flags(("--json", "--model", "--skip-trust", "-p"), help_text) == ("--skip-trust", "-p")


def test_bad_install_timeout_is_refused() -> None:
    result = CliRunner().invoke(main, ["harnesses", "check", "--install-timeout", "inf"])
    assert result.exit_code == 2 and "--install-timeout" in result.output


@pytest.mark.timeout(900)
def test_check_installs_the_cli_and_reports_drift(tmp_path, podman_runtime, monkeypatch) -> None:
    folder = tmp_path / "harnesses"
    folder.mkdir()
    text = (REPO / "harnesses" / "gemini-cli.toml").read_text()
    (folder / "gemini-cli.toml").write_text(text.replace('"--skip-trust",', '"--skip-trust", "--no-such-flag",'))
    monkeypatch.setenv("TCAB_HARNESSES", str(folder))
    result = CliRunner().invoke(main, ["harnesses", "check", "gemini-cli", "--json"])
    assert result.exit_code == 1, result.output
    [row] = json.loads(result.stdout)
    assert row["status"] == "drift" and row["missing"] == ["--no-such-flag"]
    assert row["version"][0].isdigit()  # --version answered


def test_environment_probe_in_the_run_image(podman_runtime, base_image) -> None:
    from tcab.harnesses.environment import ENVIRONMENT_PROBE, parse_environment
    from tcab.runtime import ContainerSpec

    container = podman_runtime.start(ContainerSpec(image=base_image, run_id="env-probe-test"))
    try:
        res = podman_runtime.exec(container, ENVIRONMENT_PROBE)
    finally:
        podman_runtime.remove(container)
    env = parse_environment(res.stdout)
    assert env["os"].startswith("Debian") and env["python"].startswith("3.")
    assert int(env["node"].lstrip("v").split(".")[0]) >= 22 and env["npm"] and env["pip"]
