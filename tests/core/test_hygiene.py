"""The repository keeps no build litter, no second copies and no stale names.

Each check reads the tree as it is (git for what is tracked, ``ast`` for
class names), so it fails on the next wheel committed, the next file copied
into a case byte for byte, the next class name given a second meaning, or
the next path in a docstring or doc that names a test file that is gone.
"""

from __future__ import annotations

import ast
import hashlib
import re
import shutil
import subprocess
import tomllib
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _tracked(*patterns: str) -> list[str]:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.fail("these checks read the git checkout; run them from one")
    out = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "--", *patterns],
                         capture_output=True, check=True, timeout=60).stdout
    return [p for p in out.decode().split("\0") if p]


def class_definitions(root: Path) -> dict[str, list[str]]:
    """Every class name defined under ``root`` (any nesting) -> where (``file:line``)."""
    found: dict[str, list[str]] = defaultdict(list)
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ClassDef):
                found[node.name].append(f"{path.relative_to(root.parent)}:{node.lineno}")
    return dict(found)


def test_no_wheel_or_other_package_file_is_tracked() -> None:
    assert _tracked("*.whl", "*.tar.gz", "*.egg") == []
    ignored = (ROOT / ".gitignore").read_text().splitlines()
    assert "*.whl" in ignored


def test_each_class_name_means_one_thing() -> None:
    twice = {name: where for name, where in class_definitions(ROOT / "tcab").items() if len(where) > 1}
    assert twice == {}


def test_the_class_scan_sees_a_planted_duplicate(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "a.py").write_text("class Verdict:\n    pass\n")
    (pkg / "sub" / "b.py").write_text("def f():\n    class Verdict:\n        pass\n")
    assert class_definitions(pkg) == {"Verdict": ["pkg/a.py:1", "pkg/sub/b.py:2"]}


def test_no_file_of_a_shipped_case_is_a_byte_copy_of_another() -> None:
    by_digest: dict[str, list[str]] = defaultdict(list)
    for rel in _tracked("test-cases"):
        data = (ROOT / rel).read_bytes()
        if data.strip():  # empty files (.gitkeep) are alike by nature
            by_digest[hashlib.sha256(data).hexdigest()].append(rel)
    assert [paths for paths in by_digest.values() if len(paths) > 1] == []


def test_every_dependency_is_listed_once() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    lists = [project["dependencies"], *project.get("optional-dependencies", {}).values()]
    names = [re.split(r"[<>=!~\[; ]", spec, maxsplit=1)[0].lower().replace("_", "-")
             for deps in lists for spec in deps]
    assert sorted(n for n in set(names) if names.count(n) > 1) == []


# A path such as tests/runtime/test_conformance.py, named in a docstring or a doc.
_TEST_PATH = re.compile(r"\btests/[\w./-]*\w")


def test_every_test_path_named_in_code_and_docs_exists() -> None:
    sources = [*ROOT.glob("docs/**/*.md"), *ROOT.glob("tcab/**/*.py"), *ROOT.glob("bench/*.py"),
               ROOT / "README.md", ROOT / "tests/README.md"]
    missing = []
    for source in sources:
        for match in _TEST_PATH.finditer(source.read_text()):
            named = match.group(0)
            # "tests/fixtures/.../x" and a prefix "tests/cli/test_" are patterns, not paths.
            if "..." in named or named.endswith("_"):
                continue
            if not (ROOT / named).exists():
                missing.append(f"{source.relative_to(ROOT)}: {named}")
    # tests/README.md names its files relative to tests/: `runs/test_record.py`.
    for named in re.findall(r"`(\w+/(?:\w+/)*test_\w+\.py)`", (ROOT / "tests/README.md").read_text()):
        if not named.startswith("tests/") and not (ROOT / "tests" / named).exists():
            missing.append(f"tests/README.md: {named}")
    assert missing == []

