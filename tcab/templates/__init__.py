"""Strict Handlebars templates (pybars3): unknown names fail, nothing is HTML-escaped.

Helpers: ``eq``, ``ne``, ``and``, ``or``, ``not`` (use in subexpressions, e.g.
``{{#if (eq variant.slug "torus")}}``), plus the built-in blocks ``if``,
``unless``, ``each`` and ``with``.
"""

from tcab.templates.render import HELPERS, Template, compile_template, render_template

__all__ = ["HELPERS", "Template", "compile_template", "render_template"]
