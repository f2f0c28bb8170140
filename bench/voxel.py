"""The voxel tools' costs, each against a baseline measured in the same run.

1. One `voxel fill-box` call as a fresh process against `python3 -c pass`
   (target <= 3x): both the same interpreter with the same flags, the tool
   through a launcher like a console script; rounds alternate the two;
   medians of wall time and of CPU time (user+sys, steadier on a loaded machine).
2. Meshing an 80x70x80 volume (tcab.voxel.mesh.mesh_volume) against a bare
   numpy face-culling pass that emits the same quads (positions, colours,
   indices) in the plainest way (target <= 2x, CPU time).
3. One 512x512 render of that mesh (tcab.voxel.render.rasterize) against the
   same mesh drawn by a bare numpy z-buffer loop, one triangle at a time with
   float barycentrics (target <= 2x, CPU time).

Usage: python bench/voxel.py [--rounds N]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from tcab.voxel.log import op_line, replay_bytes  # noqa: E402
from tcab.voxel.mesh import mesh_volume  # noqa: E402
from tcab.voxel.render import rasterize  # noqa: E402

FILL_BOX = ["fill-box", "--x0", "3", "--y0", "4", "--z0", "5", "--x1", "10", "--y1", "6", "--z1", "9",
            "--color", "#c46b3f"]
LAUNCHER = """#!{python}
import sys
sys.path.insert(0, {root!r})
from tcab.voxel.cli import main_voxel
sys.exit(main_voxel())
"""


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def bench_call(rounds: int) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / ".tcab").mkdir()
        (folder / ".tcab" / "voxel.json").write_text(json.dumps(
            {"kind": "voxel-model", "width": 16, "height": 16, "depth": 16}))
        launcher = folder / "voxel"
        launcher.write_text(LAUNCHER.format(python=sys.executable, root=str(ROOT)))
        launcher.chmod(0o755)
        commands = {"baseline": [sys.executable, "-c", "pass"], "tool": [str(launcher), *FILL_BOX]}
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "0"}
        subprocess.run(commands["tool"], cwd=folder, check=True, capture_output=True, env=env)  # compile once
        wall: dict[str, list[float]] = {k: [] for k in commands}
        cpu: dict[str, list[float]] = {k: [] for k in commands}
        for _ in range(rounds):
            for name, command in commands.items():
                c0, t0 = _child_cpu(), time.perf_counter()
                subprocess.run(command, cwd=folder, check=True, capture_output=True, env=env)
                wall[name].append(time.perf_counter() - t0)
                cpu[name].append(_child_cpu() - c0)
    out = {}
    for kind, series in (("wall", wall), ("cpu", cpu)):
        base, tool = statistics.median(series["baseline"]), statistics.median(series["tool"])
        out[kind] = {"baseline_ms": round(base * 1000, 2), "tool_ms": round(tool * 1000, 2),
                     "ratio": round(tool / base, 2)}
    return out


def model_volume(seed: int = 11):
    rng = random.Random(seed)
    ops = [("fill-ellipsoid", {"cx": 40, "cy": 30, "cz": 40, "rx": 34, "ry": 26, "rz": 30, "color": "#8a6a3a"})]
    for _ in range(300):
        color = f"#{rng.getrandbits(24):06x}"
        x, y, z = rng.randrange(80), rng.randrange(70), rng.randrange(80)
        if rng.random() < 0.5:
            ops.append(("fill-box", {"x0": x, "y0": y, "z0": z, "x1": x + rng.randrange(1, 8),
                                     "y1": y + rng.randrange(1, 8), "z1": z + rng.randrange(1, 8), "color": color}))
        elif rng.random() < 0.5:
            ops.append(("clear-box", {"x0": x, "y0": y, "z0": z, "x1": x + rng.randrange(1, 6),
                                      "y1": y + rng.randrange(1, 6), "z1": z + rng.randrange(1, 6)}))
        else:
            ops.append(("fill-sphere", {"cx": x, "cy": y, "cz": z, "radius": rng.randrange(1, 6), "color": color}))
    return replay_bytes(b"".join(op_line(n, v) for n, v in ops), (80, 70, 80))


def bare_mesh(data: np.ndarray):
    """The plain numpy face-culling pass: for each direction, visible faces, then 4 corners each."""
    solid = data != 0
    padded = np.pad(solid, 1)
    positions, colors = [], []
    for axis in range(3):
        for sign in (1, -1):
            shifted = np.roll(padded, -sign, axis=axis)[1:-1, 1:-1, 1:-1]
            where = np.argwhere(solid & ~shifted)
            corners = np.zeros((4, 3), np.int64)
            u, v = (axis + 1) % 3, (axis + 2) % 3
            for i, (a, b) in enumerate([(0, 0), (1, 0), (1, 1), (0, 1)]):
                corners[i, axis], corners[i, u], corners[i, v] = (1 if sign > 0 else 0), a, b
            positions.append((where[:, None, :] + corners[None]).reshape(-1, 3))
            colors.append(np.repeat(data[tuple(where.T)], 4))
    count = sum(len(p) for p in positions) // 4
    indices = (np.arange(count)[:, None] * 4 + np.array([0, 1, 2, 0, 2, 3])).reshape(-1)
    return np.concatenate(positions).astype(np.float32), np.concatenate(colors), indices.astype(np.uint32)


def bare_render(positions: np.ndarray, indices: np.ndarray, size: int = 512) -> np.ndarray:
    """A plain numpy z-buffer loop: project (iso), then one triangle at a time."""
    r = np.array([[1.7320508, 0, -1.7320508], [-1, 2, -1], [1, 1, 1]])
    proj = positions.astype(np.float64) @ r.T
    lo, hi = proj.min(axis=0), proj.max(axis=0)
    scale = (size - 32) / max(hi[0] - lo[0], hi[1] - lo[1])
    sx = (proj[:, 0] - (lo[0] + hi[0]) / 2) * scale + size / 2
    sy = size / 2 - (proj[:, 1] - (lo[1] + hi[1]) / 2) * scale
    zbuf = np.full((size, size), -np.inf)
    image = np.zeros((size, size), np.int64)
    for t, (a, b, c) in enumerate(indices.reshape(-1, 3)):
        xs, ys = sx[[a, b, c]], sy[[a, b, c]]
        x0, x1 = max(int(xs.min()), 0), min(int(xs.max()) + 1, size - 1)
        y0, y1 = max(int(ys.min()), 0), min(int(ys.max()) + 1, size - 1)
        if x0 > x1 or y0 > y1:
            continue
        gx, gy = np.meshgrid(np.arange(x0, x1 + 1) + 0.5, np.arange(y0, y1 + 1) + 0.5)
        det = (ys[1] - ys[2]) * (xs[0] - xs[2]) + (xs[2] - xs[1]) * (ys[0] - ys[2])
        if det >= 0:  # back face (or degenerate)
            continue
        w0 = ((ys[1] - ys[2]) * (gx - xs[2]) + (xs[2] - xs[1]) * (gy - ys[2])) / det
        w1 = ((ys[2] - ys[0]) * (gx - xs[2]) + (xs[0] - xs[2]) * (gy - ys[2])) / det
        w2 = 1 - w0 - w1
        inside = (w0 >= 0) & (w1 >= 0) & (w2 >= 0)
        depth = w0 * proj[a, 2] + w1 * proj[b, 2] + w2 * proj[c, 2]
        region = zbuf[y0:y1 + 1, x0:x1 + 1]
        nearer = inside & (depth > region)
        region[nearer] = depth[nearer]
        image[y0:y1 + 1, x0:x1 + 1][nearer] = t
    return image


def _timed(fn, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        c0 = _cpu()
        fn()
        times.append(_cpu() - c0)
    return statistics.median(times)


def bench_mesh(rounds: int) -> dict:
    volume = model_volume()
    mesh = mesh_volume(volume)
    positions, _, indices = bare_mesh(volume.data)
    assert len(positions) == len(mesh.positions) and len(indices) == len(mesh.indices)
    base = _timed(lambda: bare_mesh(volume.data), rounds)
    tool = _timed(lambda: mesh_volume(volume), rounds)
    return {"faces": mesh.faces, "baseline_ms": round(base * 1000, 1), "tool_ms": round(tool * 1000, 1),
            "ratio": round(tool / base, 2)}


def bench_render(rounds: int) -> dict:
    mesh = mesh_volume(model_volume())
    base = _timed(lambda: bare_render(mesh.positions, mesh.indices), max(1, rounds // 3))
    tool = _timed(lambda: rasterize(mesh, "iso", (80, 70, 80)), rounds)
    return {"triangles": mesh.triangles, "baseline_ms": round(base * 1000, 1), "tool_ms": round(tool * 1000, 1),
            "ratio": round(tool / base, 2)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=9)
    args = parser.parse_args()
    report = {"call": bench_call(args.rounds * 2), "mesh": bench_mesh(args.rounds),
              "render": bench_render(args.rounds)}
    print(json.dumps(report, indent=2))
    ok = report["call"]["cpu"]["ratio"] <= 3 and report["mesh"]["ratio"] <= 2 and report["render"]["ratio"] <= 2
    print("targets: fill-box <= 3x, mesh <= 2x, render <= 2x:", "met" if ok else "NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
