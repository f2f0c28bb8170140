"""How deep a JSON text nests, counted without parsing it (a bomb costs one
chunk): the glTF reader and the voxel rig both refuse deep documents with it."""

from __future__ import annotations

_STRING = None


def max_depth(data: bytes, limit: int | None = None) -> int:
    """The deepest bracket nesting of JSON bytes (strings skipped), counted
    without parsing: strings removed by one regex, then a running sum (numpy
    for a large text, 1 MiB at a time). With ``limit``, it stops at the first
    chunk that passes it and returns that depth (a bomb costs one chunk)."""
    global _STRING
    if _STRING is None:
        import re
        _STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')  # unrolled: no per-character alternation
    bare = _STRING.sub(b"", data)
    if len(bare) > 1 << 16:
        import numpy as np
        depth = deepest = 0
        for start in range(0, len(bare), 1 << 20):
            codes = np.frombuffer(bare, np.uint8, count=min(1 << 20, len(bare) - start), offset=start)
            step = ((codes == 0x5B) | (codes == 0x7B)).astype(np.int64) - ((codes == 0x5D) | (codes == 0x7D))
            running = np.cumsum(step) + depth
            deepest, depth = max(deepest, int(running.max())), int(running[-1])
            if limit is not None and deepest > limit:
                break
        return deepest
    depth = deepest = 0
    for byte in bare:
        if byte in (0x5B, 0x7B):
            depth += 1
            deepest = max(deepest, depth)
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return deepest
