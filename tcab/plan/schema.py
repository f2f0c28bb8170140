"""Parse ``benchmark.yaml`` with strictyaml into a :class:`~tcab.plan.model.Plan`.

strictyaml refuses YAML's surprises (flow style, implicit types, anchors), so
a plan reads the same in every tool. The schema below is the plan format; it
is documented with examples in docs/sweeps.md. Every error becomes a
:class:`~tcab.errors.PlanError` that names the file, the line and the key.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import strictyaml as sy
from strictyaml.ruamel import events as yaml_events
from strictyaml.ruamel import main as yaml_main

from tcab.errors import PlanError
from tcab.plan.limits import MAX_DIGITS, MAX_SEED, PlanLimits
from tcab.plan.model import (
    ALL,
    CaseSelection,
    HarnessSelection,
    Plan,
    RunMatrix,
    RunSource,
    TournamentPlan,
)
from tcab.plan.throttle import CAP_KINDS, DEFAULT_BACKOFF_S, parse_concurrency, parse_retries
from tcab.reading import open_regular
from tcab.runtime.choice import BACKENDS, SETTINGS, RuntimeChoice, check_setting


class _Int(sy.Int):
    """strictyaml's Int, refusing a literal longer than MAX_DIGITS before ``int()``
    reads it (past 4,300 digits ``int()`` raises; long before, it is no count)."""

    def validate_scalar(self, chunk):
        text = chunk.contents.replace("_", "")
        if not re.fullmatch(r"[-+]?[0-9]+", text):
            chunk.expecting_but_found("when expecting an integer")
        digits = len(text.lstrip("+-"))
        if digits > MAX_DIGITS:
            chunk.expecting_but_found(f"when expecting an integer of at most {MAX_DIGITS} digits",
                                      f"found an integer of {digits} digits")
        return int(text)


_NAMES = sy.Seq(sy.Str()) | sy.CommaSeparated(sy.Str())
#: How a runtime setting of each kind (tcab.runtime.choice.Setting.kind) is written.
_KINDS = {"text": sy.Str(), "seconds": _Int(), "names": sy.CommaSeparated(sy.Str())}

CASE = sy.Map({"case": sy.Str(), sy.Optional("versions"): _NAMES, sy.Optional("variants"): _NAMES}) | sy.Str()
HARNESS = sy.Map({"harness": sy.Str(), sy.Optional("models"): _NAMES}) | sy.Str()
MATRIX = sy.Map(
    {
        "cases": sy.Seq(CASE),
        "harnesses": sy.Seq(HARNESS),
        sy.Optional("repeats", default=1): _Int(),
        # Watch these runs live (docs/asset-generation.md); overrides the plan's own `watch`.
        sy.Optional("watch"): sy.Bool(),
    }
)
RUN_SOURCE = sy.Map({"harness": sy.Str(), sy.Optional("model"): sy.Str()}) | sy.Str()
TOURNAMENT = sy.Map(
    {
        "name": sy.Regex(r"[a-z0-9][a-z0-9-]*"),
        "case": sy.Str(),
        sy.Optional("version"): sy.Str(),
        sy.Optional("variant"): sy.Str(),
        "participants": sy.Map(
            {sy.Optional("baselines"): _NAMES, sy.Optional("runs"): sy.Seq(RUN_SOURCE)}
        ),
        sy.Optional("rounds"): _Int(),
        sy.Optional("seed", default=0): _Int(),
    }
)
SCHEMA = sy.Map(
    {
        sy.Optional("name", default="sweep"): sy.Str(),
        sy.Optional("runtime"): sy.Map(
            {
                sy.Optional("backend", default="docker"): sy.Str(),
                # Every setting of every backend (tcab.runtime.choice.SETTINGS, docs/sweeps.md).
                sy.Optional("settings"): sy.Map({sy.Optional(s.name): _KINDS[s.kind] for s in SETTINGS}),
            }
        ),
        sy.Optional("parallelism", default=1): _Int(),
        sy.Optional("runs"): sy.Seq(MATRIX),
        sy.Optional("tournaments"): sy.Seq(TOURNAMENT),
        sy.Optional("report", default=True): sy.Bool(),
        sy.Optional("watch", default=False): sy.Bool(),
        # Caps per harness, model and secret name (tcab.plan.throttle, docs/sweeps.md).
        sy.Optional("concurrency"): sy.Map({sy.Optional(kind): sy.MapPattern(sy.Str(), _Int()) for kind in CAP_KINDS}),
        sy.Optional("retries"): sy.Map({
            sy.Optional("infrastructure", default=0): _Int(),
            sy.Optional("backoff_s", default=DEFAULT_BACKOFF_S): _Int(),
        }),
        # Cost (docs/sweeps.md, "Cost and budget"): the price table, and the
        # spend at which no new run starts.
        sy.Optional("prices"): sy.Str(),
        sy.Optional("budget"): sy.Str(),
    }
)


def _budget(path: Path, node: sy.YAML | None) -> float | None:
    """The plan's ``budget``: a positive finite amount (NaN, inf, 0, negative and words are refused)."""
    if node is None:
        return None
    import math

    try:
        value = float(node.data.replace("_", ""))
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0 or value > 1e12:
        raise _fail(path, node, "budget", f"expected a positive amount such as 25 or 12.50, got {node.data!r}")
    return value


