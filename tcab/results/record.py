"""Writing results: one ``record_*`` function per kind of result.

Every call is one transaction and idempotent: a row is replaced by its
primary key (all columns, so a re-record never leaves stale values), and the
child rows of the record (a run's stages, a match's seats, a tournament's
matches and ratings) are deleted and written again. A key the table does not
have raises ResultsError naming the table and the key, so a caller's typo
fails loudly instead of silently dropping data.
"""

from __future__ import annotations

import datetime
import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from tcab.errors import ResultsError
from tcab.outcomes import RunStatus, run_status_after, validated_run
from tcab.results.schema import (
    ASSET_STATUSES,
    PERFORMANCE_STATUSES,
    PROOF_STATUSES,
    RUN_STATUSES,
    SEAT_OUTCOMES,
    TABLES,
    TOOLCHAIN_STATUSES,
    VALIDATION_STATUSES,
    VOXEL_PART_STATUSES,
)
from tcab.results.sqlite import sqlite_utils
from tcab.results.store import write_transaction


def match_key(case_digest: str, variant: str, seed: int, module_digests: Sequence[str]) -> str:
    """The identity of a match: sha256 hex of its inputs, seats in order.

    A match is a pure function of (case version digest, variant, seed, the
    modules in seat order), so equal inputs give the same key and the cached
    result is reused.
    """
    payload = json.dumps([case_digest, variant, int(seed), list(module_digests)],
                         separators=(",", ":"))
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def record_run(db: sqlite_utils.Database, run: Mapping[str, Any],
               stages: Sequence[Mapping[str, Any]]) -> None:
    """Insert or replace the run ``run["id"]`` and replace its stages.

    ``stages`` are in the order they ran; ``seq`` is filled from that order.
    Raises ResultsError for an unknown or missing key or an unknown status.
    """
    row = _row("runs", run)
    _check_choice("runs", "status", row["status"], RUN_STATUSES)
    stage_rows = []
    for seq, stage in enumerate(stages):
        stage_row = _row("stages", {"run_id": row["id"], "seq": seq, **stage})
        if stage_row["run_id"] != row["id"]:
            raise ResultsError(f"stages: run_id {stage_row['run_id']!r} is not the run {row['id']!r}")
        stage_rows.append(stage_row)
    _check_unique("stages", stage_rows, ("stage",))
    with write_transaction(db):
        db.execute("DELETE FROM stages WHERE run_id = ?", [row["id"]])
        _upsert(db, "runs", row)
        for stage_row in stage_rows:
            _upsert(db, "stages", stage_row)


def record_build(db: sqlite_utils.Database, build: Mapping[str, Any]) -> None:
    """Insert or replace the build of ``build["source"]``.

    ``source`` is a run id or ``baseline:<case>@<version>/<name>``.
    Raises ResultsError for an unknown or missing key.
    """
    row = _row("builds", build)
    with write_transaction(db):
        _upsert(db, "builds", row)


def record_performance_score(db: sqlite_utils.Database, score: Mapping[str, Any]) -> None:
    """Insert or replace the performance score of ``score["source"]`` (a run id).

    ``cases`` may be a list (stored as JSON). Raises ResultsError for an
    unknown or missing key or an unknown status.
    """
    row = _row("performance_scores", score)
    _check_choice("performance_scores", "status", row["status"], PERFORMANCE_STATUSES)
    with write_transaction(db):
        _upsert(db, "performance_scores", row)


