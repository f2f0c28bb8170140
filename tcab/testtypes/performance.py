"""The performance test type: an agent writes a fast engine for a simulation.

Its manifest section is ``[contract]`` (the entry, default ``simulate``, and
the ``input`` and ``output`` JSON Schemas, seeded at their manifest-relative
paths), ``[sandbox]`` (``fuel_limit``, the pass line of one stress scenario,
and ``max_memory_bytes``) and the held-out scenarios, ``[[case]]`` (``input``,
``expected``, ``kind`` smoke or stress, ``fuel_runway``). ``[build]`` is
required and names the ``module`` it produces; ``workspace`` and ``init``
are required too. The held-out files live only in the case folder: one
under a folder seeding copies (the workspace, the solution, the assets) is
refused, and seeding adds only the two schemas.

After each run the sweep builds its engine (``build:<run>``, the adversarial
type's build path, in this type's image) and scores it (``score:<run>``,
:mod:`tcab.tasks.performance`) with :mod:`tcab.performance`.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from tcab.catalog.fields import Fields, Source, show
from tcab.catalog.paths import check_path, normalize
from tcab.catalog.schemas import SchemaCompileError, Validator
from tcab.reading import read_bytes
from tcab.testtypes import (
    AfterRun,
    BuildKeys,
    ParsedSection,
    SectionInput,
    SeedingInput,
    SuccessRule,
    TestType,
)

if TYPE_CHECKING:
    from tcab.catalog.model import CaseVersion, Variant
    from tcab.seeding.plan import SeedEntry

KINDS = ("smoke", "stress")
#: The largest fuel_limit: fuel_limit x fuel_runway must stay far inside
#: wasmtime's u64 fuel counter (10^15 is days of wasm at full speed).
MAX_FUEL_LIMIT = 10**15
MAX_RUNWAY = 1000
#: wasm32's whole address space.
MAX_MEMORY_BYTES = 1 << 32
#: A held-out scenario file (input or expected) is read whole when parsing
#: and scoring; larger ones are refused before they are read.
MAX_CASE_BYTES = 16 * 1024 * 1024
MAX_CASES = 1000
MAX_SCHEMA_BYTES = 1024 * 1024


@dataclass(frozen=True, slots=True)
class PerfContract:
    entry: str
    input: str   # schema of a scenario, manifest-relative
    output: str  # schema of an engine's output


@dataclass(frozen=True, slots=True)
class PerfSandbox:
    fuel_limit: int
    max_memory_bytes: int


@dataclass(frozen=True, slots=True)
class Scenario:
    """One held-out ``[[case]]``: its files (manifest-relative), kind and runway."""

    input: str
    expected: str
    kind: str = "stress"
    fuel_runway: int = 1

    @property
    def name(self) -> str:
        base = self.input.rsplit("/", 1)[-1]
        return base.removesuffix(".json").removesuffix(".input")


@dataclass(frozen=True, slots=True)
class PerformanceSection:
    """A performance case's own part of the manifest (None/() when wrong: a
    wrong table is a problem, so a parsed case has all three)."""

    contract: PerfContract | None = None
    sandbox: PerfSandbox | None = None
    cases: tuple[Scenario, ...] = ()

    def of_kind(self, kind: str) -> tuple[Scenario, ...]:
        return tuple(c for c in self.cases if c.kind == kind)


class Performance(TestType):
    name: ClassVar[str] = "performance"
    section_keys: ClassVar[tuple[str, ...]] = ("contract", "sandbox", "case")
    build: ClassVar[BuildKeys] = BuildKeys(required=True, dest="module", dest_required=True)
    run_image: ClassVar[str] = "performance"
    build_image: ClassVar[str | None] = "performance"
    after_run: ClassVar[tuple[AfterRun, ...]] = (
        AfterRun("build", "tcab.tasks.arena:BUILD"),
        AfterRun("score", "tcab.tasks.performance:SCORE"),
    )
    evaluation_record: ClassVar[str | None] = "tcab.performance.score:ScoreRecord"
    report_columns: ClassVar[tuple[str, ...]] = ("builds", "perf_correct", "fuel_best", "fuel_median",
                                                 "efficiency")
    # What counts as a success in the report's statistics (docs/results.md).
    success: ClassVar[SuccessRule | None] = SuccessRule(count="perf_correct")
    report_table: ClassVar[str | None] = "tcab.testtypes.performance_report:TABLE"

    def parse_section(self, p: SectionInput) -> ParsedSection:
        return ParsedSection(_parse(p))

    def seed_sources(self, case: CaseVersion, variant: Variant) -> tuple[str | None, ...]:
        contract = case.section.contract
        return () if contract is None else (contract.input, contract.output)

    def seed_entries(self, case: CaseVersion, variant: Variant, seeding: SeedingInput) -> list[SeedEntry]:
        """The contract's two schemas at their manifest-relative paths; never a held-out file."""
        from tcab.seeding.plan import MODE_FILE, SeedEntry

        return [SeedEntry(rel, seeding.read(case.path(rel), "contract schema"), MODE_FILE, "contract schema")
                for rel in self.seed_sources(case, variant) if rel]

    def unplayable_reason(self, case: CaseVersion) -> str | None:
        return f"{case.ref} is a performance case: its engines are scored on scenarios, not played in matches"


