"""Harness definitions: ``harnesses/<slug>.toml``, one agent CLI each.

Keys (an unknown key is an error naming the file and the allowed keys)::

    slug = "claude-code"            # required, kebab-case, equals the file name
    name = "Claude Code"            # required
    binary = "claude"               # required: probed with `<binary> --version`
    install = "npm install -g ..."  # sh -c as the run user; "" for nothing
    args = ["-p", "{prompt}", "{model_args}"]   # required: the session's arguments
    model_args = ["--model", "{model}"]          # inserted at {model_args} (or appended)
                                                  # only when a model is given
    default_model = "..."           # optional
    secrets = ["ANTHROPIC_API_KEY"] # host variables passed into the container only
    env = { KEY = "value" }         # plain environment for every stage
    adapter = "claude-stream-json"  # plain | claude-stream-json | codex-json
    version_args = ["--version"]
    stage_solution = false          # copy the case's reference solution to
                                    # /tmp/tcab-solution before the session
    description = "..."

Placeholders in ``args``/``model_args``: ``{prompt}``, ``{model}``,
``{workdir}``, ``{solution}`` (where ``stage_solution`` puts the solution); each must be a whole argument or part of one (plain text
replace, so braces elsewhere are left alone).
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tcab.errors import HarnessError
from tcab.harnesses.adapters import ADAPTERS
from tcab.reading import read_bytes

_SLUG = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
SOLUTION_DIR = "/tmp/tcab-solution"
#: The largest definition file read (the shipped ones are under 2 KiB).
MAX_DEFINITION_BYTES = 256 * 1024
KEYS = ("slug", "name", "binary", "install", "args", "model_args", "default_model", "secrets",
        "env", "adapter", "version_args", "stage_solution", "description")


@dataclass(frozen=True, slots=True)
class Harness:
    """One agent harness, as its definition file says."""

    slug: str
    name: str
    binary: str
    args: tuple[str, ...]
    path: Path
    digest: str
    install: str = ""
    model_args: tuple[str, ...] = ()
    default_model: str | None = None
    secrets: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    adapter: str = "plain"
    version_args: tuple[str, ...] = ("--version",)
    stage_solution: bool = False
    description: str = ""

    def session_argv(self, prompt: str, model: str | None, workdir: str = "/work") -> list[str]:
        """The session command: binary plus args with the placeholders filled."""
        model = model or self.default_model
        extra = [a.replace("{model}", model) for a in self.model_args] if model else []

        def fill(arg: str) -> str:
            # {prompt} last: the prompt's own text must not be expanded.
            for key, value in (("{workdir}", workdir), ("{solution}", SOLUTION_DIR), ("{model}", model or "")):
                arg = arg.replace(key, value)
            return arg.replace("{prompt}", prompt)

        argv = [self.binary]
        for arg in self.args:
            if arg == "{model_args}":
                argv.extend(extra)
                extra = []
            else:
                argv.append(fill(arg))
        return argv + extra

    def to_json(self) -> dict[str, Any]:
        return {
            "slug": self.slug, "name": self.name, "binary": self.binary, "install": self.install,
            "args": list(self.args), "model_args": list(self.model_args),
            "default_model": self.default_model, "secrets": list(self.secrets),
            "adapter": self.adapter, "stage_solution": self.stage_solution,
            "description": self.description, "path": str(self.path), "digest": self.digest,
        }


def _strings(value: Any, where: str, key: str) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise HarnessError(f"{where}: {key}: expected a list of strings, got {value!r}")
    return tuple(value)


def load_harness_file(path: Path) -> Harness:
    """Parse one definition file. Raises HarnessError naming the file and key."""
    where = str(path)
    try:
        # Non-blocking, a regular file only, bounded: a FIFO or a link to /dev/zero is refused.
        raw = read_bytes(path, MAX_DEFINITION_BYTES, what="harness definition")
    except OSError as exc:
        raise HarnessError(f"{where}: cannot read: {exc.strerror or exc}") from exc
    try:
        table = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise HarnessError(f"{where}: cannot read: {exc}") from exc
    unknown = sorted(set(table) - set(KEYS))
    if unknown:
        raise HarnessError(f"{where}: {unknown[0]}: unknown key (allowed: {', '.join(KEYS)})")
    for key in ("slug", "name", "binary", "args"):
        if key not in table:
            raise HarnessError(f"{where}: {key}: required key is missing")
    for key in ("slug", "name", "binary", "install", "default_model", "adapter", "description"):
        if key in table and not isinstance(table[key], str):
            raise HarnessError(f"{where}: {key}: expected a string, got {table[key]!r}")
    slug = table["slug"]
    if not _SLUG.fullmatch(slug):
        raise HarnessError(f"{where}: slug: expected kebab-case, got {slug!r}")
    if slug != path.stem:
        raise HarnessError(f"{where}: slug: {slug!r} must equal the file name {path.stem!r}")
    secrets = _strings(table.get("secrets", []), where, "secrets")
    for name in secrets:
        if not _ENV_NAME.fullmatch(name):
            raise HarnessError(f"{where}: secrets: {name!r} is not an environment variable name")
    env = table.get("env", {})
    if not isinstance(env, dict) or not all(isinstance(v, str) and _ENV_NAME.fullmatch(k) for k, v in env.items()):
        raise HarnessError(f"{where}: env: expected a table of NAME = \"string\", got {env!r}")
    adapter = table.get("adapter", "plain")
    if adapter not in ADAPTERS:
        raise HarnessError(f"{where}: adapter: expected one of {', '.join(ADAPTERS)}, got {adapter!r}")
    stage_solution = table.get("stage_solution", False)
    if not isinstance(stage_solution, bool):
        raise HarnessError(f"{where}: stage_solution: expected true or false, got {stage_solution!r}")
    args = _strings(table["args"], where, "args")
    if not table["binary"].strip():
        raise HarnessError(f"{where}: binary: must not be empty")
    return Harness(
        slug=slug, name=table["name"], binary=table["binary"], args=args, path=path,
        digest=hashlib.sha256(raw).hexdigest(), install=table.get("install", ""),
        model_args=_strings(table.get("model_args", []), where, "model_args"),
        default_model=table.get("default_model"), secrets=secrets, env=dict(env), adapter=adapter,
        version_args=_strings(table.get("version_args", ["--version"]), where, "version_args"),
        stage_solution=stage_solution, description=table.get("description", ""),
    )


def load_harnesses(folder: Path) -> list[Harness]:
    """Every ``*.toml`` definition in ``folder``, sorted by slug.
    Raises HarnessError for the first bad file or a missing folder."""
    folder = Path(folder)
    if not folder.is_dir():
        raise HarnessError(f"{folder}: harness folder does not exist (set TCAB_HARNESSES)")
    return [load_harness_file(p) for p in sorted(folder.glob("*.toml"))]


def load_harness(folder: Path, slug: str) -> Harness:
    """The harness ``slug`` from ``folder``; an unknown slug lists the known ones."""
    path = Path(folder) / f"{slug}.toml"
    if not (path.exists() or path.is_symlink()):  # one that is there but not a file: refused by name below
        known = ", ".join(h.slug for h in load_harnesses(folder)) or "none"
        raise HarnessError(f"--harness: unknown harness {slug!r} in {folder} (known: {known})")
    return load_harness_file(path)