def record_asset_regeneration(db: sqlite_utils.Database, regen: Mapping[str, Any]) -> None:
    """Insert or replace the regeneration of asset run ``regen["run_id"]``
    and its ``frames`` (dicts of ``asset_frames`` without ``run_id``/``seq``);
    a voxel run's ``parts`` and ``animations`` likewise (``asset_voxel_parts``,
    ``asset_voxel_animations``).

    In the same transaction a ``completed`` run with no asset becomes
    ``catastrophic`` (and one regenerated again is ``completed`` again), as
    :func:`tcab.outcomes.run_status_after` says for a validation.
    Raises ResultsError for an unknown or missing key or an unknown status.
    """
    if not isinstance(regen, Mapping):
        raise ResultsError(f"asset_regenerations: expected a dict, got {type(regen).__name__}")
    frames = regen.get("frames") or ()
    parts = regen.get("parts") or ()
    animations = regen.get("animations") or ()
    row = _row("asset_regenerations", {k: v for k, v in regen.items()
                                       if k not in ("frames", "parts", "animations")})
    _check_choice("asset_regenerations", "status", row["status"], ASSET_STATUSES)
    frame_rows = [_row("asset_frames", {**frame, "run_id": row["run_id"], "seq": seq})
                  for seq, frame in enumerate(frames)]
    _check_unique("asset_frames", frame_rows, ("frame",))
    part_rows = [_row("asset_voxel_parts", {**part, "run_id": row["run_id"], "seq": seq})
                 for seq, part in enumerate(parts)]
    for part_row in part_rows:
        _check_choice("asset_voxel_parts", "status", part_row["status"], VOXEL_PART_STATUSES)
    _check_unique("asset_voxel_parts", part_rows, ("part",))
    animation_rows = [_row("asset_voxel_animations", {**a, "run_id": row["run_id"], "seq": seq})
                      for seq, a in enumerate(animations)]
    _check_unique("asset_voxel_animations", animation_rows, ("name",))
    with write_transaction(db):
        _upsert(db, "asset_regenerations", row)
        db.execute("DELETE FROM asset_frames WHERE run_id = ?", [row["run_id"]])
        for frame_row in frame_rows:
            _upsert(db, "asset_frames", frame_row)
        for table, rows in (("asset_voxel_parts", part_rows), ("asset_voxel_animations", animation_rows)):
            db.execute(f"DELETE FROM {table} WHERE run_id = ?", [row["run_id"]])
            for r in rows:
                _upsert(db, table, r)
        found = db.execute("SELECT status FROM runs WHERE id = ?", [row["run_id"]]).fetchone()
        if found is not None and found[0] in RUN_STATUSES:
            after = run_status_after(found[0], "catastrophic" if row["status"] == "no_asset" else "passed")
            if after != found[0]:
                detail = f"regeneration: {row['detail'] or ''}" if after is RunStatus.CATASTROPHIC else ""
                db.execute("UPDATE runs SET status = ?, status_detail = ? WHERE id = ?",
                           [str(after), detail, row["run_id"]])


def record_validation(db: sqlite_utils.Database, validation: Mapping[str, Any]) -> None:
    """Insert or replace the validation of run ``validation["run_id"]``.

    In the same transaction the run's row moves between ``completed`` and
    ``catastrophic`` as :func:`tcab.outcomes.validated_run` says (the page
    never loaded / loads again), as ``run.json`` did.
    ``checks`` and ``screenshots`` may be lists (stored as JSON).
    ``toolchain`` (optional) lists its ``[toolchain]`` results
    (``toolchain_results`` rows without ``run_id``, in run order); they
    replace the run's previous ones in the same transaction. ``proofs``
    (optional: the proofs found in the run's tree, dicts with ``id``, ``name``,
    ``dest``, ``kind``, ``status``, ``size``, ``sha256``, ``detail``) replace
    the run's rows of the ``proofs`` table. ``check_scores`` (optional: the
    case's ``[[check]]`` results, dicts with ``name``, ``view``, ``similarity``,
    ``detail``) replace the run's rows of ``check_scores`` (the report's mean similarity).
    Raises ResultsError for an unknown or missing key or an unknown status.
    """
    if not isinstance(validation, Mapping):
        raise ResultsError(f"validations: expected a dict, got {type(validation).__name__}")
    proofs = validation.get("proofs")
    scores = validation.get("check_scores")
    row = _row("validations", {k: v for k, v in validation.items()
                               if k not in ("toolchain", "proofs", "check_scores")})
    _check_choice("validations", "status", row["status"], VALIDATION_STATUSES)
    tools = _toolchain_rows(row["run_id"], validation.get("toolchain") or ())
    proof_rows = _proof_rows(row["run_id"], proofs)
    score_rows = _check_score_rows(row["run_id"], scores)
    with write_transaction(db):
        _upsert(db, "validations", row)
        if tools or db["toolchain_results"].exists():  # a caller may hold a pre-0008 database
            db.execute("DELETE FROM toolchain_results WHERE run_id = ?", [row["run_id"]])
        for tool in tools:
            _upsert(db, "toolchain_results", tool)
        if scores is not None and db["check_scores"].exists():  # a caller may hold a pre-0014 database
            db.execute("DELETE FROM check_scores WHERE run_id = ?", [row["run_id"]])
            for score_row in score_rows:
                _upsert(db, "check_scores", score_row)
        if proofs is not None:
            db.execute("DELETE FROM proofs WHERE run_id = ?", [row["run_id"]])
            for proof_row in proof_rows:
                _upsert(db, "proofs", proof_row)
        found = db.execute("SELECT status FROM runs WHERE id = ?", [row["run_id"]]).fetchone()
        if found is not None and found[0] in RUN_STATUSES:
            after, detail = validated_run(found[0], row["status"], row["detail"])
            if after != found[0]:
                db.execute("UPDATE runs SET status = ?, status_detail = ? WHERE id = ?",
                           [str(after), detail, row["run_id"]])


