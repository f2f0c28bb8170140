"""Parsing one version folder's ``test-case.toml`` (both types) into a ``CaseVersion``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tcab.catalog.checklist import parse_instrumentation
from tcab.catalog.fields import Fields, Source, show
from tcab.catalog.layout import DIFFICULTIES, KEBAB, TYPES
from tcab.catalog.model import (
    FORMATS,
    STRUCTURES,
    Build,
    CaseVersion,
    Contract,
    Game,
    Match,
    Replay,
    Sandbox,
    Simulation,
    SpecFile,
    Variant,
)
from tcab.catalog.paths import check_dest, check_path
from tcab.catalog.review import (
    Scope,
    check_names,
    check_references,
    parse_domains,
    parse_proofs,
    parse_review_items,
)
from tcab.catalog.schemas import SchemaCompileError, Validator
from tcab.catalog.toml import read_toml
from tcab.catalog.toolchain import parse_toolchain
from tcab.catalog.variants import Declared, check_unique_dests, humanize, parse_spec, parse_variant
from tcab.catalog.views import parse_checks, parse_references
from tcab.errors import Problem

COMMON_KEYS = (
    "format", "slug", "name", "type", "difficulty", "tags", "experimental", "summary", "description",
    "changelog", "prompt", "max_runtime_hours", "max_runtime_seconds", "workspace", "init", "assets",
    "solution", "variants", "engines", "spec", "build", "instrumentation", "proof", "domain",
    "review_item",
)  # fmt: skip
TYPE_KEYS = {
    "end-to-end": COMMON_KEYS + ("reference", "check", "toolchain"),
    "adversarial": COMMON_KEYS
    + ("contract", "sandbox", "simulation", "match", "replay", "game"),
}
BUILD_KEYS = {
    "end-to-end": ("install", "build", "output"),
    "adversarial": ("install", "build", "module"),
}
HERE = "in test-case.toml"


def parse_manifest(
    root: Path, case_type: str, difficulty: str, version: str
) -> tuple[CaseVersion | None, list[Problem]]:
    """Parse ``root/test-case.toml`` and its variant files; return the case (None if
    anything is wrong) and every problem found in all of those files."""
    source, data = read_toml(root / "test-case.toml")
    if data is None:
        return None, source.problems
    f = Fields(data, source, TYPE_KEYS[case_type])
    keys = _common_keys(f, root, difficulty)
    declared_type = f.choice("type", TYPES)
    if declared_type is not None and declared_type != case_type:
        f.problem("type", f"is {show(declared_type)} but the case lives under {case_type}/")
    keys["specs"] = tuple(_specs(data, source, root))
    keys["build"] = _build(f, source, case_type)
    common = Declared(dests={s.dest for s in keys["specs"]})
    checks: list = []
    if case_type == "end-to-end":
        keys["references"] = parse_references(data, source, root, common.views, HERE)
        checks = parse_checks(data, source)
        keys["checks"] = tuple(c for _, c in checks)
        keys["toolchain"] = parse_toolchain(data, source)
    else:
        keys.update(_adversarial(f, source, root))
    keys["proofs"] = parse_proofs(data, source, common.proof_ids, common.proof_dests, HERE)
    keys["domains"] = parse_domains(data, source, common.domains, HERE)
    items = parse_review_items(data, source, common.review_items, HERE, root)
    keys["review_items"] = tuple(item for _, item in items)
    keys["instrumentation"] = parse_instrumentation(f)
    variant_files = f.strings("variants", required=True)
    if variant_files is not None and not variant_files:
        f.problem("variants", "expected at least one variant file")
    f.done()
    problems = list(source.problems)
    variants, scopes = _variants(f, root, variant_files or (), common, problems)
    before = len(source.problems)
    check_references(source, checks, scopes)
    check_names(source, items, scopes)
    _needs_instrumentation(f, data, keys["review_items"], variants)
    problems.extend(source.problems[before:])
    declared = keys.pop("declared_difficulty")
    if problems or keys["slug"] is None or declared is None or keys["tags"] is None:
        return None, problems
    case = CaseVersion(type=case_type, difficulty=difficulty, version=version, root=root,
                       variants=tuple(variants), **keys)
    return case, problems


def _common_keys(f: Fields, root: Path, difficulty: str) -> dict[str, Any]:
    """The keys every case type has, with their defaults applied; read in
    manifest order, so problems come out in the order of the file's keys."""
    slug = f.kebab("slug", required=True)
    name = f.string("name")
    declared = f.choice("difficulty", DIFFICULTIES, required=True)
    if declared is not None and declared != difficulty:
        f.problem("difficulty", f"is {show(declared)} but the case lives under {difficulty}/")
    keys: dict[str, Any] = {
        "slug": slug, "declared_difficulty": declared,
        "tags": f.strings("tags", required=True),
        "experimental": bool(f.boolean("experimental")),
        "summary": f.string("summary", nonempty=False) or "",
        "description": check_path(f, "description", root, f.string("description"), "file"),
        "changelog": check_path(f, "changelog", root, f.string("changelog", required=True), "file") or "",
        "prompt": check_path(f, "prompt", root, f.string("prompt", required=True), "file", suffix=".hbs") or "",
    }
    keys["max_runtime_s"] = _max_runtime_s(f)
    keys["format"] = _format(f)
    keys["engines"] = _engines(f)
    keys["workspace"] = check_path(f, "workspace", root, f.string("workspace"), "dir")
    keys["init"] = f.string("init")
    keys["assets"] = check_path(f, "assets", root, f.string("assets"), "dir")
    keys["solution"] = check_path(f, "solution", root, f.string("solution"), "dir")
    keys["name"] = name or (humanize(slug) if slug else "")
    return keys


