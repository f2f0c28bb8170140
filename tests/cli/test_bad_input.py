"""Bad input to every command: a clear error, the right exit code, no
traceback, nothing written (issue 14: "at the edges").

Each row is (id, arguments, setup, exit code, what the message must say).
Every command runs as a user runs it (a fresh ``python -m tcab``) with its
results/, build/ and tmp/ in a temporary folder; results/ and build/ must be
exactly as before (a garbage results.db set up by a row stays byte for byte).
"""

from __future__ import annotations

import gzip
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CATALOG = REPO / "test-cases"
ARENA_CATALOG = REPO / "tests" / "arena" / "catalog"
LONG = "a" * 5000


def garbage_db(tmp: Path) -> None:
    (tmp / "results").mkdir(exist_ok=True)
    (tmp / "results" / "results.db").write_bytes(b"this is not a database\n" * 50)


def dir_db(tmp: Path) -> None:
    (tmp / "results" / "results.db").mkdir(parents=True)


def foreign_db(tmp: Path) -> None:
    (tmp / "results").mkdir(exist_ok=True)
    with sqlite3.connect(tmp / "results" / "results.db") as db:
        db.execute("CREATE TABLE invoices (id INTEGER, total REAL)")


def newer_db(tmp: Path) -> None:
    (tmp / "results").mkdir(exist_ok=True)
    with sqlite3.connect(tmp / "results" / "results.db") as db:
        db.execute("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT, applied_at TEXT)")
        db.execute("PRAGMA user_version = 999")


def junk_files(tmp: Path) -> None:
    (tmp / "junk.json.gz").write_bytes(b"not gzip at all")
    (tmp / "notjson.json.gz").write_bytes(gzip.compress(b"{not json"))
    (tmp / "adir").mkdir()
    (tmp / "empty.db").write_bytes(b"SQLite format 3\x00" + b"\xff" * 200)


def no_catalog(tmp: Path) -> dict[str, str]:
    return {"TCAB_CATALOG": str(tmp / "no-such-catalog")}


def arena(tmp: Path) -> dict[str, str]:
    return {"TCAB_CATALOG": str(ARENA_CATALOG)}


def arena_garbage_db(tmp: Path) -> dict[str, str]:
    garbage_db(tmp)
    return arena(tmp)


def no_harnesses(tmp: Path) -> dict[str, str]:
    return {"TCAB_HARNESSES": str(tmp / "no-such-harnesses")}


def debug_env(tmp: Path) -> dict[str, str]:
    return {"TCAB_DEBUG": "1"}


RUN = ["run", "lights-out", "--harness", "reference"]
MATCH = ["match", "tally", "baseline:one", "baseline:three"]
TOURNEY = ["tournament", "tally", "baseline:one", "baseline:three"]

