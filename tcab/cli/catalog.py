"""``tcab catalog``: list the test cases; ``tcab catalog validate``: check them all."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from tcab.catalog.listing import Entry, list_entries, newest, variant_slugs
from tcab.catalog.toml import display_path
from tcab.catalog.typetable import is_type, refusal
from tcab.cli.params import bounded, maximum
from tcab.errors import CatalogError, Problem
from tcab.settings import Settings

CACHE_FILE = "catalog-validate.json"  # under build/


def _row(entry: Entry, variants: list[str], versions: list[str]) -> dict:
    from tcab.catalog import tree_digest
    from tcab.catalog.material import reviewer_material

    return {
        "slug": entry.slug,
        "name": entry.name,
        "type": entry.type,
        "difficulty": entry.difficulty,
        "version": entry.version,
        "versions": versions,
        "variants": variants,
        "tags": list(entry.tags),
        "experimental": entry.experimental,
        "summary": entry.summary,
        "max_runtime_hours": entry.max_runtime_hours,
        "path": str(entry.root),
        "digest": tree_digest(entry.root),
        # Reviewer material (never seeded): domains, review_items, variant_review.
        **reviewer_material(entry.root, entry.variant_files),
    }


@click.group(invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True, help="Print the list as JSON.")
@click.option("--experimental", is_flag=True, help="Include experimental cases.")
@click.pass_context
def catalog(ctx: click.Context, as_json: bool, experimental: bool) -> None:
    """List the test cases: the newest version of each, with its variants.

    Listing reads the manifests only; `tcab catalog validate` checks every
    file of every version.

    \b
    Examples:
      tcab catalog                       table of the cases
      tcab catalog --json --experimental every case, as JSON
      tcab catalog validate              check every manifest, variant and template
    """
    if ctx.invoked_subcommand is not None:
        return
    settings: Settings = ctx.obj
    _check_catalog_dir(settings)
    entries, problems = list_entries(settings.catalog_dir)
    if problems:
        click.secho(f"warning: {len(problems)} manifest(s) cannot be listed and are left out "
                    "(see `tcab catalog validate`)", fg="yellow", err=True)
    cases = newest(entries, experimental=experimental)
    for c in cases:
        if not is_type(c.type):  # listed, but not run: say so (docs/catalog.md, "What tcab refuses")
            click.secho(f"warning: {display_path(c.root)}: {refusal(c.slug, c.type)}", fg="yellow", err=True)
    if as_json:
        versions: dict[str, list[Entry]] = {}
        for e in entries:
            versions.setdefault(e.slug, []).append(e)
        click.echo(json.dumps([
            _row(c, variant_slugs(c), [v.version for v in sorted(versions[c.slug], key=lambda v: v.version_key)])
            for c in cases], indent=2))
        return
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    table = Table(title=f"{len(cases)} test case(s) in {settings.catalog_dir}")
    for column in ("slug", "type", "difficulty", "version", "variants", "name"):
        table.add_column(column)
    for c in cases:
        flag = " (experimental)" if c.experimental else ""
        # Text, not markup: a name like "[/b]" in a manifest must print as written.
        table.add_row(*(Text(v) for v in (c.slug, c.type, c.difficulty, c.version + flag,
                                          ", ".join(variant_slugs(c)), c.name)))
    Console().print(table)


def _check_catalog_dir(settings: Settings) -> None:
    """CatalogError (exit 2, as every command) for a catalog folder that is missing or not a folder."""
    if not settings.catalog_dir.is_dir():
        raise CatalogError(Problem(str(settings.catalog_dir), "catalog folder not found (run tcab from "
                                   "the project folder or set TCAB_CATALOG)"))


def _progress(quiet: bool):
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    console = Console(stderr=True)
    return Progress(TextColumn("validating"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    console=console, transient=True, disable=quiet or not console.is_terminal)


@catalog.command()
@click.argument("path", required=False, type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the problems as JSON.")
@click.option("-j", "--jobs", type=bounded("--jobs"), default=1, show_default=True,
              help=f"Versions checked in parallel (processes), at most {maximum('--jobs')}.")
@click.option("--no-cache", is_flag=True,
              help=f"Check every version again, ignoring and not writing build/{CACHE_FILE}.")
@click.pass_obj
def validate(settings: Settings, path: Path | None, as_json: bool, jobs: int, no_cache: bool) -> None:
    """Check a catalog (default: the project's) or one version folder: every
    manifest and variant file, every path, every spec and prompt template of
    every variant, and every seeding collision. Prints all problems at once and
    exits 1 if there is any.

    A catalog's versions are checked in parallel with -j, with a progress bar
    on stderr; each version's result is cached in build/catalog-validate.json
    by its content, so an unchanged version is not checked again.

    \b
    Examples:
      tcab catalog validate -j 4
      tcab catalog validate test-cases/end-to-end/easy/lights-out/v1.0.0
    """
    from tcab.seeding.verify import verify_catalog

    if path is None:
        _check_catalog_dir(settings)  # a missing catalog is bad input (2), not a catalog with problems (1)
    target = (path or settings.catalog_dir).resolve()
    if (target / "test-case.toml").exists() or (target / "test-case.toml").is_symlink():
        from tcab.catalog import load_version
        from tcab.seeding import check_case

        case, problems = load_version(target)
        if case is not None:
            problems = problems + check_case(case)
        versions, variants = (1, len(case.variants)) if case else (0, 0)
        cached = ""
    else:
        cache = None if no_cache else settings.build_dir / CACHE_FILE
        with _progress(as_json) as progress:
            task = progress.add_task("validating", total=None)
            verdict = verify_catalog(target, cache=cache, jobs=jobs,
                                     on_progress=lambda done, total: progress.update(task, completed=done,
                                                                                     total=total))
        problems, versions, variants = verdict.problems, verdict.versions, verdict.variants
        cached = f" ({verdict.total - verdict.checked} from the cache)" if cache is not None else ""
    if as_json:
        click.echo(json.dumps([
            {"path": p.path, "line": p.line, "key": p.key, "message": p.message}
            for p in problems
        ], indent=2))
    else:
        for p in problems:
            click.secho(str(p), fg="red", err=True)
        verdict_text = f"{len(problems)} problem(s)" if problems else "ok"
        click.echo(f"{verdict_text}: {versions} case version(s), {variants} variant(s) checked{cached}")
    if problems:
        sys.stdout.flush()
        click.get_current_context().exit(1)