def _schema(f: Fields, key: str, root: Path) -> tuple[str | None, dict | None]:
    rel = check_path(f, key, root, f.string(key, required=True), "file")
    if rel is None:
        return None, None
    try:
        schema = json.loads(read_bytes(root / rel, MAX_SCHEMA_BYTES, what="JSON Schema"))
    except OSError as exc:
        f.problem(key, f"{show(rel)}: {exc.strerror or exc}")
        return None, None
    except ValueError as exc:
        f.problem(key, f"{show(rel)} is not valid JSON: {exc}")
        return None, None
    if not isinstance(schema, dict):
        f.problem(key, f"{show(rel)} is not a JSON Schema object")
        return None, None
    try:
        Validator(schema)
    except SchemaCompileError as exc:
        f.problem(key, f"{show(rel)} is not a valid JSON Schema: {exc}")
        return None, None
    return rel, schema


def _sub(f: Fields, source: Source, key: str, allowed: tuple[str, ...]) -> Fields | None:
    table = f.table_of(key, required=True)
    return None if table is None else Fields(table, source, allowed, table=key)


def _bounded_int(f: Fields, key: str, *, required: bool, minimum: int, maximum: int) -> int | None:
    value = f.positive_int(key, required=required, minimum=minimum)
    if value is not None and value > maximum:
        f.problem(key, f"expected an integer of at most {maximum:,}, got {value:,}")
        return None
    return value


def _seeded_folders(data: dict[str, Any]) -> list[str]:
    """The version-relative folders and files seeding copies (or lays over a
    run): the workspace, solution and assets folders and every [[spec]] source."""
    values = [data.get(key) for key in ("workspace", "solution", "assets")]
    if isinstance(data.get("assets"), list):  # the original's list of files and folders
        values += data["assets"]
    specs = data.get("spec")
    if isinstance(specs, list):
        values += [s.get("source") for s in specs if isinstance(s, dict)]
    return [rel for rel in (normalize(v) if isinstance(v, str) else None for v in values) if rel]


def _case_file(c: Fields, key: str, root: Path, seeded: list[str]) -> tuple[str | None, Any]:
    """A held-out file: inside the folder (no link out), a regular file under
    MAX_CASE_BYTES, JSON, and outside every seeded folder."""
    rel = check_path(c, key, root, c.string(key, required=True), "file")
    if rel is None:
        return None, None
    for folder in seeded:
        if rel == folder or rel.startswith(folder + "/"):
            c.problem(key, f"{show(rel)} is under {show(folder)}, which is seeded into every run; "
                           "held-out scenarios must live outside it")
            return None, None
    size = os.stat(root / rel).st_size
    if size > MAX_CASE_BYTES:
        c.problem(key, f"{show(rel)} is {size:,} bytes, over the limit of {MAX_CASE_BYTES:,}")
        return None, None
    try:
        return rel, json.loads(read_bytes(root / rel, MAX_CASE_BYTES, what="held-out scenario"))
    except OSError as exc:
        c.problem(key, f"{show(rel)}: {exc.strerror or exc}")
    except ValueError as exc:
        c.problem(key, f"{show(rel)} is not valid JSON: {exc}")
    return None, None


