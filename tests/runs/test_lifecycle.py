"""Every run status, produced for real by scripted harnesses in real
containers, each followed by the check that no container is left; on both
backends (the ``runtime`` fixture: docker, and kubernetes through the
stand-in API server). Kubernetes-only faults: test_runs_kubernetes.py."""

from __future__ import annotations

import dataclasses
import json
import shutil
import sqlite3
import threading
from pathlib import Path

import pytest

from tcab.catalog import case_digest, load_version
from tcab.runs import RunOptions, execute_run
from tests.support.paths import LIGHTS_OUT


def _run(settings, case, harness, runtime, **options):
    opts = RunOptions(runtime=runtime, **options)
    record = execute_run(settings, case, case.variant(None), harness, opts)
    assert runtime.list_run_containers(record.id) == [], "a container was left behind"
    return record


def _stages(record) -> dict[str, str]:
    return {s.stage: s.status for s in record.stages}


def _db_row(settings, run_id: str) -> dict:
    con = sqlite3.connect(settings.results_db)
    con.row_factory = sqlite3.Row
    row = con.execute("SELECT * FROM runs WHERE id = ?", [run_id]).fetchone()
    stages = [r["stage"] for r in con.execute("SELECT stage FROM stages WHERE run_id = ? ORDER BY seq", [run_id])]
    con.close()
    return {**dict(row), "stage_names": stages}


def test_completed_with_install_init_and_records(settings, e2e_case, scripted, runtime) -> None:
    agent = ("#!/bin/sh\ncase \"$1\" in --version) echo fake-agent 2.1; exit 0;; esac\n"
             "echo working on: $(printf %s \"$1\" | head -c 40)\necho made > made.txt\n"
             "git add -A && git commit -qm agent-work && echo committed\n")
    harness = scripted(
        "unused", binary="fake-agent", version_args=["--version"], args=["{prompt}"],
        install=f"mkdir -p ~/.local/bin && printf '%s' '{agent}' > ~/.local/bin/fake-agent "
                "&& chmod +x ~/.local/bin/fake-agent && echo installed")
    case = dataclasses.replace(e2e_case, init="echo init-ran > .init-marker && echo init done")
    events: list[dict] = []
    record = _run(settings, case, harness, runtime, on_event=events.append)

    assert record.status == "completed", record.status_detail
    assert record.harness_version == "fake-agent 2.1"
    assert list(_stages(record)) == ["seed", "pull", "start", "copy_in", "install", "probe", "init",
                                     "session", "collect", "remove"]
    assert set(_stages(record).values()) == {"ok"}
    work = record.run_dir / "work"
    assert (work / "made.txt").read_text() == "made\n" and (work / ".init-marker").exists()
    assert (work / ".git").is_dir() and (work / "specs").is_dir()
    assert record.artifact_digest and record.files > 5 and record.seed_commit
    assert record.image_digest and "sha256:" in record.image_digest

    doc = json.loads((record.run_dir / "run.json").read_text())
    assert doc["status"] == "completed" and doc["subject"]["case"] == "lights-out"
    assert doc["subject"]["harness_version"] == "fake-agent 2.1" and doc["runtime"] == runtime.name
    # The image's tools, probed after the container started (Node >= 22, not Debian's 18).
    env = doc["environment"]
    assert env["os"].startswith("Debian") and env["python"].startswith("3.") and env["pip"], env
    assert int(env["node"].lstrip("v").split(".")[0]) >= 22, env
    raw = [json.loads(line) for line in (record.run_dir / "raw.jsonl").read_text().splitlines()]
    assert {"stage": "install", "stream": "stdout", "line": "installed"}.items() <= raw[0].items()
    assert any(r["stage"] == "session" and r["line"] == "committed" for r in raw)
    logged = [json.loads(line) for line in (record.run_dir / "events.jsonl").read_text().splitlines()]
    assert logged == events
    assert any(e["kind"] == "system" and e["text"] == "session completed" for e in logged)
    assert any(e["kind"] == "message" and e["text"].startswith("working on:") for e in logged)

    row = _db_row(settings, record.id)
    assert row["status"] == "completed" and row["harness_version"] == "fake-agent 2.1"
    assert row["artifact_digest"] == record.artifact_digest and row["image_digest"] == record.image_digest
    assert row["stage_names"] == list(_stages(record))