# (id, args, setup, exit code, message substring)
CASES = [
    # the issue's own cases
    ("validate-5000-char-id", ["validate", LONG], None, 2, "not a run id"),
    ("match-seed-float", MATCH + ["--seed", "1e26"], arena, 2, "'--seed'"),
    ("match-seed-huge", MATCH + ["--seed", "1" + "0" * 26], arena, 2, "'--seed'"),
    ("run-garbage-db", RUN, garbage_db, 2, "results.db: not a results database: not a SQLite file"),
    ("run-foreign-db", RUN, foreign_db, 2, "not a tcab results database (tables: invoices)"),
    ("run-directory-db", RUN, dir_db, 2, "results.db: not a results database: it is a folder"),
    ("run-newer-db", RUN, newer_db, 2, "schema version 999 is newer"),
    # catalog
    ("catalog-missing-folder", ["catalog"], no_catalog, 2, "catalog folder not found"),
    ("catalog-json-missing-folder", ["catalog", "--json"], no_catalog, 2, "catalog folder not found"),
    ("catalog-validate-missing-path", ["catalog", "validate", "/no/such/folder"], None, 2, "does not exist"),
    ("catalog-validate-a-file", ["catalog", "validate", str(REPO / "README.md")], None, 2, "is a file"),
    ("catalog-validate-jobs-zero", ["catalog", "validate", "-j", "0"], None, 2, "'-j'"),
    ("catalog-validate-jobs-huge", ["catalog", "validate", "-j", "100000"], None, 2, "'-j'"),
    ("catalog-validate-jobs-text", ["catalog", "validate", "-j", "many"], None, 2, "'-j'"),
    ("catalog-unknown-option", ["catalog", "--nope"], None, 2, "No such option '--nope'"),
    # seed and prompt
    ("seed-unknown-case", ["seed", "nope"], None, 2, 'no test case "nope"; known: beacon-lamp, candle-flicker, capture, ember-gem, lights-out, torus-life, valve-wheel'),
    ("seed-unknown-version", ["seed", "lights-out@v9.9.9"], None, 2, 'has no version "v9.9.9"'),
    ("seed-unknown-variant", ["seed", "lights-out", "--variant", "nope"], None, 2, "unknown variant 'nope'"),
    ("seed-path-traversal", ["seed", "../../etc"], None, 2, "no test case"),
    ("seed-empty-ref", ["seed", ""], None, 2, "no test case"),
    ("seed-no-catalog", ["seed", "lights-out"], no_catalog, 2, "catalog folder not found"),
    ("seed-long-ref", ["seed", LONG], None, 2, "no test case"),
    ("prompt-unknown-case", ["prompt", "nope"], None, 2, "no test case"),
    ("prompt-bad-version", ["prompt", "lights-out", "--version", "v1.0"], None, 2, 'has no version "v1.0"'),
    ("prompt-nul-in-ref", ["prompt", "light\x01s"], None, 2, "no test case"),
    ("prompt-missing-arg", ["prompt"], None, 2, "Missing argument 'CASE'"),
    # run
    ("run-unknown-harness", ["run", "lights-out", "--harness", "nope"], None, 2, "nope"),
    ("run-unknown-case", ["run", "nope", "--harness", "reference"], None, 2, "no test case"),
    ("run-max-runtime-nan", RUN + ["--max-runtime", "nan"], None, 2, "'--max-runtime'"),
    ("run-max-runtime-inf", RUN + ["--max-runtime", "inf"], None, 2, "'--max-runtime'"),
    ("run-max-runtime-negative", RUN + ["--max-runtime", "-1"], None, 2, "'--max-runtime'"),
    ("run-max-runtime-overflow", RUN + ["--max-runtime", "1e308"], None, 2, "'--max-runtime'"),
    ("run-idle-timeout-zero", RUN + ["--idle-timeout", "0"], None, 2, "'--idle-timeout'"),
    ("run-collect-zero", RUN + ["--max-collect-mb", "0"], None, 2, "'--max-collect-mb'"),
    ("run-log-huge", RUN + ["--max-log-mb", "99999999"], None, 2, "'--max-log-mb'"),
    ("run-k8s-option-without-k8s", RUN + ["--k8s-namespace", "x"], None, 2,
     "--k8s-namespace needs --runtime kubernetes"),
    ("run-missing-harness", ["run", "lights-out"], None, 2, "Missing option '--harness'"),
    # validate and build
    ("validate-traversal", ["validate", "../etc"], None, 2, "not a run id"),
    ("validate-unknown-run", ["validate", "20250101-nope"], None, 2, "no such run"),
    ("validate-settle-nan", ["validate", "x", "--settle", "nan"], None, 2, "'--settle'"),
    ("validate-timeout-zero", ["validate", "x", "--timeout", "0"], None, 2, "'--timeout'"),
    ("validate-browser-timeout-huge", ["validate", "x", "--browser-timeout", "1e300"], None, 2,
     "'--browser-timeout'"),
    ("validate-load-timeout-text", ["validate", "x", "--load-timeout", "soon"], None, 2, "'--load-timeout'"),
    ("build-long-id", ["build", "a" * 300], None, 2, "not a run id"),
    ("build-unknown-run", ["build", "nope"], None, 2, "no such run"),
    ("build-timeout-huge", ["build", "x", "--timeout", "99999999"], None, 2, "'--timeout'"),
    ("build-dot-id", ["build", ".."], None, 2, "not a run id"),
    # match and tournament
    ("match-seed-negative", MATCH + ["--seed", "-1"], arena, 2, "'--seed'"),
    ("match-unknown-case", ["match", "nope", "a.wasm", "b.wasm"], arena, 2, "no test case"),
    ("match-end-to-end-case", ["match", "lights-out", "a.wasm", "b.wasm"], None, 2,
     "matches need an adversarial one"),
    ("match-seat-count", ["match", "tally", "baseline:one"], arena, 2, "2-seat game, got 1 modules"),
    ("match-missing-module", ["match", "tally", "nope.wasm", "baseline:three"], arena, 2,
     "nope.wasm: no such module file"),
    ("match-unknown-variant", MATCH + ["--variant", "nope"], arena, 2, "unknown variant"),
    ("match-garbage-db", MATCH, arena_garbage_db, 2, "not a results database"),
    ("tournament-rounds-zero", TOURNEY + ["--rounds", "0"], arena, 2, "'--rounds'"),
    ("tournament-rounds-huge", TOURNEY + ["--rounds", "100001"], arena, 2, "'--rounds'"),
    ("tournament-jobs-zero", TOURNEY + ["-j", "0"], arena, 2, "'-j'"),
    ("tournament-seed-2-63", TOURNEY + ["--seed", str(2**63)], arena, 2, "'--seed'"),
    ("tournament-id-traversal", TOURNEY + ["--id", "../x"], arena, 2, "'--id'"),
    ("tournament-id-long", TOURNEY + ["--id", LONG], arena, 2, "'--id'"),
    ("tournament-structure", TOURNEY + ["--structure", "swiss"], arena, 2, "'--structure'"),
    ("tournament-garbage-db", TOURNEY, arena_garbage_db, 2, "not a results database"),
    # replay
    ("replay-missing-file", ["replay", "verify", "missing.json.gz"], None, 2, "does not exist"),
    ("replay-not-gzip", ["replay", "verify", "junk.json.gz"], junk_files, 2, "junk.json.gz"),
    ("replay-not-json", ["replay", "verify", "notjson.json.gz"], junk_files, 2, "notjson.json.gz"),
    ("replay-a-folder", ["replay", "verify", "adir"], junk_files, 2, "is a directory"),
    ("replay-max-bytes-zero", ["replay", "verify", "junk.json.gz", "--max-bytes", "0"], junk_files, 2,
     "'--max-bytes'"),
    # report
    ("report-no-db", ["report", "--db", "missing.db"], None, 2, "no results database here"),
    ("report-garbage-db", ["report", "--db", "results/results.db"], garbage_db, 2, "not a usable SQLite database"),
    ("report-broken-sqlite", ["report", "--db", "empty.db"], junk_files, 2, "empty.db"),
    ("report-json-and-csv", ["report", "--json", "--csv"], None, 2, "--json and --csv are exclusive"),
    ("report-unknown-table", ["report", "--csv", "--table", "nope"], None, 2, "'--table'"),
    ("report-db-is-folder", ["report", "--db", "adir"], junk_files, 2, "is a directory"),
    # harnesses and cleanup
    ("harnesses-missing-folder", ["harnesses"], no_harnesses, 2, "no-such-harnesses"),
    ("harnesses-check-unknown", ["harnesses", "check", "nope"], None, 2, "nope"),
    ("harnesses-check-timeout-nan", ["harnesses", "check", "--install-timeout", "nan"], None, 2,
     "'--install-timeout'"),
    ("cleanup-k8s-without-k8s", ["cleanup", "--k8s-namespace", "x"], None, 2,
     "--k8s-namespace needs --runtime kubernetes"),
    ("cleanup-unknown-runtime", ["cleanup", "--runtime", "nope"], None, 2, "nope"),
    # the top level
    ("unknown-command", ["frobnicate"], None, 2, "No such command 'frobnicate'"),
    ("debug-still-clean-for-tcab-errors", ["seed", "nope"], debug_env, 2, "no test case"),
]


