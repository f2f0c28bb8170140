"""load_run: the one reader of a run folder, the exact inverse of RunRecord.write.

run.json sits next to the untrusted tree a run collected: every way it can
be broken is a RunError naming the file (and the key), never a traceback and
never a hang.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tcab.errors import RunError
from tcab.harnesses import Tokens
from tcab.runs import RunRecord, StageRecord, check_run_id, find_run, load_run
from tcab.runtime import Refusal


def _record(run_dir: Path, **changes) -> RunRecord:
    fields = dict(
        id=run_dir.name, run_dir=run_dir, status="harness_error", status_detail="exit 3: boom",
        started_at="2025-01-01T12:00:00+00:00", finished_at="2025-01-01T12:05:00+00:00", duration_s=300.125,
        case_slug="lights-out", case_version="v1.0.0", case_type="end-to-end", case_digest="a" * 64,
        variant="classic", harness="codex", harness_digest="b" * 64, runtime="docker",
        harness_version="codex 1.2.3", model="gpt-x", image="ghcr.io/x/base:latest",
        image_digest="ghcr.io/x/base@sha256:" + "c" * 64, image_id="sha256:" + "d" * 64, seed_commit="e" * 40,
        stages=(StageRecord("pull", "ok", "2025-01-01T12:00:00+00:00", 0.5),
                StageRecord("session", "failed", "2025-01-01T12:00:01+00:00", 299.0, 3, "exit 3")),
        tokens=Tokens(10, 20, 30, 40, reported=True), artifact_digest="f" * 64, files=12, bytes=3456,
        refused=(Refusal("dev/null", "device refused"), Refusal("ln", "symlink leads outside the tree (/etc)")),
        plan_digest="9" * 64,
        environment={"os": "Debian GNU/Linux 12 (bookworm)", "node": "v24.11.1", "npm": "11.6.2",
                     "python": "3.11.2", "pip": None},
    )
    fields.update(changes)
    return RunRecord(**fields)


def _doc(run_dir: Path) -> dict:
    return json.loads((run_dir / "run.json").read_text())


def _rewrite(run_dir: Path, doc) -> None:
    (run_dir / "run.json").write_text(json.dumps(doc))


@pytest.fixture
def run_dir(tmp_path: Path) -> Path:
    d = tmp_path / "runs" / "20250101-120000-lights-out-a1b2c3"
    d.mkdir(parents=True)
    _record(d).write()
    return d


def test_round_trip_with_the_real_writer(tmp_path: Path) -> None:
    full = _record(tmp_path / "full")
    full.run_dir.mkdir()
    full.write()
    assert load_run(full.run_dir) == full
    # Nothing reported, nothing optional: the None and empty shapes come back too.
    bare = _record(tmp_path / "bare", harness_version=None, model=None, image=None, image_digest=None,
                   image_id=None, seed_commit=None, stages=(), tokens=Tokens(), artifact_digest=None,
                   files=0, bytes=0, refused=(), plan_digest=None, status="infrastructure", duration_s=0,
                   environment=None)
    bare.run_dir.mkdir()
    bare.write()
    back = load_run(bare.run_dir)
    assert back == bare and back.to_json() == bare.to_json() and back.db_rows() == bare.db_rows()
    assert back.tree == bare.run_dir / "work"


def test_a_record_without_environment_reads_as_unknown(run_dir: Path) -> None:
    # Records written before run.json had `environment` still load.
    doc = _doc(run_dir)
    del doc["environment"]
    _rewrite(run_dir, doc)
    assert load_run(run_dir).environment is None


@pytest.mark.parametrize("cut", [0, 1, 100, -2])
def test_truncated_or_empty_is_named(run_dir: Path, cut: int) -> None:
    raw = (run_dir / "run.json").read_bytes()
    (run_dir / "run.json").write_bytes(raw[:cut])
    with pytest.raises(RunError, match=rf"{run_dir}/run.json: not a readable run record"):
        load_run(run_dir)


@pytest.mark.parametrize("raw", [b"\xff\xfe garbage", b"[1, 2, 3]", b'"a string"', b"null",
                                 b'{"id": NaN}', b"[" * 100_000 + b"]" * 100_000])
def test_garbled_is_named(run_dir: Path, raw: bytes) -> None:
    (run_dir / "run.json").write_bytes(raw)
    with pytest.raises(RunError, match=rf"^{run_dir}/run.json: "):
        load_run(run_dir)


def test_huge_is_refused_unread(run_dir: Path) -> None:
    with pytest.raises(RunError, match=r"run.json: the run record is over the 1000-byte cap"):
        load_run(run_dir, max_bytes=1000)
    # Over the default cap without writing 64 MiB: a sparse file.
    with open(run_dir / "run.json", "r+b") as fh:
        fh.truncate(64 * 1024 * 1024 + 1)
    with pytest.raises(RunError, match=r"over the 67108864-byte cap"):
        load_run(run_dir)
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="max_bytes"):
            load_run(run_dir, max_bytes=bad)


@pytest.mark.parametrize("path, key", [
    ((), "id"), ((), "status"), ((), "stages"), ((), "plan_digest"), ((), "tokens"),
    (("subject",), "case"), (("subject",), "model"), (("image",), "digest"),
    (("artifact",), "refused"), (("artifact",), "files"),
])
def test_missing_keys_are_named(run_dir: Path, path: tuple[str, ...], key: str) -> None:
    doc = _doc(run_dir)
    node = doc
    for part in path:
        node = node[part]
    del node[key]
    _rewrite(run_dir, doc)
    where = ".".join((*path, key))
    with pytest.raises(RunError, match=rf"run.json: {where}: missing required key"):
        load_run(run_dir)


@pytest.mark.parametrize("mutate, message", [
    (lambda d: d.update(status="great"), "status: expected one of completed, "),
    (lambda d: d.update(duration_s="long"), "duration_s: expected a non-negative number"),
    (lambda d: d.update(duration_s=-1), "duration_s: expected a non-negative number"),
    (lambda d: d.update(subject=["lights-out"]), "subject.: expected an object, got list"),
    (lambda d: d["subject"].update(case=7), "subject.case: expected a string, got 7"),
    (lambda d: d["artifact"].update(files=True), "artifact.files: expected a non-negative integer"),
    (lambda d: d["stages"][1].update(exit_code="3"), r"stages\[1\].exit_code: expected an integer or null"),
    (lambda d: d["artifact"]["refused"].append("x"), r"artifact.refused\[2\].: expected an object"),
    (lambda d: d.update(tokens={"input": 1}), "tokens.output: missing required key"),
    # The tree is <run>/work, whatever the record says.
    (lambda d: d["artifact"].update(path="../../etc"), "artifact.path: expected 'work'"),
    # The id names caches and containers: it must be the folder's own name.
    (lambda d: d.update(id="../../other"), "id: expected the run folder's name"),
    (lambda d: d.update(environment=["Debian"]), "environment.: expected an object, got list"),
    (lambda d: d["environment"].update(node=24), "environment.node: expected a string or null, got 24"),
    (lambda d: d["environment"].update({f"k{i}": "x" for i in range(40)}), "environment: over 32 keys"),
])
def test_wrong_types_are_named(run_dir: Path, mutate, message: str) -> None:
    doc = _doc(run_dir)
    mutate(doc)
    _rewrite(run_dir, doc)
    with pytest.raises(RunError, match=rf"{run_dir}/run.json: {message}"):
        load_run(run_dir)


def test_not_a_regular_file(run_dir: Path, tmp_path: Path) -> None:
    path = run_dir / "run.json"
    target = tmp_path / "elsewhere.json"
    target.write_bytes(path.read_bytes())
    path.unlink()
    with pytest.raises(RunError, match=r"run.json: no run record"):
        load_run(run_dir)
    path.symlink_to(target)  # a link planted where run.json belongs is not followed
    with pytest.raises(RunError, match=r"run.json: cannot open the run record"):
        load_run(run_dir)
    path.unlink()
    os.mkfifo(path)  # a FIFO would block a plain open() forever
    with pytest.raises(RunError, match=r"run.json: the run record is not a regular file"):
        load_run(run_dir)
    path.unlink()
    path.mkdir()
    with pytest.raises(RunError, match=r"run.json: (cannot open|the run record is not a regular file)"):
        load_run(run_dir)


def test_find_run_checks_the_id_first(run_dir: Path, tmp_path: Path) -> None:
    runs = run_dir.parent
    assert find_run(runs, run_dir.name) == load_run(run_dir)
    for bad in ("", ".", "..", ".hidden", "../x", "a/b", "a\\b", "nul\0", "x" * 201):
        with pytest.raises(RunError, match="not a run id"):
            find_run(runs, bad)
    assert check_run_id("x" * 200) == "x" * 200
    with pytest.raises(RunError, match=rf"{runs}/nope/run.json: no such run 'nope'"):
        find_run(runs, "nope")
    (runs / "linked").symlink_to(run_dir)
    with pytest.raises(RunError, match="no such run 'linked'"):
        find_run(runs, "linked")