def _prices(path: Path, node: sy.YAML | None) -> Path | None:
    """The plan's ``prices`` file, relative to the plan's folder."""
    if node is None:
        return None
    if not node.data.strip():
        raise _fail(path, node, "prices", "expected the path of a price table (TOML)")
    return (path.parent / node.data).resolve()


def _key_at(text: str, line0: int) -> str | None:
    """The mapping key written on (0-based) line ``line0``, if any."""
    lines = text.splitlines()
    if not 0 <= line0 < len(lines):
        return None
    head = lines[line0].strip().removeprefix("- ")
    return head.split(":", 1)[0].strip() or None if ":" in head else None


def _error(path: Path, text: str, exc: sy.YAMLError) -> PlanError:
    mark = getattr(exc, "problem_mark", None)
    line0 = mark.line if mark is not None else 0
    problem = str(getattr(exc, "problem", None) or exc).strip()
    unknown = re.match(r"unexpected key not in schema '(.+)'", problem)
    if unknown:
        # strictyaml marks the end of the mapping; point at the key itself.
        lines = range(min(line0, len(text.splitlines()) - 1), -1, -1)
        line0 = next((i for i in lines if _key_at(text, i) == unknown.group(1)), line0)
    key = _key_at(text, line0)
    context = str(getattr(exc, "context", "") or "").strip()
    where = f"{path}:{line0 + 1}"
    detail = f"{problem} ({context})" if context else problem
    return PlanError(f"{where}: {key}: {detail}" if key else f"{where}: {detail}")


def _fail(path: Path, node: sy.YAML, key: str, message: str) -> PlanError:
    return PlanError(f"{path}:{node.start_line}: {key}: {message}")


def _opt(node: sy.YAML, key: str) -> sy.YAML | None:
    """``node[key]`` or None (strictyaml nodes refuse truth tests, so no ``or``)."""
    return node[key] if isinstance(node.data, dict) and key in node.data else None


def _items(node: sy.YAML, key: str) -> list[sy.YAML]:
    child = _opt(node, key)
    return [] if child is None else list(child)


def _names(node: sy.YAML | None) -> tuple[str, ...] | None:
    if node is None:
        return None
    return tuple(str(v).strip() for v in node.data)


def _within(path: Path, node: sy.YAML, key: str, low: int, high: int) -> int:
    """``node``'s integer if ``low <= value <= high``, else a PlanError naming the range."""
    value = node.data
    if not low <= value <= high:
        raise _fail(path, node, key, f"expected an integer from {low} to {high}, got {value}")
    return value


def _case(path: Path, node: sy.YAML) -> CaseSelection:
    if isinstance(node.data, str):
        return CaseSelection(node.data, None, None, node.start_line)
    versions = _names(_opt(node, "versions"))
    variants = _names(_opt(node, "variants"))
    for key, names in (("versions", versions), ("variants", variants)):
        if names is not None and (not names or (ALL in names and len(names) > 1)):
            raise _fail(path, node[key], key, f"expected a list of names or {ALL!r}, got {names}")
    if versions == (ALL,):
        raise _fail(path, node["versions"], "versions", "list the versions; 'all' is for variants")
    return CaseSelection(node["case"].data, versions, variants, node.start_line)


def _harness(path: Path, node: sy.YAML) -> HarnessSelection:
    if isinstance(node.data, str):
        return HarnessSelection(node.data, (None,), node.start_line)
    models = _names(_opt(node, "models"))
    if models is not None and not models:
        raise _fail(path, node["models"], "models", "expected at least one model")
    return HarnessSelection(node["harness"].data, models or (None,), node.start_line)


def _matrix(path: Path, node: sy.YAML, limits: PlanLimits) -> RunMatrix:
    return RunMatrix(
        cases=tuple(_case(path, c) for c in node["cases"]),
        harnesses=tuple(_harness(path, h) for h in node["harnesses"]),
        repeats=_within(path, node["repeats"], "repeats", 1, limits.max_repeats),
        line=node.start_line,
        watch=None if _opt(node, "watch") is None else node["watch"].data,
    )


def _tournament(path: Path, node: sy.YAML, limits: PlanLimits) -> TournamentPlan:
    part = node["participants"]
    runs = []
    for item in _items(part, "runs"):
        if isinstance(item.data, str):
            runs.append(RunSource(item.data, None, item.start_line))
        else:
            model = _opt(item, "model")
            runs.append(RunSource(item["harness"].data, None if model is None else model.data, item.start_line))
    baselines = _names(_opt(part, "baselines")) or ()
    if not baselines and not runs:
        raise _fail(path, part, "participants", "name baselines and/or runs")
    rounds = _opt(node, "rounds")
    return TournamentPlan(
        name=node["name"].data,
        case=node["case"].data,
        version=None if _opt(node, "version") is None else node["version"].data,
        variant=None if _opt(node, "variant") is None else node["variant"].data,
        baselines=baselines,
        runs=tuple(runs),
        rounds=_within(path, rounds, "rounds", 1, limits.max_rounds) if rounds is not None else None,
        seed=_within(path, node["seed"], "seed", 0, MAX_SEED),
        line=node.start_line,
    )


