"""tcab/arena/jobs.py: the cache key of a match, the job as picklable data,
and run_job's cache (played once, reused while summary and replay both exist,
played again when either is missing or unreadable)."""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import shutil
from dataclasses import replace

import pytest

from tcab.arena.engine import sha256_hex
from tcab.arena.jobs import MatchJob, cached_summary, make_job, match_key, run_job, spec_digest
from tcab.arena.replay import read_replay, verify_replay
from tcab.arena.tournament import Contestant
from tcab.results import match_key as results_match_key


def _seated(wasm_dir, *dirs):
    return [Contestant(f"dir{n}", wasm_dir / f"dir{n}.wasm", sha256_hex((wasm_dir / f"dir{n}.wasm").read_bytes()))
            for n in dirs]


def _job(tally, settings, wasm_dir, dirs=(3, 1), seed=5, **kw) -> MatchJob:
    return make_job(tally, _seated(wasm_dir, *dirs), seed, settings.results_dir,
                    settings.build_dir / "modules", **kw)


def test_spec_digest_is_the_case_digest_or_covers_rules_schemas_and_header(tally, tmp_path):
    assert spec_digest(tally) == tally.case_digest and len(tally.case_digest) == 64
    # Outside the catalog: a digest of the game's own files and header.
    rules = tmp_path / "rules.py"
    shutil.copyfile(tally.rules_path, rules)
    loose = replace(tally, case_digest="", rules_path=rules)
    first = spec_digest(loose)
    assert len(first) == 64 and first != tally.case_digest and spec_digest(loose) == first
    assert spec_digest(replace(loose, params={"target": 5})) != first  # the header holds the params
    rules.write_text(rules.read_text() + "\n# another rule\n")
    assert spec_digest(loose) != first
    no_schemas = replace(loose, world_schema=None, action_schema=None)
    assert spec_digest(no_schemas) != spec_digest(loose)


def test_match_key_names_every_input_and_is_the_results_key(tally):
    shas = ["a" * 64, "b" * 64]
    key = match_key(tally, 7, shas)
    assert key == results_match_key(tally.case_digest, tally.variant, 7, shas)
    others = {match_key(tally, 8, shas), match_key(tally, 7, shas[::-1]),
              match_key(replace(tally, variant="long"), 7, shas),
              match_key(replace(tally, case_digest="c" * 64), 7, shas)}
    assert key not in others and len(others) == 4


def test_make_job_seats_labels_paths_and_default_players(tally, settings, wasm_dir):
    job = _job(tally, settings, wasm_dir, dirs=(3, 1, 2), seed=9, round_no=2, tag="a-b")
    assert job.labels == ("dir3", "dir1", "dir2") and job.players == (0, 1, 2)
    assert job.paths == tuple(str(wasm_dir / f"dir{n}.wasm") for n in (3, 1, 2))
    assert job.key == match_key(tally, 9, list(job.shas)) and (job.round, job.tag) == (2, "a-b")
    assert job.summary_path == settings.results_dir / "matches" / f"{job.key}.json"
    assert job.replay_path == settings.results_dir / "replays" / f"{job.key}.json.gz"
    assert _job(tally, settings, wasm_dir, players=(4, 2)).players == (4, 2)
    # Plain data: a process pool can send it to a worker.
    assert pickle.loads(pickle.dumps(job)) == job


def test_run_job_plays_once_then_reuses_the_cache(tally, settings, wasm_dir):
    job = _job(tally, settings, wasm_dir)
    assert cached_summary(job) is None
    first = run_job(job)
    assert first["cached"] is False and first["key"] == job.key
    assert first["labels"] == ["dir3", "dir1"] and first["shas"] == list(job.shas) and first["seed"] == 5
    assert first["result"]["winner"] == 0 and first["result"]["reason"] == "score"
    replay = job.replay_path.read_bytes()
    assert first["replay"] == str(job.replay_path)
    assert first["replay_sha256"] == hashlib.sha256(replay).hexdigest()
    verdict = verify_replay(read_replay(job.replay_path), tally.rules_path, tally.action_schema)
    assert verdict.ok and verdict.final_digest == first["final_digest"]
    stored = json.loads(job.summary_path.read_text())
    assert stored == {k: v for k, v in first.items() if k != "cached"}
    # The second call reads the files: the modules are not even opened.
    gone = replace(job, paths=("/nonexistent/a.wasm", "/nonexistent/b.wasm"))
    again = run_job(gone)
    assert again == {**first, "cached": True}
    assert job.replay_path.read_bytes() == replay


def _forge(job, **changes) -> None:
    stored = json.loads(job.summary_path.read_text())
    stored.update(changes)
    job.summary_path.write_text(json.dumps(stored))


# A restored results/ or build/ folder is input: each forged entry is played again,
# never served (and never hangs or reads a device).
DAMAGES = {
    "replay missing": lambda job, tmp: job.replay_path.unlink(),
    "summary missing": lambda job, tmp: job.summary_path.unlink(),
    "summary not JSON": lambda job, tmp: job.summary_path.write_bytes(b'{"key": '),
    "summary not an object": lambda job, tmp: job.summary_path.write_text("[1, 2]"),
    "summary names a host file as its replay": lambda job, tmp: _forge(job, replay="/etc/passwd"),
    "summary of another key": lambda job, tmp: _forge(job, key="0" * 64),
    "summary of other modules": lambda job, tmp: _forge(job, shas=["0" * 64, "1" * 64]),
    "summary of another seed": lambda job, tmp: _forge(job, seed=6),
    "result not an object": lambda job, tmp: _forge(job, result="won"),
    "seats do not match the fuel": lambda job, tmp: _forge(job, fuel=[]),
    "replay changed after the summary": lambda job, tmp: job.replay_path.write_bytes(
        job.replay_path.read_bytes() + b"\0"),
    "summary is a FIFO": lambda job, tmp: (job.summary_path.unlink(), os.mkfifo(job.summary_path)),
    "summary links to /dev/zero": lambda job, tmp: (job.summary_path.unlink(),
                                                    job.summary_path.symlink_to("/dev/zero")),
    "replay is a FIFO": lambda job, tmp: (job.replay_path.unlink(), os.mkfifo(job.replay_path)),
    "replay links out": lambda job, tmp: (shutil.move(job.replay_path, tmp / "out.gz"),
                                          job.replay_path.symlink_to(tmp / "out.gz")),
}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("damage", list(DAMAGES))
def test_a_damaged_cache_entry_is_played_again(tally, settings, wasm_dir, damage, tmp_path):
    job = _job(tally, settings, wasm_dir)
    first = run_job(job)
    DAMAGES[damage](job, tmp_path)
    assert cached_summary(job) is None
    again = run_job(job)
    assert again["cached"] is False
    assert (again["result"], again["final_digest"]) == (first["result"], first["final_digest"])
    assert run_job(job)["cached"] is True


def test_a_cached_match_still_checks_the_wasm_limits_of_the_environment(tally, settings, wasm_dir, monkeypatch):
    """A TCAB_WASM_* value that is refused when the match is played is refused when it is cached too."""
    from tcab.errors import ArenaError

    job = _job(tally, settings, wasm_dir)
    run_job(job)
    assert run_job(job)["cached"] is True
    monkeypatch.setenv("TCAB_WASM_MAX_FUNCTIONS", "lots")
    with pytest.raises(ArenaError, match="TCAB_WASM_MAX_FUNCTIONS"):
        run_job(job)
