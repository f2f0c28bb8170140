"""``[toolchain]`` commands over the built tree, in the real build container
(Podman), beside the real page check (Chromium): bounded, recorded in
validation.json and results.db, a failed typecheck rating the run broken.

The case is lights-out with a ``[toolchain]`` whose commands are scripts of
the run's own tree, so each run decides what its commands do: hostile ones
flood, hang and print a secret.
"""

from __future__ import annotations

import dataclasses
import json
import math
import shutil
from pathlib import Path

import pytest

from tcab.catalog import resolve_case
from tcab.errors import ResultsError, ValidationError
from tcab.results import open_db, record_run, record_validation
from tcab.results.report import build_report, connect
from tcab.results.schema import MIGRATIONS, TOOLCHAIN_STATUSES
from tcab.results.store import schema_version
from tcab.runs import load_run
from tcab.validation import validate_run
from tcab.validation.toolchain import TOOL_STATUSES, ToolchainLimits, harness_secrets
from tests.support.paths import LIGHTS_OUT
from tests.support.run_folders import lights_out_run
from tests.support.settings import run_tcab, tmp_settings

TOOLCHAIN = """[toolchain]
typecheck = "node tools/typecheck.js"
lint = "node tools/lint.js"
format = "node tools/format.js"
test = "node tools/test.js"

"""
SECRET = "sk-live-7f3a9c0e5b2d4816"
OK = "console.log('fine');\n"
HANG = "setInterval(() => {}, 1000);\n"  # silent forever: killed at the limit
FLOOD = ("const b = Buffer.alloc(1 << 20, 'x');\n"
         "for (let i = 0; i < 20; i++) process.stdout.write(b);\n"
         "console.log('END-OF-FLOOD'); process.exitCode = 1;\n")
# The value is never written whole in the tree (a collection would refuse
# the file): the command builds it, as a test printing a token would.
LEAK = f"console.log('token=' + {SECRET[:9]!r} + {SECRET[9:]!r}); console.error('{SECRET[:5]}' + '{SECRET[5:]}');\n"
TYPE_ERROR = "console.error('src/main.ts(3,7): error TS2322: not a number'); process.exit(2);\n"
LIMITS = ToolchainLimits(timeout_s=6, tail_bytes=2048)


def _report(path):
    conn = connect(path)
    try:
        return build_report(conn)
    finally:
        conn.close()


def _catalog_with(tmp_path: Path, toolchain: str):
    root = tmp_path / "catalog" / "end-to-end" / "easy" / "lights-out" / "v1.0.0"
    shutil.copytree(LIGHTS_OUT, root)
    manifest = root / "test-case.toml"
    manifest.write_text(manifest.read_text().replace("[build]", toolchain + "[build]", 1))
    (tmp_path / "home").mkdir()
    return tmp_settings(tmp_path / "home", catalog=tmp_path / "catalog")


@pytest.fixture
def tc_settings(tmp_path: Path):
    """Settings over a catalog holding lights-out with a [toolchain]."""
    return _catalog_with(tmp_path, TOOLCHAIN)


def _run(settings, run_id: str, tools: dict[str, str]):
    return lights_out_run(settings, settings.root / "trees", run_id,
                          {f"tools/{name}.js": text for name, text in tools.items()})


def _validate(settings, run, runtime, **kw):
    case = resolve_case(settings.catalog_dir, run.case_slug, run.case_version)
    assert case.section.toolchain is not None
    return validate_run(settings, case, run, runtime=runtime, settle_s=0.3, toolchain=LIMITS, **kw)


