"""The Torus Life oracle: the rules of specs/rules.md in Python, and the
generator of this case's scenarios and their expected snapshots.

``run(scenario)`` is the output an engine must produce for a scenario (the
``expected`` file of a ``[[case]]``). ``step`` is the bit-parallel form used
to generate; ``step_cells`` is the rule as the spec words it, cell by cell,
and the tests hold the two equal.

    python3 oracle/torus_life.py generate   # rewrite cases/ and training/
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

FNV_OFFSET = 0xCBF29CE484222325
FNV_PRIME = 0x100000001B3
MASK64 = (1 << 64) - 1


def checksum(rows: list[int]) -> str:
    """FNV-1a 64 over each row as 8 little-endian bytes, as 16 lowercase hex digits."""
    h = FNV_OFFSET
    for row in rows:
        for byte in row.to_bytes(8, "little"):
            h = ((h ^ byte) * FNV_PRIME) & MASK64
    return f"{h:016x}"


def parse_rows(lines: list[str]) -> list[int]:
    return [sum(1 << x for x, c in enumerate(line) if c == "#") for line in lines]


def step_cells(rows: list[int], w: int, h: int, birth: set[int], survive: set[int]) -> list[int]:
    """One tick, cell by cell: the rule exactly as specs/rules.md states it."""
    def live(x: int, y: int) -> int:
        return (rows[y % h] >> (x % w)) & 1

    out = []
    for y in range(h):
        row = 0
        for x in range(w):
            n = sum(live(x + dx, y + dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if dx or dy)
            if n in (survive if live(x, y) else birth):
                row |= 1 << x
        out.append(row)
    return out


def step(rows: list[int], w: int, h: int, birth: set[int], survive: set[int]) -> list[int]:
    """One tick, 64 cells at a time: the eight neighbour rows added bit-sliced."""
    mask = (1 << w) - 1

    def left(r: int) -> int:  # bit x is cell x - 1
        return ((r << 1) | (r >> (w - 1))) & mask

    def right(r: int) -> int:  # bit x is cell x + 1
        return ((r >> 1) | (r << (w - 1))) & mask

    out = []
    for y in range(h):
        up, mid, dn = rows[y - 1], rows[y], rows[(y + 1) % h]
        c = [0, 0, 0, 0]
        for v in (left(up), up, right(up), left(mid), right(mid), left(dn), dn, right(dn)):
            for i in range(4):
                c[i], v = c[i] ^ v, c[i] & v
        row = 0
        for n in range(9):
            eq = mask
            for i in range(4):
                eq &= c[i] if n >> i & 1 else ~c[i]
            row |= eq & ((mid if n in survive else 0) | (~mid & mask if n in birth else 0))
        out.append(row & mask)
    return out


def run(scenario: dict) -> dict:
    """The snapshots an engine must return for ``scenario``."""
    w, h = scenario["width"], scenario["height"]
    birth, survive = set(scenario["birth"]), set(scenario["survive"])
    rows = parse_rows(scenario["rows"])
    tick, snaps = 0, []
    for want in scenario["snapshots"]:
        while tick < want:
            nxt = step(rows, w, h, birth, survive)
            tick += 1
            if nxt == rows:  # a fixed point: nothing changes any more
                tick = want
            rows = nxt
        snaps.append({"tick": tick, "checksum": checksum(rows)})
    return {"snapshots": snaps}


RULES = {  # name -> (birth, survive)
    "life": ([3], [2, 3]), "highlife": ([3, 6], [2, 3]), "day-and-night": ([3, 6, 7, 8], [3, 4, 6, 7, 8]),
    "seeds": ([2], []), "maze": ([3], [1, 2, 3, 4, 5]), "2x2": ([3, 6], [1, 2, 5]),
}


def scenario(rng: random.Random, w: int, h: int, rule: str, ticks: int, shots: int, density: float) -> dict:
    birth, survive = RULES[rule]
    rows = ["".join("#" if rng.random() < density else "." for _ in range(w)) for _ in range(h)]
    marks = sorted(rng.sample(range(1, ticks), shots - 2)) if shots > 2 else []
    return {"width": w, "height": h, "birth": birth, "survive": survive, "rows": rows,
            "snapshots": [0, *marks, ticks]}


# (set, name, width, height, rule, ticks, snapshots, density); seeds differ per set, so
# the training scenarios are disjoint from the held-out ones.
SETS = (
    ("cases", "smoke/blinker", 5, 5, "life", 4, 3, 0.0),
    ("cases", "smoke/small", 12, 9, "highlife", 30, 5, 0.35),
    ("cases", "smoke/wide", 64, 6, "life", 20, 4, 0.3),
    ("cases", "stress/life", 64, 128, "life", 400, 8, 0.3),
    ("cases", "stress/daynight", 48, 96, "day-and-night", 300, 6, 0.5),
    ("cases", "stress/maze", 61, 80, "maze", 250, 5, 0.08),
    ("workspaces/base/training", "small", 16, 16, "life", 40, 5, 0.3),
    ("workspaces/base/training", "seeds", 32, 24, "seeds", 60, 4, 0.05),
    ("workspaces/base/training", "stress-like", 64, 100, "2x2", 300, 6, 0.4),
)


def generate(root: Path) -> None:
    for index, (folder, name, w, h, rule, ticks, shots, density) in enumerate(SETS):
        rng = random.Random(f"torus-life/{folder}/{name}/{index}")
        s = scenario(rng, w, h, rule, ticks, shots, density)
        if name == "smoke/blinker":
            s["rows"] = [".....", ".....", ".###.", ".....", "....."]
        base = root / folder / name
        base.parent.mkdir(parents=True, exist_ok=True)
        base.with_name(base.name + ".input.json").write_text(json.dumps(s, separators=(",", ":")) + "\n")
        base.with_name(base.name + ".expected.json").write_text(json.dumps(run(s), indent=1) + "\n")


if __name__ == "__main__":
    if sys.argv[1:] != ["generate"]:
        sys.exit("usage: torus_life.py generate")
    generate(Path(__file__).resolve().parents[1])
