"""Concurrency slots (tcab/tasks/slots.py): flock files that hold across processes,
survive a corrupted file, and are freed by the kernel when their holder dies."""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from pathlib import Path

import pytest

from tcab.errors import TcabError
from tcab.plan.throttle import Concurrency
from tcab.tasks import slots

CAPS = Concurrency((("harness", "h", 2), ("model", "m/x", 1), ("secret", "K", 3)))


def test_a_run_is_capped_by_its_harness_model_and_secrets_in_one_order():
    assert slots.caps_for(CAPS, "h", "m/x", ["K", "OTHER", "K"]) == [
        ("harness", "h", 2), ("model", "m/x", 1), ("secret", "K", 3)]
    assert slots.caps_for(CAPS, "other", None, []) == []
    assert slots.caps_for(Concurrency(), "h", "m/x", ["K"]) == []


def _blocked(results: Path, caps, seconds: float) -> tuple[bool, threading.Thread, threading.Event]:
    """Whether taking ``caps`` still waits after ``seconds``."""
    got = threading.Event()

    def take():
        with slots.hold(results, caps):
            got.set()
    t = threading.Thread(target=take, daemon=True)
    t.start()
    blocked = not got.wait(seconds)
    return blocked, t, got


def test_a_cap_of_two_admits_two_and_the_third_waits(tmp_path):
    caps = [("harness", "h", 2)]
    with slots.hold(tmp_path, caps), slots.hold(tmp_path, caps):
        blocked, t, got = _blocked(tmp_path, caps, 0.5)
        assert blocked
    assert got.wait(5), "the third run starts once a slot is free"
    t.join(5)


def test_a_corrupted_slot_file_is_still_a_lock(tmp_path):
    caps = [("model", "m/x", 1)]
    with slots.hold(tmp_path, caps):
        pass
    (slot,) = slots.slots_dir(tmp_path).iterdir()
    assert slot.read_text().split()[0] == str(os.getpid())
    slot.write_bytes(b"\x00\xff garbage" * 1000)
    with slots.hold(tmp_path, caps):
        blocked, t, got = _blocked(tmp_path, caps, 0.3)
        assert blocked, "the cap holds over a garbled file"
    assert got.wait(5)
    t.join(5)


def _hold_forever(results: str, ready) -> None:
    with slots.hold(Path(results), [("secret", "K", 1)]):
        ready.set()
        time.sleep(600)


def test_a_slot_left_by_a_killed_process_is_free_at_once(tmp_path):
    ctx = multiprocessing.get_context("fork")
    ready = ctx.Event()
    child = ctx.Process(target=_hold_forever, args=(str(tmp_path), ready))
    child.start()
    try:
        assert ready.wait(10)
        blocked, t, got = _blocked(tmp_path, [("secret", "K", 1)], 0.3)
        assert blocked, "the living holder keeps its slot"
        os.kill(child.pid, signal.SIGKILL)
        assert got.wait(5), "the dead holder's slot was freed by the kernel"
        t.join(5)
    finally:
        child.kill()
        child.join(10)


@pytest.mark.parametrize("kind", ["symlink", "folder", "fifo"])
def test_a_slot_path_that_is_not_a_regular_file_is_refused_not_followed(tmp_path, kind):
    folder = slots.slots_dir(tmp_path)
    folder.mkdir(parents=True)
    path = folder / f"{slots._file_name('harness', 'h')}.0"
    outside = tmp_path / "outside"
    outside.write_text("keep")
    if kind == "symlink":
        path.symlink_to(outside)
    elif kind == "folder":
        path.mkdir()
    else:
        os.mkfifo(path)
    with pytest.raises(TcabError) as exc:
        with slots.hold(tmp_path, [("harness", "h", 1)]):
            pass
    assert str(path) in str(exc.value) and "regular file" in str(exc.value)
    assert outside.read_text() == "keep"


def test_a_slots_folder_that_is_a_link_is_refused(tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    slots.slots_dir(tmp_path).parent.mkdir(parents=True)
    slots.slots_dir(tmp_path).symlink_to(elsewhere)
    with pytest.raises(TcabError, match="must be a folder, not a link"):
        with slots.hold(tmp_path, [("harness", "h", 1)]):
            pass
    assert list(elsewhere.iterdir()) == []


def test_names_become_distinct_safe_file_names():
    a, b = slots._file_name("model", "a/b"), slots._file_name("model", "a_b")
    assert a != b and "/" not in a
    assert len(slots._file_name("secret", "X" * 5000)) < 100
