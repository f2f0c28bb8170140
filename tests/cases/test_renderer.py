"""The replay renderer in a real headless Chromium: it loads a replay and draws a tick."""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

from tcab.arena.game import GameSpec
from tcab.arena.match import Entrant, play_match
from tcab.arena.replay import encode_replay
from tcab.catalog import load_version
from tests.support.capture import CASE, R

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def test_the_renderer_loads_a_gzip_replay_and_shows_the_tick(modules, tmp_path):
    assert CHROMIUM, "needs Debian's chromium: make host installs it"
    case, problems = load_version(CASE)
    assert not problems
    spec = GameSpec.from_case(case, case.variant("base"))
    record = play_match(spec, [Entrant.from_path(modules["guard"], "guard"),
                               Entrant.from_path(modules["rush"], "rush")], 3)
    (tmp_path / "m.json.gz").write_bytes(encode_replay(record.replay))
    shutil.copy(CASE / "replay/index.html", tmp_path / "index.html")
    state = R.init(spec.params, 3, 2)
    for actions in record.replay["ticks"][:100]:
        state = R.step(state, actions, spec.timestep_ms)

    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(tmp_path)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_port}/index.html?src=m.json.gz&tick=100"
        run = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                              "--virtual-time-budget=5000", "--dump-dom", url],
                             capture_output=True, text=True, timeout=90)
    finally:
        server.shutdown()
    status = re.search(r'id="status">(.*?)</span>\s*</header>', run.stdout, re.S)
    assert status, run.stdout[-2000:]
    text = re.sub(r"<[^>]+>", "", status.group(1))
    assert text.startswith(f"tick 100/{len(record.replay['ticks'])}")
    assert f"{state.scores[0]} : {state.scores[1]}" in text
    assert f"tags {state.tags[0]}:{state.tags[1]}" in text
    assert "guard" in run.stdout and "rush" in run.stdout   # the header's seat names
