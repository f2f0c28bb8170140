"""A pattern that checks a whole name is applied with ``fullmatch``.

``re.match`` with a pattern ending in ``$`` accepts a final newline
(``$`` also matches just before one): ``"FOO\\n"`` passed as an environment
variable name, a slug or an item id. This reads every module of tcab and
fails on the next ``NAME.match(...)`` of a module-level pattern anchored
with ``$``; the attacks themselves are tested where each name is used.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

TCAB = Path(__file__).resolve().parents[2] / "tcab"


def _anchored_patterns(tree: ast.Module) -> set[str]:
    found = set()
    for node in tree.body:
        if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                and isinstance(node.value.func, ast.Attribute) and node.value.func.attr == "compile"
                and node.value.args and isinstance(node.value.args[0], (ast.Constant, ast.JoinedStr))):
            arg = node.value.args[0]
            text = arg.value if isinstance(arg, ast.Constant) else ast.unparse(arg)
            if isinstance(text, str) and re.search(r"\$['\"]?\)?$", text.rstrip()):
                found |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return found


def test_no_anchored_pattern_is_applied_with_match():
    trees = {path: ast.parse(path.read_text(), str(path)) for path in sorted(TCAB.rglob("*.py"))}
    # By name across modules: a pattern is imported where it is used (KEBAB).
    names = set().union(*(_anchored_patterns(tree) for tree in trees.values()))
    offenders = []
    for path, tree in trees.items():
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "match"
                    and isinstance(node.func.value, ast.Name) and node.func.value.id in names):
                offenders.append(f"{path.relative_to(TCAB.parent)}:{node.lineno}: {node.func.value.id}.match")
    assert offenders == [], "use fullmatch: `$` also matches before a final newline\n" + "\n".join(offenders)


def test_the_rule_itself():
    pattern = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
    assert pattern.match("FOO\n") and not pattern.fullmatch("FOO\n")


def test_an_environment_name_with_a_final_newline_is_refused(tmp_path):
    """Each would have become a line break inside the exec wrapper's
    ``export`` script, or a secret's name."""
    import pytest

    from tcab.errors import HarnessError, RuntimeBackendError
    from tcab.harnesses import load_harness_file
    from tcab.runtime.kubernetes.exec import env_script

    with pytest.raises(RuntimeBackendError, match="not a valid environment variable name"):
        env_script({"FOO\n": "v"})
    assert env_script({"FOO": "v"}) == b"export FOO=v\n"
    path = tmp_path / "x.toml"
    path.write_text('slug = "x"\nname = "X"\nbinary = "x"\nargs = []\nsecrets = ["KEY\\n"]\n')
    with pytest.raises(HarnessError, match=r"secrets: 'KEY\\n' is not an environment variable name"):
        load_harness_file(path)


def test_a_slug_with_a_final_newline_names_no_case(tmp_path):
    from tcab.catalog.layout import case_folders

    (tmp_path / "end-to-end" / "easy" / "coil\n").mkdir(parents=True)
    (tmp_path / "end-to-end" / "easy" / "coil").mkdir(parents=True)
    assert case_folders(tmp_path, "coil\n") == []
    assert [f[2].name for f in case_folders(tmp_path, "coil")] == ["coil"]