def _toolchain_rows(run_id: str, tools: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    if isinstance(tools, str | bytes | Mapping) or not isinstance(tools, Sequence):
        raise ResultsError(f"validations.toolchain: expected a list of results, got {type(tools).__name__}")
    rows = []
    for seq, tool in enumerate(tools):
        if not isinstance(tool, Mapping):
            raise ResultsError(f"toolchain_results: expected a dict, got {type(tool).__name__}")
        if tool.get("run_id", run_id) != run_id:
            raise ResultsError(f"toolchain_results: run_id {tool['run_id']!r} is not the run {run_id!r}")
        r = _row("toolchain_results", {**tool, "run_id": run_id, "seq": seq})
        _check_choice("toolchain_results", "status", r["status"], TOOLCHAIN_STATUSES)
        _check_choice("toolchain_results", "name", r["name"], ("typecheck", "lint", "format", "test"))
        # Derived, never taken from the caller: only a typecheck that ran and failed gates.
        r["gates"] = int(r["name"] == "typecheck" and r["status"] == "failed")
        rows.append(r)
    _check_unique("toolchain_results", rows, ("name",))
    return rows


def _check_score_rows(run_id: str, scores: Sequence[Mapping[str, Any]] | None) -> list[dict[str, Any]]:
    """``check_scores`` rows from the validation's ``[[check]]`` results (name, view, similarity, detail)."""
    if scores is None:
        return []
    if isinstance(scores, str | bytes) or not isinstance(scores, Sequence):
        raise ResultsError(f"validations.check_scores: expected a list, got {type(scores).__name__}")
    rows = []
    for seq, score in enumerate(scores):
        if not isinstance(score, Mapping):
            raise ResultsError(f"check_scores: expected a dict, got {type(score).__name__}")
        rows.append(_row("check_scores", {**score, "run_id": run_id, "seq": seq}))
        value = rows[-1].get("similarity")
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)
                                  or not -1 <= value <= 1):
            raise ResultsError(f"check_scores.similarity: expected a number from -1 to 1, got {value!r}")
    _check_unique("check_scores", rows, ("name",))
    return rows


def _proof_rows(run_id: str, proofs: Sequence[Mapping[str, Any]] | None) -> list[dict[str, Any]]:
    if proofs is None:
        return []
    if isinstance(proofs, str | bytes) or not isinstance(proofs, Sequence):
        raise ResultsError(f"validations.proofs: expected a list, got {type(proofs).__name__}")
    rows = []
    for seq, proof in enumerate(proofs):
        if not isinstance(proof, Mapping):
            raise ResultsError(f"proofs: expected a dict, got {type(proof).__name__}")
        values = {("proof_id" if k == "id" else k): v for k, v in proof.items()}
        rows.append(_row("proofs", {**values, "run_id": run_id, "seq": seq}))
        _check_choice("proofs", "status", rows[-1]["status"], PROOF_STATUSES)
    _check_unique("proofs", rows, ("proof_id",))
    return rows