def test_harness_error(settings, e2e_case, scripted, runtime) -> None:
    record = _run(settings, e2e_case, scripted("echo trying; echo bad thing >&2; exit 3"), runtime)
    assert record.status == "harness_error" and "exit 3" in record.status_detail
    assert "bad thing" in record.status_detail
    assert (record.run_dir / "work" / "specs").is_dir()  # collected anyway


def test_the_record_names_the_case_folder_as_it_was_seeded(settings, tmp_path, scripted, runtime) -> None:
    root = tmp_path / "catalog/end-to-end/easy/lights-out/v1.0.0"
    shutil.copytree(LIGHTS_OUT, root)
    case, _ = load_version(root)
    seeded = case_digest(case)
    spec = root / "specs/overview.md"

    def edit(event: dict) -> None:  # the operator edits the case while the run goes on
        if not spec.read_text().endswith("edited\n"):
            spec.write_text(spec.read_text() + "edited\n")

    record = _run(settings, case, scripted("echo working"), runtime, on_event=edit)
    assert record.status == "completed", record.status_detail
    assert case_digest(case) != seeded and record.case_digest == seeded


def test_timed_out_keeps_the_source(settings, e2e_case, scripted, runtime) -> None:
    script = "echo partial > progress.txt; while true; do echo still working; sleep 0.3; done"
    # The max runtime counts from the run's start: long enough for a pod to
    # start, copy in, install and probe (3 s was not, on kubernetes), so that
    # it is the endless session that reaches it.
    record = _run(settings, e2e_case, scripted(script), runtime, max_runtime_s=8.0)
    assert record.status == "timed_out" and "max runtime" in record.status_detail, record.status_detail
    assert (record.run_dir / "work" / "progress.txt").read_text() == "partial\n"
    assert _stages(record)["session"] == "timed_out"


def test_hung_after_the_idle_window(settings, e2e_case, scripted, runtime) -> None:
    record = _run(settings, e2e_case, scripted("echo thinking; sleep 300"), runtime,
                  idle_timeout_s=1.0)
    assert record.status == "hung" and _stages(record)["session"] == "hung"
    assert record.duration_s < 20


def test_install_failure_is_infrastructure(settings, e2e_case, scripted, runtime) -> None:
    harness = scripted("echo never", install="echo fetching; echo boom-404 >&2; exit 1")
    record = _run(settings, e2e_case, harness, runtime)
    assert record.status == "infrastructure" and "install failed (exit 1)" in record.status_detail
    assert "boom-404" in record.status_detail  # the captured output is surfaced
    assert "session" not in _stages(record) and _stages(record)["install"] == "failed"


def test_missing_binary_is_infrastructure(settings, e2e_case, scripted, runtime) -> None:
    harness = scripted("x", binary="not-installed-agent", version_args=["--version"], install="true")
    record = _run(settings, e2e_case, harness, runtime)
    assert record.status == "infrastructure" and "probe `not-installed-agent --version`" in record.status_detail


def test_init_failure_is_infrastructure(settings, e2e_case, scripted, runtime) -> None:
    case = dataclasses.replace(e2e_case, init="echo init-broke; exit 4")
    record = _run(settings, case, scripted("echo never"), runtime)
    assert record.status == "infrastructure" and "init failed (exit 4): init-broke" in record.status_detail
    assert "session" not in _stages(record)


def test_missing_image_is_infrastructure(settings, e2e_case, scripted, runtime, monkeypatch) -> None:
    monkeypatch.setenv("TCAB_CONTAINER_IMAGE_BASE_WASM", "localhost/tcab/no-such-image:never")
    record = _run(settings, e2e_case, scripted("echo never"), runtime)
    failed = "start" if runtime.name == "kubernetes" else "pull"  # a node pulls when the pod starts
    assert record.status == "infrastructure" and f"{failed} failed" in record.status_detail
    assert "localhost/tcab/no-such-image:never" in record.status_detail
    assert record.image == "localhost/tcab/no-such-image:never" and record.image_digest is None
    assert _stages(record)[failed] == "failed"


def test_canceled(settings, e2e_case, scripted, runtime) -> None:
    cancel = threading.Event()

    def on_event(event: dict) -> None:
        if event["kind"] == "message" and event["text"] == "started":
            cancel.set()

    record = _run(settings, e2e_case, scripted("echo started; sleep 300"), runtime,
                  cancel=cancel, on_event=on_event)
    assert record.status == "canceled" and _stages(record)["session"] == "canceled"


