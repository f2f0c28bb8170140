"""The image's tool versions are probed once per image id, then read back
(a real run on Podman), and a kept file that is not the probe's is a miss."""

from __future__ import annotations

import json
import os

import pytest

from tcab.runs import RunOptions, execute_run
from tcab.runs.environments import FOLDER, KEYS, MAX_FILE_BYTES, load_environment, store_environment

IMAGE_ID = "sha256:" + "ab" * 32
REAL = {"os": "Debian GNU/Linux 12 (bookworm)", "node": "v24.1.0", "npm": "11.0.0", "python": "3.11.2",
        "pip": None}


def _run(settings, case, harness, runtime):
    record = execute_run(settings, case, case.variant(None), harness, RunOptions(runtime=runtime))
    assert record.status == "completed", record.status_detail
    return record


def test_the_second_run_of_an_image_reads_the_kept_versions(settings, e2e_case, scripted, podman_runtime):
    harness = scripted("exit 0")
    first = _run(settings, e2e_case, harness, podman_runtime)
    kept = settings.build_dir / FOLDER / f"{first.image_id.removeprefix('sha256:')}.json"
    assert json.loads(kept.read_text()) == first.environment
    assert first.environment["os"].startswith("Debian") and first.environment["node"], first.environment

    # What is kept is what the next run of this image records: no probe ran.
    kept.write_text(json.dumps({**first.environment, "os": "kept-os"}))
    second = _run(settings, e2e_case, harness, podman_runtime)
    assert second.image_id == first.image_id
    assert second.environment == {**first.environment, "os": "kept-os"}

    # A kept file that is not the probe's shape is a miss: probed and written again.
    kept.write_text(json.dumps({"os": ["not", "a", "string"]}))
    third = _run(settings, e2e_case, harness, podman_runtime)
    assert third.environment == first.environment
    assert json.loads(kept.read_text()) == first.environment


def test_a_kept_file_is_read_only_when_it_is_the_probes(tmp_path):
    store_environment(tmp_path, IMAGE_ID, REAL)
    assert load_environment(tmp_path, IMAGE_ID) == REAL
    assert load_environment(tmp_path, IMAGE_ID.removeprefix("sha256:")) == REAL
    path = tmp_path / f"{'ab' * 32}.json"
    for bad in ({**REAL, "extra": "x"}, {k: v for k, v in REAL.items() if k != "pip"},
                {**REAL, "os": ""}, {**REAL, "os": "x" * 101}, {**REAL, "node": 24}, ["os"]):
        path.write_text(json.dumps(bad))
        assert load_environment(tmp_path, IMAGE_ID) is None, bad
    path.write_text(json.dumps({**REAL, "os": " " * MAX_FILE_BYTES}))
    assert load_environment(tmp_path, IMAGE_ID) is None
    path.write_bytes(b"\xff\x00 not json")
    assert load_environment(tmp_path, IMAGE_ID) is None


def test_an_image_id_that_is_not_a_digest_names_no_file(tmp_path):
    for image_id in (None, "", "../../etc/passwd", "sha256:" + "AB" * 32, "sha256:" + "ab" * 31, "ab" * 32 + "/x"):
        store_environment(tmp_path / "cache", image_id, REAL)
        assert load_environment(tmp_path / "cache", image_id) is None
    assert not (tmp_path / "cache").exists()


@pytest.mark.timeout(20)
def test_a_kept_file_that_is_a_fifo_or_a_link_is_a_miss_not_a_hang(tmp_path):
    # A restored build/ is input (issue 21 item 8): a FIFO must not block the run, a link must not be followed.
    image = "sha256:" + "c" * 64
    path = tmp_path / f"{'c' * 64}.json"
    os.mkfifo(path)
    assert load_environment(tmp_path, image) is None
    path.unlink()
    target = tmp_path / "elsewhere.json"
    target.write_text(json.dumps({k: "1" for k in KEYS}))
    path.symlink_to(target)
    assert load_environment(tmp_path, image) is None
