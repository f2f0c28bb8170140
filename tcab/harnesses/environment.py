"""The run image's tool versions (OS, Node, Python), for run.json ``environment``.

Run :data:`ENVIRONMENT_PROBE` in the run container (any user) and pass its
stdout to :func:`parse_environment`. A tool the image lacks is ``None``.
"""

from __future__ import annotations

ENVIRONMENT_PROBE = [
    "sh", "-c",
    '. /etc/os-release 2>/dev/null; echo "os=${PRETTY_NAME:-}"; '
    'echo "node=$(node --version 2>/dev/null)"; echo "npm=$(npm --version 2>/dev/null)"; '
    'echo "python=$(python3 -c \'import platform; print(platform.python_version())\' 2>/dev/null)"; '
    'echo "pip=$(python3 -m pip --version 2>/dev/null | cut -d" " -f2)"',
]
KEYS = ("os", "node", "npm", "python", "pip")


def parse_environment(stdout: str) -> dict[str, str | None]:
    """``{"os": "Debian GNU/Linux 12 (bookworm)", "node": "v24.x", ...}``;
    unknown lines are ignored, values are clipped to 100 characters."""
    found: dict[str, str | None] = dict.fromkeys(KEYS)
    for line in stdout.splitlines():
        key, sep, value = line.partition("=")
        if sep and key in found and value.strip():
            found[key] = value.strip()[:100]
    return found
