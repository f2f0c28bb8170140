"""validate_run against real Podman and real headless Chromium."""

from __future__ import annotations

import json
import shutil
import struct
from pathlib import Path

import pytest

from tcab.catalog import resolve_case
from tcab.errors import ResultsError, ValidationError
from tcab.results import open_db, record_validation
from tcab.validation import validate_run

LIGHTS_OUT = Path(__file__).resolve().parents[2] / "test-cases" / "end-to-end" / "easy" / "lights-out" / "v1.0.0"


def _check(record, name):
    return next(c for c in record.checks if c.name == name)


def _validate(settings, run, **options):
    """validate_run with the run's own case, as `tcab validate` and the sweep pass it."""
    return validate_run(settings, resolve_case(settings.catalog_dir, run.case_slug, run.case_version), run,
                        **options)


def test_reference_solution_passes_and_is_recorded(settings, make_run, podman_runtime) -> None:
    run = make_run("ref-1")
    run_dir = run.run_dir
    record = _validate(settings, run, runtime=podman_runtime, settle_s=0.5)
    assert record.status == "passed", record.detail
    assert [c.name for c in record.checks] == ["install", "build", "output", "index", "load", "errors"]
    assert "Lights Out" in _check(record, "load").detail
    # One screenshot per reference view, at the reference image's size.
    assert record.screenshots == ("validation/board.png",)
    png = (run_dir / "validation" / "board.png").read_bytes()
    ref = (LIGHTS_OUT / "reference" / "board.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png[16:24] == ref[16:24]
    assert struct.unpack(">II", png[16:24])[0] > 0
    doc = json.loads((run_dir / "validation" / "validation.json").read_text())
    assert doc["status"] == "passed" and "node build.js" in doc["build_log"]
    assert record.image_digest and "base-wasm" in record.image_digest
    assert podman_runtime.list_run_containers("validate-ref-1") == []
    # Nothing was built on the host: the collected tree has no dist/.
    assert not (run_dir / "work" / "dist").exists()

    db = open_db(settings.results_db)
    record_validation(db, record.row())
    record_validation(db, record.row())  # idempotent
    rows = list(db.query("SELECT * FROM validations"))
    assert len(rows) == 1 and rows[0]["status"] == "passed" and rows[0]["variant"] == "classic"
    assert json.loads(rows[0]["screenshots"]) == ["validation/board.png"]
    assert [c["name"] for c in json.loads(rows[0]["checks"])][-1] == "errors"
    with pytest.raises(ResultsError, match="validations: unknown key 'verdict'"):
        record_validation(db, {**record.row(), "verdict": "yes"})
    with pytest.raises(ResultsError, match=r"validations.status: expected one of passed\|failed\|catastrophic\|error"):
        record_validation(db, {**record.row(), "status": "great"})
    db.close()


def test_failing_build_names_the_build(settings, make_run, podman_runtime) -> None:
    run = make_run("bad-build", {"build.js": "console.error('syntax is fine, build is not'); process.exit(3);\n"})
    record = _validate(settings, run, runtime=podman_runtime)
    assert record.status == "catastrophic"  # no page to load: the original's load check
    assert record.detail == "build: [build].build `node build.js` exited 3"
    assert "build is not" in record.build_log
    assert record.screenshots == ()
    assert podman_runtime.list_run_containers("validate-bad-build") == []


def test_uncaught_error_fails_naming_it(settings, make_run, podman_runtime) -> None:
    game = (LIGHTS_OUT / "solutions" / "common" / "src" / "game.js").read_text()
    run = make_run("throws", {"src/game.js": game + "\nsetTimeout(() => { throw new Error('boom-from-page'); }, 50);\n"})
    record = _validate(settings, run, runtime=podman_runtime, settle_s=0.5)
    assert record.status == "failed"
    errors = _check(record, "errors")
    assert not errors.ok and "uncaught" in errors.detail and "boom-from-page" in errors.detail
    assert record.detail.startswith("errors: ")
    assert podman_runtime.list_run_containers("validate-throws") == []


def test_missing_output_and_index(settings, make_run, podman_runtime) -> None:
    run = make_run("no-out", {"build.js": "console.log('forgot to build');\n"})
    record = _validate(settings, run, runtime=podman_runtime)
    assert record.status == "catastrophic"
    assert record.detail == "output: [build].output dist/ was not produced by the build"
    run = make_run("no-index", {"build.js": "require('fs').mkdirSync('dist'); require('fs').writeFileSync('dist/a.html', '');\n"})
    record = _validate(settings, run, runtime=podman_runtime)
    assert record.status == "catastrophic" and record.detail == "index: index.html is missing from the output folder"
    assert podman_runtime.list_run_containers("validate-no-out") == []
    assert podman_runtime.list_run_containers("validate-no-index") == []


def test_bad_input(settings, make_run, tmp_path) -> None:
    arena = make_run("arena-1", case="capture")
    with pytest.raises(ValidationError, match=r"capture is an adversarial case.*tcab build arena-1"):
        _validate(settings, arena)
    run = make_run("no-tree")
    shutil.rmtree(run.run_dir / "work")
    with pytest.raises(ValidationError, match="has no collected tree"):
        _validate(settings, run)
    # A collected tree that is a link would copy some host folder into the container.
    (tmp_path / "elsewhere").mkdir()
    (run.run_dir / "work").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(ValidationError, match="has no collected tree"):
        _validate(settings, run)
    # The case handed over must be the run's own.
    other = resolve_case(settings.catalog_dir, "capture")
    with pytest.raises(ValidationError, match="ref-2 is a run of lights-out@v1.0.0, not of capture@"):
        validate_run(settings, other, make_run("ref-2"))


def test_outside_requests_are_blocked_and_a_hung_page_fails(settings, make_run, podman_runtime) -> None:
    page = "<!doctype html><title>t</title><img src='http://198.51.100.7/pixel.png'>\n"
    run = make_run("outside", {"src/index.html": page})
    record = _validate(settings, run, runtime=podman_runtime, settle_s=0.3)
    assert record.status == "failed"
    assert "blocked a request outside the site: http://198.51.100.7/pixel.png" in _check(record, "errors").detail

    busy = "<!doctype html><title>busy</title><script>setTimeout(() => { for (;;) {} }, 50);</script>\n"
    run = make_run("busy", {"src/index.html": busy})
    record = _validate(settings, run, runtime=podman_runtime, settle_s=0.3)
    # The screenshot's own timeout names it; on a loaded machine the watchdog's wall time may end it first.
    assert record.status == "failed" and record.detail.startswith(
        ("screenshot: the page stopped responding", "timeout: the browser check did not finish")), record.detail
    assert podman_runtime.list_run_containers("validate-busy") == []
