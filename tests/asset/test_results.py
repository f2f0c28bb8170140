"""Asset regenerations in results.db and ``tcab report`` (issue 22, item 4):
per run and per frame, the run made catastrophic when there is no asset,
and the type's own table in every presenter."""

from __future__ import annotations

import csv
import io
import json

import pytest
from click.testing import CliRunner

from tcab.cli import cli
from tcab.errors import ResultsError
from tcab.results import (
    SCHEMA_VERSION,
    open_db,
    record_asset_regeneration,
    record_run,
    schema_version,
)
from tests.support.results_rows import run_row

ASSET = {"case_slug": "lattice-sink", "case_type": "asset-generation"}


def _regen(run_id: str, status: str = "regenerated", frames=None, **over) -> dict:
    frames = [{"frame": "0", "ops": 12, "divergence": 0.0, "flagged": 0, "image": "regenerated/0.png",
               "detail": ""},
              {"frame": "1", "ops": 30, "divergence": 0.2, "flagged": 1, "image": "regenerated/1.png",
               "detail": "the preview differs"}] if frames is None else frames
    return {"run_id": run_id, "case_slug": "lattice-sink", "case_version": "v1.0.0", "case_digest": "d" * 64,
            "status": status, "draw_version": "1.0.0", "version_mismatch": 0, "flagged": int(status == "regenerated"),
            "regen_key": "k", "detail": "" if status == "regenerated" else "no asset: frames/0.actions.json: missing",
            "regenerated_at": "2026-12-04T07:00:00+00:00", "frames": frames, **over}


@pytest.fixture
def filled(tmp_path):
    path = tmp_path / "results" / "results.db"
    db = open_db(path)
    assert schema_version(db) == SCHEMA_VERSION
    record_run(db, run_row("ref-1", **ASSET), [])
    record_run(db, run_row("cl-1", harness="claude", model="sonnet", **ASSET), [])
    record_asset_regeneration(db, _regen("ref-1"))
    record_asset_regeneration(db, _regen("ref-1"))  # idempotent
    record_asset_regeneration(db, _regen("cl-1", "no_asset", frames=[]))
    db.close()
    return path


def test_rows_per_run_and_frame_and_no_asset_is_catastrophic(filled) -> None:
    db = open_db(filled)
    try:
        assert db.execute("SELECT frame, ops, divergence, flagged FROM asset_frames WHERE run_id = 'ref-1' "
                          "ORDER BY seq").fetchall() == [("0", 12, 0.0, 0), ("1", 30, 0.2, 1)]
        status = dict(db.execute("SELECT id, status FROM runs").fetchall())
        assert status == {"ref-1": "completed", "cl-1": "catastrophic"}
        detail = db.execute("SELECT status_detail FROM runs WHERE id = 'cl-1'").fetchone()[0]
        assert detail.startswith("regeneration: no asset")
        record_asset_regeneration(db, _regen("cl-1"))  # regenerated again: completed again
        assert db.execute("SELECT status FROM runs WHERE id = 'cl-1'").fetchone()[0] == "completed"
    finally:
        db.close()


def test_the_type_table_in_the_terminal_csv_and_json(filled) -> None:
    env = {"TCAB_RESULTS": str(filled.parent)}
    text = CliRunner().invoke(cli, ["report"], env=env, catch_exceptions=False).output
    assert "Asset regenerations" in text and "0.200" in text and "no_asset" in text
    out = CliRunner().invoke(cli, ["report", "--csv", "--table", "asset-regenerations"], env=env,
                             catch_exceptions=False).output
    rows = {r["run_id"]: r for r in csv.DictReader(io.StringIO(out))}
    assert (rows["ref-1"]["ops"], rows["ref-1"]["divergence"], rows["ref-1"]["frames"]) == ("42", "0.2", "2")
    assert rows["cl-1"]["status"] == "no_asset" and "missing" in rows["cl-1"]["detail"]
    data = json.loads(CliRunner().invoke(cli, ["report", "--json"], env=env, catch_exceptions=False).output)
    assert "asset-regenerations" in json.dumps(data)


def test_an_unknown_status_key_or_divergence_is_refused(tmp_path) -> None:
    db = open_db(tmp_path / "r.db")
    try:
        with pytest.raises(ResultsError, match="asset_regenerations.status: expected one of"):
            record_asset_regeneration(db, _regen("x", "pretty"))
        with pytest.raises(ResultsError, match="unknown key 'pixels'"):
            record_asset_regeneration(db, {**_regen("x"), "pixels": 1})
        with pytest.raises(ResultsError, match="frame"):
            record_asset_regeneration(db, _regen("x", frames=[_regen("x")["frames"][0]] * 2))
    finally:
        db.close()
