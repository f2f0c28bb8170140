"""Builds: baselines on the host (trusted), submissions in the container."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import wasmtime

import tcab.arena.build as build_module
from tcab.arena.build import build_baseline, build_run
from tcab.arena.engine import sha256_hex
from tcab.arena.resolve import resolve_game
from tcab.catalog import resolve_case
from tcab.errors import ArenaError
from tests.support.arena_corpus import controller_wat
from tests.support.paths import TALLY
from tests.support.run_folders import write_run

REPO = Path(__file__).resolve().parents[2]


def test_baseline_builds_on_the_host_and_is_cached(settings):
    case = resolve_game(settings, "tally")[0]
    first = build_baseline(settings, case, "three")
    assert first.status == "ok" and first.module == settings.build_dir / "wasm" / f"{first.sha256}.wasm"
    assert sha256_hex(first.module.read_bytes()) == first.sha256 and first.size == first.module.stat().st_size
    assert first.row()["source"] == "baseline:tally@v0.1.0/three"
    again = build_baseline(settings, case, "three")
    assert again.sha256 == first.sha256 and again.duration_s == first.duration_s  # from the cache
    broken = build_baseline(settings, case, "broken")
    assert broken.status == "failed" and broken.module is None and "exit code" in broken.log_excerpt
    with pytest.raises(ArenaError, match="unknown baseline"):
        build_baseline(settings, case, "nope")


def _fake_run(settings, run_id: str, wat: str, files: dict[str, str] | None = None):
    case = resolve_game(settings, "tally")[0]
    return write_run(settings.runs_dir, run_id, case, variant="base", tree=TALLY / "workspaces/base",
                     files={"controller.wat": wat, **(files or {})})


def _case(settings):
    return resolve_game(settings, "tally")[0]


def test_build_run_refuses_bad_input(settings, tmp_path):
    run = _fake_run(settings, "r-gone", controller_wat(2))
    shutil.rmtree(run.tree)
    with pytest.raises(ArenaError, match="r-gone has no collected tree"):
        build_run(settings, _case(settings), run)
    # A tree that is a link would copy another host folder into the container.
    run.tree.symlink_to(tmp_path)
    with pytest.raises(ArenaError, match="r-gone has no collected tree"):
        build_run(settings, _case(settings), run)
    # The case handed over must be the run's own, and adversarial.
    other = _fake_run(settings, "r-other", controller_wat(2))
    e2e = resolve_case(REPO / "test-cases", "lights-out")
    with pytest.raises(ArenaError, match="r-other is a run of tally@v0.1.0, not of lights-out@"):
        build_run(settings, e2e, other)


@pytest.mark.podman
@pytest.mark.timeout(600)
def test_build_run_in_the_container(settings, podman_runtime, monkeypatch):
    case = _case(settings)
    run = _fake_run(settings, "r-ok", controller_wat(2))
    ok = build_run(settings, case, run, runtime=podman_runtime, timeout_s=120)
    assert ok.status == "ok", ok.log_excerpt
    assert ok.module.is_file() and ok.image and ok.source == "r-ok"
    assert ok.module.read_bytes()[:4] == b"\0asm" and sha256_hex(ok.module.read_bytes()) == ok.sha256
    wasmtime.Module(wasmtime.Engine(), ok.module.read_bytes())  # a valid module came out
    # Byte for byte what the build left in /work: a payload over many tar blocks, copied by the build.
    payload = bytes(range(256)) * 1200 + b"tail"
    exact = _fake_run(settings, "r-exact", controller_wat(2),
                      {"build.py": "import shutil\nshutil.copy('payload.bin', 'controller.wasm')\n"})
    (exact.tree / "payload.bin").write_bytes(payload)
    copied = build_run(settings, case, exact, runtime=podman_runtime, timeout_s=120)
    assert copied.status == "ok", copied.log_excerpt
    assert copied.module.read_bytes() == payload and copied.size == len(payload)
    assert copied.sha256 == sha256_hex(payload)

    bad = build_run(settings, case, _fake_run(settings, "r-bad", "(module (broken"), runtime=podman_runtime,
                    timeout_s=120)
    assert bad.status == "failed" and bad.module is None and "exit code" in bad.log_excerpt
    slow = _fake_run(settings, "r-slow", controller_wat(2), {"build.py": "import time\ntime.sleep(600)\n"})
    timed = build_run(settings, case, slow, runtime=podman_runtime, timeout_s=3)
    assert timed.status == "timed_out" and timed.module is None and "(limit 3s)" in timed.log_excerpt
    # What the build leaves is hostile: a folder where the module belongs, or a module over the cap.
    folder = _fake_run(settings, "r-dir", controller_wat(2),
                       {"build.py": "import os\nos.makedirs('controller.wasm/x')\n"})
    not_file = build_run(settings, case, folder, runtime=podman_runtime, timeout_s=120)
    assert not_file.status == "failed" and "not a regular file" in not_file.log_excerpt
    monkeypatch.setattr(build_module, "MAX_MODULE_BYTES", 1000)
    big = _fake_run(settings, "r-big", controller_wat(2),
                    {"build.py": "open('controller.wasm', 'wb').write(b'\\0asm' + bytes(2000))\n"})
    over = build_run(settings, case, big, runtime=podman_runtime, timeout_s=120)
    assert over.status == "failed" and "under 1000 bytes" in over.log_excerpt
    for run_id in ("r-ok", "r-exact", "r-bad", "r-slow", "r-dir", "r-big"):
        assert podman_runtime.list_run_containers(f"build-{run_id}") == []


@pytest.mark.podman
def test_build_command_records_the_build(settings):
    import os
    import sqlite3
    import subprocess
    import sys

    _fake_run(settings, "r-cli", controller_wat(3))
    _fake_run(settings, "r-cli-bad", "(module (broken")
    env = {**os.environ, "TCAB_CATALOG": str(settings.catalog_dir), "TCAB_RESULTS": str(settings.results_dir),
           "TCAB_BUILD": str(settings.build_dir), "TCAB_TMP": str(settings.tmp_dir)}

    def tcab(*args):
        return subprocess.run([sys.executable, "-m", "tcab", *args], env=env, capture_output=True, text=True,
                              timeout=300)

    ok = tcab("build", "r-cli", "--json")
    assert ok.returncode == 0, ok.stderr
    data = json.loads(ok.stdout)
    assert data["status"] == "ok" and data["module"].endswith(f"{data['module_sha256']}.wasm")
    bad = tcab("build", "r-cli-bad")
    assert bad.returncode == 1 and "failed" in bad.stderr
    missing = tcab("build", "nope")
    assert missing.returncode == 2 and "run.json" in missing.stderr and "no such run 'nope'" in missing.stderr
    for bad_id in ("../r-cli", ".hidden", "a/b", "x" * 201):
        refused = tcab("build", bad_id)
        assert refused.returncode == 2 and "not a run id" in refused.stderr and "Traceback" not in refused.stderr
    with sqlite3.connect(settings.results_db) as db:
        rows = dict(db.execute("select source, status from builds").fetchall())
    assert rows == {"r-cli": "ok", "r-cli-bad": "failed"}


@pytest.fixture
def new_adversarial_image(podman_runtime, monkeypatch):
    """The adversarial image as a rebuild leaves it: the same tools under a new
    image id and digest (a committed container with one more label), pinned
    with TCAB_CONTAINER_IMAGE_ADVERSARIAL; removed afterwards."""
    import secrets

    from tcab.runtime import resolve_image

    old = podman_runtime.ensure_image(resolve_image("adversarial"), pull=False)
    tag = f"localhost/tcab-test/adversarial-rebuilt:{secrets.token_hex(4)}"
    box = podman_runtime.api.create_container(old.ref, ["true"])
    try:
        repo, _, version = tag.rpartition(":")
        podman_runtime.api.commit(box["Id"], repository=repo, tag=version,
                                  changes=["LABEL org.tcab.test=rebuilt"])
    finally:
        podman_runtime.api.remove_container(box["Id"], force=True)
    try:
        yield old, tag
    finally:
        monkeypatch.delenv("TCAB_CONTAINER_IMAGE_ADVERSARIAL", raising=False)
        podman_runtime.api.remove_image(tag, force=True)


@pytest.mark.podman
@pytest.mark.timeout(600)
def test_a_new_adversarial_image_is_a_new_build(settings, podman_runtime, new_adversarial_image, monkeypatch):
    """The build cache's key holds the image digest (issue 20, defect 2): after
    the adversarial image is rebuilt, the same tree is built again in the new
    image, and the record names the new digest, not the old module's."""
    old, tag = new_adversarial_image
    case = _case(settings)
    run = _fake_run(settings, "r-image", controller_wat(2))
    first = build_run(settings, case, run, runtime=podman_runtime, timeout_s=120)
    assert first.status == "ok" and first.image_digest == old.digest, first.log_excerpt
    again = build_run(settings, case, run, runtime=podman_runtime, timeout_s=120)
    assert again == first  # the same image: the cached build
    monkeypatch.setenv("TCAB_CONTAINER_IMAGE_ADVERSARIAL", tag)
    new = podman_runtime.ensure_image(tag, pull=False)
    assert new.digest != old.digest
    rebuilt = build_run(settings, case, run, runtime=podman_runtime, timeout_s=120)
    assert rebuilt.status == "ok", rebuilt.log_excerpt
    assert rebuilt.image_digest == new.digest and rebuilt.image == tag
    assert rebuilt.duration_s != first.duration_s  # built, not read back from the cache


