"""An engine's output against a scenario's expected snapshots.

The output must be UTF-8 JSON, valid against the case's output schema and of
the ABI's shape (``{"snapshots": [{"tick", "checksum", "state"?}]}``); it is
correct when its snapshots are the expected ones, tick for tick and checksum
for checksum. ``state`` is never compared (it is the engine's debugging aid).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import orjson

from tcab.catalog.schemas import Validator
from tcab.testtypes.performance import snapshots_problem


@dataclass(frozen=True, slots=True)
class Judgement:
    status: str                       # correct | mismatch | bad_output
    detail: str = ""
    mismatch_tick: int | None = None  # the first expected tick not matched


def judge(output: bytes, expected: dict[str, Any], schema: Validator) -> Judgement:
    try:
        doc = orjson.loads(output)  # rejects invalid UTF-8 as well
    except orjson.JSONDecodeError as exc:
        return Judgement("bad_output", f"output is not UTF-8 JSON: {exc}")
    try:
        schema(doc)
    except ValueError as exc:  # fastjsonschema's JsonSchemaException
        return Judgement("bad_output", f"output does not match the output schema: {str(exc)[:300]}")
    why = snapshots_problem(doc)
    if why is not None:
        return Judgement("bad_output", f"output: {why}")
    got, want = doc["snapshots"], expected["snapshots"]
    for i, snap in enumerate(want):
        if i >= len(got):
            return Judgement("mismatch", f"{len(got)} snapshots, {len(want)} expected", snap["tick"])
        if got[i]["tick"] != snap["tick"]:
            return Judgement("mismatch", f"snapshot {i} is of tick {got[i]['tick']}, tick {snap['tick']} expected",
                           snap["tick"])
        if got[i]["checksum"] != snap["checksum"]:
            return Judgement("mismatch", f"tick {snap['tick']}: checksum {got[i]['checksum'][:16]}, "
                                       f"{snap['checksum']} expected", snap["tick"])
    if len(got) > len(want):
        return Judgement("mismatch", f"{len(got)} snapshots, {len(want)} expected", None)
    return Judgement("correct")
