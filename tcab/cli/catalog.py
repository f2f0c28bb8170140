"""``tcab catalog``: list the test cases; ``tcab catalog validate``: check them all."""

from __future__ import annotations

import json
from pathlib import Path

import click

from tcab.catalog import CaseVersion, Catalog, case_digest, load_version, scan_catalog
from tcab.errors import CatalogError, Problem
from tcab.settings import Settings


def open_catalog(settings: Settings, *, warn: bool = True) -> Catalog:
    """Scan the catalog; broken cases are left out with a warning on stderr.

    Raises CatalogError when the catalog folder itself is missing.
    """
    catalog, problems = scan_catalog(settings.catalog_dir)
    if not settings.catalog_dir.is_dir():
        raise CatalogError(problems)
    if problems and warn:
        click.secho(
            f"warning: {len(problems)} problem(s) in the catalog; "
            "broken cases are left out (see `tcab catalog validate`)",
            fg="yellow",
            err=True,
        )
    return catalog


def _row(case: CaseVersion, catalog: Catalog) -> dict:
    return {
        "slug": case.slug,
        "name": case.name,
        "type": case.type,
        "difficulty": case.difficulty,
        "version": case.version,
        "versions": [c.version for c in catalog.versions_of(case.slug)],
        "variants": [v.slug for v in case.variants],
        "tags": list(case.tags),
        "experimental": case.experimental,
        "summary": case.summary,
        "max_runtime_hours": case.max_runtime_hours,
        "path": str(case.root),
        "digest": case_digest(case),
    }


@click.group(invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
@click.option("--experimental", is_flag=True, help="Include experimental cases.")
@click.pass_context
def catalog(ctx: click.Context, as_json: bool, experimental: bool) -> None:
    """List the test cases: the newest version of each, with its variants.

    \b
    Examples:
      tcab catalog                       table of the cases
      tcab catalog --json --experimental every case, as JSON
      tcab catalog validate              check every manifest, variant and template
    """
    if ctx.invoked_subcommand is not None:
        return
    settings: Settings = ctx.obj
    cat = open_catalog(settings)
    cases = cat.latest(experimental=experimental)
    if as_json:
        click.echo(json.dumps([_row(c, cat) for c in cases], indent=2))
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{len(cases)} test case(s) in {settings.catalog_dir}")
    for column in ("slug", "type", "difficulty", "version", "variants", "name"):
        table.add_column(column)
    for c in cases:
        flag = " (experimental)" if c.experimental else ""
        table.add_row(c.slug, c.type, c.difficulty, c.version + flag,
                      ", ".join(v.slug for v in c.variants), c.name)
    Console().print(table)


def _validate_path(path: Path) -> tuple[list[CaseVersion], list[Problem]]:
    if (path / "test-case.toml").exists() or (path / "test-case.toml").is_symlink():
        case, problems = load_version(path)
        return ([case] if case else []), problems
    catalog_, problems = scan_catalog(path)
    return list(catalog_.versions), problems


@catalog.command()
@click.argument("path", required=False, type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the problems as JSON.")
@click.pass_obj
def validate(settings: Settings, path: Path | None, as_json: bool) -> None:
    """Check a catalog (default: the project's) or one version folder: every
    manifest and variant file, every path, every spec and prompt template of
    every variant, and every seeding collision. Prints all problems at once and
    exits 1 if there is any.

    \b
    Examples:
      tcab catalog validate
      tcab catalog validate test-cases/end-to-end/easy/lights-out/v1.0.0
    """
    from tcab.seeding import check_case

    cases, problems = _validate_path(path or settings.catalog_dir)
    for case in cases:
        problems.extend(check_case(case))
    if as_json:
        click.echo(json.dumps([
            {"path": p.path, "line": p.line, "key": p.key, "message": p.message}
            for p in problems
        ], indent=2))
    else:
        for p in problems:
            click.secho(str(p), fg="red", err=True)
        variants = sum(len(c.variants) for c in cases)
        verdict = f"{len(problems)} problem(s)" if problems else "ok"
        click.echo(f"{verdict}: {len(cases)} case version(s), {variants} variant(s) checked")
    if problems:
        click.get_current_context().exit(1)
