"""Watching a voxel run (issue 23, item 6): each ``render`` of the real
voxel tools streams its PNG and its mesh to the run's listener; the mesh is
bounded (length, glb header) and kept with its frame; the live page serves
it and turns it with three.js (headless Chromium), nothing from the network."""

from __future__ import annotations

import http.client
import json
import struct

import pytest

from tcab.catalog import load_version
from tcab.catalog.testtype import LiveEndpoint
from tcab.seeding import seed_repository
from tcab.testtypes.asset_voxel_seed import write_voxel_live
from tcab.voxel.cli import main_anim, main_voxel
from tcab.watch import Watch
from tcab.watch.limits import MAX_MESH_BYTES
from tcab.web3d import THREE
from tests.support.paths import REPO
from tests.watch.wire import header, png, send, wait_for


def _get(port: int, path: str) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    conn.request("GET", path, headers={"Host": f"127.0.0.1:{port}"})
    return conn.getresponse()


@pytest.fixture
def watched():
    watch = Watch()
    url = watch.start_page()
    run = watch.listener("127.0.0.1", "run-v")
    run._listener.start()
    yield watch, url, run
    run.close()
    watch.close()


def _workspace(tmp_path, run, slug, difficulty="easy"):
    case, _ = load_version(REPO / f"test-cases/asset-generation/{difficulty}/{slug}/v1.0.0")
    ws = tmp_path / slug
    seed_repository(case, case.variant(), ws)
    host, port = run.address
    write_voxel_live(case.section, case.section.volume_for(case.variant()), ws,
                     LiveEndpoint(f"http://{host}:{port}/frame", run.live.token))
    return ws


def test_each_render_streams_its_png_and_mesh(watched, tmp_path, monkeypatch) -> None:
    watch, _, run = watched
    ws = _workspace(tmp_path, run, "valve-wheel")
    monkeypatch.chdir(ws)
    assert main_voxel(["fill-box", "--x0", "2", "--y0", "0", "--z0", "2", "--x1", "9", "--y1", "4", "--z1", "9",
                       "--color", "#808890"]) == 0
    assert main_voxel(["render"]) == 0
    wait_for(lambda: watch.board.accepted == 1)
    [shown] = json.loads(_get(watch.page.port, "/state").read())["frames"]
    assert shown["mesh"] is True and shown["op"] == "render" and shown["count"] == 1
    mesh = _get(watch.page.port, f"/meshes/{shown['seq']}.glb")
    assert mesh.status == 200 and mesh.getheader("Content-Security-Policy") == "sandbox"
    assert mesh.read() == (ws / "mesh.glb").read_bytes()
    assert _get(watch.page.port, f"/frames/{shown['seq']}.png").read() == (ws / "model.png").read_bytes()
    ws = _workspace(tmp_path, run, "beacon-lamp")
    monkeypatch.chdir(ws)
    for args in (["define-part", "--name", "post"], ["define-part", "--name", "head", "--parent", "post"],
                 ["fill-box", "--part", "post", "--x0", "7", "--y0", "0", "--z0", "7", "--x1", "9", "--y1", "9",
                  "--z1", "9", "--color", "#3a3836"],
                 ["fill-box", "--part", "head", "--x0", "5", "--y0", "10", "--z0", "5", "--x1", "11", "--y1", "14",
                  "--z1", "11", "--color", "#c8a24a"], ["render"]):
        assert main_anim(args) == 0
    wait_for(lambda: watch.board.accepted == 3)  # one frame a part (part 0 replaces the model's frame 0)
    frames = json.loads(_get(watch.page.port, "/state").read())["frames"]
    assert [(f["frame"], f["mesh"]) for f in frames] == [(0, True), (1, True)]
    assert _get(watch.page.port, f"/meshes/{frames[1]['seq']}.glb").read() == (ws / "parts/head.glb").read_bytes()


@pytest.mark.parametrize(("mesh_length", "mesh", "reason"), [
    (MAX_MESH_BYTES + 1, b"", "mesh too large"),
    (-1, b"", "bad mesh length"),
    (4, b"glTF", "bad mesh length"),
    (16, b"PK\x03\x04" + b"\x00" * 12, "mesh not a glb"),
    (16, b"glTF" + struct.pack("<II", 2, 10 ** 9) + b"\x00" * 4, "bad glb header"),
    (20, b"glTF" + struct.pack("<II", 2, 20), "mesh cut short"),
])
def test_a_hostile_mesh_is_dropped_and_counted(watched, mesh_length, mesh, reason) -> None:
    watch, _, run = watched
    body = png(4, 4)
    send(run.address, header(run.live.token, body, meshLength=mesh_length) + body + mesh)
    wait_for(lambda: watch.board.dropped[reason] == 1)
    assert watch.board.accepted == 0 and watch.board.kept_bytes == 0