def _max_runtime_s(f: Fields) -> float:
    """The cap in seconds, from ``max_runtime_hours`` (tcab's) or
    ``max_runtime_seconds`` (the original's older key); one hour by default."""
    if "max_runtime_hours" in f.data and "max_runtime_seconds" in f.data:
        f.problem("max_runtime_seconds", "give max_runtime_hours or max_runtime_seconds, not both")
        return 3600.0
    for key, scale in (("max_runtime_hours", 3600.0), ("max_runtime_seconds", 1.0)):
        value = f.positive_number(key)
        if value is not None and value * scale == float("inf"):
            f.problem(key, f"expected a finite positive number, got {show(f.data[key])}")
        elif value is not None:
            return value * scale
    return 3600.0


def _format(f: Fields) -> int:
    """The original's manifest ``format`` (1 when absent); tcab reads both the same."""
    value = f.data.get("format", 1)
    if isinstance(value, bool) or not isinstance(value, int) or value not in FORMATS:
        f.problem("format", f"expected {' or '.join(map(str, FORMATS))} (the manifest formats tcab reads), "
                  f"got {show(value)}")
        return 1
    return value


def _engines(f: Fields) -> tuple[str, ...]:
    """The original's bare ``engines`` list (engines without a version, such as
    ``none``): kebab-case slugs, each once. Carried; tcab builds engineless."""
    engines = f.strings("engines")
    if engines is None:
        return ()
    for slug in engines:
        if not KEBAB.match(slug):
            f.problem("engines", f"expected kebab-case engine slugs, got {show(slug)}")
            return ()
    if len(set(engines)) != len(engines):
        twice = next(e for e in engines if engines.count(e) > 1)
        f.problem("engines", f"the engine {show(twice)} is listed twice")
        return ()
    return engines


def _needs_instrumentation(f: Fields, data: dict[str, Any], items: tuple, variants: list[Variant]) -> None:
    """A validation script drives the build through ``[instrumentation].handle``,
    so a case with one must name the handle (as the original requires)."""
    if "instrumentation" in data:
        return
    scripted = [i.id for i in items if i.validation is not None]
    scripted += [f"{i.id} (variant {v.slug})" for v in variants for i in v.review_items if i.validation]
    if scripted:
        f.problem("instrumentation", "missing: review items with a validation script need "
                  f"[instrumentation].handle (scripted: {', '.join(scripted)})")


def _specs(data: dict[str, Any], source: Source, root: Path) -> list[SpecFile]:
    f = Fields(data, source, ())
    specs: list[SpecFile] = []
    for i, entry in enumerate(f.tables("spec") or [], start=1):
        spec = parse_spec(entry, source, root, table="spec", index=i)
        if spec is not None:
            specs.append(spec)
    check_unique_dests(specs, source, "spec", set())
    return specs


def _build(f: Fields, source: Source, case_type: str) -> Build | None:
    table = f.table_of("build", required=case_type == "adversarial")
    if table is None:
        return None
    b = Fields(table, source, BUILD_KEYS[case_type], table="build")
    install = b.string("install", required=True)
    command = b.string("build", required=True)
    output = module = None
    if case_type == "end-to-end":
        # Optional: without it the site is the first of dist/, build/, out/
        # (model.site_output_candidates), as the original's manifests expect.
        output = check_dest(b, "output", b.string("output"))
        bad = "output" in table and output is None
    else:
        module = check_dest(b, "module", b.string("module", required=True))
        bad = module is None
    b.done()
    if install is None or command is None or bad:
        return None
    return Build(install, command, output=output, module=module)


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


def _adversarial(f: Fields, source: Source, root: Path) -> dict[str, Any]:
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
        step, ticks = s.positive_int("timestep_ms", required=True), s.positive_int(
            "max_ticks", required=True
        )
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
    # seeds and runs, but tcab's arena cannot play it (CaseVersion.unplayable_reason).
    table = f.table_of("game")
    if g := (Fields(table, source, ("module", "params", "baselines"), table="game") if table is not None else None):
        module = check_path(
            g, "module", root, g.string("module", required=True), "file", suffix=".py"
        )
        params = g.table_of("params") or {}
        baselines = check_path(g, "baselines", root, g.string("baselines"), "dir")
        g.done()
        if module:
            out["game"] = Game(module, params=params, baselines=baselines)
    return out


def _variants(
    f: Fields, root: Path, files: tuple[str, ...], common: Declared, problems: list[Problem]
) -> tuple[list[Variant], list[Scope]]:
    """The variant files, parsed, and the names each one's effective set declares;
    a variant's review items are checked against its own set here."""
    variants: list[Variant] = []
    scopes: list[Scope] = []
    seen: dict[str, str] = {}
    for i, value in enumerate(files):
        before = len(f.source.problems)
        rel = check_path(f, f"variants[{i}]", root, value, "file", suffix=".toml")
        problems.extend(f.source.problems[before:])
        if rel is None:
            continue
        variant, vsource, items = parse_variant(root / rel, rel, root, common)
        if variant is not None:
            scope = Scope(variant.slug, frozenset(common.views) | {r.view for r in variant.references},
                          frozenset(common.proof_ids) | {p.id for p in variant.proofs},
                          frozenset(common.domains) | {d.id for d in variant.domains})
            check_names(vsource, items, [scope])
        problems.extend(vsource.problems)
        if variant is None:
            continue
        if variant.slug in seen:
            problems.append(
                Problem(vsource.display, f"duplicate variant slug {show(variant.slug)} "
                        f"(also in {seen[variant.slug]})", key="slug",
                        line=vsource.line_of(None, "slug"))
            )
            continue
        seen[variant.slug] = rel
        variants.append(variant)
        scopes.append(scope)
    return variants, scopes
