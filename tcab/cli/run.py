"""``tcab run`` (one harness run in a container) and ``tcab cleanup``."""

from __future__ import annotations

import functools
import json
import math
import signal
import threading
from pathlib import Path

import click

from tcab.cli.params import bounded, maximum
from tcab.settings import Settings

_STYLE = {"message": "white", "command": "cyan", "read": "blue", "write": "green",
          "error": "bold red", "warning": "yellow", "system": "dim"}
EXIT_CANCELED = 130


def _plain(text: str):
    """Hostile text for the terminal: no escapes, no rich markup."""
    from rich.text import Text

    from tcab.runs.log import readable

    return Text(readable(str(text)))


def _kube_options(fn, names: tuple[str, ...] | None = None):
    """``--k8s-*``: the kubernetes backend's settings (also TCAB_K8S_* variables),
    derived from their one definition (tcab.runtime.choice.SETTINGS)."""
    from tcab.runtime.choice import backend_settings

    for setting in reversed(backend_settings("kubernetes")):
        if names is not None and setting.name not in names:
            continue
        fn = click.option(setting.flag, f"k8s_{setting.name}", metavar="VALUE",
                          help=f"[--runtime kubernetes] {setting.help}")(fn)
    return fn


def _runtime_for(runtime_name: str, kube: dict):
    """The runtime choice of the command line: the backend and its ``--k8s-*``
    settings, checked before any container exists."""
    from tcab.runtime.choice import BY_NAME, RuntimeChoice

    given = {k.removeprefix("k8s_"): v for k, v in kube.items() if v is not None}
    if runtime_name != "kubernetes" and given:
        raise click.UsageError(f"{BY_NAME[next(iter(given))].flag} needs --runtime kubernetes")
    try:
        return RuntimeChoice.from_values(runtime_name, given)
    except ValueError as exc:
        name = str(exc).split(":", 1)[0]
        hint = BY_NAME[name].flag if name in BY_NAME else "--runtime"
        raise click.BadParameter(str(exc), param_hint=f"'{hint}'") from None


def _console():
    from rich.console import Console

    return Console()


def _printer(console):
    from rich.text import Text

    from tcab.runs.log import readable

    def show(event: dict) -> None:
        kind = str(event["kind"])
        text = readable(event["text"].replace("\n", " ⏎ "))
        if len(text) > 300:
            text = text[:300] + "…"
        # A Text, not markup: a harness printing "[/dim]" must not crash or restyle the console.
        line = Text.assemble((f"{event['stage']:>14} ", "dim"), (f"{kind:<8} {text}", _STYLE.get(kind, "white")))
        console.print(line, highlight=False, soft_wrap=True)
    return show


def _summary(console, record) -> None:
    from rich.table import Table

    table = Table(show_header=False, box=None, pad_edge=False)
    colour = "green" if record.ok else "red"
    table.add_row("run", record.id)
    status = _plain(f"{record.status}")
    status.stylize(colour)
    if record.status_detail:
        status.append(_plain(f"  {record.status_detail[:300]}"))
    table.add_row("status", status)
    table.add_row("case", _plain(f"{record.case_slug}@{record.case_version} variant {record.variant}"))
    table.add_row("harness", _plain(f"{record.harness} ({record.harness_version or 'version unknown'})"
                                    + (f" model {record.model}" if record.model else "")))
    table.add_row("image", _plain(str(record.image_digest or record.image)))
    table.add_row("stages", _plain("  ".join(f"{s.stage} {s.duration_s:.1f}s" + ("" if s.status == "ok" else f" [{s.status}]")
                                             for s in record.stages)))
    if record.tokens.reported:
        t = record.tokens
        table.add_row("tokens", f"in {t.input}  out {t.output}  cache read {t.cache_read}  cache write {t.cache_write}")
    table.add_row("artifact", f"{record.files} files, {record.bytes} bytes, digest {record.artifact_digest}")
    for refusal in record.refused[:20]:
        table.add_row("refused", _plain(f"{refusal.path}: {refusal.reason}"))
    table.add_row("folder", _plain(str(record.run_dir)))
    console.print(table)


