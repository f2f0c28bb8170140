"""Load a case's rules module (``[game].module``) and call it.

The module is a plain Python file with the fixed functions of
docs/contracts.md (init, observe, check, step, outcome, digest). It is loaded
from its path under a private name derived from its content, and removed
from ``sys.modules`` again right after it ran, so two cases (or two versions
of one case) never see each other's module and nothing leaks into the
process. A failure inside the rules is our bug, never a bot's: it raises
``ArenaError`` naming the file and the function.
"""

from __future__ import annotations

import hashlib
import importlib.util
import sys
import threading
from pathlib import Path
from types import ModuleType

from tcab.errors import ArenaError
from tcab.reading import read_bytes

#: The largest rules module read (the sample cases' are under 64 KiB).
MAX_RULES_BYTES = 16 * 1024 * 1024
REQUIRED = ("init", "observe", "check", "step", "outcome", "digest")
_lock = threading.Lock()
_loaded: dict[tuple[str, str], ModuleType] = {}


def load_rules(path: Path | str) -> ModuleType:
    """Import the rules file at ``path`` (once per content per process).

    Raises ``ArenaError`` if the file is missing, does not import, or lacks
    one of the contract's functions.
    """
    path = Path(path).resolve()
    try:
        # Non-blocking and a regular file only: `replay verify --rules FIFO` is refused, not waited on.
        source = read_bytes(path, MAX_RULES_BYTES, what="rules module")
    except OSError as exc:
        raise ArenaError(f"{path}: cannot read the rules module: {exc.strerror}") from exc
    key = (str(path), hashlib.sha256(source).hexdigest())
    with _lock:
        module = _loaded.get(key)
        if module is not None:
            return module
        name = f"_tcab_rules_{key[1][:16]}"
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise ArenaError(f"{path}: not importable as a Python module")
        module = importlib.util.module_from_spec(spec)
        # Registered only while it executes: dataclasses and typing look the
        # module up by name during class creation.
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except Exception as exc:
            raise ArenaError(f"{path}: the rules module failed to import: {exc!r}") from exc
        finally:
            sys.modules.pop(name, None)
        missing = [f for f in REQUIRED if not callable(getattr(module, f, None))]
        if missing:
            raise ArenaError(f"{path}: the rules module lacks {', '.join(missing)} "
                             f"(required: {', '.join(REQUIRED)})")
        _loaded[key] = module
        return module


class Rules:
    """The contract's functions with our error translation around them."""

    def __init__(self, path: Path | str):
        self.path = Path(path)
        self.module = load_rules(path)

    def _call(self, fn: str, *args):
        try:
            return getattr(self.module, fn)(*args)
        except Exception as exc:
            raise ArenaError(f"{self.path}: rules.{fn} raised {exc!r}") from exc

    def init(self, params: dict, seed: int, seats: int):
        return self._call("init", params, seed, seats)

    def observe(self, state, seat: int) -> dict:
        return self._call("observe", state, seat)

    def check(self, state, seat: int, action: dict) -> str | None:
        return self._call("check", state, seat, action)

    def step(self, state, actions: list, timestep_ms: int):
        return self._call("step", state, actions, timestep_ms)

    def outcome(self, state, final: bool) -> dict | None:
        result = self._call("outcome", state, final)
        if result is None and final:
            raise ArenaError(f"{self.path}: rules.outcome returned None with final=True")
        if result is not None and not (isinstance(result, dict) and "winner" in result
                                       and "scores" in result and "reason" in result):
            raise ArenaError(f"{self.path}: rules.outcome must return winner, scores and reason, got {result!r}")
        return result

    def digest(self, state) -> str:
        value = self._call("digest", state)
        if not isinstance(value, str):
            raise ArenaError(f"{self.path}: rules.digest must return a hex string, got {value!r}")
        return value