def _snapshot(tmp: Path) -> dict[str, tuple[int, int, bytes]]:
    found = {}
    for top in ("results", "build"):
        for path in sorted((tmp / top).rglob("*")) if (tmp / top).exists() else []:
            st = path.lstat()
            data = path.read_bytes() if path.is_file() else b""
            found[str(path.relative_to(tmp))] = (st.st_mode, st.st_size, data)
    return found


@pytest.mark.parametrize(("args", "setup", "code", "message"),
                         [pytest.param(*c[1:], id=c[0]) for c in CASES])
def test_bad_input_is_a_clear_error(tmp_path, args, setup, code, message):
    env = {**os.environ, "TCAB_CATALOG": str(CATALOG), "TCAB_HARNESSES": str(REPO / "harnesses"),
           "TCAB_RESULTS": str(tmp_path / "results"), "TCAB_BUILD": str(tmp_path / "build"),
           "TCAB_TMP": str(tmp_path / "tmp"), "COLUMNS": "400"}
    env.pop("TCAB_DEBUG", None)
    extra = setup(tmp_path) if setup else None
    env.update(extra or {})
    before = _snapshot(tmp_path)
    out = subprocess.run([sys.executable, "-m", "tcab", *args], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=120)
    text = out.stdout + out.stderr
    assert out.returncode == code, text[-3000:]
    assert "Traceback" not in text
    assert message in " ".join(text.split()), text[-3000:]
    assert _snapshot(tmp_path) == before, "bad input wrote into results/ or build/"


