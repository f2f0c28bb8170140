"""``tcab-blend`` in real containers of the Blender image (issue 23, item 3
and bad input): the reference build exports a skinned, animated glb and the
preview; a build.py that loops, fills the disk or opens a socket is bounded
in its container and reported with its exit code."""

from __future__ import annotations

import json
import time

import pytest

from tcab.blender import glb, runner
from tcab.blender.render import render
from tcab.runtime import resolve_image
from tcab.runtime.base import ExecOptions
from tcab.runtime.build import BuildLimits, build_in_container
from tests.blender.support import (
    REFERENCE_BUILD,
    TIN_SCOUT,
    TRIANGLE_BIN,
    large_triangles_glb,
    load,
    make_glb,
    triangle_doc,
)


def _run(rt, tmp_path, script: str | bytes, *, timeout: int = 120, steps=None):
    """tcab-blend on ``script`` in a fresh offline container; the box stays open inside the block."""
    case = load(TIN_SCOUT)
    work = tmp_path / "work"
    work.mkdir()
    (work / "build.py").write_bytes(script.encode() if isinstance(script, str) else script)
    (work / "blender.config.json").write_bytes(case.section.config(timeout))
    image = rt.ensure_image(resolve_image("blender-character"), pull=False)
    steps = steps or [("tcab-blend", "tcab-blend; echo exit=$?")]
    return build_in_container(rt, image, work, steps, name="blend-test",
                              limits=BuildLimits(timeout_s=300, memory_bytes=2 << 30), offline=True)


def test_help_is_the_contract(blender_runtime, tmp_path) -> None:
    with _run(blender_runtime, tmp_path, "", steps=[("help", "tcab-blend --help")]) as box:
        assert box.ok
        out = box.steps[0].result.output
    assert "blender --background --python build.py -- blender.config.json" in out
    assert "Exit codes: 0 built" in out


def test_the_reference_build_exports_the_character_and_its_preview(blender_runtime, tmp_path) -> None:
    with _run(blender_runtime, tmp_path, REFERENCE_BUILD.read_bytes()) as box:
        out = box.steps[0].result.output
        data = box.read_file("character.glb", glb.MAX_GLB_BYTES)
        preview = box.read_file("model.png", 8 << 20)
    assert "exit=0" in out and "tcab-blend: wrote character.glb and model.png" in out, out
    assert data is not None and preview is not None
    summary = glb.summary(glb.parse(data))
    assert summary.skins == 1 and set(summary.animation_names) == {"idle", "run", "fire", "death"}
    # The container's renderer (Debian's numpy) and the host's draw the same bytes.
    assert render(glb.triangles(glb.parse(data)), "#1d2330") == preview


def test_a_build_that_loops_forever_is_ended_at_the_timeout(blender_runtime, tmp_path) -> None:
    start = time.perf_counter()
    with _run(blender_runtime, tmp_path, "while True:\n    pass\n", timeout=5) as box:
        out = box.steps[0].result.output
        ps = box.rt.exec(box.container, ["sh", "-c", "ps -e -o comm= | grep -c blender || true"],
                         ExecOptions(timeout_s=30))
    assert "exit=3" in out and "Blender ended after 5 s" in out, out
    assert ps.stdout.strip() == "0"  # the whole process group is gone
    assert time.perf_counter() - start < 120


def test_a_build_that_fills_the_disk_stops_at_the_file_bound(blender_runtime, tmp_path) -> None:
    script = "f = open('fill.bin', 'wb')\nchunk = b'x' * (1 << 20)\nwhile True:\n    f.write(chunk)\n"
    with _run(blender_runtime, tmp_path, script, timeout=60) as box:
        out = box.steps[0].result.output
        size = box.rt.exec(box.container, ["stat", "-c", "%s", "/work/fill.bin"], ExecOptions(timeout_s=30))
    assert "exit=2" in out, out
    assert int(size.stdout) <= 512 << 20


def test_a_build_that_opens_sockets_reaches_nothing(blender_runtime, tmp_path) -> None:
    script = ("import socket, json\nresults = []\n"
              "for host, port in [('1.1.1.1', 53), ('10.88.0.1', 22), ('deb.debian.org', 80)]:\n"
              "    try:\n        socket.create_connection((host, port), timeout=3).close()\n"
              "        results.append('connected')\n"
              "    except OSError as exc:\n        results.append(type(exc).__name__)\n"
              "open('net.json', 'w').write(json.dumps(results))\nraise SystemExit(1)\n")
    with _run(blender_runtime, tmp_path, script, timeout=60) as box:
        out = box.steps[0].result.output
        results = json.loads(box.read_file("net.json", 4096) or b"null")
    assert "exit=2" in out
    assert results is not None and "connected" not in results, results


