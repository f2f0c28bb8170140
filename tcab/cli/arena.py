"""``tcab match``, ``tcab tournament``, ``tcab replay verify|export`` and ``tcab build``:
the arena's commands (docs/arena.md).

The imports inside the commands are slow ones (wasmtime, docker-py, rich),
taken when a command runs so that ``tcab --help`` does not pay for them;
there is no import cycle to break here.
"""

from __future__ import annotations

import datetime
import json
import sys
from pathlib import Path

import click

from tcab.cli.params import Identifier, bounded, maximum
from tcab.errors import ArenaError
from tcab.settings import Settings


def _console():
    from rich.console import Console

    return Console(stderr=False)


def _modules_dir(settings: Settings) -> Path:
    return settings.build_dir / "modules"


def _open_db(settings: Settings):
    from tcab.results import open_db

    return open_db(settings.results_db)


def _check_wasm_limits() -> None:
    """The TCAB_WASM_* values, checked before anything (a cached match included) is served."""
    from tcab.arena.preflight import LoadLimits

    LoadLimits.from_env()


def _record_builds(db, builds: list) -> None:
    from tcab.results import record_build

    for record in builds:
        record_build(db, record.row())


@click.command("match")
@click.argument("case")
@click.argument("modules", nargs=-1, required=True)
@click.option("--variant", help="Variant slug (default: the case's first).")
@click.option("--seed", type=bounded("--seed"), default=1, show_default=True, help="Game seed, 0 to 2**63-1.")
@click.option("--replay", "replay_out", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write the replay (gzip JSON) to this file.")
@click.option("--json", "as_json", is_flag=True, help="Print the match summary as JSON.")
@click.pass_obj
def match(settings: Settings, case, modules, variant, seed, replay_out, as_json):
    """Play one match of CASE between MODULES (one per seat, in seat order).

    A module is a path to a .wasm file or baseline:<name> (a baseline shipped
    with the case, built on the host on first use). The result is cached by
    (case digest, variant, seed, module digests): the same match is never
    played twice. It is recorded in results.db with its replay.

    \b
    Example:
      tcab match capture baseline:rush baseline:guard --seed 7 --replay m.json.gz
    """
    from tcab.arena.jobs import make_job, run_job
    from tcab.arena.resolve import resolve_game, resolve_module, unique_labels
    from tcab.arena.store import record_summary
    from tcab.atomic import check_file_target
    from tcab.cli.dbcheck import check_results_db

    _check_wasm_limits()
    if replay_out is not None:
        check_file_target(replay_out)  # before the match is played, not after
    case_v, _, spec = resolve_game(settings, case, variant)
    check_results_db(settings.results_db)  # before any module is built or match played
    if len(modules) != spec.participants:  # before building anything for a match that cannot be
        raise click.BadParameter(f"{spec.case} is a {spec.participants}-seat game, got {len(modules)} modules",
                                 param_hint="MODULES")
    builds: list = []
    contestants = unique_labels([resolve_module(settings, m, case_v, builds=builds) for m in modules])
    if len(contestants) != spec.participants:
        raise click.BadParameter(f"{spec.case} is a {spec.participants}-seat game, got {len(contestants)} modules",
                                 param_hint="MODULES")
    job = make_job(spec, contestants, seed, settings.results_dir, _modules_dir(settings))
    summary = run_job(job)
    db = _open_db(settings)
    try:
        _record_builds(db, builds)
        record_summary(db, spec, summary)
    finally:
        db.close()
    if replay_out is not None:
        from tcab.arena.replay import stored_bytes_limit
        from tcab.atomic import write_bytes
        from tcab.reading import read_bytes

        # Atomically, and never over a device, FIFO or link (write_bytes refuses those).
        write_bytes(replay_out, read_bytes(summary["replay"], stored_bytes_limit(), what="replay file"))
    if as_json:
        click.echo(json.dumps(summary, indent=2, sort_keys=True))
        return
    _print_match(spec, summary)


def _print_match(spec, summary: dict) -> None:
    from rich.table import Table

    result = summary["result"]
    title = (f"{spec.case}@{spec.version} variant {spec.variant}, seed {summary['seed']}: "
             f"{result['reason']} after {result['ticks']} ticks" + (" (cached)" if summary.get("cached") else ""))
    table = Table(title=title)
    for col in ("seat", "module", "outcome", "score", "forfeit", "fuel total", "fuel peak/tick"):
        table.add_column(col, justify="right" if col.startswith(("seat", "score", "fuel")) else "left",
                         no_wrap=col != "forfeit", overflow="fold")
    for row, fuel in zip(result["seats"], summary["fuel"], strict=True):
        f = row.get("forfeit")
        table.add_row(str(row["seat"]), summary["labels"][row["seat"]], row["outcome"], str(row["score"]),
                      f"{f['reason']} @{f['tick']}" if f else "",
                      f"{fuel['total']:,}", f"{fuel['peak']:,}")
    console = _console()
    console.print(table)
    for row in result["seats"]:
        f = row.get("forfeit")
        if f:
            console.print(f"seat {row['seat']} forfeited at tick {f['tick']} ({f['phase']}): "
                          f"{f['reason']}: {f['detail']}", markup=False, highlight=False)
    console.print(f"replay: {summary['replay']}", markup=False, highlight=False, soft_wrap=True)


@click.command("tournament")
@click.argument("case")
@click.argument("modules", nargs=-1, required=True)
@click.option("--variant", help="Variant slug (default: the case's first).")
@click.option("--rounds", type=bounded("--rounds"),
              help=f"Matches per pairing, at most {maximum('--rounds')} (default: [match].rounds).")
@click.option("--structure", type=click.Choice(["round-robin", "bracket"]),
              help="Pairing structure (default: [match].structure).")
@click.option("--seed", type=bounded("--seed"), default=1, show_default=True,
              help="Tournament seed, 0 to 2**63-1 (game seeds derive from it).")
@click.option("-j", "--jobs", type=bounded("--jobs"), default=1, show_default=True,
              help=f"Matches played in parallel (processes), at most {maximum('--jobs')}.")
@click.option("--id", "tournament_id", type=Identifier(), help="Tournament id in results.db (default: derived from the inputs).")
@click.option("--json", "as_json", is_flag=True, help="Print standings and matches as JSON.")
@click.pass_obj
def tournament(settings: Settings, case, modules, variant, rounds, structure, seed, jobs, tournament_id, as_json):
    """Rank MODULES on CASE: round-robin or bracket, in parallel.

    Every pairing plays ROUNDS matches with the seats rotated; game seeds
    derive from --seed. Cached matches are reused. Prints the standings
    (wins, draws, losses, forfeits) and a Bradley-Terry rating with a 95%
    bootstrap interval, and records everything in results.db.

    \b
    Example:
      tcab tournament capture baseline:random baseline:rush baseline:guard my.wasm -j 2
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from tcab.arena.resolve import resolve_game, resolve_module, unique_labels
    from tcab.arena.store import record_tournament_result
    from tcab.arena.tournament import run_tournament
    from tcab.naming import tournament_id as make_tournament_id

    created = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    from tcab.cli.dbcheck import check_results_db

    _check_wasm_limits()

    case_v, _, spec = resolve_game(settings, case, variant)
    check_results_db(settings.results_db)  # before any module is built or match played
    builds: list = []
    contestants = unique_labels([resolve_module(settings, m, case_v, builds=builds) for m in modules])
    rounds = rounds or spec.rounds
    structure = structure or spec.structure
    if tournament_id is None:
        tournament_id = make_tournament_id(
            f"{spec.case}-{spec.variant}", case=spec.case, version=spec.version, variant=spec.variant,
            structure=structure, rounds=rounds, seed=seed, modules=[c.sha256 for c in contestants])
    progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TimeElapsedColumn(), console=_console_err(), disable=as_json or not sys.stderr.isatty())
    with progress:
        task = progress.add_task(f"{spec.case} {structure}", total=None)

        def on_match(summary, done, total):
            if summary is None:
                progress.update(task, completed=0, total=total)
            else:
                progress.update(task, completed=done, total=total,
                                description=f"{spec.case} {structure}: {summary['tag']} (round {summary['round']})")

        result = run_tournament(spec, contestants, seed=seed, rounds=rounds, structure=structure, jobs=jobs,
                                results_dir=settings.results_dir, modules_dir=_modules_dir(settings),
                                on_match=on_match)
    db = _open_db(settings)
    try:
        _record_builds(db, builds)
        record_tournament_result(db, spec, tournament_id, result, created)
    finally:
        db.close()
    if as_json:
        click.echo(json.dumps(_tournament_json(tournament_id, result), indent=2, sort_keys=True))
        return
    _print_standings(spec, tournament_id, result)


def _console_err():
    from rich.console import Console

    return Console(stderr=True)


def _tournament_json(tid: str, result) -> dict:
    return {
        "id": tid, "structure": result.structure, "seed": result.seed, "rounds": result.rounds,
        "played": result.played, "cached": len(result.matches) - result.played,
        "champion": result.contestants[result.champion].label if result.champion is not None else None,
        "standings": result.standings_json(),
        "matches": [{"key": m["key"], "round": m["round"], "labels": m["labels"], "seed": m["seed"],
                     "winner": m["result"]["winner"], "reason": m["result"]["reason"],
                     "scores": m["result"]["scores"], "replay": m["replay"], "cached": m.get("cached", False)}
                    for m in result.matches],
    }


def _print_standings(spec, tid: str, result) -> None:
    from rich.table import Table

    table = Table(title=f"{spec.case}@{spec.version} variant {spec.variant}, {result.structure}, "
                        f"{result.rounds} round(s), seed {result.seed} — {tid}")
    for col in ("#", "controller", "P", "W", "D", "L", "forfeits", "rating", "95% CI"):
        table.add_column(col, justify="left" if col == "controller" else "right", no_wrap=True)
    for i, s in enumerate(result.standings, start=1):
        label = result.contestants[s.player].label
        if result.champion == s.player:
            label += " (champion)"
        table.add_row(str(i), label, str(s.played), str(s.wins), str(s.draws), str(s.losses),
                      str(s.forfeits), f"{s.rating:+.0f}", f"[{s.ci_low:+.0f}, {s.ci_high:+.0f}]")
    console = _console()
    console.print(table)
    console.print(f"{len(result.matches)} matches ({result.played} played, "
                  f"{len(result.matches) - result.played} from cache)")


@click.group("replay")
def replay():
    """Work with match replays (gzip JSON written by match and tournament)."""


@replay.command("verify")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--rules", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Rules module to use instead of the case's (for games outside the catalog).")
@click.option("--json", "as_json", is_flag=True, help="Print the verdict as JSON.")
@click.option("--max-bytes", type=bounded("--max-bytes"), default=None,
              help="Refuse a replay that decompresses to more than this many bytes "
                   f"(default 64 MiB, at most {maximum('--max-bytes')}: a gzip bomb is refused, not inflated).")
@click.pass_obj
def verify(settings: Settings, file: Path, rules: Path | None, as_json: bool, max_bytes: int | None):
    """Re-simulate FILE with the rules module only (no wasm) and check that
    it reproduces the recorded result and final state digest. Exit 0 if it
    does, 1 if it does not, 2 if the file or its case is unusable (missing,
    truncated, not gzip, too large when decompressed, not a replay).

    \b
    Example:
      tcab replay verify results/replays/3f2a....json.gz
    """
    from tcab.arena.replay import read_replay, verify_replay

    doc = read_replay(file, max_bytes=max_bytes)
    header = doc["header"]
    action_schema = None
    problems: list[str] = []
    if rules is None:
        from tcab.arena.resolve import resolve_game

        _, _, spec = resolve_game(settings, f"{header['case']}@{header['version']}", header["variant"])
        rules, action_schema = spec.rules_path, spec.action_schema
        if header.get("case_digest") and spec.case_digest != header["case_digest"]:
            problems.append(f"case digest differs: replay {header['case_digest']}, catalog {spec.case_digest}")
    verdict = verify_replay(doc, rules, action_schema)
    problems.extend(verdict.problems)
    ok = not problems
    if as_json:
        click.echo(json.dumps({"file": str(file), "ok": ok, "problems": problems,
                               "result": verdict.result, "final_digest": verdict.final_digest},
                              indent=2, sort_keys=True))
    elif ok:
        r = verdict.result
        click.echo(f"ok: {file}: {r['reason']} after {r['ticks']} ticks, winner "
                   f"{r['winner'] if r['winner'] is not None else 'none'}, digest {verdict.final_digest[:16]}")
    else:
        click.secho(f"FAILED: {file}", fg="red", err=True)
        for p in problems:
            click.echo(f"  {p}", err=True)
    if not ok:
        raise click.exceptions.Exit(1)


@replay.command("export")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("out", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--renderer", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Renderer page to use instead of the case's [replay].renderer.")
@click.option("--max-bytes", type=bounded("--max-bytes"), default=None,
              help="Refuse a replay that decompresses to more than this many bytes "
                   f"(default 64 MiB, at most {maximum('--max-bytes')}).")
@click.pass_obj
def export(settings: Settings, file: Path, out: Path, renderer: Path | None, max_bytes: int | None):
    """Write OUT (one HTML page) that plays FILE in its case's renderer with
    the replay inside: it opens from file:// and needs no network. The replay
    is checked first (gzip, size, shape); a broken one writes nothing. OUT
    `-` is stdout; an OUT that exists and is not a regular file (a device, a
    FIFO, a link), or that is FILE or the renderer, is refused (exit 2).

    \b
    Example:
      tcab replay export results/replays/3f2a....json.gz match.html
    """
    from tcab.view.player import export_replay

    written = export_replay(file, out, settings.catalog_dir, renderer=renderer, max_bytes=max_bytes)
    if str(out) != "-":  # "-": the page went to stdout, which holds nothing else
        click.echo(f"replay page: {written}")


@click.command("build")
@click.argument("run_id")
@click.option("--runtime", "runtime_name", default="docker", show_default=True, help="Runtime backend.")
@click.option("--timeout", type=bounded("--timeout"), default=600, show_default=True,
              help=f"Seconds allowed for each of install and build (enforced in the container), "
                   f"at most {maximum('--timeout')}.")
@click.option("--json", "as_json", is_flag=True, help="Print the build record as JSON.")
@click.pass_obj
def build(settings: Settings, run_id: str, runtime_name: str, timeout: int, as_json: bool):
    """Build the controller of run RUN_ID into build/wasm/<sha256>.wasm.

    The run's collected tree (results/runs/RUN_ID/work/) is untrusted: the
    case's [build] install and build run inside the test-cabinet-adversarial
    image, never on the host. Exit 0 when a module came out, 1 when the
    build failed or timed out, 2 for bad input (not a run id, an unknown
    run, an unreadable run.json, a run that is not adversarial).

    \b
    Example:
      tcab build 20250101-capture-reference-1
    """
    from tcab.arena.build import build_run
    from tcab.cli.dbcheck import check_results_db
    from tcab.cli.runref import open_run

    case, run = open_run(settings, run_id)
    check_results_db(settings.results_db)
    record = build_run(settings, case, run, runtime=runtime_name, timeout_s=timeout)
    db = _open_db(settings)
    try:
        _record_builds(db, [record])
    finally:
        db.close()
    if as_json:
        click.echo(json.dumps({**record.row(), "module": str(record.module) if record.module else None},
                              indent=2, sort_keys=True))
    elif record.status == "ok":
        click.echo(f"ok: {record.module} ({record.size} bytes, {record.duration_s:.1f}s)")
    else:
        click.secho(f"{record.status}: build of {run_id}", fg="red", err=True)
        click.echo(record.log_excerpt, err=True)
    if record.status != "ok":
        raise click.exceptions.Exit(1)


__all__ = ["build", "match", "replay", "tournament", "ArenaError"]
