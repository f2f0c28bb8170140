"""``tcab harnesses``: the agent harnesses tcab can run."""

from __future__ import annotations

import json

import click

from tcab.cli.params import bounded, maximum
from tcab.settings import Settings


@click.group(invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True, help="Print the definitions as JSON.")
@click.pass_context
def harnesses(ctx: click.Context, as_json: bool) -> None:
    """List the harness definitions in harnesses/ (moved with TCAB_HARNESSES):
    slug, binary, install command, secrets it needs and its output adapter.
    `tcab harnesses check` installs each CLI and checks its flags.

    \b
    Examples:
      tcab harnesses
      tcab harnesses --json | jq '.[].slug'
      tcab harnesses check codex
      tcab run lights-out --harness reference
    """
    if ctx.invoked_subcommand is not None:
        return
    settings: Settings = ctx.obj
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


@harnesses.command("check")
@click.argument("slug", required=False)
@click.option("--install-timeout", type=bounded("--install-timeout"), default=None, metavar="SECONDS",
              help=f"Bound of each install (default 900, at most {maximum('--install-timeout')}).")
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
@click.pass_obj
def check(settings: Settings, slug: str | None, install_timeout: float | None, as_json: bool) -> None:
    """Install each harness's CLI (or SLUG's) in a fresh run container and
    check that `--version` answers and that every flag of its definition
    appears in its `--help` (of the subcommand, e.g. `codex exec --help`).
    Prints a table; exits 1 when any CLI drifted or failed to install.

    \b
    Examples:
      tcab harnesses check
      tcab harnesses check gemini-cli --json
    """
    import math

    from rich.console import Console
    from rich.table import Table

    from tcab.harnesses import load_harness, load_harnesses
    from tcab.harnesses.check import DEFAULT_INSTALL_TIMEOUT_S, check_harness
    from tcab.runtime import get_runtime, resolve_image

    timeout = DEFAULT_INSTALL_TIMEOUT_S if install_timeout is None else install_timeout
    if not (math.isfinite(timeout) and timeout > 0):
        raise click.BadParameter(f"expected a finite number of seconds > 0, got {install_timeout}",
                                 param_hint="--install-timeout")
    found = [load_harness(settings.harnesses_dir, slug)] if slug else load_harnesses(settings.harnesses_dir)
    runtime = get_runtime("docker")
    image = resolve_image("base-wasm")
    results = []
    console = Console(stderr=True)
    for h in found:
        if not as_json:
            console.print(f"checking {h.slug} ...")
        results.append(check_harness(runtime, image, h, timeout))
    if as_json:
        click.echo(json.dumps([{"slug": r.slug, "status": r.status, "version": r.version,
                                "flags": list(r.flags), "missing": list(r.missing), "detail": r.detail}
                               for r in results], indent=2))
    else:
        table = Table("slug", "status", "version", "flags", "missing", "detail")
        for r in results:
            table.add_row(r.slug, r.status, r.version or "-", str(len(r.flags)),
                          " ".join(r.missing) or "-", r.detail or "-")
        Console().print(table)
    if not all(r.ok for r in results):
        raise SystemExit(1)
