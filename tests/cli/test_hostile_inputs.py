"""Files a user names that are not files: FIFOs, devices, links to them.

Every file tcab reads by a name it is given (a plan, a harness definition, a
replay, a renderer page) is opened without blocking and must be a regular
file of bounded size (``tcab.reading``): a FIFO must not hang the command,
``/dev/zero`` must not be read. Each command runs in a subprocess with a
short timeout, so a regression fails here instead of hanging the suite.
"""

from __future__ import annotations

import os
import resource
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tcab.arena.replay import encode_replay
from tests.support.paths import ARENA_CATALOG, REPO

# A command that reads what it must not blocks or reads gigabytes; either is
# over this many seconds, far over what a refusal takes.
QUICK_S = 30


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("TCAB_")}
    return {**base, "PYTHONPATH": str(REPO), "TCAB_CATALOG": str(ARENA_CATALOG),
            "TCAB_HARNESSES": str(tmp_path / "harnesses"), "TCAB_RESULTS": str(tmp_path / "results"),
            "TCAB_BUILD": str(tmp_path / "build"), "TCAB_TMP": str(tmp_path / "tmp"), **extra}


def _limit_memory() -> None:
    # 1 GiB of address space: reading /dev/zero into memory fails loudly instead of swapping.
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def _run(tmp_path: Path, *args: str, module: str = "tcab", cwd: Path | None = None,
         **env: str) -> subprocess.CompletedProcess:
    try:
        return subprocess.run([sys.executable, "-m", module, *args], env=_env(tmp_path, **env),
                              cwd=cwd or tmp_path, capture_output=True, text=True, timeout=QUICK_S,
                              preexec_fn=_limit_memory)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{module} {' '.join(args)}: still running after {QUICK_S} s (blocked on a named file)")


def _refused(proc: subprocess.CompletedProcess, name: str | Path) -> None:
    out = proc.stdout + proc.stderr
    assert proc.returncode == 2, out[-2000:]
    assert "Traceback" not in out and "MemoryError" not in out, out[-2000:]
    assert str(name) in proc.stderr and "not a regular file" in proc.stderr, proc.stderr[-2000:]


def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def _replay(path: Path) -> Path:
    doc = {"format": "tcab-replay/1",
           "header": {"case": "tally", "version": "v0.1.0", "variant": "classic", "seats": ["a", "b"],
                      "params": {}, "seed": 1, "timestep_ms": 100, "max_ticks": 10},
           "ticks": [], "forfeits": [], "result": {}, "final_digest": "0" * 64}
    path.write_bytes(encode_replay(doc))
    return path


@pytest.mark.timeout(QUICK_S + 30)
def test_a_plan_that_is_a_fifo_or_a_device_is_refused(tmp_path):
    shutil.copyfile(REPO / "dodo.py", tmp_path / "dodo.py")
    fifo = _fifo(tmp_path / "plan.yaml")
    _refused(_run(tmp_path, "list", f"plan={fifo}", module="doit"), fifo)
    _refused(_run(tmp_path, "list", "plan=/dev/zero", module="doit"), "/dev/zero")
    (tmp_path / "zero.yaml").symlink_to("/dev/zero")
    _refused(_run(tmp_path, "list", module="doit", TCAB_PLAN=str(tmp_path / "zero.yaml")), "zero.yaml")


@pytest.mark.timeout(3 * QUICK_S + 30)
def test_a_replay_that_is_a_fifo_is_refused_by_verify_and_export(tmp_path):
    fifo = _fifo(tmp_path / "m.json.gz")
    _refused(_run(tmp_path, "replay", "verify", str(fifo)), fifo)
    _refused(_run(tmp_path, "replay", "export", str(fifo), str(tmp_path / "out.html")), fifo)
    assert not (tmp_path / "out.html").exists()
    rules = _fifo(tmp_path / "rules.py")
    _refused(_run(tmp_path, "replay", "verify", str(_replay(tmp_path / "ok.json.gz")), "--rules", str(rules)), rules)


