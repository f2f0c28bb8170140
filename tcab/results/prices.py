"""The operator's price table: what a million tokens of each model cost (docs/results.md, "Cost").

A TOML file named by the plan's ``prices`` key or by ``TCAB_PRICES``; tcab
never fetches prices from the network::

    currency = "USD"                      # optional, "USD" by default

    [models."claude-sonnet-4-5"]          # the model name as runs record it
    input = 3.0                           # per million input tokens
    output = 15.0                         # per million output tokens
    cache_read = 0.30                     # optional, 0 by default
    cache_write = 3.75                    # optional, 0 by default

A price is a finite number >= 0; anything else (negative, NaN, infinite, a
string), an unknown key or a model declared twice is refused as
``file:line: key: ...`` with every problem of the file at once.
"""

from __future__ import annotations

import hashlib
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import tomli

from tcab.errors import InputError, Problem
from tcab.reading import read_bytes

#: The keys of one model's prices, each per million tokens.
PRICE_KEYS = ("input", "output", "cache_read", "cache_write")
_REQUIRED = ("input", "output")
_TOP_KEYS = ("currency", "models")
_MODEL_HEADER = re.compile(r'^\s*\[\s*models\s*\.\s*("(?:[^"\\]|\\.)*"|[A-Za-z0-9_-]+)\s*\]\s*(#.*)?$')


@dataclass(frozen=True, slots=True)
class ModelPrice:
    """One model's prices per million tokens."""

    input: float
    output: float
    cache_read: float = 0.0
    cache_write: float = 0.0

    def cost(self, tokens_input: int, tokens_output: int, cache_read: int = 0, cache_write: int = 0) -> float:
        """What these token counts cost."""
        return (tokens_input * self.input + tokens_output * self.output
                + cache_read * self.cache_read + cache_write * self.cache_write) / 1_000_000


@dataclass(frozen=True, slots=True)
class PriceTable:
    path: str
    currency: str
    models: dict[str, ModelPrice]
    digest: str  # sha256 of the file: which prices a stored cost came from

    def price_of(self, model: str | None) -> ModelPrice | None:
        """The model's prices, or None: it has no price (never $0)."""
        return None if model is None else self.models.get(model)


#: A price table larger than this is refused (a table of a few hundred models is a few KiB).
MAX_BYTES = 1 << 20


@dataclass
class _Source:
    display: str
    text: str = ""
    problems: list[Problem] = field(default_factory=list)
    headers: dict[str, int] = field(default_factory=dict)  # each model's ``[models."X"]`` line

    def add(self, key: str | None, message: str, line: int | None = None) -> None:
        self.problems.append(Problem(self.display, message, key=key, line=line))

    def fail(self) -> InputError:
        return InputError("\n".join(map(str, self.problems)))


def _read(path: Path) -> tuple[_Source, dict | None]:
    """The file's text and table, or a problem (unreadable, not a regular file, too large, not TOML)."""
    source = _Source(str(path))
    try:
        raw = read_bytes(path, MAX_BYTES, what="price table")
    except OSError as exc:  # ReadRefused too: a FIFO, a device, over MAX_BYTES
        source.add(None, f"cannot read the price table: {exc.strerror or exc}")
        return source, None
    if b"\x00" in raw:
        source.add(None, "not a TOML file: it contains NUL bytes")
        return source, None
    try:
        source.text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        source.add(None, f"not a TOML file: invalid UTF-8 at byte {exc.start}")
        return source, None
    if not source.text.strip():
        source.add(None, "empty file: expected a price table")
        return source, None
    return source, _parse(source)


def _parse(source: _Source) -> dict | None:
    twice = _headers(source)
    try:
        return tomli.loads(source.text)
    except tomli.TOMLDecodeError as exc:
        line = getattr(exc, "lineno", None)
        if line not in twice:  # a duplicate is already reported, with where it was first declared
            source.add(None, f"invalid TOML: {getattr(exc, 'msg', None) or exc}", line)
        return None


def _top_line(text: str, key: str) -> int | None:
    """The line of a top-level ``key`` (before the first table header)."""
    for number, line in enumerate(text.splitlines(), start=1):
        if line.lstrip().startswith("["):
            return None
        if re.match(rf"^\s*{re.escape(key)}\s*=", line):
            return number
    return None


def load_prices(path: Path | str) -> PriceTable:
    """Read and check the price table at ``path`` (at most MAX_BYTES).

    Raises InputError listing every problem as ``file:line: key: message``.
    """
    path = Path(path)
    source, data = _read(path)
    if data is None:
        raise source.fail()
    headers = source.headers
    for key in data:
        if key not in _TOP_KEYS:
            source.add(key, f"unknown key; expected one of {', '.join(_TOP_KEYS)}", _top_line(source.text, key))
    currency = data.get("currency", "USD")
    if not isinstance(currency, str) or not re.fullmatch(r"[A-Z]{3}", currency):
        source.add("currency", f"expected a three-letter currency code such as \"USD\", got {currency!r}",
                   _top_line(source.text, "currency"))
    models = data.get("models", {})
    table: dict[str, ModelPrice] = {}
    if not isinstance(models, dict):
        source.add("models", "expected tables [models.\"NAME\"]", _top_line(source.text, "models"))
        models = {}

    def problem(name: str, key: str, message: str) -> None:
        source.add(f'[models."{name}"].{key}', message, _key_line(source.text, headers.get(name), key))

    for name, entry in models.items():
        if not isinstance(entry, dict):
            source.add(f'models."{name}"', "expected a table of prices", headers.get(name))
            continue
        values = {}
        for key, value in entry.items():
            if key not in PRICE_KEYS:
                problem(name, key, f"unknown key; expected one of {', '.join(PRICE_KEYS)}")
            elif isinstance(value, bool) or not isinstance(value, int | float):
                problem(name, key, f"expected a price per million tokens (a number >= 0), got {value!r}")
            elif not math.isfinite(value) or value < 0:
                problem(name, key, f"expected a finite price >= 0, got {value!r}")
            else:
                values[key] = float(value)
        for key in _REQUIRED:
            if key not in entry:
                problem(name, key, "required")
        if len(values) == len(entry) and all(k in values for k in _REQUIRED):
            table[name] = ModelPrice(**values)
    if source.problems:
        raise source.fail()
    return PriceTable(source.display, currency, table, hashlib.sha256(source.text.encode()).hexdigest())


def _key_line(text: str, header: int | None, key: str) -> int | None:
    """The line of ``key`` in the table whose header is on line ``header``, else the header's."""
    if header is None:
        return None
    lines = text.splitlines()
    for number in range(header + 1, len(lines) + 1):
        line = lines[number - 1]
        if line.lstrip().startswith("["):
            break
        if re.match(rf'^\s*"?{re.escape(key)}"?\s*=', line):
            return number
    return header


def _headers(source: _Source) -> set[int]:
    """Note each model's header line in ``source.headers``; a model declared
    twice (two ``[models."X"]`` headers, quoted or bare) is a problem at its
    second header, each one reported (tomli refuses the file too, but at its
    first duplicate only, as "cannot declare twice"). Returns those lines."""
    twice = set()
    for number, line in enumerate(source.text.splitlines(), start=1):
        if m := _MODEL_HEADER.fullmatch(line):
            name = m.group(1).strip('"')
            if name in source.headers:
                source.add(f'models."{name}"', f"duplicate model (first declared on line {source.headers[name]})",
                           number)
                twice.add(number)
            else:
                source.headers[name] = number
    return twice


__all__ = ["PRICE_KEYS", "ModelPrice", "PriceTable", "load_prices"]