def test_interrupt_inside_start_still_removes_the_container(settings, e2e_case, scripted,
                                                            runtime) -> None:
    # Ctrl-C lands after the engine created the container but before its id came back.
    real_start = runtime.start

    def start_then_interrupt(spec):
        real_start(spec)
        raise KeyboardInterrupt

    runtime.start = start_then_interrupt
    opts = RunOptions(runtime=runtime, run_id="interrupted-start")
    try:
        with pytest.raises(KeyboardInterrupt):
            execute_run(settings, e2e_case, e2e_case.variant(None), scripted("echo never"), opts)
    finally:
        del runtime.start
    assert runtime.list_run_containers("interrupted-start") == []
    doc = json.loads((settings.runs_dir / "interrupted-start" / "run.json").read_text())
    assert doc["status"] == "canceled"
    assert {s["stage"]: s["status"] for s in doc["stages"]}["remove"] == "ok"


def test_hostile_tree_is_refused_and_listed(settings, e2e_case, scripted, runtime) -> None:
    script = "ln -s /etc/passwd passwd-link && mkfifo pipe && echo ok > fine.txt"
    record = _run(settings, e2e_case, scripted(script), runtime)
    assert record.status == "completed"
    reasons = {r.path: r.reason for r in record.refused}
    assert "outside the tree" in reasons["passwd-link"] and reasons["pipe"] == "FIFO refused"
    work = record.run_dir / "work"
    assert (work / "fine.txt").exists() and not (work / "passwd-link").exists()
    assert json.loads(_db_row(settings, record.id)["refused"]) == [
        {"path": r.path, "reason": r.reason} for r in record.refused]


def test_size_cap_refuses_the_tree(settings, e2e_case, scripted, runtime) -> None:
    from tcab.runtime import CollectLimits

    record = _run(settings, e2e_case, scripted("head -c 2000000 /dev/urandom > big.bin"), runtime,
                  limits=CollectLimits(max_bytes=1_000_000))
    assert record.status == "completed" and "size cap" in record.status_detail
    assert record.files == 0 and not any((record.run_dir / "work").iterdir())


def test_reference_harness_completes_the_sample_case(settings, e2e_case, runtime) -> None:
    from tcab.harnesses import load_harness

    harness = load_harness(Path(__file__).resolve().parents[2] / "harnesses", "reference")
    record = _run(settings, e2e_case, harness, runtime)
    assert record.status == "completed", record.status_detail
    work = record.run_dir / "work"
    expected: dict[Path, bytes] = {}
    for rel_dir in e2e_case.solutions_for(e2e_case.variant(None)):  # later layers win
        solution = e2e_case.path(rel_dir)
        expected |= {p.relative_to(solution): p.read_bytes() for p in solution.rglob("*") if p.is_file()}
    assert len(e2e_case.solutions_for(e2e_case.variant(None))) == 2 and expected
    for rel, data in expected.items():
        assert (work / rel).read_bytes() == data, rel
    import pygit2

    repo = pygit2.Repository(str(work))
    head = repo[repo.head.target]
    assert head.message.strip() == "Reference solution" and str(head.parents[0].id) == record.seed_commit


def test_a_run_handed_a_seed_takes_what_its_record_holds(settings, e2e_case, scripted, podman_runtime,
                                                         tmp_path) -> None:
    """A sweep's run is handed the seed task's record (issue 20, item 6): the
    commit and the case folder's digest are taken as given, not read back
    from git or hashed again (the values below are not the repository's)."""
    from tcab.runs import SeededRepo
    from tcab.seeding.cache import seed_from_cache, store_dir

    made = seed_from_cache(store_dir(settings.build_dir), e2e_case, e2e_case.variant(None), tmp_path / "seed")
    given = SeededRepo(made.path, "c" * 40, "the prompt as recorded", "d" * 64)
    record = _run(settings, e2e_case, scripted("echo working"), podman_runtime, seed=given)
    assert record.status == "completed", record.status_detail
    assert record.seed_commit == "c" * 40 and record.case_digest == "d" * 64
    assert made.path.is_dir()  # the sweep's seed is not the run's to remove