def test_the_table_is_long_enough():
    # The issue's own cases plus at least 40 more, across every command.
    assert len(CASES) >= 47
    commands = {c[1][0] for c in CASES}
    assert {"catalog", "seed", "prompt", "run", "validate", "build", "match", "replay", "tournament",
            "report", "harnesses", "cleanup"} <= commands


def test_debug_shows_the_traceback_of_an_unexpected_error(tmp_path):
    """--debug / TCAB_DEBUG=1 shows a bug's traceback; without them, one line."""
    env = {**os.environ, "TCAB_CATALOG": str(CATALOG)}
    env.pop("TCAB_DEBUG", None)
    code = ("import sys, tcab.cli, tcab.seeding.memo as m\n"
            "def boom(*a, **k): raise ZeroDivisionError('boom')\n"
            "m.answer_file = boom\n"
            "tcab.cli.main(sys.argv[1:])\n")
    plain = subprocess.run([sys.executable, "-c", code, "prompt", "lights-out"], cwd=tmp_path, env=env,
                           capture_output=True, text=True, timeout=60)
    assert plain.returncode == 70 and "Traceback" not in plain.stderr  # a bug: not "bad input" (2)
    assert "unexpected ZeroDivisionError: boom" in plain.stderr and "--debug" in plain.stderr
    debug = subprocess.run([sys.executable, "-c", code, "--debug", "prompt", "lights-out"], cwd=tmp_path,
                           env=env, capture_output=True, text=True, timeout=60)
    assert debug.returncode == 1 and "Traceback" in debug.stderr and "ZeroDivisionError" in debug.stderr
    env["TCAB_DEBUG"] = "1"
    by_env = subprocess.run([sys.executable, "-c", code, "prompt", "lights-out"], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=60)
    assert "Traceback" in by_env.stderr