@pytest.mark.timeout(120)
def test_the_live_page_turns_the_mesh(watched, tmp_path, monkeypatch) -> None:
    if not THREE.is_dir():
        pytest.fail("three.js is not installed: make node-deps (npm ci --prefix tcab/web3d/node)")
    from playwright.sync_api import sync_playwright

    watch, url, run = watched
    ws = _workspace(tmp_path, run, "valve-wheel")
    monkeypatch.chdir(ws)
    assert main_voxel(["fill-cylinder", "--cx", "8", "--cy", "0", "--cz", "8", "--radius", "5", "--length", "6",
                       "--axis", "y", "--color", "#c8a24a"]) == 0
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium",
                                    args=["--use-gl=swiftshader", "--enable-unsafe-swiftshader"])
        try:
            page = browser.new_page()
            problems: list[str] = []
            outside: list[str] = []
            page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
            page.on("request", lambda r: outside.append(r.url) if not r.url.startswith(url) else None)
            page.goto(url)
            assert main_voxel(["render"]) == 0
            page.locator("figure[data-turning='1'] canvas").wait_for(timeout=20_000)
            page.wait_for_timeout(300)
            page.screenshot(path=str(tmp_path / "watch-voxel.png"))
            assert page.locator("figure img").count() == 1  # the PNG is still shown beside it
            assert problems == [] and outside == [], (problems, outside)
        finally:
            browser.close()


# Counts the page's WebGL buffers as three.js creates and deletes them (a geometry's attributes and index).
COUNT_BUFFERS = """
window.__buffers = {created: 0, deleted: 0};
for (const C of [WebGLRenderingContext, WebGL2RenderingContext]) {
  const create = C.prototype.createBuffer, remove = C.prototype.deleteBuffer;
  C.prototype.createBuffer = function () { window.__buffers.created += 1; return create.call(this); };
  C.prototype.deleteBuffer = function (b) { if (b) window.__buffers.deleted += 1; return remove.call(this, b); };
}
"""


@pytest.mark.timeout(120)
def test_a_replaced_mesh_frees_the_old_one_on_the_gpu(watched, tmp_path, monkeypatch) -> None:
    if not THREE.is_dir():
        pytest.fail("three.js is not installed: make node-deps (npm ci --prefix tcab/web3d/node)")
    from playwright.sync_api import sync_playwright

    watch, url, run = watched
    ws = _workspace(tmp_path, run, "valve-wheel")
    monkeypatch.chdir(ws)
    assert main_voxel(["fill-box", "--x0", "2", "--y0", "0", "--z0", "2", "--x1", "9", "--y1", "4", "--z1", "9",
                       "--color", "#808890"]) == 0
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium",
                                    args=["--use-gl=swiftshader", "--enable-unsafe-swiftshader"])
        try:
            page = browser.new_page()
            page.add_init_script(COUNT_BUFFERS)
            page.goto(url)
            assert main_voxel(["render"]) == 0
            # The page's CSP has no 'unsafe-eval' for wait_for_function: evaluate() is polled instead.
            def created() -> int:
                return page.evaluate("window.__buffers.created")

            wait_for(lambda: created() > 0, timeout=20)
            first = page.evaluate("window.__buffers")
            # The same model rendered again: each render replaces the frame's mesh, and is turned.
            for n in range(2, 5):
                assert main_voxel(["render"]) == 0
                wait_for(lambda n=n: created() >= n * first["created"], timeout=20)
            page.wait_for_timeout(300)
            got = page.evaluate("window.__buffers")
        finally:
            browser.close()
    assert got["created"] - got["deleted"] == first["created"] - first["deleted"], (first, got)


@pytest.mark.podman
@pytest.mark.timeout(300)
def test_a_watched_voxel_run_streams_from_the_image(settings, scripted, podman_runtime) -> None:
    """For real: the voxel image's own ``voxel render`` inside a run container
    reaches the listener with the PNG and the mesh it wrote."""
    from tcab.runs import RunOptions, execute_run

    case, _ = load_version(REPO / "test-cases/asset-generation/easy/valve-wheel/v1.0.0")
    watch = Watch()
    try:
        harness = scripted("voxel fill-box --x0 0 --y0 0 --z0 0 --x1 7 --y1 3 --z1 7 --color '#c8a24a' "
                           "&& voxel render")
        record = execute_run(settings, case, case.variant(None), harness,
                             RunOptions(runtime=podman_runtime, watch=watch))
        assert record.status == "completed", record.status_detail
        state = watch.board.state()
        assert state["accepted"] == 1 and state["dropped"] == {}, state
        [shown] = state["frames"]
        assert (shown["frame"], shown["op"], shown["count"], shown["mesh"]) == (0, "render", 1, True)
        assert watch.board.mesh(shown["seq"]) == (record.run_dir / "work/mesh.glb").read_bytes()
        assert watch.board.image(shown["seq"]) == (record.run_dir / "work/model.png").read_bytes()
    finally:
        watch.close()
