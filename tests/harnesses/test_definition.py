"""Harness definition files: the shipped ones load, bad ones name file and key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tcab.errors import HarnessError
from tcab.harnesses import load_harness, load_harness_file, load_harnesses

REPO_HARNESSES = Path(__file__).resolve().parents[2] / "harnesses"


def test_shipped_definitions_load() -> None:
    found = {h.slug: h for h in load_harnesses(REPO_HARNESSES)}
    assert {"claude-code", "codex", "opencode", "gemini-cli", "reference"} <= set(found)
    claude = found["claude-code"]
    assert claude.binary == "claude" and claude.secrets == ("ANTHROPIC_API_KEY",)
    assert claude.adapter == "claude-stream-json" and found["codex"].adapter == "codex-json"
    argv = claude.session_argv("build {model} it", "claude-x")
    assert argv[:3] == ["claude", "-p", "build {model} it"] and argv[-2:] == ["--model", "claude-x"]
    assert "--model" not in claude.session_argv("p", None)
    codex = found["codex"].session_argv("the prompt", "gpt-x")
    assert codex[-3:] == ["--model", "gpt-x", "the prompt"]
    assert found["reference"].stage_solution and "/tmp/tcab-solution" in found["reference"].session_argv("p", None)[-1]


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(text)
    return path


@pytest.mark.parametrize("text, match", [
    ('slug = "x"\nname = "X"\nbinary = "x"\nargs = []\ncolour = "red"\n', r"x\.toml: colour: unknown key \(allowed: slug"),
    ('slug = "x"\nname = "X"\nargs = []\n', r"x\.toml: binary: required key is missing"),
    ('slug = "x"\nname = "X"\nbinary = "x"\nargs = "go"\n', r"x\.toml: args: expected a list of strings"),
    ('slug = "x"\nname = "X"\nbinary = "x"\nargs = []\nadapter = "json"\n', r"x\.toml: adapter: expected one of plain"),
    ('slug = "x"\nname = "X"\nbinary = "x"\nargs = []\nsecrets = ["NOT OK"]\n', r"x\.toml: secrets: 'NOT OK'"),
    ('slug = "y"\nname = "X"\nbinary = "x"\nargs = []\n', r"x\.toml: slug: 'y' must equal the file name"),
    ('slug = "x"\nname = \n', r"x\.toml: cannot read"),
])
def test_bad_definitions_name_file_and_key(tmp_path: Path, text: str, match: str) -> None:
    with pytest.raises(HarnessError, match=match):
        load_harness_file(_write(tmp_path, "x", text))


def test_unknown_harness_lists_the_known_ones(tmp_path: Path) -> None:
    _write(tmp_path, "a", 'slug = "a"\nname = "A"\nbinary = "a"\nargs = []\n')
    with pytest.raises(HarnessError, match=r"unknown harness 'b'.*known: a"):
        load_harness(tmp_path, "b")


def test_cli_lists_harnesses_as_json() -> None:
    from tcab.cli import cli

    result = CliRunner().invoke(cli, ["harnesses", "--json"], env={"TCAB_HARNESSES": str(REPO_HARNESSES)})
    assert result.exit_code == 0, result.output
    slugs = [h["slug"] for h in json.loads(result.output)]
    assert "reference" in slugs and slugs == sorted(slugs)
