"""``tcab seed`` and ``tcab prompt``: the exact inputs a run would receive."""

from __future__ import annotations

from pathlib import Path

import click

from tcab.cli.params import bounded, maximum
from tcab.settings import Settings

_case = click.argument("case", metavar="CASE")
_version = click.option("--version", "version", metavar="V",
                        help="Case version, e.g. v1.0.0 (default: the newest).")
_variant = click.option("--variant", metavar="X", help="Variant slug (default: the first).")
_experimental = click.option("--experimental", is_flag=True,
                             help="Allow picking the newest version among experimental ones.")


@click.command()
@_case
@_version
@_variant
@_experimental
@click.option("--out", type=click.Path(path_type=Path), metavar="DIR",
              help="Where to create the repository; must not exist "
                   "(default: <tmp>/seeds/<slug>-<version>-<variant>, replaced if present).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.option("--mockup-timeout", type=bounded("--mockup-timeout"), default=20.0, show_default=True, metavar="S",
              help=f"Seconds one HTML mockup may take to load and be captured, at most {maximum('--mockup-timeout')}.")
@click.pass_obj
def seed(settings: Settings, case: str, version: str | None, variant: str | None,
         experimental: bool, out: Path | None, as_json: bool, mockup_timeout: float) -> None:
    """Build the seeded git repository a run of CASE would get, and leave it on
    disk to inspect: the variant's workspace, specs, assets and reference
    screenshots, in one commit on `main`. The prompt is not seeded; see
    `tcab prompt`. CASE is a slug, optionally `slug@vX.Y.Z`.

    \b
    Examples:
      tcab seed lights-out
      tcab seed lights-out --variant torus --out /tmp/lights-out-torus
      git -C tmp/seeds/lights-out-v1.0.0-classic log --stat

    The seed is kept under build/seed-cache/ by the case folder's content
    digest, so seeding an unchanged variant again is a copy (and a repeated
    command does not even parse the case). HTML mockups are rendered in
    headless Chromium and kept under build/mockup-cache/.
    """
    from tcab.seeding import memo
    from tcab.seeding.cache import copy_entry, seed_from_cache

    cache_dir = settings.build_dir / "seed-cache"
    answer_file = memo.answer_file(cache_dir, settings.catalog_dir, case, version, variant, experimental)
    known = memo.recall(answer_file)
    entry = memo.stored_seed(cache_dir, known)
    if known and entry:
        dest = out or _seed_dir(settings, known.slug, known.version, known.variant)
        result = copy_entry(entry, dest, known.digest, replace=out is None)
        picked = (known.slug, known.version, known.variant)
    else:
        from tcab.catalog import resolve_case

        resolved = resolve_case(settings.catalog_dir, case, version, experimental=experimental)
        chosen = resolved.variant(variant)
        dest = out or _seed_dir(settings, resolved.slug, resolved.version, chosen.slug)
        result = seed_from_cache(cache_dir, resolved, chosen, dest,
                                 replace=out is None, mockup_timeout_s=mockup_timeout)
        memo.remember(answer_file, resolved, chosen, result.case_digest, result.prompt)
        picked = (resolved.slug, resolved.version, chosen.slug)
    slug, case_version, variant_slug = picked
    if as_json:
        import json

        click.echo(json.dumps({"case": slug, "version": case_version,
                               "variant": variant_slug, "commit": result.commit,
                               "path": str(result.path), "files": list(result.files)}, indent=2))
        return
    click.echo(f"seeded {slug}@{case_version} variant {variant_slug}: {len(result.files)} files, "
               f"commit {result.commit}")
    click.echo(str(result.path))


def _seed_dir(settings: Settings, slug: str, version: str, variant: str) -> Path:
    """Where ``tcab seed`` puts a seed without ``--out`` (replaced if present)."""
    return settings.tmp_dir / "seeds" / f"{slug}-{version}-{variant}"


@click.command()
@_case
@_version
@_variant
@_experimental
@click.pass_obj
def prompt(settings: Settings, case: str, version: str | None, variant: str | None,
           experimental: bool) -> None:
    """Print the instruction a run of CASE would hand the harness, rendered
    from the case's prompt.hbs for the chosen variant. Nothing is seeded or
    launched; the answer is kept under build/seed-cache/, so asking again
    about an unchanged case does not parse it.

    \b
    Examples:
      tcab prompt lights-out
      tcab prompt lights-out --variant torus
    """
    from tcab.seeding import memo

    answer_file = memo.answer_file(settings.build_dir / "seed-cache", settings.catalog_dir,
                                   case, version, variant, experimental)
    known = memo.recall(answer_file)
    if known is None:
        from tcab.catalog import case_digest, resolve_case
        from tcab.seeding import render_prompt

        resolved = resolve_case(settings.catalog_dir, case, version, experimental=experimental)
        chosen = resolved.variant(variant)
        text = render_prompt(resolved, chosen)
        memo.remember(answer_file, resolved, chosen, case_digest(resolved), text)
    else:
        text = known.prompt
    click.echo(text, nl=False)