@click.command()
@click.argument("case", metavar="CASE")
@click.option("--version", "version", metavar="V", help="Case version (default: the newest).")
@click.option("--variant", metavar="X", help="Variant slug (default: the first).")
@click.option("--harness", "harness_slug", required=True, metavar="H",
              help="Harness slug, from harnesses/ (see `tcab harnesses`).")
@click.option("--model", metavar="M", help="Model id handed to the harness.")
@click.option("--max-runtime", "max_runtime", type=bounded("--max-runtime"),
              metavar="HOURS", help=f"Wall-clock cap, at most {maximum('--max-runtime')} hours "
                                    "(default: the case's max_runtime_hours).")
@click.option("--idle-timeout", "idle_timeout", type=bounded("--idle-timeout"),
              metavar="SECONDS", default=1800.0, show_default=True,
              help=f"Kill the session after this long without output (status hung); "
                   f"at most {maximum('--idle-timeout')}.")
@click.option("--runtime", "runtime_name", default="docker", show_default=True, metavar="NAME",
              help="Runtime backend.")
@click.option("--secret", "secrets", multiple=True, metavar="NAME",
              help="Host environment variable passed into the session (repeatable); never written anywhere.")
@click.option("--max-collect-mb", type=bounded("--max-collect-mb"), default=2048, show_default=True,
              help=f"Refuse a collected tree larger than this (MiB, at most {maximum('--max-collect-mb')}).")
@click.option("--max-collect-s", type=bounded("--max-collect-s"), default=600, show_default=True,
              help="Refuse the collected tree when copying it out takes longer than this "
                   f"(seconds, at most {maximum('--max-collect-s')}).")
@click.option("--max-log-mb", type=bounded("--max-log-mb"), default=64, show_default=True,
              help="Cap raw.jsonl and events.jsonl each; output past it is counted and dropped "
                   f"(MiB, at most {maximum('--max-log-mb')}).")
@click.option("--out", type=click.Path(path_type=Path, file_okay=False), metavar="DIR",
              help="Folder for the run folder (default: results/runs).")
@click.option("--experimental", is_flag=True, help="Allow experimental versions.")
@click.option("--json", "as_json", is_flag=True, help="Print run.json instead of the live stream.")
@click.option("--watch", "watch", is_flag=True,
              help="Watch the run live: a preview listener reachable from the run's container only, "
                   "and a page on 127.0.0.1 (its URL is printed) showing each frame as it arrives. "
                   "Only types whose tool streams a preview can be watched (asset-generation).")