@pytest.mark.timeout(600)
def test_a_failing_typecheck_rates_the_run_broken_and_every_command_is_recorded(tc_settings, podman_runtime):
    settings = tc_settings
    run = _run(settings, "tc-broken", {"typecheck": TYPE_ERROR, "lint": FLOOD, "format": HANG, "test": LEAK})
    record = _validate(settings, run, podman_runtime, secrets={"ANTHROPIC_API_KEY": SECRET})
    # The page loads, so not catastrophic; the typecheck fails it and gates it.
    assert record.status == "failed", record.detail
    assert record.detail == "typecheck: [toolchain].typecheck `node tools/typecheck.js` exited 2"
    assert record.rating == "broken"
    tools = {t.name: t for t in record.toolchain}
    assert [t.name for t in record.toolchain] == ["typecheck", "lint", "format", "test"]
    assert (tools["typecheck"].status, tools["typecheck"].exit_code) == ("failed", 2)
    assert "error TS2322" in tools["typecheck"].output and tools["typecheck"].gates
    # 20 MiB of output leaves its last 2 KiB, ending where the command ended.
    assert tools["lint"].status == "failed" and tools["lint"].exit_code == 1
    assert len(tools["lint"].output.encode()) <= 2048 and tools["lint"].output.endswith("END-OF-FLOOD")
    # The hang is killed at its limit; the next command still ran.
    assert tools["format"].status == "timed_out" and tools["format"].exit_code is None
    assert 5 <= tools["format"].duration_s < 30, tools["format"].duration_s
    assert tools["format"].detail.startswith(("timed_out after", "idle after")) and not tools["format"].gates
    assert tools["test"].status == "passed"
    assert tools["test"].output.count("[secret:ANTHROPIC_API_KEY]") == 2 and SECRET not in tools["test"].output
    assert podman_runtime.list_run_containers("validate-tc-broken") == []

    doc_text = (run.run_dir / "validation" / "validation.json").read_text()
    doc = json.loads(doc_text)
    assert doc["rating"] == "broken" and [t["status"] for t in doc["toolchain"]] == [
        "failed", "failed", "timed_out", "passed"]
    assert SECRET not in doc_text

    db = open_db(settings.results_db)
    try:
        record_run(db, *run.db_rows())
        record_validation(db, record.row())
        record_validation(db, record.row())  # idempotent: replaced, not doubled
        rows = db.execute("SELECT name, seq, status, exit_code, gates, length(output) FROM toolchain_results "
                          "WHERE run_id = 'tc-broken' ORDER BY seq").fetchall()
        assert [r[:5] for r in rows] == [("typecheck", 0, "failed", 2, 1), ("lint", 1, "failed", 1, 0),
                                         ("format", 2, "timed_out", None, 0), ("test", 3, "passed", 0, 0)]
        assert all(r[5] <= 2048 for r in rows)
        assert not any(SECRET in str(v) for row in db.execute("SELECT * FROM toolchain_results") for v in row)
    finally:
        db.close()
    summary = _report(settings.results_db).groups[0].runs[0]
    assert (summary.typechecks_passed, summary.typechecks, summary.broken) == (0, 1, 1)
    done = run_tcab(settings, "report", "--html", str(settings.root / "html"))
    assert done.returncode == 0, done.stderr
    assert "0/1 (1 broken)" in done.stdout, done.stdout
    html = "".join(p.read_text() for p in (settings.root / "html").rglob("*.html"))
    assert "0/1 (1 broken)" in html and "failed (broken)" in html


@pytest.mark.timeout(600)
def test_a_passing_typecheck_is_ungated_even_when_the_test_hangs(tc_settings, podman_runtime):
    settings = tc_settings
    run = _run(settings, "tc-ok", {"typecheck": OK, "lint": OK, "format": OK, "test": HANG})
    record = _validate(settings, run, podman_runtime)
    assert record.status == "passed", record.detail
    assert record.rating is None
    assert [(t.name, t.status) for t in record.toolchain] == [
        ("typecheck", "passed"), ("lint", "passed"), ("format", "passed"), ("test", "timed_out")]
    assert record.checks[-1].name == "typecheck" and record.checks[-1].ok
    assert record.toolchain[3].duration_s < 30