@pytest.mark.timeout(3 * QUICK_S + 30)
def test_a_renderer_that_is_a_fifo_or_a_device_is_refused(tmp_path):
    replay = _replay(tmp_path / "m.json.gz")
    fifo = _fifo(tmp_path / "renderer.html")
    out = tmp_path / "out.html"
    _refused(_run(tmp_path, "replay", "export", str(replay), str(out), "--renderer", str(fifo)), fifo)
    _refused(_run(tmp_path, "replay", "export", str(replay), str(out), "--renderer", "/dev/zero"), "/dev/zero")
    assert not out.exists()
    # The control: a real renderer page makes the page.
    page = tmp_path / "page.html"
    page.write_text("<!doctype html><title>r</title><body></body>")
    proc = _run(tmp_path, "replay", "export", str(replay), str(out), "--renderer", str(page))
    assert proc.returncode == 0, proc.stderr
    assert out.is_file()


@pytest.mark.timeout(4 * QUICK_S + 30)
def test_a_harness_definition_that_is_a_fifo_or_a_device_is_refused(tmp_path):
    folder = tmp_path / "harnesses"
    folder.mkdir()
    fifo = _fifo(folder / "pipe.toml")
    _refused(_run(tmp_path, "harnesses"), fifo)
    _refused(_run(tmp_path, "run", "tally", "--harness", "pipe"), fifo)
    fifo.unlink()
    (folder / "zero.toml").symlink_to("/dev/zero")
    _refused(_run(tmp_path, "harnesses"), folder / "zero.toml")
    _refused(_run(tmp_path, "run", "tally", "--harness", "zero"), folder / "zero.toml")


def _device(tmp_path: Path) -> Path:
    """A character device of our own (as root: /dev/full's numbers), else a FIFO: never the host's."""
    path = tmp_path / "full"
    if os.geteuid() == 0:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    else:
        os.mkfifo(path)
    return path


@pytest.mark.timeout(3 * QUICK_S + 30)
def test_replay_export_never_replaces_a_device_or_its_own_input(tmp_path):
    replay = _replay(tmp_path / "m.json.gz")
    page = tmp_path / "page.html"
    page.write_text("<!doctype html><title>r</title><body></body>")
    device = _device(tmp_path)
    proc = _run(tmp_path, "replay", "export", str(replay), str(device), "--renderer", str(page))
    assert proc.returncode == 2 and str(device) in proc.stderr and "not a regular file" in proc.stderr, proc.stderr
    assert stat.S_ISCHR(os.lstat(device).st_mode) or stat.S_ISFIFO(os.lstat(device).st_mode)
    before = replay.read_bytes()
    (tmp_path / "alias.gz").symlink_to(replay)
    os.link(replay, tmp_path / "hard.gz")
    for out in (replay, tmp_path / "alias.gz", tmp_path / "hard.gz", page):
        proc = _run(tmp_path, "replay", "export", str(replay), str(out), "--renderer", str(page))
        assert proc.returncode == 2 and "is also an input" in proc.stderr, proc.stderr
    assert replay.read_bytes() == before and page.read_text().startswith("<!doctype html><title>r")
    # "-" is stdout: the page, nothing written to a file named "-".
    proc = _run(tmp_path, "replay", "export", str(replay), "-", "--renderer", str(page))
    assert proc.returncode == 0, proc.stderr
    assert "<title>r</title>" in proc.stdout and "data-tcab-replay" in proc.stdout
    assert not (tmp_path / "-").exists()


@pytest.mark.timeout(120)
def test_match_replay_never_replaces_a_device(tmp_path):
    device = _device(tmp_path)
    proc = subprocess.run([sys.executable, "-m", "tcab", "match", "tally", "baseline:one", "baseline:three",
                           "--replay", str(device)], env=_env(tmp_path), cwd=tmp_path, capture_output=True,
                          text=True, timeout=100)
    assert proc.returncode == 2 and str(device) in proc.stderr and "not a regular file" in proc.stderr, proc.stderr
    assert stat.S_ISCHR(os.lstat(device).st_mode) or stat.S_ISFIFO(os.lstat(device).st_mode)
