"""``tcab report``: who is best at what, from results.db."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import click

from tcab.results.export import CSV_TABLES
from tcab.settings import Settings


@click.command()
@click.option("--db", "db_path", type=click.Path(dir_okay=False, path_type=Path),
              help="The results database [default: $TCAB_RESULTS/results.db].")
@click.option("--case", help="Only this case slug.")
@click.option("--variant", help="Only this variant.")
@click.option("--harness", help="Only runs of this harness.")
@click.option("--json", "as_json", is_flag=True, help="Print the whole report as JSON.")
@click.option("--csv", "as_csv", is_flag=True, help="Print one table (see --table) as CSV.")
@click.option("--table", default="runs", show_default=True, metavar="TABLE",
              help=f"The table --csv prints: {', '.join(CSV_TABLES)}, or a test type's own "
                   "(the key of a table a test type adds; a bad name lists them).")
@click.option("--compare", nargs=2, metavar="A B",
              help="Compare two HARNESS[/MODEL] on the cases both ran: per-case success differences, "
                   "the paired bootstrap 95% interval of the mean difference, and cases won.")
@click.option("--prices", "prices_path", type=click.Path(dir_okay=False, path_type=Path), envvar="TCAB_PRICES",
              help="Price the runs not yet priced with this price table (TOML) before reporting "
                   "[env: TCAB_PRICES].")
@click.option("--html", "html_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Also write a static report (index.html with charts) into this folder.")
@click.pass_obj
def report(settings: Settings, db_path: Path | None, case: str | None, variant: str | None,
           harness: str | None, as_json: bool, as_csv: bool, table: str,
           html_dir: Path | None, compare: tuple[str, str] | None, prices_path: Path | None) -> None:
    """Summarise results.db per case version and variant: each harness and
    model's run outcomes (completed, timed out, hung, errors), builds, tokens
    and durations; match records; tournament standings with ratings and
    their confidence intervals.

    \b
    Examples:
      tcab report                          tables in the terminal
      tcab report --case capture --json    one case, as JSON
      tcab report --csv --table standings > standings.csv
      tcab report --html results/report    static page with charts and links
      tcab report --compare claude-code/claude-sonnet-4-5 codex/gpt-5
      tcab report --prices prices.toml     with each run's cost

    Success rates carry their Wilson 95% interval, pass@k is the unbiased
    estimator, and the mean over cases a bootstrap interval over cases
    (docs/results.md, "Statistics").

    Exit codes: 0 report printed, 2 no database, a bad price table or a bad option.
    """
    from tcab.catalog.typetable import (
        report_columns,
        report_table,
        report_table_keys,
        success_rule,
    )
    from tcab.results.report import Filters, build_report, connect

    if as_json and as_csv:
        raise click.UsageError("--json and --csv are exclusive: choose one")
    if compare and as_csv:
        raise click.UsageError("--compare prints its own comparison (or --json): not with --csv")
    if as_csv and table not in CSV_TABLES and table not in report_table_keys():
        known = ", ".join((*CSV_TABLES, *report_table_keys()))
        raise click.BadParameter(f"no table {table!r}; expected one of {known}", param_hint="'--table'")
    path = (db_path or settings.results_db).resolve()
    if prices_path is not None:
        from tcab.results.costs import price_runs
        from tcab.results.prices import load_prices

        prices = load_prices(prices_path)
        connect(path).close()  # migrates an older database first
        with closing(sqlite3.connect(path)) as writer:
            writer.execute("PRAGMA busy_timeout = 10000")
            price_runs(writer, prices)
    conn = connect(path)
    try:
        result = build_report(conn, Filters(case=case, variant=variant, harness=harness),
                              database=str(path), type_columns=report_columns, type_table=report_table,
                              success_rule=success_rule)
        written = None
        if html_dir:
            from tcab.results.html import write_html
            from tcab.view.player import export_replay

            written = write_html(result, conn, html_dir, path.parent, settings.catalog_dir,
                                 export_replay=export_replay)
    finally:
        conn.close()
    if compare:
        from tcab.results.groupstats import compare as compare_subjects

        comparison = compare_subjects(result.groups, *compare)
        if as_json:
            from tcab.results.export import to_json

            click.echo(to_json(comparison))
        else:
            from tcab.results.statsview import print_comparison

            print_comparison(comparison)
        return
    if as_json:
        from tcab.results.export import report_json

        click.echo(report_json(result))
    elif as_csv:
        from tcab.results.export import report_csv

        click.echo(report_csv(result, table), nl=False)
    else:
        from tcab.results.terminal import print_report

        print_report(result)
    if written is not None:
        click.echo(f"HTML report: {written}", err=as_json or as_csv)
