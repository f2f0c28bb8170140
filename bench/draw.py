"""The drawing tool's costs, each against a baseline measured in the same run.

1. One `draw fill-rect` call as a fresh process against `python3 -c pass`
   (target <= 3x), on an empty log and at 1,000 recorded operations
   (target <= 5x). Both run the same interpreter with the same flags: here
   on the host (a launcher like the image's, `-I -S`; and both with the site
   packages, as a console script starts), bytecode compiled once, and, when
   the image is built, inside
   `test-cabinet-sprite` itself (the real `draw` against its `python3`),
   timed by a loop in the container so `podman exec` is not in the figure.
   Rounds alternate the two commands to share any drift; medians of wall
   time, and of CPU time (user+sys, steadier on a loaded machine).
2. Regenerating 10,000 operations on a 256x256 canvas (parse, check,
   replay, PNG) against a bare numpy/Pillow loop doing the same pixel work
   from the same log (json.loads per line, numpy slices per op, Pillow's
   PNG), target <= 2x, in CPU time of this process. Both images are checked
   equal pixel for pixel.

Usage: python bench/draw.py [--rounds N] [--no-container]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from math import isqrt
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tcab.draw import blank_png, png  # noqa: E402
from tcab.draw.config import ToolConfig  # noqa: E402
from tcab.draw.logs import op_line  # noqa: E402
from tcab.draw.regenerate import regenerate  # noqa: E402

FILL_RECT = ["fill-rect", "--x", "3", "--y", "4", "--width", "10", "--height", "6", "--color", "#c46bff"]
LAUNCHER = """#!{python}{flags}
import sys
sys.path.insert(0, {root!r})
from tcab.draw.cli import main_sprite
sys.exit(main_sprite())
"""


def random_ops(count: int, size: int, seed: int = 7) -> list[tuple[str, dict]]:
    rng = random.Random(seed)
    ops = []
    for _ in range(count):
        color = f"#{rng.getrandbits(32):08x}"
        kind = rng.random()
        if kind < 0.4:
            ops.append(("fill-rect", {"x": rng.randrange(-10, size), "y": rng.randrange(-10, size),
                                      "width": rng.randrange(1, 40), "height": rng.randrange(1, 40), "color": color}))
        elif kind < 0.65:
            ops.append(("set-pixel", {"x": rng.randrange(size), "y": rng.randrange(size), "color": color}))
        elif kind < 0.85:
            ops.append(("line", {"x0": rng.randrange(size), "y0": rng.randrange(size), "x1": rng.randrange(size),
                                 "y1": rng.randrange(size), "color": color}))
        else:
            ops.append(("fill-circle", {"cx": rng.randrange(size), "cy": rng.randrange(size),
                                        "r": rng.randrange(1, 20), "color": color}))
    return ops


def log_bytes(ops: list[tuple[str, dict]]) -> bytes:
    return b"".join(op_line(name, values) for name, values in ops)


def workspace(folder: Path, ops: int) -> Path:
    config = ToolConfig(kind="sprite", width=64, height=64, background="transparent", actions="actions.json",
                        preview="canvas.png", layers=".tcab/layers.jsonl")
    (folder / ".tcab").mkdir(parents=True)
    (folder / ".tcab/draw.json").write_bytes(config.to_json())
    (folder / ".tcab/layers.jsonl").write_bytes(b"")
    (folder / "actions.json").write_bytes(log_bytes(random_ops(ops, 64)))
    (folder / "canvas.png").write_bytes(blank_png(64, 64, "transparent"))
    return folder


def timed(argv: list[str], cwd: Path, env: dict) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def host_processes(rounds: int, isolated: bool) -> list[tuple[str, float, float, float, float]]:
    """``isolated``: both with -I -S (as in the image); else both with the site
    packages, the way a console script of an installed tcab starts."""
    tmp = Path(tempfile.mkdtemp(prefix="tcab-bench-draw-"))
    try:
        # -I ignores PYTHONPYCACHEPREFIX: the isolated launcher reads tcab/draw/__pycache__ (gitignored)
        env = {**os.environ} if isolated else {**os.environ, "PYTHONPYCACHEPREFIX": str(tmp / "pycache")}
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "tcab/draw")], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        launcher = tmp / "draw"
        launcher.write_text(LAUNCHER.format(python=sys.executable, flags=" -IS" if isolated else "",
                                            root=str(ROOT)))
        launcher.chmod(0o755)
        rows = []
        for label, ops in (("empty log", 0), ("1,000 recorded ops", 1000)):
            ws = workspace(tmp / f"ws{ops}", ops)
            subprocess.run([str(launcher), *FILL_RECT], cwd=ws, env=env, check=True, stdout=subprocess.DEVNULL)
            base, draw = [], []
            for _ in range(rounds):
                base.append(timed([sys.executable, *(["-I", "-S"] if isolated else []), "-c", "pass"], ws, env))
                draw.append(timed([str(launcher), *FILL_RECT], ws, env))
            rows.append((label, statistics.median(w for w, _ in base), statistics.median(w for w, _ in draw),
                         statistics.median(c for _, c in base), statistics.median(c for _, c in draw)))
        return rows
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


IN_CONTAINER = r"""
import json, os, resource, statistics, subprocess, sys, time
rounds, argv = int(sys.argv[1]), sys.argv[2:]
def timed(cmd):
    b = resource.getrusage(resource.RUSAGE_CHILDREN); s = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
    w = time.perf_counter() - s; a = resource.getrusage(resource.RUSAGE_CHILDREN)
    return w, a.ru_utime - b.ru_utime + a.ru_stime - b.ru_stime