@_kube_options
@click.pass_obj
def run(settings: Settings, case: str, version: str | None, variant: str | None, harness_slug: str,
        model: str | None, max_runtime: float | None, idle_timeout: float, runtime_name: str,
        secrets: tuple[str, ...], max_collect_mb: int, max_collect_s: float, max_log_mb: int, out: Path | None,
        experimental: bool, as_json: bool, watch: bool, **kube) -> None:
    """Run harness H on CASE in a fresh container: seed the repository, install
    and probe the harness, run the case's init and the session under the max
    runtime and the idle watchdog, collect /work into results/runs/<run-id>/,
    record run.json and a results.db row, and remove the container.

    Exit status: 0 completed, 1 any other outcome, 2 bad input, 3 the engine
    failed before the run began, 70 a bug in tcab (internal_error: the run is
    recorded with its traceback), 130 canceled (Ctrl-C or SIGTERM: the
    session is killed and the run recorded).

    \b
    Examples:
      tcab run lights-out --harness reference
      tcab run lights-out --variant torus --harness claude-code --model claude-sonnet-4-5 \\
          --max-runtime 0.5 --idle-timeout 600
      tcab run lights-out --harness codex --secret OPENAI_API_KEY --json
      tcab run lattice-sink --harness claude-code --watch   (prints the page's URL)
    """
    from tcab.catalog import resolve_case
    from tcab.harnesses import load_harness
    from tcab.outcomes import RunStatus
    from tcab.runs import RunOptions, execute_run
    from tcab.runtime import CollectLimits

    max_runtime_s = max_runtime * 3600 if max_runtime else None
    if max_runtime_s is not None and not math.isfinite(max_runtime_s):  # 1e308 hours
        raise click.BadParameter(f"expected a finite number of hours, got {max_runtime!r}",
                                 param_hint="'--max-runtime'")
    from tcab.cli.dbcheck import check_results_db

    resolved = resolve_case(settings.catalog_dir, case, version, experimental=experimental)
    chosen = resolved.variant(variant)
    harness = load_harness(settings.harnesses_dir, harness_slug)
    check_results_db(settings.results_db)  # before the container starts, not after the run
    # Checked here; opened by the run, which owns its max runtime (the pod's leak guard too).
    runtime = _runtime_for(runtime_name, kube)
    # --json prints nothing styled: rich (~20 ms to import) is left out there.
    console = None if as_json else _console()
    cancel = threading.Event()

    def on_signal(signum, _frame) -> None:
        if cancel.is_set():  # a second Ctrl-C: stop waiting politely
            raise KeyboardInterrupt
        message = f"{signal.Signals(signum).name}: canceling the run…"
        if console is None:
            click.echo(message, err=True)
        else:
            console.print(f"[yellow]{message}[/]")
        cancel.set()

    watcher = None
    if watch:
        from tcab.watch import Watch

        watcher = Watch()
        console.print(f"watch the run at {watcher.start_page()}", highlight=False, soft_wrap=True)
    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        record = execute_run(settings, resolved, chosen, harness, RunOptions(
            model=model, max_runtime_s=max_runtime_s,
            idle_timeout_s=idle_timeout, runtime=runtime, secrets=secrets,
            max_log_bytes=max_log_mb * 1024 * 1024,
            out_dir=out, limits=CollectLimits(max_bytes=max_collect_mb * 1024 * 1024,
                                                         max_seconds=max_collect_s),
            on_event=None if as_json else _printer(console), cancel=cancel, watch=watcher,
        ))
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if watcher is not None:
            console.print(f"watch: {watcher.summary()}", highlight=False)
            watcher.close()
    if as_json:
        click.echo(json.dumps(record.to_json(), indent=2))
    else:
        _summary(console, record)
    if record.status is RunStatus.CANCELED:
        raise click.exceptions.Exit(EXIT_CANCELED)
    if record.status is RunStatus.INTERNAL_ERROR:
        from tcab.cli import EXIT_BUG

        raise click.exceptions.Exit(EXIT_BUG)
    raise click.exceptions.Exit(0 if record.ok else 1)


@click.command()
@click.option("--run-id", metavar="ID", help="Only the container of this run.")
@click.option("--runtime", "runtime_name", default="docker", show_default=True, metavar="NAME")
@click.option("--json", "as_json", is_flag=True, help="Print the removed container ids as JSON.")
@functools.partial(_kube_options, names=("context", "namespace"))
def cleanup(run_id: str | None, runtime_name: str, as_json: bool, **kube) -> None:
    """Remove the containers that runs left behind (every container carrying
    the org.tcab.run-id label, or only RUN-ID's). Safe while no run is going.

    \b
    Examples:
      tcab cleanup
      tcab cleanup --run-id 20261129-164258-lights-out-classic-reference-7a6f8b --json
      tcab cleanup --runtime kubernetes --k8s-namespace tcab   (deletes the run pods)
    """
    from tcab.runs import cleanup_containers
    from tcab.watch import remove_stale_rules

    removed = cleanup_containers(_runtime_for(runtime_name, kube).open(), run_id)
    rules = remove_stale_rules()  # preview firewall holes whose tcab was killed
    if as_json:
        click.echo(json.dumps({"removed": removed, "preview_rules_removed": rules}))
    else:
        click.echo(f"removed {len(removed)} container(s)" + "".join(f"\n  {c[:12]}" for c in removed)
                   + (f"\nremoved {rules} stale preview firewall rule(s)" if rules else ""))
