"""Every size, count and duration option and variable has a maximum, checked at the edge.

Walks the one table (``tcab.bounds``): each option of each command that
takes it, and each environment variable, given one step past its maximum,
exits 2 with a message naming it and the maximum, before anything runs.
And every numeric option the CLI has is in the table.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import click
import pytest

from tcab.bounds import ENV, OPTIONS, Bound
from tcab.cli import COMMANDS, LazyGroup, cli
from tcab.cli.params import Number, bounded
from tests.support.paths import ARENA_CATALOG, REPO

# What each command needs besides the option, chosen so that nothing runs:
# a value inside its range gets as far as "no such case/run/file".
ARGS = {
    "run": ("run", "no-such-case", "--harness", "none"),
    "match": ("match", "no-such-case", "m.wasm"),
    "tournament": ("tournament", "no-such-case", "m.wasm"),
    "catalog validate": ("catalog", "validate"),
    "replay verify": ("replay", "verify", "junk.gz"),
    "replay export": ("replay", "export", "junk.gz", "out.html"),
    "build": ("build", "no-such-run"),
    "validate": ("validate", "no-such-run"),
    "seed": ("seed", "no-such-case"),
    "harnesses check": ("harnesses", "check", "no-such-harness"),
    "view": ("view",),
    "asset render-reference": ("asset", "render-reference", "no-such-case", "--out", "out"),
}


def _reader(name: str) -> tuple[str, ...]:
    """A command that reads variable ``name`` before doing anything else."""
    if name.startswith("TCAB_PLAN_"):
        return ("-m", "doit", "list")
    if name.startswith("TCAB_WASM_"):
        return ("-m", "tcab", "match", "no-such-case", "m.wasm")
    if name.startswith("TCAB_K8S_"):
        return ("-m", "tcab", "cleanup", "--runtime", "kubernetes")
    raise AssertionError(f"{name}: no command known to read it; add one here")


def _over(bound: Bound) -> str:
    return str(int(bound.maximum) + 1) if bound.integer else f"{bound.maximum * 1.001:g}"


def _shown(bound: Bound) -> str:
    return bound.shown


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "junk.gz").write_bytes(b"not gzip")
    (tmp_path / "harnesses").mkdir()
    shutil.copyfile(REPO / "dodo.py", tmp_path / "dodo.py")
    return tmp_path


def _run(root: Path, args: tuple[str, ...], env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    base = {k: v for k, v in os.environ.items() if not k.startswith(("TCAB_", "KUBE"))}
    base.update(PYTHONPATH=str(REPO), TCAB_CATALOG=str(ARENA_CATALOG), TCAB_HARNESSES=str(root / "harnesses"),
                TCAB_RESULTS=str(root / "results"), TCAB_BUILD=str(root / "build"), TCAB_TMP=str(root / "tmp"),
                KUBECONFIG=str(root / "no-kubeconfig"))
    return subprocess.run([sys.executable, *args], env={**base, **(env or {})}, cwd=root, capture_output=True,
                          text=True, timeout=60)


def _numeric(param: click.Parameter) -> bool:
    return isinstance(param.type, click.types._NumberParamTypeBase | Number) or param.type in (click.INT, click.FLOAT)


def _commands():
    ctx = click.Context(cli)
    for name in LazyGroup.list_commands(cli, ctx):
        command = cli.get_command(ctx, name)
        yield name, command
        if isinstance(command, click.Group):
            for sub in command.list_commands(ctx):
                yield f"{name} {sub}", command.get_command(ctx, sub)


def test_every_numeric_option_is_in_the_table():
    found: dict[str, set[str]] = {}
    for name, command in _commands():
        for param in command.params:
            if isinstance(param, click.Option) and _numeric(param):
                flag = max(param.opts, key=len)
                found.setdefault(flag, set()).add(name)
    assert set(found) == set(OPTIONS), "options without a bound (or bounds of no option)"
    for flag, commands in found.items():
        assert commands == set(OPTIONS[flag].commands), flag
    assert set(ARGS) >= {c for b in OPTIONS.values() for c in b.commands}
    assert set(COMMANDS) >= {c.split()[0] for c in ARGS}


@pytest.mark.parametrize("flag", list(OPTIONS))
def test_the_maximum_itself_is_accepted(flag):
    bound = OPTIONS[flag]
    assert bounded(flag).convert(_shown(bound), None, None) == bound.maximum
    with pytest.raises(click.BadParameter):
        bounded(flag).convert(_over(bound), None, None)
    with pytest.raises(click.BadParameter):
        bounded(flag).convert("9" * 30, None, None)


@pytest.mark.timeout(240)
def test_every_option_past_its_maximum_exits_2_naming_it_and_the_maximum(project):
    cases = [(flag, command) for flag, bound in OPTIONS.items() for command in bound.commands]

    def one(case):
        flag, command = case
        bound = OPTIONS[flag]
        return case, _run(project, ("-m", "tcab", *ARGS[command], flag, _over(bound)))

    with ThreadPoolExecutor(2) as pool:
        for (flag, command), proc in pool.map(one, cases):
            where = f"tcab {command} {flag} {_over(OPTIONS[flag])}"
            assert proc.returncode == 2, (where, proc.stderr)
            assert f"'{flag}'" in proc.stderr and _shown(OPTIONS[flag]) in proc.stderr, (where, proc.stderr)
            assert "Traceback" not in proc.stderr, (where, proc.stderr)
    assert not (project / "results").exists() and not (project / "build").exists()


@pytest.mark.timeout(240)
def test_every_variable_past_its_maximum_exits_2_naming_it_and_the_maximum(project):
    def one(name):
        bound = ENV[name]
        return name, _run(project, _reader(name), {name: _over(bound)})

    with ThreadPoolExecutor(2) as pool:
        for name, proc in pool.map(one, list(ENV)):
            out = proc.stdout + proc.stderr
            assert proc.returncode == 2, (name, out[-2000:])
            assert name in out and _shown(ENV[name]) in out, (name, out[-2000:])
            assert "Traceback" not in out, (name, out[-2000:])


def test_docs_security_lists_every_bound_with_its_maximum():
    rows = [line for line in (REPO / "docs/security.md").read_text().splitlines() if line.startswith("| `")]
    for bound in [*OPTIONS.values(), *ENV.values()]:
        [row] = [r for r in rows if r.startswith(f"| `{bound.name}` |")]
        assert row.rstrip().endswith(f"| {bound.shown} |"), row
