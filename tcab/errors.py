"""The exceptions tcab raises on purpose.

    TcabError                     base: the CLI prints it and exits 2 (no traceback)
    ├── CatalogError              a manifest or variant file is wrong; carries every problem
    ├── TemplateError             a template does not parse or names an unknown variable
    ├── SeedError                 a seed could not be built (collision, unreadable source)
    ├── RuntimeBackendError       the container engine itself failed (daemon gone, pull failed)
    │   └── ImageNotFound         an image is neither local nor pullable
    ├── HarnessError              a harness definition is wrong
    ├── RunError                  a run folder is unknown or its run.json unreadable
    ├── ArenaError                a case's game or contract is unusable (our bug, not a bot's)
    ├── ReplayError               a replay is unreadable or does not reproduce its result
    ├── PlanError                 benchmark.yaml is wrong
    ├── ResultsError              results.db is unusable (newer schema, corrupt)
    ├── ValidationError           a run cannot be validated (not end-to-end, no tree)
    └── BrowserError              the browser toolkit refused its input (a mockup, a limit)

Outcomes are not exceptions: a harness's non-zero exit, a timeout, a bot's
forfeit are data recorded in results. Only failures of tcab or of the
infrastructure under it raise.
"""

from __future__ import annotations

from dataclasses import dataclass


class TcabError(Exception):
    """Base of every error tcab raises on purpose."""


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with one file: where, which key, what is wrong."""

    path: str
    message: str
    key: str | None = None
    line: int | None = None

    def __str__(self) -> str:
        where = self.path if self.line is None else f"{self.path}:{self.line}"
        return f"{where}: {self.key}: {self.message}" if self.key else f"{where}: {self.message}"


class CatalogError(TcabError):
    """One or more problems in the catalog; ``problems`` lists them all."""

    def __init__(self, problems: list[Problem] | Problem):
        self.problems = [problems] if isinstance(problems, Problem) else list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


class TemplateError(TcabError):
    """A template failed to parse or to render strictly."""


class SeedError(TcabError):
    """A seeded repository could not be built."""


class RuntimeBackendError(TcabError):
    """The container runtime itself failed: infrastructure, not the model's fault."""


class ImageNotFound(RuntimeBackendError):
    """An image is not present locally and could not be pulled."""


class HarnessError(TcabError):
    """A harness definition is missing or invalid."""


class RunError(TcabError):
    """A run cannot be read: no such run id, or a missing or garbled ``run.json``."""


class ArenaError(TcabError):
    """A case's game, contract or sandbox settings are unusable."""


class ReplayError(TcabError):
    """A replay is unreadable or its re-simulation disagrees with its record."""


class PlanError(TcabError):
    """A sweep plan (benchmark.yaml) is invalid."""


class ResultsError(TcabError):
    """The results database cannot be used."""


class ValidationError(TcabError):
    """A run cannot be validated (no such run, no collected tree, not an end-to-end case)."""


class BrowserError(TcabError):
    """The browser toolkit (tcab/browser/) refused its input: a mockup that does
    not render, a limit that is not a finite positive number. Seeding reports a
    mockup's as a SeedError naming the same file."""