def _runtime(path: Path, runtime: sy.YAML | None) -> RuntimeChoice:
    """The plan's runtime choice; a wrong backend or setting names its line."""
    if runtime is None:
        return RuntimeChoice()
    backend = runtime["backend"].data
    if backend not in BACKENDS:
        raise _fail(path, runtime["backend"], "backend", f"expected one of {', '.join(BACKENDS)}, got {backend!r}")
    node = _opt(runtime, "settings")
    values = {}
    for key, value in ({} if node is None else node.data).items():
        try:
            values[key] = check_setting(backend, key, value)
        except ValueError as exc:
            raise _fail(path, node[key], key, str(exc)) from None
    return RuntimeChoice.from_values(backend, values)


def _nesting(path: Path, text: str, limits: PlanLimits) -> None:
    """Refuse a plan nested deeper than ``limits.max_depth`` before it is composed.

    strictyaml composes the document recursively (3,000 levels are a
    RecursionError); ruamel's event parser is a loop, so the depth is counted
    on its events, and a plan that does not parse is left to ``sy.load`` to
    report (its message names the line and key).
    """
    depth = 0
    try:
        for event in yaml_main.parse(text):
            if isinstance(event, (yaml_events.MappingStartEvent, yaml_events.SequenceStartEvent)):
                depth += 1
                if depth > limits.max_depth:
                    raise PlanError(f"{path}:{event.start_mark.line + 1}: nested more than "
                                    f"{limits.max_depth} levels deep (TCAB_PLAN_MAX_DEPTH)")
            elif isinstance(event, (yaml_events.MappingEndEvent, yaml_events.SequenceEndEvent)):
                depth -= 1
    except sy.YAMLError:
        return


def _too_large(path: Path, size: int, limits: PlanLimits) -> PlanError | None:
    if size > limits.max_bytes:
        return PlanError(f"{path}: larger than {limits.max_bytes} bytes (TCAB_PLAN_MAX_BYTES)")
    return None


def parse_plan(text: str, path: Path | str, limits: PlanLimits | None = None) -> Plan:
    """Parse plan ``text`` (read from ``path``, used in messages).

    Raises PlanError naming the file, line and key of the first problem,
    including a plan over ``limits`` (size, depth, numbers).
    """
    path = Path(path)
    limits = PlanLimits() if limits is None else limits
    too_large = _too_large(path, len(text.encode("utf-8", "surrogatepass")), limits)
    if too_large is not None:
        raise too_large
    _nesting(path, text, limits)
    try:
        doc = sy.load(text, SCHEMA, label=str(path))
    except sy.YAMLError as exc:
        raise _error(path, text, exc) from exc
    if doc.data is None or not isinstance(doc.data, dict):
        raise PlanError(f"{path}: expected a mapping with runs and/or tournaments")
    return _plan(path, doc, limits)


def _plan(path: Path, doc: sy.YAML, limits: PlanLimits) -> Plan:
    """The validated document as typed data, with the checks the schema cannot say."""
    runtime = _runtime(path, _opt(doc, "runtime"))
    tournaments = _items(doc, "tournaments")
    names = [t["name"].data for t in tournaments]
    for t in tournaments:
        if names.count(t["name"].data) > 1:
            raise _fail(path, t["name"], "name", f"tournament {t['name'].data!r} is defined twice")
    return Plan(
        path=path,
        name=doc["name"].data,
        runtime=runtime,
        parallelism=_within(path, doc["parallelism"], "parallelism", 1, limits.max_parallelism),
        matrices=tuple(_matrix(path, m, limits) for m in _items(doc, "runs")),
        tournaments=tuple(_tournament(path, t, limits) for t in tournaments),
        report=doc["report"].data,
        watch=doc["watch"].data,
        concurrency=parse_concurrency(path, _opt(doc, "concurrency"), _fail),
        retries=parse_retries(path, _opt(doc, "retries"), _fail),
        prices=_prices(path, _opt(doc, "prices")),
        budget=_budget(path, _opt(doc, "budget")),
    )


def load_plan(path: Path | str, limits: PlanLimits | None = None) -> Plan:
    """Read and parse the plan file at ``path`` (at most ``limits.max_bytes`` of it).

    Raises PlanError if the file is missing, unreadable, too large or invalid.
    """
    path = Path(path)
    limits = PlanLimits() if limits is None else limits
    try:
        # Non-blocking and regular files only: a FIFO or /dev/zero named as the plan is refused.
        with os.fdopen(open_regular(path), "rb") as fh:
            # One byte past the limit is enough to know: a huge file is not read whole.
            data = fh.read(limits.max_bytes + 1)
        too_large = _too_large(path, len(data), limits)
        if too_large is not None:
            raise too_large
        text = data.decode("utf-8")
    except OSError as exc:
        raise PlanError(f"{path}: cannot read the plan: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise PlanError(f"{path}: cannot read the plan: {exc}") from exc
    return parse_plan(text, path, limits)
