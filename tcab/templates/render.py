"""Compiling and strictly rendering Handlebars templates with pybars3.

No HTML escaping: specs and prompts are Markdown and plain text, so ``{{x}}``
renders like ``{{{x}}}``. We get that by compiling a parse tree in which every
escaped expansion is turned into a raw one, rather than by patching pybars'
module-level ``escape``, which would change it for the whole process.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pybars

from tcab.errors import TemplateError
from tcab.templates.strict import check_tree, path_text

_lock = threading.Lock()  # pybars' code builder is a shared, stateful object


def _eq(this: Any, a: Any, b: Any) -> bool:
    return a == b


def _ne(this: Any, a: Any, b: Any) -> bool:
    return a != b


def _and(this: Any, *args: Any) -> bool:
    return all(args)


def _or(this: Any, *args: Any) -> bool:
    return any(args)


def _not(this: Any, a: Any) -> bool:
    return not a


def _unless(this: Any, options: Any, value: Any) -> Any:
    # pybars' own ``unless`` ignores ``{{else}}``.
    return options["inverse"](this) if value else options["fn"](this)


HELPERS = {"eq": _eq, "ne": _ne, "and": _and, "or": _or, "not": _not, "unless": _unless}


class _RawCompiler(pybars.Compiler):
    """A pybars compiler whose input is an already parsed (and unescaped) tree."""

    def __init__(self, tree: list[Any]):
        super().__init__()
        self._tree = tree

    def _generate_code(self, source: str) -> Any:
        self._compiler.globals["builder"]._reset()
        return self._compiler(self._tree).apply("compile")[0]


def _unescape(node: Any) -> Any:
    if isinstance(node, tuple) and node and node[0] == "escapedexpand":
        return ("expand", *node[1:])
    if isinstance(node, list | tuple):
        out = [_unescape(n) for n in node]
        return out if isinstance(node, list) else tuple(out)
    return node


@dataclass(frozen=True, slots=True)
class Template:
    """A parsed, compiled template; ``name`` is what errors call it (its path)."""

    name: str
    source: str
    tree: list[Any]
    function: Any

    def problems(self, context: Mapping[str, Any]) -> list[str]:
        """What would go wrong rendering against ``context`` (unknown names, helpers)."""
        return check_tree(self.tree, context)

    def render(self, context: Mapping[str, Any]) -> str:
        """Render strictly. Raises TemplateError naming the template and each unknown variable."""
        problems = self.problems(context)
        if problems:
            lines = [f"{self.name}{self._line_of(p)}: {p}" for p in problems]
            raise TemplateError("\n".join(lines))
        try:
            return str(self.function(dict(context), helpers=HELPERS))
        except Exception as exc:  # pybars raises bare exceptions from generated code
            raise TemplateError(f"{self.name}: rendering failed: {exc}") from exc

    def _line_of(self, problem: str) -> str:
        if "'" not in problem:
            return ""
        needle = problem.split("'")[1]
        for number, line in enumerate(self.source.splitlines(), start=1):
            if "{{" in line and needle in line:
                return f":{number}"
        return ""


def _line_col(source: str, position: int) -> tuple[int, int]:
    line = source.count("\n", 0, position) + 1
    return line, position - (source.rfind("\n", 0, position) + 1) + 1


@functools.lru_cache(maxsize=256)
def compile_template(source: str, name: str) -> Template:
    """Parse and compile ``source``; cached, since parsing with pybars' PEG grammar is slow.

    Raises TemplateError naming the template, line and column of a syntax error.
    """
    with _lock:
        compiler = pybars.Compiler()
        prepared = compiler.whitespace_control(source)
        try:
            tree, (position, _) = compiler._handlebars(prepared).apply("template")
        except Exception as exc:
            raise TemplateError(f"{name}: template syntax error: {exc}") from exc
        if position < len(prepared):
            line, col = _line_col(prepared, position)
            near = prepared[position : position + 30].splitlines()[0] if prepared[position:] else ""
            raise TemplateError(
                f"{name}:{line}: template syntax error at column {col} near {near!r} "
                "(an unclosed or mismatched {{#block}}?)"
            )
        try:
            function = _RawCompiler(_unescape(tree)).compile(source)
        except Exception as exc:
            raise TemplateError(f"{name}: template does not compile: {exc}") from exc
    return Template(name, source, tree, function)


def render_template(source: str, name: str, context: Mapping[str, Any]) -> str:
    """Compile (cached) and strictly render ``source``. Raises TemplateError."""
    return compile_template(source, name).render(context)


__all__ = ["HELPERS", "Template", "compile_template", "path_text", "render_template"]