subprocess.run(["draw", *argv], stdout=subprocess.DEVNULL, check=True)
base, draw = [], []
for _ in range(rounds):
    base.append(timed(["python3", "-c", "pass"])); draw.append(timed(["draw", *argv]))
med = lambda xs, i: statistics.median(x[i] for x in xs)
print(json.dumps([med(base, 0), med(draw, 0), med(base, 1), med(draw, 1)]))
"""


def container_processes(rounds: int) -> list[tuple[str, float, float, float, float]] | None:
    from tcab.runtime import resolve_image
    image = resolve_image("sprite")
    if subprocess.run(["podman", "image", "exists", image]).returncode != 0:
        print(f"(no {image}: run `make images` for the in-image figures)")
        return None
    tmp = Path(tempfile.mkdtemp(prefix="tcab-bench-draw-"))
    name = f"tcab-bench-draw-{os.getpid()}"
    try:
        subprocess.run(["podman", "run", "-d", "--rm", "--name", name, image, "sleep", "600"], check=True,
                       stdout=subprocess.DEVNULL)
        rows = []
        for label, ops in (("empty log", 0), ("1,000 recorded ops", 1000)):
            ws = workspace(tmp / f"ws{ops}", ops)
            subprocess.run(["podman", "exec", "-u", "root", name, "rm", "-rf", "/work/ws"], check=True)
            subprocess.run(["podman", "cp", f"{ws}/.", f"{name}:/work/ws"], check=True)
            subprocess.run(["podman", "exec", "-u", "root", name, "chown", "-R", "tcab:tcab", "/work/ws"], check=True)
            done = subprocess.run(["podman", "exec", "-w", "/work/ws", name, "python3", "-c", IN_CONTAINER,
                                   str(rounds), *FILL_RECT], check=True, capture_output=True, text=True)
            rows.append((label, *json.loads(done.stdout)))
        return rows
    finally:
        subprocess.run(["podman", "rm", "-f", "-t", "0", name], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(tmp, ignore_errors=True)


def numpy_baseline(log: bytes, size: int) -> bytes:
    """The same pixels with numpy slices (and Pillow's PNG): the bare loop."""
    import io

    import numpy as np
    from PIL import Image

    canvas = np.zeros((size, size, 4), dtype=np.uint8)
    for line in log.splitlines():
        op = json.loads(line)
        c = np.frombuffer(bytes.fromhex(op["color"][1:]), dtype=np.uint8)
        name = op["op"]
        if name == "fill-rect":
            x, y = op["x"], op["y"]
            canvas[max(y, 0):max(y + op["height"], 0), max(x, 0):max(x + op["width"], 0)] = c
        elif name == "set-pixel":
            canvas[op["y"], op["x"]] = c
        elif name == "line":
            x0, y0, x1, y1 = op["x0"], op["y0"], op["x1"], op["y1"]
            dx, dy = x1 - x0, y1 - y0
            n = max(abs(dx), abs(dy))
            if n == 0:
                canvas[y0, x0] = c
                continue
            i = np.arange(n + 1)
            if abs(dx) >= abs(dy):
                xs, ys = x0 + np.sign(dx) * i, y0 + (2 * dy * i + n) // (2 * n)
            else:
                ys, xs = y0 + np.sign(dy) * i, x0 + (2 * dx * i + n) // (2 * n)
            canvas[ys, xs] = c
        elif name == "fill-circle":
            cx, cy, r = op["cx"], op["cy"], op["r"]
            for y in range(max(cy - r, 0), min(cy + r, size - 1) + 1):
                half = isqrt(r * r + r - (y - cy) ** 2)
                canvas[y, max(cx - half, 0):min(cx + half + 1, size)] = c
    out = io.BytesIO()
    Image.fromarray(canvas, "RGBA").save(out, "PNG", compress_level=6)
    return out.getvalue()


def regeneration(rounds: int) -> tuple[float, float, int]:
    import io

    from PIL import Image

    size = 256
    log = log_bytes(random_ops(10_000, size))
    config = ToolConfig(kind="sprite", width=size, height=size, background="transparent", actions="actions.json",
                        preview="canvas.png", layers="layers.jsonl")
    ours = regenerate(config, lambda frame: log, b"")[None]
    theirs = numpy_baseline(log, size)
    if png.decode(ours, size * size)[2] != Image.open(io.BytesIO(theirs)).tobytes():
        raise SystemExit("bench/draw.py: the baseline does not draw the same pixels; the ratio would mean nothing")
    base, mine = [], []
    for _ in range(rounds):  # CPU time of this process: steadier than wall time on a shared machine
        start = time.process_time()
        numpy_baseline(log, size)
        base.append(time.process_time() - start)
        start = time.process_time()
        regenerate(config, lambda frame: log, b"")
        mine.append(time.process_time() - start)
    return statistics.median(base), statistics.median(mine), len(log)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=21)
    parser.add_argument("--no-container", action="store_true")
    args = parser.parse_args()
    print(f"rounds: {args.rounds} (alternating)")

    def show(where: str, rows) -> None:
        for label, base_w, draw_w, base_c, draw_c in rows:
            target = 3 if label == "empty log" else 5
            print(f"{where}, {label}: python3 -c pass {base_w * 1000:.1f} ms, draw fill-rect {draw_w * 1000:.1f} ms"
                  f" -> {draw_w / base_w:.2f}x wall, {draw_c / max(base_c, 1e-6):.2f}x CPU (target <= {target}x)")

    show("host, both -I -S", host_processes(args.rounds, True))
    show("host, both with site", host_processes(args.rounds, False))
    if not args.no_container:
        rows = container_processes(args.rounds)
        if rows:
            show("in test-cabinet-sprite", rows)
    base, mine, size = regeneration(max(3, args.rounds // 4))
    print(f"regenerate 10,000 ops on 256x256 ({size} bytes of log), CPU time: numpy/Pillow {base * 1000:.0f} ms, "
          f"tcab.draw {mine * 1000:.0f} ms -> {mine / base:.2f}x (target <= 2x)")


if __name__ == "__main__":
    main()
