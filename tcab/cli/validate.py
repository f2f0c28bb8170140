"""``tcab validate RUN_ID``: build an end-to-end run's tree in a container and
check the page in headless Chromium (docs/validation.md).

The imports inside the command are slow ones (Playwright, docker-py), taken
when it runs; there is no import cycle to break here.
"""

from __future__ import annotations

import json

import click

from tcab.cli.params import bounded, maximum
from tcab.settings import Settings


@click.command("validate")
@click.argument("run_id")
@click.option("--runtime", "runtime_name", default="docker", show_default=True, help="Runtime backend.")
@click.option("--timeout", type=bounded("--timeout"), default=600, show_default=True,
              help=f"Seconds allowed for each of install and build (enforced in the container), "
                   f"at most {maximum('--timeout')}.")
@click.option("--settle", type=bounded("--settle"), default=1.0, show_default=True,
              help=f"Seconds to keep watching for errors after the page's load event (0 to {maximum('--settle')}).")
@click.option("--load-timeout", type=bounded("--load-timeout"), default=30.0, show_default=True,
              help=f"Seconds for index.html to answer and fire load, at most {maximum('--load-timeout')}.")
@click.option("--browser-timeout", type=bounded("--browser-timeout"), default=120.0, show_default=True,
              help="Seconds for the whole browser check; then Chromium's process tree is killed "
                   f"(at most {maximum('--browser-timeout')}).")
@click.option("--json", "as_json", is_flag=True, help="Print the validation record as JSON.")
@click.pass_obj
def validate(settings: Settings, run_id: str, runtime_name: str, timeout: int, settle: float,
             load_timeout: float, browser_timeout: float, as_json: bool):
    """Validate the end-to-end run RUN_ID: build it and check it in a browser.

    The run's collected tree (results/runs/RUN_ID/work/) is untrusted: the
    case's [build] install and build run in a fresh test-cabinet-base-wasm
    container, then the [build] output folder is served on 127.0.0.1 and
    opened in headless Chromium. It passes when index.html loads with no
    uncaught error and no console error; one screenshot per reference view
    lands in results/runs/RUN_ID/validation/. The row goes to results.db.

    Exit 0 passed, 1 failed (or the infrastructure failed), 2 bad input
    (unknown run, an adversarial run: use `tcab build`).

    \b
    Example:
      tcab validate 20250101-120000-lights-out-classic-reference-a1b2c3
    """
    from tcab.cli.runref import open_run
    from tcab.results import open_db, record_validation
    from tcab.validation import BrowserLimits, validate_run
    from tcab.validation.scripts import record_item_decisions

    # BrowserLimits refuses a limit that is not finite and positive (exit 2).
    browser = BrowserLimits(load_timeout_s=load_timeout, settle_s=settle, wall_time_s=browser_timeout)
    from tcab.cli.dbcheck import check_results_db

    case, run = open_run(settings, run_id)
    check_results_db(settings.results_db)
    record = validate_run(settings, case, run, runtime=runtime_name, timeout_s=timeout, browser=browser)
    db = open_db(settings.results_db)
    try:
        record_validation(db, record.row())
        record_item_decisions(db, case, record.run_id, record.variant, run.run_dir, record.item_decisions,
                              digest=record.case_digest)
    finally:
        db.close()
    if as_json:
        click.echo(json.dumps(record.to_json(), indent=2, sort_keys=True))
    else:
        for check in record.checks:
            mark = click.style("ok  ", fg="green") if check.ok else click.style("FAIL", fg="red")
            click.echo(f"{mark} {check.name:8} {check.detail}")
        colour = "green" if record.passed else "red"
        click.secho(f"{record.status}: {run_id} ({record.duration_s:.1f}s) - {record.detail}", fg=colour)
        for shot in record.screenshots:
            click.echo(f"screenshot: {run.run_dir / shot}")
        for decision in record.item_decisions:
            verdict = {True: "pass", False: "fail", None: "undecided"}[decision.passed]
            click.echo(f"item {decision.item}: {verdict}" + (f" - {decision.reason}" if decision.reason else ""))
        if not record.passed and record.build_log:
            click.echo(record.build_log, err=True)
    if not record.passed:
        raise click.exceptions.Exit(1)
