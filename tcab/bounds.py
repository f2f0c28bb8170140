"""Every size, count and duration a user can give tcab, with its maximum: one table.

A value past its maximum is refused at the edge (the CLI option or the
environment variable), exit 2, with a message naming the option and the
maximum; it never reaches the code that would take ``99999999999999999999``
MiB for "no cap". The CLI's option types (``tcab.cli.params``) and the
``from_env`` readers (``PlanLimits``, ``LoadLimits``, ``KubeSettings``)
take their maxima from here, ``docs/security.md`` lists them, and
``tests/cli/test_bounds.py`` walks the table: every entry refused one past
its maximum, every numeric CLI option in the table.
"""

from __future__ import annotations

from dataclasses import dataclass

SECONDS_MAX = 7 * 24 * 3600   # a week: no single step of tcab is meant to run longer
SEED_MAX = 2**63 - 1          # game seeds are 63-bit (tcab.arena.tournament.derive_seed)
ROUNDS_MAX = 10_000
JOBS_MAX = 256
MIB_MAX = 1 << 20             # 1 TiB in MiB: more than any disk a run is collected to
GIB = 1 << 30


@dataclass(frozen=True, slots=True)
class Bound:
    """One option or variable: its unit, and the range it must fall in.

    ``commands`` are the ``tcab`` commands that take an option (empty for a
    variable); ``integer`` False means any finite number; ``minimum`` is
    inclusive unless ``above_minimum`` (durations must be > 0)."""

    name: str
    unit: str
    maximum: int | float
    minimum: int | float = 1
    integer: bool = True
    above_minimum: bool = False
    commands: tuple[str, ...] = ()

    @property
    def shown(self) -> str:
        """The maximum as messages and help state it (``1048576``, ``604800``, ``0.5``)."""
        return _number(self.maximum)

    def describe(self) -> str:
        low = f"> {_number(self.minimum)}" if self.above_minimum else f">= {_number(self.minimum)}"
        return f"{'an integer' if self.integer else 'a finite number'} {low} and <= {self.shown}" \
               + (f" ({self.unit})" if self.unit else "")


def _number(value: int | float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _seconds(name: str, *commands: str, minimum: float = 0, above: bool = True) -> Bound:
    return Bound(name, "seconds", SECONDS_MAX, minimum, integer=False, above_minimum=above, commands=commands)


#: The command-line options, by flag.
OPTIONS: dict[str, Bound] = {b.name: b for b in (
    Bound("--max-runtime", "hours", SECONDS_MAX // 3600, 0, integer=False, above_minimum=True, commands=("run",)),
    _seconds("--idle-timeout", "run"),
    Bound("--max-collect-mb", "MiB", MIB_MAX, commands=("run",)),
    Bound("--max-collect-s", "seconds", 24 * 3600, 1, integer=False, commands=("run",)),
    Bound("--max-log-mb", "MiB", MIB_MAX, commands=("run",)),
    Bound("--seed", "", SEED_MAX, 0, commands=("match", "tournament")),
    Bound("--rounds", "matches per pairing", ROUNDS_MAX, commands=("tournament",)),
    Bound("--jobs", "processes", JOBS_MAX, commands=("tournament", "catalog validate")),
    Bound("--max-bytes", "bytes", GIB, commands=("replay verify", "replay export")),
    Bound("--timeout", "seconds", SECONDS_MAX, commands=("build", "validate", "asset render-reference")),
    _seconds("--settle", "validate", above=False),
    _seconds("--load-timeout", "validate"),
    _seconds("--browser-timeout", "validate"),
    _seconds("--mockup-timeout", "seed"),
    _seconds("--install-timeout", "harnesses check"),
    Bound("--port", "", 65535, 0, commands=("view",)),
)}


def _plan(field: str, maximum: int) -> Bound:
    return Bound(f"TCAB_PLAN_{field.upper()}", "", maximum)


def _wasm(field: str, maximum: int | float, unit: str = "", integer: bool = True) -> Bound:
    return Bound(f"TCAB_WASM_{field.upper()}", unit, maximum, 0 if not integer else 1, integer=integer,
                 above_minimum=not integer)


#: The environment variables, by name.
ENV: dict[str, Bound] = {b.name: b for b in (
    _plan("max_bytes", 64 * 1024 * 1024),
    _plan("max_depth", 200),
    _plan("max_repeats", 1_000_000),
    _plan("max_runs", 10_000_000),
    _plan("max_parallelism", JOBS_MAX),
    _plan("max_rounds", 1_000_000),
    _wasm("max_module_bytes", GIB, "bytes"),
    _wasm("max_functions", 10_000_000),
    _wasm("max_code_bytes", GIB, "bytes"),
    _wasm("max_function_bytes", 256 * 1024 * 1024, "bytes"),
    _wasm("max_locals", 1_000_000),
    _wasm("max_types", 1_000_000),
    _wasm("max_tables", 1_000),
    _wasm("max_memories", 100),
    _wasm("max_globals", 1_000_000),
    _wasm("max_exports", 1_000_000),
    _wasm("max_element_segments", 1_000_000),
    _wasm("max_data_segments", 1_000_000),
    _wasm("max_tags", 1_000_000),
    _wasm("max_custom_sections", 1_000_000),
    _wasm("max_custom_bytes", GIB, "bytes"),
    _wasm("compile_seconds", 3600, "seconds", integer=False),
    _wasm("compile_memory_bytes", 64 * GIB, "bytes"),
    Bound("TCAB_K8S_START_TIMEOUT_S", "seconds", SECONDS_MAX, 0, integer=False, above_minimum=True),
    Bound("TCAB_K8S_MAX_RUNTIME_S", "seconds", SECONDS_MAX, 0, integer=False, above_minimum=True),
)}

