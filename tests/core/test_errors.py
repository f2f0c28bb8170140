"""The exception tree of tcab/errors.py: two families under TcabError, drawn
in the module docstring, each with its own CLI exit code."""

from __future__ import annotations

import inspect

import click

import tcab.errors as errors
from tcab import cli
from tcab.cli import EXIT_BUG, EXIT_INFRASTRUCTURE, EXIT_INPUT, _main
from tcab.errors import InfrastructureError, InputError, TcabError

FAMILIES = (InputError, InfrastructureError)


def _classes() -> list[type[TcabError]]:
    return [c for c in vars(errors).values()
            if inspect.isclass(c) and issubclass(c, TcabError) and c not in (TcabError, *FAMILIES)]


def test_every_error_belongs_to_exactly_one_family() -> None:
    classes = _classes()
    assert len(classes) >= 12
    for cls in classes:
        assert sum(issubclass(cls, f) for f in FAMILIES) == 1, cls
    assert issubclass(errors.RuntimeBackendError, InfrastructureError)
    assert issubclass(errors.ImageNotFound, InfrastructureError)
    assert issubclass(errors.RuntimeSettingsError, InputError)
    assert not issubclass(InputError, InfrastructureError) and not issubclass(InfrastructureError, InputError)


def test_the_docstring_draws_every_class_under_its_parent() -> None:
    lines = errors.__doc__.splitlines()
    for cls in (*_classes(), *FAMILIES):
        row = next((i for i, line in enumerate(lines) if f"── {cls.__name__} " in line), None)
        assert row is not None, f"{cls.__name__} is not drawn in the tree"
        depth = lines[row].index(cls.__name__)
        parent = cls.__bases__[0].__name__
        above = next(line for line in reversed(lines[:row]) if parent in line)
        assert above.index(parent) < depth, (cls.__name__, parent)


_RAISE: list[BaseException] = []


@click.command()
def boom() -> None:
    """A command that raises what the test put in ``_RAISE``."""
    raise _RAISE[-1]


def test_each_family_has_its_exit_code(capsys, monkeypatch) -> None:
    monkeypatch.delenv("TCAB_DEBUG", raising=False)
    monkeypatch.setitem(cli.COMMANDS, "boom-test", f"{__name__}:boom")
    for exc, code in ((errors.PlanError("b.yaml: bad"), EXIT_INPUT),
                      (errors.RuntimeSettingsError("unknown runtime 'x'"), EXIT_INPUT),
                      (errors.RuntimeBackendError("docker runtime: daemon gone"), EXIT_INFRASTRUCTURE),
                      (errors.ImageNotFound("image x is not present"), EXIT_INFRASTRUCTURE),
                      (TypeError("a bug"), EXIT_BUG)):
        _RAISE.append(exc)
        assert _main(["boom-test"]) == code, exc
        err = capsys.readouterr().err
        assert str(exc) in err and "Traceback" not in err
    assert "bug in tcab" in err
    assert len({EXIT_INPUT, EXIT_INFRASTRUCTURE, EXIT_BUG, 0, 1, 130}) == 6


def test_help_lists_the_exit_codes(capsys) -> None:
    assert _main(["--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert ("Exit codes: 0 success, 1 the outcome was a failure, 2 bad input, 3 the infrastructure failed "
            "(engine, API server), 70 a bug in tcab, 130 interrupted.") in out
