"""Strict Handlebars templates, rendered as handlebars.js renders them (strict, noEscape).

Helpers: ``eq``, ``ne``, ``and``, ``or``, ``not`` (use in subexpressions, e.g.
``{{#if (eq variant.slug "torus")}}``), ``lookup``, and the blocks ``if``
(with ``{{else if}}`` chains), ``unless``, ``each`` and ``with``. See docs/seeding.md.
"""

from tcab.templates.render import HELPERS, Template, compile_template, render_template

__all__ = ["HELPERS", "Template", "compile_template", "render_template"]