def test_a_build_that_never_exports_is_exit_4(blender_runtime, tmp_path) -> None:
    with _run(blender_runtime, tmp_path, "print('built nothing')\n") as box:
        out = box.steps[0].result.output
    assert "exit=4" in out and "character.glb was not written" in out


@pytest.mark.parametrize("bad", ["{", json.dumps({"outputs": {"model": "/etc/x", "preview": "p.png",
                                                            "script": "build.py"}})])
def test_a_bad_config_is_exit_1(blender_runtime, tmp_path, bad) -> None:
    steps = [("bad", f"printf '%s' '{bad}' > blender.config.json; tcab-blend; echo exit=$?")]
    with _run(blender_runtime, tmp_path, "", steps=steps) as box:
        out = box.steps[0].result.output
    assert "exit=1" in out and "blender.config.json" in out




def _main_on_host(tmp_path, monkeypatch, exported: bytes | None):
    """tcab-blend's main in ``tmp_path`` with Blender stood in for: the
    stand-in "exports" ``exported`` (None: Blender must not be run)."""
    (tmp_path / "build.py").write_text("")
    (tmp_path / "blender.config.json").write_bytes(load(TIN_SCOUT).section.config(5))

    def blender(config_path, script, timeout):
        assert exported is not None, "Blender was run"
        (tmp_path / "character.glb").write_bytes(exported)
        return 0
    monkeypatch.setattr(runner, "run_blender", blender)
    monkeypatch.chdir(tmp_path)
    return runner.main([])


def test_a_glb_too_costly_to_preview_is_exit_4_naming_the_bound(tmp_path, monkeypatch, capsys) -> None:
    assert _main_on_host(tmp_path, monkeypatch, large_triangles_glb(5_000)) == 4
    assert "MAX_RASTER_PIXELS" in capsys.readouterr().err
    assert not (tmp_path / "model.png").exists()


def test_a_malformed_glb_is_exit_4_naming_the_part(tmp_path, monkeypatch, capsys) -> None:
    doc = triangle_doc()
    doc["meshes"][0]["primitives"][0]["attributes"] = [0]
    assert _main_on_host(tmp_path, monkeypatch, make_glb(doc, TRIANGLE_BIN)) == 4
    assert "meshes[0].primitives[0].attributes: expected an object" in capsys.readouterr().err


@pytest.mark.parametrize("output", ["character.glb", "model.png"])
def test_a_directory_at_an_output_path_is_exit_1_naming_it(tmp_path, monkeypatch, capsys, output) -> None:
    """A stale output is removed before Blender runs; a directory there is
    the workspace's to clear, not tcab-blend's (nothing in it is touched)."""
    (tmp_path / output).mkdir()
    (tmp_path / output / "keep").write_text("mine")
    assert _main_on_host(tmp_path, monkeypatch, None) == 1
    assert f"{output}: a directory is in the way of an output" in capsys.readouterr().err
    assert (tmp_path / output / "keep").read_text() == "mine"


def test_stale_outputs_and_links_are_removed_never_followed(tmp_path, monkeypatch) -> None:
    (tmp_path / "outside.png").write_bytes(b"not ours")
    (tmp_path / "model.png").symlink_to(tmp_path / "outside.png")
    (tmp_path / "character.glb").write_bytes(b"stale")
    assert _main_on_host(tmp_path, monkeypatch, make_glb(triangle_doc(), TRIANGLE_BIN)) == 0
    assert (tmp_path / "outside.png").read_bytes() == b"not ours"
    assert not (tmp_path / "model.png").is_symlink() and (tmp_path / "model.png").read_bytes()[:4] == b"\x89PNG"


def test_tcab_blend_notes_the_gaps_scoring_flags(tmp_path, monkeypatch, capsys) -> None:
    """One contract check: the model hears from tcab-blend what scoring will
    flag (a required animation missing, a caller joint untagged), and a
    config edited into odd shapes is read as far as it goes, never a traceback."""
    from tcab.testtypes.asset_blender import contract_gaps

    static = make_glb(triangle_doc(), TRIANGLE_BIN)
    assert _main_on_host(tmp_path, monkeypatch, static) == 0
    notes = [line.removeprefix("tcab-blend: note: ") for line in capsys.readouterr().out.splitlines()
             if line.startswith("tcab-blend: note: ")]
    assert notes == contract_gaps(glb.summary(glb.parse(static)), load(TIN_SCOUT).section)
    assert "caller joint 'aim_pitch': no node's extras.tcab_joint names it" in notes
    config = json.loads((tmp_path / "blender.config.json").read_bytes())
    (tmp_path / "blender.config.json").write_text(json.dumps({**config, "animations": 7, "joints": [3, {}]}))
    monkeypatch.setattr(runner, "run_blender", lambda *a: (tmp_path / "character.glb").write_bytes(static) and 0)
    assert runner.main([]) == 0
    assert "note: no skin" in capsys.readouterr().out