def snapshots_problem(doc: Any) -> str | None:
    """Why ``doc`` is not ``{"snapshots": [{"tick": int, "checksum": str}, ...]}``
    (the ABI's shape of an expected file and of an engine's output), or None."""
    snaps = doc.get("snapshots") if isinstance(doc, dict) else None
    if not isinstance(snaps, list):
        return 'expected an object with a "snapshots" array'
    for i, snap in enumerate(snaps):
        if not isinstance(snap, dict) or isinstance(snap.get("tick"), bool) \
                or not isinstance(snap.get("tick"), int) or not isinstance(snap.get("checksum"), str):
            return f'snapshots[{i}]: expected {{"tick": integer, "checksum": string}}'
    return None


def _cases(f: Fields, source: Source, root: Path, data: dict[str, Any], input_schema: dict | None) -> tuple:
    tables = f.tables("case", required=True)
    if tables is None:
        return ()
    if not tables:
        f.problem("case", "expected at least one [[case]] (the held-out scenarios)")
    if len(tables) > MAX_CASES:
        f.problem("case", f"{len(tables)} cases, over the limit of {MAX_CASES}")
        return ()
    seeded = _seeded_folders(data)
    validator = Validator(input_schema) if input_schema is not None else None
    out, seen = [], set()
    for index, table in enumerate(tables):
        c = Fields(table, source, ("input", "expected", "kind", "fuel_runway"), table="case", index=index + 1)
        rel_in, scenario = _case_file(c, "input", root, seeded)
        rel_out, expected = _case_file(c, "expected", root, seeded)
        kind = c.choice("kind", KINDS) if "kind" in table else "stress"
        runway = _bounded_int(c, "fuel_runway", required=False, minimum=1, maximum=MAX_RUNWAY)
        c.done()
        if validator is not None and rel_in is not None:
            try:
                validator(scenario)
            except ValueError as exc:  # fastjsonschema's JsonSchemaException
                c.problem("input", f"{show(rel_in)} does not match the [contract] input schema: {exc}")
                rel_in = None
        if rel_out is not None and (why := snapshots_problem(expected)) is not None:
            c.problem("expected", f"{show(rel_out)}: {why}")
            rel_out = None
        if rel_in is not None and rel_in in seen:
            c.problem("input", f"{show(rel_in)} is the input of an earlier [[case]]")
            rel_in = None
        if rel_in and rel_out and kind and ("fuel_runway" not in table or runway):
            seen.add(rel_in)
            out.append(Scenario(rel_in, rel_out, kind, runway or 1))
    return tuple(out)


def _parse(p: SectionInput) -> PerformanceSection:
    f, source, root = p.f, p.source, p.root
    for key, what in (("domain", "[[domain]]"), ("review_item", "[[review_item]]")):
        if key in p.data:
            f.problem(key, f"a performance case has no {what}: its engines are scored by fuel, not reviewed")
    for key in ("workspace", "init"):
        if key not in p.data:
            f.problem(key, "missing required key (a performance case's engine is written in its workspace)")
    out: dict[str, Any] = {}
    input_schema = None
    if c := _sub(f, source, "contract", ("entry", "input", "output")):
        entry = c.string("entry") if "entry" in c.data else "simulate"
        rel_in, input_schema = _schema(c, "input", root)
        rel_out, _ = _schema(c, "output", root)
        c.done()
        if entry and rel_in and rel_out:
            out["contract"] = PerfContract(entry, rel_in, rel_out)
    if s := _sub(f, source, "sandbox", ("fuel_limit", "max_memory_bytes")):
        fuel = _bounded_int(s, "fuel_limit", required=True, minimum=1, maximum=MAX_FUEL_LIMIT)
        memory = _bounded_int(s, "max_memory_bytes", required=True, minimum=65536, maximum=MAX_MEMORY_BYTES)
        s.done()
        if fuel and memory:
            out["sandbox"] = PerfSandbox(fuel, memory)
    out["cases"] = _cases(f, source, root, p.data, input_schema)
    return PerformanceSection(**out)