@pytest.mark.timeout(300)
def test_a_failed_install_runs_no_command_and_gates_nothing(tc_settings, podman_runtime):
    settings = tc_settings
    case_dir = settings.catalog_dir / "end-to-end" / "easy" / "lights-out" / "v1.0.0"
    manifest = case_dir / "test-case.toml"
    manifest.write_text(manifest.read_text().replace('install = "true"', 'install = "exit 7"'))
    run = _run(settings, "tc-noinstall", {"typecheck": TYPE_ERROR})
    record = _validate(settings, run, podman_runtime)
    assert record.status == "catastrophic" and record.rating is None
    assert {t.status for t in record.toolchain} == {"not_run"}
    assert record.toolchain[0].detail == "not run: [build].install failed (exit code 7)"


@pytest.mark.parametrize("field,value", [("timeout_s", math.nan), ("timeout_s", math.inf), ("timeout_s", 0),
                                         ("timeout_s", -1), ("timeout_s", "5"), ("tail_bytes", True),
                                         ("tail_bytes", 1.5), ("tail_bytes", 0)])
def test_limits_must_be_finite_and_positive(field, value):
    with pytest.raises(ValidationError, match=f"toolchain limit {field}"):
        ToolchainLimits(**{field: value})


def test_the_statuses_match_the_schema():
    assert TOOL_STATUSES == TOOLCHAIN_STATUSES


def _validation_row(run_id: str, tools: list[dict]) -> dict:
    return {"run_id": run_id, "case_slug": "c", "case_version": "v1.0.0", "variant": "base",
            "status": "failed", "toolchain": tools}


def _tool(name="typecheck", status="failed", **kw) -> dict:
    return {"name": name, "command": "tsc", "status": status, "exit_code": 2, "duration_s": 1.0,
            "output": "x", "detail": "exited 2", **kw}


def test_record_validation_refuses_bad_toolchain_rows_and_writes_nothing(tmp_path):
    db = open_db(tmp_path / "r.db")
    try:
        for bad, message in [([_tool(status="great")], "status"), ([_tool(name="build")], "name"),
                             ([_tool(colour=1)], "unknown key 'colour'"), ([_tool(), _tool()], "duplicate"),
                             ("tsc", "expected a list"), ([_tool(run_id="other")], "not the run")]:
            with pytest.raises(ResultsError, match=message):
                record_validation(db, _validation_row("r1", bad))
        assert db.execute("SELECT count(*) FROM validations").fetchone()[0] == 0
        # ``gates`` is derived, never taken from the caller.
        record_validation(db, _validation_row("r1", [_tool(gates=False), _tool("lint", "failed", gates=True)]))
        assert db.execute("SELECT name, gates FROM toolchain_results ORDER BY seq").fetchall() == [
            ("typecheck", 1), ("lint", 0)]
        record_validation(db, _validation_row("r1", []))  # validated again without a toolchain: rows go
        assert db.execute("SELECT count(*) FROM toolchain_results").fetchone()[0] == 0
    finally:
        db.close()


def test_migration_0008_adds_the_table_and_keeps_old_validations(tmp_path):
    before = next(i for i, m in enumerate(MIGRATIONS) if m.name == "0008_toolchain_results")
    path = tmp_path / "old.db"
    old = open_db(path, migrations=MIGRATIONS[:before])
    try:
        record_validation(old, _validation_row("r-old", []))  # a pre-0008 database takes a plain validation
        assert not old["toolchain_results"].exists()
    finally:
        old.close()
    db = open_db(path)
    try:
        assert schema_version(db) == len(MIGRATIONS)
        assert db.execute("SELECT run_id, status FROM validations").fetchall() == [("r-old", "failed")]
        record_validation(db, _validation_row("r-new", [_tool()]))
        assert db.execute("SELECT run_id, gates FROM toolchain_results").fetchall() == [("r-new", 1)]
        assert _report(path).totals["validations"] == 2
    finally:
        db.close()


