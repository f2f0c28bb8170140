"""A build that never gives a loadable page makes the run ``catastrophic``.

The original's load check (its docs/validation.md: "a run that cannot load
is the clearest possible signal") against its checks: a page that loaded and
then failed a check is ``failed``, never catastrophic. The end-to-end test
runs the real build in Podman and the real page in Chromium.
"""

from __future__ import annotations

import json

import pytest

from tcab.catalog import resolve_case
from tcab.outcomes import RunStatus, run_status_after
from tcab.results import open_db, record_run, record_validation
from tcab.runs import load_run
from tcab.validation import Check, validate_run
from tcab.validation.record import judge

OK = {n: Check(n, True, "ok") for n in ("install", "build", "output", "index", "load", "errors")}


@pytest.mark.parametrize("checks,status,detail", [
    ([OK["install"], Check("build", False, "exited 3")], "catastrophic", "build: exited 3"),
    ([Check("install", False, "timed out")], "catastrophic", "install: timed out"),
    ([OK["install"], OK["build"], Check("output", False, "dist/ missing")], "catastrophic", "output: dist/ missing"),
    ([OK["install"], OK["build"], OK["output"], Check("index", False, "no index")], "catastrophic", "index: no index"),
    ([OK["index"], Check("load", False, "answered 500")], "catastrophic", "load: answered 500"),
    # The watchdog killed Chromium before the page loaded: nothing ever showed.
    ([OK["index"], Check("timeout", False, "killed")], "catastrophic", "timeout: killed"),
    # Loaded, then a check failed: the page exists, it has problems.
    ([OK["index"], OK["load"], Check("errors", False, "uncaught boom")], "failed", "errors: uncaught boom"),
    ([OK["index"], OK["load"], Check("screenshot", False, "busy")], "failed", "screenshot: busy"),
    ([OK["index"], OK["load"], Check("memory", False, "killed")], "failed", "memory: killed"),
    (list(OK.values()), "passed", "all checks passed"),
    # Attack: no failure, but no load either (a check list cut short) never passes.
    ([OK["install"], OK["build"]], "catastrophic", "the page was never loaded"),
    ([], "catastrophic", "the page was never loaded"),
    # A check that only calls itself "load" after the fact does not count when it failed.
    ([Check("load", False, "x"), Check("load", False, "y")], "catastrophic", "load: x"),
])
def test_judge(checks, status, detail) -> None:
    assert judge(checks) == (status, detail)


@pytest.mark.parametrize("before,validation,after", [
    ("completed", "catastrophic", "catastrophic"),
    ("completed", "failed", "completed"),
    ("completed", "error", "completed"),
    ("catastrophic", "passed", "completed"),
    ("catastrophic", "failed", "completed"),
    ("catastrophic", "error", "catastrophic"),
    ("timed_out", "catastrophic", "timed_out"),
    ("limit_exceeded", "catastrophic", "limit_exceeded"),
    ("harness_error", "passed", "harness_error"),
])
def test_run_status_after(before, validation, after) -> None:
    assert run_status_after(RunStatus(before), validation) is RunStatus(after)
    assert run_status_after(before, validation) is RunStatus(after)  # a plain string too


@pytest.mark.timeout(400)
def test_a_build_that_fails_makes_the_run_catastrophic_and_a_fixed_one_undoes_it(settings, make_run,
                                                                                  podman_runtime) -> None:
    run = make_run("doomed", {"build.js": "process.exit(3);\n"})
    case = resolve_case(settings.catalog_dir, run.case_slug, run.case_version)
    db = open_db(settings.results_db)
    try:
        record_run(db, *run.db_rows())
        record = validate_run(settings, case, run, runtime=podman_runtime)
        record_validation(db, record.row())
        assert record.status == "catastrophic" and record.detail == "build: [build].build `node build.js` exited 3"
        after = load_run(run.run_dir)
        assert after.status is RunStatus.CATASTROPHIC
        assert after.status_detail == "validation: build: [build].build `node build.js` exited 3"
        # Everything else in run.json is as the run left it.
        assert {**after.to_json(), "status": "completed", "status_detail": ""} == run.to_json()
        assert db.execute("SELECT status, status_detail FROM runs WHERE id = 'doomed'").fetchone() == (
            "catastrophic", after.status_detail)
        assert json.loads((run.run_dir / "validation" / "validation.json").read_text())["status"] == "catastrophic"

        # The tree fixed (say, by hand) and validated again from the catastrophic record.
        (run.run_dir / "work" / "build.js").unlink()
        make_fixed = make_run("fixed-tree")
        (run.run_dir / "work" / "build.js").write_bytes((make_fixed.run_dir / "work" / "build.js").read_bytes())
        record = validate_run(settings, case, after, runtime=podman_runtime, settle_s=0.2)
        record_validation(db, record.row())
        assert record.status == "passed", record.detail
        again = load_run(run.run_dir)
        assert again.status is RunStatus.COMPLETED and again.status_detail == ""
        assert db.execute("SELECT status FROM runs WHERE id = 'doomed'").fetchone() == ("completed",)
    finally:
        db.close()
    assert podman_runtime.list_run_containers("validate-doomed") == []


@pytest.mark.timeout(300)
def test_a_timed_out_run_with_no_page_keeps_its_status(settings, make_run, podman_runtime) -> None:
    from tests.support.run_folders import write_run

    case = resolve_case(settings.catalog_dir, "lights-out", "v1.0.0")
    run = write_run(settings.runs_dir, "slow", case, variant="classic", status="timed_out",
                    files={"package.json": "{}", "build.js": "// never built\n"})
    record = validate_run(settings, case, run, runtime=podman_runtime)
    assert record.status == "catastrophic"
    assert load_run(run.run_dir).status is RunStatus.TIMED_OUT
