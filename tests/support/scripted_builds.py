"""Builds for the validation-script tests: the good Tally build
(tests/fixtures/scripted-builds/good) and hostile variants of it, each the
good build plus one script (``hostile.js``, loaded after the game) that
attacks the runner."""

from __future__ import annotations

import shutil
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "scripted-builds"
GOOD = FIXTURES / "good"
SCRIPTS = FIXTURES / "scripts"

#: name -> the JavaScript the hostile build adds after game.js.
HOSTILE = {
    # Fakes what a pixel read and a clip would see in the page's own world.
    "hijack-canvas": """
        const real = CanvasRenderingContext2D.prototype.getImageData;
        CanvasRenderingContext2D.prototype.getImageData = function (...a) {
          const d = real.apply(this, a); for (let i = 0; i < d.data.length; i += 4) {
            d.data[i] = 0; d.data[i + 1] = 255; d.data[i + 2] = 0; } return d; };
        HTMLCanvasElement.prototype.captureStream = () => { throw new Error("no film for you"); };
        window.MediaRecorder = function () { throw new Error("no recorder for you"); };
        const paint = window.__tally.paint; window.__tally.paint = () => paint("red");
    """,
    # The handle turns into a Proxy that hangs every call after the first reset.
    "hijack-handle": """
        const api = window.__tally; let armed = false;
        Object.defineProperty(window, "__tally", { configurable: true, get() {
          if (!armed) return { ...api, reset(o) { armed = true; return api.reset(o); } };
          return new Proxy({}, { get: () => () => new Promise(() => {}) }); } });
    """,
    # JSON.stringify lies: a non-string, then a huge string.
    "hijack-json": """
        const stringify = JSON.stringify; let n = 0;
        JSON.stringify = function (v, ...r) { n += 1; return n > 1 ? "x".repeat(64 * 1024 * 1024) : {}; };
    """,
    # The page never finishes loading: its script spins before load.
    "spin-at-load": """
        for (;;) {}
    """,
    # Every snapshot spins forever.
    "spin": """
        window.__tally.snapshot = () => { for (;;) {} };
    """,
    # A reset goes to another page, whose fake handle reports what the script wants.
    "navigate": """
        window.__tally.reset = () => { location.href = "fake.html"; return new Promise(() => {}); };
    """,
    # Miscounts, and leaves for another page when handed its clock back (the record pass).
    "miscount-then-leave": """
        const api = window.__tally, bump = api.bump, auto = api.setAutoStep;
        api.bump = (n) => bump((n ?? 1) + 1);
        api.setAutoStep = (on) => { if (on) location.href = "fake.html"; return auto(on); };
    """,
    # The console is flooded for as long as the page lives.
    "flood": """
        setInterval(() => { for (let i = 0; i < 2000; i += 1) console.log("flood " + i + " " + "#".repeat(300)); }, 1);
    """,
    # A snapshot allocates without bound.
    "swell": """
        window.__tally.snapshot = () => { const keep = []; for (;;) keep.push(new Array(1e6).fill(Math.random())); };
    """,
    # A bump counts but answers nothing (undefined: the JSON result drops its "actual").
    "bump-undefined": """
        const bump = window.__tally.bump; window.__tally.bump = (n) => { bump(n); };
    """,
    # Dialogs on every step; a popup on load.
    "dialogs": """
        const step = window.__tally.step; window.__tally.step = (n) => { alert("hi"); confirm("sure?"); return step(n); };
        window.open("https://example.com/");
    """,
}

FAKE_PAGE = """<!doctype html><html><body><script>
window.__tally = { version: 1, reset() {}, step() {}, setAutoStep() {}, bump() { return 2; },
  snapshot() { return { count: 2, ticks: 30, color: "green" }; }, paint() {} };
</script></body></html>"""


def build(tmp_path: Path, name: str) -> Path:
    """The good build copied under ``tmp_path/name``, plus hostile script ``name`` (or none for ``good``)."""
    folder = tmp_path / name
    shutil.copytree(GOOD, folder)
    if name != "good":
        (folder / "hostile.js").write_text(f"(() => {{ {HOSTILE[name]} }})();\n")
        html = (folder / "index.html").read_text()
        (folder / "index.html").write_text(html.replace('<script src="game.js"></script>',
                                                        '<script src="game.js"></script><script src="hostile.js"></script>'))
        (folder / "fake.html").write_text(FAKE_PAGE)
    return folder
