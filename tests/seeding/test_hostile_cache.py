"""A restored ``build/`` is input: forged seed-cache entries and answers.

CI may restore ``build/`` from a cache another job wrote. Every file read
back from the seed cache is checked as a run's own output is: regular files
(a FIFO never blocks, ``/dev/zero`` is never read), no links out, bounded
sizes, contents validated (the commit is the repository's). A forged entry
is not served: the command answers in full and stores a good entry again.
Each command runs in a subprocess with a short timeout.
"""

from __future__ import annotations

import json
import os
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "test-cases/end-to-end/easy/lights-out"
QUICK_S = 40
SECRET = "root:$6$not-really-the-host-shadow"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    shutil.copytree(SAMPLE, tmp_path / "catalog/end-to-end/easy/lights-out", symlinks=True)
    host = tmp_path / "host"
    host.mkdir()
    (host / "shadow").write_text(SECRET)
    (host / "folder").mkdir()
    (host / "folder" / "private-key").write_text(SECRET)
    return tmp_path


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))  # /dev/zero read whole fails loudly


def tcab(root: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO), "TCAB_CATALOG": str(root / "catalog"),
           "TCAB_BUILD": str(root / "build"), "TCAB_TMP": str(root / "tmp"), "TCAB_RESULTS": str(root / "results")}
    try:
        return subprocess.run([sys.executable, "-m", "tcab", *args], env=env, cwd=root, capture_output=True,
                              text=True, timeout=QUICK_S, preexec_fn=_limit_memory)
    except subprocess.TimeoutExpired:
        pytest.fail(f"tcab {' '.join(args)}: still running after {QUICK_S} s (blocked on a forged cache file)")


def _entry(root: Path) -> Path:
    [entry] = (root / "build/seed-cache").glob("*/*/classic")
    return entry


def _answer(root: Path) -> Path:
    [answer] = (root / "build/seed-cache").glob("*/answers/*.json")
    return answer


def _replace(path: Path, how) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink()
    how(path)


FORGERIES = {
    "answer is a FIFO": lambda root: _replace(_answer(root), os.mkfifo),
    "answer links to /dev/zero": lambda root: _replace(_answer(root), lambda p: p.symlink_to("/dev/zero")),
    "commit links to a host file": lambda root: _replace(_entry(root) / "commit",
                                                         lambda p: p.symlink_to(root / "host/shadow")),
    "commit is not a commit id": lambda root: (_entry(root) / "commit").write_text(SECRET),
    "commit is another commit": lambda root: (_entry(root) / "commit").write_text("0" * 40),
    "commit is a FIFO": lambda root: _replace(_entry(root) / "commit", os.mkfifo),
    "prompt links to /dev/zero": lambda root: _replace(_entry(root) / "prompt.txt",
                                                       lambda p: p.symlink_to("/dev/zero")),
    "files.json links to /dev/zero": lambda root: _replace(_entry(root) / "files.json",
                                                           lambda p: p.symlink_to("/dev/zero")),
    "files.json is not a list of paths": lambda root: (_entry(root) / "files.json").write_text('{"a": 1}'),
    "repository links to a host folder": lambda root: _replace(_entry(root) / "repo",
                                                               lambda p: p.symlink_to(root / "host/folder")),
    "repository holds a link out": lambda root: (_entry(root) / "repo/leak").symlink_to(root / "host/shadow"),
    "repository holds a FIFO": lambda root: os.mkfifo(_entry(root) / "repo/pipe"),
    "repository holds a link to /dev/zero": lambda root: (_entry(root) / "repo/zero").symlink_to("/dev/zero"),
    "repository holds a huge sparse file": lambda root: os.truncate(_entry(root) / "repo/README.md", 3 << 30),
    "repository git config runs a command": lambda root: (_entry(root) / "repo/.git/config").write_text(
        "[core]\n\tfsmonitor = touch /tmp/tcab-pwned\n"),
    "repository git hook": lambda root: (_entry(root) / "repo/.git/hooks/post-checkout").write_text("#!/bin/sh\n"),
    "entry links to a host folder": lambda root: _replace(_entry(root), lambda p: p.symlink_to(root / "host/folder")),
}


@pytest.mark.timeout(4 * QUICK_S + 30)
@pytest.mark.parametrize("forgery", list(FORGERIES))
def test_a_forged_seed_cache_is_never_served(project, forgery):
    first = tcab(project, "seed", "lights-out", "--json")
    assert first.returncode == 0, first.stderr
    good = json.loads(first.stdout)
    prompt = tcab(project, "prompt", "lights-out")
    assert prompt.returncode == 0, prompt.stderr
    FORGERIES[forgery](project)

    again = tcab(project, "prompt", "lights-out")
    assert again.returncode == 0 and again.stdout == prompt.stdout, again.stderr[-2000:]
    seeded = tcab(project, "seed", "lights-out", "--json")
    assert seeded.returncode == 0, seeded.stderr[-2000:]
    assert SECRET not in seeded.stdout + seeded.stderr
    result = json.loads(seeded.stdout)
    assert result == good  # the real commit and files, never the forged ones
    copied = Path(result["path"])
    names = {p.name for p in copied.rglob("*")}
    assert not names & {"private-key", "leak", "pipe", "zero", "post-checkout"}, names
    assert (copied / "README.md").stat().st_size < 1 << 20
    assert "fsmonitor" not in (copied / ".git/config").read_text()
    # The answer and the entry stored again are whole: the next commands are served from them.
    answer = _answer(project)
    assert answer.is_file() and not answer.is_symlink() and json.loads(answer.read_text())["prompt"] == prompt.stdout
    third = tcab(project, "seed", "lights-out", "--json")
    assert third.returncode == 0 and json.loads(third.stdout) == good, third.stderr
