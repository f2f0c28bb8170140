"""The ``tcab`` command.

Sub-commands live in one module per part and are imported on first use, so
``tcab catalog`` does not pay for wasmtime or docker-py. Exit codes (the
``EXIT_*`` constants; docs/runs.md, "Exit codes"): 0 success, 1 the work ran
but its outcome was a failure (a run that did not complete, a replay that
does not verify, a catalog with errors), 2 bad input (``InputError``, a
click usage error, a file the system refused), 3 the infrastructure failed
(``InfrastructureError``: the engine's daemon is gone, the API server does
not answer; trying again later may work), 70 a bug in tcab (any other
exception), 130 interrupted. Every message goes to stderr without a
traceback; ``--debug`` (or ``TCAB_DEBUG=1``) shows the traceback of a bug.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import signal
import sys

import click

from tcab import __version__
from tcab.errors import InfrastructureError, InputError, TcabError
from tcab.settings import Settings

EXIT_OK = 0
#: The work ran and its outcome was a failure.
EXIT_FAILED = 1
EXIT_INPUT = 2
EXIT_INFRASTRUCTURE = 3
#: A bug in tcab (sysexits' EX_SOFTWARE): neither the input nor the platform.
EXIT_BUG = 70
EXIT_INTERRUPTED = 130

_EPILOG = ("Exit codes: 0 success, 1 the outcome was a failure, 2 bad input, "
           "3 the infrastructure failed (engine, API server), 70 a bug in tcab, 130 interrupted.")

# name -> "module:attribute"; the order here is the order in --help.
COMMANDS: dict[str, str] = {
    "catalog": "tcab.cli.catalog:catalog",
    "seed": "tcab.cli.seed:seed",
    "prompt": "tcab.cli.seed:prompt",
    "harnesses": "tcab.cli.harnesses:harnesses",
    "run": "tcab.cli.run:run",
    "cleanup": "tcab.cli.run:cleanup",
    "build": "tcab.cli.arena:build",
    "match": "tcab.cli.arena:match",
    "tournament": "tcab.cli.arena:tournament",
    "replay": "tcab.cli.arena:replay",
    "validate": "tcab.cli.validate:validate",
    "asset": "tcab.cli.asset:asset",
    "report": "tcab.cli.report:report",
    "view": "tcab.cli.view:view",
}


class LazyGroup(click.Group):
    """A click group whose commands are imported when first asked for."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        target = COMMANDS.get(name)
        if target is None:
            return None
        module, attr = target.split(":")
        return getattr(importlib.import_module(module), attr)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]}, epilog=_EPILOG)
@click.version_option(__version__, prog_name="tcab")
@click.option("--debug", is_flag=True, help="Show the traceback of an unexpected error (also TCAB_DEBUG=1).")
@click.pass_context
def cli(ctx: click.Context, debug: bool) -> None:
    """The Test Cabinet: run coding agents against a versioned catalog of
    test cases, in containers, and score what they build.

    \b
    Paths default to the current directory and can be moved with
    TCAB_CATALOG, TCAB_HARNESSES, TCAB_BUILD, TCAB_RESULTS and TCAB_TMP.

    \b
    Start with:
      tcab catalog                 list the test cases
      tcab seed lights-out         build the repository a run would get
      tcab run lights-out --harness reference
    """
    if debug:
        os.environ["TCAB_DEBUG"] = "1"
    ctx.obj = Settings.from_env()


def _debug(argv: list[str] | None) -> bool:
    args = sys.argv[1:] if argv is None else argv
    return os.environ.get("TCAB_DEBUG", "") not in ("", "0") or "--debug" in args


def main(argv: list[str] | None = None) -> None:
    """Entry point: run the CLI and turn every error into an exit code and a
    message on stderr (tracebacks only with --debug or TCAB_DEBUG=1)."""
    try:
        code = _main(argv)
    except KeyboardInterrupt:  # a Ctrl-C landing while an outcome was being reported
        click.echo("interrupted", err=True)
        code = EXIT_INTERRUPTED
    # The exit code is decided. Python puts the default SIGINT handler back
    # while it shuts down, so a late Ctrl-C would turn it into death by
    # signal; an ignored SIGINT stays ignored.
    with contextlib.suppress(ValueError):  # not the main thread: nothing to protect
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    sys.exit(code)


def _main(argv: list[str] | None) -> int:
    try:
        code = cli.main(args=argv, prog_name="tcab", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("interrupted", err=True)
        return EXIT_INTERRUPTED
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except InfrastructureError as exc:
        click.secho(f"error: {exc}", fg="red", err=True)
        return EXIT_INFRASTRUCTURE
    except InputError as exc:
        click.secho(f"error: {exc}", fg="red", err=True)
        return EXIT_INPUT
    except TcabError as exc:  # a TcabError outside both families is our bug
        return _bug(argv, exc)
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        return EXIT_INTERRUPTED
    except OSError as exc:
        # A file the user named (or the system) refused: name it, no traceback.
        if _debug(argv):
            raise
        where = f"{exc.filename}: " if exc.filename else ""
        click.secho(f"error: {where}{exc.strerror or exc}", fg="red", err=True)
        return EXIT_INPUT
    except RecursionError:
        if _debug(argv):
            raise
        click.secho("error: input nested too deeply", fg="red", err=True)
        return EXIT_INPUT
    except Exception as exc:  # noqa: BLE001 - the last line of defence: never a traceback
        return _bug(argv, exc)
    # Without standalone mode click returns ctx.exit(code)'s code instead of exiting.
    return code if isinstance(code, int) else EXIT_OK


def _bug(argv: list[str] | None, exc: Exception) -> int:
    if _debug(argv):
        raise exc
    click.secho(f"error: unexpected {type(exc).__name__}: {exc} "
                "(this is a bug in tcab; rerun with --debug for the traceback)", fg="red", err=True)
    return EXIT_BUG
