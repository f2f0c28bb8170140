"""Strict Handlebars rendering: unknown names fail, nothing is escaped, helpers work."""

from __future__ import annotations

import pytest

from tcab.errors import TemplateError
from tcab.templates import compile_template, render_template

CONTEXT = {
    "workspace": "/work",
    "version": "v1.0.0",
    "variant": {"slug": "torus", "name": "Torus", "description": "", "params": {"size": 6, "wrap": True}},
    "specs": [{"dest": "a.md", "path": "/work/a.md", "name": "A"},
              {"dest": "b.md", "path": "/work/b.md", "name": "B"}],
}


def test_no_html_escaping():
    out = render_template("{{x}} {{{x}}}", "t.hbs", {"x": "<a & 'b'>"})
    assert out == "<a & 'b'> <a & 'b'>"


def test_each_with_parent_and_index():
    out = render_template("{{#each specs}}{{@index}}:{{path}} in {{../workspace}};{{/each}}",
                          "t.hbs", CONTEXT)
    assert out == "0:/work/a.md in /work;1:/work/b.md in /work;"


@pytest.mark.parametrize(("template", "expected"), [
    ('{{#if (eq variant.slug "torus")}}T{{else}}C{{/if}}', "T"),
    ('{{#if (ne variant.slug "torus")}}T{{else}}C{{/if}}', "C"),
    ("{{#if (and variant.params.wrap variant.params.size)}}Y{{else}}N{{/if}}", "Y"),
    ("{{#if (or (not variant.params.wrap) (eq 1 2))}}Y{{else}}N{{/if}}", "N"),
    ("{{#unless variant.params.wrap}}flat{{else}}wraps{{/unless}}", "wraps"),
    ("{{#with variant}}{{name}}/{{params.size}}{{/with}}", "Torus/6"),
])
def test_helpers(template, expected):
    assert render_template(template, "t.hbs", CONTEXT) == expected


@pytest.mark.parametrize(("template", "fragment"), [
    ("{{nope}}", "unknown variable 'nope'"),
    ("{{variant.params.sz}}", "unknown variable 'variant.params.sz'"),
    ("{{#each specs}}{{workspace}}{{/each}}", "unknown variable 'workspace'"),
    ("{{#each specs}}{{dst}}{{/each}}", "unknown variable 'dst'"),
    ("{{#if missing}}x{{/if}}", "unknown variable 'missing'"),
    ("{{@index}}", "unknown variable '@index'"),
    ("{{shout variant.name}}", "unknown helper 'shout'"),
    ("{{#if (shout 1)}}x{{/if}}", "unknown helper 'shout'"),
    ("{{> header}}", "partials"),
])
def test_strict_errors_name_template_and_variable(template, fragment):
    with pytest.raises(TemplateError) as info:
        render_template("line one\n" + template, "specs/rules.md.hbs", CONTEXT)
    message = str(info.value)
    assert message.startswith("specs/rules.md.hbs")
    assert fragment in message


def test_unknown_variable_error_names_the_line():
    with pytest.raises(TemplateError, match=r"^p\.hbs:3:5: unknown variable 'workspce'"):
        render_template("a\nb\nsee {{workspce}}\n", "p.hbs", CONTEXT)


def test_syntax_error_names_template_and_line():
    with pytest.raises(TemplateError, match=r"^s\.hbs:2:22: \{\{/fi\}\} does not close \{\{#if\}\}"):
        compile_template("ok\n{{#if x}}never closed{{/fi}}\n", "s.hbs")


def test_compiled_template_is_reusable_and_cached():
    first = compile_template("{{version}}", "v.hbs")
    assert compile_template("{{version}}", "v.hbs") is first
    assert first.render({"version": "v1"}) == "v1"
    assert first.render({"version": "v2"}) == "v2"
    assert first.problems({}) == ["v.hbs:1:1: unknown variable 'version'"]


def test_unclosed_block_at_end_of_file_is_an_error_not_a_truncated_spec():
    source = "# Rules\n\nintro\n{{#if variant.params.wrap}}\nwraps\n\nmore text\n"
    with pytest.raises(TemplateError, match=r"^r\.hbs:4:1: unclosed block \{\{#if variant\.params\.wrap\}\}"):
        render_template(source, "r.hbs", CONTEXT)


def test_error_column_is_exact_after_standalone_lines_and_crlf():
    source = "a\r\n{{#each specs}}\r\n  - {{name}}\r\n{{/each}}\r\n{{! note }}\r\nx {{nme}} {{ also }}\r\n"
    with pytest.raises(TemplateError) as info:
        render_template(source, "c.hbs", CONTEXT)
    assert str(info.value).splitlines() == [
        "c.hbs:6:3: unknown variable 'nme'",
        "c.hbs:6:11: unknown variable 'also'",
    ]
