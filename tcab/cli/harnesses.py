"""``tcab harnesses``: the agent harnesses tcab can run."""

from __future__ import annotations

import json

import click

from tcab.settings import Settings


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Print the definitions as JSON.")
@click.pass_obj
def harnesses(settings: Settings, as_json: bool) -> None:
    """List the harness definitions in harnesses/ (moved with TCAB_HARNESSES):
    slug, binary, install command, secrets it needs and its output adapter.

    \b
    Examples:
      tcab harnesses
      tcab harnesses --json | jq '.[].slug'
      tcab run lights-out --harness reference
    """
    from rich.console import Console
    from rich.table import Table

    from tcab.harnesses import load_harnesses

    found = load_harnesses(settings.harnesses_dir)
    if as_json:
        click.echo(json.dumps([h.to_json() for h in found], indent=2))
        return
    # The install lines are long; --json shows them whole.
    table = Table("slug", "name", "binary", "secrets", "adapter")
    for column in table.columns:
        column.no_wrap = True
    for h in found:
        table.add_row(h.slug, h.name, h.binary, " ".join(h.secrets) or "-", h.adapter)
    Console().print(table)
