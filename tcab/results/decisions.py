"""Decisions on the checklist items of a run: a validation script's, and a
reviewer's override of it.

A case author's validation script (``validation = {script, outputs}`` of a
review item) decides its item against the run's build: ``pass``, ``fail``, or
``undecided`` when it threw, hung or wrote an output it did not declare (the
``detail`` says why). The decision keeps the outputs it produced (media the
reviewer looks at, each of a declared id and kind) and the tail of its log. A
reviewer may override a decision, or decide an item no script decides, with
a required note; nothing is deleted: each new decision of a source makes the
previous one of that source history (``current = 0``).

An item's state is its current override's verdict if there is one, else its
current script decision's, else none: :func:`item_states`. The weighted
checklist score counts the items whose state is ``pass``: :func:`checklist_score`.

Every write checks the item against the run's case version and variant
(``ReviewMaterial``, which it records, categories included) and runs in one
transaction. Raises ResultsError naming the field for bad input.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath

from tcab.errors import ResultsError
from tcab.results.reviews import (
    MAX_NOTE_CHARS,
    MAX_REVIEWER_CHARS,
    ReviewMaterial,
    _now,
    check_text,
    write_material,
)
from tcab.results.schema import DECISION_VERDICTS

#: Characters of a script's log kept (its tail), of a detail, of an output path.
MAX_LOG_TAIL = 8000
MAX_DETAIL_CHARS = 2000
MAX_PATH_CHARS = 300
#: Outputs of one decision; earlier decisions listed per item.
MAX_OUTPUTS = 100
MAX_HISTORY = 50


@dataclass(frozen=True, slots=True)
class DecisionOutput:
    """One medium a script wrote: a declared output ``id`` of its ``kind``, at
    ``path`` (relative to the run's folder)."""

    id: str
    kind: str
    path: str
    sha256: str | None = None
    size: int | None = None


@dataclass(frozen=True, slots=True)
class ItemState:
    """Where one item of a run stands: ``state`` (pass, fail, undecided, or None
    when nothing decided it), the current script decision and override (rows
    as dicts) and every decision, newest first."""

    item_id: str
    state: str | None
    script: dict | None
    override: dict | None
    history: tuple[dict, ...]


def record_decision(db, run_id: str, item_id: str, verdict: str, outputs: Sequence[DecisionOutput] = (),
                    log_tail: str = "", *, material: ReviewMaterial, detail: str | None = None,
                    now: Callable[[], str] | None = None) -> int:
    """Record the validation script's decision on ``item_id`` of ``run_id``; returns its id.

    ``undecided`` needs a ``detail`` (why). Raises ResultsError when the item has
    no validation script, an output is not one it declares (or of another kind),
    or the run is unknown or of another case version or variant.
    """
    if verdict not in DECISION_VERDICTS:
        raise ResultsError(f"verdict: expected one of {'|'.join(DECISION_VERDICTS)}, got {str(verdict)[:40]!r}")
    item = _item(material, item_id)
    if item.validation is None:
        raise ResultsError(f"item {item_id!r}: it has no validation script, so no script decides it")
    if verdict == "undecided" and not (detail or "").strip():
        raise ResultsError("detail: required for an undecided item (why the script decided nothing)")
    if detail is not None and len(detail) > MAX_DETAIL_CHARS:
        detail = detail[: MAX_DETAIL_CHARS - 1] + "…"
    declared = {o["id"]: o["kind"] for o in item.validation.get("outputs", ())}
    rows = _outputs(item_id, outputs, declared)
    if not isinstance(log_tail, str):
        raise ResultsError(f"log_tail: expected text, got {type(log_tail).__name__}")
    tail = log_tail[-MAX_LOG_TAIL:]
    return _insert(db, run_id, item_id, "script", verdict, material, now,
                   outputs=json.dumps(rows), log_tail=tail, detail=detail)


def record_override(db, run_id: str, item_id: str, verdict: str, *, author: str, note: str,
                    material: ReviewMaterial, now: Callable[[], str] | None = None) -> int:
    """Record a reviewer's ``pass``/``fail`` for ``item_id`` of ``run_id`` over
    whatever a script decided, with the reviewer's name and a required note;
    the previous override stays as history. Returns its id."""
    if verdict not in ("pass", "fail"):
        raise ResultsError(f"verdict: expected pass|fail, got {str(verdict)[:40]!r}")
    _item(material, item_id)
    check_text("author", author, MAX_REVIEWER_CHARS, single_line=True)
    check_text("note", note, MAX_NOTE_CHARS, single_line=False)
    return _insert(db, run_id, item_id, "override", verdict, material, now, author=author.strip(), note=note)


def item_states(db, run_id: str) -> dict[str, ItemState]:
    """Every decided item of ``run_id``: its state, current decisions and history."""
    conn: sqlite3.Connection = getattr(db, "conn", db)
    cur = conn.execute("""SELECT id, item_id, source, current, verdict, outputs, log_tail, detail, author, note,
                                 decided_at FROM item_decisions WHERE run_id = ? ORDER BY item_id, id DESC""",
                       [run_id])
    names = [d[0] for d in cur.description]
    by_item: dict[str, list[dict]] = {}
    for row in cur.fetchall():
        r = dict(zip(names, row, strict=True))
        r["outputs"] = json.loads(r["outputs"]) if r["outputs"] else []
        by_item.setdefault(r["item_id"], []).append(r)
    states: dict[str, ItemState] = {}
    for item_id, rows in by_item.items():
        script = next((r for r in rows if r["source"] == "script" and r["current"]), None)
        override = next((r for r in rows if r["source"] == "override" and r["current"]), None)
        states[item_id] = ItemState(item_id, current_verdict(script, override), script, override,
                                    tuple(rows[:MAX_HISTORY]))
    return states


def current_verdict(script: Mapping | None, override: Mapping | None) -> str | None:
    """An item's state: a person's current override stands over the script's current verdict."""
    return (override or script or {}).get("verdict")


def current_verdicts(conn: sqlite3.Connection, runs_query: str, params: Sequence = ()) -> dict[str, dict[str, tuple]]:
    """For every run id ``runs_query`` selects: item id -> (state, overridden), from
    the current decisions alone, in one query (the report's checklists: no
    history, outputs or logs are read)."""
    found: dict[str, dict[str, dict[str, dict]]] = {}
    for run_id, item_id, source, verdict in conn.execute(
            f"""SELECT run_id, item_id, source, verdict FROM item_decisions
                WHERE current = 1 AND run_id IN ({runs_query})""", params):
        found.setdefault(run_id, {}).setdefault(item_id, {})[source] = {"verdict": verdict}
    return {run_id: {item_id: (current_verdict(d.get("script"), d.get("override")), "override" in d)
                     for item_id, d in items.items()}
            for run_id, items in found.items()}


def checklist_score(weights: Mapping[str, float], states: Mapping[str, ItemState | str | None]) -> tuple[float, float, int]:
    """``(score, max_score, decided)``: the weight of the items whose state is
    pass, out of all items' weight, and how many items are decided (pass or fail).

    ``states`` maps an item to its :class:`ItemState` or its state alone."""
    state = {k: getattr(v, "state", v) for k, v in states.items()}
    score = sum(w for k, w in weights.items() if state.get(k) == "pass")
    decided = sum(1 for k in weights if state.get(k) in ("pass", "fail"))
    return score, float(sum(weights.values())), decided


def _item(material: ReviewMaterial, item_id: str):
    for item in material.items:
        if item.id == item_id:
            return item
    raise ResultsError(f"item {str(item_id)[:80]!r}: no such review item in "
                       f"{material.case_slug}@{material.case_version} ({material.variant})")


def _outputs(item_id: str, outputs: Sequence[DecisionOutput], declared: Mapping[str, str]) -> list[dict]:
    if len(outputs) > MAX_OUTPUTS:
        raise ResultsError(f"outputs: at most {MAX_OUTPUTS}, got {len(outputs)}")
    rows: list[dict] = []
    seen: set[str] = set()
    for out in outputs:
        if not isinstance(out, DecisionOutput):
            raise ResultsError(f"outputs: expected DecisionOutput entries, got {type(out).__name__}")
        if out.id not in declared:
            raise ResultsError(f"outputs: {out.id[:80]!r} is not an output item {item_id!r} declares "
                               f"(declared: {', '.join(declared) or 'none'})")
        if out.kind != declared[out.id]:
            raise ResultsError(f"outputs: {out.id!r} is declared {declared[out.id]}, got {out.kind[:20]!r}")
        if out.id in seen:
            raise ResultsError(f"outputs: {out.id!r} given twice")
        path = PurePosixPath(out.path) if isinstance(out.path, str) else None
        if path is None or not out.path or path.is_absolute() or ".." in path.parts \
                or len(out.path) > MAX_PATH_CHARS or "\\" in out.path:
            raise ResultsError(f"outputs: {out.id!r}: expected a relative path without '..', got {str(out.path)[:80]!r}")
        seen.add(out.id)
        rows.append({"id": out.id, "kind": out.kind, "path": out.path, "sha256": out.sha256, "size": out.size})
    return rows


def _insert(db, run_id: str, item_id: str, source: str, verdict: str, material: ReviewMaterial,
            now: Callable[[], str] | None, **values: str | None) -> int:
    conn: sqlite3.Connection = getattr(db, "conn", db)
    if conn.in_transaction:
        raise ResultsError("results.db: a write transaction is already open on this connection")
    decided_at = (now or _now)()
    conn.execute("BEGIN IMMEDIATE")
    try:
        run = conn.execute("SELECT case_slug, case_version, variant FROM runs WHERE id = ?", [run_id]).fetchone()
        if run is None:
            raise ResultsError(f"no run {str(run_id)[:80]!r} in results.db")
        if tuple(run) != (material.case_slug, material.case_version, material.variant):
            raise ResultsError(f"run {run_id} is a run of {run[0]}@{run[1]} ({run[2]}), not of "
                               f"{material.case_slug}@{material.case_version} ({material.variant})")
        write_material(conn, material)
        conn.execute("UPDATE item_decisions SET current = 0 WHERE run_id = ? AND item_id = ? AND source = ? "
                     "AND current = 1", [run_id, item_id, source])
        cols = ["run_id", "item_id", "source", "current", "verdict", "decided_at", *values]
        cur = conn.execute(f"INSERT INTO item_decisions ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
                           [run_id, item_id, source, 1, verdict, decided_at, *values.values()])
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
    return int(cur.lastrowid)


__all__ = ["MAX_LOG_TAIL", "DecisionOutput", "ItemState", "checklist_score", "current_verdict", "current_verdicts", "item_states", "record_decision",
           "record_override"]
