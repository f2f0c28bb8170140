"""Proofs looked for in a run's hostile tree: present, missing, refused.

The PNG is the glint fixture's own image; the WebM clip is recorded by real
Chromium (MediaRecorder over a canvas), so the sniffing is checked against
what a build would really write.
"""

from __future__ import annotations

import base64
import os
from pathlib import Path

import pytest

from tcab.catalog.model import Proof
from tcab.validation.proofs import ProofLimits, collect_proofs, read_proof, sniff
from tests.support.paths import CATALOG_FIXTURES

GLINT = CATALOG_FIXTURES / "original" / "end-to-end" / "easy" / "glint" / "v1.0.0"
PNG = (GLINT / "reference" / "moon.png").read_bytes()
BOARD = Proof("board", "The board", "proof/board.png")
CLIP = Proof("lighting", "Lighting", "proof/lighting.webm")


@pytest.fixture(scope="module")
def webm() -> bytes:
    """A real WebM clip, recorded by Chromium."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium")
        try:
            page = browser.new_page()
            page.set_content("<canvas id=c width=64 height=64></canvas>")
            data = page.evaluate("""async () => {
                const c = document.getElementById('c'), g = c.getContext('2d');
                const rec = new MediaRecorder(c.captureStream(10), {mimeType: 'video/webm'});
                const parts = []; rec.ondataavailable = e => parts.push(e.data);
                const done = new Promise(r => rec.onstop = r);
                rec.start();
                for (let i = 0; i < 5; i++) { g.fillStyle = `rgb(${i * 50},0,0)`; g.fillRect(0, 0, 64, 64);
                                              await new Promise(r => setTimeout(r, 60)); }
                rec.stop(); await done;
                const buf = new Uint8Array(await new Blob(parts).arrayBuffer());
                let s = ''; for (const b of buf) s += String.fromCharCode(b); return btoa(s);
            }""")
        finally:
            browser.close()
    return base64.b64decode(data)


def _tree(tmp_path: Path, files: dict[str, bytes]) -> Path:
    tree = tmp_path / "work"
    (tree / "proof").mkdir(parents=True)
    for rel, data in files.items():
        (tree / rel).parent.mkdir(parents=True, exist_ok=True)
        (tree / rel).write_bytes(data)
    return tree


def test_present_proofs_are_recorded_with_size_and_digest(tmp_path, webm):
    assert PNG.startswith(b"\x89PNG") and sniff(webm[:4096], "video")
    tree = _tree(tmp_path, {"proof/board.png": PNG, "proof/lighting.webm": webm})
    board, clip = collect_proofs((BOARD, CLIP), tree)
    assert (board.status, board.kind, board.size) == ("present", "image", len(PNG))
    assert (clip.status, clip.kind, clip.size) == ("present", "video", len(webm))
    assert board.sha256 and len(board.sha256) == 64
    assert read_proof(tree, CLIP) == (webm, "video/webm")


def test_missing_and_empty_proofs_are_missing(tmp_path):
    tree = _tree(tmp_path, {"proof/lighting.webm": b""})
    board, clip = collect_proofs((BOARD, CLIP), tree)
    assert (board.status, board.detail) == ("missing", "not written")
    assert (clip.status, clip.size, clip.detail) == ("missing", 0, "an empty file")
    assert collect_proofs((BOARD,), tmp_path / "no-tree")[0].status == "missing"
    assert read_proof(tree, BOARD) is None


def test_a_symlink_out_of_the_tree_is_refused_and_never_read(tmp_path):
    secret = tmp_path / "host.png"
    secret.write_bytes(PNG)  # a real PNG outside: following the link would call it present
    tree = _tree(tmp_path, {})
    (tree / "proof" / "board.png").symlink_to(secret)
    (tree / "clips").symlink_to(tmp_path)  # a link on the way to the file
    record, = collect_proofs((BOARD,), tree)
    assert (record.status, record.sha256) == ("refused", None) and "symlink" in record.detail
    via_dir, = collect_proofs((Proof("x", "X", "clips/host.png"),), tree)
    assert via_dir.status == "refused" and "symlink" in via_dir.detail
    assert read_proof(tree, BOARD) is None


def test_wrong_magic_bytes_are_refused(tmp_path, webm):
    html = b"<svg onload=alert(1)></svg>"
    mkv = webm.replace(b"webm", b"mkvv", 1)
    tree = _tree(tmp_path, {"proof/board.png": html, "proof/lighting.webm": PNG})
    board, clip = collect_proofs((BOARD, CLIP), tree)
    assert board.status == clip.status == "refused"
    assert "PNG signature" in board.detail and "WebM" in clip.detail
    (tree / "proof" / "lighting.webm").write_bytes(mkv)
    assert collect_proofs((CLIP,), tree)[0].status == "refused"


def test_a_huge_file_a_folder_and_a_fifo_are_refused(tmp_path):
    tree = _tree(tmp_path, {})
    with open(tree / "proof" / "board.png", "wb") as fh:
        fh.write(PNG)
        fh.truncate(5 * 1024 * 1024)  # sparse: big without writing it
    record, = collect_proofs((BOARD,), tree, ProofLimits(max_bytes=1024 * 1024))
    assert (record.status, record.size) == ("refused", 5 * 1024 * 1024) and "larger than" in record.detail
    assert collect_proofs((BOARD,), tree)[0].status == "present"  # under the default cap
    (tree / "proof" / "board.png").unlink()
    (tree / "proof" / "board.png").mkdir()
    assert collect_proofs((BOARD,), tree)[0].detail == "a folder"
    os.rmdir(tree / "proof" / "board.png")
    os.mkfifo(tree / "proof" / "board.png")  # opening it must not block
    assert collect_proofs((BOARD,), tree)[0].detail == "not a regular file"


@pytest.mark.parametrize("bad", [0, -1, float("nan"), float("inf"), "big", True])
def test_limits_must_be_finite_and_positive(bad):
    with pytest.raises(ValueError, match="ProofLimits.max_bytes"):
        ProofLimits(max_bytes=bad)


@pytest.mark.timeout(280)
def test_validation_records_proofs_in_validation_json_and_results_db(tmp_path, podman_runtime):
    """A glint run built for real (Podman, Chromium): proofs ride with the validation."""
    import json

    from tcab.catalog import resolve_case
    from tcab.results import open_db, record_validation
    from tcab.validation import validate_run
    from tests.support.run_folders import write_run
    from tests.support.settings import tmp_settings

    settings = tmp_settings(tmp_path, catalog=CATALOG_FIXTURES / "original")
    case = resolve_case(settings.catalog_dir, "glint", "v1.0.0")
    run = write_run(settings.runs_dir, "glint-proofs", case, variant="night", tree=GLINT / "solutions" / "common")
    (run.tree / "proof").mkdir()
    (run.tree / "proof" / "board.png").write_bytes(PNG)
    (run.tree / "proof" / "moon.png").symlink_to(GLINT / "reference" / "moon.png")
    record = validate_run(settings, case, run, runtime=podman_runtime, settle_s=0.3)
    assert record.status == "passed", record.detail  # proofs never change a status
    expected = [("board", "present"), ("lighting", "missing"), ("moon", "refused")]
    assert [(p.id, p.status) for p in record.proofs] == expected
    doc = json.loads((run.run_dir / "validation" / "validation.json").read_text())
    assert [(p["id"], p["status"]) for p in doc["proofs"]] == expected
    db = open_db(settings.results_db)
    try:
        record_validation(db, record.row())
        assert db.execute("SELECT proof_id, status FROM proofs ORDER BY seq").fetchall() == expected
    finally:
        db.close()