def test_harness_secrets_are_the_declared_ones_that_are_set(tmp_path):
    (tmp_path / "a.toml").write_text('slug = "a"\nname = "A"\nbinary = "a"\nargs = []\n'
                                     'secrets = ["A_KEY", "UNSET_KEY"]\n')
    (tmp_path / "broken.toml").write_text("not toml [")
    assert harness_secrets(tmp_path, {"A_KEY": "value-1", "OTHER": "x"}) == {"A_KEY": "value-1"}
    assert harness_secrets(tmp_path / "missing", {"A_KEY": "v"}) == {}


# -- hostile commands: escapes, detached children, secrets no definition declares ----

SHELL_TOOLCHAIN = """[toolchain]
typecheck = "node tools/typecheck.js"
lint = "sh tools/spawn.sh"
format = "sh tools/spawn-and-hang.sh"
test = "sh tools/count.sh"

"""
ESCAPES = ("console.log('\\x1b[31mred\\x1b[0m \\x1b]0;retitled\\x07 \\x1b]8;;http://x.example/\\x1b\\\\link"
           "\\x1b]8;;\\x1b\\\\ \\x1b[2J\\x1b[Hclear \\x9b31m8bit bell\\x07 done');\n")
# 3,000 detached processes (subshells blocked on a FIFO: forks without an
# exec, so they come fast; in a session of their own, out of the command's
# process group), more than the build container's pid limit holds: the
# spawner stops at the limit ("Cannot fork"), the command exits 0.
SPAWN = ("mkfifo /tmp/hold-a; setsid sh -c 'i=0; while [ $i -lt 3000 ]; do (read x < /tmp/hold-a) & "
         "i=$((i+1)); done' </dev/null >/dev/null 2>&1 &\n"
         "sleep 4; echo spawned; exit 0\n")
SPAWN_AND_HANG = ("mkfifo /tmp/hold-b; setsid sh -c 'i=0; while [ $i -lt 200 ]; do (read x < /tmp/hold-b) & "
                  "i=$((i+1)); done' </dev/null >/dev/null 2>&1 &\n"
                  "exec sleep 1000\n")
# What is left of them (each holds its FIFO's name in its command line).
COUNT = ("left=0; for f in /proc/[0-9]*/cmdline; do case \"$(tr '\\0' ' ' < \"$f\" 2>/dev/null)\" in "
         "*hold-*|'sleep 1000 ') left=$((left+1));; esac; done 2>/dev/null; echo \"left=$left\"; "
         "[ \"$left\" -eq 0 ]\n")


@pytest.mark.timeout(600)
def test_detached_children_die_with_their_command_and_escapes_are_stripped(tmp_path, podman_runtime):
    settings = _catalog_with(tmp_path, SHELL_TOOLCHAIN)
    run = lights_out_run(settings, settings.root / "trees", "tc-detached",
                         {"tools/typecheck.js": ESCAPES, "tools/spawn.sh": SPAWN,
                          "tools/spawn-and-hang.sh": SPAWN_AND_HANG, "tools/count.sh": COUNT})
    case = resolve_case(settings.catalog_dir, run.case_slug, run.case_version)
    record = validate_run(settings, case, run, runtime=podman_runtime, settle_s=0.3,
                          toolchain=ToolchainLimits(timeout_s=25, tail_bytes=2048))
    tools = {t.name: t for t in record.toolchain}
    typecheck = tools["typecheck"]
    assert typecheck.status == "passed", typecheck
    assert "red" in typecheck.output and "link" in typecheck.output and "done" in typecheck.output
    assert not any(c in typecheck.output for c in "\x1b\x07\x9b"), repr(typecheck.output)
    assert "retitled" not in typecheck.output and "http://x.example" not in typecheck.output
    assert tools["lint"].status in ("passed", "failed"), tools["lint"]
    # The hang is killed at its own limit, its 200 detached processes with it.
    assert tools["format"].status == "timed_out" and tools["format"].exit_code is None, tools["format"]
    assert 24 <= tools["format"].duration_s < 34, tools["format"].duration_s
    # The next command starts, and no sleep of the earlier ones is left.
    assert tools["test"].status == "passed", tools["test"]
    assert "left=0" in tools["test"].output
    doc = (run.run_dir / "validation" / "validation.json").read_text()
    assert "\\u001b" not in doc and "\\u0007" not in doc