def record_match(db: sqlite_utils.Database, match: Mapping[str, Any],
                 seats: Sequence[Mapping[str, Any]]) -> str:
    """Insert or replace a match and its seats; return its key.

    ``key`` may be left out: it is computed with :func:`match_key` from
    ``case_digest``, ``variant``, ``seed`` and the seats' ``module_sha256`` in
    seat order. A given key that differs from that raises ResultsError, as do
    unknown or missing keys and an outcome outside win|draw|loss|forfeit.
    """
    seat_rows = sorted(
        (_row("match_seats", {"match_key": "-", **seat}) for seat in seats),
        key=lambda s: s["seat"],
    )
    if not seat_rows:
        raise ResultsError("match_seats: a match needs at least one seat")
    _check_unique("match_seats", seat_rows, ("seat",))
    for seat_row in seat_rows:
        _check_choice("match_seats", "outcome", seat_row["outcome"], SEAT_OUTCOMES)
    row = _row("matches", match)
    if isinstance(row["seed"], bool) or not isinstance(row["seed"], int):
        raise ResultsError(f"matches.seed: expected an integer, got {row['seed']!r}")
    expected = match_key(row["case_digest"], row["variant"], row["seed"],
                         [s["module_sha256"] for s in seat_rows])
    if row["key"] is None:
        row["key"] = expected
    elif row["key"] != expected:
        raise ResultsError(
            f"matches: key {row['key']!r} is not match_key(case_digest, variant, seed, "
            f"modules) = {expected!r}"
        )
    with write_transaction(db):
        db.execute("DELETE FROM match_seats WHERE match_key = ?", [expected])
        _upsert(db, "matches", row)
        for seat_row in seat_rows:
            _upsert(db, "match_seats", {**seat_row, "match_key": expected})
    return expected


def record_tournament(db: sqlite_utils.Database, tournament: Mapping[str, Any],
                      entries: Sequence[Mapping[str, Any]],
                      ratings: Sequence[Mapping[str, Any]]) -> None:
    """Insert or replace a tournament with its match list and its ratings.

    ``entries`` are ``tournament_matches`` rows (match_key, round, pairing);
    ``ratings`` are ``ratings`` rows, one per participant label.
    Raises ResultsError for an unknown or missing key or a duplicate entry.
    """
    row = _row("tournaments", tournament)
    tid = row["id"]
    entry_rows = [_row("tournament_matches", {"tournament_id": tid, **e}) for e in entries]
    rating_rows = [_row("ratings", {"tournament_id": tid, **r}) for r in ratings]
    for child in (*entry_rows, *rating_rows):
        if child["tournament_id"] != tid:
            raise ResultsError(f"tournament {tid!r}: a child row names tournament_id "
                               f"{child['tournament_id']!r}")
    _check_unique("tournament_matches", entry_rows, ("match_key", "round"))
    _check_unique("ratings", rating_rows, ("label",))
    with write_transaction(db):
        db.execute("DELETE FROM tournament_matches WHERE tournament_id = ?", [tid])
        db.execute("DELETE FROM ratings WHERE tournament_id = ?", [tid])
        _upsert(db, "tournaments", row)
        for entry in entry_rows:
            _upsert(db, "tournament_matches", entry)
        for rating in rating_rows:
            _upsert(db, "ratings", rating)


def _row(table: str, record: Mapping[str, Any]) -> dict[str, Any]:
    """Check ``record`` against the table's columns; return a full row (absent -> NULL)."""
    spec = TABLES[table]
    if not isinstance(record, Mapping):
        raise ResultsError(f"{table}: expected a dict, got {type(record).__name__}")
    unknown = [key for key in record if key not in spec.columns]
    if unknown:
        raise ResultsError(
            f"{table}: unknown key {unknown[0]!r} (known: {', '.join(spec.columns)})"
        )
    for key in spec.required:
        if record.get(key) in (None, ""):
            raise ResultsError(f"{table}: missing required key {key!r}")
    row = {}
    for column in spec.columns:
        value = record.get(column)
        if column in spec.json_columns and value is not None and not isinstance(value, str):
            value = json.dumps(value, sort_keys=True)
        elif isinstance(value, datetime.datetime | datetime.date):
            value = value.isoformat()
        elif isinstance(value, list | dict | tuple | set):
            raise ResultsError(f"{table}.{column}: expected a scalar, got {type(value).__name__}")
        row[column] = value
    return row


def _check_choice(table: str, column: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ResultsError(f"{table}.{column}: expected one of {'|'.join(allowed)}, got {value!r}")


def _check_unique(table: str, rows: list[dict[str, Any]], columns: tuple[str, ...]) -> None:
    seen = set()
    for row in rows:
        key = tuple(row[c] for c in columns)
        if key in seen:
            raise ResultsError(f"{table}: duplicate {', '.join(columns)} {key!r}")
        seen.add(key)


def _upsert(db: sqlite_utils.Database, table: str, row: dict[str, Any]) -> None:
    # Every column is present in ``row``, so the upsert replaces the whole row.
    db[table].upsert(row, pk=TABLES[table].pk)
