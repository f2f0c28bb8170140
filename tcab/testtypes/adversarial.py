"""The adversarial test type: an agent writes a controller that plays a game.

Its manifest section is ``[contract]`` (the exported entry and two JSON
Schemas, seeded at their manifest-relative paths), ``[sandbox]``,
``[simulation]``, ``[match]``, ``[replay]`` and the optional ``[game]``
(tcab's Python rules module; without one the case seeds and runs but is not
played). ``[build]`` is required and names the ``module`` it produces. Its
runs and builds use the ``adversarial`` image; after each run the sweep
builds its controller (``build:<run>``, :mod:`tcab.tasks.arena`), recorded as
a :class:`tcab.arena.build.BuildRecord`; tournaments play those modules.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from tcab.catalog.fields import Fields, Source, show
from tcab.catalog.model import STRUCTURES, Contract, Game, Match, Replay, Sandbox, Simulation
from tcab.catalog.paths import check_path
from tcab.catalog.schemas import SchemaCompileError, Validator
from tcab.testtypes import (
    AfterRun,
    BuildKeys,
    ParsedSection,
    SectionInput,
    SeedingInput,
    SuccessRule,
    TestType,
    reference_entries,
)

if TYPE_CHECKING:
    from tcab.catalog.model import CaseVersion, Variant
    from tcab.seeding.plan import SeedEntry


@dataclass(frozen=True, slots=True)
class AdversarialSection:
    """An adversarial case's own part of the manifest (None: absent or wrong;
    a wrong table is a problem, so a parsed case has all but ``game``)."""

    contract: Contract | None = None
    sandbox: Sandbox | None = None
    simulation: Simulation | None = None
    match: Match | None = None
    replay: Replay | None = None
    game: Game | None = None


class Adversarial(TestType):
    name: ClassVar[str] = "adversarial"
    section_keys: ClassVar[tuple[str, ...]] = ("contract", "sandbox", "simulation", "match", "replay", "game")
    build: ClassVar[BuildKeys] = BuildKeys(required=True, dest="module", dest_required=True)
    run_image: ClassVar[str] = "adversarial"
    build_image: ClassVar[str | None] = "adversarial"
    after_run: ClassVar[tuple[AfterRun, ...]] = (AfterRun("build", "tcab.tasks.arena:BUILD"),)
    evaluation_record: ClassVar[str | None] = "tcab.arena.build:BuildRecord"
    evaluate_command: ClassVar[str | None] = "build"
    report_columns: ClassVar[tuple[str, ...]] = ("builds",)
    # What counts as a success in the report's statistics (docs/results.md).
    success: ClassVar[SuccessRule | None] = SuccessRule(count="builds_ok")

    def parse_section(self, p: SectionInput) -> ParsedSection:
        return ParsedSection(AdversarialSection(**_parse(p.f, p.source, p.root)))

    def seed_sources(self, case: CaseVersion, variant: Variant) -> tuple[str | None, ...]:
        contract = case.section.contract
        schemas = () if contract is None else (contract.world, contract.action)
        return schemas + tuple(rel for ref in variant.references for rel in (ref.media, ref.mockup))

    def seed_entries(self, case: CaseVersion, variant: Variant, seeding: SeedingInput) -> list[SeedEntry]:
        """The contract's two schemas, at their manifest-relative paths (and a
        variant's own reference views, as for every type that has them)."""
        from tcab.seeding.plan import MODE_FILE, SeedEntry

        contract = case.section.contract
        rels = () if contract is None else (contract.world, contract.action)
        entries = [SeedEntry(rel, seeding.read(case.path(rel), "contract schema"), MODE_FILE, "contract schema")
                   for rel in rels]
        return entries + reference_entries(tuple(r for r in variant.references if r.seed), case, seeding)

    def template_params(self, case: CaseVersion, variant: Variant) -> dict[str, Any]:
        """The variant's ``[params]`` merged over ``[game].params`` (shallow)."""
        game = case.section.game
        base = dict(game.params) if game is not None else {}
        base.update(variant.params)
        return base

    def unplayable_reason(self, case: CaseVersion) -> str | None:
        """The arena runs a game as a Python rules module (``[game].module``); an
        adversarial case without one (the original's games are Rust) validates,
        seeds and runs, but cannot be played in matches or tournaments here."""
        if case.section.game is None:
            return (f"{case.ref} cannot be played on this host: its game is not a Python rules "
                    "module (no [game].module; tcab's arena plays only Python rules modules)")
        return None


def _schema(f: Fields, key: str, root: Path) -> str | None:
    rel = check_path(f, key, root, f.string(key, required=True), "file")
    if rel is None:
        return None
    try:
        schema = json.loads((root / rel).read_text("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        f.problem(key, f"{show(rel)} is not valid JSON: {exc}")
        return None
    if not isinstance(schema, dict):
        f.problem(key, f"{show(rel)} is not a JSON Schema object")
        return None
    try:
        Validator(schema)
    except SchemaCompileError as exc:
        f.problem(key, f"{show(rel)} is not a valid JSON Schema: {exc}")
        return None
    return rel


def _sub(f: Fields, source: Source, key: str, allowed: tuple[str, ...]) -> Fields | None:
    table = f.table_of(key, required=True)
    return None if table is None else Fields(table, source, allowed, table=key)


def _parse(f: Fields, source: Source, root: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if c := _sub(f, source, "contract", ("entry", "world", "action")):
        entry = c.string("entry", required=True)
        world, action = _schema(c, "world", root), _schema(c, "action", root)
        c.done()
        if entry and world and action:
            out["contract"] = Contract(entry, world, action)
    if s := _sub(f, source, "sandbox", ("fuel_per_tick", "max_memory_bytes")):
        fuel = s.positive_int("fuel_per_tick", required=True)
        memory = s.positive_int("max_memory_bytes", required=True, minimum=65536)
        s.done()
        if fuel and memory:
            out["sandbox"] = Sandbox(fuel, memory)
    if s := _sub(f, source, "simulation", ("timestep_ms", "max_ticks")):
        step, ticks = s.positive_int("timestep_ms", required=True), s.positive_int("max_ticks", required=True)
        s.done()
        if step and ticks:
            out["simulation"] = Simulation(step, ticks)
    if m := _sub(f, source, "match", ("participants", "structure", "rounds")):
        participants = m.positive_int("participants", required=True, minimum=2)
        structure = m.choice("structure", STRUCTURES, required=True)
        rounds = m.positive_int("rounds", required=True)
        m.done()
        if participants and structure and rounds:
            out["match"] = Match(participants, structure, rounds)
    if r := _sub(f, source, "replay", ("renderer",)):
        renderer = check_path(r, "renderer", root, r.string("renderer", required=True), "file")
        r.done()
        if renderer:
            out["replay"] = Replay(renderer)
    # [game] is optional: without a Python rules module the case validates,
    # seeds and runs, but tcab's arena cannot play it (unplayable_reason).
    table = f.table_of("game")
    if g := (Fields(table, source, ("module", "params", "baselines"), table="game") if table is not None else None):
        module = check_path(g, "module", root, g.string("module", required=True), "file", suffix=".py")
        params = g.table_of("params") or {}
        baselines = check_path(g, "baselines", root, g.string("baselines"), "dir")
        g.done()
        if module:
            out["game"] = Game(module, params=params, baselines=baselines)
    return out
