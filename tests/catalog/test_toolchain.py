"""``[toolchain]`` in a manifest: the original's four commands, refused
naming the file, the line and ``[toolchain].<key>`` when wrong."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tcab.catalog import load_version
from tcab.catalog.model import Toolchain
from tests.support.paths import CAPTURE, LIGHTS_OUT


def _case(tmp_path: Path, table: str, src: Path = LIGHTS_OUT, kind: str = "end-to-end/easy/lights-out"):
    root = tmp_path / kind / src.name
    shutil.copytree(src, root)
    manifest = root / "test-case.toml"
    text = manifest.read_text()
    at = text.index("\n[", text.index("variants"))  # before the first table, after the root keys
    manifest.write_text(text[:at] + "\n" + table + text[at:])
    line = (text[:at] + "\n").count("\n") + 1  # the [toolchain] header's line
    case, problems = load_version(root)
    return case, [str(p) for p in problems], f"{manifest}:", line


def test_the_original_table_parses_in_run_order(tmp_path):
    case, problems, _, _ = _case(tmp_path, '[toolchain]\ntest = "npx vitest run"\ntypecheck = "npx tsc --noEmit"\n'
                                           'lint = "npx eslint ."\nformat = "npx prettier --check ."\n')
    assert problems == []
    assert case.section.toolchain == Toolchain("npx tsc --noEmit", "npx eslint .", "npx prettier --check .", "npx vitest run")
    assert [n for n, _ in case.section.toolchain.commands()] == ["typecheck", "lint", "format", "test"]


def test_only_typecheck_is_required_and_no_table_means_no_toolchain(tmp_path):
    case, problems, _, _ = _case(tmp_path / "a", '[toolchain]\ntypecheck = "tsc"\n')
    assert problems == [] and case.section.toolchain.commands() == (("typecheck", "tsc"),)
    case, problems, _, _ = _case(tmp_path / "b", "")
    assert problems == [] and case.section.toolchain is None


@pytest.mark.parametrize("body,offset,key,message", [
    ('typecheck = "tsc"\nbuild = "make"\n', 2, "build", "unknown key; allowed keys: typecheck, lint, format, test"),
    ('typecheck = ""\n', 1, "typecheck", 'expected a non-empty string, got ""'),
    ('typecheck = "   "\n', 1, "typecheck", 'expected a non-empty string, got "   "'),
    ('typecheck = "tsc"\nlint = 3\n', 2, "lint", "expected a non-empty string, got 3"),
    ('typecheck = ["tsc"]\n', 1, "typecheck", "expected a non-empty string, got an array"),
    ('typecheck = "tsc"\ntest = true\n', 2, "test", "expected a non-empty string, got true"),
    ('typecheck = "tsc"\nformat = { cmd = "x" }\n', 2, "format", "expected a non-empty string, got a table"),
    ('typecheck = "tsc\\u0000; rm -rf /"\n', 1, "typecheck", "must not contain a NUL character"),
    ('lint = "eslint ."\n', 0, "typecheck", "missing required key (the gating command)"),
])
def test_bad_keys_are_refused_naming_file_line_and_key(tmp_path, body, offset, key, message):
    case, problems, where, line = _case(tmp_path, "[toolchain]\n" + body)
    assert case is None
    assert problems == [f"{where}{line + offset}: [toolchain].{key}: {message}"]


def test_not_a_table_and_not_in_adversarial_cases(tmp_path):
    case, problems, where, line = _case(tmp_path / "a", 'toolchain = "tsc"\n')
    assert case is None and problems == [f'{where}{line}: toolchain: expected a table, got "tsc"']
    case, problems, where, _ = _case(tmp_path / "b", '[toolchain]\ntypecheck = "tsc"\n', CAPTURE,
                                     "adversarial/hard/capture")
    assert case is None and len(problems) == 1
    assert problems[0].startswith(where) and "toolchain: unknown key; allowed keys:" in problems[0]
