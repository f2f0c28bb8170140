"""A Playwright call that outlives the Chromium the watchdog killed is ended
by killing Playwright's driver (tcab.browser.driver), and the next check
gets a fresh driver.

Playwright left ``new_page`` pending for ever when Chromium died while the
page was being set up (a CI run hung 240 s there). That race is rare, so the
test builds the same situation deterministically with real components: the
"Chromium" it hands tcab is a wrapper that starts the real one in a session
of its own, so the watchdog's kill of the group reaches the wrapper only and
the DevTools connection stays open but silent, and the page spins on a key
press, so ``keyboard.press`` never returns by itself."""

from __future__ import annotations

import os
import signal
import stat
import threading
import time
from pathlib import Path

import pytest
from PIL import Image

import tcab.browser.chromium as chromium
from tcab.browser.chromium import Watchdog
from tcab.browser.driver import PlaywrightDriver, _driver_children
from tcab.validation.checks import CheckLimits, CheckSpec, Key, run_checks

SPIN_ON_KEY = ("<!doctype html><body style='margin:0;background:#204080'>"
               "<script>addEventListener('keydown', () => { for (;;) {} });</script>")


@pytest.fixture
def escaped_chromium(tmp_path: Path, monkeypatch) -> Path:
    """A Chromium the watchdog cannot kill; its pids land in the returned file
    and every one is killed when the test ends."""
    pids = tmp_path / "escaped-pids"
    wrapper = tmp_path / "escaped-chromium"
    wrapper.write_text(f"#!/bin/sh\nsetsid {chromium.CHROMIUM} \"$@\" </dev/null >/dev/null 2>&1 &\n"
                       f"echo $! >> {pids}\nwait\n")
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setattr(chromium, "CHROMIUM", str(wrapper))
    yield pids
    for line in pids.read_text().split() if pids.exists() else ():
        try:
            os.killpg(int(line), signal.SIGKILL)
        except ProcessLookupError:
            pass


@pytest.mark.timeout(120)
def test_a_call_chromium_death_does_not_end_is_ended_with_the_driver(tmp_path: Path, escaped_chromium) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text(SPIN_ON_KEY)
    reference = tmp_path / "blue.png"
    Image.new("RGB", (320, 240), (32, 64, 128)).save(reference)
    limits = CheckLimits(settle_s=0.2, action_timeout_s=2, check_timeout_s=8)

    started = time.monotonic()
    stuck, after = run_checks(site, [CheckSpec("stuck", reference, (Key("p"),)), CheckSpec("after", reference)],
                              tmp_path / "out", limits=limits)
    took = time.monotonic() - started
    print(stuck, after, round(took, 1))
    assert stuck.error == "actions[1] (key \"p\"): did not finish within 2s; Chromium was killed"
    # The action's bound, the grace the driver gets and a second check; never the test's timeout.
    assert took < 2 + chromium.STUCK_GRACE_S + 30
    assert after.error is None and after.similarity > 0.99  # a fresh driver drove the next check
    assert len(escaped_chromium.read_text().split()) == 2
    assert not _driver_children()  # no driver left behind


@pytest.mark.timeout(60)
def test_the_watchdog_calls_on_stuck_only_when_its_owner_does_not_come_back() -> None:
    def sleeper() -> int:
        return os.spawnlp(os.P_NOWAIT, "setsid", "setsid", "sleep", "60")

    called = threading.Event()
    slow = Watchdog(sleeper(), wall_time_s=0.2, max_memory_bytes=2**40, on_stuck=called.set)
    slow.start()
    assert called.wait(chromium.STUCK_GRACE_S + 5) and slow.reason == "timeout"
    slow.stop()

    called.clear()
    prompt = Watchdog(sleeper(), wall_time_s=0.2, max_memory_bytes=2**40, on_stuck=called.set)
    prompt.start()
    while prompt.reason is None:
        time.sleep(0.05)
    prompt.stop()  # the owner came back within the grace
    assert not called.is_set()


@pytest.mark.timeout(60)
def test_the_driver_is_found_killed_and_started_again() -> None:
    with PlaywrightDriver() as driver:
        first = driver.playwright()
        assert len(_driver_children()) == 1
        driver.kill()
        assert driver.killed
        second = driver.playwright()
        assert second is not first and not driver.killed
        assert len(_driver_children()) == 1
    assert not _driver_children()