RTSEC = "rt-5ecret-9d41c7a2e6"
# The value is never written in the tree (a collection would refuse the
# file): the run's own code rebuilds it from its hex when it is built, tested
# and opened.
FROM_HEX = f"Buffer.from({RTSEC.encode().hex()!r}, 'hex').toString()"
LEAKING_BUILD = f"console.log('build says ' + {FROM_HEX});\n" + (
    LIGHTS_OUT / "workspaces" / "base" / "build.js").read_text().replace("#!/usr/bin/env node\n", "")
SECRET_TOOLCHAIN = """[toolchain]
typecheck = "node tools/leak.js"
test = "node tools/leak.js --and-fail"

"""
LEAK_TOOL = (f"const v = {FROM_HEX}; console.log('value=' + v); console.error('\\x1b[1m' + v.slice(0, 4) + "
             f"'\\x1b[0m' + v.slice(4)); if (process.argv[2]) process.exit(3);\n")


@pytest.mark.timeout(600)
def test_a_secret_no_definition_declares_is_redacted_from_the_whole_validation(tmp_path, podman_runtime,
                                                                                monkeypatch):
    """The run was given RTSEC with --secret (its record names it; no harness
    definition declares it): the build log, the toolchain tails (even a value
    split by an escape), validation.json and the toolchain_results rows never
    hold it."""
    settings = _catalog_with(tmp_path, SECRET_TOOLCHAIN)
    monkeypatch.setenv("RTSEC", RTSEC)
    assert all("RTSEC" not in p.read_text() for p in settings.harnesses_dir.glob("*.toml"))
    run = lights_out_run(settings, settings.root / "trees", "tc-rtsec",
                         {"build.js": LEAKING_BUILD, "tools/leak.js": LEAK_TOOL})
    run = dataclasses.replace(run, secrets=("RTSEC",))
    run.write()
    case = resolve_case(settings.catalog_dir, run.case_slug, run.case_version)
    record = validate_run(settings, case, load_run(run.run_dir), runtime=podman_runtime, settle_s=0.3,
                          toolchain=LIMITS)
    assert record.status == "passed", record.detail
    assert "build says [secret:RTSEC]" in record.build_log, record.build_log
    tools = {t.name: t for t in record.toolchain}
    assert tools["typecheck"].output.count("[secret:RTSEC]") == 2, tools["typecheck"].output
    assert tools["test"].status == "failed"
    doc = (run.run_dir / "validation" / "validation.json").read_text()
    assert RTSEC not in doc and "[secret:RTSEC]" in doc
    db = open_db(settings.results_db)
    try:
        record_run(db, *run.db_rows())
        record_validation(db, record.row())
        rows = [v for row in db.execute("SELECT * FROM toolchain_results") for v in row]
        assert rows and not any(RTSEC in str(v) for v in rows)
        assert not any(RTSEC in str(v) for row in db.execute("SELECT * FROM validations") for v in row)
    finally:
        db.close()


def test_a_secret_the_run_was_given_must_be_set_to_validate(tmp_path, monkeypatch):
    """Unset, its value could not be kept out: refused up front, naming it."""
    settings = _catalog_with(tmp_path, SECRET_TOOLCHAIN)
    monkeypatch.delenv("RTSEC", raising=False)
    run = lights_out_run(settings, settings.root / "trees", "tc-unset")
    run = dataclasses.replace(run, secrets=("RTSEC",))
    run.write()
    assert load_run(run.run_dir).secrets == ("RTSEC",)
    case = resolve_case(settings.catalog_dir, run.case_slug, run.case_version)
    with pytest.raises(ValidationError, match="run.json: secrets: the run was given secret RTSEC"):
        validate_run(settings, case, load_run(run.run_dir), runtime="docker")