def _forge_record(settings, **changes):
    [record] = (settings.build_dir / "builds").glob("baseline-tally-*-three.json")
    data = json.loads(record.read_text())
    data.update(changes)
    record.write_text(json.dumps(data))
    return record


BUILD_FORGERIES = {
    "module is a host file": lambda s, tmp: _forge_record(
        s, module=str(_host_wasm(tmp)), sha256=sha256_hex(_host_wasm(tmp).read_bytes())),
    "module links to /dev/zero": lambda s, tmp: _forge_record(s, module="/dev/zero"),
    "record is not an object": lambda s, tmp: _forge_record(s) and next(
        (s.build_dir / "builds").glob("*three.json")).write_text("[1]"),
    "record has unknown keys": lambda s, tmp: _forge_record(s, injected="x"),
    "record is a FIFO": lambda s, tmp: _fifo_at(next((s.build_dir / "builds").glob("*three.json"))),
    "module file replaced": lambda s, tmp: next((s.build_dir / "wasm").glob("*.wasm")).write_bytes(b"\0asm\1\0\0\0"),
    "module is a link out": lambda s, tmp: _link_module(s, tmp),
}


def _host_wasm(tmp: Path) -> Path:
    path = tmp / "host.wasm"
    if not path.exists():
        path.write_bytes(b"\0asm\1\0\0\0")
    return path


def _fifo_at(path: Path) -> None:
    import os

    path.unlink()
    os.mkfifo(path)


def _link_module(settings, tmp: Path) -> None:
    [module] = (settings.build_dir / "wasm").glob("*.wasm")
    shutil.move(module, tmp / "moved.wasm")
    module.symlink_to(tmp / "moved.wasm")


@pytest.mark.timeout(60)
@pytest.mark.parametrize("forgery", list(BUILD_FORGERIES))
def test_a_forged_build_cache_is_built_again(settings, forgery, tmp_path):
    """build/builds/ and build/wasm/ are read back as input: a forged record is never served."""
    case = _case(settings)
    first = build_baseline(settings, case, "three")
    BUILD_FORGERIES[forgery](settings, tmp_path)
    again = build_baseline(settings, case, "three")
    assert again.status == "ok" and again.sha256 == first.sha256
    assert again.module == settings.build_dir / "wasm" / f"{first.sha256}.wasm"
    assert sha256_hex(again.module.read_bytes()) == first.sha256 and not again.module.is_symlink()
