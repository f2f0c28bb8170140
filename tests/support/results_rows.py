"""Row builders for results tests (a plain module, so subprocesses can import it too)."""

from __future__ import annotations


def run_row(run_id: str, **over) -> dict:
    row = {
        "id": run_id,
        "case_slug": "capture",
        "case_version": "v1.0.0",
        "case_type": "adversarial",
        "case_digest": "c" * 64,
        "variant": "base",
        "harness": "reference",
        "model": None,
        "status": "completed",
        "started_at": "2026-11-29T10:00:00+00:00",
        "duration_s": 10.0,
        "tokens_input": 100,
        "tokens_output": 10,
        "run_dir": f"runs/{run_id}",
    }
    row.update(over)
    return row


def match_row(seed: int, **over) -> dict:
    row = {
        "case_slug": "capture",
        "case_version": "v1.0.0",
        "case_digest": "c" * 64,
        "variant": "base",
        "seed": seed,
        "ticks": 100,
        "winner_seat": 0,
        "reason": "score",
        "replay_path": f"matches/{seed}.replay.jsonl",
    }
    row.update(over)
    return row


def seat(seat_no: int, module: str, outcome: str, label: str | None = None, **over) -> dict:
    row = {"seat": seat_no, "module_sha256": module, "outcome": outcome,
           "label": label or module, "score": 1 if outcome == "win" else 0}
    row.update(over)
    return row
