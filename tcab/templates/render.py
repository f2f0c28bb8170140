"""Compiling and strictly rendering Handlebars templates, as handlebars.js renders them.

No HTML escaping: specs and prompts are Markdown and plain text, so ``{{x}}``
renders like ``{{{x}}}`` (handlebars.js' ``noEscape``). Parsing is cached;
rendering collects every problem on the rendered path and raises one
TemplateError naming the template, line and column of each.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tcab.errors import TemplateError
from tcab.templates.evaluate import ALL_HELPERS, render_tree
from tcab.templates.parse import Program, line_col, parse

HELPERS = ALL_HELPERS


@dataclass(frozen=True, slots=True)
class Template:
    """A parsed template; ``name`` is what errors call it (its path)."""

    name: str
    source: str
    tree: Program

    def _render(self, context: Mapping[str, Any]) -> tuple[str, list[str]]:
        out, found = render_tree(self.tree, dict(context))
        problems = []
        for pos, message in found:
            line, col = line_col(self.source, pos)
            problems.append(f"{self.name}:{line}:{col}: {message}")
        return out, problems

    def problems(self, context: Mapping[str, Any]) -> list[str]:
        """What goes wrong rendering against ``context``, each as ``name:line:col: message``."""
        return self._render(context)[1]

    def render(self, context: Mapping[str, Any]) -> str:
        """Render strictly. Raises TemplateError naming the template, line, column and each problem."""
        out, problems = self._render(context)
        if problems:
            raise TemplateError("\n".join(problems))
        return out


@functools.lru_cache(maxsize=256)
def compile_template(source: str, name: str) -> Template:
    """Parse ``source`` (cached). Raises TemplateError naming the template, line and column."""
    return Template(name, source, parse(source, name))


def render_template(source: str, name: str, context: Mapping[str, Any]) -> str:
    """Compile (cached) and strictly render ``source``. Raises TemplateError."""
    return compile_template(source, name).render(context)


__all__ = ["HELPERS", "Template", "compile_template", "render_template"]
