"""Harness install benchmark: each CLI's install line in a fresh run
container, cold (empty package cache) and warm (a package cache shared
between the runs of a sweep), side by side, as ratios.

The shared cache is one named volume per package manager mounted at the run
user's cache folder (~/.npm for npm, ~/.cache/pip for pip): the runs share
downloaded tarballs/wheels and nothing else (each container still installs
into its own ~/.npm-global or ~/.local). The volume is removed at the end.

Run: python bench/harness_install.py [SLUG ...]   (Podman, the run image)
"""

from __future__ import annotations

import subprocess
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tcab.harnesses import load_harnesses  # noqa: E402
from tcab.runtime import resolve_image  # noqa: E402

CACHES = {"npm": "/home/tcab/.npm", "pip": "/home/tcab/.cache/pip"}


def install(image: str, line: str, volume: str | None) -> float:
    mounts = []
    if volume:
        # Only the cache of the manager the line uses: a volume at
        # ~/.cache/pip makes ~/.cache root-owned, and opencode's postinstall,
        # which writes there, then fails (seen: it looked like a registry fault).
        for name, path in CACHES.items():
            if name in line.split():
                mounts += ["-v", f"{volume}-{name}:{path}:U"]
    argv = ["podman", "run", "--rm", *mounts, image, "sh", "-c", line]
    t0 = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True)
    elapsed = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"install failed: {line}\n{done.stderr[-2000:]}")
    return elapsed


def main(slugs: list[str]) -> None:
    image = resolve_image("end-to-end")
    harnesses = [h for h in load_harnesses(ROOT / "harnesses")
                 if h.install.strip() and (not slugs or h.slug in slugs)]
    volume = f"tcab-bench-cache-{uuid.uuid4().hex[:8]}"
    print(f"image {image}; shared cache volumes {volume}-npm, {volume}-pip")
    print(f"{'harness':<14}{'cold s':>9}{'warm s':>9}{'cold/warm':>11}")
    try:
        for h in harnesses:
            cold = install(image, h.install, None)
            install(image, h.install, volume)  # fills the shared cache
            warm = install(image, h.install, volume)
            print(f"{h.slug:<14}{cold:>9.1f}{warm:>9.1f}{cold / warm:>10.2f}x", flush=True)
    finally:
        for name in CACHES:
            subprocess.run(["podman", "volume", "rm", "-f", f"{volume}-{name}"], capture_output=True)


if __name__ == "__main__":
    main(sys.argv[1:])
