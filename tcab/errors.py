"""The exceptions tcab raises on purpose, in two families.

    TcabError                       base of both families (never raised itself)
    ├── InputError                  bad input: the user can fix it (CLI exit 2)
    │   ├── CatalogError            a manifest or variant file is wrong; carries every problem
    │   ├── TemplateError           a template does not parse or names an unknown variable
    │   ├── SeedError               a seed could not be built (collision, unreadable source)
    │   ├── HarnessError            a harness definition is wrong, a secret is not set
    │   ├── RunError                a run folder is unknown or its run.json unreadable
    │   ├── ArenaError              a case's game or contract is unusable
    │   ├── ReplayError             a replay is unreadable or does not reproduce its result
    │   ├── PlanError               benchmark.yaml is wrong
    │   ├── ResultsError            results.db is unusable (newer schema, corrupt)
    │   ├── ValidationError         a run cannot be validated (not end-to-end, no tree)
    │   ├── BrowserError            the browser toolkit refused its input (a mockup, a limit)
    │   └── RuntimeSettingsError    an unknown runtime, a wrong runtime setting, a missing kubeconfig
    └── InfrastructureError         the platform failed, not the input (CLI exit 3; a sweep retries)
        └── RuntimeBackendError     the container engine or API server failed (daemon gone, pod evicted)
            └── ImageNotFound       an image is neither local nor pullable

Each backend turns only the library exceptions it knows (docker-py and its
transport; the kubernetes client, urllib3, websocket) into
RuntimeBackendError, in one context manager per backend, ``from`` the
original. Any other exception is a bug in tcab: it is never dressed up as
either family. A run records it as ``internal_error`` with its traceback in
the run folder (``internal-error.txt``), and the CLI exits 70 (docs/runs.md,
"Exit codes").

Outcomes are not exceptions: a harness's non-zero exit, a timeout, a bot's
forfeit are data recorded in results. Only bad input and failures of the
platform under tcab raise on purpose.
"""

from __future__ import annotations

from dataclasses import dataclass


class TcabError(Exception):
    """Base of every error tcab raises on purpose; each belongs to one of the
    two families below."""


class InputError(TcabError):
    """Bad input: a file, an option, a setting or a name the user gave is wrong."""


class InfrastructureError(TcabError):
    """The platform under tcab failed (container engine, API server, network):
    not the input's fault and not a result; a sweep tries again."""


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


class CatalogError(InputError):
    """One or more problems in the catalog; ``problems`` lists them all."""

    def __init__(self, problems: list[Problem] | Problem):
        self.problems = [problems] if isinstance(problems, Problem) else list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


class TemplateError(InputError):
    """A template failed to parse or to render strictly."""


class SeedError(InputError):
    """A seeded repository could not be built."""


class RuntimeBackendError(InfrastructureError):
    """The container runtime itself failed: infrastructure, not the model's fault."""


class ImageNotFound(RuntimeBackendError):
    """An image is not present locally and could not be pulled."""


class HarnessError(InputError):
    """A harness definition is missing or invalid."""


class RunError(InputError):
    """A run cannot be read: no such run id, or a missing or garbled ``run.json``."""


class ArenaError(InputError):
    """A case's game, contract or sandbox settings are unusable."""


class ReplayError(InputError):
    """A replay is unreadable or its re-simulation disagrees with its record."""


class PlanError(InputError):
    """A sweep plan (benchmark.yaml) is invalid."""


class ResultsError(InputError):
    """The results database cannot be used."""


class ValidationError(InputError):
    """A run cannot be validated (no such run, no collected tree, not an end-to-end case)."""


class BrowserError(InputError):
    """The browser toolkit (tcab/browser/) refused its input: a mockup that does
    not render, a limit that is not a finite positive number. Seeding reports a
    mockup's as a SeedError naming the same file."""


class RuntimeSettingsError(InputError):
    """A runtime cannot be built from what it was given: an unknown backend
    name, a wrong setting, a missing kubeconfig or optional dependency."""
