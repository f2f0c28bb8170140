"""The ``tcab`` command.

Sub-commands live in one module per part and are imported on first use, so
``tcab catalog`` does not pay for wasmtime or docker-py. Exit codes:
0 success, 1 the work ran but its outcome was a failure (a run that did not
complete, a replay that does not verify, a catalog with errors), 2 bad
input or a tcab error (message on stderr, no traceback), 130 interrupted.
Any other exception is a bug: it exits 2 with a one-line message, and
``--debug`` (or ``TCAB_DEBUG=1``) shows its traceback.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import signal
import sys

import click

from tcab import __version__
from tcab.errors import TcabError
from tcab.settings import Settings

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


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
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
        code = 130
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
        return 130
    except click.ClickException as exc:
        exc.show()
        return 2 if exc.exit_code == 2 else exc.exit_code
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except TcabError as exc:
        click.secho(f"error: {exc}", fg="red", err=True)
        return 2
    except KeyboardInterrupt:
        click.echo("interrupted", err=True)
        return 130
    except OSError as exc:
        # A file the user named (or the system) refused: name it, no traceback.
        if _debug(argv):
            raise
        where = f"{exc.filename}: " if exc.filename else ""
        click.secho(f"error: {where}{exc.strerror or exc}", fg="red", err=True)
        return 2
    except RecursionError:
        if _debug(argv):
            raise
        click.secho("error: input nested too deeply", fg="red", err=True)
        return 2
    except Exception as exc:  # noqa: BLE001 - the last line of defence: never a traceback
        if _debug(argv):
            raise
        click.secho(f"error: unexpected {type(exc).__name__}: {exc} "
                    "(this is a bug in tcab; rerun with --debug for the traceback)", fg="red", err=True)
        return 2
    # Without standalone mode click returns ctx.exit(code)'s code instead of exiting.
    return code if isinstance(code, int) else 0
